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
    from shared import rendered

    html = rendered(_tpu())
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
           "the costs measured on NVIDIA GPUs; “GPU utilisation”; AMD GPUs", "no device word", "xGPU GPUx (one GPU)",
           "shard over 13 cards (ZeRO-3); 13 cards' memory; the card's GPU. Card one, single-card, a model card",
           "cards_needed, discard, cardinal")


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


# ----------------------------------------------------------------------------------------------- fix17: what fix16 left

def test_chapter_one_says_chip_and_matrix_units():
    """Chapter 1 of a TPU report: "one chip", "a chip starved by bandwidth", the matrix units (a TPU's MXUs, Gaudi's
    MMEs: cloud.google.com/tpu/docs/system-architecture-tpu-vm, Intel Gaudi 3 white paper), not "card" and "tensor
    cores" (NVIDIA's)."""
    html = _tpu_html()
    s1 = re.sub(r"<[^>]+>", "", html[html.index('<section id="s1">'):html.index('<section id="s2">')])
    assert "card" not in s1 and "tensor core" not in s1
    assert "the matrix units or the memory bus" in s1 and "a chip starved by bandwidth" in s1
    assert "the seeds' single-chip ones" in s1


def test_plan_says_the_hardwares_noun(capsys):
    from genreport.commands.cli import main

    assert main(["plan", "llama-3.1-8b", "--hardware", "tpu-v5e", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert "GPU" not in out
    assert "prices per chip-hour" in out and "tok/s/chip" in out and "free GiB/chip" in out
    header = next(line for line in out.splitlines() if line.startswith("weights"))
    assert header.split()[2:4] == ["Chip", "tp"] and " Chips " in header
    assert main(["plan", "llama-3.1-8b", "--hardware", "tpu-v5e,h100-sxm", "--limit", "1"]) == 0
    mixed = capsys.readouterr().out  # two nouns: "device"
    assert "prices per device-hour" in mixed and "tok/s/device" in mixed and "GPU" not in mixed


def test_derive_says_the_hardwares_noun(capsys, tmp_path):
    from genreport.commands.cli import main

    spec = tmp_path / "tpu.yaml"
    spec.write_text(SPEC.read_text(encoding="utf-8").replace("hardware: h100-sxm", "hardware: tpu-v5p"),
                    encoding="utf-8")
    assert "hardware: tpu-v5p" in spec.read_text(encoding="utf-8")
    assert main(["derive", "decode_time_serial", "--spec", str(spec)]) == 0
    out = capsys.readouterr().out
    assert "t_comp: compute as the engine runs it, one chip" in out and "at the layout: one chip of tp 8" in out
    assert "(8 chips)" in out
    assert [line for line in out.splitlines() if "GPU" in line and not line.startswith("source:")] == []


def test_a_reason_in_results_json_says_chip():
    """No layout holds 65,536 sequences of 131,072 tokens of Llama 3.1 70B: its KV cache alone, 65,536 x 131,072 x
    80 layers x 2 x 8 heads x 128 x 2 B = 2.8e15 B, is more than 4,096 TPU v5p chips of 95 GiB hold (4.2e14 B)."""
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate

    r = evaluate(load_report(SPEC, ["hardware=tpu-v5p", "workloads.decode.batch=[65536]",
                                    "workloads.decode.context=[128k]", "workloads.prefill.prompt=[2k]"]))
    (e,) = [e for e in r.entries if e.id == "min_gpus_to_fit"]
    assert e.value is None and e.as_json()["reason"] == "no layout up to 4096 chips holds it"


def test_the_pages_what_if_errors_say_chip(tmp_path):
    """The live page refuses a layout the loader refuses with the loader's words, in the hardware's noun (checks.py,
    whatif.js); a one-chip page says it recomputes its one chip."""
    from livejs import NODE

    if NODE is None:
        import pytest

        pytest.skip("node is not installed")
    from test_live_rules import cli, node

    many = tmp_path / "qwen-tpu.yaml"
    many.write_text(SPEC.read_text(encoding="utf-8").replace("hardware: h100-sxm", "hardware: tpu-v5p")
                    .replace("model: llama-3.1-70b", "model: qwen3-235b-a22b").replace("tp: 8", "tp: 4"),
                    encoding="utf-8")
    one = tmp_path / "one-tpu.yaml"
    one.write_text((ROOT / "specs" / "llama8b-h100.yaml").read_text(encoding="utf-8")
                   .replace("hardware: h100-sxm", "hardware: tpu-v5p"), encoding="utf-8")
    cases = [(str(many), ["parallelism.ep=16"]), (str(one), ["parallelism.tp=2"])]
    got = node(cases, spec=str(many))["cases"]
    refused = "parallelism.ep: ep 16 is more than the tp x dp = 4 chips that share the experts (hint: raise tp or dp, " \
              "or use ep at most 4)"
    assert got[0]["errors"] == [refused] and refused in cli(str(many), ("parallelism.ep=16",))[1]
    assert "this page recomputes its one chip; a layout over many chips is not in it" in got[1]["errors"][0]


def test_a_single_chip_reports_frontier_sentence_says_chip():
    """A TPU report of one chip (no layout): figure 9's paragraph names this report's layout by the frontier's
    ``titled`` label, "1 GPU" from the model stage (Parallelism.label), which the chapter says as "1 chip"."""
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate
    from shared import rendered

    r = evaluate(load_report(ROOT / "specs" / "llama8b-h100.yaml", [
        "hardware=tpu-v5p", "workloads.prefill.prompt=[2k]", "workloads.decode.batch=[1, 8]",
        "serving={prompt: 2k, output: 256, ttft: 2 s, tpot: 50 ms, users: 8}"]))
    assert r.serving["frontier"]["titled"] == "1 GPU"  # the model stage's label, in words at the presentation
    html = rendered(r)
    html = re.sub(r"<script.*?</script>", "", html, flags=re.S)
    assert "this report's 1 chip" in html and "this report's 1 GPU" not in html


def test_the_utilisation_callout_names_the_chips_matrix_units():
    """A TPU has no tensor cores: its matrix multiplies run on MXUs (cloud.google.com/tpu/docs/system-architecture-tpu-vm,
    "each TensorCore has ... matrix-multiply units (MXUs)"); chapter 1's callout said "tensor cores" and "a card" on a
    TPU report. It says "matrix units" and "a chip" there, "tensor cores" on an NVIDIA GPU."""
    html = _tpu_html()
    words = re.sub(r"<[^>]+>", "", html)  # the device's words are marked static for the live page (data-static)
    assert "how busy the matrix units or the memory bus were: a chip starved by bandwidth" in words
    assert "tensor cores" not in words


# ----------------------------------------------------------------------------------------------- fix19: cards, graphs

def test_card_is_a_gpus_word_too():
    """"card" (a GPU's board) says the noun outside chapter 1 as "GPU" does: page 1's ZeRO-3 lever "shard over 13
    cards", chapter 5's "13 cards' memory", figure 5's "the whole model on one card" and the notation's "memory
    capacity of the card" read "chips" on a TPU; a "model card" (Meta's) stays."""
    assert device(SAMPLES[5], "chip") == ("shard over 13 chips (ZeRO-3); 13 chips' memory; the chip's chip. Chip one, "
                                          "single-chip, a model card")
    assert device(SAMPLES[6], "chip") == SAMPLES[6]


def test_a_tpu_report_that_trains_says_no_card():
    """Llama 3.1 70B on 8 TPU v5p with a training workload (its state needs 13 chips' memory): every sentence, table,
    caption and the decision table's lever say "chip"; only the model card (the source) says card.  At its layout (tp 8)
    page 1's lever is one chip's (stop 71: each chip's ZeRO-3 state does not fit either), chapter 5's the whole
    model's on one card."""
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate
    from genreport.present.figures import captions
    from shared import rendered

    r = evaluate(load_report(SPEC, ["hardware=tpu-v5p", "workloads.prefill.prompt=[2k]",
                                    "workloads.training.micro_batch_tokens=8k"]))
    html = rendered(r)
    from html import unescape

    text = unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style).*?</(script|style)>", "", html, flags=re.S)))
    assert "more chips (ZeRO-3 state does not fit here)" in text and "13 chips' memory" in text
    assert [m.group(0) for m in re.finditer(r".{40}\b[Cc]ards?\b.{20}", text) if "model card" not in m.group(0)] == []
    assert not [c for c in captions(r).values() if re.search(r"\bcards?\b", c)]


def test_the_overhead_remedy_is_the_vendors_graphs():
    """Seed 000's overhead-bound remedy "CUDA Graphs" is NVIDIA's (and stays there); AMD's stack calls them HIP
    graphs, Gaudi's HPU graphs (Intel Gaudi docs, "HPU Graphs"), and a TPU has none to capture: XLA compiles the whole
    step into one program (PyTorch/XLA, JAX jit), so its remedy is that compiled step."""
    from genreport.load.loader import load_hardware
    from genreport.model.measured import remedies

    def fix(name):
        return remedies("overhead-bound", load_hardware(ROOT / "specs" / "hardware" / f"{name}.yaml"))[2]

    assert fix("h100-sxm") == "CUDA Graphs (record a sequence of launches, submit it once)"
    assert fix("mi300x").startswith("HIP graphs") and fix("gaudi3").startswith("HPU graphs")
    assert fix("tpu-v5p").startswith("one compiled program per step") and "CUDA" not in fix("tpu-v5p")
    tpu = remedies("compute-bound", load_hardware(ROOT / "specs" / "hardware" / "tpu-v5p.yaml"))
    assert tpu[-1] == "a chip with more compute"


def test_plans_help_names_no_gpu_alone():
    """``genreport plan --help`` lists TPUs and Gaudis too: its words say "device", not "per GPU"."""
    from genreport.commands.plan import _parser

    text = _parser().format_help()
    assert "per GPU" not in text and "GPU-hour" not in text and "per device" in text
