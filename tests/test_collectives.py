"""Collectives, experts and memory as the engines run them (issue 27): the bound stays below every measurement, the
estimate explains them.

Facts copied here, with their sources:
* gpt-fast README (pytorch-labs/gpt-fast, commit 0f925b5, "Tensor Parallelism" table; 8 x A100-80GB power-limited to
  330 W, batch 1, 5-token prompt): Llama-2-7B 104.9 / 168.84 / 254.02 / 328.43 tok/s on 1 / 2 / 4 / 8 GPUs,
  Llama-2-70B 21.32 / 38.01 / 62.50 on 2 / 4 / 8.
* NVIDIA/nccl-tests issue 212 (NCCL's maintainer): NCCL's ring reaches 370 GB/s bus bandwidth over NVLink 4; its
  NVLS all-reduce peaks at about 480 GB/s on 8 GPUs.  NVIDIA/nccl-tests issue 272: 8 x H200 all_reduce_perf peaks at
  475 GB/s bus bandwidth (NCCL 2.20.3).
* AMD ROCm blog "Understanding RCCL Bandwidth and xGMI Performance on AMD Instinct MI300X" (2025-03-02): each xGMI
  link is 64 GB/s, about 48 GB/s usable; issue 27 measured 47.7 GB/s between two MI300X.
* vLLM, SGLang and TensorRT-LLM one-shot all-reduce kernels: 5.7-7.8 us for 0.5-32 KiB on 8 x H100 (issue 27).
* NCCL src/graph/tuning.cc: 6.6 us base latency per ring call (LL), 25 us per NVLS call.
"""

from __future__ import annotations

import math
import re
import statistics

import numpy as np
import pytest
from genreport.formulas.architecture import parameter_count
from genreport.formulas.compiled import load
from genreport.load.loader import _precision, load_hardware, load_model
from genreport.load.spec import Parallelism
from genreport.model.env import busiest_experts, make_env
from genreport.model.layout import choose_links, layout_values
from genreport.model.plan import plan, point
from shared import ROOT, evaluated, rendered

GIB = 2**30


def _m(name):
    return load_model(ROOT / "specs" / "models" / f"{name}.yaml")


def _hw(name):
    return load_hardware(ROOT / "specs" / "hardware" / f"{name}.yaml")


def _tp(hw, tp):
    links, _ = choose_links(_hw(hw), Parallelism(tp))
    return links["tp"]


def _cv(xs):
    return statistics.pstdev(xs) / statistics.fmean(xs)


# ----------------------------------------------------------------------------------------------- tensor-parallel series

GPT_FAST = {  # model -> {GPUs: measured tok/s at batch 1}
    "llama-2-7b": {1: 104.9, 2: 168.84, 4: 254.02, 8: 328.43},
    "llama-2-70b": {2: 21.32, 4: 38.01, 8: 62.50},
}


@pytest.mark.parametrize("model", sorted(GPT_FAST))
def test_the_estimate_explains_the_tensor_parallel_series(model):
    """measured / estimate keeps within a coefficient of variation of 0.10 over each series (0.17 before the fixed
    cost per call and the measured bus bandwidth), and no measurement beats the bound."""
    m, hw, prec = _m(model), _hw("a100-sxm-80gb"), _precision("bf16")
    ratios = []
    for tp, measured in GPT_FAST[model].items():
        p = point(m, hw, prec, Parallelism(tp), 1.0, 5.0)
        assert measured <= 1 / p.time_bound
        ratios.append(measured * p.time_serial)
    assert _cv(ratios) <= 0.10, ratios


# ----------------------------------------------------------------------------------------------- one all-reduce

def _all_reduce(hw: str, n: int, z: float) -> tuple[float, float]:
    """(bound, estimate) of one all-reduce of z bytes per GPU over n GPUs of ``hw``, as the tensor-parallel group."""
    q, link = load(), _tp(hw, n)
    costs = {"tau_c": link.call_latency, "s_TP": float(link.in_network)}
    bound = float(q["all_reduce_time"]({"n_g": n, "Z_g": z, "W_x": link.bandwidth_per_direction,
                                        "alpha": link.latency, "s_TP": costs["s_TP"]}))
    ring = float(q["all_reduce_time_library"]({"n_g": n, "Z_g": z, "W_c": link.estimate_bandwidth,
                                               "alpha": link.latency, "tau_c": link.call_latency}))
    est = ring
    if link.in_network:
        lib = _hw(hw).collectives
        switch = float(q["all_reduce_time_switch"]({"n_g": n, "Z_g": z, "W_s": link.in_network_bus_bandwidth,
                                                    "tau_s": lib.in_network_call_latency,
                                                    "W_x": link.bandwidth_per_direction}))
        est = min(ring, switch)
    return bound, est


@pytest.mark.parametrize("hw, n, z, measured", [
    # 8 x H200, 4 GiB at the 475 GB/s bus bandwidth nccl-tests measured (NVLS): 15.8 ms
    ("h200", 8, 4 * GIB, 2 * 7 / 8 * 4 * GIB / 475e9),
    # 8 x H100, 16 GiB at NVLS's 480 GB/s peak
    ("h100-sxm", 8, 16 * GIB, 2 * 7 / 8 * 16 * GIB / 480e9),
    # two MI300X share one xGMI link: 1 GiB at the 47.7 GB/s measured between a pair (busbw = algbw for two)
    ("mi300x", 2, GIB, GIB / 47.7e9),
])
def test_the_all_reduce_model_against_measurements(hw, n, z, measured):
    bound, est = _all_reduce(hw, n, z)
    assert bound <= measured
    assert est == pytest.approx(measured, rel=0.30)


# nccl-tests all_reduce_perf on one HGX node (tests/data/nccl_all_reduce.csv: NVIDIA's aiconfigurator at commit 095f58a,
# <gpu>/comm/nccl/<version>/nccl_perf.parquet; fp16, 2, 4 and 8 GPUs, 512 B - 512 MiB, out-of-place time): the bound
# never above a measurement; the estimate (the library's ring with the fastest of its protocols, or NVLS, as the
# report's tensor-parallel ledger charges one call) within 30% of the measurement on the share of the 16 KiB - 512 MiB
# rows recorded here, and its lowest ratio.  Before the protocols (one ring: LL's 0.6 us steps at the bus bandwidth of
# large messages, a blend no protocol of NCCL's tuner has) it was 36, 38, 14 and 6 of 48, lowest 0.48, 0.50, 0.30 and
# 0.29, too fast at 1-16 MiB.  With the protocols 31, 45, 47 and 21; then the A100's and B200's LL latencies from the
# sweep's small messages (SMALL_MESSAGE_LINES: NCCL's 6.6 us + 0.6 us a step was 0.58-0.70 of their 16-128 KiB times)
# 43 and 32; then the bus bandwidth of 2 and 4 GPUs as measured (GROUP_BUS: a pair of H100 reached 0.68-0.69 of the
# estimate at 32-128 MiB, NVLS's 480 GB/s and the ring's 370 being 8-GPU values) 44, 48, 48 and 32.  The B200's file
# had no measured bus bandwidth (the line rate, 900 GB/s): with the sweep's 704 GB/s for 8 GPUs and 534 and 634 for 2
# and 4 it comes to 40 (lowest 0.53); its 4-64 MiB rows stay at 0.53-0.69 (LL128 at 0.92 of the bus bandwidth is
# faster there than the B200 runs it).  The A100's two-GPU 1-8 MiB rows were 0.51-0.67 (19.4 us at 512 KiB, 40.8 us
# at 1 MiB: a jump no protocol's line has): the estimate ran the protocol cheapest at its own costs, LL there, where
# NCCL's tuner, pricing at the line rate, leaves LL for Simple (SIMPLE_SWITCH), which then takes 35-44 us more than
# its bytes.  With the tuner choosing and Simple charged its measured line (SIMPLE_LINES) the A100 comes to 48
# (lowest 0.81); the others keep theirs.
NCCL_WITHIN_30 = {"a100-sxm-80gb": (48, 0.8115), "h100-sxm": (48, 0.7044), "h200": (48, 0.7078), "b200": (40, 0.5282)}

# LL's latencies in the hardware files of the GPUs the sweep covers: the least-squares line through its 512 B - 4 KiB
# times (12 rows: 4 sizes x 2, 4 and 8 GPUs, where the bytes cost under 0.1 us) against the ring's 2 (n - 1) steps,
# (call us, step us).  Where NCCL's own model (6.6 us + 0.6 us a step, 15.0 us at 8 GPUs) is within 10% of that line
# at 8 GPUs, the file keeps the tuner's constants (H100 15.75 us, 0.95; H200 16.3 us, 0.92); where it is not (A100
# 21.9 us, 0.69; B200 25.4 us, 0.59) the file takes the line, rounded (interconnect.latency, collectives.call_latency).
SMALL_MESSAGE_LINES = {"a100-sxm-80gb": (8.21, 0.976), "b200": (7.64, 1.272), "h100-sxm": (4.68, 0.791),
                       "h200": (4.80, 0.820)}
TUNER_LL = (6.6e-6, 0.6e-6)  # NCCL src/graph/tuning.cc: baseLatencies[RING][LL], hwLatencies[NVLINK][RING][LL]


def _nccl_all_reduce_rows():
    import csv
    return list(csv.DictReader((ROOT / "tests" / "data" / "nccl_all_reduce.csv").open(encoding="utf-8")))


def _library_all_reduce(hw: str, n: int, z: float) -> tuple[float, float, str]:
    """(bound, estimate, the algorithm the estimate picked) of one all-reduce of z bytes per GPU over n GPUs of ``hw``
    inside one domain, as the report's tensor-parallel ledger costs one call with no engine kernel
    (genreport.model.layout._all_reduce_costs: the ring with the fastest of the file's protocols, NVLS where the switch
    reduces, or the library's all-pairs algorithm on a full mesh, whichever is faster)."""
    from genreport.load.spec import Kernels
    from genreport.model.layout import _all_reduce_costs, collective_costs, one_shot_values
    link = _tp(hw, n)
    v = {**link.tier_values("tp"), **collective_costs(link), "n_TP": n, "n_uTP": n, "n_St": 1.0, "d": z, "b_a": 1.0,
         "alpha_oTP": 0.0, "W_oTP": link.bandwidth_per_direction, "W_coTP": link.estimate_bandwidth,
         **one_shot_values(Kernels(), link)}
    costs = _all_reduce_costs(load(), v)
    return costs["bound"], costs["estimate"], costs["picked"]


def _small_message_line(hw: str) -> tuple[float, float]:
    """(call, step) in seconds: the least-squares line through the sweep's 512 B - 4 KiB times of ``hw``."""
    pts = [(2 * (int(r["gpus"]) - 1), float(r["latency_ms"]) * 1e-3) for r in _nccl_all_reduce_rows()
           if r["hardware"] == hw and int(r["bytes"]) <= 4096]
    assert len(pts) == 12
    step, call = np.polyfit([x for x, _ in pts], [y for _, y in pts], 1)
    return float(call), float(step)


@pytest.mark.parametrize("hw", sorted(SMALL_MESSAGE_LINES))
def test_the_ll_latencies_are_the_sweeps_line_where_the_tuner_misses_it(hw):
    """By hand, the A100: (n, mean of 512 B - 4 KiB) = (2, 10.08), (4, 14.23), (8, 21.83) us against 2, 6 and 14 steps:
    slope 72.8 / 74.7 = 0.976 us a step, 15.38 - 0.976 x 7.33 = 8.21 us a call; 8.21 + 14 x 0.976 = 21.9 us at 8 GPUs,
    where NCCL's model says 15.0 (0.69): the file takes 8.2 us and 0.98 us."""
    call, step = _small_message_line(hw)
    assert (call * 1e6, step * 1e6) == pytest.approx(SMALL_MESSAGE_LINES[hw], abs=5e-3)
    files = [hw, "a100-sxm-40gb"] if hw == "a100-sxm-80gb" else [hw]  # the 40 GB card: the same HGX A100 fabric
    for name in files:
        h = _hw(name)
        have = (h.collectives.call_latency, h.link.latency)
        if abs((TUNER_LL[0] + 14 * TUNER_LL[1]) / (call + 14 * step) - 1) <= 0.10:
            assert have == pytest.approx(TUNER_LL, rel=1e-12), name
        else:
            assert have[0] == pytest.approx(round(call * 1e6, 1) * 1e-6, rel=1e-12), name
            assert have[1] == pytest.approx(round(step * 1e6, 2) * 1e-6, rel=1e-12), name


# interconnect.group_bus_bandwidth: nccl-tests' bus bandwidth at its largest message (512 MiB) on 2 and 4 GPUs,
# 2 (n - 1) / n x bytes / time, in GB/s (the sweep's 8-GPU values, 445-460 on H100/H200 with NVLS and 222 on A100, are
# beside the files' bus_bandwidth and in_network_bus_bandwidth from nccl-tests issues 212 and 272 and issue 149; the
# B200's 704 is its file's bus_bandwidth, the only figure found)
GROUP_BUS = {"a100-sxm-80gb": {2: 193.0, 4: 216.7}, "b200": {2: 534.1, 4: 633.7}, "h100-sxm": {2: 318.3, 4: 350.2},
             "h200": {2: 315.1, 4: 348.4}}


@pytest.mark.parametrize("hw", sorted(GROUP_BUS))
def test_smaller_groups_take_the_bus_bandwidth_measured_on_them(hw):
    """By hand, 2 x H100 at 512 MiB: 536,870,912 B / 1.6866 ms = 318.3 GB/s (busbw = algbw for two); the file's 318
    GB/s caps the ring and NVLS of a group of 2 or 3, its 350 of 4-7; 8, the domain, keeps 370 and 480."""
    rows = {int(r["gpus"]): float(r["latency_ms"]) * 1e-3 for r in _nccl_all_reduce_rows()
            if r["hardware"] == hw and int(r["bytes"]) == 2**29}
    measured = {n: round(2 * (n - 1) / n * 2**29 / rows[n] / 1e9, 1) for n in (2, 4)}
    assert measured == pytest.approx(GROUP_BUS[hw], abs=0.05)
    files = [hw, "a100-sxm-40gb"] if hw == "a100-sxm-80gb" else [hw]
    for name in files:
        link = _hw(name).link
        assert link.group_bus_bandwidth == tuple((n, round(v) * 1e9) for n, v in sorted(measured.items())), name
    whole = _hw(hw).link
    for n, want in ((2, 2), (3, 2), (4, 4), (7, 4)):
        tp = _tp(hw, n)
        assert tp.bus_bandwidth == round(measured[want]) * 1e9
        assert (tp.bus_scope, tp.bus_group_gpus) == ("group", want)  # the report says on how many GPUs it was measured
        if whole.in_network_bus_bandwidth is not None:  # NVLS too: the group's measurement is the library's best
            assert tp.in_network_bus_bandwidth == round(measured[want]) * 1e9
    eight = _tp(hw, 8)
    assert (eight.bus_bandwidth, eight.in_network_bus_bandwidth) == (whole.bus_bandwidth, whole.in_network_bus_bandwidth)
    assert (eight.bus_scope, eight.bus_group_gpus) == ("", None)
    if hw == "b200":  # no ring-only or NVLS-only figure: the sweep's 8-GPU bus bandwidth is the file's, for both
        assert whole.bus_bandwidth == round(2 * 7 / 8 * 2**29 / _eight_gpus_at_512_mib(hw) / 1e9) * 1e9 == 704e9
        assert whole.in_network_bus_bandwidth is None


def test_the_report_says_where_a_groups_bus_bandwidth_was_measured():
    """Chapter 6 names the scope of the bus bandwidth it uses: 70B at tp 2 on H100 takes the 318 GB/s measured on 2
    GPUs (not the 8-GPU ring's 370), MI300X at tp 4 its 3 links' share of the mesh (3 x 48 = 144 GB/s)."""
    from genreport.present import fmt

    text = (ROOT / "out" / "llama70b-h100-tp2" / "report.html").read_text(encoding="utf-8")
    assert "the collectives library reaches 318 GB/s (as measured on 2 GPUs)" in text
    mesh = _tp("mi300x", 4)
    assert (mesh.bus_scope, fmt.bandwidth(mesh.bus_bandwidth)) == ("mesh", "144 GB/s")


def _eight_gpus_at_512_mib(hw: str) -> float:
    return next(float(r["latency_ms"]) * 1e-3 for r in _nccl_all_reduce_rows()
                if r["hardware"] == hw and int(r["gpus"]) == 8 and int(r["bytes"]) == 2**29)


def _row_values(hw: str, n: int, z: float) -> dict:
    """The tensor-parallel link's values for one all-reduce of z bytes per GPU over n GPUs of ``hw`` in one domain."""
    from genreport.load.spec import Kernels
    from genreport.model.layout import collective_costs, one_shot_values
    link = _tp(hw, n)
    return {**link.tier_values("tp"), **collective_costs(link), "n_TP": n, "n_uTP": n, "n_St": 1.0, "d": z, "b_a": 1.0,
            "alpha_oTP": 0.0, "W_oTP": link.bandwidth_per_direction, "W_coTP": link.estimate_bandwidth,
            **one_shot_values(Kernels(), link)}


def _tuner_runs(hw: str, n: int, z: float) -> tuple[str, dict]:
    """(the protocol NCCL's tuner runs, each protocol's ring as the estimate charges it) for one all-reduce."""
    from genreport.model.layout import _algorithm_costs
    _, rings, _, run = _algorithm_costs(load(), _row_values(hw, n, z), z)
    return run, rings


# collectives.protocols.simple.measured: the least-squares line of each nccl-tests time less its bytes at the group's
# bus bandwidth (GROUP_BUS; the file's bus_bandwidth for 8) against the ring's 2 (n - 1) steps, through the rows of up
# to 32 MiB at which the tuner runs Simple (larger messages are their bytes: what is left there is the bandwidth's
# error, not a latency), (call us, step us) as the files round them.  NCCL's tuner prices Simple at 8.4 us + 3.4 us a
# step (15.2 us on 2 GPUs); a call pays 27.0 + 2 x 5.97 = 38.9 us on 2 x A100, 25.9 on 2 x H100.
SIMPLE_LINES = {"a100-sxm-80gb": (27.0, 5.97), "b200": (11.9, 5.25), "h100-sxm": (24.1, 0.89), "h200": (20.8, 0.99)}


@pytest.mark.parametrize("hw", sorted(SIMPLE_LINES))
def test_simple_is_charged_the_sweeps_line_where_the_tuner_runs_it(hw):
    pts = []
    for r in _nccl_all_reduce_rows():
        n, z = int(r["gpus"]), float(r["bytes"])
        if r["hardware"] != hw or z > 2**25 or _tuner_runs(hw, n, z)[0] != "Simple":
            continue
        bus = float(_tp(hw, n).estimate_bandwidth)
        pts.append((2 * (n - 1), float(r["latency_ms"]) * 1e-3 - 2 * (n - 1) / n * z / bus))
    assert len({x for x, _ in pts}) >= 2 and len(pts) >= 6
    step, call = np.polyfit([x for x, _ in pts], [y for _, y in pts], 1)
    assert (round(call * 1e6, 1), round(step * 1e6, 2)) == SIMPLE_LINES[hw]
    for name in [hw, "a100-sxm-40gb"] if hw == "a100-sxm-80gb" else [hw]:
        simple = _hw(name).collectives.protocols.simple
        assert (simple.measured.call_latency, simple.measured.step_latency) == pytest.approx(
            tuple(x * 1e-6 for x in SIMPLE_LINES[hw]), rel=1e-12), name
        assert (simple.call_latency, simple.step_latency) == pytest.approx((8.4e-6, 3.4e-6), rel=1e-12)  # the tuner's


@pytest.mark.parametrize("hw, n, before, after, jump", [
    ("a100-sxm-80gb", 2, 2**19, 2**20, (19.4, 40.8)),
    ("h100-sxm", 2, 2**20, 2**21, (14.7, 27.9)),
])
def test_the_tuner_leaves_ll_where_the_measured_time_jumps(hw, n, before, after, jump):
    """By hand, 2 x A100: LL prices at 8.2 + 2 x 0.98 us + Z / 87.7 GB/s (llMaxBw), Simple at 8.4 + 2 x 3.4 us +
    Z / 300 GB/s (the line rate): equal at Z = 5.04 us / (1/87.7 - 1/300 per GB/s) = 624.6 kB, between 512 KiB and
    1 MiB, where nccl-tests' time doubles (19.4 -> 40.8 us); 2 x H100: 7.8 us + Z / 141 GB/s against 15.2 us + Z / 450
    GB/s, 1.52 MB, between 1 and 2 MiB (14.7 -> 27.9 us).  The protocol cheapest at the estimate's own costs would
    keep LL past the jump (A100 at 1 MiB: 22.1 us against Simple's 44.4; the measurement is 40.8); the H100's
    estimate at 2 MiB is 31.6 us (1.13)."""
    z_switch = {"a100-sxm-80gb": (15.2e-6 - 10.16e-6) / (1 / 87.7e9 - 1 / 300e9),
                "h100-sxm": (15.2e-6 - 7.8e-6) / (1 / 141e9 - 1 / 450e9)}[hw]
    assert before < z_switch < after
    assert z_switch == pytest.approx({"a100-sxm-80gb": 624.6e3, "h100-sxm": 1.5195e6}[hw], rel=1e-3)
    assert _tuner_runs(hw, n, before)[0] == "LL" and _tuner_runs(hw, n, after)[0] == "Simple"
    measured = {int(r["bytes"]): float(r["latency_ms"]) * 1e3 for r in _nccl_all_reduce_rows()
                if r["hardware"] == hw and int(r["gpus"]) == n}
    assert (round(measured[before], 1), round(measured[after], 1)) == jump
    run, rings = _tuner_runs(hw, n, after)
    assert min(rings, key=rings.get) == "LL"  # what the estimate ran before the tuner chose
    est = _library_all_reduce(hw, n, after)[1]
    off = {k: abs(x / (jump[1] * 1e-6) - 1) for k, x in (("estimate", est), ("LL", rings["LL"]))}
    assert off["estimate"] <= 0.15 and off["LL"] > off["estimate"]  # A100: 0.09 against 0.46; H100: 0.13 against 0.19
    if hw == "a100-sxm-80gb":  # LL: 10.16 us + 1 MiB / 87.7 GB/s; Simple: 38.94 us + 1 MiB / 193 GB/s
        assert (rings["LL"], rings["Simple"]) == pytest.approx((22.12e-6, 44.37e-6), abs=5e-9)


def test_chapter_6_says_where_the_tuner_changes_the_protocol():
    """The batch where each protocol change happens, by hand.  70B at tp 2 on H100: LL's price 6.6 + 2 x 0.6 us + Z /
    141 GB/s meets Simple's 8.4 + 2 x 3.4 us + Z / 450 GB/s at Z = 7.4 us / (1/141 - 1/450 per GB/s) = 1.5195 MB, the
    messages of 93 sequences (16,384 B each); at tp 8 (14 steps, 14/8 Z sent) LL's 15.0 us + 14/8 Z / 141 GB/s meets
    LL128's 14 + 14 x 1.9 us + 14/8 Z / 414 GB/s at 25.6 us / (14/8 (1/141 - 1/414) per GB/s) = 3.128 MB, 191
    sequences; a pipeline of 2 stages sends half the batch a call, so the same change comes at twice the batch."""
    r = evaluated("llama70b-h100-tp2.yaml")
    (change,) = r.parallel.all_reduce["protocol_changes"]
    assert (change["from"], change["to"], change["batch"]) == ("LL", "Simple", 93)
    assert change["bytes"] == pytest.approx(7.4e-6 / (1 / 141e9 - 1 / 450e9), rel=1e-6)
    text = rendered(r, "sections/s7_gpus.html.j2")
    said = "the tuner changes the ring's protocol: from LL to Simple at 1.52 MB a call, a batch of 93 per replica"
    assert said in text
    # Simple's measured line and the tuner's prices in the unit they are measured in (the hardware file: 24.1 us a call,
    # 0.89 us a step; NCCL's tuning.cc: 8.4 and 3.4 us), not "0.0241 ms" beside "0.89 µs"
    assert "(Simple then charged 24.1 µs a call and 0.89 µs a step, as nccl-tests measure it, where the tuner prices " \
        "it at 8.4 µs and 3.4 µs)" in " ".join(text.split())
    # one call's costs in microseconds, as the collectives' sources give them, beside a step's (the bound) in the same
    # unit; a prefill's compute row beside them stays in ms
    words = " ".join(rendered(evaluated("llama70b-h100-tp8.yaml"), "sections/s7_gpus.html.j2").split())
    assert "costs at least 0.636 µs; the library takes 15.2 µs (ring with LL, 6.6 µs of it the fixed cost of the " \
        "call)" in words and ": 25.1 µs here" in words and " ms here" not in words
    assert ": 206 ms here" in " ".join(rendered(evaluated("deepseek-v3-h200-ep8.yaml"), "sections/s7_gpus.html.j2").split())
    eight = evaluated("llama70b-h100-tp8.yaml").parallel.all_reduce["protocol_changes"]
    assert [(c["from"], c["to"]) for c in eight] == [("LL", "LL128"), ("LL128", "Simple")]
    assert eight[0]["bytes"] == pytest.approx(25.6e-6 / (14 / 8 * (1 / 141e9 - 1 / (0.92 * 450e9))), rel=1e-6)
    assert eight[0]["batch"] == 191
    staged = evaluated("llama70b-h100-tp8.yaml", ["parallelism.pp=2"]).parallel.all_reduce["protocol_changes"]
    assert [c["bytes"] for c in staged] == pytest.approx([c["bytes"] for c in eight], rel=1e-9)
    assert [c["batch"] for c in staged] == [math.ceil(c["bytes"] / 16384 * 2) for c in eight] == [382, 5560]


def test_the_crossover_batch_is_where_the_run_protocols_time_passes_the_ledger_for_good():
    """comm_hbm_crossover_batch's closed form against a scan: on 400 random one-domain layouts (2-8 GPUs, the file's
    protocols with measured Simple lines of 5-60 us, contexts of 16-32k), the batch past which the all-reduces of
    the protocol NCCL's tuner runs stay above the HBM ledger is found on a grid of B and lies in the closed form's
    grid step (13 of them at a change of protocol, where the gap steps over the ledger); where no batch of the grid
    is below the ledger after one above it, the closed form says none.  The scan takes each protocol's charged line
    and the tuner's prices from formulas.parallel.crossover_lines."""
    import sympy as sp
    from genreport.formulas import parallel

    gaps, priced = parallel.crossover_lines()
    names = sorted({str(x) for e in (*gaps.values(), *priced.values()) for x in e.free_symbols} - {"B"})
    syms = [sp.Symbol(x, positive=True) for x in names]
    b = sp.Symbol("B", positive=True)
    gap_f = {p: sp.lambdify([b, *syms], e, "numpy") for p, e in gaps.items()}
    price_f = {p: sp.lambdify([b, *syms], e, "numpy") for p, e in priced.items()}
    closed = load()["comm_hbm_crossover_batch"]
    rng = np.random.default_rng(27)
    grid = np.geomspace(1e-2, 1e7, 60_001)
    found = jumps = 0

    def log_uniform(lo, hi):
        return float(np.exp(rng.uniform(np.log(lo), np.log(hi))))

    for _ in range(400):
        n = float(rng.choice([2, 4, 8]))
        w_tp = rng.uniform(50e9, 900e9)
        w_c = w_tp * rng.uniform(0.4, 1.0)
        v = {"L": float(rng.integers(16, 128)), "N": log_uniform(1e8, 4e11), "S": log_uniform(16, 32768),
             "W": rng.uniform(1e12, 8e12), "W_TP": w_tp, "W_cTP": w_c, "W_lTP": min(w_c / 2, rng.uniform(40e9, 300e9)),
             "alpha_TP": rng.uniform(0.4e-6, 1.5e-6), "alpha_8TP": rng.uniform(1e-6, 4e-6),
             "alpha_STP": rng.uniform(2e-6, 6e-6), "alpha_SmTP": rng.uniform(0.5e-6, 8e-6),
             "tau_c": rng.uniform(5e-6, 10e-6), "tau_c8": rng.uniform(10e-6, 20e-6), "tau_cS": rng.uniform(5e-6, 12e-6),
             "tau_cSm": rng.uniform(5e-6, 60e-6), "b": float(rng.choice([0.5, 1.0, 2.0])), "b_a": 2.0,
             "c": log_uniform(1e2, 4e5), "d": float(rng.choice([2048, 4096, 8192, 16384])), "n_TP": n,
             "s_kv": float(rng.choice([1.0, n])), "V": float(rng.choice([32000, 128256])), "s_st": 0.0,
             "N_R": float(rng.choice([0.0, log_uniform(1e6, 1e10)]))}
        args = [v[x] for x in names]
        prices = np.array([price_f[p](grid, *args) * np.ones_like(grid) for p in parallel.RING_TUNER])
        run = np.argmin(prices, axis=0)  # a tie to the first, as the tuner
        gap = np.choose(run, [gap_f[p](grid, *args) * np.ones_like(grid) for p in parallel.RING_TUNER])
        want = float(closed({"B": 1.0, **v}))
        slopes = [gap_f[p](1.0, *args) - gap_f[p](0.0, *args) for p in parallel.RING_TUNER]
        if min(slopes) <= 0:
            assert want == -1
            continue
        up = np.flatnonzero((gap[:-1] < 0) & (gap[1:] >= 0))
        if len(up) == 0 or gap[-1] < 0:
            assert want < grid[0] * 1.0001 or gap[-1] < 0, (v, want)
            continue
        i = up[-1]
        assert grid[i] * (1 - 1e-9) <= want <= grid[i + 1] * (1 + 1e-9), (v, want, grid[i])
        found += 1
        jumps += run[i] != run[i + 1]
    assert found >= 90 and jumps >= 8, (found, jumps)  # 108 and 13


def test_the_ll128_share_is_one_number():
    """The formulas' LL128 share (a SymPy rational, no SymPy at build time) and the layout's are NCCL's 0.92."""
    from genreport.formulas.parallel import LL128_SHARE as formula
    from genreport.load.spec import LL128_SHARE as layout
    assert float(formula) == layout == 0.92


def test_no_nccl_tests_all_reduce_beats_the_bound():
    rows = _nccl_all_reduce_rows()
    assert len(rows) == 252 and {r["hardware"] for r in rows} == set(NCCL_WITHIN_30)
    for r in rows:
        bound, _, _ = _library_all_reduce(r["hardware"], int(r["gpus"]), float(r["bytes"]))
        assert bound <= float(r["latency_ms"]) * 1e-3, r


@pytest.mark.parametrize("hw", sorted(NCCL_WITHIN_30))
def test_the_all_reduce_estimate_against_nccl_tests(hw):
    """By hand, 8 x H100 at 16 KiB: the ring with LL, 6.6 + 14 x 0.6 us + 14/8 x 16,384 B / 141 GB/s (half of 370, at
    most NCCL's 141 on Hopper) = 15.20 us, against 19.0 us measured (0.80); at 4 MiB LL takes 67.1 us, LL128 14 + 14 x
    1.9 us + 14/8 x 4 MiB / (0.92 x 370 GB/s) = 62.2 us, Simple 75.8 us, and NVLS 25 us + 14/8 x 4 MiB / 480 GB/s =
    40.3 us, the estimate, against 50.5 us (0.80; the one ring without protocols charged 34.8 us, 0.69)."""
    ratios = [_library_all_reduce(hw, int(r["gpus"]), float(r["bytes"]))[1] / (float(r["latency_ms"]) * 1e-3)
              for r in _nccl_all_reduce_rows() if r["hardware"] == hw and int(r["bytes"]) >= 16384]
    assert len(ratios) == 48  # 16 sizes x 2, 4 and 8 GPUs
    within, lowest = NCCL_WITHIN_30[hw]
    assert sum(abs(x - 1) <= 0.30 for x in ratios) == within
    assert min(ratios) == pytest.approx(lowest, abs=5e-4)
    if hw == "h100-sxm":
        assert _library_all_reduce(hw, 8, 16384)[1] == pytest.approx(6.6e-6 + 14 * 0.6e-6 + 14 / 8 * 16384 / 141e9)
        z = 4 * 2**20
        assert 14e-6 + 14 * 1.9e-6 + 14 / 8 * z / (0.92 * 370e9) == pytest.approx(62.16e-6, abs=1e-8)
        assert _library_all_reduce(hw, 8, z)[1] == pytest.approx(25e-6 + 14 / 8 * z / 480e9)
        assert 25e-6 + 14 / 8 * z / 480e9 == pytest.approx(40.29e-6, abs=1e-8)


def _rccl_all_reduce_rows():
    import csv
    return list(csv.DictReader((ROOT / "tests" / "data" / "rccl_all_reduce.csv").open(encoding="utf-8")))


def test_the_mi300x_all_pairs_latency_is_the_sweeps_small_messages():
    """RCCL on 8 x MI300X times 1-8 KiB at 13.67-13.76 us (rccl-tests, tests/data/rccl_all_reduce.csv), flat: no ring
    steps. The hardware file's all-pairs call latency is their median, where RCCL's ring model charges 12 + 14 x 0.8 =
    23.2 us."""
    small = sorted(float(r["time_us"]) for r in _rccl_all_reduce_rows() if int(r["bytes"]) <= 8192)
    assert small == [13.67, 13.67, 13.72, 13.76]
    assert _hw("mi300x").collectives.all_pairs_call_latency == pytest.approx(np.median(small) * 1e-6, abs=0.05e-6)
    assert 12e-6 + 14 * 0.8e-6 == pytest.approx(23.2e-6)


def test_the_mi300x_all_reduce_estimate_against_rccl_tests():
    """Every row of 16 KiB - 8 GiB within 30% (20 of 20, the lowest 0.738 at 16 MiB), none below the bound. By hand at
    16 KiB: the all-pairs algorithm, 13.7 us + 7 x 16,384 B / 336 GB/s = 14.04 us against 15.47 measured (the ring's
    model, 23.3 us, was 1.41-1.68 x the sweep from 16 to 256 KiB); from 1 MiB the ring (12 us + 14 x 0.8 us and the
    file's 336 GB/s bus bandwidth; the file prices no protocols apart): at 8 GiB 44.76 ms against 47.62 (0.94: the sweep peaks at 315.7 GB/s)."""
    rows = [r for r in _rccl_all_reduce_rows() if int(r["bytes"]) >= 16384]
    assert len(rows) == 20
    got = [(_library_all_reduce("mi300x", int(r["gpus"]), float(r["bytes"])), float(r["time_us"]) * 1e-6)
           for r in rows]
    assert all(bound <= t for (bound, _, _), t in got)
    ratios = [est / t for (_, est, _), t in got]
    assert sum(abs(x - 1) <= 0.30 for x in ratios) == 20
    assert min(ratios) == pytest.approx(0.738, abs=5e-4)
    bound, est, picked = _library_all_reduce("mi300x", 8, 16384)
    assert picked == "one-shot" and est == pytest.approx(13.7e-6 + 7 * 16384 / 336e9, rel=1e-12)
    assert est == pytest.approx(14.04e-6, abs=5e-9)
    # the all-pairs algorithm sends n/2 = 4 times the ring's bytes: the ring takes over between 512 KiB and 1 MiB
    assert [_library_all_reduce("mi300x", 8, z)[2] for z in (512 * 1024, 2**20, 2**33)] == ["one-shot", "ring", "ring"]


@pytest.mark.parametrize(("overrides", "by", "call"), [
    (["hardware=mi300x"], "library", 13.7e-6),  # RCCL's all-pairs algorithm on the mesh
    (["hardware=mi300x", "engine.all_reduce=one-shot"], "engine", 5.7e-6),  # the engine's kernel, the faster call
    (["engine.all_reduce=one-shot"], "engine", 5.7e-6),  # NVSwitch: the engine's kernel only
])
def test_whose_one_shot_all_reduce_the_report_names(overrides, by, call):
    """Llama 3.1 70B at tp 8, batch 1 (a 16 KiB all-reduce): the one-shot all-reduce the estimate picks is the library's
    all-pairs algorithm on MI300X's mesh, the engine's kernel where the spec runs one (5.7 us a call against RCCL's
    13.7), and the report says whose."""
    ar = evaluated("llama70b-h100-tp8.yaml", overrides).parallel.all_reduce
    assert (ar["picked"], ar["one_shot_by"], ar["call_latency"]) == ("one-shot", by, pytest.approx(call))


def test_the_one_shot_all_reduce_wins_up_to_a_message_size_by_hand():
    """Where the one-shot all-reduce wins at batch 1 the report says up to which message (and batch) it does: it sends
    (n-1) Z, the ring 2 (n-1)/n Z. Llama 3.1 70B at tp 8 (16 KiB a sequence): on MI300X, RCCL's all-pairs
    13.7 us + 7 Z / 336 GB/s against its ring's 12 + 14 x 0.8 us + 1.75 Z / 336 GB/s, equal at Z = 9.5 us x 336 GB/s
    / 5.25 = 608,000 B (batch 37); on H100 the engine's kernel, 5.7 us + 7 Z / 370 GB/s, against NVLS's 25 us +
    1.75 Z / 480 GB/s, the fastest other there: Z = 19.3 us / (7 / 370 - 1.75 / 480) GB/s = 1.264 MB (batch 77). Two
    GPUs (both send Z once) and a batch where the ring already wins give none."""
    mi = evaluated("llama70b-h100-tp8.yaml", ["hardware=mi300x"]).parallel.all_reduce
    assert mi["one_shot_up_to_bytes"] == pytest.approx(9.5e-6 * 336e9 / 5.25, rel=1e-6)
    assert mi["one_shot_up_to_batch"] == 608_000 // 16_384 == 37
    h100 = evaluated("llama70b-h100-tp8.yaml", ["engine.all_reduce=one-shot"]).parallel.all_reduce
    z = (25e-6 - 5.7e-6) / (7 / 370e9 - 1.75 / 480e9)
    assert h100["one_shot_up_to_bytes"] == pytest.approx(z, rel=1e-6) and z == pytest.approx(1.2637e6, rel=1e-4)
    assert h100["one_shot_up_to_batch"] == 77
    for overrides in (["hardware=mi300x", "parallelism.tp=2"], []):
        ar = evaluated("llama70b-h100-tp8.yaml", overrides).parallel.all_reduce
        assert ar["one_shot_up_to_bytes"] is None and ar["one_shot_up_to_batch"] is None


def test_the_all_pairs_algorithm_stays_inside_one_mesh():
    """tp 16 on MI300X spans two nodes: the all-reduce leaves the mesh for the NICs, so no all-pairs algorithm (each GPU
    would need a link to all 15 peers); the library's hierarchical form is the estimate."""
    ar = evaluated("llama70b-h100-tp8.yaml", ["hardware=mi300x", "parallelism.tp=16"]).parallel.all_reduce
    assert (ar["picked"], ar["one_shot"], ar.get("one_shot_by")) == ("hierarchical", None, None)


def test_engine_one_shot_kernels_do_not_beat_the_bound():
    """5.7 us for 32 KiB on 8 x H100 (vLLM's custom all-reduce) is below the ring's 2 (n-1) steps of latency, not
    below the bound: the fewest bytes at the line rate and one step."""
    bound, est = _all_reduce("h100-sxm", 8, 32 * 1024)
    assert bound <= 5.7e-6 < est
    ring_latency = 2 * 7 * 0.6e-6 + 6.6e-6
    assert ring_latency > 5.7e-6  # which the old bound charged


def test_nvls_is_picked_for_large_messages_only():
    link = _tp("h100-sxm", 8)
    small, large = 16 * 1024, 256 * 2**20
    _b, e_small = _all_reduce("h100-sxm", 8, small)
    assert e_small == pytest.approx(6.6e-6 + 14 * 0.6e-6 + 1.75 * small / 370e9, rel=1e-12)  # the ring
    _b, e_large = _all_reduce("h100-sxm", 8, large)
    assert e_large == pytest.approx(25e-6 + 1.75 * large / 480e9, rel=1e-12)  # NVLS
    assert link.in_network and link.bus_bandwidth == 370e9


def test_a_mesh_gives_a_pair_one_link():
    pair, node = _tp("mi300x", 2), _tp("mi300x", 8)
    assert pair.bandwidth_per_direction == 64e9 and pair.per_direction_from == "mesh"
    assert pair.bus_bandwidth == pytest.approx(48e9)
    assert node.bandwidth_per_direction == 448e9 and node.bus_bandwidth == pytest.approx(336e9)
    _links, notes = choose_links(_hw("mi300x"), Parallelism(2))
    assert any("mesh" in n and "64 GB/s" in n for n in notes)


def test_gaudi_3s_scale_up_is_a_mesh_too():
    """Gaudi 3's 21 scale-up ports are 3 to each of its 7 peers in an HLS-3 box (Intel Gaudi docs, Network
    Configuration; specs/hardware/gaudi3.yaml): a pair gets 3 x 25 = 75 GB/s each way, the whole box 525.  Without
    the topology a tp 2 group read 525 GB/s (a review: Qwen3-235B's 8k-prompt TTFT at tp 2, 121.7 ms compute-bound,
    where the pair's link takes at least 188 all-reduces x 67.1 MB / 75 GB/s = 168 ms)."""
    pair, four, node = _tp("gaudi3", 2), _tp("gaudi3", 4), _tp("gaudi3", 8)
    assert pair.bandwidth_per_direction == 75e9 and pair.per_direction_from == "mesh"
    assert four.bandwidth_per_direction == 3 * 75e9
    assert node.bandwidth_per_direction == 525e9


def test_a_mesh_note_is_said_once_for_the_group_that_sends():
    """gpt-oss-120b at tp 2 x ep 2 on an Infinity Fabric mesh: the ep group inside the tp group sends nothing, and the
    report said the mesh's share twice, once for "a ep group of 2 GPUs"; an ep group wider than tp (ep 4 over tp 2 x
    dp 2) sends its all-to-alls over its own 3 links and is named so."""
    _links, notes = choose_links(_hw("mi300x"), Parallelism(tp=2, ep=2))
    mesh = [n for n in notes if "is a mesh" in n]
    assert len(mesh) == 1 and "a tp group of 2 GPUs gets 1 of them, 64 GB/s per direction of the 448" in mesh[0]
    _links, notes = choose_links(_hw("mi300x"), Parallelism(tp=2, ep=4, dp=2))
    assert any("an ep group of 4 GPUs gets 3 of them, 192 GB/s per direction" in n for n in notes), notes


# ----------------------------------------------------------------------------------------------- experts

def test_the_busiest_expert_gpu():
    # one token's k experts are distinct: on 8 GPUs holding one expert each the busiest holds exactly one
    assert busiest_experts(8, 8, 2.0) == 1.0
    # DeepSeek-V3, 8 tokens (one per rank of dp 8 x ep 8): 57.4 of 256 experts touched, 32 on each GPU
    touched = 256 * (1 - (1 - 8 / 256) ** 8)
    assert touched / 8 == pytest.approx(7.18, abs=0.005)
    assert busiest_experts(256, 8, touched) == pytest.approx(10.66, abs=0.05)  # +48% over the mean
    # every expert touched: every GPU holds all of its own
    assert busiest_experts(256, 8, 256.0) == 32.0


def test_mixtral_8x22b_tp8_ep8_batch1_waits_for_a_whole_expert():
    """The two experts a token picks sit whole on two GPUs: each streams one expert per layer, 56 x 626 MB / 3.35
    TB/s = 10.5 ms, against the bound's 2.93 ms (the active weights spread evenly)."""
    p = point(_m("mixtral-8x22b"), _hw("h100-sxm"), _precision("bf16"), Parallelism(8, 1, 8, 1), 1.0, 1024.0)
    assert p.time_bound == pytest.approx(2.93e-3, rel=0.01)
    assert p.time_serial >= 10.5e-3


def test_expert_parallelism_inside_the_replica_sends_no_all_to_all():
    """With tensor-parallel attention every GPU holds the tokens; the closing all-reduce sums the experts' outputs."""
    m, hw, prec = _m("mixtral-8x22b"), _hw("h100-sxm"), _precision("bf16")
    with_ep = point(m, hw, prec, Parallelism(8, 1, 8, 1), 8.0, 1024.0)
    without = point(m, hw, prec, Parallelism(8, 1, 1, 1), 8.0, 1024.0)
    assert with_ep.time_comm == without.time_comm


def test_memory_per_gpu_holds_every_expert():

    r = evaluated("mixtral8x22b-h100-tp8-ep8.yaml")
    mem = r.parallel.decode[r.lead]["memory_per_gpu"]
    weights = r.parallel.scalars[r.lead]["weight_bytes_per_gpu"]
    assert weights == pytest.approx(35.2e9, rel=0.01)  # resident: all 8 experts of 141B over 8 GPUs
    assert np.all(mem >= weights)


# ----------------------------------------------------------------------------------------------- MLA prefill

def test_mla_prefill_in_the_cheaper_form():
    """DeepSeek-V3 prefill of 8k on one H200 in fp8: 2 N_p T + 2 L H_q d_h T^2 with d_h = (128 + 64 + 128) / 2 = 160
    (keys and values decompressed), not the absorbed 544: about 376 ms, not 585."""
    p = point(_m("deepseek-v3"), _hw("h200"), _precision("fp8"), Parallelism(), 1.0, 1024.0, prompt=8192.0)
    assert p.prefill_bound == pytest.approx(0.376, rel=0.01)


# ----------------------------------------------------------------------------------------------- memory reserve

def test_deepseek_v3_fp8_on_one_h100_node_needs_the_reserve_it_lacks():
    """8 x 80 GiB hold its 671 GB of fp8 weights with 1.9 GiB per GPU to spare: not with the engine's 10%."""
    m, prec = _m("deepseek-v3"), ("fp8",)
    import dataclasses

    bare = dataclasses.replace(_hw("h100-sxm"), memory_reserve=0.0)
    kept = dataclasses.replace(_hw("h100-sxm"), memory_reserve=0.1)
    assert any(r.gpus == 8 for r in plan(m, bare, 1, 4096, None, prec, 8).rows)
    assert not plan(m, kept, 1, 4096, None, prec, 8).rows


def test_the_reserve_shrinks_the_capacity_of_a_report(tmp_path):
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate

    text = (ROOT / "specs" / "llama8b-a100.yaml").read_text()
    assert "engine:" not in text  # the default reserve
    spec = load_report(ROOT / "specs" / "llama8b-a100.yaml")
    assert spec.hardware.memory_reserve == 0.1
    env = make_env(spec.hardware, spec.model, spec.precision, "seed")
    # and the engine's activation workspace (tests/test_workspace.py): Llama 3.1 8B (hidden 4096, intermediate 14336,
    # vocab 128256) on one GPU, 8192 tokens, 256 sampled sequences: 8192 x 2 B x (2 x 4096 + 3 x 14336)
    # + 256 x 128256 x 4 B = 838,860,800 + 131,334,144 B
    kept = 0.9 * spec.hardware.capacity - 970_194_944
    assert env.values["C"] == pytest.approx(kept, rel=1e-12)
    r = evaluate(spec)
    n_b = r.scalars["seed"]["weight_bytes"]
    c = r.scalars["seed"]["kv_bytes_per_token"]
    assert r.scalars["seed"]["kv_capacity_tokens"] == pytest.approx((kept - n_b) / c, rel=1e-9)
    # the seeds' own pair gives the KV cache everything
    seed = load_report(ROOT / "specs" / "llama8b-h100.yaml")
    assert seed.hardware.memory_reserve == 0.0


def test_layout_values_carry_the_library_costs():
    m, hw, prec = _m("llama-3.1-70b"), _hw("h100-sxm"), _precision("bf16")
    par = Parallelism(8)
    env = make_env(hw, m, prec, "seed")
    links, _ = choose_links(hw, par)
    v = layout_values(env.values, m, par, links, prec, "seed", env.pc)
    got = [float(v[k]) for k in ("tau_c", "tau_s", "s_TP", "W_cTP", "W_sTP")]
    assert got == pytest.approx([6.6e-6, 25e-6, 1.0, 370e9, 480e9], rel=1e-12)
    assert v["u_x"] == 1.0


# ----------------------------------------------------------------------------------------------- the kernels' fixed costs
#
# Facts copied here, with their sources (generator/load/spec.py, KERNELS_SOURCE):
# * NVIDIA Technical Blog, "Getting Started with CUDA Graphs" (A. Gray, 2019): 2.9 us kernels take 3.8 us each
#   launched from a stream, 3.4 us each replayed from a CUDA graph: about 0.5 us per kernel in a graph.
# * pegainfer (3), "From Launch Overhead to CUDA Graph" (susun-blog.com): a launch costs about 4-6 us.
# * vLLM's Llama decoder layer (vllm/model_executor/models/llama.py): 10 kernels besides its collectives.

def _kernels_off(hw):
    import dataclasses

    from genreport.load.spec import Kernels
    return dataclasses.replace(hw, kernels=Kernels(launch=0.0, graph=0.0))


def test_the_kernels_fixed_costs_by_hand():
    """Llama 3.2 1B (16 layers) at tp 2 on H100: 16 x 10 x 0.5 us = 80 us a decode round with CUDA graphs,
    16 x 10 x 5 us = 0.8 ms without and in every prefill; the strict bound does not move."""
    import dataclasses

    from genreport.load.spec import Kernels
    m, hw, prec = _m("llama-3.2-1b"), _hw("h100-sxm"), _precision("bf16")
    assert m.layers == 16
    off = point(m, _kernels_off(hw), prec, Parallelism(2), 1.0, 1024.0, prompt=32.0)
    graphs = point(m, hw, prec, Parallelism(2), 1.0, 1024.0, prompt=32.0)
    eager = point(m, dataclasses.replace(hw, kernels=Kernels(cuda_graphs=False)), prec, Parallelism(2), 1.0, 1024.0,
                  prompt=32.0)
    assert graphs.time_serial - off.time_serial == pytest.approx(16 * 10 * 0.5e-6, rel=1e-9)
    assert eager.time_serial - off.time_serial == pytest.approx(16 * 10 * 5e-6, rel=1e-9)
    assert graphs.prefill_serial - off.prefill_serial == pytest.approx(16 * 10 * 5e-6, rel=1e-9)
    assert graphs.time_bound == off.time_bound == eager.time_bound  # an overhead is not a lower bound
    assert graphs.prefill_bound == off.prefill_bound


def test_a_pipeline_pays_each_stage_its_layers_per_micro_batch():
    """70B at tp 2 x pp 4, batch 8: each GPU runs m = min(4, 8) = 4 micro-batches through its 80 / 4 = 20 layers,
    4 x 20 x 10 x 0.5 us = 0.4 ms; one prompt passes each stage once, 20 x 10 x 5 us = 1 ms a stage."""
    q = load()
    m, hw, prec = _m("llama-3.1-70b"), _hw("h100-sxm"), _precision("bf16")
    par = Parallelism(2, 4)
    env = make_env(hw, m, prec, "seed")
    links, _ = choose_links(hw, par)
    v = layout_values(env.values, m, par, links, prec, "seed", env.pc, kernels=hw.kernels)
    assert float(q["decode_time_overhead"](dict(v, B=8.0))) == pytest.approx(4 * 20 * 10 * 0.5e-6, rel=1e-12)
    assert float(q["decode_time_overhead"](dict(v, B=2.0))) == pytest.approx(2 * 20 * 10 * 0.5e-6, rel=1e-12)
    assert float(q["prefill_time_overhead"](dict(v, T=512.0))) == pytest.approx(20 * 10 * 5e-6, rel=1e-12)


# gpt-fast's series: the spread of measured / estimate without the kernels' fixed costs and with them
GPT_FAST_SPREADS = {"llama-2-7b": (0.0739, 0.0587), "llama-2-70b": (0.0382, 0.0316)}


@pytest.mark.parametrize("model", sorted(GPT_FAST))
def test_the_fixed_costs_tighten_the_tensor_parallel_series(model):
    """gpt-fast runs decode as CUDA graphs (torch.compile, mode reduce-overhead), and the kernels' fixed costs add the
    same time to every row of its series: they narrow its spread (7B 0.074 -> 0.059, 70B 0.038 -> 0.032).  The
    measured / estimate ratios are now 0.89-1.10 (7B TP 1: 13.5 GB at 104.9 tok/s, 1.42 TB/s, 0.69 of the A100's
    2.039 TB/s, against the small-GEMM share e_g = 0.680 the estimate streams the weights at).  Before the decode
    estimate took e_g they were 0.63-0.79, with NCCL's modelled latency 0.070 -> 0.048 and 0.040 -> 0.030; with the
    A100's measured 8.2 us + 0.98 us a step (SMALL_MESSAGE_LINES) the fixed costs had widened it (0.046 -> 0.054)."""
    m, hw, prec = _m(model), _hw("a100-sxm-80gb"), _precision("bf16")
    spread = []
    for h in (_kernels_off(hw), hw):
        spread.append(_cv([measured * point(m, h, prec, Parallelism(tp), 1.0, 5.0).time_serial
                           for tp, measured in GPT_FAST[model].items()]))
    assert spread[1] < spread[0] and max(spread) <= 0.10
    assert spread == pytest.approx(GPT_FAST_SPREADS[model], abs=5e-4)


def test_a_small_model_without_cuda_graphs_is_overhead_bound(tmp_path):
    """The report names seed 000's third state where the kernels' fixed costs are the estimate's largest term: 1B at
    tp 2 without CUDA graphs spends 0.8 ms on them against 0.37 ms of weights; a 4k prompt is compute-bound."""
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate

    spec = tmp_path / "small.yaml"
    spec.write_text(f"kind: report\nname: small\ntitle: small\nhardware: {ROOT}/specs/hardware/h100-sxm.yaml\n"
                    f"model: {ROOT}/specs/models/llama-3.2-1b.yaml\nprecision: bf16\nparallelism: {{tp: 2}}\n"
                    "engine: {cuda_graphs: false, memory_reserve: 0.1}\n"
                    "workloads:\n  decode: {batch: [1], context: [1k]}\n  prefill: {prompt: [32, 4k]}\n")
    s = load_report(spec)
    assert not s.hardware.kernels.cuda_graphs and s.hardware.kernels.decode == 5e-6
    assert s.engine_given == ("cuda_graphs", "memory_reserve")
    r = evaluate(s)
    assert r.parallel.estimate_binds.tolist() == [["overhead"]]
    assert r.parallel.binds.tolist() == [["bandwidth"]]  # the bound's verdict is the bound's
    assert r.parallel.prefill_estimate_binds == ("overhead", "compute")
    assert float(r.parallel.decode["seed"]["decode_time_overhead"][0, 0]) == pytest.approx(16 * 10 * 5e-6, rel=1e-12)
    (row,) = [x for x in r.decision if x["workload"] == "decode"]
    assert row["estimate_binds"] == "overhead"
    from genreport.present.summary import sentences
    assert "overhead-bound: 0.8 ms of it is the kernels' fixed costs" in sentences(r)[0]


# ----------------------------------------------------------------------------------------------- uneven pipeline stages

def test_uneven_stages_by_hand():
    """61 layers over 2 stages: 31 and 30 (as vLLM and SGLang split them), the busiest sets the pace; n_PP = 61/31."""
    from genreport.model.env import pipeline_split
    from genreport.model.layout import _pp_choices, stage_layers

    assert stage_layers(61, 2) == (31, 30)
    assert stage_layers(80, 3) == (27, 27, 26)
    assert stage_layers(80, 4) == (20, 20, 20, 20)
    assert pipeline_split(61, 2) == 61 / 31 and pipeline_split(80, 4) == 4.0
    assert _pp_choices(61, 16) == [1, 2, 4, 8, 16]  # 61 is prime: once only pp 1 or 61
    assert _pp_choices(80, 16) == [1, 2, 4, 5, 8, 10, 16]


def test_deepseek_v3_at_tp8_pp2_over_two_h100_nodes():
    """DeepSeek-V3 in fp8 (671 GB) at tp 8 x pp 2 over two 8-GPU nodes: each GPU holds its tp share of the stage that
    holds the fewest tokens, the second: 30 of the 58 MoE layers, 30 of the 61 layers' attention and norms, the output
    head and the final norm, 346.1e9 of the 671.0e9 parameters the shapes count (the first has 31 layers, three of
    them dense, and the embedding: 324.9e9), so 671e9 x 346.1 / 671.0 / 8 = 43.3 GB (an even 31/61 split claimed
    42.6 GB), 43.7 GB with what each GPU holds whole, within the 72 GiB an H100 leaves with the engine's 10%; the stages talk over the scale-out network."""
    m, hw = _m("deepseek-v3"), _hw("h100-sxm")
    rows = [r for r in plan(m, hw, 1, 4096, None, ("fp8",), 16).rows if (r.tp, r.pp, r.ep, r.dp) == (8, 2, 1, 1)]
    assert len(rows) == 1, "tp 8 x pp 2 is tried and fits"
    (row,) = rows
    assert row.gpus == 16
    pc, d = parameter_count(m), m.hidden_size
    second = (30 / 58 * (pc.experts_routed + pc.experts_shared + pc.router) + 30 / 61 * (pc.attention + pc.norms - d)
              + pc.lm_head + d)
    first = (28 / 58 * (pc.experts_routed + pc.experts_shared + pc.router) + 31 / 61 * (pc.attention + pc.norms - d)
             + pc.ffn_dense + pc.embedding)
    assert first + second == pytest.approx(pc.total, rel=1e-12) and second > first
    # and each GPU of it holds whole the stage's MLA down-projections, norms and router (7 more copies in the group of
    # 8: tests/test_tp_copies.py), N_R = 7 x 1,030,904,832 over the model, the second stage's share of them
    copies = 7 * (30 / 61 * (pc.replicated_attention + pc.norms - d) + d + 30 / 58 * pc.router)
    assert 7 * pc.replicated == 7_216_333_824
    assert row.weight_bytes_per_gpu == pytest.approx(
        (671e9 + 7 * pc.replicated) * (second + copies) / (pc.total + 7 * pc.replicated) / 8, rel=1e-12)
    assert row.weight_bytes_per_gpu < 0.9 * 80 * GIB
    assert "pp: scale-out" in row.links
    # with the pipeline full (batch 8, two micro-batches) the round is the busier stage's: the first's 31 layers (the
    # second's 30 and the 129,280 x 7,168 output head, less than a layer, weigh less: formulas.parallel.at_last_stage),
    # 31/30.5 of what an even split with the head spread over both would claim
    q, prec, par = load(), _precision("fp8"), Parallelism(8, 2)
    env = make_env(hw, m, prec, "seed")
    links, _ = choose_links(hw, par)
    base = layout_values(env.values, m, par, links, prec, "seed", env.pc, kernels=hw.kernels)
    assert base["n_PP"] == 61 / 31 and base["n_St"] == 2.0
    ctx = env.at(context=4096.0)
    from genreport.model.layout import at_batch
    v = at_batch(dict(base, S=4096.0, c=float(ctx["c"])), env.with_layout(par), 8.0)  # c: the whole model's
    uneven = float(q["decode_time_bound"](v))
    busiest = max(float(q[k](v)) for k in ("decode_time_compute_gpu", "decode_time_memory_gpu", "decode_time_comm"))
    assert uneven == pytest.approx(busiest, rel=1e-12)


def test_uneven_stages_in_a_report(tmp_path):
    """Llama 3.1 70B (80 layers) at tp 2 x pp 3: stages of 27, 27 and 26 layers; results.json says so and each
    GPU's KV share is the busiest stage's, c / (80/27 s_kv)."""
    import json

    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate

    spec = tmp_path / "pp3.yaml"
    spec.write_text(f"kind: report\nname: pp3\ntitle: pp3\nhardware: {ROOT}/specs/hardware/h100-sxm.yaml\n"
                    f"model: {ROOT}/specs/models/llama-3.1-70b.yaml\nprecision: bf16\nparallelism: {{tp: 2, pp: 3}}\n"
                    "workloads:\n  decode: {batch: [1, 8], context: [1k]}\n")
    s = load_report(spec)
    assert not s.warnings  # uneven stages are a layout, not a mistake
    r = evaluate(s)
    assert r.parallel.stage_layers == (27, 27, 26) and r.parallel.uneven
    doc = json.loads(json.dumps(r.parallel.as_json()))
    assert doc["stage_layers"] == [27, 27, 26]
    c = 80 * 2 * 8 * 128 * 2  # bytes of KV per token: L 2 H_kv d_h b_kv
    assert r.scalars["seed"]["kv_bytes_per_token"] == pytest.approx(c * 27 / 80 / 2, rel=1e-12)


# ----------------------------------------------------------------------------------------------- the engine's one-shot all-reduce

def _one_shot(hw):
    import dataclasses

    from genreport.load.spec import Kernels
    return dataclasses.replace(hw, kernels=Kernels(one_shot=True))


@pytest.mark.parametrize("z,low,high", [(512, 5.7e-6, 7.8e-6), (32 * 1024, 5.7e-6, 7.8e-6)])
def test_the_one_shot_all_reduce_against_the_engines(z, low, high):
    """5.7-7.8 us for 0.5-32 KiB on 8 x H100 (vLLM, SGLang, TensorRT-LLM): 5.7 us + 7 z / 370 GB/s, above the bound."""
    q, hw = load(), _one_shot(_hw("h100-sxm"))
    t = float(q["all_reduce_time_oneshot"]({"n_g": 8.0, "Z_g": float(z), "W_c": 370e9, "tau_o": 5.7e-6}))
    assert t == pytest.approx(5.7e-6 + 7 * z / 370e9, rel=1e-12)
    assert low <= t <= high
    bound, _ = _all_reduce(hw.name, 8, float(z))
    assert bound < t


def test_the_one_shot_all_reduce_by_hand():
    """70B at tp 8 on H100, batch 1: 160 all-reduces of 16 KiB, 15.08 us each as NCCL's ring runs them (2.41 ms), 5.7 +
    7 x 16384 / 370e9 = 6.01 us each as the engine's one-shot kernel (0.962 ms); the bound does not move; a tp group
    that leaves the NVLink domain (tp 16) keeps the library's."""
    m, prec = _m("llama-3.1-70b"), _precision("bf16")
    lib = point(m, _hw("h100-sxm"), prec, Parallelism(8), 1.0, 1024.0)
    one = point(m, _one_shot(_hw("h100-sxm")), prec, Parallelism(8), 1.0, 1024.0)
    ring = 6.6e-6 + 14 * 0.6e-6 + 14 / 8 * 16384 / 141e9  # LL: half of 370 GB/s, at most NCCL's 141 on Hopper
    shot = 5.7e-6 + 7 * 16384 / 370e9
    assert lib.time_serial - one.time_serial == pytest.approx(160 * (ring - shot), rel=1e-9)
    assert lib.time_bound == one.time_bound
    wide = [point(m, h, prec, Parallelism(16), 1.0, 1024.0).time_serial for h in (_hw("h100-sxm"),
                                                                                 _one_shot(_hw("h100-sxm")))]
    assert wide[0] == wide[1]


# ----------------------------------------------------------------------------------------------- TensorRT-LLM's TTFT series
#
# tests/data/published.csv holds every first-token latency of TensorRT-LLM's performance.md "Low Latency" tables for
# the catalog's models (v0.5 at commit 138f96d, v0.8.0 and v0.9.0: LLaMA 7B, LLaMA 70B at TP 4 / 8, Mistral 7B,
# Mixtral 8x7B at TP 2 / 4; 128- and 2048-token prompts; batch 1; GPT-J 6B and Falcon 180B have no catalog spec).
# A series is one table: one release, one GPU, its precision.

def _ttft_rows():
    import csv
    rows = csv.DictReader((ROOT / "tests" / "data" / "published.csv").open(encoding="utf-8"))
    return [r for r in rows if r["metric"] == "ttft_ms" and "TensorRT-LLM" in r["source"] and "Low Latency" in r["source"]]


def _ttft_series():
    out: dict[tuple[str, str], list[dict]] = {}
    for r in _ttft_rows():
        out.setdefault((r["source"].split(" (")[0].split("/blob/")[1].split("/")[0], r["hardware"]), []).append(r)
    return out


# The series whose spread measured / estimate is above 0.10.  The serial prefill charges its FLOPs at e_m of the peak,
# the hardware file's measured matmul share (stas00/ml-engineering's MAMF table at commit 744d01e: H100 fp8 0.709,
# H200 fp8 0.734, A100 bf16 0.869; zzc0721/torch-performance-test-data database.md at commit 0785868: A100 fp16 0.829,
# L40S fp16 0.729 and bf16 0.743; vLLM pull request 6677, its L40S table: fp8 512 x 4096 x 4096 in 45.5 us, 377.6
# TFLOP/s, 0.515 of 733), and reads its weights at e_g of the bandwidth, the measured share a GEMM of 16-128 rows
# streams them at (aiconfigurator's vLLM and SGLang tables, tests/data/small_gemm.csv: H100 bf16 0.827 and fp8 0.714,
# H200 0.794 and 0.625, A100 bf16 0.680, L40S 0.687 and 0.675; fp16 takes bf16's).  With e_m alone the long prompts
# took 1.1-1.7 x the estimate and the short ones up to 2.1 x (a 7B at 128 tokens: measured - estimate 2.7-2.9 ms on
# H100/H200 fp8, 7.6-8.0 ms on A100 fp16): the short prefills are memory-bound and stream their weights below the
# HBM peak.  With e_g the short rows come to 1.1-1.5 x and the spreads of the H200 tables (0.124, 0.129 -> 0.017,
# 0.024), v0.5's A100 (0.228 -> 0.083) and L40S (0.206 -> 0.042) fall under 0.10, the H100's stay (0.088, 0.038,
# 0.051).  The tensor-parallel rows' all-reduces of 1-2 MiB (128 tokens of a 70B) were priced at LL's latency with
# the large messages' bus bandwidth; with each protocol priced apart (NCCL's tuner: LL at half the bus bandwidth and at
# most 87.7 GB/s on Ampere, 141 on Hopper) the A100's 70B TP 8 128-token row goes 1.67 -> 1.39 x, in line with the
# 7Bs' 1.36-1.43 x, and the spreads read: H100 0.057, 0.054, 0.082; H200 0.044, 0.068; v0.5's A100 0.070 and L40S
# 0.042.  With the bus bandwidth nccl-tests measures on 2 and 4 GPUs (GROUP_BUS: 350 GB/s for 4 H100, where NVLS's 8-GPU
# 480 was taken) the TP 4 rows' all-reduces take longer and come to 1.19-1.33 x against the one-GPU rows' 1.40-1.69 x:
# H100 0.086, 0.054, 0.085; H200 0.044, 0.080; v0.5's A100 0.071 (the engine overlaps or fuses what nccl-tests times
# alone).  What is still missing, per series:
# * A100 FP16, v0.8.0 (0.105; 0.101 before the tuner chose the protocol and Simple was charged its measured line, 27
#   + 14 x 5.97 = 111 us a call on 8 GPUs, the line's slope coming mostly from 2 and 4 GPUs): the short prompts take
#   1.36-1.42 x the estimate, the long ones 1.11-1.23 x: the FLOPs' share e_m (0.829, a square fp16 matmul) prices a
#   2048-token prefill better than e_g a 128-token one, whose GEMMs sit at the A100's ridge (312 / 2.039 = 153 FLOP/B)
#   where neither rate holds alone.
# * A100 FP16, v0.9.0 (0.200; 0.195 before): as v0.8.0, and Mixtral TP 2 at 0.64 x (128 tokens: every GPU reads its
#   half of all 8 experts, since 128 tokens x top-2 touch 8 (1 - (6/8)^128) = 8.0 experts; bound 22.9 ms, measured
#   23.8 ms: the experts stream at 96% of the peak, where a dense GEMM of as many rows is timed at 0.64-0.74) and
#   1.46 x (2048 tokens).  Today's fused MoE kernels do not reach 96% either: aiconfigurator's A100 MoE tables (vLLM
#   0.14.0, SGLang 0.5.10) time Mixtral's experts (4096 x 14336, 8 experts, top-2) at TP 2 and 128 tokens at 0.75-0.80
#   of the peak, so a share for the experts of their own would leave that row under 1 x too.
# * L40S FP8, v0.8.0 (0.216) and v0.9.0 (0.268): the one-GPU rows are explained (1.05-1.10 x), the PCIe
#   tensor-parallel rows are not (70B TP 8 1.51-1.74 x, TP 4 2048 1.49 x, Mixtral TP 4 2048 1.83 x; 128-token Mixtral
#   0.71 x), which want a measured all-reduce on those servers' PCIe (aiconfigurator's L40S nccl table, 1.4-5.1 GB/s
#   bus bandwidth at 4-8 GPUs, is a node without peer-to-peer and would make the estimate 3 x the measurement).
TTFT_UNEXPLAINED = {("v0.8.0", "l40s"): 0.216, ("v0.8.0", "a100-sxm-80gb"): 0.105,
                    ("v0.9.0", "l40s"): 0.268, ("v0.9.0", "a100-sxm-80gb"): 0.200}


def _fp8_experts_doubtful(r):
    """Mixtral on Hopper: the table says FP8 but gives no Mixtral recipe, and its 2048-token TTFT is only 1.8x A100
    FP16's (LLaMA 7B's: 4.3x in the same document); TensorRT-LLM's release notes add FP8 to its MoE in 0.12."""
    return r["model"] == "mixtral-8x7b" and r["hardware"] in ("h100-sxm", "h200")


def test_no_published_ttft_beats_the_bound():
    rows = _ttft_rows()
    assert len(rows) == 66  # 10 from v0.5, 24 from v0.8.0, 32 from v0.9.0
    for r in rows:
        p = point(_m(r["model"]), _hw(r["hardware"]), _precision(r["precision"]), Parallelism(int(r["tp"])), 1.0,
                  float(r["input_tokens"]), prompt=float(r["input_tokens"]))
        assert float(r["value"]) * 1e-3 >= p.prefill_bound, r["id"]


def _ttft_ratios(key):
    """measured / prefill_time_serial over one table's rows (Mixtral's doubtful Hopper FP8 rows left out)."""
    ratios = []
    for r in _ttft_series()[key]:
        if _fp8_experts_doubtful(r):
            continue
        p = point(_m(r["model"]), _hw(r["hardware"]), _precision(r["precision"]), Parallelism(int(r["tp"])), 1.0,
                  float(r["input_tokens"]), prompt=float(r["input_tokens"]))
        ratios.append(float(r["value"]) * 1e-3 / p.prefill_serial)
    return ratios


@pytest.mark.parametrize("key", sorted(_ttft_series()), ids=lambda k: f"{k[0][:8]}-{k[1]}")
def test_the_estimate_explains_the_ttft_series(key):
    """measured / prefill_time_serial within a coefficient of variation of 0.10 over each table (H100: v0.5 0.086,
    v0.8.0 0.054, v0.9.0 0.085; H200 0.044, 0.080; v0.5's A100 0.071 and L40S 0.042); the A100 and L40S tables of
    v0.8.0 and v0.9.0 are not yet explained (TTFT_UNEXPLAINED: 0.10-0.27)."""
    if key in TTFT_UNEXPLAINED:
        pytest.xfail(f"spread {TTFT_UNEXPLAINED[key]}: the tensor-parallel and MoE rows the estimate lacks a cost for")
    ratios = _ttft_ratios(key)
    assert len(ratios) >= 2 and _cv(ratios) <= 0.10, ratios


@pytest.mark.parametrize("key", sorted(TTFT_UNEXPLAINED), ids=lambda k: f"{k[0][:8]}-{k[1]}")
def test_the_unexplained_ttft_spreads_are_as_recorded(key):
    """The open series' spreads as stated above (so a change to the estimate that moves them is seen)."""
    assert _cv(_ttft_ratios(key)) == pytest.approx(TTFT_UNEXPLAINED[key], abs=0.0015)


# ----------------------------------------------------------------------------------------------- the small-GEMM share e_g

def test_the_small_gemm_share_by_hand():
    """Llama 2 7B on one H100 in fp8, a 128-token prefill (seed accounting: the declared 6.7384e9 parameters at one
    byte; the prompt's cache 128 x 32 layers x 2 x 32 heads x 128 x 1 B = 33,554,432 B).  The bound reads every byte
    at 3.35 TB/s: (6.7384e9 + 33,554,432) / 3.35e12 = 2.0215 ms.  The estimate streams the weights at e_g = 0.714 of
    the bandwidth (aiconfigurator's vLLM and SGLang fp8 tables: the median of 2.21-2.47 TB/s for GEMMs of 16-128
    rows; test_the_small_gemm_shares_are_the_tables_median), the cache at the full rate: (6.7384e9 / 0.714 +
    33,554,432) / 3.35e12 = 2.8272 ms, above the FLOPs at e_m of the peak (1,662,478,647,296 / (0.709 x 1978.9e12) =
    1.1849 ms), plus 32 x 10 launches of 5 us: 4.4272 ms, against the 6.3-7.0 ms TensorRT-LLM measured (v0.9.0,
    v0.8.0, v0.5)."""
    m, hw, prec = _m("llama-2-7b"), _hw("h100-sxm"), _precision("fp8")
    assert hw.achieved_bandwidth == {"bf16": 0.827, "fp16": 0.827, "fp8": 0.714}
    cache = 128 * 32 * 2 * 32 * 128 * 1
    assert cache == 33_554_432
    flops = 2 * 6_476_256_000 * 128 + 2 * 32000 * 4096 + 2 * 32 * 32 * 128 * 128**2
    assert flops == 1_662_478_647_296
    p = point(m, hw, prec, Parallelism(1), 1.0, 128.0, prompt=128.0)
    assert p.prefill_bound == pytest.approx((6.7384e9 + cache) / 3.35e12, rel=1e-12)
    memory = (6.7384e9 / 0.714 + cache) / 3.35e12
    assert memory > flops / (0.709 * 1978.9e12)
    assert p.prefill_serial == pytest.approx(memory + 32 * 10 * 5e-6, rel=1e-12)
    assert p.prefill_serial == pytest.approx(4.4272e-3, abs=1e-7)
    assert p.prefill_bound <= 6.3e-3
    # the share enters the estimate only: without it the weights stream at the full bandwidth, the bound is the same
    import dataclasses
    full = point(m, dataclasses.replace(hw, achieved_bandwidth={}), prec, Parallelism(1), 1.0, 128.0, prompt=128.0)
    assert full.prefill_serial == pytest.approx(p.prefill_bound + 32 * 10 * 5e-6, rel=1e-12)
    assert full.prefill_bound == p.prefill_bound
    # a long prompt is compute-bound: the share does not move it (2048 tokens: 19.69 ms of FLOPs, 2.83 ms of weights)
    long = [point(m, h, prec, Parallelism(1), 1.0, 2048.0, prompt=2048.0).prefill_serial
            for h in (hw, dataclasses.replace(hw, achieved_bandwidth={}))]
    assert long[0] == long[1]
    # a device the tables do not cover keeps the full bandwidth (the H100 PCIe, the MI300X)
    for name in ("h100-pcie", "mi300x"):
        assert make_env(_hw(name), m, _precision("bf16"), "seed").values["e_g"] == 1.0
    measured = {p.stem for p in (ROOT / "specs" / "hardware").glob("*.yaml") if _hw(p.stem).achieved_bandwidth}
    assert measured == {"h100-sxm", "h200", "a100-sxm-80gb", "l40s"}


def test_the_small_gemm_shares_are_the_tables_median():
    """Each hardware file's e_g is recomputed from the 504 timings of tests/data/small_gemm.csv (aiconfigurator at
    commit 095f58a; tests/data/README.md): per engine (vLLM, SGLang) and M (16, 32, 64, 128), the weights' bytes of the
    nine N x K in {4096, 12288, 16384}^2 over their summed latency, over the file's bandwidth; the share is the median
    of those eight, rounded to three places.  fp16 takes bf16's (the same two-byte weights and peak; no fp16 table).
    By hand, the H200's fp8 at M = 16 under vLLM: the nine matrices hold 32,768^2 = 1,073,741,824 B and take 0.34597 ms
    together, 3.10 TB/s, 0.647 of 4.8 TB/s; the eight shares run 0.539-0.678, median 0.625."""
    import csv
    totals: dict[tuple[str, str, str, int], list[float]] = {}
    for r in csv.DictReader((ROOT / "tests" / "data" / "small_gemm.csv").open(encoding="utf-8")):
        t = totals.setdefault((r["hardware"], r["format"], r["engine"], int(r["m"])), [0.0, 0.0])
        t[0] += int(r["n"]) * int(r["k"]) * (1 if r["format"] == "fp8" else 2)
        t[1] += float(r["latency_ms"]) * 1e-3
    assert len(totals) == 56 and {k[2] for k in totals} == {"vllm", "sglang"} and {k[3] for k in totals} == {16, 32, 64, 128}
    shares: dict[tuple[str, str], list[float]] = {}
    for (name, fmt, _, _), (nbytes, seconds) in totals.items():
        shares.setdefault((name, fmt), []).append(nbytes / seconds / _hw(name).bandwidth)
    assert {k: len(v) for k, v in shares.items()} == dict.fromkeys(shares, 8)
    for (name, fmt), xs in shares.items():
        e_g = _hw(name).achieved_bandwidth
        assert e_g[fmt] == pytest.approx(statistics.median(xs), abs=5e-4), (name, fmt)
        if fmt == "bf16":
            assert e_g["fp16"] == e_g["bf16"]
    assert (4096 + 12288 + 16384) ** 2 == 1_073_741_824
    assert totals[("h200", "fp8", "vllm", 16)][0] == 1_073_741_824
    assert totals[("h200", "fp8", "vllm", 16)][1] == pytest.approx(0.34597e-3, abs=1e-8)
    assert min(shares[("h200", "fp8")]) == pytest.approx(0.539, abs=5e-4)
    assert max(shares[("h200", "fp8")]) == pytest.approx(0.678, abs=5e-4)


# The same tables' GEMMs of 1, 2, 4 and 8 rows (a decode round's at batch 1-8; tests/data/decode_gemm.csv): the median
# share per GPU and format, as test_the_small_gemm_shares_are_the_tables_median computes e_g from 16-128 rows
DECODE_GEMM_SHARES = {("a100-sxm-80gb", "bf16"): 0.737, ("h100-sxm", "bf16"): 0.825, ("h100-sxm", "fp8"): 0.732,
                      ("h200", "bf16"): 0.814, ("h200", "fp8"): 0.663, ("l40s", "bf16"): 0.766, ("l40s", "fp8"): 0.689}


def test_decode_s_gemms_stream_their_weights_near_e_g():
    """The decode estimate streams the weights at e_g too (formulas.parallel.decode_time_memory_busiest): GEMMs of 1-8
    rows, timed by the same collectors, reach e_g or at most 0.08 more of the bandwidth (A100 bf16 0.737 against 0.680,
    L40S bf16 0.766 against 0.687; the H100's bf16 0.825 against 0.827), so e_g is the decode round's share within a
    few percent of its time, on the slow side.  By hand, the A100 under vLLM at M = 1: the nine bf16 matrices hold
    2 x 1,073,741,824 B; their summed latency gives 0.719-0.763 of 2.039 TB/s over the eight (engine, M)."""
    import csv
    totals: dict[tuple[str, str, str, int], list[float]] = {}
    for r in csv.DictReader((ROOT / "tests" / "data" / "decode_gemm.csv").open(encoding="utf-8")):
        x = totals.setdefault((r["hardware"], r["format"], r["engine"], int(r["m"])), [0.0, 0.0])
        x[0] += int(r["n"]) * int(r["k"]) * (1 if r["format"] == "fp8" else 2)
        x[1] += float(r["latency_ms"]) * 1e-3
    assert len(totals) == 56 and {k[3] for k in totals} == {1, 2, 4, 8}
    shares: dict[tuple[str, str], list[float]] = {}
    for (name, fmt, _, _), (nbytes, seconds) in totals.items():
        shares.setdefault((name, fmt), []).append(nbytes / seconds / _hw(name).bandwidth)
    medians = {k: statistics.median(v) for k, v in shares.items()}
    assert medians == pytest.approx(DECODE_GEMM_SHARES, abs=5e-4)
    for (name, fmt), share in medians.items():
        e_g = _hw(name).achieved_bandwidth[fmt]
        assert -0.005 <= share - e_g <= 0.08, (name, fmt, share, e_g)
    assert min(shares[("a100-sxm-80gb", "bf16")]) == pytest.approx(0.719, abs=5e-4)


def test_the_report_shows_e_g_where_the_estimate_is():
    """The inputs table names e_g with its source, or says why the full bandwidth is used; a --set of the share
    reaches the serial prefill's weights, never the bound."""
    from genreport.present.render import _inputs

    r = evaluated("llama70b-h100-tp2.yaml", ["hardware=h100-pcie"])  # no measurement on this card: the full bandwidth
    row = next(x for x in _inputs(r) if x["symbol"] == "e_g")
    assert row["value"].startswith("1: no measurement of bf16") and "achieved_bandwidth" in row["source"]
    assert r.parallel.small_gemm_share == 1.0
    sxm = evaluated("llama70b-h100-tp2.yaml")  # bf16 on the SXM: aiconfigurator's median, its bandwidth, its source
    row = next(x for x in _inputs(sxm) if x["symbol"] == "e_g")
    assert row["value"] == "0.827 (bf16: 2.77 TB/s of 3.35 TB/s)" and "aiconfigurator" in row["source"]
    half = evaluated("llama70b-h100-tp2.yaml", ["hardware.achieved_bandwidth.small_gemm.bf16=0.5"])
    assert half.parallel.small_gemm_share == 0.5
    row = next(x for x in _inputs(half) if x["symbol"] == "e_g")
    assert row["value"].startswith("0.5 (bf16: ")
    assert any(f[0] == "prefill_time_memory_serial" and "e_g = 0.5" in f[1] for f in half.parallel.collective_formulas)
    acc = sxm.spec.accounting
    pre, pre_half = sxm.parallel.prefill[acc], half.parallel.prefill[acc]
    assert np.all(pre_half["prefill_time_memory_serial"] > pre["prefill_time_memory_serial"])
    assert np.array_equal(pre_half["prefill_time_bound"], pre["prefill_time_bound"])
    assert np.array_equal(pre_half["prefill_time_compute_serial"], pre["prefill_time_compute_serial"])


# ----------------------------------------------------------------------------------------------- the matmul share e_m

def test_the_measured_matmul_share_by_hand():
    """Llama 2 7B on one H100 in fp8, a 2048-token prefill (seed accounting: N_p = 6.7384e9 declared less the
    2 x 32000 x 4096 embedding and head = 6,476,256,000): F = 2 N_p T + 2 V d + 2 L H_q d_h T^2 = 27,626,518,347,776
    FLOP.  The bound keeps the peak, F / 1978.9 TFLOP/s = 13.96 ms; the estimate charges the FLOPs at e_m = 0.709
    (stas00/ml-engineering's MAMF table: 1402.6 of 1979 TFLOPS for fp8 on H100 SXM), 19.69 ms, plus 32 layers x 10
    kernels x 5 us of launches: 21.29 ms (15.56 ms at the peak).  The weights stream in 2.2 ms: compute binds."""
    m, hw, prec = _m("llama-2-7b"), _hw("h100-sxm"), _precision("fp8")
    assert hw.achieved_matmul == {"bf16": 0.803, "fp8": 0.709}
    flops = 2 * 6_476_256_000 * 2048 + 2 * 32000 * 4096 + 2 * 32 * 32 * 128 * 2048**2
    assert flops == 27_626_518_347_776
    launches = 32 * 10 * 5e-6
    p = point(m, hw, prec, Parallelism(1), 1.0, 2048.0, prompt=2048.0)
    assert p.prefill_bound == pytest.approx(flops / 1978.9e12, rel=1e-12)
    assert p.prefill_serial == pytest.approx(flops / (0.709 * 1978.9e12) + launches, rel=1e-12)
    import dataclasses
    peak = point(m, dataclasses.replace(hw, achieved_matmul={}), prec, Parallelism(1), 1.0, 2048.0, prompt=2048.0)
    assert peak.prefill_serial == pytest.approx(flops / 1978.9e12 + launches, rel=1e-12)
    assert peak.prefill_bound == p.prefill_bound
    # the MAMF table measures bf16 on the A100; fp16 has its own measurement (the next test)
    assert _hw("a100-sxm-80gb").achieved_matmul == {"bf16": 0.869, "fp16": 0.829}


def test_the_fp16_matmul_shares_of_the_a100_and_the_l40s_by_hand():
    """zzc0721/torch-performance-test-data database.md (commit 0785868): the best torch.mm of square 1024-10240
    matrices reaches 258.74 TFLOPS in fp16 on an A100 SXM4 80GB (0.829 of 312), 264.02 in fp16 and 269.15 in bf16 on
    an L40S (0.729 and 0.743 of 362.05); no fp8 row for the L40S there.  vLLM pull request 6677 (its L40S table, fp8):
    512 x 4096 x 4096 in 45.5 us, 377.6 TFLOP/s, 0.515 of 733.  Llama 2 7B, a 2048-token prefill (F =
    27,626,518,347,776 FLOP, as above; its 13.48 GB of fp16 weights stream in 6.6 ms on the A100, 15.6 ms on the L40S:
    compute binds): A100 fp16 F / (0.829 x 312e12) + 32 x 10 x 5 us = 108.41 ms (88.55 ms bound at the peak); L40S fp16
    F / (0.729 x 362.05e12) + 1.6 ms = 106.27 ms, bf16 104.30 ms (76.31 ms bound); L40S fp8 F / (0.515 x 733e12) +
    1.6 ms = 74.78 ms (37.69 ms bound), against TensorRT-LLM's 73, 79 and 80.1 ms (v0.5, v0.8.0, v0.9.0)."""
    import dataclasses
    m, flops, launches = _m("llama-2-7b"), 27_626_518_347_776, 32 * 10 * 5e-6
    l40s = _hw("l40s")
    assert l40s.achieved_matmul == {"bf16": 0.743, "fp16": 0.729, "fp8": 0.515}
    assert _hw("a100-sxm-40gb").achieved_matmul == _hw("a100-sxm-80gb").achieved_matmul  # the same GA100 and clock
    cases = [("a100-sxm-80gb", "fp16", 0.829, 312e12, 108.41e-3), ("l40s", "fp16", 0.729, 362.05e12, 106.27e-3),
             ("l40s", "bf16", 0.743, 362.05e12, 104.30e-3), ("l40s", "fp8", 0.515, 733e12, 74.78e-3)]
    for name, prec, share, peak, total in cases:
        hw = _hw(name)
        p = point(m, hw, _precision(prec), Parallelism(1), 1.0, 2048.0, prompt=2048.0)
        assert make_env(hw, m, _precision(prec), "seed").values["e_m"] == share
        assert p.prefill_bound == pytest.approx(flops / peak, rel=1e-12)
        assert p.prefill_serial == pytest.approx(flops / (share * peak) + launches, rel=1e-12)
        assert p.prefill_serial == pytest.approx(total, abs=1e-5)
        # the share reaches the estimate only
        bare = point(m, dataclasses.replace(hw, achieved_matmul={}), _precision(prec), Parallelism(1), 1.0, 2048.0,
                     prompt=2048.0)
        assert bare.prefill_bound == p.prefill_bound
        assert bare.prefill_serial == pytest.approx(flops / peak + launches, rel=1e-12)


def test_the_report_shows_e_m_where_the_estimate_is():
    """The inputs table names e_m with its source beside the serial estimate's other inputs, and chapter 6 prints
    the compute term it enters; a --set of the share reaches the estimate, never the bound."""
    from genreport.present.render import _inputs

    r = evaluated("llama70b-h100-tp2.yaml")
    row = next(x for x in _inputs(r) if x["symbol"] == "e_m")
    assert row["value"].startswith("0.803 (bf16: ") and "Maximum Achievable Matmul" in row["source"]
    assert r.parallel.matmul_share == 0.803
    assert any(f[0] == "prefill_time_compute_serial" and "e_m = 0.803" in f[1] for f in r.parallel.collective_formulas)
    half = evaluated("llama70b-h100-tp2.yaml", ["hardware.achieved_matmul.dense.bf16=0.5"])
    pre, pre_half = r.parallel.prefill[r.spec.accounting], half.parallel.prefill[r.spec.accounting]
    assert np.allclose(pre_half["prefill_time_compute_serial"], pre["prefill_time_compute_gpu"] / 0.5, rtol=1e-12)
    assert np.array_equal(pre_half["prefill_time_bound"], pre["prefill_time_bound"])


# ----------------------------------------------------------------------------------------------- DeepEP's all-to-all

def _hit(r, qid, **params):
    hits = [e.value for e in r.entries if e.id == qid and e.params == params]
    assert len(hits) == 1, (qid, params, hits)
    return hits[0]


def test_deepeps_prefill_all_to_all_by_hand():
    """DeepSeek-V3 fp8 on 8 x H200, dp 8, ep 8 (one NVLink domain), a 2k prompt: each GPU sends its 2,048 x 8
    token-experts of 7168 elements, 7/8 of them to its peers.  With engine.all_to_all: deepep the estimate charges
    DeepEP's normal kernels (deepseek-ai/DeepEP docs/legacy.md: 153 of H800's 200 GB/s NVLink, 0.765 of the line):
    the dispatch in FP8 and its scales (33/32 B an element), the combine in BF16 (2 B), every peer at once after one
    0.6 us step, 2 x (0.6 us + 7/8 E (97/64) / (0.765 x 450 GB/s)) = 2 x 0.453 ms a layer; NCCL's (the default) the
    peers one after another in bf16 at 370 GB/s: 2 x (6.6 + 7 x 0.6 us + 7/8 E 2 / 370 GB/s) = 2 x 0.566 ms; 58 MoE
    layers.  The bound (each token once to each of the 7 (1 - (7/8)^8) = 4.595 other GPUs that hold one of its
    experts, one byte an element at 450 GB/s, one step) is below both and does not move."""
    e = 2048 * 8 * 7168
    deep = 2 * (0.6e-6 + 7 / 8 * e * (97 / 64) / (0.765 * 450e9))
    nccl = 2 * (6.6e-6 + 7 * 0.6e-6 + 7 / 8 * e * 2 / 370e9)
    peers = 7 * (1 - (7 / 8) ** 8)
    bound = 2 * (0.6e-6 + peers * 2048 * 7168 * 1 / 450e9)
    assert (deep * 1e3, nccl * 1e3) == (pytest.approx(0.9060, abs=1e-4), pytest.approx(1.1325, abs=1e-4))
    lib = evaluated("deepseek-v3-h200-ep8.yaml")
    dee = evaluated("deepseek-v3-h200-ep8.yaml", ("engine.all_to_all=deepep",))
    assert _hit(lib, "prefill_time_comm_estimate", tokens=2048) == pytest.approx(58 * nccl, rel=1e-9)
    assert _hit(dee, "prefill_time_comm_estimate", tokens=2048) == pytest.approx(58 * deep, rel=1e-9)
    for r in (lib, dee):
        assert _hit(r, "prefill_time_comm", tokens=2048) == pytest.approx(58 * bound, rel=1e-9)
        assert _hit(r, "interconnect_bytes_prefill", tokens=2048) == pytest.approx(58 * 2 * peers * 2048 * 7168, rel=1e-12)
    assert _hit(dee, "prefill_time_bound", tokens=2048) == _hit(lib, "prefill_time_bound", tokens=2048)
    assert dee.spec.hardware.kernels.all_to_all == "deepep" and lib.spec.hardware.kernels.all_to_all == "nccl"


def test_deepep_across_nodes_stays_above_the_bound():
    """DeepSeek-V3 fp8 on 64 H100s (dp 64, ep 64: eight nodes), decode at batch 64: DeepEP's low-latency kernels
    (0.82 of the 50 GB/s NIC, every peer at once) charge less than NCCL's 63 peers one after another, the serial
    estimate stays above the strict bound, and the bound is the same whichever backend the engine runs."""
    m, prec, par = _m("deepseek-v3"), _precision("fp8"), Parallelism(1, 1, 64, 64)
    hw = _hw("h100-sxm")
    import dataclasses

    from genreport.load.spec import Kernels
    deep_hw = dataclasses.replace(hw, kernels=Kernels(all_to_all="deepep"))
    lib, deep = (point(m, h, prec, par, 64.0, 2048.0) for h in (hw, deep_hw))
    assert deep.time_bound == lib.time_bound < deep.time_serial < lib.time_serial
    # one MoE layer's all-to-alls at batch 64, by hand: 64 x 8 token-experts of 7168 elements a GPU, 56/64 across nodes
    e = 64 * 8 * 7168
    ll = 2 * (2.7e-6 + 56 / 64 * e * (97 / 64) / (0.82 * 50e9))
    nc = 2 * (6.6e-6 + 7 * 0.6e-6 + 56 * 2.7e-6 + 7 / 64 * e * 2 / 370e9 + 56 / 64 * e * 2 / 47e9)
    assert lib.time_serial - deep.time_serial == pytest.approx(58 * (nc - ll), rel=1e-6)


@pytest.mark.parametrize("experts,n,k", [(256, 8, 8), (256, 64, 8), (256, 32, 8), (8, 8, 2), (128, 16, 8), (64, 2, 6)])
def test_the_bounds_distinct_peers_are_at_most_the_expected_count(experts, n, k):
    """formulas.parallel.distinct_peers, (n-1)(1 - (1-1/n)^k), is at most the expected number of the n-1 other GPUs
    that hold one of a token's k distinct experts picked uniformly from E spread evenly (1 - C(E - E/n, k) / C(E, k)
    each), so the bound's all-to-all stays below any kernel's that sends a token once a GPU; and at most the k (n-1)/n
    copies of a kernel that sends every token-expert on its own (DeepEP's low-latency kernels, NCCL's)."""
    from math import comb

    q = load()
    got = float(q["all_to_all_time_experts"]({"n_g": float(n), "n_u": float(n), "Z_g": 1e9, "W_x": 1e9, "W_o": 1e9,
                                               "alpha": 0.0, "alpha_o": 0.0, "k_e": float(k)}))
    exact = (n - 1) * (1 - comb(experts - experts // n, k) / comb(experts, k))
    assert got == pytest.approx((n - 1) * (1 - (1 - 1 / n) ** k), rel=1e-12)
    assert got <= exact + 1e-12 and got <= k * (n - 1) / n + 1e-12


def test_chapter_6_labels_set_their_symbols_as_the_prose_does():
    """The formula labels of chapter 6 are written once in the model stage in ASCII (layout._collective_formulas:
    "e_m = 0.709", "tau_c8, alpha_8 at 0.92 W_c"); the page sets them as its prose sets symbols (fmt.symbols): the
    Greek letter, the subscript lowered, the rest escaped; code names and one-letter words stay as written.  The
    appendix's inputs table sets its symbol column so too."""
    from genreport.present.fmt import symbols
    from shared import html

    assert symbols("LL128: tau_c8, alpha_8 at 0.92 W_c; alpha at W_l") == \
        "LL128: τ<sub>c8</sub>, α<sub>8</sub> at 0.92 W<sub>c</sub>; α at W<sub>l</sub>"
    assert symbols("2 T N_x k_e / E_x over max(n_TP, n_EP) a <b>") == \
        "2 T N<sub>x</sub> k<sub>e</sub> / E<sub>x</sub> over max(n<sub>TP</sub>, n<sub>EP</sub>) a &lt;b&gt;"
    assert symbols("engine.all_to_all, alphabet, fused_moe") == "engine.all_to_all, alphabet, fused_moe"
    assert symbols("W_DP, α_DP; τ_k; H_q/H_kv") == "W<sub>DP</sub>, α<sub>DP</sub>; τ<sub>k</sub>; H<sub>q</sub>/H<sub>kv</sub>"
    page = html("llama70b-h100-tp8.yaml")
    labels = re.findall(r'<div class="label">(.*?)</div>', page, re.S)
    assert any("e<sub>m</sub> = " in x for x in labels) and any("τ<sub>c8</sub>" in x for x in labels)
    assert not any(re.search(r"\b(e_m|e_g|tau_c|alpha_8|W_c)\b", x) for x in labels), labels
    # and the appendix's inputs table, whose symbol column is written the same way
    assert "<td>n<sub>TP</sub>, n<sub>PP</sub>, n<sub>EP</sub>, n<sub>DP</sub></td>" in page
    assert "<td>τ<sub>k</sub></td>" in page and "<td>k_L</td>" not in page
