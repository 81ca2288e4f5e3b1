"""Sentences computed from the numbers.  Every sentence is a condition on the results, so it
stays true when the pair changes (a short prefill below the ridge, a model that does not fit,
a context below the critical one).  Plain text: the template escapes it."""

from __future__ import annotations

import math

import numpy as np
from genreport.model import stages
from genreport.model.evaluate import Results
from genreport.present import fmt


def _seqs(n) -> str:
    """"sequence" for one, "sequences" otherwise."""
    return "sequence" if n == 1 else "sequences"


def article(n: int) -> str:
    """'a' or 'an' before a number read aloud: an 8,192-token, an 11k, a 2,048."""
    lead = f"{n:,}".split(",")[0]
    return "an" if lead.startswith("8") or lead in ("11", "18") else "a"


def _lead(r: Results):
    return r.scalars[r.lead]


def decode_headline(r: Results) -> str:
    sc = _lead(r)
    t_mem, t_comp = sc["weight_stream_time"], sc["weight_flops_time"]
    if t_mem >= t_comp:
        return (f"Decode at batch 1 is bandwidth-bound: streaming the weights takes {fmt.time(t_mem)} per token "
                f"({fmt.num(1 / t_mem)} tok/s at most); {'each GPU' if r.frame.many else 'the card'}'s compute could do "
                f"{fmt.num(t_mem / t_comp)} "
                f"such tokens in that time, and it does 1.")
    return (f"Decode at batch 1 is compute-bound on {'each GPU' if r.frame.many else 'this card'}: "
            f"{fmt.time(t_comp)} of arithmetic against "
            f"{fmt.time(t_mem)} of weight traffic, so the compute roof sets {fmt.num(1 / t_comp)} tok/s.")


def context_lines(r: Results) -> list[str]:
    lead = r.lead
    if lead not in r.per_context:
        return []
    per = r.per_context[lead]
    ridge = _lead(r)["ridge_point"]
    out = []
    batch = np.asarray(r.spec.workloads.decode_batch)
    grid = r.decode.get(lead)
    runs = int(r.spec.hardware.max_sequences or 0)  # the engine's max_sequences (0: none)
    for j, s in enumerate(r.spec.workloads.decode_context):
        ceil = per["decode_intensity_ceiling"][j]
        cross = per["crossover_batch"][j]
        cap = int(per["capacity_batch"][j])
        at_cap = per["intensity_at_capacity"][j]
        text = f"At context {s:,}: the intensity ceiling as the batch grows is {fmt.num(ceil)} FLOP/B"
        if ceil < ridge:
            text += f", below the ridge {fmt.num(ridge)}, so no batch makes this decode compute-bound"
        elif cross > 0 and math.isfinite(cross):
            b_star = round(cross)
            text += f", above the ridge; the batch crosses it at {b_star:,}"
            if cap < 1:
                text += ", but not even one sequence fits beside the weights"
            elif b_star > cap:
                text += f", but only {cap:,} {_seqs(cap)} fit{'s' if cap == 1 else ''} in memory, so capacity binds first"
            elif 0 < runs < b_star:  # the engine's max_sequences stops the batch before it (page 1 caps there too)
                text += (f"; {cap:,} {_seqs(cap)} fit, but the engine runs at most {runs:,} at once (its "
                         "max_sequences), so it does not get there")
            else:
                text += f", and {cap:,} {_seqs(cap)} fit{'s' if cap == 1 else ''}, so it can get there"
        if cap >= 1:
            text += f". Memory holds {cap:,} {_seqs(cap)} here, where the intensity is {fmt.num(at_cap)}"
            if grid is not None:
                fits = batch <= cap
                if fits.any():
                    i = int(np.nonzero(fits)[0][-1])
                    text += (f"; at batch {int(batch[i]):,} the step bound is "
                             f"{fmt.num(grid['decode_tokens_per_s'][i, j])} tok/s")
        elif not (ceil >= ridge and cross > 0 and math.isfinite(cross)):  # not said above already
            text += ". No sequence of this length fits beside the weights"
        out.append(text + ".")
    return out


def prefill_lines(r: Results) -> list[str]:
    lead = r.lead
    if lead not in r.prefill:
        return []
    ridge = _lead(r)["ridge_point"]
    p = r.prefill[lead]
    g = r.gemm[0] if r.gemm else None
    out = []
    for i, t in enumerate(r.spec.workloads.prefill_prompt):
        iw = p["weight_reuse_intensity"][i]
        t_comp, t_mem = p["prefill_time_compute"][i], p["prefill_time_memory"][i]
        full = g["intensity"][g["tokens"].index(t)] if g and t in g["tokens"] else None
        side = "right" if iw >= ridge else "left"
        text = f"{article(t).capitalize()} {t:,}-token prefill has weight-reuse intensity {fmt.num(iw)} FLOP/B, {side} of the ridge {fmt.num(ridge)}"
        if full is not None:
            # per-class formats: the matrix's weights are not the mean's bytes (gpt-oss's bf16 attention projection
            # beside its mxfp4 experts): its own 2T/b is what the activations move it from
            own = g["weight_reuse_own"][g["tokens"].index(t)] if g["format"] else iw
            what = f"{g['n']:,}×{g['m']:,} GEMM"
            if g["format"]:
                what += f" (an {g['matrix']}, its weights {g['format']}: {fmt.num(own)} FLOP/B without activations)"
            text += f"; counting activations, the {what} reads {fmt.num(full)}"
            if (full >= ridge) != (own >= ridge):
                text += " and falls on the other side"
        if "routed_weight_reuse" in r.facts:
            # one load of a routed expert's weights serves only the tokens routed to it: T k / E in expectation
            routed = r.facts["routed_weight_reuse"][i]
            text += (f"; a routed expert's weights serve about {fmt.num(t * r.facts['routed_share'])} of the {t:,} "
                     f"tokens (T k / E, uniform routing), {fmt.num(routed)} FLOP/B, "
                     f"{'right' if routed >= ridge else 'left'} of the ridge")
        bound = "compute" if t_comp >= t_mem else "bandwidth"
        least = max(t_comp, t_mem)
        # a prompt whose KV cache does not fit beside the weights cannot run: its pass is what it would take (page 1's
        # words, results.json's "fits": false; a review read "at least 14.0 s" for a 100k prompt a replica cannot hold)
        fits = r.verdicts["prefill_fits"][i]
        verb = "is" if fits else "would be, were it to fit,"
        if not fits:  # the weights' own reason said once, at the first prompt
            said = not r.verdicts.get("weights_fit", True) and any(not f for f in r.verdicts["prefill_fits"][:i])
            text += ". It does not fit either" if said else f". It does not fit: {_unfit_prompt_words(r, t)}"
        if r.parallel is not None and lead in r.parallel.prefill:  # the prompt walks the stages, links included
            from genreport.model.layout import prompt_rate

            bound = r.verdicts["prefill_binds"][i]
            least = float(r.parallel.prefill[lead]["prefill_time_bound"][i])
            # what a replica admits, page 1's: its prompts' pass through the stages (the occupancy), not the first
            # token's bound, which a prompt's pieces walking the stages may reach
            rate = prompt_rate(t, float(r.parallel.prefill[lead]["prefill_occupancy_bound"][i]), r.frame.pp)
            text += (f". The whole pass {verb} {bound}-bound per GPU: the first token at least {fmt.time(least)} "
                     f"after the prompt, at most {fmt.num(rate)} prompt tokens/s a replica.")
        else:
            text += (f". The whole pass {verb} {bound}-bound{' per GPU' if r.frame.many else ''}: at least "
                     f"{fmt.time(least)} ({fmt.num(t / least)} prompt tokens/s).")
        out.append(text)
    return out


def _unfit_prompt_words(r: Results, tokens: int) -> str:
    """Why one prompt of ``tokens`` does not fit (the entries' ``unfit``, genreport.model.values.unfit_prompt)."""
    from genreport.model.values import unfit_prompt

    words = unfit_prompt(tokens, bool(r.verdicts.get("weights_fit", True)), r.parallel is not None)
    return words.split(": ", 1)[1] if words.startswith("one prompt") else words


def training_lines(r: Results) -> list[str]:
    if not r.training:
        return []
    ridge = r.verdicts["training_ridge"]  # the recipes' bf16 GEMMs: the bf16 peak's ridge (recipes.TRAINING_COMPUTE)
    t = r.spec.workloads.training_tokens
    iw = r.verdicts["training_intensity"]
    fmt_t = r.verdicts["training_compute"]
    step = r.value("training_step_time_compute", "seed", tokens=t)
    # the larger of the step's two ledgers, its FLOPs over the peak or, below the ridge, its weights' traffic over the
    # bandwidth (model.js trainingBound); not page 1's row time, which at a layout may be the gradient exchange (a
    # Llama 3.1 70B 16-token micro-batch on tp 2 x pp 4 x dp 2 read "39.2 ms ... for its three passes over the weights
    # at the bandwidth", the exchange's time; the passes take 11.0 ms)
    bound = step / (iw / ridge) if step and iw > 0 and r.verdicts.get("training_binds", "compute") != "compute" else step
    # the state is the whole model's, judged against what one card keeps for it (evaluate._whole_on_one_card)
    cap = r.one_card[r.lead]["capacity"] if r.lead in r.one_card else _lead(r)["capacity"]
    parts = [f"{tr['bytes_per_param']:g} B/param gives {fmt.gib(tr['total'])}" for tr in r.training]
    fits = [tr["fits"] for tr in r.training]
    text = (f"Training {article(t)} {t:,}-token micro-batch has weight-reuse intensity {fmt.num(iw)} FLOP/B, "
            f"{'far right of' if iw >= 3 * ridge else 'right of' if iw >= ridge else 'left of'} the {fmt_t} ridge "
            f"({fmt.num(ridge)} FLOP/B): {'compute' if iw >= ridge else 'bandwidth'} bounds its GEMMs"
            + ((f", at least {fmt.time(step)} a micro-batch{' per GPU (its slice of the model)' if r.frame.many else ''}"
                f" at the {fmt_t} peak" if iw >= ridge else
                f", at least {fmt.time(bound)} a micro-batch{' per GPU (its slice of the model)' if r.frame.many else ''}"
                f" for its three passes over the weights at the bandwidth ({fmt.time(step)} at the {fmt_t} peak)")
               if step else "")
            + (f" (the recipes train in mixed precision: {fmt_t} GEMMs, fp32 master weights, whatever format the "
               "report serves)" if fmt_t != r.spec.precision.compute else
               " (the recipes train in mixed precision: bf16 GEMMs, fp32 master weights)" if fmt_t == "bf16" else
               f" ({r.spec.hardware.title}'s file gives no bf16 peak: the {fmt_t} one)") + ". ")
    # at a layout: page 1's training row (decision.layout_training), the state each GPU holds under the recipe and ZeRO
    # stage that fits and exchanges least; the whole model on one card is the comparison, not the verdict (a review
    # read "it needs at least 9 cards' memory ... it does not fit" beside page 1's "fits" on 16 H200, tp 2 x pp 4 x dp 2)
    row = next((x for x in r.decision if x["workload"] == "training" and x.get("zero") is not None), None)
    if row is not None:
        need = min(tr["cards_needed"] for tr in r.training)
        # with stages, the stage that holds the most parameters (the embedding's or the head's: formulas n_PT)
        gpu = "each GPU" + (" of the stage that holds the most parameters" if r.spec.parallelism.pp > 1 else "")
        text += (f"On one card its state ({'; '.join(parts)}) "
                 + (f"would not fit in {fmt.gib(cap)} (at least {need} cards' memory)" if not any(fits) else
                    f"fits in {fmt.gib(cap)}" if all(fits) else f"fits in {fmt.gib(cap)} only in the leaner recipe")
                 + "; at this layout each GPU holds its "
                 + (f"share: the {row['recipe']} recipe with ZeRO-{row['zero']} leaves {fmt.gb(row['state_bytes'])} on "
                    f"{gpu}, which fits before activations." if row["fits"] else
                    f"share, and even the leanest, ZeRO-3, leaves {fmt.gb(row['state_bytes'])} on {gpu}: it does "
                    "not fit."))
    elif not any(fits):
        need = min(tr["cards_needed"] for tr in r.training)
        text += (f"But its state does not fit: {'; '.join(parts)}, against {fmt.gib(cap)} on one card, before "
                 f"activations; it needs at least {need} cards' memory (sharding, offload) — computable, but it does not fit.")
    elif all(fits):
        text += f"Its state fits ({'; '.join(parts)}, card {fmt.gib(cap)}), leaving room for activations."
    else:
        text += f"Its state fits only in the leaner recipe ({'; '.join(parts)}, card {fmt.gib(cap)})."
    return [text]


def capacity_fact(r: Results) -> str:
    sc = _lead(r)
    if sc["weight_bytes"] > sc["capacity"]:
        return (f"No KV cache fits: {fmt.gib(sc['weight_bytes'])} of weights{' per GPU' if r.frame.many else ''} "
                f"against {fmt.gib(sc['capacity'])} "
                "leaves nothing for it, so the formula has no physical value here (section 0 lists what makes it fit).")
    if r.frame.many:
        return (f"Beside each GPU's {fmt.size(sc['weight_bytes'])} of weights, {fmt.gib(sc['capacity'] - sc['weight_bytes'])} "
                f"per GPU is left for the KV cache: {fmt.integer(sc['kv_capacity_tokens'])} tokens per replica "
                f"({fmt.kib(sc['kv_bytes_per_token'])} of each token on every GPU).")
    return (f"Beside {fmt.size(sc['weight_bytes'])} of weights, {fmt.gib(sc['capacity'] - sc['weight_bytes'])} is left "
            f"for the KV cache: {fmt.integer(sc['kv_capacity_tokens'])} tokens ({fmt.kib(sc['kv_bytes_per_token'])} each).")


def prompt_group_note(r: Results) -> str:
    """Where an expert group is wider than a replica: what a prompt's tok/s (and price) on page 1 count, the group's
    pass, not its TTFT alone ('' otherwise).  Page 1's note and ``genreport table``'s (one sentence, two places)."""
    g = int(r.frame.prompt_group)
    if g <= 1 or not r.spec.workloads.prefill_prompt:
        return ""
    price = " and price" if r.spec.hardware.price_per_hour else ""
    return (f"A prompt's tokens/s{price} take what it occupies its replica for while all {g} replicas of its expert "
            f"group prefill at once (m_P = {g}: each GPU runs its replicas' shares of the experts), longer than its "
            "TTFT alone, for which the whole group runs its experts.")


def bounded_fact(r: Results) -> str:
    """For a model with windowed or chunked layers, what :func:`capacity_fact`'s token count counts and what one
    sequence can hold (genreport.model.catalog.kv_facts, the count the summary's "fits" line states): its bytes per
    token are every layer's, but a windowed layer keeps only its window, so one sequence holds more tokens than that
    (an outside review read 39,031 there beside the summary's 73,967 for Gemma 2 27B on an L4 as two counts of one
    memory); '' for any other model, or where no KV cache fits."""
    sc = _lead(r)
    if sc["weight_bytes"] > sc["capacity"]:
        return ""
    kv, _ = kv_room_facts(r, sc)
    if not kv["bounded"]:
        return ""
    one = kv["tokens_one_sequence"]
    local = " and ".join(f"{n} {what}" for n, what in ((kv["windowed_layers"], "windowed"),
                                                        (kv["chunked_layers"], "chunked")) if n)
    most = r.spec.model.max_context
    # past the model's longest context the count is the memory's, not a sequence the model reads (a review read "can
    # reach 1,058,629 tokens" for Gemma 3 27B, whose context ends at 131,072): as the summary's "fits" line says
    holds = (f"one sequence can reach {fmt.integer(one)} tokens" + (f", past the model's {most:,}" if most and one > most
                                                                     else "") if one is not None else
             "one sequence of any context fits")
    return (f"That count has every layer cache every token; the {local} layers keep only their window, so {holds}, "
            "and the sequences that fit at each context are counted with what each layer keeps.")


def kv_room_facts(r: Results, sc: dict, contexts=()) -> tuple[dict, float]:
    """(genreport.model.catalog.kv_facts of the memory beside one GPU's weights, the share of every sequence's cache
    that GPU holds, 1 / (n_PP s_kv)): windowed and chunked layers' capacities, for chapter 4 and the summary.  With
    pipeline stages, each stage's own layers and memory (stages.kv_room): the longest sequence and the sequences at
    each context are the stages' least, its ``stage`` entry the one that sets the longest (a review read 80 sequences of
    Gemma 3 27B at pp 4 where 66 fit, the model's cache split evenly over stages of 2 and 3 global layers)."""
    from genreport.model import stages
    from genreport.model.catalog import kv_facts

    cut = r.envs[r.lead].cut
    share = cut.pp * cut.s_kv
    kv = kv_facts(r.spec.model, r.spec.precision.kv_bytes, (sc["capacity"] - sc["weight_bytes"]) * share, contexts)
    own = stages.kv_room(r.spec.hardware, r.spec.model, r.spec.precision, r.spec.parallelism, contexts,
                         sc["weight_bytes"])
    if own is not None:
        kv.update(tokens_one_sequence=own["tokens_one_sequence"], sequences=own["sequences"],
                  stage=own, each_token=own["bytes_per_token_global"], each_sequence=own["bytes_per_sequence_windowed"])
    return kv, share


def critical_fact(r: Results) -> str:
    sc = _lead(r)
    s_star = sc["critical_context"]
    if s_star is None and sc["attention_intensity"] < sc["ridge_point"]:  # only sliding windows get here
        w = int(r.spec.model.attention.sliding_window)
        return (f"No critical context: every layer attends to at most {w:,} positions, so past that the decode "
                f"ceiling stops falling, and it levels off above the ridge {fmt.num(sc['ridge_point'])}: every "
                "context can cross the ridge with a large enough batch (if that batch fits).")
    if s_star is None:
        return (f"The attention intensity {fmt.num(sc['attention_intensity'])} is at or above the ridge "
                f"{fmt.num(sc['ridge_point'])}, so every context can cross the ridge with a large enough batch.")
    return (f"Critical context S* = {round(s_star):,} tokens: below it a large enough batch makes decode "
            f"compute-bound; above it no batch does (the ceiling falls below the ridge {fmt.num(sc['ridge_point'])}).")


def attention_text(r: Results) -> str:
    m = r.spec.model
    sc = _lead(r)
    ikv = sc["attention_intensity"]
    kind = {"mha": "multi-head attention (each query head has its own KV head)",
            "gqa": f"grouped-query attention, {m.heads} query heads sharing {m.kv_heads} KV heads",
            "mqa": "multi-query attention (one KV head)",
            "mla": "multi-head latent attention: one compressed latent plus a RoPE key cached per token and layer"}
    whole = r.one_card.get(r.lead, {}).get("attention_intensity")
    scope = (f" on one GPU of the layout (its {fmt.num(m.heads / r.spec.parallelism.tp)} query heads over the cache "
             f"it holds; the whole model's is {fmt.num(whole)})"
             if whole is not None and fmt.num(whole) != fmt.num(ikv) else "")  # (a review read 60 as the model's 484)
    text = (f"{m.title} uses {kind[m.attention.kind]}. Its attention intensity is {fmt.num(ikv)} FLOP/B{scope} at "
            f"{r.spec.precision.kv_cache} KV, independent of batch and context: every sequence reads its own KV cache, "
            f"so batching does not amortise it. ")
    ridge = sc["ridge_point"]
    if ikv < ridge:
        text += f"That is {fmt.num(ridge / ikv)}× below the ridge {fmt.num(ridge)}."
    else:
        text += f"That is above the ridge {fmt.num(ridge)}: the KV term alone would not bind."
    return text + _window_text(r)


def _window_text(r: Results) -> str:
    """Sliding-window layers: what the per-context c and d_h mean (empty for models without windows)."""
    m = r.spec.model
    n = int(r.facts.get("local_layers", 0))
    if not n:
        return ""
    w = int(m.attention.sliding_window)
    which = "All" if n == m.layers else f"{n} of its {m.layers}"
    text = (f" {which} layers attend within a {w:,}-token sliding window{'' if n == m.layers else ', the others to the whole context'}: "
            f"at context S a new token reads, and the cache keeps, f(S) = ((L − n) S + n min(S, w)) / (L S) of S "
            f"per layer on average (n = {n} windowed layers, w = {w:,}). The per-context KV bytes c and the "
            f"attention FLOPs (through d_h) carry this factor; up to S = {w:,} it is 1")
    longer = [s for s in r.spec.workloads.decode_context if s > w]
    if longer:
        s_max = max(longer)
        f = r.facts["window_fraction"]
        text += f", at {s_max:,} it is {fmt.num(f)}, so c is {fmt.num(f)}× its full value and d_h reads {fmt.num(r.facts['window_head_dim'])}"
    par = r.spec.parallelism
    shares = stages.stage_shares(m, par.pp) if par is not None else None
    if shares is not None:  # the time on the layout's stages (stages.stage_shares; chapter 1 says why)
        text += (f". On the layout's {par.pp} stages a step's time takes each stage's own global layers: "
                 f"{stages.share_words(shares[0])} on the busiest, {stages.share_words(shares[1])} on the last, "
                 f"{m.layers - n - shares[1][0]} in {m.layers - shares[1][1]} on the stages before the last together "
                 "for the walk through them (chapter 1)")
    return text + "."


def whatif_rows(r: Results) -> list[dict]:
    """The levers the model computed (quantization, FP8, GQA/MQA, bandwidth, compute), formatted."""
    def shown(lv, v):
        if lv["kind"] == "time":
            return fmt.time(v)
        if lv["kind"] == "ridge":
            return f"ridge {fmt.num(v)}"
        return f"ceiling {fmt.num(v)} at {lv['context']:,}"

    return [{"change": lv["change"], "what": lv["what"], "before": shown(lv, lv["before"]),
             "after": shown(lv, lv["after"]), "gain": lv["gain"], "note": lv["note"]} for lv in r.levers]


def compare_text(r: Results) -> str:
    """From the slower-memory card to the faster one: compute ratio against batch-1 decode ratio."""
    if len(r.compare) < 2:
        return ""
    base = next(c for c in r.compare if c["is_base"])
    bits = []
    for c in r.compare:
        if c["is_base"]:
            continue
        lo, hi = (c, base) if c["bandwidth"] <= base["bandwidth"] else (base, c)
        comp = hi["peak"] / lo["peak"]
        bw = hi["bandwidth"] / lo["bandwidth"]
        dec = (hi["decode_tokens_per_s"] / lo["decode_tokens_per_s"])
        text = (f"{lo['title']} to {hi['title']}: compute {fmt.times(comp)}, bandwidth {fmt.times(bw)}, "
                f"batch-1 decode {fmt.times(dec)}")
        if abs(dec / bw - 1) < 0.01 and abs(comp / bw - 1) > 0.05:
            text += " (decode follows bandwidth, not compute)"
        bits.append(text)
    return "; ".join(bits) + "."


_WHY = {
    "bandwidth": "Bandwidth divides every memory-bound time: the ridge P/W moves as 1/W, the batch-1 bound and "
                        "every bandwidth-bound token/s scale with W, and the critical context rises because a lower "
                        "ridge is easier to reach. Capacity-limited batches do not move.",
    "kv_heads": "KV heads set the KV bytes per token c = 2 L H_kv d_h b_kv: fewer heads mean a higher attention "
                "intensity 2 H_q/(H_kv b_kv), a higher decode ceiling and critical context, and more sequences in "
                "the same memory. The weight bytes barely move.",
    "weights": "The weight format sets b: the weight bytes, the batch-1 memory bound and the weight-reuse intensity "
               "2T/b all scale with it, while the KV term and the compute roof do not.",
    "precision": "The number formats set b and b_kv (and P when the compute format changes): bytes-bound quantities "
                 "scale with the bytes, compute-bound ones with the peak.",
    "peak": "Peak compute moves the roof and the ridge P/W; bandwidth-bound decode does not speed up.",
    "model.": "The model's shapes set the parameters N (counted from the shapes in a what-if, not the published "
              "count), the KV bytes per token c and the attention FLOPs: every bound that streams weights or KV moves.",
    "capacity": "Capacity moves only the ledger: how many KV tokens and sequences fit, and whether training state fits.",
}


def whatif_story(r: Results, baseline: Results, overrides: tuple[str, ...]) -> list[str]:
    """Why the numbers moved: one explanation per override, then the largest moves."""
    out = []
    for o in overrides:
        key = o.split("=", 1)[0]
        why = next((text for k, text in _WHY.items() if k in key), None)
        out.append(f"{key}: " + (why or "this input feeds the formulas listed in the appendix; the table above "
                                        "shows every headline quantity it moved."))
    new = {(e.id, tuple(sorted(e.params.items()))): e.value for e in r.entries if e.accounting == r.lead}
    old = {(e.id, tuple(sorted(e.params.items()))): e.value for e in baseline.entries if e.accounting == baseline.lead}
    moves = []
    for key, v in new.items():
        o = old.get(key)
        if v and o and v > 0 and o > 0 and abs(math.log(v / o)) > 1e-6:
            moves.append((abs(math.log(v / o)), key, o, v))
    moves.sort(reverse=True)
    seen = set()
    top = []
    for _, (qid, params), o, v in moves:
        if qid in seen:
            continue
        seen.add(qid)
        where = ", ".join(f"{k} {val:,}" if isinstance(val, (int, float)) else f"{k} {val}" for k, val in params)
        top.append(f"{qid}{' at ' + where if where else ''} {v / o:.3g}×")  # as the table writes a ratio
        if len(top) == 5:
            break
    if top:
        out.append("Largest moves, by the size of the change (across every quantity, not only the table's): "
                   + "; ".join(top) + ".")
    # a quantity that has a value on one side and none on the other (no KV cache fits any more, a crossover past
    # the ridge) moved too: a what-if whose card no longer held the weights said "No headline quantity moved"
    lost = sorted({k[0] for k, v in new.items() if v is None and old.get(k) is not None})
    found = sorted({k[0] for k, v in new.items() if v is not None and k in old and old[k] is None})
    if lost:
        out.append("No longer stated (no physical value here): " + ", ".join(lost[:8])
                   + (f" and {len(lost) - 8} more" if len(lost) > 8 else "") + ".")
    if found:
        out.append("Stated now, with no value at the baseline: " + ", ".join(found[:8])
                   + (f" and {len(found) - 8} more" if len(found) > 8 else "") + ".")
    if not (top or lost or found):
        out.append("No headline quantity moved.")
    return out


def _streamed_sentence(r: Results) -> str:
    """Where the memory bound's batch-1 weights are not the active ones (data-parallel attention), what its
    symbol N_s (N_s,g) stands for, at the report's accounting."""
    block = r.blocks.get("t_mem")
    tex = block.symbols.get("N", "") if block is not None else ""
    if not tex.startswith("N_{s"):
        return ""
    n_s = tex.replace("{", "").replace("}", "")
    streamed = block.inputs["N"] - block.inputs.get("N_e", 0.0)
    dp = r.frame.dp
    return (f" In the memory bound above, {n_s} is the parameters one GPU streams in a batch-1 round: "
            f"{fmt.params(streamed)} at the report's accounting (its dense weights and the experts it holds that "
            f"the {dp} replicas' tokens touch), not {r.frame.sym('N_a')} = "
            f"{fmt.params(float(r.envs[r.lead].values['N_a']))}, what one token computes with.")


def _read_counting(r: Results) -> str:
    """How chapter 1's MoE sentence counts the weights a batch streams: as the report's formulas do."""
    if r.lead == "exact":
        return "counted from the shapes"
    return "the declared parameters, as the formulas count them"


def moe_text(r: Results) -> str:
    """What is different about a mixture of experts: the weights a decode step reads grow with the batch."""
    m = r.spec.model
    if m.moe is None:
        return ""
    pc = r.params
    e, k = m.moe.experts, m.moe.active_experts
    per_gpu = " per GPU" if r.frame.many else ""
    points = [f"batch {x['batch']}: {x['touched']:.3g} of {e} experts per layer, {fmt.gb(x['bytes'])}{per_gpu}"
              if x.get("microbatches", 1) == 1 else
              f"batch {x['batch']}: {x['touched']:.3g} of {e} experts per layer in each of its {x['microbatches']} "
              f"micro-batches of {x['batch'] // x['microbatches']:,}, {fmt.gb(x['bytes'])}{per_gpu} a round"
              for x in r.moe_reads if "batch" in x]
    prompts = [x for x in r.moe_reads if "prompt" in x]
    every = [x for x in prompts if x["touched"] >= e - 0.005]
    prefill = ""
    if prompts:  # the prefill's bytes count the experts its prompt touches, as a decode step of that many tokens
        some = [f"{x['touched']:.3g} of {e} per layer for the {x['prompt']:,}-token prompt"
                for x in prompts if x not in every]
        rest = ([f"all {e} from {every[0]['prompt']:,} tokens" if some else f"all {e} per layer for every prompt here"]
                if every else [])
        prefill = f" A prefill's T prompt tokens pick experts as a batch of T does: {', '.join(some + rest)}."
    # the tokens that pick one GPU's experts: an ep group wider than tp gathers ep / tp tensor-parallel groups'
    # tokens (data-parallel attention; shown.moe_reads counts them so), which the exponent must say
    cut = r.envs["exact"].cut
    gather = cut.ep / cut.tp if cut.ep > cut.tp else 1.0
    touch = ("E (1 − (1 − k/E)^B)" if gather == 1.0 else
             f"E (1 − (1 − k/E)^({fmt.num(gather)} B)) (the ep group of {cut.ep} GPUs gathers the B tokens of "
             f"{fmt.num(gather)} replicas)")
    shared = f" plus {m.moe.shared_experts} shared" if m.moe.shared_experts else ""
    n_dense = m.moe.first_dense_layers
    dense = ("; the first layer is dense" if n_dense == 1 else f"; the first {n_dense} layers are dense") if n_dense else ""
    return (f"{m.title} is a mixture of experts: each token uses {k} of {e} routed experts{shared} per layer"
            f"{dense}, so {fmt.params(pc.active)} of its {fmt.params(pc.total)} parameters do arithmetic for one token "
            f"(counted from the shapes, input embedding and output head included; "
            f"{fmt.params(pc.active - pc.embedding - pc.lm_head)} without them). "
            f"A decode step streams the experts its batch touches, {touch} per layer in expectation "
            f"under uniform routing ({_read_counting(r)}, the input embedding's rows included): "
            f"{'; '.join(points)}.{prefill}{_streamed_sentence(r)} The weight bytes therefore grow with the batch until "
            f"every expert is read, and the weight-reuse intensity rises more slowly than for a dense model; the "
            f"capacity ledger always holds all {fmt.params(pc.total)} parameters.")
