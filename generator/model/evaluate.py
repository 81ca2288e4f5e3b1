"""Evaluate stage: a loaded spec in, every number of the report out.  No disk, no drawing.

Two accountings are evaluated with the same compiled expressions:

* ``seed``: seed 003's simplified accounting -- all N (declared) parameters are
  read and do arithmetic every step (N_e = 0);
* ``exact``: per matrix -- N is counted from the shapes, the input embedding is a
  row lookup (N_e = V d when untied), norms and head included.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from genreport.formulas import architecture as arch
from genreport.formulas.compiled import Compiled, load
from genreport.formulas.recipes import RECIPE_SOURCE, TRAINING_RECIPES, recipe_bytes_per_param
from genreport.load.spec import Hardware, Model, ReportSpec

ACCOUNTINGS = ("seed", "exact")


@dataclass
class Env:
    """Scalar inputs of one accounting (glossary symbol -> SI value) plus how to vary them."""

    values: dict[str, float]
    model: Model
    accounting: str
    pc: arch.ParameterCount

    def at(self, batch=None, context=None, **extra) -> dict[str, object]:
        """Inputs at a workload point; arrays broadcast (batch along axis 0, context along axis 1)."""
        env = {k: np.float64(v) for k, v in self.values.items()}  # numpy semantics: x/0 is inf, not an exception
        if context is not None:
            s = np.asarray(context, dtype=float)
            env["S"] = s
            env["c"] = arch.kv_bytes_per_token_at(self.model, env["b_kv"], s)
            if arch.local_layers(self.model):  # windowed layers attend to min(S, w): 4 L H_q d_h S overcounts
                env["d_h"] = env["d_h"] * arch.attended_fraction(self.model, s)
        if batch is not None:
            bt = np.asarray(batch, dtype=float)
            env["B"] = bt
            if self.model.moe is not None:  # MoE: the weights read depend on how many experts the batch touches
                read = arch.parameters_read(self.model, bt, self.pc)
                env["N"] = read if self.accounting == "exact" else read * self.values["N"] / self.pc.total
        env.update({k: np.asarray(v, dtype=float) if isinstance(v, (list, tuple, np.ndarray)) else v
                    for k, v in extra.items()})
        return env


def make_env(hw: Hardware, model: Model, precision, accounting: str, activation_bytes: float = 0.0) -> Env:
    pc = arch.parameter_count(model)
    b = precision.weight_bytes
    b_kv = precision.kv_bytes
    if accounting == "seed":
        n = model.declared_parameters or float(pc.total)
        n_a = (model.declared_active or float(pc.active) * n / pc.total) if model.moe else n
        n_e = 0.0
    else:
        n = float(pc.total)
        n_e = 0.0 if model.tied_embeddings else float(pc.embedding)
        n_a = float(pc.active) - n_e
    values = {
        "P": hw.dense[precision.compute], "W": hw.bandwidth, "C": hw.capacity,
        "N": n, "N_a": n_a, "N_e": n_e, "L": float(model.layers), "d": float(model.hidden_size),
        "H_q": float(model.heads), "H_kv": float(model.kv_heads),
        "d_h": arch.attention_head_dim_for_flops(model), "d_ff": float(model.ffn_size),
        "V": float(model.vocab_size), "G": model.heads / model.kv_heads,
        "b": b, "b_kv": b_kv, "c": arch.kv_bytes_per_token(model, b_kv), "a": activation_bytes,
    }
    return Env(values, model, accounting, pc)


@dataclass
class Entry:
    id: str
    params: dict[str, object]
    value: float | None
    unit: str
    symbol: str
    latex: str
    accounting: str = "seed"

    def as_json(self) -> dict:
        return {"id": self.id, "params": self.params, "value": self.value, "unit": self.unit,
                "symbol": self.symbol, "latex": self.latex, "accounting": self.accounting}


@dataclass
class Results:
    spec: ReportSpec
    envs: dict[str, Env]
    q: dict[str, Compiled]
    entries: list[Entry] = field(default_factory=list)
    decode: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)  # accounting -> id -> (B, S) grid
    per_context: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    scalars: dict[str, dict[str, float | None]] = field(default_factory=dict)
    prefill: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    gemm: list[dict] = field(default_factory=list)
    training: list[dict] = field(default_factory=list)
    compare: list[dict] = field(default_factory=list)
    compare_models: list[dict] = field(default_factory=list)
    verdicts: dict[str, object] = field(default_factory=dict)
    params: object = None  # ParameterCount
    numeric_critical_context: set[str] = field(default_factory=set)  # accountings whose S* lies past a window

    @property
    def lead(self) -> str:
        return self.spec.accounting

    def s(self, qid: str, accounting: str | None = None):
        return self.scalars[accounting or self.lead][qid]


def _clean(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _root(x) -> float | None:
    """A crossover root: negative or infinite means the curve never reaches the ridge."""
    x = float(x)
    return x if math.isfinite(x) and x > 0 else None


def critical_context(q, env: Env) -> tuple[float | None, bool]:
    """S*, and whether it had to be found numerically because of sliding windows.

    The closed form S* = 2 N W / (P c - 4 H_q L W d_h) assumes every layer attends to all S positions. Windowed
    layers attend to at most w, which changes nothing up to S = w. When the closed form lands past w, S* is
    the root of I_inf(S) = P/W with the windows (c and d_h scaled by f(S), see ``Env.at``), found by bisection;
    None when the ceiling levels off above the ridge (every layer windowed: past w nothing grows with S).
    """
    closed = _root(q["critical_context"](env.at()))
    model = env.model
    if closed is None or not arch.local_layers(model) or closed <= float(model.attention.sliding_window):
        return closed, False
    ridge = env.values["P"] / env.values["W"]

    def excess(s: float) -> float:
        return float(q["decode_intensity_ceiling"](env.at(context=s))) - ridge

    lo, hi = float(model.attention.sliding_window), 1e15
    if excess(hi) >= 0:
        return None, True
    for _ in range(200):  # log-space bisection: excess(lo) > 0 >= excess(hi)
        mid = math.sqrt(lo * hi)
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if excess(mid) > 0 else (lo, mid)
    return hi, True


def evaluate(spec: ReportSpec) -> Results:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return _evaluate(spec)


def _evaluate(spec: ReportSpec) -> Results:
    q = load()
    envs = {acc: make_env(spec.hardware, spec.model, spec.precision, acc, spec.workloads.activation_bytes)
            for acc in ACCOUNTINGS}
    r = Results(spec, envs, q, params=envs["exact"].pc)
    w = spec.workloads
    batch = np.asarray(w.decode_batch, dtype=float)
    ctx = np.asarray(w.decode_context, dtype=float)
    for acc, env in envs.items():
        sc: dict[str, float | None] = {}
        base = env.at()
        for qid in ("peak_flops", "bandwidth", "capacity", "ridge_point", "parameters", "weight_bytes",
                    "kv_bytes_per_token", "kv_capacity_tokens", "attention_intensity", "training_flops_per_token"):
            sc[qid] = _clean(q[qid](base))
        # c from the architecture (MLA caches a latent, not 2 H_kv d_h): the formula 2 L H_kv d_h b_kv is MHA/GQA's
        sc["kv_bytes_per_token"] = _clean(env.values["c"])
        one = env.at(batch=1.0)  # what one token streams: for MoE only the experts it touches
        for qid in ("weight_stream_time", "weight_flops_time"):
            sc[qid] = _clean(q[qid](one))
        sc["critical_context"], numeric = critical_context(q, env)
        if numeric:
            r.numeric_critical_context.add(acc)
        if sc["kv_capacity_tokens"] is not None and sc["kv_capacity_tokens"] < 0:
            sc["kv_capacity_tokens"] = 0.0
        r.scalars[acc] = sc
        if len(ctx):
            pc_env = env.at(context=ctx)
            per = {qid: np.asarray(q[qid](pc_env), dtype=float) * np.ones_like(ctx)
                   for qid in ("decode_intensity_ceiling", "crossover_batch", "capacity_batch")}
            per["capacity_batch"] = np.maximum(per["capacity_batch"], 0)
            cap_env = env.at(context=ctx, batch=np.maximum(per["capacity_batch"], 1))
            per["intensity_at_capacity"] = np.where(
                per["capacity_batch"] >= 1, q["decode_intensity"](cap_env), np.nan)
            r.per_context[acc] = per
        if len(batch) and len(ctx):
            g = env.at(batch=batch[:, None], context=ctx[None, :])
            grid = {qid: np.broadcast_to(np.asarray(q[qid](g), dtype=float), (len(batch), len(ctx))).copy()
                    for qid in ("decode_flops", "decode_bytes", "decode_time_memory", "decode_time_compute",
                                "decode_tokens_per_s", "decode_intensity")}
            r.decode[acc] = grid
        if w.prefill_prompt:
            t = np.asarray(w.prefill_prompt, dtype=float)
            pe = env.at(T=t)
            r.prefill[acc] = {qid: np.asarray(q[qid](pe), dtype=float) * np.ones_like(t)
                              for qid in ("prefill_flops", "prefill_bytes", "prefill_intensity",
                                          "prefill_time_compute", "prefill_time_memory", "weight_reuse_intensity")}
    _gemms(r)
    _training(r)
    _compare(r)
    if r.spec.compare_models:
        _compare_models(r)
    _verdicts(r)
    r.entries = _entries(r)
    return r


def _gemms(r: Results) -> None:
    env = r.envs["seed"]
    tokens = sorted({1, *r.spec.workloads.prefill_prompt,
                     *( [r.spec.workloads.training_tokens] if r.spec.workloads.training_tokens else [])})
    curve_t = np.unique(np.round(np.logspace(0, 14, 57, base=2))).astype(float)
    for name, n, m in r.spec.gemms:
        e = env.at(n=float(n), m=float(m))
        row = {
            "name": name, "n": n, "m": m,
            "saturation": _clean(r.q["gemm_saturation"](e)),
            "crossover": _root(r.q["gemm_crossover_tokens"](e)),
            "tokens": tokens,
            "intensity": [float(r.q["gemm_intensity"](env.at(n=float(n), m=float(m), T=float(t)))) for t in tokens],
            "weight_reuse": [float(r.q["weight_reuse_intensity"](env.at(T=float(t)))) for t in tokens],
            "curve_tokens": curve_t,
            "curve": np.asarray(r.q["gemm_intensity"](env.at(n=float(n), m=float(m), T=curve_t)), dtype=float),
        }
        r.gemm.append(row)


def _training(r: Results) -> None:
    w = r.spec.workloads
    if not w.recipes:
        return
    env = r.envs["seed"]
    for recipe in w.recipes:
        k = float(recipe_bytes_per_param(recipe))
        total = float(r.q["training_state_bytes"](env.at(k=k)))
        parts = [(label, v * env.values["N"]) for label, v in TRAINING_RECIPES[recipe]]
        r.training.append({"recipe": recipe, "bytes_per_param": k, "total": total, "parts": parts,
                           "fits": total <= env.values["C"], "source": RECIPE_SOURCE[recipe],
                           "cards_needed": math.ceil(total / env.values["C"])})


def _bound_weights_only(hw: Hardware, r: Results) -> tuple[float, float, float]:
    """Batch-1 step bound counting weights only (seed 003's A100 -> H100 comparison)."""
    env = make_env(hw, r.spec.model, r.spec.precision, r.lead)
    e = env.at(batch=1.0)
    t_mem = float(r.q["weight_stream_time"](e))
    t_comp = float(r.q["weight_flops_time"](e))
    return max(t_mem, t_comp), t_mem, t_comp


def _compare(r: Results) -> None:
    base_hw = r.spec.hardware
    base, _, _ = _bound_weights_only(base_hw, r)
    fmt = r.spec.precision.compute
    for hw in (base_hw, *r.spec.compare_hardware):
        bound, t_mem, t_comp = _bound_weights_only(hw, r)
        price = hw.price_per_hour
        tok_s = 1.0 / bound if bound > 0 else math.inf
        r.compare.append({
            "name": hw.name, "title": hw.title, "peak": hw.dense[fmt], "bandwidth": hw.bandwidth,
            "capacity": hw.capacity, "ridge": hw.dense[fmt] / hw.bandwidth,
            "compute_ratio": hw.dense[fmt] / base_hw.dense[fmt], "bandwidth_ratio": hw.bandwidth / base_hw.bandwidth,
            "decode_speedup": base / bound if bound > 0 else math.inf, "decode_tokens_per_s": tok_s, "t_mem": t_mem, "t_comp": t_comp,
            "fits": r.envs[r.lead].values["N"] * r.spec.precision.weight_bytes <= hw.capacity,
            "usd_per_hour": price,
            "tokens_per_usd": tok_s * 3600.0 / price if price else None,
            "is_base": hw is base_hw,
        })


def _compare_models(r: Results) -> None:
    """The spec's model and each comparison model on the spec's GPU: the headline numbers side by side."""
    hw, w = r.spec.hardware, r.spec.workloads
    s_last = float(w.decode_context[-1]) if w.decode_context else 1024.0
    for model in (r.spec.model, *r.spec.compare_models):
        if model is None:
            continue
        env = make_env(hw, model, r.spec.precision, r.lead)
        e, es, one = env.at(), env.at(context=s_last), env.at(batch=1.0)
        t_mem, t_comp = float(r.q["weight_stream_time"](one)), float(r.q["weight_flops_time"](one))
        r.compare_models.append({
            "name": model.name, "title": model.title, "parameters": env.values["N"],
            "active": env.values["N_a"], "weight_bytes": float(r.q["weight_bytes"](e)),
            "kv_bytes_per_token": float(np.asarray(es["c"])), "context": int(s_last),
            "decode_tokens_per_s": 1.0 / max(t_mem, t_comp) if max(t_mem, t_comp) > 0 else math.inf,
            "ceiling": float(r.q["decode_intensity_ceiling"](es)),
            "critical_context": critical_context(r.q, env)[0],
            "capacity_batch": max(0.0, float(r.q["capacity_batch"](es))),
            "fits": float(r.q["weight_bytes"](e)) <= hw.capacity, "is_base": model is r.spec.model,
        })


def _verdicts(r: Results) -> None:
    lead = r.lead
    sc = r.scalars[lead]
    ridge = sc["ridge_point"]
    v: dict[str, object] = {}
    weights = sc["weight_bytes"]
    v["weights_fit"] = weights <= sc["capacity"]
    if lead in r.decode:
        g = r.decode[lead]
        cap = r.per_context[lead]["capacity_batch"]
        batch = np.asarray(r.spec.workloads.decode_batch)
        binds = np.where(g["decode_time_memory"] >= g["decode_time_compute"], "bandwidth", "compute").astype(object)
        over = batch[:, None] > cap[None, :]
        binds[over] = "capacity"
        v["decode_binds"] = binds
    if lead in r.prefill:
        p = r.prefill[lead]
        v["prefill_binds"] = np.where(p["prefill_time_compute"] >= p["prefill_time_memory"], "compute", "bandwidth")
    if r.training:
        t = r.spec.workloads.training_tokens
        v["training_intensity"] = float(r.q["training_weight_reuse_intensity"](r.envs[lead].at(T=float(t))))
        v["training_binds"] = "compute" if v["training_intensity"] >= ridge else "bandwidth"
    r.verdicts = v


def _entries(r: Results) -> list[Entry]:
    out: list[Entry] = []
    w = r.spec.workloads

    mla = r.spec.model.attention.kind == "mla"

    def add(qid, params, value, acc, suffix=""):
        c = r.q[qid]
        variant = _variant(r, acc)
        tex = c.latex.get(variant) and _latex(c, variant)
        if qid == "kv_bytes_per_token" and mla:  # MLA caches a latent and a RoPE key per layer, not 2 H_kv d_h
            tex = r"c = L \, (r + \rho) \, b_{kv}"
        out.append(Entry(qid + suffix, params, None if value is None else _clean(value), c.unit, c.symbol, tex, acc))

    for acc in ACCOUNTINGS:
        suffix = "" if acc == "seed" else "_exact"
        sc = r.scalars[acc]
        for qid, value in sc.items():
            if acc == "exact" and qid in ("peak_flops", "bandwidth", "capacity", "ridge_point"):
                continue
            add(qid, {}, value, acc, suffix)
        for qid, arr in r.per_context.get(acc, {}).items():
            for j, s in enumerate(w.decode_context):
                value = arr[j]
                if qid == "crossover_batch":
                    value = _root(value)
                add(qid, {"context": s}, value, acc, suffix)
        for qid, grid in r.decode.get(acc, {}).items():
            for i, b in enumerate(w.decode_batch):
                for j, s in enumerate(w.decode_context):
                    add(qid, {"batch": b, "context": s}, grid[i, j], acc, suffix)
        for qid, arr in r.prefill.get(acc, {}).items():
            for i, t in enumerate(w.prefill_prompt):
                add(qid, {"tokens": t}, arr[i], acc, suffix)
    for g in r.gemm:
        for t, val in zip(g["tokens"], g["intensity"], strict=True):
            add("gemm_intensity", {"n": g["n"], "m": g["m"], "tokens": t}, val, "seed")
        add("gemm_saturation", {"n": g["n"], "m": g["m"]}, g["saturation"], "seed")
        add("gemm_crossover_tokens", {"n": g["n"], "m": g["m"]}, g["crossover"], "seed")
    for t in sorted({1, *w.prefill_prompt, *([w.training_tokens] if w.training_tokens else [])}):
        if not any(e.id == "weight_reuse_intensity" and e.params == {"tokens": t} for e in out):
            add("weight_reuse_intensity", {"tokens": t}, r.q["weight_reuse_intensity"](r.envs["seed"].at(T=float(t))),
                "seed")
    if w.training_tokens:
        t = float(w.training_tokens)
        add("training_step_time_compute", {"tokens": w.training_tokens},
            r.q["training_step_time_compute"](r.envs["seed"].at(T=t)), "seed")
        add("training_weight_reuse_intensity", {"tokens": w.training_tokens},
            r.q["training_weight_reuse_intensity"](r.envs["seed"].at(T=t)), "seed")
    for tr in r.training:
        add("training_state_bytes", {"recipe": tr["recipe"]}, tr["total"], "seed")
    return out


def _variant(r: Results, acc: str) -> str:
    dense = r.spec.model.moe is None
    plus_a = "+a" if r.spec.workloads.activation_bytes else ""
    if acc == "seed":
        return ("seed" if dense else "full") + plus_a
    return "exact" + plus_a


def _latex(c: Compiled, variant: str) -> str:
    from genreport.formulas.compiled import render_latex

    return f"{c.symbol} = {render_latex(c.latex.get(variant) or c.latex['full'], c.args)}"
