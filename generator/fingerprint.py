"""What shapes every report besides its specs: the package's code, schemas and templates, and the versions.

Caches key on :func:`code_digest` (the up-to-date stamps of ``write/build.py`` and the schema-valid markers of
``load/loader.py``), so an edit anywhere in the package, its formulas, templates or schemas, or another
version of a library that draws or prints the report, makes them miss.
"""

from __future__ import annotations

import hashlib
import os
import sys
from functools import cache
from pathlib import Path

from genreport import __version__

# Libraries whose version can change a report's bytes (numbers, SVG, HTML, PDF) or what the loader accepts.
DEPENDENCIES = ("sympy", "numpy", "matplotlib", "jinja2", "weasyprint", "pydyf", "fonttools", "pyyaml",
                "jsonschema", "markupsafe")
SUFFIXES = (".py", ".j2", ".html", ".css", ".json", ".svg", ".ttf", ".otf", ".woff", ".woff2", ".js")


def folders() -> tuple[Path, ...]:
    """The package (recursively), its formulas, templates and schemas, each once."""
    from genreport.paths import code_folders, schema_dir

    seen: dict[Path, None] = {}
    for folder in (*code_folders(), schema_dir()):
        seen.setdefault(folder.resolve(), None)
    return tuple(seen)


@cache
def code_digest() -> str:
    """SHA-256 over every code, template and schema file of the package, its version and its dependencies'."""
    h = hashlib.sha256(f"genreport {__version__}\0python {sys.version_info[:2]}\0".encode())
    for name in DEPENDENCIES:
        h.update(f"{name} {_version(name)}\0".encode())
    # unset is "0": what genreport sets before it prints (commands.cli, printing.pdf), so a digest taken before that
    # (a library caller's first build) keys the caches as the prints after it do
    h.update(f"SOURCE_DATE_EPOCH={os.environ.get('SOURCE_DATE_EPOCH', '0')}\0".encode())
    for folder in folders():
        for path in sorted(folder.rglob("*")):
            if path.suffix in SUFFIXES and "__pycache__" not in path.parts and path.is_file():
                h.update(f"{folder.name}/{path.relative_to(folder).as_posix()}\0".encode())
                h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def _version(name: str) -> str:
    found = _installed().get(_canonical(name))
    if found is not None:
        return found
    from importlib import metadata  # 16 ms to import and 2-3 ms a package: only when the folders do not say

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "-"


def _canonical(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


@cache
def _installed() -> dict[str, str]:
    """name -> version of the wheels installed on ``sys.path``, read from their ``NAME-VERSION.dist-info``
    folder names (one directory listing per path entry; the first entry that has a package wins, as imports do)."""
    out: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for folder in names:
            stem = folder[:-len(".dist-info")] if folder.endswith(".dist-info") else ""
            if stem.count("-") == 1:  # wheel names escape '-' as '_', so the one '-' splits name and version
                name, version = stem.split("-")
                out.setdefault(_canonical(name), version)
    return out
