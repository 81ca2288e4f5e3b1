"""Page 1 in words: three plain sentences from the decision rows, and the three lines printed after a build."""

from __future__ import annotations

from genreport.model.evaluate import Results
from genreport.present import fmt, prose


def chapters(r: Results) -> dict[str, int]:
    """Chapter numbers in order of the chapters this report has (training, many GPUs and measurements are optional)."""
    present = ["s0", "s1", "s2", "s3", "s4"] + (["s5"] if r.training else []) + ["s6"] + \
        (["s7"] if r.many is not None or r.parallel is not None else []) + (["s8"] if r.measured or r.measured_not_compared else []) + (["s9"] if r.serving else [])
    return {name: i for i, name in enumerate(present)}


def _fit_sentence(r: Results) -> str:
    sc = r.scalars[r.lead]
    opts = [o for o in r.fit_options if o["fits"]]
    ways = []
    for o in opts:
        if o["kind"] == "precision":
            ways.append(f"{o['label']} ({fmt.gb(o['weight_bytes'])})")
        elif o["kind"] == "gpus":
            cost = (f", at least {fmt.time(o['time'])} per token at batch 1, {fmt.num(o['tokens_per_s_gpu'])} tok/s "
                    "per GPU" if o.get("time") else "")
            ways.append(f"{o['label']} ({fmt.gb(o['weight_bytes'])} of weights each{cost})")
        else:
            ways.append(f"one {o['label']}")
    if r.frame.many:
        # the weights in the capacity's GiB too: 98.35 GB beside 80.79 GiB read as the smaller (a review of stop 87)
        text = (f"Each GPU's share of the weights, {fmt.gb(sc['weight_bytes'])} ({fmt.gib(sc['weight_bytes'])}), "
                f"exceeds the {fmt.gib(sc['capacity'])} "
                f"of one {r.spec.hardware.title}: {r.spec.model.title} does not fit on {r.frame.gpus} GPUs at "
                f"{r.spec.precision.weights}")
    else:
        text = (f"The weights alone, {fmt.gb(sc['weight_bytes'])} ({fmt.gib(sc['weight_bytes'])}), exceed the "
                f"{fmt.gib(sc['capacity'])} of one "
                f"{r.spec.hardware.title}: {r.spec.model.title} does not fit at {r.spec.precision.weights}")
    if ways:
        text += "; it fits with " + (", ".join(ways[:-1]) + " or " + ways[-1] if len(ways) > 1 else ways[0])
    if r.frame.many:
        return text + ". The bounds below are those of one GPU of the layout streaming its slice."
    return text + ". The bounds below are those of one card's bandwidth and compute streaming the whole model."


def _overhead_clause(row: dict) -> str:
    """Where the kernels' fixed costs are the serial estimate's largest term: seed 000's third state, named."""
    if row.get("estimate_binds") != "overhead":
        return ""
    return f" (overhead-bound: {fmt.time(row['overhead'])} of it is the kernels' fixed costs, its largest term)"


def _collectives_clause(row: dict, stages: int, groups: bool = True) -> str:
    """The serial estimate's own collectives (not the bound's interconnect ledger: bound and estimate never mixed),
    at their scope: one GPU's round, which is one pipeline stage's share where there are several; ``groups``: the
    round has tensor- or expert-parallel collectives besides the stages' sends (a pp-only layout's are sends)."""
    if not row.get("comm_est"):
        return "with no collective on its critical path"
    if stages > 1:
        what = "collectives and stage-to-stage sends" if groups else "stage-to-stage sends"
        # one stage's GPUs' own (results.json's decode_time_comm_estimate, scope gpu); the round passes every stage
        # in turn, each with its own: a review read 1.43 ms as the round's share of 5.82 ms, where 2.86 ms lay on it
        return (f"through {stages} stages in turn, each stage's GPUs spending {fmt.time(row['comm_est'])} of it in "
                f"their own {what}")
    return f"{fmt.time(row['comm_est'])} of it in the collectives on its critical path"


def sentences(r: Results) -> list[str]:
    """Three sentences: what binds at batch 1 (or that it does not fit), what batching gives, the biggest lever."""
    rows = r.decision
    out = []
    if not r.verdicts.get("weights_fit", True):
        out.append(_fit_sentence(r))
    decode = [x for x in rows if x["workload"] == "decode"]
    if decode:
        d1 = decode[0]
        other = d1["other"]
        if len(out) < 1 and r.parallel is not None:
            p = r.parallel.parallelism
            shape = ", ".join(f"{k} {v}" for k, v in (("tp", p.tp), ("pp", p.pp), ("ep", p.ep), ("dp", p.dp)) if v > 1)
            where = f"On {p.gpus} GPUs ({shape})" if p.gpus > 1 else "On one GPU"  # a layout block of tp 1
            # where its KV cache does not fit, the capacity binds (the decision table's "binds"): the roofs' time is
            # what it would take, were it to fit (a review read "is bandwidth-bound" beside the table's "capacity")
            state = (f"is {d1['roof']}-bound" if d1["fits"] or not r.verdicts.get("weights_fit", True) else
                     f"does not fit ({_fit_words(dict(d1, gpus=p.replica_gpus))}); were it to fit, it would be {d1['roof']}-bound")
            out.append(f"{where}, decode at batch {d1['batch']:,} and context {d1['context']:,} {state}: the "
                       f"strict bound is {fmt.time(d1['time'])} per token (the ledgers "
                       f"overlapped), at most {fmt.num(d1['tokens_per_s_gpu'])} tok/s per GPU; the serial estimate is "
                       f"{fmt.time(d1['serial'])}, {_collectives_clause(d1, p.pp, p.tp > 1 or p.ep > 1)}{_overhead_clause(d1)}.")
        elif len(out) < 1 and not d1["fits"] and r.verdicts.get("weights_fit", True):
            # the capacity binds (the decision table's "binds"): the roofs' time is what it would take, were it to fit
            out.append(f"Decode at batch {d1['batch']:,} and context {d1['context']:,} does not fit: "
                       f"{_fit_words(d1)}; were it to fit, it would be {d1['roof']}-bound, at least "
                       f"{fmt.time(d1['time'])} per token.")
        elif len(out) < 1:
            out.append(f"Decode at batch {d1['batch']:,} and context {d1['context']:,} is {d1['roof']}-bound: at least "
                       f"{fmt.time(d1['time'])} per token, {fmt.num(d1['tokens_per_s'])} tok/s; the {other} roof "
                       f"is {fmt.num(d1['other_roof'])}× further away.")
        best = max(decode[1:], key=lambda x: x["tokens_per_s"] if x["fits"] else 0, default=None)
        if best is not None and best["fits"] and best["batch"] > d1["batch"]:
            roof = ("still " if best["roof"] == d1["roof"] else "now ") + f"{best['roof']}-bound"
            scope = ""
            if r.frame.many:
                scope = " per replica"
                if r.frame.dp > 1:
                    scope += f" ({fmt.num(best['tokens_per_s'] * r.frame.dp)} on all {r.frame.gpus:,} GPUs)"
            # a spec's batch past the engine's max_sequences fits the memory, but the engine runs fewer at once
            # (decision.rows' engine_runs, as the table marks it; page 1's batching lever stops there): say so beside it
            runs = best["engine_runs"]
            past = f"; past the engine's max_sequences, which runs {runs:,} at once" if runs else ""
            out.append(f"Batching {best['batch']:,} sequences{' per replica' if r.frame.many else ''} at context "
                       f"{best['context']:,} (the most of the spec's batches that fit{past}) gives "
                       f"{fmt.num(best['tokens_per_s'])} tok/s in total{scope}, "
                       f"{fmt.num(best['tokens_per_s'] / d1['tokens_per_s'])}× batch 1, {roof}.")
        elif r.verdicts.get("weights_fit", True) and not d1["fits"]:
            out.append("None of the spec's batches fits in memory at these contexts: the KV cache, not a roof, "
                       "limits them.")
        elif r.verdicts.get("weights_fit", True) and max(r.spec.workloads.decode_batch) > d1["batch"]:
            # only where the spec asks for a larger batch: a spec of batch 1 alone read "No batch larger than the
            # first fits in memory" beside hundreds of sequences that fit
            out.append("No batch larger than the first fits in memory at these contexts, so batching cannot raise "
                       "the throughput here.")
        timed = [lv for lv in r.levers if lv["kind"] == "time" and lv["gain"] > 1 + 1e-9]
        if timed and len(out) < 3 and r.verdicts.get("weights_fit", True) and r.parallel is None:
            lv = max(timed, key=lambda x: x["gain"])
            # the lever's times are the weights' stream time at batch 1 (chapter 5), not the step's: no KV cache
            out.append(f"Beyond batching, the biggest lever on the time to stream the weights is {lv['change']}: "
                       f"{fmt.time(lv['before'])} to {fmt.time(lv['after'])} at batch 1, {fmt.num(lv['gain'])}× "
                       f"({lv['note'].split(':')[0] if lv['note'] else 'ideal'}).")
    for x in rows:
        if len(out) >= 3:
            break
        if x["workload"] == "prefill" and x is max((y for y in rows if y["workload"] == "prefill"),
                                                   key=lambda y: y["tokens"]):
            head = f"{prose.article(x['tokens']).capitalize()} {x['tokens']:,}-token prefill"
            if not x["fits"] and r.verdicts.get("weights_fit", True):  # the prompt's KV cache, not the weights
                scope = " of a replica" if r.parallel is not None else ""
                out.append(f"{head} does not fit: its KV cache needs more than the memory{scope} holds beside the "
                           f"weights; were it to fit, it would be {x['roof']}-bound, at least {fmt.time(x['time'])} to "
                           "the first token.")
            else:
                # over stages the bound is the split prompt's (SGLang's chunked pipeline); vLLM and TensorRT-LLM
                # pass a prompt whole, stage after stage (review, stop 82: a reader on them saw twice page 1's TTFT)
                whole = (f" with the prompt split over the {r.parallel.parallelism.pp} stages; passed whole, stage "
                         f"after stage, as vLLM and TensorRT-LLM do, at least {fmt.time(x['pass'])}"
                         if x.get("pass") is not None else "")
                # where the weights do not fit it is the bound of a layout that cannot run (its table row: capacity)
                verb = "is" if r.verdicts.get("weights_fit", True) else "would be, were the weights to fit,"
                out.append(f"{head} {verb} {x['roof']}-bound: at least {fmt.time(x['time'])} to the first "
                           f"token{whole}.")
        elif x["workload"] == "training":
            head = f"Training {prose.article(x['tokens'])} {x['tokens']:,}-token micro-batch is {x['roof']}-bound"
            if x["fits"]:
                exchange = (f": its gradient exchange takes {fmt.time(x['comm'])}, more than the step's compute"
                            if x["roof"] == "interconnect" else "")
                out.append(head + exchange + ".")
            elif x.get("cards_needed") is None:  # at a layout: one GPU's state, the leanest ZeRO stage's
                out.append(head + f", and its state does not fit: ZeRO-3 leaves {fmt.gb(x['state_bytes'])} on each "
                           f"{r.spec.hardware.noun}.")
            else:
                out.append(head + f", and its state ({fmt.gb(x['state_bytes'])}) needs {x['cards_needed']} cards' "
                           "memory.")
    return out[:3]


def _fit_words(d: dict) -> str:
    """What fits of a decode row whose KV cache does not (decision.rows' capacity_batch at its context)."""
    cap = d.get("capacity_batch")
    n = int(cap) if cap is not None and cap >= 1 else 0
    many = " per replica" if d.get("gpus", 1) > 1 else ""
    if not n:
        return f"no sequence of {d['context']:,} tokens fits beside the weights"
    return f"{n:,} sequence{'s' if n != 1 else ''} of {d['context']:,} tokens fit{'s' if n == 1 else ''}{many}"


def terminal_lines(r: Results) -> list[str]:
    """What a build prints to the terminal: what binds at batch 1, the token rate, fits or not."""
    sc = r.scalars[r.lead]
    lines = []
    decode = [x for x in r.decision if x["workload"] == "decode"]
    if decode:
        d1 = decode[0]
        if d1["fits"] or not r.verdicts.get("weights_fit", True):
            lines.append(f"  binds at batch {d1['batch']}: {d1['roof']} ({fmt.time(d1['time'])} per token, "
                         f"{fmt.num(d1['other_roof'])}x from the {d1['other']} roof)")
        else:  # the capacity binds, as the decision table says: the KV cache of the batch does not fit
            lines.append(f"  binds at batch {d1['batch']}: capacity ({_fit_words(d1)}; were it to fit, "
                         f"{d1['roof']}-bound at {fmt.time(d1['time'])} per token)")
        best = max(decode, key=lambda x: x["tokens_per_s"] if x["fits"] else 0)
        scope = " per replica" if r.frame.many else ""

        def rates(x) -> str:
            text = (f"{fmt.num(x['tokens_per_s_sequence'])} tok/s per user and {fmt.num(x['tokens_per_s'])} in total"
                    f"{scope} at batch {x['batch']:,}, context {x['context']:,}")
            if r.frame.dp > 1:
                text += f" ({fmt.num(x['tokens_per_s'] * r.frame.dp)} on all {r.frame.gpus:,} GPUs)"
            return text

        lines.append(f"  tokens/s: {rates(d1)}" + ("" if d1["fits"] else " (were it to fit)")
                     + (f"; {rates(best)}" if best["fits"] and best is not d1 else ""))
        suffix = "" if r.lead == "seed" else "_exact"  # the id its entry has in the lead accounting
        derated = r.value("decode_tokens_per_s_derated" + suffix, batch=d1["batch"], context=d1["context"]) \
            if r.derated is not None and r.derated["decode"] is not None else None
        if derated is not None:
            eff = r.spec.efficiency
            lines.append(f"  derated: {fmt.num(derated)} tok/s at batch {d1['batch']:,}, context {d1['context']:,} "
                         f"(the peaks scaled by the spec's efficiency: compute {fmt.num(eff.compute)}, "
                         f"bandwidth {fmt.num(eff.bandwidth)})")
    # the weights fit, the first decode row's KV cache not: "yes" would read as the batch fitting
    kv_short = bool(decode) and not decode[0]["fits"] and r.verdicts.get("weights_fit", True)
    if r.parallel is not None:
        ok = "the weights only" if kv_short else "yes" if r.verdicts.get("weights_fit", True) else "no"
        kv = sc["kv_capacity_tokens"]
        windowed = _windowed_kv(r, sc, " per replica") if kv is not None else ""
        lines.append(f"  fits: {ok}, {fmt.gb(sc['weight_bytes'])} of weights per GPU in "
                     f"{_usable(r, sc)} on {r.parallel.parallelism.gpus} GPU{'s' if r.parallel.parallelism.gpus > 1 else ''}; "
                     + (windowed or (f"{fmt.integer(kv)} KV tokens per replica" if kv is not None
                                     else "no KV cache fits")))
    elif r.verdicts.get("weights_fit", True):
        kv = sc["kv_capacity_tokens"]
        lines.append(f"  fits: {'the weights only' if kv_short else 'yes'}, {fmt.gb(sc['weight_bytes'])} of weights in {_usable(r, sc)}; "
                     + (_windowed_kv(r, sc, "") or f"{fmt.integer(kv)} KV tokens left"))
    else:
        opts = [o["label"] for o in r.fit_options if o["fits"]]
        lines.append(f"  fits: no, {fmt.gb(sc['weight_bytes'])} of weights > {_usable(r, sc)}"
                     + (f"; fits with {', '.join(opts[:2])}" if opts else ""))
    return fmt.device(lines, r.spec.hardware.noun)


def _windowed_kv(r: Results, sc: dict, scope: str) -> str:
    """The KV part of the 'fits' line for a model with windowed or chunked layers ('' for any other): the global
    layers' bytes per token and the windowed ones' bytes per sequence, and the capacities with both, the longest
    context of one sequence and the sequences at the spec's contexts (genreport.model.catalog.kv_facts; per GPU
    of a layout each holds 1 / (n_PP s_kv) of every sequence's cache)."""
    m = r.spec.model
    contexts = sorted(r.spec.workloads.decode_context)
    if len(contexts) > 3:
        contexts = [contexts[0], contexts[-1]]
    kv, share = prose.kv_room_facts(r, sc, contexts)
    if not kv["bounded"]:
        return ""
    # the whole model's bytes beside its layer counts; a GPU's share after them (a QA read "40 KiB/token (10 global
    # layers) on each GPU" where each GPU of pp 2 holds 5 of the 10 layers' cache)
    # with pipeline stages a GPU of the stage that sets the longest sequence (its own global and windowed layers:
    # stages.kv_room), else every GPU's share of the whole model's
    stage = kv.get("stage")
    parts, each = [], []
    if kv["global_layers"]:
        parts.append(f"{fmt.kib(kv['bytes_per_token_global'])}/token ({kv['global_layers']} global layers)")
        if stage is None or stage["kinds"][0]:
            each.append(f"{fmt.kib(kv['each_token'] if stage else kv['bytes_per_token_global'] / share)}/token")
    local = [f"{n} {what}" for n, what in ((kv["windowed_layers"], "windowed"), (kv["chunked_layers"], "chunked"))
             if n]
    parts.append(f"{fmt.memsize(round(kv['bytes_per_sequence_windowed']))}/sequence ({', '.join(local)} "
                 "at full window)")
    each.append(f"{fmt.memsize(round(kv['each_sequence'] if stage else kv['bytes_per_sequence_windowed'] / share))}"
                "/sequence")
    one, most = kv["tokens_one_sequence"], m.max_context  # what the memory holds; what the model reads at most
    if one is None:
        first = f"one sequence of the model's longest context ({most:,})" if most else "any context for one sequence"
    else:
        past = f" (past the model's {most:,})" if most and one > most else ""
        first = f"{fmt.integer(one)} tokens for one sequence{past}"
    fits = [first]
    fits += [f"{fmt.integer(n)} sequence{'' if n == 1 else 's'} at {s:,}" for s, n in kv["sequences"].items()]
    gpu = f" ({' + '.join(each)} on each GPU)" if share != 1 else ""
    if stage:
        from genreport.model.stages import stage_words

        gpu = f" ({' + '.join(each)} on each GPU{stage_words(stage)})"
    return f"KV {' + '.join(parts)}{gpu}: {', '.join(fits)}{scope}"


def _usable(r, sc) -> str:
    """The memory the fit decisions use: the capacity, or what the engine's reserve leaves of it."""
    hw = r.spec.hardware
    if hw.kept >= hw.capacity and not hw.workspace:
        return fmt.gib(sc["capacity"])
    kept = [f"the engine's {fmt.reserve(hw.memory_reserve, hw.memory_reserve_bytes)}"] if hw.kept < hw.capacity else []
    kept += [f"a {fmt.gib(hw.workspace)} activation workspace"] if hw.workspace else []
    return f"{fmt.gib(sc['capacity'])} usable ({fmt.gib(hw.capacity)} less {' and '.join(kept)})"


def serving_parts(r: Results, chapter: int) -> list[tuple[str, str, bool]] | None:
    """Page 1's sentence on the spec's serving block at its layout (whether the layout meets the targets, up to how
    many sequences, and the cheapest layout ``plan`` finds), as parts (kind, text, is_value): kind "" (plain),
    "strong" or "code"; ``is_value`` marks what came from the spec or the results (escaped in HTML, as the template
    escaped its variables).  None without a serving block or without a latency target.  ``chapter``: the serving
    chapter's number.  The report prints it (:func:`serving_html`) and ``genreport table`` too (:func:`serving_text`):
    one wording for both."""
    sv = r.serving
    if not sv or not (sv.get("ttft_target") or sv.get("tpot_target")):
        return None
    hw = r.spec.hardware
    gpu = hw.noun
    out: list[tuple[str, str, bool]] = []

    def say(text: str, value: bool = False, kind: str = "") -> None:
        out.append((kind, text, value))

    def users_take(gpus: int) -> None:
        """" (the 128 users take 8 GPUs)": the spec's users and the GPUs they take, this layout's or the cheapest's."""
        say(" (the ")
        say(fmt.integer(sv["users"]), True)
        say(" user takes " if sv["users"] == 1 else " users take ")
        say(fmt.integer(gpus), True)
        say(" ")
        say(gpu, True)
        say(f"{'s' if gpus != 1 else ''})")

    say("Serving ")
    say(fmt.integer(sv["prompt"]), True)
    say(" + ")
    say(fmt.integer(sv["output"]), True)
    say("-token requests")
    if sv.get("prefix_hit"):  # the TTFT and the cost below are the uncached part's (serving.prompt_prefill)
        say(" (")
        say(fmt.share(sv["prefix_hit"]), True)
        say(" of each prompt cached)")
    say(" under")
    if sv.get("ttft_target"):
        say(" TTFT ")
        say(fmt.time(sv["ttft_target"]), True)
    if sv.get("ttft_target") and sv.get("tpot_target"):
        say(",")
    if sv.get("tpot_target"):
        say(" TPOT ")
        say(fmt.time(sv["tpot_target"]), True)
    say(":\n")
    if not sv.get("holds"):
        say("this layout cannot serve them: ")
        if r.verdicts.get("weights_fit", None) in (False,):
            say("its weights alone exceed ")
            if sv["gpus"] > 1:  # the layout's GPUs: data-parallel replicas of one GPU too (not "the card's")
                say("each ")
                say(gpu, True)
                say("'s memory")
            else:
                # "the card" whole, not "card" alone, which fmt.device takes for a sentence's start ("the Chip's")
                say(fmt.device("the card", gpu), True)
                say("'s memory")
        else:
            say("no sequence of ")
            say(fmt.integer(sv["last_context"]), True)  # the context the capacity counts (prompt + output - 1)
            say(" tokens fits beside its weights")
    elif sv.get("ttft_met", None) in (False,) or sv.get("tpot_batch", None) == 0:
        say("this layout misses them")
        if sv.get("ttft_met", None) is not False and sv.get("compute_batch") == 0 and sv.get("decode_tpot_batch"):
            # a decode round alone meets the TPOT target: the prompts' prefills take the compute (a review read
            # "misses them" beside a one-request TPOT of 5.32 ms under 50 ms, a 2-token output)
            say(" (with their prompts' prefills its compute keeps no sequence at the TPOT target)")
    else:
        say("this layout meets them")
        batch = sv.get("tpot_batch")
        if batch:
            # that batch's TPOT is a plain decode round's: a pool that prefills each prompt between its rounds meets
            # the target with fewer (the chapter's disaggregation row, techniques.one_pool; a review read "up to 256"
            # here beside the chapter's "a round with a chunk takes 118 ms, past the 60 ms target ... up to batch 171")
            pool = ((sv.get("techniques") or {}).get("numbers") or {}).get("one_pool_batch")
            pool = pool if pool is not None and pool < batch else None
            say(" up to ")
            say(fmt.integer(batch), True)
            say(f" sequence{'s' if batch != 1 else ''} per replica")
            if pool is not None:
                say(" in plain decode rounds")
            if sv.get("max_sequences") and batch == sv["max_sequences"]:
                say(", the engine's max_sequences")
            if pool is not None:
                say(", and ")
                if pool:
                    say(fmt.integer(pool), True)
                else:
                    say("none")
                say(" with each prompt's prefill between them")
        if sv.get("gpus_for_users"):
            users_take(sv["gpus_for_users"])
        serial = (sv.get("rows") or [{}])[0].get("serial", {}).get("ttft")
        if sv.get("ttft_target") and serial is not None and serial > sv["ttft_target"]:
            # met at the strict bound, missed by what engines pay (the hard-regime review of stop 89: a 405B whose
            # 32k prompt takes 979 ms at the bound against a 1 s target, 3.74 s by the serial estimate)
            say(" at the strict bound (the serial estimate's TTFT, ")
            say(fmt.time(serial), True)
            say(", misses its target)")
    say(";\n")
    cheap = sv.get("cheapest")
    if cheap:
        say("the ")
        say("cheapest" if sv.get("price_per_hour") else "fastest per " + gpu, True)
        say(" layout that meets them on ")
        say(hw.title, True)
        say(" is ")
        strong = [f"{cheap['gpus']} {gpu}{'s' if cheap['gpus'] > 1 else ''}, {cheap['layout']}"]
        strong.append(f", {cheap['precision']} weights")
        if cheap.get("weight_only"):
            strong.append(" computed in bf16")
        strong.append(f", {cheap['kv_cache']} KV")
        if (sv.get("frontier") or {}).get("speculative"):
            strong.append(", speculating" if cheap.get("speculative") == "on" else ", not speculating")
        say("".join(strong), True, "strong")
        if "tp" in cheap["scale_out_groups"]:
            say(" (its tensor-parallel group across nodes, over the scale-out network)")
        if sv.get("users") and (cheap.get("gpus_for_users") or 0) > cheap["gpus"]:
            # the users fill more than one copy of the layout: its GPU count alone reads as the whole deployment (a
            # review read "16 chips" for 128 users that take 32, "72 GPUs" for users that take 792)
            users_take(cheap["gpus_for_users"])
        if cheap.get("usd_per_request") is not None:
            say(" at $")
            say(fmt.dollars(cheap["usd_per_request"]), True)
            say(" per request ($")
            say(fmt.dollars(cheap["usd_per_mtok_out"]), True)
            say(" per million output tokens)")
        elif cheap.get("usd_per_mtok_out") is not None:
            say(" at $")
            say(fmt.dollars(cheap["usd_per_mtok_out"]), True)
            say(" per million output tokens")
        if not sv.get("users") and sv.get("replica_batch_engine", True):
            say(", with at most ")
            say(f'{sv["replica_batch"]:,}', True)
            say(" sequences a replica")
        elif not sv.get("users"):  # no engine limit: as many as fit (the chapter's cap, 65,536)
            say(", with as many sequences a replica as fit (no engine limit)")
    else:
        say("no layout ")
        say("plan", False, "code")
        say(" tries on ")
        say(hw.title, True)
        say(" meets them")
    say(f" (chapter {chapter}).")
    return out


def serving_html(r: Results, chapter: int):
    """:func:`serving_parts` as the report's HTML (Markup; None without the sentence)."""
    from markupsafe import Markup, escape

    parts = serving_parts(r, chapter)
    if parts is None:
        return None
    html = []
    for kind, text, value in parts:
        piece = escape(text) if value else Markup(text)
        html.append(Markup(f"<{kind}>{piece}</{kind}>") if kind else piece)
    return Markup("").join(html)


def serving_text(r: Results, chapter: int) -> str | None:
    """:func:`serving_parts` as one plain line (``genreport table``): the report's words, its line breaks spaces."""
    parts = serving_parts(r, chapter)
    return None if parts is None else "".join(text for _, text, _ in parts).replace("\n", " ")
