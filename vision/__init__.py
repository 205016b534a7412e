"""Video side of the pipeline: frames → detections → tracks → field positions → overlays."""
