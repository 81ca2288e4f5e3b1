/* genreport live what-if: --set overrides, applied to the spec's inputs in the browser.
 *
 * The same paths as `genreport SPEC --set PATH=VALUE` and the same value rules: the page data's `rules`
 * (genreport.load.setrules, read from the schemas and the loader's limits) name each path this page recomputes
 * and what it takes, so the page refuses what the command line refuses, with the loader's error texts, and "Copy
 * as command" offers only what it applied. A name the reader gives is looked up only as an own property: no
 * 'constructor' or '__proto__' is found on Object.prototype. No DOM: tests compare the result with Python's loader
 * under node.
 */
const GR_WHATIF = (function () {
  "use strict";

  const U = GR_UNITS;
  const own = Object.hasOwn;  // never a name inherited from Object.prototype ('constructor', '__proto__', ...)

  class OverrideError extends Error {
    constructor(path, message, hint) {
      super(path + ": " + message + " (hint: " + hint + ")");
      this.path = path;
    }
  }

  function fail(path, message, hint) { throw new OverrideError(path, message, hint); }

  /** A --set value read as the loader reads it (yamlread.scalar, YAML 1.1): whole and decimal numbers, true and
   * false (yes, on, ...), 'text' and "text" without escapes, [a, b] lists of these, plain text; undefined for text
   * that YAML reads some other way or might (010 is octal, '#' starts a comment, ': ' a mapping, '&' an anchor),
   * which the page refuses. */
  function scalar(raw, item) {
    // yamlread reads 4096 characters at most, YAML no control character (nor does it fold lines here)
    if (raw.length > 4096 || /[\0-\x1f\x7f-\x9f\u2028\u2029\ufeff]/.test(raw)) return undefined;
    const text = raw.replace(/^ +| +$/g, "");
    let m = /^\[(.*)\]$/.exec(text);
    if (m && !item) {
      const items = /^ *$/.test(m[1]) ? [] : m[1].split(",").map(s => scalar(s, true));
      return items.indexOf(undefined) < 0 ? items : undefined;
    }
    if (/^[-+]?(0|[1-9]\d*)$/.test(text) || /^[-+]?\d+(\.\d*)?([eE][-+]?\d+)?$/.test(text) && /[.eE]/.test(text)) {
      return Number(text);
    }
    // YAML's other numbers (octal 010, 0x1f, 0b11, 1_000, 1:30, .5, .inf): the page reads none, nor takes one as text
    if (/^[-+]?(0[0-7_]+|0b[01_]+|0x[\da-fA-F_]+|[1-9][\d_]*(:[0-5]?\d)*|\d[\d_]*((:[0-5]?\d)*\.[\d_]*|(\.[\d_]*)?[eE][-+]?\d+)|\.[\d_]+([eE][-+]\d+)?|\.(inf|Inf|INF|nan|NaN|NAN))$/.test(text)) {
      return undefined;
    }
    if (/^([tT]rue|TRUE|[fF]alse|FALSE|[yY]es|YES|[nN]o|NO|[oO]n|ON|[oO]ff|OFF)$/.test(text)) {
      return /^(t|y|on)/i.test(text);
    }
    if ((m = /^'([^']*)'$|^"([^"\\]*)"$/.exec(text))) return m[1] === undefined ? m[2] : m[1];
    return /^[-?:,[\]{}#&*!|>'"%@`]|: |:$| #|^$/.test(text) || item && /[[\]{}]/.test(text) ? undefined : text;
  }

  /** 'model.kv_heads=1' -> ['model.kv_heads', 1, '1'] (overrides.parse_override, and the short paths of ``live``). */
  function parse(text, live) {
    const at = text.indexOf("=");
    if (at < 0) {
      fail("--set " + text, "'" + text + "' is not PATH=VALUE", "write e.g. --set hardware.memory.bandwidth='4.8 TB/s'");
    }
    const key = text.slice(0, at).replace(/^[\t-\r ]+|[\t-\r ]+$/g, ""), parts = key.split(".");
    if (!key || parts.some(p => !/^[A-Za-z_]\w*$/.test(p))) {
      fail("--set " + text, "'" + text.slice(0, at) + "' is not a dotted path of keys",
        "write e.g. --set model.kv_heads=1");
    }
    const alias = live.rules.aliases, two = parts.slice(0, 2).join(".");
    if (own(alias, two)) parts.splice(0, 2, alias[two]);
    if (parts.length === 3 && parts[0] === "hardware" && parts[1] === "peak"
      && ["dense", "sparse", "source"].indexOf(parts[2]) < 0) parts.splice(2, 0, "dense");
    const raw = text.slice(at + 1);
    // empty as Python's str.strip() sees it: JavaScript's trim() also drops U+FEFF, which Python keeps (and YAML
    // reads as a byte-order mark), so a lone U+FEFF goes to scalar(), which refuses it
    return [parts.join("."), raw.replace(/\ufeff/g, "\u0001").trim() ? scalar(raw) : "", raw];
  }

  function show(v) {  // yamlread.show
    return typeof v === "string" ? "'" + v + "'" : Array.isArray(v) ? (v.length ? "a list" : "an empty list []")
      : typeof v !== "number" || Number.isSafeInteger(v) ? String(v) : Number.isFinite(v) ? GR_FMT.format(v, "")
        : (v < 0 ? "-" : "") + ".inf";
  }

  /** The rule of ``path`` in ``R`` (the page data's rules): its index, or an OverrideError. */
  function ruleOf(R, path, where) {
    let node = R.paths;
    path.split(".").forEach(function (p) {
      if (own(node, p)) {
        node = node[p];
      } else if (own(node, "*")) {  // any key the schema's propertyNames allow: peak.dense.<format>
        const names = R.rules[node["*"][1]][1];
        if (names.indexOf(p) < 0) {
          fail(where, "'" + p + "' is not a known number format", near(p, names) || "use one of " + names.join(", "));
        }
        node = node["*"][0];
      } else {
        if (own(node, "?")) {  // a mapping whose every key is here (parallelism, precision)
          fail(where, "unknown key '" + p + "'",
            "allowed keys: " + Object.keys(node).filter(x => /\w/.test(x)).sort().join(", "));
        }
        node = {};
      }
    });
    if (own(node, "")) node = node[""];
    if (typeof node !== "number") {
      fail(path, "not an input this page recomputes", "add it to the command below (it offers only what this page applied): genreport recomputes every path of a spec");
    }
    return node;
  }

  /** What was written for the value ``raw`` reads as (yamlread.scalar's texts): its text, or a list's item texts. */
  function writtenOf(raw) {
    const text = raw.replace(/^ +| +$/g, ""), m = /^\[(.*)\]$/.exec(text);
    return m ? m[1].split(",").map(s => s.replace(/^ +| +$/g, "")) : text;
  }

  /** validate._echo: ``v`` as show() has it, but "yes (read as true)" where a boolean or an infinity was written
   * otherwise. */
  function echo(v, text) {
    const shown = show(v);
    return (typeof v === "boolean" || typeof v === "number" && !Number.isFinite(v)) && typeof text === "string" && text
      && text.toLowerCase().replace(/^\+/, "") !== shown ? text + " (read as " + shown + ")" : shown;
  }

  /** ``v`` judged by rule ``r`` as the loader judges it (validate.check, objects.tokens): its value, or an
   * OverrideError with the loader's text.  ``text``: what was written for it (writtenOf), for the loader's echo. */
  function valid(where, v, r, all, text) {
    const kind = r[0];
    if (kind === "l") {  // one value where a list is expected is a one-element list (overrides._apply_override)
      const items = Array.isArray(v) ? v : [v], texts = Array.isArray(v) ? (Array.isArray(text) ? text : []) : [text];
      if (items.length < r[1]) fail(where, show(items) + " needs at least one value", "add at least one value");
      if (items.length > r[2]) fail(where, "too many entries (at most " + r[2] + ")", "split it into several specs");
      return Array.from(new Set(items.map((x, i) => valid(where + "[" + i + "]", x, all[r[3]], all, texts[i]))))
        .sort((a, b) => a - b);
    }
    if (typeof v === "number" && !Number.isFinite(v)) {
      fail(where, echo(v, text) + " is not a finite number", "write an ordinary number");
    }
    if (kind === "e") {
      if (r[1].indexOf(v) < 0) {
        fail(where, echo(v, text) + " is not allowed here", near(String(v), r[1]) || "use one of: " + r[1].join(", "));
      }
      return v;
    }
    if (kind === "q") {
      if (typeof v === "boolean" && typeof text === "string" && text && text !== show(v)) {  // yes: validate's words
        fail(where, text + " reads as " + show(v) + ", not a string", "quote it: '" + text + "'");
      }
      if (typeof v !== "string") {
        fail(where, show(v) + " is not a string", typeof v === "boolean" ? "quote it: '" + v + "'"
          : "write the number with its unit, in quotes, e.g. " + r[6]);
      }
      let q;
      try {
        q = U.expect(v, U.parse_unit(r[1])[1]);
      } catch (e) {
        const m = e.message;
        fail(where, m, /OPS\s*\//.test(v) ? "FLOPS already means per second: write 'TFLOP/s'"
          : m.indexOf("needs") >= 0 && m.indexOf("e.g.") >= 0 ? "give the value in the unit this field measures"
            : m.indexOf("finite") >= 0 ? "write an ordinary number"
              : "write a number, a space and a unit: B, kB, GB, GiB, TB/s, TiB/s, TFLOP/s, ms");
      }
      if (q.value <= 0) fail(where, "'" + v + "' must be positive", "a physical quantity is greater than zero");
      if (q.value < r[2] || q.value > r[3]) {
        fail(where, "'" + v + "' is implausibly " + (q.value < r[2] ? "small (under " + r[4] : "large (over " + r[5])
          + ")", "check the prefix (k, M, G, T, P) and the unit");
      }
      return q.value;
    }
    if (kind === "t") {  // a token count: a whole number in range, or text such as '8k' (k = 1024)
      if (typeof v === "string") {
        if (!new RegExp(r[3]).test(v)) {
          fail(where, show(v) + " is not in the expected form",
            "token counts are integers or '1k'-style strings (k = 1024)");
        }
      } else if (Number.isInteger(v)) {
        range(where, v, r);
      } else {
        fail(where, echo(v, text) + " is not a valid value here", "expected " + r[4]);
      }
      try {
        return U.tokens(v);
      } catch (e) {  // objects._workloads reads a single count as a list of one, and says so: [0]
        fail(/]$/.test(where) ? where : where + "[0]", e.message, "write an integer or '8k' (k = 1024)");
      }
    }
    if (typeof v !== "number" || kind === "i" && !Number.isInteger(v)) {
      fail(where, echo(v, text) + (kind === "i" ? " is not an integer" : " is not a number"), typeof v !== "string"
        ? "write a whole number" : kind === "i" ? "write a plain number, without quotes or units"
          : "write a plain number such as 8.03e9, without quotes");
    }
    range(where, v, r);
    return v;
  }

  function range(where, v, r) {
    const open = r[0] === "n";  // ["n", min, max, 1, 0]: a bound it may not reach (exclusiveMinimum, exclusiveMaximum)
    if (open && r[3] && v <= r[1]) fail(where, show(v) + " must be greater than " + r[1], r[1] === 0 ? "must be positive" : "raise it");
    if (open && r[4] && v >= r[2]) {  // validate: exclusiveMaximum's words
      fail(where, show(v) + " must be less than " + GR_FMT.format(r[2], "g"), r[2] === 1 ? "a fraction below 1" : "lower it");
    }
    if (v < r[1]) {
      fail(where, show(v) + " is below the minimum " + r[1], r[1] === 1 ? "must be positive" : "use at least " + r[1]);
    }
    if (v > r[2]) {
      fail(where, show(v) + " is too large (at most " + GR_FMT.format(r[2], "g") + ")", "check the order of magnitude");
    }
  }

  function resolvePrecision(p, t, m, modelFile) {  // objects._precision (with the loader's weights: checkpoint)
    const at = p === "checkpoint" ? "precision" : "precision.weights";  // where the loader says what is wrong
    if (p === "checkpoint") p = {weights: "checkpoint"};  // the loader's shorthand
    const wc = t.weight_compute || {};
    if (typeof p !== "string" && p.weights === "checkpoint") {  // the model spec's checkpoint_precision
      const given = m && m.checkpoint_weights && m.checkpoint_weights.length ? m.checkpoint_weights : null;
      if (!given) {
        throw new OverrideError(at, (m ? m.title : "the model") + " has no checkpoint_precision in "
          + "its spec", "name the formats, e.g. weights: {experts: mxfp4, default: bf16}, or add checkpoint_precision "
          + "to " + (modelFile || "the model spec"));
      }
      const w = {};
      given.forEach(function (pair) { w[pair[0]] = pair[1]; });
      p = Object.assign({}, p, {weights: w});
    }
    const natives = t.native_fp4 || [];  // spec.NATIVE_FP4: fp4 where the GPU has it (spec.on_hardware, below)
    if (typeof p === "string") {
      const compute = own(wc, p) ? wc[p] : p;
      const out = {weights: p, kv_cache: own(wc, p) ? compute : p, compute: compute, group_size: null};
      if (natives.indexOf(p) >= 0) out.native = true;
      return out;
    }
    let w = p.weights, base = w, classes = null;
    if (w !== null && typeof w === "object") {  // one format per tensor class; an unnamed class is the default's
      const rest = w["default"] || "bf16";
      classes = {};
      ["experts", "attention", "embeddings", "default"].forEach(c => { classes[c] = w[c] || rest; });
      const forms = Object.keys(classes).map(c => classes[c]).filter((f, i, a) => a.indexOf(f) === i);
      w = forms.length === 1 ? forms[0] : forms.join("+");
      base = rest;
    }
    const compute = p.compute || (own(wc, base) ? wc[base] : base);
    const out = {weights: w, kv_cache: p.kv_cache || (own(t.precision_bytes, compute) ? compute : "bf16"), compute: compute,
      group_size: p.group_size || null};
    if (classes) out.classes = classes;
    if (!p.compute && natives.indexOf(w) >= 0) out.native = true;  // one format for every class
    if (!p.compute && classes && w.indexOf("+") >= 0) out.own_compute = true;  // (Precision.class_compute)
    return out;
  }

  /** The precision as it runs on ``dense``'s GPU (spec.on_hardware): NVFP4/MXFP4 weights with no compute given in
   * fp4 where the GPU has an fp4 peak, else in bf16. */
  function onHardware(p, dense, t) {
    if (!p.native) return p;
    return Object.assign({}, p, {compute: own(dense, "fp4") ? "fp4" : t.weight_compute[p.weights]});
  }

  function near(word, names) {  // "did you mean" (suggest.did_you_mean, by edit distance)
    const w = word.trim().toLowerCase(), hit = names.filter(n => distance(n, w) <= 1)[0];
    return hit ? "did you mean '" + hit + "'?" : "";
  }

  function distance(a, b) {  // edit distance
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

  function divisorNear(n, k) {
    let best = 1;
    for (let x = 1; x <= n; x++) if (n % x === 0 && Math.abs(x - k) < Math.abs(best - k)) best = x;
    return best;
  }

  function tpNear(m, tp) {  // checks._tp_near: the nearest tp the query and KV heads allow, the lower of two as near
    let best = 1;
    for (let x = 1; x <= m.heads; x++) {
      const fits = m.attention.kind === "mla" || (x <= m.kv_heads ? m.kv_heads % x === 0 : x % m.kv_heads === 0);
      if (m.heads % x === 0 && fits && Math.abs(x - tp) < Math.abs(best - tp)) best = x;
    }
    return best;
  }

  /** Apply one parsed override to ``state`` ({inputs, precision, given, shape}); throws OverrideError. */
  function apply1(state, path, v, raw, live) {
    const inp = state.inputs, m = inp.model, parts = path.split("."), top = parts[0], k = parts[parts.length - 1];
    if (top === "precision") state.precisionSets = (state.precisionSets || []).concat([path]);  // (loader: made)
    const where = top === "hardware" || top === "model" ? parts.slice(1).join(".") : path, R = live.rules;
    if (top === "parallelism" && typeof GR_PARALLEL === "undefined") {  // a single-card report has no parallel.js
      fail(path, "this page recomputes its one " + (inp.hardware.noun && inp.hardware.noun !== "GPU" ? inp.hardware.noun
        : "card") + "; a layout over many " + (inp.hardware.noun || "GPU") + "s is not in it",
        "add it to the command below (it offers only what this page applied): genreport builds any layout; or open a "
        + "report built with a parallelism block");
    }
    const r = ruleOf(R, path, where);
    if (v === undefined) {
      fail(where, "'" + raw.trim() + "' is written in a form this page does not read", "write a plain number, 'text' or [a, b]");
    }
    v = valid(where, v, R.rules[r], R.rules, writtenOf(raw));
    // the rules name only paths this spec has a place for (a link's, experts' and decode's only where it has them)
    if (top === "hardware") {
      const link = inp.hardware.link;
      if (parts[1] === "memory") {
        inp.hardware[k] = v;
      } else if (parts[1] === "peak") {
        inp.hardware.dense[k] = v;
      } else if (parts[1] === "achieved_matmul") {  // e_m of one compute format (model.js card)
        inp.hardware.achieved_matmul = Object.assign({}, inp.hardware.achieved_matmul, {[k]: v});
      } else if (parts[1] === "achieved_bandwidth") {  // e_g of one compute format (model.js card)
        inp.hardware.achieved_bandwidth = Object.assign({}, inp.hardware.achieved_bandwidth, {[k]: v});
      } else if (parts[1] === "node") {  // node.scale_out.<key>: the network between nodes (parallel.js chooseLinks)
        const out = Object.assign({}, inp.hardware.node.scale_out, {[k]: v});
        if (k === "bandwidth_per_direction") out.per_direction_from = "spec";
        inp.hardware.node = Object.assign({}, inp.hardware.node, {scale_out: out});
      } else {
        link[k] = v;
        if (k === "bandwidth" && link.per_direction_from === "bandwidth/2") link.bandwidth_per_direction = v / 2;
        if (k === "bandwidth_per_direction") link.per_direction_from = "spec";  // no longer half the total
      }
    } else if (top === "model") {
      if (k === "parameters" || k === "active_parameters") {
        m[k === "parameters" ? "declared_parameters" : "declared_active"] = v;
      } else {
        state.shape = true;
        if (k === "head_dim") state.given.head_dim = true;
        if (parts.length === 2) m[k] = v; else if (k === "size") m.ffn_size = v; else m[parts[1]][k] = v;
      }
    } else if (top === "precision") {
      if (parts.length > 1 && state.precision === "checkpoint") {  // the shorthand's explicit form
        state.precision = {weights: "checkpoint"};
      } else if (parts.length > 1 && typeof state.precision === "string") {  // 'bf16' -> its explicit form, to set a part
        const p = resolvePrecision(state.precision, live.tables);
        // its compute left out, as the string leaves it (overrides._apply_override: the loader derives the same one)
        state.precision = {weights: p.weights, kv_cache: p.kv_cache};
      }
      if (parts.length === 3) {  // precision.weights.<class>: one format becomes the default of a mapping
        const w = state.precision.weights;
        if (w === "checkpoint") {
          fail(path, "precision.weights in " + live.spec_file + " is 'checkpoint', the model's formats",
            "set precision.weights itself, or name the formats per class in the spec");
        }
        state.precision = Object.assign({}, state.precision,
          {weights: Object.assign({}, typeof w === "string" ? {"default": w} : w, {[k]: v})});
      } else if (parts.length > 1) {
        state.precision = Object.assign({}, state.precision, {[k]: v});
      } else {
        state.precision = v;
      }
    } else if (top === "engine") {  // engine.max_sequences: the hardware's, as the loader folds the engine block in
      inp.hardware[k] = v;  // and the compared cards' (their room on page 1's ways to fit)
      inp.compare_hardware = inp.compare_hardware.map(h => Object.assign({}, h, {[k]: v}));
    } else if (top === "parallelism") {
      // a new block: 1 each, and no replicas (the loader reads engine.redundant_experts only with a layout)
      inp.parallelism = Object.assign({tp: 1, pp: 1, ep: 1, dp: 1, redundant_experts: 0}, inp.parallelism);
      inp.parallelism[k] = v;
    } else if (top === "serving") {  // the serving chapter's inputs (techniques.js); its price is the GPU-hour's
      if (parts.length === 3) inp.serving.speculative[k] = v; else inp.serving[k] = v;
      // a what-if fraction replaces the written draft, a what-if head a written draft (and its format) or fraction;
      // a head keeps the format written for a head (overrides.apply)
      if (parts.length === 3 && (k === "draft_cost" || k === "draft_layers")) {
        const own = k === "draft_layers" && !inp.serving.speculative.draft_model;
        ["draft_model"].concat(own ? [] : ["draft_precision"]).concat(k === "draft_cost" ? ["draft_layers"] : [])
          .forEach(x => { delete inp.serving.speculative[x]; });
        if (k === "draft_layers") inp.serving.speculative.draft_cost = null;  // the head's passes give its time
      }
      if (parts.length === 3 && k === "acceptance") state.given.acceptance = true;
      if (k === "price") inp.hardware.price_per_hour = v;
      // the chunk is vLLM's max_num_batched_tokens, the step the workspace is sized for, where the engine gives none
      if (k === "chunk" && inp.hardware.step_is_chunk) {
        inp.hardware.max_batched_tokens = v;
        inp.compare_hardware = inp.compare_hardware.map(h => Object.assign({}, h, {max_batched_tokens: v}));
      }
    } else if (k === "micro_batch_tokens") {
      inp.workloads.training_tokens = v;
      if (!inp.workloads.recipes.length) inp.workloads.recipes = ["bf16-grads", "fp32-grads"];
    } else {
      inp.workloads[k === "activation_bytes" ? k : parts[1] + "_" + k] = v;  // decode_batch, prefill_prompt, ...
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
    const state = {inputs: JSON.parse(JSON.stringify(live.inputs)), precision: live.precision_spec,
      given: Object.assign({}, live.given), shape: false};
    const errors = [];
    texts.forEach(function (text) {
      try {
        const pv = parse(text, live);
        const before = JSON.stringify(state);
        try {
          apply1(state, pv[0], pv[1], pv[2], live);
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

  /** A model's inputs as JSON without its published counts: equal for two models of the same shapes. */
  function sansCounts(m) {
    return JSON.stringify(Object.assign({}, m, {declared_parameters: null, declared_active: null}));
  }

  /** What the loader derives and checks after the overrides: head_dim, the attention kind, the precision. */
  function check(state, live) {
    const t = live.tables, inp = state.inputs, m = inp.model;
    budget(inp.workloads, live.budget);
    checkWorkspace(inp, m, t);
    // the published count is of other shapes, unless the shapes set are the model's own (loader._reshaped)
    if (state.shape && sansCounts(m) !== sansCounts(live.inputs.model)) m.declared_parameters = m.declared_active = null;
    if (!state.given.head_dim) {
      if (m.hidden_size % m.heads) {
        throw new OverrideError("heads", "hidden_size " + m.hidden_size + " is not a multiple of heads " + m.heads,
          "give head_dim explicitly");
      }
      m.head_dim = Math.floor(m.hidden_size / m.heads);
    } else if (m.attention.kind !== "mla"  // a given head_dim: heads x head_dim within 4x of hidden_size either way
      && (m.head_dim * m.heads > 4 * m.hidden_size || 4 * m.head_dim * m.heads < m.hidden_size)) {
      fail("head_dim", "heads x head_dim = " + m.head_dim * m.heads + " is far from hidden_size " + m.hidden_size,
        "check head_dim");
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
    } else if (m.moe && Math.floor((m.layers - m.moe.first_dense_layers) / Math.max(1, m.moe.layer_step || 1)) === 0) {
      throw new OverrideError("moe.layer_step", "layer_step " + m.moe.layer_step + " leaves no MoE layer among the "
        + (m.layers - m.moe.first_dense_layers) + " after the dense ones", "lower moe.layer_step or moe.first_dense_layers");
    }
    if (inp.parallelism) checkParallelism(inp.parallelism, m, live);
    const sp = inp.serving && inp.serving.speculative;  // objects._serving: a tree verifies its depth at least
    if (sp && sp.accepted_length !== null && sp.accepted_length !== undefined) acceptance(sp, state.given.acceptance);
    if (sp && sp.verify_tokens !== null && sp.verify_tokens !== undefined && sp.verify_tokens < sp.draft_tokens + 1) {
      fail("serving.speculative.verify_tokens", "verify_tokens " + sp.verify_tokens + " is fewer than draft_tokens + 1 = "
        + (sp.draft_tokens + 1), "a tree's nodes with its root; leave it out for a chain");
    }
    const p = onHardware(resolvePrecision(state.precision, t, m, live.model_file), inp.hardware.dense, t);
    if (!own(inp.hardware.dense, p.compute)) {  // at the set of the weights or the compute that made it (loader)
      const made = (state.precisionSets || []).find(function (s) {
        const q = s.split(".");
        return q.length === 1 || q[1] === "weights" || q[1] === "compute";
      });
      throw new OverrideError(made || "precision", live.hardware_title + " has no dense " + p.compute + " peak in its spec",
        "choose one of " + Object.keys(inp.hardware.dense).sort().join(", ") + ", or add peak.dense." + p.compute
        + " to " + live.hardware_file + (p.weights === "fp8" && p.compute === "fp8" && inp.hardware.vendor === "NVIDIA"
          && own(inp.hardware.dense, "bf16") ? "; or multiply the fp8 weights in bf16 (weight-only, W8A16, as vLLM's "
          + "FP8 Marlin kernel runs them on this GPU): precision: {weights: fp8, compute: bf16}" : ""));  // spec.weight_only_hint
    }
    inp.precision = p;
    inp.compare_hardware = inp.compare_hardware.filter(h => h.formats.indexOf(p.compute) >= 0);
  }

  /** objects._acceptance: with an accepted length tau the acceptance is the p_a whose expected tokens per verify
   * step are tau (bisection on the formula, as objects.acceptance_for_length), or, where it is written too, must
   * agree with it within 1%. */
  function acceptance(sp, given) {
    const k = sp.draft_tokens, tau = sp.accepted_length, fmt = GR_FMT.format;
    const expected = p => GR_Q.speculative_expected_tokens.f(k, p);
    if (!(tau < k + 1)) {
      fail("serving.speculative.accepted_length", "accepted_length " + fmt(tau, "g") + " is not below draft_tokens + 1 = "
        + (k + 1), "raise draft_tokens to the tree's depth");
    }
    let lo = 0.0, hi = 1.0;
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2;
      if (expected(mid) < tau) lo = mid; else hi = mid;
    }
    const derived = (lo + hi) / 2;
    if (!given) { sp.acceptance = derived; return; }
    const implied = (1 - Math.pow(sp.acceptance, k + 1)) / (1 - sp.acceptance);
    if (Math.abs(implied - tau) > 0.01 * tau) {
      fail("serving.speculative.accepted_length", "acceptance " + fmt(sp.acceptance, "g") + " with " + k
        + " draft tokens gives " + fmt(implied, ".3g") + " tokens per verify step, not accepted_length " + fmt(tau, "g")
        + " (that is acceptance " + fmt(derived, ".4f") + ")", "give one of the two, or make them agree");
    }
  }

  /** The engine step's activations against the memory the card keeps beside its reserve (loader.workspace_message). */
  function checkWorkspace(inp, m, t) {
    const hw = inp.hardware, kept = typeof GR_MODEL === "undefined" ? 0 : GR_MODEL.kept(hw);
    if (typeof GR_MODEL === "undefined" || GR_MODEL.usable(hw, m, inp.parallelism) > 0) return;
    const f = GR_FMT.format;
    if (!(kept > 0)) {  // a size at least the card's memory (the loader's words)
      fail("engine.memory_reserve", "the engine's reserve of " + f((hw.memory_reserve_bytes || 0) / 2 ** 30, ".1f")
        + " GiB is at least the " + hw.title + "'s " + f(hw.capacity / 2 ** 30, ".1f") + " GiB of memory: nothing "
        + "is left for the model", "lower it, write a fraction such as 0.1, or take a card with more memory");
    }
    const ws = kept - GR_MODEL.usable(hw, m, inp.parallelism);
    // what to lower is what departs further from the engine's defaults (loader): the reserve or the step
    const d = t.engine_defaults, usual = kept - GR_MODEL.usable(Object.assign({}, hw, {max_batched_tokens:
      d.max_batched_tokens, max_sequences: d.max_sequences}), m, inp.parallelism);
    const reserveShare = (hw.capacity - kept) / (d.memory_reserve * hw.capacity);
    const logits = kept - GR_MODEL.usable(Object.assign({}, hw, {max_batched_tokens: 0}), m, inp.parallelism);
    // loader.workspace_message
    const stepWords = "one engine step of " + f(hw.max_batched_tokens || 0, ",.0f") + " tokens and "
      + f(hw.max_sequences || 0, ",.0f") + " sequences needs " + f(ws / 2 ** 30, ".1f") + " GiB of activations on each GPU ("
      + f(logits / 2 ** 30, ".1f") + " GiB of them the sequences' logits), at least the " + f(kept / 2 ** 30, ".1f")
      + " GiB the " + hw.title + " keeps beside its reserve: nothing is left for the weights";
    if (reserveShare <= 1.0 + 1e-9 && ws <= usual * (1.0 + 1e-9)) {  // the card's memory is short (loader)
      fail("hardware", stepWords, "the " + hw.title + "'s " + f(hw.capacity / 2 ** 30, ".3g") + " GiB is too small for "
        + "the engine's default step: take a card with more memory, or lower engine.max_batched_tokens and "
        + "engine.max_sequences below vLLM's 8,192 tokens and 256 sequences");
    }
    if (reserveShare > ws / usual) {
      fail("engine.memory_reserve", "the engine's reserve keeps " + f((hw.capacity - kept) / 2 ** 30, ".1f")
        + " GiB of the " + hw.title + "'s " + f(hw.capacity / 2 ** 30, ".1f") + " GiB and one engine step of "
        + f(hw.max_batched_tokens || 0, ",.0f") + " tokens and " + f(hw.max_sequences || 0, ",.0f") + " sequences needs "
        + f(ws / 2 ** 30, ".1f") + " GiB of activations on each GPU: nothing is left for the weights",
        "lower it, or take a card with more memory");
    }
    // the larger of its two parts is what to lower (loader): the logits of max_sequences rows, or the step's tokens
    const seqsBind = logits >= ws - logits;
    fail(seqsBind ? "engine.max_sequences" : hw.step_is_chunk ? "serving.chunk" : "engine.max_batched_tokens",
      stepWords, (seqsBind ? "lower it (vLLM's default is 256 "
      + "sequences)" : "lower it (vLLM's default is 8,192 tokens)") + ", or take a card with more memory");
  }

  /** How a layout splits the heads, layers and experts, and whether the GPUs are linked (checks.check_parallelism;
   * its warnings do not stop a what-if). */
  function checkParallelism(par, m, live) {
    const mla = m.attention.kind === "mla", noun = live.inputs.hardware.noun || "GPU";  // Hardware.noun
    if (m.heads % par.tp) {
      throw new OverrideError("parallelism.tp", "tp " + par.tp + " does not divide the " + m.heads + " query heads of "
        + m.title, "use a divisor of " + m.heads + ", e.g. " + tpNear(m, par.tp));
    } else if (!mla && par.tp > m.kv_heads && par.tp % m.kv_heads) {
      throw new OverrideError("parallelism.tp", "tp " + par.tp + " is above the " + m.kv_heads + " KV heads but not a "
        + "multiple of them: the KV heads cannot be replicated evenly", "use a multiple of " + m.kv_heads
        + " that divides " + m.heads + ", or at most " + m.kv_heads);
    } else if (!mla && par.tp <= m.kv_heads && m.kv_heads % par.tp) {
      throw new OverrideError("parallelism.tp", "tp " + par.tp + " does not divide the " + m.kv_heads + " KV heads",
        "use a divisor of " + m.kv_heads + ", e.g. " + tpNear(m, par.tp));
    }
    if (par.pp > m.layers) {
      throw new OverrideError("parallelism.pp", "pp " + par.pp + " is more pipeline stages than the " + m.layers
        + " layers", "use at most " + m.layers);
    }
    if (par.ep > 1 && !m.moe) {
      throw new OverrideError("parallelism.ep", "ep " + par.ep + " on " + m.title + ", a dense model: it has no "
        + "experts to split", "remove ep (or set it to 1); use tp or pp to spread a dense model");
    } else if (par.redundant_experts && par.ep <= 1) {
      throw new OverrideError("engine.redundant_experts", par.redundant_experts + " redundant experts without expert "
        + "parallelism: a replica of an expert on the GPU that holds it serves nothing",
        "set parallelism.ep above 1, or remove engine.redundant_experts");
    } else if (m.moe && (m.moe.experts + (par.redundant_experts || 0)) % par.ep) {
      // the E + r physical experts spread evenly over the ep GPUs (checks.check_parallelism)
      const e = m.moe.experts, r = par.redundant_experts || 0, fill = ((-(e + r)) % par.ep + par.ep) % par.ep;
      if (r) {
        const fewer = r - (e + r) % par.ep, counts = (fewer >= 0 ? [fewer] : []).concat([r + fill]);
        throw new OverrideError("engine.redundant_experts", e + " experts + " + r + " redundant = " + (e + r)
          + " do not spread evenly over ep " + par.ep + ": each " + noun + " holds the same number of expert slots "
          + "(DeepSeek's EPLB, SGLang)", "use " + counts.join(" or ") + " redundant experts ("
          + counts.map(function (c) { return String((e + c) / par.ep); }).join(" or ") + " a " + noun + ")");
      }
      throw new OverrideError("parallelism.ep", "ep " + par.ep + " does not divide the " + e + " experts",
        "use a divisor of " + e + ", e.g. " + divisorNear(e, par.ep) + ", or replicate " + fill + " of them "
        + "(engine.redundant_experts: " + fill + "; " + (e + fill) / par.ep + " a " + noun + ")");
    } else if (m.moe && par.ep > par.tp * par.dp) {
      throw new OverrideError("parallelism.ep", "ep " + par.ep + " is more than the tp x dp = " + par.tp * par.dp
        + " " + noun + "s that share the experts", "raise tp or dp, or use ep at most " + par.tp * par.dp);
    } else if (m.moe && (par.tp * par.dp) % par.ep) {
      // whole expert groups of ep over the tp x dp GPUs of a stage (checks.check_parallelism)
      const n = par.tp * par.dp, slots = m.moe.experts + (par.redundant_experts || 0);
      const gcd = function (a, b) { return b ? gcd(b, a % b) : a; };
      let near = 1;
      for (let x = 1; x <= Math.min(n, slots); x++) {  // the slots' divisors: few, whatever dp is
        if (n % x === 0 && slots % x === 0 && Math.abs(x - par.ep) <= Math.abs(near - par.ep)) near = x;
      }
      throw new OverrideError("parallelism.ep", "ep " + par.ep + " does not divide the tp x dp = " + n + " " + noun
        + "s that share the experts: groups of " + par.ep + " leave " + n % par.ep + " " + noun + "s with part of a group",
        "use an ep that divides " + n + " and the " + slots + " expert slots, e.g. " + near + ", or a dp that is a "
        + "multiple of " + par.ep / gcd(par.ep, par.tp));
    }
    if (par.tp * par.pp * par.dp > 1 && !live.inputs.hardware.link) {
      throw new OverrideError("parallelism", par.tp * par.pp * par.dp + " " + noun + "s, but " + live.hardware_title
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
    const points = parts.reduce((a, p) => a + p[0], 0);
    if (points <= b.limit) return;
    const what = parts.filter(p => p[0]).map(p => p[1]).join(" + ");
    const path = parts.reduce((a, p) => p[0] > a[0] ? p : a)[2];
    throw new OverrideError(path, what + " = " + g(points) + " points, over the budget of " + g(b.limit)
      + " points a report (about " + GR_FMT.format(points * b.bytes_per_point / 1e6, ",.0f") + " MB of results.json)",
      "use fewer values (a sweep takes larger grids), or raise the budget with --max-points N (GENREPORT_MAX_POINTS)");
  }

  /** '#set=a=1&set=b=2' -> ['a=1', 'b=2'] (values URL-encoded). */
  function fromFragment(hash) {
    const text = (hash || "").replace(/^#/, "");
    if (!text) return [];
    return text.split("&").filter(p => p.indexOf("set=") === 0).map(function (p) {
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
    const quote = s => /^[A-Za-z0-9_.,=/:@+-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
    return ["genreport", quote(specFile)].concat(texts.map(s => "--set " + quote(s))).join(" ");
  }

  return {parse: parse, applyAll: applyAll, fromFragment: fromFragment, toFragment: toFragment, command: command,
    OverrideError: OverrideError};
})();
