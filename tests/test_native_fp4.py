"""NVFP4 and MXFP4 weights are computed in fp4 where the GPU has an fp4 peak (Blackwell's tensor cores multiply
them as they are: TensorRT-LLM and vLLM serve NVFP4 checkpoints W4A4 there), in bf16 elsewhere; a compute format
the spec gives is kept.  At bf16's peak a B200's FP4 prefill would beat the strict bound (found by a review)."""

from __future__ import annotations

import json

import pytest
from genreport.commands.cli import main
from genreport.load.objects import _precision
from genreport.load.spec import on_hardware
from shared import ROOT, evaluated_text

B200_NVFP4 = """\
kind: report
name: l405-b200-nvfp4
title: Llama 3.1 405B in NVFP4 on 8 x B200
hardware: b200
model: llama-3.1-405b
precision: nvfp4
parallelism: {tp: 8}
workloads:
  decode: {batch: [1, 64], context: [1k, 8k]}
  prefill: {prompt: [8k]}
"""


def test_the_compute_format_follows_the_gpu():
    p = _precision("nvfp4")
    assert (p.weights, p.kv_cache, p.compute, p.native) == ("nvfp4", "bf16", "bf16", True)
    assert on_hardware(p, {"bf16": 2.25e15, "fp4": 9e15}).compute == "fp4"
    assert on_hardware(on_hardware(p, {"fp4": 9e15}), {"bf16": 989e12}).compute == "bf16"  # and back
    assert not _precision({"weights": "nvfp4", "compute": "bf16"}).native  # given: kept
    assert not _precision("fp8").native and not _precision("int4").native  # int4 stays weight-only
    assert not _precision({"weights": {"experts": "mxfp4", "default": "bf16"}}).native  # mixed classes: the default's


def test_a_b200_prefill_of_nvfp4_weights_is_bounded_at_the_fp4_peak():
    """Llama 3.1 405B (Meta's 405,853,388,800 parameters, seed accounting: the declared 405.85e9) at tp 8 on B200,
    an 8,192-token prompt: the FLOPs one GPU does are at least 2 x 405.85e9 x 8,192 / 8 = 8.31e14, 92 ms at the
    9 PFLOP/s dense fp4 peak (NVIDIA B200 datasheet, specs/hardware/b200.yaml); at the bf16 peak (2.25 PFLOP/s) the
    "bound" read 369 ms, which an FP4 engine beats."""
    r = evaluated_text(B200_NVFP4, "l405-b200-nvfp4.yaml")
    assert r.spec.precision.compute == "fp4"
    sc = r.scalars[r.lead]
    assert sc["peak_flops"] == 9e15
    t = next(e.value for e in r.entries if e.id == "prefill_time_bound" and e.params == {"tokens": 8192})
    assert t == pytest.approx(0.0952, abs=5e-4) and t >= 2 * 405.85e9 * 8192 / 8 / 9e15
    h100 = evaluated_text(B200_NVFP4.replace("hardware: b200", "hardware: h100-sxm"), "l405-h100-nvfp4.yaml")
    assert h100.spec.precision.compute == "bf16"


def test_plan_and_audit_take_each_gpus_format(capsys):
    assert main(["plan", "llama-3.1-405b", "--hardware", "b200,h100-sxm", "--weights", "nvfp4", "--context", "8k",
                 "--batch", "64", "--gpus", "8", "--format", "json"]) == 0
    rows = {(r["hardware"], r["tp"]): r for r in json.loads(capsys.readouterr().out)["rows"]}
    assert rows[("b200", 8)]["ttft"] == pytest.approx(0.0952, abs=5e-4)  # the fp4 peak
    assert rows[("h100-sxm", 8)]["ttft"] > 4 * rows[("b200", 8)]["ttft"]  # bf16 on an H100
    from genreport.load.loader import load_hardware
    from genreport.model.audit import PRECISIONS, precision_of

    assert "nvfp4" in PRECISIONS  # the audit read "nvfp4" as a typo of fp4
    p, _ = precision_of("nvfp4", load_hardware(ROOT / "specs" / "hardware" / "b200.yaml"))
    assert (p.weights, p.compute) == ("nvfp4", "fp4")


def test_the_live_page_evaluates_it_as_python(tmp_path):
    """The page's evaluation (model.js, parallel.js) of the B200 NVFP4 layout: every entry as Python's, the fp4
    peak included."""
    from genreport import load_spec
    from test_live_model import compare, js_evaluate

    path = tmp_path / "l405-b200-nvfp4.yaml"
    path.write_text(B200_NVFP4)
    spec = load_spec(path)
    assert compare(spec, js_evaluate([spec])[0]) == []
