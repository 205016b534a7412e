"""Outputs of an analysis: atomic file writing, JSON/CSV reports, summaries."""
