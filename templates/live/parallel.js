/* genreport live what-if: a spec's many-GPU layout, evaluated in the browser.
 *
 * A port of generator/model/layout.py (evaluate_parallel for the spec's own layout: choose_links,
 * layout_values, at_batch, the scalars, per-context, decode and prefill values, the smallest tp x pp that holds
 * each decode point, training, and the entries) and of page 1's many-GPU rows (generator/model/decision.py:
 * _parallel_decode_rows and the parallel prefill rows). It calls the SymPy-printed formulas (GR_Q) through
 * GR_MODEL's helpers; GR_MODEL.evaluate and GR_MODEL.decision use it when ``inp.parallelism`` is set.
 *
 * inp.hardware.link / inp.hardware.node.scale_out = {name, bandwidth_per_direction, bandwidth, per_direction_from,
 * latency (null: not in the spec), domain}; inp.parallelism = {tp, pp, ep, dp}.
 */
const GR_PARALLEL = (() => {
  "use strict";

  const M = GR_MODEL, call = M.call;
  const GROUPS = ["tp", "pp", "ep", "dp"], BINDS = ["compute", "bandwidth", "interconnect"];
  const GRID = ["interconnect_bytes_decode", "decode_time_comm", "decode_time_compute_gpu", "decode_time_memory_gpu",
    "decode_time_bound", "decode_time_comm_estimate", "decode_time_memory_busiest", "decode_time_overhead",
    "decode_time_compute_serial", "decode_time_serial", "memory_per_gpu"];
  const RESIDENT = ["memory_per_gpu"];  // evaluated with the weights the GPU holds, not those a batch reads
  const RATES = ["decode_tokens_per_s_replica", "decode_tokens_per_s_gpu"];
  // a prompt's occupancy of its replica in a steady state, by the prefill formula it evaluates (layout.OCCUPANCY)
  const OCCUPANCY = {prefill_occupancy_bound: "prefill_pass_bound", prefill_occupancy_serial: "prefill_time_serial"};
  const PREFILL = ["interconnect_bytes_prefill", "prefill_time_comm", "prefill_time_bound", "prefill_time_compute_gpu",
    "prefill_time_memory_gpu", "prefill_time_compute_serial", "prefill_time_memory_serial", "prefill_time_comm_estimate",
    "prefill_time_overhead", "prefill_time_serial"];
  // the serial estimate's terms, the first largest named (layout.ESTIMATE_TERMS); "overhead" is overhead-bound
  const ESTIMATE_TERMS = [["compute", "decode_time_compute_serial"], ["bandwidth", "decode_time_memory_busiest"],
    ["interconnect", "decode_time_comm_estimate"], ["overhead", "decode_time_overhead"]];
  const PREFILL_ESTIMATE_TERMS = [["compute", "prefill_time_compute_serial"], ["bandwidth", "prefill_time_memory_serial"],
    ["interconnect", "prefill_time_comm_estimate"], ["overhead", "prefill_time_overhead"]];
  const SCALARS = ["gpus", "weight_bytes_per_gpu", "kv_bytes_per_token_per_gpu", "kv_capacity_tokens_replica",
    "link_ridge", "tp_link_intensity", "tp_weight_crossover", "tp_link_bound_degree"];
  const TRAINING = ["training_state_per_gpu_zero0", "training_state_per_gpu_zero1", "training_state_per_gpu_zero2",
    "training_state_per_gpu_zero3", "training_grad_comm_time", "training_zero3_comm_time", "training_overlap_tokens"];
  // a per-replica capacity has no physical value when negative, as the single-card one
  const LIKE = {kv_capacity_tokens_replica: "kv_capacity_tokens", capacity_batch_replica: "capacity_batch"};
  const MAX_GPUS = 4096;
  const finite = x => Number.isFinite(x) ? x : null;
  const grid2 = (w, f) => w.decode_batch.map((b, i) => w.decode_context.map((s, j) => f(b, s, i, j)));

  /** The link each group crosses, and notes on what the spec left out (choose_links): tensor parallel innermost,
   * then data (experts inside it), then pipeline; a group wider than the scale-up domain (or node) crosses the
   * scale-out network when there is one. */
  function chooseLinks(hw, par) {
    const size = Math.max(hw.link && hw.link.domain || 1, hw.node && hw.node.gpus_per_node || 1);
    const span = {tp: par.tp, pp: par.tp * par.dp * par.pp, ep: par.ep, dp: par.tp * par.dp};
    const down = hw.node && hw.node.scale_out, out = {}, notes = new Set();
    GROUPS.forEach(g => {
      const tier = par[g] === 1 ? "none" : span[g] <= size || !down ? "scale-up" : "scale-out";
      const link = tier === "scale-out" ? down : hw.link;
      if (tier === "scale-up" && span[g] > size && size === 1 && hw.link) {
        // a link with no peer at its full rate (PCIe cards: domain 1) and nothing else (layout.choose_links)
        const noun = hw.noun || "GPU";
        notes.add(`the ${g} group's ${span[g]} ${noun}s reach each other over ${hw.link.short_name}, whose spec gives no `
          + `domain of peers at its full rate (domain 1) and no scale-out network: its ${g} traffic is counted on it at `
          + `${typeof GR_FMT !== "undefined" ? GR_FMT.bandwidth(hw.link.bandwidth_per_direction)  // the page loads fmt.js first
            : hw.link.bandwidth_per_direction + " B/s"} per direction a ${noun}, which a shared fabric (PCIe `
          + "switches, the CPUs' links) can only lower, so the bound stays a lower bound");
      } else if (tier === "scale-up" && span[g] > size) {
        notes.add(`the ${g} group spans ${span[g]} ${hw.noun || "GPU"}s, more than the ${size} of one scale-up domain, but ${hw.title}'s `
          + `spec has no scale-out network (node.scale_out): its ${g} traffic is counted on the scale-up link, so the `
          + "bound stays a lower bound");
      }
      if (!link) {
        out[g] = {span: span[g], tier: "none", name: "", bandwidth_per_direction: Infinity, latency: 0.0,
          bus_bandwidth: null, in_network: false, in_network_bus_bandwidth: null, call_latency: 0.0,
          in_network_call_latency: null};
        return;
      }
      const n = g === "pp" ? 2 : par[g];  // a stage sends to one peer
      out[g] = choice(g, span[g], tier, link, n, par[g], hw.collectives, notes, hw.noun || "GPU");
      const local = Math.min(par[g], size);
      if (tier === "scale-out" && (g === "tp" || g === "ep") && hw.link && local > 1) {
        // two tiers: the group's `local` GPUs in each domain over the scale-up link, the NICs across domains
        out[g].local = local;
        out[g].inner = choice(g, local, "scale-up", hw.link, local, local, hw.collectives, notes, hw.noun || "GPU");
      }
    });
    return [out, Array.from(notes).sort()];
  }

  /** One group's link on one tier (layout._choice). */
  function choice(g, span, tier, link, n, degree, lib, notes, noun = "GPU") {
    if (degree > 1 && link.latency === null) {
      notes.add(`${link.short_name}: no latency in the spec; 0 is used, so the ${g} collectives cost only their bytes and `
        + "the bound stays a lower bound");
    }
    const mesh = link.topology === "mesh" && link.link_bandwidth_per_direction != null && tier === "scale-up";
    const rate = mesh && n > 1 ? Math.min(link.bandwidth_per_direction, (n - 1) * link.link_bandwidth_per_direction)
      : link.bandwidth_per_direction;
    if (mesh && degree > 1 && rate < link.bandwidth_per_direction) {
      notes.add(`${link.short_name} is a mesh, one link to each peer: a ${g} group of ${n} ${noun}s gets ${n - 1} of them, `
        + `${(rate / 1e9).toFixed(0)} GB/s per direction of the ${(link.bandwidth_per_direction / 1e9).toFixed(0)}`);
    }
    // a smaller group's measured bus bandwidth (Link.group_bus): the largest listed group of at most n, below the domain
    const listed = link.topology === "mesh" || tier !== "scale-up" ? [] : (link.group_bus_bandwidth || []).filter(g => g[0] <= n);
    const top = link.domain != null ? link.domain : (listed.length ? listed[listed.length - 1][0] + 1 : 0);
    const group = listed.length && n < top ? listed[listed.length - 1][1] : null;
    const bus = link.bus_bandwidth == null ? null : mesh ? link.bus_bandwidth * rate / link.bandwidth_per_direction
      : group != null ? Math.min(group, link.bus_bandwidth)
      : link.bus_bandwidth;  // never more than the line rate (a what-if may lower it)
    return {span: span, tier: tier, name: link.name, bandwidth_per_direction: rate, latency: link.latency || 0.0,
      bus_bandwidth: bus == null ? null : Math.min(bus, rate), in_network: !!link.in_network_reduction && tier === "scale-up",
      in_network_bus_bandwidth: tier !== "scale-up" ? null : group == null || link.in_network_bus_bandwidth == null
        ? link.in_network_bus_bandwidth : Math.min(group, link.in_network_bus_bandwidth),
      call_latency: lib ? lib.call_latency : 0.0, in_network_call_latency: lib ? lib.in_network_call_latency : null,
      local: null, inner: null, protocols: lib && lib.protocols ? lib.protocols : null,
      all_pairs_call_latency: lib && mesh && lib.all_pairs_call_latency != null ? lib.all_pairs_call_latency : null};
  }

  const busOf = l => l.bus_bandwidth == null ? l.bandwidth_per_direction : l.bus_bandwidth;

  /** The library's fixed costs and the tensor-parallel link's in-switch reduction (collective_costs). */
  function collectiveCosts(choice) {
    const tp = choice.inner || choice;  // the in-switch reduction of the group's own domain
    const est = tp.bus_bandwidth == null ? tp.bandwidth_per_direction : tp.bus_bandwidth;
    return Object.assign({tau_c: tp.call_latency,
      tau_s: tp.in_network_call_latency == null ? tp.call_latency : tp.in_network_call_latency,
      s_TP: tp.in_network ? 1.0 : 0.0, W_sTP: tp.in_network_bus_bandwidth == null ? est : tp.in_network_bus_bandwidth},
      protocolCosts(choice));
  }

  /** The ring's protocols on the tensor-parallel link (layout.protocol_costs). */
  function protocolCosts(choice) {
    const up = choice.inner || choice, two = !!choice.inner, pr = up.protocols;
    const alphaO = two ? choice.latency : 0.0, Wco = busOf(choice), Wc = busOf(up);
    if (pr == null || choice.tier === "none") {
      return {tau_c8: up.call_latency, tau_cS: up.call_latency, alpha_8TP: up.latency, alpha_STP: up.latency,
        alpha_8oTP: alphaO, alpha_SoTP: alphaO, W_lTP: Wc, W_loTP: Wco, tau_cSm: up.call_latency, alpha_SmTP: up.latency};
    }
    const net = up.tier === "scale-out";  // the whole group on the network: its steps are the network's
    const step = (p, across) => (across || net)
      ? (p.scale_out_step_latency != null ? p.scale_out_step_latency : (across ? choice.latency : up.latency))
      : p.step_latency;
    const llOut = pr.ll_scale_out_bus_bandwidth;
    const Wl = Math.min(net && llOut != null ? llOut : pr.ll_bus_bandwidth, Wc / 2.0);
    const Wlo = two && llOut != null ? Math.min(llOut / choice.local, Wco / 2.0) : (two ? Wco / 2.0 : Wl);
    // what a Simple call pays, where the file measured it on the scale-up link (a group on the network: the tuner's)
    const paid = net ? null : pr.simple.measured;
    return {tau_c8: pr.ll128.call_latency, tau_cS: pr.simple.call_latency,
      alpha_8TP: step(pr.ll128, false), alpha_STP: step(pr.simple, false),
      alpha_8oTP: two ? step(pr.ll128, true) : 0.0, alpha_SoTP: two ? step(pr.simple, true) : 0.0,
      W_lTP: Wl, W_loTP: Wlo,
      tau_cSm: paid ? paid.call_latency : pr.simple.call_latency,
      alpha_SmTP: paid ? paid.step_latency : step(pr.simple, false)};
  }

  // parameters counted per routed-expert parameter of the shapes: the seed accounting maps the declared counts
  function perRouted(v, pc, acc) {
    const spare = pc.total - pc.active;
    return acc !== "seed" ? 1.0 : spare ? (v.N - v.N_a) / spare : 0.0;
  }

  /** The parallel symbols on top of one accounting's values (layout_values). */
  function layoutValues(env, inp, par, links, t, recipe) {
    const m = inp.model, pc = env.pc, v = Object.assign({}, env.values), split = t.training_split[recipe];
    const bc = t.precision_bytes[inp.precision.compute];
    Object.assign(v, {n_TP: par.tp, n_PP: pipelineSplit(m.layers, par.pp), n_St: par.pp, n_EP: par.ep, n_DP: par.dp, L_x: pc.moe_layers,
      N_x: pc.experts_routed * perRouted(v, pc, env.accounting), k_e: m.moe ? m.moe.active_experts : 0.0,
      E_x: m.moe ? m.moe.experts : 1.0,  // 1 for a dense model: N_x = 0 over it
      b_a: (bc === undefined ? 2.0 : bc) >= 4.0 ? 4.0 : 2.0,
      s_kv: m.attention.kind === "mla" ? 1.0 : Math.min(par.tp, m.kv_heads), k_w: split[0], k_g: split[1], k_o: split[2],
      // what tensor parallelism holds whole on each GPU beyond one copy (ParameterCount.tp_copies)
      N_R: M.tpCopies(pc, par.tp, m.attention.kind === "mla" ? 1.0 : Math.min(par.tp, m.kv_heads)),
      u_x: 1.0, m_P: 1.0, rho_x: m.moe ? (par.redundant_experts || 0) / m.moe.experts : 0.0, n_PW: 1.0, n_PK: 1.0,
      n_PT: trainingSplit(m, par.pp || 1), s_st: (par.pp || 1) > 1 ? 1.0 : 0.0,
      kappa_B: 1.0, kappa_L: 1.0, kappa_F: 1.0, m_b: (par.pp || 1) > 1 ? NaN : 1.0});  // each stage's attention over mean layers' (at_batch, at_prompt give a point's)
    if ((par.pp || 1) > 1) Object.assign(v, stageValues(inp, t, par, null));  // the stage that holds the fewest tokens
    if (env.perClass) {  // b: the mean bytes per weight of the slice one GPU holds
      const keep = 1.0 - (1.0 + v.rho_x) * par.tp / Math.max(par.tp, par.ep);  // held: replicas and all
      const cut = layoutSlice(m, par, inp.precision, t);  // and what tensor parallelism holds whole, in its formats
      v.b = M.meanBytes(env.wb, v.N - v.N_x, v.N_x * (1.0 - keep), 0.0, cut.copies, cut.copiesBytes);
    }
    const k = inp.hardware.kernels;  // the engine's fixed costs per kernel (live.py, Hardware.kernels)
    // k_L: the mean over the layers, MoE layers at the fused-MoE path's count (layout.kernels_per_layer)
    const kMoe = k.moe_per_layer != null ? k.moe_per_layer : k.per_layer + k.moe_extra
      + (m.moe && m.moe.shared_experts ? k.shared_extra : 0);
    const kL = m.moe ? ((m.layers - pc.moe_layers) * k.per_layer + pc.moe_layers * kMoe) / m.layers : k.per_layer;
    // a one-shot all-reduce (layout.one_shot_values): the engine's kernel inside the scale-up domain, the library's
    // all-pairs algorithm inside one full-mesh domain; the faster call where both run
    const calls = (k.one_shot && links.tp.tier === "scale-up" ? [k.one_shot_latency] : [])
      .concat(!links.tp.inner && links.tp.all_pairs_call_latency != null ? [links.tp.all_pairs_call_latency] : []);
    Object.assign(v, {k_L: kL, tau_k: k.decode, tau_l: k.launch,
      tau_o: calls.length ? Math.min.apply(null, calls) : k.one_shot_latency,
      e_w: weightEfficiency(inp.precision, pc, t, k.weight_only || {}),  // weight-only GEMMs' share of the bandwidth
      o_TP: calls.length ? 1.0 : 0.0,
      o_EP: k.deepep ? 1.0 : 0.0, e_Du: k.deepep ? k.deepep[0] : 1.0, e_Do: k.deepep ? k.deepep[1] : 1.0,
      e_Dl: k.deepep ? k.deepep[2] : 1.0});  // the experts' all-to-all as DeepEP runs it (engine.all_to_all)
    GROUPS.forEach(g => {  // LinkChoice.tier_values
      const l = links[g], G = g.toUpperCase(), up = l.inner || l;
      v["W_" + G] = up.bandwidth_per_direction;
      v["alpha_" + G] = up.latency;
      v["W_c" + G] = busOf(up);
      if (g === "tp" || g === "ep") {
        v["W_o" + G] = l.bandwidth_per_direction;
        v["alpha_o" + G] = l.inner ? l.latency : 0.0;
        v["W_co" + G] = busOf(l);
      }
    });
    v.n_uTP = links.tp.local || par.tp;
    v.n_uEP = links.ep.local || par.ep;
    return Object.assign(v, collectiveCosts(links.tp));
  }

  /** e_w (env.weight_efficiency): the weights' share of the bandwidth in the estimate, the table's for a weight-only
   * format (int8/int4 weights computed in another format), 1 otherwise; per-class formats: held bytes over the
   * time to stream them. */
  function weightEfficiency(p, pc, t, table) {
    const eff = f => Object.prototype.hasOwnProperty.call(table, f) && p.compute !== f ? table[f] : 1.0;
    const form = c => p.classes ? p.classes[c] : p.weights;
    const classes = ["experts", "attention", "embeddings", "default"];
    if (classes.every(c => form(c) === form("default"))) return eff(form("default"));
    const bias = pc.experts_bias || 0;  // the experts' biases in the default class (env.class_parameters)
    const parts = [["experts", pc.experts_routed - bias], ["attention", pc.attention],
      ["embeddings", pc.embedding + pc.lm_head], ["default", pc.ffn_dense + pc.experts_shared + pc.router + pc.norms + bias]];
    let total = 0.0, time = 0.0;
    parts.forEach(([c, n]) => {
      const q = n * M.formatBytes(form(c), p.group_size, t);
      total += q;
      time += q / eff(form(c));
    });
    return total ? total / time : 1.0;
  }

  /** Values at batch B: for MoE, the whole model's N and N_x one micro-batch (B / min(pp, B) sequences, perSeq
   * tokens each: a verify round's n_v, not split between micro-batches) reads, as GR_MODEL.readAt counts them for the
   * layout's env (at_batch). */
  // bound: u_x 1 (at_batch(busiest=False): only the estimate reads it); qid: the bound whose fastest schedule m_b is
  // (at_batch's bound: "decode_time_bound" unless named, null to leave it to the caller)
  function atBatch(values, env, b, bound, perSeq, qid) {
    const out = atBatchReads(values, env, b, bound, perSeq), q = qid === undefined ? "decode_time_bound" : qid;
    if (q !== null) out.m_b = fastestSchedule(out, env.cut.pp, q);
    return out;
  }

  /** m_b (layout.fastest_schedule): of the splits of the B sequences into m = 1 .. min(pp, B) micro-batches, the one
   * whose round of the strict bound ``qid`` is the least, the fewest where two tie. */
  function fastestSchedule(v, stages, qid) {
    const top = Math.trunc(Math.min(stages, v.B)), most = Math.max(Math.floor(v.B), 1.0);  // whole micro-batches
    if (top <= 1) return 1.0;  // one stage or one sequence: nothing to choose (no round evaluated)
    let best = 1.0, least = Infinity;
    for (let m = 1; m <= top; m++) {
      const t = call(qid || "decode_time_bound", Object.assign({}, v, {m_b: Math.min(m, most)}));
      if (t < least) {
        least = t;
        best = m;
      }
    }
    return Math.min(best, most);
  }

  function atBatchReads(values, env, b, bound, perSeq) {
    const out = Object.assign({}, values, {B: b});
    if ("c" in values) {  // each stage's attention over mean layers' at the point's c (layout.at_batch)
      const k = kappas(env.model, env.cut.pp, values.c, env.card.c);
      out.kappa_B = k[0];
      out.kappa_L = k[1];
      out.kappa_F = k[2];
    }
    if (!env.model.moe) {
      if (env.perClass) out.b = env.readB();
      return out;
    }
    const micro = (perSeq || 1.0) * b / Math.min(env.cut.pp, b), nr = M.readAt(env, micro);
    out.N = nr[0];
    out.N_x = nr[1];
    out.u_x = bound ? 1.0 : busiest(env, micro);
    if (env.perClass) out.b = env.readB(nr[0], nr[1]);  // the mean bytes of what the GPU reads at this batch
    return out;
  }

  /** The values of a pass over a prompt of tk tokens (layout.at_prompt): T, d_h in the prefill's form, an MoE's N and
   * N_x as a decode step of tk tokens reads them, b of what is read; steady: m_P of every replica of an expert group
   * wider than a replica prefilling at once (layout.prompt_group), else one prompt alone. */
  function promptGroup(env) {
    return env.cut.ep > env.cut.tp ? env.cut.ep / env.cut.tp : 1.0;
  }

  function atPrompt(values, env, tk, steady, cached) {  // cached: a prefix cache's positions before the tk (layout.at_prompt)
    cached = cached || 0.0;
    let dH = M.prefillHeadDim(env.model, values.d_h, tk, null, cached);
    if (cached > 0) dH = dH * (tk + 2.0 * cached) / tk;
    const out = Object.assign({}, values, {T: tk, d_h: dH, m_P: steady ? promptGroup(env) : 1.0});
    const a = env.model.attention;
    if ((a.sliding_window || a.chunk_size) && a.kind !== "mla") {  // each stage's own attention (layout.at_prompt)
      const k = kappas(env.model, env.cut.pp, M.prefillAttendedFractionAfter(env.model, tk, cached), 1.0);
      out.kappa_B = k[0];
      out.kappa_L = k[1];
      out.kappa_F = k[2];
    }
    if (!env.model.moe) {
      out.b = env.readB();
      return out;
    }
    const nr = M.readAt(env, tk, out.m_P);  // the experts the m_P prompts' tokens touch
    out.N = nr[0];
    out.N_x = nr[1];
    out.b = env.readB(nr[0], nr[1]);
    return out;
  }

  /** u_x: the busiest expert GPU's reads over the mean (Env.busiest, busiest_experts). */
  const BUSIEST = new Map();
  function busiestExperts(experts, groups, touched) {
    const key = experts + "/" + groups + "/" + touched;
    if (BUSIEST.has(key)) return BUSIEST.get(key);
    // GPUs of ceil(E/n) experts (E mod n of them) and of floor(E/n) (env._busiest_table)
    const s = Math.floor(experts / groups), extra = experts - s * groups, lo = Math.floor(touched), frac = touched - lo;
    const sizes = [[s + 1, extra], [s, groups - extra]];
    const lchoose = (n, k) => { let r = 0; for (let i = 1; i <= k; i++) r += Math.log(n - k + i) - Math.log(i); return r; };
    function whole(t) {
      if (t <= 0) return 0.0;
      const total = lchoose(experts, t);
      let out = 0.0;
      for (let m = 0; m <= s + (extra ? 1 : 0); m++) {
        let acc = [1.0];
        sizes.forEach(function (sc) {
          const row = [];
          for (let j = 0; j <= Math.min(m, sc[0], t); j++) row.push(Math.exp(lchoose(sc[0], j) - total / groups));
          for (let g = 0; g < sc[1]; g++) {
            const next = new Array(Math.min(acc.length + row.length - 1, t + 1)).fill(0.0);
            acc.forEach((a, i) => { if (a) row.forEach((c, j) => { if (i + j <= t) next[i + j] += a * c; }); });
            acc = next;
          }
        });
        const below = t < acc.length ? acc[t] : 0.0;
        out += 1.0 - below;
        if (below >= 1.0 - 1e-15) break;
      }
      return out;
    }
    const value = frac === 0 ? whole(lo) : (1 - frac) * whole(lo) + frac * whole(lo + 1);
    BUSIEST.set(key, value);
    return value;
  }

  function busiest(env, tokens) {
    const moe = env.model.moe, cut = env.cut;
    if (!moe || cut.ep <= 1) return 1.0;
    const touched = M.touchedAt(env, tokens);
    return touched > 0 ? busiestRedundant(moe.experts, cut.ep, cut.redundant || 0, touched) / (touched / cut.ep) : 1.0;
  }

  /** The busiest GPU with redundant experts handed to the least-loaded holder (env.busiest_experts_redundant). */
  function busiestRedundant(experts, groups, redundant, touched) {
    if (redundant <= 0) return busiestExperts(experts, groups, touched);
    const fixed = experts - Math.min(redundant, experts);
    if (fixed <= 0) return touched / groups;
    return Math.max(busiestExperts(fixed, groups, touched * fixed / experts), touched / groups);
  }

  // ------------------------------------------------------------------ the memory of each stage (model/stages.py)
  /** Layers of each stage: floor(L/pp), one more on the L mod pp stages before the last (stages.stage_layers, vLLM). */
  function stageLayers(layers, pp) {
    const low = Math.floor(layers / pp), extra = layers % pp;
    return Array.from({length: pp}, (_, i) => (pp - 1 - extra <= i && i < pp - 1 ? low + 1 : low));
  }

  /** Each layer's cache kind, 0 global, 1 windowed, 2 chunked (stages.layer_kinds); each layer routed or not. */
  function layerKinds(m) {
    const a = m.attention, local = a.sliding_window ? 1 : a.chunk_size ? 2 : 0;
    const period = (a.local_layers_per_global || 0) + 1;
    return Array.from({length: m.layers}, (_, i) => (!local ? 0 : period === 1 ? local : (i + 1) % period === 0 ? 0 : local));
  }

  function routedLayers(m) {
    if (!m.moe) return Array(m.layers).fill(false);
    const f = m.moe.first_dense_layers || 0, k = Math.max(1, m.moe.layer_step || 1);
    return Array.from({length: m.layers}, (_, i) => i >= f && (i - f + 1) % k === 0);
  }

  /** [f_B, f_L] as [global layers, layers]: the busiest stage's (the most global of those with
   * ceil(L/pp) layers) and the last stage's share of global layers, or null where both are G / L
   * (stages.stage_shares). */
  const SHARES = new WeakMap();  // model -> pp -> stageShares (at_batch asks at every point: stages.stage_shares is cached)
  function stageShares(m, pp) {
    const a = m.attention;
    if (!(pp > 1) || !(a.sliding_window || a.chunk_size)) return null;  // one stage, or layers of one kind
    if (!SHARES.has(m)) SHARES.set(m, new Map());
    const seen = SHARES.get(m);
    if (!seen.has(pp)) seen.set(pp, stageSharesOf(m, pp));
    return seen.get(pp);
  }

  function stageSharesOf(m, pp) {
    const kinds = layerKinds(m), g = kinds.filter(k => k === 0).length, L = m.layers;
    if (g === 0 || g === L) return null;
    const sizes = stageLayers(L, pp), parts = stageParts(m, pp), top = Math.max.apply(null, sizes);
    const less = (x, y) => x[0] * y[1] < y[0] * x[1], same = (x, y) => x[0] * y[1] === y[0] * x[1];
    let busiest = null;
    sizes.forEach((n, i) => {  // the busiest before the last (stages.stage_shares)
      if (i < pp - 1 && n === top && (busiest === null || less(busiest, [parts.kinds[i][0], n]))) busiest = [parts.kinds[i][0], n];
    });
    const last = [parts.kinds[pp - 1][0], sizes[pp - 1]];
    if (same(busiest, [g, L]) && same(last, [g, L])) return null;
    return [busiest, last];  // counts as they are (3 of 15: the words count layers)
  }

  /** f_B of stageShares (a GPU of the busiest stage) as a number, null where it is G / L (stages.time_share). */
  function timeShare(m, pp) {
    const s = stageShares(m, pp);
    if (s === null) return null;
    const g = layerKinds(m).filter(k => k === 0).length;
    return s[0][0] * m.layers === g * s[0][1] ? null : s[0][0] / s[0][1];
  }

  /** '1 in 7', 'none of 2' (stages.share_words). */
  function shareWords(x) { return x[0] ? `${x[0]} in ${x[1]}` : `none of ${x[1]}`; }

  /** [kappa_B, kappa_L, kappa_F] at a point whose mean-layer quantity is x (full: every layer global): the busiest
   * stage's, the last stage's and the stages' before the last together, atShare over x, 1 where x is 0
   * (stages.kappas). */
  function kappas(m, pp, x, full) {
    const s = stageShares(m, pp);
    if (s === null) return [1.0, 1.0, 1.0];
    // and the stages before the last together: G - g_L global layers in L - n_L (stages.kappas)
    const before = [layerKinds(m).filter(k => k === 0).length - s[1][0], m.layers - s[1][1]];
    return s.concat([before]).map(f => x > 0 ? atShare(m, f[0] / f[1], x, full) / x : 1.0);
  }

  /** A mean layer's c, d_h or their fraction at the stages' share of global layers (stages.at_share): x - (f - share)
   * (full - x) / (1 - f), f = G / L; x where share is null. */
  function atShare(m, share, x, full) {
    if (share === null || share === undefined) return x;
    const at = m.attention, per = at.local_layers_per_global || 0;  // architecture.global_layers
    const f = (!at.sliding_window && !at.chunk_size ? m.layers : per ? Math.floor(m.layers / (per + 1)) : 0) / m.layers;
    return x - (f - share) * (full - x) / (1.0 - f);
  }

  /** Each stage's layers by cache kind and parameters by tensor class, whole (stages.stage_parts). */
  function stageParts(m, pp) {
    const pc = M.parameterCount(m), d = m.hidden_size;
    const perNorm = m.norm === "layernorm" ? 2 * d : d, L = m.layers, nMoe = pc.moe_layers;
    const layerNorms = (pc.norms - perNorm) / L, attention = pc.attention / L;
    const denseFfn = L > nMoe ? pc.ffn_dense / (L - nMoe) : 0.0;
    const moeRest = nMoe ? (pc.experts_shared + pc.router) / nMoe : 0.0, experts = nMoe ? pc.experts_routed / nMoe : 0.0;
    const routed = routedLayers(m), kinds = layerKinds(m), sizes = stageLayers(L, pp);
    const head = pc.lm_head || (pp > 1 ? pc.embedding : 0);  // a tied embedding: the last stage's own copy
    const out = {kinds: [], attention: [], def: [], experts: [], embedding: [], head: [], repAtt: [], repDef: [], kvp: []};
    // what tensor parallelism holds whole on every GPU, a stage's (stages.stage_parts): the layers' norms and
    // row-parallel FFN biases a layer, the router a MoE layer, the final norm the last stage's
    const repNorms = pc.norms - perNorm, repOther = pc.replicated - pc.replicated_attention - pc.norms - pc.router;
    let first = 0;
    sizes.forEach((n, i) => {
      let moe = 0;
      const k = [0, 0, 0];
      for (let j = first; j < first + n; j++) { moe += routed[j] ? 1 : 0; k[kinds[j]] += 1; }
      out.kinds.push(k);
      out.attention.push(attention * n);
      out.def.push(layerNorms * n + denseFfn * (n - moe) + moeRest * moe + (i === pp - 1 ? perNorm : 0));
      out.experts.push(experts * moe);
      out.embedding.push(i === 0 ? pc.embedding : 0.0);
      out.head.push(i === pp - 1 ? head : 0.0);
      out.repAtt.push(pc.replicated_attention / L * n);
      out.kvp.push(pc.kv_projections / L * n);
      out.repDef.push((repNorms + repOther) / L * n + (nMoe ? pc.router / nMoe * moe : 0.0) + (i === pp - 1 ? perNorm : 0));
      first += n;
    });
    return out;
  }

  /** n_PT: a GPU's parameters with every layer over those of the stage that holds the most, dense and routed each
   * at their heaviest stage, the smaller split (stages.training_split); 1 for one stage. */
  function trainingSplit(m, pp) {
    if (pp <= 1) return 1.0;
    const pc = M.parameterCount(m), p = stageParts(m, pp);
    const dense = p.attention.map((x, i) => x + p.def[i] + p.embedding[i] + p.head[i]);
    let split = (pc.total - pc.experts_routed) / Math.max.apply(null, dense);
    if (pc.experts_routed) split = Math.min(split, pc.experts_routed / Math.max.apply(null, p.experts));
    return split;
  }

  /** Each stage's weight bytes on one GPU, the same GPU's with every layer, its layers by cache kind and the memory it
   * may use (stages.ledger). */
  function stageLedger(inp, t, tp, pp, ep, red) {
    const m = inp.model, p = inp.precision, hw = inp.hardware, pc = M.parameterCount(m);
    const fmt = c => (p.classes ? p.classes[c] : p.weights);
    const uniform = ["experts", "attention", "embeddings", "default"].every(c => fmt(c) === fmt("default"));
    const bytes = c => M.formatBytes(fmt(uniform ? "default" : c), p.group_size, t);
    const bE = bytes("embeddings"), bT = bytes("attention"), bD = bytes("default");
    let bX = bytes("experts");
    if (!uniform && pc.experts_bias && pc.experts_routed) {
      bX = ((pc.experts_routed - pc.experts_bias) * bX + pc.experts_bias * bD) / pc.experts_routed;
    }
    const heldX = (1.0 + (m.moe ? red / m.moe.experts : 0.0)) / Math.max(tp, ep);
    const parts = stageParts(m, pp), sKv = m.attention.kind === "mla" ? 1.0 : Math.min(tp, m.kv_heads);
    // the bytes tensor parallelism adds to stage i by holding its replicated parameters whole (StageParts.copies_bytes)
    const copies = i => (parts.repAtt[i] * bT + parts.repDef[i] * bD) * (tp - 1) + parts.kvp[i] * bT * (tp / sKv - 1);
    const held = parts.attention.map((x, i) => (x * bT + parts.def[i] * bD + (parts.embedding[i] + parts.head[i]) * bE
      + copies(i)) / tp + parts.experts[i] * bX * heldX);
    const rest = (pc.embedding + pc.lm_head) * bE + pc.attention * bT
      + (pc.ffn_dense + pc.experts_shared + pc.router + pc.norms) * bD;
    const logits = (hw.max_sequences || 0) * m.vocab_size * 4.0;
    const base = M.usable(hw, m, {tp: tp, pp: 1, ep: ep}) + logits;  // the workspace without the logits
    let all = 0.0;
    for (let i = 0; i < pp; i++) all += copies(i);
    return {held: held, flat: (rest + all) / tp + pc.experts_routed * bX * heldX, kinds: parts.kinds,
      room: held.map((_, i) => base - (i === pp - 1 ? logits : 0.0)), window: m.attention.sliding_window || 0,
      chunk: m.attention.chunk_size || 0};
  }

  /** n_PW, n_PK and C of the stage that holds the fewest tokens at context s (null: within every window), 1, 1 and the
   * GPU's memory for one stage (stages.stage_values); of stage ``only`` where given (StageLedger.stage). */
  function stageValues(inp, t, par, s, only) {
    const m = inp.model, tp = par.tp || 1, pp = par.pp || 1, ep = par.ep || 1;
    if (pp <= 1) return {n_PW: 1.0, n_PK: 1.0, C: M.usable(inp.hardware, m, {tp: tp, pp: 1, ep: ep})};
    const l = stageLedger(inp, t, tp, pp, ep, par.redundant_experts || 0);
    const pos = l.kinds.map(k => {
      const all = k[0] + k[1] + k[2];
      if (s === null || s === undefined || !(s > 0)) return all;
      return (k[0] * s + k[1] * Math.min(s, l.window || Infinity) + k[2] * Math.min(s, l.chunk || Infinity)) / s;
    });
    let best = only === undefined ? 0 : only;
    if (only === undefined) {
      pos.forEach((x, i) => { if ((l.room[i] - l.held[i]) / x < (l.room[best] - l.held[best]) / pos[best]) best = i; });
    }
    const total = pos.reduce((a, x) => a + x, 0.0);
    return {n_PW: l.flat / l.held[best], n_PK: total / pos[best], C: l.room[best]};
  }

  /** ``base`` at context s with c the cache a sequence holds there (layout.held_at): with stages and windowed or
   * chunked layers, the binding stage at that context. */
  function heldAt(base, inp, t, par, s, c) {
    const v = Object.assign({}, base, {S: s, c: c});
    const a = inp.model.attention;
    if ((par.pp || 1) > 1 && (a.sliding_window || a.chunk_size)) Object.assign(v, stageValues(inp, t, par, s));
    return v;
  }

  /** n_PP: L over the busiest stage's ceil(L / pp) layers; pp when it divides L (env.pipeline_split). */
  function pipelineSplit(layers, pp) { return layers % pp === 0 ? pp : layers / Math.ceil(layers / pp); }

  /** The output head's V d parameters where the layout has stages (the last stage's), else 0 (env.stage_head). */
  function stageHead(card, cut) { return cut.pp > 1 ? card.V * card.d : 0.0; }

  /** How one GPU's share follows from the layout (env.layout_slice; formulas/layout.py). */
  function layoutSlice(m, par, p, t) {
    if (!par) return M.ONE_CUT;
    const tp = par.tp || 1, pp = par.pp || 1, ep = par.ep || 1, split = pipelineSplit(m.layers, pp);
    const red = par.redundant_experts || 0, rho = m.moe ? red / m.moe.experts : 0.0;  // replicas (Slice.rho)
    const sKv = m.attention.kind === "mla" ? 1.0 : Math.min(tp, m.kv_heads);
    // N_R and, where the precision differs by tensor class, its bytes (Slice.copies, Slice.copies_bytes)
    let copies = 0.0, copiesBytes = 0.0;
    if (tp > 1) {
      const pc = M.parameterCount(m);
      copies = M.tpCopies(pc, tp, sKv);
      const fmt = c => (p && p.classes ? p.classes[c] : p && p.weights);
      const uniform = ["experts", "attention", "embeddings", "default"].every(c => fmt(c) === fmt("default"));
      if (p && t && p.classes && !uniform) {  // Python's not precision.uniform
        const bT = M.formatBytes(fmt("attention"), p.group_size, t), bD = M.formatBytes(fmt("default"), p.group_size, t);
        copiesBytes = (pc.replicated_attention * bT + (pc.replicated - pc.replicated_attention) * bD) * (tp - 1)
          + pc.kv_projections * bT * (tp / sKv - 1);
      }
    }
    return {tp: tp, pp: pp, ep: ep, s_kv: sKv, share: tp * split, copies: copies, copiesBytes: copiesBytes,
      split: split, redundant: red, rho: rho,
      expertKeep: 1.0 - tp / Math.max(tp, ep), expertHeld: 1.0 - (1.0 + rho) * tp / Math.max(tp, ep),
      trivial: tp === 1 && pp === 1 && ep === 1};
  }

  function routedParameters(v, pc, accounting) {
    if (accounting !== "seed") return pc.experts_routed;
    const spare = pc.total - pc.active;
    return pc.experts_routed * (spare ? (v.N - v.N_a) / spare : 0.0);
  }

  /** One GPU's values (env.slice_values). */
  function sliceValues(card, cut, pc, accounting, m, wb) {
    const v = Object.assign({}, card);
    if (cut.trivial) return v;
    const nX = m.moe ? routedParameters(card, pc, accounting) : 0.0;
    if (wb && wb.uniform === null) v.b = M.meanBytes(wb, card.N - nX, nX * (1.0 - cut.expertHeld), 0.0, cut.copies, cut.copiesBytes);
    const head = stageHead(card, cut);  // the last stage's, not in the busiest stage's slice (env.slice_values)
    // what it holds, replicas and all, and what tensor parallelism holds whole on each GPU (N_R: cut.copies)
    v.N = (card.N + cut.copies - head - nX * cut.expertHeld) / cut.share;
    ["N_a", "N_e", "N_p", "V", "a"].forEach(function (k) { v[k] = card[k] / cut.share; });
    v.N_a = (card.N_a + cut.copies - head) / cut.share;
    v.N_p = (card.N_p + cut.copies) / cut.share;
    if (cut.pp > 1) v.V = 0.0;
    v.L = card.L / cut.split;
    v.H_q = card.H_q / cut.tp;
    v.H_kv = card.H_kv / cut.s_kv;
    v.c = card.c / (cut.split * cut.s_kv);
    v.G = v.H_q / v.H_kv;
    return v;
  }

  /** The whole model on one card beside a layout (evaluate's one_card), and the model's own N in ``sc``. */
  function oneCard(env, sc, c1) {
    sc.parameters = finite(env.card.N);
    const card = env.oneCard();
    card.values.C = c1;  // what one card keeps for the whole model: its own workspace, at tp 1 (evaluate's one_card)
    return {capacity: c1, weight_bytes: finite(call("weight_bytes", card.at())),
      weight_stream_time: finite(call("weight_stream_time", card.at(1.0, null))),
      attention_intensity: finite(call("attention_intensity", card.at())),  // the whole model's (evaluate's one_card)
      kv_capacity_tokens: M.physical("kv_capacity_tokens", call("kv_capacity_tokens", card.at()))[0]};
  }

  /** decode_tokens_per_s at a layout: a replica's token/s at the strict bound of a round (_at_layout_rates). */
  function replicaRates(res, w, add) {
    ["seed", "exact"].forEach(acc => {
      const par = res.parallel.decode[acc];
      if (!res.decode[acc] || !par) return;
      res.decode[acc].decode_tokens_per_s = par.decode_tokens_per_s_replica;
      const suffix = acc === "seed" ? "" : "_exact";
      grid2(w, (b, s, i, j) => {
        res.entries.delete(M.key("decode_tokens_per_s" + suffix, {batch: b, context: s}));
        add("decode_tokens_per_s", {batch: b, context: s}, par.decode_tokens_per_s_replica[i][j], acc, suffix);
      });
    });
  }

  const divisors = (n, limit) => Array.from({length: Math.min(n, limit)}, (_, i) => i + 1).filter(x => n % x === 0);

  /** Pipeline degrees tried (layout._pp_choices): the divisors of the layers and the powers of two up to min(L, limit). */
  function ppChoices(layers, limit) {
    const top = Math.min(layers, limit), out = new Set(divisors(layers, limit));
    for (let p = 1; p <= top; p *= 2) out.add(p);
    return Array.from(out).sort((a, b) => a - b);
  }

  /** tp x pp layouts in the order min_gpus_to_fit tries them (fewer GPUs, then fewer stages); tp divides the
   * query heads and splits the KV heads evenly, pp divides the layers or is a power of two. */
  function layouts(m) {
    const out = [];
    divisors(m.heads, 64).filter(x => m.attention.kind === "mla" || m.kv_heads % x === 0 || x % m.kv_heads === 0)
      .forEach(tp => ppChoices(m.layers, MAX_GPUS).forEach(pp => { if (tp * pp <= MAX_GPUS) out.push([tp * pp, pp, tp]); }));
    return out.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  }

  /** The parallel results of GR_MODEL's ``res`` for ``inp``'s layout, per accounting: scalars, perContext,
   * decode ([batch][context]), prefill, minGpus; training (seed), binds (lead) and the entries. */
  function evaluate(res, inp, t) {
    const par = inp.parallelism, hw = inp.hardware, m = inp.model, w = inp.workloads;
    const [links, notes] = chooseLinks(hw, par), recipe = w.recipes.length ? w.recipes[0] : "bf16-grads", order = layouts(m);
    const out = {links: links, notes: notes, replica_gpus: par.tp * par.pp, stages: par.pp,
      dp: par.dp || 1, gpus: par.tp * par.pp * (par.dp || 1), scalars: {}, perContext: {}, decode: {}, prefill: {},
      minGpus: {}, training: []};
    ["seed", "exact"].forEach(acc => {
      // the layout's formulas take the whole model's values and divide them themselves
      const atLayout = res.envs[acc], env = atLayout.oneCard(), base = layoutValues(env, inp, par, links, t, recipe);
      const sc = {};
      SCALARS.forEach(q => { sc[q] = finite(call(q, base)); });
      sc.tp_weight_crossover = finite(call("tp_weight_crossover", atBatch(base, atLayout, 1.0)));
      sc.kv_capacity_tokens_replica = M.physical("kv_capacity_tokens", call("kv_capacity_tokens_replica", base))[0];
      out.scalars[acc] = sc;
      if (w.decode_context.length) {
        // the cache a sequence holds for the capacity, the one a step reads for the crossover (env.READ_AT_CONTEXT)
        const cv = w.decode_context.map(s => heldAt(base, inp, t, par, s, env.at(null, s).c));
        const rv = w.decode_context.map(s => Object.assign({}, base, {S: s, c: env.at(null, s, null, null, true).c}));
        const raw = cv.map(v => call("capacity_batch_replica", v));
        out.perContext[acc] = {capacity_batch_replica: raw.map(x => Math.max(x, 0.0)), capacity_batch_replica_raw: raw,
          comm_hbm_crossover_batch: rv.map(v => call("comm_hbm_crossover_batch", v))};
      }
      if (w.decode_batch.length && w.decode_context.length) {
        // layout.held_b_at: the bytes per weight a GPU of tp holds where the precision differs by tensor class (what
        // tp holds whole in its own formats), else the base's b
        const nXc = routedParameters(env.card || env.values, env.pc, env.accounting);
        const heldB = tp => {
          if (!env.perClass) return {};
          const c = layoutSlice(m, {tp: tp, pp: 1, ep: 1}, inp.precision, t), card = env.card || env.values;
          return {b: M.meanBytes(env.wb, card.N - nXc, nXc, 0.0, c.copies, c.copiesBytes)};
        };
        const points = grid2(w, (b, s) => {
          const g = env.at(b, s), v = atBatch(Object.assign({}, base, {S: g.S, c: g.c, d_h: g.d_h}), atLayout, b);
          const x = {};
          const cHeld = env.at(null, s).c;  // what the cache holds (a chunked layer: up to its whole chunk)
          const mem = heldAt(base, inp, t, par, s, cHeld);
          const held = Object.assign({}, v, {N: base.N, N_x: base.N_x, b: base.b, c: cHeld, n_PW: mem.n_PW, n_PK: mem.n_PK, C: mem.C});
          GRID.forEach(q => { x[q] = call(q, RESIDENT.includes(q) ? held : v); });
          x.decode_tokens_per_s_replica = b / x.decode_time_bound;
          x.decode_tokens_per_s_gpu = b / (x.decode_time_bound * out.replica_gpus);
          const fit = order.find(l => {  // layout.min_gpus_to_fit with stage_capacity: the binding stage's memory
            const room = stageValues(inp, t, {tp: l[2], pp: l[1]}, s);
            return call("memory_per_gpu", Object.assign({}, base, {c: cHeld, n_TP: l[2], n_PP: pipelineSplit(m.layers, l[1]), n_St: l[1],
              n_EP: 1.0, rho_x: 0.0, s_kv: m.attention.kind === "mla" ? 1.0 : Math.min(l[2], m.kv_heads), B: b, S: s,
              N_R: M.tpCopies(M.parameterCount(m), l[2], m.attention.kind === "mla" ? 1.0 : Math.min(l[2], m.kv_heads)),
              n_PW: room.n_PW, n_PK: room.n_PK}, heldB(l[2]))) <= room.C;
          });
          x.min_gpus_to_fit = fit ? fit[0] : null;
          return x;
        });
        out.decode[acc] = {};
        GRID.concat(RATES).forEach(q => { out.decode[acc][q] = points.map(row => row.map(x => x[q])); });
        out.minGpus[acc] = points.map(row => row.map(x => x.min_gpus_to_fit));
      }
      if (w.prefill_prompt.length) {
        out.prefill[acc] = {};
        PREFILL.forEach(q => { out.prefill[acc][q] = w.prefill_prompt.map(tk => call(q, atPrompt(base, atLayout, tk))); });
        // a prompt's occupancy of its replica in a steady state (layout.OCCUPANCY): the prompt rates and prices
        Object.entries(OCCUPANCY).forEach(([name, q]) => {
          out.prefill[acc][name] = promptGroup(atLayout) > 1
            ? w.prefill_prompt.map(tk => call(q, atPrompt(base, atLayout, tk, true)))
            : out.prefill[acc][q] || w.prefill_prompt.map(tk => call(q, atPrompt(base, atLayout, tk)));
        });
      }
    });
    if (w.training_tokens) {
      // the recipes' GEMMs run at the training format's peak (layout.py: recipes.training_compute), not the spec's
      const ft = Object.prototype.hasOwnProperty.call(inp.hardware.dense, t.training_compute) ? t.training_compute
        : inp.precision.compute;  // recipes.training_compute
      const env = res.envs.seed.oneCard(), pTrain = inp.hardware.dense[ft];
      const at = rec => Object.assign(layoutValues(env, inp, par, links, t, rec), {T: w.training_tokens, P: pTrain});
      // the state and the gradient traffic depend on the recipe; one replica has no gradient exchange to hide
      w.recipes.forEach(rec => TRAINING.forEach(q => out.training.push([q, {recipe: rec},
        q === "training_overlap_tokens" && par.dp === 1 ? null : finite(call(q, at(rec)))])));
      out.training.push(["training_backward_time", {tokens: w.training_tokens}, finite(call("training_backward_time", at(recipe)))]);
    }
    const g = out.decode[res.lead];
    // which per-GPU ledger binds (np.argmax: the first largest), or capacity past what one replica holds
    const largest = (names, qids) => g ? grid2(w, (b, s, i, j) => {
      if (b > out.perContext[res.lead].capacity_batch_replica[j]) return "capacity";
      const l = qids.map(q => g[q][i][j]);
      const nan = l.findIndex(Number.isNaN);
      return names[nan >= 0 ? nan : l.indexOf(Math.max.apply(null, l))];
    }) : null;
    out.binds = largest(BINDS, ["decode_time_compute_gpu", "decode_time_memory_gpu", "decode_time_comm"]);
    out.estimate_binds = largest(ESTIMATE_TERMS.map(x => x[0]), ESTIMATE_TERMS.map(x => x[1]));
    const pre = out.prefill[res.lead];
    out.prefill_estimate_binds = pre ? w.prefill_prompt.map((tk, i) => {
      const l = PREFILL_ESTIMATE_TERMS.map(x => pre[x[1]][i]);
      const nan = l.findIndex(Number.isNaN);
      return PREFILL_ESTIMATE_TERMS[nan >= 0 ? nan : l.indexOf(Math.max.apply(null, l))][0];
    }) : [];
    out.entries = entries(out, w, t, hw.noun || "GPU", par.dp);
    return out;
  }

  const NO_EXCHANGE = "no gradient exchange to hide: the layout has one data-parallel replica (dp 1)";
  /** The entries of the layout (parallel._entries): [{id, params, value, unit, accounting, reason?}]. */
  function entries(out, w, t, noun, dp) {
    const list = [];
    const add = (q, params, value, acc, unit) => {
      const meta = t.meta[OCCUPANCY[q] || q] || ["token/s", ""];
      let st = M.physical(LIKE[q] || q, value === null ? NaN : value, meta[1]);
      if (value === null && q === "kv_capacity_tokens_replica") st = [null, M.NO_FIT];
      if (value === null && q === "training_overlap_tokens" && dp === 1) st = [null, NO_EXCHANGE];  // layout.NO_EXCHANGE
      if (unit) st = [value, value === null ? "no layout up to " + MAX_GPUS + " " + noun + "s holds it" : ""];
      const e = {id: q + (acc === "seed" ? "" : "_exact"), params: params, value: st[0], unit: unit || meta[0], accounting: acc};
      if (st[0] === null && st[1]) e.reason = st[1];
      list.push(e);
    };
    Object.keys(out.scalars).forEach(acc => {
      SCALARS.forEach(q => { if (acc === "seed" || (q !== "gpus" && q !== "link_ridge")) add(q, {}, out.scalars[acc][q], acc); });
      const per = out.perContext[acc] || {}, g = out.decode[acc], pre = out.prefill[acc];
      w.decode_context.forEach((s, j) => {
        add("capacity_batch_replica", {context: s}, per.capacity_batch_replica_raw[j], acc);
        add("comm_hbm_crossover_batch", {context: s}, per.comm_hbm_crossover_batch[j], acc);
      });
      if (g) {
        GRID.concat(RATES).forEach(q => grid2(w, (b, s, i, j) => add(q, {batch: b, context: s}, g[q][i][j], acc)));
        grid2(w, (b, s, i, j) => add("min_gpus_to_fit", {batch: b, context: s}, out.minGpus[acc][i][j], acc, "1"));
      }
      if (pre) PREFILL.concat(Object.keys(OCCUPANCY)).forEach(q => w.prefill_prompt.forEach((tk, i) => add(q, {tokens: tk}, pre[q][i], acc)));
    });
    out.training.forEach(row => add(row[0], row[1], row[2], "seed"));
    return list;
  }

  /** The strict bound of a decode round at the layout at one (batch, context), with another precision (null: the
   * spec's) or an HBM ``scaleW`` times faster (layout.decode_bound_at): what a page-1 lever does to a row. */
  function roundValues(inp, t, acc, b, s, precision, scaleW, scaleP) {
    const i = precision ? Object.assign({}, inp, {precision: precision}) : inp, par = i.parallelism;
    const atLayout = M.makeEnv(i, t, acc), env = atLayout.oneCard(), w = i.workloads;
    const base = layoutValues(env, i, par, chooseLinks(i.hardware, par)[0], t, w.recipes.length ? w.recipes[0] : "bf16-grads");
    // at context 0 (no KV cache) a sliding window's mean cache per token is 0/0: taken at one token (layout.decode_ledgers_at)
    const g = env.at(b, s || 1.0), v = atBatch(Object.assign({}, base, {S: s ? g.S : 0.0, c: g.c, d_h: g.d_h}), atLayout, b);
    v.W = v.W * scaleW;
    v.P = v.P * (scaleP || 1.0);
    v.m_b = fastestSchedule(v, par.pp || 1);  // the faster memory's or arithmetic's own schedule (layout.decode_ledgers_at)
    return v;
  }

  /** Sequences of ``tk`` tokens one replica holds beside its weights (layout.point_values' capacity_batch_replica
   * at context tk): whether a prompt's KV cache fits (evaluate.prompt_fits). */
  function promptCapacity(inp, t, acc, tk) {
    const par = inp.parallelism, atLayout = M.makeEnv(inp, t, acc), env = atLayout.oneCard(), w = inp.workloads;
    const base = layoutValues(env, inp, par, chooseLinks(inp.hardware, par)[0], t, w.recipes.length ? w.recipes[0] : "bf16-grads");
    return call("capacity_batch_replica", heldAt(base, inp, t, par, tk, env.at(null, tk).c));
  }

  function roundBound(inp, t, acc, b, s, precision, scaleW) {
    return call("decode_time_bound", roundValues(inp, t, acc, b, s, precision, scaleW, 1.0));
  }

  /** A round's strict bound and one GPU's three ledgers (layout.decode_ledgers_at). */
  function roundLedgers(inp, t, acc, b, s, precision, scaleW, scaleP) {
    const v = roundValues(inp, t, acc, b, s, precision, scaleW, scaleP);
    return {bound: call("decode_time_bound", v), compute: call("decode_time_compute_gpu", v),
      bandwidth: call("decode_time_memory_gpu", v), interconnect: call("decode_time_comm", v)};
  }

  /** Decode rows of the layout (decision._parallel_decode_rows): the strict bound (the largest per-GPU ledger),
   * the serial estimate, capacity per replica; the price is the replica's (GPUs x the hourly price). */
  function decodeRows(res, inp, price) {
    const lead = res.lead, w = inp.workloads, p = res.parallel, g = p.decode[lead], per = p.perContext[lead];
    const gpus = p.replica_gpus, weightsFit = (p.scalars[lead].weight_bytes_per_gpu || 0)
      <= res.scalars[lead].capacity;  // the binding stage's memory (decision._parallel_decode_rows)
    return M.picks(w.decode_batch, per.capacity_batch_replica, w.decode_context.length).map(ij => {
      const i = ij[0], j = ij[1], b = w.decode_batch[i], s = w.decode_context[j], time = g.decode_time_bound[i][j];
      const l = {compute: g.decode_time_compute_gpu[i][j], bandwidth: g.decode_time_memory_gpu[i][j], interconnect: g.decode_time_comm[i][j]};
      const roof = BINDS.reduce((a, k) => l[k] > l[a] ? k : a), second = BINDS.map(k => l[k]).sort((x, y) => x - y)[1];
      const fits = weightsFit && b <= per.capacity_batch_replica[j], tps = b / time;
      return {workload: "decode", label: "decode B = " + b.toLocaleString("en-US") + ", S = " + s.toLocaleString("en-US"),
        batch: b, context: s, binds: fits ? roof : "capacity", roof: roof, time: time, serial: g.decode_time_serial[i][j],
        estimate_binds: fits ? p.estimate_binds[i][j] : "capacity", overhead: g.decode_time_overhead[i][j],
        comm: l.interconnect, comm_est: g.decode_time_comm_estimate[i][j], other_roof: second > 0 ? l[roof] / second : null,
        other: M.nextLedger(l), fits: fits,
        capacity_batch: M.physical("capacity_batch", per.capacity_batch_replica_raw[j])[0], ms_per_token: time * 1e3,
        tokens_per_s_sequence: 1 / time, tokens_per_s: tps, tokens_per_s_gpu: tps / gpus,
        usd_per_mtok: fits ? M.usdPerMtok(price ? price * gpus : null, tps) : null};
    });
  }

  /** The strict bound of a prefill of ``tk`` tokens at the layout, with another precision (null: the spec's)
   * (layout.prefill_bound_at): what page 1's FP8 compute lever does to a layout's prefill row. */
  function prefillBound(inp, t, acc, tk, precision) {
    const i = precision ? Object.assign({}, inp, {precision: precision}) : inp, par = i.parallelism;
    const atLayout = M.makeEnv(i, t, acc), env = atLayout.oneCard(), w = i.workloads;
    const base = layoutValues(env, i, par, chooseLinks(i.hardware, par)[0], t, w.recipes.length ? w.recipes[0] : "bf16-grads");
    return call("prefill_time_bound", atPrompt(base, atLayout, tk));
  }

  /** The interconnect ledger of a step whose tk tokens pass one GPU's layers at the layout (techniques._step_links). */
  function stepLinks(inp, t, acc, tk) {
    if (!(tk > 0)) return 0.0;
    const par = inp.parallelism, atLayout = M.makeEnv(inp, t, acc), env = atLayout.oneCard(), w = inp.workloads;
    const base = layoutValues(env, inp, par, chooseLinks(inp.hardware, par)[0], t, w.recipes.length ? w.recipes[0] : "bf16-grads");
    return call("prefill_time_comm", atPrompt(base, atLayout, tk));
  }

  return {evaluate: evaluate, chooseLinks: chooseLinks, layoutValues: layoutValues, atBatch: atBatch, atPrompt: atPrompt,
    promptGroup: promptGroup, decodeRows: decodeRows, stepLinks: stepLinks,
    roundBound: roundBound, roundLedgers: roundLedgers, prefillBound: prefillBound, promptCapacity: promptCapacity,
    layoutSlice: layoutSlice, sliceValues: sliceValues, oneCard: oneCard, replicaRates: replicaRates,
    busiestRedundant: busiestRedundant, stageValues: stageValues, heldAt: heldAt, stageHead: stageHead,
    timeShare: timeShare, stageShares: stageShares, shareWords: shareWords, atShare: atShare, kappas: kappas,
    fastestSchedule: fastestSchedule};
})();
