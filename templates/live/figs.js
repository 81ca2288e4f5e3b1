/* genreport live figures: figure 6 (roofline) and figure 4 (decode intensity) drawn as SVG text.
 *
 * GR_FIGS.roofline(d) and GR_FIGS.decodeIntensity(d) are pure: they read the plain-number dict d (its shape is
 * documented in generator/present/figures/live_data.py, which builds the spec's own d) and return the SVG as a
 * string, the same bytes for the same d.  No DOM access, so node can run them.  The drawing follows the
 * matplotlib figures (generator/present/figures/fig6_roofline.py, fig4_decode_intensity.py, style.py): the same
 * canvas in points, axes, colours, markers, legends and label placement, with DejaVu Sans metrics built in.
 * d.layout === "narrow" draws the phone layout; d.baseline (a d of the same shape) is drawn faded underneath.
 */
const GR_FIGS = (function () {
  "use strict";

  // -- style (style.py) -------------------------------------------------------------------------------------------
  const BLACK = "#000000", ORANGE = "#E69F00", SKY = "#56B4E9", GREEN = "#009E73", YELLOW = "#F0E442",
    BLUE = "#0072B2", VERMILION = "#D55E00", PURPLE = "#CC79A7", GREY = "#7f7f7f", INK = "#555555";
  const CONTEXT_COLOURS = [BLUE, GREEN, PURPLE, VERMILION, SKY, "#332288", "#999933", "#882255", "#44AA99", BLACK];
  const COMPARE_COLOURS = [SKY, VERMILION, PURPLE, GREEN, YELLOW];
  const WIDE = [460.8, 259.2], NARROW = [288, 345.6];  // 6.4 x 3.6 in and 4.0 x 4.8 in, in points
  const FONT = "DejaVu Sans, Bitstream Vera Sans, Verdana, sans-serif";
  // DejaVu Sans advance widths in 1/1000 em, characters 32..126 (from the font matplotlib draws with)
  const ADV = [318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636,
    636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295,
    656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613,
    635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592,
    592, 525, 636, 337, 636, 838];
  const ADV_MORE = { "·": 318, "→": 838, "∞": 833, "–": 500, "×": 838, "≈": 838, "…": 1000 };
  const ASC = 0.76, LP = 0.995;  // baseline below the top of a line box, and the height of "lp", in em
  // Marker sizes (points) of figure 6, one shape per workload kind (style.MARKERS)
  const SIZES = { "decode": 6.0, "decode-cap": 6.5, "prefill": 6.5, "training": 7.5, "measured": 11.0 };
  const SHAPES = { "decode": "o", "decode-cap": "o", "prefill": "s", "training": "^", "measured": "*" };
  // Candidate label offsets (points) from the anchor, nearest first: [dx, dy (up), ha, va] (style.OFFSETS)
  const NEAR = [[6, 0, "left", "center"], [-6, 0, "right", "center"], [0, 7, "center", "bottom"],
    [0, -7, "center", "top"], [5, 5, "left", "bottom"], [5, -5, "left", "top"], [-5, 5, "right", "bottom"],
    [-5, -5, "right", "top"]];
  const OFFSETS = [];
  for (const k of [1, 2.2, 3.6, 5.2, 7]) for (const o of NEAR) OFFSETS.push([k * o[0], k * o[1], o[2], o[3]]);
  const GRID = [];
  for (let dx = -150; dx <= 150; dx += 10) for (let dy = -90; dy <= 90; dy += 8) GRID.push([dx, dy, "center", "center"]);
  GRID.sort((a, b) => Math.hypot(a[0], a[1]) - Math.hypot(b[0], b[1]));

  // -- numbers (style.num, tick, tokens, gib) ---------------------------------------------------------------------
  const ok = (x) => typeof x === "number" && Number.isFinite(x);
  const pos = (x) => ok(x) && x > 0;

  function roundEven(x) {  // Python's rounding of a float to an integer when formatting: ties to even
    const f = Math.floor(x), diff = x - f;
    if (diff === 0.5) return f % 2 === 0 ? f : f + 1;
    return Math.round(x);
  }
  function grouped(n) {
    const s = String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return n < 0 ? "-" + s : s;
  }
  function gfmt(x, p) {  // Python's f"{x:.{p}g}"
    if (x === 0) return "0";
    const e = Math.floor(Math.log10(Math.abs(Number(x.toPrecision(p)))));
    if (e < -4 || e >= p) {
      const [m, ex] = x.toExponential(p - 1).split("e");
      const mant = m.includes(".") ? m.replace(/0+$/, "").replace(/\.$/, "") : m;
      const n = Math.abs(Number(ex));
      return mant + "e" + (Number(ex) < 0 ? "-" : "+") + (n < 10 ? "0" + n : String(n));
    }
    const s = x.toFixed(Math.max(0, p - 1 - e));
    return s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s;
  }
  function num(x) {
    if (!ok(x)) return "n/a";
    if (Math.abs(x) >= 99.5) return grouped(roundEven(x));
    const s = gfmt(x, 3);
    if (!s.includes("e")) return s;
    const [m, ex] = x.toExponential(2).split("e");
    const n = Math.abs(Number(ex));
    return m + "e" + (Number(ex) < 0 ? "-" : "+") + (n < 10 ? "0" + n : String(n));
  }
  function tick(v) {
    if (v >= 1e6 || v < 1e-3) {
      const e = Math.round(Math.log10(v));
      if (Math.abs(v / Math.pow(10, e) - 1) < 1e-9) return "1e" + e;
      const [m, ex] = v.toExponential(0).split("e");
      const n = Math.abs(Number(ex));
      return m + "e" + (Number(ex) < 0 ? "-" : "+") + (n < 10 ? "0" + n : String(n));
    }
    return v >= 1 ? grouped(roundEven(v)) : gfmt(v, 6);
  }
  function tokens(n) {
    n = Math.trunc(n);
    return n >= 1024 && n % 1024 === 0 ? n / 1024 + "k" : grouped(n);
  }
  function gib(b) {
    const x = b / 1073741824;
    return x >= 999.5 ? grouped(roundEven(x)) : gfmt(x, 4);
  }

  // -- SVG text ---------------------------------------------------------------------------------------------------
  function c(x) {  // a coordinate: two decimals, no "-0"
    const r = Math.round(x * 100) / 100;
    return String(r === 0 ? 0 : r);
  }
  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function textWidth(s, fs) {
    let w = 0;
    for (const ch of String(s)) {
      const k = ch.codePointAt(0);
      w += k >= 32 && k < 127 ? ADV[k - 32] : (ADV_MORE[ch] || 700);
    }
    return w * fs / 1000;
  }
  const STEP = 1.0465;  // baseline step of a text line per font size and unit line spacing (matplotlib's layout)

  /** The box of a text placed at (x, y) (SVG coordinates) with alignment ha / va: {x0, y0, x1, y1, lines}. */
  function textBox(text, x, y, fs, ha, va, ls) {
    const lines = String(text).split("\n");
    const w = Math.max(...lines.map((l) => textWidth(l, fs)));
    const h = fs * (LP + (lines.length - 1) * STEP * (ls || 1.1));
    const x0 = ha === "left" ? x : ha === "right" ? x - w : x - w / 2;
    const y0 = va === "top" ? y : va === "bottom" ? y - h : va === "baseline" ? y - fs * ASC : y - h / 2;
    return { x0: x0, y0: y0, x1: x0 + w, y1: y0 + h, lines: lines, fs: fs, ha: ha, ls: ls || 1.1 };
  }
  function drawText(b, attrs) {
    const anchor = b.ha === "left" ? "start" : b.ha === "right" ? "end" : "middle";
    const x = b.ha === "left" ? b.x0 : b.ha === "right" ? b.x1 : (b.x0 + b.x1) / 2;
    return b.lines.map((line, k) => `<text x="${c(x)}" y="${c(b.y0 + b.fs * ASC + k * b.fs * STEP * b.ls)}"` +
      ` font-size="${b.fs}" text-anchor="${anchor}"${attrs || ""}>${esc(line)}</text>`).join("");
  }
  function text(s, x, y, fs, ha, va, attrs) {
    return drawText(textBox(s, x, y, fs, ha, va), attrs);
  }

  // -- lines and markers ------------------------------------------------------------------------------------------
  // matplotlib's dash patterns, scaled by the line width (lines.scale_dashes)
  const DASH = { "--": [3.7, 1.6], ":": [1, 1.65], "-.": [6.4, 1.6, 1, 1.6], "dot": [1, 1.5], "dot2": [1, 2], "train": [4, 2] };
  function stroke(color, lw, ls, opacity) {
    let s = ` fill="none" stroke="${color}" stroke-width="${lw}"`;
    if (ls && DASH[ls]) s += ` stroke-dasharray="${DASH[ls].map((v) => c(v * lw)).join(" ")}"`;
    if (opacity !== undefined && opacity < 1) s += ` stroke-opacity="${opacity}"`;
    return s;
  }
  /** A polyline through SVG points (runs broken where a point is missing). */
  function polyline(pts, attrs, role) {
    let d = "", pen = false;
    for (const p of pts) {
      if (!p || !ok(p[0]) || !ok(p[1])) { pen = false; continue; }
      d += (pen ? "L" : "M") + c(p[0]) + " " + c(p[1]);
      pen = true;
    }
    return d ? `<path${role ? ` data-role="${role}"` : ""} d="${d}"${attrs} stroke-linecap="butt"/>` : "";
  }
  function markerPath(shape, ms) {
    const h = ms / 2;
    if (shape === "s") return `M${c(-h)} ${c(-h)}H${c(h)}V${c(h)}H${c(-h)}Z`;
    if (shape === "^") return `M0 ${c(-h)}L${c(h)} ${c(h)}L${c(-h)} ${c(h)}Z`;
    if (shape === "D") { const r = h * Math.SQRT2; return `M0 ${c(-r)}L${c(r)} 0L0 ${c(r)}L${c(-r)} 0Z`; }
    if (shape === "*") {
      let d = "";
      for (let k = 0; k < 10; k++) {
        const r = k % 2 ? h * 0.381966 : h, a = Math.PI / 2 + k * Math.PI / 5;
        d += (k ? "L" : "M") + c(r * Math.cos(a)) + " " + c(-r * Math.sin(a));
      }
      return d + "Z";
    }
    return `M${c(-h)} 0A${c(h)} ${c(h)} 0 1 0 ${c(h)} 0A${c(h)} ${c(h)} 0 1 0 ${c(-h)} 0Z`;
  }
  /** A marker centred on (x, y): shape o s ^ D *, size in points, face and edge colours, edge width. */
  function marker(x, y, shape, ms, face, edge, mew, extra) {
    return `<path${extra || ""} transform="translate(${c(x)} ${c(y)})" d="${markerPath(shape, ms)}" fill="${face}"` +
      ` stroke="${edge}" stroke-width="${mew}"/>`;
  }

  // -- axes -------------------------------------------------------------------------------------------------------
  function pad(lo, hi, below, above) {
    return [Math.pow(10, Math.log10(lo) - below), Math.pow(10, Math.log10(hi) + above)];
  }
  /** Log-log axes in the rectangle (figure fractions from the bottom left, as matplotlib's add_axes). */
  function axes(size, rect, xlim, ylim) {
    const L = rect[0] * size[0], W = rect[2] * size[0], H = rect[3] * size[1], T = size[1] - (rect[1] + rect[3]) * size[1];
    const lx = xlim.map(Math.log10), ly = ylim.map(Math.log10);
    const a = {
      size: size, L: L, T: T, W: W, H: H, R: L + W, B: T + H, xlim: xlim, ylim: ylim,
      x: (v) => L + (Math.log10(v) - lx[0]) / (lx[1] - lx[0]) * W,
      y: (v) => T + H - (Math.log10(v) - ly[0]) / (ly[1] - ly[0]) * H,
      xy: (p) => (pos(p[0]) && pos(p[1]) ? [a.x(p[0]), a.y(p[1])] : null),
    };
    return a;
  }
  /** Decade ticks inside [lo, hi], thinned to at most ``most`` (matplotlib's LogLocator with numticks 'auto'). */
  function decades(lo, hi, most) {
    const k0 = Math.ceil(Math.log10(lo) - 1e-9), k1 = Math.floor(Math.log10(hi) + 1e-9);
    const n = k1 - k0 + 1, stride = n > most ? Math.ceil((n - 1) / (most - 1)) : 1;
    const out = [];
    for (let k = k0; k <= k1; k++) if (((k % stride) + stride) % stride === 0) out.push(Math.pow(10, k));
    return out;
  }
  /** fit_left: move the axes right (narrowing them) when the y tick labels and axis label would leave the canvas. */
  function fitLeft(a, yfmt) {
    const ticks = decades(a.ylim[0], a.ylim[1], Math.max(2, Math.min(9, Math.floor(a.H / 16))));
    const w = Math.max(0, ...ticks.map((v) => textWidth(yfmt(v), 8)));
    const x0 = a.L - 3.5 - 3.5 - w - 4 - 8.5 * LP;
    if (x0 < 3) {
      const shift = 3 - x0;
      return axes(a.size, [(a.L + shift) / a.size[0], (a.size[1] - a.B) / a.size[1], (a.W - shift) / a.size[0],
        a.H / a.size[1]], a.xlim, a.ylim);
    }
    return a;
  }
  /** Grid, spines, ticks, tick labels and axis labels. */
  function frame(a, xfmt, yfmt, xlabel, ylabel) {
    const xt = decades(a.xlim[0], a.xlim[1], Math.max(2, Math.min(9, Math.floor(a.W / 24))));
    const yt = decades(a.ylim[0], a.ylim[1], Math.max(2, Math.min(9, Math.floor(a.H / 16))));
    const grid = [], ticks = [], labels = [];
    for (const v of xt) {
      const x = a.x(v);
      grid.push(`M${c(x)} ${c(a.T)}V${c(a.B)}`);
      ticks.push(`M${c(x)} ${c(a.B)}v3.5`);
      labels.push(text(xfmt(v), x, a.B + 7, 8, "center", "top"));
    }
    let yw = 0;
    for (const v of yt) {
      const y = a.y(v);
      grid.push(`M${c(a.L)} ${c(y)}H${c(a.R)}`);
      ticks.push(`M${c(a.L)} ${c(y)}h-3.5`);
      labels.push(text(yfmt(v), a.L - 7, y, 8, "right", "center"));
      yw = Math.max(yw, textWidth(yfmt(v), 8));
    }
    const back = `<path d="${grid.join("")}" fill="none" stroke="#e6e6e6" stroke-width="0.5"/>`;
    const xl = a.B + 7 + 8 * LP + 4;
    const yl = a.L - 7 - yw - 4 - 8.5 * LP / 2;
    const front = `<path d="M${c(a.L)} ${c(a.T)}V${c(a.B)}H${c(a.R)}" fill="none" stroke="#000000" stroke-width="0.7"/>` +
      `<path d="${ticks.join("")}" fill="none" stroke="#000000" stroke-width="0.8"/>` + labels.join("") +
      text(xlabel, (a.L + a.R) / 2, xl, 8.5, "center", "top") +
      `<g transform="translate(${c(yl)} ${c((a.T + a.B) / 2)}) rotate(-90)">${text(ylabel, 0, 0, 8.5, "center", "center")}</g>`;
    return { back: back, front: front };
  }

  // -- legends ----------------------------------------------------------------------------------------------------
  /** Measure a legend: entries [{label, line: {color, lw, ls}} or {label, marker: {shape, ms, face, edge, mew}}]. */
  function legend(entries, o) {
    const fs = o.fontsize || 7.5, tfs = o.titleFontsize || fs, hl = (o.handlelength || 2.0) * fs;
    const ncols = Math.max(1, Math.min(o.ncols || 1, entries.length)), rows = Math.ceil(entries.length / ncols);
    const pad = 0.4 * fs, textPad = 0.8 * fs, colGap = (o.columnspacing || 2.0) * fs;
    const cols = [];
    for (let k = 0; k < ncols; k++) {
      const col = entries.slice(k * rows, (k + 1) * rows);
      cols.push(hl + textPad + Math.max(0, ...col.map((e) => textWidth(e.label, fs))));
    }
    const body = cols.reduce((s, w) => s + w, 0) + colGap * (ncols - 1);
    const titleH = o.title ? tfs * LP + 0.5 * fs : 0;
    const w = 2 * pad + Math.max(body, o.title ? textWidth(o.title, tfs) : 0);
    const h = 2 * pad + titleH + rows * fs * LP + (rows - 1) * 0.5 * fs;
    return {
      w: w, h: h,
      draw(x, y) {
        let s = `<g data-role="legend"><rect x="${c(x)}" y="${c(y)}" width="${c(w)}" height="${c(h)}" rx="${c(0.2 * fs)}"` +
          ` fill="#ffffff" fill-opacity="0.9" stroke="#cccccc" stroke-width="0.8"/>`;
        if (o.title) s += text(o.title, x + w / 2, y + pad, tfs, "center", "top");
        let cx = x + pad;
        for (let k = 0; k < ncols; k++) {
          entries.slice(k * rows, (k + 1) * rows).forEach((e, j) => {
            const ty = y + pad + titleH + j * 1.5 * fs, my = ty + fs * LP / 2;
            if (e.line) {
              s += polyline([[cx, my], [cx + hl, my]], stroke(e.line.color, e.line.lw, e.line.ls, e.line.opacity));
            }
            if (e.marker) {
              const m = e.marker;
              s += marker(cx + hl / 2, my, m.shape, m.ms, m.face, m.edge, m.mew, m.opacity ? ` opacity="${m.opacity}"` : "");
            }
            s += text(e.label, cx + hl + textPad, ty, fs, "left", "top");
          });
          cx += cols[k] + colGap;
        }
        return s + "</g>";
      },
    };
  }
  /** Phone layout: legends stacked under the axes from ``top`` (figure fraction) down (style.legends_below). */
  function legendsBelow(size, groups, top) {
    let heights = groups.map((g) => legend(g.entries, g).h / size[1] + 0.01);
    const two = heights.reduce((s, v) => s + v, 0) > top;
    let y = size[1] * (1 - top), out = "";
    for (let g of groups) {
      if (two && !g.ncols && g.entries.length > 2) g = Object.assign({}, g, { ncols: 2, fontsize: 7, handlelength: 1.5, columnspacing: 0.8 });
      const lg = legend(g.entries, g);
      out += lg.draw(0.01 * size[0] + 0.5 * (g.fontsize || 7.5), y + 0.5 * (g.fontsize || 7.5));
      y += lg.h + 0.01 * size[1];
    }
    return out;
  }

  // -- direct labels without collisions (style.place_labels) ------------------------------------------------------
  function overlap(b, boxes) {
    let s = 0;
    for (const o of boxes) {
      const w = Math.min(b.x1, o.x1) - Math.max(b.x0, o.x0), h = Math.min(b.y1, o.y1) - Math.max(b.y0, o.y0);
      if (w > 0 && h > 0) s += w * h;
    }
    return s;
  }
  const PX = 100 / 72;  // matplotlib's figure pixels per point
  const padded = (b, p) => ({ x0: b.x0 - p, y0: b.y0 - p, x1: b.x1 + p, y1: b.y1 + p });
  const square = (x, y, half) => ({ x0: x - half, y0: y - half, x1: x + half, y1: y + half });

  /**
   * Put each label near its anchor where it overlaps no other label and no obstacle, inside the axes, on its
   * side of ``sideX`` when given; a label moved past the nearest ring gets a thin leader line.
   * labels: [{text, x, y (SVG), color, fontsize, side ("left" | "right"), sideX, offsets}]
   */
  function placeLabels(a, labels, obstacles, soft) {
    const taken = obstacles.slice();
    let out = "";
    for (const lab of labels) {
      const fs = lab.fontsize || 7;
      let best = null, bestCost = Infinity;
      for (const cands of [(lab.offsets || []).concat(OFFSETS), GRID]) {
        for (const o of cands) {
          const b = textBox(lab.text, lab.x + o[0], lab.y - o[1], fs, o[2], o[3]);
          // costs in matplotlib's display pixels (100 per inch), so the trade-offs are those of style.place_labels
          let cost = (100 * overlap(b, taken) + overlap(b, soft)) * PX * PX;
          let out = Math.max(0, a.L - b.x0) + Math.max(0, b.x1 - a.R) + Math.max(0, a.T - b.y0) + Math.max(0, b.y1 - a.B);
          if (lab.side === "left") out += Math.max(0, b.x1 - lab.sideX);
          else if (lab.side === "right") out += Math.max(0, lab.sideX - b.x0);
          cost += 5000 * PX * out;
          if (cost < bestCost) {
            best = [o, b];
            bestCost = cost;
            if (cost === 0) break;
          }
        }
        if (bestCost < 100) break;
      }
      const [o, b] = best, col = lab.color || BLACK;
      if (Math.hypot(o[0], o[1]) > 10) {  // a leader line from the text's anchor to 4 pt short of the point
        const sx = lab.x + o[0], sy = lab.y - o[1], len = Math.hypot(o[0], o[1]);
        const ex = lab.x + o[0] * 4 / len, ey = lab.y - o[1] * 4 / len;
        out += polyline([[sx, sy], [ex, ey]], stroke(col, 0.5));
      }
      if (lab.backdrop) {  // a white box under a label lines may cross (style.place_labels' backdrop)
        const p = padded(b, 0.4);  // the box's pad, 0.4 pt
        out += `<rect x="${c(p.x0)}" y="${c(p.y0)}" width="${c(p.x1 - p.x0)}" height="${c(p.y1 - p.y0)}" fill="#ffffff" fill-opacity="0.8"/>`;
      }
      out += drawText(b, ` fill="${col}" data-role="label"`);
      taken.push(padded(b, 3 / PX));
    }
    return out;
  }

  // -- shared ------------------------------------------------------------------------------------------------------
  function colours(lengths) {
    const out = {};
    [...new Set((lengths || []).filter(pos).map(Math.trunc))].sort((p, q) => p - q)
      .forEach((n, k) => { out[n] = CONTEXT_COLOURS[k % CONTEXT_COLOURS.length]; });
    return out;
  }
  function svg(size, role, body) {
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${size[0]}pt" height="${size[1]}pt"` +
      ` viewBox="0 0 ${size[0]} ${size[1]}" font-family="${FONT}" data-fig="${role}">` +
      `<rect width="${size[0]}" height="${size[1]}" fill="#ffffff"/>${body}</svg>`;
  }
  function clip(a, id) {
    return `<clipPath id="${id}"><rect x="${c(a.L)}" y="${c(a.T)}" width="${c(a.W)}" height="${c(a.H)}"/></clipPath>`;
  }
  function axesTag(a) {
    return `<rect data-role="axes" x="${c(a.L)}" y="${c(a.T)}" width="${c(a.W)}" height="${c(a.H)}" fill="none"` +
      ` data-xlim="${a.xlim.map((v) => v.toPrecision(12)).join(" ")}" data-ylim="${a.ylim.map((v) => v.toPrecision(12)).join(" ")}"/>`;
  }
  function note(a, s) {
    return text(s, a.L + 0.99 * a.W, a.B - 0.02 * a.H, 7, "right", "bottom", ` fill="${INK}" font-style="italic"`);
  }
  function empty(size, role, message) {
    return svg(size, role, text(message, size[0] / 2, size[1] / 2, 7, "center", "center",
      ` fill="${INK}" font-style="italic"`));
  }

  // -- figure 6: the roofline --------------------------------------------------------------------------------------
  function roofPoints(d) {
    const P = d.peak, W = d.bandwidth;
    return (d.points || []).filter((p) => pos(p.intensity) && SIZES[p.kind])
      .map((p) => Object.assign({}, p, { y: Math.min(pos(p.peak) ? p.peak : P, W * p.intensity) }));  // training: its own peak
  }
  function pointLabel(p) {
    if (p.kind === "decode" || p.kind === "decode-cap") return `decode S = ${tokens(p.tokens)}, B = ${num(p.batch || 1)}`;
    return `${p.kind} ${tokens(p.tokens)}`;
  }
  function roofLine(a, P, W) {  // min(P, W·I) across the axes: two straight pieces on log-log axes
    const lo = a.xlim[0], hi = a.xlim[1], pts = [[lo, Math.min(P, W * lo)]];
    if (P / W > lo && P / W < hi) pts.push([P / W, P]);
    pts.push([hi, Math.min(P, W * hi)]);
    return pts.map(a.xy);
  }
  function roofSamples(a, P, W) {  // points along a roof, for labels to keep off it
    const out = [];
    for (let k = 0; k < 400; k++) {
      const i = Math.pow(10, Math.log10(a.xlim[0]) + k / 399 * Math.log10(a.xlim[1] / a.xlim[0]));
      const p = a.xy([i, Math.min(P, W * i)]);
      if (p) out.push(square(p[0], p[1], 1.5 / PX));
    }
    return out;
  }

  function roofline(d) {
    const narrow = d.layout === "narrow", size = narrow ? NARROW : WIDE, id = "gr-live-roofline-" + (narrow ? "n" : "w");
    const P = d.peak, W = d.bandwidth;
    if (!pos(P) || !pos(W)) return empty(size, "roofline", "No roof at these inputs (peak or bandwidth missing).");
    const R = pos(d.ridge) ? d.ridge : P / W;
    const colour = colours(d.lengths || (d.points || []).map((p) => p.tokens));
    const pts = roofPoints(d);
    const others = (d.compare || []).filter((o) => pos(o.peak) && pos(o.bandwidth));
    const measured = (d.measured || []).filter((m) => pos(m.intensity) && pos(m.flops));
    const mroof = d.measured_roof && pos(d.measured_roof.peak) && pos(d.measured_roof.bandwidth) ? d.measured_roof : null;
    const base = d.baseline && pos(d.baseline.peak) && pos(d.baseline.bandwidth) ? d.baseline : null;
    const xs = pts.map((p) => p.intensity).concat([R], others.map((o) => o.peak / o.bandwidth), measured.map((m) => m.intensity));
    const xlim = pad(Math.min(1, ...xs), Math.max(1e4, ...xs), 0.3, 0.3);
    const peaks = [P].concat(others.map((o) => o.peak)), floor = [W * xlim[0]].concat(others.map((o) => o.bandwidth * xlim[0]),
      measured.map((m) => m.flops / 2));
    if (base) { peaks.push(base.peak); floor.push(base.bandwidth * xlim[0]); }
    const ylim = pad(Math.min(...floor), Math.max(...peaks), 0.1, 0.4);
    const tf = (v) => tick(v / 1e12);
    const a = fitLeft(axes(size, narrow ? [0.18, 0.5, 0.79, 0.48] : [0.11, 0.13, 0.86, 0.84], xlim, ylim), tf);
    const fr = frame(a, tick, tf, "arithmetic intensity I (FLOP/B, whole pass)", "attainable (TFLOP/s)");
    const lines = [], roofEntries = [];
    if (base) {
      const bR = pos(base.ridge) ? base.ridge : base.peak / base.bandwidth;
      lines.push(polyline(roofLine(a, base.peak, base.bandwidth), stroke(GREY, 3.0, null, 0.3), "baseline-roof"));
      lines.push(polyline([a.xy([bR, ylim[0]]), a.xy([bR, ylim[1]])], stroke(GREY, 1.0, ":", 0.3)));
      for (const p of roofPoints(base)) {
        const q = a.xy([p.intensity, p.y]);
        if (q) lines.push(marker(q[0], q[1], SHAPES[p.kind], 5, GREY, GREY, 1, ` opacity="0.3"`));
      }
      roofEntries.push({ label: base.label || "baseline", line: { color: GREY, lw: 3.0, opacity: 0.3 } });
    }
    others.forEach((o, k) => {
      const col = COMPARE_COLOURS[k % COMPARE_COLOURS.length], r = o.peak / o.bandwidth;
      lines.push(polyline(roofLine(a, o.peak, o.bandwidth), stroke(col, 1.2, "--"), "compare-roof"));
      lines.push(polyline([a.xy([r, ylim[0]]), a.xy([r, o.peak])], stroke(col, 0.8, ":")));
      roofEntries.push({ label: `${o.label}, ridge ${num(pos(o.ridge) ? o.ridge : r)}`, line: { color: col, lw: 1.2, ls: "--" } });
    });
    lines.push(polyline(roofLine(a, P, W), stroke(BLACK, 1.8), "roof"));
    roofEntries.push({ label: `${d.hardware || "roof"}, ridge ${num(R)}`, line: { color: BLACK, lw: 1.8 } });
    const train = pts.find((p) => p.kind === "training" && pos(p.peak) && p.peak !== P);
    if (train) {  // training runs at the bf16 peak (fig6_roofline.training_peak): its own roof, under its point
      lines.push(polyline(roofLine(a, train.peak, W), stroke(BLACK, 1.0, "train"), "training-roof"));
      roofEntries.push({ label: `training (${train.compute}), ridge ${num(train.peak / W)}`,
        line: { color: BLACK, lw: 1.0, ls: "train" } });
    }
    if (mroof) {
      lines.push(polyline(roofLine(a, mroof.peak, mroof.bandwidth), stroke(BLACK, 1.2, "-."), "measured-roof"));
      roofEntries.push({ label: `measured (calibrate), ridge ${num(mroof.peak / mroof.bandwidth)}`, line: { color: BLACK, lw: 1.2, ls: "-." } });
    }
    lines.push(polyline([a.xy([R, ylim[0]]), a.xy([R, P])], stroke(BLACK, 0.9, ":"), "ridge"));
    // the peak's label above the flat roof, right-aligned
    const pBox = textBox(`P = ${num(P / 1e12)} TFLOP/s`, a.R - 3, a.y(P) - 8, 7.5, "right", "bottom");
    const obstacles = [padded(pBox, 2 / PX)], labels = [], marks = [], kinds = new Set(), markBoxes = [];
    const ridgeX = a.x(R);
    for (const kind of ["decode", "decode-cap", "prefill", "training"]) {
      const same = pts.filter((p) => p.kind === kind).map((p) => Object.assign(p, { px: a.x(p.intensity), py: a.y(p.y) }))
        .sort((p, q) => p.intensity - q.intensity);
      const groups = [];
      for (const p of same) {  // coinciding markers: one marker, one label naming every member
        const g = groups[groups.length - 1];
        if (g && Math.hypot(p.px - g[g.length - 1].px, p.py - g[g.length - 1].py) < SIZES[kind] + 1) g.push(p);
        else groups.push([p]);
      }
      for (const g of groups) {
        const p = g[0];
        let col = colour[Math.trunc(p.tokens)] || INK, label = pointLabel(p);
        if (g.length > 1) {
          col = INK;
          const names = g.map((q) => tokens(q.tokens));
          const ctxs = names.length <= 3 ? names.join(", ") : `${names[0]}–${names[names.length - 1]} (${names.length} contexts)`;
          label = kind === "decode" ? `decode S = ${ctxs}, B = 1` : g.map(pointLabel).join(" / ");
        }
        const hollow = kind === "decode", ms = SIZES[kind];
        marks.push(marker(p.px, p.py, SHAPES[kind], ms, hollow ? "#ffffff" : col, hollow ? col : BLACK, hollow ? 1.4 : 0.5,
          ` data-role="point" data-kind="${kind}" data-intensity="${p.intensity.toPrecision(6)}"`));
        kinds.add(kind);
        obstacles.push(square(p.px, p.py, ms / 2));
        markBoxes.push(square(p.px, p.py, ms / 2));
        labels.push({ text: label.startsWith("decode ") ? label.slice(7) : label, x: p.px, y: p.py, color: col,
          side: p.intensity < R ? "left" : "right", sideX: ridgeX });
      }
    }
    for (const m of measured) {
      const x = a.x(m.intensity), y = a.y(m.flops);
      marks.push(marker(x, y, "*", SIZES.measured, YELLOW, BLACK, 0.6,
        ` data-role="point" data-kind="measured" data-intensity="${m.intensity.toPrecision(6)}"`));
      kinds.add("measured");
      obstacles.push(square(x, y, SIZES.measured / 2));
      markBoxes.push(square(x, y, SIZES.measured / 2));
      labels.push({ text: `measured\n${m.where || ""}`.trim(), x: x, y: y, color: BLACK, side: m.intensity < R ? "left" : "right",
        sideX: ridgeX, offsets: [[6, -6, "left", "top"], [6, 0, "left", "center"]] });
    }
    const key = [];
    for (const [kind, label] of [["decode", "decode, batch 1"], ["decode-cap", "decode, largest batch that fits"],
      ["prefill", "prefill"], ["training", "training"], ["measured", "measured run"]]) {
      if (!kinds.has(kind)) continue;
      const hollow = kind === "decode";
      key.push({ label: label, marker: { shape: SHAPES[kind], ms: SIZES[kind] * 0.9, face: hollow ? "#ffffff" : kind === "measured" ? YELLOW : INK,
        edge: hollow ? INK : BLACK, mew: hollow ? 1.4 : 0.5 } });
    }
    const roofs = { entries: roofEntries, title: "roof = min(P, W·I)", titleFontsize: 7.5 };
    const keyOpts = { entries: key, title: "workload (colour: context)", titleFontsize: 7 };
    let legends = "";
    if (narrow) {
      legends = legendsBelow(size, [roofs].concat(key.length ? [keyOpts] : []), 0.385);
    } else {
      // each legend where it hides no marker (fig6_roofline._clear_legend): upper left unless a point sits there
      const at = (l, loc) => {
        const pad = 0.7 * 7.5, x = loc.endsWith("left") ? a.L + pad : a.R - pad - l.w;
        const y = loc.startsWith("upper") ? a.T + pad : loc.startsWith("lower") ? a.B - pad - l.h : (a.T + a.B - l.h) / 2;
        return { x0: x, y0: y, x1: x + l.w, y1: y + l.h };
      };
      const clear = (l, locs, avoid) => {
        for (const loc of locs) {
          const b = at(l, loc);
          if (overlap(padded(b, 4 / PX), avoid) === 0) return b;
        }
        return at(l, locs[0]);
      };
      const lr = legend(roofs.entries, roofs);
      const br = clear(lr, ["upper left", "center left", "center right", "lower right"], markBoxes);
      legends = lr.draw(br.x0, br.y0);
      obstacles.push(padded(br, 4 / PX));
      if (key.length) {
        const lk = legend(key, keyOpts);
        const bk = clear(lk, ["lower right", "center right", "upper left", "center left"], markBoxes.concat([padded(br, 4 / PX)]));
        legends += lk.draw(bk.x0, bk.y0);
        obstacles.push(padded(bk, 4 / PX));
      }
    }
    let soft = roofSamples(a, P, W);
    for (const o of others) soft = soft.concat(roofSamples(a, o.peak, o.bandwidth));
    if (mroof) soft = soft.concat(roofSamples(a, mroof.peak, mroof.bandwidth));
    const placed = placeLabels(a, labels, obstacles, soft);
    return svg(size, "roofline", `<defs>${clip(a, id + "-clip")}</defs>${axesTag(a)}${fr.back}` +
      `<g clip-path="url(#${id}-clip)">${lines.join("")}</g>${fr.front}` +
      drawText(pBox) + marks.join("") + placed + legends);
  }

  // -- figure 4: decode intensity against the batch ---------------------------------------------------------------
  function interp(curve, b) {  // I(b) on the sampled curve, linear on log-log axes; null outside it
    for (let k = 1; k < curve.length; k++) {
      const [b0, i0] = curve[k - 1], [b1, i1] = curve[k];
      if (b0 <= b && b <= b1) {
        if (b1 === b0) return i0;
        const t = Math.log(b / b0) / Math.log(b1 / b0);
        return Math.exp(Math.log(i0) + t * Math.log(i1 / i0));
      }
    }
    return null;
  }
  function cleanContexts(d) {
    return (d.contexts || []).filter((s) => pos(s.context)).map((s) => Object.assign({}, s, {
      curve: (s.curve || []).filter((p) => pos(p[0]) && pos(p[1])).sort((p, q) => p[0] - q[0]),
      cap: pos(s.capacity_batch) && s.capacity_batch >= 1 ? s.capacity_batch : null,
    }));
  }
  function decodeIntensity(d) {
    const narrow = d.layout === "narrow", size = narrow ? NARROW : WIDE, id = "gr-live-decode-" + (narrow ? "n" : "w");
    const ctx = cleanContexts(d);
    if (!ctx.length) return empty(size, "decode-intensity", "This spec has no decode workload.");
    const R = pos(d.ridge) ? d.ridge : null;
    const base = d.baseline && cleanContexts(d.baseline).length ? d.baseline : null;
    const bctx = base ? cleanContexts(base) : [];
    const bmax = Math.max(...[d.batch_max, base && base.batch_max].filter(pos).concat([2]));
    const ys = R ? [R] : [];
    const colour = colours(d.lengths || ctx.map((s) => s.context));
    for (const s of ctx.concat(bctx)) {
      for (const p of s.curve) ys.push(p[1]);
      if (pos(s.ceiling)) ys.push(s.ceiling);
    }
    if (base && pos(base.ridge)) ys.push(base.ridge);
    if (!ys.length) return empty(size, "decode-intensity", "No decode intensity at these inputs.");
    const ylim = pad(Math.max(Math.min(...ys), 1e-3), Math.max(...ys), 0.2, 0.35);
    const xlim = [1 / 1.15, bmax];
    const rect = narrow ? [0.19, 0.48, 0.78, 0.5] : [0.1, 0.13, 0.87, 0.84];
    let a = fitLeft(axes(size, rect, xlim, ylim), tick);
    let m = drawDecode(d, a, ctx, bctx, base, colour, narrow);
    if (!narrow && m.entries.length > 12) {  // a long key beside narrower axes, not over the curves
      a = fitLeft(axes(size, [0.1, 0.13, 0.57, 0.84], xlim, ylim), tick);
      m = drawDecode(d, a, ctx, bctx, base, colour, narrow);
    }
    let legends = "";
    if (narrow) {
      const many = m.entries.length > 10;
      legends = legendsBelow(size, [{ entries: m.entries, handlelength: many ? 1.6 : 2.2, ncols: many ? 2 : 1,
        fontsize: many ? 7 : 7.5, columnspacing: 0.8 }], 0.385);
    } else if (m.entries.length > 12) {
      legends = legend(m.entries, { fontsize: 7, handlelength: 2.0 }).draw(0.685 * size[0], 0.02 * size[1]);
    } else {
      const lg = legend(m.entries, { handlelength: 2.2 }), bx = a.L + 0.7 * 7.5, by = a.T + 0.7 * 7.5;
      legends = lg.draw(bx, by);
      m.obstacles.push(padded({ x0: bx, y0: by, x1: bx + lg.w, y1: by + lg.h }, 4 / PX));
    }
    const fr = frame(a, tick, tick, "batch B (sequences per step)", "decode intensity (FLOP/B)");
    return svg(size, "decode-intensity", `<defs>${clip(a, id + "-clip")}</defs>${axesTag(a)}${fr.back}` +
      `<g clip-path="url(#${id}-clip)">${m.lines.join("")}</g>${fr.front}` + m.marks.join("") +
      (m.noFit ? note(a, m.noFit) : "") + placeLabels(a, m.labels, m.obstacles, []) + legends);
  }

  /** Figure 4's lines, markers, labels and legend entries on the axes ``a``. */
  function drawDecode(d, a, ctx, bctx, base, colour, narrow) {
    const R = pos(d.ridge) ? d.ridge : null, xlim = a.xlim, ylim = a.ylim, bmax = xlim[1];
    const entries = [];
    const hline = (y, col, lw, ls, op, role) => polyline([a.xy([xlim[0], y]), a.xy([xlim[1], y])], stroke(col, lw, ls, op), role);
    function curves(cs, faded) {
      const out = [];
      cs.forEach((s, j) => {
        if (faded) {
          out.push(polyline(s.curve.map(a.xy), stroke(GREY, 2.4, null, 0.3)));
          if (pos(s.ceiling)) out.push(hline(s.ceiling, GREY, 0.9, "--", 0.3));
          if (s.cap && s.cap <= s.curve[s.curve.length - 1][0] && pos(s.intensity_at_capacity)) {
            const q = a.xy([s.cap, s.intensity_at_capacity]);
            if (q) out.push(marker(q[0], q[1], "D", 6.5, GREY, GREY, 1, ` opacity="0.3"`));
          }
          if (j === 0) entries.push({ label: d.baseline.label || "baseline", line: { color: GREY, lw: 2.4, opacity: 0.3 } });
          return;
        }
        const col = colour[Math.trunc(s.context)] || INK;
        const label = `S = ${tokens(s.context)}, ceiling ${num(s.ceiling)}`;
        const attrs = ` data-context="${Math.trunc(s.context)}"`;
        if (s.cap) {
          const at = interp(s.curve, s.cap), cut = at ? [[s.cap, at]] : [];
          const fits = s.curve.filter((p) => p[0] <= s.cap).concat(cut), beyond = cut.concat(s.curve.filter((p) => p[0] >= s.cap));
          out.push(polyline(fits.map(a.xy), stroke(col, 1.6) + attrs, "curve"));
          out.push(polyline(beyond.map(a.xy), stroke(col, 1.0, "dot") + attrs, "curve-beyond"));
          entries.push({ label: label, line: { color: col, lw: 1.6 } });
        } else {
          out.push(polyline(s.curve.map(a.xy), stroke(col, 1.3, "dot") + attrs, "curve-beyond"));
          entries.push({ label: label + " (no fit)", line: { color: col, lw: 1.3, ls: "dot" } });
        }
        if (pos(s.ceiling)) out.push(hline(s.ceiling, col, 0.9, "--", 0.9, "ceiling"));
      });
      return out;
    }
    const lines = [];
    if (base) {
      if (pos(base.ridge)) lines.push(hline(base.ridge, GREY, 1.0, ":", 0.3));
      lines.push(...curves(bctx, true));
    }
    lines.push(...curves(ctx, false));
    if (R) {
      lines.push(hline(R, BLACK, 1.1, ":", 1, "ridge"));
      entries.push({ label: `ridge ${num(R)}`, line: { color: BLACK, lw: 1.1, ls: ":" } });
    }
    (d.compare || []).forEach((o, k) => {
      if (pos(o.ridge) && o.ridge >= ylim[0] && o.ridge <= ylim[1]) {
        const col = COMPARE_COLOURS[k % COMPARE_COLOURS.length];
        lines.push(hline(o.ridge, col, 0.9, "dot2"));
        entries.push({ label: `ridge of ${o.label}: ${num(o.ridge)}`, line: { color: col, lw: 0.9, ls: "dot2" } });
      }
    });
    const marks = [], labels = [], obstacles = [];
    const xbs = ctx.map((s) => s.crossover).filter((x) => R && pos(x) && x >= 1 && x <= bmax).sort((p, q) => p - q);
    xbs.forEach((xb, k) => {
      const x = a.x(xb), y = a.y(R);
      marks.push(marker(x, y, "o", 6, "#ffffff", BLACK, 1.2, ` data-role="crossover" data-batch="${xb.toPrecision(6)}"`));
      obstacles.push(square(x, y, 3));
      labels.push({ text: `B = ${num(xb)}`, x: x, y: y, fontsize: 7.5, offsets: [[0, 6, "center", "bottom"], [0, -7, "center", "top"]] });
      if (!k) entries.push({ label: "crosses the ridge", marker: { shape: "o", ms: 6, face: "#ffffff", edge: BLACK, mew: 1.2 } });
    });
    let first = true;
    for (const s of ctx) {
      const ic = s.intensity_at_capacity;
      if (s.cap && s.cap <= bmax && pos(ic)) {
        const x = a.x(s.cap), y = a.y(ic);
        marks.push(marker(x, y, "D", 6.5, ORANGE, BLACK, 0.6, ` data-role="capacity" data-batch="${s.cap.toPrecision(6)}"`));
        obstacles.push(square(x, y, 3.25));
        labels.push({ text: `B = ${num(s.cap)}\nI = ${num(ic)}`, x: x, y: y, color: "#333333", offsets: [[6, -4, "left", "top"]],
          backdrop: true });
        if (first) entries.push({ label: "capacity limit", marker: { shape: "D", ms: 6.5, face: ORANGE, edge: BLACK, mew: 0.6 } });
        first = false;
      }
    }
    entries.push({ label: "ceiling, B → ∞ (dashed)", line: { color: INK, lw: 0.9, ls: "--" } });
    let noFit = "";
    if (!ctx.some((s) => s.cap)) {
      const wb = pos(d.weight_bytes) ? gib(d.weight_bytes) : "n/a", cap = pos(d.capacity) ? gib(d.capacity) : "n/a";
      noFit = `Weights (${wb} GiB) leave no room for KV in ${cap} GiB:` + (narrow ? "\n" : " ") + "no batch fits.";
    } else {
      entries.push({ label: "past the capacity limit", line: { color: INK, lw: 1.0, ls: "dot" } });
    }
    return { lines: lines, marks: marks, labels: labels, obstacles: obstacles, entries: entries, noFit: noFit };
  }

  // -- the input from the browser's report model (a mirror of figures/live_data.py) ---------------------------
  const shortTitle = (title) => String(title || "").replace(/^NVIDIA /, "").replace(/^AMD /, "");
  const sortedUnique = (xs) => [...new Set(xs)].sort((p, q) => p - q);

  /** Right end of figure 4's batch axis (model/shown.batch_range). */
  function batchRange(res, inp) {
    const w = inp.workloads, pc = res.perContext[res.lead];
    let hi = 64;
    if (w.decode_context.length) {
      hi = Math.max(hi, Math.max(...(w.decode_batch.length ? w.decode_batch : [1])), Math.max(...pc.capacity_batch) * 3);
      for (const x of pc.crossover_batch) {
        const v = GR_MODEL.physical("crossover_batch", x)[0];
        if (v !== null) hi = Math.max(hi, v * 3);
      }
      hi = Math.max(hi, res.envs[res.lead].values.G * 8);
    }
    return Math.min(Math.pow(2, Math.ceil(Math.log2(hi))), Math.pow(2, 20));
  }

  /**
   * {roofline, decodeIntensity}: the two figures' inputs from GR_MODEL.evaluate's result ``res`` for the inputs
   * ``inp`` (GR_MODEL, GR_Q loaded).  ``kept`` holds what the browser does not recompute, taken from the spec's
   * own figure data when the what-if leaves it valid: {compare, measured, measured_roof} (each optional).
   */
  function fromModel(res, inp, kept) {
    kept = kept || {};
    const lead = res.lead, sc = res.scalars[lead], w = inp.workloads, env = res.envs[lead];
    const pc = res.perContext[lead], call = GR_MODEL.call, phys = (qid, x) => GR_MODEL.physical(qid, x)[0];
    const positive = (x) => (pos(x) ? x : null);
    const ctx = w.decode_context || [];
    const lengths = sortedUnique(ctx.concat(w.prefill_prompt || [], w.training_tokens ? [w.training_tokens] : []).map(Math.trunc));
    const capOf = (j) => phys("capacity_batch", (pc.capacity_batch_raw || pc.capacity_batch)[j]);
    const points = [];
    ctx.forEach((s, j) => {
      const i1 = positive(call("decode_intensity", env.at(1, s)));
      if (i1 !== null) points.push({ kind: "decode", intensity: i1, tokens: Math.trunc(s), batch: 1 });
      const cap = capOf(j), icap = positive(phys("intensity_at_capacity", pc.intensity_at_capacity[j]));
      if (cap !== null && cap >= 2 && icap !== null) points.push({ kind: "decode-cap", intensity: icap, tokens: Math.trunc(s), batch: cap });
    });
    if (res.prefill[lead]) {
      (w.prefill_prompt || []).forEach((tk, k) => {
        const i = res.prefill[lead].prefill_intensity[k];
        if (pos(i)) points.push({ kind: "prefill", intensity: i, tokens: Math.trunc(tk) });
      });
    }
    if (w.training_tokens && pos(res.verdicts.training_intensity)) {
      points.push({ kind: "training", intensity: res.verdicts.training_intensity, tokens: Math.trunc(w.training_tokens),
        peak: inp.hardware.dense[res.verdicts.training_compute], compute: res.verdicts.training_compute });
    }
    const compare = kept.compare || (inp.compare_hardware || []).filter((h) => h.dense && pos(h.dense[inp.precision.compute]) && pos(h.bandwidth))
      .map((h) => ({ label: shortTitle(h.title), peak: h.dense[inp.precision.compute], bandwidth: h.bandwidth,
        ridge: h.dense[inp.precision.compute] / h.bandwidth }));
    const roofline = { peak: sc.peak_flops, bandwidth: sc.bandwidth, ridge: sc.ridge_point,
      hardware: shortTitle(inp.hardware.title), compare: compare, measured_roof: kept.measured_roof || null,
      lengths: lengths, points: points, measured: kept.measured || [] };
    let decode = null;
    if (ctx.length) {
      const bmax = batchRange(res, inp), n = 200, top = Math.log10(bmax), batch = [];
      for (let k = 0; k < n; k++) batch.push(Math.pow(10, top * k / (n - 1)));
      const grid = sortedUnique(batch.concat(w.decode_batch || []));
      decode = { ridge: sc.ridge_point, batch_max: bmax, weight_bytes: sc.weight_bytes, capacity: sc.capacity,
        compare: compare.map((o) => ({ label: o.label, ridge: o.ridge })), lengths: lengths,
        contexts: ctx.map((s, j) => {
          const cap = capOf(j);
          return { context: Math.trunc(s), ceiling: positive(phys("decode_intensity_ceiling", pc.decode_intensity_ceiling[j])),
            capacity_batch: cap !== null && cap >= 1 ? cap : null,
            intensity_at_capacity: positive(phys("intensity_at_capacity", pc.intensity_at_capacity[j])),
            crossover: positive(phys("crossover_batch", pc.crossover_batch[j])),
            curve: grid.map((b) => [b, call("decode_intensity", env.at(b, s))]).filter((p) => pos(p[1])) };
        }) };
    }
    return { roofline: roofline, decodeIntensity: decode };
  }

  // -- the page: swap the two figures for the what-if's, the spec's faded underneath ---------------------------
  const LIVE = [["fig6-roofline", "roofline", roofline], ["fig4-decode-intensity", "decodeIntensity", decodeIntensity]];
  let built = null;  // the spec as built: {inputs, figs: fromModel of them}
  const same = (p, q) => JSON.stringify(p) === JSON.stringify(q);
  const uri = (text) => "data:image/svg+xml;charset=utf-8," + encodeURIComponent(text);

  /**
   * Called by the page (page.js) after each evaluation: ``state`` {res, inp, t} of an active what-if, or null to
   * show the figures as built.  Each figure's <img> (and its phone <source>) gets the redrawn SVG; the caption,
   * written for the spec as built, is marked data-static.
   */
  function live(root, state) {
    for (const item of LIVE) {
      const fig = root.getElementById(item[0]), img = fig && fig.querySelector("img");
      if (!img) continue;
      const src = fig.querySelector("source");
      if (!img.hasAttribute("data-built-src")) {
        img.setAttribute("data-built-src", img.getAttribute("src"));
        if (src) src.setAttribute("data-built-srcset", src.getAttribute("srcset"));
      }
      if (!state) {
        img.setAttribute("src", img.getAttribute("data-built-src"));
        if (src) src.setAttribute("srcset", src.getAttribute("data-built-srcset"));
      }
    }
    if (!state) return;
    const node = root.getElementById("genreport-live"), data = node ? JSON.parse(node.textContent) : {};
    const spec = data.inputs || null, own = data.figs || {};
    if (spec && (!built || !same(built.inputs, spec))) {
      built = { inputs: spec, figs: fromModel(GR_MODEL.evaluate(spec, state.t), spec) };
    }
    const inp = state.inp, ownRoof = own.roofline || {};
    const kept = {
      compare: ownRoof.compare && spec && inp.precision.compute === spec.precision.compute ? ownRoof.compare : undefined,
      // a run is drawn only on what it ran on: the spec's model, precision, GPU and layout (as a build's what-if)
      measured: spec && same(inp.model, spec.model) && same(inp.precision, spec.precision) && same(inp.hardware, spec.hardware)
        && same(inp.parallelism, spec.parallelism) ? ownRoof.measured : undefined,
      // (per-class weights computing apart: the roof is their rate, env.peak_of, so the same precision)
      measured_roof: spec && same(inp.hardware, spec.hardware) && (inp.precision.own_compute || spec.precision.own_compute
        ? same(inp.precision, spec.precision) && same(inp.model, spec.model)
        : inp.precision.compute === spec.precision.compute) ? ownRoof.measured_roof : undefined,
    };
    const now = fromModel(state.res, inp, kept);
    for (const [id, key, draw] of LIVE) {
      const fig = root.getElementById(id), img = fig && fig.querySelector("img");
      if (!img || !now[key]) continue;
      const base = built && built.figs[key] ? Object.assign({}, built.figs[key], { label: "as built" }) : undefined;
      img.setAttribute("src", uri(draw(Object.assign({}, now[key], { baseline: base }))));
      const src = fig.querySelector("source");
      if (src) src.setAttribute("srcset", uri(draw(Object.assign({}, now[key], { baseline: base, layout: "narrow" }))));
      const cap = fig.querySelector("figcaption");
      if (cap) cap.setAttribute("data-static", "");
    }
  }

  return { roofline: roofline, decodeIntensity: decodeIntensity, fromModel: fromModel, live: live, num: num, tokens: tokens, tick: tick,
    textWidth: textWidth };
})();
