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
    h.update(f"SOURCE_DATE_EPOCH={os.environ.get('SOURCE_DATE_EPOCH', '')}\0".encode())
    for folder in folders():
        for path in sorted(folder.rglob("*")):
            if path.suffix in SUFFIXES and "__pycache__" not in path.parts and path.is_file():
                h.update(f"{folder.name}/{path.relative_to(folder).as_posix()}\0".encode())
                h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def _version(name: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "-"
