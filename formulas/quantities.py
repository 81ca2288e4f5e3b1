"""Every quantity a report states: its id, what it depends on, its unit and its expression.

The ids and parameter names are the public interface of ``results.json``
(documented in ``docs/results.md``).  Expressions are built from the formula
modules and the derived closed forms; nothing here evaluates numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import sympy as sp

from . import SEED_000, SEED_003, decode, derive, gemm, measured, memory, parallel, roofline, techniques
from .glossary import (
    PARAM_SYMBOL,  # noqa: F401 - re-exported
    latex,
    sym,
)


@dataclass(frozen=True)
class Step:
    """One line of a derivation shown in the report: a label and an equation."""

    label: str
    lhs: str
    expr: sp.Expr


@dataclass(frozen=True)
class QuantityDef:
    id: str
    title: str
    unit: str
    symbol: str  # LaTeX of the left-hand side
    params: tuple[str, ...]
    build: Callable[[], sp.Expr]
    source: str
    steps: Callable[[], tuple[Step, ...]] | None = None
    integer: str = ""  # "round" or "floor": the seed's rounding convention for this quantity
    notes: str = ""
    extras: dict = field(default_factory=dict)
    display: Callable[[], sp.Expr] | None = None  # the form a textbook prints (ridge R, attention intensity I_KV)

    def expr(self) -> sp.Expr:
        return _expr_cache(self.id)


# Above this many operations in its numerator an expression is printed as it was built, not factored over one
# denominator: the layout's serial prefill and communication estimates (424-935 operations, 34-51 symbols), where
# SymPy's multivariate factoring took 8 of a regeneration's 23 CPU-seconds and printed two of the four longer than
# the expression as built (8,526 against 4,781 LaTeX characters).
TIDY_MAX_OPS = 300


def tidy(expr):
    """Put a rational expression over one denominator, signs so that the numerator reads positive.

    The sign convention is judged with the optional terms (a, N_e) at zero, so the seed's
    S* = 2 W N / (P c - 4 W L d) prints as the seed writes it.  A numerator of more than TIDY_MAX_OPS operations
    keeps the expression as built.
    """
    num, den = sp.fraction(sp.together(expr))
    if den == 1 or sp.count_ops(num) > TIDY_MAX_OPS:
        return expr
    zero = {sym("a"): 0, sym("N_e"): 0}
    if sp.expand(num.subs(zero)).could_extract_minus_sign():
        num, den = -num, -den
    return sp.factor(num) / sp.expand(den)


B, S, T, n, m, k = (sym(x) for x in ("B", "S", "T", "n", "m", "k"))
P, W, R = sym("P"), sym("W"), sym("R")
I_KV, c_, N_a, N_, N_e, a_ = (sym(x) for x in ("I_KV", "c", "N_a", "N", "N_e", "a"))


def _critical_display():
    """S* = (2 N_a - a R) / (c (R - I_KV)): it exists only while the ridge is above the attention intensity."""
    return (2 * N_a - a_ * R) / (c_ * (R - I_KV))


def _crossover_display():
    """B*(S) = (N - N_e) b R / (2 N_a - a R - S c (R - I_KV)): it grows without bound as S nears S*."""
    return (N_ - N_e) * sym("b") * R / (2 * N_a - a_ * R - S * c_ * (R - I_KV))


def _ceiling_display():
    """I_inf(S) = I_KV + 2 N_a / (S c): the attention intensity plus the weights' share, which fades with S."""
    return I_KV + 2 * N_a / (S * c_)


def _gemm_crossover_display():
    """T*(n, m) = b R m n / (2 m n - b R (m + n))."""
    return sym("b") * R * n * m / (2 * m * n - sym("b") * R * (m + n))


def _ceiling_steps():
    return (
        Step("decode intensity", "I(B, S)", decode.decode_intensity()),
        Step("let the batch grow", r"\lim_{B \to \infty} I(B, S)", derive.decode_intensity_ceiling()),
    )


def _critical_steps():
    return (
        Step("ceiling", r"I_{\infty}(S)", derive.decode_intensity_ceiling()),
        Step("set it equal to the ridge P/W and solve for S", "S^{*}", tidy(derive.critical_context())),
    )


def _crossover_steps():
    return (
        Step("decode intensity", "I(B, S)", decode.decode_intensity()),
        Step("set it equal to the ridge P/W and solve for B", "B^{*}(S)", tidy(derive.crossover_batch())),
    )


def _gemm_sat_steps():
    return (
        Step("full GEMM intensity", "I(T)", gemm.gemm_intensity()),
        Step("let the tokens grow", r"\lim_{T \to \infty} I(T)", derive.gemm_saturation()),
    )


def _gemm_cross_steps():
    return (
        Step("full GEMM intensity", "I(T)", gemm.gemm_intensity()),
        Step("set it equal to the ridge P/W and solve for T", "T^{*}", tidy(derive.gemm_crossover_tokens())),
    )


def _attention_intensity():
    # attention FLOPs per cached token over its KV bytes; for MHA/GQA it cancels to 2 H_q / (H_kv b_kv)
    L, H_q, d_h, c = sym("L"), sym("H_q"), sym("d_h"), sym("c")
    return 4 * L * H_q * d_h / c


def _attention_steps():
    return (
        Step("attention FLOPs per cached token over its KV bytes", r"I_{\mathrm{KV}}", _attention_intensity()),
        Step("with c = 2 L H_kv d_h b_kv (K and V per layer)", r"I_{\mathrm{KV}}",
             _attention_intensity().subs(sym("c"), memory.kv_bytes_per_token())),
    )


def _decode_time_memory():
    return roofline.time_memory(decode.decode_bytes())


def _decode_time_compute():
    return roofline.time_compute(decode.decode_flops())


def _decode_tokens_per_s():
    return B / roofline.time_bound(decode.decode_flops(), decode.decode_bytes())


def _decode_tokens_per_s_derated():
    return B / measured.derated_time(decode.decode_flops(), decode.decode_bytes())


def _prefill_flops():
    """Prefill FLOPs [FLOP]: 2 N_p T + 2 V d + 2 L H_q d_h T^2.

    The transformer blocks (N_p parameters) act on every prompt token; the output head (V d) only on the
    last one, since an engine computes the logits of the next token, not of every prompt position (vLLM and
    SGLang prune the hidden states to the last token before the head); the input embedding is a row lookup.
    Causal attention adds sum over positions of 4 L H_q d_h t ~ 2 L H_q d_h T^2.
    """
    return _prefill_weight_flops() + _prefill_attention_flops()


def _prefill_weight_flops():
    """A prefill's FLOPs on the weights [FLOP]: 2 N_p T (the blocks, every prompt token) + 2 V d (the head, once)."""
    N_p, V, d = (sym(x) for x in ("N_p", "V", "d"))
    return 2 * N_p * T + 2 * V * d


def _prefill_attention_flops():
    """Causal attention of a prefill of T tokens [FLOP]: 2 L H_q d_h T^2 (the scores and values)."""
    L, H_q, d_h = (sym(x) for x in ("L", "H_q", "d_h"))
    return 2 * L * H_q * d_h * T**2


def _prefill_bytes():
    N, N_e, b, c = sym("N"), sym("N_e"), sym("b"), sym("c")
    return (N - N_e) * b + T * c


DEFS: tuple[QuantityDef, ...] = (
    QuantityDef("peak_flops", "dense peak compute", "FLOP/s", "P", (), lambda: P, "hardware spec"),
    QuantityDef("bandwidth", "memory bandwidth", "B/s", "W", (), lambda: W, "hardware spec"),
    QuantityDef("capacity", "memory capacity", "B", "C", (), lambda: sym("C"), "hardware spec"),
    QuantityDef("ridge_point", "ridge point", "FLOP/B", "R", (), roofline.ridge, f"{SEED_000}, ridge; {SEED_003}, section 1"),
    QuantityDef("parameters", "parameters N", "1", "N", (), lambda: sym("N"), "model spec"),
    QuantityDef("weight_bytes", "weight bytes", "B", "N b", (), memory.weight_bytes, f"{SEED_003}, section 4"),
    QuantityDef("weight_stream_time", "time to stream the weights once", "s", "t_{W}", (),
                lambda: memory.weight_bytes(sym("N") - sym("N_e")) / W,
                f"{SEED_003}, figure 1; {SEED_000}, decode (in the exact accounting the input embedding, N_e, is a row "
                "lookup, not streamed; the seed accounting's N_e = 0 streams all N, as seed 003 counts)"),
    QuantityDef("weight_flops_time", "time for 2 N_a FLOPs at peak (one token, no attention)", "s", "t_{F}", (),
                lambda: 2 * sym("N_a") / P, f"{SEED_003}, figure 1"),
    QuantityDef("kv_bytes_per_token", "KV bytes per token", "B", "c", (), memory.kv_bytes_per_token,
                f"{SEED_003}, section 3"),
    QuantityDef("kv_capacity_tokens", "KV tokens that fit beside the weights", "token", r"S_{\mathrm{max}}", (),
                memory.kv_capacity_tokens, f"{SEED_003}, section 3"),
    QuantityDef("attention_intensity", "attention (KV) intensity", "FLOP/B", r"I_{\mathrm{KV}}", (),
                _attention_intensity, f"{SEED_003}, section 3", _attention_steps),
    QuantityDef("critical_context", "critical context", "token", "S^{*}", (),
                lambda: tidy(derive.critical_context()), f"{SEED_003}, section 3", _critical_steps, integer="round",
                display=_critical_display),
    QuantityDef("decode_flops", "decode step FLOPs", "FLOP", "F(B, S)", ("batch", "context"),
                decode.decode_flops, f"{SEED_003}, section 3"),
    QuantityDef("decode_bytes", "decode step bytes", "B", "Q(B, S)", ("batch", "context"),
                decode.decode_bytes, f"{SEED_003}, section 3"),
    QuantityDef("decode_time_memory", "memory lower bound of a decode step", "s", r"t_{\mathrm{mem}}(B, S)",
                ("batch", "context"), _decode_time_memory, f"{SEED_003}, figure 1"),
    QuantityDef("decode_time_compute", "compute lower bound of a decode step", "s", r"t_{\mathrm{comp}}(B, S)",
                ("batch", "context"), _decode_time_compute, f"{SEED_003}, figure 1"),
    QuantityDef("decode_tokens_per_s", "decode token/s ceiling", "token/s", r"\text{tok/s}(B, S)",
                ("batch", "context"), _decode_tokens_per_s, f"{SEED_000}, decode; {SEED_003}, figure 1"),
    QuantityDef("decode_intensity", "decode intensity", "FLOP/B", "I(B, S)", ("batch", "context"),
                decode.decode_intensity, f"{SEED_003}, section 3"),
    QuantityDef("decode_intensity_ceiling", "decode intensity ceiling", "FLOP/B", r"I_{\infty}(S)", ("context",),
                derive.decode_intensity_ceiling, f"{SEED_003}, section 3", _ceiling_steps, display=_ceiling_display),
    QuantityDef("crossover_batch", "batch that crosses the ridge", "1", "B^{*}(S)", ("context",),
                lambda: tidy(derive.crossover_batch()), f"{SEED_003}, section 3, figure 4", _crossover_steps,
                integer="round", display=_crossover_display),
    QuantityDef("capacity_batch", "capacity-limited batch", "1", r"B_{\mathrm{cap}}(S)", ("context",),
                memory.capacity_batch, f"{SEED_003}, section 3, figure 4", integer="floor"),
    QuantityDef("intensity_at_capacity", "decode intensity at the capacity-limited batch", "FLOP/B",
                r"I(B_{\mathrm{cap}}, S)", ("context",), lambda: decode.decode_intensity().subs(B, memory.capacity_batch()),
                f"{SEED_003}, section 3, figure 4"),
    QuantityDef("weight_reuse_intensity", "weight-reuse intensity", "FLOP/B", "I_{W}(T)", ("tokens",),
                derive.weight_reuse_intensity, f"{SEED_003}, section 1"),
    QuantityDef("gemm_intensity", "full GEMM intensity", "FLOP/B", "I(n, m, T)", ("n", "m", "tokens"),
                gemm.gemm_intensity, f"{SEED_003}, section 1"),
    QuantityDef("gemm_saturation", "GEMM intensity saturation", "FLOP/B", r"I_{\infty}(n, m)", ("n", "m"),
                derive.gemm_saturation, f"{SEED_003}, section 1", _gemm_sat_steps),
    QuantityDef("gemm_crossover_tokens", "tokens per weight load to reach the ridge", "token", "T^{*}(n, m)",
                ("n", "m"), lambda: tidy(derive.gemm_crossover_tokens()), f"{SEED_003}, sections 1-2",
                _gemm_cross_steps, integer="round", display=_gemm_crossover_display),
    QuantityDef("prefill_flops", "prefill FLOPs", "FLOP", r"F_{\mathrm{pre}}(T)", ("tokens",), _prefill_flops,
                "transformer blocks 2 N_p T for every prompt token (seed 003 section 2), the output head 2 V d for the "
                "last token only, plus causal attention 2 L H_q d_h T^2"),
    QuantityDef("prefill_bytes", "prefill bytes", "B", r"Q_{\mathrm{pre}}(T)", ("tokens",), _prefill_bytes,
                "weights once plus the KV written (seed 003 section 2)"),
    QuantityDef("prefill_intensity", "prefill intensity", "FLOP/B", r"I_{\mathrm{pre}}(T)", ("tokens",),
                lambda: _prefill_flops() / _prefill_bytes(), f"{SEED_003}, section 2"),
    QuantityDef("prefill_time_compute", "compute lower bound of a prefill", "s", r"t_{\mathrm{comp}}(T)", ("tokens",),
                lambda: roofline.time_compute(_prefill_flops()), f"{SEED_003}, section 2"),
    QuantityDef("prefill_time_memory", "memory lower bound of a prefill", "s", r"t_{\mathrm{mem}}(T)", ("tokens",),
                lambda: roofline.time_memory(_prefill_bytes()), f"{SEED_003}, section 2"),
    QuantityDef("training_flops_per_token", "training FLOPs per token", "FLOP", "6 N", (),
                lambda: 6 * sym("N_a"), f"{SEED_003}, section 2"),
    QuantityDef("training_step_time_compute", "compute lower bound of a training micro-batch", "s",
                r"t_{\mathrm{train}}(T)", ("tokens",), lambda: 6 * sym("N_a") * T / P, f"{SEED_003}, section 2"),
    QuantityDef("training_weight_reuse_intensity", "training weight-reuse intensity", "FLOP/B", "I_{W,train}(T)",
                ("tokens",), lambda: 6 * sym("N_a") * T / (3 * sym("N") * sym("b")),
                f"{SEED_003}, section 2 (6 N_a FLOPs a token, 3 passes over all N weights: an MoE reads every "
                "expert, each token computes with k of them)"),
    QuantityDef("training_state_bytes", "training state before activations", "B", "k N", ("recipe",),
                memory.training_state_bytes, f"{SEED_003}, section 4"),
    QuantityDef("mfu", "model FLOPs utilisation of a measured step", "1", r"\mathrm{MFU}", (), measured.mfu,
                f"{measured.PALM}; {SEED_003}, section 5"),
    QuantityDef("mbu", "model bandwidth utilisation of a measured step", "1", r"\mathrm{MBU}", (), measured.mbu,
                f"{SEED_003}, section 5"),
    QuantityDef("derated_time", "derated step time (peaks scaled by the spec's efficiency)", "s", r"t_{\eta}", (),
                measured.derated_time, "roofline bound max(F/P, Q/W) with P and W scaled by eta_P and eta_W"),
    QuantityDef("decode_tokens_per_s_derated", "derated decode token/s", "token/s", r"\text{tok/s}_{\eta}(B, S)",
                ("batch", "context"), _decode_tokens_per_s_derated,
                f"{SEED_003}, figure 1, with P and W scaled by eta_P and eta_W"),
)


def _tp_crossover_steps():
    t_comm = parallel._dense_one_stage(parallel.decode_time_tp_ring()).subs(B, 1)
    return (
        Step("batch-1 all-reduces of one GPU as the library's ring runs them with LL, one stage", r"\tilde{t}_{x}(n_{\mathrm{TP}})",
             t_comm),
        Step("weight slice streamed by one GPU", r"t_{W}(n_{\mathrm{TP}})", sym("N") * sym("b") / (sym("n_TP") * W)),
        Step("set them equal and solve for n_TP (the positive root)", r"n_{\mathrm{TP}}^{*}", parallel.tp_weight_crossover()),
    )


def _comm_hbm_steps():
    return (
        Step("all-reduces of a decode step as the library's ring runs them with LL, one stage (LL128 and Simple "
             "likewise, with their own latencies and bandwidth)", r"\tilde{t}_{x}(B)",
             parallel._dense_one_stage(parallel.decode_time_tp_ring())),
        Step("HBM ledger of one GPU", r"t_{\mathrm{mem}}(B)", parallel._dense_one_stage(parallel.decode_bytes_per_gpu()) / W),
        Step("set each protocol's equal to it and solve for B; the all-reduces of the protocol NCCL's tuner runs reach "
             "the ledger for good at the largest root where the tuner runs that protocol, or change of protocol where "
             "they step over it", r"B_{x}^{*}(S)", parallel.comm_hbm_crossover_batch()),
    )


def _link_bound_steps():
    return (
        Step("weight FLOPs per byte one GPU sends", r"I_{x}", parallel.tp_link_intensity()),
        Step("set it equal to the link ridge P/W_TP and solve for n_TP", r"n_{\mathrm{TP}}^{x}", parallel.tp_link_bound_degree()),
    )


def _request_steps():
    k_t = sym("k_t")
    mem = parallel.decode_time_memory_gpu()
    return (
        Step("HBM ledger of round k (context T + k), affine in the context", r"t_{\mathrm{mem},g}(B, T + k_{t})",
             mem.subs(S, T + k_t)),
        Step("summed over the rounds k = 1 .. T_o - 1 (SymPy's closed form)",
             r"\sum_{k_{t}=1}^{T_{o}-1} t_{\mathrm{mem},g}", parallel.request_round_sum(mem)),
        Step("the same: T_o - 1 rounds at the mean context T + T_o/2", r"(T_{o}-1)\, t_{\mathrm{mem},g}(B, \bar{S})",
             parallel._over_request(mem)),
        Step("max of the ledgers' sums (at most the sum of the rounds' maxima)", r"t_{\mathrm{dec}}(B, T, T_{o})",
             parallel.request_decode_time_bound()),
    )


_PAR = "formulas/parallel.py"
PARALLEL_DEFS: tuple[QuantityDef, ...] = (
    QuantityDef("all_reduce_time", "all-reduce, at least (the fewest bytes, one step)", "s", r"t_{\mathrm{AR}}", (),
                lambda: parallel.all_reduce_time(s=sym("s_TP")), f"{parallel.NCCL_PERF}; {parallel.LOWER}",
                extras={"as_built": True}),
    QuantityDef("all_reduce_time_library", "ring all-reduce as the library runs it", "s", r"\tilde{t}_{\mathrm{AR}}", (),
                parallel.all_reduce_time_library, f"{parallel.NCCL_PERF}; {parallel.NCCL_TUNING}",
                extras={"as_built": True}),
    QuantityDef("all_reduce_time_oneshot", "one-shot all-reduce (the engine's kernel, or the library's all-pairs "
                "algorithm on a mesh)", "s", r"\tilde{t}_{\mathrm{AR},o}", (), parallel.all_reduce_time_oneshot,
                f"{parallel.ONE_SHOT}; {parallel.ALL_PAIRS}", extras={"as_built": True}),
    QuantityDef("all_reduce_time_switch", "all-reduce reduced in the switch as the library runs it (NVLS)", "s",
                r"\tilde{t}_{\mathrm{AR},s}", (), parallel.all_reduce_time_switch, parallel.NCCL_TUNING,
                extras={"as_built": True}),
    QuantityDef("all_reduce_time_tiers", "all-reduce over two tiers, at least", "s", r"t_{\mathrm{AR},2}", (),
                lambda: parallel.all_reduce_time_tiers(s=sym("s_TP")), f"{parallel.LOWER}; {parallel.TIERS}",
                extras={"as_built": True}),
    QuantityDef("all_reduce_time_hierarchical", "hierarchical all-reduce as the library runs it", "s",
                r"\tilde{t}_{\mathrm{AR},h}", (), parallel.all_reduce_time_hierarchical,
                f"{parallel.TIERS}; {parallel.NCCL_TUNING}", extras={"as_built": True}),
    QuantityDef("all_reduce_time_ring_tiers", "ring all-reduce across domains as the library runs it", "s",
                r"\tilde{t}_{\mathrm{AR},2}", (), parallel.all_reduce_time_ring_tiers,
                f"{parallel.TIERS}; {parallel.NCCL_TUNING}", extras={"as_built": True}),
    QuantityDef("all_to_all_time_tiers", "all-to-all over two tiers, at least", "s", r"t_{A2A,2}", (),
                parallel.all_to_all_time_tiers, f"{parallel.NCCL_PERF}; {parallel.TIERS}", extras={"as_built": True}),
    QuantityDef("all_to_all_time_library_tiers", "all-to-all across domains as the library runs it", "s",
                r"\tilde{t}_{A2A,2}", (), parallel.all_to_all_time_library_tiers,
                f"{parallel.TIERS}; {parallel.NCCL_TUNING}", extras={"as_built": True}),
    QuantityDef("all_to_all_time_experts", "the experts' all-to-all, each token once a GPU and once a domain, at least",
                "s", r"t_{A2A,x}", (), parallel.all_to_all_time_experts, f"{parallel.TIERS}; {parallel.DEEPEP}",
                extras={"as_built": True}),
    QuantityDef("all_to_all_time_deepep", "all-to-all as DeepEP's kernels run it", "s", r"\tilde{t}_{A2A,D}", (),
                parallel.all_to_all_time_deepep, parallel.DEEPEP, extras={"as_built": True}),
    QuantityDef("all_gather_time", "all-gather, at least", "s", r"t_{\mathrm{AG}}", (), parallel.all_gather_time,
                parallel.NCCL_PERF, extras={"as_built": True}),
    QuantityDef("reduce_scatter_time", "reduce-scatter, at least", "s", r"t_{\mathrm{RS}}", (), parallel.reduce_scatter_time,
                parallel.NCCL_PERF, extras={"as_built": True}),
    QuantityDef("all_to_all_time", "all-to-all, at least", "s", r"t_{A2A}", (), parallel.all_to_all_time, parallel.NCCL_PERF,
                extras={"as_built": True}),
    QuantityDef("all_to_all_time_library", "all-to-all as the library runs it", "s", r"\tilde{t}_{A2A}", (),
                parallel.all_to_all_time_library, f"{parallel.NCCL_PERF}; {parallel.NCCL_TUNING}",
                extras={"as_built": True}),
    QuantityDef("p2p_time", "point-to-point send, at least", "s", r"t_{P2P}", (), parallel.p2p_time, parallel.NCCL_PERF,
                extras={"as_built": True}),
    QuantityDef("gpus", "GPUs", "1", r"n_{\mathrm{GPU}}", (), lambda: sym("n_TP") * sym("n_St") * sym("n_DP"),
                "n_TP n_st n_DP (the stages, whatever their layers)"),
    QuantityDef("weight_bytes_per_gpu", "weight bytes on one GPU", "B", r"w_{g}", (), parallel.weight_bytes_per_gpu,
                f"{parallel.MEGATRON}; {_PAR}"),
    QuantityDef("kv_bytes_per_token_per_gpu", "KV bytes per token on one GPU", "B", r"c_{g}", (),
                parallel.kv_bytes_per_token_per_gpu, f"{parallel.MEGATRON}; {_PAR}"),
    QuantityDef("kv_capacity_tokens_replica", "KV tokens one replica holds beside its weights", "token",
                r"S_{\mathrm{max},r}", (), parallel.kv_capacity_tokens_replica, f"{SEED_003}, section 3, per GPU"),
    QuantityDef("capacity_batch_replica", "sequences of context S one replica holds", "1", r"B_{\mathrm{cap},r}(S)",
                ("context",), parallel.capacity_batch_replica, f"{SEED_003}, section 3, per GPU", integer="floor"),
    QuantityDef("memory_per_gpu", "memory one GPU needs at batch B and context S", "B", r"M_{g}(B, S)",
                ("batch", "context"), parallel.memory_per_gpu, f"{SEED_003}, section 3, per GPU"),
    QuantityDef("gpus_ideal", "GPUs needed if weights and KV split perfectly", "1", r"n_{\mathrm{ideal}}(B, S)",
                ("batch", "context"), parallel.gpus_ideal, f"{SEED_003}, section 3"),
    QuantityDef("interconnect_bytes_decode", "bytes one GPU sends in a decode round", "B", r"X_{g}(B, S)",
                ("batch", "context"), parallel.decode_interconnect_bytes,
                f"{parallel.MEGATRON}; {parallel.MEGATRON_PP}; {parallel.GSHARD}"),
    QuantityDef("decode_time_comm", "interconnect ledger of a decode round, one GPU", "s", r"t_{x}(B, S)",
                ("batch", "context"), parallel.decode_time_comm, f"{parallel.MEGATRON}; {parallel.NCCL_PERF}"),
    QuantityDef("decode_time_comm_estimate", "interconnect of a decode round as the library runs it, one GPU", "s",
                r"\tilde{t}_{x}(B, S)", ("batch", "context"), parallel.decode_time_comm_estimate,
                f"{parallel.MEGATRON}; {parallel.NCCL_TUNING}; an estimate, not a bound"),
    QuantityDef("decode_time_memory_busiest", "HBM ledger of a decode round, the busiest expert GPU", "s",
                r"\tilde{t}_{\mathrm{mem},g}(B, S)", ("batch", "context"), parallel.busiest_stage(parallel.decode_time_memory_busiest),
                f"{parallel.GSHARD}; expected maximum under uniform routing; weight-only GEMMs at e_w of the "
                f"bandwidth; the weights at the measured small-GEMM share e_g: {parallel.SMALL_GEMM}; an estimate, "
                "not a bound",
                extras={"as_built": True}),
    QuantityDef("decode_time_compute_gpu", "compute ledger of a decode round, one GPU", "s",
                r"t_{\mathrm{comp},g}(B, S)", ("batch", "context"), parallel.busiest_stage(parallel.decode_time_compute_gpu), f"{SEED_003}, figure 1"),
    QuantityDef("decode_time_compute_serial", "compute of a decode round as the engine runs it, one GPU", "s",
                r"\tilde{t}_{\mathrm{comp},g}(B, S)", ("batch", "context"), parallel.busiest_stage(parallel.decode_time_compute_serial),
                f"{SEED_003}, figure 1; matmuls at e_m of the peak as measured: {parallel.MAMF}; an estimate, "
                "not a bound", extras={"as_built": True}),
    QuantityDef("decode_time_memory_gpu", "HBM ledger of a decode round, one GPU", "s",
                r"t_{\mathrm{mem},g}(B, S)", ("batch", "context"), parallel.busiest_stage(parallel.decode_time_memory_gpu), f"{SEED_003}, figure 1"),
    QuantityDef("decode_time_bound", "strict lower bound of a decode round (ledgers overlapped)", "s",
                r"t_{\mathrm{bound}}(B, S)", ("batch", "context"), parallel.decode_time_bound,
                f"{SEED_003}, figure 1, with the interconnect ledger; {parallel.MEGATRON_PP}"),
    QuantityDef("decode_time_overhead", "kernels' fixed costs in a decode round, one GPU", "s",
                r"\tilde{t}_{o}(B, S)", ("batch", "context"), parallel.decode_time_overhead,
                f"{parallel.KERNELS}; an estimate, not a bound", extras={"as_built": True}),
    QuantityDef("prefill_time_overhead", "kernels' fixed costs in a prefill, one stage", "s",
                r"\tilde{t}_{o,\mathrm{pre}}(T)", ("tokens",), parallel.prefill_time_overhead,
                f"{parallel.KERNELS}; an estimate, not a bound", extras={"as_built": True}),
    QuantityDef("decode_time_serial", "serialized decode round (all-reduces on the critical path)", "s",
                r"t_{\mathrm{serial}}(B, S)", ("batch", "context"), parallel.decode_time_serial,
                f"{parallel.MEGATRON}; an estimate, not a bound"),
    QuantityDef("prefill_time_comm", "interconnect ledger of a prefill, one GPU", "s", r"t_{x,\mathrm{pre}}(T)", ("tokens",),
                parallel.prefill_time_comm, f"{parallel.MEGATRON}; {parallel.NCCL_PERF}"),
    QuantityDef("prefill_time_compute_gpu", "compute ledger of a prefill, one GPU", "s", r"t_{\mathrm{comp},g,\mathrm{pre}}(T)",
                ("tokens",), parallel.busiest_stage(parallel.prefill_time_compute_gpu, ("d_h",)), f"{SEED_003}, section 2, per GPU; the routed experts' "
                f"FLOPs on the GPUs that hold them ({parallel.GSHARD})", extras={"as_built": True}),
    QuantityDef("prefill_time_compute_serial", "compute of a prefill as the engine runs it, one GPU", "s",
                r"\tilde{t}_{\mathrm{comp},g,\mathrm{pre}}(T)", ("tokens",), parallel.busiest_stage(parallel.prefill_time_compute_serial, ("d_h",)),
                f"{SEED_003}, section 2, per GPU; matmuls at e_m of the peak as measured: {parallel.MAMF}; an "
                "estimate, not a bound", extras={"as_built": True}),
    QuantityDef("prefill_time_memory_gpu", "HBM ledger of a prefill, one GPU", "s", r"t_{\mathrm{mem},g,\mathrm{pre}}(T)",
                ("tokens",), parallel.prefill_time_memory_gpu, f"{SEED_003}, section 2, per GPU"),
    QuantityDef("prefill_time_memory_serial", "HBM of a prefill as the engine runs it, one GPU", "s",
                r"\tilde{t}_{\mathrm{mem},g,\mathrm{pre}}(T)", ("tokens",), parallel.prefill_time_memory_serial,
                f"{SEED_003}, section 2, per GPU; weight-only GEMMs at e_w of the bandwidth; the weights at the measured "
                f"small-GEMM share e_g: {parallel.SMALL_GEMM}; an estimate, not a bound", extras={"as_built": True}),
    QuantityDef("prefill_time_comm_estimate", "interconnect of a prefill as the library runs it, one GPU", "s",
                r"\tilde{t}_{x,\mathrm{pre}}(T)", ("tokens",), parallel.prefill_time_comm_estimate,
                f"{parallel.MEGATRON}; {parallel.NCCL_TUNING}; an estimate, not a bound"),
    QuantityDef("prefill_time_serial", "serialized prefill (all-reduces on the critical path)", "s",
                r"t_{\mathrm{serial},\mathrm{pre}}(T)", ("tokens",), parallel.prefill_time_serial,
                f"{parallel.MEGATRON}; an estimate, not a bound"),
    QuantityDef("interconnect_bytes_prefill", "bytes one GPU sends in a prefill", "B", r"X_{g,\mathrm{pre}}(T)", ("tokens",),
                parallel.prefill_interconnect_bytes, f"{parallel.MEGATRON}; {parallel.MEGATRON_PP}; {parallel.GSHARD}"),
    QuantityDef("prefill_time_bound", "strict lower bound of a prefill (ledgers overlapped)", "s",
                r"t_{\mathrm{bound},\mathrm{pre}}(T)", ("tokens",), parallel.prefill_time_bound, f"{SEED_003}, section 2, per GPU"),
    QuantityDef("prefill_pass_bound", "a prompt's pass through the pipeline's stages, at least", "s",
                r"t_{\mathrm{pass},\mathrm{pre}}(T)", ("tokens",), parallel.prefill_pass_bound,
                f"{parallel.MEGATRON_PP}; what a prompt occupies the stages for (DistServe, OSDI 2024, section 3.1)"),
    QuantityDef("request_decode_time_bound", "decode rounds of one request after its first token, at least", "s",
                r"t_{\mathrm{dec}}(B, T, T_{o})", ("batch", "tokens", "output"), parallel.request_decode_time_bound,
                f"{SEED_003}, figure 1, summed over the request's rounds in closed form; {_PAR}", _request_steps),
    QuantityDef("request_decode_time_serial", "decode rounds of one request after its first token, serialized", "s",
                r"\tilde{t}_{\mathrm{dec}}(B, T, T_{o})", ("batch", "tokens", "output"),
                parallel.request_decode_time_serial, f"{parallel.MEGATRON}; an estimate, not a bound"),
    QuantityDef("training_state_per_gpu_zero0", "training state per GPU, plain data parallel", "B", r"M_{0}",
                (), lambda: parallel.training_state_per_gpu(0), parallel.ZERO),
    QuantityDef("training_state_per_gpu_zero1", "training state per GPU, ZeRO-1 (optimizer sharded)", "B",
                r"M_{1}", (), lambda: parallel.training_state_per_gpu(1), parallel.ZERO),
    QuantityDef("training_state_per_gpu_zero2", "training state per GPU, ZeRO-2 (+ gradients)", "B", r"M_{2}",
                (), lambda: parallel.training_state_per_gpu(2), parallel.ZERO),
    QuantityDef("training_state_per_gpu_zero3", "training state per GPU, ZeRO-3 / FSDP (everything sharded)", "B",
                r"M_{3}", (), lambda: parallel.training_state_per_gpu(3), parallel.ZERO),
    QuantityDef("training_grad_comm_time", "gradient all-reduce of one step (ZeRO 0-2)", "s", r"t_{\mathrm{grad}}", (),
                parallel.training_grad_comm_time, f"{parallel.ZERO}; {parallel.NCCL_PERF}"),
    QuantityDef("training_zero3_comm_time", "weight gathers and gradient reduce-scatter of one step (ZeRO-3)", "s",
                r"t_{\mathrm{grad},3}", (), parallel.training_zero3_comm_time, f"{parallel.ZERO}; {parallel.NCCL_PERF}"),
    QuantityDef("training_backward_time", "backward pass of T tokens, one GPU", "s", r"t_{\mathrm{bwd}}(T)", ("tokens",),
                parallel.training_backward_time, f"{SEED_003}, section 2"),
    QuantityDef("training_overlap_tokens", "tokens per step whose backward pass hides the gradient all-reduce",
                "token", r"T_{\mathrm{ov}}", (), parallel.training_overlap_tokens, parallel.ZERO, integer="round"),
    QuantityDef("tp_weight_crossover", "TP degree where batch-1 all-reduces match the weight streaming", "1",
                r"n_{\mathrm{TP}}^{*}", (), parallel.tp_weight_crossover, f"{parallel.MEGATRON}; {_PAR}", _tp_crossover_steps),
    QuantityDef("comm_hbm_crossover_batch", "batch where the interconnect ledger reaches the HBM ledger", "1",
                r"B_{x}^{*}(S)", ("context",), parallel.comm_hbm_crossover_batch, f"{parallel.MEGATRON}; {_PAR}",
                _comm_hbm_steps, integer="round"),
    QuantityDef("link_ridge", "link ridge point: FLOPs per byte sent where compute and link time meet", "FLOP/B",
                r"R_{x}", (), parallel.link_ridge, f"{SEED_000}, ridge, for the link"),
    QuantityDef("tp_link_intensity", "weight FLOPs per byte one GPU sends under TP", "FLOP/B", r"I_{x}", (),
                parallel.tp_link_intensity, parallel.MEGATRON),
    QuantityDef("tp_link_bound_degree", "TP degree where prefill turns link-bound", "1", r"n_{\mathrm{TP}}^{x}", (),
                parallel.tp_link_bound_degree, f"{parallel.MEGATRON}; {_PAR}", _link_bound_steps),
)

# What serving engines do to a step (formulas/techniques.py): evaluated for the serving chapter, derivable with
# 'genreport derive'; not printed as JavaScript (the live page shows that chapter as built).
_T = techniques
TECHNIQUE_DEFS: tuple[QuantityDef, ...] = (
    QuantityDef("speculative_expected_tokens", "tokens one verify step yields, expected", "token",
                r"E(p_{a}, k_{d})", (), _T.expected_tokens, _T.LEVIATHAN),
    QuantityDef("speculative_speedup", "speculative decoding over plain decode, same batch", "1",
                r"\sigma(B, S)", ("batch", "context"), _T.speculative_speedup, _T.LEVIATHAN),
    QuantityDef("speculative_tokens_per_s", "tokens per second with speculative decoding", "token/s",
                r"r_{\mathrm{spec}}(B, S)", ("batch", "context"), _T.speculative_tokens_per_s, _T.LEVIATHAN),
    QuantityDef("verify_crossover_batch", "batch where the verify step turns compute-bound", "1",
                r"B_{v}^{*}(S)", ("context",), _T.verify_crossover_batch, _T.LEVIATHAN, integer="round"),
    QuantityDef("speculative_breakeven_batch", "batch where speculative decoding stops paying", "1",
                r"B_{\sigma=1}(S)", ("context",), _T.speculative_breakeven_batch, _T.LEVIATHAN, integer="round"),
    QuantityDef("speculative_speedup_layout", "speculative decoding over plain decode, from the rounds at the layout",
                "1", r"\sigma_{\mathrm{layout}}", (), _T.speculative_speedup_rounds, _T.LEVIATHAN,
                extras={"as_built": True}),
    QuantityDef("speculative_request_tokens", "tokens one verify round yields for a request, expected: at most the "
                "T_out - 1 it makes after its first", "token", r"E_{R}", (), _T.request_expected_tokens, _T.LEVIATHAN),
    QuantityDef("speculative_speedup_request", "speculative decoding over plain decode of a request's rounds, from the "
                "rounds at the layout", "1", r"\sigma_{\mathrm{request}}", (), _T.speculative_speedup_request,
                _T.LEVIATHAN, extras={"as_built": True}),
    QuantityDef("draft_time_bound", "strict lower bound of a draft model's k_d passes of one verify step", "s",
                r"t_{d,\mathrm{bound}}", (), _T.draft_time_bound, _T.DRAFT),
    QuantityDef("capacity_batch_draft", "sequences of context S one replica holds beside a draft model", "1",
                r"B_{\mathrm{cap},d}(S)", ("context",), _T.capacity_batch_draft, _T.DRAFT, integer="floor"),
    QuantityDef("verify_time_bound", "strict lower bound of a verify round at the layout", "s",
                r"t_{v,\mathrm{bound}}(B, S)", ("batch", "context"), _T.verify_time_layout, _T.LEVIATHAN),
    QuantityDef("verify_time_serial", "serialized estimate of a verify round at the layout", "s",
                r"t_{v,\mathrm{serial}}(B, S)", ("batch", "context"), _T.verify_time_layout_serial,
                f"{_T.LEVIATHAN}; an estimate, not a bound"),
    QuantityDef("chunked_step_time", "a decode step with one prompt chunk riding along, at least", "s",
                r"t_{\mathrm{mix}}(B, S)", ("batch", "context"), _T.mixed_time, _T.SARATHI),
    QuantityDef("chunked_step_intensity", "intensity of a decode step with one prompt chunk", "FLOP/B",
                r"I_{\mathrm{mix}}(B, S)", ("batch", "context"), _T.mixed_intensity, _T.SARATHI),
    QuantityDef("prompt_chunk", "prompt tokens a mixed step carries beside its decode tokens", "token",
                r"C_{p}", (), _T.prompt_chunk, _T.SARATHI),
    QuantityDef("chunked_steps", "mixed steps a batch's prompts ride along", "1", r"n_{c}", ("batch",),
                _T.chunked_steps, _T.SARATHI),
    QuantityDef("chunked_life_cost", "mean cost of a decode round over a batch's life with chunked prefill, in plain "
                "rounds", "1", r"\bar{\kappa}_{c}", (), _T.chunked_life_cost, _T.SARATHI),
    QuantityDef("chunked_ttft", "time to first token of a prompt prefilled in chunks beside the batch, at least", "s",
                r"t_{\mathrm{TTFT,chunk}}(B, S)", ("batch", "context"), _T.chunked_ttft, _T.SARATHI),
    QuantityDef("steady_step_time", "time per output token at arrival rate lambda, steady state, the prompts "
                "spread evenly over the steps (at least for a dense model)", "s",
                r"t_{s}(\lambda)", (), _T.steady_step_time, _T.LITTLE),
    QuantityDef("goodput_rate_tpot", "highest arrival rate whose TPOT meets the target", "1/s",
                r"\lambda_{\theta}", (), _T.goodput_rate_tpot, _T.LITTLE),
    QuantityDef("goodput_rate_compute", "highest arrival rate the compute roof allows", "1/s",
                r"\lambda_{P}", (), _T.goodput_rate_compute, _T.LITTLE),
    QuantityDef("goodput_rate_capacity", "highest arrival rate the KV caches allow, steady state: the running "
                "sequences at the mean context, a shared prefix held once", "1/s",
                r"\lambda_{C}", (), _T.goodput_rate_capacity, f"{_T.LITTLE}; {_T.PREFIX}"),
    QuantityDef("goodput_rate_engine", "highest arrival rate the engine's max_sequences allows, steady state: the "
                "running sequences at most M_s", "1/s", r"\lambda_{M}", (), _T.goodput_rate_engine,
                f"{_T.LITTLE}; vLLM's max_num_seqs (vllm/config), SGLang's max_running_requests"),
    QuantityDef("balanced_prefill_gpus", "the prefill pool's GPUs that balance the two pools, of n_S GPUs (a share "
                "at n_S = 1), the prefill instances pipelines of k_pp stages", "1",
                r"n_{P}^{*}", ("batch",), _T.balanced_prefill_gpus, _T.DISTSERVE),
    QuantityDef("prefill_pool_rate", "requests per second a prefill pool serves, its instances pipelines of k_pp "
                "stages, at most", "1/s", r"\lambda_{P,\mathrm{pool}}", (), _T.prefill_pool_rate, _T.DISTSERVE),
    QuantityDef("decode_pool_rate", "requests per second a decode pool retires", "1/s",
                r"\lambda_{D,\mathrm{pool}}(B)", ("batch",), _T.decode_pool_rate, _T.DISTSERVE),
    QuantityDef("aggregated_tpot", "time per output token of one pool that prefills between decode rounds", "s",
                r"t_{\mathrm{agg}}(B)", ("batch",), _T.aggregated_tpot, _T.DISTSERVE),
    QuantityDef("kv_transfer_time", "one request's KV cache sent from the prefill to the decode pool", "s",
                r"t_{\mathrm{kv}}", (), _T.kv_transfer_time, _T.DISTSERVE),
    QuantityDef("prefix_capacity_batch", "sequences of context S that fit when they share a prefix held once", "1",
                r"B_{\mathrm{cap},h}(S)", ("context",), _T.prefix_capacity_batch, _T.PREFIX, integer="floor"),
    QuantityDef("prefill_alone_time", "prefill of one prompt's uncached tokens alone on the GPU, at least", "s",
                r"t_{p}", (), _T.prefill_alone_time, _T.SARATHI),
    QuantityDef("steady_rate_memory", "arrival rate where the chunked steady state's step grows without end", "1/s",
                r"\lambda_{W}", (), _T.steady_rate_memory, _T.LITTLE),
    QuantityDef("chunk_budget_rate", "highest arrival rate whose prompt tokens fit the chunk budget", "1/s",
                r"\lambda_{s_{c}}", (), _T.chunk_budget_rate, f"{_T.SARATHI}; {_T.LITTLE}"),
    QuantityDef("unchunked_step_time", "time per output token at arrival rate lambda without chunked prefill, "
                "steady state, at least", "s", r"t_{u}(\lambda)", (), _T.unchunked_step_time, _T.LITTLE),
    QuantityDef("unchunked_stall_time", "a decode round that waits for a whole prefill, without chunked prefill",
                "s", r"t_{u,\mathrm{stall}}(\lambda)", (), _T.unchunked_stall_time, _T.SARATHI),
    QuantityDef("unchunked_rate_memory", "arrival rate where the time per output token without chunked prefill "
                "grows without end", "1/s", r"\lambda_{W,u}", (), _T.unchunked_rate_memory, _T.LITTLE),
    QuantityDef("unchunked_rate_compute", "highest arrival rate the compute roof allows without chunked prefill",
                "1/s", r"\lambda_{P,u}", (), _T.unchunked_rate_compute, _T.LITTLE),
    QuantityDef("goodput_rate_unchunked", "highest arrival rate whose TPOT meets the target without chunked "
                "prefill", "1/s", r"\lambda_{\theta,u}", (), _T.goodput_rate_unchunked, _T.LITTLE),
    QuantityDef("unchunked_round_time", "a decode round alone at arrival rate lambda without chunked prefill, "
                "the prefills apart, at least", "s", r"t_{r}(\lambda)", (), _T.unchunked_round_time, _T.LITTLE),
    QuantityDef("unchunked_ttft", "mean time to first token at arrival rate lambda without chunked prefill, "
                "prefills first, at least", "s", r"t_{\mathrm{TTFT},u}(\lambda)", (), _T.unchunked_ttft, _T.STALLS),
    QuantityDef("compute_batch", "most sequences a replica keeps at the TPOT target within its compute roof, their "
                "prompts' prefills counted", "1", r"B_{P,\theta}", (), _T.compute_batch, _T.LITTLE),
    QuantityDef("compute_batch_speculative", "most sequences a replica keeps speculating at the TPOT target within "
                "its compute roof, their prompts' prefills counted: each kept token n_v / E verified tokens and k_d / E "
                "draft passes", "1", r"B_{P,\theta,\mathrm{spec}}", (), _T.compute_batch_speculative,
                f"{_T.LITTLE}; {_T.LEVIATHAN}", extras={"as_built": True}),
    QuantityDef("chunk_step_share", "share of the steps that carry a prompt chunk, chunked prefill, steady state",
                "1", r"f_{c}(\lambda)", (), _T.chunk_step_share, _T.SARATHI),
    QuantityDef("stall_free_rate", "highest arrival rate whose P-q_p time between tokens meets the target without "
                "chunked prefill where no whole prefill fits a gap", "1/s", r"\lambda_{q,u}", (), _T.stall_free_rate,
                _T.STALLS),
    QuantityDef("queued_ttft_mean_spread", "mean time to first token of a prompt queued for its prefill when the "
                "prefill times spread (M/G/1), a prefill instance of k_pp pipeline stages", "s",
                r"t_{\mathrm{TTFT},G}(\lambda)", (), _T.queued_ttft_mean_spread, _T.SPREAD),
)

DEFS = DEFS + PARALLEL_DEFS + TECHNIQUE_DEFS

BY_ID: dict[str, QuantityDef] = {q.id: q for q in DEFS}


_EXPRS: dict[str, sp.Expr] = {}


def _expr_cache(qid: str) -> sp.Expr:
    if qid not in _EXPRS:
        _EXPRS[qid] = BY_ID[qid].build()
    return _EXPRS[qid]


def latex_of(qid: str, expr=None) -> str:
    q = BY_ID[qid]
    return f"{q.symbol} = {latex(q.expr() if expr is None else expr)}"
