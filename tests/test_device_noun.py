"""What a report calls one device: the hardware spec's ``noun`` ("GPU" by default; the TPU v5e/v5p and Gaudi 3 files
say "chip", as Google's and Intel's documentation call one: cloud.google.com/tpu/docs/v5e "per chip", Intel Gaudi 3
AI accelerator white paper "Gaudi 3 ... chip").  A TPU report's text, tables, captions, figure labels and terminal
lines say "chip"; the deliberate references to GPUs (nvidia-smi's "GPU utilisation", the costs measured on NVIDIA
GPUs) stay.  A GPU report's bytes do not change (tests/test_golden.py).
"""

from __future__ import annotations

import functools
import re

from genreport.present.fmt import device
from shared import ROOT

SPEC = ROOT / "specs" / "llama70b-h100-tp8.yaml"
DELIBERATE = ("NVIDIA GPUs", "“GPU utilisation”")


@functools.cache
def _tpu():
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate

    return evaluate(load_report(SPEC, ["hardware=tpu-v5p", "workloads.prefill.prompt=[2k]"]))


@functools.cache
def _tpu_html() -> str:
    """The TPU report's HTML without its figures (none drawn) and without the live page's scripts."""
    from genreport.present.render import _env, context

    html = _env().get_template("report.html.j2").render(**context(_tpu(), None, {}).variables())
    return re.sub(r"<script.*?</script>", "", html, flags=re.S)


def test_the_noun_comes_from_the_hardware_spec():
    from genreport.load.loader import load_hardware

    def hw(name):
        return load_hardware(ROOT / "specs" / "hardware" / f"{name}.yaml")

    assert {name: hw(name).noun for name in ("h100-sxm", "mi300x", "tpu-v5e", "tpu-v5p", "gaudi3")} == {
        "h100-sxm": "GPU", "mi300x": "GPU", "tpu-v5e": "chip", "tpu-v5p": "chip", "gaudi3": "chip"}
    assert hw("tpu-v5e").Noun == "Chip"


def test_device_words():
    assert device("On 4 GPUs, each GPU's slice. GPUs give $4/GPU-h per-GPU", "chip") == \
        "On 4 chips, each chip's slice. Chips give $4/chip-h per-chip"
    assert device("the costs measured on NVIDIA GPUs; “GPU utilisation”", "chip") == \
        "the costs measured on NVIDIA GPUs; “GPU utilisation”"
    assert device(["GPUs of a pool", {"a": ("one GPU",)}, 3], "chip") == ["Chips of a pool", {"a": ("one chip",)}, 3]
    text = "4 GPUs"
    assert device(text, "GPU") is text


def test_a_tpu_report_says_chip():
    html = _tpu_html()
    assert "per chip" in html and "8 chips" in html and "<th>Chip</th>" in html
    left = html
    for ok in DELIBERATE:
        left = left.replace(ok, "")
    assert [m.group(0) for m in re.finditer(r".{50}GPU.{30}", left, flags=re.S)] == []


def test_a_tpu_reports_terminal_lines_and_figures_say_chip():
    from genreport.present import summary
    from genreport.present.figures import captions, draw

    lines = "\n".join(summary.terminal_lines(_tpu()))
    assert "per chip" in lines and "GPU" not in lines
    assert not [c for c in captions(_tpu()).values() if "GPU" in c]
    svg = draw("fig9-gpu-rates", _tpu()).decode()
    assert "Chips (tensor parallel)" in svg and "GPU" not in svg


def test_no_sourced_kernel_cost_is_left_out_not_zero():
    """tests/test_inputs_table.py: no per-kernel cost is sourced for a TPU (XLA compiles a step into one program), so
    the estimate leaves it out; the many-device chapter says so instead of a 0 us column and the tau_o formula."""
    html = _tpu_html()
    assert _tpu().spec.hardware.kernels.absent and "no sourced per-kernel cost on Google Cloud TPU v5p" in html
    assert "the kernels' fixed costs of a decode round, one chip" not in html  # the formula block's label
    rows = re.search(r'<tbody data-live="par_table">(.*?)</tbody>', html, flags=re.S).group(1)
    prefill = re.search(r'<tbody data-live="par_prefill">(.*?)</tbody>', html, flags=re.S).group(1)
    assert rows.count("left out") == rows.count("<tr>") > 0 and prefill.count("left out") == prefill.count("<tr>") > 0


SAMPLES = ("On 4 GPUs (tp 4), each GPU's slice. GPUs give $4/GPU-h per-GPU", "GPUs of the prefill pool",
           "the costs measured on NVIDIA GPUs; “GPU utilisation”; AMD GPUs", "no device word", "xGPU GPUx (one GPU)")


def test_the_live_page_says_the_same_words():
    """fmt.js's device() is fmt.device; the serving chapter's levers of a TPU report say "chip" in the browser as in
    Python (techniques.js against techniques.py)."""
    from genreport import load_spec
    from livejs import NODE, run

    if NODE is None:
        import pytest

        pytest.skip("node is not installed")
    got = run(("fmt.js",), "output(INPUT.map(t => GR_FMT.device(t, 'chip')));", list(SAMPLES))
    assert got == [device(t, "chip") for t in SAMPLES]
    from test_live_serving import differences, js

    spec = load_spec(SPEC, ["hardware=tpu-v5p"])
    (have,) = js([spec])
    from genreport.model.evaluate import evaluate

    r = evaluate(spec)
    assert differences(r, have) == []
    assert "of the chips prefill" in have["levers"][-1]["setting"]


def test_a_single_chip_reports_frontier_sentence_says_chip():
    """A TPU report of one chip (no layout): figure 9's paragraph names this report's layout by the frontier's
    ``titled`` label, "1 GPU" from the model stage (Parallelism.label), which the chapter says as "1 chip"."""
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate
    from genreport.present.render import _env, context

    r = evaluate(load_report(ROOT / "specs" / "llama8b-h100.yaml", [
        "hardware=tpu-v5p", "workloads.prefill.prompt=[2k]", "workloads.decode.batch=[1, 8]",
        "serving={prompt: 2k, output: 256, ttft: 2 s, tpot: 50 ms, users: 8}"]))
    assert r.serving["frontier"]["titled"] == "1 GPU"  # the model stage's label, in words at the presentation
    html = _env().get_template("report.html.j2").render(**context(r, None, {}).variables())
    html = re.sub(r"<script.*?</script>", "", html, flags=re.S)
    assert "this report's 1 chip" in html and "this report's 1 GPU" not in html


def test_the_utilisation_callout_names_the_chips_matrix_units():
    """A TPU has no tensor cores: its matrix multiplies run on MXUs (cloud.google.com/tpu/docs/system-architecture-tpu-vm,
    "each TensorCore has ... matrix-multiply units (MXUs)"); chapter 1's callout said "tensor cores" and "a card" on a
    TPU report. It says "matrix units" and "a chip" there, "tensor cores" on an NVIDIA GPU."""
    html = _tpu_html()
    assert "how busy the matrix units or the memory bus were: a chip starved by bandwidth" in html
    assert "tensor cores" not in html
