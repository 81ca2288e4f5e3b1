"""genreport's own measurements on one NVIDIA H200, against the bound and the estimate's inputs.

Measured on 2026-12-04 on the H200 lent to that session (torch 2.11.0+cu130, CUDA 13.0, driver 580.159.04, 132
SMs, SM clock up to 1980 MHz, 700 W): ``bench/gpu_step.py`` wrote tests/data/gpu_step_h200.json (an empty CUDA C++
kernel launched and replayed from a CUDA graph; Llama 3.1 8B's shape in bf16 with random weights in plain PyTorch:
decode steps at 11 (batch, context) points, eager and replayed from a CUDA graph, and prefills of 16-8192 tokens,
eager), and ``genreport calibrate --device cuda`` wrote tests/data/h200-calibrated.yaml.  docs/measurements.md
reads them.
"""

from __future__ import annotations

import json
import statistics

import pytest
from genreport.load.loader import load_hardware, load_report
from genreport.load.spec import DEFAULT_GRAPH_KERNEL, DEFAULT_KERNEL_LAUNCH
from genreport.model.evaluate import evaluate
from shared import ROOT, SPECS

DATA = json.loads((ROOT / "tests" / "data" / "gpu_step_h200.json").read_text())
DECODE = [row for row in DATA["decode"] if "error" not in row]
PREFILL = [row for row in DATA["prefill"] if "error" not in row]
BATCHES = sorted({row["batch"] for row in DECODE})
CONTEXTS = sorted({row["context"] for row in DECODE})
PROMPTS = [row["prompt"] for row in PREFILL]


@pytest.fixture(scope="module")
def grids(tmp_path_factory):
    """The layout's decode grid and prefill rows of Llama 3.1 8B in bf16 on one H200 at the measured points, in
    both accountings; the engine block gives the measured program's own kernels a layer (1,458 a step / 32)."""
    spec = tmp_path_factory.mktemp("h200") / "h200-step.yaml"
    spec.write_text(f"""\
kind: report
name: h200-step
title: Llama 3.1 8B on one H200, as bench/gpu_step.py measured it
hardware: h200
model: llama-3.1-8b
precision: bf16
parallelism: {{tp: 1}}
engine: {{kernels_per_layer: 45}}
workloads:
  decode: {{batch: {BATCHES}, context: {CONTEXTS}}}
  prefill: {{prompt: {PROMPTS}}}
""")
    par = evaluate(load_report(spec)).parallel
    return par.decode, par.prefill


def test_the_data_is_the_model_and_gpu_the_tests_evaluate():
    assert DATA["device"] == "NVIDIA H200" and DATA["dtype"] == "bf16" and DATA["model"] == "llama-3.1-8b"
    assert DATA["shape"] == {"layers": 32, "d": 4096, "heads": 32, "kv_heads": 8, "head_dim": 128, "ffn": 14336,
                             "vocab": 128256}
    assert len(DECODE) == 11 and len(PREFILL) == 5  # every point ran


@pytest.mark.parametrize("accounting", ["seed", "exact"])
def test_no_measured_step_beats_the_strict_bound(grids, accounting):
    """Seed 003's max(F/P, Q/W) at the datasheet's 989.4 TFLOP/s and 4.8 TB/s under every measured step, eager or
    graph, decode or prefill; the closest is the graph-replayed batch 128 at 4k context, 1.37x its bound."""
    decode, prefill = grids
    g = decode[accounting]
    ratios = []
    for row in DECODE:
        i, j = BATCHES.index(row["batch"]), CONTEXTS.index(row["context"])
        bound = g["decode_time_bound"][i, j]
        for kind in ("graph_s", "eager_s"):
            assert row[kind] > bound, (row, kind, bound)
            ratios.append(row[kind] / bound)
    for k, row in enumerate(PREFILL):
        bound = prefill[accounting]["prefill_time_bound"][k]
        assert row["eager_s"] > bound, (row, bound)
        ratios.append(row["eager_s"] / bound)
    assert 1.3 < min(ratios) < 1.45  # the measurement is close enough to the bound to test it


def test_a_kernel_in_a_graph_replay_costs_what_the_default_charges():
    """tau_k: the empty kernel's share of a replay of 1,000 (0.496 us), and a real decode step's GPU time between its
    kernels (graph step - the kernels' summed time) / kernels, 0.31-0.54 us at every point: the default 0.5 us."""
    assert DATA["kernels"]["cuda_cpp"]["graph_kernel_s"] == pytest.approx(DEFAULT_GRAPH_KERNEL, rel=0.05)
    gaps = [(row["graph_s"] - row["kernel_time_s"]) / row["kernels"] for row in DECODE]
    assert all(0.3e-6 < gap < 0.55e-6 for gap in gaps), gaps
    assert statistics.median(gaps) == pytest.approx(DEFAULT_GRAPH_KERNEL, rel=0.25)
    assert all(1394 <= row["kernels"] <= 1458 for row in DECODE)  # plain PyTorch: 43-45 kernels a layer


def test_a_kernel_launched_on_its_own_costs_what_the_default_charges_or_more_from_python():
    """tau_l: an empty kernel launched from C++ 4.34 us apart (the default 5 us within the cited 4-6 us); an op
    issued from Python through PyTorch's dispatcher 8.4 us, so that a plain PyTorch step of tiny kernels is
    host-bound: the eager decode at batch 1 takes 4.3x its graph replay."""
    launch = DATA["kernels"]["cuda_cpp"]["launch_s"]
    assert 4e-6 < launch < DEFAULT_KERNEL_LAUNCH < 6e-6
    assert DATA["kernels"]["torch"]["eager_op_s"] > 1.5 * DEFAULT_KERNEL_LAUNCH
    first = DECODE[0]
    assert (first["batch"], first["context"]) == (1, 1024) and first["eager_s"] / first["graph_s"] > 4


def test_an_eager_prefill_overlaps_the_launches_with_the_gpu():
    """Launched on its own, a kernel's host cost runs while the GPU works on the kernels before it: a short prompt
    is host-bound (16 tokens: 24.4 ms eager against 6.8 ms of kernels), a long one GPU-bound, its eager time its
    kernels' (2k and 8k tokens: within 3%).  The estimate adds L k_L tau_l to the roofline instead: an
    over-count of at most 7.2 ms here, 4% of the 8k prompt's 173 ms estimate."""
    by_prompt = {row["prompt"]: row for row in PREFILL}
    assert by_prompt[16]["eager_s"] > 3 * by_prompt[16]["kernel_time_s"]
    for n in (2048, 8192):
        assert by_prompt[n]["eager_s"] == pytest.approx(by_prompt[n]["kernel_time_s"], rel=0.03)


def test_the_calibrated_h200_is_a_hardware_spec_under_its_datasheet():
    """``genreport calibrate --device cuda`` on the H200: the file it wrote loads, and what it measured sits under the
    datasheet and at or below the best shapes' matmul rates the catalog's h200 cites (achieved_matmul: Stas Bekman's
    MAMF table, 794.5 bf16 and 1453.4 fp8 TFLOP/s; calibrate times one 8192^3 shape: 771.7 and 1410)."""
    cal = load_hardware(ROOT / "tests" / "data" / "h200-calibrated.yaml")
    h200 = load_hardware(SPECS / "hardware" / "h200.yaml")
    assert cal.measured_bandwidth == cal.bandwidth == pytest.approx(4.263e12, rel=1e-3)
    assert 0.85 < cal.bandwidth / h200.bandwidth < 0.9  # a device-to-device copy, read and write counted
    for fmt in ("bf16", "fp8"):
        best = h200.achieved_matmul[fmt] * h200.dense[fmt]
        assert 0.95 * best < cal.dense[fmt] == cal.measured_peaks[fmt] <= best, fmt
