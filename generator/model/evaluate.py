"""Evaluate stage: a loaded spec in, every number of the report out.  No disk, no drawing.

Two accountings are evaluated with the same compiled expressions:

* ``seed``: seed 003's simplified accounting -- all N (declared) parameters are
  read and do arithmetic every step (N_e = 0);
* ``exact``: per matrix -- N is counted from the shapes, the input embedding is a
  row lookup (N_e = V d when untied), norms and head included.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from genreport.formulas.compiled import glossary_latex, load
from genreport.formulas.glossary import ENTRIES
from genreport.formulas.recipes import TRAINING_WEIGHT_BYTES, training_compute
from genreport.load.spec import ReportSpec
from genreport.model import decision, layout, measured, plan, serving_report, shown, tables, techniques
from genreport.model.env import READ_AT_CONTEXT, Env, make_env, spec_env, usable_at  # noqa: F401 - re-exported
from genreport.model.frame import frame
from genreport.model.results import Results
from genreport.model.stated import (  # noqa: F401 - re-exported
    _clean,
    critical_context,
    critical_reason,
    intensity_at_capacity,
    latex_of,
    stated_value,
    variant_of,
)
from genreport.model.values import NO_FIT, Entry, physical, unfit_decode, unfit_prompt

ACCOUNTINGS = ("seed", "exact")


def evaluate(spec: ReportSpec, plans: bool = True) -> Results:
    """Every number of the report for ``spec``, computed once.  ``plans=False`` leaves out the serving chapter's two
    searches over other layouts, its cheapest layout (``plan`` over every layout and format) and its frontier figure
    (None each): 70-75% of a serving spec's evaluation, which ``derive`` and the live page's what-ifs do not read;
    every other number is the whole evaluation's."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return _evaluate(spec, plans)


def _without_plans(spec: ReportSpec) -> Results:
    """``evaluate(spec, plans=False)``: what an evaluation without the layout searches evaluates its what-ifs with."""
    return evaluate(spec, plans=False)


SCALARS = ("peak_flops", "bandwidth", "capacity", "ridge_point", "parameters", "weight_bytes",
           "kv_bytes_per_token", "kv_capacity_tokens", "attention_intensity", "training_flops_per_token")
DECODE = ("decode_flops", "decode_bytes", "decode_time_memory", "decode_time_compute", "decode_tokens_per_s",
          "decode_intensity")
PREFILL = ("prefill_flops", "prefill_bytes", "prefill_intensity", "prefill_time_compute", "prefill_time_memory",
           "weight_reuse_intensity")


# the scalars of the memory a GPU holds (Env.held: with pipeline stages, the stage that holds the fewest tokens)
HELD = frozenset({"capacity", "weight_bytes", "kv_bytes_per_token", "kv_capacity_tokens"})

ONE_CARD_SCALARS = ("weight_bytes", "weight_stream_time", "kv_capacity_tokens")


def _evaluate(spec: ReportSpec, plans: bool) -> Results:
    q = load()
    envs = {acc: layout.report_env(spec, acc) for acc in ACCOUNTINGS}  # one GPU of the spec's layout
    w = spec.workloads
    batch = np.asarray(w.decode_batch, dtype=float)
    ctx = np.asarray(w.decode_context, dtype=float)
    scalars, per_context, decode, prefill, numeric, reasons, one_card = {}, {}, {}, {}, set(), {}, {}
    for acc, env in envs.items():
        sc: dict[str, float | None] = {}
        why = reasons.setdefault(acc, {})
        base, held = env.at(), env.held()  # the memory's quantities on the stage that holds the fewest tokens
        for qid in SCALARS:
            sc[qid], why[qid] = physical(qid, q[qid](held if qid in HELD else base))
        # c from the architecture (MLA caches a latent, not 2 H_kv d_h): the formula 2 L H_kv d_h b_kv is MHA/GQA's
        sc["kv_bytes_per_token"] = _clean(held["c"])
        one = env.at(batch=1.0)  # what one token streams: for MoE only the experts it touches
        for qid in ("weight_stream_time", "weight_flops_time"):
            sc[qid] = _clean(q[qid](one))
        sc["critical_context"], is_numeric = critical_context(q, env)
        if is_numeric:
            numeric.add(acc)
        if not env.cut.trivial:  # the model's own count; the layout's numbers are one GPU's slice
            sc["parameters"] = _clean(env.card["N"])
            card = _whole_on_one_card(env, spec)
            one_card[acc] = {"capacity": card.values["C"], "weight_bytes": _clean(q["weight_bytes"](card.at())),
                             "weight_stream_time": _clean(q["weight_stream_time"](card.at(batch=1.0))),
                             # the whole model's, beside one GPU's H_q / n_TP query heads over its cache slice
                             "attention_intensity": _clean(q["attention_intensity"](card.at())),
                             "kv_capacity_tokens": physical("kv_capacity_tokens", q["kv_capacity_tokens"](card.at()))[0]}
        scalars[acc] = sc
        if len(ctx):
            held, read = env.held(context=ctx), env.at(context=ctx, reads=True)  # the cache a sequence holds, a step reads
            per = {qid: np.asarray(q[qid](read if qid in READ_AT_CONTEXT else held), dtype=float) * np.ones_like(ctx)
                   for qid in ("decode_intensity_ceiling", "capacity_batch")}
            # the memory C of the GPU whose stage binds at each context (capacity_at_context): the scalar capacity's
            # stage holds the fewest tokens without a window's share; past a window another stage may bind (Gemma 3
            # 27B int4 at pp 4 on L4: the last stage, its logits' workspace too, 21.69 GB beside 21.96)
            per["capacity_at_context"] = np.asarray(held["C"], dtype=float) * np.ones_like(ctx)
            # a full pipeline streams each GPU's slice once per stage's micro-batch
            per["crossover_batch"] = np.asarray(q["crossover_batch"](env.crossover_at(ctx)), dtype=float) * np.ones_like(ctx)
            per["capacity_batch_raw"] = per["capacity_batch"]
            per["capacity_batch"] = np.maximum(per["capacity_batch"], 0)  # a count of sequences: 0 when none fits
            # at the batch's own reads (stated.intensity_at_capacity: derive states the same number)
            per["intensity_at_capacity"] = intensity_at_capacity(q, env, ctx)[0] * np.ones_like(ctx)
            per_context[acc] = per
        if len(batch) and len(ctx):
            g = env.at(batch=batch[:, None], context=ctx[None, :])
            decode[acc] = {qid: np.broadcast_to(np.asarray(q[qid](g), dtype=float), (len(batch), len(ctx))).copy()
                           for qid in DECODE}
        if w.prefill_prompt:
            t = np.asarray(w.prefill_prompt, dtype=float)
            pe = env.at(T=t)
            prefill[acc] = {qid: np.asarray(q[qid](pe), dtype=float) * np.ones_like(t) for qid in PREFILL}
    r = Results(
        spec=spec, envs=envs, q=q, params=envs["exact"].pc, scalars=scalars, per_context=per_context,
        decode=decode, prefill=prefill, gemm=tables.gemms(spec, envs["seed"], q),
        training=tables.training(spec, _whole_on_one_card(envs["seed"], spec), q),
        compare=tables.compare(spec, q, make_env), compare_models=tables.compare_models(spec, q, make_env),
        verdicts={}, numeric_critical_context=frozenset(numeric), reasons=reasons, one_card=one_card,
        evaluator=evaluate if plans else _without_plans,  # at() and what_if() evaluate as this one
    )
    if spec.parallelism is not None:  # many GPUs: the interconnect ledger, the bound of a round and its rates
        r = replace(r, parallel=layout.evaluate_parallel(r))
        r = replace(r, decode=_at_layout_rates(r))
    r = replace(r, verdicts=_verdicts(r))
    r = replace(r, frame=frame(r), symbols_tex=glossary_latex(), notation=tuple(ENTRIES))
    entries = tuple(_entries(r))
    if r.parallel is not None:
        entries += r.parallel.entries
    entries = _marked(r, entries)
    r = replace(r, entries=entries, index={e.key: e for e in entries})
    r = replace(r, blocks=shown.blocks(r), curves=shown.curves(r), levers=tuple(shown.levers(r)),
                sensitivities=tuple(shown.sensitivities(r)), facts=shown.facts(r), moe_reads=shown.moe_reads(r))
    r = _with_measurements(r)
    r = replace(r, many=plan.many_gpus(r))
    r = replace(r, serving=serving_report.report(r, plans))
    tech, tech_blocks = techniques.report(r)
    if r.serving is not None:  # the serving chapter's engine techniques (None: the layout holds no request), their blocks
        r = replace(r, serving={**r.serving, "techniques": tech}, blocks={**r.blocks, **tech_blocks})
    r = replace(r, fit_options=tuple(decision.fit_options(r)),
                hierarchy=tables.memory_hierarchy(spec) if spec.seed == "000" else (),
                states=tables.diagnosis_states(spec.hardware) if spec.seed == "000" else ())
    r = replace(r, decision=tuple(decision.rows(r)))
    _freeze(r)
    return r


def _at_layout_rates(r: Results) -> dict:
    """The decode grids at a layout: a replica's token/s at the strict bound of a round (compute, HBM and
    interconnect ledgers overlapped, through the pipeline), not one GPU's ledgers without the links."""
    out = {}
    for acc, grid in r.decode.items():
        par = r.parallel.decode.get(acc)
        out[acc] = dict(grid)
        if par is not None:
            out[acc]["decode_tokens_per_s"] = par["decode_tokens_per_s_replica"].copy()
    return out


def _with_measurements(r: Results) -> Results:
    if r.spec.workloads.measured and r.spec.measured_elsewhere:  # a what-if of what they did not run on
        rechecked = measured.rechecked(r)
        r = replace(r, measured=(), measured_rechecked=rechecked,
                    measured_not_compared=measured.not_compared(r.spec, rechecked))
    elif r.spec.workloads.measured:
        r = replace(r, measured=tuple(measured.analyse(r)))
    r = replace(r, derated=measured.derated(r) if r.spec.efficiency else None)
    if r.derated is None or r.derated["decode"] is None:
        return r
    # the derated decode rate is a documented quantity (docs/results.md), stated at every point of the grid
    c, dec, acc = r.q["decode_tokens_per_s_derated"], r.derated["decode"], r.derated["accounting"]
    tex = latex_of(r, "decode_tokens_per_s_derated", acc)
    suffix = "" if acc == "seed" else "_exact"
    extra = []
    for i, b in enumerate(dec["batch"]):
        for j, s in enumerate(dec["context"]):
            value, why = physical("decode_tokens_per_s_derated", dec["tokens_per_s"][i, j], c.integer)
            extra.append(Entry("decode_tokens_per_s_derated" + suffix, {"batch": b, "context": s}, value, c.unit,
                               c.symbol, tex, acc, why))
    entries = r.entries + _marked(r, tuple(extra))
    return replace(r, entries=entries, index={e.key: e for e in entries})


def _freeze(x) -> None:
    """Make every array of the report model read-only: nothing downstream may change a number."""
    if isinstance(x, np.ndarray):
        x.flags.writeable = False
    elif isinstance(x, dict):
        for v in x.values():
            _freeze(v)
    elif isinstance(x, (list, tuple)):
        for v in x:
            _freeze(v)
    elif isinstance(x, Results):
        for name in ("scalars", "per_context", "decode", "prefill", "gemm", "training", "curves", "verdicts",
                     "derated"):
            _freeze(getattr(x, name))


def _verdicts(r: Results) -> dict[str, object]:
    """What binds each workload at the spec's layout: one GPU's ledgers (and its links), capacity per replica."""
    lead = r.lead
    sc = r.scalars[lead]
    v: dict[str, object] = {}
    v["weights_fit"] = sc["weight_bytes"] <= sc["capacity"]  # one GPU's share of the weights
    if lead in r.one_card:
        v["weights_fit_one_card"] = r.one_card[lead]["weight_bytes"] <= r.one_card[lead]["capacity"]
    par = r.parallel
    if lead in r.decode:
        g = r.decode[lead]
        cap = r.per_context[lead]["capacity_batch"]
        batch = np.asarray(r.spec.workloads.decode_batch)
        if par is not None and par.binds is not None:
            binds = par.binds.copy()
        else:
            binds = np.where(g["decode_time_memory"] >= g["decode_time_compute"], "bandwidth", "compute").astype(object)
        over = batch[:, None] > cap[None, :]
        binds[over] = "capacity"
        v["decode_binds"] = binds
    if lead in r.prefill:
        p = r.prefill[lead]
        tc, tm = p["prefill_time_compute"], p["prefill_time_memory"]
        if par is not None and lead in par.prefill:  # the layout's ledgers of a GPU of the prompt's replica, the
            # routed experts' FLOPs over the expert group (one GPU's slice of the card's FLOPs gave it them all)
            tc, tm = par.prefill[lead]["prefill_time_compute_gpu"], par.prefill[lead]["prefill_time_memory_gpu"]
        binds = np.where(tc >= tm, "compute", "bandwidth").astype(object)
        if par is not None and lead in par.prefill:
            comm = par.prefill[lead]["prefill_time_comm"]
            binds[comm > np.maximum(tc, tm)] = "interconnect"
        v["prefill_binds"] = binds
        v["prefill_fits"] = prompt_fits(r, lead)
    if r.training:
        t = r.spec.workloads.training_tokens
        v["training_intensity"] = float(r.q["training_weight_reuse_intensity"](
            r.envs[lead].at(T=float(t), b=TRAINING_WEIGHT_BYTES)))
        # the recipes' GEMMs run in bf16 (recipes.TRAINING_COMPUTE): their ridge is the bf16 peak's over W
        fmt = training_compute(r.spec.hardware.dense, r.spec.precision.compute)
        v["training_compute"] = fmt
        v["training_ridge"] = float(r.spec.hardware.dense[fmt]) / float(np.ravel(r.envs[lead].values["W"])[0])
        v["training_binds"] = "compute" if v["training_intensity"] >= v["training_ridge"] else "bandwidth"
    return v


# the entries at a prompt that are the prefill's own (weight_reuse_intensity, 2T/b, is the intensity of any T-token
# pass over the weights, stated at T = 1 and the training tokens too: no KV cache of its own)
_PROMPT_IDS = frozenset(PREFILL + layout.PREFILL + tuple(layout.OCCUPANCY)) - {"weight_reuse_intensity"}
# a quantity of whether a point fits, not of a point that runs
_NOT_A_RUN = frozenset({"min_gpus_to_fit"})


def _marked(r: Results, entries: tuple[Entry, ...]) -> tuple[Entry, ...]:
    """``entries`` with those at a workload point that cannot run saying why (``Entry.unfit``; results.json's
    ``"fits": false``): a decode point whose batch is more sequences than fit at its context (each accounting's
    capacity_batch, one replica's at a layout: verdicts.decode_binds' "capacity"), a prefill whose prompt's KV cache
    does not fit (verdicts.prefill_fits).  Their values stay, the bound were the point to fit, as the tables state it."""
    w = r.spec.workloads
    weights_fit = bool(r.verdicts.get("weights_fit", True))
    replica = r.parallel is not None
    decode, prompts = {}, {}
    for acc in r.per_context:
        cap = r.per_context[acc]["capacity_batch"]
        decode[acc] = {(float(b), float(s)): unfit_decode(b, s, float(cap[j]), weights_fit, replica)
                       for b in w.decode_batch for j, s in enumerate(w.decode_context)}
    for acc in r.prefill:
        fits = prompt_fits(r, acc) if acc != r.lead else r.verdicts["prefill_fits"]
        prompts[acc] = {float(t): "" if ok else unfit_prompt(t, weights_fit, replica)
                        for t, ok in zip(w.prefill_prompt, fits, strict=True)}
    out = []
    for e in entries:
        why = ""
        base = e.id.removesuffix("_exact")
        if set(e.params) == {"batch", "context"} and base not in _NOT_A_RUN:
            why = decode.get(e.accounting, {}).get((float(e.params["batch"]), float(e.params["context"])), "")
        elif set(e.params) == {"tokens"} and base in _PROMPT_IDS:
            why = prompts.get(e.accounting, {}).get(float(e.params["tokens"]), "")
        out.append(replace(e, unfit=why) if why else e)
    return tuple(out)


def prompt_fits(r: Results, acc: str) -> list[bool]:
    """Whether one sequence of each of the spec's prompts fits beside the weights: the replica's capacity_batch_replica
    (at a layout, the binding stage's) or the card's capacity_batch at context T, at least 1.  A prefill writes the
    prompt's whole KV cache: a 102,400-token prompt of Llama 3.1 70B on 2 H100, whose replica holds 34,202 tokens,
    read "fits" with a price (QA)."""
    prompts = np.asarray(r.spec.workloads.prefill_prompt, dtype=float)
    if r.parallel is not None:
        caps = [float(np.ravel(r.q["capacity_batch_replica"](layout.point_values(
            r.spec, acc, "capacity_batch_replica", context=float(t))))[0]) for t in prompts]
    else:
        caps = np.ravel(np.asarray(r.q["capacity_batch"](r.envs[acc].held(context=prompts)), dtype=float))
    return [bool(c >= 1) for c in caps]


def _whole_on_one_card(env: Env, spec: ReportSpec) -> Env:
    """The inputs on one card holding the whole model, with what one card keeps for it: its own workspace (one step's
    activations at tp 1), not the layout's GPU's (a tp 8 GPU's FFN share is an eighth: Mixtral 8x22B on H200 126.4
    GiB, not 125.2). The frame's whole-model column and the training state (chapter 5, figure 7) both read it: a
    layout's training state was once judged against the layout GPU's 171.1 GiB beside figure 7's 171.8."""
    card = env.one_card()
    if not env.cut.trivial:  # none where one card's workspace takes all the reserve leaves (a 400k-token step of a
        # 70B: -4.4 GiB "one card alone keeps" for its weights, the hostile review of stop 89): a room, never negative
        card.values["C"] = max(usable_at(spec.hardware, spec.model, 1), 0.0)
    return card


def _entries(r: Results) -> list[Entry]:
    out: list[Entry] = []
    w = r.spec.workloads
    mla = r.spec.model.attention.kind == "mla"
    seen: set[tuple] = set()

    def add(qid, params, value, acc, suffix="", reason=""):
        c = r.q[qid]
        tex = latex_of(r, qid, acc)
        if qid == "kv_bytes_per_token" and mla:  # MLA caches a latent and a RoPE key per layer, not 2 H_kv d_h
            tex = r"c = L \, (r + \rho) \, b_{kv}"
        stated, why = physical(qid, value, c.integer)
        e = Entry(qid + suffix, dict(params), stated, c.unit, c.symbol, tex, acc, reason or why)
        if e.key not in seen:
            seen.add(e.key)
            out.append(e)

    for acc in ACCOUNTINGS:
        suffix = "" if acc == "seed" else "_exact"
        sc = r.scalars[acc]
        for qid, value in sc.items():
            if acc == "exact" and qid in ("peak_flops", "bandwidth", "capacity", "ridge_point"):
                continue
            reason = r.reasons[acc].get(qid, "")
            if value is None and qid == "critical_context":
                reason = critical_reason(r, acc)
            add(qid, {}, value, acc, suffix, reason)
        for qid, value in r.one_card.get(acc, {}).items():  # the whole model on one card, under its own id
            add(qid, {}, value, acc, "_one_card" + suffix, NO_FIT if value is None else "")
        for qid, arr in r.per_context.get(acc, {}).items():
            if qid == "capacity_batch_raw" or (qid == "capacity_at_context" and acc != "seed"):
                continue  # (the memory, as the scalar capacity, is stated once: not per accounting)
            if qid == "capacity_at_context":  # the capacity's formula (C) at each context
                for j, s in enumerate(w.decode_context):
                    add("capacity", {"context": s}, arr[j], acc, "_at_context")
                continue
            raw = r.per_context[acc]["capacity_batch_raw"] if qid == "capacity_batch" else arr
            for j, s in enumerate(w.decode_context):
                add(qid, {"context": s}, raw[j], acc, suffix)
        for qid, grid in r.decode.get(acc, {}).items():
            for i, b in enumerate(w.decode_batch):
                for j, s in enumerate(w.decode_context):
                    add(qid, {"batch": b, "context": s}, grid[i, j], acc, suffix)
        for qid, arr in r.prefill.get(acc, {}).items():
            for i, t in enumerate(w.prefill_prompt):
                add(qid, {"tokens": t}, arr[i], acc, suffix)
    for g in r.gemm:
        for t, val in zip(g["tokens"], g["intensity"], strict=True):
            add("gemm_intensity", {**g["key"], "tokens": t}, val, "seed")
        add("gemm_saturation", g["key"], g["saturation"], "seed")
        add("gemm_crossover_tokens", g["key"], g["crossover"], "seed")
    for t in sorted({1, *w.prefill_prompt, *([w.training_tokens] if w.training_tokens else [])}):
        add("weight_reuse_intensity", {"tokens": t}, r.q["weight_reuse_intensity"](tables.per_load(r.envs["seed"], t)),
            "seed")
    if w.training_tokens:
        t = float(w.training_tokens)
        p_train = float(r.spec.hardware.dense[training_compute(r.spec.hardware.dense, r.spec.precision.compute)])
        add("training_step_time_compute", {"tokens": w.training_tokens},
            r.q["training_step_time_compute"](r.envs["seed"].at(T=t, P=p_train)), "seed")
        add("training_weight_reuse_intensity", {"tokens": w.training_tokens},
            r.q["training_weight_reuse_intensity"](r.envs["seed"].at(T=t, b=TRAINING_WEIGHT_BYTES)), "seed")
    for tr in r.training:
        add("training_state_bytes", {"recipe": tr["recipe"]}, tr["total"], "seed")
    return out


