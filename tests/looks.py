"""Jersey looks for the identity tests: a colourful, non-umpire look of one colour."""
from vision.teams import Appearance, bgr_to_lab, colour_feature

RED, BLUE = (40, 40, 210), (200, 90, 30)


def jersey_look(bgr) -> Appearance:
    return Appearance(lab=bgr_to_lab(bgr), colourful=True, umpire_score=0.0, n_pixels=100,
                      feature=colour_feature(bgr))
