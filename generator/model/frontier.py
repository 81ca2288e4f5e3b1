"""Throughput per GPU against tokens/s per user: every layout ``plan`` tries for the spec's model and GPU, at the
spec's precision, each as a curve over its batch per replica (1 ... what it holds, or what the engine runs at once: its
max_sequences), for the serving chapter's figure.

Each point is one request of the spec's ``serving`` shape at one layout and batch (:func:`genreport.model.serving.curve`,
the numbers the chapter's table gives for its own layout): x is 1 / TPOT (the request's slowest decode round, at its
last context), y the output tokens/s per GPU (the batch at the request's mean rate over its output, over the
replica's GPUs), $/M output tokens the GPU's hourly price over y.  The Pareto frontier is the set of points no other
point beats on both x and y, found for the strict bound and for the serial estimate.  Layouts whose prefill alone
misses the TTFT target are left out (TTFT does not depend on the batch here); the spec's own layout is always kept.
"""

from __future__ import annotations

import math

import numpy as np
from genreport.formulas import portable
from genreport.load.spec import Parallelism
from genreport.model.draft import speculative_inputs
from genreport.model.env import make_env
from genreport.model.plan import MAX_GPUS, plan_layouts
from genreport.model.serving import compute_batch, engine_limit
from genreport.model.serving import curves as serving_curves
from genreport.model.serving import probe as layout_probe

POINTS = 28  # batches per curve, spread evenly on a log scale from 1 to the capacity
MAX_BATCH = 65536  # the serving chapter's cap on a replica's batch


def _batches(cap: int, extra=()) -> np.ndarray:
    """1 ... ``cap`` on a log scale (integers, the capacity itself included) with ``extra`` batches added."""
    grid = np.unique(np.round(portable.geomspace(1, cap, POINTS)).astype(int)) if cap > 1 else np.array([1])
    return np.unique(np.concatenate([grid, [b for b in extra if 1 <= b <= cap]])).astype(float)


def pareto(xs, ys) -> list[int]:
    """Indices of the points no other point beats on both x and y (higher is better on both), by x descending."""
    order = sorted(range(len(xs)), key=lambda i: (-xs[i], -ys[i]))
    out, best = [], -math.inf
    for i in order:
        if ys[i] > best and math.isfinite(xs[i]) and math.isfinite(ys[i]):
            out.append(i)
            best = ys[i]
    return out


def frontier(spec, chapter_batches=(), max_gpus: int = MAX_GPUS) -> dict | None:
    """The figure's curves and frontiers for ``spec`` (None without a ``serving`` block or a decode to serve).
    ``chapter_batches``: the serving chapter's rows' batches, sampled on every layout's curve (a layout whose
    replica is the titled one's then ties it point for point, where only the titled curve held them)."""
    sv = spec.serving
    if sv is None:
        return None
    hw, model, prec, acc = spec.hardware, spec.model, spec.precision, spec.accounting
    own = spec.parallelism or Parallelism()
    if hw.link is None:
        max_gpus = 1
    env = make_env(hw, model, prec, acc)
    layouts = plan_layouts(model, max_gpus)
    if own not in layouts:
        layouts.append(own)
    price = hw.price_per_hour
    curves, missed_ttft, no_fit = [], 0, 0
    # serving.speculative at each layout, one per (ep, tp): a head's experts over the layout's ep GPUs, a replica's
    # share of their reads tp / ep where its expert group gathers replicas (Draft.ledgers)
    heads: dict = {}
    memo: dict = {}  # each layout's numbers no batch changes, counted once for its probe and its curves
    kept = []  # (layout, titled, capacity, batch limit, speculative inputs, probe) of each layout drawn
    for par in layouts:
        titled = par == own
        spec_in = None
        if sv.speculative is not None:
            if (par.ep, par.tp) not in heads:  # one draft's env for all: only its ep and tp move with the layout
                first = heads.setdefault("first", speculative_inputs(spec, par))
                cost = first[2].at_layout(par.ep, par.tp) if hasattr(first[2], "at_layout") else first[2]
                heads[(par.ep, par.tp)] = (first[0], first[1], cost, *first[3:])
            spec_in = heads[(par.ep, par.tp)]
        # what it holds, and its TTFT: the prompt's uncached part (serving.prompt_prefill), as the chapter's rows
        probe = layout_probe(model, hw, prec, par, sv.prompt, sv.output, acc, env, spec_in, memo, sv.prefix_hit)
        cap = int(min(probe["capacity_batch"], MAX_BATCH))
        if not titled and (not probe["weights_fit"] or cap < 1):
            no_fit += 1
            continue
        if not titled and sv.ttft is not None and not probe["ttft_bound"] <= sv.ttft:
            missed_ttft += 1
            continue
        if cap < 1:
            continue
        runs = int(engine_limit(hw, cap))  # the engine's max_sequences stops the curve where it binds
        kept.append((par, titled, cap, runs, spec_in, probe))
    # every layout's curve at once (serving.curves: each formula evaluated over all the layouts)
    plain = serving_curves(model, hw, prec, [(par, _batches(runs, chapter_batches), None)
                                             for par, titled, cap, runs, _, _ in kept], sv.prompt, sv.output, acc, env,
                           memo=memo, prefix_hit=sv.prefix_hit)
    spec_rows = _speculative_curves(spec, env, kept, chapter_batches, memo) if sv.speculative is not None else {}
    for (par, titled, cap, runs, spec_in, _probe), c in zip(kept, plain, strict=True):
        b_p = compute_batch(env, par, sv.prompt, sv.output, sv.tpot, sv.prefix_hit)
        row = {"label": par.label(), "gpus": par.gpus, "tp": par.tp, "pp": par.pp, "ep": par.ep, "dp": par.dp,
               "redundant_experts": par.redundant_experts,
               "titled": titled, "capacity_batch": cap, "batch_limit": runs,
               # the most sequences its compute keeps at the TPOT target with their prompts (None: no target)
               "compute_batch": int(min(b_p, 1 << 30)) if math.isfinite(b_p) else None,
               "ttft_bound": c["ttft_bound"], "ttft_serial": c["ttft_serial"],
               "batch": [int(b) for b in c["batch"]]}
        for est in ("bound", "serial"):
            row[est] = {"tokens_per_s_user": [float(1.0 / t) for t in c[f"tpot_{est}"]],
                        "tpot": [float(t) for t in c[f"tpot_{est}"]],
                        "tokens_per_s_gpu": [float(y) for y in c[f"tokens_per_s_gpu_{est}"]]}
        if spec_in is not None:
            # its speculative curve's points speculate at every batch: the compute keeps fewer sequences there, each
            # kept token n_v / E verified tokens and k_d / E draft passes (compute_batch_speculative)
            b_s = compute_batch(env, par, sv.prompt, sv.output, sv.tpot, sv.prefix_hit, spec_in)
            row["speculative"] = dict(spec_rows[par], compute_batch=int(min(b_s, 1 << 30)) if math.isfinite(b_s)
                                      else None)
        curves.append(row)
    curves.sort(key=lambda x: (x["gpus"], x["tp"], x["pp"], x["ep"], x["dp"]))
    fronts = {}
    for est in ("bound", "serial"):
        fronts[est] = _front(curves, lambda row, est=est: row, est, price)
    limits = {x["label"]: x["compute_batch"] for x in curves}
    best = {est: _best(pts, sv.tpot, limits) for est, pts in fronts.items()}
    on_front = _layouts_on(fronts["serial"], curves)
    # the engine's max_sequences where it stops some layout's curve before its memory does (None: nowhere)
    binds = [x["label"] for x in curves if x["batch_limit"] < x["capacity_batch"]]
    out = {"precision": prec.label(), "kv_cache": prec.kv_cache, "max_gpus": max_gpus, "layouts": curves,
           "max_sequences": hw.max_sequences if binds else None, "engine_binds": binds,
           "titled": own.label(), "titled_holds": any(x["titled"] for x in curves),
           "titled_on_frontier": _reaches(fronts["serial"], [x for x in curves if x["titled"]], "serial"),
           "pareto": fronts, "best_at_target": best, "frontier_layouts": on_front, "left_out_ttft": missed_ttft,
           "left_out_fit": no_fit, "price_per_hour": price, "tpot_target": sv.tpot, "ttft_target": sv.ttft}
    if sv.speculative is not None:
        out.update(_with_speculation(curves, fronts, sv, price))
    return out


def _front(curves: list[dict], part, est: str, price: float | None) -> list[dict]:
    """The Pareto frontier of ``est`` over every layout's points, ``part(row)`` the curve of a layout's row (its
    plain curve, or its speculative one; None: no such curve)."""
    pts = [(i, k) for i, row in enumerate(curves) if part(row) is not None for k in range(len(part(row)["batch"]))]
    xs = [part(curves[i])[est]["tokens_per_s_user"][k] for i, k in pts]
    ys = [part(curves[i])[est]["tokens_per_s_gpu"][k] for i, k in pts]
    return [{"layout": curves[pts[j][0]]["label"], "batch": part(curves[pts[j][0]])["batch"][pts[j][1]],
             "tokens_per_s_user": xs[j], "tokens_per_s_gpu": ys[j],
             "usd_per_mtok_out": (price / (ys[j] * 3600.0) * 1e6) if price else None}
            for j in pareto(xs, ys)]


def _best(pts: list[dict], tpot: float | None, limits: dict | None = None) -> dict | None:
    """The frontier point with the most tok/s per GPU whose slowest round meets the TPOT target and whose batch its
    layout's compute keeps there with the prompts' prefills (``limits``: compute_batch by layout; QA, stop 75: the
    chapter named Mixtral's tp4 ep8 dp2 at batch 149 where its compute keeps 86) (None: none)."""
    limits = limits or {}
    ok = [x for x in pts if (tpot is None or x["tokens_per_s_user"] >= 1.0 / tpot)
          and (limits.get(x["layout"]) is None or x["batch"] <= limits[x["layout"]])]
    return max(ok, key=lambda x: x["tokens_per_s_gpu"]) if ok else None


def _reaches(front: list[dict], rows: list[dict], est: str) -> bool:
    """Whether a point of ``rows``' curves lies on ``front``: no point beats it on both axes.  A point tied with a
    frontier point is on it, though :func:`pareto` keeps one of the two: a dp replica's curve is the curve of the
    layout it replicates (dp64 of one GPU is one GPU's curve), which may hold the frontier's points."""
    pts = {(p["tokens_per_s_user"], p["tokens_per_s_gpu"]) for p in front}
    return any((x, y) in pts or any(math.isclose(x, a, rel_tol=1e-12) and math.isclose(y, b, rel_tol=1e-12)
                                    for a, b in pts)
               for row in rows for x, y in zip(row[est]["tokens_per_s_user"], row[est]["tokens_per_s_gpu"], strict=True))


def _layouts_on(front: list[dict], curves: list[dict]) -> list[str]:
    """The layouts a frontier runs through, in the curves' order."""
    return sorted({p["layout"] for p in front}, key=lambda lab: next(i for i, x in enumerate(curves) if x["label"] == lab))


def _speculative_curves(spec, env, kept: list, chapter_batches, memo=None) -> dict:
    """Each drawn layout's curve with serving.speculative at every batch (serving.curve's ``spec_*``, the numbers plan
    --speculative gives where it speculates) from 1 to what a replica holds beside the draft model
    (``capacity_batch``: the plain one with a draft_cost) or the engine runs (``batch_limit``); no batch where the
    draft leaves no room.  ``kept``: :func:`frontier`'s (layout, titled, capacity, limit, speculative inputs, probe);
    the curves of all the layouts counted at once (serving.curves)."""
    sv = spec.serving
    out, todo = {}, []
    for par, _titled, _, _, spec_in, probe in kept:
        cap = int(min(probe["capacity_batch_speculative"], MAX_BATCH))
        runs = int(engine_limit(spec.hardware, cap))  # and no more than the engine runs at once
        row = {"capacity_batch": cap, "batch_limit": runs, "batch": []}
        for est in ("bound", "serial"):
            row[est] = {"tokens_per_s_user": [], "tpot": [], "tokens_per_s_gpu": [], "speedup": []}
        out[par] = row
        if cap >= 1:
            todo.append((par, _batches(runs, chapter_batches), spec_in))
    made = serving_curves(spec.model, spec.hardware, spec.precision, todo, sv.prompt, sv.output, spec.accounting, env,
                          memo=memo, prefix_hit=sv.prefix_hit)
    for (par, _, _), c in zip(todo, made, strict=True):
        row = out[par]
        row["batch"] = [int(b) for b in c["batch"]]
        for est in ("bound", "serial"):
            row[est] = {"tokens_per_s_user": [float(1.0 / t) for t in c[f"spec_tpot_{est}"]],
                        "tpot": [float(t) for t in c[f"spec_tpot_{est}"]],
                        "tokens_per_s_gpu": [float(y) for y in c[f"spec_tokens_per_s_gpu_{est}"]],
                        "speedup": [float(x) for x in c[f"spec_speedup_{est}"]]}
    return out


def _with_speculation(curves: list[dict], fronts: dict, sv, price: float | None) -> dict:
    """The frontier's numbers with serving.speculative: each estimate's frontier of the layouts' speculative curves
    (``pareto_speculative``), the best point at the TPOT target over both curves of every layout
    (``best_at_target``, its ``speculative`` saying which; the plain curves' best stays in
    ``best_at_target_plain``) and the layouts the estimate's speculative frontier runs through."""
    sp = sv.speculative
    spec_fronts = {est: _front(curves, lambda row: row.get("speculative"), est, price) for est in ("bound", "serial")}
    best, plain = {}, {}
    limits = {x["label"]: x["compute_batch"] for x in curves}
    # a speculative point's batch against its layout's speculative B_P, a plain point's against the plain one
    spec_limits = {x["label"]: x["speculative"]["compute_batch"] for x in curves if x.get("speculative") is not None}
    for est in ("bound", "serial"):
        a, b = _best(fronts[est], sv.tpot, limits), _best(spec_fronts[est], sv.tpot, spec_limits)
        plain[est] = None if a is None else dict(a, speculative=False)
        cands = [x for x in (plain[est], None if b is None else dict(b, speculative=True)) if x is not None]
        best[est] = max(cands, key=lambda x: x["tokens_per_s_gpu"]) if cands else None  # a tie: the plain one
    return {"speculative": {"draft_tokens": sp.draft_tokens, "acceptance": sp.acceptance,
                            "verify_tokens": sp.verified,
                            "draft": sp.draft.title if sp.draft is not None else None,
                            "draft_cost": sp.draft_cost if sp.draft is None else None},
            "pareto_speculative": spec_fronts, "best_at_target": best, "best_at_target_plain": plain,
            "frontier_layouts_speculative": _layouts_on(spec_fronts["serial"], curves)}
