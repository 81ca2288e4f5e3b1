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
* DeepSeek-V3 config.json: 61 layers, 58 MoE layers, hidden 7168, 8 routed experts a token, torch_dtype bfloat16.
* FlashMLA (deepseek-ai/FlashMLA README, commit 066b5ba6): the dense decoding kernel on SM90 reads a BF16 KV cache
  (support matrix) and reaches 660 TFLOPS compute-bound on H800 SXM5 in bf16; the reproduction command sets no
  --kv-cache-dtype, so the cache is the model's bf16.  The published row reads "fp8" (the weights); both KV readings
  are checked.
"""

from __future__ import annotations

import math
from functools import cache

import pytest
from genreport.formulas.compiled import load
from genreport.load.loader import _precision, load_hardware, load_model
from genreport.load.spec import Parallelism
from genreport.model import plan as plan_model
from genreport.model.env import make_env
from genreport.model.layout import at_batch
from shared import ROOT

MEASURED = 22_282 / 8  # token/s per GPU, 2,785.25
BATCH, KV = 256, 2000  # sequences a GPU (one DP rank), KV length
LAYOUT = Parallelism(1, 1, 72, 72, redundant_experts=32)  # DP attention over 72 GPUs, EP72, EPLB's 288 experts


@cache
def _terms(batch: float = BATCH, kv: str = "fp8") -> dict[str, float]:
    """The estimate's terms at the published point, as plan.point evaluates them (seconds per decode step)."""
    m = load_model(ROOT / "specs" / "models" / "deepseek-v3.yaml")
    hw = load_hardware(ROOT / "specs" / "hardware" / "h100-sxm.yaml")
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
    """At the published conditions the serial estimate is 106.8 ms a step, 2,396 token/s a GPU, with an fp8 KV cache
    or the bf16 cache FlashMLA reads (the compute at H100's measured fp8 matmul share, 0.709 of the peak, 19.70 ms,
    is above either cache's HBM term): the measured 2,785 is 1.16 times it, within the 20% stated here, and the strict
    bound (60.9 ms, 4,206 token/s a GPU: the all-to-alls bind) is not beaten."""
    t = _terms()
    estimate = BATCH / t["decode_time_serial"]
    assert estimate == pytest.approx(2396, rel=1e-3)
    assert MEASURED / estimate == pytest.approx(1.162, abs=2e-3)
    bf16 = _terms(kv="bf16")
    assert BATCH / bf16["decode_time_serial"] == pytest.approx(2396, rel=1e-3)
    assert MEASURED / (BATCH / bf16["decode_time_serial"]) == pytest.approx(1.162, abs=2e-3)
    for terms in (t, bf16):
        assert abs(MEASURED * terms["decode_time_serial"] / BATCH - 1) <= 0.20
        assert BATCH / terms["decode_time_bound"] >= MEASURED
    # the terms (ms): compute at the fp8 peak, MLA absorbed (d_h 544), 13.97, the estimate's at the measured matmul
    # share 13.97 / 0.709 = 19.70; the busiest GPU's HBM 13.02 (its 4 of
    # 288 expert slots a layer all touched at 256 x 8 routed tokens: u_x = 1); the kernels' fixed costs 0.54; the
    # all-to-alls as the library runs them 86.60, 86% of the step
    assert t["decode_time_compute_gpu"] * 1e3 == pytest.approx(13.97, abs=0.01)
    assert t["decode_time_compute_serial"] == pytest.approx(t["decode_time_compute_gpu"] / 0.709, rel=1e-9)
    assert t["decode_time_memory_busiest"] * 1e3 == pytest.approx(13.02, abs=0.01)
    assert t["decode_time_overhead"] * 1e3 == pytest.approx(0.537, abs=1e-3)
    assert t["decode_time_comm_estimate"] * 1e3 == pytest.approx(86.60, abs=0.01)
    assert t["decode_time_serial"] == pytest.approx(
        max(t["decode_time_compute_serial"], t["decode_time_memory_busiest"]) + t["decode_time_overhead"]
        + t["decode_time_comm_estimate"], rel=1e-12)


def test_the_all_to_all_by_hand():
    """One MoE layer's dispatch or combine as the estimate charges it (formulas.parallel.all_to_all_time_library_tiers):
    each GPU sends its 256 tokens x 8 experts x 7168 x 2 B = 29.36 MB, 7/72 of it over NVLink (370 GB/s), 64/72 over
    its NIC (47 GB/s), after NCCL's 6.6 us and 7 x 0.6 + 64 x 2.7 us of steps: 746.6 us; 2 x 58 of them a step."""
    z = BATCH * 8 * 7168 * 2
    one = 6.6e-6 + 7 * 0.6e-6 + 64 * 2.7e-6 + 7 / 72 * z / 370e9 + 64 / 72 * z / 47e9
    assert one * 1e6 == pytest.approx(746.6, abs=0.1)
    assert _terms()["decode_time_comm_estimate"] == pytest.approx(2 * 58 * one, rel=1e-9)


def test_the_batch_is_per_gpu():
    """The gap of about 3x the issue saw is the batch read per node: at 32 sequences a GPU (256 a node) the estimate
    gives 835 token/s a GPU, 3.3 times under the published rate; the blog's 256 is one DP rank's (--cuda-graph-bs 256)."""
    t = _terms(32.0)
    assert 32 / t["decode_time_serial"] == pytest.approx(835, rel=2e-3)
    assert MEASURED / (32 / t["decode_time_serial"]) == pytest.approx(3.34, abs=0.01)


@pytest.mark.xfail(strict=True, reason=(
    "the estimate's all-to-all is NCCL's, not DeepEP's low-latency kernels: it sends the dispatch in bf16 where "
    "DeepEP quantises it to FP8 (7168 B + scales a token-expert, not 14,336), and pays the 64 peers across nodes "
    "one step after another (64 x 2.7 us a call) where DeepEP posts every RDMA write at once; so it charges 1.49 ms "
    "a layer where DeepEP's published kernels take 0.97-1.12 ms at 256 tokens.  The estimate still explains the "
    "published rate (1.16) because its errors offset: it leaves out two-batch overlap, which hides part of the "
    "all-to-all (less time), and what the engine pays beside it: FlashMLA computes the absorbed attention in bf16, "
    "not fp8, EPLB leaves the busiest GPU more tokens than the mean, and the blog's MoE kernels run 25% slower than "
    "DeepSeek's (more time); charged at bf16 (FlashMLA: 660 TFLOPS on H800), the absorbed attention's 8.70 TFLOP a "
    "step would put the compute term at 18.4-22.8 ms (13.97 at the fp8 peak, 19.70 at the fp8 matmuls' measured "
    "share), so fixing the all-to-all alone would leave the estimate optimistic; "
    "two-batch overlap's saving and EPLB's imbalance have no published number at this point to charge"))
def test_the_all_to_all_matches_deepeps_low_latency_kernels():
    """DeepEP's low-latency dispatch and combine at 128 tokens a rank take 173 + 314 us (EP64) to 192 + 369 us (EP128)
    and are bandwidth-bound there (39-46 GB/s of a ~50 GB/s NIC), so 256 tokens take about twice: 0.97-1.12 ms a
    layer at EP72.  The estimate should be within 20% of that."""
    deepep = (2 * (173 + 314) * 1e-6, 2 * (192 + 369) * 1e-6)
    per_layer = _terms()["decode_time_comm_estimate"] / 58
    assert per_layer * 1e3 == pytest.approx(1.493, abs=1e-3)
    assert deepep[0] / 1.2 <= per_layer <= deepep[1] * 1.2


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
