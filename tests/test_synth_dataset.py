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


def test_training_crops_keep_the_boxes_at_inference_scale():
    """crop_example: halve the frame, cut a window around the horses; boxes are scaled and
    moved with it, and those kept lie inside the window."""
    import numpy as np

    from synth.dataset import CROP_KEEP, crop_example
    img = np.zeros((720, 1280, 3), np.uint8)
    W, H = 1280, 720

    def line(c, x1, y1, x2, y2):
        return f"{c} {(x1 + x2) / 2 / W:.6f} {(y1 + y2) / 2 / H:.6f} {(x2 - x1) / W:.6f} {(y2 - y1) / H:.6f}"
    lines = [line(0, 600, 300, 700, 400),       # a horse in the middle: 50x50 after halving
             line(1, 620, 250, 660, 300)]       # its rider
    out, kept = crop_example(img, lines, 0.5, (384, 360), np.random.default_rng(0))
    assert out.shape == (360, 384, 3)
    boxes = [[float(v) for v in k.split()] for k in kept]
    assert [int(b[0]) for b in boxes] == [0, 1]
    c, cx, cy, bw, bh = boxes[0]
    assert bw * 384 == pytest.approx(50, abs=0.5) and bh * 360 == pytest.approx(50, abs=0.5)
    for _c, cx, cy, bw, bh in boxes:
        assert 0 <= cx - bw / 2 and cx + bw / 2 <= 1 and 0 <= cy - bh / 2 and cy + bh / 2 <= 1
    # a box cut by the window: kept (clipped) when at least CROP_KEEP of it is inside, else dropped
    edge = [line(0, 0, 300, 200, 400)]                         # 100x50 after halving, at the left edge
    for seed in range(5):
        _, kept = crop_example(img, lines + edge, 0.5, (384, 360), np.random.default_rng(seed))
        for k in kept[2:]:
            assert float(k.split()[3]) * 384 >= CROP_KEEP * 100 - 0.5


def test_cli_names_the_bad_crop_option(capsys, tmp_path):
    rc = main(["synth-dataset", "--n", "1", "--out", str(tmp_path / "d"), "--crop", "384by360"])
    assert rc == 2 and "--crop: expected WIDTHxHEIGHT" in capsys.readouterr().err


def test_ball_crops_are_enlarged_around_the_ball_with_only_its_class():
    """focus="ball": the window holds the ball (enlarged by `scale`), and with classes=("ball",)
    only its box is kept, numbered 0; without a ball the window is at the umpire's upper body."""
    import numpy as np

    from synth.dataset import crop_example
    img = np.zeros((720, 1280, 3), np.uint8)
    W, H = 1280, 720

    def line(c, x1, y1, x2, y2):
        return f"{c} {(x1 + x2) / 2 / W:.6f} {(y1 + y2) / 2 / H:.6f} {(x2 - x1) / W:.6f} {(y2 - y1) / H:.6f}"
    horse, rider, umpire, ball = (line(0, 100, 500, 160, 600), line(1, 110, 460, 150, 520),
                                  line(2, 900, 200, 940, 280), line(3, 1000, 400, 1004, 404))
    for seed in range(5):
        out, kept = crop_example(img, [horse, rider, umpire, ball], 1.5, (320, 320),
                                 np.random.default_rng(seed), focus="ball", classes=("ball",))
        assert out.shape == (320, 320, 3)
        assert len(kept) == 1
        c, cx, cy, bw, bh = (float(v) for v in kept[0].split())
        assert c == 0 and bw * 320 == pytest.approx(6, abs=0.1) and bh * 320 == pytest.approx(6, abs=0.1)
    # no ball: the crop is cut around the umpire, and has no label
    rng = np.random.default_rng(0)
    out, kept = crop_example(img + 0, [horse, rider, umpire], 1.5, (320, 320), rng, focus="ball",
                             classes=("ball",))
    assert kept == []
    marked = img.copy()
    marked[200:280, 900:940] = 255                   # the umpire's box, to find it in the crop
    out, _ = crop_example(marked, [horse, rider, umpire], 1.5, (320, 320), np.random.default_rng(0),
                          focus="ball", classes=("ball",))
    assert out.max() == 255


def test_ball_dataset_names_only_the_ball(tmp_path):
    res = write_dataset(tmp_path / "b", 3, seed=5, val_fraction=0, workers=1, size=SIZE, progress=False,
                        scale=1.5, crop=(96, 96), focus="ball", classes=("ball",))
    assert set(res.boxes) == {"ball"}
    assert "  0: ball" in (tmp_path / "b" / "data.yaml").read_text()
    labels = [ln for p in (tmp_path / "b" / "labels" / "train").glob("*.txt") for ln in p.read_text().splitlines()]
    assert all(ln.split()[0] == "0" for ln in labels) and len(labels) == res.boxes["ball"]
    with pytest.raises(ValueError):
        write_dataset(tmp_path / "c", 1, size=SIZE, progress=False, classes=("ball", "goat"))


def test_cli_rejects_unknown_classes(capsys, tmp_path):
    rc = main(["synth-dataset", "--n", "1", "--out", str(tmp_path / "d"), "--classes", "ball,goat"])
    assert rc == 2 and "--classes" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()
