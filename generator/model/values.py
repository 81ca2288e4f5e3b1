"""What a number means physically: the rules that turn a formula's raw value into a stated value.

One place decides, for every quantity, when a formula's output has no physical value: a negative
capacity (the weights do not fit), a crossover that never happens, an infinite time. Such a value
is ``None`` with a reason, in the report, the JSON, ``derive`` and ``sweep`` alike; it is never
printed as a negative number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Entry:
    """One stated number: a quantity at a workload point, in one accounting."""

    id: str
    params: dict[str, object]
    value: float | None
    unit: str
    symbol: str
    latex: str | None
    accounting: str = "seed"
    reason: str = ""  # why there is no value, when value is None
    unfit: str = ""  # why its workload point cannot run (:func:`unfit_decode`, :func:`unfit_prompt`); "" where it can

    @property
    def key(self) -> tuple:
        return key(self.id, self.params, self.accounting)

    def as_json(self) -> dict:
        out = {"id": self.id, "params": self.params, "value": self.value, "unit": self.unit,
               "symbol": self.symbol, "latex": self.latex, "accounting": self.accounting, "scope": scope(self.id)}
        if self.value is None and self.reason:
            out["reason"] = self.reason
        if self.unfit:  # the value stays: the point's number were it to fit, as the report's tables state it
            out["fits"], out["unfit"] = False, self.unfit
        return out


@dataclass(frozen=True)
class Block:
    """A formula shown in the report: the quantity, the inputs substituted, and its stated value."""

    name: str
    entry: Entry
    inputs: dict[str, float] = field(default_factory=dict)  # glossary symbol -> value at this point
    steps: bool = False
    variant: str = "seed"
    note: str = ""  # e.g. S* found numerically past a sliding window
    closed_form: float | None = None  # the closed form's own value where the stated one is a numeric root
    symbols: dict[str, str] = field(default_factory=dict)  # glossary name -> LaTeX this block prints it as


def key(qid: str, params: dict, accounting: str) -> tuple:
    return (qid, tuple(sorted((k, float(v) if isinstance(v, (int, float)) else v) for k, v in params.items())),
            accounting)


NO_FIT = "the weights alone exceed the memory capacity, so no KV cache fits"


def unfit_decode(batch, context, capacity, weights_fit: bool, replica: bool) -> str:
    """Why a decode point of ``batch`` sequences at ``context`` cannot run ("" where it can): ``capacity`` the sequences
    of that context that fit beside the weights (floored; one replica's at a layout, ``replica``), as
    ``verdicts.decode_binds`` marks the point "capacity".

    >>> unfit_decode(128, 32768, 25.0, True, True)
    '128 sequences of 32,768 tokens do not fit: only 25 fit per replica'
    >>> unfit_decode(1, 4096, 0.0, False, False)
    'the weights alone exceed the memory capacity, so no KV cache fits'
    >>> unfit_decode(8, 1024, 8.0, True, False)
    ''
    """
    n = int(capacity) if capacity is not None and math.isfinite(capacity) and capacity >= 1 else 0
    if batch <= n:
        return ""
    if not weights_fit:
        return NO_FIT
    if not n:
        return f"no sequence of {int(context):,} tokens fits beside the weights"
    many = " per replica" if replica else ""
    what = f"{int(batch):,} sequence{'s' if batch != 1 else ''} of {int(context):,} tokens"
    return f"{what} do not fit: only {n:,} fit{'s' if n == 1 else ''}{many}"


def unfit_prompt(tokens, weights_fit: bool, replica: bool) -> str:
    """Why a prefill of one ``tokens``-token prompt that does not fit cannot run (its whole KV cache is written)."""
    if not weights_fit:
        return NO_FIT
    return (f"one prompt of {int(tokens):,} tokens does not fit: its KV cache exceeds what the memory"
            f"{' of a replica' if replica else ''} holds beside the weights")

# The seeds' own ids whose value at a layout is one replica's (its n_TP n_PP GPUs holding one copy of the model), not
# one GPU's: the KV tokens and sequences a replica holds, the intensity there, the batch that crosses the ridge through
# a full pipeline, and the replica's token rate.  The layout's own replica ids join them in SCOPES["replica"].
REPLICA_SCOPED = frozenset({"kv_capacity_tokens", "capacity_batch", "intensity_at_capacity", "crossover_batch",
                            "decode_tokens_per_s"})

# Whose number each id of results.json is (docs/results.md, "Scope"; Entry.as_json writes it as ``scope``): at a
# layout, the seeds' formulas take one GPU's slice (formulas/layout.py), so an id not named below is one GPU's; on one
# card every scope is that card's. "model": the whole model whatever the layout (its counts, its training state, the
# GPUs and tp degrees it needs); "deployment": all the layout's GPUs; "replica": one copy of the model over its
# n_TP n_PP GPUs (what it holds, its rounds and prompts, its token rate); "one_card": the whole model on one card,
# stated beside a layout.
SCOPES = {
    "model": frozenset({"parameters", "training_state_bytes", "min_gpus_to_fit", "tp_weight_crossover",
                        "tp_link_bound_degree"}),
    "deployment": frozenset({"gpus"}),
    "replica": REPLICA_SCOPED | {"kv_capacity_tokens_replica", "capacity_batch_replica", "decode_tokens_per_s_replica",
                                 "decode_time_bound", "decode_time_serial", "prefill_time_bound", "prefill_time_serial",
                                 "prefill_occupancy_bound", "prefill_occupancy_serial", "comm_hbm_crossover_batch",
                                 "request_decode_time_bound", "request_decode_time_serial",
                                 "decode_tokens_per_s_derated", "training_overlap_tokens"},
    "one_card": frozenset({"capacity_one_card", "weight_bytes_one_card", "weight_stream_time_one_card",
                           "kv_capacity_tokens_one_card", "attention_intensity_one_card"}),
}


def scope(qid: str) -> str:
    """The scope of ``qid`` (either accounting's: ``_exact`` is dropped): a key of ``SCOPES``, else "gpu".

    >>> scope("kv_capacity_tokens_exact"), scope("decode_time_memory"), scope("parameters")
    ('replica', 'gpu', 'model')
    """
    base = qid.removesuffix("_exact")
    return next((name for name, ids in SCOPES.items() if base in ids), "gpu")


# The serving chapter's goodput ceilings (formulas/techniques.py): a rate at or below 0 is no rate at all.
NO_RATE = {
    "goodput_rate_tpot": "no arrival rate meets the TPOT target: a step's weights alone take longer",
    "goodput_rate_capacity": "no arrival rate fits: the weights leave no room for the running sequences' caches",
    "goodput_rate_compute": "no arrival rate is within the compute roof",
    "goodput_rate_engine": "no such ceiling: the engine sets no max_sequences (M_s = 0), so it holds back no arrival",
    "chunk_budget_rate": "no arrival rate fits the step budget: the decode tokens leave no room for a prompt chunk",
}
# The steady state at a rate (formulas/techniques.py): past the rate whose running sequences' reads take the whole
# bandwidth, t_s = (N - N_e) b / (W - lam Q_r) turns negative: no steady state, not a negative step.
NO_STEADY = {
    "steady_step_time": "no steady state at this rate: it is past what the memory allows (the running sequences' reads "
                        "would take the whole bandwidth)",
}


# The counts of what fits beside the weights: a negative one is none, with why (one GPU's, a replica's, beside a draft
# model or a shared prefix held once).
CAPACITIES = {
    "kv_capacity_tokens": NO_FIT, "capacity_batch": NO_FIT, "kv_capacity_tokens_exact": NO_FIT,
    "kv_capacity_tokens_replica": NO_FIT, "capacity_batch_replica": NO_FIT,
    "capacity_batch_draft": "the weights and the draft's alone exceed the memory capacity, so no KV cache fits",
    "prefix_capacity_batch": "the weights (and the draft's, and the shared prefix) exceed the memory capacity, so "
                             "no sequence fits",
}


# The decode intensity at the capacity-limited batch: none where not one sequence of the context fits (its closed form
# then gives a negative batch's intensity: derive printed -269.9 FLOP/B for 70B in bf16 on one H100, review stop 92).
NO_CAPACITY_BATCH = {
    "intensity_at_capacity": "not one sequence of this context fits beside the weights: no batch is capacity-limited",
}


def physical(qid: str, raw, integer: str = "") -> tuple[float | None, str]:
    """(value, reason): the stated value of ``qid`` from its formula's raw output.

    >>> physical("kv_capacity_tokens", -165102.4)
    (None, 'the weights alone exceed the memory capacity, so no KV cache fits')
    >>> physical("crossover_batch", -16.2)[0] is None
    True
    >>> physical("capacity_batch", 0.0)
    (0.0, '')
    >>> physical("ridge_point", 295.3)
    (295.3, '')
    """
    try:
        x = float(raw)
    except (TypeError, ValueError):
        return None, "not a number"
    if qid in NO_CAPACITY_BATCH and not x > 0:  # NaN (no batch) or the closed form's negative batch's
        return None, NO_CAPACITY_BATCH[qid]
    if math.isnan(x):
        return None, "undefined at these inputs"
    if qid in CAPACITIES:  # a count of what fits: none, never a negative count, where the weights take the room
        if x < 0:
            return None, CAPACITIES[qid]
        return (x, "") if math.isfinite(x) else (None, "unbounded")
    if qid in ("crossover_batch", "gemm_crossover_tokens"):
        if not math.isfinite(x) or x <= 0:
            what = "batch" if qid == "crossover_batch" else "token count"
            return None, (f"no {what} crosses the ridge: the intensity ceiling stays below it"
                          if qid == "crossover_batch" else "the intensity never reaches the ridge")
        return x, ""
    if qid == "critical_context":
        if not math.isfinite(x) or x <= 0:
            return None, "the decode ceiling never falls below the ridge: every context can cross it"
        return x, ""
    if qid in NO_RATE and x <= 0:
        return None, NO_RATE[qid]
    if qid in NO_STEADY and not (math.isfinite(x) and x > 0):
        return None, NO_STEADY[qid]
    if not math.isfinite(x):
        return None, "infinite at these inputs"
    if integer == "round" and x <= 0:
        return None, "no positive root"
    return x, ""


def sorted_unique(values):
    """``numpy.unique`` of a 1-D float array without NaNs, the same values, without importing ``numpy.ma`` (which
    ``numpy.unique`` does on its first call: 7 ms on the build's path to the PDF)."""
    import numpy as np

    a = np.sort(np.asarray(values, dtype=float).ravel())
    if a.size == 0:
        return a
    return a[np.concatenate(([True], a[1:] != a[:-1]))]
