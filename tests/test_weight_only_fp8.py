"""FP8 weights on an NVIDIA GPU without an fp8 peak run weight-only: streamed at 1 B a weight, multiplied in bf16.

vLLM runs FP8 checkpoints on Turing and Ampere as W8A16 with its FP8 Marlin kernel (vLLM docs, "FP8 W8A8": "FP8 models
will run on compute capability >= 7.5 (Turing) as weight-only W8A16, utilizing FP8 Marlin"; vllm-project/vllm#5975,
"Expand FP8 support to Ampere GPUs using FP8 Marlin"; vLLM's Llama 3.1 announcement ran the 405B FP8 checkpoint on 8
A100s).  ``plan`` skipped fp8 on an A100 ("has no dense fp8 peak", deployment review, stop 75); it now lists those
layouts, computed at the bf16 peak, and says so.  A device of another vendor without fp8 (a TPU v5p) still skips it.
A100 SXM4 80GB: 312 TFLOP/s dense bf16 (NVIDIA A100 datasheet), specs/hardware/a100-sxm-80gb.yaml.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from genreport.commands.cli import main

A100_BF16 = 312e12  # FLOP/s, NVIDIA A100 datasheet (dense bf16 tensor core)


def _plan(capsys, *args) -> dict:
    assert main(["plan", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_405b_fp8_on_a100_is_planned_weight_only(capsys):
    """Llama 3.1 405B at 2k + 256 on A100s: the default formats (bf16, and fp8 for a 16-bit model of 8B and more)
    give fp8 rows, each computing in bf16; a prompt's prefill is compute-bound, so its TTFT is the prompt's FLOPs
    over the tp GPUs' bf16 peak: 2 N P / (8 x 312 TFLOP/s) = 666 ms at tp 8 (attention adds under 1%), where an
    H100's fp8 peak gives 105 ms."""
    doc = _plan(capsys, "llama-3.1-405b", "--hardware", "a100-sxm-80gb", "--prompt", "2k", "--output", "256",
                "--limit", "0")
    fp8 = [r for r in doc["rows"] if r["precision"] == "fp8"]
    assert fp8 and all(r["weight_only"] and r["compute"] == "bf16" for r in fp8)
    assert all(not r["weight_only"] and r["compute"] == "bf16" for r in doc["rows"] if r["precision"] == "bf16")
    assert doc["skipped_precisions"] == []
    assert doc["notes"] == ["fp8 weights computed in bf16 on the NVIDIA A100 SXM4 80GB, which has no fp8 peak: "
                            "weight-only (W8A16), as vLLM runs FP8 checkpoints with its FP8 Marlin kernel where a GPU "
                            "has no fp8 tensor cores"]
    tp8 = next(r for r in fp8 if (r["tp"], r["pp"], r["ep"], r["dp"]) == (8, 1, 1, 1))
    n = 405.8e9  # Llama 3.1 405B's parameters (the model spec's shapes give 405.85e9)
    assert tp8["ttft"] == pytest.approx(2 * n * 2048 / (8 * A100_BF16), rel=0.01)
    # its weights are fp8's: 1 B each, an eighth a GPU
    assert tp8["weight_bytes_per_gpu"] == pytest.approx(n / 8, rel=0.01)


def test_the_table_and_csv_say_the_weights_compute_in_bf16(capsys):
    assert main(["plan", "llama-3.1-70b", "--hardware", "a100-sxm-80gb,h100-sxm", "--weights", "fp8", "--prompt", "2k",
                 "--output", "128", "--limit", "0"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith("fp8 ")]
    a100 = [r for r in rows if "a100-sxm-80gb" in r]
    h100 = [r for r in rows if "h100-sxm" in r]
    assert a100 and all(r[:2] == ["fp8", "(W8A16)"] for r in a100), a100[:2]
    assert h100 and all(r[0] == "fp8" and r[1] != "(W8A16)" for r in h100)
    assert "fp8 weights computed in bf16 on the NVIDIA A100 SXM4 80GB" in out
    assert main(["plan", "llama-3.1-70b", "--hardware", "a100-sxm-80gb", "--weights", "fp8", "--format", "csv"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert table and {r["compute"] for r in table} == {"bf16"}


def test_a_device_of_another_vendor_still_skips_fp8(capsys):
    """No weight-only fp8 kernel in a source gathered for a TPU v5p: fp8 stays skipped there, with its reason."""
    doc = _plan(capsys, "llama-3.1-8b", "--hardware", "tpu-v5p", "--weights", "bf16,fp8")
    assert {r["precision"] for r in doc["rows"]} == {"bf16"}
    assert doc["skipped_precisions"] == [{"precision": "fp8", "why": "Google Cloud TPU v5p has no dense "
                                                                   "fp8 peak"}]
    assert doc["notes"] == []


def test_the_report_offers_fp8_weights_on_an_a100_where_bf16_does_not_fit():
    """Llama 3.1 70B on one A100: 141 GB of bf16 weights in 70.3 GiB; fp8 weights computed in bf16 (70.6 GB) fit, as
    int8 and int4 do (page 1's options and the decision table's lever)."""
    from shared import evaluated, page

    r = evaluated("llama8b-a100.yaml", ["model=llama-3.1-70b"])
    options = {o["label"]: o for o in r.fit_options}
    text = " ".join(page("llama8b-a100.yaml", ["model=llama-3.1-70b"]).split())
    assert "it fits with fp8 weights computed in bf16 (70.6 GB), int8 weights (70.6 GB), group-128 int4 weights" in text
    assert options["fp8 weights computed in bf16"]["fits"] and "fp8 weights" not in options
    assert options["fp8 weights computed in bf16"]["weight_bytes"] == pytest.approx(70.6e9, rel=1e-3)


def test_the_serving_chapter_names_the_weight_only_format():
    """The 70B spec on 8 A100s: the formats plan tries are bf16 and fp8 computed in bf16, and the cheapest layout
    (fp8 at tp 8) says its weights compute in bf16, on page 1 and in the chapter."""
    from shared import evaluated, page

    r = evaluated("llama70b-h100-tp8.yaml", ["hardware=a100-sxm-80gb"])
    assert r.serving["formats"] == ["bf16", "fp8 computed in bf16"]
    cheapest = r.serving["cheapest"]
    assert cheapest["precision"] == "fp8" and cheapest["weight_only"] and cheapest["compute"] == "bf16"
    text = " ".join(page("llama70b-h100-tp8.yaml", ["hardware=a100-sxm-80gb"]).split())
    assert "fp8 weights computed in bf16, fp8 KV" in text  # page 1
    assert ("fp8 weights computed in bf16 (weight-only, W8A16: the NVIDIA A100 SXM4 80GB has no fp8 peak), fp8 KV "
            "cache") in text
    assert "(weights bf16 and fp8 computed in bf16;" in text


def test_the_live_page_offers_the_same_ways_to_fit(tmp_path):
    """The page's evaluation (model.js fitOptions) gives Python's ways to fit: fp8 weights computed in bf16 on an
    A100, none on a TPU v5p (no fp8 peak, no weight-only kernel sourced), for Llama 3.1 70B on one card of each."""
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate
    from test_live_model import compare, js_evaluate

    specs = []
    for hw in ("a100-sxm-80gb", "tpu-v5p"):
        path = tmp_path / f"{hw}.yaml"
        path.write_text(f"kind: report\nname: w{hw[:4]}\ntitle: t\nhardware: {hw}\nmodel: llama-3.1-70b\nprecision: bf16\n"
                        "workloads:\n  decode: {batch: [1, 8], context: [1k]}\n")
        specs.append(load_report(path))
    rs = [evaluate(s) for s in specs]
    labels = [[o["label"] for o in r.fit_options if o["kind"] == "precision"] for r in rs]
    assert labels == [["fp8 weights computed in bf16", "int8 weights", "group-128 int4 weights"],
                      ["int8 weights", "group-128 int4 weights"]]
    for spec, r, got in zip(specs, rs, js_evaluate(specs), strict=True):
        assert compare(spec, got, r) == [], spec.name


FP8_ON_A100 = ["precision=fp8", "precision.weights=fp8", "precision.compute=fp8"]


@pytest.mark.parametrize("bad", FP8_ON_A100)
def test_a_spec_asking_fp8_on_an_a100_is_told_how_to_run_it_weight_only(bad):
    """A report spec's precision stays what it says (``precision: fp8`` multiplies in fp8, which an A100 has no peak
    for: refused, as before), and the hint names the weight-only form plan uses where the weights are fp8; the live
    page's what-if refuses it with the loader's words (tests/test_live_whatif.py)."""
    from genreport.errors import SpecError
    from genreport.load.loader import load_report
    from shared import SPECS
    from test_live_whatif import check

    with pytest.raises(SpecError) as err:
        load_report(SPECS / "llama8b-a100.yaml", overrides=[bad])
    hint = "precision: {weights: fp8, compute: bf16}"
    assert (hint in str(err.value)) == (bad != "precision.compute=fp8"), str(err.value)  # bf16 weights: no hint
    check([("llama8b-a100.yaml", [bad])])
    assert load_report(SPECS / "llama8b-a100.yaml", overrides=["precision={weights: fp8, compute: bf16}"])


def test_the_fit_map_and_sweep_take_fp8_weight_only_too(tmp_path, capsys):
    """A QA pass found the chapter's "With fp8 weights computed in bf16 1 GPU suffices" above a fit map without an fp8
    row (plan.fit_map skipped it), and ``sweep`` skipping fp8 on the A100 that plan lists: both run it as plan does."""
    from shared import evaluated

    r = evaluated("llama8b-a100.yaml", ["model=llama-3.1-70b"])
    assert list(r.many.fit_map) == ["bf16", "fp8", "int8", "int4"]
    assert r.many.fit_map["fp8"] == r.many.fit_map["int8"]  # 1 B a weight either way
    assert r.many.weight_only == ("fp8",)
    from shared import page

    assert "<tr><td>fp8 (W8A16)</td>" in page("llama8b-a100.yaml") and "(W8A16)" not in page("llama8b-h100.yaml")
    assert main(["sweep", "--models", "llama-3.1-70b", "--hardware", "a100-sxm-80gb,tpu-v5p", "--precision", "bf16,fp8",
                 "--batch", "1,8", "--context", "1k", "-o", str(tmp_path), "--format", "json"]) == 0
    assert "1 skipped: no compute format, 1 with fp8 weights computed in bf16 (W8A16)" in capsys.readouterr().out
    meta = json.loads((tmp_path / "sweep.json").read_text())["meta"]
    assert meta["weight_only"] == [{"model": "llama-3.1-70b", "hardware": "a100-sxm-80gb", "precision": "fp8"}]
    assert meta["skipped"] == [{"model": "llama-3.1-70b", "hardware": "tpu-v5p", "precision": "fp8",
                                "why": "no dense fp8 peak"}]
