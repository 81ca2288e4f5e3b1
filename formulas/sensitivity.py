"""Sensitivities: the elasticity d ln q / d ln x of each headline quantity to each of its inputs.

An elasticity says what a 1 % change of an input does to a quantity, in percent: the batch-1
decode token rate has elasticity 1 to the bandwidth W, -1 to the weight bytes (N and b) and 0
to the peak compute P.  Each one is derived by SymPy as ``cancel(x * diff(q, x) / q)``,
lambdified once (numpy, ``cse=True``), shipped in the generated module beside the compiled
formulas (``formulas/_generated.py``), and evaluated at the inputs of a spec.

* ``Max`` (a decode step is as slow as its slower bound): each branch is differentiated on its
  own and the active one is chosen where the inputs are, by evaluating both branches.
* ``floor`` (capacity batch): the continuous relaxation is differentiated (the integer is a step
  function whose derivative is 0 almost everywhere).
* The inputs are the symbols of the printed variant of the accounting: in the seed accounting of
  a dense model N_a = N, so the elasticity to N counts both the weights streamed and their FLOPs.
  For a mixture of experts N depends on the batch through the experts touched; the elasticity to
  B holds N fixed.  For sliding-window models c depends on S; the elasticity to S holds c fixed.
"""

from __future__ import annotations

import inspect
from functools import cache

import numpy as np

from .compiled import generated_module
from .glossary import PARAM_SYMBOL

HEADLINE = (
    "ridge_point", "weight_bytes", "weight_stream_time", "kv_capacity_tokens", "critical_context",
    "decode_tokens_per_s", "decode_intensity", "decode_time_memory", "decode_time_compute",
    "decode_intensity_ceiling", "crossover_batch", "capacity_batch",
)


def build(qid: str, variant: str) -> dict:
    """Differentiate ``qid`` (variant ``variant``) for every input symbol; lambdify each branch once."""
    import sympy as sp

    from .solve import _branches, drop_floor, quantity_expr

    expr, _ = drop_floor(quantity_expr(qid, variant))
    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    names = [s.name for s in symbols]
    branches, pieces = [], None
    parts = _branches(expr)
    kind = parts[0][3]
    for label, _piece, _pieces, _kind, e in parts:
        els = [sp.cancel(x * sp.diff(e, x) / e) for x in symbols]
        fn = sp.lambdify(symbols, els, "numpy", cse=True)
        branches.append({"label": label, "fn": fn, "src": inspect.getsource(fn)})
    if len(parts) > 1:
        fn = sp.lambdify(symbols, list(parts[0][2]), "numpy", cse=True)
        pieces = {"fn": fn, "src": inspect.getsource(fn)}
    return {"id": qid, "variant": variant, "symbols": names, "branches": branches, "pieces": pieces, "kind": kind}


@cache
def compiled(qid: str, variant: str) -> tuple[tuple[str, ...], tuple, object, str]:
    """(symbols, branch functions, pieces function or None, "max"/"min"/"") for one quantity."""
    gen = generated_module()
    e = gen.ELASTICITIES.get((qid, variant)) if gen is not None else None
    if e is None:
        e = build(qid, variant)
    fns = tuple(b["fn"] for b in e["branches"])
    pieces = e["pieces"]["fn"] if e["pieces"] else None
    return tuple(e["symbols"]), fns, pieces, e["kind"]


def at(values: dict, qid: str, variant: str) -> dict[str, object]:
    """Elasticities of ``qid`` at ``values`` (glossary name -> number or array), by symbol."""
    symbols, fns, pieces, kind = compiled(qid, variant)
    missing = [s for s in symbols if s not in values]
    if missing:
        raise KeyError(f"{qid}: no value for {', '.join(missing)}")
    args = [values[s] for s in symbols]
    with np.errstate(all="ignore"):
        per_branch = [[np.asarray(v, dtype=float) for v in fn(*args)] for fn in fns]
        if pieces is None:
            chosen = per_branch[0]
        else:
            p = np.stack(np.broadcast_arrays(*[np.asarray(v, dtype=float) for v in pieces(*args)]))
            idx = np.argmax(p, axis=0) if kind == "max" else np.argmin(p, axis=0)
            chosen = []
            for j in range(len(symbols)):
                stack = np.stack(np.broadcast_arrays(*[br[j] for br in per_branch], p[0]))[:-1]
                chosen.append(np.take_along_axis(stack, idx[None, ...], axis=0)[0])
    out = {}
    for s, v in zip(symbols, chosen, strict=True):
        v = np.asarray(v, dtype=float)
        out[s] = float(v) if v.ndim == 0 else v
    return out


def default_params(spec) -> dict[str, object]:
    """The first decode batch and context, prefill prompt, GEMM and recipe of a report spec."""
    w = spec.workloads
    out: dict[str, object] = {}
    if w.decode_batch:
        out["batch"] = w.decode_batch[0]
    if w.decode_context:
        out["context"] = w.decode_context[0]
    if w.prefill_prompt or w.training_tokens:
        out["tokens"] = (w.prefill_prompt or (w.training_tokens,))[0]
    if spec.gemms:
        out["n"], out["m"] = spec.gemms[0][1], spec.gemms[0][2]
    if w.recipes:
        out["recipe"] = w.recipes[0]
    return out


def _point(env, params: dict) -> dict:
    """Numeric inputs of an Env at the workload ``params`` (batch, context, tokens, n, m, recipe)."""
    from .recipes import recipe_bytes_per_param

    extra = {}
    for name in ("tokens", "n", "m"):
        if name in params:
            extra[PARAM_SYMBOL[name]] = float(params[name])
    if "recipe" in params:
        extra["k"] = float(recipe_bytes_per_param(params["recipe"]))
    return env.at(batch=params.get("batch"), context=params.get("context"), **extra)


def elasticities(source, ids=HEADLINE, params: dict | None = None, variant: str | None = None,
                 accounting: str | None = None) -> dict[str, dict[str, object]]:
    """``{quantity id: {symbol: d ln q / d ln x}}`` at the inputs of ``source``.

    ``source`` is a :class:`generator.evaluate.Results` (its lead accounting, or ``accounting``;
    ``params`` default to the spec's first batch, context, ...), an
    :class:`generator.evaluate.Env` (``params`` as given), or a plain mapping of glossary names
    to numbers (``variant`` names the printed variant, default ``"full"``).  A quantity whose
    parameters are not all given is skipped.
    """
    from .compiled import load
    from .variants import variant_for

    defs = load()

    env = None
    if hasattr(source, "envs") and hasattr(source, "spec"):  # Results
        env = source.envs[accounting or source.lead]
        params = {**default_params(source.spec), **(params or {})}
    elif hasattr(source, "values") and hasattr(source, "at"):  # Env
        env = source
        params = dict(params or {})
    if env is not None:
        variant = variant or variant_for(env.accounting, env.model.moe is not None, bool(env.values.get("a")))
    else:
        variant = variant or "full"
        params = dict(params or {})
    points: dict[tuple, dict] = {}
    out = {}
    for qid in ids:
        own = {p: params[p] for p in defs[qid].params if p in params}
        if env is None:
            values = dict(source)
            if any(p not in own and PARAM_SYMBOL[p] not in values for p in defs[qid].params):
                continue
            values.update({PARAM_SYMBOL[p]: v for p, v in own.items() if p != "recipe"})
        else:
            if len(own) < len(defs[qid].params):
                continue
            # inputs at this quantity's own parameters only: a capacity counts every expert, not those a batch reads
            key = tuple(sorted((k, id(v)) for k, v in own.items()))
            if key not in points:
                points[key] = _point(env, own)
            values = points[key]
        out[qid] = at(values, qid, variant)
    return out
