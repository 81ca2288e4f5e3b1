"""Figures kept by what they are drawn from: a build whose figures' inputs have not changed does not draw them again.

Drawing the nine figures twice (the wide layout and the phone one) is 1.3 s of CPU, a third of a full build's; on
two cores it is the work that keeps both busy. A figure is a function of the evaluated numbers, and those are a
function of the loaded spec (with the what-if's baseline spec) and of genreport's code and its dependencies'
versions: :func:`keys` hashes :func:`genreport.fingerprint.code_digest` (every code, template and data file of the
package, and the versions of matplotlib, NumPy and the rest) with the ``repr`` of each spec and the layout.

A spec's report title, file name and file digest are left out of the key, and the figures are drawn from results
whose spec has none of them (:func:`blind`): they cannot depend on them, so retitling a report, or copying its spec
elsewhere, keeps its figures. Anything else changed (a number, a note, the hardware's or model's file) is another
key.

The kept figures are data (``figures-1/<key>.json`` in the cache folder: SVG text by figure name), read through
the safe file layer and checked (the figure names of this code, SVG text of bounded size); anything else is
ignored and the figures are drawn. At most :data:`KEEP` files are kept, the least recently used removed.
``GENREPORT_FIGURE_CACHE=0`` turns it off.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import os
import re
from pathlib import Path

FOLDER = "figures-1"
KEEP = 32  # files (a layout of one spec each, about 0.8 MB)
LIMIT = 16 << 20  # bytes a file
_KEY = re.compile(r"[0-9a-f]{40}")


def enabled() -> bool:
    return os.environ.get("GENREPORT_FIGURE_CACHE") != "0"


def blind(results):
    """``results`` whose spec has no title, file name or file digest (the figures are drawn from these; see the
    module)."""
    if results is None:
        return None
    spec = results.spec
    if not spec.title and not spec.digest and not spec.file:
        return results
    out = copy.copy(results)
    object.__setattr__(out, "spec", dataclasses.replace(spec, title="", digest="", file=""))
    return out


def keys(results, baseline) -> dict[str, str]:
    """The figures' keys, by layout ("wide", "narrow"): code and versions, each spec (blinded), the layout."""
    from genreport.fingerprint import code_digest

    h = hashlib.sha256(f"figures 1\0{code_digest()}\0".encode())
    for r in (results, baseline):
        h.update(repr(None if r is None else blind(r).spec).encode())
        h.update(b"\0")
    out = {}
    for kind in ("wide", "narrow"):
        layout = h.copy()
        layout.update(kind.encode())
        out[kind] = layout.hexdigest()[:40]
    return out


def _folder() -> Path:
    from genreport.paths import cache_dir

    return cache_dir() / FOLDER


def exists(k: str) -> bool:
    """Whether figures are kept under ``k`` (read them with :func:`get`; they are checked then)."""
    if not enabled() or not _KEY.fullmatch(k):
        return False
    try:
        return os.stat(_folder() / f"{k}.json").st_size > 0
    except OSError:
        return False


def get(k: str, names) -> dict[str, bytes] | None:
    """The figures kept under ``k``, name -> SVG bytes in report order; None if none are (or they fail a check)."""
    if not enabled() or not _KEY.fullmatch(k):
        return None
    from genreport.fileio import ReadError, read_regular

    path = _folder() / f"{k}.json"
    try:
        data = json.loads(read_regular(path, LIMIT))
    except (ReadError, ValueError):
        return None
    names = list(names)
    if not isinstance(data, dict) or sorted(data) != sorted(names):
        return None
    out = {}
    for name in names:
        svg = data[name]
        if not isinstance(svg, str) or not svg.startswith(("<?xml", "<svg")):
            return None
        out[name] = svg.encode("utf-8")
    try:
        os.utime(path)  # recently used: kept longer
    except OSError:
        pass
    return out


def put(k: str, figures: dict[str, bytes]) -> None:
    """Keep ``figures`` under ``k``; then remove the least recently used files over :data:`KEEP`. A failure to
    write costs only the next build's time."""
    if not enabled() or not _KEY.fullmatch(k) or not figures:
        return
    from genreport.errors import BuildError
    from genreport.fileio import write_file

    try:
        text = {name: svg.decode("utf-8") for name, svg in figures.items()}
    except UnicodeDecodeError:
        return
    folder = _folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_file(folder / f"{k}.json", json.dumps(text, separators=(",", ":")).encode("utf-8"))
        kept = sorted((p for p in folder.iterdir() if p.suffix == ".json" and _KEY.fullmatch(p.stem)),
                      key=lambda p: p.stat().st_mtime, reverse=True)
        for old in kept[KEEP:]:
            old.unlink()
    except (BuildError, OSError):
        pass
