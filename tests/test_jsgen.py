"""The JavaScript of every quantity (``templates/live/formulas.js``, issue 18) computes what the NumPy code computes.

node evaluates ``GR_Q`` for a few hundred random inputs drawn by hypothesis and each value is compared with the
compiled Python function of the same quantity to 1e-9 relative (both infinite with one sign, or both NaN, count
as equal). One node process per test reads one JSON line per example and answers one, so there is no process
per example and hypothesis can still shrink a failure to a small example.
"""

from __future__ import annotations

import functools
import json
import math
import shutil
import subprocess

import numpy as np
import pytest
from genreport.formulas import compiled, jsgen
from genreport.paths import templates_dir
from hypothesis import given, settings
from hypothesis import strategies as st

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed (Debian package nodejs; scripts/setup "
                                                     "--test installs it): cannot run the report's JavaScript")
# Every quantity the live page recomputes: of the serving chapter's engine techniques only those its numbers take
# (jsgen.LIVE_TECHNIQUES; the rate figure is shown as built), and no collective of a generic group (n_g: chapter 6
# prints them, the page evaluates the ledgers that use them), so formulas.js leaves the others out.
# Made when a test first asks, from the compiled quantities' arguments (their expressions' free symbols): building
# the parallel quantities' SymPy expressions to read them took 13 s of the suite.


@functools.cache
def quantities() -> dict:
    every = compiled.load()
    as_built = jsgen.printed_only({qid: c.fn_args for qid, c in every.items()})
    return {qid: c for qid, c in every.items() if qid not in as_built}


REL = 1e-9

# Every argument of every quantity: (low, high, integer). Realistic magnitudes in SI units, drawn log-uniformly;
# a test fails when a quantity takes an argument missing here.
RANGES = {
    "P": (1e12, 1e16, False), "P_a": (1e12, 1e16, False), "W": (1e11, 1e13, False), "C": (1e9, 1e12, False),
    "N": (1e8, 1e12, False), "N_a": (1e8, 1e12, False), "N_e": (1e6, 1e10, False), "N_p": (1e8, 1e12, False),
    "N_x": (1e8, 1e12, False), "L": (1, 200, True), "L_x": (1, 200, True), "d": (256, 32768, True),
    "H_q": (1, 256, True), "H_kv": (1, 128, True), "d_h": (32, 512, True), "d_hp": (32, 512, True), "V": (1e3, 3e5, True),
    "b": (0.25, 4, False), "b_kv": (0.5, 4, False), "b_a": (1, 4, False), "B": (1, 1e4, True), "S": (1, 1e6, True),
    "T": (1, 1e6, True), "n": (64, 1e5, True), "m": (64, 1e5, True), "c": (1e3, 1e7, False), "a": (1e3, 1e8, False),
    "k": (2, 20, False), "F": (1e9, 1e18, False), "Q": (1e6, 1e13, False), "t": (1e-6, 1e3, False),
    "eta_P": (0.01, 1, False), "eta_W": (0.01, 1, False),
    "n_TP": (1, 64, True), "n_PP": (1, 64, False), "n_PW": (1, 64, False), "n_PK": (1, 64, False), "n_PT": (1, 64, False), "n_St": (1, 64, True), "n_EP": (1, 64, True), "n_DP": (1, 1024, True),
    "n_g": (1, 1024, True), "Z_g": (1, 1e10, False), "W_x": (1e9, 1e12, False), "alpha": (1e-7, 1e-4, False),
    "W_TP": (1e9, 1e12, False), "W_PP": (1e9, 1e12, False), "W_EP": (1e9, 1e12, False), "W_DP": (1e9, 1e12, False),
    "alpha_TP": (1e-7, 1e-4, False), "alpha_PP": (1e-7, 1e-4, False), "alpha_EP": (1e-7, 1e-4, False),
    "alpha_DP": (1e-7, 1e-4, False), "k_e": (1, 16, True), "E_x": (8, 384, True), "T_o": (1, 1e5, True), "s_kv": (1, 64, True),
    "k_w": (1, 16, False), "k_g": (1, 16, False), "k_o": (1, 16, False),
    "W_c": (1e9, 1e12, False), "tau_c": (1e-7, 1e-4, False), "k_L": (1.0, 40.0, False), "tau_k": (1e-7, 1e-5, False),
    "tau_l": (1e-7, 1e-5, False), "tau_o": (1e-7, 1e-4, False), "o_TP": (1, 1, True), "s_st": (1, 1, True), "kappa_B": (0.5, 2, False), "kappa_L": (0.5, 2, False), "kappa_F": (0.5, 2, False), "m_b": (1, 64, True), "W_s": (1e9, 1e12, False), "tau_s": (1e-7, 1e-4, False),
    "s_TP": (1, 1, True), "W_cTP": (1e9, 1e12, False), "W_sTP": (1e9, 1e12, False), "W_cPP": (1e9, 1e12, False),
    "W_cEP": (1e9, 1e12, False), "W_cDP": (1e9, 1e12, False), "u_x": (1, 8, False), "m_P": (1, 32, False), "e_w": (0.05, 1, False),
    "e_m": (0.05, 1, False), "e_g": (0.05, 1, False),
    # two tiers (scale-up domain, then the NICs) and redundant experts
    "n_u": (1, 1024, True), "n_uTP": (1, 64, True), "n_uEP": (1, 64, True),
    "W_o": (1e9, 1e12, False), "W_oTP": (1e9, 1e12, False), "W_oEP": (1e9, 1e12, False),
    "W_co": (1e9, 1e12, False), "W_coTP": (1e9, 1e12, False), "W_coEP": (1e9, 1e12, False),
    "alpha_o": (1e-7, 1e-4, False), "alpha_oTP": (1e-7, 1e-4, False), "alpha_oEP": (1e-7, 1e-4, False),
    # the ring's LL128 and Simple protocols (NCCL's tuner: 14 and 8.4 us a call, 1.9-14 us a step), LL's bandwidths
    "tau_c8": (1e-7, 1e-4, False), "tau_cS": (1e-7, 1e-4, False), "alpha_8TP": (1e-7, 1e-4, False),
    "alpha_STP": (1e-7, 1e-4, False), "tau_cSm": (1e-7, 1e-4, False), "alpha_SmTP": (1e-7, 1e-4, False),
    "alpha_8oTP": (1e-7, 1e-4, False), "alpha_SoTP": (1e-7, 1e-4, False),
    "W_lTP": (1e9, 1e12, False), "W_loTP": (1e9, 1e12, False),
    "rho_x": (1e-3, 1, False),  # 0 (no replicas) is among the zeros drawn below
    "N_R": (1e6, 1e11, False),  # the copies tensor parallelism holds (0 on one GPU, among the zeros)
    # the experts' all-to-all as DeepEP runs it: its switch and its shares of the line rate
    "o_EP": (1, 1, True), "e_Du": (0.05, 1, False), "e_Do": (0.05, 1, False), "e_Dl": (0.05, 1, False),
    # the serving chapter's techniques (jsgen.LIVE_TECHNIQUES)
    "T_in": (1, 1e6, True), "T_out": (1, 1e5, True), "s_c": (16, 8192, True), "C_p": (1, 8192, True), "n_c": (0.01, 1e4, False), "kappa_c": (1, 20, False), "h_p": (1e-3, 0.99, False),
    "k_d": (1, 16, True), "n_v": (2, 64, True), "p_a": (0.01, 0.99, False), "n_S": (1, 8, True), "k_pp": (1, 16, True), "lam": (1e-3, 1e3, False),
    "theta": (1e-3, 1, False), "t_s": (1e-4, 1, False), "t_v": (1e-4, 1, False), "t_d": (1e-6, 1, False),
    "t_p": (1e-4, 10, False), "t_pr": (1e-4, 10, False), "W_kv": (1e9, 1e12, False),
    "M_d": (1e6, 2e10, False), "c_d": (64, 1e5, False),  # a draft model's weights and KV per token on one GPU
    "M_s": (1, 4096, True),  # the engine's max_sequences: a count
    "c_h": (1e3, 1e7, False),  # the KV bytes per token a sequence holds at a request's mean context (c's range)
    "c_s": (1e3, 1e7, False),  # of it, the bytes per token a cached prefix still holds (c_h where every layer is global)
    "F_d": (1e6, 1e16, False), "Q_d": (1e6, 1e12, False),  # one draft pass's FLOPs and bytes (draft_time_bound)
    "f_d": (1e6, 1e12, False),  # one draft pass's FLOPs for one sequence (compute_batch_speculative)
}
NAMES = sorted(RANGES)

DRIVER = r"""
const fs = require("fs"), readline = require("readline"), vm = require("vm");
vm.runInThisContext(fs.readFileSync(process.argv[2], "utf8"), {filename: process.argv[2]});
const show = (v) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : v);
readline.createInterface({input: process.stdin}).on("line", (line) => {
  const env = JSON.parse(line), out = {};
  for (const id of Object.keys(GR_Q)) {
    const q = GR_Q[id];
    out[id] = env === null ? q.a : show(q.f(...q.a.map((n) => {
      if (!(n in env)) throw new Error(id + ": no input " + n);
      return env[n];
    })));
  }
  process.stdout.write(JSON.stringify(out) + "\n");
});
"""


class Node:
    """One node process that evaluates every quantity of a GR_Q script for each environment it is sent."""

    def __init__(self, script: str, folder):
        (folder / "gr_q.js").write_text(script)
        (folder / "driver.js").write_text(DRIVER)
        self.p = subprocess.Popen([NODE, str(folder / "driver.js"), str(folder / "gr_q.js")], text=True,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def ask(self, env: dict | None) -> dict:
        self.p.stdin.write(json.dumps(env) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            self.p.kill()
            raise AssertionError(f"node stopped: {self.p.stderr.read()[-2000:]}")
        return json.loads(line)

    def values(self, env: dict) -> dict[str, float]:
        return {k: float(v) for k, v in self.ask(env).items()}

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)


def committed_js() -> str:
    """formulas.js where the package finds its templates (a wheel carries it: tests/test_wheel.py)."""
    return (templates_dir() / "live" / "formulas.js").read_text()


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    n = Node(committed_js(), tmp_path_factory.mktemp("node"))
    yield n
    n.close()


def python_values(env: dict, ids=None) -> dict[str, float]:
    """Every compiled quantity at ``env``, with NumPy float64 semantics as the report evaluates them."""
    with np.errstate(all="ignore"):
        return {qid: float(c.fn(*(np.float64(env[a]) for a in c.fn_args)))
                for qid, c in quantities().items() if ids is None or qid in ids}


def same(js: float, py: float) -> bool:
    if math.isnan(js) or math.isnan(py):
        return math.isnan(js) and math.isnan(py)
    if math.isinf(js) or math.isinf(py):
        return js == py
    return math.isclose(js, py, rel_tol=REL, abs_tol=0.0)


def mismatches(js: dict, py: dict) -> list[tuple[str, float, float]]:
    assert set(js) == set(py), sorted(set(js) ^ set(py))
    return [(qid, js[qid], py[qid]) for qid in sorted(py) if not same(js[qid], py[qid])]


@st.composite
def environments(draw) -> dict:
    env = {}
    for name in NAMES:
        lo, hi, integer = RANGES[name]
        x = 10.0 ** draw(st.floats(math.log10(lo), math.log10(hi)))
        env[name] = float(round(x)) if integer else x
    for name in draw(st.sets(st.sampled_from(NAMES), max_size=3)):  # zeros: x/0, 0/0, NaN through max/min
        env[name] = 0.0
    return env


# Hand-picked environments where NumPy's float64 semantics matter, with what NumPy gives (by IEEE 754 and the
# numpy.maximum / numpy.floor documentation); every quantity is compared at each, these named ones also by value.
BASE = {name: float(round(math.sqrt(lo * hi))) if integer else math.sqrt(lo * hi)
        for name, (lo, hi, integer) in RANGES.items()}
EDGES = [
    ({"P": 1.0, "W": 0.0}, "ridge_point", math.inf),  # x/0 = inf
    ({"P": 0.0, "W": 0.0}, "ridge_point", math.nan),  # 0/0 = nan
    ({"F": 0.0, "P": 0.0, "Q": 1.0, "W": 1.0, "eta_P": 1.0, "eta_W": 1.0}, "derated_time", math.nan),  # max(nan, 1)
    ({"F": 1.0, "P": 1.0, "Q": 0.0, "W": 0.0, "eta_P": 1.0, "eta_W": 1.0}, "derated_time", math.nan),  # max(1, nan)
    ({"C": 1.0, "N": 3.0, "b": 1.0, "S": 1.0, "c": 4.0}, "capacity_batch", -1.0),  # floor(-0.5) = -1, not 0
    ({"C": 9.0, "N": 1.0, "b": 1.0, "S": 0.0, "c": 4.0}, "capacity_batch", math.inf),  # floor(inf) = inf
    ({"B": 0.0, "n_PP": 0.0, "n_St": 0.0, "n_TP": 1.0, "L": 1.0, "L_x": 0.0, "k_e": 1.0, "n_EP": 1.0, "b_a": 2.0,
      "d": 8.0}, "interconnect_bytes_decode", math.nan),  # 0/min(0, 0) through min(1, n_st - 1)
]


def test_every_argument_has_a_range():
    missing = {a for c in quantities().values() for a in c.fn_args} - set(RANGES)
    assert not missing, f"add realistic ranges for {sorted(missing)} to RANGES"


def test_formulas_js_is_current():
    digests = jsgen.header_digests(committed_js())
    assert digests == (compiled.source_digest(), jsgen.printer_digest()), \
        "templates/live/formulas.js is stale: run python -m genreport.formulas.generate"


def test_formulas_js_is_one_global_and_small():
    text = committed_js()
    top = [line for line in text.splitlines() if line and not line.startswith((" ", "//"))]
    assert top == ["function GR_A(o) { for (const k in o) o[k].a = o[k].a ? o[k].a.split(\" \") : []; return o; }",
                   "const GR_Q = GR_A({", "});", "Object.assign(GR_Q, GR_A({", "}));"], top  # one card, then many GPUs
    # arrow functions and the argument names as one string: 40.8 -> 36.5 KB; the ring's three protocols: 36.9 -> 40.7;
    # the protocol NCCL's tuner runs (priced apart from what it is charged) and the crossover's steps: 40.8 -> 46.0;
    # a prompt's pass through the stages apart from its bound (stop 71): 46.0 -> 47.7; the routed experts' training
    # state and gradients over their own data-parallel group (stop 71): 49.0; the users' compute with their prompts
    # (compute_batch, stop 75): 49.7; their compute speculating (compute_batch_speculative, issue 30): 50.2; the last
    # pipeline stage's ledgers beside the busiest's, the output head on it (parallel.at_last_stage, stop 80): 54.0; each
    # stage's own attention (kappa_B, kappa_L: parallel.at_stage, stop 82): 55.8; the serial estimate's verify round
    # (verify_time_serial: the speculative row's serial speed-up and break-even, stop 86): 60.3; what tensor
    # parallelism holds whole on each GPU (N_R, stop 93): 61.8
    assert len(text.encode()) < 62_500


@needs_node
def test_quantities_and_arguments_match_the_compiled_ones(node):
    a = node.ask(None)
    assert sorted(a) == sorted(quantities()) and len(a) == len(quantities()), "GR_Q holds every compiled quantity"
    assert a == {qid: list(c.fn_args) for qid, c in quantities().items()}


@needs_node
@pytest.mark.parametrize(("point", "qid", "want"), EDGES, ids=[f"{q}-{i}" for i, (_, q, _) in enumerate(EDGES)])
def test_numpy_semantics_at_the_edges(node, point, qid, want):
    env = {**BASE, **point}
    js, py = node.values(env), python_values(env)
    assert same(py[qid], want), (qid, py[qid], want)
    assert same(js[qid], want), (qid, js[qid], want)
    assert not mismatches(js, py), env


@needs_node
@settings(max_examples=300, deadline=None, derandomize=True)
@given(env=environments())
def test_javascript_equals_numpy(node, env):
    bad = mismatches(node.values(env), python_values(env))
    assert not bad, f"JavaScript vs NumPy (id, js, py): {bad}"


class _NaNDroppingPrinter(jsgen._printer_class()):
    """A wrong printer: max and min as comparisons (NaN lost) and floor as truncation toward zero."""

    def _print_Max(self, expr):
        a, b = (self._print(x) for x in expr.args)
        return f"(({a}) > ({b}) ? ({a}) : ({b}))"

    def _print_floor(self, expr):
        return f"Math.trunc({self._print(expr.args[0])})"


@needs_node
def test_a_wrong_printer_is_caught(tmp_path):
    """The comparison can fail: a printer that drops NaN in max and truncates in floor disagrees at the edges."""
    from genreport.formulas.quantities import DEFS

    ids = {"ridge_point", "derated_time", "capacity_batch"}
    pr = _NaNDroppingPrinter({"strict": True})
    body = [f"  {json.dumps(q.id)}: {{a: {json.dumps(list(quantities()[q.id].fn_args))}, "
            f"f: {jsgen.function_js(q.expr(), quantities()[q.id].fn_args, pr)}}}," for q in DEFS if q.id in ids]
    wrong = Node("const GR_Q = {\n" + "\n".join(body) + "\n};\n", tmp_path)
    try:
        found = set()
        for point, _, _ in EDGES[:6]:
            env = {**BASE, **point}
            found |= {qid for qid, _, _ in mismatches(wrong.values(env), python_values(env, ids))}
    finally:
        wrong.close()
    assert found == {"derated_time", "capacity_batch"}


def test_printer_choices():
    """Where SymPy's JavaScript printer would differ from lambdify's NumPy printer, it prints what NumPy does."""
    import sympy as sp

    x, y = sp.symbols("x y", positive=True)
    pr = jsgen.printer()
    assert pr.doprint(x ** sp.Rational(-1, 2)) == "1/Math.sqrt(x)"
    assert pr.doprint(sp.Max(x, y, 1)) == "Math.max(1, x, y)"
    assert pr.doprint(sp.floor(x / y)) == "Math.floor(x/y)"
    assert pr.doprint(sp.Piecewise((x, x > y), (y, True))) == "((x > y) ? (x) : (y))"
    with pytest.raises(ValueError, match="cannot be a JavaScript argument name"):
        jsgen.function_js(x, ["var"])
    assert jsgen.function_js(x + y, ["x", "y"]) == "(x, y) => x + y"
