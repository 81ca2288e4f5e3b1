"""templates/live/fmt.js against the Python it ports: GR_FMT (genreport.present.fmt) must give the same
strings to the byte, GR_UNITS (genreport.load.units, objects.tokens) the same values and error texts.

One node process serves the whole module; each hypothesis example sends one line of calls and reads one
line of answers.  Those tests are skipped where node is not installed.
"""

from __future__ import annotations

import itertools
import json
import math
import shutil
import subprocess

import pytest
from genreport.load import objects, units
from genreport.present import fmt
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from shared import ROOT

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed (Debian package nodejs)")
FMT_JS = ROOT / "templates" / "live" / "fmt.js"
SETTINGS = settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
FEWER = settings(SETTINGS, max_examples=200)

# Reads lines of [[name, args...], ...]; answers each call ["ok", value] or ["err", message, error name].
# Floats travel as Python repr text ({"f": "0.1"}) so that nan, inf and -0.0 survive JSON.
DRIVER = r"""
const vm = require("vm"), fs = require("fs"), readline = require("readline");
const lib = vm.runInThisContext(fs.readFileSync(process.argv[1], "utf8") + "\n;({GR_FMT, GR_UNITS})");
const arg = a => (a !== null && typeof a === "object" && "f" in a
  ? Number(a.f.replace("inf", "Infinity").replace("nan", "NaN")) : a);
const out = v => (typeof v === "number" ? {f: Object.is(v, -0) ? "-0.0" : String(v)}
  : Array.isArray(v) ? v.map(out) : v !== null && typeof v === "object" ? [out(v.value), out(v.dim), v.text] : v);
function call([name, ...args]) {  // a function's answer, or a constant's value
  const [obj, key] = name.split("."), f = lib[obj][key];
  try { return ["ok", out(typeof f === "function" ? f(...args.map(arg)) : f)]; } catch (e) { return ["err", e.message, e.name]; }
}
readline.createInterface({input: process.stdin}).on("line", line => {
  process.stdout.write(JSON.stringify(JSON.parse(line).map(call)) + "\n");
});
"""


@pytest.fixture(scope="module")
def js():
    if NODE is None:
        pytest.skip("node is not installed (Debian package nodejs)")
    proc = subprocess.Popen([NODE, "-e", DRIVER, str(FMT_JS)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, encoding="utf-8")

    def run(calls: list) -> list:
        proc.stdin.write(json.dumps([[name, *map(_arg, args)] for name, *args in calls]) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        assert line, f"node stopped (exit status {proc.poll()})"
        return [_normal(r) for r in json.loads(line)]

    yield run
    proc.stdin.close()
    proc.wait(timeout=10)


def _arg(a):
    return {"f": repr(a)} if isinstance(a, float) else a


def _normal(r):
    """A JS answer with its numbers as Python floats' repr, to compare as text."""
    if isinstance(r, dict) and "f" in r:
        return repr(float(r["f"]))
    return [_normal(x) for x in r] if isinstance(r, list) else r


def py(fn, *args):
    """The Python answer, in the JS answer's shape."""
    try:
        v = fn(*args)
    except (ValueError, TypeError, OverflowError) as exc:
        return ["err", str(exc), "UnitError" if isinstance(exc, units.UnitError) else "Error"]
    if isinstance(v, units.Quantity):
        v = [v.value, v.dim, v.text]
    return ["ok", _py_normal(v)]


def _py_normal(v):
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return repr(float(v))
    return [_py_normal(x) for x in v] if isinstance(v, (list, tuple)) else v


def check(js, calls: list[tuple]) -> None:
    """calls: (name, python function, args...); every JS answer must equal the Python one."""
    got = js([(name, *args) for name, _, *args in calls])
    for (name, fn, *args), answer in zip(calls, got, strict=True):
        assert answer == py(fn, *args), f"{name}{tuple(args)!r}"


# Floats across magnitudes, exact binary ties (n / 2^k: 0.5, 2.5, 1234.5, 0.125), decimals that look like ties
# but are not (2.675), whole numbers, the extremes, and None.
NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.builds(lambda m, e: m * 10.0**e, st.floats(-10, 10), st.integers(-9, 18)),
    st.builds(lambda n, k: n / 2**k, st.integers(-10**7, 10**7), st.integers(0, 14)),
    st.builds(lambda n, k: n / 10**k, st.integers(-10**7, 10**7), st.integers(0, 9)),
    st.integers(-2**53, 2**53), st.integers(-10**6, 10**6).map(float), st.none(),
)
TIES = [1e-4, 999.96, 0.5, 1.5, 2.5, -2.5, 1234.5, 0.125, 0.375, 10.5, 99.5, 100.5, 9.5, 0.0625, 2.675, 1.0005, 99.95, 1e-5,
        1.2e-5, 1e15, 1e16, 9999.5, 99950.0, 1e300, 5e-324, -0.0, 0.0, math.inf, -math.inf, math.nan, None]

FILTERS = {**fmt.FILTERS, "sig4": fmt.sig4, "tex_number": fmt.tex_number}
SPECS = [".0f", ".1f", ".2f", ".4f", ",.0f", ",.2f", ".0e", ".2e", ".6e", ".0g", ".1g", ".3g", "#.3g", ".4g", ",.4g", ".6g",
         ".17g", "", ","]


@SETTINGS
@given(NUMBERS, st.integers(1, 5))
@example(None, 3)
def test_filters(js, x, n):
    calls = [(f"GR_FMT.{name}", f, x) for name, f in sorted(FILTERS.items()) if not (name == "sig4" and x is None)]
    calls += [("GR_FMT.num", fmt.num, x, n), ("GR_FMT.exact", fmt.exact, x, n - 1), ("GR_FMT.pct", fmt.pct, x, n - 1),
              ("GR_FMT.rate", fmt.rate, x, "OP/s")]
    check(js, calls)


def test_filters_at_ties(js):
    """Exact binary ties round half to even in Python; JS's toFixed and toPrecision round them up."""
    calls = [(f"GR_FMT.{name}", f, x) for x in TIES for name, f in sorted(FILTERS.items())
             if not (name == "sig4" and x is None)]
    calls += [("GR_FMT.format", format, x, spec) for x in TIES if x is not None for spec in SPECS]
    check(js, calls)


@SETTINGS
@given(NUMBERS.filter(lambda x: x is not None), st.sampled_from(SPECS))
def test_format_specs(js, x, spec):
    check(js, [("GR_FMT.format", format, float(x), spec)])


@needs_node
def test_naive_js_rounding_differs():
    """The ties matter: JS's own toFixed rounds 0.5, 2.5 and 1234.5 up, where Python gives 0, 2 and 1234."""
    script = "console.log(JSON.stringify([0.5, 2.5, 1234.5].map(x => x.toFixed(0))))"
    naive = json.loads(subprocess.run([NODE, "-e", script], capture_output=True, text=True, check=True).stdout)
    python = [f"{x:.0f}" for x in (0.5, 2.5, 1234.5)]
    assert python == ["0", "2", "1234"]
    assert all(a != b for a, b in zip(naive, python, strict=True))


# Quantity strings from a grammar: number, space, prefix, base unit, per-unit, space; with invalid parts.
NUMS = ["3", "3.35", ".5", "5.", "1e3", "2.5E-3", "+4", "-1", "0", "00.10", "1e400", "inf", "-Inf", "NaN", "+nan",
        "１２", "٣.٥", "𝟓", "e3", ".", "+", "1.2.3", "ınf", "İnf", "infinity", "0x10", "1_000"]
SPACES = ["", " ", "  ", "\t", "\xa0", "\u3000", "\x1c", "\x85", "\ufeff", "\n", "\r"]
PREFIXES = ["", "k", "K", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "m", "u", "Z", "\u212a"]
BASES = ["B", "byte", "bytes", "bit", "bits", "FLOP", "FLOPs", "OP", "OPs", "FLOPS", "OPS", "TOPS", "b", "flops",
         "Flops", "s", "ms", "us", "µs", "μs", "ns", "min", "h", "x", ""]
PERS = ["", "/s", "/ s", " /ms", "/B", "/", "//s", "/s/s", "/TB", "/h", "/\u3000"]
UNIT_TEXT = st.builds("".join, st.tuples(*(st.sampled_from(x) for x in (SPACES, PREFIXES, BASES, PERS, SPACES))))
QUANTITY = st.one_of(
    st.builds(lambda n, s, u: n + s + u, st.sampled_from(NUMS), st.sampled_from(SPACES), UNIT_TEXT),
    st.one_of(st.text(max_size=12), st.text(min_size=95, max_size=110),
              st.builds(lambda n, s: n + " " + s, st.sampled_from(NUMS), st.text(min_size=90, max_size=100)),
              st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats().filter(lambda x: not x.is_integer())),
)
DIMS = [units.BYTES, units.FLOPS_COUNT, units.SECONDS, units.RATE_BYTES, units.RATE_FLOP, units.DIMENSIONLESS]
DIM_NAMES = ["BYTES", "FLOPS_COUNT", "SECONDS", "RATE_BYTES", "RATE_FLOP", "DIMENSIONLESS"]


@FEWER
@given(QUANTITY, st.one_of(UNIT_TEXT, st.text(max_size=8)), st.tuples(*[st.integers(-2, 2)] * 3))
@example("3.35 TB/s", "TB/s", (1, 0, -1))
@example("ınf TB/s", "Gb", (0, 0, 0))
@example("1e400 B", "Kibits", (0, 1, -1))
@example("-inf TB/s", "kbit / ms", (0, 0, 0))
def test_units(js, text, unit, dim):
    calls = [("GR_UNITS.parse", text), ("GR_UNITS.parse_unit", unit), ("GR_UNITS.describe", list(dim))]
    calls += [("GR_UNITS.expect", text, list(d)) for d in DIMS]
    want = [py(units.parse, text), py(units.parse_unit, unit), py(units.describe, dim)]
    want += [py(units.expect, text, d) for d in DIMS]
    assert js(calls) == want, f"{text!r}, {unit!r}, {dim}"


def test_units_constants(js):
    names = [*DIM_NAMES, "MAX_CHARS", "MAX_TOKENS"]
    want = [py(lambda n=n: getattr(units, n, None) or getattr(objects, n)) for n in names]
    assert js([(f"GR_UNITS.{n}",) for n in names]) == want


def test_units_every_unit(js):
    """Every prefix, base unit and per-unit of the grammar, alone and after a number, in one batch."""
    texts = ["".join(t) for t in itertools.product(PREFIXES, BASES, PERS)]
    calls = [(name, f, arg) for t in texts
             for name, f, arg in (("GR_UNITS.parse_unit", units.parse_unit, t), ("GR_UNITS.parse", units.parse, "2.5 " + t))]
    check(js, calls)


def test_units_read_their_numbers_as_decimals(js):
    """The number times the unit's scale in decimal, rounded once, in Python and the page alike: '2.039 TB/s' is
    2,039,000,000,000 B/s (the float product read 2039000000000.0002); past the floats' range, inf and 0 as before
    (QA, stop 81)."""
    assert units.parse("2.039 TB/s").value == 2.039e12 and units.parse("1.1 EFLOP/s").value == 1.1e18
    assert units.parse("1e999999 TB/s").value == math.inf and units.parse("1e-999999 ms").value == 0.0
    texts = ["2.039 TB/s", "1.1 EFLOP/s", "0.6 us", "2.5 bit/h", "989.4 TFLOP/s", "1e999999 TB/s", "-1e999999 GB",
             "1e-999999 ms", "-0 B", ".5 GiB", "7. ms", "123456789012345678901234567890.125 TB/s", "3.35e-3 TB/ms"]
    check(js, [("GR_UNITS.parse", units.parse, t) for t in texts])


TOKEN_NUMS = ["0", "1", "2048", "1.5", "0.5", "01", "1.", "95.367431640625", "97656.25", "97656.3", "100000", "1e3",
              "١", "8"]
TOKEN_TEXT = st.builds(lambda a, n, s, b: a + n + s + b, st.sampled_from(SPACES), st.sampled_from(TOKEN_NUMS),
                       st.sampled_from(["", "k", "K", "m", "M", "g", "kk", " k"]), st.sampled_from(SPACES))


@FEWER
@given(st.one_of(TOKEN_TEXT, st.text(max_size=6), st.integers(-10**9, 10**9), st.booleans(), st.none(),
                 st.floats().filter(lambda x: not x.is_integer())))
@example("8k")
@example(" 95.367431640625M")
def test_tokens(js, value):
    check(js, [("GR_UNITS.tokens", objects.tokens, value)])


def test_dotless_i_is_not_a_number():
    """Under re.IGNORECASE 'i' matched 'ı' and 'İ', and float('ınf') then escaped as a bare ValueError."""
    for text in ("ınf TB/s", "İnf GB"):
        with pytest.raises(units.UnitError, match="write a number and a unit"):
            units.parse(text)


def test_time_keeps_the_third_digit():
    """Times print three significant digits everywhere: Qwen3 30B's serial 16k prefill (1.004 s) read "1 s" outside
    the lever rows, and a disaggregation TTFT "24.8 ms → 25 ms" (24.98 ms is 25.0 at three digits).  A value that
    is exactly the shorter number (a stated 50 ms target, a 2 µs launch) prints short; the unit is picked after
    rounding, so 999.96 ms is 1.00 s, not '1e+03 ms'."""
    got = [fmt.time(x) for x in (1.004, 0.02498, 0.0248, 0.136, 2.0, 0.05, 2e-6, 1.5e-5, 0.99996, 9.9996e-6, None)]
    assert got == ["1.00 s", "25.0 ms", "24.8 ms", "136 ms", "2 s", "50 ms", "2 µs", "0.015 ms", "1.00 s", "10.0 µs",
                   "n/a"]
    src = (ROOT / "templates" / "sections" / "s9_serving.html.j2").read_text()
    assert "row.ttft[1] | time }}" in src and "row.tpot[1] | time }}" in src


def test_micro_writes_a_collectives_costs_in_microseconds(js):
    """A collective's fixed costs in the unit nccl-tests and NCCL's tuner give them (chapter 6: Simple's measured
    24.1 us a call and 0.89 us a step on H100), three significant digits, as time's; the page's port agrees."""
    xs = (2.41e-5, 8.4e-6, 8.9e-7, 1.2e-3, 1.5e-5, None)
    assert [fmt.micro(x) for x in xs] == ["24.1 µs", "8.4 µs", "0.89 µs", "1,200 µs", "15 µs", "n/a"]
    check(js, [("GR_FMT.micro", fmt.micro, x) for x in xs])


def test_time_js_agrees_at_the_edges(js):
    edges = [1.004, 0.02498, 2.0, 0.05, 2e-6, 0.99996, 0.0099996, 9.9996e-6, 1000.4, 1e-12, -0.5, 0.0]
    check(js, [("GR_FMT.time", fmt.time, x) for x in edges])
    check(js, [("GR_FMT.sig3", fmt.sig3, x) for x in (*edges, 28.3, 27.996, 999.5, 1234.5, -1234.5, None)])


def test_memsize_takes_the_unit_family_that_gives_a_size_exactly(js):
    """6e9 B is divisible by 1024 but written in GB: '6 GB', not '5.588 GiB' (the reserve '6 GB' read so, review of
    stop 85); binary sizes stay binary, and the page says what Python says."""
    sizes = [6e9, 6 * 2**30, 1.5 * 2**30, 262144.0, 228000.0, 50e6, 1024000.0, 151397597184.0, 6_123_456_789.0, 0.0,
             1023.0, 1024.0, 8e12, 2**40 * 3.0]
    assert [fmt.memsize(b) for b in sizes[:3]] == ["6 GB", "6 GiB", "1.5 GiB"]
    check(js, [("GR_FMT.memsize", fmt.memsize, b) for b in sizes])
