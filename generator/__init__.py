"""genreport: what limits this model on this GPU, and what would change it.

The pipeline, one stage per subpackage: ``load`` (specs read safely and validated) -> ``model``
(one evaluation computes every number: the report model) -> ``present`` (prose, figures, math,
HTML, PDF) -> ``write`` (output folders, results.json). ``commands`` is the CLI, built on the
small API below, which is what the CLI itself uses::

    import genreport

    spec = genreport.load_spec("specs/llama8b-h100.yaml", overrides=["hardware.memory.bandwidth=4.8 TB/s"])
    model = genreport.evaluate(spec)              # the frozen report model
    model.s("ridge_point"), model.value("decode_tokens_per_s", batch=1, context=8192)
    model.value("decode_tokens_per_s", batch=96, context=8192)   # a point off the spec's grid: evaluated
    model.what_if("precision.kv_cache=fp8")       # another report model, the override checked as --set
    model                                         # in a notebook: the decision table (_repr_html_)
    built = genreport.build_report("specs/llama8b-h100.yaml", formats=("html", "json"), spec=spec)
    genreport.write_report(built, "out")               # out/<name>/, atomically

Errors: :class:`genreport.errors.SpecError` (bad input, with file, line and fix) and
:class:`genreport.errors.BuildError` (the rest). Importing this package imports nothing heavy.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for type checkers only: importing this package stays light
    from pathlib import Path

    from genreport.load.spec import ReportSpec
    from genreport.model.results import Results
    from genreport.write.build import Built

__version__ = "0.1.0"
__all__ = ["__version__", "build_report", "evaluate", "load_spec", "results_document", "write_report"]


def load_spec(path: str | os.PathLike[str], overrides: Iterable[str] = (), strict: bool = False) -> ReportSpec:
    """A report spec, its hardware and model resolved and validated (``overrides``: ``PATH=VALUE`` strings).

    Raises :class:`genreport.errors.SpecError` with every finding (file, line, column, fix) for bad input.

    >>> spec = load_spec("specs/llama8b-h100.yaml", overrides=["precision.kv_cache=fp8"])
    >>> spec.model.name, spec.hardware.name, spec.precision.kv_cache
    ('llama-3.1-8b', 'h100-sxm', 'fp8')
    """
    from pathlib import Path

    from genreport.load.loader import load_report

    return load_report(Path(path), overrides=tuple(overrides), strict=strict)


def evaluate(spec: ReportSpec, *, plans: bool = True) -> Results:
    """The report model of a loaded spec: every number of the report, computed once (frozen).  ``plans=False``
    leaves out the serving chapter's searches over other layouts (its cheapest layout and frontier figure, None
    each), most of a serving spec's evaluation; every other number is the same.

    >>> model = evaluate(load_spec("specs/llama8b-h100.yaml"))
    >>> round(model.s("ridge_point"), 1)           # 989.4 TFLOP/s / 3.35 TB/s (seed 003)
    295.3
    >>> round(model.value("decode_tokens_per_s", batch=1, context=128))
    208
    """
    from genreport.model.evaluate import evaluate as _evaluate

    return _evaluate(spec, plans)


def results_document(model: Results, baseline: Results | None = None) -> dict[str, object]:
    """The content of results.json for a report model (documented in docs/results.md).

    >>> doc = results_document(evaluate(load_spec("specs/llama8b-h100.yaml")))
    >>> sorted(doc["inputs"])
    ['hardware', 'model', 'precision', 'workloads']
    """
    from genreport.write.results import document

    return document(model, baseline)


def build_report(path: str | os.PathLike[str], formats: Iterable[str] = ("html", "pdf", "json"),
                 overrides: Iterable[str] = (), strict: bool = False, spec: ReportSpec | None = None) -> Built:
    """A whole report in memory (:class:`genreport.write.build.Built`: relative path -> bytes).

    >>> built = build_report("specs/llama8b-h100.yaml", formats=("json",))
    >>> sorted(built.files)
    ['results.json']
    """
    from pathlib import Path

    from genreport.write.build import build as _build

    return _build(Path(path), tuple(formats), tuple(overrides), strict, spec=spec)


def write_report(built: Built, out_root: str | os.PathLike[str] = "out", name: str | None = None) -> Path:
    """Write a built report to ``out_root/<name>/`` atomically; returns the folder.

    >>> import tempfile
    >>> folder = write_report(build_report("specs/llama8b-h100.yaml", formats=("json",)), tempfile.mkdtemp())
    >>> folder.name, sorted(p.name for p in folder.iterdir())
    ('llama8b-h100', ['results.json'])
    """
    from pathlib import Path

    from genreport.write.build import write as _write

    return _write(built, Path(out_root), name)
