"""How every OpenVINO model of the project is compiled for the CPU: in full (FP32) precision
unless the environment variable POLO_OPENVINO_PRECISION says otherwise.

OpenVINO's CPU plugin computes in bfloat16 by default on CPUs that have AMX or AVX512-BF16
(Sapphire Rapids and newer Xeons), in FP32 elsewhere. bfloat16 keeps 8 bits of mantissa: the
shipped models' scores move by ~1e-3 (the rider/umpire classifier's probabilities by up to
2e-3, the ball stage's 0.303 became 0.299 against a 0.3 threshold), and a borderline ball
sighting decides what the ball stage follows for the rest of a clip: on such a machine
`own_goal_blue1` lost three of its four events. The results must not depend on which CPU the
footage is reviewed on, so every compile here asks for FP32 (what PyTorch and ONNX Runtime
compute in; tests compare the runtimes), at some speed on the CPUs that have bfloat16.

The detector is loaded by Ultralytics, whose OpenVINO backend compiles with its own settings;
`recompile_ultralytics_model` compiles its model again with the same settings plus FP32.

POLO_OPENVINO_PRECISION=bf16 (or "cpu": whatever the CPU plugin picks) trades that for speed
where the CPU has bfloat16: the detector (with its refiner and classifier) ran 1.49x as fast
on an AMX Xeon (55.5 against 37.3 frames/s, bench/bench_detect.py), and the verdicts may
differ from the FP32 ones on borderline sightings (6 of the 12 samples met every target in
bfloat16, 8 in FP32). Unset, or "f32", is FP32.
"""
from __future__ import annotations

import os
from functools import partial
from pathlib import Path

ENV = "POLO_OPENVINO_PRECISION"
PRECISIONS = {"f32": {"INFERENCE_PRECISION_HINT": "f32"}, "bf16": {"INFERENCE_PRECISION_HINT": "bf16"}, "cpu": {}}


def precision_name() -> str:
    """The precision POLO_OPENVINO_PRECISION asks for ("f32" when unset; what a report records);
    ValueError for a value it does not know."""
    name = os.environ.get(ENV, "f32").strip().lower() or "f32"
    if name not in PRECISIONS:
        raise ValueError(f"{ENV}={name!r}: expected one of {', '.join(PRECISIONS)}")
    return name


def precision_config() -> dict:
    """The CPU plugin's properties for that precision (precision_name)."""
    return dict(PRECISIONS[precision_name()])


def cpu_config(**extra) -> dict:
    """The CPU plugin's compile configuration: the precision (precision_config), plus `extra`."""
    return {**precision_config(), **extra}


def recompile_ultralytics_model(yolo, folder: Path) -> bool:
    """Compile the OpenVINO model behind an Ultralytics YOLO object (whose predictor a first
    predict has set up), read again from its export `folder`, in the precision asked for
    (precision_config: FP32 unless POLO_OPENVINO_PRECISION says) with the backend's own
    settings. True when there was such a model to recompile."""
    backend = getattr(getattr(getattr(yolo, "predictor", None), "model", None), "backend", None)
    compile_model = getattr(backend, "compile_model", None)
    if not isinstance(compile_model, partial) or getattr(backend, "ov_compiled_model", None) is None:
        return False
    import openvino as ov
    keywords = dict(compile_model.keywords)
    keywords["config"] = {**keywords.get("config", {}), **precision_config()}
    backend.compile_model = partial(compile_model.func, *compile_model.args, **keywords)
    xml = next(Path(folder).glob("*.xml"))
    backend.ov_compiled_model = backend.compile_model(ov.Core().read_model(model=str(xml), weights=xml.with_suffix(".bin")))
    return True


def precision_of(compiled) -> str:
    """The inference precision a compiled model computes in, as OpenVINO names the type
    ("<Type: 'float32'>", "<Type: 'bfloat16'>")."""
    return str(compiled.get_property("INFERENCE_PRECISION_HINT"))
