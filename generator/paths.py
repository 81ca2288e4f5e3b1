"""Where the built-in catalog, schemas and templates live, in a checkout and in a wheel."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

PKG = Path(__file__).resolve().parent

# The line of templates/live/formulas.js after which come the many-GPU formulas (formulas/jsgen.py writes it; a
# single-card page leaves what follows out).
MANY_GPUS_MARKER = "// Many GPUs (formulas/parallel.py): only a report with a parallelism block embeds what follows."


@cache
def _data(name: str) -> Path:
    installed = PKG / f"_{name}"  # wheel: setuptools maps specs/ and templates/ here
    if installed.is_dir():
        return installed
    return PKG.parent / name  # checkout


def specs_dir() -> Path:
    return _data("specs")


def schema_dir() -> Path:
    return specs_dir() / "schema"


def templates_dir() -> Path:
    return _data("templates")


def project_root_for(spec: Path) -> Path:
    """The project a spec belongs to: the folder holding its ``specs/`` folder, else its own folder."""
    spec = spec.resolve()
    for parent in spec.parents:
        if parent.name == "specs":
            return parent.parent
        if (parent / "specs").is_dir() and (parent / "pyproject.toml").is_file():
            return parent
    return spec.parent


def cache_dir() -> Path:
    """Where rendered math and schema-valid markers are kept between runs (data only, never code)."""
    base = os.environ.get("GENREPORT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "genreport")
    return Path(base)


def formulas_dir() -> Path:
    import genreport.formulas

    return Path(genreport.formulas.__file__).resolve().parent


def code_folders() -> tuple[Path, ...]:
    """Every folder whose files shape a report besides the specs: the package, its formulas, its templates."""
    return (PKG, formulas_dir(), templates_dir())


def command_path(file: str) -> str:
    """A report spec's path as a command that rebuilds it names it (the appendix's "rebuild with", the live page's
    "Copy as command"): relative to its project (the folder holding its ``specs/`` folder, where genreport is run:
    ``specs/llama8b-h100.yaml``), else absolute, so that it runs wherever the reader stands.  It was the path
    relative to the folder the build ran in: ``llama8b-h100.yaml`` built from ``specs/``, ``my.yaml`` from a
    spec's own folder, and the same spec's reports differed by where they were built.  ``file`` is the path as
    the loader shows it (:func:`display`, relative to the working folder); '' stays ''."""
    if not file:
        return file
    path = Path(os.path.abspath(file))  # the link's place, not its target's: what the user named
    for parent in path.parents:
        if parent.name == "specs" or ((parent / "specs").is_dir() and (parent / "pyproject.toml").is_file()):
            root = parent.parent if parent.name == "specs" else parent
            return path.relative_to(root).as_posix()
    return str(path)


def display(path: Path) -> str:
    """A path as the user would type it: relative to the working folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
