"""derive, the numbers: the value the report states at a spec point, the roots of a solved form with which branch holds, and numeric roots where SymPy finds no closed form."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from genreport.errors import Finding, SpecError


def _err(where: str, message: str, hint: str = "") -> SpecError:
    return SpecError([Finding(where, 0, 0, "", message, hint)])  # an argument: no line


@dataclass
class Numbers:
    """The spec's inputs at the workload point, and what a root needs to vary B or S."""

    spec: object
    env_obj: object  # genreport.model.evaluate.Env
    values: dict
    params: dict
    overridden: set = field(default_factory=set)  # input symbols set with --at
    point: str = ""  # where the point comes from, when not the command line's or the workloads' first
    note: str = ""  # a line after the inputs: what an input stands for where it is not its glossary meaning
    bounded: str = ""  # the same for d_h and c of windowed or chunked layers at the point (derive._bounded_note)
    schedule: str = ""  # the bound's micro-batches m_b at the point, where the formula takes them (derive._schedule_note)
    held: float | None = None  # weight bytes a GPU holds, where a step at the point reads other (N b)
    whole: bool = False  # a layout quantity: its inputs are the whole model's (N, L, c), which its formula divides
    unsliced: frozenset = frozenset()  # inputs set to the whole model's value at a layout: printed without _g


def _indent(text: str, n: int = 2) -> list[str]:
    return [" " * n + line for line in text.splitlines()]


def _own_value(qid: str, nums: Numbers) -> tuple[float | None, str]:
    """The value the report states at this point (the evaluation stage's rules: a numeric S* past a sliding
    window, no negative capacity or crossover), and why there is none."""
    from genreport.formulas.compiled import load
    from genreport.model.evaluate import stated_value

    q = load()
    # an input the spec does not give: absent, or left unset for --at (a request's T and T_o, a verify round's n_v and
    # k_d on a spec without a serving block: serving.round_point_values)
    missing = [a for a in q[qid].fn_args if a not in nums.values
               or (a != "m_b" and np.ndim(nums.values[a]) == 0 and np.isnan(float(nums.values[a])))]
    if missing:
        raise _err(nums.spec.file or "--spec", f"{qid} needs {', '.join(missing)}, which the spec does not give",
                   "set " + " ".join(f"--at {m}=NUMBER" for m in missing))
    try:
        return stated_value(q, nums.env_obj, qid, nums.values)
    except ZeroDivisionError:  # scalar inputs: tp_link_intensity at n_TP = 1 divides by n_TP - 1
        return None, "the formula divides by zero at these inputs"


_REPORTS: dict = {}  # (spec file, digest, overrides) -> the evaluated report: one evaluation per spec in a process


def report_of(spec, results=None):
    """The evaluation of ``spec`` (genreport.model.evaluate.evaluate), made once per spec and overrides in this
    process: the numbers derive states at the report's point are its entries.  ``results``: that evaluation, made
    already (kept for the calls after)."""
    k = (spec.file, spec.digest, tuple(spec.overrides))
    if results is not None or k not in _REPORTS:
        from genreport.model.evaluate import evaluate

        _REPORTS.clear()
        _REPORTS[k] = results if results is not None else evaluate(spec, plans=False)  # no search reads derive's point
    return _REPORTS[k]


def report_entry(qid: str, nums: Numbers, results=None):
    """The evaluation's entry of ``qid`` at derive's point (its parameters, its accounting): the number results.json
    states there; None where the report states none at that point.  ``results``: another evaluation of the spec to
    look in (the report's at a point off its grid, :func:`_off_grid`)."""
    from genreport.formulas.quantities import BY_ID
    from genreport.model.values import key

    acc = nums.env_obj.accounting
    index = (results if results is not None else report_of(nums.spec)).index
    qid = qid + ("" if acc == "seed" else "_exact")
    own = BY_ID[qid.removesuffix("_exact")].params if qid.removesuffix("_exact") in BY_ID else None
    # an option the quantity does not take (--batch for parameters) does not move its point
    mine = {k: v for k, v in nums.params.items() if own is None or k in own}
    # a layout's training quantities are stated per recipe; derive evaluates them at the spec's first
    recipes = nums.spec.workloads.recipes
    first = {**mine, "recipe": recipes[0]} if recipes and "recipe" not in mine else None
    return (index.get(key(qid, mine, acc)) or index.get(key(qid, nums.params, acc))
            or (index.get(key(qid, first, acc)) if first else None))


def scope_of(spec, entry_id: str) -> str:
    """Whose number an entry is (values.scope, results.json's ``scope``): one card's; at a layout the whole model's,
    the layout's, one replica's (the KV tokens and sequences it holds, the intensity there, its rounds, prompts and
    token rate, the crossover batch through a full pipeline), the whole model on one card, or one GPU's."""
    from genreport.model.values import scope

    par = spec.parallelism
    if par is None:
        return "one card's"
    shape = f"tp {par.tp} x pp {par.pp} x ep {par.ep} x dp {par.dp}"
    kind = scope(entry_id)
    if kind == "model":
        return f"the whole model's, whatever the layout (this report's: {shape})"
    if kind == "deployment":
        return f"the whole layout's ({par.gpus} GPU{'s' if par.gpus > 1 else ''} of {shape})"
    if kind == "one_card":
        return f"the whole model on one card, beside this report's {shape}"
    if kind == "replica":
        gpus = par.replica_gpus
        return (f"one replica's ({gpus} GPU{'s' if gpus > 1 else ''} of {shape})"
                + (f", over a round through {par.pp} pipeline stages" if par.pp > 1 else ""))
    return f"one GPU's of {shape}"


def _window_lines(qid: str, nums: Numbers, own, unit: str) -> list[str]:
    """Past a sliding window the report states S* solved numerically with the windows, not the closed form printed
    above at these inputs (gpt-oss-120b: 890 tokens, where the closed form gives 509): a line saying so."""
    if qid != "critical_context" or own is None or nums.overridden:
        return []
    from genreport.model.stated import closed_form

    closed = closed_form(qid, nums.values)
    if not np.isfinite(closed) or abs(closed - own) <= 1e-9 * max(abs(own), 1.0):
        return []
    w = int(nums.spec.model.attention.sliding_window or 0)
    return [f"  the closed form above at these inputs gives {_fmt(closed, unit)}, past the {w:,}-token sliding "
            "window, where it no longer holds (it assumes every layer attends to all S positions); the value is "
            "where the ceiling with the windowed layers meets the ridge, solved numerically, as the report states it"]


# what the serving chapter states only where a request has decode rounds (a one-token request has none): the ceilings
# a decode round sets, the chunked-prefill row's numbers (a chunk riding beside decode tokens), the rounds' stalls
_ONE_TOKEN_UNSTATED = {
    **dict.fromkeys(("goodput_rate_tpot", "goodput_rate_capacity", "goodput_rate_engine"),
                    "a rate the serving chapter does not state: a one-token request has no decode round (T_out - 1 = "
                    "0), so no sequence decodes to hold a cache, count against max_sequences or wait a TPOT; its "
                    "goodput is the least of the compute roof and the chunk budget"),
    **dict.fromkeys(("chunked_ttft", "prompt_chunk", "chunked_step_time", "chunked_step_intensity",
                     "chunked_life_cost", "chunked_steps", "chunk_step_share"),
                    "a number the serving chapter does not state: a one-token request has no decode round, so no "
                    "chunk rides beside decode tokens (the chapter has no chunked-prefill row)"),
    **dict.fromkeys(("steady_step_time", "steady_concurrency"),
                    "a number the serving chapter does not state: a one-token request has no decode round, so no "
                    "sequence decodes and no step is one a user waits on (the chapter states the share of the compute "
                    "its prompts take)"),
    **dict.fromkeys(("stall_free_rate", "unchunked_round_time", "unchunked_stall_time", "unchunked_step_time",
                     "goodput_rate_unchunked", "unchunked_ttft"),
                    "a number the serving chapter does not state: a one-token request has no decode round, so no "
                    "round runs between its prefills or stalls for one"),
}


def _one_token_unstated(qid: str, nums: Numbers) -> str | None:
    """The words saying the serving chapter leaves ``qid`` out at this point, a one-token request's (None where it
    states it, or derive is away from the spec's point)."""
    sv = nums.spec.serving
    if qid not in _ONE_TOKEN_UNSTATED or sv is None or sv.output > 1 or nums.overridden:
        return None
    return _ONE_TOKEN_UNSTATED[qid]


_AT: dict = {}  # (the spec, the point) -> the report's evaluation there: the last one, as report_of keeps the report's


def _off_grid(qid: str, nums: Numbers, own, unit: str, integer: str) -> list[str]:
    """At a workload point off the spec's grid (--batch, --context, --tokens the report does not state), the lines the
    grid's entries give: at a layout whose number it is (the report's value there, Results.at, where the formula above
    gives one GPU's ledgers instead: the docs review of stop 92 found no scope off the grid), and "does not run" where
    the point cannot (evaluate._marked, results.json's "fits": false: a review read 23.81 tok/s for Llama 3.1 70B in
    bf16 on one H100 at 2,048 tokens, with no word, beside "does not run" at 1,024).  Nothing away from the spec's
    inputs (--at), or for a quantity stated at no workload point."""
    if nums.overridden:
        return []
    p, w = nums.params, nums.spec.workloads
    decode = {"batch", "context"} <= set(p)
    prompt = "tokens" in p and not decode
    if decode and p["batch"] in w.decode_batch and p["context"] in w.decode_context:
        return []  # on the grid: the report's own entries say it where it states the quantity
    if prompt and p["tokens"] in w.prefill_prompt or not (decode or prompt):
        return []
    r = report_of(nums.spec)
    axes = {"batch", "context"} if decode else {"tokens"}
    if not any(e.id.removesuffix("_exact") == qid and set(e.params) == axes for e in r.entries):
        return []  # a quantity the report states at no such point: nothing to evaluate there
    # keyed as report_of keys the report (an object's id may be another spec's once the first is gone)
    point = (nums.spec.file, nums.spec.digest, tuple(nums.spec.overrides), *(p[k] for k in sorted(axes)))
    if point not in _AT:
        try:
            _AT.clear()
            _AT[point] = r.at(batch=p["batch"], context=p["context"]) if decode else r.at(tokens=p["tokens"])
        except (ValueError, TypeError):
            return []
    entry = report_entry(qid, nums, _AT[point])
    if entry is None:
        return []
    lines = []
    if nums.spec.parallelism is not None:
        whose = scope_of(nums.spec, entry.id)
        if own is not None and entry.value is not None and \
                abs(own - entry.value) <= 1e-9 * max(abs(entry.value), 1e-300):
            lines.append(f"  scope: {whose} (off the report's grid, as the report would state it here)")
        elif entry.value is not None:
            lines.append(f"  scope: the report would state {_fmt(entry.value, unit, integer)} here, {whose}; the formula "
                         "above gives one GPU's ledgers over its slice")
    return lines + _unfit_lines(entry, stated=False)


def _unfit_lines(entry, stated: bool) -> list[str]:
    """The "does not run" line under a value at a point that cannot run (Entry.unfit); ``stated``: results.json states
    the entry (the spec's grid), where it carries "fits": false."""
    if not entry.unfit:
        return []
    return [f"  does not run: {entry.unfit} (the value is what it would be, were it to fit"
            + ('; results.json: "fits": false)' if stated else ")")]


def stated_at_point(qid: str, nums: Numbers, unit: str, integer: str = "") -> tuple[float | None, str, list[str]]:
    """The value derive states, why there is none, and lines saying its scope.  At the report's own point (no
    input set with --at) it is the evaluation's entry there, the number results.json states; where the formula
    printed above, at derive's inputs, gives another number, the lines say whose the report's is and what the
    formula gives.  Away from the point (--at), or where the report states nothing there, the formula."""
    own, why = _own_value(qid, nums)
    window = _window_lines(qid, nums, own, unit)
    entry = None if nums.overridden else report_entry(qid, nums)
    if entry is None:
        lines = []
        unstated = _one_token_unstated(qid, nums) if own is not None else None
        if unstated is not None:  # the chapter leaves it out for a one-token request (techniques.PREFILL_CEILINGS)
            lines.append(f"  scope: {_replica_words(nums.spec)}, {unstated}")
        elif nums.overridden and nums.spec.parallelism is not None and not nums.whole:
            lines.append("  scope: the formula above at the inputs set with --at, one GPU's step over its slice "
                         "(the report's numbers are at its own point: run without --at for them)")
        elif own is not None and qid == "stall_free_rate" and nums.spec.serving is not None:
            # the chapter's unchunked rounds' rate, which results.json states (serving.techniques.rates)
            free = (((report_of(nums.spec).serving or {}).get("techniques") or {}).get("rates", {})
                    .get("unchunked", {}).get("stall_free"))
            same = free is not None and abs(own - free["rate"]) <= 1e-9 * max(abs(free["rate"]), 1e-300)
            lines.append(f"  scope: {_replica_words(nums.spec)}"
                         + (", as results.json states it (serving.techniques.rates.unchunked.stall_free.rate)" if same
                            else ", at the inputs above, not the serving chapter's"))
        elif own is not None and _chapters(qid):  # a rate or a round of the serving chapter
            # the chapter's own number where derive is at its point (no --at, --batch or --context moved it)
            par = nums.spec.parallelism
            whose = _replica_words(nums.spec)
            tail = (", as the serving chapter states it" if nums.spec.serving is not None and nums.point
                    and not nums.overridden else ", at the inputs above, not the serving chapter's point"
                    if nums.spec.serving is not None else f",{' the whole model' if par is not None else ''} at the "
                    "inputs above (--at)")
            row = _chunked_row_line(qid, own, nums)
            lines += row or [f"  scope: {whose}{tail}"]
        return own, why, lines + _off_grid(qid, nums, own, unit, integer) + window
    stated = entry.value
    # a point that cannot run (results.json's "fits": false): its number is the bound were it to fit, said so
    unfit = _unfit_lines(entry, stated=True)
    where = ", ".join(f"{k} = {v}" for k, v in entry.params.items())
    source = f"(results.json: {entry.id}" + (f" at {where}" if where else "") + ")"
    if (own is None and stated is None) or (own is not None and stated is not None
                                            and abs(own - stated) <= 1e-9 * max(abs(stated), 1e-300)):
        # at a layout the number is one GPU's or one replica's: say whose, as the report's tables do
        scope = [f"  scope: {scope_of(nums.spec, entry.id)} {source}"] if nums.spec.parallelism is not None else []
        return stated, entry.reason or why, scope + unfit + window
    scope = f"  scope: the report's value, {scope_of(nums.spec, entry.id)} {source}"
    if qid == "kv_bytes_per_token" and nums.spec.model.attention.kind == "mla":
        # the formula printed is attention's 2 H_kv d_h form, which MLA's latent replaces (the note's count)
        return stated, entry.reason, [scope, "  the formula above is the keys' and values' form; multi-head latent "
                                             "attention's cache is the note's count, the report's value", *unfit]
    if own is not None and _printed_beside(qid, entry, own, nums):
        # the report prints the formula at one GPU's slice in its block, the replica's value beside it (a review found
        # derive calling the block's 2,316 tok/s "not a number the report states")
        return stated, entry.reason, [
            scope, f"  the formula above at these inputs: {_fmt(own, unit, integer)}, one GPU's ledgers over its slice, "
            "as the report prints the formula's block beside the replica's value", *unfit]
    return stated, entry.reason, [
        scope, f"  the formula above at these inputs: {_fmt(own, unit, integer) if own is not None else 'none: ' + why}, "
        "not a number the report states", *unfit]


def _printed_beside(qid: str, entry, own: float, nums: Numbers) -> bool:
    """Whether a formula block of the report evaluates ``qid`` at ``entry``'s point to ``own`` (its closed form at one
    GPU's slice, which the block prints beside the entry's value)."""
    for block in report_of(nums.spec).blocks.values():
        e = getattr(block, "entry", None)
        value = getattr(block, "closed_form", None)
        if e is None or e.id != qid or e.params != entry.params or value is None:
            continue
        if np.isfinite(value) and abs(value - own) <= 1e-9 * max(abs(value), 1e-300):
            return True
    return False


def _chunked_row_line(qid: str, own: float, nums: Numbers) -> list[str]:
    """``chunked_ttft`` is one GPU's ledgers (results.json: serving.techniques.numbers.chunked_ttft); the chunked
    prefill row's TTFT is the layout's, the uncached prompt alone at the layout (its collectives) times chunked over
    alone, at least its steps at the row's TPOT: where the two differ, a line saying which the row states (a review
    found derive's 89.6 ms "as the serving chapter states it" beside the row's 108 ms)."""
    if qid != "chunked_ttft" or nums.overridden or nums.spec.serving is None or not nums.point:
        return []
    techniques = (report_of(nums.spec).serving or {}).get("techniques") or {}
    row = next((x for x in techniques.get("rows", ()) if x["technique"] == "chunked prefill"), None)
    shown = row["ttft"][1] if row is not None else None
    if shown is None or abs(shown - own) <= 1e-9 * max(abs(shown), 1e-300):
        return []
    return ["  scope: one GPU's ledgers, no collectives, as results.json states it "
            "(serving.techniques.numbers.chunked_ttft)",
            f"  the chunked prefill row's TTFT, {_fmt(shown, 's')}, is the layout's: the uncached prompt alone at the "
            "layout, its collectives included, times this over the same prompt in one step alone (chunked_ttft_ratio), "
            "and at least its chunks' steps at the row's TPOT"]


def _replica_words(spec) -> str:
    """Whose a serving chapter's rate or round is: one replica's, as the chapter states them; on one GPU the whole
    model on it, a replica of one."""
    par = spec.parallelism
    return (f"one replica's ({par.replica_gpus} GPU{'s' if par.replica_gpus > 1 else ''} of tp {par.tp} x pp {par.pp} x "
            f"ep {par.ep} x dp {par.dp})" if par is not None else f"the whole model on one GPU ({spec.hardware.title})")


def _chapters(qid: str) -> bool:
    """Whether ``qid`` is one of the serving chapter's rates and rounds (or its capacity beside a draft), which
    results.json does not list as entries."""
    from genreport.model.serving import REQUEST, VERIFY
    from genreport.model.techniques import AT_CHAPTER_POINT

    return qid in AT_CHAPTER_POINT or qid in VERIFY or qid in REQUEST or qid == "capacity_batch_draft"


def _fmt(v, unit: str, integer: str = "") -> str:
    if v is None or not np.isfinite(v):
        return "none (no finite value)"
    v = float(v)
    unit_text = "" if unit == "1" else f" {unit}"
    s = f"{v:.6g}{unit_text}"
    if unit in ("B/s", "FLOP/s", "B") and abs(v) >= 1e3:
        from genreport.load.units import format_si

        s += f" ({format_si(v, unit, digits=4)})"
    if integer == "round" and abs(v) >= 1 and v != round(v):
        s += f" (rounded: {round(v)})"
    elif integer == "floor" and abs(v) >= 1 and v != math.floor(v):
        s += f" (floor: {math.floor(v)})"
    return s


def _solution_lines(sol, label: str, qsym, fmt_eq, args, nums: Numbers | None, value, variant: str) -> list[str]:
    from genreport.formulas import solve as so

    lines = []
    head = f"solved for {sol.target}" + (f", at {so.expr_text(qsym)} = {label}" if label else "")
    if label:
        lines.append(f"{head}:  {so.text(sol.lhs, sol.rhs)}")
    else:
        lines.append(head + ":")
    notes = []
    if sol.expanded:
        notes.append(f"expanded c = 2 L H_kv d_h b_kv to reach {sol.target}")
    if sol.floor_dropped:
        notes.append("floor dropped: the root is where the integer steps")
    if notes:
        lines.append("  (" + "; ".join(notes) + ")")
    if sol.note:
        lines.append("  " + sol.note)
        return lines
    for br in sol.branches:
        tag = f"[{br.label}] " if br.label else ""
        if not br.roots:
            lines.append(f"  {tag}{br.note}")
        for root in br.roots:
            eq = fmt_eq(sol.target, root, sol.names)
            if tag and "\n" in eq:
                lines.append(f"  {tag}")
                lines += _indent(eq, 4)
            else:
                lines += _indent(tag + eq)
            if not args.no_latex:
                lines.append("  LaTeX: " + so.latex(sol.target, root, sol.names))
    if nums is not None:
        lines += _solution_numbers(sol, qsym, nums, value, variant)
    return lines


def _solution_numbers(sol, qsym, nums: Numbers, value, variant: str) -> list[str]:
    from genreport.formulas import solve as so
    from genreport.formulas.glossary import BY_NAME
    from genreport.formulas.quantities import BY_ID

    unit = BY_NAME[sol.target.name].unit
    qunit = BY_ID[sol.qid].unit
    vals = dict(nums.values)
    if value is None:
        own, why = _own_value(sol.qid, nums)
        if own is None:
            return [f"  with the spec: {so.expr_text(qsym)} has no value ({why}), so there is nothing to solve at "
                    "the spec's point; give one with --at"]
        vals[qsym.name] = own
        # with --at's inputs it is the value there, not the spec's own (a review read "S* = 3.7e-10 token (the spec's
        # own value)" after --at W=3)
        whose = ("the spec's own value" if not nums.overridden else
                 "its value with --at's " + ", ".join(sorted(nums.overridden)))
        lines = [f"  with the spec: {so.expr_text(qsym)} = {_fmt(own, qunit)} ({whose})"]
    else:
        vexpr = so.value_expr(value, variant)
        number = None if sol.target in vexpr.free_symbols else _evaluate(vexpr, vals)
        shown = f" = {_fmt(number, qunit)}" if number is not None and value.text != f"{number:g}" else ""
        lines = [f"  with the spec: {so.expr_text(qsym)} = {value.text}{shown}"]
    found = []
    why = _numeric_reason(sol, nums)
    held = ("  (closed form, holding c_s at the spec's hit)" if why.startswith("windowed or chunked")
            else "  (closed form, holding N and c at the spec's point)" if why else "")
    for br in sol.branches:
        tag = f"[{br.label}] " if br.label else ""
        for root in br.roots:
            x = _evaluate(root, vals)
            if x is None or not np.isfinite(x):
                continue
            if x <= 0 and _at_zero(sol.target.name, x, vals):
                x = 0.0  # the root is 0, within the arithmetic's rounding (h_p = -1.1e-13 for the spec's own 0)
            elif x <= 0:
                # where the numeric search below recounts what the closed form holds, this root is not the last word
                lines.append(f"    {tag}{sol.target} = {x:.6g}{held} is not positive"
                             + ("" if why else f": no {sol.target} reaches this value"))
                continue
            if _past_one(sol.target.name, x):
                lines.append(f"    {tag}{sol.target} = {x:.6g}{held} is past 1: {sol.target} is a share"
                             + ("" if why else f", so no {sol.target} reaches this value"))
                continue
            if br.piece is not None and not _branch_active(br, sol.target, x, vals):
                lines.append(f"    {tag}{sol.target} = {_fmt(x, unit)} is not valid: there the step is not "
                             f"{br.label}")
                continue
            found.append(x)
            lines.append(f"    {tag}{sol.target} = {_fmt(x, unit)}{_direction(sol, x, vals)}{held}")
    warning = _expansion_warning(sol, nums)
    if warning:
        lines.append(warning)
    if why or (not found and not warning):
        reason = why or ("SymPy found no closed form" if not any(b.roots for b in sol.branches)
                         else "no closed form gave a valid positive value")
        roots = [x for x in _numeric(sol, nums, vals) if not _past_one(sol.target.name, x)]
        for x in roots:
            lines.append(f"    {sol.target} = {_fmt(x, unit)}  (numeric root: {reason})")
        if not roots and not found and any(b.roots for b in sol.branches) and not why:
            bound = _share_bound(sol.target.name)
            which = f"{sol.target}{bound}" if bound else f"positive {sol.target}"
            lines.append(f"    a numeric root search finds no {which} either")
        elif not roots:
            bound = _share_bound(sol.target.name)
            which = f"{sol.target}{bound}" if bound else f"positive {sol.target}"
            lines.append(f"    no {which} reaches this value (numeric root search: {reason})")
    return lines


def _share_bound(name: str) -> str:
    """" below 1" for a share that stays under 1 (glossary.BELOW_ONE: an acceptance, a prefix hit), " of at most 1"
    for one that reaches it (AT_MOST_ONE: a measured share of a peak), "" for any other symbol."""
    from genreport.formulas.glossary import AT_MOST_ONE, BELOW_ONE

    return " below 1" if name in BELOW_ONE else " of at most 1" if name in AT_MOST_ONE else ""


def _past_one(name: str, x: float) -> bool:
    """Whether a root ``x`` of a share lies past what the share can be (:func:`_share_bound`), as ``--at`` refuses
    it (the hostile review of stop 89: ``--for p_a --at speculative_expected_tokens=20`` with 3 draft tokens, which
    at most 4 reach, printed p_a = 2.26427)."""
    bound = _share_bound(name)
    return (bound == " below 1" and x >= 1.0) or (bound == " of at most 1" and x > 1.0 + 1e-12)


def _at_zero(name: str, x: float, vals: dict) -> bool:
    """Whether a root ``x`` <= 0 of a symbol that may be 0 (not in glossary.ABOVE_ZERO: a prefix hit, an activation
    traffic, an acceptance) is 0 within rounding: |x| at most 1e-9 of the symbol's scale (its value at the spec's point,
    1 for a share).  The hostile review of stop 88: ``derive goodput_rate_tpot --for h_p`` of a spec with no prefix
    cache found h_p = -1.14e-13 and called it "not positive: no h_p reaches this value", where the spec's own 0 does."""
    from genreport.formulas.glossary import ABOVE_ZERO

    if name in ABOVE_ZERO:
        return False
    scale = max(1.0, abs(float(np.ravel(vals.get(name, 0.0))[0])))
    return abs(x) <= 1e-9 * scale


def _evaluate(expr, vals: dict) -> float | None:
    import sympy as sp

    free = sorted(expr.free_symbols, key=lambda s: s.name)
    missing = [s.name for s in free if s.name not in vals]
    if missing:
        return None
    fn = sp.lambdify(free, expr, "numpy")
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(fn(*[vals[s.name] for s in free]), dtype=complex if expr.has(sp.sqrt) else float)
    except (OverflowError, ZeroDivisionError):  # exact numbers past a float's range (1e300*1e300): no finite value
        return None
    if np.iscomplexobj(out):
        if abs(out.imag) > 1e-9 * max(abs(out.real), 1.0):
            return None
        out = out.real
    return float(out)


def _branch_active(br, target, x: float, vals: dict) -> bool:
    vals = {**vals, target.name: x}
    p = [_evaluate(piece, vals) for piece in br.pieces]
    mine = _evaluate(br.piece, vals)
    if mine is None or any(v is None for v in p):
        return True
    best = max(p) if br.kind == "max" else min(p)
    return abs(mine - best) <= 1e-9 * max(abs(best), 1e-300)


def _direction(sol, x: float, vals: dict) -> str:
    """For a dropped floor: on which side of the root the integer is at least the value."""
    if not sol.floor_dropped:
        return ""
    import sympy as sp

    d = sp.diff(sol.rhs, sol.target)
    slope = _evaluate(d, {**vals, sol.target.name: x})
    if slope is None or slope == 0:
        return ""
    side = "<=" if slope < 0 else ">="
    return f"; {sol.qid} >= {_plain(sol.lhs)} while {sol.target} {side} {x:.6g}"


def _plain(expr) -> str:
    from genreport.formulas import solve as so

    return so.expr_text(expr)


def _numeric_reason(sol, nums: Numbers) -> str:
    """Why the closed form does not hold for this model, if it does not: then a numeric root is sought."""
    from genreport.formulas import architecture as arch

    model = nums.spec.model
    t = sol.target.name
    if t == "B" and model.moe is not None and sol.rhs.has(_sym("N")):
        return "mixture of experts: the parameters read, N, grow with the batch"
    if t == "S" and arch.local_layers(model) and sol.rhs.has(_sym("c")) and "c" not in nums.overridden:
        return "sliding-window layers: the KV bytes per token, c, shrink with the context"
    if _prefix_held_of(sol, nums) is not None:
        return ("windowed or chunked layers: c_s, the bytes per token of the prefix a sequence still holds, grows with "
                "the cached prefix h_p T_in")
    return ""


def _prefix_held_of(sol, nums: Numbers):
    """c_s as a function of the hit h_p where it depends on it (a model with windowed or chunked layers: a longer
    cached prefix reaches further into the windows), for ``prefix_capacity_batch`` at its context and
    ``goodput_rate_capacity`` averaged over the request's decode contexts, each scaled as the spec's own c_s is (a
    stage's share of the cache); None where c_s does not move with h_p or is set by hand.  The review of stop 89:
    ``derive prefix_capacity_batch --for h_p`` held c_s at the spec's hit and solved Llama 4 Scout to 0.597 where
    about 0.758 gives the value."""
    from genreport.formulas.architecture import bounded_layers
    from genreport.model.serving import prefix_held_c

    sv, vals = nums.spec.serving, nums.values
    if (sol.target.name != "h_p" or sv is None or "c_s" not in vals or "c_s" in nums.overridden
            or not sol.rhs.has(_sym("c_s")) or not bounded_layers(nums.spec.model)
            or sol.qid not in ("prefix_capacity_batch", "goodput_rate_capacity")):
        return None
    env, prompt = nums.env_obj, float(sv.prompt)
    if sol.qid == "prefix_capacity_batch":
        if "S" in nums.overridden or "c" in nums.overridden:
            return None
        context, c = float(np.ravel(vals["S"])[0]), float(np.ravel(vals["c"])[0])

        def base(x):
            return prefix_held_c(env, context, prompt * x, c)
    else:  # prefix_held_mean_c's mean over the decode contexts, the cache held there counted once for every hit
        from genreport.model.serving import _prefix_share

        contexts = np.arange(sv.prompt + 1, sv.prompt + sv.output, dtype=float)
        held = np.asarray(env.at(context=contexts)["c"], dtype=float) * np.ones_like(contexts)

        def base(x):
            return float(np.mean(held * _prefix_share(env.model, contexts, prompt * x)))
    own = base(sv.prefix_hit) if sv.prefix_hit > 0 else None
    spec_cs = float(np.ravel(vals["c_s"])[0])
    ratio = spec_cs / own if own else 1.0  # the stage's share, as the spec's own c_s takes it
    return lambda x: ratio * base(float(x))


def _expansion_warning(sol, nums: Numbers) -> str:
    """The expanded c = 2 L H_kv d_h b_kv against the model's own c (MLA and windows differ)."""
    if "c" not in sol.expanded:
        return ""
    from genreport.formulas.memory import kv_bytes_per_token

    formula = _evaluate(kv_bytes_per_token(), nums.values)
    own = float(np.asarray(nums.values["c"]).ravel()[0])
    if formula is None or abs(formula - own) <= 1e-9 * formula:
        return ""
    return (f"    note: this model caches c = {own:.6g} B/token, but 2 L H_kv d_h b_kv = {formula:.6g} "
            f"(MLA latent or sliding windows); the values above use the formula")


def _sym(name: str):
    from genreport.formulas.glossary import sym

    return sym(name)


def _numeric(sol, nums: Numbers, vals: dict) -> list[float]:
    """Bracketing roots of value - quantity, varying the target (B and S through the spec's model)."""
    import sympy as sp
    from genreport.formulas.solve import numeric_roots

    eq = sol.rhs - sol.lhs
    free = sorted(eq.free_symbols, key=lambda s: s.name)
    if any(s.name not in vals and s != sol.target for s in free):
        return []
    fn = sp.lambdify(free, eq, "numpy")
    t = sol.target.name
    env_obj, params = nums.env_obj, nums.params
    held_of = _prefix_held_of(sol, nums)
    if held_of is not None:  # c_s moves with the hit: a share's roots, c_s recounted at each (a scalar search)
        def g(x: float) -> float:
            v = {**vals, t: np.float64(x), "c_s": np.float64(held_of(x))}
            if "C_p" in v and "C_p" not in nums.overridden and "s_c" in v and "T_in" in v:
                # the steady state's chunk, min(s_c, T_in (1 - h_p)), moves with the hit too
                v["C_p"] = np.float64(min(float(np.ravel(v["s_c"])[0]), float(np.ravel(v["T_in"])[0]) * (1 - x)))
            with np.errstate(all="ignore"):
                try:  # a pole of the quantity (its denominator 0 at one hit) is no root
                    return float(np.ravel(fn(*[v[s.name] for s in free]))[0])
                except ZeroDivisionError:
                    return math.nan

        return share_roots(g)

    def inputs(x):
        if t == "B":
            env = env_obj.at(batch=x, context=params.get("context"))
        elif t == "S":
            env = env_obj.at(batch=params.get("batch"), context=x)
        else:
            env = {}
        merged = {**vals, **{k: env[k] for k in ("N", "c") if k in env and k not in nums.overridden}}
        merged[t] = x
        return merged

    def f(x):
        v = inputs(np.asarray(x, dtype=float))
        return fn(*[v[s.name] for s in free])

    return numeric_roots(f)


def share_roots(g, points: int = 96, iterations: int = 60) -> list[float]:
    """Roots in (0, 1) of a scalar ``g`` (a share's equation whose inputs are recounted at each value, so not
    vectorised): a scan of ``points`` values spaced evenly in the log-odds from 1e-6 to 1 - 1e-6 and a bisection of
    each sign change, dropping those across a pole (where |g| grows instead of vanishing)."""
    z = np.linspace(-13.8, 13.8, points)
    x = 1 / (1 + np.exp(-z))
    with np.errstate(all="ignore"):
        y = np.array([g(float(v)) for v in x])
    roots = []
    for i in range(points - 1):
        a, b, fa, fb = float(x[i]), float(x[i + 1]), y[i], y[i + 1]
        if not (np.isfinite(fa) and np.isfinite(fb)) or fa * fb > 0:
            continue
        if fa == 0:
            roots.append(a)
            continue
        for _ in range(iterations):
            mid = 0.5 * (a + b)
            fm = g(mid)
            if not np.isfinite(fm):
                break
            if np.sign(fm) == np.sign(fa):
                a, fa = mid, fm
            else:
                b = mid
        if abs(g(0.5 * (a + b))) <= max(abs(y[i]), abs(y[i + 1])):  # not a pole
            roots.append(0.5 * (a + b))
    return roots

