/* genreport live what-if: the report model, evaluated in the browser.
 *
 * A port of the evaluation stage (generator/model/evaluate.py, formulas/architecture.py,
 * generator/model/values.py) that calls the formulas SymPy printed as JavaScript (GR_Q, formulas.js).
 * It has no DOM: tests run it under node and compare every entry with Python's to 1e-9.
 *
 * inputs = {hardware: {dense, bandwidth, capacity}, model: {...Model fields}, precision: {weights, kv_cache,
 *           compute, group_size}, workloads: {decode_batch, decode_context, activation_bytes, prefill_prompt,
 *           training_tokens, recipes}, gemms: [[name, n, m]], accounting}
 * tables = {precision_bytes, integer_formats, recipes: {name: bytes per parameter}, meta: {id: [unit, integer]}}
 */
const GR_MODEL = (function () {
  "use strict";

  const ACCOUNTINGS = ["seed", "exact"];
  const SCALARS = ["peak_flops", "bandwidth", "capacity", "ridge_point", "parameters", "weight_bytes",
    "kv_bytes_per_token", "kv_capacity_tokens", "attention_intensity", "training_flops_per_token"];
  const DECODE = ["decode_flops", "decode_bytes", "decode_time_memory", "decode_time_compute",
    "decode_tokens_per_s", "decode_intensity"];
  const PREFILL = ["prefill_flops", "prefill_bytes", "prefill_intensity", "prefill_time_compute",
    "prefill_time_memory", "weight_reuse_intensity"];
  // the scalars of the memory a GPU holds (evaluate.HELD: with stages, the one that holds the fewest tokens)
  const HELD = ["capacity", "weight_bytes", "kv_bytes_per_token", "kv_capacity_tokens"];
  const NO_FIT = "the weights alone exceed the memory capacity, so no KV cache fits";

  // ------------------------------------------------------------------------------------ architecture
  function ffnMatrices(kind) { return kind === "swiglu" || kind === "geglu" ? 3 : 2; }

  function attentionParamsPerLayer(m) {
    const d = m.hidden_size, a = m.attention;
    const extra = (m.o_bias ? d : 0) + (a.sinks ? m.heads : 0);  // output bias; one sink logit per query head
    if (a.kind === "mla") {
      const qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
      const q = a.q_lora_rank ? (d * a.q_lora_rank + a.q_lora_rank + a.q_lora_rank * m.heads * qk) : d * m.heads * qk;
      const kv = d * (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank
        + a.kv_lora_rank * m.heads * (a.qk_nope_head_dim + a.v_head_dim);
      const o = m.heads * a.v_head_dim * d;
      return q + kv + o + extra;
    }
    const q = d * m.heads * m.head_dim;
    const kv = 2 * d * m.kv_heads * m.head_dim;
    const o = m.heads * m.head_dim * d;
    const bias = m.qkv_bias ? (m.heads + 2 * m.kv_heads) * m.head_dim : 0;
    return q + kv + o + bias + extra;
  }

  /** Every norm's weights (architecture.norm_params): norms_per_layer a layer, the per-head q/k norms, the final one. */
  function normParams(m) {
    const perNorm = m.norm === "layernorm" ? 2 * m.hidden_size : m.hidden_size;
    const qk = m.attention.qk_norm && m.attention.kind !== "mla" ? m.layers * 2 * m.head_dim : 0;
    return m.layers * (m.norms_per_layer || 2) * perNorm + perNorm + qk;
  }

  /** Parameters by matrix, from the shapes (architecture.parameter_count). */
  function parameterCount(m) {
    const d = m.hidden_size, L = m.layers;
    const pc = {embedding: m.vocab_size * d, lm_head: m.tied_embeddings ? 0 : m.vocab_size * d,
      attention: L * attentionParamsPerLayer(m), ffn_dense: 0, experts_routed: 0, experts_shared: 0, router: 0,
      norms: normParams(m), expert_size: 0, moe_layers: 0, active_routed: 0};
    const mats = ffnMatrices(m.ffn_kind);
    // one FFN block of width w, with its gate/up and down biases where the spec has ffn_bias
    const block = w => mats * d * w + (m.ffn_bias ? (mats === 3 ? 2 : 1) * w + d : 0);
    if (!m.moe) {
      pc.ffn_dense = L * block(m.ffn_size);
    } else {
      const e = m.moe;
      const moeLayers = Math.floor((L - e.first_dense_layers) / Math.max(1, e.layer_step || 1));
      const expert = block(e.expert_ffn_size);
      pc.ffn_dense = (L - moeLayers) * block(m.ffn_size);
      pc.experts_routed = moeLayers * e.experts * expert;
      pc.experts_shared = moeLayers * e.shared_experts * block(e.shared_expert_ffn_size || e.expert_ffn_size);
      pc.router = moeLayers * (d * e.experts + (m.ffn_bias ? e.experts : 0));
      pc.expert_size = expert;
      pc.moe_layers = moeLayers;
      pc.active_routed = moeLayers * e.active_experts * expert;
      pc.experts_bias = m.ffn_bias ? moeLayers * e.experts * ((mats === 3 ? 2 : 1) * e.expert_ffn_size + d) : 0;
    }
    pc.total = pc.embedding + pc.lm_head + pc.attention + pc.ffn_dense + pc.experts_routed + pc.experts_shared
      + pc.router + pc.norms;
    // what tensor parallelism holds whole on every GPU, and the K and V projections (architecture.tp_replicated_params)
    const a = m.attention, moeLayers = pc.moe_layers;
    let repAtt = m.o_bias ? L * d : 0, kvp = 0;
    if (a.kind === "mla") {
      let down = d * (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank;
      if (a.q_lora_rank) down += d * a.q_lora_rank + a.q_lora_rank;
      repAtt += L * down;
    } else {
      kvp = L * (2 * d * m.kv_heads * m.head_dim + (m.qkv_bias ? 2 * m.kv_heads * m.head_dim : 0));
    }
    const shared = m.moe ? moeLayers * m.moe.shared_experts : 0;
    pc.replicated = repAtt + pc.norms + pc.router + (m.ffn_bias ? d * ((L - moeLayers) + shared) : 0);
    pc.replicated_attention = repAtt;
    pc.kv_projections = kvp;
    pc.active = pc.total - pc.experts_routed + pc.active_routed;
    return pc;
  }

  function kvElementsPerTokenLayer(m) {
    const a = m.attention;
    return a.kind === "mla" ? a.kv_lora_rank + a.qk_rope_head_dim : 2 * m.kv_heads * m.head_dim;
  }

  function patternLocal(m) {
    const a = m.attention;
    if (!a.local_layers_per_global) return m.layers;
    const period = a.local_layers_per_global + 1;
    return m.layers - Math.floor(m.layers / period);
  }

  function localLayers(m) { return m.attention.sliding_window ? patternLocal(m) : 0; }

  function chunkedLayers(m) { return m.attention.chunk_size ? patternLocal(m) : 0; }

  /** Cached positions a new token at context s reads over all layers (architecture.attended_positions). */
  function attendedPositions(m, s) {
    const n = localLayers(m), k = chunkedLayers(m);
    let out = (m.layers - n - k) * s;
    if (n) out += n * Math.min(s, m.attention.sliding_window);
    if (k) out += k * (s % m.attention.chunk_size);
    return out;
  }

  /** The context of a request's slowest decode round (serving.round_context): its last, or with chunked layers the
   * end of the last chunk its rounds fill where that reads more. */
  function roundContext(m, prompt, output) {
    const last = prompt + output - 1, chunk = m.attention.chunk_size || 0;
    if (!chunk || !chunkedLayers(m) || output <= 1) return last;
    const edge = Math.floor((last + 1) / chunk) * chunk - 1;
    if (edge === last || edge < prompt + 1) return last;
    return attendedPositions(m, edge) > attendedPositions(m, last) ? edge : last;
  }

  function kvBytesPerTokenAt(m, bKv, s) {
    const perLayer = kvElementsPerTokenLayer(m) * bKv;
    const n = localLayers(m);
    if (chunkedLayers(m)) return perLayer * attendedPositions(m, s) / s;
    if (n === 0) return m.layers * perLayer;
    const cached = (m.layers - n) * s + n * Math.min(s, m.attention.sliding_window);
    return perLayer * cached / s;
  }

  /** Cached positions one sequence at context s holds over the layers (architecture.kv_positions_held). */
  function kvPositionsHeld(m, s) {
    const n = localLayers(m), k = chunkedLayers(m);
    let held = (m.layers - n - k) * s;
    if (n) held += n * Math.min(s, m.attention.sliding_window);
    if (k) held += k * Math.min(s, m.attention.chunk_size);
    return held;
  }

  /** Positions of a prefix of the first ``prefix`` tokens a sequence at context s still holds over the layers: all of
   * it in a global layer, those within a windowed layer's last w positions, within a chunked layer's current chunk
   * (architecture.kv_prefix_positions_held). */
  function kvPrefixPositionsHeld(m, s, prefix) {
    const n = localLayers(m), k = chunkedLayers(m), p = Math.min(prefix, s);
    let held = (m.layers - n - k) * p;
    if (n) held += n * Math.max(0.0, p - Math.max(0.0, s - m.attention.sliding_window));
    if (k) held += k * Math.max(0.0, p - Math.floor(s / m.attention.chunk_size) * m.attention.chunk_size);
    return held;
  }

  /** The share a prefix's position keeps of what a sequence at s holds per position (serving._prefix_share). */
  function prefixShare(m, s, prefix) {
    const held = kvPositionsHeld(m, s);
    return held > 0 ? s * kvPrefixPositionsHeld(m, s, prefix) / (Math.min(prefix, s) * held) : 1.0;
  }

  /** The cache one sequence at context s holds, per token (architecture.kv_cache_bytes_per_token_at). */
  function kvCacheBytesPerTokenAt(m, bKv, s) {
    const k = chunkedLayers(m);
    if (!k) return kvBytesPerTokenAt(m, bKv, s);
    const n = localLayers(m);
    let held = (m.layers - n - k) * s + k * Math.min(s, m.attention.chunk_size);
    if (n) held += n * Math.min(s, m.attention.sliding_window);
    return kvElementsPerTokenLayer(m) * bKv * held / s;
  }

  function attendedFraction(m, s) {
    const n = localLayers(m);
    if (chunkedLayers(m)) return attendedPositions(m, s) / (m.layers * s);
    if (n === 0) return 1.0;
    return ((m.layers - n) * s + n * Math.min(s, m.attention.sliding_window)) / (m.layers * s);
  }

  /** g(T): the share of a T-token prompt's causal attention its layers compute (architecture.prefill_attended_fraction):
   * position t of a windowed layer attends to min(t, w), of a chunked layer to t mod c; 1 without them. */
  function prefillAttendedFraction(m, t) {
    const n = localLayers(m), k = chunkedLayers(m);
    if (!n && !k) return 1.0;
    if (!(t > 0)) return 1.0;
    const full = t * t / 2.0;
    let out = (m.layers - n - k) * full;
    if (n) {
      const w = m.attention.sliding_window;
      out += n * (t <= w ? full : w * t - w * w / 2.0);
    }
    if (k) {
      const c = m.attention.chunk_size, r = t % c;
      out += k * (Math.floor(t / c) * c * c / 2.0 + r * r / 2.0);
    }
    return out / (m.layers * full);
  }

  /** g of t prompt positions after `cached` a prefix cache holds (architecture.prefill_attended_fraction_after): the
   * pairs they attend to, A(cached + t) - A(cached), A(x) = g(x) x^2 / 2, over ((cached + t)^2 - cached^2) / 2. */
  function prefillAttendedFractionAfter(m, t, cached) {
    if (!(cached > 0)) return prefillAttendedFraction(m, t);
    if (!localLayers(m) && !chunkedLayers(m)) return 1.0;
    if (!(t > 0)) return 1.0;
    const total = t + cached;
    const pairs = (x) => prefillAttendedFraction(m, x) * x * x / 2.0;
    return (pairs(total) - pairs(cached)) / ((total * total - cached * cached) / 2.0);
  }

  function headDimForFlops(m) {
    const a = m.attention;
    return a.kind === "mla" ? (2 * a.kv_lora_rank + a.qk_rope_head_dim) / 2.0 : m.head_dim;
  }

  /** One engine step's activations on one GPU of the layout (objects.activation_workspace, formulas.memory):
   * 2 (2 d T_w + f) + n_sq V 4, f = T_w 3 d_ff / n_TP in a dense layer, d (g_x - 1) T_w + min(g_x T_w, 32768) k_e
   * (max(2 d_fx / s_x, d) + d_fx / s_x) in an MoE layer (s_x = max(tp / ep, 1); g_x = max(ep / tp, 1): data-parallel
   * attention gathers the replicas' tokens), the larger where both; the logits where the last stage is one of the
   * busiest. */
  function workspace(hw, m, par) {
    const tp = par ? par.tp : 1, ep = par && par.ep ? par.ep : 1, pp = par && par.pp ? par.pp : 1;
    const tokens = hw.max_batched_tokens || 0;
    let ffn = 0.0;
    if (!m.moe || parameterCount(m).moe_layers < m.layers) ffn = tokens * 3.0 * m.ffn_size / tp;
    if (m.moe) {
      const sx = Math.max(tp / ep, 1.0), gx = Math.max(ep / tp, 1.0), w = m.moe.expert_ffn_size;
      ffn = Math.max(ffn, m.hidden_size * (gx - 1.0) * tokens
        + Math.min(gx * tokens, 32768) * m.moe.active_experts * (Math.max(2.0 * w / sx, m.hidden_size) + w / sx));
    }
    const logits = pp <= 1 || m.layers % pp === 0 ? (hw.max_sequences || 0) * m.vocab_size * 4.0 : 0.0;
    return 2.0 * (2.0 * m.hidden_size * tokens + ffn) + logits;
  }

  /** Memory one GPU keeps beside the engine's reserve (Hardware.kept): its share or its size. */
  function kept(hw) { return hw.capacity * (1 - (hw.memory_reserve || 0)) - (hw.memory_reserve_bytes || 0); }
  /** Memory the model may use on one GPU (Hardware.usable): the capacity less the reserve and the workspace. */
  function usable(hw, m, par) { return kept(hw) - workspace(hw, m, par); }

  // ------------------------------------------------------------------------------------ inputs of one accounting
  /** Bytes per weight of one format (load.spec.format_bytes): block scales included, a group's fp16 scale for int. */
  function formatBytes(f, group, t) {
    const blocks = t.weight_format_bytes || {};
    let base = Object.prototype.hasOwnProperty.call(blocks, f) ? blocks[f] : t.precision_bytes[f];
    if (base === undefined) throw new Error("the bytes of " + f + " weights are not in this page");
    if (group && t.integer_formats.indexOf(f) >= 0) base += 2.0 / group;
    return base;
  }

  function formatOf(p, cls) { return p.classes ? p.classes[cls] : p.weights; }

  /** The tensor classes' bytes per weight (env.weight_bytes_of): experts, the mean of the rest, the embedding's. */
  function weightBytesOf(p, pc, t) {
    const cls = ["experts", "attention", "embeddings", "default"].map(c => formatBytes(formatOf(p, c), p.group_size, t));
    const forms = ["experts", "attention", "embeddings", "default"].map(c => formatOf(p, c));
    if (forms.every(f => f === forms[0])) return {experts: cls[3], rest: cls[3], embedding: cls[3], uniform: cls[3]};
    const rest = [pc.embedding + pc.lm_head, pc.attention, pc.ffn_dense + pc.experts_shared + pc.router + pc.norms];
    const nRest = rest[0] + rest[1] + rest[2];
    const mean = nRest ? (rest[0] * cls[2] + rest[1] * cls[1] + rest[2] * cls[3]) / nRest : cls[3];
    // the experts' biases in the default class's format (env.weight_bytes_of)
    const bx = pc.experts_bias && pc.experts_routed
      ? ((pc.experts_routed - pc.experts_bias) * cls[0] + pc.experts_bias * cls[3]) / pc.experts_routed : cls[0];
    return {experts: bx, rest: mean, embedding: cls[2], uniform: null};
  }

  /** The format tensor class ``cls``'s GEMMs run in on a GPU of ``dense`` peaks (Precision.class_compute). */
  function classCompute(p, cls, dense, t) {
    if (!p.own_compute) return p.compute;
    const f = formatOf(p, cls), has = (k) => Object.prototype.hasOwnProperty.call(dense, k);
    const own = (t.native_fp4 || []).indexOf(f) >= 0 && has("fp4") ? "fp4"
      : (Object.prototype.hasOwnProperty.call(t.weight_compute, f) ? t.weight_compute[f] : f);
    return has(own) && dense[own] > (has(p.compute) ? dense[p.compute] : 0.0) ? own : p.compute;
  }

  /** P and e_m of a precision on ``hw`` (env.peak_of): one compute format's peak and measured share, or for classes
   * computed in different formats the rate a token's weight FLOPs finish at, sum F_c / sum (F_c / P_c). */
  function peakOf(p, hw, m, pc, t) {
    const matmul = (f) => Object.prototype.hasOwnProperty.call(hw.achieved_matmul || {}, f) ? hw.achieved_matmul[f] : 1.0;
    const classes = ["experts", "attention", "embeddings", "default"];
    const forms = classes.map(c => classCompute(p, c, hw.dense, t));
    if (forms.every(f => f === p.compute)) return {value: hw.dense[p.compute], matmul: matmul(p.compute)};
    const routed = pc.experts_routed ? pc.active_routed * (1.0 - pc.experts_bias / pc.experts_routed) : 0.0;
    let best = null;
    [1.0, 0.0].forEach(function (head) {  // a decode token runs the output head, a prompt's tokens once: the faster
      const flops = [routed, pc.attention, m.vocab_size * m.hidden_size * head, pc.ffn_dense + pc.experts_shared + pc.router];
      const byForm = {};
      forms.forEach((f, i) => { byForm[f] = (byForm[f] || 0.0) + flops[i]; });
      let total = 0.0, ideal = 0.0;
      Object.keys(byForm).forEach(function (f) { total += byForm[f]; ideal += byForm[f] / hw.dense[f]; });
      if (best === null || total / ideal > best.total / best.ideal) best = {total: total, ideal: ideal, byForm: byForm, flops: flops};
    });
    const byForm = best.byForm, flops = best.flops;
    let real = 0.0;
    Object.keys(byForm).forEach(function (f) { real += byForm[f] / (hw.dense[f] * matmul(f)); });
    const names = {experts: "routed experts", attention: "attention", embeddings: "output head", default: "rest"};
    const and = (w) => w.length === 1 ? w[0]  // (env._and)
      : w.slice(0, -1).join(", ") + (w.some(x => x.indexOf(" and ") >= 0) ? ", and " : " and ") + w[w.length - 1];
    const parts = Object.keys(byForm).filter(f => byForm[f])
      .sort((a, b) => hw.dense[b] - hw.dense[a] || (a < b ? -1 : a > b ? 1 : 0))
      .map(function (f) {
        const cls = classes.filter((c, i) => forms[i] === f && flops[i]);
        return [cls.indexOf("default") >= 0 ? "the rest" : and(cls.map(c => names[c])), f];
      });
    return {value: best.total / best.ideal, matmul: best.ideal / real, parts: parts.length > 1 ? parts : []};
  }

  /** Whether a class computes in another format than p.compute on a GPU of ``dense`` peaks (Precision.label). */
  function computesApart(p, dense, t) {
    return !!p.own_compute && ["experts", "attention", "embeddings", "default"].some(c => classCompute(p, c, dense, t) !== p.compute);
  }

  /** The compute format, or the classes' formats where they compute apart (env.Peak.label). */
  function computeLabel(p, hw, m, t) {
    const pk = peakOf(p, hw, m, parameterCount(m), t);
    if (!pk.parts || !pk.parts.length) return p.compute;
    const w = pk.parts.map(x => x[1] + " for the " + x[0].replace(/^the /, ""));  // (env.Peak.label)
    const last = w.some(x => x.indexOf(" and ") >= 0) ? ", and " : " and ";  // (env._and)
    return "a blend of " + (w.length === 1 ? w[0] : w.slice(0, -1).join(", ") + last + w[w.length - 1]);
  }

  /** b of n_rest non-expert and n_x routed-expert weights, less n_skip input-embedding weights (WeightBytes.mean). */
  function meanBytes(wb, nRest, nX, nSkip, copies, copiesBytes) {
    if (wb.uniform !== null) return wb.uniform;
    const skip = nSkip || 0.0, n = copies || 0.0, q = copiesBytes || 0.0;
    return (nRest * wb.rest + nX * wb.experts - skip * wb.embedding + q) / (nRest + nX - skip + n);
  }

  /** N_R: the parameters tensor parallelism over tp GPUs adds to a replica (ParameterCount.tp_copies). */
  function tpCopies(pc, tp, sKv) { return pc.replicated * (tp - 1) + pc.kv_projections * (tp / sKv - 1); }

  /** Bytes per weight the model holds (Precision.weight_bytes: the one format's, or the mean over the classes). */
  function weightBytes(p, t, m) {
    if (!p.classes || !m) return formatBytes(formatOf(p, "default"), p.group_size, t);
    const pc = parameterCount(m), wb = weightBytesOf(p, pc, t);
    return meanBytes(wb, pc.total - pc.experts_routed, pc.experts_routed);
  }

  /** 'experts mxfp4, rest bf16' for per-class weights, the format otherwise (Precision.weights_label). */
  function weightsLabel(p) {
    if (!p.classes) return p.weights;
    const rest = p.classes["default"];
    const bits = ["experts", "attention", "embeddings"].filter(c => p.classes[c] !== rest).map(c => c + " " + p.classes[c]);
    return bits.length ? bits.concat(["rest " + rest]).join(", ") : rest;
  }

  /** The routed experts' parameters as the accounting counts N (env.routed_parameters). */
  function routedParameters(v, pc, accounting, m) {
    if (!m.moe) return 0.0;
    if (accounting !== "seed") return pc.experts_routed;
    const spare = pc.total - pc.active;
    return pc.experts_routed * (spare ? (v.N - v.N_a) / spare : 0.0);
  }

  /** Env: the scalar inputs of one accounting and how to vary them (evaluate.make_env / Env.at). */
  function makeEnv(inp, t, accounting) {
    const hw = inp.hardware, m = inp.model, p = inp.precision;
    const pc = parameterCount(m);
    const wb = weightBytesOf(p, pc, t), bKv = t.precision_bytes[p.kv_cache];
    let n, nA, nE, nP;
    if (accounting === "seed") {
      n = m.declared_parameters || pc.total;
      nA = m.moe ? (m.declared_active || pc.active * n / pc.total) : n;
      nE = 0.0;
      nP = nA - pc.embedding - pc.lm_head;
    } else {
      n = pc.total;
      nE = m.tied_embeddings ? 0.0 : pc.embedding;
      nA = pc.active - nE;
      nP = pc.active - pc.embedding - pc.lm_head;
    }
    const b = meanBytes(wb, n - routedParameters({N: n, N_a: nA}, pc, accounting, m), routedParameters({N: n, N_a: nA}, pc,
      accounting, m));  // every weight the card holds
    const peak = peakOf(p, hw, m, pc, t);
    // P_a: the attention's peak in the serial estimate, the slower of the compute's and the cache's (env.attention_peak)
    const kvf = p.kv_cache === "fp4" ? "fp8" : p.kv_cache;
    const kva = Object.prototype.hasOwnProperty.call(hw.dense, kvf) && kvf !== "int8" && kvf !== "int4" ? kvf : p.compute;
    const card = {P: peak.value, W: hw.bandwidth, C: usable(hw, m, inp.parallelism), N: n, N_a: nA, N_e: nE, N_p: nP,
      P_a: Math.min(Math.min(hw.dense[p.compute], hw.dense[kva]), peak.value),
      // e_m: a large matmul's measured share of the peak in the compute format (card_values; 1 where none is given)
      e_m: peak.matmul,
      // e_g: a small-M GEMM's measured share of the bandwidth on its weights (card_values; 1 where none is given)
      e_g: Object.prototype.hasOwnProperty.call(hw.achieved_bandwidth || {}, p.compute) ? hw.achieved_bandwidth[p.compute] : 1.0,
      L: m.layers, d: m.hidden_size, H_q: m.heads, H_kv: m.kv_heads, d_h: headDimForFlops(m), d_ff: m.ffn_size,
      V: m.vocab_size, G: m.heads / m.kv_heads, b: b, b_kv: bKv,
      c: m.layers * kvElementsPerTokenLayer(m) * bKv, a: inp.workloads.activation_bytes || 0.0};
    if (!inp.parallelism || typeof GR_PARALLEL === "undefined") {
      return envOf(Object.assign({}, card), card, ONE_CUT, m, accounting, pc, wb);
    }
    const cut = GR_PARALLEL.layoutSlice(m, inp.parallelism, p, t);  // one GPU of the layout (parallel.js)
    const env = envOf(GR_PARALLEL.sliceValues(card, cut, pc, accounting, m, wb), card, cut, m, accounting, pc, wb,
      GR_PARALLEL.timeShare(m, cut.pp));
    if (cut.pp > 1) {  // the slice's micro-batches at (batch, context): the layout bound's m_b (layout.SliceSchedule)
      const memo = new Map(), par = inp.parallelism;
      let base = null;
      env.schedule = function (b, s) {
        const key = b + "|" + s;
        if (!memo.has(key)) {
          const P = GR_PARALLEL, one = this.oneCard(), w = inp.workloads;
          if (base === null) {
            base = P.layoutValues(one, inp, par, P.chooseLinks(inp.hardware, par)[0], t,
              w.recipes.length ? w.recipes[0] : "bf16-grads");
          }
          const g = one.at(b, s);
          memo.set(key, P.atBatch(Object.assign({}, base, {S: g.S, c: g.c, d_h: g.d_h}), this, b).m_b);
        }
        return memo.get(key);
      };
    }
    if (cut.pp > 1) {  // the memory held on the stage that holds the fewest tokens, or on ``stage`` (Env.held)
      env.held = function (context, stage) {
        const e = this.at(null, context === undefined ? null : context);
        const a = m.attention, bounded = a.sliding_window || a.chunk_size;
        const st = GR_PARALLEL.stageValues(inp, t, inp.parallelism, context === undefined || !bounded ? null : context,
          stage === undefined || stage === null ? undefined : stage);
        // the head the slice leaves out (Env.held, stage_head), back before n_PW divides the whole model
        e.N = (e.N + GR_PARALLEL.stageHead(card, cut) / cut.share) * cut.split / st.n_PW;
        e.c = e.c * cut.split / st.n_PK;
        e.C = st.C;
        return e;
      };
    }
    return env;
  }

  function envOf(values, card, cut, m, accounting, pc, wb, share) {
    return {values: values, card: card, cut: cut, model: m, accounting: accounting, pc: pc, wb: wb,
      perClass: wb.uniform === null, share: share === undefined ? null : share,  // stages.time_share (Env.share)
      at: function (batch, context, extra, stream, reads) { return envAt(this, batch, context, extra, stream, reads); },
      held: function (context) { return envAt(this, null, context === undefined ? null : context); },
      readB: function (n, nX) { return readB(this, n, nX); },
      oneCard: function () {
        return cut.trivial ? this : envOf(Object.assign({}, card), card, ONE_CUT, m, accounting, pc, wb);
      }};
  }

  /** b at a point that reads weights (Env.read_b): the mean bytes of this GPU's slice of n weights, n_x of them
   * routed experts (the held ones by default), less the input embedding N_e. */
  function readB(env, n, nX) {
    if (!env.perClass) return env.values.b;
    const card = env.card;
    const nn = n === undefined ? card.N : n;
    const x = nX === undefined ? routedParameters(card, env.pc, env.accounting, env.model) : nX;
    return meanBytes(env.wb, nn - x, x * (1.0 - env.cut.expertKeep), card.N_e, env.cut.copies, env.cut.copiesBytes);
  }

  // ------------------------------------------------------------------------------------ one GPU of a layout
  const ONE_CUT = {tp: 1, pp: 1, ep: 1, s_kv: 1.0, share: 1.0, split: 1.0, expertKeep: 0.0, copies: 0.0, copiesBytes: 0.0, trivial: true};

  /** Experts of one MoE layer ``tokens`` tokens touch (Env.touched): an expert group wider than a replica serves
   * ep / tp replicas' tokens. */
  function touchedAt(env, tokens, replicas) {  // replicas: whose tokens the group runs (a prompt: m_P), else ep / tp
    const cut = env.cut, moe = env.model.moe;
    const reps = replicas === undefined ? (cut.ep > cut.tp ? cut.ep / cut.tp : 1.0) : replicas;
    const group = reps !== 1 ? tokens * reps : tokens;
    return moe.experts * (1.0 - Math.pow(1.0 - moe.active_experts / moe.experts, group));
  }

  /** Whole-model parameters (N) and routed-expert parameters (N_x) read when ``tokens`` pick experts (Env.read). */
  function readAt(env, tokens, replicas) {
    const pc = env.pc, card = env.card;
    const touched = touchedAt(env, tokens, replicas);
    const read = pc.total - pc.experts_routed + pc.moe_layers * touched * pc.expert_size;
    const experts = pc.moe_layers * touched * pc.expert_size;
    if (env.accounting === "exact") return [read, experts];
    const spare = pc.total - pc.active;
    const idle = spare ? (read - pc.active) / spare : 0.0;
    const perRouted = spare ? (card.N - card.N_a) / spare : 0.0;
    return [card.N_a + (card.N - card.N_a) * idle, experts * perRouted];
  }

  /** Inputs where one weight load serves tk tokens (tables.per_load): tk = 1 is decode at batch 1, which streams
   * what one token reads (per-tensor precisions: the active weights' bytes); a pass over tk > 1 tokens reads all
   * but the input embedding. */
  function perLoad(env, tk, extra) {
    const x = Object.assign({}, extra || {}, {T: tk});
    return tk === 1 ? env.at(1, null, x) : env.at(null, null, x);
  }

  /** The N (the GPU's slice) and b that ``tokens`` tokens of an MoE read, set in ``e`` (Env._set_read): one
   * micro-batch of a decode step, or a whole prompt. */
  function setRead(e, env, tokens) {
    const cut = env.cut, nr = readAt(env, tokens);
    const head = cut.trivial ? 0.0 : GR_PARALLEL.stageHead(env.card, cut);  // the last stage's (Env._set_read)
    e.N = cut.trivial ? nr[0] : (nr[0] + cut.copies - head - nr[1] * cut.expertKeep) / cut.share;
    if (env.perClass) e.b = readB(env, nr[0], nr[1]);
  }

  /** ``reads``: c is what a decode step at the context reads (a chunked layer: S mod chunk), for a step's quantity
   * taken without a batch (env.READ_AT_CONTEXT: the intensity ceiling, the crossover batch); else, without a batch,
   * the cache a sequence holds. */
  function envAt(env, batch, context, extra, stream, reads) {
    const e = Object.assign({}, env.values);
    const m = env.model, cut = env.cut;
    if (context != null) {
      e.S = context;
      // the cache held (capacity); a decode step reads a chunked layer's S mod chunk tokens (env.Env.at)
      const timed = batch != null || reads;
      e.c = timed && chunkedLayers(m) ? kvBytesPerTokenAt(m, e.b_kv, context) : kvCacheBytesPerTokenAt(m, e.b_kv, context);
      // a step's time on the stages' share of global layers (Env.at; the capacity takes each stage's own memory)
      const share = timed ? env.share : null, staged = (x, full) => share === null ? x
        : GR_PARALLEL.atShare(m, share, x, full);
      e.c = staged(e.c, m.layers * kvElementsPerTokenLayer(m) * e.b_kv);
      if (!cut.trivial) e.c = e.c / (cut.split * cut.s_kv);
      if (localLayers(m) || chunkedLayers(m)) e.d_h = e.d_h * staged(attendedFraction(m, context), 1.0);
    }
    if (batch != null) {
      e.B = batch;
      const micro = cut.pp === 1 ? batch : batch / Math.min(cut.pp, batch);
      if (m.moe) {
        setRead(e, env, micro);
      } else if (env.perClass) {
        e.b = readB(env);
      }
      if (cut.pp > 1) {  // each micro-batch streams the slice again: the bound's m_b where known, else min(n_PP, B)
        const mb = env.schedule && context != null ? env.schedule(batch, context) : Math.min(cut.pp, batch);
        e.N = e.N * mb;
        e.N_e = e.N_e * mb;
      }
    } else if (stream != null && stream !== 1) {
      e.N = e.N * stream;
      e.N_e = e.N_e * stream;
    }
    if (batch == null && extra && "T" in extra && m.moe) {  // a pass over T tokens: the experts they touch
      setRead(e, env, extra.T);
    } else if (batch == null && extra && "T" in extra && env.perClass) {
      e.b = readB(env);  // a pass: all but N_e
    }
    Object.assign(e, extra || {});
    if (extra && "T" in extra && context == null && !("d_h" in extra)) e.d_h = prefillHeadDim(m, e.d_h, e.T, env.share);
    return e;
  }

  /** d_h of a pass over a whole prompt of t tokens (env.prefill_head_dim): MLA in its cheaper, decompressed form;
   * other attention times the share of the causal attention windowed and chunked layers compute. */
  function prefillHeadDim(m, dH, t, share, cached) {  // share: the stages' share of global layers (null: the model's own)
    const a = m.attention;  // cached: the positions a prefix cache holds before the t (env.prefill_head_dim)
    if (a.kind === "mla") return Math.min(headDimForFlops(m), (a.qk_nope_head_dim + a.qk_rope_head_dim + a.v_head_dim) / 2.0);
    if (!localLayers(m) && !chunkedLayers(m)) return dH;
    const g = prefillAttendedFractionAfter(m, t, cached || 0.0);
    return dH * (share === null || share === undefined ? g : GR_PARALLEL.atShare(m, share, g, 1.0));
  }

  function call(qid, env) {
    const q = GR_Q[qid];
    // the page's copy of formulas.js leaves out the argument names that are the function's parameters (live.py)
    if (!q.a.length && q.f.length) q.a = String(q.f).slice(1, String(q.f).indexOf(")")).split(",");
    return q.f.apply(null, q.a.map(function (k) { return env[k]; }));
  }

  // the counts of what fits beside the weights: a negative one is none, with why (values.CAPACITIES)
  const CAPACITIES = {
    kv_capacity_tokens: NO_FIT, capacity_batch: NO_FIT, kv_capacity_tokens_exact: NO_FIT,
    kv_capacity_tokens_replica: NO_FIT, capacity_batch_replica: NO_FIT,
    capacity_batch_draft: "the weights and the draft's alone exceed the memory capacity, so no KV cache fits",
    prefix_capacity_batch: "the weights (and the draft's, and the shared prefix) exceed the memory capacity, so no "
      + "sequence fits",
  };

  // ------------------------------------------------------------------------------------ physical values
  /** [value, reason]: the stated value from a formula's raw output (model/values.physical). */
  function physical(qid, raw, integer) {
    if (raw === null || raw === undefined || typeof raw !== "number") return [null, "not a number"];
    const x = raw;
    // no capacity-limited batch: NaN, or the closed form's negative batch's intensity (values.NO_CAPACITY_BATCH)
    if (qid === "intensity_at_capacity" && !(x > 0)) {
      return [null, "not one sequence of this context fits beside the weights: no batch is capacity-limited"];
    }
    if (Number.isNaN(x)) return [null, "undefined at these inputs"];
    if (Object.prototype.hasOwnProperty.call(CAPACITIES, qid)) {  // a count of what fits (values.CAPACITIES)
      if (x < 0) return [null, CAPACITIES[qid]];
      return Number.isFinite(x) ? [x, ""] : [null, "unbounded"];
    }
    if (qid === "crossover_batch" || qid === "gemm_crossover_tokens") {
      if (!Number.isFinite(x) || x <= 0) {
        return [null, qid === "crossover_batch" ? "no batch crosses the ridge: the intensity ceiling stays below it"
          : "the intensity never reaches the ridge"];
      }
      return [x, ""];
    }
    if (qid === "critical_context") {
      if (!Number.isFinite(x) || x <= 0) {
        return [null, "the decode ceiling never falls below the ridge: every context can cross it"];
      }
      return [x, ""];
    }
    if (!Number.isFinite(x)) return [null, "infinite at these inputs"];
    if (integer === "round" && x <= 0) return [null, "no positive root"];
    return [x, ""];
  }

  function clean(x) { return Number.isFinite(x) ? x : null; }
  function root(x) { return Number.isFinite(x) && x > 0 ? x : null; }

  /** S*, and whether it is a numeric root past a sliding window (evaluate.critical_context). */
  function criticalContext(env) {
    const closed = root(call("critical_context", env.at()));
    const m = env.model;
    if (closed === null || !localLayers(m) || closed <= m.attention.sliding_window) return [closed, false];
    const ridge = env.values.P / env.values.W;
    const excess = function (s) { return call("decode_intensity_ceiling", env.at(null, s, null, null, true)) - ridge; };
    let lo = m.attention.sliding_window, hi = 1e15;
    if (excess(hi) >= 0) return [null, true];
    for (let i = 0; i < 200; i++) {  // log-space bisection: excess(lo) > 0 >= excess(hi)
      const mid = Math.sqrt(lo * hi);
      if (mid === lo || mid === hi) break;
      if (excess(mid) > 0) lo = mid; else hi = mid;
    }
    return [hi, true];
  }

  function criticalReason(sc, m) {
    if (sc.attention_intensity !== null && sc.ridge_point !== null && sc.attention_intensity < sc.ridge_point) {
      const w = m.attention.sliding_window || 0;
      return "every layer attends to at most " + w.toLocaleString("en-US") + " positions, so the decode ceiling "
        + "levels off above the ridge: every context can cross it with a large enough batch";
    }
    return "the attention intensity is at or above the ridge, so every context can cross it with a large enough batch";
  }

  /** The format a training step's GEMMs run in (recipes.training_compute): bf16, else the spec's compute format. */
  function trainingCompute(inp, t) {
    const f = t.training_compute;
    return Object.prototype.hasOwnProperty.call(inp.hardware.dense, f) ? f : inp.precision.compute;
  }

  // ------------------------------------------------------------------------------------ entries
  /** The key of an entry: its id (with _exact for the exact accounting) and its parameters, sorted. */
  function key(id, params) {
    return id + "|" + Object.keys(params).sort().map(function (k) { return k + "=" + params[k]; }).join(",");
  }

  /** {b} of a default matrix where the weights' formats differ by class (tables.gemm_class_bytes): the attention
   * projection at the attention class's bytes, the FFN matrix at the experts' where it is one expert wide, else the
   * default class's; {} (the mean b) for one format or a matrix the spec names. */
  function gemmClassBytes(inp, t, name) {
    const cls = gemmClass(inp, name);
    return cls === null ? {} : {b: formatBytes(formatOf(inp.precision, cls), inp.precision.group_size, t)};
  }

  /** The tensor class of a default matrix where the formats differ by class (tables.gemm_class), else null. */
  function gemmClass(inp, name) {
    const p = inp.precision, m = inp.model;
    const forms = ["experts", "attention", "embeddings", "default"].map(c => formatOf(p, c));
    if (!m || forms.every(f => f === forms[0])) return null;
    return name === "attention projection (d x d)" ? "attention" : name === "FFN matrix (d x d_ff)"
      ? (m.moe && m.ffn_size === m.moe.expert_ffn_size ? "experts" : "default") : null;
  }
  const CLASS_MATRIX = {attention: "attention projection", experts: "expert's matrix", default: "FFN matrix"};

  function defaultGemms(inp) {
    if (inp.gemms && inp.gemms.length) return inp.gemms;
    const m = inp.model;
    return [["attention projection (d x d)", m.hidden_size, m.hidden_size],
      ["FFN matrix (d x d_ff)", m.hidden_size, m.ffn_size]];
  }

  function sortedUnique(xs) {
    return Array.from(new Set(xs)).sort(function (a, b) { return a - b; });
  }

  /** Every stated number of the report for ``inp``: entries by key, the verdicts and the per-accounting scalars. */
  function evaluate(inp, t) {
    const w = inp.workloads;
    const lead = inp.accounting || "seed";
    const envs = {seed: makeEnv(inp, t, "seed"), exact: makeEnv(inp, t, "exact")};
    const entries = new Map();
    const scalars = {}, perContext = {}, decode = {}, prefill = {}, oneCard = {};

    function add(qid, params, value, acc, suffix, reason) {
      const meta = t.meta[qid] || ["", ""];
      const st = physical(qid, value, meta[1]);
      const id = qid + (suffix || "");
      const k = key(id, params);
      if (entries.has(k)) return;
      const e = {id: id, params: params, value: st[0], unit: meta[0], accounting: acc};
      const why = reason || st[1];
      if (st[0] === null && why) e.reason = why;
      entries.set(k, e);
    }

    ACCOUNTINGS.forEach(function (acc) {
      const env = envs[acc];
      const base = env.at(), heldBase = env.held();  // the memory's scalars on the binding stage (evaluate.HELD)
      const sc = {}, why = {};
      SCALARS.forEach(function (qid) {
        const st = physical(qid, call(qid, HELD.indexOf(qid) >= 0 ? heldBase : base), (t.meta[qid] || ["", ""])[1]);
        sc[qid] = st[0];
        why[qid] = st[1];
      });
      sc.kv_bytes_per_token = clean(heldBase.c);
      why.kv_bytes_per_token = "";
      const one = env.at(1.0, null);
      sc.weight_stream_time = clean(call("weight_stream_time", one));
      sc.weight_flops_time = clean(call("weight_flops_time", one));
      const cc = criticalContext(env);
      sc.critical_context = cc[0];
      sc.numeric_critical_context = cc[1];
      scalars[acc] = sc;
      const suffix = acc === "seed" ? "" : "_exact";
      // (a room, never negative: none where one card's workspace takes all the reserve leaves, _whole_on_one_card)
      if (!env.cut.trivial) oneCard[acc] = GR_PARALLEL.oneCard(env, sc, Math.max(usable(inp.hardware, inp.model, null), 0.0));  // the whole model on one card
      ["peak_flops", "bandwidth", "capacity", "ridge_point", "parameters", "weight_bytes", "kv_bytes_per_token",
        "kv_capacity_tokens", "attention_intensity", "training_flops_per_token", "weight_stream_time",
        "weight_flops_time", "critical_context"].forEach(function (qid) {
        if (acc === "exact" && ["peak_flops", "bandwidth", "capacity", "ridge_point"].indexOf(qid) >= 0) return;
        let reason = why[qid] || "";
        if (sc[qid] === null && qid === "critical_context") reason = criticalReason(sc, inp.model);
        add(qid, {}, sc[qid], acc, suffix, reason);
      });
      Object.keys(oneCard[acc] || {}).sort().forEach(function (qid) {
        const x = oneCard[acc][qid];
        add(qid, {}, x, acc, "_one_card" + suffix, x === null ? NO_FIT : "");
      });
      const per = {decode_intensity_ceiling: [], crossover_batch: [], capacity_batch: [], capacity_batch_raw: [],
        intensity_at_capacity: [], capacity_at_context: []};
      w.decode_context.forEach(function (s) {
        const e = env.held(s), read = env.at(null, s, null, null, true);
        per.capacity_at_context.push(e.C);  // the memory of the GPU whose stage binds at s (evaluate: capacity_at_context)
        per.decode_intensity_ceiling.push(call("decode_intensity_ceiling", read));
        // a full pipeline streams each GPU's slice once per stage's micro-batch
        per.crossover_batch.push(call("crossover_batch", env.cut.pp > 1 ? env.at(null, s, null, env.cut.pp, true) : read));
        const raw = call("capacity_batch", e);
        const cap = Math.max(raw, 0);
        per.capacity_batch_raw.push(raw);
        per.capacity_batch.push(cap);
        per.intensity_at_capacity.push(cap >= 1 ? call("decode_intensity", env.at(Math.max(cap, 1), s)) : NaN);
      });
      perContext[acc] = per;
      ["decode_intensity_ceiling", "crossover_batch", "capacity_batch", "intensity_at_capacity"].forEach(function (qid) {
        const arr = qid === "capacity_batch" ? per.capacity_batch_raw : per[qid];
        w.decode_context.forEach(function (s, j) { add(qid, {context: s}, arr[j], acc, suffix); });
      });
      if (acc === "seed") {  // the capacity's C at each context, stated once as the scalar is
        w.decode_context.forEach(function (s, j) { add("capacity", {context: s}, per.capacity_at_context[j], acc, "_at_context"); });
      }
      const grid = {};
      DECODE.forEach(function (qid) { grid[qid] = []; });
      w.decode_batch.forEach(function (b) {
        const rows = {};
        DECODE.forEach(function (qid) { rows[qid] = []; });
        w.decode_context.forEach(function (s) {
          const e = env.at(b, s);
          DECODE.forEach(function (qid) { rows[qid].push(call(qid, e)); });
        });
        DECODE.forEach(function (qid) { grid[qid].push(rows[qid]); });
      });
      if (w.decode_batch.length && w.decode_context.length) {
        decode[acc] = grid;
        DECODE.forEach(function (qid) {
          w.decode_batch.forEach(function (b, i) {
            w.decode_context.forEach(function (s, j) { add(qid, {batch: b, context: s}, grid[qid][i][j], acc, suffix); });
          });
        });
      }
      if (w.prefill_prompt.length) {
        const pre = {};
        PREFILL.forEach(function (qid) {
          pre[qid] = w.prefill_prompt.map(function (tk) { return call(qid, env.at(null, null, {T: tk})); });
        });
        prefill[acc] = pre;
        PREFILL.forEach(function (qid) {
          w.prefill_prompt.forEach(function (tk, i) { add(qid, {tokens: tk}, pre[qid][i], acc, suffix); });
        });
      }
    });

    const seed = envs.seed;
    const tokens = sortedUnique([1].concat(w.prefill_prompt, w.training_tokens ? [w.training_tokens] : []));
    const gemm = [];
    defaultGemms(inp).forEach(function (g) {
      const own = gemmClassBytes(inp, t, g[0]), cls = gemmClass(inp, g[0]), nm = Object.assign({n: g[1], m: g[2]}, own);
      const e = seed.at(null, null, nm);
      // a matrix of an earlier one's shape is told apart by its bytes (tables.gemms' key)
      const twin = gemm.some(r => r.n === g[1] && r.m === g[2] && r.b !== e.b);
      gemm.push({name: g[0], n: g[1], m: g[2], b: e.b, key: Object.assign({n: g[1], m: g[2]}, twin ? {b: e.b} : {}),
        format: cls === null ? null : formatOf(inp.precision, cls), matrix: cls === null ? null : CLASS_MATRIX[cls],
        // 2T/b at the matrix's own bytes (tables.gemms' weight_reuse_own)
        weight_reuse_own: tokens.map(function (tk) { return call("weight_reuse_intensity", perLoad(seed, tk, own)); }),
        saturation: clean(call("gemm_saturation", e)),
        crossover: physical("gemm_crossover_tokens", call("gemm_crossover_tokens", e))[0], tokens: tokens,
        intensity: tokens.map(function (tk) { return call("gemm_intensity", perLoad(seed, tk, nm)); })});
    });
    gemm.forEach(function (g) {
      g.tokens.forEach(function (tk, i) { add("gemm_intensity", Object.assign({tokens: tk}, g.key), g.intensity[i], "seed"); });
      add("gemm_saturation", g.key, g.saturation, "seed");
      add("gemm_crossover_tokens", g.key, g.crossover, "seed");
    });
    tokens.forEach(function (tk) {
      add("weight_reuse_intensity", {tokens: tk}, call("weight_reuse_intensity", perLoad(seed, tk)), "seed");
    });
    if (w.training_tokens) {
      // the recipes' GEMMs at the bf16 peak (recipes.TRAINING_COMPUTE; the spec's format where the GPU has none)
      const e = seed.at(null, null, {T: w.training_tokens, P: inp.hardware.dense[trainingCompute(inp, t)]});
      add("training_step_time_compute", {tokens: w.training_tokens}, call("training_step_time_compute", e), "seed");
      add("training_weight_reuse_intensity", {tokens: w.training_tokens},  // the recipes' bf16 weights
        call("training_weight_reuse_intensity", seed.at(null, null, {T: w.training_tokens, b: t.training_weight_bytes})),
        "seed");
    }
    // the whole model's state against what one card keeps for it: its own workspace at tp 1 (evaluate._whole_on_one_card)
    const capOne = seed.cut.trivial ? seed.values.C : usable(inp.hardware, inp.model, null);
    const training = w.recipes.map(function (recipe) {
      const k = t.recipes[recipe];
      const total = call("training_state_bytes", seed.oneCard().at(null, null, {k: k}));  // the whole model
      return {recipe: recipe, bytes_per_param: k, total: total, fits: total <= capOne,
        cards_needed: Math.ceil(total / capOne)};
    });
    training.forEach(function (tr) { add("training_state_bytes", {recipe: tr.recipe}, tr.total, "seed"); });

    const res = {entries: entries, scalars: scalars, perContext: perContext, decode: decode, prefill: prefill,
      gemm: gemm, training: training, verdicts: null, envs: envs, lead: lead, parallel: null, oneCard: oneCard};
    if (inp.parallelism && typeof GR_PARALLEL !== "undefined") {  // many GPUs: the layout's values (parallel.js)
      res.parallel = GR_PARALLEL.evaluate(res, inp, t);
      res.parallel.entries.forEach(function (e) { entries.set(key(e.id, e.params), e); });
      GR_PARALLEL.replicaRates(res, w, add);
    }
    res.verdicts = verdictsOf(lead, scalars, perContext, decode, prefill, w, envs, training, res, t, inp);
    return res;
  }

  function verdictsOf(lead, scalars, perContext, decode, prefill, w, envs, training, res, t, inp) {
    const sc = scalars[lead];
    const par = res.parallel;
    const v = {weights_fit: sc.weight_bytes <= sc.capacity};  // one GPU's share of the weights
    if (res.oneCard[lead]) v.weights_fit_one_card = res.oneCard[lead].weight_bytes <= res.oneCard[lead].capacity;
    if (decode[lead]) {
      const g = decode[lead], cap = perContext[lead].capacity_batch;
      v.decode_binds = w.decode_batch.map(function (b, i) {
        return w.decode_context.map(function (s, j) {
          if (b > cap[j]) return "capacity";
          if (par && par.binds) return par.binds[i][j];
          return g.decode_time_memory[i][j] >= g.decode_time_compute[i][j] ? "bandwidth" : "compute";
        });
      });
    }
    if (prefill[lead]) {
      const p = prefill[lead], lp = par && par.prefill[lead] ? par.prefill[lead] : null;
      const comm = lp ? lp.prefill_time_comm : null;
      // at a layout its ledgers of a GPU of the prompt's replica (the routed experts over the expert group: evaluate.py)
      const tcs = lp ? lp.prefill_time_compute_gpu : p.prefill_time_compute, tms = lp ? lp.prefill_time_memory_gpu
        : p.prefill_time_memory;
      v.prefill_binds = tcs.map(function (tc, i) {
        if (comm && comm[i] > Math.max(tc, tms[i])) return "interconnect";
        return tc >= tms[i] ? "compute" : "bandwidth";
      });
      // one sequence of the prompt beside the weights: the replica's capacity at a layout, the card's on one
      // (evaluate.prompt_fits)
      v.prefill_fits = w.prefill_prompt.map(function (tk) {
        const cap = par ? GR_PARALLEL.promptCapacity(inp, t, lead, tk) : call("capacity_batch", envs[lead].held(tk));
        return cap >= 1;
      });
    }
    if (training.length) {
      v.training_intensity = call("training_weight_reuse_intensity",
        envs[lead].at(null, null, {T: w.training_tokens, b: t.training_weight_bytes}));
      v.training_compute = trainingCompute(inp, t);  // the recipes' bf16 GEMMs: their ridge (evaluate._verdicts)
      v.training_ridge = inp.hardware.dense[v.training_compute] / envs[lead].values.W;
      v.training_binds = v.training_intensity >= v.training_ridge ? "compute" : "bandwidth";
    }
    return v;
  }

  // ------------------------------------------------------------------------------------ levers, page 1
  function withPrecision(inp, precision) { return Object.assign({}, inp, {precision: precision}); }

  /** The batch-1 step bound, weights only (shown._bound_at_batch1). */
  function boundAtBatch1(inp, t, lead, scaleW, scaleP) {
    const e = makeEnv(inp, t, lead).at(1.0, null);
    e.W = e.W * (scaleW || 1.0);
    e.P = e.P * (scaleP || 1.0);
    return Math.max(call("weight_stream_time", e), call("weight_flops_time", e));
  }

  /** The ledger that holds a round (shown._held_by): compute before HBM before the links at a tie. */
  function heldBy(l) {
    return ["compute", "bandwidth", "interconnect"].reduce((a, k) => l[k] > l[a] ? k : a);
  }

  /** What would change it: each lever's before and after (shown.levers); at a layout the time levers are the
   * replica's batch-1 round with no KV cache (shown._round_at_batch1). */
  function levers(res, inp, t) {
    const lead = res.lead, p = inp.precision, m = inp.model, hw = inp.hardware;
    const ridge = res.scalars[lead].ridge_point;
    const rows = [];
    const atLayout = !!res.parallel;
    // [the batch-1 bound with a lever's change, the ledger that holds it ("" on one card: no links)]
    const timed = function (i, scaleW, scaleP) {
      if (atLayout) {
        const l = GR_PARALLEL.roundLedgers(i, t, lead, 1.0, 0.0, null, scaleW || 1.0, scaleP || 1.0);
        return [l.bound, heldBy(l)];
      }
      return [boundAtBatch1(i, t, lead, scaleW, scaleP), ""];
    };
    const linksNote = function (note, gain, held) {
      if (held !== "interconnect") return note;
      return gain <= 1 + 1e-9 ? "no gain while the links hold the batch-1 round"
        : "the links hold the batch-1 round after it: the gain stops there";
    };
    const first = timed(inp), b0 = first[0], held0 = first[1];
    ["int8", "int4"].forEach(function (f) {
      if (t.precision_bytes[f] >= weightBytes(p, t, m)) return;
      const prec = {weights: f, kv_cache: p.kv_cache, compute: p.compute, group_size: f === "int4" ? 128 : null};
      const x = timed(withPrecision(inp, prec)), after = x[0];
      rows.push({lever: "weights-" + f, change: "weights " + f + (f === "int4" ? " (group 128)" : ""),
        what: "fewer bytes per step", kind: "time", before: b0, after: after, gain: b0 / after,
        note: linksNote("ideal: KV and activation traffic are unchanged and dequantization costs time, so the real gain is smaller",
          b0 / after, x[1])});
    });
    if ("fp8" in hw.dense && p.compute !== "fp8" && hw.dense.fp8 > res.scalars[lead].peak_flops) {  // only where fp8 raises the roof
      const r8 = hw.dense.fp8 / hw.bandwidth;
      rows.push({lever: "compute-fp8", change: "FP8 compute", what: "higher compute roof", kind: "ridge",
        before: ridge, after: r8, gain: r8 / ridge,
        note: "operand bytes halve too, so the weight-reuse intensity 2B/b doubles with the ridge: the relative position barely moves"});
    }
    const w = inp.workloads;
    if ((m.attention.kind === "gqa" || m.attention.kind === "mha") && m.kv_heads > 1 && w.decode_context.length) {
      const s = w.decode_context[w.decode_context.length - 1];
      sortedUnique([1, Math.max(1, Math.floor(m.kv_heads / 2))]).forEach(function (kv) {
        if (kv >= m.kv_heads) return;
        const m2 = Object.assign({}, m, {kv_heads: kv,
          attention: Object.assign({}, m.attention, {kind: kv === 1 ? "mqa" : "gqa"})});
        const c1 = call("decode_intensity_ceiling", makeEnv(inp, t, lead).at(null, s, null, null, true));
        const c2 = call("decode_intensity_ceiling",
          makeEnv(Object.assign({}, inp, {model: m2}), t, lead).at(null, s, null, null, true));
        const fits = res.scalars[lead].kv_capacity_tokens !== null;
        rows.push({lever: "kv-heads-" + kv,
          change: (kv === 1 ? "MQA" : "GQA-" + kv) + " instead of " + m.kv_heads + " KV heads",
          what: "fewer KV bytes per token", kind: "ceiling", context: s, before: c1, after: c2, gain: c2 / c1,
          note: Math.abs(c2 - c1) <= 1e-12 * Math.abs(c1)
            ? "each tensor-parallel GPU keeps a whole KV head: none holds or reads less (accuracy cost not modelled)"
            : fits ? "also frees capacity: more sequences fit (accuracy cost not modelled)"
            : "the KV cache does not fit beside the weights in either case (accuracy cost not modelled)"});
      });
    }
    let x = timed(inp, 1.5, 1.0), after = x[0];
    rows.push({lever: "bandwidth-1.5", change: "bandwidth ×1.5", what: "faster memory", kind: "time", before: b0,
      after: after, gain: b0 / after, note: linksNote("the batch-1 bound follows bandwidth one for one", b0 / after, x[1])});
    x = timed(inp, 1.0, 2.0); after = x[0];
    rows.push({lever: "peak-2", change: "peak compute ×2", what: "faster arithmetic", kind: "time", before: b0,
      after: after, gain: b0 / after, note: after < b0 ? "" : held0 === "interconnect"
        ? "no gain while the links hold the batch-1 round" : "no gain while decode is bandwidth-bound"});
    return rows;
  }

  /** Ways to make the weights fit when they do not (decision.fit_options). The smallest many-GPU layout (for a
   * GPU with a link, when the spec's layout does not hold the weights) needs the layout search, which runs only
   * in Python: that option is left out here and the page says so. */
  function fitOptions(res, inp, t) {
    const sc = res.scalars[res.lead], p = inp.precision;
    const cap = sc.capacity, weights = sc.weight_bytes;
    if (weights <= cap) return [];
    const out = [];
    ["fp8", "int8", "int4"].forEach(function (f) {
      if (t.precision_bytes[f] >= weightBytes(p, t, inp.model)) return;
      let prec = {weights: f, kv_cache: p.kv_cache, compute: f !== "fp8" ? p.compute : "fp8",
        group_size: f === "int4" ? 128 : null}, label = (f === "int4" ? "group-128 " : "") + f + " weights";
      const hw = inp.hardware;
      if (!(prec.compute in hw.dense)) {  // fp8 without an fp8 peak: weight-only in bf16 on NVIDIA's (spec.weight_only_fp8)
        if (f !== "fp8" || hw.vendor !== "NVIDIA" || !("bf16" in hw.dense)) return;
        prec = Object.assign({}, prec, {compute: "bf16"});
        label = "fp8 weights computed in bf16";
      }
      // the binding stage's weights, as the capacity is its room (decision.fit_options: Env.held)
      const wb = call("weight_bytes", makeEnv(withPrecision(inp, prec), t, res.lead).held());
      out.push({kind: "precision", label: label, weight_bytes: wb, capacity: cap, fits: wb < cap, gpus: 1});
    });
    // at a layout the whole model on one card: its weights and the room one card alone keeps for them
    const whole = inp.parallelism && res.oneCard && res.oneCard[res.lead] ? res.oneCard[res.lead] : null;
    const search = inp.hardware.link && inp.workloads.decode_context.length && !res.verdicts.weights_fit;
    if (!search && cap > 0) {  // no layout search: an even split of the weights, with one sequence of the first
      // context; at a layout the whole model's weights over one card's room (decision.fit_options)
      const wAll = whole ? whole.weight_bytes : weights, room = whole ? whole.capacity : cap;
      const c = sc.kv_bytes_per_token || 0.0;
      const s0 = inp.workloads.decode_context.length ? inp.workloads.decode_context[0] : 0;
      const n = room > 0 ? Math.ceil((wAll + (whole ? 0.0 : c * s0)) / room) : 0;
      if (n > 0) {
        out.push({kind: "gpus", label: n + " × " + inp.hardware.title, weight_bytes: wAll / n, capacity: room,
          fits: true, gpus: n, time: null, tokens_per_s_gpu: null});
      }
    }
    // a larger card: the whole model on one, in what it keeps beside the spec's engine reserve and step (as the
    // compare table); at a layout the whole model's weights (decision.fit_options)
    const wCard = whole ? whole.weight_bytes : weights;
    inp.compare_hardware.forEach(function (h) {
      const room = usable(h, inp.model, null);
      if (wCard < room) {
        out.push({kind: "card", label: h.title, weight_bytes: wCard, capacity: room, fits: true, gpus: 1});
      }
    });
    return out;
  }

  function usdPerMtok(price, tps) { return !price || !tps ? null : price / (tps * 3600.0) * 1e6; }

  /** decision._next: the name of the second largest ledger (the first in key order on a tie). */
  function nextLedger(l) {
    const keys = Object.keys(l), top = (a, k) => (l[k] > l[a] ? k : a), first = keys.reduce(top);
    return keys.filter(k => k !== first).reduce(top);
  }

  function picks(batch, capacity, nContexts) {
    const out = [[0, 0]];
    for (let j = 0; j < nContexts; j++) {
      const fitting = [];
      batch.forEach(function (b, i) { if (b <= capacity[j]) fitting.push(i); });
      const i = fitting.length ? fitting[fitting.length - 1] : batch.length - 1;
      if (!out.some(function (x) { return x[0] === i && x[1] === j; })) out.push([i, j]);
    }
    return out;
  }

  const ROW_KEYS = ["batch", "context", "tokens", "capacity_batch", "ms_per_token", "ms_to_first_token",
    "tokens_per_s_sequence", "usd_per_mtok", "state_bytes", "cards_needed", "serial", "comm", "comm_est", "tokens_per_s_gpu",
    "estimate_binds", "overhead", "pass"];

  /** The training micro-batch's bound (decision.rows' training row): the larger of its two ledgers, the FLOPs over
   * the peak or, below the ridge, the weights' traffic over the bandwidth (the FLOPs' time over I / ridge); null
   * without a training step. Page 1's row and chapter 5's sentence (prose.training_lines) both read it. */
  function trainingBound(res, inp) {
    const found = res.training.length
      ? res.entries.get(key("training_step_time_compute", {tokens: inp.workloads.training_tokens})) : null;
    const step = found ? found.value : null;
    const ratio = res.verdicts.training_intensity / res.verdicts.training_ridge;
    return step && ratio > 0 && (res.verdicts.training_binds || "compute") !== "compute" ? step / ratio : step;
  }

  /** Page 1's training row at a layout (decision.layout_training): the recipes' and ZeRO stages' state per GPU against
   * what a GPU keeps, the step at least its gradient exchange, that of the configuration that fits and exchanges least. */
  function layoutTraining(res, inp, bound, usable) {
    const vals = new Map(res.parallel.training.map(x => [x[0] + "|" + x[1].recipe, x[2]]));
    const configs = [];
    inp.workloads.recipes.forEach(rec => [0, 1, 2, 3].forEach(k => {
      const v = vals.get("training_state_per_gpu_zero" + k + "|" + rec);
      if (v !== null && v !== undefined) configs.push([rec, k, v]);
    }));
    if (!configs.length) return {};
    const comm = c => {
      const v = vals.get((c[1] === 3 ? "training_zero3_comm_time" : "training_grad_comm_time") + "|" + c[0]);
      return v !== null && v !== undefined ? v : 0.0;
    };
    const fitting = configs.filter(c => c[2] <= usable), pool = fitting.length ? fitting : configs;
    const chosen = pool.reduce((a, c) => (comm(c) < comm(a) || (comm(c) === comm(a) && c[2] < a[2]) ? c : a));
    const exchange = comm(chosen), time = Math.max(bound || 0.0, exchange) || bound;
    const out = {fits: fitting.length > 0, state_bytes: fitting.length ? chosen[2] : Math.min.apply(null, configs.map(c => c[2])),
      cards_needed: null, zero: chosen[1], recipe: chosen[0], comm: exchange, time: time};
    // the time is the exchange's, fitting or not: its roof and the other roof say so (decision.layout_training)
    if (bound !== null && exchange > bound) {
      Object.assign(out, {roof: "interconnect", other_roof: exchange / bound, other: res.verdicts.training_binds || "compute"});
    }
    if (!fitting.length) out.binds = "capacity";
    else if (bound !== null && exchange > bound) out.binds = "interconnect";
    else if (bound) out.binds = res.verdicts.training_binds || "compute";
    return out;
  }

  /** Page 1: one row per workload (decision.rows), for a single card. */
  function decisionRows(res, inp, t, lv, price) {
    const lead = res.lead, sc = res.scalars[lead], w = inp.workloads;
    const par = res.parallel;
    const fitsWeights = sc.weight_bytes <= sc.capacity;  // one GPU's share of the weights at the layout
    const out = [];
    if (par && par.decode[lead]) {
      GR_PARALLEL.decodeRows(res, inp, price).forEach(function (row) { out.push(row); });
    } else if (res.decode[lead]) {
      const g = res.decode[lead], per = res.perContext[lead];
      picks(w.decode_batch, per.capacity_batch, w.decode_context.length).forEach(function (ij) {
        const i = ij[0], j = ij[1], b = w.decode_batch[i], s = w.decode_context[j];
        const tMem = g.decode_time_memory[i][j], tComp = g.decode_time_compute[i][j];
        const time = Math.max(tMem, tComp);
        const fits = fitsWeights && b <= per.capacity_batch[j];
        const roof = tMem >= tComp ? "bandwidth" : "compute";
        const tps = b / time;
        out.push({workload: "decode", label: "decode B = " + b.toLocaleString("en-US") + ", S = "
          + s.toLocaleString("en-US"), batch: b, context: s, binds: fits ? roof : "capacity", roof: roof, time: time,
          other_roof: Math.min(tMem, tComp) > 0 ? Math.max(tMem, tComp) / Math.min(tMem, tComp) : null,
          other: tMem >= tComp ? "compute" : "bandwidth", fits: fits,
          capacity_batch: physical("capacity_batch", per.capacity_batch_raw[j])[0], ms_per_token: time * 1e3,
          tokens_per_s_sequence: 1 / time, tokens_per_s: tps, usd_per_mtok: fits ? usdPerMtok(price, tps) : null});
      });
    }
    if (res.prefill[lead]) {
      const p = res.prefill[lead], stages = par ? par.stages : 1;
      w.prefill_prompt.forEach(function (tk, i) {
        let tc = p.prefill_time_compute[i], tm = p.prefill_time_memory[i], time = Math.max(tc, tm), busy = time;
        let named = {compute: tc, bandwidth: tm};
        if (par && par.prefill[lead]) {  // over one GPU's ledgers, its links included (decision.py)
          const lp = par.prefill[lead];
          time = lp.prefill_time_bound[i];
          busy = lp.prefill_occupancy_bound[i];  // every replica of a wider expert group prefilling
          named = {compute: lp.prefill_time_compute_gpu[i], bandwidth: lp.prefill_time_memory_gpu[i],
            interconnect: lp.prefill_time_comm[i]};
        }
        const ledgers = Object.values(named);
        const roof = res.verdicts.prefill_binds[i], second = ledgers.slice().sort((x, y) => x - y)[ledgers.length - 2];
        const fits = fitsWeights && res.verdicts.prefill_fits[i];  // and the prompt's KV cache beside them
        out.push({workload: "prefill", label: "prefill P = " + tk.toLocaleString("en-US"), tokens: tk,
          binds: fits ? roof : "capacity", roof: roof, time: time,
          other_roof: second > 0 ? Math.max.apply(null, ledgers) / second : null, other: nextLedger(named), fits: fits,
          ms_to_first_token: time * 1e3, tokens_per_s: tk * stages / busy,  // pp stages admit a prompt every 1/pp
          // a prompt passed whole, stage after stage (decision.py's pass)
          pass: par && stages > 1 && (inp.parallelism.ep || 1) <= inp.parallelism.tp ? busy : null,
          usd_per_mtok: fits ? usdPerMtok(price && par ? price * par.replica_gpus : price, tk * stages / busy) : null});
      });
    }
    if (res.training.length) {
      const tk = w.training_tokens;
      const step = res.entries.get(key("training_step_time_compute", {tokens: tk})).value;
      const fits = res.training.some(function (tr) { return tr.fits; });
      const lean = res.training.reduce(function (a, b) { return b.total < a.total ? b : a; });
      // the larger of the step's two ledgers, its FLOPs over the peak and its weights over the bandwidth (decision.rows)
      const ratio = res.verdicts.training_intensity / res.verdicts.training_ridge, roof = res.verdicts.training_binds;
      const bound = trainingBound(res, inp);
      const row = {workload: "training", label: "training T = " + tk.toLocaleString("en-US"), tokens: tk,
        binds: fits ? roof : "capacity", roof: roof, time: bound,
        other_roof: step && ratio > 0 ? (roof === "compute" ? ratio : 1 / ratio) : null,
        other: roof === "bandwidth" ? "compute" : "bandwidth", fits: fits,
        state_bytes: lean.total, cards_needed: lean.cards_needed, tokens_per_s: bound ? tk / bound : null};
      if (par && par.training && par.training.length) {  // one GPU's state and exchange at the layout (decision.layout_training)
        Object.assign(row, layoutTraining(res, inp, bound, sc.capacity));
        row.tokens_per_s = row.time ? tk / row.time : null;
      }
      out.push(row);
    }
    const fo = fitOptions(res, inp, t);
    const maxSeq = inp.hardware.max_sequences || 0;
    out.forEach(function (row) {
      ROW_KEYS.forEach(function (k) { if (!(k in row)) row[k] = null; });
      // a decode batch past the engine's max_sequences, which runs only that many at once (decision.rows)
      row.engine_runs = row.workload === "decode" && row.fits && maxSeq > 0 && maxSeq < row.batch ? maxSeq : null;
      row.lever = bestLever(res, inp, t, row, lv, fo);
    });
    return out;
  }

  /** [precision, bandwidth scale] of a decode lever (decision._lever_change). */
  function leverChange(inp, key) {
    const p = inp.precision;
    if (key === "weights-int4") return [{weights: "int4", kv_cache: p.kv_cache, compute: p.compute, group_size: 128}, 1.0];
    if (key === "weights-int8") return [{weights: "int8", kv_cache: p.kv_cache, compute: p.compute, group_size: null}, 1.0];
    return [null, 1.5];
  }

  /** One card's decode step bound at (batch, context) (decision._decode_bound). */
  function decodeBound(inp, t, lead, batch, context, scaleW) {
    const e = makeEnv(inp, t, lead).at(batch, context);
    e.W = e.W * scaleW;
    return Math.max(call("decode_time_memory", e), call("decode_time_compute", e));
  }

  function bestLever(res, inp, t, row, lv, fo) {
    if (!row.fits) {
      const opts = fo.filter(function (o) { return o.fits; });
      if (row.workload === "training" && inp.workloads.recipes.length) {
        if (row.cards_needed === null) {  // at a layout: its GPUs' ZeRO-3 state does not fit either (decision.best_lever)
          return {change: "more " + (inp.hardware.noun || "GPU") + "s (ZeRO-3 state does not fit here)", gain: null,
            effect: "state fits"};
        }
        return {change: "shard over " + row.cards_needed + " cards (ZeRO-3)", gain: null, effect: "state fits"};
      }
      if (opts.length) return {change: opts[0].label, gain: null, effect: "the weights fit"};
      if (row.workload === "decode") return {change: "a smaller batch or context", gain: null, effect: "the KV cache fits"};
      if (row.workload === "prefill") return {change: "a shorter prompt or more GPUs", gain: null, effect: "the KV cache fits"};
      return null;
    }
    const byName = {};
    lv.forEach(function (x) { byName[x.lever] = x; });
    if (row.workload === "decode" && row.binds === "bandwidth") {
      // at a layout each lever on the row's own round (decision._lever_bound), else on one card
      const atLayout = !!(res.parallel && res.parallel.decode[res.lead]);
      const bound = (i, b, prec, scaleW) => atLayout ? GR_PARALLEL.roundBound(inp, t, res.lead, b, row.context, prec, scaleW)
        : decodeBound(prec ? withPrecision(i, prec) : i, t, res.lead, b, row.context, scaleW);
      const j = inp.workloads.decode_context.indexOf(row.context);
      const cap = physical("capacity_batch", atLayout ? res.parallel.perContext[res.lead].capacity_batch_replica_raw[j]
        : res.perContext[res.lead].capacity_batch_raw[j])[0];
      const candidates = [];
      // no more than the engine runs at once (serving.engine_limit: its max_sequences, 0 none; decision.batch_lever)
      const maxSeq = inp.hardware.max_sequences || 0, runs = cap && maxSeq > 0 ? Math.min(cap, maxSeq) : cap;
      if (cap && runs > row.batch) {
        const rate = b => atLayout ? b / bound(inp, b, null, 1.0)
          : call("decode_tokens_per_s", res.envs[res.lead].at(b, row.context));
        // where the compute binds at the batch that could run, the smallest batch at which it does
        // (decision.compute_bound_batch): past it more sequences only wait longer
        const binds = b => {
          if (atLayout) {
            const l = GR_PARALLEL.roundLedgers(inp, t, res.lead, b, row.context, null, 1.0, 1.0);
            return l.compute >= Math.max(l.bandwidth, l.interconnect);
          }
          const e = res.envs[res.lead].at(b, row.context);
          return call("decode_time_compute", e) >= call("decode_time_memory", e);
        };
        const commas = x => Math.trunc(x).toLocaleString("en-US");
        let lo = Math.trunc(row.batch), hi = Math.trunc(runs);
        if (binds(hi) && !binds(lo)) {
          while (hi - lo > 1) {
            const mid = Math.floor((lo + hi) / 2);
            if (binds(mid)) hi = mid; else lo = mid;
          }
        }
        if (hi > row.batch) {
          const change = hi < runs ? "batch " + commas(hi) + " (compute-bound from there; the " + commas(runs)
            + " that could run give no more tok/s)"
            : runs < cap ? "batch " + commas(runs) + " (the engine's max_sequences; " + commas(cap) + " fit)"
            : "batch " + commas(cap);
          candidates.push({change: change, gain: rate(hi) / row.tokens_per_s, effect: "tok/s"});
        }
      }
      const before = bound(inp, row.batch, null, 1.0);
      for (const k of ["weights-int4", "weights-int8", "bandwidth-1.5"]) {
        if (byName[k] && !(k === "weights-int8" && byName["weights-int4"])) {
          // its gain at this row's batch and context, not the batch-1 weights-only lever's (decision.best_lever)
          const ch = leverChange(inp, k);
          candidates.push({change: byName[k].change, gain: before / bound(inp, row.batch, ch[0], ch[1]), effect: "latency"});
        }
      }
      if (!candidates.length) return null;
      return candidates.reduce(function (a, b) { return (b.gain || 0) > (a.gain || 0) ? b : a; });
    }
    if (row.roof === "compute" && byName["compute-fp8"]) {
      const par = res.parallel, lead = res.lead;
      if (par && (row.workload === "decode" || row.workload === "prefill") && par[row.workload][lead]) {
        // at a layout priced on the row's own bound, as the decode levers are (decision.best_lever)
        const fp8 = fp8Compute(inp.precision, t);
        const bound = prec => row.workload === "decode"
          ? GR_PARALLEL.roundBound(inp, t, lead, row.batch, row.context, prec, 1.0)
          : GR_PARALLEL.prefillBound(inp, t, lead, row.tokens, prec);
        return {change: byName["compute-fp8"].change, gain: bound(null) / bound(fp8), effect: "latency"};
      }
      return {change: byName["compute-fp8"].change, gain: byName["compute-fp8"].gain, effect: "roof"};
    }
    return null;
  }

  /** The precision with FP8 compute (decision._fp8_compute): weights wider than a byte in fp8 too. */
  function fp8Compute(p, t) {
    if (p.classes || formatBytes(p.weights, p.group_size, t) <= 1) return Object.assign({}, p, {compute: "fp8"});
    return {weights: "fp8", kv_cache: p.kv_cache, compute: "fp8", group_size: null};
  }

  /** A routed expert's weight-reuse intensities (shown.facts: routed_weight_reuse per prompt, keyed
   * routed_weight_reuse_<tokens>, and training_routed_weight_reuse): one load of its weights serves T k / E tokens in expectation (uniform routing),
   * at the routed experts' bytes per weight; training at the recipes' bf16 weights.  {} for a dense model. */
  function routedFacts(res, inp, t) {
    const m = inp.model, w = inp.workloads, out = {};
    if (!m.moe || m.moe.active_experts >= m.moe.experts) return out;
    const share = m.moe.active_experts / m.moe.experts, env = res.envs[res.lead];
    const bx = env.perClass ? {b: env.wb.experts} : {};
    if (res.prefill[res.lead]) {
      w.prefill_prompt.forEach(function (tk) {  // keyed by the prompt, not its place: a what-if may drop one
        out["routed_weight_reuse_" + tk] = share * call("weight_reuse_intensity", env.at(null, null, Object.assign({T: tk}, bx)));
      });
    }
    if (w.training_tokens) {
      out.training_routed_weight_reuse = share * call("weight_reuse_intensity",
        env.at(null, null, {T: w.training_tokens, b: t.training_weight_bytes}));
    }
    return out;
  }

  /** Page 1 and the levers of a single-card report: {rows, levers, fit_options}. */
  function decision(res, inp, t) {
    const lv = levers(res, inp, t);
    return {rows: decisionRows(res, inp, t, lv, inp.hardware.price_per_hour || null), levers: lv,
      fit_options: fitOptions(res, inp, t)};
  }

  return {evaluate: evaluate, decision: decision, levers: levers, trainingBound: trainingBound, routedFacts: routedFacts, key: key, physical: physical, call: call, makeEnv: makeEnv,
    readAt: readAt, touchedAt: touchedAt, routedParameters: routedParameters, ONE_CUT: ONE_CUT, weightBytes: weightBytes, meanBytes: meanBytes, formatBytes: formatBytes,
    weightsLabel: weightsLabel, computeLabel: computeLabel, computesApart: computesApart,
    parameterCount: parameterCount, tpCopies: tpCopies, localLayers: localLayers, prefixShare: prefixShare, roundContext: roundContext, prefillHeadDim: prefillHeadDim, prefillAttendedFraction: prefillAttendedFraction, prefillAttendedFractionAfter: prefillAttendedFractionAfter, picks: picks, usdPerMtok: usdPerMtok, nextLedger: nextLedger, kept: kept, usable: usable, NO_FIT: NO_FIT};
})();
