"""What several figures read from the report model (the model computes; these only select)."""

from __future__ import annotations

import math

import numpy as np
from genreport.model.evaluate import Results
from genreport.present.figures.style import CONTEXT_COLOURS, tokens


def _sc(r: Results) -> dict:
    return r.scalars[r.lead]


def _contexts(r: Results) -> list[int]:
    return list(r.spec.workloads.decode_context) if r.lead in r.per_context else []


def _gemm_reading(r: Results, t: float) -> tuple[float, float | None]:
    """(weight-reuse I_W = 2T/b, full intensity of the first GEMM) at T tokens per weight load."""
    if r.gemm:
        g = r.gemm[0]
        if t in g["tokens"]:
            i = g["tokens"].index(t)
            return float(g["weight_reuse"][i]), float(g["intensity"][i])
    return float(r.value("weight_reuse_intensity", "seed", tokens=t)), None


def _modes(r: Results) -> list[tuple[str, str, int]]:
    """(kind, label, tokens per weight load) for the modes the spec has, in seed 003's order."""
    w = r.spec.workloads
    rows = []
    if w.decode_batch or w.decode_context or not (w.prefill_prompt or w.training_tokens):
        rows.append(("decode", "decode batch 1", 1))
    for p in sorted(w.prefill_prompt):
        rows.append(("prefill", f"prefill {tokens(p)}", int(p)))
    if w.training_tokens:
        rows.append(("training", f"training {tokens(w.training_tokens)}", int(w.training_tokens)))
    return rows


def _decode_curves(r: Results) -> tuple[np.ndarray, np.ndarray]:
    """The model's decode intensity samples: (batch axis, intensity with the spec's contexts along axis 1)."""
    return r.curves["decode_batch"], r.curves["decode_intensity"]


def _crossovers(r: Results) -> list[float | None]:
    xs = r.per_context[r.lead]["crossover_batch"]
    return [float(x) if math.isfinite(x) and x > 0 else None for x in xs]


def context_colours(r: Results) -> dict[int, str]:
    """One colour per context length (decode context, prefill prompt, training tokens), shortest first.

    Figures 3, 4 and 6 share it, so a length has the same colour wherever it appears.
    """
    w = r.spec.workloads
    lengths = sorted({int(s) for s in _contexts(r)} | {int(t) for t in w.prefill_prompt}
                     | ({int(w.training_tokens)} if w.training_tokens else set()))
    return {n: CONTEXT_COLOURS[k % len(CONTEXT_COLOURS)] for k, n in enumerate(lengths)}


def sweep_note(r, first: bool = True) -> str:
    """The many-GPU figures sweep tensor parallelism: said so when the report's own layout is another one
    (``first``: the first of the two figures; the second refers to it)."""
    par = r.spec.parallelism
    if par is None or (par.pp == 1 and par.ep == 1 and par.dp == 1):
        return ""
    if first:
        return f"Tensor parallelism alone, not this report's {r.frame.label} layout. "
    return "The same tensor-parallel sweep. "
