"""The many-GPU view of any report: how the decode round scales with the tensor-parallel degree, how many GPUs
each context needs per weight format, and, when the model does not fit one card, the smallest layout that does.

Computed once in the evaluation stage from :mod:`genreport.model.parallel` (the interconnect ledger); the
report's many-GPU chapter and page 1 only format these.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ManyGpus:
    batch_large: int  # the large batch of the scaling curves: the spec's largest
    context: int  # the context of the scaling curves and of the smallest layout: the spec's first
    scaling_batch1: tuple[dict, ...]  # one row per TP degree (genreport.model.parallel.scaling)
    scaling_large: tuple[dict, ...]
    fit_contexts: tuple[int, ...]
    fit_map: dict  # weight format -> minimum GPUs per context (None: nothing up to 4096 fits)
    smallest: dict | None  # the smallest layout in the spec's weight format that holds one sequence of the
    # context (a plan row), when one card does not hold the weights
    smallest_any: dict | None  # the same over every weight format
    link: str  # the scale-up link, in words ("" when the spec has none)


def many_gpus(r) -> ManyGpus | None:
    """None for a spec without decode, or a GPU whose spec has no interconnect (nothing to price the collectives)."""
    from genreport.model import layouts as par

    spec = r.spec
    w = spec.workloads
    hw = spec.hardware
    if not w.decode_context or hw.link is None:
        return None
    s0 = int(w.decode_context[0])
    big = int(max(w.decode_batch or (1,)))
    degrees = (1, 2, 4, 8, 16, 32, 64)
    b1 = par.scaling(spec.model, hw, spec.precision, 1.0, float(s0), degrees, spec.accounting)
    bl = par.scaling(spec.model, hw, spec.precision, float(big), float(s0), degrees, spec.accounting)
    ctxs = tuple(int(s) for s in w.decode_context)
    fmap = par.fit_map(spec.model, hw, ctxs, accounting=spec.accounting)
    smallest = smallest_any = None
    if not r.verdicts.get("weights_fit", True):
        plan = par.plan(spec.model, hw, 1, s0, accounting=spec.accounting)
        best = par.smallest(plan)
        smallest_any = best.as_json() if best is not None else None
        own = par.smallest(par.Plan([x for x in plan.rows if x.precision == spec.precision.weights], {}, [], ""))
        smallest = own.as_json() if own is not None else None
    link = f"{hw.link.name}" if getattr(hw.link, "name", None) else ""
    return ManyGpus(big, s0, tuple(b1), tuple(bl), ctxs, fmap, smallest, smallest_any, link)
