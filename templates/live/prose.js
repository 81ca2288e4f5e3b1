/* genreport live what-if: the report's sentences, from the browser's evaluation.
 *
 * A port of generator/present/prose.py (decode_headline, context_lines, prefill_lines, training_lines,
 * capacity_fact, critical_fact, attention_text, article) and of summary.py's sentences (page 1's three
 * sentences), giving the same strings to the byte. Each takes ``res = GR_MODEL.evaluate(inp, tables)`` and
 * ``inp`` (genreport.present.live.inputs; the titles are ``inp.model.title`` and ``inp.hardware.title``);
 * ``sentences`` also takes ``dec = GR_MODEL.decision(res, inp, tables)``. Numbers go through GR_FMT (fmt.js).
 * A many-GPU spec (``inp.parallelism``) changes page 1's sentences, which only Python writes: ``sentences``
 * returns null for it. No DOM: tests run it under node against Python.
 */
const GR_PROSE = (function () {
  "use strict";

  // ------------------------------------------------------------------------------------ Python's formatting
  /** f"{n:,}" of a Python int. */
  function commas(n) { return GR_FMT.integer(n); }
  function seqs(n) { return n === 1 ? "sequence" : "sequences"; }  // prose._seqs

  /** round(x): the nearest integer, ties to even. */
  function pyRound(x) {
    const r = Math.round(x);
    return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
  }

  /** max(a, b): a unless b is larger (so a NaN first stays). */
  function pyMax(a, b) { return b > a ? b : a; }

  /** max(xs, key=key): the first element with the largest key, or null for none. */
  function maxBy(xs, key) {
    let best = null, bestKey = null;
    xs.forEach(function (x) {
      const k = key(x);
      if (best === null || k > bestKey) { best = x; bestKey = k; }
    });
    return best;
  }

  function capitalize(s) { return s.charAt(0).toUpperCase() + s.slice(1); }

  function finite(x) { return typeof x === "number" && Number.isFinite(x); }

  // ------------------------------------------------------------------------------------ prose.py
  /** 'a' or 'an' before a number read aloud: an 8,192-token, an 11k, a 2,048. */
  function article(n) {
    const lead = commas(n).split(",")[0];
    return lead.startsWith("8") || lead === "11" || lead === "18" ? "an" : "a";
  }

  function leadScalars(res) { return res.scalars[res.lead]; }

  /** The frame (model/frame.py): one GPU of a many-GPU layout, or one card. */
  function frameOf(res) {
    const par = res.parallel;
    return {many: !!par && par.gpus > 1, dp: par ? par.dp : 1};
  }

  function decode_headline(res) {
    const F = GR_FMT, sc = leadScalars(res);
    const tMem = sc.weight_stream_time, tComp = sc.weight_flops_time;
    if (tMem >= tComp) {
      return `Decode at batch 1 is bandwidth-bound: streaming the weights takes ${F.time(tMem)} per token `
        + `(${F.num(1 / tMem)} tok/s at most); ${frameOf(res).many ? "each GPU" : "the card"}'s compute could do `
        + `${F.num(tMem / tComp)} `
        + "such tokens in that time, and it does 1.";
    }
    return `Decode at batch 1 is compute-bound on ${frameOf(res).many ? "each GPU" : "this card"}: `
      + `${F.time(tComp)} of arithmetic against `
      + `${F.time(tMem)} of weight traffic, so the compute roof sets ${F.num(1 / tComp)} tok/s.`;
  }

  function context_lines(res, inp) {
    const F = GR_FMT, lead = res.lead, w = inp.workloads;
    const per = res.perContext[lead];
    if (!per) return [];
    const ridge = leadScalars(res).ridge_point;
    const grid = res.decode[lead], runs = Math.trunc(inp.hardware.max_sequences || 0);  // 0: no engine limit
    return w.decode_context.map(function (s, j) {
      const ceil = per.decode_intensity_ceiling[j], cross = per.crossover_batch[j];
      const cap = Math.trunc(per.capacity_batch[j]), atCap = per.intensity_at_capacity[j];
      const crosses = cross > 0 && finite(cross);
      let text = `At context ${commas(s)}: the intensity ceiling as the batch grows is ${F.num(ceil)} FLOP/B`;
      if (ceil < ridge) {
        text += `, below the ridge ${F.num(ridge)}, so no batch makes this decode compute-bound`;
      } else if (crosses) {
        const bStar = pyRound(cross);
        text += `, above the ridge; the batch crosses it at ${commas(bStar)}`;
        if (cap < 1) text += ", but not even one sequence fits beside the weights";
        else if (bStar > cap) text += `, but only ${commas(cap)} ${seqs(cap)} fit${cap === 1 ? "s" : ""} in memory, so capacity binds first`;
        else if (runs > 0 && runs < bStar) {  // the engine's max_sequences stops the batch before it
          text += `; ${commas(cap)} ${seqs(cap)} fit, but the engine runs at most ${commas(runs)} at once (its `
            + "max_sequences), so it does not get there";
        } else text += `, and ${commas(cap)} ${seqs(cap)} fit${cap === 1 ? "s" : ""}, so it can get there`;
      }
      if (cap >= 1) {
        text += `. Memory holds ${commas(cap)} ${seqs(cap)} here, where the intensity is ${F.num(atCap)}`;
        if (grid) {
          let i = -1;
          w.decode_batch.forEach(function (b, k) { if (b <= cap) i = k; });
          if (i >= 0) {
            text += `; at batch ${commas(w.decode_batch[i])} the step bound is `
              + `${F.num(grid.decode_tokens_per_s[i][j])} tok/s`;
          }
        }
      } else if (!(ceil >= ridge && crosses)) {  // not said above already
        text += ". No sequence of this length fits beside the weights";
      }
      return text + ".";
    });
  }

  function prefill_lines(res, inp) {
    const F = GR_FMT, lead = res.lead;
    const p = res.prefill[lead];
    if (!p) return [];
    const ridge = leadScalars(res).ridge_point;
    const g = res.gemm.length ? res.gemm[0] : null;
    return inp.workloads.prefill_prompt.map(function (t, i) {
      const iw = p.weight_reuse_intensity[i];
      const tComp = p.prefill_time_compute[i], tMem = p.prefill_time_memory[i];
      const full = g && g.tokens.indexOf(t) >= 0 ? g.intensity[g.tokens.indexOf(t)] : null;
      const side = iw >= ridge ? "right" : "left";
      let text = `${capitalize(article(t))} ${commas(t)}-token prefill has weight-reuse intensity ${F.num(iw)} FLOP/B, `
        + `${side} of the ridge ${F.num(ridge)}`;
      if (full !== null) {  // a per-class matrix against its own 2T/b (prose.prefill_lines)
        const own = g.format ? g.weight_reuse_own[g.tokens.indexOf(t)] : iw;
        let what = `${commas(g.n)}×${commas(g.m)} GEMM`;
        if (g.format) what += ` (an ${g.matrix}, its weights ${g.format}: ${F.num(own)} FLOP/B without activations)`;
        text += `; counting activations, the ${what} reads ${F.num(full)}`;
        if ((full >= ridge) !== (own >= ridge)) text += " and falls on the other side";
      }
      const moe = inp.model.moe;
      if (moe && moe.active_experts < moe.experts) {  // a routed expert's load serves T k / E tokens in expectation
        const share = moe.active_experts / moe.experts, env = res.envs[lead];
        // 2 T k / (E b_x): b_x the routed experts' bytes per weight where the precision differs by tensor class
        const routed = env.perClass ? 2 * t / env.wb.experts * share : iw * share;
        text += `; a routed expert's weights serve about ${F.num(t * share)} of the ${commas(t)} tokens (T k / E, `
          + `uniform routing), ${F.num(routed)} FLOP/B, ${routed >= ridge ? "right" : "left"} of the ridge`;
      }
      let bound = tComp >= tMem ? "compute" : "bandwidth";
      let time = pyMax(tComp, tMem);
      // a prompt whose KV cache does not fit: what its pass would take (prose.prefill_lines, _unfit_prompt_words)
      const fits = res.verdicts.prefill_fits[i], verb = fits ? "is" : "would be, were it to fit,";
      if (!fits) {  // the weights' own reason said once, at the first prompt (prose.prefill_lines)
        const said = res.verdicts.weights_fit === false && res.verdicts.prefill_fits.slice(0, i).some(f => !f);
        text += said ? ". It does not fit either" : res.verdicts.weights_fit === false
          ? ". It does not fit: the weights alone exceed the memory capacity, so no KV cache fits"
          : `. It does not fit: its KV cache exceeds what the memory${res.parallel ? " of a replica" : ""} holds beside `
            + "the weights";
      }
      const par = res.parallel && res.parallel.prefill[lead];
      if (par) {  // the prompt walks the stages, links included; a replica admits page 1's rate (layout.prompt_rate)
        bound = res.verdicts.prefill_binds[i];
        time = par.prefill_time_bound[i];
        const rate = t * (inp.parallelism.pp || 1) / par.prefill_occupancy_bound[i];
        return text + `. The whole pass ${verb} ${bound}-bound per GPU: the first token at least ${F.time(time)} `
          + `after the prompt, at most ${F.num(rate)} prompt tokens/s a replica.`;
      }
      return text + `. The whole pass ${verb} ${bound}-bound${frameOf(res).many ? " per GPU" : ""}: at least `
        + `${F.time(time)} (${F.num(t / time)} prompt tokens/s).`;
    });
  }

  function training_lines(res, inp, dec) {
    const F = GR_FMT;
    if (!res.training.length) return [];
    const sc = leadScalars(res), ridge = res.verdicts.training_ridge;  // the recipes' bf16 ridge
    // the whole model's state against what one card keeps for it (prose.training_lines)
    const cap = res.oneCard && res.oneCard[res.lead] ? res.oneCard[res.lead].capacity : sc.capacity;
    const t = inp.workloads.training_tokens, iw = res.verdicts.training_intensity, fmtT = res.verdicts.training_compute;
    const found = res.entries.get(GR_MODEL.key("training_step_time_compute", {tokens: t})), step = found ? found.value : null;
    const parts = res.training.map(function (tr) {
      return `${GR_FMT.format(tr.bytes_per_param, "g")} B/param gives ${F.gib(tr.total)}`;
    }).join("; ");
    const fits = res.training.map(function (tr) { return tr.fits; });
    const where = iw >= 3 * ridge ? "far right of" : iw >= ridge ? "right of" : "left of";
    // the bound page 1's row gives (decision.rows): the larger ledger, the weights' traffic below the ridge
    const slice = frameOf(res).many ? " per GPU (its slice of the model)" : "";
    let text = `Training ${article(t)} ${commas(t)}-token micro-batch has weight-reuse intensity ${F.num(iw)} FLOP/B, `
      + `${where} the ${fmtT} ridge (${F.num(ridge)} FLOP/B): ${iw >= ridge ? "compute" : "bandwidth"} bounds its GEMMs`
      + (step ? (iw >= ridge ? `, at least ${F.time(step)} a micro-batch${slice} at the ${fmtT} peak`
        : `, at least ${F.time(GR_MODEL.trainingBound(res, inp))} a micro-batch${slice} for its three passes over the weights at the `
          + `bandwidth (${F.time(step)} at the ${fmtT} peak)`) : "")
      + (fmtT !== inp.precision.compute ? ` (the recipes train in mixed precision: ${fmtT} GEMMs, fp32 master weights, `
        + "whatever format the report serves)" : fmtT === "bf16"
        ? " (the recipes train in mixed precision: bf16 GEMMs, fp32 master weights)"
        : ` (${inp.hardware.title}'s file gives no bf16 peak: the ${fmtT} one)`) + ". ";
    // at a layout: page 1's training row, each GPU's share under the recipe and ZeRO stage it takes (prose.training_lines)
    const row = dec ? dec.rows.find(function (x) { return x.workload === "training" && x.zero !== null && x.zero !== undefined; })
      : undefined;
    if (row) {
      const need = Math.min.apply(null, res.training.map(function (tr) { return tr.cards_needed; }));
      // with stages, the stage that holds the most parameters (prose.training_lines)
      const gpu = "each GPU" + ((inp.parallelism.pp || 1) > 1 ? " of the stage that holds the most parameters" : "");
      text += `On one card its state (${parts}) `
        + (!fits.some(Boolean) ? `would not fit in ${F.gib(cap)} (at least ${need} cards' memory)`
          : fits.every(Boolean) ? `fits in ${F.gib(cap)}` : `fits in ${F.gib(cap)} only in the leaner recipe`)
        + "; at this layout each GPU holds its "
        + (row.fits ? `share: the ${row.recipe} recipe with ZeRO-${row.zero} leaves ${F.gb(row.state_bytes)} on `
          + `${gpu}, which fits before activations.`
          : `share, and even the leanest, ZeRO-3, leaves ${F.gb(row.state_bytes)} on ${gpu}: it does not fit.`);
    } else if (!fits.some(Boolean)) {
      const need = Math.min.apply(null, res.training.map(function (tr) { return tr.cards_needed; }));
      text += `But its state does not fit: ${parts}, against ${F.gib(cap)} on one card, before `
        + `activations; it needs at least ${need} cards' memory (sharding, offload) — computable, but it does not fit.`;
    } else if (fits.every(Boolean)) {
      text += `Its state fits (${parts}, card ${F.gib(cap)}), leaving room for activations.`;
    } else {
      text += `Its state fits only in the leaner recipe (${parts}, card ${F.gib(cap)}).`;
    }
    return [text];
  }

  function capacity_fact(res) {
    const F = GR_FMT, sc = leadScalars(res);
    if (sc.weight_bytes > sc.capacity) {
      return `No KV cache fits: ${F.gib(sc.weight_bytes)} of weights${frameOf(res).many ? " per GPU" : ""} `
        + `against ${F.gib(sc.capacity)} `
        + "leaves nothing for it, so the formula has no physical value here (section 0 lists what makes it fit).";
    }
    if (frameOf(res).many) {
      return `Beside each GPU's ${F.size(sc.weight_bytes)} of weights, ${F.gib(sc.capacity - sc.weight_bytes)} `
        + `per GPU is left for the KV cache: ${F.integer(sc.kv_capacity_tokens)} tokens per replica `
        + `(${F.kib(sc.kv_bytes_per_token)} of each token on every GPU).`;
    }
    return `Beside ${F.size(sc.weight_bytes)} of weights, ${F.gib(sc.capacity - sc.weight_bytes)} is left `
      + `for the KV cache: ${F.integer(sc.kv_capacity_tokens)} tokens (${F.kib(sc.kv_bytes_per_token)} each).`;
  }

  function critical_fact(res, inp) {
    const F = GR_FMT, sc = leadScalars(res);
    const sStar = sc.critical_context;
    if (sStar === null && sc.attention_intensity < sc.ridge_point) {  // only sliding windows get here
      const w = Math.trunc(inp.model.attention.sliding_window);
      return `No critical context: every layer attends to at most ${commas(w)} positions, so past that the decode `
        + `ceiling stops falling, and it levels off above the ridge ${F.num(sc.ridge_point)}: every `
        + "context can cross the ridge with a large enough batch (if that batch fits).";
    }
    if (sStar === null) {
      return `The attention intensity ${F.num(sc.attention_intensity)} is at or above the ridge `
        + `${F.num(sc.ridge_point)}, so every context can cross the ridge with a large enough batch.`;
    }
    return `Critical context S* = ${commas(pyRound(sStar))} tokens: below it a large enough batch makes decode `
      + `compute-bound; above it no batch does (the ceiling falls below the ridge ${F.num(sc.ridge_point)}).`;
  }

  function attention_text(res, inp) {
    const F = GR_FMT, m = inp.model, sc = leadScalars(res);
    const ikv = sc.attention_intensity, ridge = sc.ridge_point;
    const kind = {
      mha: "multi-head attention (each query head has its own KV head)",
      gqa: `grouped-query attention, ${m.heads} query heads sharing ${m.kv_heads} KV heads`,
      mqa: "multi-query attention (one KV head)",
      mla: "multi-head latent attention: one compressed latent plus a RoPE key cached per token and layer"};
    const whole = inp.parallelism && res.oneCard && res.oneCard[res.lead] ? res.oneCard[res.lead].attention_intensity : null;
    const scope = whole !== null && whole !== undefined && F.num(whole) !== F.num(ikv)  // (prose.attention_text)
      ? ` on one GPU of the layout (its ${F.num(m.heads / inp.parallelism.tp)} query heads over the cache it holds; `
        + `the whole model's is ${F.num(whole)})` : "";
    let text = `${m.title} uses ${kind[m.attention.kind]}. Its attention intensity is ${F.num(ikv)} FLOP/B${scope} at `
      + `${inp.precision.kv_cache} KV, independent of batch and context: every sequence reads its own KV cache, `
      + "so batching does not amortise it. ";
    if (ikv < ridge) text += `That is ${F.num(ridge / ikv)}× below the ridge ${F.num(ridge)}.`;
    else text += `That is above the ridge ${F.num(ridge)}: the KV term alone would not bind.`;
    return text + windowText(res, inp);
  }

  /** Sliding-window layers: what the per-context c and d_h mean (empty for models without windows). */
  function windowText(res, inp) {
    const F = GR_FMT, m = inp.model;
    const n = GR_MODEL.localLayers(m);
    if (!n) return "";
    const w = Math.trunc(m.attention.sliding_window), all = n === m.layers;
    let text = ` ${all ? "All" : `${n} of its ${m.layers}`} layers attend within a ${commas(w)}-token sliding window`
      + `${all ? "" : ", the others to the whole context"}: `
      + "at context S a new token reads, and the cache keeps, f(S) = ((L − n) S + n min(S, w)) / (L S) of S "
      + `per layer on average (n = ${n} windowed layers, w = ${commas(w)}). The per-context KV bytes c and the `
      + `attention FLOPs (through d_h) carry this factor; up to S = ${commas(w)} it is 1`;
    const longer = inp.workloads.decode_context.filter(function (s) { return s > w; });
    if (longer.length) {
      const sMax = Math.max.apply(null, longer);
      // architecture.attended_fraction; the head dimension is the env's d_h (attention_head_dim_for_flops)
      const f = ((m.layers - n) * sMax + n * Math.min(sMax, m.attention.sliding_window)) / (m.layers * sMax);
      text += `, at ${commas(sMax)} it is ${F.num(f)}, so c is ${F.num(f)}× its full value and d_h reads `
        + `${F.num(f * res.envs[res.lead].values.d_h)}`;
    }
    const par = inp.parallelism;  // the time on the layout's stages (prose._window_text, stages.time_share)
    const shares = par && typeof GR_PARALLEL !== "undefined" ? GR_PARALLEL.stageShares(m, par.pp || 1) : null;
    if (shares !== null) {
      const P = GR_PARALLEL;
      text += `. On the layout's ${par.pp} stages a step's time takes each stage's own global layers: `
        + `${P.shareWords(shares[0])} on the busiest, ${P.shareWords(shares[1])} on the last, `
        + `${m.layers - n - shares[1][0]} in ${m.layers - shares[1][1]} on the stages before the last together `
        + "for the walk through them (chapter 1)";
    }
    return text + ".";
  }

  // ------------------------------------------------------------------------------------ summary.py
  function fitSentence(res, inp, dec) {
    const F = GR_FMT, sc = leadScalars(res);
    const ways = dec.fit_options.filter(function (o) { return o.fits; }).map(function (o) {
      if (o.kind === "precision") return `${o.label} (${F.gb(o.weight_bytes)})`;
      if (o.kind === "gpus") {
        const cost = o.time ? `, at least ${F.time(o.time)} per token at batch 1, ${F.num(o.tokens_per_s_gpu)} tok/s `
          + "per GPU" : "";
        return `${o.label} (${F.gb(o.weight_bytes)} of weights each${cost})`;
      }
      return `one ${o.label}`;
    });
    const many = frameOf(res).many;
    let text = many
      ? `Each GPU's share of the weights, ${F.gb(sc.weight_bytes)} (${F.gib(sc.weight_bytes)}), exceeds the ${F.gib(sc.capacity)} of one `
        + `${inp.hardware.title}: ${inp.model.title} does not fit on ${res.parallel.gpus} GPUs at ${inp.precision.weights}`
      : `The weights alone, ${F.gb(sc.weight_bytes)} (${F.gib(sc.weight_bytes)}), exceed the ${F.gib(sc.capacity)} of one `
        + `${inp.hardware.title}: ${inp.model.title} does not fit at ${inp.precision.weights}`;
    if (ways.length) {
      text += "; it fits with " + (ways.length > 1 ? ways.slice(0, -1).join(", ") + " or " + ways[ways.length - 1]
        : ways[0]);
    }
    if (many) return text + ". The bounds below are those of one GPU of the layout streaming its slice.";
    return text + ". The bounds below are those of one card's bandwidth and compute streaming the whole model.";
  }

  /** Where the kernels' fixed costs are the serial estimate's largest term (summary._overhead_clause). */
  function overheadClause(row) {
    if (row.estimate_binds !== "overhead") return "";
    return ` (overhead-bound: ${GR_FMT.time(row.overhead)} of it is the kernels' fixed costs, its largest term)`;
  }

  /** The serial estimate's own collectives, not the bound's interconnect ledger (summary._collectives_clause). */
  function collectivesClause(row, stages, groups) {
    if (!row.comm_est) return "with no collective on its critical path";
    // a pp-only layout's round sends between stages; tensor- or expert-parallel groups add collectives
    const what = groups ? "collectives and stage-to-stage sends" : "stage-to-stage sends";
    return stages > 1 ? `through ${stages} stages in turn, each stage's GPUs spending ${GR_FMT.time(row.comm_est)} of it `
      + `in their own ${what}`
      : `${GR_FMT.time(row.comm_est)} of it in the collectives on its critical path`;
  }

  /** Three sentences: what binds at batch 1 (or that it does not fit), what batching gives, the biggest lever.
   * Null when the weights do not fit a card with a link (the sentence names the smallest layout, which only
   * Python's layout search finds). */
  /** What fits of a decode row whose KV cache does not (summary._fit_words). */
  function fitWords(d) {
    const cap = d.capacity_batch, n = cap !== null && cap !== undefined && cap >= 1 ? Math.trunc(cap) : 0;
    const many = (d.gpus || 1) > 1 ? " per replica" : "";
    if (!n) return `no sequence of ${commas(d.context)} tokens fits beside the weights`;
    return `${commas(n)} sequence${n !== 1 ? "s" : ""} of ${commas(d.context)} tokens fit${n === 1 ? "s" : ""}${many}`;
  }

  function sentences(res, inp, dec) {
    const F = GR_FMT, rows = dec.rows, par = inp.parallelism;
    const weightsFit = res.verdicts.weights_fit !== false;
    if (!weightsFit && inp.hardware.link) return null;  // names the smallest layout: Python's layout search only
    const out = [];
    if (!weightsFit) out.push(fitSentence(res, inp, dec));
    const decode = rows.filter(function (x) { return x.workload === "decode"; });
    if (decode.length) {
      const d1 = decode[0];
      const other = d1.other;
      if (out.length < 1 && par) {
        const shape = ["tp", "pp", "ep", "dp"].filter(function (k) { return par[k] > 1; })
          .map(function (k) { return k + " " + par[k]; }).join(", ");
        const gpus = par.tp * par.pp * par.dp;  // a layout block of tp 1: "On one GPU" (summary.sentences)
        const where = gpus > 1 ? "On " + gpus + " GPUs (" + shape + ")" : "On one GPU";
        // where its KV cache does not fit, the capacity binds: what it would take, were it to fit (summary.sentences)
        const state = d1.fits || !weightsFit ? `is ${d1.roof}-bound`
          : `does not fit (${fitWords(Object.assign({}, d1, {gpus: par.tp * (par.pp || 1)}))}); were it to fit, it would be ${d1.roof}-bound`;
        out.push(`${where}, decode at batch ${commas(d1.batch)} and context `
          + `${commas(d1.context)} ${state}: the strict bound is ${F.time(d1.time)} per token (the ledgers `
          + `overlapped), at most ${F.num(d1.tokens_per_s_gpu)} tok/s per GPU; the serial estimate is `
          + `${F.time(d1.serial)}, ${collectivesClause(d1, par.pp, par.tp > 1 || (par.ep || 1) > 1)}${overheadClause(d1)}.`);
      } else if (out.length < 1 && !d1.fits && weightsFit) {
        // the capacity binds: the roofs' time is what it would take, were it to fit (summary.sentences)
        out.push(`Decode at batch ${commas(d1.batch)} and context ${commas(d1.context)} does not fit: `
          + `${fitWords(d1)}; were it to fit, it would be ${d1.roof}-bound, at least ${F.time(d1.time)} per token.`);
      } else if (out.length < 1) {
        out.push(`Decode at batch ${commas(d1.batch)} and context ${commas(d1.context)} is ${d1.roof}-bound: at least `
          + `${F.time(d1.time)} per token, ${F.num(d1.tokens_per_s)} tok/s; the ${other} roof `
          + `is ${F.num(d1.other_roof)}× further away.`);
      }
      const best = maxBy(decode.slice(1), function (x) { return x.fits ? x.tokens_per_s : 0; });
      if (best !== null && best.fits && best.batch > d1.batch) {
        const roof = (best.roof === d1.roof ? "still " : "now ") + `${best.roof}-bound`;
        const fr = frameOf(res);
        let scope = "";
        if (fr.many) {
          scope = " per replica";
          if (fr.dp > 1) scope += ` (${F.num(best.tokens_per_s * fr.dp)} on all ${res.parallel.gpus} GPUs)`;
        }
        // past the engine's max_sequences the batch fits the memory but runs fewer at once (summary.py)
        const maxSeq = inp.hardware.max_sequences || 0, runs = maxSeq > 0 ? Math.min(best.batch, maxSeq) : best.batch;
        const past = runs < best.batch ? `; past the engine's max_sequences, which runs ${commas(runs)} at once` : "";
        out.push(`Batching ${commas(best.batch)} sequences${fr.many ? " per replica" : ""} at context `
          + `${commas(best.context)} (the most of the spec's batches that fit${past}) gives `
          + `${F.num(best.tokens_per_s)} tok/s in total${scope}, `
          + `${F.num(best.tokens_per_s / d1.tokens_per_s)}× batch 1, ${roof}.`);
      } else if (weightsFit && !d1.fits) {
        out.push("None of the spec's batches fits in memory at these contexts: the KV cache, not a roof, "
          + "limits them.");
      } else if (weightsFit && Math.max.apply(null, inp.workloads.decode_batch) > d1.batch) {
        // only where the spec asks for a larger batch (summary.sentences)
        out.push("No batch larger than the first fits in memory at these contexts, so batching cannot raise "
          + "the throughput here.");
      }
      const timed = dec.levers.filter(function (lv) { return lv.kind === "time" && lv.gain > 1 + 1e-9; });
      if (timed.length && out.length < 3 && weightsFit && !par) {
        const lv = maxBy(timed, function (x) { return x.gain; });
        out.push(`Beyond batching, the biggest lever on the time to stream the weights is ${lv.change}: `
          + `${F.time(lv.before)} to ${F.time(lv.after)} at batch 1, ${F.num(lv.gain)}× `
          + `(${lv.note ? lv.note.split(":")[0] : "ideal"}).`);
      }
    }
    const longest = maxBy(rows.filter(function (y) { return y.workload === "prefill"; }),
      function (y) { return y.tokens; });
    for (const x of rows) {
      if (out.length >= 3) break;
      if (x.workload === "prefill" && x === longest) {
        const head = `${capitalize(article(x.tokens))} ${commas(x.tokens)}-token prefill`;
        if (!x.fits && weightsFit) {  // the prompt's KV cache, not the weights (summary.sentences)
          out.push(`${head} does not fit: its KV cache needs more than the memory${par ? " of a replica" : ""} holds `
            + `beside the weights; were it to fit, it would be ${x.roof}-bound, at least ${F.time(x.time)} to the `
            + "first token.");
        } else {  // over stages the split prompt's bound, and a whole prompt's pass beside it (summary.sentences)
          const whole = x.pass !== null && x.pass !== undefined ? ` with the prompt split over the ${par.pp} stages; `
            + `passed whole, stage after stage, as vLLM and TensorRT-LLM do, at least ${F.time(x.pass)}` : "";
          // where the weights do not fit it is the bound of a layout that cannot run (summary.sentences)
          const verb = weightsFit ? "is" : "would be, were the weights to fit,";
          out.push(`${head} ${verb} ${x.roof}-bound: at least ${F.time(x.time)} to the first token${whole}.`);
        }
      } else if (x.workload === "training") {  // summary.sentences
        const head = `Training ${article(x.tokens)} ${commas(x.tokens)}-token micro-batch is ${x.roof}-bound`;
        if (x.fits) {
          out.push(head + (x.roof === "interconnect"
            ? `: its gradient exchange takes ${F.time(x.comm)}, more than the step's compute` : "") + ".");
        } else if (x.cards_needed === null || x.cards_needed === undefined) {  // at a layout: the leanest ZeRO stage's
          out.push(head + `, and its state does not fit: ZeRO-3 leaves ${F.gb(x.state_bytes)} on each `
            + `${inp.hardware.noun || "GPU"}.`);
        } else {
          out.push(head + `, and its state (${F.gb(x.state_bytes)}) needs ${x.cards_needed} cards' memory.`);
        }
      }
    }
    return out.slice(0, 3);
  }

  return {article: article, decode_headline: decode_headline, context_lines: context_lines,
    prefill_lines: prefill_lines, training_lines: training_lines, capacity_fact: capacity_fact,
    critical_fact: critical_fact, attention_text: attention_text, sentences: sentences};
})();
