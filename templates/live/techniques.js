/* genreport live what-if: the serving chapter's numbers, recomputed in the browser.
 *
 * A port of generator/model/serving_report.py (the request table at the layout: the rows' batches, TTFT, TPOT, end
 * to end, rates, $/M and J/token, bound and serial estimate) and generator/model/techniques.py (the lever rows, the
 * goodput ceilings), calling the compiled formulas (GR_Q) with the values Python uses: the layout's (parallel.js)
 * for the request and speculative decoding, one GPU's slice of the layout (the lead Env) for the other techniques.
 * What it does not port (the cheapest layout, the frontier and rate figures) the chapter marks data-static.
 * No DOM: tests run it under node against Python.
 */
const GR_SERVING = (() => {
  "use strict";
  const M = GR_MODEL, P = GR_PARALLEL, call = M.call, F = GR_FMT;
  // a batch's or a decode pool's rate of finished requests; a one-token output has no decode round (techniques._retire)
  const retire = (x, unit) => isFinite(x) ? F.sig3(x) + (unit || "") : "without limit (a one-token output has no decode round)";
  const CEILINGS = [["goodput_rate_tpot", "TPOT target"], ["goodput_rate_compute", "compute roof"],
    ["goodput_rate_capacity", "KV cache room"], ["chunk_budget_rate", "chunk budget"],
    ["goodput_rate_engine", "engine's max_sequences"]];

  const PAYS = 1 + 1e-9;  // serving.PAYS: a speed-up pays past 1 by more than rounding
  function usd(price, tps) { return price && tps > 0 ? price / (tps * 3600.0) * 1e6 : null; }
  function pyMax(a, b) { return b > a ? b : a; }  // Python's max(a, b): a unless b is larger
  function phys(qid, x) { return M.physical(qid, x, "")[0]; }
  function pct(x) { return F.format(100 * x, ".0f") + "%"; }  // Python's {:.0%}
  // techniques._share: two significant digits under 10%, whole percents above
  // techniques._faster: the TPOT's speed-up in words, "1.10x slower" past the break-even batch
  function faster(x) { return x >= 1 ? F.format(x, ".2f") + "× faster" : F.format(1 / x, ".2f") + "× slower"; }
  // techniques._pool_share (fmt.share): never "0%" or "100%" strictly between them
  const poolShare = F.share;
  /** Where a speed-up stops paying, in words (techniques._stops_paying); null where it pays at every batch. */
  function stopsPaying(p, where, why) {
    if (p.breakeven === null) return null;
    if (p.resumes === null) return "ends at batch " + commas(p.breakeven) + where;
    const again = p.breakeven > 1 ? " again" : "";
    return "does not pay from batch " + commas(p.breakeven) + " to " + commas(p.resumes - 1) + where + why
      + (p.stops_again === null ? ", and pays" + again + " from batch " + commas(p.resumes)
        : ", pays" + again + " from batch " + commas(p.resumes) + " to " + commas(p.stops_again - 1)
          + " and stops paying again at batch " + commas(p.stops_again));
  }
  function stepShare(x) { return x > 0 && x < 0.1 ? F.format(100 * x, ".2g") + "%" : pct(x); }
  function commas(x, p) { return F.format(x, "," + (p || ".0f")); }
  // a step whose decode tokens leave no room in its budget: they fill it, or pass it (techniques._filled)
  function filled(batch, budget) {
    return batch <= budget ? "the " + commas(batch) + (batch === 1 ? " decode token fills" : " decode tokens fill")
      + " the budget of " + commas(budget)
      : "the " + commas(batch) + " decode tokens alone pass the budget of " + commas(budget) + " (an engine schedules no "
        + "more tokens a step than its budget: vLLM refuses a max_num_batched_tokens below max_num_seqs)";
  }
  const PROMPTS_LABEL = "the most the TPOT target allows with the prompts' prefills (the compute roof)";  // serving_report's
  const TPOT_LABEL = "the most the TPOT target allows",  // serving_report.TPOT_LABEL, TPOT_MISSED, USERS_PAST_TPOT
    TPOT_MISSED = " (the bound's batch: the serial estimate misses the target there)",
    USERS_PAST_TPOT = " (more than the TPOT target allows a replica: the users take more replicas, below)";
  /** The users' row of the serving table (serving_report.users_label): the busiest replica's share. */
  function usersLabel(users, dp, batch, engineBinds) {
    const want = Math.ceil(users / dp), head = commas(users) + " users";
    if (batch < want) {
      return head + (dp > 1 ? " over " + dp + " replicas" : "")
        + (engineBinds ? " (as many as the engine runs)" : " (as many as fit)");
    }
    if (dp === 1) return head;
    const short = want * dp - users;
    if (!short) return head + " over " + dp + " replicas";
    return head + " over " + dp + " replicas (" + (dp - short) + " of " + commas(want) + ", " + short + " of "
      + commas(want - 1) + "; the row: " + commas(want) + ")";
  }

  /** The mean context and the c, d_h whose products with it are the means over the decode rounds
   * (serving._mean_context_values): c the cache a step reads (env.at with a batch: a chunked layer its chunk). */
  function meanContext(env, m, prompt, output) {
    const mean = prompt + output / 2.0;
    const a = m.attention;
    if (output <= 1 || !(a.sliding_window || a.chunk_size)) {  // c, d_h do not depend on the context
      const g = env.at(1.0, output <= 1 ? prompt + 1 : prompt + output - 1);
      return [g.c, g.d_h];
    }
    let sc = 0, sd = 0;
    for (let s = prompt + 1; s < prompt + output; s++) {
      const g = env.at(1.0, s);
      sc += s * g.c;
      sd += s * g.d_h;
    }
    return [sc / (output - 1) / mean, sd / (output - 1) / mean];
  }

  /** c_h: the KV bytes per token a sequence holds, averaged over the decode contexts as meanContext averages the read
   * c (serving.held_mean_c): env.at without a batch, a windowed layer its window, a chunked layer up to its chunk;
   * the held c at the last context, exactly, for a model with no windowed or chunked layer. */
  function heldMeanC(env, m, prompt, output) {
    const a = m.attention;
    if (output <= 1 || !(a.sliding_window || a.chunk_size)) {
      return env.at(null, prompt + Math.max(output, 2) - 1).c;
    }
    let sc = 0;
    for (let s = prompt + 1; s < prompt + output; s++) sc += s * env.at(null, s).c;
    return sc / (output - 1) / (prompt + output / 2.0);
  }

  /** c_s: of it, the bytes per token a cached prefix of ``prefix`` tokens still holds, averaged over the decode
   * contexts (serving.prefix_held_mean_c); c_h where every layer is global. */
  function prefixHeldMeanC(env, m, prompt, output, prefix) {
    const a = m.attention;
    if (prefix <= 0 || output <= 1 || !(a.sliding_window || a.chunk_size)) return heldMeanC(env, m, prompt, output);
    let sc = 0;
    for (let s = prompt + 1; s < prompt + output; s++) sc += env.at(null, s).c * M.prefixShare(m, s, prefix);
    return sc / (output - 1);
  }

  /** The spec's draft on the target's GPUs (generator/model/draft.Draft; null without one): a catalog draft model
   * (``draft_model``) at its precision, the target's unless the spec wrote one, or an EAGLE/MTP head of
   * ``draft_layers`` layers shaped as the target's (loader.head_layers: every layer an MoE one where the target has
   * experts, the embedding and output head the target's), with its one-card Env (env.make_env, no activations). */
  function draftOf(inp, t) {
    // none for a one-token request: its speculative block is left out (objects._serving), kept only for a what-if
    const sp = inp.serving && inp.serving.output >= 2 && inp.serving.speculative;
    if (!sp || !(sp.draft_model || sp.draft_layers)) return null;
    let m = sp.draft_model;
    if (sp.draft_layers) {
      const tm = inp.model, n = sp.draft_layers;
      m = Object.assign({}, tm, {layers: n, declared_parameters: null, declared_active: null, tied_embeddings: true,
        title: "an EAGLE/MTP head of " + n + " " + tm.title + " layer" + (n > 1 ? "s" : ""),
        moe: tm.moe ? Object.assign({}, tm.moe, {first_dense_layers: 0, layer_step: 1}) : null});
    }
    // a head in a format of its own caches in the target's (loader._draft: an engine keeps one KV-cache format)
    const own = sp.draft_precision && sp.draft_layers ? Object.assign({}, sp.draft_precision,
      {kv_cache: inp.precision.kv_cache}) : sp.draft_precision;
    const card = Object.assign({}, inp, {model: m, precision: own || inp.precision, parallelism: null,
      workloads: {activation_bytes: 0.0}});
    return {model: m, env: M.makeEnv(card, t, inp.accounting), head: !!sp.draft_layers, precision: card.precision, t: t,
      ep: inp.parallelism ? inp.parallelism.ep || 1 : 1, tp: inp.parallelism ? inp.parallelism.tp || 1 : 1};
  }

  /** [F_d, Q_d]: one draft pass's FLOPs and bytes over b sequences at context s, the whole draft (Draft.ledgers):
   * an MoE head reads the experts its batch picks, its routed reads over the layout's ep GPUs a replica's share
   * (tp / ep of them where ep > tp). */
  function draftLedgers(d, b, s) {
    const v = d.env.at(null, s);
    v.B = b;
    v.c = d.env.at(1.0, s).c;  // a pass reads the cache a step reads (serving._read_c), not the one held
    if (d.model.moe) {
      const g = d.env.at(b, s);
      [v.N, v.b] = [g.N, g.b];
    }
    let reads = call("decode_bytes", v);
    if (d.model.moe && d.ep > d.tp) {
      const held = d.env.values.N - M.routedParameters(d.env.card, d.env.pc, d.env.accounting, d.model);
      reads = reads - pyMax(v.N - held, 0.0) * v.b * (1.0 - d.tp / d.ep);
    }
    return [call("decode_flops", v), reads];
  }

  /** t_d: the strict lower bound of k draft passes over b sequences at context s on n_TP x n_PP GPUs (Draft.time). */
  function draftTime(d, k, b, s, nTP, stages) {
    const fq = draftLedgers(d, b, s);
    return call("draft_time_bound", {k_d: k, F_d: fq[0], Q_d: fq[1], P: d.env.values.P, W: d.env.values.W, n_TP: nTP,
      n_St: stages});
  }

  /** [M_d, c_d]: the draft's weight bytes on one GPU of a tp x pp replica and its KV bytes per token there at context
   * s (Draft.memory; a head's output head is the target's, held once); [0, 0] without a draft. */
  function draftMemory(d, s, tp, nPP) {
    if (!d) return [0.0, 0.0];
    const v = d.env.at(null, s), m = d.model;
    const sKv = m.attention.kind === "mla" ? 1.0 : Math.min(tp, m.kv_heads);
    const x = m.moe ? {N_x: M.routedParameters(d.env.card, d.env.pc, d.env.accounting, m), n_EP: d.ep} : {N_x: 0.0, n_EP: 1.0};
    // the draft's layers split evenly over the stages (Draft.memory: n_PW = n_PK = n_PP)
    let w = call("weight_bytes_per_gpu", Object.assign({}, v, {rho_x: 0.0, n_TP: tp, n_PW: nPP, N_R: 0.0}, x));
    // and what tensor parallelism holds whole on each of the draft's GPUs, each class in its format (Draft.memory)
    const cut = GR_PARALLEL.layoutSlice(m, {tp: tp, pp: 1, ep: 1}, d.precision, d.t);
    w += (cut.copiesBytes || cut.copies * v.b) / (tp * nPP);
    // the table in its own class's format (Draft.memory: the embeddings class's bytes, not the head's mean)
    if (d.head) w -= m.vocab_size * m.hidden_size * (d.env.wb ? d.env.wb.embedding : v.b) / (tp * nPP);
    return [w, call("kv_bytes_per_token_per_gpu", Object.assign({}, v, {n_PK: nPP, s_kv: sKv}))];
  }

  /** " in bf16" where the draft's weights have a format of their own (techniques._draft_format), else "". */
  function draftFormat(inp) {
    const own = inp.serving.speculative.draft_precision;
    const label = own ? M.weightsLabel(own) : null;
    return label && label !== M.weightsLabel(inp.precision) ? " in " + label : "";
  }

  /** Whether the draft d is an EAGLE/MTP head at a layout of stages: the last stage's whole (Draft.capacity). */
  function headStage(d, par) { return !!(d && d.head && (par.pp || 1) > 1); }

  /** The stages whose room the draft d's bytes may bind at the layout's values cv, context s (Draft.stages): cv's own
   * with a draft model's layers split evenly over the stages (nPP); for an EAGLE/MTP head at a layout of stages the
   * stage that binds without it (none of it) and the last with the whole head on each of its GPUs. */
  function draftStages(d, inp, t, par, cv, s, nPP) {
    const own = {n_PW: cv.n_PW, n_PK: cv.n_PK, C: cv.C};
    if (!headStage(d, par)) {
      const dm = draftMemory(d, s, par.tp, nPP);
      return [Object.assign(own, {M_d: dm[0], c_d: dm[1]})];
    }
    const a = inp.model.attention, dm = draftMemory(d, s, par.tp, 1.0);
    const last = P.stageValues(inp, t, par, a.sliding_window || a.chunk_size ? s : null, par.pp - 1);
    return [Object.assign(own, {M_d: 0.0, c_d: 0.0}), Object.assign(last, {M_d: dm[0], c_d: dm[1], stage: par.pp - 1})];
  }

  /** Of draftStages, the one that holds the fewest sequences before the floor, the first of equals (Draft.binding). */
  function draftBinding(options, cv) {
    const held = o => {
      const v = Object.assign({}, cv, o);
      return (v.C - call("weight_bytes_per_gpu", v) - o.M_d) / ((call("kv_bytes_per_token_per_gpu", v) + o.c_d) * v.S);
    };
    let best = options[0];
    for (const o of options.slice(1)) if (held(o) < held(best)) best = o;
    return best;
  }

  /** The chapter's numbers for ``inp.serving`` at ``inp.parallelism``: {batch, context, rows, numbers}; null without
   * a serving block or a layout (a single-card page has no layout formulas). */
  function compute(res, inp, t) {
    // a request of one output token has no decode round to speculate (objects._serving leaves it out, warning)
    let sv = inp.serving && inp.serving.output < 2 && inp.serving.speculative
      ? Object.assign({}, inp.serving, {speculative: null}) : inp.serving;
    const par = inp.parallelism;
    // a prompt prefills at least its last token (objects._serving takes 1 - 1/T_in past it, warning)
    if (sv && sv.prefix_hit > 0 && sv.prompt * (1 - sv.prefix_hit) < 1 - 1e-9) {
      sv = Object.assign({}, sv, {prefix_hit: 1 - 1 / sv.prompt});
    }
    if (!sv || !par || typeof P === "undefined") return null;
    const hw = inp.hardware, m = inp.model, lay = res.envs[inp.accounting], env = lay.oneCard();
    const base = P.layoutValues(env, inp, par, P.chooseLinks(hw, par)[0], t, "bf16-grads");
    const gpus = par.tp * par.pp, dp = par.dp || 1, price = hw.price_per_hour;
    const at = (v, b) => P.atBatch(v, lay, b, true);
    const atRequest = (v, b) => P.atBatch(v, lay, b, true, 1.0, "request_decode_time_bound");  // its own schedule
    const last = sv.prompt + sv.output - 1, mean = sv.prompt + sv.output / 2.0;
    const tc = M.roundContext(m, sv.prompt, sv.output);  // the slowest round's context: the TPOT's
    const g = env.at(null, last), cv = Object.assign(P.heldAt(base, inp, t, par, last, g.c), {d_h: g.d_h});
    // a step reads less than a sequence holds (a chunked layer: its current chunk): times at read, capacity at cv
    // (serving.round_reads: at the slowest round)
    const gr = env.at(1.0, tc);
    const read = Object.assign({}, cv, tc === last ? {c: gr.c} : {S: tc, c: gr.c, d_h: gr.d_h});
    // one prompt alone, its TTFT, and what it occupies its replica for in a steady state (Request.prefill_bound: its
    // pass through the stages, its price); of a prompt whose prefix the cache holds, its uncached part, attending to
    // the cached positions (serving.prompt_prefill)
    function prefill(hit) {
      const tk = hit > 0 ? pyMax(sv.prompt * (1 - hit), 1.0) : sv.prompt, cached = sv.prompt * hit;
      const pre = P.atPrompt(base, lay, tk, false, cached);
      const steady = P.promptGroup(lay) > 1 ? P.atPrompt(base, lay, tk, true, cached) : null;
      const t = call("prefill_time_bound", pre), ts = call("prefill_time_serial", pre);
      return {ttft: t, serial: ts, busy: call("prefill_pass_bound", steady || pre),
        busySerial: steady ? call("prefill_time_serial", steady) : ts};
    }
    const pf = prefill(sv.prefix_hit);
    const ttft = pf.ttft, ttftSerial = pf.serial, busy = pf.busy, busySerial = pf.busySerial;
    const power = hw.power_watts, node = hw.node ? hw.node.gpus_per_node : null;
    // the node's GPUs that run replicas (serving.node_busy_gpus): its whole replicas', or a wider replica's GPUs over
    // the nodes it spans
    const nodeBusy = !node ? null : gpus <= node ? Math.floor(node / gpus) * gpus : gpus / Math.ceil(gpus / node);
    // a draft's weights and KV bytes per token on one GPU at the request's last context (techniques.draft_memory)
    // (an EAGLE/MTP head at a pipeline layout: the last stage's whole, on each of its GPUs)
    const draft = draftOf(inp, t), dm = draftMemory(draft, last, par.tp, headStage(draft, par) ? 1.0 : base.n_PP);
    // the stage that binds beside the draft (Draft.binding): the room the capacity and the ceilings take, M_d and c_d
    // the draft's bytes there (techniques.draft_memory; none on a stage without the head)
    const binding = draftBinding(draftStages(draft, inp, t, par, cv, last, base.n_PP), cv);
    const capRaw = call("capacity_batch_draft", Object.assign({}, cv, binding));
    const mem = {M_d: binding.M_d, c_d: binding.c_d};
    const roomStage = binding.M_d > 0 && binding.stage !== undefined ? binding.stage : null;  // techniques.draft_stage
    const cap = Math.trunc(Math.min(Number.isFinite(capRaw) ? Math.max(capRaw, 0) : 0, 65536));
    const cd = meanContext(env, m, sv.prompt, sv.output);
    const rv = Object.assign({}, base, {T: sv.prompt, T_o: sv.output, c: cd[0], d_h: cd[1]});
    const tpotAt = b => call("decode_time_bound", at(read, b));
    function row(b, label) {  // one request at b sequences per replica, the bound and the serial estimate (_row)
      const one = (t0, busy0, tpot, dec) => {
        const user = sv.output > 1 && dec > 0 ? (sv.output - 1) / dec : 1.0 / tpot, perGpu = b * user / gpus;
        return {ttft: t0, prefill: busy0, tpot: tpot, e2e: t0 + dec, tokens_per_s_user: user, tokens_per_s_gpu: perGpu,
          tokens_per_s_node: node ? perGpu * nodeBusy : null, usd_per_mtok_in: usd(price, sv.prompt * (par.pp || 1) / (busy0 * gpus)),
          usd_per_mtok_out: usd(price, perGpu), joules_per_token: power && perGpu > 0 ? power / perGpu : null};
      };
      const v = P.atBatch(read, lay, b), w = P.atBatch(rv, lay, b);
      return {label: label, batch: b, bound: one(ttft, busy, tpotAt(b), call("request_decode_time_bound", atRequest(rv, b))),
        serial: one(ttftSerial, busySerial, call("decode_time_serial", v), call("request_decode_time_serial", w))};
    }
    // batch 1 per replica (serving_report.alone_label): one request on each replica of a wider expert group
    const gcd = (a, b) => b ? gcd(b, a % b) : a, epDeg = par.ep || 1;
    const group = epDeg > par.tp ? epDeg / gcd(par.tp, epDeg) : 1;
    const rows = [row(1, group === 1 ? "one request alone"
      : "one request a replica (" + group + " replicas share the experts: " + group + " at once)")];
    // the batch stops at what fits and at the engine's max_sequences (serving_report.engine_limit; 0: none)
    const maxSeq = hw.max_sequences || 0, limit = maxSeq > 0 ? Math.min(cap, maxSeq) : cap, engineBinds = limit < cap;
    let usersBatch = null, tpotBatch = null, usersRow = null;
    if (sv.users) {
      const want = Math.ceil(sv.users / dp);
      usersBatch = limit ? Math.min(want, limit) : 0;
      if (usersBatch > 1) {
        usersRow = row(usersBatch, usersLabel(sv.users, dp, usersBatch, engineBinds));
        rows.push(usersRow);
      }
    }
    // the most sequences a replica's compute keeps at the TPOT target with their prompts' prefills
    // (serving_report.prompts_batch: serving.compute_batch, whole sequences; none without a target)
    // ... and speculating with serving.speculative (serving_report.prompts_batch(speculative=True):
    // compute_batch_speculative, each kept token n_v / E verified tokens and k_d / E draft passes of f_d, the draft's
    // FLOPs for one sequence at the mean context counted at the target's peak (times P / P_d), serving.draft_pass_flops;
    // 0 with a draft_cost)
    const spc = sv.speculative;
    let prompts = null, promptsSpec = null, promptsWhole = null;
    if (sv.tpot !== null) {
      let bP = Infinity, bS = Infinity;
      if (sv.output > 1) {
        const vm = Object.assign({}, env.at(1.0, mean), {T_in: sv.prompt, T_out: sv.output, h_p: sv.prefix_hit,
          theta: sv.tpot, n_TP: par.tp, n_St: par.pp || 1,
          d_hp: M.prefillHeadDim(m, env.values.d_h, sv.prompt * (1 - sv.prefix_hit), null, sv.prompt * sv.prefix_hit)});
        bP = call("compute_batch", vm);
        bP = Number.isFinite(bP) && bP > 0 ? bP : 0.0;
        if (sv.prefix_hit > 0) {  // whole prompts, as without a prefix cache (prompts_batch(cached=False))
          const b0 = call("compute_batch", Object.assign({}, vm, {h_p: 0.0,
            d_hp: M.prefillHeadDim(m, env.values.d_h, sv.prompt, null, 0.0)}));
          promptsWhole = Number.isFinite(b0) && b0 > 0 ? Math.trunc(Math.min(b0, 2 ** 30)) : 0;
        }
        if (spc) {
          bS = call("compute_batch_speculative", Object.assign(vm, {p_a: spc.acceptance, k_d: spc.draft_tokens,
            n_v: spc.verify_tokens !== null && spc.verify_tokens !== undefined ? spc.verify_tokens : spc.draft_tokens + 1,
            f_d: draft ? draftLedgers(draft, 1.0, mean)[0] * vm.P / draft.env.values.P : 0.0}));
          bS = Number.isFinite(bS) && bS > 0 ? bS : 0.0;
        }
      }
      prompts = Number.isFinite(bP) ? Math.trunc(Math.min(bP, 2 ** 30)) : 2 ** 30;
      if (spc) promptsSpec = Number.isFinite(bS) ? Math.trunc(Math.min(bS, 2 ** 30)) : 2 ** 30;
    }
    let decodeBatch = null;  // the decode round's alone (serving_report.decode_tpot_batch): a decode replica's
    if (sv.tpot !== null && limit) {
      let lo = 0, hi = limit;
      while (lo < hi) {
        const mid = Math.floor((lo + hi + 1) / 2);
        if (tpotAt(mid) <= sv.tpot) lo = mid; else hi = mid - 1;
      }
      decodeBatch = lo;
      tpotBatch = Math.min(lo, prompts);
      if (usersRow && tpotBatch > 0 && usersBatch > tpotBatch) usersRow.label += USERS_PAST_TPOT;  // serving_report.report's
      if (tpotBatch > 1 && tpotBatch !== usersBatch) {
        // labelled by what stops the batch (serving_report.tpot_label): the target, the engine or the memory
        const label = prompts < limit && tpotBatch >= prompts ? PROMPTS_LABEL
          : tpotBatch >= limit && limit < cap ? "the most the engine runs at once, within the TPOT target"
          : tpotBatch >= cap ? "all that fit, within the TPOT target" : TPOT_LABEL;
        const r = row(tpotBatch, label);
        if (r.serial.tpot > sv.tpot) r.label = label + TPOT_MISSED;  // the bound's batch, the estimate slower
        rows.push(r);
      }
    }
    const b0 = rows[rows.length - 1].bound, batch = rows[rows.length - 1].batch, tp0 = b0.tpot,
      gpu0 = b0.tokens_per_s_gpu, usd0 = b0.usd_per_mtok_out;
    const per = Math.min(limit, tpotBatch !== null ? tpotBatch : limit);
    // the replicas the users fill, in whole expert-parallel groups (serving_report.ep_group_replicas: lcm(tp, ep) / tp
    // replicas where the ep group is wider than the tensor-parallel one: group, above)
    const forUsers = sv.users && per ? Math.ceil(Math.ceil(sv.users / per) / group) * group : null;
    const out = {batch: batch, context: last, mean_context: mean, chunk: sv.chunk, capacity_batch: cap,
      max_sequences: engineBinds ? limit : null, tpot_batch: tpotBatch, users_batch: usersBatch, holds: cap >= 1,
      compute_batch: prompts !== null && prompts < 2 ** 30 ? prompts : null, decode_tpot_batch: decodeBatch,
      compute_batch_speculative: promptsSpec !== null && promptsSpec < 2 ** 30 ? promptsSpec : null,
      ttft_met: sv.ttft === null || cap < 1 ? null : ttft <= sv.ttft, rows: rows,
      replicas_for_users: forUsers, gpus_for_users: forUsers !== null ? forUsers * gpus : null};
    const n = {replica_gpus: gpus}, levers = [];
    out.numbers = n;
    out.levers = levers;
    if (!out.holds) return out;  // no sequence fits: the chapter states no technique (techniques.report: None)

    // one GPU's slice of the layout at (batch, context), with the serving block's technique inputs (_inputs)
    const lead = res.envs[res.lead], sp = sv.speculative;
    const request = {s_c: sv.chunk, T_in: sv.prompt, T_out: sv.output, h_p: sv.prefix_hit};  // request_inputs
    request.C_p = call("prompt_chunk", Object.assign({B: 0.0, n_St: 1.0}, request));  // the budget's whole width: the steady state's
    // n_v: the tokens of each sequence a verify step runs, a tree's nodes where the spec gives them, else k + 1
    const nV = sp ? (sp.verify_tokens !== null && sp.verify_tokens !== undefined ? sp.verify_tokens
      : sp.draft_tokens + 1) : 2.0;
    const cH = heldMeanC(lead, m, sv.prompt, sv.output);  // what a sequence holds: the KV cache room's c_h
    const cS = prefixHeldMeanC(lead, m, sv.prompt, sv.output, sv.prompt * sv.prefix_hit);  // of it its prefix's: c_s
    const inputs = function (b, s) {
      const v = Object.assign(lead.at(b, s), request, {n_S: 1.0, n_St: par.pp || 1, p_a: sp ? sp.acceptance : 0.5,
        k_d: sp ? sp.draft_tokens : 1.0, n_v: nV}, mem, {c_h: cH, c_s: cS});
      // the prompt tokens' head dim over the uncached prompt (techniques.prompt_head_dim): MLA's prefill form, else
      // the unwindowed d_h times the prefill's attended fraction, not the decode context's window share
      v.d_hp = M.prefillHeadDim(m, lead.values.d_h, sv.prompt * (1 - sv.prefix_hit), null, sv.prompt * sv.prefix_hit);
      if (s === last && tc !== last) {  // the last context's round is the slowest one's (techniques._inputs)
        const r = lead.at(b, tc);
        Object.assign(v, {S: tc, c: r.c, d_h: r.d_h});
      }
      return v;
    };
    const e = inputs(batch, last);
    // the KV cache room's bytes per token, one GPU's: held (c_h) and read by a step at the last context (c)
    Object.assign(out, {kv_held_per_token: cH, kv_read_per_token: e.c,
      kv_held_apart: !!(m.attention.sliding_window || m.attention.chunk_size)});
    const tDec = pyMax(call("decode_time_memory", e), call("decode_time_compute", e));

    if (sp) {  // speculative decoding through the layout (serving.speculative_request, techniques._layout_round)
      const k = sp.draft_tokens;
      // t_d: a draft's k passes at each batch at the values' context (serving.draft_time), else draft_cost of the plain
      const tD = (b, s, plain) => draft ? draftTime(draft, k, b, s, base.n_TP, base.n_St) : sp.draft_cost * plain;
      // the serial estimate's: an EAGLE/MTP head's passes on the last stage's GPUs alone (serving.draft_time serial)
      const tDSerial = (b, s, plain) => draft && draft.head ? draftTime(draft, k, b, s, base.n_TP, 1.0) : tD(b, s, plain);
      const rounds = function (v, b, plain) {  // serving.speculative_rounds at v's context against the plain round
        const vv = Object.assign(P.atBatch(v, lay, b, true, nV, null), {B: b, k_d: k, n_v: nV});
        vv.m_b = P.fastestSchedule(vv, lay.cut.pp, "verify_time_bound");  // the verify round's own schedule
        const tv = call("verify_time_bound", vv);
        const td = tD(b, v.S, plain);
        // a round yields at most the output - 1 tokens the request makes after its first (speculative_speedup_request)
        const x = {p_a: sp.acceptance, k_d: k, t_s: plain, t_v: tv, t_d: td, T_out: sv.output};
        return {speedup: call(sv.output > 1 ? "speculative_speedup_request" : "speculative_speedup_layout", x),
          plain: plain, verify: tv, draft: td};
      };
      // the last context, the cache a step reads there, against the request's TPOT round: it divides the TPOT
      const aLast = rounds(read, batch, tp0);
      // the mean context, the request's rounds summed (mean_rounds): it divides the decode time, whence tok/s
      const mv = Object.assign({}, rv, {S: mean}), aMean = rounds(mv, batch, call("decode_time_bound", at(mv, batch)));
      const dec = call("request_decode_time_bound", atRequest(rv, batch)) / aMean.speedup;
      const tpotS = tp0 / aLast.speedup, userS = sv.output > 1 ? (sv.output - 1) / dec : 1.0 / tpotS;
      const gpuS = batch * userS / gpus;
      const tokens = sv.output > 1 ? call("speculative_request_tokens", Object.assign({}, e, {T_out: sv.output}))
        : call("speculative_expected_tokens", e);
      const verifyX = M.physical("verify_crossover_batch", call("verify_crossover_batch", e), "round")[0];
      // the break-even as plan finds it: the last context's speed-up against its plain round, up to what a replica
      // holds beside the draft there (capacity_batch_draft at the last context) and the engine runs at once
      const held = Math.trunc(Math.min(pyMax(capRaw, 1.0), 4096)), scanned = maxSeq > 0 ? Math.min(held, maxSeq) : held;
      const scan = b => rounds(read, b, call("decode_time_bound", at(read, b))).speedup;
      // the serial estimate's rounds (serving.speculative_rounds with serial): its busiest GPU's ledger, no schedule to
      // choose, each against its own plain round
      const atSerial = (v, b, perSeq) => P.atBatch(v, lay, b, false, perSeq || 1.0, null);
      const roundsSerial = function (v, b) {
        const plain = call("decode_time_serial", atSerial(v, b));
        const vv = Object.assign(atSerial(v, b, nV), {B: b, k_d: k, n_v: nV});
        const x = {p_a: sp.acceptance, k_d: k, t_s: plain, t_v: call("verify_time_serial", vv), t_d: tDSerial(b, v.S, plain),
          T_out: sv.output};
        return call(sv.output > 1 ? "speculative_speedup_request" : "speculative_speedup_layout", x);
      };
      // where each speed-up at the last token stops paying (techniques._pays): the first batch it does not, the first
      // past it where it pays again (a mixture of experts, once the plain step reads every expert too), the first
      // past that where it stops again (a draft model's passes read its own cache of every sequence)
      const pays = function (speedup) {
        const p = {breakeven: null, resumes: null, stops_again: null};
        for (let b = 1; b <= scanned && p.breakeven === null; b++) if (!(speedup(b) > PAYS)) p.breakeven = b;
        for (let b = p.breakeven === null ? scanned + 1 : p.breakeven + 1; b <= scanned; b++) {
          if (speedup(b) > PAYS) { p.resumes = b; break; }
        }
        for (let b = p.resumes === null ? scanned + 1 : p.resumes + 1; b <= scanned; b++) {
          if (!(speedup(b) > PAYS)) { p.stops_again = b; break; }
        }
        return p;
      };
      const bPays = pays(scan), sPays = pays(b => roundsSerial(read, b));
      const breakeven = bPays.breakeven, resumes = bPays.resumes, stopsAgain = bPays.stops_again;
      const far = breakeven === null ? scan(scanned) : NaN;
      const sLast = roundsSerial(read, batch), sMean = roundsSerial(mv, batch);
      const td = aMean.draft, plainCap = call("capacity_batch_replica", cv);
      let ends = stopsPaying(bPays, " per replica at this layout, at the last token",
        m.moe ? " (the verify step's tokens touch more experts than a plain step's)" : "");
      if (ends !== null && resumes === null && verifyX !== null) {
        ends += " (one GPU's verify step turns compute-bound at " + commas(verifyX) + ")";
      }
      if (ends === null) {
        ends = "pays at every batch up to the " + commas(scanned) + (scanned === 1 ? " sequence " : " sequences ")
          + (scanned < held ? "the engine runs at once (its max_sequences)" : "a replica holds")
          + (verifyX === null ? "" : verifyX < scanned ? ": past batch " + commas(verifyX) + " the speed-up at the last "
            + "token falls, to " + F.format(far, ".2f") + "× at batch " + commas(scanned) : ", " + F.format(far, ".2f")
            + "× at batch " + commas(scanned) + " (one GPU's verify step turns compute-bound only at " + commas(verifyX) + ")");
      }
      if (draft) {
        ends += "; the draft's weights and KV cache leave room for " + commas(capRaw) + " sequences of "
          + commas(Math.trunc(last)) + " tokens per replica, " + commas(plainCap) + " without it";
      }
      // where the serial estimate's stops paying (techniques._serial_pays_words)
      ends += "; by the serial estimate (each round's fixed costs, the kernels' and the collectives', paid once for all "
        + "of a verify round's tokens) it " + (stopsPaying(sPays, "", "") || "pays at every batch up to " + commas(scanned));
      // its compute (techniques._speculative_compute_words): B_P,spec beside the plain B_P
      if (out.compute_batch_speculative !== null) {
        const bS = out.compute_batch_speculative, bP = out.compute_batch, e2 = F.format(tokens, ".2f");
        const keeps = bS === 0 ? "no sequence at the TPOT target with its prompt's prefill" : "at most " + commas(bS)
          + " sequence" + (bS !== 1 ? "s" : "") + " at the TPOT target with their prompts' prefills";
        ends += "; speculating, a replica's compute keeps " + keeps
          + (bP === null ? "" : bP === 0 ? ", nor decoding plainly" : ", " + commas(bP) + " decoding plainly") + " (each kept token costs "
          + (draft ? nV + " / " + e2 + " verified tokens and " + k + " / " + e2 + " draft passes"
            : nV + " / " + e2 + " verified tokens; the drafts' FLOPs are left out, a draft_cost giving their time alone")
          + ")" + (batch > bS ? ": fewer than this row's " + commas(batch) : "");
      }
      levers.push({technique: "speculative decoding", setting: k + " draft token" + (k > 1 ? "s" : "") + ", accepted "
        + poolShare(sp.acceptance) + " each, " + (draft ? "drafted by " + draft.model.title + draftFormat(inp) + " (" + k + " pass"
          + (k > 1 ? "es" : "") + ", at least " + F.time(td) + ": " + stepShare(td / aMean.plain) + " of a step)"
          : "drafts " + poolShare(sp.draft_cost) + " of a step")
        + (sp.verify_tokens !== null && sp.verify_tokens !== undefined ? ", a tree of " + sp.verify_tokens
          + " tokens verified" : ""),
        ttft: [ttft, ttft], tpot: [tp0, tpotS], per_gpu: [gpu0, gpuS], usd: [usd0, usd0 !== null ? usd(price, gpuS) : null],
        ends: ends, note: F.format(tokens, ".2f") + " tokens per verify step; TPOT " + faster(aLast.speedup)
          + " at the last token, tok/s " + F.format(aMean.speedup, ".2f") + "× at the mean context; the serial estimate: "
          + "TPOT " + faster(sLast) + ", tok/s " + F.format(sMean, ".2f") + "×"});
      Object.assign(n, {expected_tokens: tokens, breakeven_batch: breakeven, resumes_batch: resumes, stops_again_batch: stopsAgain,
        breakeven_batch_serial: sPays.breakeven, resumes_batch_serial: sPays.resumes,
        stops_again_batch_serial: sPays.stops_again, speedup_last_serial: sLast, speedup_mean_serial: sMean,
        verify_crossover_batch: verifyX});
      [["last", aLast], ["mean", aMean]].forEach(function (cx) {
        n["speedup_" + cx[0]] = cx[1].speedup;
        n["plain_round_" + cx[0]] = cx[1].plain;
        n["verify_round_" + cx[0]] = cx[1].verify;
        n["draft_time_" + cx[0]] = cx[1].draft;
      });
      if (draft) {
        const fq = draftLedgers(draft, batch, mean);
        Object.assign(n, {draft_model: draft.model.title, draft_weights_gpu: dm[0], draft_kv_token_gpu: dm[1],
          capacity_plain: plainCap, capacity_with_draft: capRaw, draft_flops_pass: fq[0], draft_bytes_pass: fq[1]});
      }
    }

    // chunked prefill: one chunk rides along each decode step while a prompt is prefilled, in what the step's
    // budget leaves beside the batch's decode tokens (techniques.report's mix: prompt_chunk at the batch)
    const mix = Object.assign({}, e, {C_p: call("prompt_chunk", Object.assign({}, request, {B: batch, n_St: par.pp || 1}))}), cp = mix.C_p;
    const tMix = call("chunked_step_time", mix), iPlain = call("decode_intensity", mix);
    const iMix = call("chunked_step_intensity", mix);
    // at a layout the step's links too (techniques._step_links): the chunk's prompt tokens pass the collectives
    const links = tk => res.parallel ? P.stepLinks(inp, t, res.lead, tk) : 0.0;
    const linksMix = links(batch + cp), linksDec = links(batch);
    const cost = pyMax(tMix, linksMix) / pyMax(tDec, linksDec), ttftChunk = cp > 0 ? call("chunked_ttft", mix) : null;
    // the same prompt in one step alone, one GPU's ledgers: the row's TTFT is the chapter's times chunked over alone
    const uncached = sv.prompt * (1 - sv.prefix_hit);
    const ttftAlone = uncached > 0 ? call("chunked_ttft", Object.assign({}, mix, {B: 0, C_p: uncached})) : null;
    const ttftRatio = ttftChunk !== null && ttftAlone !== null && ttftAlone > 0 ? ttftChunk / ttftAlone : null;
    const tStep = pyMax(tMix, linksMix);  // a mixed step at least its GPU's ledgers and its links (the row's cost)
    const chunkRate = cp / (sv.prompt * (1 - sv.prefix_hit) * tStep);
    const decodeRate = sv.output > 1 ? batch / ((sv.output - 1) * tStep) : Infinity;
    // the mean cost of a round over a batch's life (techniques.chunked_life_cost): its prompts' chunks ride along
    // n_c = B T_u / C_p of its T_out - 1 rounds; the row's tok/s and $/M take it, its TPOT the mixed step
    const nRounds = sv.output - 1, lifeAt = Object.assign({}, mix, {kappa_c: cost}), mixed = cp > 0 && nRounds > 0;
    const chunkSteps = mixed ? call("chunked_steps", lifeAt) : 0.0;
    const life = mixed ? call("chunked_life_cost", Object.assign(lifeAt, {n_c: chunkSteps})) : cost;
    const roundsWord = commas(nRounds) + (nRounds !== 1 ? " rounds" : " round");  // techniques._life_words
    const lifeWords = !(chunkSteps > 0) || sv.output <= 1 ? ""
      : "; tok/s per " + (hw.noun || "GPU") + " and $/M over a batch's life: "
        + (chunkSteps <= nRounds ? (batch === 1 ? "its prompt's" : "its " + commas(batch) + " prompts'") + " chunks ride along "
          + F.sig3(chunkSteps) + " of its " + roundsWord
          : (batch === 1 ? "its prompt takes " : "its " + commas(batch) + " prompts take ") + F.sig3(chunkSteps)
            + " mixed steps for its " + roundsWord + ", and its output waits on them");
    // a one-token request has no decode round: no chunked-prefill row (techniques.report's one_token)
    if (sv.output > 1) {
      levers.push({technique: "chunked prefill", setting: "a step budget of " + commas(sv.chunk) + (sv.chunk === 1 ? " token" : " tokens")
        + ((par.pp || 1) > 1 ? ", " + par.pp + " steps a round (one per micro-batch)" : "") + ": " + commas(batch)
        + (batch === 1 ? " decode token" : " decode tokens") + (cp > 0 ? " and a prompt chunk of " + commas(cp)
          + ((par.pp || 1) > 1 ? " a round" : "") : ", no room for a prompt chunk")
        + (sv.prefix_hit > 0 && cp > 0 ? ", of the " + poolShare(1 - sv.prefix_hit) + " of the prompt the prefix cache leaves (its TTFT, "
          + "before and after, is that part's, as the rows')" : ""),
        ttft: [ttft, ttftRatio !== null ? pyMax(ttft * ttftRatio, uncached / cp * tp0 * cost) : null], tpot: [tp0, tp0 * cost], per_gpu: [gpu0, gpu0 / life],
        usd: [usd0, usd0 !== null ? usd0 * life : null], ends: cp > 0 ? "a step's intensity " + commas(iPlain) + " → "
          + commas(iMix) + " FLOP/B" + (linksMix > tMix ? "; its collectives over the links take at least " + F.time(linksMix)
          + ", more than its ledgers on a GPU (" + F.time(tMix) + ")" : "") + "; the decode users pay " + F.format(cost, ".2f") + "× per token while a prompt is "
          + "prefilled and no step stalls for a whole prompt; at this batch one chunk a step admits " + F.sig3(chunkRate)
          + " requests/s per replica and the batch retires " + retire(decodeRate, " requests/s") + ", each round a mixed step at the last token (admission at the chapter's "
          + "batch, not the chunk budget's steady-state ceiling the goodput takes)"
          + (sv.tpot !== null && tp0 * cost > sv.tpot ? "; a round with a chunk takes " + F.time(tp0 * cost) + ", past the "
            + F.time(sv.tpot) + " TPOT target" : "")
          : filled(batch, sv.chunk) + ": no prompt is admitted "
          + "while the batch runs; the batch retires " + retire(decodeRate, " requests/s") + " per replica",
        note: "TPOT while a chunk rides along; TTFT the prompt in chunks beside the batch against the prompt in one step alone"
          + lifeWords});
      Object.assign(n, {chunked_step_time: tMix, chunked_cost: cost, chunked_step_links: linksMix, chunked_intensity: iMix, chunk_admits_rate: chunkRate,
        batch_retires_rate: decodeRate, decode_intensity: iPlain, chunked_ttft: ttftChunk, chunked_ttft_alone: ttftAlone,
        chunked_ttft_ratio: ttftRatio, chunk_tokens: cp, chunked_steps: chunkSteps, chunked_life_cost: life});
    }

    // continuous batching in steady state: the ceilings the goodput takes the least of, one replica's
    // the steady state's formulas read each cache at the mean decode context: c and d_h there (techniques.report)
    const atMean = inputs(batch, mean);
    const es = Object.assign({}, e, {c: atMean.c, d_h: atMean.d_h});
    // the weights a chunked steady step streams on average beside ``decode`` decode tokens with ``prompt`` prompt
    // tokens a step (techniques.steady_weights): the two-point law, a share of the steps carrying a full budget
    // (room = s_c - decode beside the decode tokens), the others none, its left point one token where fewer run; the
    // even spread with pipeline stages (techniques._steady_room)
    const steadyWeights = function (decode, prompt) {
      const weigh = t => { const g = lead.at(pyMax(t, 1.0), last); return {N: g.N, N_e: g.N_e, b: g.b}; };
      const budget = (par.pp || 1) > 1 ? NaN : sv.chunk - decode;
      if (!(Number.isFinite(budget) && Number.isFinite(prompt) && prompt > 0)) return weigh(decode + prompt);
      const room = pyMax(budget, 0.0), below = pyMax(1.0 - decode, 0.0), over = prompt - below, width = room - below;
      const share = width > 0 ? Math.min(Math.max(over / width, 0.0), 1.0) : 1.0;
      const alone = weigh(decode + below), full = weigh(decode + pyMax(room, below));
      const n = (1 - share) * alone.N + share * full.N, nE = (1 - share) * alone.N_e + share * full.N_e;
      const streamed = (1 - share) * (alone.N - alone.N_e) * alone.b + share * (full.N - full.N_e) * full.b;
      return {N: n, N_e: nE, b: streamed / (n > nE ? n - nE : 1.0)};
    };
    // the goodput: the least of the ceilings ``list`` ([id, words]), each at ``rateOf(id)`` (techniques.report)
    const least = function (list, rateOf) {
      let goodput = null, binds = null, low = Infinity, all = true;
      list.forEach(function (c) {
        const x = phys(c[0], rateOf(c[0])), v = x !== null && x > 0 ? x : null;
        n[c[0]] = v;
        const key = v === null ? -Infinity : v;
        if (binds === null || key < low) { low = key; binds = c[1]; }
        if (v === null) all = false; else goodput = goodput === null ? v : Math.min(goodput, v);
      });
      Object.assign(n, {goodput_rate: all ? goodput : null, goodput_binds: binds,
        goodput_rate_per_gpu: all ? goodput / gpus : null});
    };
    if (sv.output <= 1) {  // no decode round: the compute roof and the chunk budget alone (techniques.PREFILL_CEILINGS)
      least(CEILINGS.filter(c => c[0] === "goodput_rate_compute" || c[0] === "chunk_budget_rate"), id => call(id, es));
      n.prefill_only = true;
    } else if (sv.tpot !== null) {
      es.theta = sv.tpot;
      // the KV cache room is beside the weights a GPU holds, its step reads those a batch touches (held_room)
      // with stages: the binding stage's weights and memory, or the last's where a head binds there (held_room); c_h
      // the cache a sequence holds on it (its n_PK share)
      const held = roomStage === null ? lead.held(last) : lead.held(last, roomStage);
      const cRatio = (par.pp || 1) > 1 ? held.c / lead.at(null, last).c : 1.0;
      const roomOf = v => {
        const out = held.N * held.b === v.N * v.b && held.C === v.C ? v
          : Object.assign({}, v, {C: held.C - held.N * held.b + v.N * v.b});
        return cRatio !== 1.0 ? Object.assign({}, out, {c_h: v.c_h * cRatio, c_s: v.c_s * cRatio}) : out;
      };
      // ... at the weights its own steady state streams (techniques.capacity_weights): the sequences filling the
      // room at the mean context, B_h, and their prompt tokens B_h T_in (1 - h_p) / (T_out - 1) make N
      const heldMean = pyMax(0.0, call("prefix_capacity_batch", Object.assign({}, roomOf(es), {S: mean, c: roomOf(es).c_h})));
      let kvIn = es;
      if (sv.output > 1 && heldMean > 0) {
        const g = steadyWeights(heldMean, heldMean * sv.prompt * (1 - sv.prefix_hit) / (sv.output - 1));
        kvIn = Object.assign({}, es, {N: g.N, N_e: g.N_e, b: g.b});
      }
      const room = roomOf(kvIn);
      // the engine's max_sequences, where it sets one (techniques.ceilings), at the weights M_s running sequences and
      // their prompt tokens stream (capacity_weights at M_s)
      const maxSeq = Math.trunc(inp.hardware.max_sequences || 0);
      es.M_s = maxSeq;
      let engineIn = es;
      if (maxSeq > 0 && sv.output > 1) {
        const g = steadyWeights(maxSeq, maxSeq * sv.prompt * (1 - sv.prefix_hit) / (sv.output - 1));
        engineIn = Object.assign({}, es, {N: g.N, N_e: g.N_e, b: g.b});
      }
      // the TPOT ceiling at the weights its own steady state streams (techniques.steady_tpot_rate): its lam theta
      // (T_out - 1) decode and lam theta T_in (1 - h_p) prompt tokens make N, the rate their fixed point
      const perDecode = sv.tpot * (sv.output - 1), perPrompt = sv.tpot * sv.prompt * (1 - sv.prefix_hit);
      const tpotIn = lam => { const g = steadyWeights(lam * perDecode, lam * perPrompt);
        return Object.assign({}, es, {N: g.N, N_e: g.N_e, b: g.b}); };
      const tpotRate = function () {
        const rate = v => call("goodput_rate_tpot", v);
        let hi = rate(tpotIn(0.0));
        if (!(Number.isFinite(hi) && hi > 0)) return hi;
        if (rate(tpotIn(hi)) >= hi * (1 - 1e-12)) return rate(tpotIn(hi));
        let lo = 0.0;
        for (let i = 0; i < 64; i++) {
          const mid = (lo + hi) / 2;
          if (rate(tpotIn(mid)) >= mid) lo = mid; else hi = mid;
        }
        return rate(tpotIn(lo));
      };
      if (maxSeq > 0) n.max_sequences = maxSeq;
      least(CEILINGS.filter(c => c[0] !== "goodput_rate_engine" || maxSeq > 0), id => id === "goodput_rate_tpot"
        ? tpotRate() : call(id, id === "goodput_rate_capacity" ? room : id === "goodput_rate_engine" ? engineIn : es));
    }
    if (sv.rate !== null) {
      es.lam = sv.rate;
      const ts = phys("steady_step_time", call("steady_step_time", es)), ok = ts !== null && ts > 0;
      if (sv.output <= 1) {  // the share of the compute its prompts take; no step a user waits on (techniques.report)
        n.rate = sv.rate;
        if (n.goodput_rate_compute) n.rate_compute_share = sv.rate / n.goodput_rate_compute;
      } else {
        Object.assign(n, {rate: sv.rate, steady_step_time: ok ? ts : null,
          steady_concurrency: ok ? sv.rate * (sv.output - 1) * ts : null});
      }
    }

    if (sv.prefix_hit > 0) {  // prefix caching: the weights and the cache a GPU holds, the shared prefix held once
      // each stage that may bind (techniques.prefix_stages): the head's, where it binds beside it, and the one that
      // holds the fewest tokens without its bytes; of the cache, what the shared prefix still holds
      // (serving.prefix_held_c): none past a window
      const a = m.attention, cut = sv.prompt * sv.prefix_hit;
      const options = (roomStage === null ? [null] : [roomStage, null]).map(function (st) {
        const held = st === null ? lead.held(last) : lead.held(last, st);
        const cs = a.sliding_window || a.chunk_size ? held.c * M.prefixShare(m, last, cut) : held.c;
        return Object.assign({}, e, {N: held.N, b: held.b, c: held.c, C: held.C, c_s: cs},
          st === null && roomStage !== null ? {M_d: 0.0, c_d: 0.0} : {});
      });
      const cSl = options[0].c_s;
      const fits = h => {  // the least over the stages (techniques._prefix_capacities)
        const raw = Math.min.apply(null, options.map(o => call("prefix_capacity_batch", Object.assign({}, o, h))));
        const x = M.physical("prefix_capacity_batch", raw, "floor")[0];
        return x === null ? null : Math.max(0, Math.floor(x));
      };
      const c0 = fits({h_p: 0.0}), c1 = fits({});
      // the compute batch of whole prompts and of their uncached parts (the chapter's), where the chapter states one
      const bP0 = sv.tpot !== null && out.compute_batch !== null ? promptsWhole : null;
      // a prefill-only service (one output token): the compute roof of whole prompts beside the cached ones'
      let roof0 = null;
      if (sv.output <= 1 && n.goodput_rate_compute) {
        const x = phys("goodput_rate_compute", call("goodput_rate_compute", Object.assign({}, es,
          {h_p: 0.0, d_hp: M.prefillHeadDim(m, lead.values.d_h, sv.prompt, null, 0.0)})));
        roof0 = x !== null && x > 0 ? x : null;
      }
      // before: the chapter without the cache (techniques.report): the whole prompt's TTFT, and the last row the
      // chapter would have without it (serving_report.last_row_batch: its TPOT batch the decode round's, no more than
      // whole prompts' prefills keep), its rounds, tok/s and $/M where that is another batch
      const whole = prefill(0.0);
      let tpB = tp0, gpuB = gpu0, usdB = usd0, batchB = batch;
      if (bP0 !== null) {
        const tpotB = decodeBatch !== null ? Math.min(decodeBatch, bP0) : null;
        batchB = 1;
        if (usersBatch !== null && usersBatch > 1) batchB = usersBatch;
        if (tpotB !== null && tpotB > 1 && tpotB !== usersBatch) batchB = tpotB;
      }
      if (batchB !== batch) {
        const before = row(batchB, "").bound;
        [tpB, gpuB, usdB] = [before.tpot, before.tokens_per_s_gpu, before.usd_per_mtok_out];
      }
      const keep = !bP0 ? "none" : commas(bP0) + " sequence" + (bP0 !== 1 ? "s" : "");
      levers.push({technique: "prefix caching", setting: poolShare(sv.prefix_hit) + " of each prompt cached",
        ttft: [whole.ttft, ttft], tpot: [tpB, tp0], per_gpu: [gpuB, gpu0], usd: [usdB, usd0],
        ends: "sequences that fit per replica at the last context (" + commas(last) + " tokens): " + commas(c0 || 0) + " → "
          + commas(c1 || 0) + (cSl > 0 ? " (the shared prefix held once)"
            : " (no layer still holds the prefix at that context: its windows have passed it)") + (bP0 === null ? "" : "; a replica's compute keeps "
          + commas(bP0) + " → " + commas(out.compute_batch) + " sequences at the TPOT target with their prompts' "
          + "prefills (the rows above count the hit)") + (roof0 === null ? "" : "; the compute roof "
          + F.num(roof0) + " → " + F.num(n.goodput_rate_compute) + " requests/s per replica (a prompt's uncached part "
          + "prefilled, the goodput's ceiling below)"),
        note: "TTFT: the whole prompt against its uncached part alone at the layout (the rows'), its weights still read once"
          + (batchB !== batch ? "; before, the chapter's last row without the cache, batch " + commas(batchB) + " (whole prompts' "
            + "prefills keep " + keep + " at the TPOT target)" : "")});
      Object.assign(n, {prefix_capacity_before: c0, prefix_capacity_after: c1, prefix_ttft: ttft, prefix_prefill: busy,
        prefix_ttft_before: whole.ttft, prefix_prefill_before: whole.busy, prefix_compute_batch_before: bP0});
      if (roof0 !== null) n.prefix_compute_roof_before = roof0;
    }

    // none where a request generates one token: no decode pool has work (techniques.report)
    if (sv.output < 2) return out;
    // prefill/decode disaggregation: pools of this layout balanced for the request shape; the KV cache's link
    // where the layout has pipeline stages each prefill replica is a pipeline admitting a prompt every TTFT / pp
    const stages = par.pp || 1;
    // a decode replica prefills nothing: the decode round's TPOT batch, where the chapter's (the prompts counted) is
    // smaller (techniques.report's d_batch)
    let dBatch = batch, dTp = tp0, dGpu = gpu0, dUser = b0.tokens_per_s_user, eP = e;
    if (decodeBatch !== null && decodeBatch > batch) {
      const dRow = row(decodeBatch, "").bound;
      [dBatch, dTp, dGpu, dUser, eP] = [decodeBatch, dRow.tpot, dRow.tokens_per_s_gpu, dRow.tokens_per_s_user,
        inputs(decodeBatch, last)];
    }
    // the pools' steady state: a decode replica's mean round, (T_o - 1) / tok/s per user (techniques.report's t_round)
    const tRound = dUser ? 1 / dUser : dTp;
    // a prefill replica prefills the prompt's uncached part, TTFT (1 - h_p), for its steady-state occupancy (every
    // replica of a wider expert group prefilling: Request.prefill_bound) (techniques.report's t_prefill)
    const tPrefill = busy;
    const share = call("balanced_prefill_gpus", Object.assign({}, eP, {t_pr: tPrefill, t_s: tRound, k_pp: stages}));
    // one decode replica of the pools: its plain mean round, no chunk riding along (techniques.report's pool_rate)
    const poolRate = sv.output > 1 ? dBatch / ((sv.output - 1) * tRound) : Infinity;  // decode_pool_rate, n_D = 1
    const piped = (stages > 1 ? ", each prefill replica a pipeline of " + stages + " stages" : "") + (sv.prefix_hit > 0
      ? ", each prompt's uncached part prefilled (as the rows' TTFT)" : "");
    const link = hw.link, scale = hw.node && hw.node.scale_out;
    let wKv = null, name = null, tKv = null;
    // two copies of what a pool is made of must fit the scale-up domain: a replica, or where the expert group spans
    // replicas the whole group, the pools whole groups (serving_report.pool_unit_gpus, plan.kv_link)
    if (link && link.domain && 2 * group * gpus <= link.domain) {
      const rate = link.topology === "mesh" && link.link_bandwidth_per_direction
        ? Math.min(link.bandwidth_per_direction, link.link_bandwidth_per_direction) : link.bandwidth_per_direction;
      [wKv, name] = [gpus * rate, "scale-up " + link.short_name];
    } else if (scale) {
      [wKv, name] = [gpus * scale.bandwidth_per_direction, "scale-out " + scale.short_name];
    }
    if (wKv) {
      // the cache the prompt leaves, whole model: held at T_in (serving.prompt_cache_c)
      tKv = sv.prompt * lead.oneCard().at(null, sv.prompt).c / wKv;
      Object.assign(n, {kv_transfer_time: tKv, kv_link: name});
    }
    const noun = hw.noun || "GPU";  // what the report calls one device (Hardware.noun)
    // the pools in whole units of `unit` replicas of a deployment of `deployed` (techniques.whole_group_pools):
    // [prefill units, decode units, replicas deployed], at least 2 units, each pool at least 1
    const wholePools = (deployed, unit) => {
      const units = Math.max(Math.floor(deployed / unit), 2);
      const pre = Math.min(Math.max(Math.floor(share * units + 0.5), 1), units - 1);
      return [pre, units - pre, units * unit];
    };
    const whose = forUsers ? "the users'" : "the layout's";
    // in whole replicas of the deployment (the users', else the layout's dp), the nearest split (techniques.py)
    const deployedR = forUsers ? forUsers : dp, [preR, decR, nR] = wholePools(deployedR, 1);
    const split = nR > deployedR ? " (" + whose + " " + commas(deployedR) + " replica" + (deployedR > 1 ? "s" : "")
      + " cannot be split: at least 2, " + commas(preR) + " prefill and " + commas(decR) + " decode)"
      : " (of " + whose + " " + commas(nR) + " replicas, " + commas(preR) + " prefill and " + commas(decR) + " decode)";
    let setting = poolShare(share) + " of the " + noun + "s prefill, " + poolShare(1 - share) + " decode, in replicas of this layout"
      + split + piped, gain = 1 - share;
    const balanced = "balanced: a prefill replica serves " + F.sig3(stages / tPrefill) + " prompts/s"
      + (stages > 1 ? " (a prompt every " + F.time(tPrefill) + " / " + stages + ", its pass through the " + stages
        + " stages, each stage's ledger in turn)" : "")
      + (group > 1 ? " (a prompt occupying its replica " + F.time(tPrefill) + " while the group's " + commas(group)
        + " replicas all prefill)" : "")
      + ", a decode replica retires ";
    let whole = "";
    if (group > 1) {  // an expert-parallel group wider than a replica (ep > tp): each pool whole groups, the pools'
      // rate the lesser of the two
      const deployed = forUsers ? forUsers : Math.ceil(dp / group) * group;
      const [pre, dec, replicas] = wholePools(deployed, group), gGpus = group * gpus;
      const rateP = pre * group * stages / tPrefill, rateD = dec * group * poolRate;
      gain = Math.min(rateP, rateD) / (replicas * poolRate);
      setting = commas(pre) + " of " + commas(pre + dec) + " expert-parallel groups of " + commas(gGpus) + " " + noun
        + "s prefill, " + commas(dec) + " decode" + (replicas > deployed ? " (" + whose + " " + commas(deployed * gpus) + " "
          + noun + "s are one group: disaggregation needs at least 2, " + commas(replicas * gpus) + " " + noun + "s)"
          : " (" + whose + " " + commas(replicas * gpus) + " " + noun + "s)") + piped;
      whole = "; in whole groups the lesser of the pools: " + commas(pre) + " prefill group" + (pre > 1 ? "s serve " : " serves ")
        + F.sig3(rateP) + " prompts/s, " + commas(dec) + " decode group" + (dec > 1 ? "s retire " : " retires ")
        + retire(rateD, " requests/s");
      Object.assign(n, {pool_group_gpus: gGpus, pool_prefill_groups: pre, pool_decode_groups: dec,
        pool_gpus: replicas * gpus, pool_users_gpus: deployed * gpus, pool_prefill_rate: rateP, pool_decode_rate: rateD,
        pool_gain: gain});
    }
    // against one pool of the same replicas that prefills whole prompts between its rounds (aggregated_tpot), at the
    // largest batch whose TPOT meets the target (techniques.one_pool, plan --disaggregate's one pool)
    const poolsGpu = dGpu * gain;
    let before = gpu0, tpotBefore = tp0, against = "";
    if (sv.output > 1) {
      const aggAt = b => {  // (its TPOT, its mean round), both with the prefills between rounds
        const ask = {B: b, T_out: sv.output, t_pr: tPrefill};
        return [call("aggregated_tpot", Object.assign({}, ask, {t_s: tpotAt(b)})),
          call("aggregated_tpot", Object.assign({}, ask, {t_s: call("request_decode_time_bound", atRequest(rv, b)) / (sv.output - 1)}))];
      };
      let lo = sv.tpot !== null ? 0 : dBatch, hi = dBatch;
      while (lo < hi) {  // the TPOT only grows with the batch
        const mid = Math.floor((lo + hi + 1) / 2);
        if (aggAt(mid)[0] <= sv.tpot) lo = mid; else hi = mid - 1;
      }
      const one = aggAt(Math.max(lo, 1));
      before = Math.max(lo, 1) / (gpus * one[1]);
      tpotBefore = one[0];
      gain = before > 0 ? poolsGpu / before : Infinity;
      const atText = sv.tpot !== null ? (lo ? "meets the " + F.time(sv.tpot) + " TPOT target up to batch "
        + commas(lo) : "misses the " + F.time(sv.tpot) + " TPOT target even at batch 1")
        : "at batch " + commas(dBatch) + " (no TPOT target)";
      const bothMiss = sv.tpot !== null && !lo && dTp > sv.tpot;  // techniques.report: neither meets the target
      against = "; one pool of these replicas that prefills between its rounds " + atText + ": " + F.num(before)
        + " tok/s per " + noun + ", " + (bothMiss ? "and the pools' " + F.time(dTp) + " TPOT misses it too: neither "
        + "meets the target" : "the pools " + F.format(gain, ".2f") + "×");
      Object.assign(n, {one_pool_batch: lo, one_pool_tpot: tpotBefore, one_pool_round: tpotAt(Math.max(lo, 1)),
        one_pool_tokens_per_s_gpu: before, pool_tokens_per_s_gpu: poolsGpu});
    }
    levers.push({technique: "prefill/decode disaggregation", setting: setting, ttft: [ttft, ttft + (tKv || 0.0)],
      tpot: [tpotBefore, dTp], per_gpu: [before, poolsGpu],
      usd: [usd0 !== null && before > 0 ? usd0 * gpu0 / before : null, usd0 !== null && poolsGpu > 0 ? usd0 * gpu0 / poolsGpu : null],
      ends: balanced
        + retire(poolRate, " requests/s") + " at batch " + commas(dBatch) + ", its plain rounds at a request's mean context" + whole
        + (tKv ? "; one prompt's KV cache crosses the " + name + " link in " + F.time(tKv)
          + (gpus > 1 ? ", each of the replica's " + gpus + " " + noun + "s sending its slice over its own" : "")
          : "; one prompt's KV cache transfer is not counted in the TTFT: no link between replicas in the spec") + against,
      note: "no chunk rides along a decode step and the pools decode plainly (each row one technique; plan --speculative "
        + "--disaggregate takes both); the pools balanced at the mean round, the steady state's; tok/s per " + noun
        + " counts the prefill pool's " + noun + "s too; before: one pool that prefills whole prompts between its rounds"});
    n.prefill_share = share;
    n.prefill_stages = stages;
    n.pool_round = tRound;
    n.pool_rate = poolRate;
    n.pool_prefill_time = tPrefill;
    return out;
  }

  return {compute: compute};
})();
