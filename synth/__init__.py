"""Synthetic polo footage with ground truth: scenarios, camera, scene, renderer, datasets."""
