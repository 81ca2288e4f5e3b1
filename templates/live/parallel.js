/* genreport live what-if: a spec's many-GPU layout, evaluated in the browser.
 *
 * A port of generator/model/parallel.py (evaluate_parallel for the spec's own layout: choose_links,
 * layout_values, at_batch, the scalars, per-context, decode and prefill values, the smallest tp x pp that holds
 * each decode point, training, and the entries) and of page 1's many-GPU rows (generator/model/decision.py:
 * _parallel_decode_rows and the parallel prefill rows). It calls the SymPy-printed formulas (GR_Q) through
 * GR_MODEL's helpers; GR_MODEL.evaluate and GR_MODEL.decision use it when ``inp.parallelism`` is set.
 *
 * inp.hardware.link / inp.hardware.node.scale_out = {name, bandwidth_per_direction, bandwidth, per_direction_from,
 * latency (null: not in the spec), domain}; inp.parallelism = {tp, pp, ep, dp}.
 */
const GR_PARALLEL = (function () {
  "use strict";

  const M = GR_MODEL;
  const GROUPS = ["tp", "pp", "ep", "dp"];
  const BINDS = ["compute", "HBM", "interconnect"];
  const DECODE_GRID = ["interconnect_bytes_decode", "decode_time_comm", "decode_time_compute_gpu",
    "decode_time_memory_gpu", "decode_time_bound", "decode_time_serial", "memory_per_gpu"];
  const PREFILL = ["interconnect_bytes_prefill", "prefill_time_comm", "prefill_time_bound", "prefill_time_serial"];
  const SCALARS = ["gpus", "weight_bytes_per_gpu", "kv_bytes_per_token_per_gpu", "kv_capacity_tokens_replica",
    "link_ridge", "tp_link_intensity", "tp_weight_crossover", "tp_link_bound_degree"];
  const RATES = ["decode_tokens_per_s_replica", "decode_tokens_per_s_gpu"];
  const LIKE = {kv_capacity_tokens_replica: "kv_capacity_tokens", capacity_batch_replica: "capacity_batch"};
  const NO_FIT = "the weights alone exceed the memory capacity, so no KV cache fits";
  const MAX_GPUS = 4096;

  function call(qid, v) { return M.call(qid, v); }
  function finite(x) { return Number.isFinite(x) ? x : null; }  // parallel._f

  // ------------------------------------------------------------------------------------ links
  function spans(par) { return {tp: par.tp, pp: par.tp * par.dp * par.pp, ep: par.ep, dp: par.tp * par.dp}; }

  function scaleUpSize(hw) {
    const domain = hw.link && hw.link.domain ? hw.link.domain : 1;
    const node = hw.node && hw.node.gpus_per_node ? hw.node.gpus_per_node : 1;
    return Math.max(domain, node);
  }

  /** The link each group crosses (choose_links): {group: {span, tier, name, bandwidth_per_direction, latency}}. */
  function chooseLinks(hw, par) {
    const out = {}, size = scaleUpSize(hw), sp = spans(par);
    const down = hw.node ? hw.node.scale_out : null;
    GROUPS.forEach(function (g) {
      let link, tier;
      if (par[g] === 1) {
        link = hw.link; tier = "none";
      } else if (sp[g] <= size || !down) {
        link = hw.link; tier = "scale-up";
      } else {
        link = down; tier = "scale-out";
      }
      if (!link) {
        out[g] = {group: g, span: sp[g], tier: "none", name: "", bandwidth_per_direction: Infinity, latency: 0.0,
          latency_given: false};
        return;
      }
      out[g] = {group: g, span: sp[g], tier: tier, name: link.name, bandwidth_per_direction: link.bandwidth_per_direction,
        latency: link.latency || 0.0, latency_given: link.latency !== null && link.latency !== undefined};
    });
    return out;
  }

  // ------------------------------------------------------------------------------------ values of a layout
  function activationBytes(p, t) {
    const b = t.precision_bytes[p.compute];
    return (b === undefined ? 2.0 : b) >= 4.0 ? 4.0 : 2.0;
  }

  function declaredPerRouted(v, pc, acc) {
    if (acc !== "seed") return 1.0;
    const spare = pc.total - pc.active;
    return spare ? (v.N - v.N_a) / spare : 0.0;
  }

  /** The parallel symbols on top of one accounting's values (layout_values). */
  function layoutValues(env, inp, par, links, t, recipe) {
    const m = inp.model, pc = env.pc;
    const v = Object.assign({}, env.values);
    Object.assign(v, {n_TP: par.tp, n_PP: par.pp, n_EP: par.ep, n_DP: par.dp,
      N_x: pc.experts_routed * declaredPerRouted(v, pc, env.accounting), L_x: pc.moe_layers,
      k_e: m.moe ? m.moe.active_experts : 0.0, b_a: activationBytes(inp.precision, t),
      s_kv: m.attention.kind === "mla" ? 1.0 : Math.min(par.tp, m.kv_heads)});
    GROUPS.forEach(function (g) {
      v["W_" + g.toUpperCase()] = links[g].bandwidth_per_direction;
      v["alpha_" + g.toUpperCase()] = links[g].latency;
    });
    const split = t.training_split[recipe];
    v.k_w = split[0]; v.k_g = split[1]; v.k_o = split[2];
    return v;
  }

  function touched(moe, batch) {
    return moe.experts * (1.0 - Math.pow(1.0 - moe.active_experts / moe.experts, batch));
  }

  /** Values at batch B: for MoE, the weights one micro-batch reads (at_batch). */
  function atBatch(values, m, par, pc, acc, b) {
    const out = Object.assign({}, values, {B: b});
    if (!m.moe) return out;
    const micro = b / Math.min(par.pp, b);
    const k = touched(m.moe, par.ep <= par.tp ? micro : micro * (par.ep / par.tp));
    const read = pc.total - pc.experts_routed + pc.moe_layers * k * pc.expert_size;
    const experts = pc.moe_layers * k * pc.expert_size;
    if (acc === "seed") {
      const spare = pc.total - pc.active;
      const idle = spare ? (read - pc.active) / spare : 0.0;
      out.N = values.N_a + (values.N - values.N_a) * idle;
      out.N_x = experts * declaredPerRouted(values, pc, acc);
    } else {
      out.N = read;
      out.N_x = experts;
    }
    return out;
  }

  // ------------------------------------------------------------------------------------ smallest layout
  function divisors(n, limit) {
    const out = [];
    for (let x = 1; x <= Math.min(n, limit); x++) if (n % x === 0) out.push(x);
    return out;
  }

  function tpChoices(m) {
    return divisors(m.heads, 64).filter(function (x) {
      return m.attention.kind === "mla" || m.kv_heads % x === 0 || x % m.kv_heads === 0;
    });
  }

  /** Layouts in the order min_gpus_to_fit tries them: fewer GPUs, then fewer stages, then smaller tp. */
  function layouts(m) {
    const out = [];
    tpChoices(m).forEach(function (tp) {
      divisors(m.layers, MAX_GPUS).forEach(function (pp) { if (tp * pp <= MAX_GPUS) out.push([tp * pp, pp, tp]); });
    });
    return out.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1] || a[2] - b[2]; });
  }

  /** The fewest GPUs (tp x pp) whose per-GPU memory holds the weights and B x S of KV; null if none up to 4096. */
  function minGpus(values, m, order, b, s, capacity) {
    for (let i = 0; i < order.length; i++) {
      const tp = order[i][2], pp = order[i][1];
      const v = Object.assign({}, values, {n_TP: tp, n_PP: pp, n_EP: 1.0,
        s_kv: m.attention.kind === "mla" ? 1.0 : Math.min(tp, m.kv_heads), B: b, S: s});
      if (call("memory_per_gpu", v) <= capacity) return order[i][0];
    }
    return null;
  }

  // ------------------------------------------------------------------------------------ evaluation
  /** The parallel results of GR_MODEL's ``res`` for ``inp``'s layout: per accounting, scalars, perContext,
   * decode (grids [batch][context]), prefill, minGpus; training (seed), binds (lead) and the entries. */
  function evaluate(res, inp, t) {
    const par = inp.parallelism, hw = inp.hardware, m = inp.model, w = inp.workloads;
    const links = chooseLinks(hw, par);
    const recipe = w.recipes.length ? w.recipes[0] : "bf16-grads";
    const order = layouts(m);
    const out = {links: links, replica_gpus: par.tp * par.pp, activation_bytes: activationBytes(inp.precision, t),
      scalars: {}, perContext: {}, decode: {}, prefill: {}, minGpus: {}, training: []};
    ["seed", "exact"].forEach(function (acc) {
      const env = res.envs[acc], pc = env.pc;
      const base = layoutValues(env, inp, par, links, t, recipe);
      const sc = {};
      SCALARS.forEach(function (qid) { sc[qid] = finite(call(qid, base)); });
      sc.tp_weight_crossover = finite(call("tp_weight_crossover", atBatch(base, m, par, pc, acc, 1.0)));
      sc.kv_capacity_tokens_replica = M.physical("kv_capacity_tokens", call("kv_capacity_tokens_replica", base))[0];
      out.scalars[acc] = sc;
      if (w.decode_context.length) {
        const per = {capacity_batch_replica: [], capacity_batch_replica_raw: [], comm_hbm_crossover_batch: []};
        w.decode_context.forEach(function (s) {
          const cv = Object.assign({}, base, {S: s, c: env.at(null, s).c});
          const cap = call("capacity_batch_replica", cv);
          per.capacity_batch_replica.push(Math.max(cap, 0.0));
          per.capacity_batch_replica_raw.push(cap);
          per.comm_hbm_crossover_batch.push(call("comm_hbm_crossover_batch", cv));
        });
        out.perContext[acc] = per;
      }
      if (w.decode_batch.length && w.decode_context.length) {
        const grid = {}, fit = [];
        DECODE_GRID.concat(RATES).forEach(function (qid) { grid[qid] = []; });
        w.decode_batch.forEach(function (b) {
          const row = {}, fitRow = [];
          DECODE_GRID.concat(RATES).forEach(function (qid) { row[qid] = []; });
          w.decode_context.forEach(function (s) {
            const g = env.at(b, s);
            const v = atBatch(Object.assign({}, base, {S: g.S, c: g.c, d_h: g.d_h}), m, par, pc, acc, b);
            DECODE_GRID.forEach(function (qid) { row[qid].push(call(qid, v)); });
            const bound = row.decode_time_bound[row.decode_time_bound.length - 1];
            row.decode_tokens_per_s_replica.push(b / bound);
            row.decode_tokens_per_s_gpu.push(b / (bound * out.replica_gpus));
            fitRow.push(minGpus(Object.assign({}, base, {c: g.c}), m, order, b, s, hw.capacity));
          });
          DECODE_GRID.concat(RATES).forEach(function (qid) { grid[qid].push(row[qid]); });
          fit.push(fitRow);
        });
        out.decode[acc] = grid;
        out.minGpus[acc] = fit;
      }
      if (w.prefill_prompt.length) {
        const pre = {};
        PREFILL.forEach(function (qid) {
          pre[qid] = w.prefill_prompt.map(function (tk) { return call(qid, Object.assign({}, base, {T: tk})); });
        });
        out.prefill[acc] = pre;
      }
    });
    if (w.training_tokens) {
      const env = res.envs.seed;
      w.recipes.forEach(function (rec) {
        const tv = Object.assign(layoutValues(env, inp, par, links, t, rec), {T: w.training_tokens});
        ["training_state_per_gpu_zero0", "training_state_per_gpu_zero1", "training_state_per_gpu_zero2",
          "training_state_per_gpu_zero3", "training_grad_comm_time", "training_zero3_comm_time",
          "training_overlap_tokens"].forEach(function (qid) {
          let value = finite(call(qid, tv));
          if (qid === "training_overlap_tokens" && par.dp === 1) value = null;  // one replica: nothing to hide
          out.training.push([qid, {recipe: rec}, value]);
        });
      });
      const tv = Object.assign(layoutValues(env, inp, par, links, t, recipe), {T: w.training_tokens});
      out.training.push(["training_backward_time", {tokens: w.training_tokens},
        finite(call("training_backward_time", tv))]);
    }
    out.binds = binds(out, res.lead, w.decode_batch);
    out.entries = entries(out, inp, t);
    return out;
  }

  /** Which per-GPU ledger binds each decode point, or "capacity" past what one replica holds (decode_binds). */
  function binds(out, lead, batch) {
    const g = out.decode[lead];
    if (!g) return null;
    const cap = out.perContext[lead].capacity_batch_replica;
    return batch.map(function (b, i) {
      return cap.map(function (c, j) {
        if (b > c) return "capacity";
        const ledgers = [g.decode_time_compute_gpu[i][j], g.decode_time_memory_gpu[i][j], g.decode_time_comm[i][j]];
        let k = 0;  // np.argmax: the first maximum, the first NaN if any
        for (let x = 0; x < 3; x++) {
          if (Number.isNaN(ledgers[x])) { k = x; break; }
          if (ledgers[x] > ledgers[k]) k = x;
        }
        return BINDS[k];
      });
    });
  }

  /** The entries of the layout (parallel._entries): [{id, params, value, unit, accounting, reason?}]. */
  function entries(out, inp, t) {
    const w = inp.workloads, list = [];

    function add(qid, params, value, acc, suffix) {
      const raw = value === null ? NaN : value;
      let st, unit;
      if (RATES.indexOf(qid) >= 0) {
        st = M.physical(qid, raw, "");
        unit = "token/s";
      } else {
        const meta = t.meta[qid];
        st = M.physical(LIKE[qid] || qid, raw, meta[1]);
        unit = meta[0];
        if (value === null && qid === "kv_capacity_tokens_replica") st = [null, NO_FIT];
      }
      const e = {id: qid + suffix, params: params, value: st[0], unit: unit, accounting: acc};
      if (st[0] === null && st[1]) e.reason = st[1];
      list.push(e);
    }

    Object.keys(out.scalars).forEach(function (acc) {
      const suffix = acc === "seed" ? "" : "_exact";
      SCALARS.forEach(function (qid) {
        if (acc === "exact" && (qid === "gpus" || qid === "link_ridge")) return;
        add(qid, {}, out.scalars[acc][qid], acc, suffix);
      });
      const per = out.perContext[acc];
      if (per) {
        w.decode_context.forEach(function (s, j) {
          add("capacity_batch_replica", {context: s}, per.capacity_batch_replica_raw[j], acc, suffix);
        });
        w.decode_context.forEach(function (s, j) {
          add("comm_hbm_crossover_batch", {context: s}, per.comm_hbm_crossover_batch[j], acc, suffix);
        });
      }
      const grid = out.decode[acc];
      if (grid) {
        DECODE_GRID.concat(RATES).forEach(function (qid) {
          w.decode_batch.forEach(function (b, i) {
            w.decode_context.forEach(function (s, j) { add(qid, {batch: b, context: s}, grid[qid][i][j], acc, suffix); });
          });
        });
        w.decode_batch.forEach(function (b, i) {
          w.decode_context.forEach(function (s, j) {
            const g = out.minGpus[acc][i][j];
            const e = {id: "min_gpus_to_fit" + suffix, params: {batch: b, context: s}, value: g, unit: "1",
              accounting: acc};
            if (g === null) e.reason = "no layout up to " + MAX_GPUS + " GPUs holds it";
            list.push(e);
          });
        });
      }
      const pre = out.prefill[acc];
      if (pre) {
        PREFILL.forEach(function (qid) {
          w.prefill_prompt.forEach(function (tk, i) { add(qid, {tokens: tk}, pre[qid][i], acc, suffix); });
        });
      }
    });
    out.training.forEach(function (row) { add(row[0], row[1], row[2], "seed", ""); });
    return list;
  }

  // ------------------------------------------------------------------------------------ page 1
  /** Decode rows of the layout (decision._parallel_decode_rows): the strict bound (the largest per-GPU ledger),
   * the serial estimate, capacity per replica; the price is the replica's (GPUs x the hourly price). */
  function decodeRows(res, inp, price) {
    const lead = res.lead, w = inp.workloads, p = res.parallel;
    const g = p.decode[lead], per = p.perContext[lead], gpus = p.replica_gpus;
    const weightsFit = (p.scalars[lead].weight_bytes_per_gpu || 0) <= inp.hardware.capacity;
    return M.picks(w.decode_batch, per.capacity_batch_replica, w.decode_context.length).map(function (ij) {
      const i = ij[0], j = ij[1], b = w.decode_batch[i], s = w.decode_context[j];
      const ledgers = {compute: g.decode_time_compute_gpu[i][j], HBM: g.decode_time_memory_gpu[i][j],
        interconnect: g.decode_time_comm[i][j]};
      let roof = "compute";  // max(ledgers, key=ledgers.get): the first largest
      BINDS.forEach(function (k) { if (ledgers[k] > ledgers[roof]) roof = k; });
      const time = g.decode_time_bound[i][j];
      const second = BINDS.map(function (k) { return ledgers[k]; }).sort(function (a, c) { return a - c; })[1];
      const fits = weightsFit && b <= per.capacity_batch_replica[j];
      const tps = b / time;
      return {workload: "decode", label: "decode B = " + b.toLocaleString("en-US") + ", S = " + s.toLocaleString("en-US"),
        batch: b, context: s, binds: fits ? roof : "capacity", roof: roof, time: time,
        serial: g.decode_time_serial[i][j], comm: ledgers.interconnect, other_roof: second > 0 ? time / second : null,
        fits: fits, capacity_batch: M.physical("capacity_batch", per.capacity_batch_replica_raw[j])[0],
        ms_per_token: time * 1e3, tokens_per_s_sequence: 1 / time, tokens_per_s: tps, tokens_per_s_gpu: tps / gpus,
        usd_per_mtok: fits ? M.usdPerMtok(price ? price * gpus : null, tps) : null};
    });
  }

  /** A prefill row's roofs and bound on the layout: the single-card ledgers per GPU, the layout's bound. */
  function prefillBound(res, i, tc, tm) {
    const n = res.parallel.replica_gpus;
    return {tc: tc / n, tm: tm / n, time: res.parallel.prefill[res.lead].prefill_time_bound[i]};
  }

  return {evaluate: evaluate, chooseLinks: chooseLinks, layoutValues: layoutValues, atBatch: atBatch,
    decodeRows: decodeRows, prefillBound: prefillBound};
})();
