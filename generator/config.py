"""Defaults a user sets once: the output folder, GPU prices, the engine's memory reserve, the GPUs to plan on.

Two files, both optional, both YAML, both checked against ``specs/schema/config.schema.json`` like a spec (a bad
key or value is an error naming file, line and fix):

- the user's, ``$XDG_CONFIG_HOME/genreport/config.yaml`` (``~/.config/genreport/config.yaml``), or the file
  ``GENREPORT_CONFIG`` names;
- the project's, ``.genreport.yaml`` in the current folder or the nearest parent that has one.

Precedence, highest first: the command line, the project's file, the user's file, genreport's defaults.
``prices`` merge by GPU (the project's price of a GPU wins). ``GENREPORT_NO_CONFIG=1`` reads neither (the test
suite sets it). Only the commands whose output is not a versioned report read ``prices`` (``plan``, ``list``) and
``memory_reserve`` (``plan``, ``sweep``): a report's numbers come from its specs alone, so it builds the same on
every machine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from genreport.errors import SpecError

PROJECT_FILE = ".genreport.yaml"


@dataclass(frozen=True)
class Config:
    out: Path | None = None
    hardware: tuple[str, ...] = ()
    prices: dict[str, float] = field(default_factory=dict)
    memory_reserve: float | str | None = None  # as written: a fraction, or a size ('6 GiB': load.objects.reserve_fields)
    memory_reserve_at: tuple[str, int, int] | None = None  # the file, line and column that set it
    files: tuple[Path, ...] = ()  # the files read, user's first


def user_file() -> Path:
    given = os.environ.get("GENREPORT_CONFIG")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "genreport" / "config.yaml"


def project_file(start: Path | None = None) -> Path | None:
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / PROJECT_FILE
        if candidate.is_file():
            return candidate
    return None


def _read(path: Path) -> dict:
    from genreport.load import validate, yamlread

    doc = yamlread.read(path)
    if doc.data is None:  # an empty file: no defaults
        return {}
    findings = validate.check(doc, "config")
    if findings:
        raise SpecError(findings)
    data = dict(doc.data)
    if "memory_reserve" in data:  # where it was set, for a later error about its value (plan, sweep)
        data["memory_reserve_at"] = (str(path), *doc.where(("memory_reserve",)))
    if "out" in data:
        data["out"] = (path.parent / data["out"]) if not os.path.isabs(data["out"]) else Path(data["out"])
    return data


def load(start: Path | None = None) -> Config:
    """The merged defaults (empty where no file sets them); SpecError for a bad file."""
    if os.environ.get("GENREPORT_NO_CONFIG") == "1":
        return Config()
    files = []
    merged: dict = {}
    prices: dict[str, float] = {}
    user = user_file()
    for path in (user if user.is_file() or os.environ.get("GENREPORT_CONFIG") else None, project_file(start)):
        if path is None:
            continue
        data = _read(path)
        files.append(path)
        prices.update(data.pop("prices", {}))
        merged.update(data)
    return Config(out=merged.get("out"), hardware=tuple(merged.get("hardware", ())), prices=prices,
                  memory_reserve=merged.get("memory_reserve"), memory_reserve_at=merged.get("memory_reserve_at"),
                  files=tuple(files))
