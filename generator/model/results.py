"""The report model: every number a report states, built once by :func:`genreport.model.evaluate.evaluate`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from genreport.formulas import architecture as arch
from genreport.formulas.compiled import Compiled
from genreport.load.spec import ReportSpec
from genreport.model.env import Env
from genreport.model.values import Block, Entry, key

_GRID_AXES = {"batch", "context", "tokens"}  # the parameters of a workload point :meth:`Results.at` evaluates


def _fits_cell(x: dict) -> str:
    """Page 1's fits cell in words (templates/sections/s0_summary.html.j2): "yes, ≤ 886; past max_sequences (256)" where
    the batch fits the memory and the engine runs fewer at once (``table`` said only "yes" there: a review, stop 92)."""
    if not x.get("fits"):
        return "no"
    out = "yes"
    if x.get("workload") == "decode" and x.get("capacity_batch") is not None:
        out += f", ≤ {int(x['capacity_batch']):,}"
    if x.get("engine_runs"):
        out += f"; past max_sequences ({int(x['engine_runs']):,})"
    return out


@dataclass(frozen=True, repr=False)
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
    measured_not_compared: str = ""  # why the spec's measurements are not compared here (a what-if of another GPU ...)
    # a what-if of the GPU alone: each measurement's tokens/s beside the what-if's bound at its point (no utilisation)
    measured_rechecked: tuple[dict, ...] = ()
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
    evaluator: Callable[[ReportSpec], Results] | None = field(default=None, compare=False)  # what built this model
    # (model.evaluate.evaluate), for at() and what_if(): this module does not import it (no import circle)

    @property
    def lead(self) -> str:
        return self.spec.accounting

    @property
    def configuration(self) -> str:
        """What this model analyses, in words: "Llama 3.1 70B on 8 × AMD Instinct MI300X, fp8" ("one H100 SXM" on
        one card). A what-if's report is titled by it, in the HTML and in results.json (``what_if.title``)."""
        spec = self.spec
        gpus = self.parallel.parallelism.gpus if self.parallel is not None else 1
        return (f"{spec.model.title} on {f'{gpus} × ' if gpus > 1 else 'one '}{spec.hardware.title}, "
                f"{spec.precision.label(spec.hardware.dense)}")

    @property
    def what_if_title(self) -> str:
        """A what-if's title: "What-if: " and :attr:`configuration` (a what-if is not what its spec's title names)."""
        return f"What-if: {self.configuration}"

    def s(self, qid: str, accounting: str | None = None):
        return self.scalars[accounting or self.lead][qid]

    def entry(self, qid: str, accounting: str | None = None, **params) -> Entry | None:
        """The stated entry of ``qid`` at ``params`` (None when the report states no such number)."""
        return self.index.get(key(qid, params, accounting or self.lead))

    def value(self, qid: str, accounting: str | None = None, **params) -> float | None:
        """The stated value of ``qid`` at ``params``, in ``accounting`` (the lead one by default).

        A point the spec's grid does not hold (``batch=96``) is evaluated on the spot (:meth:`at`); ``None``
        only where the quantity has no physical value there (:meth:`entry` says why, in ``reason``).  At a point
        that cannot run (more sequences than fit at the context, a prompt whose KV cache does not fit) the value is
        what it would be were it to fit, and ``entry(...).unfit`` says why (results.json's ``"fits": false``).  An id
        the report does not state, or parameters it does not take, raise :class:`KeyError` naming the
        ids or parameters it does take.

        >>> import genreport
        >>> model = genreport.evaluate(genreport.load_spec("specs/llama8b-h100.yaml"))
        >>> round(model.value("decode_tokens_per_s", batch=1, context=8192))   # on the grid
        196
        >>> # off it, evaluated: 3 / ((16.06 GB + 3 x 8192 x 128 KiB) / 3.35 TB/s)
        >>> round(model.value("decode_tokens_per_s", batch=3, context=8192))
        521
        >>> model.value("decode_tokens_per_second", batch=1, context=8192)
        Traceback (most recent call last):
        KeyError: "this report states no quantity 'decode_tokens_per_second'; did you mean 'decode_tokens_per_s'?"
        """
        e = self.entry(qid, accounting, **params)
        if e is not None:
            return e.value
        acc = accounting or self.lead
        taken = self._params_of(qid, acc)
        if params and set(params) == taken and set(params) <= _GRID_AXES:
            return self.at(**params).value(qid, acc, **params)
        raise KeyError(self._why_not(qid, acc, params, taken))

    def _params_of(self, qid: str, accounting: str) -> set[str]:
        for e in self.entries:
            if e.id == qid and e.accounting == accounting:
                return set(e.params)
        return set()

    def _why_not(self, qid: str, accounting: str, params: dict, taken: set[str]) -> str:
        ids = sorted({e.id for e in self.entries if e.accounting == accounting})
        if qid not in ids:
            import difflib

            close = difflib.get_close_matches(qid, ids, n=3)
            other = sorted({e.accounting for e in self.entries if e.id == qid})
            if other:
                return f"{qid!r} is stated in the {', '.join(other)} accounting, not {accounting!r}"
            return (f"this report states no quantity {qid!r}" + (f"; did you mean {', '.join(map(repr, close))}?"
                                                                  if close else " (docs/results.md lists them)"))
        want = ", ".join(sorted(taken)) or "no parameters"
        return f"{qid!r} takes {want}, not {', '.join(sorted(params)) or 'no parameters'}"

    def at(self, batch=None, context=None, tokens=None) -> Results:
        """The report model of the same spec at other workload points: the decode grid ``batch`` x ``context``
        and the prefill ``tokens`` given (each a number or a list; the spec's own where not given), evaluated
        from the loaded spec without reading a file again.

        >>> import genreport
        >>> model = genreport.evaluate(genreport.load_spec("specs/llama8b-h100.yaml"))
        >>> # 16 / ((16.06 GB + 16 x 4096 x 128 KiB) / 3.35 TB/s)
        >>> round(model.at(batch=[1, 16], context=4096).value("decode_tokens_per_s", batch=16, context=4096))
        2174
        """
        import dataclasses

        def axis(x, own):
            if x is None:
                return own
            xs = tuple(int(v) for v in (x if isinstance(x, (list, tuple)) else (x,)))
            if not xs or any(v < 1 or v > 10**8 for v in xs):
                raise ValueError(f"workload points are whole numbers from 1 to 1e8, not {x!r}")
            return xs

        w = self.spec.workloads
        work = dataclasses.replace(w, decode_batch=axis(batch, w.decode_batch),
                                   decode_context=axis(context, w.decode_context),
                                   prefill_prompt=axis(tokens, w.prefill_prompt), measured=())
        return self._evaluate(dataclasses.replace(self.spec, workloads=work))

    def _evaluate(self, spec: ReportSpec) -> Results:
        if self.evaluator is None:
            raise ValueError("this report model was not built by genreport.evaluate(), which at() and what_if() use")
        return self.evaluator(spec)

    def what_if(self, *overrides: str) -> Results:
        """The report model with ``--set`` overrides added (``"precision.kv_cache=fp8"``), validated as on the
        command line (:class:`~genreport.errors.SpecError` for a bad one); the spec file is read again, so an
        edit made since shows.

        >>> import genreport
        >>> model = genreport.evaluate(genreport.load_spec("specs/llama8b-h100.yaml"))
        >>> model.what_if("precision.kv_cache=fp8").s("kv_bytes_per_token")   # 32 x 8 x 128 x 2 x 1 B
        65536.0
        """
        from pathlib import Path

        from genreport.load.loader import load_report

        if not self.spec.file:
            raise ValueError("this report model was not loaded from a file: load_spec(path, overrides=...) instead")
        return self._evaluate(load_report(Path(self.spec.file), overrides=(*self.spec.overrides, *overrides)))

    def _repr_html_(self) -> str:
        """A notebook's view: the title, whose numbers these are, and page 1's decision table, escaped."""
        from html import escape

        header, rows = self.decision_table()
        head = "".join(f"<th>{escape(h)}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
        return (f"<div class='genreport'><strong>{escape(self.spec.title)}</strong><p>{escape(self.frame_text())}; "
                f"weights {'fit' if self.verdicts.get('weights_fit', True) else 'do not fit'}.</p>"
                f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")

    def __repr__(self) -> str:
        return f"<genreport Results {self.spec.name!r}: {self.frame_text()}; {len(self.entries)} stated numbers>"

    def frame_text(self) -> str:
        """Whose numbers these are: one card, or one GPU of the layout."""
        par = self.spec.parallelism
        gpu = self.spec.hardware.title
        if par is None:
            return f"{self.spec.model.title} on one {gpu}"
        return (f"{self.spec.model.title} on {par.tp * par.pp * par.dp} x {gpu} (tp {par.tp}, pp {par.pp}, "
                f"ep {par.ep}, dp {par.dp}); per-GPU and per-replica numbers")

    def decision_table(self) -> tuple[list[str], list[list[str]]]:
        """Page 1's decision table as text cells: each workload, what binds, its time and rates (the strict
        bound, at the layout's scope), what fits; the records themselves are :attr:`decision`."""
        from genreport.present import fmt

        scope = " per replica" if self.frame is not None and self.frame.many else ""
        header = ["workload", "binds", "time", "tok/s per user", f"tok/s{scope}", "$/M tokens", "fits"]

        def cell(x, how):  # as page 1 prints it (templates/sections/s0_summary.html.j2's filters)
            return "-" if x is None else how(x)

        rows = []
        for x in self.decision:
            per_user = x.get("tokens_per_s_sequence") if x.get("workload") == "decode" else None
            rows.append([x["label"], x["binds"] or "-", cell(x.get("time"), fmt.time), cell(per_user, fmt.num),
                         cell(x.get("tokens_per_s"), fmt.num), cell(x.get("usd_per_mtok"), fmt.sig3),
                         _fits_cell(x)])
        return header, rows
