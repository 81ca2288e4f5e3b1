"""Every checkable claim of the two seed documents, reproduced by the project from its own spec files.

The table below has one row per checkable claim of ``seed-claims.yaml`` (120 claims, 7 of them slips
in the seeds).  The expected values, tolerances and fixes are copied from that file, claim by claim;
the seeds are ``seeds/000_6260143462813f0a.txt`` ("arithmetic is cheap, moving data is expensive")
and ``seeds/003_5c15a1f19fd167b9.txt`` ("training lacks compute, decode lacks bandwidth").

Every value is computed by the project: the reference report specs are loaded with
:mod:`genreport.load.loader` and evaluated with :func:`genreport.model.evaluate.evaluate` (``scalars``,
``per_context``, ``decode``, ``prefill``, ``gemm``, ``training``, ``compare``, ``verdicts``), or a
compiled quantity is called on an environment from :func:`genreport.model.evaluate.make_env`.  GPU-primer
claims of seed 000 go through :mod:`formulas.primer` with inputs from the hardware spec's
``architecture`` block.  Symbolic identities are checked with SymPy on the project's formula functions.
Nothing here re-types a formula: the test only converts units (with :mod:`genreport.load.units`) and
forms the ratio or comparison the claim itself states.

Where seed 000 used other inputs than the catalog (989 TFLOP/s instead of 989.4; 3.3 TB/s for the 70B
example) and seed 003 rounded the A100 bandwidth (2.04 TB/s, catalog 2.039), the project's override
mechanism (``--set``) supplies them, so the value still comes through the pipeline.

Rounding conventions (seed-claims.yaml ``meta.conventions_required``): crossovers are real roots
rounded to the nearest integer, the capacity batch is floored, the ridge is kept unrounded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest
import sympy as sp
from genreport.formulas import decode, derive, gemm, primer, quantities, roofline
from genreport.formulas.compiled import load
from genreport.formulas.glossary import sym
from genreport.load import units
from genreport.load.loader import load_hardware, load_model
from genreport.load.spec import PRECISION_BYTES, Precision
from genreport.model.evaluate import Results, make_env
from shared import ROOT, evaluated

SPECS = ROOT / "specs"

# Units, through the project's parser (GB = 1e9 B, GiB = 2^30 B, KB = 1e3 B, ...).
GB, GiB, KiB, KB, MB = (units.parse(f"1 {u}").value for u in ("GB", "GiB", "KiB", "KB", "MB"))
MS, GFLOP, TFLOPS, PFLOPS = (units.parse(f"1 {u}").value for u in ("ms", "GFLOP", "TFLOP/s", "PFLOP/s"))
BILLION = 1e9  # "8.03B parameters"
WAN = 1e4  # 万, the seed's unit for 53.3万 tokens

# Seed inputs that differ from the catalog, as --set overrides.
P989 = "hardware.peak.dense.bf16=989 TFLOP/s"  # seed 000 (and the intro of seed 003) round 989.4 to 989
BW33 = "hardware.memory.bandwidth=3.3 TB/s"  # seed 000's 70B example uses 3.3 TB/s, not 3.35
A100_BW = "hardware.memory.bandwidth=2.04 TB/s"  # seed 003 rounds the A100's 2.039 TB/s to 2.04

L8 = ("llama8b-h100",)  # seed 003: Llama 3.1 8B, bf16, H100 SXM 989.4 TFLOP/s, 3.35 TB/s, 80 GiB
L8_A100 = ("llama8b-a100", A100_BW)  # base A100, compared with the H100
L8_MHA = ("llama8b-h100", "model.kv_heads=32")
L8_MQA = ("llama8b-h100", "model.kv_heads=1")
L8_INT4 = ("llama8b-h100", "precision=int4")
S0 = ("seed000-70b-h100", P989)  # seed 000: 70B, bf16, H100 989 TFLOP/s, 3.35 TB/s
S0_BW = ("seed000-70b-h100", P989, BW33)
S0_INT8 = ("seed000-70b-h100", P989, BW33, "precision=int8")
S0_H200 = ("seed000-70b-h200", P989)  # seed 000: H200 989 TFLOP/s, 4.8 TB/s


# ----------------------------------------------------------------------------------------------- the pipeline

@cache
def report(name: str, *overrides: str) -> Results:
    return evaluated(f"{name}.yaml", overrides)


@cache
def hardware(name: str):
    return load_hardware(SPECS / "hardware" / f"{name}.yaml")


def arch(name: str = "h100-sxm") -> dict[str, float]:
    return hardware(name).architecture


def sc(spec: tuple, qid: str, acc: str = "seed") -> float:
    return report(*spec).scalars[acc][qid]


def q(spec: tuple, qid: str, acc: str = "seed", **point) -> float:
    """A compiled quantity at a workload point (batch, context, T, n, m) of a report's environment."""
    return float(load()[qid](report(*spec).envs[acc].at(**point)))


def per_context(spec: tuple, qid: str, context: int, acc: str = "seed") -> float:
    r = report(*spec)
    return float(r.per_context[acc][qid][r.spec.workloads.decode_context.index(context)])


def decode_at(spec: tuple, qid: str, batch: int, context: int, acc: str = "seed") -> float:
    r = report(*spec)
    w = r.spec.workloads
    return float(r.decode[acc][qid][w.decode_batch.index(batch), w.decode_context.index(context)])


def prefill_at(spec: tuple, qid: str, tokens: int, acc: str = "seed") -> float:
    r = report(*spec)
    return float(r.prefill[acc][qid][r.spec.workloads.prefill_prompt.index(tokens)])


def gemm_row(spec: tuple, n: int, m: int) -> dict:
    return next(g for g in report(*spec).gemm if (g["n"], g["m"]) == (n, m))


def gemm_at(spec: tuple, n: int, m: int, tokens: int, key: str = "intensity") -> float:
    g = gemm_row(spec, n, m)
    return g[key][g["tokens"].index(tokens)]


def compare_row(spec: tuple, name: str) -> dict:
    return next(c for c in report(*spec).compare if c["name"] == name)


def base_row(spec: tuple) -> dict:
    return next(c for c in report(*spec).compare if c["is_base"])


def training_row(spec: tuple, recipe: str) -> dict:
    return next(t for t in report(*spec).training if t["recipe"] == recipe)


@cache
def fp8_env():
    """Llama 3.1 8B on the H100 in fp8 (weights, KV and compute), via make_env.

    ``--set precision=fp8`` on llama8b-h100 is refused because its compare list holds the A100, which has
    no fp8 peak, so the environment is built from the hardware and model specs directly.
    """
    hw = hardware("h100-sxm")
    model = load_model(SPECS / "models" / "llama-3.1-8b.yaml")
    return make_env(hw, model, Precision("fp8", "fp8", "fp8"), "seed")


def fq(qid: str, **point) -> float:
    return float(load()[qid](fp8_env().at(**point)))


def weight_reuse_crossover(spec: tuple) -> float:
    """Tokens per weight load where the weight-reuse intensity 2T/b reaches the ridge (solved by SymPy)."""
    (root,) = sp.solve(sp.Eq(derive.weight_reuse_intensity(), roofline.ridge()), sym("T"))
    v = report(*spec).envs["seed"].values
    return float(root.subs({sym("P"): v["P"], sym("W"): v["W"], sym("b"): v["b"]}))


def nbytes(fmt: str) -> sp.Expr:
    """Bytes per element of a format, as an exact SymPy number (bf16 -> 2, int4 -> 1/2)."""
    return sp.nsimplify(PRECISION_BYTES[fmt])


# Glossary symbols for the symbolic identities.
T, b, n, m, N, N_a, N_e, a, P, W = (sym(x) for x in ("T", "b", "n", "m", "N", "N_a", "N_e", "a", "P", "W"))
L, d, S, c, H_q, H_kv, d_h, b_kv = (sym(x) for x in ("L", "d", "S", "c", "H_q", "H_kv", "d_h", "b_kv"))
SEED_ACCOUNTING = {N_a: N, N_e: 0, a: 0}  # seed 003: all N weights read and used every step, no activations


def _dense(expr: sp.Expr) -> sp.Expr:
    """A formula of a dense model, seed 003's (Llama 3.1 8B): every parameter computes for every token, N_a = N."""
    names = {s.name: s for s in expr.free_symbols}
    return sp.simplify(expr.subs(names["N_a"], names["N"])) if "N_a" in names and "N" in names else expr


def decode_ratio_symbolic():
    """t_mem / t_comp of a batch-1 step without attention (weights only), bf16, seed accounting."""
    t_mem = roofline.time_memory(decode.decode_bytes(B=1, S=0))
    t_comp = roofline.time_compute(decode.decode_flops(B=1, S=0))
    return (t_mem / t_comp).subs(SEED_ACCOUNTING).subs(b, nbytes("bf16"))


def attention_macs_symbolic():
    """QK^T plus AV of one sequence in one layer, counted in multiply-adds (FLOPs / FLOPs per MAC)."""
    return decode.attention_flops_per_layer_seq() / primer.FLOPS_PER_MAC


def attention_4LdS_symbolic():
    model = report(*L8).spec.model
    flops = decode.attention_flops_per_token(H_q=model.heads, d_h=model.head_dim)
    return (flops - 4 * L * d * S).subs(d, model.hidden_size)


def ffn_traffic_share() -> float:
    """FFN weight bytes over all weight bytes streamed by a batch-1 step (exact accounting: lm_head streamed,
    the input embedding a row lookup)."""
    r = report(*L8)
    streamed = q(L8, "decode_bytes", acc="exact", batch=1, context=0)
    return r.params.ffn_dense * r.envs["exact"].values["b"] / streamed


# ----------------------------------------------------------------------------------------------- the table

NO_FIX = object()


@dataclass(frozen=True)
class Claim:
    id: str  # claim id in seed-claims.yaml
    get: Callable[[], object]  # the project's value, in the claim's unit
    stated: object  # the seed's stated value (number, bool, SymPy expression, or the verbal phrase)
    tol: dict  # {"abs": x} | {"rel": x} | {"range": (lo, hi)} | {"exact": True}, as in seed-claims.yaml
    fix: object = NO_FIX  # slips: the correct value (seed-claims.yaml `fix`)
    fix_tol: dict | None = None
    stated_holds: bool = False  # slips: whether the corrected value still satisfies the stated one


CLAIMS: tuple[Claim, ...] = (
    # ---- seed 003, intro: A100 -> H100 ------------------------------------------------------------------
    Claim("s003-a100-h100-compute-ratio", lambda: compare_row(L8_A100, "h100-sxm")["compute_ratio"],
          "just over 3x", {"range": (3.0, 3.5)}),
    Claim("s003-a100-h100-bw-ratio", lambda: compare_row(L8_A100, "h100-sxm")["bandwidth_ratio"], 1.6, {"abs": 0.05}),
    Claim("s003-decode-speedup-tracks-bw", lambda: compare_row(L8_A100, "h100-sxm")["decode_speedup"],
          1.6, {"abs": 0.05}),
    # ---- seed 003, figure 1 / section 2: the two lower bounds of a batch-1 decode step -------------------
    Claim("s003-decode-tmem-h100", lambda: sc(L8, "weight_stream_time") / MS, 4.79, {"abs": 0.005}),
    Claim("s003-decode-tcomp-h100", lambda: sc(L8, "weight_flops_time") / MS, 0.016, {"abs": 0.0005}),
    Claim("s003-decode-tokens-per-bw-window", lambda: sc(L8, "weight_stream_time") / sc(L8, "weight_flops_time"),
          295, {"abs": 0.5}),
    Claim("s003-decode-ratio-295-to-1", decode_ratio_symbolic, roofline.ridge(), {"exact": True}),
    # ---- seed 003, section 1: intensity of one weight matrix ---------------------------------------------
    Claim("s003-weight-reuse-intensity", gemm.weight_reuse_intensity, 2 * T / b, {"exact": True}),
    Claim("s003-weight-reuse-bf16-equals-B", lambda: derive.weight_reuse_intensity().subs(b, nbytes("bf16")),
          T, {"exact": True}),
    Claim("s003-full-intensity-identity",
          lambda: gemm.gemm_intensity() - derive.weight_reuse_intensity() / (1 + T * (n + m) / (n * m)),
          sp.S.Zero, {"exact": True}),
    Claim("s003-full-intensity-4096-B2048", lambda: gemm_at(L8, 4096, 4096, 2048), 1024, {"abs": 0.5}),
    Claim("s003-full-intensity-4096-B8192", lambda: gemm_at(L8, 4096, 4096, 8192), 1638, {"abs": 0.5}),
    Claim("s003-full-intensity-half-of-IW-B2048",
          lambda: gemm_at(L8, 4096, 4096, 2048) / gemm_at(L8, 4096, 4096, 2048, "weight_reuse"), 0.5, {"abs": 1e-9}),
    Claim("s003-full-intensity-sat-4096", lambda: gemm_row(L8, 4096, 4096)["saturation"], 2048, {"abs": 0.5}),
    Claim("s003-full-intensity-sat-ffn", lambda: gemm_row(L8, 4096, 14336)["saturation"], 3186, {"abs": 0.5}),
    Claim("s003-ridge-h100", lambda: sc(L8, "ridge_point"), 295, {"abs": 0.5}),
    Claim("s003-sparse-peak-is-2x", lambda: hardware("h100-sxm").sparse["bf16"] / TFLOPS, 1979, {"abs": 0.5}),
    Claim("s003-crossover-4096", lambda: gemm_row(L8, 4096, 4096)["crossover"], 345, {"abs": 0.5}),
    # ---- seed 003, section 2: decode, prefill, training ---------------------------------------------------
    Claim("s003-decode-flops-8b", lambda: q(L8, "decode_flops", batch=1, context=0) / GFLOP, 16.06, {"abs": 0.005}),
    Claim("s003-decode-bytes-8b", lambda: q(L8, "decode_bytes", batch=1, context=0) / GB, 16.06, {"abs": 0.005}),
    Claim("s003-decode-intensity-1", lambda: q(L8, "decode_intensity", batch=1, context=0), 1, {"abs": 1e-9}),
    Claim("s003-decode-weights-tens-of-gb", lambda: sc(L8, "weight_bytes") / GB, "a dozen-plus GB",
          {"range": (10, 19.99)}),
    Claim("s003-decode-full-intensity-b1", lambda: gemm_at(L8, 4096, 4096, 1), 1, {"abs": 0.01}),
    Claim("s003-decode-small-B-approx-B", lambda: decode_at(L8, "decode_intensity", 1, 1024), 1, {"rel": 0.05}),
    Claim("s003-param-count-from-dims", lambda: report(*L8).params.total / BILLION, 8.03, {"abs": 0.005}),
    Claim("s003-nonembed-params",
          lambda: (report(*L8).envs["exact"].values["N"] - report(*L8).envs["exact"].values["N_e"]) / BILLION,
          7.5, {"abs": 0.05}),
    Claim("s003-nonembed-ratio-unchanged", lambda: q(L8, "decode_intensity", acc="exact", batch=1, context=0),
          1, {"abs": 1e-9}),
    Claim("s003-prefill-2k-weight-reuse", lambda: prefill_at(L8, "weight_reuse_intensity", 2048), 2048, {"abs": 0.5}),
    Claim("s003-prefill-2k-full", lambda: gemm_at(L8, 4096, 4096, 2048), 1024, {"abs": 0.5}),
    Claim("s003-prefill-2k-right-of-ridge",
          lambda: min(gemm_at(L8, 4096, 4096, 2048), prefill_at(L8, "weight_reuse_intensity", 2048))
          > sc(L8, "ridge_point"), True, {"exact": True}),
    Claim("s003-prefill-256-full", lambda: gemm_at(L8, 4096, 4096, 256), 228, {"abs": 0.5}),
    Claim("s003-prefill-256-left-of-ridge", lambda: gemm_at(L8, 4096, 4096, 256) < sc(L8, "ridge_point"),
          True, {"exact": True}),
    Claim("s003-training-weight-reuse-equals-T",
          lambda: _dense(quantities.BY_ID["training_weight_reuse_intensity"].expr().subs(b, nbytes("bf16"))),
          T, {"exact": True}),
    Claim("s003-training-microbatch-8k-full", lambda: gemm_at(L8, 4096, 4096, 8192), 1638, {"abs": 0.5}),
    Claim("s003-training-weight-reuse-range", lambda: report(*L8).verdicts["training_intensity"], "1e3 .. 1e4",
          {"range": (1e3, 1e4)}),
    Claim("s003-table-decode-gap-300x",
          lambda: sc(L8, "ridge_point") / q(L8, "decode_intensity", batch=1, context=0), 300, {"range": (290, 310)}),
    Claim("s003-fig3-four-orders",
          lambda: float(primer.orders_of_magnitude(report(*L8).verdicts["training_intensity"],
                                                   gemm_at(L8, 4096, 4096, 1, "weight_reuse"))),
          4, {"range": (3.5, 4.0)}),
    # ---- seed 003, section 3: attention and the KV cache ---------------------------------------------------
    Claim("s003-attn-flops-per-seq", attention_macs_symbolic, 4 * H_q * d_h * S, {"exact": True},
          fix=2 * H_q * d_h * S, fix_tol={"exact": True}),  # 2 H_q d_h S multiply-adds = 4 H_q d_h S FLOPs
    Claim("s003-kv-bytes-per-seq-layer", lambda: decode.kv_bytes_per_layer_seq().subs(b_kv, nbytes("bf16")),
          4 * H_kv * d_h * S, {"exact": True}),
    Claim("s003-kv-intensity-equals-G", lambda: derive.attention_intensity().subs(b_kv, nbytes("bf16")),
          H_q / H_kv, {"exact": True}),
    Claim("s003-G-llama31-8b", lambda: sc(L8, "attention_intensity"), 4, {"abs": 1e-9}),
    Claim("s003-G-mha", lambda: sc(L8_MHA, "attention_intensity"), 1, {"abs": 1e-9}),
    Claim("s003-G-mqa", lambda: sc(L8_MQA, "attention_intensity"), 32, {"abs": 1e-9}),
    Claim("s003-G-all-below-ridge",
          lambda: max(sc(s, "attention_intensity") for s in (L8, L8_MHA, L8_MQA)) < sc(L8, "ridge_point"),
          True, {"exact": True}),
    Claim("s003-kv-bytes-per-token", lambda: sc(L8, "kv_bytes_per_token") / KiB, 128, {"abs": 1e-9}),
    Claim("s003-attn-flops-4LdS", attention_4LdS_symbolic, sp.S.Zero, {"exact": True}),
    Claim("s003-decode-ceiling-limit", lambda: derive.decode_intensity_ceiling().subs(SEED_ACCOUNTING),
          ((2 * N + 4 * L * d * S) / (S * c)).subs(d, H_q * d_h), {"exact": True}),
    Claim("s003-decode-ceiling-1k", lambda: per_context(L8, "decode_intensity_ceiling", 1024), 124, {"abs": 0.5}),
    Claim("s003-decode-ceiling-8k", lambda: per_context(L8, "decode_intensity_ceiling", 8192), 19, {"abs": 0.5}),
    Claim("s003-decode-ceilings-below-ridge",
          lambda: max(per_context(L8, "decode_intensity_ceiling", s) for s in (1024, 8192)) < sc(L8, "ridge_point"),
          True, {"exact": True}),
    Claim("s003-critical-context", lambda: sc(L8, "critical_context"), 421, {"abs": 0.5}),
    Claim("s003-batch-to-cross-at-128", lambda: per_context(L8, "crossover_batch", 128), 425, {"abs": 0.5}),
    Claim("s003-kv-capacity-tokens", lambda: sc(L8, "kv_capacity_tokens") / WAN, 53.3, {"abs": 0.05}),
    Claim("s003-batch-cap-8k", lambda: per_context(L8, "capacity_batch", 8192), 65, {"abs": 1e-9}),
    Claim("s003-intensity-at-cap-8k", lambda: per_context(L8, "intensity_at_capacity", 8192), 15, {"abs": 0.5}),
    # ---- seed 003, section 4 / figure 5: memory capacity ---------------------------------------------------
    Claim("s003-weights-gb", lambda: sc(L8, "weight_bytes") / GB, 16.06, {"abs": 0.005}),
    Claim("s003-weights-gib", lambda: sc(L8, "weight_bytes") / GiB, 14.96, {"abs": 0.005}),
    Claim("s003-train-bytes-zero", lambda: training_row(L8, "bf16-grads")["bytes_per_param"], 16, {"abs": 1e-9}),
    Claim("s003-train-16-gb", lambda: training_row(L8, "bf16-grads")["total"] / GB, 128.5, {"abs": 0.05}),
    Claim("s003-train-16-gib", lambda: training_row(L8, "bf16-grads")["total"] / GiB, 119.7, {"abs": 0.05}),
    Claim("s003-train-bytes-megatron", lambda: training_row(L8, "fp32-grads")["bytes_per_param"], 18, {"abs": 1e-9}),
    Claim("s003-train-18-gb", lambda: training_row(L8, "fp32-grads")["total"] / GB, 144.5, {"abs": 0.05}),
    Claim("s003-train-18-gib", lambda: training_row(L8, "fp32-grads")["total"] / GiB, 134.6, {"abs": 0.05}),
    Claim("s003-train-vs-infer-8x", lambda: training_row(L8, "bf16-grads")["total"] / sc(L8, "weight_bytes"),
          8, {"abs": 1e-9}),
    Claim("s003-train-vs-infer-9x", lambda: training_row(L8, "fp32-grads")["total"] / sc(L8, "weight_bytes"),
          9, {"abs": 1e-9}),
    Claim("s003-train-exceeds-80gib",
          lambda: all(t["total"] > sc(L8, "capacity") and not t["fits"] for t in report(*L8).training),
          True, {"exact": True}),
    Claim("s003-infer-kv-gib", lambda: sc(L8, "kv_capacity_tokens") * sc(L8, "kv_bytes_per_token") / GiB,
          65.04, {"abs": 0.005}),
    # ---- seed 003, section 5: quantisation and FP8 ----------------------------------------------------------
    Claim("s003-int4-weight-bytes-quarter", lambda: sc(L8_INT4, "weight_bytes") / sc(L8, "weight_bytes"),
          0.25, {"abs": 1e-9}),
    Claim("s003-int4-weight-intensity-4B", lambda: derive.weight_reuse_intensity().subs(b, nbytes("int4")),
          4 * T, {"exact": True}),
    Claim("s003-ffn-param-share", lambda: report(*L8).params.ffn_share_of_blocks, 0.8, {"abs": 0.025},
          fix=0.8076619718, fix_tol={"abs": 1e-6}, stated_holds=True),  # share of transformer-block params
    Claim("s003-ffn-traffic-share", ffn_traffic_share, 0.8, {"abs": 0.025},
          fix=0.7511260702, fix_tol={"abs": 1e-6}),  # lm_head is streamed too: about three quarters
    Claim("s003-fp8-peak-2x", lambda: fp8_env().values["P"] / sc(L8, "peak_flops"), 2, {"abs": 0.01}),
    Claim("s003-fp8-ridge", lambda: fq("ridge_point"), 590, {"abs": 1.0}),
    Claim("s003-fp8-intensity-doubles",
          lambda: fq("weight_reuse_intensity", T=2048.0) / q(L8, "weight_reuse_intensity", T=2048.0), 2, {"abs": 1e-9}),
    Claim("s003-fp8-relative-position-unchanged",
          lambda: derive.weight_reuse_intensity().subs(b, nbytes("fp8")) / roofline.ridge(2 * P, W)
          - derive.weight_reuse_intensity().subs(b, nbytes("bf16")) / roofline.ridge(P, W),
          sp.S.Zero, {"exact": True}),
    Claim("s003-not-99.7-idle",
          lambda: 100 * float(primer.alu_idle_fraction(q(L8, "decode_intensity", batch=1, context=0),
                                                       sc(L8, "ridge_point"))), 99.7, {"abs": 0.05}),
    Claim("s003-batch-300-weight-only", lambda: weight_reuse_crossover(L8), 300, {"range": (290, 310)}),
    Claim("s003-hundreds-of-tokens", lambda: gemm_row(L8, 4096, 4096)["crossover"], "a few hundred",
          {"range": (100, 999)}),
    # ---- seed 000: trend and intro --------------------------------------------------------------------------
    Claim("s000-peak-near-1-pflops", lambda: sc(S0, "peak_flops") / PFLOPS, 1, {"range": (0.9, 1.0)}),
    Claim("s000-peak-1e15-ops", lambda: sc(S0, "peak_flops") / PFLOPS, 1, {"range": (0.9, 1.0)}),
    Claim("s000-bw-progression",
          lambda: compare_row(L8_A100, "h100-sxm")["compute_ratio"] > compare_row(L8_A100, "h100-sxm")["bandwidth_ratio"],
          True, {"exact": True}),
    # ---- seed 000: the SM (formulas.primer, inputs from the hardware spec's architecture block) -----------
    Claim("s000-block256-warps", lambda: primer.warps_per_block(256, arch()["warp_size"]), 8, {"abs": 0}),
    Claim("s000-block250-warps", lambda: primer.warps_per_block(250, arch()["warp_size"]), 8, {"abs": 0}),
    Claim("s000-block250-active-lanes", lambda: primer.last_warp_active_lanes(250, arch()["warp_size"]),
          26, {"abs": 0}),
    Claim("s000-block250-wasted-lanes", lambda: primer.wasted_lanes(250, arch()["warp_size"]), 6, {"abs": 0}),
    Claim("s000-block1024-32-warps",
          lambda: primer.warps_per_block(arch()["max_threads_per_block"], arch()["warp_size"]), 32, {"abs": 0}),
    Claim("s000-sm-max-32-warps", lambda: arch()["max_warps_per_sm"], 32, {"abs": 0},
          fix=64, fix_tol={"abs": 0}),  # 32 is the per-block limit; an SM keeps up to 64 warps resident
    Claim("s000-sm-resident-64-warps", lambda: arch()["max_warps_per_sm"], 64, {"abs": 0}),
    Claim("s000-sm-issues-one-warp-per-cycle", lambda: primer.warps_issued_per_cycle(1, arch()["schedulers_per_sm"]),
          1, {"abs": 0}, fix=4, fix_tol={"abs": 0}),  # one per scheduler, four schedulers per SM
    Claim("s000-threads-per-cycle",
          lambda: primer.threads_issued_per_cycle(arch()["sm_count"], arch()["schedulers_per_sm"], arch()["warp_size"]),
          "tens of thousands", {"range": (1e4, 1e5)}),
    Claim("s000-smem-hundreds-kb", lambda: arch()["shared_memory_per_sm"] / KB, "a few hundred KB",
          {"range": (100, 999)}),
    Claim("s000-l2-tens-mb", lambda: arch()["l2_cache"] / MB, "tens of MB", {"range": (10, 99)}),
    Claim("s000-hbm-tens-gb", lambda: hardware("h100-sxm").capacity / GB, "tens of GB", {"range": (10, 999)}),
    Claim("s000-sm-count", lambda: arch()["sm_count"], "tens to over a hundred", {"range": (10, 200)}),
    Claim("s000-regfile-vs-l2",
          lambda: primer.register_file_to_l2(arch()["sm_count"], arch()["register_file_per_sm"], arch()["l2_cache"]),
          "about equal", {"range": (0.5, 2.0)}),
    # ---- seed 000: intensity and the ridge ------------------------------------------------------------------
    Claim("s000-elementwise-intensity", lambda: primer.elementwise_intensity(report(*S0).spec.precision.weight_bytes),
          1, {"abs": 0.5}, fix=0.25, fix_tol={"abs": 1e-12}),  # 1 op per element = 1/(2b) per byte
    Claim("s000-matmul1024-reuse", lambda: primer.square_matmul_reuse(1024), 1024, {"abs": 0}),
    Claim("s000-three-orders",  # per byte: 1024^2 matmul 341.3 FLOP/B against elementwise 0.25 FLOP/B (bf16)
          lambda: primer.orders_of_magnitude(primer.square_matmul_intensity(1024, nbytes("bf16")),
                                             primer.elementwise_intensity(nbytes("bf16"))),
          3, {"range": (2.5, 3.5)}),
    Claim("s000-ridge-h100", lambda: sc(S0, "ridge_point"), 295, {"abs": 0.5}),
    Claim("s000-idle-two-thirds", lambda: primer.alu_idle_fraction(100, sc(S0, "ridge_point")), 2 / 3, {"abs": 0.02}),
    Claim("s000-need-300", lambda: sc(S0, "ridge_point"), 300, {"range": (290, 310)}),
    Claim("s000-ridge-h200", lambda: sc(S0_H200, "ridge_point"), 206, {"abs": 0.5}),
    # ---- seed 000: decoding a 70B model -----------------------------------------------------------------------
    Claim("s000-70b-flops-per-token", lambda: q(S0, "decode_flops", batch=1, context=0) / GFLOP, 140, {"abs": 0}),
    Claim("s000-70b-weight-bytes", lambda: sc(S0, "weight_bytes") / GB, 140, {"abs": 0}),
    Claim("s000-70b-intensity", lambda: q(S0, "decode_intensity", batch=1, context=0), 1, {"abs": 1e-9}),
    Claim("s000-70b-gap-300x", lambda: sc(S0, "ridge_point") / q(S0, "decode_intensity", batch=1, context=0),
          300, {"range": (290, 310)}),
    Claim("s000-70b-decode-time", lambda: sc(S0_BW, "weight_stream_time"), 0.042, {"abs": 0.0005}),
    Claim("s000-70b-tokps", lambda: base_row(S0_BW)["decode_tokens_per_s"], 24, {"abs": 0.5}),
    Claim("s000-24-not-240", lambda: 240 / base_row(S0_BW)["decode_tokens_per_s"], 10, {"range": (9.5, 10.5)}),
    Claim("s000-prefill-reuse-exceeds-300",  # 100 reuses give I_W = 100 FLOP/B in bf16, left of the ridge
          lambda: q(S0, "weight_reuse_intensity", T=100.0) > sc(S0, "ridge_point"), True, {"exact": True},
          fix=False, fix_tol={"exact": True}),
    Claim("s000-batch10-10x",
          lambda: q(S0, "weight_reuse_intensity", T=10.0) / q(S0, "weight_reuse_intensity", T=1.0), 10, {"abs": 1e-9}),
    Claim("s000-70b-hundreds-seqs", lambda: weight_reuse_crossover(S0), "a few hundred", {"range": (100, 999)}),
    Claim("s000-fusion-two-thirds", lambda: primer.fused_traffic_saving(3), 2 / 3, {"abs": 1e-9}),
    Claim("s000-int8-weight-bytes", lambda: sc(S0_INT8, "weight_bytes") / GB, 70, {"abs": 0}),
    Claim("s000-int8-tokps", lambda: base_row(S0_INT8)["decode_tokens_per_s"], 50, {"range": (45, 50)}),
    Claim("s000-coalescing-8x", lambda: primer.coalescing_amplification(primer.SECTOR_BYTES, nbytes("fp32")),
          8, {"abs": 0}),
    Claim("s000-faq-42ms", lambda: sc(S0_BW, "weight_stream_time") / MS, 42, {"abs": 0.5}),
    Claim("s000-faq-24tokps", lambda: base_row(S0_BW)["decode_tokens_per_s"], 24, {"abs": 0.5}),
    Claim("s000-bf16-2-bytes", lambda: report(*S0).spec.precision.weight_bytes, 2, {"abs": 0}),
    Claim("s000-int8-not-2x",
          lambda: base_row(S0_INT8)["decode_tokens_per_s"] / base_row(S0_BW)["decode_tokens_per_s"], 2, {"abs": 1e-9}),
)

# seed-claims.yaml summary: 120 checkable claims, 113 reproduce, these 7 are slips of the seeds.
SLIPS = {
    "s003-attn-flops-per-seq", "s003-ffn-param-share", "s003-ffn-traffic-share", "s000-sm-max-32-warps",
    "s000-sm-issues-one-warp-per-cycle", "s000-elementwise-intensity", "s000-prefill-reuse-exceeds-300",
}
CHECKABLE = 120


def satisfies(value, target, tol: dict) -> bool:
    if "exact" in tol:
        if isinstance(target, sp.Basic):
            return sp.simplify(sp.sympify(value) - target) == 0
        return bool(value) is target if isinstance(target, bool) else value == target
    v = float(value)
    if "abs" in tol:
        return abs(v - float(target)) <= tol["abs"]
    if "rel" in tol:
        return abs(v - float(target)) <= tol["rel"] * abs(float(target))
    lo, hi = tol["range"]
    return lo <= v <= hi


def test_table_covers_every_checkable_claim():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids)) == CHECKABLE
    assert {c.id for c in CLAIMS if c.fix is not NO_FIX} == SLIPS


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claim(claim: Claim):
    value = claim.get()
    if claim.fix is NO_FIX:
        assert satisfies(value, claim.stated, claim.tol), f"{claim.id}: project gives {value}, seed states {claim.stated}"
    else:
        assert satisfies(value, claim.fix, claim.fix_tol), f"{claim.id}: project gives {value}, the fix is {claim.fix}"
        assert satisfies(value, claim.stated, claim.tol) is claim.stated_holds, claim.id


# ----------------------------------------------------------------------------------------------- conventions

def test_rounding_conventions_of_the_quantities():
    """Crossovers round to the nearest integer (345, 425, 421), the capacity batch floors (65)."""
    qs = load()
    assert qs["gemm_crossover_tokens"].integer == "round"
    assert qs["crossover_batch"].integer == "round"
    assert qs["critical_context"].integer == "round"
    assert qs["capacity_batch"].integer == "floor"
    assert round(gemm_row(L8, 4096, 4096)["crossover"]) == 345  # ceil would give 346 (s003-crossover-4096)
    assert round(per_context(L8, "crossover_batch", 128)) == 425  # needs the unrounded ridge 295.34
    assert round(sc(L8, "critical_context")) == 421


def test_attention_term_is_flops_not_macs():
    """s003-attn-flops-per-seq: the project counts 4 H_q d_h S as FLOPs (the 124 ceiling needs that)."""
    assert sp.simplify(decode.attention_flops_per_layer_seq() - 4 * H_q * d_h * S) == 0
    assert primer.FLOPS_PER_MAC == 2


def test_seed000_overrides_reach_the_pipeline():
    """The seed-000 inputs (989 TFLOP/s, 3.3 TB/s) arrive through --set, not through edited specs."""
    assert sc(S0, "peak_flops") == 989e12 and sc(S0, "bandwidth") == 3.35e12
    assert sc(S0_BW, "bandwidth") == 3.3e12
    assert sc(L8, "peak_flops") == 989.4e12  # the catalog keeps the datasheet value


def test_primer_doctests():
    import doctest

    result = doctest.testmod(primer)
    assert result.attempted > 10 and result.failed == 0


@pytest.mark.parametrize("overrides", [("precision=fp8",), ("model=gpt-oss-20b", "precision.weights=checkpoint")])
def test_training_intensity_takes_the_recipes_bf16_weights(overrides):
    """Seed 003, section 2: a training step does 6 N T FLOPs and streams the weights three times, 2T/b FLOP/B, which
    is T for the 16-bit weights every recipe holds (TRAINING_RECIPES: "bf16 weights", 2 B a parameter; chapter 5's
    state table). A report that serves fp8 or mxfp4 weights trains the same bf16 ones: Llama 3.1 8B in fp8 read
    16,384 FLOP/B for an 8,192-token micro-batch, gpt-oss-20b at its checkpoint's formats (0.658 B a weight) 24,917.
    An MoE computes with N_a of its N weights a token (6 N_a T FLOPs over 3 N b bytes): T N_a / N for gpt-oss-20b,
    T for the dense Llama (N_a = N at seed 003's accounting)."""
    r = evaluated("llama8b-h100.yaml", overrides)
    t = r.spec.workloads.training_tokens
    v = r.envs[r.lead].values
    want = t * float(v["N_a"]) / float(v["N"])
    assert r.spec.precision.weight_bytes != 2
    assert (want == t) == (r.spec.model.moe is None)
    assert r.verdicts["training_intensity"] == pytest.approx(want, rel=1e-12)
    assert r.entry("training_weight_reuse_intensity", "seed", tokens=t).value == pytest.approx(want, rel=1e-12)
    assert r.blocks["train_iw"].inputs["b"] == 2
    row = next(row for row in r.decision if row["workload"] == "training")
    # over the ridge of the recipes' bf16 GEMMs (the bf16 peak over the bandwidth), not the served format's
    ridge = float(r.spec.hardware.dense["bf16"]) / float(np.ravel(v["W"])[0])
    assert r.verdicts["training_ridge"] == pytest.approx(ridge, rel=1e-12)
    assert row["other_roof"] == pytest.approx(want / ridge, rel=1e-12)


def test_chapter_threes_training_column_and_figure_take_the_bf16_weights():
    """The training column of chapter 3 and the ruler's training marker state the intensity chapter 5 does: 2T/b with
    the recipes' b = 2, and the 4,096 x 4,096 GEMM with its activations at that b, 2 n m T / (2 (n m + T n + T m)) =
    1,638 for T = 8,192 (seed 003, section 2: "about 1,638"), for Llama 3.1 8B in fp8 as in bf16."""
    from genreport.present import figures
    from genreport.present.figures.fig3_intensity_ruler import _ruler_points

    for overrides in ((), ("precision=fp8",)):
        r = evaluated("llama8b-h100.yaml", overrides)
        train = [p for p in _ruler_points(r) if p[0] == "training"]
        assert [(p[2], round(p[3], 1)) for p in train] == [(8192.0, 1638.4)]
        assert "training 8k at 8,192" in figures.captions(r)["fig3-intensity-ruler"]


def test_derive_states_the_training_intensity_the_report_does(capsys):
    """``derive training_weight_reuse_intensity --spec`` at the spec's micro-batch and the recipes' bf16 weights, as
    chapter 5 and results.json state it: Llama 3.1 8B served in fp8 trains bf16 weights, 2 x 8,192 / 2 = 8,192
    FLOP/B (derive said 16,384, and at the first prompt, 256 tokens, unless --tokens was given)."""
    from genreport.commands.cli import main

    spec = str(ROOT / "specs" / "llama8b-h100.yaml")
    assert main(["derive", "training_weight_reuse_intensity", "--spec", spec, "--set", "precision=fp8",
                 "--no-latex"]) == 0
    out = capsys.readouterr().out
    assert "T = 8192 token, b = 2 B" in out and out.rstrip().endswith("= 8192 FLOP/B")
