"""The report's serving chapter: the spec's ``serving`` block answered at its layout (generator/model/serving.py
for one request) and the cheapest layout ``plan`` finds that meets its targets."""

from __future__ import annotations

import dataclasses
import math

from genreport.load.spec import Parallelism
from genreport.model.draft import speculative_inputs
from genreport.model.env import make_env
from genreport.model.frontier import MAX_BATCH, frontier
from genreport.model.plan import (
    MAX_GPUS,
    Shape,
    better_of,
    model_format,
    plan,
    ranking,
    report_precisions,
    runs_as,
)
from genreport.model.serving import (
    Request,
    compute_batch,
    compute_batch_values,
    engine_limit,
    joules_per_token,
    last_context,
    node_busy_gpus,
    request,
    round_context,
    usd_per_mtok,
)


def _row(req: Request, price: float | None, power: float | None, label: str, node: int | None = None) -> dict:
    out = {"label": label, "batch": req.batch}
    for est in ("bound", "serial"):
        t = req.ttft_bound if est == "bound" else req.ttft_serial
        out[est] = {"ttft": t, "prefill": req.prefill_bound if est == "bound" else req.prefill_serial,
                    "tpot": req.tpot_bound if est == "bound" else req.tpot_serial,
                    "e2e": req.e2e_bound if est == "bound" else req.e2e_serial,
                    "tokens_per_s_user": req.per_user(est), "tokens_per_s_gpu": req.per_gpu(est),
                    "tokens_per_s_node": req.per_node(node, est),
                    "usd_per_mtok_in": usd_per_mtok(price, req.prefill_per_gpu(est)),
                    "usd_per_mtok_out": usd_per_mtok(price, req.per_gpu(est)),
                    "joules_per_token": joules_per_token(power, req.per_gpu(est))}
    return out


TPOT_LABEL = "the most the TPOT target allows"
TPOT_MISSED = " (the bound's batch: the serial estimate misses the target there)"
# the users' row past the TPOT target's batch: what one replica would do at their load, not what the deployment runs
# (a review: "64 users" at batch 64 beside a compute batch of 32 and "64 users take 2 GPUs")
USERS_PAST_TPOT = " (more than the TPOT target allows a replica: the users take more replicas, below)"


PROMPTS_LABEL = "the most the TPOT target allows with the prompts' prefills (the compute roof)"


def tpot_label(tpot_batch: int, limit: int, cap: int, prompts: int | None = None) -> str:
    """The TPOT target's row, labelled by what stops its batch: the target (TPOT_LABEL), or, where the target allows
    every sequence a replica runs, the engine's max_sequences (``limit`` below the ``cap`` that fits) or the memory
    (Qwen3 235B-A22B fp8 on 8 H200, tp 4 x ep 4 x dp 2: 256, the engine's, was labelled the TPOT target's); or the
    compute the sequences' prompts take at the target (``prompts``: serving.compute_batch, whole sequences) where
    that stops it first."""
    if prompts is not None and tpot_batch >= prompts and prompts < limit:
        return PROMPTS_LABEL
    if tpot_batch >= limit and limit < cap:
        return "the most the engine runs at once, within the TPOT target"
    if tpot_batch >= cap:
        return "all that fit, within the TPOT target"
    return TPOT_LABEL


def alone_label(par: Parallelism) -> str:
    """The first row of the serving table: batch 1 per replica.  Where an expert-parallel group is wider than a
    replica (data-parallel attention: DeepSeek-V3 at tp 1 x dp 8 x ep 8) its MoE layers gather the tokens of all the
    group's replicas, so the row is one request on each of them (it read "one request alone" beside 8 requests' experts
    and tok/s per GPU)."""
    group = ep_group_replicas(par)
    if group == 1:
        return "one request alone"
    return f"one request a replica ({group} replicas share the experts: {group} at once)"


def users_label(users: int, dp: int, batch: int, engine_binds: bool = False) -> str:
    """The users' row of the serving table: ``users`` over ``dp`` replicas at ``batch`` a replica, the busiest (the
    users do not divide evenly: some replicas hold one fewer), or as many as a replica holds (``engine_binds``: as
    the engine's max_sequences runs)."""
    want = -(-users // dp)
    if batch < want:
        return (f"{users:,} users" + (f" over {dp} replicas" if dp > 1 else "")
                + (" (as many as the engine runs)" if engine_binds else " (as many as fit)"))
    if dp == 1:
        return f"{users:,} users"
    short = want * dp - users  # replicas that hold want - 1
    if not short:
        return f"{users:,} users over {dp} replicas"
    return f"{users:,} users over {dp} replicas ({dp - short} of {want:,}, {short} of {want - 1:,}; the row: {want:,})"


def _tpot_batch(model, hw, precision, par, prompt, output, accounting, cap: int, tpot: float, env) -> int:
    """The largest batch up to ``cap`` whose slowest decode round (the strict bound at the last context) meets
    ``tpot``; 0 when batch 1 misses it.  The round only grows with the batch, so a bisection finds it."""
    lo, hi = 0, cap
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if request(model, hw, precision, par, mid, prompt, output, accounting, env, serial=False).tpot_bound <= tpot:
            lo = mid
        else:
            hi = mid - 1
    return lo


def replica_batch(hw) -> int:
    """The sequences a replica runs at most where the serving block names no users: the engine's max_sequences (vLLM's
    max_num_seqs, 256 by default), else the chapter's cap (frontier.MAX_BATCH), as the chapter's own layout runs its
    TPOT target's batch (:func:`serving.engine_limit`).  The cheapest layout page 1 and the serving chapter name is
    searched at that batch, so it runs as many sequences as the spec's own layout may (a review found it searched at
    64 where the layout ran 256, and named a layout dearer than one plan lists at 256)."""
    return int(engine_limit(hw, MAX_BATCH))


def plan_inputs(spec) -> dict:
    """``plan``'s arguments for the spec's ``serving`` block, as the chapter's cheapest layout asks them and
    ``genreport plan SPEC`` takes them by default: the request (prompt, output, TTFT and TPOT targets, users) at the
    users' batch (:func:`replica_batch` without users), the formats the report tries (:func:`report_precisions`, the spec's own
    precision object for its own format), the strict bound, every layout up to ``MAX_GPUS`` where the device has a
    link, and serving.speculative's ask (draft tokens, acceptance, the draft or its cost, the tokens verified) with
    the draft's declared precision."""
    sv, hw = spec.serving, spec.hardware
    from genreport.model.draft import declared_precision

    ask = None
    if sv.speculative is not None:
        sp = sv.speculative
        ask = (sp.draft_tokens, sp.acceptance, sp.draft if sp.draft is not None else sp.draft_cost, sp.verified)
    # a request of one output token is its prompt alone, priced by its prefill, as plan takes a report spec's
    # (commands/plan.py: prefill_only; a review found the chapter's cheapest layout tp 4 by $/M output tokens where
    # plan's first row was tp 1 by $ per request)
    shape = Shape(sv.prompt, sv.output, sv.ttft, sv.users, sv.prefix_hit, prefill_only=sv.output == 1)
    return {"batch": min(sv.users, MAX_BATCH) if sv.users else replica_batch(hw), "context": shape.last_context,
            "latency": sv.tpot,
            "precisions": report_precisions(spec), "max_gpus": MAX_GPUS if hw.link is not None else 1,
            "accounting": spec.accounting, "estimate": "bound", "kv_caches": ("auto",), "shape": shape,
            "speculative": ask, "draft_precision": declared_precision(spec), "own": spec.precision}


def either_plan(model, hw, inputs: dict, disaggregate: bool = False, sort: str = "auto"):
    """``plan`` with ``inputs`` (:func:`plan_inputs`' keys) on ``hw``; where they ask to speculate, the plan without
    speculation too, each layout's better row kept (``plan.better_of``, ranked as ``sort`` ranks them)."""
    memo: dict = {}  # the two plans' layouts, counted once (plan's memo)
    key = ranking(sort, bool(hw.price_per_hour))
    plain = plan(model, hw, **{**inputs, "speculative": None}, disaggregate=disaggregate, memo=memo)
    if inputs.get("speculative") is None:  # plan lists its rows by tok/s per GPU: in the order asked, as the CLI's
        return dataclasses.replace(plain, rows=sorted(plain.rows, key=key))
    speculating = plan(model, hw, **inputs, disaggregate=disaggregate, memo=memo)
    return better_of(plain, speculating, key)


def _cheapest(spec) -> dict | None:
    """The cheapest layout per million output tokens (the most tok/s per GPU without a price) that ``plan`` finds
    meeting the serving block's targets, the strict bound: the first row of ``genreport plan SPEC``.  With
    serving.speculative, each layout with and without the spec's speculation, the better taken (a tie: without), its
    ``speculative`` field saying whether it speculates ("on"; "off": past its break-even batch, plain decode beside
    the draft; "": the plan without speculation).  None where none meets them.  Remembered for the last few
    (model, GPU, plan inputs) this process asked about: a warm ``serve`` rebuilding a spec whose serving block, model
    and GPU did not change (a workload, a title) does not search again (0.3 s of DeepSeek-V3's 0.7-s evaluation); a
    copy each call."""
    import copy
    import hashlib
    import pickle

    inputs = plan_inputs(spec)
    try:
        key = hashlib.sha256(pickle.dumps((spec.model, spec.hardware, inputs), protocol=5)).digest()
    except (pickle.PicklingError, TypeError, AttributeError):
        key = None
    if key is None or key not in _CHEAPEST:
        found = either_plan(spec.model, spec.hardware, inputs)
        row = found.rows[0].as_json() if found.rows else None
        if key is None:
            return row
        _CHEAPEST[key] = row
        while len(_CHEAPEST) > 16:
            del _CHEAPEST[next(iter(_CHEAPEST))]  # the oldest
    return copy.deepcopy(_CHEAPEST[key])


_CHEAPEST: dict = {}  # the last plans' first rows (:func:`_cheapest`), oldest first


def batches(spec, env=None) -> tuple:
    """(the request alone, the capacity, the users' batch, the TPOT target's batch, the decode round alone's batch at
    the target, :func:`prompts_batch`) per replica of the spec's ``serving`` block at its layout, as the chapter's
    rows take them; the users' and the TPOT's batches None where the block names no users or TPOT target.  They stop
    at what fits and at the engine's max_sequences (serving.engine_limit), the TPOT target's at the prompts' compute
    too; the capacity is what fits."""
    sv, hw, model, prec, acc = spec.serving, spec.hardware, spec.model, spec.precision, spec.accounting
    par = spec.parallelism or Parallelism()
    env = env if env is not None else make_env(hw, model, prec, acc)
    one = request(model, hw, prec, par, 1, sv.prompt, sv.output, acc, env, prefix_hit=sv.prefix_hit)
    cap = int(min(one.capacity_batch, 65536))
    if sv.speculative is not None and sv.speculative.draft is not None:  # the draft's weights and cache share it
        from genreport.model.draft import replica_capacity

        cap = int(min(cap, max(replica_capacity(spec, float(last_context(sv.prompt, sv.output)))[1], 0.0)))
    limit = int(engine_limit(spec.hardware, cap))
    users_batch = (min(-(-sv.users // par.dp), limit) if limit else 0) if sv.users else None
    tpot_batch = decode_batch = prompts = None
    if sv.tpot is not None:
        prompts = prompts_batch(spec, env)
    if sv.tpot is not None and limit:
        # the decode round alone's batch (a decode replica's of disaggregated pools, which prefills nothing), and no
        # more than the replica's compute keeps at the target with the sequences' prompts (compute_batch)
        decode_batch = _tpot_batch(model, hw, prec, par, sv.prompt, sv.output, acc, limit, sv.tpot, env)
        tpot_batch = min(decode_batch, prompts)
    return one, cap, users_batch, tpot_batch, decode_batch, prompts


def spec_compute_batch_values(spec, accounting: str, speculative: bool = False) -> dict[str, float]:
    """:func:`serving.compute_batch_values` of a report spec's serving block at its layout (``derive compute_batch --spec``:
    the chapter's inputs, the whole model's; ``speculative``: with serving.speculative's, ``derive
    compute_batch_speculative --spec``)."""
    sv = spec.serving
    env = make_env(spec.hardware, spec.model, spec.precision, accounting)
    return compute_batch_values(env, spec.parallelism or Parallelism(), sv.prompt, sv.output, sv.tpot, sv.prefix_hit,
                                speculative_inputs(spec) if speculative else None)


def prompts_batch(spec, env=None, speculative: bool = False, cached: bool = True) -> int:
    """Whole sequences a replica of the spec's layout keeps at its serving block's TPOT target with their prompts'
    prefills within its compute roof (serving.compute_batch, rounded down); a large number without a target.
    ``speculative``: the sequences speculating with serving.speculative (compute_batch_speculative: each kept token
    n_v / E verified tokens and k_d / E draft passes), the speculative lever row's.  Each prompt's uncached part
    (serving.prefix_hit) is prefilled; ``cached=False``: the whole prompt, as without a prefix cache (the prefix
    caching row's "before")."""
    sv = spec.serving
    env = env if env is not None else make_env(spec.hardware, spec.model, spec.precision, spec.accounting)
    b = compute_batch(env, spec.parallelism or Parallelism(), sv.prompt, sv.output, sv.tpot,
                      sv.prefix_hit if cached else 0.0, speculative_inputs(spec) if speculative else None)
    return int(min(b, 1 << 30)) if math.isfinite(b) else 1 << 30


def chapter_point(spec) -> tuple[int, int]:
    """(batch per replica, context) where the serving chapter states its techniques (generator/model/techniques.py):
    its last row's batch (the TPOT target's, else the users', else 1) at a request's last context; ``derive``
    evaluates the chapter's quantities there."""
    sv = spec.serving
    _, _, users_batch, tpot_batch, _, _ = batches(spec)
    return last_row_batch(users_batch, tpot_batch), last_context(sv.prompt, sv.output)


def last_row_batch(users_batch: int | None, tpot_batch: int | None) -> int:
    """The batch of the serving chapter's last row (:func:`report`'s rows): the TPOT target's where it is more than
    one sequence and not the users', else the users' where more than one, else 1 (the request alone)."""
    batch = 1
    if users_batch is not None and users_batch > 1:
        batch = users_batch
    if tpot_batch is not None and tpot_batch > 1 and tpot_batch != users_batch:
        batch = tpot_batch
    return batch


def ep_group_replicas(par: Parallelism) -> int:
    """Replicas (tp x pp groups) that serve together because expert-parallel groups cross them: where the ep group
    is wider than the tensor-parallel group (data-parallel attention, SGLang's DeepSeek layout), lcm(tp, ep) / tp
    (ep / tp where tp divides ep), else 1 (each GPU of a replica holds its tp share of every expert)."""
    import math

    return math.lcm(par.tp, par.ep) // par.tp if par.ep > par.tp else 1


def pool_unit_gpus(par: Parallelism) -> int:
    """GPUs of the smallest copy a prefill or a decode pool of this layout is made of (the serving chapter's
    disaggregation row): a replica, or where the expert-parallel group spans replicas the whole group
    (:func:`ep_group_replicas` replicas, techniques.whole_group_pools), so a prompt's cache leaves its group for
    another: what ``plan.kv_link`` asks to fit twice in the scale-up domain."""
    return ep_group_replicas(par) * par.replica_gpus


def report(r, plans: bool = True) -> dict | None:
    """The serving chapter's numbers for the spec's ``serving`` block at its layout (None without one): one request
    at batch 1, at the users' batch per replica and at the largest batch the TPOT target allows; the concurrency
    each target allows; the GPUs the users take; and the cheapest layout ``plan`` finds that meets the targets.
    ``plans=False``: neither the cheapest layout nor the frontier figure, the two searches over other layouts (None
    each; genreport.model.evaluate.evaluate)."""
    spec = r.spec
    sv = spec.serving
    if sv is None:
        return None
    hw, model, prec, acc = spec.hardware, spec.model, spec.precision, spec.accounting
    par = spec.parallelism or Parallelism()
    env = make_env(hw, model, prec, acc)
    price, power = hw.price_per_hour, hw.power_watts
    node = hw.node.gpus_per_node if hw.node is not None else None
    one, cap, users_batch, tpot_batch, decode_batch, prompts = batches(spec, env)
    limit = int(engine_limit(spec.hardware, cap))
    engine_binds = limit < cap  # the engine's max_sequences stops a replica's batch before its memory does
    rows = [_row(one, price, power, alone_label(par), node)]
    if users_batch is not None and users_batch > 1:
        past = tpot_batch is not None and 0 < tpot_batch < users_batch
        rows.append(_row(request(model, hw, prec, par, users_batch, sv.prompt, sv.output, acc, env,
                                 prefix_hit=sv.prefix_hit), price,
                         power, users_label(sv.users, par.dp, users_batch, engine_binds)
                         + (USERS_PAST_TPOT if past else ""), node))
    if tpot_batch is not None and tpot_batch > 1 and tpot_batch != users_batch:
        label = tpot_label(tpot_batch, limit, cap, prompts)
        row = _row(request(model, hw, prec, par, tpot_batch, sv.prompt, sv.output, acc, env,
                           prefix_hit=sv.prefix_hit), price, power, label, node)
        if row["serial"]["tpot"] > sv.tpot:  # the bound's batch: the serial estimate's round is slower than the target
            row["label"] = label + TPOT_MISSED
        rows.append(row)
    replicas_gpus = par.replica_gpus * par.dp
    per = min(x for x in (limit, tpot_batch if tpot_batch is not None else limit) if x is not None)
    # the replicas the users fill, ``per`` sequences at most a replica (its capacity, or the TPOT target's batch),
    # and their GPUs: fewer than the layout's dp replicas where one holds them all, but whole expert-parallel groups:
    # an ep group wider than a replica (ep > tp, data-parallel attention) holds the experts of ep / tp replicas, none
    # of which runs its MoE layers without the others
    group = ep_group_replicas(par)
    replicas_for_users = -(-sv.users // per) if sv.users and per else None
    if replicas_for_users is not None:
        replicas_for_users = -(-replicas_for_users // group) * group
    gpus_for_users = replicas_for_users * par.replica_gpus if replicas_for_users is not None else None
    # the sequences a replica's compute keeps speculating at the TPOT target with their prompts (the speculative lever
    # row's; None without serving.speculative or a target): the chapter's rows decode plainly, compute_batch theirs
    spec_prompts = prompts_batch(spec, env, speculative=True) \
        if sv.speculative is not None and sv.tpot is not None else None
    cheapest = None
    if plans and (sv.ttft is not None or sv.tpot is not None):
        cheapest = _cheapest(spec)
    fig = frontier(spec, tuple(row["batch"] for row in rows), MAX_GPUS if hw.link is not None else 1) if plans else None
    holds = cap >= 1  # a replica that holds no sequence of the request serves it at no time: no target is met
    where = f"{par.gpus} x {hw.title} ({par.label()})" if par.gpus > 1 else f"one {hw.title}"
    return {"prompt": sv.prompt, "output": sv.output, "context": sv.prompt + sv.output,
            "last_context": last_context(sv.prompt, sv.output), "rounds": sv.output - 1, "where": where,
            "round_context": round_context(spec.model, sv.prompt, sv.output),
            "concurrency": cap * par.dp, "ttft_target": sv.ttft, "tpot_target": sv.tpot,
            # the batch asked without users (none where the users give it)
            "users": sv.users, "replica_batch": None if sv.users else replica_batch(hw),
            # whether the engine's max_sequences sets it (else the chapter's cap: no limit written)
            "prefix_hit": sv.prefix_hit,
            "uncached_share": 1.0 - sv.prefix_hit, "replica_batch_engine": bool(int(getattr(hw, "max_sequences", 0) or 0) > 0), "gpus_per_node": node,
            "replica_nodes": -(-par.replica_gpus // node) if node else None,  # nodes one replica spans
            "node_busy_gpus": node_busy_gpus(par.replica_gpus, node),  # a node's GPUs that run replicas
            # nodes the expert-parallel group spans: wider than a replica (data-parallel attention), its replicas'
            # MoE layers run across all of them, so no node holds such replicas alone
            "ep_nodes": -(-max(par.ep, par.replica_gpus) // node) if node else None,
            "price_per_hour": price, "board_watts": power, "gpus": replicas_gpus,
            "replica_gpus": par.replica_gpus, "dp": par.dp, "capacity_batch": cap,
            "stages": par.pp,  # a replica's pipeline stages: one prompt's TTFT has its chunks on all of them at once
            # the engine's max_sequences where it stops a replica's batch before the memory (None where it does not)
            "max_sequences": limit if engine_binds else None,
            "holds": holds, "ttft_met": None if sv.ttft is None or not holds else bool(one.ttft_bound <= sv.ttft),
            "tpot_batch": tpot_batch, "users_batch": users_batch, "gpus_for_users": gpus_for_users,
            # the TPOT target's batch of the decode round alone: a decode replica's of disaggregated pools
            "decode_tpot_batch": decode_batch,
            # the sequences a replica's compute keeps at the TPOT target with their prompts (None without a target)
            "compute_batch": prompts if prompts is not None and prompts < 1 << 30 else None,
            # ... and speculating with serving.speculative (None without it or a target)
            "compute_batch_speculative": spec_prompts if spec_prompts is not None and spec_prompts < 1 << 30 else None,
            "replicas_for_users": replicas_for_users, "ep_group_replicas": group,
            "rows": rows, "cheapest": cheapest, "frontier": fig,
            # the formats plan tries: not one whose compute format the GPU has no peak for (fp8 on a TPU v5p)
            "formats": [model_format(model, f) + (" computed in bf16" if weight_only else "")
                        for f in report_precisions(spec)
                        for runs, weight_only in (runs_as(f, model, None, hw),) if runs is not None]}
