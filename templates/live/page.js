/* genreport live what-if: the panel, the URL fragment, and every marked element of the page.
 *
 * Reads the page's data (<script id="genreport-live">), applies the reader's overrides (GR_WHATIF), evaluates
 * the report model (GR_MODEL) and updates the elements the templates marked:
 *   data-q="<quantity id>" (+ data-batch, data-context, data-tokens, data-n, data-m, data-b, data-recipe, data-f,
 *   data-none)
 *   data-cell="decode"     a decode table cell: tok/s and what binds
 *   data-rows / data-cols  tables over a workload list: rows and columns follow the list
 *   data-prose="<name>"    sentences the report chooses (GR_PROSE)
 *   data-live="<name>"     page 1's decision rows and the inputs echoed in the text
 *   data-fact="<name>"     derived numbers of the prose
 *   data-static            not recomputed in the page: dimmed while a what-if is shown
 *   data-frame             words of the built layout (tp, pp, ep, dp): dimmed, its numbers the built ones, while a
 *                          what-if of the layout is shown; so are the formulas' symbolic forms (a slice's symbols)
 * Without scripts (or with none of this) the page is the report as built.
 */
const GR_PAGE = (function () {
  "use strict";

  const F = GR_FMT;
  const UNIT_TEXT = {"FLOP/B": "FLOP/B", "token/s": "tok/s", "token": "tokens", "1": "", "B": "", "s": "", "1/s": "requests/s"};
  const PARAMS = ["batch", "context", "tokens", "n", "m", "b", "recipe"];  // (live.PARAM_ATTRS)

  /** A value as the report prints it by its unit (render.format_value). */
  function formatValue(value, unit, integer) {
    if (value === null || value === undefined || !Number.isFinite(value)) return "none";
    const u = unit in UNIT_TEXT ? UNIT_TEXT[unit] : unit;
    if (integer === "round") return (F.nearest(value) + " " + u).trim() + " (" + F.exact(value) + ")";
    if (integer === "floor") return (F.integer(value) + " " + u).trim();
    if (unit === "s") return F.time(value);
    if (unit === "B") return F.size(value);
    if (unit === "FLOP") return F.flops(value);
    if (unit === "FLOP/s") return F.rate(value);
    if (unit === "B/s") return F.bandwidth(value);
    if (unit === "token") return F.integer(value) + " tokens";
    return (F.num(value) + " " + u).trim();
  }

  /** The layout's degrees, to tell a what-if of the layout (the words and formulas the templates chose) from one
   * of its inputs. */
  function layoutKey(p) {
    return p ? [p.tp || 1, p.pp || 1, p.ep || 1, p.dp || 1, p.redundant_experts || 0].join(",") : "1,1,1,1,0";
  }

  function paramsOf(el) {
    const p = {};
    PARAMS.forEach(function (k) {
      const v = el.getAttribute("data-" + k);
      if (v !== null) p[k] = k === "recipe" ? v : Number(v);
    });
    return p;
  }

  function baseId(id) { return id.replace(/_exact$/, ""); }

  function text(entry, el, t) {
    const f = el.getAttribute("data-f") || "value";
    const none = el.getAttribute("data-none");
    if (entry.value === null && none !== null) return none;
    if (f === "value") return formatValue(entry.value, entry.unit, (t.meta[baseId(entry.id)] || ["", ""])[1]);
    return F[f](entry.value);
  }

  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  function pill(kind) { return '<span class="pill ' + esc(kind) + '">' + esc(kind) + "</span>"; }

  function qspan(e, f, shownText) {
    const attrs = PARAMS.filter(function (k) { return k in e.params; })
      .map(function (k) { return " data-" + k + '="' + esc(e.params[k]) + '"'; }).join("");
    return '<span data-q="' + esc(e.id) + '"' + attrs + ' data-f="' + f + '" data-value="'
      + (e.value === null ? "" : e.value) + '">' + esc(shownText) + "</span>";
  }

  // ------------------------------------------------------------------------------------ tables over lists
  function retarget(node, param, value) {
    if (node.nodeType !== 1) return;
    if (node.hasAttribute("data-" + param)) node.setAttribute("data-" + param, value);
    if (node.getAttribute("data-param") === param) node.textContent = F.integer(value);
    if (node.hasAttribute("data-col") && node.hasAttribute("data-label")) {
      node.textContent = node.getAttribute("data-label") + F.integer(value);
    }
    Array.prototype.forEach.call(node.children, function (c) { retarget(c, param, value); });
  }

  /** Rows of <tbody data-rows="batch|context"> follow the workload list (clones of the first row). */
  function followRows(root, lists) {
    root.querySelectorAll("tbody[data-rows]").forEach(function (body) {
      const param = body.getAttribute("data-rows");
      const want = lists[param];
      if (!want) return;
      const rows = Array.prototype.slice.call(body.querySelectorAll(":scope > tr[data-row]"));
      const have = rows.map(function (r) { return Number(r.getAttribute("data-row")); });
      if (JSON.stringify(have) === JSON.stringify(want) || !rows.length) return;
      if (!body._template) body._template = rows[0].cloneNode(true);
      rows.forEach(function (r) { r.remove(); });
      want.forEach(function (v) {
        const row = body._template.cloneNode(true);
        row.setAttribute("data-row", v);
        retarget(row, param, v);
        body.appendChild(row);
      });
    });
  }

  /** Cells of <tr data-cols="context|tokens"> follow the list (clones of the first cell). */
  function followCols(root, lists) {
    root.querySelectorAll("tr[data-cols]").forEach(function (tr) {
      const param = tr.getAttribute("data-cols");
      const want = lists[param];
      if (!want) return;
      const cells = Array.prototype.slice.call(tr.querySelectorAll(":scope > [data-col]"));
      const have = cells.map(function (c) { return Number(c.getAttribute("data-col")); });
      if (JSON.stringify(have) === JSON.stringify(want) || !cells.length) return;
      if (!tr._template) tr._template = cells[0].cloneNode(true);
      const after = cells[0].previousElementSibling;
      cells.forEach(function (c) { c.remove(); });
      let at = after;
      want.forEach(function (v) {
        const cell = tr._template.cloneNode(true);
        cell.setAttribute("data-col", v);
        retarget(cell, param, v);
        if (at) at.after(cell); else tr.prepend(cell);
        at = cell;
      });
    });
  }

  // ------------------------------------------------------------------------------------ page 1
  function decisionRow(x, priced) {
    const n = F.num;
    let fits;
    if (x.fits) {
      fits = '<span class="ok">yes</span>' + (x.workload === "decode" && x.capacity_batch !== null
        ? ", ≤\u00a0" + F.integer(x.capacity_batch) : "")
        + (x.engine_runs ? "; past max_sequences (" + F.integer(x.engine_runs) + ")" : "");  // decision.rows
    } else {
      fits = '<span class="bad">no</span>';
    }
    const ms = x.workload === "decode" ? F.sig3(x.ms_per_token)
      : x.workload === "prefill" ? F.sig3(x.ms_to_first_token) + " (TTFT)" : "—";
    let lever = "—";
    if (x.lever) {
      const effect = {latency: "faster", roof: "the roof"}[x.lever.effect] || x.lever.effect;
      lever = esc(x.lever.change) + (x.lever.gain ? ": " + n(x.lever.gain) + "× " + esc(effect)
        : ": " + esc(x.lever.effect));
    }
    return "<tr><td>" + esc(x.label) + "</td><td>" + pill(x.binds) + '</td><td class="n">' + F.time(x.time)
      + '</td>\n<td class="n">' + (x.other_roof ? n(x.other_roof) + "×\u00a0" + x.other : "—") + "</td>\n<td>" + fits
      + '</td>\n<td class="n">' + ms + '</td>\n<td class="n">'
      + (x.workload === "decode" ? n(x.tokens_per_s_sequence) : "—") + '</td>\n<td class="n">'
      + n(x.tokens_per_s) + "</td>\n"
      + (priced ? '<td class="n">' + (x.usd_per_mtok !== null ? F.sig3(x.usd_per_mtok)
        + (x.workload === "prefill" ? " (prompt)" : "") : "—") + "</td>" : "")
      + "\n<td>" + lever + "</td></tr>\n";
  }

  /** The many-GPU chapter's table: one row per batch and context, from the layout's ledgers (parallel.js). */
  function parRows(res, inp) {
    const p = res.parallel, lead = res.lead, w = inp.workloads;
    if (!p || !p.decode[lead]) return "";
    const g = p.decode[lead], suffix = lead === "exact" ? "_exact" : "", k = inp.hardware.kernels;
    const noDecodeCost = !!k.absent && !k.decode;  // no sourced per-kernel cost: left out, not 0 (the template's)
    let out = "";
    w.decode_batch.forEach(function (b, i) {
      w.decode_context.forEach(function (s, j) {
        const at = {batch: b, context: s};
        const cell = function (qid, f) {
          const e = res.entries.get(GR_MODEL.key(qid + suffix, at));
          return e ? qspan(e, f, f === "value" ? formatValue(e.value, e.unit, "") : F[f](e.value)) : "—";
        };
        const binds = p.binds[i][j];
        out += "<tr><td>" + F.integer(b) + ", " + F.integer(s) + '</td><td class="n">' + cell("decode_time_bound", "time")
          + '</td>\n<td class="n">' + cell("decode_time_serial", "time") + '</td><td class="n">'
          + cell("decode_time_comm", "time") + '</td><td class="n">' + cell("decode_time_comm_estimate", "time")
          + '</td><td class="n">' + (noDecodeCost ? "left out" : cell("decode_time_overhead", "time")) + "</td><td>"
          + pill(binds) + "</td><td>"
          + pill(p.estimate_binds[i][j]) + '</td>\n<td class="n">'
          + (binds !== "capacity" ? cell("decode_tokens_per_s_gpu", "num") : "—") + "</td></tr>\n";
      });
    });
    return out;
  }

  /** The layout's prefill rows (render._parallel_context's par_prefill): bound, estimate, its largest term. */
  function parPrefillRows(res, inp) {
    const p = res.parallel, lead = res.lead;
    if (!p || !p.prefill[lead]) return "";
    const suffix = lead === "exact" ? "_exact" : "", k = inp.hardware.kernels;
    const noPrefillCost = !!k.absent && !k.launch;  // no sourced per-kernel cost: left out (the template's)
    return inp.workloads.prefill_prompt.map(function (tk, i) {
      const cell = function (qid) {
        const e = res.entries.get(GR_MODEL.key(qid + suffix, {tokens: tk}));
        return e ? qspan(e, "time", F.time(e.value)) : "—";
      };
      // a prompt whose KV cache does not fit (the template's "(does not fit)", verdicts.prefill_fits)
      const unfit = res.verdicts.prefill_fits && !res.verdicts.prefill_fits[i] ? " (does not fit)" : "";
      return "<tr><td>" + F.integer(tk) + unfit + '</td><td class="n">' + cell("prefill_time_bound") + '</td><td class="n">'
        + cell("prefill_time_serial") + '</td>\n<td class="n">' + cell("prefill_time_comm_estimate")
        + '</td><td class="n">' + (noPrefillCost ? "left out" : cell("prefill_time_overhead")) + "</td><td>"
        + pill(p.prefill_estimate_binds[i])
        + "</td></tr>\n";
    }).join("");
  }

  /** A row of the levers table (prose.whatif_rows and its template row). */
  function leverRow(lv) {
    const shownAs = function (v) {
      if (lv.kind === "time") return F.time(v);
      if (lv.kind === "ridge") return "ridge " + F.num(v);
      return "ceiling " + F.num(v) + " at " + F.integer(lv.context);
    };
    return "<tr><td>" + esc(lv.change) + "</td><td>" + esc(lv.what) + '</td><td class="n">' + esc(shownAs(lv.before))
      + '</td><td class="n">' + esc(shownAs(lv.after)) + '</td>\n<td class="n">' + esc(F.times(lv.gain)) + "</td><td>"
      + esc(lv.note) + "</td></tr>\n";
  }

  // ------------------------------------------------------------------------------------ state
  let data = null;

  let built = null;

  /** The spec's own entries, for each changed number's ratio to the spec's value. */
  function builtEntries(t) {
    if (!built) built = GR_MODEL.evaluate(data.inputs, t).entries;
    return built;
  }

  function update(root, overrides) {
    const t = data.tables;
    const applied = GR_WHATIF.applyAll(data, overrides);
    const inp = applied.inputs;
    const res = GR_MODEL.evaluate(inp, t);
    const dec = GR_MODEL.decision(res, inp, t);
    const w = inp.workloads, noun = inp.hardware.noun || "GPU";  // what the report calls one device
    followRows(root, {batch: w.decode_batch, context: w.decode_context});
    const tokens = Array.from(new Set([1].concat(w.prefill_prompt, w.training_tokens ? [w.training_tokens] : [])))
      .sort(function (a, b) { return a - b; });
    followCols(root, {context: w.decode_context, tokens: tokens});
    let count = 0;
    const active = overrides.length > applied.errors.length;
    // a what-if of the layout: the words and formulas the templates chose for the built one no longer apply
    const reframed = active && layoutKey(inp.parallelism) !== layoutKey(data.inputs.parallelism);
    const keepsBuilt = el => el.closest("[data-static]") || (reframed && el.closest("[data-frame]"));
    root.querySelectorAll("[data-q], [data-q-gone]").forEach(function (el) {
      // a dimmed part states the spec as built, its numbers too: no sentence mixes its words with new numbers
      const still = active && keepsBuilt(el);
      if (still) el.setAttribute("data-built", "");
      else el.removeAttribute("data-built");
      if (still) return;
      const id = el.getAttribute("data-q") || el.getAttribute("data-q-gone");
      const e = res.entries.get(GR_MODEL.key(id, paramsOf(el)));
      if (!e) {  // not a number of this what-if (e.g. a batch it leaves out): a dash, dimmed as its label is
        el.removeAttribute("data-q");
        el.setAttribute("data-q-gone", id);
        el.textContent = "—";
        el.classList.add("stale");
        el.setAttribute("title", "not a point of this what-if: run the command for its own");
        return;
      }
      if (el.hasAttribute("data-q-gone")) {
        el.removeAttribute("data-q-gone");
        el.setAttribute("data-q", id);
        el.classList.remove("stale");
        el.removeAttribute("title");
      }
      el.textContent = text(e, el, t);
      el.setAttribute("data-value", e.value === null ? "" : String(e.value));
      const was = builtEntries(t).get(GR_MODEL.key(id, paramsOf(el)));
      const ratio = active && was && was.value && e.value !== null ? e.value / was.value : null;
      if (ratio !== null && Math.abs(ratio - 1) > 1e-9) el.setAttribute("data-ratio", "×" + F.num(ratio));
      else el.removeAttribute("data-ratio");
      count += 1;
    });
    const binds = res.verdicts.decode_binds || [];
    root.querySelectorAll("[data-cell=decode]").forEach(function (td) {
      const b = Number(td.getAttribute("data-batch")), s = Number(td.getAttribute("data-context"));
      const i = w.decode_batch.indexOf(b), j = w.decode_context.indexOf(s);
      if (i < 0 || j < 0) return;
      const kind = binds[i][j];
      const e = res.entries.get(GR_MODEL.key("decode_tokens_per_s" + (res.lead === "exact" ? "_exact" : ""),
        {batch: b, context: s}));
      td.innerHTML = kind === "capacity" ? pill("capacity") + " does not fit"
        : qspan(e, "num", F.num(e.value)) + " tok/s " + pill(kind);
    });
    const sc = res.scalars[res.lead];
    const facts = Object.assign({bound_ratio: sc.weight_flops_time ? sc.weight_stream_time / sc.weight_flops_time : null,
      compute_idle_share: sc.weight_stream_time ? 1 - sc.weight_flops_time / sc.weight_stream_time : null},
      GR_MODEL.routedFacts(res, inp, t));  // chapter 3's routed-expert row
    root.querySelectorAll("[data-fact]").forEach(function (el) {
      const k = el.getAttribute("data-fact");
      if (k in facts) el.textContent = k === "compute_idle_share" ? F.pct(facts[k]) : F.num(facts[k]);
      // a prompt the what-if dropped (routed_weight_reuse_<tokens>) keeps the built number, marked stale
      el.classList.toggle("stale", !(k in facts) && k.startsWith("routed_weight_reuse_") && active);
    });
    echoInputs(root, inp, t, active);
    const levers = dec ? dec.levers : GR_MODEL.levers(res, inp, t);
    root.querySelectorAll("[data-live=levers]").forEach(function (body) {
      body.innerHTML = levers.map(lv => F.device(leverRow(lv), noun)).join("");  // as prose.whatif_rows (fmt.device)
    });
    root.querySelectorAll("[data-live=par_table]").forEach(function (body) { body.innerHTML = parRows(res, inp); });
    root.querySelectorAll("[data-live=par_prefill]").forEach(function (body) { body.innerHTML = parPrefillRows(res, inp); });
    root.querySelectorAll("[data-live=decision]").forEach(function (body) {
      if (dec) body.innerHTML = dec.rows.map(x => F.device(decisionRow(x, !!inp.hardware.price_per_hour), noun)).join("");
      else body.classList.toggle("stale", active);  // a many-GPU layout's rows: Python's layout search only
    });
    if (typeof GR_PROSE !== "undefined") {
      root.querySelectorAll("[data-prose]").forEach(function (el) {
        const name = el.getAttribute("data-prose");
        const fn = GR_PROSE[name === "summary" ? "sentences" : name];
        const raw = fn ? fn(res, inp, dec) : null;  // the device's noun where it is not a GPU (fmt.device)
        const out = Array.isArray(raw) ? raw.map(x => F.device(x, noun)) : F.device(raw, noun);
        el.classList.toggle("stale", active && (out === null || out === undefined));
        if (out === null || out === undefined) return;
        if (Array.isArray(out)) {
          const tag = el.tagName === "UL" ? "li" : "p";
          el.innerHTML = out.map(function (s, k) {
            const body = name === "summary" && k === 0 ? "<strong>" + esc(s) + "</strong>" : esc(s);
            return "<" + tag + ">" + body + "</" + tag + ">";
          }).join("\n");
        } else {
          el.textContent = out;
        }
      });
    }
    const shape = serving(root, res, inp, t, active, keepsBuilt);
    if (typeof GR_FIGS !== "undefined" && GR_FIGS.live) GR_FIGS.live(root, active ? {res: res, inp: inp, t: t} : null);
    root.querySelectorAll("[data-static]").forEach(function (el) {
      el.classList.toggle("stale", active);
      if (active) el.setAttribute("title", "for the spec as built: not recomputed in the page");
      else el.removeAttribute("title");
    });
    root.querySelectorAll("[data-frame], .formula img.math, .formula .derivation").forEach(function (el) {
      if (el.closest("[data-static]")) return;  // dimmed with it, or not, above
      el.classList.toggle("stale", reframed);
      if (reframed) el.setAttribute("title", "for the layout as built: run the command for this layout's");
      else el.removeAttribute("title");
    });
    // the serving chapter's words for a request with decode rounds, or for a one-token one (data-shape): dimmed where
    // the what-if's request is the other kind
    root.querySelectorAll("[data-shape]").forEach(function (el) {
      if (el.closest("[data-static]")) return;
      if (active && shape !== null && el.getAttribute("data-shape") !== shape) {
        el.classList.add("stale");
        el.setAttribute("title", "for the request as built: its words do not hold for this what-if's output tokens");
      } else if (!(reframed && el.closest("[data-frame]"))) {
        el.classList.remove("stale");
        el.removeAttribute("title");
      }
    });
    root.documentElement.classList.toggle("whatif-live", active);
    return {errors: applied.errors, inputs: inp, results: res, count: count, reframed: reframed};
  }

  /** The serving chapter's numbers (techniques.js): its data-sv spans, lever rows and goodput sentence; the kind of
   * request they describe ("prefill": one output token; "decode"), null where the page has none. */
  function serving(root, res, inp, t, active, keepsBuilt) {
    const sv = typeof GR_SERVING !== "undefined" ? GR_SERVING.compute(res, inp, t) : null;
    if (!sv) return null;
    const n = sv.numbers, fmt = {integer: F.integer, nearest: F.nearest, num: F.num, time: F.time, f2: x => F.format(x, ".2f"),
      rps: x => F.num(x) + " requests/s", kib: F.kib, tokens: x => F.integer(x) + (x === 1 ? " token" : " tokens")}, usd = x => x !== null ? F.sig3(x) : "—";
    // no sequence fits at the what-if: the chapter's techniques have no numbers (Python states none), so the page's
    // keep the built spec's, dimmed
    root.querySelectorAll("[data-sv], [data-live=sv_levers], [data-live=sv_ends], [data-live=sv_goodput]")
      .forEach(el => el.classList.toggle("stale", active && !sv.holds));
    root.querySelectorAll("[data-sv]").forEach(function (el) {
      if (active && keepsBuilt(el) || !sv.holds) return;  // the built spec's words, its numbers too
      const v = el.getAttribute("data-sv").split(".").reduce((o, k) => o == null ? null : o[k], sv);
      el.textContent = v == null ? el.getAttribute("data-none") || "n/a" : fmt[el.getAttribute("data-f")](v);
    });
    const arrow = (x, f) => f(x[0]) + " → " + f(x[1]);
    root.querySelectorAll("[data-live=sv_levers]").forEach(function (body) {
      if (sv.holds) body.innerHTML = sv.levers.map(x => "<tr><td>" + esc(x.technique) + "</td><td>" + esc(x.setting) + '</td>\n<td class="n">'
        + arrow(x.ttft, F.time) + '</td><td class="n">' + arrow(x.tpot, F.time) + '</td>\n<td class="n">'
        + arrow(x.per_gpu, F.num) + '</td>\n<td class="n">' + (x.usd[0] !== null ? arrow(x.usd, usd) : "—")
        + "</td></tr>").join("\n");
    });
    const cell = x => '<td class="n">' + x + "</td>";
    root.querySelectorAll("[data-live=sv_rows]").forEach(function (body) {
      body.classList.toggle("stale", active && !sv.holds);  // a layout that cannot serve: the built rows, dimmed
      if (!sv.holds) return;
      body.innerHTML = sv.rows.map(r => ["bound", "serial"].map(function (est) {
        const x = r[est];
        return "<tr><td>" + (est === "bound" ? esc(r.label) + ", bound" : "&nbsp;&nbsp;serial estimate") + "</td>\n"
          + cell(F.integer(r.batch)) + cell(F.time(x.ttft)) + cell(F.time(x.tpot)) + cell(F.time(x.e2e)) + "\n"
          + cell(F.num(x.tokens_per_s_user)) + cell(F.num(x.tokens_per_s_gpu)) + "\n" + cell(usd(x.usd_per_mtok_in))
          + "\n" + cell(usd(x.usd_per_mtok_out)) + "\n" + cell(usd(x.joules_per_token)) + "</tr>";
      }).join("\n")).join("\n");
    });
    // a one-token request's table may have no row (no decode round for a technique to act on): hidden, as built
    root.querySelectorAll("[data-live=sv_levers], [data-live=sv_ends]").forEach(function (el) {
      if (sv.holds) (el.closest(".scroll") || el).hidden = sv.levers.length === 0;
    });
    root.querySelectorAll("[data-live=sv_ends]").forEach(function (body) {
      if (sv.holds) body.innerHTML = sv.levers.map(x => "<li><strong>" + esc(x.technique) + "</strong> (" + esc(x.note) + "): "
        + esc(x.ends) + ".</li>").join("\n");
    });
    const gpus = n.replica_gpus, dp = inp.parallelism.dp || 1, g = n.goodput_rate, st = n.steady_step_time;
    const noun = inp.hardware.noun || "GPU";
    // past the goodput: no engine holds that steady state (the template's "past")
    const past = g && n.rate > g ? ", past the " + (F.num(g) === F.num(n.rate) ? F.format(g, ".6g") : F.num(g))
      + " requests/s the " + n.goodput_binds + " allows: no engine holds that steady state" : "";
    const clause = "The goodput of one replica" + (gpus > 1 ? " (" + gpus + " " + noun + "s, each computing its slice of every "
      + "request)" : dp > 1 ? " (one " + noun + ", one of " + dp + " replicas)" : "") + ", in the steady state of one " + noun
      + "'s ledgers (no collectives), is the least of the " + (n.prefill_only ? "two" : "goodput_rate_engine" in n ? "five" : "four") + ": "
      + (g ? "<strong>" + F.num(g) + " requests/s</strong>" + (gpus > 1 ? ", " + F.num(n.goodput_rate_per_gpu)
        + " per " + noun : "") + ", set by the " + n.goodput_binds : n.goodput_binds === "TPOT target"
        ? "none: the target is below the weights' stream time" : "none: the " + n.goodput_binds + " allows no rate")
      + "." + ("rate" in n ? " At the spec's " + F.num(n.rate) + " requests/s " + (n.prefill_only
        ? "its prompts take " + F.share(n.rate_compute_share) + " of its compute (λ F<sub>r</sub> / P)" + past
        : "a step takes " + (st ? F.time(st) + " with " + F.num(n.steady_concurrency) + " sequences decoding" + past
          : "no steady time: the rate is past what the memory allows")) + "." : "");
    root.querySelectorAll("[data-live=sv_goodput]").forEach(function (el) { if (sv.holds) el.innerHTML = clause; });
    return sv.holds ? (n.prefill_only ? "prefill" : "decode") : null;
  }

  /** "bf16", or "weights int4 (group 128), KV bf16, compute bf16" (Precision.label). */
  function precisionLabel(p, hw, t) {  // (Precision.label: "per class" where the classes compute apart on hw)
    const apart = GR_MODEL.computesApart(p, hw.dense, t);
    return p.weights === p.kv_cache && p.kv_cache === p.compute && !p.classes ? p.weights
      : "weights " + GR_MODEL.weightsLabel(p) + (p.group_size ? " (group " + p.group_size + ")"
        : t.integer_formats.indexOf(p.weights) >= 0 && !p.classes ? " (no group scales)" : "") + ", KV " + p.kv_cache
        + ", compute " + (apart ? "per class" : p.compute);
  }

  /** A what-if's title, as a build titles one (Results.what_if_title): its model on its GPUs at its precision. */
  function whatIfTitle(inp, t) {
    const par = inp.parallelism, gpus = par ? par.tp * par.pp * par.dp : 1;
    return "What-if: " + inp.model.title + " on " + (gpus > 1 ? gpus + " × " : "one ") + inp.hardware.title + ", "
      + precisionLabel(inp.precision, inp.hardware, t);
  }

  const builtText = new Map();  // the heading and the document's title as built, put back when the what-if ends

  function echoInputs(root, inp, t, active) {
    const m = inp.model, p = inp.precision;
    const wb = GR_MODEL.weightBytes(p, t, m);
    const values = {"model.layers": m.layers, "model.hidden_size": m.hidden_size, "model.heads": m.heads,
      "model.kv_heads": m.kv_heads, "model.moe.experts": m.moe ? m.moe.experts : null,
      "model.moe.active_experts": m.moe ? m.moe.active_experts : null, "precision.label": precisionLabel(p, inp.hardware, t),
      "precision.weight_bytes": F.num(wb), compute: GR_MODEL.computeLabel(p, inp.hardware, m, t)};
    const doc = root.ownerDocument || root;
    const title = doc.querySelector("title");
    root.querySelectorAll("[data-live=headline]").forEach(function (el) {
      [el, title].forEach(function (x) {
        if (!x) return;
        if (!builtText.has(x)) builtText.set(x, x.textContent);
        x.textContent = active ? whatIfTitle(inp, t) : builtText.get(x);
      });
    });
    root.querySelectorAll("[data-live=kicker]").forEach(function (el) {  // "... · roofline report · what-if"
      if (!builtText.has(el)) builtText.set(el, el.textContent);
      const built = builtText.get(el), mark = " · what-if";
      el.textContent = active && !built.endsWith(mark) ? built + mark : built;
    });
    root.querySelectorAll("[data-live]").forEach(function (el) {
      const k = el.getAttribute("data-live");
      if (k in values && values[k] !== null) el.textContent = String(values[k]);
      if (k === "workloads") el.innerHTML = workloadsText(inp.workloads);
    });
  }

  function workloadsText(w) {
    const list = function (xs, sep) { return xs.map(F.integer).join(sep); };
    let out = w.decode_batch.length ? "decode: batch " + list(w.decode_batch, ", ") + "; context "
      + list(w.decode_context, ", ") : "";
    if (w.prefill_prompt.length) out += "\n<br>prefill: " + list(w.prefill_prompt, ", ") + " tokens";
    if (w.training_tokens) out += "\n<br>training: " + F.integer(w.training_tokens) + "-token micro-batch";
    return out;
  }

  // ------------------------------------------------------------------------------------ the panel
  function fields() {
    const hw = data.texts, p = data.inputs.precision, m = data.inputs.model, w = data.inputs.workloads;
    const tok = function (x) { return x % 1024 === 0 && x >= 1024 ? (x / 1024) + "k" : String(x); };
    const list = function (xs) { return xs.length === 1 ? tok(xs[0]) : "[" + xs.map(tok).join(", ") + "]"; };
    const out = [
      ["Hardware", "hardware.memory.bandwidth", "HBM bandwidth", hw["memory.bandwidth"]],
      ["Hardware", "hardware.memory.capacity", "memory capacity", hw["memory.capacity"]],
      ["Hardware", "hardware.peak.dense." + p.compute, "dense " + p.compute + " peak", hw["peak.dense." + p.compute]],
    ].concat(p.classes && typeof (data.precision_spec || {}).weights === "object" ? ["experts", "attention", "embeddings", "default"].map(function (c) {
      return ["Precision", "precision.weights." + c, "weights: " + (c === "default" ? "the rest" : c), p.classes[c]];
    }) : [["Precision", "precision.weights", "weights", p.weights]]).concat([
      ["Precision", "precision.kv_cache", "KV cache", p.kv_cache],
      ["Precision", "precision.compute", "compute", p.compute],
      ["Model", "model.layers", "layers L", String(m.layers)],
      ["Model", "model.hidden_size", "hidden size d", String(m.hidden_size)],
      ["Model", "model.heads", "query heads", String(m.heads)],
      ["Model", "model.kv_heads", "KV heads", String(m.kv_heads)],
      ["Model", "model.ffn.size", "FFN size", String(m.ffn_size)],
      ["Model", "model.vocab_size", "vocabulary", String(m.vocab_size)],
    ]);
    const link = data.inputs.hardware.link, par = data.inputs.parallelism;
    if (link && par) {
      out.push(["Hardware", "hardware.interconnect.bandwidth_per_direction", "link, per direction",
        F.bandwidth(link.bandwidth_per_direction)]);
      if (link.latency) out.push(["Hardware", "hardware.interconnect.latency", "link latency per step", F.time(link.latency)]);
    }
    if (par) {
      ["tp", "pp", "ep", "dp"].forEach(function (k) {
        out.push(["Layout", "parallelism." + k, {tp: "tensor parallel", pp: "pipeline stages", ep: "expert parallel",
          dp: "data parallel replicas"}[k], String(par[k])]);
      });
    }
    if (m.moe) {
      out.push(["Model", "model.moe.experts", "experts", String(m.moe.experts)]);
      out.push(["Model", "model.moe.active_experts", "active experts", String(m.moe.active_experts)]);
    }
    if (w.decode_batch.length) out.push(["Workload", "workloads.decode.batch", "decode batch", list(w.decode_batch)]);
    if (w.decode_context.length) {
      out.push(["Workload", "workloads.decode.context", "decode context", list(w.decode_context)]);
    }
    if (w.prefill_prompt.length) out.push(["Workload", "workloads.prefill.prompt", "prompt", list(w.prefill_prompt)]);
    if (w.training_tokens) {
      out.push(["Workload", "workloads.training.micro_batch_tokens", "training tokens", tok(w.training_tokens)]);
    }
    const sv = data.inputs.serving;
    if (sv && par) {  // the serving chapter's inputs (techniques.js needs the layout's code)
      out.push(["Serving", "serving.prompt", "prompt tokens", tok(sv.prompt)], ["Serving", "serving.output", "output tokens", tok(sv.output)]);
      if (sv.ttft) out.push(["Serving", "serving.ttft", "TTFT target", F.time(sv.ttft)]);
      if (sv.tpot) out.push(["Serving", "serving.tpot", "TPOT target", F.time(sv.tpot)]);
      if (sv.users) out.push(["Serving", "serving.users", "users", String(sv.users)]);
      out.push(["Serving", "serving.chunk", "prefill chunk", tok(sv.chunk)], ["Serving", "serving.prefix_hit", "prefix cached", String(sv.prefix_hit)]);
      if (sv.speculative) out.push(["Serving", "serving.speculative.acceptance", "draft acceptance", String(sv.speculative.acceptance)]);
    }
    return out;
  }

  function buildPanel(panel) {
    const groups = {};
    const f = fields();
    f.forEach(function (x) { (groups[x[0]] = groups[x[0]] || []).push(x); });
    let html = '<div class="live-grid">';
    Object.keys(groups).forEach(function (g) {
      html += "<fieldset><legend>" + g + "</legend>";
      groups[g].forEach(function (x) {
        html += '<label><span>' + esc(x[2]) + '</span><input data-path="' + esc(x[1]) + '" value="' + esc(x[3])
          + '" data-spec="' + esc(x[3]) + '" spellcheck="false" autocomplete="off"><small data-ratio></small></label>';
      });
      html += "</fieldset>";
    });
    html += '</div><label class="live-other"><span>more <code>--set</code> lines</span>'
      + '<textarea rows="2" data-other spellcheck="false" placeholder="model.moe.shared_experts=2"></textarea></label>'
      + '<p class="live-errors" role="alert" data-errors></p>'
      + '<p class="live-actions"><button type="button" data-reset>Reset to the spec</button> '
      + '<button type="button" data-copy>Copy as command</button> <code data-command></code></p>'
      + '<p class="meta" data-status></p>';
    panel.querySelector("[data-fields]").innerHTML = html;
  }

  function collect(panel) {
    const out = [];
    panel.querySelectorAll("input[data-path]").forEach(function (el) {
      const v = el.value.trim();
      if (v && v !== el.getAttribute("data-spec")) out.push(el.getAttribute("data-path") + "=" + v);
    });
    panel.querySelector("[data-other]").value.split("\n").forEach(function (line) {
      if (line.trim()) out.push(line.trim());
    });
    return out;
  }

  function fill(panel, overrides) {
    const other = [];
    panel.querySelectorAll("input[data-path]").forEach(function (el) { el.value = el.getAttribute("data-spec"); });
    overrides.forEach(function (o) {
      let path;
      try { path = GR_WHATIF.parse(o, data)[0]; } catch (e) { path = null; }
      const el = path && panel.querySelector('input[data-path="' + path + '"]');
      if (el) el.value = o.slice(o.indexOf("=") + 1).trim(); else other.push(o);
    });
    panel.querySelector("[data-other]").value = other.join("\n");
  }

  function ratios(panel, inp) {
    const base = data.inputs;
    const si = {"hardware.memory.bandwidth": [base.hardware.bandwidth, inp.hardware.bandwidth],
      "hardware.memory.capacity": [base.hardware.capacity, inp.hardware.capacity],
      "model.layers": [base.model.layers, inp.model.layers], "model.hidden_size": [base.model.hidden_size, inp.model.hidden_size],
      "model.heads": [base.model.heads, inp.model.heads], "model.kv_heads": [base.model.kv_heads, inp.model.kv_heads],
      "model.ffn.size": [base.model.ffn_size, inp.model.ffn_size], "model.vocab_size": [base.model.vocab_size, inp.model.vocab_size]};
    Object.keys(base.hardware.dense).forEach(function (k) {
      si["hardware.peak.dense." + k] = [base.hardware.dense[k], inp.hardware.dense[k]];
    });
    if (base.hardware.link && inp.hardware.link) {
      si["hardware.interconnect.bandwidth_per_direction"] = [base.hardware.link.bandwidth_per_direction,
        inp.hardware.link.bandwidth_per_direction];
      si["hardware.interconnect.latency"] = [base.hardware.link.latency, inp.hardware.link.latency];
    }
    if (base.parallelism && inp.parallelism) {
      ["tp", "pp", "ep", "dp"].forEach(function (k) { si["parallelism." + k] = [base.parallelism[k], inp.parallelism[k]]; });
    }
    if (base.model.moe) {
      si["model.moe.experts"] = [base.model.moe.experts, inp.model.moe.experts];
      si["model.moe.active_experts"] = [base.model.moe.active_experts, inp.model.moe.active_experts];
    }
    panel.querySelectorAll("input[data-path]").forEach(function (el) {
      const small = el.parentNode.querySelector("[data-ratio]");
      const pair = si[el.getAttribute("data-path")];
      const changed = el.value.trim() !== el.getAttribute("data-spec");
      el.classList.toggle("changed", changed);
      small.textContent = changed && pair && pair[0] ? "×" + F.num(pair[1] / pair[0]) + " the spec's" : "";
    });
  }

  /** The overrides the page applied, the only ones "Copy as command" offers: each passed the loader's rules. */
  function applied(overrides, errors) {
    return overrides.filter(function (o) { return !errors.some(function (e) { return e.text === o; }); });
  }

  function run(panel, overrides, push) {
    let out;
    try {
      out = update(document, overrides);
    } catch (e) {  // never leave the page half updated: show it as built, and say why
      update(document, []);
      panel.querySelector("[data-errors]").textContent = "this what-if could not be recomputed in the page ("
        + e.message + "); the page shows the spec as built: run the command for it";
      let ok = [];
      try { ok = applied(overrides, GR_WHATIF.applyAll(data, overrides).errors); } catch (x) { /* offer none */ }
      panel.querySelector("[data-command]").textContent = GR_WHATIF.command(data.spec_file, data.overrides.concat(ok));
      return null;
    }
    const ok = applied(overrides, out.errors);
    panel.querySelector("[data-errors]").textContent = out.errors.map(function (e) {
      return "--set " + e.text + ": " + e.message;
    }).join("\n");
    panel.querySelector("[data-command]").textContent = GR_WHATIF.command(data.spec_file, data.overrides.concat(ok));
    panel.querySelector("[data-status]").textContent = ok.length
      ? out.count + " numbers recomputed in this page; dimmed parts are the spec's as built (run the command for them)."
        + (out.reframed ? " The layout changed: the formulas and the words chosen for the built layout are dimmed, and "
          + "paragraphs only another layout has are not shown." : "")
      : "";
    ratios(panel, out.inputs);
    if (push) {
      const frag = GR_WHATIF.toFragment(ok);
      history.replaceState(null, "", frag || location.pathname + location.search);
    }
    return out;
  }

  /** {id: [unit, rounding]} from the page data's groups (live.compact_tables). */
  function expandMeta(t) {
    const meta = {};
    Object.keys(t.units).forEach(function (u) { t.units[u].forEach(function (id) { meta[id] = [u, ""]; }); });
    Object.keys(t.integer).forEach(function (k) { t.integer[k].forEach(function (id) { meta[id][1] = k; }); });
    return meta;
  }

  function init() {
    const node = document.getElementById("genreport-live");
    const panel = document.getElementById("live");
    if (!node || !panel) return;
    data = JSON.parse(node.textContent);
    data.tables.meta = expandMeta(data.tables);
    buildPanel(panel);
    panel.hidden = false;
    const fromUrl = GR_WHATIF.fromFragment(location.hash);
    fill(panel, fromUrl);
    if (fromUrl.length) panel.open = true;
    run(panel, fromUrl, false);
    let timer = null;
    const go = function () { clearTimeout(timer); timer = setTimeout(function () { run(panel, collect(panel), true); }, 150); };
    panel.addEventListener("input", go);
    panel.querySelector("[data-reset]").addEventListener("click", function () {
      fill(panel, []);
      run(panel, [], true);
    });
    panel.querySelector("[data-copy]").addEventListener("click", function () {
      const cmd = panel.querySelector("[data-command]").textContent;
      if (navigator.clipboard) navigator.clipboard.writeText(cmd).catch(function () {});
      const range = document.createRange();
      range.selectNodeContents(panel.querySelector("[data-command]"));
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
    });
    window.addEventListener("hashchange", function () {
      const o = GR_WHATIF.fromFragment(location.hash);
      fill(panel, o);
      run(panel, o, false);
    });
  }

  if (typeof document !== "undefined") {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init); else init();
  }

  return {formatValue: formatValue, decisionRow: decisionRow, leverRow: leverRow, update: update, expandMeta: expandMeta};
})();
