"""Weight-only int8/int4 GEMMs in the serial estimate (issue 29), and plan's default weight formats.

Facts copied here, with their sources (generator/load/spec.py, WEIGHT_ONLY_EFFICIENCY):
* torchao, pytorch/ao torchao/quantization/README.md (Benchmarks table, one A100, batch 1, "Memory Bandwidth (GB/s)"):
  Llama-3-8B bf16 1435.54 GB/s, int8wo 1150.80, int4wo-64 763.33: int8 0.80, int4 0.53 of the bf16 GEMM's share.
* Llama 3.1 70B (config.json): 80 layers, 8 KV heads of 128, so 80 x 2 x 8 x 128 x 2 B = 327,680 B of bf16 KV per
  token; H100 SXM: 3.35 TB/s.
"""

from __future__ import annotations

import dataclasses

import pytest
from genreport.errors import SpecError
from genreport.formulas.compiled import load
from genreport.load.loader import _precision, load_hardware, load_model, load_report
from genreport.load.spec import Kernels
from genreport.model.env import weight_efficiency
from genreport.model.plan import plan, plan_precisions
from shared import ROOT

# one GPU of a tp 8 replica of a 70B dense model, int4 weights: the symbols of decode_time_memory_busiest
HAND = {"N": 70e9, "N_e": 0.0, "V": 128256.0, "d": 8192.0, "s_st": 0.0, "kappa_B": 1.0, "N_x": 0.0, "b": 0.5, "n_TP": 8.0, "n_PP": 1.0, "n_St": 1.0, "m_b": 1.0, "n_EP": 1.0, "u_x": 1.0,
        "B": 16.0, "S": 4096.0, "c": 327680.0, "s_kv": 8.0, "a": 0.0, "W": 3.35e12, "e_w": 0.53, "e_g": 1.0,
        "N_R": 0.0}  # nothing held whole beyond one copy, for the hand count (tests/test_tp_copies.py counts it)


def _m(name):
    return load_model(ROOT / "specs" / "models" / f"{name}.yaml")


def _hw(name):
    return load_hardware(ROOT / "specs" / "hardware" / f"{name}.yaml")


def test_the_estimate_streams_weight_only_weights_at_e_w_by_hand():
    q = load()
    weights = 70e9 * 0.5 / 8  # 4.375 GB of int4 weights per GPU, read at 0.53 of 3.35 TB/s
    kv = 16 * 4096 * 327680 / 8  # 16 sequences of 4k tokens, the 8 KV heads split 8 ways: 2.684 GB at 3.35 TB/s
    assert float(q["decode_time_memory_busiest"](HAND)) == pytest.approx((weights / 0.53 + kv) / 3.35e12, rel=1e-12)
    assert (weights / 0.53 + kv) / 3.35e12 == pytest.approx(3.2655e-3, rel=1e-4)  # against 2.107 ms at e_w = 1
    one = dict(HAND, e_w=1.0)
    assert float(q["decode_time_memory_busiest"](one)) == pytest.approx(float(q["decode_time_memory_gpu"](one)))
    # prefill of 2k tokens: the weight slice at e_w, the prompt's KV at W
    pre = dict(HAND, T=2048.0)
    assert float(q["prefill_time_memory_serial"](pre)) == pytest.approx(
        (weights / 0.53 + 2048 * 327680 / 8) / 3.35e12, rel=1e-12)


def test_the_bound_never_reads_e_w():
    q = load()
    for qid in ("decode_time_bound", "decode_time_memory_gpu", "prefill_time_bound", "request_decode_time_bound"):
        assert "e_w" not in q[qid].args and "e_g" not in q[qid].args, qid
    for qid in ("decode_time_serial", "prefill_time_serial", "request_decode_time_serial"):
        assert "e_w" in q[qid].args and "e_g" in q[qid].args, qid  # the estimates stream the weights at e_w e_g


def test_e_w_by_format():
    from genreport.formulas.architecture import parameter_count

    k, pc = Kernels(), parameter_count(_m("llama-3.1-70b"))
    assert weight_efficiency(_precision("int4"), pc, k) == 0.53
    assert weight_efficiency(_precision("int8"), pc, k) == 0.80
    for fmt in ("bf16", "fp8", "nvfp4"):
        assert weight_efficiency(_precision(fmt), pc, k) == 1.0, fmt
    # int8 weights computed in int8 (W8A8) are not weight-only
    assert weight_efficiency(_precision({"weights": "int8", "compute": "int8", "kv_cache": "int8"}), pc, k) == 1.0
    # per class: int4 experts, bf16 rest (Mixtral 8x7B): the held bytes over the time to stream them
    mx = parameter_count(_m("mixtral-8x7b"))
    prec = _precision({"weights": {"experts": "int4", "default": "bf16"}})
    x, rest = mx.experts_routed * 0.5, (mx.total - mx.experts_routed) * 2.0
    assert weight_efficiency(prec, mx, k) == pytest.approx((x + rest) / (x / 0.53 + rest), rel=1e-12)


def test_the_engine_block_and_set_reach_e_w():
    spec = ROOT / "specs" / "llama70b-h100-tp2.yaml"
    given = load_report(spec, ["precision=int4", "engine.weight_only_efficiency.int4=0.7"])
    assert dict(given.hardware.kernels.weight_only) == {"int8": 0.80, "int4": 0.7}
    from genreport.model.env import make_env
    from genreport.model.layout import choose_links, layout_values

    par = given.parallelism
    env = make_env(given.hardware, given.model, given.precision, "seed")
    v = layout_values(env.values, given.model, par, choose_links(given.hardware, par)[0], given.precision, "seed",
                      env.pc, kernels=given.hardware.kernels)
    assert float(v["e_w"]) == 0.7
    for bad in ("engine.weight_only_efficiency.int4=0", "engine.weight_only_efficiency.int4=1.5",
                "engine.weight_only_efficiency.int3=0.5"):
        with pytest.raises(SpecError) as err:
            load_report(spec, [bad])
        assert "weight_only_efficiency" in str(err.value), bad


def test_plan_default_weights_follow_practice():
    assert plan_precisions(_m("llama-3.1-405b")) == ("bf16", "fp8")  # a 16-bit release: bf16 and fp8
    assert plan_precisions(_m("llama-3.2-1b")) == ("bf16",)  # under 8B: no fp8 by default
    assert plan_precisions(_m("deepseek-v3")) == ("checkpoint",)  # its fp8_block release
    assert plan_precisions(_m("gpt-oss-120b")) == ("checkpoint",)  # mxfp4 experts as shipped


def test_405b_ranks_fp8_ahead_of_int4_unless_the_bound_is_asked_for_int4():
    """4 x B200: the default tries no int4; asked for, int4 tops the bound (its bytes) but not the serial estimate at
    the same layout (tp 4).  Over all layouts the serial estimate now puts int4 on two GPUs first (779.6 tok/s a GPU
    against fp8's 738.7 on four): the 2 MiB all-reduces of tp 4 take NCCL's LL at 282 GB/s at most (the B200's file
    has no measured bus bandwidth) or LL128 after 40.6 us, not LL's latencies at the whole 900 GB/s."""
    m, hw = _m("llama-3.1-405b"), dataclasses.replace(_hw("b200"), memory_reserve=0.1)
    args = (m, hw, 64, 4608, 0.05)
    kw = {"max_gpus": 4}
    default = plan(*args, **kw)
    assert default.rows and {r.precision for r in default.rows} <= {"bf16", "fp8"}
    assert default.rows[0].precision == "fp8" and default.rows[0].gpus == 4
    every = ("bf16", "fp8", "int8", "int4")
    assert plan(*args, every, **kw).rows[0].precision == "int4"  # the bound: what the format's bytes allow
    serial = plan(*args, every, estimate="serial", **kw).rows
    assert (serial[0].precision, serial[0].tp, serial[1].precision, serial[1].tp) == ("int4", 2, "fp8", 4)
    fp8, int4 = (next(r for r in serial if r.precision == f and (r.tp, r.pp) == (4, 1)) for f in ("fp8", "int4"))
    assert fp8.tokens_per_s_gpu > int4.tokens_per_s_gpu  # 0.5 B at 0.53 of the bandwidth: slower than 1 B at all of it
    assert fp8.time_bound > int4.time_bound  # while the bound still lets int4 go faster
