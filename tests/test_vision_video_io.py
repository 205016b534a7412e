"""vision.video_io: reading, writing, and clear errors for bad files."""
from __future__ import annotations

import subprocess

import imageio_ffmpeg
import numpy as np
import pytest

from vision.errors import VideoError
from vision.video_io import VideoWriter, open_video, probe_video

W, H = 160, 96


def _frames(n: int) -> list[np.ndarray]:
    frames = []
    for i in range(n):
        f = np.zeros((H, W, 3), np.uint8)
        f[:, :, 2] = 40 + 20 * i            # red rises with the index
        f[20:60, 10 + 5 * i:40 + 5 * i] = (255, 255, 255)  # a moving white block
        frames.append(f)
    return frames


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    path = tmp_path_factory.mktemp("vid") / "clip.mp4"
    with VideoWriter(path, fps=25) as w:
        for f in _frames(8):
            w.write(f)
    return path


def test_write_then_read_back(clip):
    with open_video(clip) as reader:
        assert reader.size == (W, H)
        assert reader.fps == pytest.approx(25.0)
        assert reader.n_frames == 8
        got = list(reader)
    assert [i for i, _, _ in got] == list(range(8))
    assert [t for _, t, _ in got] == pytest.approx([i / 25 for i in range(8)], abs=1e-3)
    for (_, _, frame), want in zip(got, _frames(8)):
        assert frame.shape == (H, W, 3)
        assert np.abs(frame.astype(int) - want).mean() < 6   # lossy but close


def test_reader_can_iterate_twice(clip):
    reader = open_video(clip)
    assert len(list(reader)) == 8
    assert len(list(reader)) == 8
    reader.close()


def test_every_nth_frame_only_and_the_right_pixels(clip):
    """frames(every=3): frames 0, 3, 6 only (the others grabbed, not converted), each the
    frame it says it is."""
    with open_video(clip) as reader:
        got = list(reader.frames(every=3))
        assert [i for i, _, _ in got] == [0, 3, 6]
        assert [i for i, _, _ in reader.frames(start=2, every=3)] == [3, 6]
    for i, _, frame in got:
        assert np.abs(frame.astype(int) - _frames(8)[i]).mean() < 6


def test_written_file_is_browser_friendly(clip):
    data = clip.read_bytes()
    assert data[4:8] == b"ftyp"
    assert data.find(b"moov") < data.find(b"mdat")           # +faststart
    probe = subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-i", str(clip)],
                           capture_output=True, text=True).stderr
    assert "h264" in probe and "yuv420p" in probe


def test_writer_leaves_nothing_on_exception(tmp_path):
    out = tmp_path / "broken.mp4"
    with pytest.raises(RuntimeError):
        with VideoWriter(out, fps=25) as w:
            for f in _frames(3):
                w.write(f)
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_writer_does_not_clobber_until_success(tmp_path):
    out = tmp_path / "keep.mp4"
    out.write_bytes(b"old")
    with pytest.raises(RuntimeError):
        with VideoWriter(out, fps=25) as w:
            w.write(_frames(1)[0])
            raise RuntimeError("boom")
    assert out.read_bytes() == b"old"


def test_writer_rejects_bad_frames(tmp_path):
    with pytest.raises(VideoError, match="differs"):
        with VideoWriter(tmp_path / "a.mp4", fps=10) as w:
            w.write(np.zeros((10, 10, 3), np.uint8))
            w.write(np.zeros((12, 10, 3), np.uint8))
    with pytest.raises(VideoError, match="uint8"):
        with VideoWriter(tmp_path / "b.mp4", fps=10) as w:
            w.write(np.zeros((10, 10), np.float32))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("size, tolerance", [((64, 48), 4), ((51, 33), 7)])
def test_written_colours_come_back(tmp_path, size, tolerance):
    """The writer's colour conversion (OpenCV's to yuv420p for even sizes, FFmpeg's for odd
    ones) and the reader's agree: flat team-like colours, grey and near-black/white come
    back within a few levels per channel (measured: at most 3 through OpenCV's conversion,
    5 through FFmpeg's; a wrong range is off by 10-30)."""
    colours = [(40, 35, 200), (190, 80, 25), (128, 128, 128), (20, 20, 20), (235, 235, 235), (40, 140, 60)]
    w, h = size
    with VideoWriter(tmp_path / "c.mp4", fps=10) as wr:
        for c in colours:
            wr.write(np.full((h, w, 3), c, np.uint8))
    got = [f for _, _, f in open_video(tmp_path / "c.mp4")]
    assert len(got) == len(colours)
    for frame, c in zip(got, colours):
        inner = frame[4:h - 4, 4:w - 4].reshape(-1, 3).mean(axis=0)
        assert np.abs(inner - c).max() < tolerance, (c, inner)


def test_odd_size_is_padded(tmp_path):
    with VideoWriter(tmp_path / "odd.mp4", fps=10) as w:
        for _ in range(2):
            w.write(np.zeros((33, 51, 3), np.uint8))
    assert probe_video(tmp_path / "odd.mp4").size == (52, 34)


@pytest.mark.parametrize("content, match", [
    (None, "no such file"),
    (b"", "empty file"),
    (b"this is not a video\n" * 10, "not a readable video"),
])
def test_bad_files_raise_video_error(tmp_path, content, match):
    path = tmp_path / "x.mp4"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(VideoError, match=match):
        open_video(path)


@pytest.mark.parametrize("ext, kind", [(".png", "PNG"), (".jpg", "JPEG"), (".bmp", "BMP"), (".tiff", "TIFF"),
                                       (".webp", "WebP")])
def test_a_still_image_named_as_a_video_is_refused(tmp_path, ext, kind):
    """FFmpeg opens a still image as a one-frame video: it would have been "analysed"."""
    import cv2
    ok, data = cv2.imencode(ext, np.full((72, 128, 3), 90, np.uint8))
    assert ok
    path = tmp_path / "frame.mp4"
    path.write_bytes(data.tobytes())
    with pytest.raises(VideoError, match=f"a still image \\({kind}\\), not a video"):
        open_video(path)


def test_directory_raises(tmp_path):
    with pytest.raises(VideoError, match="directory"):
        open_video(tmp_path)


def test_opened_but_no_frames(tmp_path, clip):
    data = clip.read_bytes()
    cut = tmp_path / "nodata.mp4"
    cut.write_bytes(data[:data.find(b"mdat") + 4])     # header intact, frame data gone
    with pytest.raises(VideoError, match="no frames|not a readable"):
        open_video(cut)


def _noisy_clip(path, n=40):
    rng = np.random.default_rng(0)
    with VideoWriter(path, fps=25, crf=10) as w:
        for _ in range(n):
            w.write(rng.integers(0, 255, (96, 160, 3), dtype=np.uint8))


def test_truncated_file_raises_or_stops(tmp_path):
    full = tmp_path / "full.mp4"
    _noisy_clip(full)
    data = full.read_bytes()
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(data[:len(data) // 2])
    with pytest.raises(VideoError, match="truncated"):
        for _ in open_video(cut):
            pass
    reader = open_video(cut, allow_truncated=True)
    n = sum(1 for _ in reader)
    assert 0 < n < 40 and reader.truncated


def test_variable_frame_rate_timestamps(tmp_path):
    path = tmp_path / "vfr.mp4"
    # 5 frames at 0.1 s spacing, then 0.25 s spacing.
    cmd = [imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-y", "-f", "lavfi",
           "-i", "testsrc=size=64x48:rate=10", "-frames:v", "9",
           "-vf", r"settb=1/1000,setpts='if(lt(N\,5)\,N/10\,0.5+(N-5)/4)/TB'", "-fps_mode", "vfr", "-enc_time_base", "1/1000",
           "-video_track_timescale", "1000", "-c:v", "libx264", "-pix_fmt", "yuv420p",
           str(path)]
    if subprocess.run(cmd, capture_output=True).returncode != 0:
        pytest.skip("ffmpeg cannot build a VFR test clip here")
    times = [t for _, t, _ in open_video(path)]
    want = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 1.25]
    assert times == pytest.approx(want, abs=0.011)


def test_prefetch_yields_the_same_frames_and_passes_errors_on(clip, tmp_path):
    from vision.video_io import prefetch
    direct = [(i, t, f.sum()) for i, t, f in open_video(clip)]
    ahead = [(i, t, f.sum()) for i, t, f in prefetch(open_video(clip), depth=2)]
    assert ahead == direct and len(direct) > 3

    def failing():
        yield 1
        yield 2
        raise VideoError("truncated or corrupt: the stream ended after 2 of 9 frames")
    got = []
    with pytest.raises(VideoError, match="truncated"):
        for item in prefetch(failing()):
            got.append(item)
    assert got == [1, 2]

    gen = prefetch(iter(range(1000)), depth=3)      # a consumer that stops early stops the thread
    assert next(gen) == 0
    gen.close()


@pytest.mark.parametrize("start", [0, 1, 3, 7, 8])
def test_frames_from_a_start_are_those_of_a_whole_pass(clip, start):
    whole = [(i, t, f) for i, t, f in open_video(clip)]
    got = list(open_video(clip).frames(start=start))
    assert [i for i, _, _ in got] == list(range(start, 8))
    for (i, t, f), (j, u, g) in zip(got, whole[start:]):
        assert t == pytest.approx(u) and np.array_equal(f, g)


@pytest.mark.parametrize("budget_frames", [0, 3, 8, 20])
def test_kept_frames_replay_the_clip_as_a_second_decode_would(clip, budget_frames, monkeypatch):
    """Pass one keeps a run of frames from the start while they fit (none, some, all), and the
    replay gives every frame once, in order, the same pixels as decoding again, and gives the
    kept ones up; a second replay decodes everything."""
    from vision import frame_store
    from vision.video_io import prefetch
    monkeypatch.setattr(frame_store, "available_bytes", lambda: None)
    nbytes = W * H * 3
    store = frame_store.FrameStore(budget_frames * nbytes / frame_store.MB)
    first = [i for i, _t, _f in store.keep_all(open_video(clip))]
    assert first == list(range(8))
    assert len(store) == min(budget_frames, 8) and store.used == len(store) * nbytes
    assert store.complete == (budget_frames >= 8)
    decoded = [f for _i, _t, f in open_video(clip)]
    for wrapper in (None, prefetch):
        replay = list(store.replay(open_video(clip), wrapper))
        assert [i for i, _ in replay] == list(range(8))
        assert all(np.array_equal(f, g) for (_i, f), g in zip(replay, decoded))
        assert len(store) == 0 and store.used == 0


def test_the_frame_budget_is_capped_by_free_memory(monkeypatch):
    from vision import frame_store
    monkeypatch.setattr(frame_store, "available_bytes", lambda: 400 * frame_store.MB)
    assert frame_store.FrameStore(1024).budget == 100 * frame_store.MB
    assert frame_store.FrameStore(10).budget == 10 * frame_store.MB
    store = frame_store.FrameStore(0)
    assert not store.keep(0, np.zeros((H, W, 3), np.uint8)) and len(store) == 0
    with pytest.raises(ValueError, match="at least 0 MB"):
        frame_store.FrameStore(-1)


@pytest.mark.parametrize("window, want", [((0.08, 0.2), [2, 3, 4]), ((0.0, 0.05), [0, 1]), ((0.25, None), [7]), ((0.24, None), [6, 7]),
                                          ((0.1, 10.0), [3, 4, 5, 6, 7])])
def test_a_window_reads_its_frames_with_the_videos_own_numbers_and_times(clip, window, want):
    """Frames whose times fall in [start, end): the source's indices, times and pixels (the clip
    is 8 frames at 25 frames/s: frame i at i * 0.04 s)."""
    from vision.video_io import Window
    whole = {i: (t, f) for i, t, f in open_video(clip)}
    reader = open_video(clip, window=Window(*window))
    got = list(reader)
    assert [i for i, _, _ in got] == want
    for i, t, f in got:
        assert t == pytest.approx(whole[i][0]) and np.array_equal(f, whole[i][1])
    assert not reader.truncated          # ending at the window's end is not a truncation
    assert reader.n_window_frames == pytest.approx(len(want), abs=1)


def test_a_window_outside_the_video_or_backwards_is_one_clear_error(clip):
    from vision.video_io import Window
    with pytest.raises(VideoError, match="after the video's end"):
        open_video(clip, window=Window(5.0))
    with pytest.raises(VideoError, match="no frames from 0.35 s"):
        list(open_video(clip, window=Window(0.35)))
    with pytest.raises(VideoError, match="must come after the start"):
        Window(0.2, 0.1)
    with pytest.raises(VideoError, match="0 s or later"):
        Window(-1.0)


@pytest.mark.parametrize("text, seconds", [("83.5", 83.5), ("1:23.5", 83.5), ("0:01:23.5", 83.5), ("0", 0.0),
                                           (" 2:00 ", 120.0)])
def test_times_read_as_seconds_or_clock_time(text, seconds):
    from vision.video_io import parse_time
    assert parse_time(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["1:75", "-3", "a", "1::2", "", "1:2:3:4", "inf"])
def test_times_that_are_not_times_are_refused(text):
    from vision.video_io import parse_time
    with pytest.raises(ValueError, match="not a time"):
        parse_time(text)


def test_kept_frames_of_a_window_replay_from_its_first_frame(clip, monkeypatch):
    """A window's run of kept frames starts at its first frame (not 0); the replay gives the
    window's frames once each, kept then decoded, the same pixels as a fresh read."""
    from vision import frame_store
    from vision.video_io import Window
    monkeypatch.setattr(frame_store, "available_bytes", lambda: None)
    store = frame_store.FrameStore(2 * W * H * 3 / frame_store.MB)
    window = Window(0.08, 0.25)
    assert [i for i, _t, _f in store.keep_all(open_video(clip, window=window))] == [2, 3, 4, 5, 6]
    assert len(store) == 2 and not store.complete
    replay = list(store.replay(open_video(clip, window=window)))
    fresh = {i: f for i, _t, f in open_video(clip, window=window)}
    assert [i for i, _ in replay] == [2, 3, 4, 5, 6]
    assert all(np.array_equal(f, fresh[i]) for i, f in replay)


@pytest.mark.parametrize("window", [(0.2, None), (0.25, 0.3), (0.16, 0.24)])
def test_a_window_far_in_is_reached_by_a_seek_with_the_same_frames(clip, window, monkeypatch):
    """A window starting further in than SEEK_AFTER_S is sought (here, with the thresholds made
    small for the 8-frame clip): the same frame numbers, times and pixels as reading every frame."""
    from vision import video_io
    from vision.video_io import Window
    want = [(i, t, f) for i, t, f in open_video(clip, window=Window(*window))]
    monkeypatch.setattr(video_io, "SEEK_AFTER_S", 0.1)
    monkeypatch.setattr(video_io, "SEEK_MARGIN_S", 0.04)
    sought = []
    real_seek = video_io.VideoReader._seek
    monkeypatch.setattr(video_io.VideoReader, "_seek", lambda self, target: sought.append(target) or real_seek(self, target))
    got = list(open_video(clip, window=Window(*window)))
    assert sought and sought[0] == int((window[0] - 0.04) * 25)
    assert [i for i, _, _ in got] == [i for i, _, _ in want] and want
    for (i, t, f), (_j, u, g) in zip(got, want):
        assert t == pytest.approx(u) and np.array_equal(f, g)
    if want[-1][0] >= 6:                                     # a start frame far in: sought too
        sought.clear()
        rest = list(open_video(clip, window=Window(*window)).frames(start=6))
        assert sought == [max(6, int((window[0] - 0.04) * 25))]
        assert [i for i, _, _ in rest] == [i for i, _, _ in want if i >= 6]


def test_a_seek_whose_times_disagree_falls_back_to_reading_from_the_start(tmp_path, monkeypatch):
    """Where the container's time after the seek is not the frame number's (variable frame rate,
    or a seek that lands elsewhere), the frames are read from the start instead: the same
    frames as without a seek."""
    from vision import video_io
    from vision.video_io import Window
    path = tmp_path / "clip.mp4"
    with VideoWriter(path, fps=25) as w:
        for f in _frames(8):
            w.write(f)
    want = [(i, t) for i, t, _f in open_video(path, window=Window(0.2))]
    monkeypatch.setattr(video_io, "SEEK_AFTER_S", 0.1)
    monkeypatch.setattr(video_io, "SEEK_MARGIN_S", 0.04)
    monkeypatch.setattr(video_io.VideoReader, "fps", property(lambda self: 20.0))     # times no longer match frame / fps
    results = []
    real_seek = video_io.VideoReader._seek
    monkeypatch.setattr(video_io.VideoReader, "_seek", lambda self, target: results.append(real_seek(self, target))
                        or results[-1])
    got = [(i, t) for i, t, _f in open_video(path, window=Window(0.2))]
    assert results == [0]                                   # tried, refused
    assert [i for i, _ in got] == [i for i, _ in want] == [5, 6, 7]
