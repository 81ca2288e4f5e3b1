"""What many test files share, made once per test session: the checkout's paths, the evaluated results of a
spec and the built reports.

``ROOT`` is the checkout (every file used to compute its own).  ``evaluated`` and ``built`` remember what
they made, keyed by the spec file and the overrides, so that the nine committed reports are evaluated and built
once per run, not once per file.  Tests stay independent of order: ``evaluated`` hands out a deep copy of the
remembered results (0.04 s against 0.1-0.2 s to evaluate) and ``built`` a fresh ``Built`` with its own dict of
the (immutable) file bytes, so a test that changes what it got changes nothing another test sees.
The fixtures of the same names in ``conftest.py`` return these functions.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"
COMMITTED = tuple(sorted(p.name for p in SPECS.glob("*.yaml")))  # the committed reports' spec files


def _path(spec) -> Path:
    path = Path(spec)
    return path if path.is_absolute() or path.parent != Path(".") else SPECS / path


@functools.cache
def _evaluated(path: Path, overrides: tuple[str, ...]):
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate

    return evaluate(load_report(path, overrides=list(overrides)))


def _committed(path: Path) -> bool:
    """Only the committed specs are remembered: a test's own spec file may be rewritten under the same name."""
    return path.parent == SPECS


def evaluated(spec, overrides=()):
    """``evaluate(load_report(spec, overrides))``, a copy of the one made this session.  ``spec`` is a path, or
    the file name of a committed spec ("llama8b-h100.yaml"); any other file is evaluated afresh every call."""
    path = _path(spec)
    if not _committed(path):
        return _evaluated.__wrapped__(path, tuple(overrides))
    results = _evaluated(path, tuple(overrides))
    return copy.deepcopy(results, dict(_read_only(id(results), results)))


def _read_only(key: int, results) -> dict:
    """The read-only NumPy arrays inside ``results`` by id: handed out as they are (they cannot change), so that
    the copy keeps them read-only as the model made them (``copy.deepcopy`` would make writeable ones)."""
    if key not in _READ_ONLY:
        import numpy as np

        found, seen, todo = {}, set(), [results]
        while todo:
            obj = todo.pop()
            if id(obj) in seen or isinstance(obj, (str, bytes, int, float, bool, type(None))):
                continue
            seen.add(id(obj))
            if isinstance(obj, np.ndarray):
                if not obj.flags.writeable:
                    found[id(obj)] = obj
            elif isinstance(obj, dict):
                todo += [*obj.keys(), *obj.values()]
            elif isinstance(obj, (list, tuple, set, frozenset)):
                todo += list(obj)
            elif dataclasses.is_dataclass(obj):
                todo += [getattr(obj, f.name) for f in dataclasses.fields(obj)]
            elif hasattr(obj, "__dict__") and not callable(obj):
                todo += list(vars(obj).values())
        _READ_ONLY[key] = (results, found)  # results kept: its id stays its own
    return _READ_ONLY[key][1]


_READ_ONLY: dict[int, tuple] = {}


@functools.cache
def _built(path: Path, formats: tuple[str, ...], overrides: tuple[str, ...]):
    from genreport.write.build import build

    return build(path, formats=formats, overrides=overrides)


def built(spec, formats=("html", "json"), overrides=()):
    """``build(spec, formats, overrides)``, a copy of the one made this session (a new ``Built``, its own
    ``files`` dict; the bytes are immutable); a spec outside ``specs/`` is built afresh every call."""
    path = _path(spec)
    if not _committed(path):
        return _built.__wrapped__(path, tuple(formats), tuple(overrides))
    return dataclasses.replace(b := _built(path, tuple(formats), tuple(overrides)), files=dict(b.files),
                               timings=dict(b.timings))


def html(spec, overrides=()) -> str:
    """The screen HTML of a built report (from the html,json build the golden test compares with out/)."""
    return built(spec, ("html", "json"), overrides).files["report.html"].decode("utf-8")
