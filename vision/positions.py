"""Per-track field positions over time: gathering, smoothing and uncertainty.

Raw positions (the horse's ground point mapped through the frame's homography) jitter by a
pixel or two. Each track's series is smoothed with a centred running median then mean
(`window` frames, NaN-aware, never bridging frames where the track was not seen), and its
uncertainty is the local spread of raw around smoothed plus the size on the ground of the
detector's pixel error.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

PIXEL_ERROR_PX = 1.5        # typical error of a box's bottom edge, in pixels


def ground_point_px(horse_xyxy: np.ndarray) -> np.ndarray:
    """(N, 2) the horse's ground-contact point: the middle of the box's bottom edge, raised by
    1.5% of the box height (the hooves' spread; measured on rendered truth, see models/README.md)."""
    h = horse_xyxy[:, 3] - horse_xyxy[:, 1]
    return np.stack([(horse_xyxy[:, 0] + horse_xyxy[:, 2]) / 2, horse_xyxy[:, 3] - 0.015 * h], axis=1)


def yards_per_pixel(H: np.ndarray, px: np.ndarray) -> np.ndarray:
    """(N,) how far on the ground one pixel of vertical image error moves each point (yards)."""
    if not len(px):
        return np.zeros(0)
    a = _apply(H, px)
    b = _apply(H, px + np.array([0.0, 1.0]))
    return np.hypot(*(b - a).T)


def _apply(H: np.ndarray, px: np.ndarray) -> np.ndarray:
    p = np.c_[px, np.ones(len(px))] @ H.T
    return p[:, :2] / p[:, 2:3]


def _running(series: np.ndarray, window: int, fn) -> np.ndarray:
    """Centred running `fn` (nan-aware) of a 1-D series; NaN stays NaN."""
    if window <= 1 or len(series) < 2:
        return series.copy()
    pad = window // 2
    padded = np.pad(series, pad, constant_values=np.nan)
    view = sliding_window_view(padded, window)
    with np.errstate(all="ignore"), _quiet():
        out = fn(view, axis=1)
    out[np.isnan(series)] = np.nan
    return out


class _quiet:
    def __enter__(self):
        import warnings
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        self._w.__exit__(*exc)


def fill_gaps(series: np.ndarray, max_gap: int) -> tuple[np.ndarray, np.ndarray]:
    """Linearly interpolate each track's series (T, F, ...) across gaps of at most `max_gap`
    frames (an occluded horse behind another in the line-up); returns (filled, was_filled (T, F))."""
    out = series.copy()
    filled = np.zeros(series.shape[:2], bool)
    for k in range(series.shape[0]):
        seen = np.flatnonzero(~np.isnan(series[k].reshape(series.shape[1], -1)[:, 0]))
        for a, b in zip(seen[:-1], seen[1:]):
            if 1 < b - a <= max_gap + 1:
                w = ((np.arange(a + 1, b) - a) / (b - a)).reshape((-1,) + (1,) * (series.ndim - 2))
                out[k, a + 1:b] = series[k, a] + w * (series[k, b] - series[k, a])
                filled[k, a + 1:b] = True
    return out, filled


def smooth_tracks(xy: np.ndarray, window: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """Smooth (T, F, 2) raw positions; returns (smoothed, local spread in yards (T, F))."""
    out = np.full_like(xy, np.nan)
    spread = np.full(xy.shape[:2], np.nan)
    for k in range(xy.shape[0]):
        for c in range(2):
            med = _running(xy[k, :, c], max(3, window // 2 * 2 - 1), np.nanmedian)
            out[k, :, c] = _running(med, window, np.nanmean)
        resid = np.hypot(*(xy[k] - out[k]).T)
        spread[k] = _running(resid, window, lambda v, axis: np.sqrt(np.nanmean(v ** 2, axis=axis)))
    return out, spread
