"""Page 1 as a decision: per workload, what binds, the bound, how far the other roof is, whether it fits, the
serving numbers, and the lever that helps most; when the model does not fit, what makes it fit.

Every number is taken from the report model (or computed here with the same compiled formulas and the same
physical-value rules); the report's first page only formats these rows.
"""

from __future__ import annotations

import math

import numpy as np
from genreport.load.spec import layout_words
from genreport.model.env import make_env, usable_at
from genreport.model.layout import prompt_rate, report_env
from genreport.model.values import physical


def _usd_per_mtok(price_per_hour: float | None, tokens_per_s: float | None) -> float | None:
    """Dollars per million tokens at an hourly price (None without a price)."""
    if not price_per_hour or not tokens_per_s:
        return None
    return price_per_hour / (tokens_per_s * 3600.0) * 1e6


def fit_options(r) -> list[dict]:
    """Ways to make the weights fit when they do not: a smaller weight format, more cards, a larger card.

    Each option states its weight bytes per card against the capacity; the GPU count assumes the weights
    split evenly across cards (tensor and pipeline parallelism), and leaves a KV cache of one sequence at the
    first context.
    """
    from genreport.load.spec import PRECISION_BYTES, Precision, weight_only_fp8

    spec = r.spec
    sc = r.scalars[r.lead]
    cap, weights = sc["capacity"], sc["weight_bytes"]
    if weights <= cap:
        return []
    out = []
    for fmt_name in ("fp8", "int8", "int4"):
        b = PRECISION_BYTES[fmt_name]
        if b >= spec.precision.weight_bytes:
            continue
        prec = Precision(fmt_name, spec.precision.kv_cache, spec.precision.compute if fmt_name != "fp8" else "fp8",
                         128 if fmt_name == "int4" else None)
        # int4 with its group scales (group 128: 0.516 B a weight), as the levers say it, not the bare 0.5 B of
        # a spec's "int4" without a group size
        label = ("group-128 " if fmt_name == "int4" else "") + f"{fmt_name} weights"
        if prec.compute not in spec.hardware.dense:  # fp8 on a GPU without an fp8 peak: weight-only (W8A16), or none
            prec = weight_only_fp8(prec, spec.hardware)
            if prec is None:
                continue
            label = "fp8 weights computed in bf16"
        w = float(r.q["weight_bytes"](make_env(spec.hardware, spec.model, prec, r.lead, layout=spec.parallelism).held()))
        out.append({"kind": "precision", "label": label, "weight_bytes": w, "capacity": cap,
                    "fits": w < cap, "gpus": 1})
    # at a layout the whole model on one card: its weights and the room one card alone keeps for them
    whole = r.one_card.get(r.lead) if spec.parallelism is not None else None
    layout = r.many.smallest if r.many is not None else None
    searched = r.many is not None  # plan.many_gpus searched the layouts (weights that do not fit, a link, decode)
    if layout is not None:  # the interconnect ledger's smallest layout in the spec's weight format
        # every degree above 1, as page 1's cheapest layout names them (Qwen3 235B on 4 Gaudi 3: tp 2 × ep 4 × dp 2,
        # data-parallel attention, which "tp 2" alone left as two GPUs' worth of layout on four)
        shape = layout_words(layout["tp"], layout["pp"], layout.get("ep", 1), layout.get("dp", 1),
                             layout.get("redundant_experts") or 0)
        out.append({"kind": "gpus", "label": f"{layout['gpus']} × {spec.hardware.title} ({shape})",
                    "weight_bytes": layout["weight_bytes_per_gpu"], "capacity": cap, "fits": True,
                    "gpus": layout["gpus"], "time": layout["time_bound"],
                    "tokens_per_s_gpu": layout["tokens_per_s_gpu"]})
    elif not searched and cap > 0:  # no layout search (no link, or no decode): an even split of the weights, with
        # one sequence of the first context (none where the engine's reserve and activation workspace leave a GPU no
        # memory: no count of GPUs fits); at a layout the whole model's weights over one card's room, so that "n ×"
        # counts GPUs, not copies of the layout (one GPU's slice split n ways: 4 × L4 for a 70B needing 7)
        w_all, room = (whole["weight_bytes"], whole["capacity"]) if whole else (weights, cap)
        c = sc["kv_bytes_per_token"] or 0.0
        s0 = spec.workloads.decode_context[0] if spec.workloads.decode_context else 0
        n = math.ceil((w_all + (0.0 if whole else c * s0)) / room) if room > 0 else 0
        if n > 0:
            out.append({"kind": "gpus", "label": f"{n} × {spec.hardware.title}", "weight_bytes": w_all / n,
                        "capacity": room, "fits": True, "gpus": n, "time": None, "tokens_per_s_gpu": None})
    # a larger card: the whole model on one, in what it keeps beside the spec's engine reserve and step (the compare
    # table's test, tables.compare); at a layout the whole model's weights, not one GPU's slice of them
    w_card = whole["weight_bytes"] if whole else weights
    for h in spec.compare_hardware:
        room = usable_at(h, spec.model, 1)
        if w_card < room:
            out.append({"kind": "card", "label": h.title, "weight_bytes": w_card, "capacity": room,
                        "fits": True, "gpus": 1})
    return out


def _picks(batch: list, capacity, n_contexts: int) -> list[tuple[int, int]]:
    """Batch 1 at the first context, then per context the largest of the spec's batches that fits."""
    picks = [(0, 0)]
    for j in range(n_contexts):
        fitting = [i for i, b in enumerate(batch) if b <= capacity[j]]
        i = fitting[-1] if fitting else len(batch) - 1
        if (i, j) not in picks:
            picks.append((i, j))
    return picks


def _parallel_decode_rows(r, price) -> list[dict]:
    """Decode rows of a many-GPU layout: the strict bound of a round (the largest per-GPU ledger), the serialized
    estimate beside it, capacity per replica; the price is the whole replica's (GPUs × the hourly price)."""
    lead, w, p = r.lead, r.spec.workloads, r.parallel
    g, per = p.decode[lead], p.per_context[lead]
    gpus = p.parallelism.replica_gpus
    weights_fit = (p.scalars[lead]["weight_bytes_per_gpu"] or 0) <= r.scalars[lead]["capacity"]  # the binding stage's
    batch = list(w.decode_batch)
    rows = []
    for i, j in _picks(batch, per["capacity_batch_replica"], len(w.decode_context)):
        b, s = batch[i], w.decode_context[j]
        ledgers = {"compute": float(g["decode_time_compute_gpu"][i, j]), "bandwidth": float(g["decode_time_memory_gpu"][i, j]),
                   "interconnect": float(g["decode_time_comm"][i, j])}
        roof = max(ledgers, key=ledgers.get)
        t = float(g["decode_time_bound"][i, j])
        second = sorted(ledgers.values())[-2]
        fits = weights_fit and b <= per["capacity_batch_replica"][j]
        tps = b / t
        rows.append({
            "workload": "decode", "label": f"decode B = {b:,}, S = {s:,}", "batch": b, "context": s,
            "binds": roof if fits else "capacity", "roof": roof, "time": t,
            "serial": float(g["decode_time_serial"][i, j]), "comm": ledgers["interconnect"],
            "comm_est": float(g["decode_time_comm_estimate"][i, j]),
            "estimate_binds": str(p.estimate_binds[i, j]) if fits else "capacity",
            "overhead": float(g["decode_time_overhead"][i, j]),
            # the ledgers of one GPU's round, not the round through the pipeline (at batch 1 it is n_PP of them);
            # ``other`` names the next ledger: compute, bandwidth or the interconnect
            "other_roof": ledgers[roof] / second if second > 0 else None, "other": _next(ledgers), "fits": fits,
            "capacity_batch": physical("capacity_batch", per["capacity_batch_replica_raw"][j])[0],
            "ms_per_token": t * 1e3, "tokens_per_s_sequence": 1 / t, "tokens_per_s": tps,
            "tokens_per_s_gpu": tps / gpus,
            "usd_per_mtok": _usd_per_mtok(price * gpus if price else None, tps) if fits else None,
        })
    return rows


def _next(ledgers: dict) -> str:
    """The name of the second largest of one GPU's ledgers (the first in compute, bandwidth, interconnect order on a
    tie): what page 1's "other roof" ratio divides by."""
    first = max(ledgers, key=ledgers.get)
    return max((k for k in ledgers if k != first), key=ledgers.get)


def rows(r) -> list[dict]:
    """One row per workload of the spec: the decision table of page 1."""
    spec, lead = r.spec, r.lead
    sc = r.scalars[lead]
    w = spec.workloads
    price = spec.hardware.price_per_hour
    fits_weights = sc["weight_bytes"] <= sc["capacity"]  # one GPU's share of the weights at the layout
    out = []
    if lead in r.decode and r.parallel is not None and lead in r.parallel.decode:
        out += _parallel_decode_rows(r, price)
    elif lead in r.decode:
        g = r.decode[lead]
        per = r.per_context[lead]
        batch = list(w.decode_batch)
        for i, j in _picks(batch, per["capacity_batch"], len(w.decode_context)):
            b, s = batch[i], w.decode_context[j]
            t_mem, t_comp = float(g["decode_time_memory"][i, j]), float(g["decode_time_compute"][i, j])
            t = max(t_mem, t_comp)
            cap = float(per["capacity_batch"][j])
            fits = fits_weights and b <= cap
            binds = "capacity" if not fits else ("bandwidth" if t_mem >= t_comp else "compute")
            tps_total = b / t
            out.append({
                "workload": "decode", "label": f"decode B = {b:,}, S = {s:,}", "batch": b, "context": s,
                "binds": binds, "roof": "bandwidth" if t_mem >= t_comp else "compute", "time": t,
                "other_roof": max(t_mem, t_comp) / min(t_mem, t_comp) if min(t_mem, t_comp) > 0 else None,
                "other": "compute" if t_mem >= t_comp else "bandwidth",
                "fits": fits, "capacity_batch": physical("capacity_batch", per["capacity_batch_raw"][j])[0],
                "ms_per_token": t * 1e3, "tokens_per_s_sequence": 1 / t, "tokens_per_s": tps_total,
                "usd_per_mtok": _usd_per_mtok(price, tps_total) if fits else None,
            })
    replica = r.parallel.parallelism.replica_gpus if r.parallel is not None else 1  # a prompt occupies a replica
    stages = r.parallel.parallelism.pp if r.parallel is not None else 1
    if lead in r.prefill:
        p = r.prefill[lead]
        for i, t_tok in enumerate(w.prefill_prompt):
            tc, tm = float(p["prefill_time_compute"][i]), float(p["prefill_time_memory"][i])
            ledgers = {"compute": tc, "bandwidth": tm}
            if r.parallel is not None and lead in r.parallel.prefill:  # the layout's bound over one GPU's ledgers
                lp = r.parallel.prefill[lead]  # its compute: the routed experts' FLOPs over the expert group
                t = float(lp["prefill_time_bound"][i])
                busy = float(lp["prefill_occupancy_bound"][i])  # every replica of a wider expert group prefilling
                ledgers = {"compute": float(lp["prefill_time_compute_gpu"][i]),
                           "bandwidth": float(lp["prefill_time_memory_gpu"][i]),
                           "interconnect": float(lp["prefill_time_comm"][i])}
            else:
                t = busy = max(tc, tm)
            # what binds is the verdict's (its links included), the other roof one GPU's next ledger: the prompt's
            # walk through the stages multiplies them all
            roof = str(r.verdicts["prefill_binds"][i])
            second = sorted(ledgers.values())[-2]
            fits = fits_weights and bool(r.verdicts["prefill_fits"][i])  # and the prompt's KV cache beside them
            out.append({
                "workload": "prefill", "label": f"prefill P = {t_tok:,}", "tokens": t_tok,
                "binds": roof if fits else "capacity", "roof": roof,
                "time": t, "other_roof": max(ledgers.values()) / second if second > 0 else None,
                "other": _next(ledgers), "fits": fits,
                "ms_to_first_token": t * 1e3, "tokens_per_s": prompt_rate(t_tok, busy, stages),
                # over stages the bound splits the prompt (chapter 7); passed whole, stage after stage, it takes its
                # pass (the occupancy, where the expert group is inside the replica)
                "pass": busy if stages > 1 and r.parallel.parallelism.ep <= r.parallel.parallelism.tp else None,
                "usd_per_mtok": _usd_per_mtok(price * replica if price else None, prompt_rate(t_tok, busy, stages))
                if fits else None,
            })
    if r.training:
        t_tok = w.training_tokens
        step = r.value("training_step_time_compute", "seed", tokens=t_tok)
        fits = any(tr["fits"] for tr in r.training)
        lean = min(r.training, key=lambda tr: tr["total"])
        # the step's two ledgers: its FLOPs over the peak (step) and its weight traffic over the bandwidth, which is
        # step x ridge / I (I = FLOPs / bytes): the bound is the larger, the other roof how many times shorter the other
        # is (a bandwidth-bound step once gave its compute time and an other roof of 0.765x)
        ratio = r.verdicts["training_intensity"] / r.verdicts["training_ridge"]
        roof = r.verdicts.get("training_binds", "compute")
        bound = (step if roof == "compute" else step / ratio) if step and ratio > 0 else step
        row = {
            "workload": "training", "label": f"training T = {t_tok:,}", "tokens": t_tok,
            "binds": roof if fits else "capacity", "roof": roof, "time": bound,
            "other_roof": (ratio if roof == "compute" else 1 / ratio) if step and ratio > 0 else None,
            "other": "compute" if roof == "bandwidth" else "bandwidth",
            "fits": fits, "state_bytes": lean["total"], "cards_needed": lean["cards_needed"],
            "tokens_per_s": t_tok / bound if bound else None,
        }
        if r.parallel is not None and r.parallel.training.get("seed"):
            row.update(layout_training(r, bound, sc["capacity"]))
            row["tokens_per_s"] = t_tok / row["time"] if row["time"] else None
        out.append(row)
    keys = ("batch", "context", "tokens", "capacity_batch", "ms_per_token", "ms_to_first_token",
            "tokens_per_s_sequence", "usd_per_mtok", "state_bytes", "cards_needed", "serial", "comm", "comm_est",
            "tokens_per_s_gpu", "estimate_binds", "overhead", "pass")
    from genreport.model.serving import engine_limit

    for row in out:  # every row has every key: the table reads them by workload kind
        for k in keys:
            row.setdefault(k, None)
        # a decode batch that fits the memory but passes the engine's max_sequences (serving.engine_limit): the engine
        # runs only that many at once, which the table says beside "fits" (None where the engine runs it all)
        runs = int(engine_limit(spec.hardware, row["batch"])) if row["workload"] == "decode" and row["fits"] else None
        row["engine_runs"] = runs if runs is not None and runs < row["batch"] else None
        row["lever"] = best_lever(r, row)
    return out


def _lever_change(r, key: str) -> tuple:
    """(precision, bandwidth scale) of a decode lever of shown.levers: int8 or int4 (group 128) weights, the
    spec's KV cache and compute kept, or 1.5 times the bandwidth."""
    from genreport.load.spec import Precision

    p = r.spec.precision
    if key == "weights-int4":
        return Precision("int4", p.kv_cache, p.compute, 128), 1.0
    if key == "weights-int8":
        return Precision("int8", p.kv_cache, p.compute, None), 1.0
    return None, 1.5


def _decode_bound(r, batch, context, precision=None, scale_w: float = 1.0) -> float:
    """One card's decode step bound at (batch, context), weights, KV and activations: with another weight format or
    a faster memory, what a page-1 row's lever does to that row (its KV cache read unchanged)."""
    s = r.spec
    env = make_env(s.hardware, s.model, precision or s.precision, r.lead, s.workloads.activation_bytes).at(
        batch=float(batch), context=float(context))
    env["W"] = env["W"] * scale_w
    return max(float(np.asarray(r.q["decode_time_memory"](env))), float(np.asarray(r.q["decode_time_compute"](env))))


def _lever_bound(r, batch, context, precision=None, scale_w: float = 1.0) -> float:
    """The step bound a page-1 decode row states, with a lever's change: at a layout the round's strict bound
    (layout.decode_bound_at: the busiest GPU's ledgers and the links, through the pipeline), on one card the card's."""
    if r.parallel is not None and r.lead in r.parallel.decode:
        from genreport.model.layout import decode_bound_at

        return decode_bound_at(r.spec, r.lead, float(batch), float(context), precision, scale_w)
    return _decode_bound(r, batch, context, precision, scale_w)


def _capacity_rate(r, context) -> tuple[float | None, float | None, float | None]:
    """(sequences that fit at ``context``, the most of them the engine runs at once, tok/s there): a replica's and
    its round's rate at a layout, one card's otherwise; (None, None, None) where none fits.  The engine's
    max_sequences (serving.engine_limit) caps the batch as it caps every batch a replica runs: gpt-oss-120b on 8 H200
    named batch 5,473 where the engine runs 256."""
    from genreport.model.serving import engine_limit

    j = list(r.spec.workloads.decode_context).index(context)
    if r.parallel is not None and r.lead in r.parallel.decode:
        cap = physical("capacity_batch", r.parallel.per_context[r.lead]["capacity_batch_replica_raw"][j])[0]
        if not cap:
            return None, None, None
        runs = float(engine_limit(r.spec.hardware, cap))
        return cap, runs, _batch_rate(r, runs, context)
    cap = physical("capacity_batch", r.per_context[r.lead]["capacity_batch_raw"][j])[0]
    if not cap:
        return None, None, None
    runs = float(engine_limit(r.spec.hardware, cap))
    return cap, runs, _batch_rate(r, runs, context)


def _batch_rate(r, batch: float, context) -> float:
    """tok/s of a replica's round (at a layout) or one card's step at ``batch`` sequences and ``context``: the rate a
    page-1 decode row states."""
    if r.parallel is not None and r.lead in r.parallel.decode:
        return batch / _lever_bound(r, batch, context)
    env = report_env(r.spec).at(batch=float(batch), context=float(context))
    return float(np.asarray(r.q["decode_tokens_per_s"](env)))


def _compute_binds(r, batch: float, context) -> bool:
    """Whether the compute ledger binds a page-1 decode row's step (one card) or its replica's round (at a layout,
    one GPU's compute ledger at least its HBM and interconnect ledgers) at ``batch`` and ``context``."""
    if r.parallel is not None and r.lead in r.parallel.decode:
        from genreport.model.layout import decode_ledgers_at

        led = decode_ledgers_at(r.spec, r.lead, float(batch), float(context))
        return led["compute"] >= max(led["bandwidth"], led["interconnect"])
    env = report_env(r.spec).at(batch=float(batch), context=float(context))
    return float(np.asarray(r.q["decode_time_compute"](env))) >= float(np.asarray(r.q["decode_time_memory"](env)))


def compute_bound_batch(binds, low: float, runs: float) -> float:
    """The smallest whole batch above ``low`` and at most ``runs`` at which ``binds(batch)`` (the compute ledger
    binds), where it does at ``runs``; else ``runs`` (bisection: the FLOPs grow in step with B, the bytes and the
    collectives no faster, so once the compute binds it stays).  Past that batch the bound's tok/s stays where it is
    and every more sequence waits longer for its token: Llama 3.1 405B int4 on 4 MI300X at 1k named batch 256 (the
    engine's max_sequences) for the 6,376 tok/s that batch 128 already gives, at twice the time per token (QA)."""
    lo, hi = int(low), int(runs)
    if not binds(float(hi)) or binds(float(lo)):
        return float(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if binds(float(mid)):
            hi = mid
        else:
            lo = mid
    return float(hi)


def batch_lever(cap: float, runs: float, batch: float | None = None) -> str:
    """The batching lever's change: the batch a replica runs, and where the engine's max_sequences stops it before
    the memory, that it does and how many would fit; with ``batch`` below ``runs``, that batch, the first at which
    the compute ledger binds (:func:`compute_bound_batch`), and how many could run."""
    if batch is not None and batch < runs:
        return f"batch {int(batch):,} (compute-bound from there; the {int(runs):,} that could run give no more tok/s)"
    if runs < cap:
        return f"batch {int(runs):,} (the engine's max_sequences; {int(cap):,} fit)"
    return f"batch {int(cap):,}"


def layout_training(r, bound: float | None, usable: float) -> dict:
    """Page 1's training row at a layout, one GPU's: its state under the recipes and ZeRO stages (the layout's
    training_state_per_gpu_zero0-3) against the memory a GPU keeps, and the step's bound with the gradient exchange of
    the configuration that fits and exchanges least (training_grad_comm_time, ZeRO-3's training_zero3_comm_time): both
    must happen, so the step takes at least the larger.  It read the whole model on one card (a tp 2 x pp 2 x dp 2 8B
    "does not fit, shard over 2 cards" beside 32 GB of ZeRO-0 state a GPU) and left out a 265 ms all-reduce beside a
    110 ms step (QA of stop 71)."""
    vals = {(qid, p.get("recipe")): v for qid, p, v in r.parallel.training["seed"]}
    configs = [(rec, k, vals.get((f"training_state_per_gpu_zero{k}", rec))) for rec in r.spec.workloads.recipes
               for k in range(4)]
    configs = [c for c in configs if c[2] is not None]
    if not configs:
        return {}

    def comm(c) -> float:
        v = vals.get(("training_zero3_comm_time" if c[1] == 3 else "training_grad_comm_time", c[0]))
        return float(v) if v is not None else 0.0

    fitting = [c for c in configs if c[2] <= usable]
    chosen = min(fitting or configs, key=lambda c: (comm(c), c[2]))
    exchange = comm(chosen)
    time = max(bound or 0.0, exchange) or bound
    out = {"fits": bool(fitting), "state_bytes": chosen[2] if fitting else min(c[2] for c in configs),
           "cards_needed": None, "zero": chosen[1], "recipe": chosen[0], "comm": exchange, "time": time}
    if bound is not None and exchange > bound:
        # the time is the exchange's, fitting or not: its roof and the other roof say so (a Mixtral 8x22B row on 16
        # H100 that did not fit read "703 ms | 7.71x bandwidth", the compute ledger's ratio beside the exchange's time)
        out.update(roof="interconnect", other_roof=exchange / bound, other=r.verdicts.get("training_binds", "compute"))
    if not fitting:
        out["binds"] = "capacity"
    elif bound is not None and exchange > bound:
        out["binds"] = "interconnect"
    elif bound:
        out["binds"] = r.verdicts.get("training_binds", "compute")
    return out


def best_lever(r, row: dict) -> dict | None:
    """The lever that helps this row most, from the model's levers (and batching for decode); at a layout each
    decode lever is priced on the row's own round (the bound it states, with the lever's change)."""
    if not row["fits"]:
        opts = [o for o in fit_options(r) if o["fits"]]
        if row["workload"] == "training" and r.spec.workloads.recipes:
            if row.get("cards_needed") is None:  # at a layout: its GPUs' ZeRO-3 state does not fit either
                return {"change": f"more {r.spec.hardware.noun}s (ZeRO-3 state does not fit here)", "gain": None,
                        "effect": "state fits"}
            return {"change": f"shard over {row['cards_needed']} cards (ZeRO-3)", "gain": None,
                    "effect": "state fits"}
        if opts:
            o = opts[0]
            return {"change": o["label"], "gain": None, "effect": "the weights fit"}
        if row["workload"] == "decode":
            return {"change": "a smaller batch or context", "gain": None, "effect": "the KV cache fits"}
        if row["workload"] == "prefill":
            return {"change": "a shorter prompt or more GPUs", "gain": None, "effect": "the KV cache fits"}
        return None
    levers = {lv["lever"]: lv for lv in r.levers}
    if row["workload"] == "decode" and row["binds"] == "bandwidth":
        candidates = []
        cap, runs, tps = _capacity_rate(r, row["context"])
        if cap and runs > row["batch"]:
            batch = compute_bound_batch(lambda b: _compute_binds(r, b, row["context"]), row["batch"], runs)
            if batch > row["batch"]:
                gain = (tps if batch == runs else _batch_rate(r, batch, row["context"])) / row["tokens_per_s"]
                candidates.append({"change": batch_lever(cap, runs, batch), "gain": gain, "effect": "tok/s"})
        before = _lever_bound(r, row["batch"], row["context"])
        for key in ("weights-int4", "weights-int8", "bandwidth-1.5"):
            if key in levers and not (key == "weights-int8" and "weights-int4" in levers):
                # its gain at this row's batch and context, not the batch-1 weights-only lever's: where the KV cache
                # dominates the step, fewer weight bytes gain little and the faster memory more
                after = _lever_bound(r, row["batch"], row["context"], *_lever_change(r, key))
                candidates.append({"change": levers[key]["change"], "gain": before / after, "effect": "latency"})
        return max(candidates, key=lambda c: c["gain"] or 0) if candidates else None
    if row["roof"] == "compute" and "compute-fp8" in levers:
        lv = levers["compute-fp8"]
        par = r.parallel
        if par is not None and row["workload"] in ("decode", "prefill") and r.lead in getattr(par, row["workload"]):
            # at a layout priced on the row's own bound, as the decode levers are: its links do not speed up
            fp8 = _fp8_compute(r.spec.precision)
            if row["workload"] == "decode":
                before, after = (_lever_bound(r, row["batch"], row["context"]),
                                 _lever_bound(r, row["batch"], row["context"], fp8))
            else:
                from genreport.model.layout import prefill_bound_at

                before, after = (prefill_bound_at(r.spec, r.lead, row["tokens"]),
                                 prefill_bound_at(r.spec, r.lead, row["tokens"], fp8))
            return {"change": lv["change"], "gain": before / after, "effect": "latency"}
        return {"change": lv["change"], "gain": lv["gain"], "effect": "roof"}
    return None


def _fp8_compute(p):
    """The spec's precision with FP8 compute (shown.levers' compute-fp8): weights wider than a byte in fp8 too (the
    lever's operand bytes halve); weights of a byte or less, or formats per class, kept."""
    from dataclasses import replace

    from genreport.load.spec import Precision, format_bytes

    if p.classes or format_bytes(p.weights, p.group_size) <= 1:
        return replace(p, compute="fp8")
    return Precision("fp8", p.kv_cache, "fp8", None)
