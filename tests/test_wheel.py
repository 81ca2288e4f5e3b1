"""A wheel (not only an editable install) carries the templates, schemas and catalog, and runs from any folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {p.stderr.strip()[-300:]}")
    return next(dist.glob("genreport-*.whl"))


def test_wheel_carries_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("genreport/_templates/report.html.j2", "genreport/_templates/report.css",
                   "genreport/_templates/sections/s0_summary.html.j2",
                   "genreport/_specs/schema/report.schema.json", "genreport/_specs/hardware/h100-sxm.yaml",
                   "genreport/_specs/models/llama-3.1-8b.yaml", "genreport/_specs/llama8b-h100.yaml",
                   "genreport/formulas/quantities.py", "genreport/commands/cli.py", "genreport/__main__.py",
                   "genreport/present/math.json.gz", "genreport/present/_pango_ffi.py",
                   "genreport/present/figure_sizes.json"):
        assert needed in names, needed
    # one top-level package: no 'generator' or 'formulas' (an unrelated package of that name exists on PyPI)
    assert {n.split("/")[0] for n in names if not n.startswith("genreport-")} == {"genreport"}


def test_wheel_runs_from_another_folder(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    work = tmp_path / "elsewhere"
    work.mkdir()
    (work / "mine.yaml").write_text(
        "kind: report\nname: mine\ntitle: Qwen2.5 7B on an L40S\nhardware: l40s\nmodel: qwen2.5-7b\n"
        "precision: bf16\nworkloads:\n  decode: {batch: [1, 64], context: [2k, 32k]}\n")
    env = dict(os.environ, PYTHONPATH=str(site), GENREPORT_CACHE=str(tmp_path / "cache"))
    for spec in ("mine.yaml", "llama8b-h100"):  # a user's spec with catalog names, and a built-in spec by name
        p = subprocess.run([sys.executable, "-m", "genreport", spec, "--format", "json", "-q"],
                           cwd=work, env=env, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
    doc = json.loads((work / "out" / "mine" / "results.json").read_text())
    assert doc["inputs"]["hardware"]["name"] == "l40s"
    assert (work / "out" / "llama8b-h100" / "results.json").is_file()
