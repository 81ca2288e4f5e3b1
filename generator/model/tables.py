"""The report's tables of the evaluation stage: GEMM intensities, training state, other GPUs, other models."""

from __future__ import annotations

import math

import numpy as np
from genreport.formulas import portable
from genreport.formulas.recipes import RECIPE_SOURCE, TRAINING_RECIPES, recipe_bytes_per_param
from genreport.model.stages import usable_at
from genreport.model.stated import critical_context
from genreport.model.values import physical, sorted_unique


def _clean(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def per_load(env, t, **extra) -> dict:
    """Inputs where one load of the weights serves ``t`` tokens: at T = 1 the decode step of batch 1, which streams
    what one token reads (formula (1): with per-tensor precisions the active weights' bytes, mostly bf16 attention
    beside mxfp4 experts for gpt-oss); a pass over T > 1 tokens reads every weight but the input embedding."""
    if float(t) == 1.0:
        return env.at(batch=1.0, T=1.0, **extra)
    return env.at(T=float(t), **extra)


def gemm_class(spec, name: str) -> str | None:
    """The tensor class of one of the default matrices where the weights' formats differ by class (the attention
    projection's, the FFN matrix's: the routed experts' where every FFN of the model is one expert wide), None for one
    format or a matrix the spec names."""
    p, m = spec.precision, spec.model
    if p.uniform or m is None:
        return None
    if name == "attention projection (d x d)":
        return "attention"
    if name == "FFN matrix (d x d_ff)":
        return "experts" if m.moe is not None and m.ffn_size == m.moe.expert_ffn_size else "default"
    return None


# what a class's matrix is called in a sentence
CLASS_MATRIX = {"attention": "attention projection", "experts": "expert's matrix", "default": "FFN matrix"}


def gemm_class_bytes(spec, name: str) -> dict:
    """``{"b": ...}`` for one of the default matrices where the weights' formats differ by tensor class: the
    attention projection at the attention class's bytes, the FFN matrix at the routed experts' where it is an
    expert's (every FFN of the model one expert wide: gpt-oss, Qwen3 MoE, Mixtral), else at the default class's;
    {} (the mean b) for one format, or a matrix the spec names (its class unknown).  gpt-oss-20b at its checkpoint's
    formats once took its bf16 2,880 x 2,880 attention projection at the mean 0.658 B: 661 FLOP/B at 256 tokens
    where the matrix reads 217."""
    cls = gemm_class(spec, name)
    return {} if cls is None else {"b": float(spec.precision.class_bytes(cls))}


def gemms(spec, env, q) -> tuple[dict, ...]:
    w = spec.workloads
    tokens = sorted({1, *w.prefill_prompt, *([w.training_tokens] if w.training_tokens else [])})
    curve_t = sorted_unique(np.round(portable.logspace(0, 14, 57, base=2)))
    rows = []
    for name, n, m in spec.gemms:
        cls = gemm_class_bytes(spec, name)
        e = env.at(n=float(n), m=float(m), **cls)
        # a matrix of an earlier one's shape is told apart by its bytes: gpt-oss's 2,880 x 2,880 FFN (mxfp4) showed
        # its attention projection's numbers (bf16), both keyed (n, m) (a review)
        twin = any((r["n"], r["m"]) == (n, m) and r["b"] != float(e["b"]) for r in rows)
        klass = gemm_class(spec, name)
        rows.append({
            "name": name, "n": n, "m": m,
            # per-class formats: the matrix's own format and what it is, for the words beside its numbers
            "format": spec.precision.format_of(klass) if klass else None,
            "matrix": CLASS_MATRIX[klass] if klass else None,
            "key": {"n": n, "m": m, **({"b": float(e["b"])} if twin else {})},  # the params its entries are stated at
            "saturation": _clean(q["gemm_saturation"](e)),
            "crossover": physical("gemm_crossover_tokens", q["gemm_crossover_tokens"](e))[0],
            # the tokens 2T/b alone needs to reach the ridge, T = R b / 2 (the ridge itself only at b = 2): what the
            # crossover with activations is set beside
            "weight_crossover": float(e["P"] / e["W"] * e["b"] / 2), "b": float(e["b"]),
            "tokens": tokens,
            "intensity": [float(q["gemm_intensity"](per_load(env, t, n=float(n), m=float(m), **cls))) for t in tokens],
            # 2T/b over all the weights (figure 4's top row, chapter 3's), and at this matrix's own bytes
            "weight_reuse": [float(q["weight_reuse_intensity"](per_load(env, t))) for t in tokens],
            "weight_reuse_own": [float(q["weight_reuse_intensity"](per_load(env, t, **cls))) for t in tokens],
            "curve_tokens": curve_t,
            "curve": np.asarray(q["gemm_intensity"](env.at(n=float(n), m=float(m), T=curve_t, **cls)), dtype=float),
        })
    return tuple(rows)


def training(spec, env, q) -> tuple[dict, ...]:
    rows = []
    for recipe in spec.workloads.recipes:
        k = float(recipe_bytes_per_param(recipe))
        total = float(q["training_state_bytes"](env.at(k=k)))
        parts = [(label, v * env.values["N"]) for label, v in TRAINING_RECIPES[recipe]]
        rows.append({"recipe": recipe, "bytes_per_param": k, "total": total, "parts": parts,
                     "fits": total <= env.values["C"], "source": RECIPE_SOURCE[recipe],
                     "cards_needed": math.ceil(total / env.values["C"])})
    return tuple(rows)


def _bound_weights_only(hw, spec, q, make_env) -> tuple[float, float, float]:
    """Batch-1 step bound counting weights only (seed 003's A100 -> H100 comparison)."""
    env = make_env(hw, spec.model, spec.precision, spec.accounting)
    e = env.at(batch=1.0)
    t_mem = float(q["weight_stream_time"](e))
    t_comp = float(q["weight_flops_time"](e))
    return max(t_mem, t_comp), t_mem, t_comp


def compare(spec, q, make_env) -> tuple[dict, ...]:
    base_hw = spec.hardware
    base, _, _ = _bound_weights_only(base_hw, spec, q, make_env)
    fmt = spec.precision.compute
    n = make_env(base_hw, spec.model, spec.precision, spec.accounting).values["N"]
    rows = []
    for hw in (base_hw, *spec.compare_hardware):
        bound, t_mem, t_comp = _bound_weights_only(hw, spec, q, make_env)
        price = hw.price_per_hour
        tok_s = 1.0 / bound if bound > 0 else math.inf
        fits = n * spec.precision.weight_bytes <= usable_at(hw, spec.model, 1)  # the whole model on one card
        rows.append({
            "name": hw.name, "title": hw.title, "peak": hw.dense[fmt], "bandwidth": hw.bandwidth,
            "capacity": hw.capacity, "ridge": hw.dense[fmt] / hw.bandwidth,
            "compute_ratio": hw.dense[fmt] / base_hw.dense[fmt], "bandwidth_ratio": hw.bandwidth / base_hw.bandwidth,
            "decode_speedup": base / bound if bound > 0 else math.inf, "decode_tokens_per_s": tok_s,
            "t_mem": t_mem, "t_comp": t_comp,
            "fits": fits,
            "usd_per_hour": price,
            # a card that cannot hold the model sells no tokens (the bound beside it is what it would do, were it to)
            "tokens_per_usd": tok_s * 3600.0 / price if price and fits else None,
            "is_base": hw is base_hw,
        })
    return tuple(rows)


def compare_models(spec, q, make_env) -> tuple[dict, ...]:
    """The spec's model and each comparison model on the spec's GPU: the headline numbers side by side."""

    if not spec.compare_models:
        return ()
    hw, w = spec.hardware, spec.workloads
    s_last = float(w.decode_context[-1]) if w.decode_context else 1024.0
    rows = []
    for model in (spec.model, *spec.compare_models):
        if model is None:
            continue
        env = make_env(hw, model, spec.precision, spec.accounting)
        # each model whole on one card, with that card's own workspace for it (evaluate._whole_on_one_card), not the
        # layout GPU's: Llama 3.1 70B fp8 on H200 beside a 405B on 8 read 12 sequences at 32k where its own report
        # reads 11 (QA)
        env.values["C"] = usable_at(hw, model, 1)
        e, es, one = env.at(), env.at(context=s_last), env.at(batch=1.0)
        t_mem, t_comp = float(q["weight_stream_time"](one)), float(q["weight_flops_time"](one))
        rows.append({
            "name": model.name, "title": model.title, "parameters": env.values["N"],
            "active": env.values["N_a"], "weight_bytes": float(q["weight_bytes"](e)),
            "kv_bytes_per_token": float(np.asarray(es["c"])), "context": int(s_last),
            "decode_tokens_per_s": 1.0 / max(t_mem, t_comp) if max(t_mem, t_comp) > 0 else math.inf,
            "ceiling": float(q["decode_intensity_ceiling"](env.at(context=s_last, reads=True))),
            "critical_context": critical_context(q, env)[0],
            "capacity_batch": max(0.0, float(q["capacity_batch"](es))),
            "fits": float(q["weight_bytes"](e)) <= env.values["C"], "is_base": model is spec.model,
        })
    return tuple(rows)


def memory_hierarchy(spec) -> tuple[dict, ...]:
    """Seed 000's four memory levels, with this GPU's sizes where its spec gives them (bytes; None where unknown)."""
    a = spec.hardware.architecture
    sms = a.get("sm_count")
    regs = a.get("register_file_per_sm")
    smem = a.get("shared_memory_per_sm")
    return (
        {"level": "registers", "scope": "per thread (a register file per SM)", "managed": "the compiler",
         "size": regs, "total": regs * sms if regs and sms else None, "bandwidth": None},
        {"level": "shared memory / L1", "scope": "per SM, on chip", "managed": "the program, explicitly",
         "size": smem, "total": smem * sms if smem and sms else None, "bandwidth": None},
        {"level": "L2 cache", "scope": "all SMs", "managed": "the hardware (access patterns steer it)",
         "size": a.get("l2_cache"), "total": a.get("l2_cache"), "bandwidth": None},
        {"level": "HBM (global memory)", "scope": "off chip: weights, KV cache, activations",
         "managed": "the program (allocations)", "size": spec.hardware.capacity, "total": spec.hardware.capacity,
         "bandwidth": spec.hardware.bandwidth},
    )


def diagnosis_states(hw=None) -> tuple[dict, ...]:
    """Seed 000's three bottleneck states: what a measurement shows, what it means, what helps (on ``hw``: its noun,
    its vendor's graphs; measured.remedies)."""
    from genreport.model.measured import NEAR_PEAK, STATES, remedies

    shows = {"memory-bound": ("near peak", "far below"), "compute-bound": ("far below", "near peak"),
             "overhead-bound": ("far below", "far below")}
    return tuple({"state": STATES[k]["label"], "seed_term": STATES[k]["seed_term"], "bandwidth": shows[k][0],
                  "compute": shows[k][1], "remedies": remedies(k, hw), "near_peak": NEAR_PEAK}
                 for k in shows)
