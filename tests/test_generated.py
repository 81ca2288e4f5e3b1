"""The compiled formulas are generated code committed in the package (issue 13, item 7).

Nothing is compiled per machine and no file from a user-writable cache folder is executed: the
generated module is imported like any other, and a test fails when it is older than the formulas.
"""

from __future__ import annotations

import re

from genreport.formulas import compiled, generate
from genreport.formulas.variants import VARIANTS
from shared import ROOT


def test_generated_module_is_current():
    from genreport.formulas import _generated

    assert _generated.DIGEST == compiled.source_digest(), \
        "formulas/_generated.py is stale: run python -m genreport.formulas.generate"


def test_every_quantity_has_every_variant():
    for c in compiled.load().values():
        assert set(c.latex) == set(VARIANTS), c.id


def test_stale_module_is_noticed(monkeypatch, capsys):
    from genreport.formulas import _generated

    monkeypatch.setattr(_generated, "DIGEST", "not-the-digest")
    assert compiled.generated_module() is None


def test_nothing_executes_files():
    """No exec/eval of text anywhere in the package (SymPy's lambdify runs in-process only, on our own
    expressions, when the generated module is stale)."""
    offenders = []
    for folder in (ROOT / "generator", ROOT / "formulas"):
        for path in folder.rglob("*.py"):
            for i, line in enumerate(path.read_text().splitlines(), 1):
                if re.search(r"(?<![\w.])(exec|eval)\(", line):
                    offenders.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not offenders, offenders


def test_formulas_print_in_the_forms_that_explain():
    """Issue 15: S*, B*, T* and I_inf in terms of the ridge R and the attention intensity I_KV; no denominator that
    leads with a minus sign; multi-letter subscripts upright."""
    q = compiled.load()
    for qid, want in (("critical_context", r"c \, \left(R - I_{\mathrm{KV}}\right)"),
                      ("crossover_batch", r"S \, c \, \left(R - I_{\mathrm{KV}}\right)"),
                      ("decode_intensity_ceiling", r"I_{\mathrm{KV}} + \frac{2 \, N}{S \, c}"),
                      ("gemm_crossover_tokens", r"R \, b \, \left(m + n\right)")):
        tex = compiled.render_latex(q[qid].latex["seed"], q[qid].args)
        assert want in tex, (qid, tex)
    for c in q.values():
        for variant, template in c.latex.items():
            tex = compiled.render_latex(template, c.args)
            assert not re.search(r"\\frac\{[^{}]*\}\{-", tex), (c.id, variant, tex)
            assert not re.search(r"_\{[a-z]{2,}\}", tex + c.symbol), (c.id, tex, c.symbol)


def test_generated_module_imports_only_the_numpy_names_it_uses():
    """``from numpy import *`` loads every NumPy submodule (80 ms a build); the names the code reads suffice."""
    text = (ROOT / "formulas" / "_generated.py").read_text()
    assert "from numpy import *" not in text
    body = text.split("\nDIGEST = ", 1)[1].split("\n", 1)[1]  # the functions and tables after the header
    assert f"from numpy import {', '.join(generate.numpy_names(body))}\n" in text


def test_dependency_versions_come_from_the_wheel_folders_as_importlib_says():
    from importlib import metadata

    from genreport.fingerprint import DEPENDENCIES, _version

    assert {n: _version(n) for n in DEPENDENCIES} == {n: metadata.version(n) for n in DEPENDENCIES}
