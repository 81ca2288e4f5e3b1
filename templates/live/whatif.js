/* genreport live what-if: --set overrides, applied to the spec's inputs in the browser.
 *
 * The same paths as `genreport SPEC --set PATH=VALUE` (with its short aliases), the same value rules (one
 * value where a list is expected is a one-element list; quantities with units, token counts like '8k'), and
 * the loader's error texts. No DOM: tests compare the result with Python's loader under node.
 */
const GR_WHATIF = (function () {
  "use strict";

  const U = GR_UNITS;
  const MODEL_COUNTS = {layers: 1, hidden_size: 1, heads: 1, kv_heads: 1, head_dim: 1, vocab_size: 1};
  const NESTED_COUNTS = {  // path under model -> [field of the model object, minimum]
    "ffn.size": ["ffn_size", 1], "moe.experts": ["moe.experts", 1], "moe.active_experts": ["moe.active_experts", 1],
    "moe.expert_ffn_size": ["moe.expert_ffn_size", 1], "moe.shared_experts": ["moe.shared_experts", 0],
    "moe.first_dense_layers": ["moe.first_dense_layers", 0],
    "attention.sliding_window": ["attention.sliding_window", 1],
    "attention.local_layers_per_global": ["attention.local_layers_per_global", 0],
    "attention.kv_lora_rank": ["attention.kv_lora_rank", 1], "attention.q_lora_rank": ["attention.q_lora_rank", 1],
    "attention.qk_rope_head_dim": ["attention.qk_rope_head_dim", 1],
    "attention.qk_nope_head_dim": ["attention.qk_nope_head_dim", 1], "attention.v_head_dim": ["attention.v_head_dim", 1],
  };
  const TOKEN_LISTS = {"workloads.decode.batch": "decode_batch", "workloads.decode.context": "decode_context",
    "workloads.prefill.prompt": "prefill_prompt"};
  const ALIASES = {"hardware.bandwidth": "hardware.memory.bandwidth", "hardware.capacity": "hardware.memory.capacity"};

  class OverrideError extends Error {
    constructor(path, message, hint) {
      super(path + ": " + message + " (hint: " + hint + ")");
      this.path = path;
      this.reason = message;
      this.hint = hint;
    }
  }

  /** A --set value read as a spec value is: integers and floats as numbers, [a, b] as a list, else text. */
  function scalar(raw) {
    const text = raw.trim();
    if (/^\[.*\]$/.test(text)) {
      const inner = text.slice(1, -1).trim();
      return inner ? inner.split(",").map(scalar) : [];
    }
    if (/^[-+]?\d+$/.test(text)) return parseInt(text, 10);
    if (/^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$/.test(text) && /[.eE]/.test(text)) return parseFloat(text);
    if (text === "true" || text === "false") return text === "true";
    if (/^(['"]).*\1$/.test(text)) return text.slice(1, -1);
    return text;
  }

  /** 'model.kv_heads=1' -> [['model', 'kv_heads'], 1] (overrides.parse_override). */
  function parse(text) {
    const at = text.indexOf("=");
    if (at < 0) throw new OverrideError("--set " + text, "'" + text + "' is not PATH=VALUE",
      "write e.g. --set hardware.memory.bandwidth='4.8 TB/s'");
    const key = text.slice(0, at).trim();
    const parts = key.split(".");
    if (!key || parts.some(function (p) { return !/^[A-Za-z_][A-Za-z0-9_]*$/.test(p); })) {
      throw new OverrideError("--set " + text, "'" + text.slice(0, at) + "' is not a dotted path of keys",
        "write e.g. --set model.kv_heads=1");
    }
    let path = parts.join(".");
    const two = parts.slice(0, 2).join(".");
    if (ALIASES[two]) path = [ALIASES[two]].concat(parts.slice(2)).join(".");
    if (parts.length === 3 && parts[0] === "hardware" && parts[1] === "peak"
      && ["dense", "sparse", "source"].indexOf(parts[2]) < 0) path = "hardware.peak.dense." + parts[2];
    const raw = text.slice(at + 1);
    return [path, raw.trim() ? scalar(raw) : ""];
  }

  function show(v) { return typeof v === "string" ? "'" + v + "'" : String(v); }

  function count(field, value, minimum, maximum) {
    maximum = maximum || 1e8;
    if (typeof value !== "number" || !Number.isInteger(value)) {
      throw new OverrideError(field, show(value) + " is not an integer",
        typeof value === "number" ? "write a whole number" : "write a plain number, without quotes or units");
    }
    if (value > maximum) {
      const most = maximum >= 1e6 ? maximum.toExponential().replace(/e\+(\d)$/, "e+0$1") : String(maximum);
      throw new OverrideError(field, show(value) + " is too large (at most " + most + ")", "check the order of magnitude");
    }
    if (value < minimum) {
      throw new OverrideError(field, value + " is below the minimum " + minimum,
        minimum > 0 ? "must be positive" : "must not be negative");
    }
    return value;
  }

  // the schema's plausible range of a quantity (load/validate.py _LIMITS): outside it the value is a typo
  const LIMITS = [[U.RATE_BYTES, 1.0, 1e15, "1 B/s", "1 PB/s"], [U.BYTES, 1.0, 1e15, "1 B", "1 PB"],
    [U.RATE_FLOP, 1.0, 1e19, "1 FLOP/s", "10 EFLOP/s"], [U.SECONDS, 1e-15, 1e6, "1 fs", "11 days"]];
  const EXAMPLES = {};  // units.DIM_NAMES: the example of each dimension
  [[U.BYTES, '"80 GiB"'], [U.RATE_BYTES, '"3.35 TB/s"'], [U.RATE_FLOP, '"989.4 TFLOP/s"'], [U.SECONDS, '"4.79 ms"']]
    .forEach(function (x) { EXAMPLES[x[0].join()] = x[1]; });
  // the degrees of parallelism and their schema maxima (specs/schema/report.schema.json)
  const DEGREES = {dp: 1e6, ep: 4096, pp: 4096, tp: 4096};
  const LINK = {bandwidth_per_direction: U.RATE_BYTES, bandwidth: U.RATE_BYTES, latency: U.SECONDS};

  function quantity(field, value, dim) {
    if (typeof value !== "string") {
      throw new OverrideError(field, show(value) + " is not a string",
        "write the number with its unit, in quotes, e.g. " + EXAMPLES[dim.join()]);
    }
    let q;
    try {
      q = U.expect(value, dim);
    } catch (e) {
      const m = e.message;
      const hint = /OPS\s*\//.test(value) ? "FLOPS already means per second: write 'TFLOP/s'"
        : m.indexOf("needs") >= 0 && m.indexOf("e.g.") >= 0 ? "give the value in the unit this field measures"
          : m.indexOf("finite") >= 0 ? "write an ordinary number"
            : "write a number, a space and a unit: B, kB, GB, GiB, TB/s, TiB/s, TFLOP/s, ms";
      throw new OverrideError(field, m, hint);
    }
    const lim = LIMITS.filter(function (l) { return l[0].join() === dim.join(); })[0];
    if (q.value <= 0) {
      throw new OverrideError(field, "'" + value + "' must be positive", "a physical quantity is greater than zero");
    }
    if (lim && q.value < lim[1]) {
      throw new OverrideError(field, "'" + value + "' is implausibly small (under " + lim[3] + ")",
        "check the prefix (k, M, G, T, P) and the unit");
    }
    if (lim && q.value > lim[2]) {
      throw new OverrideError(field, "'" + value + "' is implausibly large (over " + lim[4] + ")",
        "check the prefix (k, M, G, T, P) and the unit");
    }
    return q.value;
  }

  function tokenList(path, value) {
    const items = Array.isArray(value) ? value : [value];
    if (!items.length) throw new OverrideError(path, "[] should be non-empty", "expected token counts");
    const out = items.map(function (v, i) {
      const where = path + "[" + i + "]";
      if (typeof v === "number" && Number.isInteger(v) && v < 1) {
        throw new OverrideError(where, v + " is below the minimum 1", "must be positive");
      }
      if (typeof v === "string" && !/^\d+(\.\d+)?\s*[kKmM]?$/.test(v.trim())) {
        throw new OverrideError(where, show(v) + " is not in the expected form",
          "token counts are integers or '1k'-style strings (k = 1024)");
      }
      try {
        return U.tokens(v);
      } catch (e) {
        throw new OverrideError(where, e.message, "write an integer or '8k' (k = 1024)");
      }
    });
    return Array.from(new Set(out)).sort(function (a, b) { return a - b; });
  }

  function resolvePrecision(p, t) {  // objects._precision
    if (typeof p === "string") {
      const compute = p === "int8" || p === "int4" ? "bf16" : p;
      return {weights: p, kv_cache: p === "int8" || p === "int4" ? compute : p, compute: compute, group_size: null};
    }
    const w = p.weights;
    const compute = p.compute || (w === "int8" || w === "int4" ? "bf16" : w);
    return {weights: w, kv_cache: p.kv_cache || (compute in t.precision_bytes ? compute : "bf16"), compute: compute,
      group_size: p.group_size || null};
  }

  function format(field, value, t) {
    if (typeof value !== "string" || !(value in t.precision_bytes)) {
      const names = Object.keys(t.precision_bytes);
      const near = names.filter(function (n) { return typeof value === "string" && distance(n, value) <= 1; });
      throw new OverrideError(field, show(value) + " is not allowed here",
        near.length ? "did you mean '" + near[0] + "'?" : "choose one of " + names.join(", "));
    }
    return value;
  }

  function distance(a, b) {  // edit distance, for "did you mean"
    const d = [];
    for (let i = 0; i <= a.length; i++) d.push([i]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++) {
      for (let j = 1; j <= b.length; j++) {
        d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      }
    }
    return d[a.length][b.length];
  }

  function setIn(obj, dotted, value) {
    const keys = dotted.split(".");
    let node = obj;
    keys.slice(0, -1).forEach(function (k) { node = node[k]; });
    node[keys[keys.length - 1]] = value;
  }

  function divisorNear(n, k) {
    let best = 1;
    for (let x = 1; x <= n; x++) if (n % x === 0 && Math.abs(x - k) < Math.abs(best - k)) best = x;
    return best;
  }

  /** Apply one parsed override to ``state`` ({inputs, precision, given}); throws OverrideError. */
  function apply1(state, path, value, t) {
    const inp = state.inputs, m = inp.model;
    const rest = path.split(".").slice(1).join(".");
    if (path === "hardware.memory.bandwidth") {
      inp.hardware.bandwidth = quantity("memory.bandwidth", value, U.RATE_BYTES);
    } else if (path === "hardware.memory.capacity") {
      inp.hardware.capacity = quantity("memory.capacity", value, U.BYTES);
    } else if (/^hardware\.peak\.dense\.[a-z0-9]+$/.test(path)) {
      const f = path.split(".")[3];
      format("peak.dense." + f, f, t);
      inp.hardware.dense[f] = quantity("peak.dense." + f, value, U.RATE_FLOP);
    } else if (path.indexOf("model.") === 0 && (rest in MODEL_COUNTS || rest in NESTED_COUNTS)) {
      const spec = NESTED_COUNTS[rest] || [rest, 1];
      if (spec[0].indexOf("moe.") === 0 && !m.moe) {
        throw new OverrideError(rest, "this model has no experts", "set experts only on a mixture-of-experts model");
      }
      setIn(m, spec[0], count(rest, value, spec[1]));
      if (rest === "head_dim") state.given.head_dim = true;
      m.declared_parameters = null;  // a what-if of the shapes: the published count no longer applies
      m.declared_active = null;
    } else if (path === "model.parameters" || path === "model.active_parameters") {
      if (typeof value !== "number") {
        throw new OverrideError(rest, show(value) + " is not of type 'number'", "write a plain number, e.g. 8.03e9");
      }
      m[path === "model.parameters" ? "declared_parameters" : "declared_active"] = value;
    } else if (path === "precision") {
      state.precision = format("precision", value, t);
    } else if (path.indexOf("precision.") === 0 && ["weights", "kv_cache", "compute", "group_size"].indexOf(rest) >= 0) {
      if (typeof state.precision === "string") {
        const p = resolvePrecision(state.precision, t);
        state.precision = {weights: p.weights, kv_cache: p.kv_cache, compute: p.compute};
      }
      state.precision = Object.assign({}, state.precision);
      state.precision[rest] = rest === "group_size" ? count("precision.group_size", value, 8)
        : format("precision." + rest, value, t);
    } else if (path.indexOf("parallelism.") === 0 && path.split(".").length === 2) {
      if (typeof GR_PARALLEL === "undefined") {  // a single-card report carries no layout code (parallel.js)
        throw new OverrideError(path, "this page recomputes its one card; a layout over many GPUs is not in it",
          "use the command below, or open a report built with a parallelism block");
      }
      if (!(rest in DEGREES)) {
        throw new OverrideError(path, "unknown key '" + rest + "'", "allowed keys: " + Object.keys(DEGREES).join(", "));
      }
      const degree = count(path, value, 1, DEGREES[rest]);
      inp.parallelism = Object.assign({tp: 1, pp: 1, ep: 1, dp: 1}, inp.parallelism || {});  // a new block: 1 each
      inp.parallelism[rest] = degree;
    } else if (/^hardware\.interconnect\.[a-z_]+$/.test(path) && inp.hardware.link && path.split(".")[2] in LINK) {
      const k = path.split(".")[2], link = inp.hardware.link;
      const v = quantity("interconnect." + k, value, LINK[k]);
      if (k === "latency") {
        link.latency = v;
      } else if (k === "bandwidth") {  // the bidirectional total: the per-direction rate follows it when derived
        link.bandwidth = v;
        if (link.per_direction_from === "bandwidth/2") link.bandwidth_per_direction = v / 2.0;
      } else {
        link.bandwidth_per_direction = v;
        link.per_direction_from = "spec";
      }
    } else if (path in TOKEN_LISTS) {
      inp.workloads[TOKEN_LISTS[path]] = tokenList(path, value);
    } else if (path === "workloads.training.micro_batch_tokens") {
      inp.workloads.training_tokens = tokenList(path, value)[0];
      if (!inp.workloads.recipes.length) inp.workloads.recipes = ["bf16-grads", "fp32-grads"];
    } else if (path === "workloads.decode.activation_bytes") {
      inp.workloads.activation_bytes = quantity("workloads.decode.activation_bytes", value, U.BYTES);
    } else {
      throw new OverrideError(path, "not an input this page recomputes",
        "use the command below: genreport recomputes every path of a spec");
    }
  }

  /** The inputs of ``live`` (the page's data) with ``texts`` (--set PATH=VALUE strings) applied, in order.
   * Returns {inputs, errors: [{text, path, message}]}; an override with an error is left out. Like the loader,
   * the checks across fields (heads and head_dim, the layout) judge the state after every override; only when
   * that state fails are they applied one override at a time, to leave out the one that breaks them. */
  function applyAll(live, texts) {
    return applyWith(live, texts, false) || applyWith(live, texts, true);
  }

  function applyWith(live, texts, each) {
    const t = live.tables;
    const state = {inputs: JSON.parse(JSON.stringify(live.inputs)), precision: live.precision_spec,
      given: Object.assign({}, live.given)};
    const errors = [];
    texts.forEach(function (text) {
      try {
        const pv = parse(text);
        const before = JSON.stringify(state);
        try {
          apply1(state, pv[0], pv[1], t);
          if (each) check(state, live);
        } catch (e) {
          Object.assign(state, JSON.parse(before));
          throw e;
        }
      } catch (e) {
        if (!(e instanceof OverrideError)) throw e;
        errors.push({text: text, path: e.path, message: e.message});
      }
    });
    if (!each) {
      try {
        check(state, live);
      } catch (e) {
        if (!(e instanceof OverrideError)) throw e;
        return null;
      }
    }
    return {inputs: state.inputs, errors: errors};
  }

  /** What the loader derives and checks after the overrides: head_dim, the attention kind, the precision. */
  function check(state, live) {
    const t = live.tables, inp = state.inputs, m = inp.model;
    budget(inp.workloads, live.budget);
    if (!state.given.head_dim) {
      if (m.hidden_size % m.heads) {
        throw new OverrideError("heads", "hidden_size " + m.hidden_size + " is not a multiple of heads " + m.heads,
          "give head_dim explicitly");
      }
      m.head_dim = Math.floor(m.hidden_size / m.heads);
    }
    if (!state.given.attention_kind) {
      m.attention.kind = m.kv_heads === m.heads ? "mha" : m.kv_heads === 1 ? "mqa" : "gqa";
    }
    if (m.heads % m.kv_heads) {
      throw new OverrideError("kv_heads", "kv_heads " + m.kv_heads + " does not divide heads " + m.heads,
        "use a divisor of " + m.heads + ", e.g. " + divisorNear(m.heads, m.kv_heads));
    }
    if (m.moe && m.moe.active_experts > m.moe.experts) {
      throw new OverrideError("moe.active_experts", m.moe.active_experts + " active experts of " + m.moe.experts,
        "active_experts must not exceed experts");
    }
    if (m.moe && m.moe.first_dense_layers >= m.layers) {
      throw new OverrideError("moe.first_dense_layers", "every layer is dense", "lower first_dense_layers");
    }
    if (inp.parallelism) checkParallelism(inp.parallelism, m, live);
    const p = resolvePrecision(state.precision, t);
    if (!(p.compute in inp.hardware.dense)) {
      throw new OverrideError("precision", live.hardware_title + " has no dense " + p.compute + " peak in its spec",
        "choose one of " + Object.keys(inp.hardware.dense).sort().join(", ") + ", or add peak.dense." + p.compute
        + " to " + live.hardware_file);
    }
    inp.precision = p;
    inp.compare_hardware = inp.compare_hardware.filter(function (h) { return h.formats.indexOf(p.compute) >= 0; });
  }

  /** How a layout splits the heads, layers and experts, and whether the GPUs are linked (checks.check_parallelism;
   * its warnings do not stop a what-if). */
  function checkParallelism(par, m, live) {
    const mla = m.attention.kind === "mla";
    if (m.heads % par.tp) {
      throw new OverrideError("parallelism.tp", "tp " + par.tp + " does not divide the " + m.heads + " query heads of "
        + m.title, "use a divisor of " + m.heads + ", e.g. " + divisorNear(m.heads, par.tp));
    } else if (!mla && par.tp > m.kv_heads && par.tp % m.kv_heads) {
      throw new OverrideError("parallelism.tp", "tp " + par.tp + " is above the " + m.kv_heads + " KV heads but not a "
        + "multiple of them: the KV heads cannot be replicated evenly", "use a multiple of " + m.kv_heads
        + " that divides " + m.heads + ", or at most " + m.kv_heads);
    } else if (!mla && par.tp <= m.kv_heads && m.kv_heads % par.tp) {
      throw new OverrideError("parallelism.tp", "tp " + par.tp + " does not divide the " + m.kv_heads + " KV heads",
        "use a divisor of " + m.kv_heads + ", e.g. " + divisorNear(m.kv_heads, par.tp));
    }
    if (par.pp > m.layers) {
      throw new OverrideError("parallelism.pp", "pp " + par.pp + " is more pipeline stages than the " + m.layers
        + " layers", "use at most " + m.layers);
    }
    if (par.ep > 1 && !m.moe) {
      throw new OverrideError("parallelism.ep", "ep " + par.ep + " on " + m.title + ", a dense model: it has no "
        + "experts to split", "remove ep (or set it to 1); use tp or pp to spread a dense model");
    } else if (m.moe && m.moe.experts % par.ep) {
      throw new OverrideError("parallelism.ep", "ep " + par.ep + " does not divide the " + m.moe.experts + " experts",
        "use a divisor of " + m.moe.experts + ", e.g. " + divisorNear(m.moe.experts, par.ep));
    } else if (m.moe && par.ep > par.tp * par.dp) {
      throw new OverrideError("parallelism.ep", "ep " + par.ep + " is more than the tp x dp = " + par.tp * par.dp
        + " GPUs that share the experts", "raise tp or dp, or use ep at most " + par.tp * par.dp);
    }
    if (par.tp * par.pp * par.dp > 1 && !live.inputs.hardware.link) {
      throw new OverrideError("parallelism", par.tp * par.pp * par.dp + " GPUs, but " + live.hardware_title
        + " has no interconnect in its spec", "add 'interconnect:' (name, bandwidth, latency, domain) to "
        + live.hardware_file);
    }
  }

  /** The report's budget of points (checks._check_budget): decode batches x contexts, prompts, GEMMs, measurements. */
  function budget(w, b) {
    const g = GR_FMT.integer, nb = w.decode_batch.length, nc = w.decode_context.length;
    const parts = [[nb * nc, g(nb) + " batches x " + g(nc) + " contexts", "workloads.decode"],
      [w.prefill_prompt.length, g(w.prefill_prompt.length) + " prompts", "workloads.prefill.prompt"],
      [b.gemms, g(b.gemms) + " GEMMs", "gemms"], [b.measured, g(b.measured) + " measurements", "workloads"]];
    const points = parts.reduce(function (a, p) { return a + p[0]; }, 0);
    if (points <= b.limit) return;
    const what = parts.filter(function (p) { return p[0]; }).map(function (p) { return p[1]; }).join(" + ");
    const path = parts.reduce(function (a, p) { return p[0] > a[0] ? p : a; })[2];
    throw new OverrideError(path, what + " = " + g(points) + " points, over the budget of " + g(b.limit)
      + " points a report (about " + GR_FMT.format(points * b.bytes_per_point / 1e6, ",.0f") + " MB of results.json)",
      "use fewer values (a sweep takes larger grids), or raise the budget with --max-points N (GENREPORT_MAX_POINTS)");
  }

  /** '#set=a=1&set=b=2' -> ['a=1', 'b=2'] (values URL-encoded). */
  function fromFragment(hash) {
    const text = (hash || "").replace(/^#/, "");
    if (!text) return [];
    return text.split("&").filter(function (p) { return p.indexOf("set=") === 0; }).map(function (p) {
      try { return decodeURIComponent(p.slice(4).replace(/\+/g, " ")); } catch (e) { return p.slice(4); }
    });
  }

  function toFragment(texts) {
    return texts.length ? "#" + texts.map(function (s) {
      return "set=" + encodeURIComponent(s).replace(/%20/g, "+").replace(/%2F/g, "/").replace(/%3D/g, "=")
        .replace(/%2C/g, ",").replace(/%5B/g, "[").replace(/%5D/g, "]");
    }).join("&") : "";
  }

  /** The shell command that builds the same what-if. */
  function command(specFile, texts) {
    const quote = function (s) { return /^[A-Za-z0-9_.,=/:@+-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'"; };
    return ["genreport", quote(specFile)].concat(texts.map(function (s) { return "--set " + quote(s); })).join(" ");
  }

  return {parse: parse, applyAll: applyAll, fromFragment: fromFragment, toFragment: toFragment, command: command,
    OverrideError: OverrideError};
})();
