"""The shape of the code: the evaluation stage's modules import each other without a circle, and the stages that
only choose words and formats do not reach past the report model into SymPy or the formulas.

Every import counts, those inside functions too: a circle closed by a deferred import is still a circle.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest
from shared import ROOT

PACKAGE = {"generator": "genreport", "formulas": "genreport.formulas"}

# present/ and commands/ modules that still read the formulas directly; nothing may join this list. derive and
# derive_values are the symbolic command (closed forms, solving for any symbol), serve's warm-up imports the
# compiled formulas ahead of the first request, hf_convert counts an imported config's parameters.
STILL_READ_FORMULAS = {
    "genreport.commands.derive", "genreport.commands.derive_values", "genreport.commands.hf_convert",
    "genreport.commands.serve",
}


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT)
    top = PACKAGE[rel.parts[0]]
    parts = list(rel.with_suffix("").parts[1:])
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join([top, *parts])


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth of its code (``from x import y`` counts x and x.y)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[: len(up) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


def _graph(folder: str) -> dict[str, set[str]]:
    """Each module of ``folder`` and what it imports: the files parsed once per session (each of the tests below
    reads the whole package's graph: parsed again every time it was most of this file's time), each call a copy."""
    return {m: set(deps) for m, deps in _parsed(folder).items()}


@functools.cache
def _parsed(folder: str) -> dict[str, frozenset[str]]:
    files = [p for p in (ROOT / folder).rglob("*.py") if "_jinja" not in p.parts]
    return {_module_name(p): frozenset(_imports(p)) for p in files}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle among the graph's own modules, or None."""
    inside = {m: sorted(d for d in deps if d in graph and d != m) for m, deps in graph.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for d in inside[m]:
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if d not in state:
                found = visit(d)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(inside):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_the_model_imports_no_module_in_a_circle():
    model = {m: deps for m, deps in _graph("generator").items() if m.startswith("genreport.model")}
    assert len(model) >= 14
    assert _cycle(model) is None, " -> ".join(_cycle(model))


def test_the_cycle_finder_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_one_module_evaluates_at_a_layout_and_one_searches_layouts():
    names = {p.stem for p in (ROOT / "generator" / "model").glob("*.py")}
    assert {"env", "layout", "plan", "evaluate", "frame"} <= names
    assert not {"parallel", "layouts", "many"} & names  # merged into layout and plan
    graph = _graph("generator")
    assert "genreport.model.evaluate" not in {d for m in ("genreport.model.shown", "genreport.model.tables",
                                                         "genreport.model.decision", "genreport.model.plan",
                                                         "genreport.model.layout", "genreport.model.measured")
                                              for d in graph[m]}


@pytest.mark.parametrize("stage", ["present", "commands"])
def test_words_and_formats_do_not_import_sympy(stage):
    graph = {m: d for m, d in _graph("generator").items() if m.startswith(f"genreport.{stage}")}
    assert graph
    sympy = sorted(m for m, deps in graph.items() if any(d == "sympy" or d.startswith("sympy.") for d in deps)
                   and m not in STILL_READ_FORMULAS)
    assert sympy == []
    formulas = sorted(m for m, deps in graph.items() if any(d.startswith("genreport.formulas") for d in deps))
    assert set(formulas) <= STILL_READ_FORMULAS, set(formulas) - STILL_READ_FORMULAS


def test_the_printing_package_imports_no_module_in_a_circle():
    """Issue 31: four of the PDF modules imported each other in a circle; the package's shared pieces sit below."""
    printing = {m: deps for m, deps in _graph("generator").items() if m.startswith("genreport.printing")}
    # ``from genreport.printing import gate`` names the package, whose face imports its modules only when called
    printing = {m: deps - {"genreport.printing"} for m, deps in printing.items()}
    assert {"genreport.printing.pdf", "genreport.printing.splitlayout", "genreport.printing.gate"} <= set(printing)
    assert _cycle(printing) is None, " -> ".join(_cycle(printing))


UPSTREAM = ("weasyprint", "pydyf", "cffi", "_cffi_backend", "fontTools", "tinycss2", "cssselect2", "tinyhtml5")


def test_nothing_outside_the_printing_package_imports_weasyprint_or_its_libraries():
    """Issue 31: only genreport.printing reaches into WeasyPrint, pydyf, cffi or fontTools (their internals change
    with every release, and the package's gate checks what it uses)."""
    offenders = sorted(f"{m} imports {d}" for m, deps in _graph("generator").items()
                       if not m.startswith("genreport.printing") for d in deps if d.split(".")[0] in UPSTREAM)
    assert offenders == []
    inside = {d.split(".")[0] for m, deps in _graph("generator").items() if m.startswith("genreport.printing")
              for d in deps}
    assert {"weasyprint", "pydyf", "cffi", "fontTools"} <= inside  # the test looks at the right names
