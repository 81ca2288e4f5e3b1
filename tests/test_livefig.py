"""The live figures (templates/live/figs.js): figures 6 and 4 drawn by the browser from plain numbers.

Node runs ``GR_FIGS.roofline`` and ``GR_FIGS.decodeIntensity`` on the input that
``genreport.present.figures.live_data`` builds from the report model, for Llama 3.1 8B on an H100 (everything
fits), the seed-000 70B on one H100 (the weights alone exceed 80 GiB: no batch fits), Gemma 2 9B in its place (a
sliding window on every other layer) and Mixtral 8x22B (mixture of experts).  Numbers quoted are the seed 003
values (Llama 3.1 8B, bf16, H100 SXM; seed-claims s003-ridge-h100, s003-batch-cap-8k, s003-intensity-at-cap-8k,
s003-batch-to-cross-at-128): ridge 295, capacity batch 65 at 8k with intensity 15.4, batch 425 crossing the
ridge at 128; the H200's 4.8 TB/s gives ridge 206 (issue 18).  One node process per test.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from genreport.present.figures.data import _crossovers
from genreport.present.figures.fig6_roofline import _roof_points
from genreport.present.figures.live_data import decode_intensity_data, roofline_data
from livejs import run_program
from shared import ROOT, evaluated

FIGS = ROOT / "templates" / "live" / "figs.js"
NODE = shutil.which("node") or ("/usr/bin/node" if Path("/usr/bin/node").exists() else None)
needs_node = pytest.mark.skipif(NODE is None, reason="node not installed (Debian: apt-get install nodejs)")
SVG = "{http://www.w3.org/2000/svg}"
SPECS = {"8b": ("llama8b-h100.yaml", ()), "70b": ("seed000-70b-h100.yaml", ()),
         "sliding": ("llama8b-h100.yaml", ("model=gemma-2-9b",)), "moe": ("mixtral8x22b-h100-tp8-ep8.yaml", ())}

RUN = """
const fs = require("fs"), vm = require("vm");
vm.runInThisContext(fs.readFileSync(process.argv[1], "utf8"));
const jobs = JSON.parse(fs.readFileSync(0, "utf8"));
const out = {};
for (const [key, fn, d] of jobs) out[key] = GR_FIGS[fn](d);
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def results() -> dict:
    return {key: evaluated(name, overrides) for key, (name, overrides) in SPECS.items()}


@pytest.fixture(scope="module")
def data(results) -> dict[str, dict]:
    return {key: {"roofline": roofline_data(r), "decodeIntensity": decode_intensity_data(r)} for key, r in results.items()}


def test_data_is_what_the_matplotlib_figures_draw(results, data):
    """The live input holds the same workload points, curves and marks as figures 6 and 4 (same model reads)."""
    for key, r in results.items():
        d = data[key]["roofline"]
        want = [(k, round(i, 9)) for k, _label, i, _c, _m in _roof_points(r)]
        assert [(p["kind"], round(p["intensity"], 9)) for p in d["points"]] == want, key
        assert d["ridge"] == r.scalars[r.lead]["ridge_point"] and d["peak"] == r.scalars[r.lead]["peak_flops"]
        di = data[key]["decodeIntensity"]
        pc = r.per_context[r.lead]
        for j, c in enumerate(di["contexts"]):
            cap = float(pc["capacity_batch"][j])
            assert c["capacity_batch"] == (cap if cap >= 1 else None), key
            assert c["ceiling"] == pytest.approx(float(pc["decode_intensity_ceiling"][j]), rel=1e-12)
            assert [b for b, _i in c["curve"]] == list(r.curves["decode_batch"])
            assert [i for _b, i in c["curve"]] == list(r.curves["decode_intensity"][:, j])
        assert [c["crossover"] for c in di["contexts"]] == _crossovers(r), key
    assert data["70b"]["decodeIntensity"]["contexts"][0]["intensity_at_capacity"] is None


def _node(jobs: list, script: Path = FIGS) -> dict[str, str]:
    """Run figs.js (or ``script``) in one node process on [key, function, d] jobs; the SVG text of each, by key."""
    p = subprocess.run([NODE, "-e", RUN, str(script)], input=json.dumps(jobs), capture_output=True, text=True,
                       timeout=30, check=False)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def _roles(root: ET.Element, role: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("data-role") == role]


def _axes(root: ET.Element):
    """(x of a data value, y of a data value) on the drawn log-log axes, from the axes' box and limits."""
    (box,) = _roles(root, "axes")
    x0, y0, w, h = (float(box.get(k)) for k in ("x", "y", "width", "height"))
    xlo, xhi = (float(v) for v in box.get("data-xlim").split())
    ylo, yhi = (float(v) for v in box.get("data-ylim").split())
    def fx(v):
        return x0 + (math.log10(v) - math.log10(xlo)) / (math.log10(xhi) - math.log10(xlo)) * w
    def fy(v):
        return y0 + h - (math.log10(v) - math.log10(ylo)) / (math.log10(yhi) - math.log10(ylo)) * h
    return fx, fy, (xlo, xhi, ylo, yhi)


def _path_points(e: ET.Element) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in re.findall(r"[ML](-?[\d.]+) (-?[\d.]+)", e.get("d"))]


def _centre(e: ET.Element) -> tuple[float, float]:
    x, y = re.fullmatch(r"translate\((-?[\d.]+) (-?[\d.]+)\)", e.get("transform")).groups()
    return float(x), float(y)


def _texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def _numbers(x, where="d"):
    """Every number in a nested dict / list, with where it sits."""
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _numbers(v, f"{where}.{k}")
    elif isinstance(x, list):
        for k, v in enumerate(x):
            yield from _numbers(v, f"{where}[{k}]")
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield where, x


@needs_node
def test_every_spec_draws_valid_deterministic_svg(data):
    """Both figures, both layouts, four awkward specs: well-formed SVG, the same bytes twice, no NaN drawn."""
    jobs = []
    for key, d in data.items():
        for fn, dd in d.items():
            assert dd is not None, (key, fn)
            json.dumps(dd, allow_nan=False)  # plain JSON: no NaN or infinity in the input
            bad = [(w, v) for w, v in _numbers(dd) if not math.isfinite(v) or v < 0]
            assert not bad, (key, fn, bad[:5])  # no negative number: an absent value is null
            for layout in ("wide", "narrow"):
                for k in (1, 2):
                    jobs.append([f"{key}/{fn}/{layout}/{k}", fn, {**dd, "layout": layout}])
    out = _node(jobs)
    assert len(out) == len(jobs)
    for name, text in out.items():
        root = ET.fromstring(text)
        assert root.tag == f"{SVG}svg", name
        assert text == out[name[:-1] + ("2" if name.endswith("1") else "1")], f"{name}: not deterministic"
        for word in ("NaN", "Infinity", "undefined", "null", "n/a"):
            assert word not in text, (name, word)
        size = (root.get("width"), root.get("height"))
        assert size == (("288pt", "345.6pt") if "/narrow/" in name else ("460.8pt", "259.2pt")), (name, size)
        assert 3_000 < len(text) < 40_000, (name, len(text))
        fx, fy, (xlo, xhi, ylo, yhi) = _axes(root)
        for e in [*_roles(root, "point"), *_roles(root, "capacity"), *_roles(root, "crossover")]:
            x, y = _centre(e)  # every marker inside its axes
            assert fx(xlo) - 0.5 <= x <= fx(xhi) + 0.5 and fy(yhi) - 0.5 <= y <= fy(ylo) + 0.5, (name, e.attrib)


@needs_node
def test_the_shipped_bundle_draws_what_the_source_draws(data, tmp_path):
    """What a report carries, ``live.scripts()`` (compacted: comments, indentation and spaces out), draws the same
    SVG as figs.js's source, in both layouts: the compactor once read a template literal nested in another's
    substitution as code and took out its spaces, so the roof lines came out as <pathdata-role="roof" ...>, no
    element a browser draws (the roof vanished from the page's what-if figure)."""
    from genreport.present import live

    bundle = tmp_path / "bundle.js"
    bundle.write_text(live.scripts(True), encoding="utf-8")
    jobs = [[f"{key}/{fn}/{layout}", fn, {**dd, "layout": layout}] for key, d in data.items() for fn, dd in d.items()
            for layout in ("wide", "narrow")]
    shipped, source = _node(jobs, bundle), _node(jobs)
    assert shipped == source
    assert all(ET.fromstring(text) is not None for text in shipped.values())
    assert any('<path data-role="roof" ' in text for text in shipped.values())


@needs_node
def test_roofline_points_land_on_the_log_axes(data):
    d = data["8b"]["roofline"]
    out = _node([["wide", "roofline", d], ["narrow", "roofline", {**d, "layout": "narrow"}]])
    assert d["ridge"] == pytest.approx(295.34, abs=0.01)
    for name, text in out.items():
        root = ET.fromstring(text)
        fx, fy, (xlo, xhi, ylo, yhi) = _axes(root)
        # the x range: 0.3 decade beyond [min(1, I), max(1e4, I)] (fig6_roofline)
        xs = [p["intensity"] for p in d["points"]] + [d["ridge"]] + [c["ridge"] for c in d["compare"]] \
            + [m["intensity"] for m in d["measured"]]
        assert math.log10(xlo) == pytest.approx(math.log10(min(1.0, *xs)) - 0.3)
        assert math.log10(xhi) == pytest.approx(math.log10(max(1e4, *xs)) + 0.3)
        (ridge,) = _roles(root, "ridge")
        (a, b) = _path_points(ridge)
        assert a[0] == b[0] == pytest.approx(fx(d["peak"] / d["bandwidth"]), abs=0.75), name  # within a pixel
        assert b[1] == pytest.approx(fy(d["peak"]), abs=0.75)
        roof = _path_points(_roles(root, "roof")[0])
        assert roof[1] == pytest.approx((fx(d["ridge"]), fy(d["peak"])), abs=0.75)  # the roof bends at the ridge
        points = {(e.get("data-kind"), round(float(e.get("data-intensity")), 3)): _centre(e) for e in _roles(root, "point")}
        cap8k = next(p for p in d["points"] if p["kind"] == "decode-cap" and p["tokens"] == 8192)
        assert cap8k["batch"] == 65 and cap8k["intensity"] == pytest.approx(15.4, abs=0.05)
        x, y = points[("decode-cap", round(cap8k["intensity"], 3))]
        assert x == pytest.approx(fx(cap8k["intensity"]), abs=0.75)
        assert y == pytest.approx(fy(d["bandwidth"] * cap8k["intensity"]), abs=0.75)  # on the slanted roof
        train = next(p for p in d["points"] if p["kind"] == "training")
        x, y = points[("training", round(train["intensity"], 3))]
        assert (x, y) == pytest.approx((fx(train["intensity"]), fy(d["peak"])), abs=0.75)  # on the flat roof
        (m,) = d["measured"]
        x, y = points[("measured", round(m["intensity"], 3))]
        assert (x, y) == pytest.approx((fx(m["intensity"]), fy(m["flops"])), abs=0.75)
        texts = _texts(root)
        assert "H100 SXM5 80GB, ridge 295" in texts and "A100 SXM4 80GB, ridge 153" in texts
        assert "P = 989 TFLOP/s" in texts and "S = 8k, B = 65" in texts
        assert "S = 128, 1k, 8k, B = 1" in texts  # the three batch-1 decode markers coincide: one label


@needs_node
def test_bandwidth_moves_the_ridge_and_the_points(data):
    d = data["8b"]["roofline"]
    w2 = 4.8e12
    d2 = {**d, "bandwidth": w2, "ridge": d["peak"] / w2}
    di = data["8b"]["decodeIntensity"]
    di2 = {**di, "ridge": d["peak"] / w2}
    out = _node([["before", "roofline", d], ["after", "roofline", d2], ["di", "decodeIntensity", di],
                 ["di2", "decodeIntensity", di2]])
    before, after = ET.fromstring(out["before"]), ET.fromstring(out["after"])
    fx, fy, _ = _axes(after)
    xr0 = _path_points(_roles(before, "ridge")[0])[0][0]
    xr1 = _path_points(_roles(after, "ridge")[0])[0][0]
    assert xr1 == pytest.approx(fx(206.125), abs=0.75) and xr1 < xr0 - 10
    assert "H100 SXM5 80GB, ridge 206" in _texts(after)
    b1 = {e.get("data-kind") + e.get("data-intensity"): _centre(e) for e in _roles(before, "point")}
    a1 = {e.get("data-kind") + e.get("data-intensity"): _centre(e) for e in _roles(after, "point")}
    k = next(k for k in b1 if k.startswith("decode-cap"))
    i = float(k.removeprefix("decode-cap"))
    assert a1[k][1] == pytest.approx(fy(w2 * i), abs=0.75)  # the bandwidth-bound point rose with W
    # figure 4: the ridge line follows, and so does which curve crosses it (none is recomputed here: same B_x)
    y0 = _path_points(_roles(ET.fromstring(out["di"]), "ridge")[0])[0][1]
    root = ET.fromstring(out["di2"])
    _, fy4, _ = _axes(root)
    y1 = _path_points(_roles(root, "ridge")[0])[0][1]
    assert y1 == pytest.approx(fy4(206.125), abs=0.75) and y1 > y0 + 5
    assert "ridge 206" in _texts(root)


@needs_node
def test_decode_intensity_marks(data):
    di = data["8b"]["decodeIntensity"]
    assert [c["capacity_batch"] for c in di["contexts"]] == [4162, 520, 65]
    out = _node([["8b", "decodeIntensity", di], ["70b", "decodeIntensity", data["70b"]["decodeIntensity"]],
                 ["70b-narrow", "decodeIntensity", {**data["70b"]["decodeIntensity"], "layout": "narrow"}]])
    root = ET.fromstring(out["8b"])
    fx, fy, (xlo, xhi, ylo, yhi) = _axes(root)
    assert xlo == pytest.approx(1 / 1.15) and xhi == di["batch_max"]
    (ridge,) = _roles(root, "ridge")
    assert [p[1] for p in _path_points(ridge)] == [pytest.approx(fy(di["ridge"]), abs=0.75)] * 2
    caps = sorted(_centre(e) for e in _roles(root, "capacity"))
    want = sorted((fx(c["capacity_batch"]), fy(c["intensity_at_capacity"])) for c in di["contexts"])
    assert caps == [pytest.approx(w, abs=0.75) for w in want]
    (cross,) = _roles(root, "crossover")
    assert float(cross.get("data-batch")) == pytest.approx(424.56, abs=0.01)  # s003: batch 425 at 128
    assert _centre(cross) == pytest.approx((fx(424.56), fy(di["ridge"])), abs=0.75)
    # the solid (fitting) part of each curve ends at its capacity batch; the dotted part starts there
    for c, solid in zip(di["contexts"], _roles(root, "curve"), strict=True):
        assert _path_points(solid)[-1][0] == pytest.approx(fx(c["capacity_batch"]), abs=0.75)
    texts = _texts(root)
    assert {"S = 8k, ceiling 19", "capacity limit", "past the capacity limit", "B = 65", "I = 15.4"} <= set(texts)
    # 70B on one H100: nothing fits, every curve is dotted, no diamond, the note says why
    for name in ("70b", "70b-narrow"):
        root = ET.fromstring(out[name])
        assert not _roles(root, "capacity") and not _roles(root, "curve") and len(_roles(root, "curve-beyond")) == 3
        text = " ".join(_texts(root))
        assert "Weights (130.4 GiB) leave no room for KV in 80 GiB:" in text and "no batch fits." in text
        assert "S = 128, ceiling 3,346 (no fit)" in text and "past the capacity limit" not in text
        assert len(_roles(root, "crossover")) == 2  # 323 and 949; at 4k the ceiling 112 stays below the ridge


@needs_node
def test_absent_values_are_not_drawn(data):
    """A what-if can remove things: no roofline inputs, a context with no ceiling or crossover, no decode at all."""
    di = data["8b"]["decodeIntensity"]
    holes = {**di, "contexts": [{**c, "ceiling": None, "crossover": None, "capacity_batch": None,
                                 "intensity_at_capacity": None} for c in di["contexts"]]}
    out = _node([["holes", "decodeIntensity", holes], ["none", "decodeIntensity", {**di, "contexts": []}],
                 ["noroof", "roofline", {**data["8b"]["roofline"], "bandwidth": None}],
                 ["base", "roofline", {**data["8b"]["roofline"], "bandwidth": 4.8e12,
                                       "baseline": data["8b"]["roofline"]}]])
    root = ET.fromstring(out["holes"])
    assert not _roles(root, "ceiling") and not _roles(root, "crossover") and not _roles(root, "capacity")
    assert "This spec has no decode workload." in _texts(ET.fromstring(out["none"]))
    assert "No roof at these inputs" in " ".join(_texts(ET.fromstring(out["noroof"])))
    base = ET.fromstring(out["base"])
    assert len(_roles(base, "baseline-roof")) == 1 and "baseline" in _texts(base)


@needs_node
def test_labels_format_numbers_as_the_figures_do():
    """figs.js's num, tokens and tick write what style.num, style.tokens and style.tick write."""
    from genreport.present.figures.style import num, tick, tokens

    rng = np.random.default_rng(18)
    values = [0.0, 0.5, 1.0, 99.4, 99.5, 100.5, 101.5, 2.5, 0.0162, 4162.0, 1e-5, 123456.789, 206.125, 295.343]
    values += [float(x) for x in 10 ** rng.uniform(-6, 9, 200)]
    ticks = [10.0**k for k in range(-5, 10)]
    toks = [1, 105, 128, 1000, 1024, 2048, 4097, 8192, 131072, 1_000_000]
    script = """
const fs = require("fs"), vm = require("vm");
vm.runInThisContext(fs.readFileSync(process.argv[1], "utf8"));
const [v, t, k] = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify([v.map(GR_FIGS.num), t.map(GR_FIGS.tick), k.map(GR_FIGS.tokens)]));
"""
    p = subprocess.run([NODE, "-e", script, str(FIGS)], input=json.dumps([values, ticks, toks]), capture_output=True,
                       text=True, timeout=30, check=False)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    assert got == [[num(v) for v in values], [tick(v) for v in ticks], [tokens(v) for v in toks]]


def _close(a, b, where="d"):
    """Nested JSON-like values equal, numbers to 1e-9 relative."""
    if isinstance(a, dict):
        assert set(a) == set(b), (where, sorted(set(a) ^ set(b)))
        for k in a:
            _close(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), (where, len(a), len(b))
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            _close(x, y, f"{where}[{k}]")
    elif isinstance(a, (int, float)) and not isinstance(a, bool) and b is not None:
        assert b == pytest.approx(a, rel=1e-9, abs=1e-12), where
    else:
        assert a == b, where


@needs_node
def test_browser_model_builds_the_same_input(results, data):
    """GR_FIGS.fromModel on the browser's report model (model.js) gives the input live_data builds in Python."""
    from genreport.present.live import inputs, tables

    jobs = {key: inputs(r.spec) for key, r in results.items()}
    folder = ROOT / "templates" / "live"
    source = "\n".join((folder / n).read_text(encoding="utf-8") for n in ("formulas.js", "model.js", "parallel.js", "figs.js"))
    driver = """
const INPUT = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = {};
for (const [key, inp] of Object.entries(INPUT.jobs)) out[key] = GR_FIGS.fromModel(GR_MODEL.evaluate(inp, INPUT.t), inp);
process.stdout.write(JSON.stringify(out));
"""
    p = run_program(source + driver, json.dumps({"jobs": jobs, "t": tables()}), timeout=30)  # node -e: 128 KiB at most
    assert p.returncode == 0, p.stderr[-3000:]
    got = json.loads(p.stdout)
    for key, d in data.items():
        js = got[key]
        want = {**d["roofline"], "compare": [], "measured": [], "measured_roof": None}  # not recomputed in the page
        _close(want, js["roofline"], f"{key}.roofline")
        wd, jd = d["decodeIntensity"], js["decodeIntensity"]
        _close({**wd, "compare": []}, jd, f"{key}.decodeIntensity")


@needs_node
def test_page_hook_swaps_the_figures_and_restores_them(results):
    """GR_FIGS.live (called by page.js): a what-if's figures replace the built ones, with the spec's faded under
    them; no what-if restores the built images.  The page is a stand-in with the elements the hook reads."""
    from genreport.present.live import page_data, tables

    data = page_data(results["8b"].spec)
    inp = json.loads(json.dumps(data["inputs"]))
    inp["hardware"]["bandwidth"] = 4.8e12
    folder = ROOT / "templates" / "live"
    source = "\n".join((folder / n).read_text(encoding="utf-8") for n in ("formulas.js", "model.js", "parallel.js", "figs.js"))
    driver = """
const INPUT = JSON.parse(require("fs").readFileSync(0, "utf8"));
function element(attrs, children) {
  return {attrs: attrs, children: children || {},
    getAttribute(k) { return k in this.attrs ? this.attrs[k] : null; }, hasAttribute(k) { return k in this.attrs; },
    setAttribute(k, v) { this.attrs[k] = String(v); }, querySelector(sel) { return this.children[sel] || null; }};
}
const figs = {};
for (const id of ["fig6-roofline", "fig4-decode-intensity"]) {
  figs[id] = element({}, {img: element({src: "built-" + id}), source: element({srcset: "built-narrow-" + id}),
                          figcaption: element({})});
}
const root = {getElementById(id) { return id === "genreport-live" ? {textContent: JSON.stringify(INPUT.data)} : figs[id] || null; }};
const snap = () => Object.fromEntries(Object.entries(figs).map(([id, f]) => [id, [f.children.img.attrs.src,
  f.children.source.attrs.srcset, "data-static" in f.children.figcaption.attrs]]));
GR_FIGS.live(root, {res: GR_MODEL.evaluate(INPUT.inp, INPUT.t), inp: INPUT.inp, t: INPUT.t});
const active = snap();
GR_FIGS.live(root, null);
process.stdout.write(JSON.stringify({active: active, off: snap()}));
"""
    p = run_program(source + driver, json.dumps({"data": data, "inp": inp, "t": tables()}), timeout=30)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout)
    from urllib.parse import unquote

    prefix = "data:image/svg+xml;charset=utf-8,"
    for fig, (src, srcset, dimmed) in out["active"].items():
        assert src.startswith(prefix) and srcset.startswith(prefix) and dimmed, fig
        wide, phone = ET.fromstring(unquote(src[len(prefix):])), ET.fromstring(unquote(srcset[len(prefix):]))
        assert phone.get("width") == "288pt" and wide.get("width") == "460.8pt"
        texts = " ".join(_texts(wide))
        assert "ridge 206" in texts and "as built" in texts, fig  # 989.4 TFLOP/s over 4.8 TB/s; the spec faded
        assert "ridge 295" not in texts
    assert out["off"] == {f: [f"built-{f}", f"built-narrow-{f}", True] for f in out["active"]}


@needs_node
def test_the_roofline_legends_hide_no_marker_in_the_page():
    """As figure 6 (tests/test_figure_labels.py): Llama 3.1 70B in fp8 on GB200 at tp 8 puts the largest batch that
    fits at context 1k (intensity 815, ridge 625) at the roof's corner, where the roof legend at the upper left hid its
    marker; the page's legends, like matplotlib's, go where they cover no marker."""
    r = evaluated("llama70b-h100-tp8.yaml", ("hardware=gb200", "precision=fp8", "workloads.decode.batch=[1,256]"))
    d = roofline_data(r)
    assert any(p["kind"] == "decode-cap" and p["intensity"] > d["ridge"] for p in d["points"])
    root = ET.fromstring(_node([["wide", "roofline", d]])["wide"])
    rects = [next(e.iter(f"{SVG}rect")) for e in _roles(root, "legend")]
    assert len(rects) == 2
    boxes = [tuple(float(r_.get(k)) for k in ("x", "y", "width", "height")) for r_ in rects]
    for e in _roles(root, "point"):
        x, y = _centre(e)
        for bx, by, bw, bh in boxes:
            # a marker's half width (3 points) and the legend's 4-pixel margin (fig6_roofline._clear_legend)
            m = 3 + 4 * 72 / 100
            assert not (bx - m < x < bx + bw + m and by - m < y < by + bh + m), (e.get("data-intensity"), boxes)
