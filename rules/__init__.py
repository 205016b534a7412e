"""Rule 20 engine: field geometry and line-up checks from positions in yards.

Never imports vision/: it takes positions in yards, so the video pipeline, the
`check-positions` command and the renderer's expected verdicts share one engine.
"""
from rules.document import FrameBatch, InvalidDocument, load_document, parse_document
from rules.field import Field
from rules.thresholds import Thresholds
from rules.verdicts import VIOLATION_CODES, check_batch, check_document, has_violation

__all__ = ["Field", "FrameBatch", "InvalidDocument", "Thresholds", "VIOLATION_CODES", "check_batch",
           "check_document", "has_violation", "load_document", "parse_document"]
