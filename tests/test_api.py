"""The documented Python API (genreport/__init__.py): what the CLI itself uses (issue 13)."""

from __future__ import annotations

import json
import subprocess
import sys

import genreport
from shared import ROOT


def test_import_is_light():
    """``import genreport`` loads no SymPy, Matplotlib, WeasyPrint or NumPy."""
    code = "import sys, genreport; print(sorted(m for m in ('sympy','matplotlib','weasyprint','numpy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_render_loads_no_matplotlib():
    """The render stage and the figure modules load no Matplotlib until a figure is drawn: a build whose figures are
    kept (genreport.present.figures.store) renders its HTML and prints it without it (0.1-0.25 s before the HTML)."""
    code = ("import sys, genreport.present.render, genreport.present.figures; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_load_evaluate_build_write(tmp_path):
    spec = genreport.load_spec(ROOT / "specs" / "llama8b-h100.yaml", overrides=["hardware.memory.bandwidth=4.8 TB/s"])
    model = genreport.evaluate(spec)
    assert round(model.s("ridge_point"), 2) == 206.12  # 989.4 TFLOP/s / 4.8 TB/s
    doc = genreport.results_document(model)
    assert doc["inputs"]["hardware"]["bandwidth"] == 4.8e12
    built = genreport.build_report(ROOT / "specs" / "llama8b-h100.yaml", formats=("json",),
                            overrides=["hardware.memory.bandwidth=4.8 TB/s"], spec=spec)
    dest = genreport.write_report(built, tmp_path, "api")
    assert json.loads((dest / "results.json").read_text())["spec"]["name"] == "llama8b-h100"


def test_python_m_genreport():
    out = subprocess.run([sys.executable, "-m", "genreport", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("genreport ")
