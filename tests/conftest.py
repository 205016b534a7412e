import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "test-output"


@pytest.fixture(scope="session")
def test_output() -> Path:
    """A folder (gitignored) where tests leave pictures and files for a person to look at."""
    OUTPUT.mkdir(exist_ok=True)
    return OUTPUT


os.environ.setdefault("YOLO_OFFLINE", "1")

# Ultralytics' logger keeps the stream that sys.stderr was when it was first imported. Imported
# here, that is the session's; imported inside a test using capsys, it would be that test's
# stream, closed afterwards, and every later model load would print "--- Logging error ---".
import ultralytics  # noqa: E402,F401
