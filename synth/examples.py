"""Small ready-made scenario documents (used by the tests and as examples)."""
from __future__ import annotations

from synth.choreo import Track, scenario_doc, standard_lineup, umpire_hand


def lineup_doc(size: tuple[int, int] = (320, 180), frames: int = 5, seed: int = 0, fps: int = 25,
               focal_1280: float = 2600.0, throw_in_frame: int | None = 3) -> dict:
    """A complete line-up (umpire, eight players, ball in hand) seen from the west sideline."""
    yu = 58.0
    ump = Track("U1", "umpire").at(0.0, 150.0, yu, 90.0)
    players = standard_lineup({"red": "south", "blue": "north"}, yu)
    hx, hy = umpire_hand(150.0, yu, 90.0)
    ball = Track("ball", "ball").at(0.0, hx, hy, z=1.9)
    cam = {"position": [132.0, -30.0, 12.0], "look_at": [150.0, 66.0], "focal_px": focal_1280 * size[0] / 1280}
    doc = scenario_doc("tiny_lineup", "A line-up for tests.", frames / fps, cam, [ump, *players.values(), ball],
                       throw_in_frame / fps if throw_in_frame is not None else None, seed=seed)
    doc["image_size"] = list(size)
    doc["fps"] = fps
    return doc
