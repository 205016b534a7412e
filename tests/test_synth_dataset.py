"""The YOLO dataset writer: layout, labels, the visibility threshold, determinism."""
from pathlib import Path

import pytest

from cli.main import main
from synth.dataset import VISIBLE_MIN, image_seed, render_example, write_dataset
from synth.random_scene import random_scenario
from synth.scenario import parse_scenario

SIZE = (320, 180)


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
            and p.name != "data.yaml"}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("ds")
    res = write_dataset(out, 6, seed=5, val_fraction=0.34, workers=1, size=SIZE, progress=False)
    return out, res


def test_layout_and_data_yaml(dataset):
    out, res = dataset
    assert (res.n_train, res.n_val) == (4, 2)
    assert len(list((out / "images" / "train").glob("*.jpg"))) == 4
    assert len(list((out / "labels" / "val").glob("*.txt"))) == 2
    yaml_text = (out / "data.yaml").read_text()
    import yaml
    data = yaml.safe_load(yaml_text)
    assert data["names"] == {0: "horse", 1: "rider", 2: "umpire", 3: "ball"}
    assert (Path(data["path"]) / data["train"]).is_dir()


def test_labels_are_normalised_yolo_boxes(dataset):
    out, res = dataset
    n = 0
    for lab in out.glob("labels/*/*.txt"):
        for line in lab.read_text().splitlines():
            c, *v = line.split()
            assert c in {"0", "1", "2", "3"}
            cx, cy, w, h = map(float, v)
            assert 0 < w <= 1 and 0 < h <= 1 and 0 <= cx - w / 2 + 1e-6 and cx + w / 2 <= 1 + 1e-6
            assert 0 <= cy - h / 2 + 1e-6 and cy + h / 2 <= 1 + 1e-6
            n += 1
    assert n == sum(res.boxes.values()) and res.boxes["horse"] > 0 and res.boxes["rider"] > 0


def test_same_seed_same_dataset_whatever_the_workers(dataset, tmp_path):
    out, _ = dataset
    again = write_dataset(tmp_path, 6, seed=5, val_fraction=0.34, workers=2, size=SIZE, progress=False)
    assert _files(out) == _files(again.out_dir)


def test_only_boxes_at_least_a_quarter_visible_are_labelled():
    for i in range(6):
        seed = image_seed(11, i)
        doc, index = random_scenario(seed, SIZE)
        from synth.render import Renderer
        img, recs, _ = Renderer(parse_scenario(doc)).render(index)
        _, lines, _ = render_example(seed, SIZE)
        expected = sum(1 for r in recs for part, b in r.boxes.items()
                       if r.part_visible.get(part, 0) >= VISIBLE_MIN and b[2] - b[0] >= 2 and b[3] - b[1] >= 2)
        assert len(lines) == expected


def test_random_scenarios_are_valid_and_varied():
    docs = [random_scenario(image_seed(3, i))[0] for i in range(40)]
    for d in docs:
        parse_scenario(d)
    heights = [d["camera"]["position"][2] for d in docs]
    assert min(heights) >= 5 and max(heights) <= 25
    colours = {t for d in docs for t in d["teams"]}
    assert len(colours) > 6                               # well beyond red and blue
    assert random_scenario(123)[0] == random_scenario(123)[0]


def test_cli_rejects_bad_arguments(capsys, tmp_path):
    assert main(["synth-dataset", "--n", "0", "--out", str(tmp_path)]) == 2
    assert "--n" in capsys.readouterr().err
