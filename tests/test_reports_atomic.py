import os
import stat

import pytest

from reports.atomic import atomic_open, write_json


def test_complete_write_lands_under_the_final_name(tmp_path):
    write_json(tmp_path / "a.json", {"x": 1})
    assert (tmp_path / "a.json").read_text().strip().startswith("{")
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_failed_write_leaves_nothing(tmp_path):
    with pytest.raises(RuntimeError):
        with atomic_open(tmp_path / "b.csv") as fh:
            fh.write("half a row")
            raise RuntimeError("disk on fire")
    assert list(tmp_path.iterdir()) == []


def test_failed_write_keeps_the_previous_complete_file(tmp_path):
    write_json(tmp_path / "c.json", {"v": 1})
    with pytest.raises(ValueError):
        with atomic_open(tmp_path / "c.json") as fh:
            fh.write("{broken")
            raise ValueError
    assert '"v": 1' in (tmp_path / "c.json").read_text()


def test_the_file_gets_the_mode_open_would_give_it_not_the_temporary_files_0600(tmp_path):
    old = os.umask(0o022)
    try:
        write_json(tmp_path / "d.json", {"v": 1})
        os.umask(0o077)
        write_json(tmp_path / "e.json", {"v": 1})
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "d.json").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "e.json").stat().st_mode) == 0o600
