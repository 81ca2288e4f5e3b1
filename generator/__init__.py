"""genreport: what limits this model on this GPU, and what would change it.

The pipeline, one stage per subpackage: ``load`` (specs read safely and validated) -> ``model``
(one evaluation computes every number: the report model) -> ``present`` (prose, figures, math,
HTML, PDF) -> ``write`` (output folders, results.json). ``commands`` is the CLI, built on the
small API below, which is what the CLI itself uses::

    import genreport

    spec = genreport.load_spec("specs/llama8b-h100.yaml", overrides=["hardware.memory.bandwidth=4.8 TB/s"])
    model = genreport.evaluate(spec)              # the frozen report model
    model.s("ridge_point"), model.value("decode_tokens_per_s", batch=1, context=8192)
    built = genreport.build_report("specs/llama8b-h100.yaml", formats=("html", "json"), spec=spec)
    genreport.write_report(built, "out")               # out/<name>/, atomically

Errors: :class:`genreport.errors.SpecError` (bad input, with file, line and fix) and
:class:`genreport.errors.BuildError` (the rest). Importing this package imports nothing heavy.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__", "build_report", "evaluate", "load_spec", "results_document", "write_report"]


def load_spec(path, overrides=(), strict: bool = False):
    """A report spec, its hardware and model resolved and validated (``overrides``: ``PATH=VALUE`` strings)."""
    from pathlib import Path

    from genreport.load.loader import load_report

    return load_report(Path(path), overrides=tuple(overrides), strict=strict)


def evaluate(spec):
    """The report model of a loaded spec: every number of the report, computed once (frozen)."""
    from genreport.model.evaluate import evaluate as _evaluate

    return _evaluate(spec)


def results_document(model, baseline=None) -> dict:
    """The content of results.json for a report model (documented in docs/results.md)."""
    from genreport.write.results import document

    return document(model, baseline)


def build_report(path, formats=("html", "pdf", "json"), overrides=(), strict: bool = False, spec=None):
    """A whole report in memory (:class:`genreport.write.build.Built`: relative path -> bytes)."""
    from pathlib import Path

    from genreport.write.build import build as _build

    return _build(Path(path), tuple(formats), tuple(overrides), strict, spec=spec)


def write_report(built, out_root="out", name: str | None = None):
    """Write a built report to ``out_root/<name>/`` atomically; returns the folder."""
    from pathlib import Path

    from genreport.write.build import write as _write

    return _write(built, Path(out_root), name)
