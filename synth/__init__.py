"""Synthetic polo throw-in footage with ground truth.

Scenario files (synth/SCENARIO.md) are rendered through a pinhole camera (camera.py) as a
broadcast camera would film them: a pre-rendered ground (field_texture.py) warped per frame,
markings (markings.py), sky, trees, boards and goal posts (surroundings.py), and mounted
players and umpires built from 3-D primitives (mesh.py, horse.py, rider.py, scene.py) drawn in
painter's order (raster.py) with shadows and camera effects (look.py, postfx.py).

Entry points:
  render.Renderer        one frame and its truth records
  clip.render_clip       DIR/clip.mp4, truth.json, calibration.json   (`polo-lineup render`)
  dataset.write_dataset  a YOLO dataset of random scenes              (`polo-lineup synth-dataset`)
  samples                sample_videos/ for Rule 20's worked examples (`python -m synth.samples`)
"""
