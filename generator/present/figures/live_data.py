"""The input of the live figures (``templates/live/figs.js``): figures 6 and 4 as plain JSON numbers.

``GR_FIGS.roofline(d)`` and ``GR_FIGS.decodeIntensity(d)`` draw the roofline and the decode-intensity figure
from a dict ``d`` that holds only numbers, lists and a few label strings, so that the what-if script can build
the same dict in the browser from the quantities it recomputes.  These functions build it from the report
model, reading the stated values (``r.entries``, ``r.scalars``, ``r.curves``); they call no formula.  A value
with no physical meaning (no sequence fits, no crossover) is ``None`` (JSON ``null``) and is not drawn; no
negative number is ever passed.

Both dicts may carry ``"layout": "narrow"`` (the phone layout, as the committed ``*-narrow`` figures) and
``"baseline"``: a dict of the same shape (without its own baseline) drawn faded grey underneath, e.g. the spec's
own figure under a what-if, named in the legend by its ``"label"`` ("baseline" when it has none).  Neither is
set here.  In the page, ``GR_FIGS.fromModel`` builds the same dicts from the browser's report model and
``GR_FIGS.live`` (called by page.js) draws them in place of the built figures.

**Roofline** (figure 6), ``roofline_data(r)``::

    {"peak": P,                 # FLOP/s of the compute roof (the spec's compute precision)
     "bandwidth": W,            # B/s
     "ridge": P / W,            # FLOP/B, the stated ridge point
     "hardware": "H100 SXM5 80GB",                     # legend text of the roof
     "compare": [{"label": "A100 SXM4 80GB", "peak": P, "bandwidth": W, "ridge": R}, ...],  # the other GPUs
     "measured_roof": {"peak": P, "bandwidth": W} or None,   # the roof measured by 'genreport calibrate'
     "lengths": [128, 256, 1024, ...],  # every context / prompt / training length, sorted: the colour key
     "points": [{"kind": "decode",     "intensity": I, "tokens": S, "batch": 1},
                {"kind": "decode-cap", "intensity": I, "tokens": S, "batch": B_cap},  # only when B_cap >= 2
                {"kind": "prefill",    "intensity": I, "tokens": T},
                {"kind": "training",   "intensity": I, "tokens": T}, ...],
     "measured": [{"intensity": I, "flops": F, "where": "batch 1, context 105"}, ...]}

A workload point sits on the roof, at min(P, W·I); a measured run at its achieved FLOP/s ``flops``.

**Decode intensity** (figure 4), ``decode_intensity_data(r)`` (``None`` when the spec has no decode)::

    {"ridge": R,                # FLOP/B
     "batch_max": B_max,        # right end of the batch axis (the model's sample range)
     "weight_bytes": bytes, "capacity": bytes,   # for the "no batch fits" note
     "compare": [{"label": "A100 SXM4 80GB", "ridge": R}, ...],
     "lengths": [...],          # as above: the colour key shared with the roofline
     "contexts": [{"context": S,
                   "ceiling": I_inf(S),                    # B -> infinity
                   "capacity_batch": B_cap or None,        # None: not one sequence fits
                   "intensity_at_capacity": I or None,
                   "crossover": B_x or None,               # where I(B, S) reaches the ridge; None: never
                   "curve": [[B, I(B, S)], ...]}, ...]}    # sampled, B ascending from 1 to batch_max

The curve samples are the model's (``r.curves``): 200 batches log-spaced from 1 to ``batch_max`` and the
spec's decode batches, sorted.
"""

from __future__ import annotations

import math

from genreport.model.env import peak_of
from genreport.model.evaluate import Results
from genreport.model.values import physical
from genreport.present.figures.data import _contexts, _sc


def _num(x) -> float | None:
    """A finite float, or None."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _stated(r: Results, qid: str, j: int, s: float) -> float | None:
    """The report's stated value of a per-context quantity (None when it has no physical value)."""
    e = r.entry(qid, context=s)
    if e is not None:
        return _num(e.value)
    return _num(physical(qid, r.per_context[r.lead][qid][j])[0])


def _positive(x) -> float | None:
    x = _num(x)
    return x if x is not None and x > 0 else None


def _lengths(r: Results) -> list[int]:
    w = r.spec.workloads
    return sorted({int(s) for s in _contexts(r)} | {int(t) for t in w.prefill_prompt}
                  | ({int(w.training_tokens)} if w.training_tokens else set()))


def _short(title: str) -> str:
    """A GPU's title without the vendor, as the legends of figures 4 and 6 write it (SVG text: no escaping)."""
    return title.removeprefix("NVIDIA ").removeprefix("AMD ")


def _others(r: Results) -> list[dict]:
    return [c for c in r.compare if not c["is_base"]]


def roofline_data(r: Results) -> dict:
    """Figure 6's input for ``GR_FIGS.roofline`` (shape: see the module docstring)."""
    sc = _sc(r)
    hw = r.spec.hardware
    points: list[dict] = []
    ctx = _contexts(r)
    for j, s in enumerate(ctx):
        i1 = _positive(r.curves["decode_intensity_batch1"][j])
        if i1 is not None:
            points.append({"kind": "decode", "intensity": i1, "tokens": int(s), "batch": 1})
        cap = _stated(r, "capacity_batch", j, float(s))
        icap = _positive(_stated(r, "intensity_at_capacity", j, float(s)))
        if cap is not None and cap >= 2 and icap is not None:
            points.append({"kind": "decode-cap", "intensity": icap, "tokens": int(s), "batch": cap})
    if r.lead in r.prefill:
        for t, i in zip(r.spec.workloads.prefill_prompt, r.prefill[r.lead]["prefill_intensity"], strict=True):
            if _positive(i) is not None:
                points.append({"kind": "prefill", "intensity": float(i), "tokens": int(t)})
    t = r.spec.workloads.training_tokens
    if t and _positive(r.verdicts.get("training_intensity")) is not None:
        # under its own roof: the recipes' GEMMs at the bf16 peak (recipes.TRAINING_COMPUTE), as figure 6 draws it
        points.append({"kind": "training", "intensity": float(r.verdicts["training_intensity"]), "tokens": int(t),
                       "peak": float(hw.dense[r.verdicts["training_compute"]]),
                       "compute": str(r.verdicts["training_compute"])})
    measured = []
    for m in r.measured:
        i, f = _positive(m.get("intensity")), _positive(m.get("achieved_flops"))
        if i is not None and f is not None:
            measured.append({"intensity": i, "flops": f, "where": str(m["where"])})
    roof = None
    if hw.measured_bandwidth is not None or hw.measured_peaks:
        roof = {"peak": float(peak_of(r.spec.precision, hw, r.spec.model, r.params, measured=True).value),
                "bandwidth": float(hw.measured_bandwidth or hw.bandwidth)}
    return {
        "peak": float(sc["peak_flops"]), "bandwidth": float(sc["bandwidth"]), "ridge": float(sc["ridge_point"]),
        "hardware": _short(hw.title),
        "compare": [{"label": _short(c["title"]), "peak": float(c["peak"]), "bandwidth": float(c["bandwidth"]),
                     "ridge": float(c["ridge"])} for c in _others(r)],
        "measured_roof": roof,
        "lengths": _lengths(r),
        "points": points,
        "measured": measured,
    }


def decode_intensity_data(r: Results) -> dict | None:
    """Figure 4's input for ``GR_FIGS.decodeIntensity`` (shape: see the module docstring); None without decode."""
    ctx = _contexts(r)
    if not ctx or "decode_batch" not in r.curves:
        return None
    sc = _sc(r)
    batch = [float(b) for b in r.curves["decode_batch"]]
    grid = r.curves["decode_intensity"]
    contexts = []
    for j, s in enumerate(ctx):
        curve = [[b, float(grid[k][j])] for k, b in enumerate(batch) if _positive(grid[k][j]) is not None]
        cap = _stated(r, "capacity_batch", j, float(s))
        contexts.append({
            "context": int(s),
            "ceiling": _positive(_stated(r, "decode_intensity_ceiling", j, float(s))),
            "capacity_batch": cap if cap is not None and cap >= 1 else None,
            "intensity_at_capacity": _positive(_stated(r, "intensity_at_capacity", j, float(s))),
            "crossover": _positive(_stated(r, "crossover_batch", j, float(s))),
            "curve": curve,
        })
    return {
        "ridge": float(sc["ridge_point"]),
        "batch_max": float(r.curves["decode_batch_max"]),
        "weight_bytes": float(sc["weight_bytes"]), "capacity": float(sc["capacity"]),
        "compare": [{"label": _short(c["title"]), "ridge": float(c["ridge"])} for c in _others(r)],
        "lengths": _lengths(r),
        "contexts": contexts,
    }
