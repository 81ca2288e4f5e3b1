"""The report model: every number a report states, built once by :func:`genreport.model.evaluate.evaluate`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from genreport.formulas import architecture as arch
from genreport.formulas.compiled import Compiled
from genreport.load.spec import ReportSpec
from genreport.model.env import Env
from genreport.model.values import Block, Entry, key


@dataclass(frozen=True)
class Results:
    """The report model: every number a report, its JSON, figures, prose, ``derive`` and ``sweep`` state.

    Built once by :func:`evaluate` and never changed (arrays are read-only). Presentation reads it;
    nothing downstream calls the compiled formulas (``q`` is kept for their metadata: units, symbols,
    LaTeX). A quantity with no physical value is ``None`` with a reason (:mod:`.values`).
    """

    spec: ReportSpec
    envs: dict[str, Env]
    q: dict[str, Compiled]
    params: arch.ParameterCount
    scalars: dict[str, dict[str, float | None]]  # accounting -> id -> value (None: no physical value)
    per_context: dict[str, dict[str, np.ndarray]]  # accounting -> id -> (S,) array
    decode: dict[str, dict[str, np.ndarray]]  # accounting -> id -> (B, S) grid
    prefill: dict[str, dict[str, np.ndarray]]  # accounting -> id -> (T,) array
    gemm: tuple[dict, ...]
    training: tuple[dict, ...]
    compare: tuple[dict, ...]
    compare_models: tuple[dict, ...]
    verdicts: dict[str, object]
    numeric_critical_context: frozenset[str]  # accountings whose S* lies past a window (a numeric root)
    reasons: dict[str, dict[str, str]] = field(default_factory=dict)  # accounting -> scalar id -> why it is None
    entries: tuple[Entry, ...] = ()
    blocks: dict[str, Block] = field(default_factory=dict)  # the formulas the report shows, by name
    levers: tuple[dict, ...] = ()  # what would change it: each lever's before and after, computed here
    measured: tuple[dict, ...] = ()
    derated: dict | None = None
    sensitivities: tuple[dict, ...] = ()
    curves: dict[str, object] = field(default_factory=dict)  # samples the figures draw
    facts: dict[str, float | None] = field(default_factory=dict)  # derived numbers the prose states
    moe_reads: tuple[dict, ...] = ()
    symbols_tex: dict[str, str] = field(default_factory=dict)  # glossary name -> its LaTeX symbol in this report
    notation: tuple = ()  # formulas.glossary.ENTRIES: the symbols the appendix explains  # a mixture of experts: experts touched and bytes read at a few batches
    decision: tuple[dict, ...] = ()  # page 1: one row per workload (model.decision)
    fit_options: tuple[dict, ...] = ()  # what makes the weights fit, when they do not
    many: object = None  # genreport.model.plan.ManyGpus: scaling over GPUs, fit map, smallest layout
    serving: dict | None = None  # the spec's serving block answered at its layout (model.serving_report.report)
    hierarchy: tuple[dict, ...] = ()  # seed 000: the memory levels of this GPU
    states: tuple[dict, ...] = ()  # seed 000: the three bottleneck states
    index: dict[tuple, Entry] = field(default_factory=dict, repr=False)
    parallel: object = None  # genreport.model.layout.ParallelResults, when the spec has 'parallelism'
    frame: object = None  # genreport.model.frame.Frame: whose numbers these are (one card, one GPU of a layout)
    one_card: dict[str, dict[str, float | None]] = field(default_factory=dict)  # accounting -> the whole model on
    # one card (ONE_CARD_SCALARS), stated once beside a layout's numbers; empty on one card

    @property
    def lead(self) -> str:
        return self.spec.accounting

    def s(self, qid: str, accounting: str | None = None):
        return self.scalars[accounting or self.lead][qid]

    def entry(self, qid: str, accounting: str | None = None, **params) -> Entry | None:
        """The stated entry of ``qid`` at ``params`` (None when the report states no such number)."""
        return self.index.get(key(qid, params, accounting or self.lead))

    def value(self, qid: str, accounting: str | None = None, **params) -> float | None:
        e = self.entry(qid, accounting, **params)
        return None if e is None else e.value
