"""DeepSeek-V3 decode as SGLang ran it on 72 H100s (issue 27): the serial estimate against the published rate, term by
term.

Facts copied here, with their sources:
* LMSYS, "Deploying DeepSeek with PD Disaggregation and Large-scale Expert Parallelism on 96 H100 GPUs", 2025-05-05
  (lm-sys/lm-sys.github.io blog/2025-05-05-large-scale-ep.md, commit 2db4e404), Evaluation, decode table: "SGLang
  (Default)": batch size 256, KV cache length 2,000, 9 nodes, 22,282 tokens/s per node; decode on 9 x 8 H100 with
  EP72; EPLB with 32 redundant experts (288 = 256 + 32: "parallelism sizes of 12 or 72"); DeepEP low-latency
  dispatch, two-batch overlap, CUDA graphs.  The reproduction command (sgl-project/sglang issue 6017) runs decode with
  --tp-size and --dp-size 72, --enable-dp-attention, --ep-num-redundant-experts 32, --enable-two-batch-overlap,
  --cuda-graph-bs 256: the batch of 256 is one DP rank's, one GPU's.
* DeepEP V1 (deepseek-ai/DeepEP docs/legacy.md, commit 0297fc80), low-latency kernels with pure RDMA on H800 with a
  CX7 400 Gb/s NIC (~50 GB/s), 128 tokens per batch, hidden 7168, top-8, FP8 dispatch and BF16 combine: dispatch
  173 us at EP64 and 192 us at EP128 (43 and 39 GB/s), combine 314 us and 369 us (46 and 39 GB/s).
  The same table (docs/legacy.md): normal kernels 153-158 GB/s NVLink in the node on H800 (~160 GB/s maximum, 200
  GB/s a direction at line rate), 43-58 GB/s RDMA across nodes.  tests/legacy/test_low_latency.py counts 7168 + 7168/128
  x 4 + 16 B a token-expert dispatched in FP8 and 7168 x 2 B combined in BF16.
* DeepSeek-V3 config.json: 61 layers, 58 MoE layers, hidden 7168, 8 routed experts a token, torch_dtype bfloat16.
* FlashMLA (deepseek-ai/FlashMLA README, commit 066b5ba6): the dense decoding kernel on SM90 reads a BF16 KV cache
  (support matrix) and reaches 660 TFLOPS compute-bound on H800 SXM5 in bf16; the reproduction command sets no
  --kv-cache-dtype, so the cache is the model's bf16.  The published row reads "fp8" (the weights); both KV readings
  are checked.
"""

from __future__ import annotations

import dataclasses
import math
from functools import cache

import pytest
from genreport.formulas.compiled import load
from genreport.load.loader import _precision, load_hardware, load_model
from genreport.load.spec import Kernels, Parallelism
from genreport.model import plan as plan_model
from genreport.model.env import make_env
from genreport.model.layout import at_batch
from shared import ROOT

MEASURED = 22_282 / 8  # token/s per GPU, 2,785.25
BATCH, KV = 256, 2000  # sequences a GPU (one DP rank), KV length
LAYOUT = Parallelism(1, 1, 72, 72, redundant_experts=32)  # DP attention over 72 GPUs, EP72, EPLB's 288 experts


@cache
def _terms(batch: float = BATCH, kv: str = "fp8", backend: str = "deepep") -> dict[str, float]:
    """The estimate's terms at the published point, as plan.point evaluates them (seconds per decode step); the experts'
    all-to-all as DeepEP runs it (engine.all_to_all: deepep, as SGLang did) unless ``backend`` says nccl."""
    m = load_model(ROOT / "specs" / "models" / "deepseek-v3.yaml")
    hw = load_hardware(ROOT / "specs" / "hardware" / "h100-sxm.yaml")
    hw = dataclasses.replace(hw, kernels=Kernels(all_to_all=backend))
    prec = _precision({"weights": "fp8", "kv_cache": kv})
    env = make_env(hw, m, prec, "seed")
    base, _, cv = plan_model._at_layout(env, m, hw, prec, LAYOUT, KV, "seed")
    v = at_batch(dict(cv, c=plan_model._read_c(env, cv["S"])), env.with_layout(LAYOUT), float(batch))
    q = load()
    names = ("decode_time_compute_gpu", "decode_time_compute_serial", "decode_time_memory_busiest", "decode_time_overhead",
             "decode_time_comm_estimate", "decode_time_serial", "decode_time_bound")
    out = {n: float(q[n](v)) for n in names}
    p = plan_model.point(m, hw, prec, LAYOUT, float(batch), float(KV))
    assert (p.time_serial, p.time_bound) == (out["decode_time_serial"], out["decode_time_bound"])  # one evaluation
    return out


def test_the_estimate_explains_lmsys_h100_decode():
    """At the published conditions, with the experts' all-to-all as DeepEP's low-latency kernels run it (SGLang's), the
    serial estimate is 76.51 ms a step, 3,346 token/s a GPU, with an fp8 KV cache (the compute at H100's measured fp8
    matmul share, 0.709 of the peak, 19.70 ms, is above the HBM term, 16.56 ms with the weights at the fp8 small-GEMM
    share e_g = 0.714); with the bf16 cache the attention's scores and values run at bf16's peak (P_a, the cache's
    format: FlashMLA computes the absorbed attention in bf16), so the compute term is 25.90 ms and binds: 82.71 ms,
    3,095 token/s (3,251 while the attention ran at fp8's peak, 3,346 before decode took e_g, 3,271 before the busiest
    GPU counted the 224 unreplicated experts 3 or 4 a GPU).  The measured 2,785 is 0.832 and 0.900 of them.  The
    estimate is optimistic, within the 20% stated here, because what the engine pays beside the all-to-all is not
    all charged: EPLB leaves the busiest GPU more tokens than the mean, the blog's MoE
    kernels run 25% slower than DeepSeek's; two-batch overlap, which hides part of the all-to-all, is not modelled
    either (it would make the estimate faster still).  None of these has a published number at this point to charge.
    With NCCL's all-to-all (bf16 dispatch, the 64 peers across nodes one after another) the estimate was 106.8 ms,
    2,396 token/s (1.16): its errors offset.  The strict bound (21.10 ms, 12,134 token/s a GPU: the all-to-alls bind,
    each token once to each node that holds one of its experts, one byte an element) is not beaten."""
    t = _terms()
    estimate = BATCH / t["decode_time_serial"]
    assert t["decode_time_serial"] * 1e3 == pytest.approx(76.51, abs=0.01)
    assert estimate == pytest.approx(3346, rel=1e-3)
    assert MEASURED / estimate == pytest.approx(0.832, abs=2e-3)
    bf16 = _terms(kv="bf16")
    assert BATCH / bf16["decode_time_serial"] == pytest.approx(3095, rel=1e-3)
    assert bf16["decode_time_compute_serial"] * 1e3 == pytest.approx(25.90, abs=0.01)  # the attention at bf16's peak
    assert bf16["decode_time_memory_busiest"] * 1e3 == pytest.approx(21.93, abs=0.01)
    for terms in (t, bf16):
        assert abs(MEASURED * terms["decode_time_serial"] / BATCH - 1) <= 0.20
        assert BATCH / terms["decode_time_bound"] >= MEASURED
    assert t["decode_time_bound"] * 1e3 == pytest.approx(21.10, abs=0.01)
    # the bound's all-to-all by hand: 256 tokens a GPU, once to each of 8 (1 - (8/9)^8) = 4.88 other nodes on average
    # over the 50 GB/s NIC (the NVLink side, 71 (1 - (71/72)^8) = 7.52 GPUs over 450 + 50 GB/s, is shorter), 2.7 us
    nodes = 8 * (1 - (8 / 9) ** 8)
    assert t["decode_time_bound"] == pytest.approx(2 * 58 * (nodes * 256 * 7168 / 50e9 + 2.7e-6), rel=1e-9)
    # the terms (ms): compute at the fp8 peak, MLA absorbed (d_h 544), 13.97, the estimate's at the measured matmul
    # share 13.97 / 0.709 = 19.70; the busiest GPU's HBM 16.56, its weights at e_g = 0.714 (every expert touched by
    # the group's 72 x 256 tokens: the 224 unreplicated sit 4 on 8 GPUs, 3 on the rest, so the busiest streams 4
    # experts a layer against the mean 256 / 72: u_x = 1.125 on the routed experts); the kernels' fixed costs 0.54; the
    # all-to-alls as DeepEP runs them 56.27, 74% of the step (NCCL's: 86.60)
    assert t["decode_time_compute_gpu"] * 1e3 == pytest.approx(13.97, abs=0.01)
    assert t["decode_time_compute_serial"] == pytest.approx(t["decode_time_compute_gpu"] / 0.709, rel=1e-9)
    assert t["decode_time_memory_busiest"] * 1e3 == pytest.approx(16.56, abs=0.01)
    assert t["decode_time_overhead"] * 1e3 == pytest.approx(0.537, abs=1e-3)
    assert t["decode_time_comm_estimate"] * 1e3 == pytest.approx(56.27, abs=0.01)
    assert _terms(backend="nccl")["decode_time_comm_estimate"] * 1e3 == pytest.approx(86.60, abs=0.01)
    assert BATCH / _terms(backend="nccl")["decode_time_serial"] == pytest.approx(2396, rel=1e-3)
    assert t["decode_time_serial"] == pytest.approx(
        max(t["decode_time_compute_serial"], t["decode_time_memory_busiest"]) + t["decode_time_overhead"]
        + t["decode_time_comm_estimate"], rel=1e-12)


def test_the_all_to_all_by_hand():
    """One MoE layer's dispatch or combine as NCCL runs it (formulas.parallel.all_to_all_time_library_tiers): each GPU
    sends its 256 tokens x 8 experts x 7168 x 2 B = 29.36 MB, 7/72 of it over NVLink (370 GB/s), 64/72 over its NIC
    (47 GB/s), after NCCL's 6.6 us and 7 x 0.6 + 64 x 2.7 us of steps: 746.6 us; 2 x 58 of them a step."""
    z = BATCH * 8 * 7168 * 2
    one = 6.6e-6 + 7 * 0.6e-6 + 64 * 2.7e-6 + 7 / 72 * z / 370e9 + 64 / 72 * z / 47e9
    assert one * 1e6 == pytest.approx(746.6, abs=0.1)
    assert _terms(backend="nccl")["decode_time_comm_estimate"] == pytest.approx(2 * 58 * one, rel=1e-9)


def test_deepeps_all_to_all_by_hand():
    """One MoE layer as DeepEP's low-latency kernels run it (formulas.parallel.all_to_all_time_deepep): 256 x 8
    token-experts a GPU, dispatched in FP8 with one fp32 scale per 128 channels (7168 x 33/32 = 7392 B each) and
    combined in BF16 (14,336 B); every peer at once, so one step of the NIC (2.7 us) and the busier tier: 64/72 of the
    bytes over the NIC at 0.82 x 50 GB/s (the 7/72 over NVLink at 0.765 x 450 GB/s take far less): 330.9 + 639.2 us =
    0.970 ms a layer, 58 layers a step."""
    tokens = BATCH * 8
    one = sum(2.7e-6 + 64 / 72 * tokens * x / (0.82 * 50e9) for x in (7392, 14336))
    assert one * 1e3 == pytest.approx(0.9701, abs=1e-4)
    assert 7 / 72 * tokens * 14336 / (0.765 * 450e9) < 64 / 72 * tokens * 14336 / (0.82 * 50e9)
    assert _terms()["decode_time_comm_estimate"] == pytest.approx(58 * one, rel=1e-9)


@pytest.mark.parametrize("ep,dispatch,combine", [(64, 173e-6, 314e-6), (128, 192e-6, 369e-6), (256, 194e-6, 360e-6)])
def test_deepeps_published_kernel_times(ep, dispatch, combine):
    """DeepEP's low-latency table (docs/legacy.md: 128 tokens, top-8, H800 with 200 GB/s NVLink a direction and one
    CX7 400 Gb/s NIC a GPU, 8 GPUs a node): the model's kernel times within 10% of each published one (dispatch 164-182
    against 173-194 us, combine 316-350 against 314-369), and never under the strict bound's all-to-all (each token
    once to each node that holds one of its experts, one byte an element at line rate, 87-130 us), which none of the
    published times beats; with every token-expert at two bytes (bf16, the bound before) it was 260 us at EP64, above
    DeepEP's published 173 us dispatch."""
    q = load()
    per = 128 * 8 * 7168
    at = {"n_g": float(ep), "n_u": 8.0, "W_x": 200e9, "alpha": 0.6e-6, "W_o": 50e9, "alpha_o": 2.7e-6}
    for x, published in ((33 / 32, dispatch), (2, combine)):
        model = float(q["all_to_all_time_deepep"](dict(at, Z_g=per * x, e_Du=0.765, e_Do=0.82)))
        bound = float(q["all_to_all_time_experts"](dict(at, Z_g=128 * 7168 * 1.0, k_e=8.0)))
        assert abs(model / published - 1) <= 0.10, (ep, x, model, published)
        assert bound < published and bound < model


def test_the_all_to_all_matches_deepeps_low_latency_kernels():
    """DeepEP's low-latency dispatch and combine at 128 tokens a rank take 173 + 314 us (EP64) to 192 + 369 us (EP128)
    and are bandwidth-bound there (39-46 GB/s of a ~50 GB/s NIC), so 256 tokens take about twice: 0.97-1.12 ms a
    layer at EP72.  The estimate with engine.all_to_all: deepep charges 0.970 ms, within 20% of that (NCCL's 1.49)."""
    deepep = (2 * (173 + 314) * 1e-6, 2 * (192 + 369) * 1e-6)
    per_layer = _terms()["decode_time_comm_estimate"] / 58
    assert per_layer * 1e3 == pytest.approx(0.970, abs=1e-3)
    assert deepep[0] / 1.2 <= per_layer <= deepep[1] * 1.2
    assert _terms(backend="nccl")["decode_time_comm_estimate"] / 58 * 1e3 == pytest.approx(1.493, abs=1e-3)


def test_the_batch_is_per_gpu():
    """The gap of about 3x the issue saw is the batch read per node: at 32 sequences a GPU (256 a node) the estimate
    with NCCL's all-to-all (the issue's) gives 764 token/s a GPU, 3.6 times under the published rate; the blog's 256
    is one DP rank's (--cuda-graph-bs 256)."""
    t = _terms(32.0, backend="nccl")
    assert 32 / t["decode_time_serial"] == pytest.approx(764, rel=2e-3)
    assert MEASURED / (32 / t["decode_time_serial"]) == pytest.approx(3.64, abs=0.01)


def test_no_published_deepseek_row_beats_the_bound():
    """Every DeepSeek-V3 row of tests/data/published.csv (LMSYS on 72 H100 and on 48 GB200) stays under the strict
    bound taken as the best layout and batch allow (tests/test_parallel_published.py's reading)."""
    import csv

    from test_parallel_published import best_bound

    rows = [r for r in csv.DictReader((ROOT / "tests" / "data" / "published.csv").open(encoding="utf-8"))
            if r["model"] == "deepseek-v3" and r["metric"] == "tokens_per_s_per_gpu"]
    assert {r["hardware"] for r in rows} >= {"h100-sxm", "gb200"}
    for r in rows:
        bound, where = best_bound(r)
        assert float(r["value"]) <= bound and math.isfinite(bound), (r["id"], where)
