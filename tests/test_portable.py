"""The same spec gives the same numbers on every machine: the evaluation takes no exp, log or power of an array
through numpy's own vector code, which on a CPU with AVX-512 differs in the last bit from the C library's
functions that numpy uses elsewhere (seen: out/deepseek-v3-h200-ep8/results.json, built on one machine, differed
from a build on another in 130 frontier numbers, through E (1 - (1 - k/E)^B)).  formulas/portable.py takes each
element through Python's math module instead."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from genreport.formulas import architecture as arch
from genreport.formulas import portable
from shared import ROOT

# numpy calls whose float64 results depend on the CPU's vector extensions (numpy's AVX-512 exp/log and the SVML
# power, log10, expm1, ...); sqrt, the four operations and integer powers are exact everywhere
VECTOR_MATH = re.compile(r"\bnp\.(exp|exp2|expm1|log|log2|log10|log1p|power|float_power|logspace|geomspace|"
                         r"sinh|cosh|tanh|cbrt)\(")
EVALUATION = ("formulas", "generator/model")


def test_the_evaluation_calls_no_cpu_dependent_numpy_math():
    found = []
    for folder in EVALUATION:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name in ("portable.py", "_generated.py"):
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if VECTOR_MATH.search(line.split("#")[0]):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == [], "use genreport.formulas.portable:\n" + "\n".join(found)


def test_the_check_sees_a_call():
    assert VECTOR_MATH.search("y = np.exp(-x)") and VECTOR_MATH.search("np.logspace(0, 2, 3)")
    assert not VECTOR_MATH.search("np.sqrt(x) + np.expand_dims(x, 0)")


def test_each_element_is_the_c_librarys():
    x = np.linspace(-3.0, 40.0, 1001)
    assert portable.exp(x).tolist() == [math.exp(v) for v in x.tolist()]
    assert portable.log(x[x > 0]).tolist() == [math.log(v) for v in x[x > 0].tolist()]
    assert portable.power(0.96875, x).tolist() == [math.pow(0.96875, v) for v in x.tolist()]
    g = portable.geomspace(1.0, 65536.0, 28)
    assert g[0] == 1.0 and g[-1] == 65536.0 and np.all(np.diff(g) > 0)
    assert portable.logspace(0.0, 14.0, 57, base=2.0)[-1] == 2.0**14


def test_edges_are_numpy_s():
    assert portable.exp([1000.0, -1000.0]).tolist() == [math.inf, 0.0]
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.log(np.array([0.0, -1.0, math.inf]))
    got = portable.log([0.0, -1.0, math.inf])
    assert got[0] == want[0] and math.isnan(got[1]) and got[2] == math.inf
    assert portable.power(10.0, [400.0]).tolist() == [math.inf]
    assert portable.power(2.0, np.ones((2, 3))).shape == (2, 3)


def test_the_experts_touched_by_hand():
    """DeepSeek-V3 (256 routed experts, 8 active): one token touches 8, 32 tokens 256 (1 - (31/32)^32) = 163.31."""
    got = arch.expected_experts_touched(256, 8, np.array([1.0, 32.0]))
    assert got[0] == pytest.approx(8.0, rel=1e-15)
    assert got[1] == 256 * (1 - math.pow(31 / 32, 32))
    assert got[1] == pytest.approx(163.31, abs=0.005)
