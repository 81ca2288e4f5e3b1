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

The kept figures are data (``figures-1/<key>.json`` in the cache folder: SVG text by figure name, with the key
and a digest of both), read through the safe file layer (no link followed, a regular file of bounded size) and
checked before use: the figure names of this code, the digest (an entry edited or damaged by hand is not
taken), and each figure parsed as SVG that genreport writes (:mod:`genreport.present.svgcheck`: no script, no
external reference, no element Matplotlib does not write). Anything else is ignored and the figures are drawn
(and kept again). At most :data:`KEEP` files are kept, the least recently used removed.
``GENREPORT_FIGURE_CACHE=0`` turns it off.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import hashlib
import json
import os
import re
import stat
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
        info = os.lstat(_folder() / f"{k}.json")
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size > 0


def _digest(k: str, text: dict) -> str:
    """What a file kept under ``k`` with figures ``text`` (name -> SVG text) states as its digest."""
    return hashlib.sha256(json.dumps([f"figures 1 {k}", text], separators=(",", ":")).encode("utf-8")).hexdigest()


_checked: dict[str, None] = {}  # digests of kept files whose figures this process has parsed and found sound


def get(k: str, names) -> dict[str, bytes] | None:
    """The figures kept under ``k``, name -> SVG bytes in report order; None if none are (or they fail a check)."""
    if not enabled() or not _KEY.fullmatch(k):
        return None
    from genreport.fileio import ReadError, read_private

    path = _folder() / f"{k}.json"
    try:
        data = json.loads(read_private(path, LIMIT))
    except (ReadError, ValueError, RecursionError):
        return None
    names = list(names)
    if not (isinstance(data, dict) and set(data) == {"key", "digest", "figures"} and data["key"] == k
            and isinstance(data["figures"], dict) and sorted(data["figures"]) == sorted(names)
            and all(isinstance(svg, str) for svg in data["figures"].values())):
        return None
    digest = _digest(k, data["figures"])
    if data["digest"] != digest:
        return None
    try:
        out = {name: data["figures"][name].encode("utf-8") for name in names}
    except UnicodeEncodeError:  # a lone surrogate escaped in the JSON
        return None
    if digest not in _checked:
        from genreport.present.svgcheck import ours

        if not all(ours(svg) for svg in out.values()):
            return None
        if len(_checked) >= 2 * KEEP:
            _checked.clear()
        _checked[digest] = None
    with contextlib.suppress(OSError):
        os.utime(path, follow_symlinks=False)  # recently used: kept longer
    return out


def put(k: str, figures: dict[str, bytes]) -> None:
    """Keep ``figures`` under ``k``; then remove the least recently used files over :data:`KEEP`. A failure to
    write costs only the next build's time."""
    if not enabled() or not _KEY.fullmatch(k) or not figures:
        return
    from genreport.errors import BuildError
    from genreport.fileio import private_folder, write_file

    try:
        text = {name: svg.decode("utf-8") for name, svg in figures.items()}
    except UnicodeDecodeError:
        return
    from genreport.paths import cache_dir

    data = {"key": k, "digest": _digest(k, text), "figures": text}
    try:
        folder = private_folder(cache_dir(), FOLDER)
        write_file(folder / f"{k}.json", json.dumps(data, separators=(",", ":")).encode("utf-8"), private=True)
        kept = []
        for p in folder.iterdir():
            if p.suffix == ".json" and _KEY.fullmatch(p.stem):
                with contextlib.suppress(OSError):
                    kept.append((p.lstat().st_mtime, p))
        for _mtime, old in sorted(kept, reverse=True)[KEEP:]:
            old.unlink()
    except (BuildError, OSError):
        pass
