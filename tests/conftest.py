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
