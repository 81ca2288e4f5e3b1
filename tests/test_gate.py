"""The printing package's gate (generator/printing/gate.py): the fast PDF path only on the upstream code it was
checked against; anywhere else one warning, nothing installed, and stock WeasyPrint's bytes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("weasyprint")
from shared import ROOT


def _env(**extra) -> dict:
    e = {k: v for k, v in os.environ.items() if not k.startswith("GENREPORT_")}
    e.update(extra, SOURCE_DATE_EPOCH="0")
    return e


def _run(code: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=_env(**env),
                          timeout=600)


def test_the_recorded_digests_are_those_of_the_installed_code():
    """``python -m genreport.printing.gate --check``: what CI installs (constraints.txt) is what was checked."""
    from genreport.printing import _upstream, gate

    if gate.versions() != _upstream.VERSIONS:
        pytest.skip(f"other versions here ({gate.versions()}) than the recorded ones ({_upstream.VERSIONS}): "
                    "the tests below check that the gate closes on them")
    p = subprocess.run([sys.executable, "-m", "genreport.printing.gate", "--check"], capture_output=True, text=True,
                       cwd=ROOT, env=_env())
    assert p.returncode == 0, p.stdout + p.stderr
    assert gate.diff() == []


DIGESTS = """
import hashlib, inspect, json
import pydyf
from weasyprint import images
from weasyprint.layout import page
from weasyprint.text import line_break
from genreport.printing import gate
found = gate.digests(full=True)
print(json.dumps({key: [hashlib.sha256(inspect.getsource(obj).encode()).hexdigest(), found[key]] for key, obj in (
    ("weasyprint/layout/page.py:remake_page", page.remake_page),
    ("weasyprint/images.py:SVGImage.draw", images.SVGImage.draw),
    ("weasyprint/text/line_break.py:Layout.setup", line_break.Layout.setup),
    ("pydyf/__init__.py:PDF.write", pydyf.PDF.write))}))
"""


def test_a_function_s_digest_is_that_of_its_source_as_inspect_gives_it():
    """The gate reads the installed files without importing them (the bindings go in before the import); what it
    hashes is what ``inspect.getsource`` gives of the stock function."""
    import json

    p = _run(DIGESTS, GENREPORT_PDF="stock")
    assert p.returncode == 0, p.stderr
    pairs = json.loads(p.stdout)
    assert len(pairs) == 4 and all(a == b for a, b in pairs.values()), pairs


def test_a_changed_function_closes_the_gate_and_is_named(monkeypatch):
    from genreport.printing import _upstream, gate

    if gate.versions() != _upstream.VERSIONS:
        pytest.skip(f"the gate is closed here already: {gate.reason()}")
    monkeypatch.setitem(_upstream.FILES, "weasyprint/layout/page.py", "0" * 64)
    monkeypatch.setitem(_upstream.FUNCTIONS, "weasyprint/layout/page.py:remake_page", "0" * 64)
    assert gate.diff() == ["weasyprint/layout/page.py's remake_page"]  # its neighbours, unchanged, are not named
    monkeypatch.setitem(_upstream.FILES, "weasyprint/text/ffi.py", "0" * 64)  # a file checked whole
    assert gate.diff() == ["weasyprint/layout/page.py's remake_page", "weasyprint/text/ffi.py"]
    monkeypatch.setattr(gate, "_state", {})
    assert not gate.is_open()
    assert gate.reason() == ("weasyprint/layout/page.py's remake_page is not the source genreport's fast PDF path "
                             "was checked against (and 1 more)")


def test_the_switch_chooses_the_stock_path_without_a_warning(monkeypatch, capsys):
    from genreport.printing import gate

    monkeypatch.setattr(gate, "_state", {})
    monkeypatch.setenv("GENREPORT_PDF", "stock")
    assert not gate.is_open() and gate.reason() == "GENREPORT_PDF=stock"
    assert gate.install(before_import=False) == []
    assert capsys.readouterr().err == ""


# A build on a WeasyPrint the gate does not know (relabelled 71.0): whatever the fast path would patch is stock.
UNKNOWN = """
import os, sys
from genreport.printing import gate
real = gate.versions
gate.versions = lambda: {**real(), "weasyprint": "71.0"}
from genreport.commands import cli
code = cli.main(["specs/llama8b-h100.yaml", "--format", "pdf", "-o", os.environ["OUT"], "-q", "--timings"])
from genreport import printing
printing.print_pdf("<p>x</p>")  # in this process too (the build printed on its worker)
import pydyf, weasyprint.document as wdoc, weasyprint.layout as wlayout
from weasyprint import images, svg
from weasyprint.text import line_break
from weasyprint.text import ffi
from genreport.printing import lazyimports, pangoffi
patched = [name for name, f in (("svg path", svg.TAGS["path"]), ("SVGImage.draw", images.SVGImage.draw),
           ("make_all_pages", wlayout.make_all_pages), ("Layout.setup", line_break.Layout.setup),
           ("PDF.write", pydyf.PDF.write)) if hasattr(f, "stock")]
patched += [n for n in lazyimports.LAZY if isinstance(sys.modules.get(n), lazyimports._Deferred)]
patched += ["prebuilt ffi"] if pangoffi.used() or type(ffi.ffi).__module__ != "cffi.api" else []
patched += ["layout_document"] if wdoc.layout_document is not wlayout.layout_document else []
print(code, gate.installed(), patched, file=sys.stdout)
"""

def test_an_unknown_weasyprint_gets_one_warning_no_patch_and_stock_weasyprint_s_bytes(tmp_path):
    """Issue 31: with WeasyPrint relabelled 71.0 the fast paths switched off with no message, and the wrappers and
    deferred imports stayed on. Now: one warning line saying why, nothing patched, in the build and its worker,
    and the bytes stock WeasyPrint prints from the same HTML: the committed out/llama8b-h100/report.pdf, which
    tests/test_fastpdf.py prints afresh on the stock path (in a process of its own, nothing patched) and compares."""
    out = tmp_path / "out"
    p = _run(UNKNOWN, OUT=str(out), GENREPORT_CACHE=str(tmp_path / "cache"))
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[0] == "0 [] []", p.stdout
    warnings = [line for line in p.stderr.splitlines() if "warning" in line]
    assert warnings == ["genreport: warning: weasyprint 71.0 is not the version genreport's fast PDF path was "
                        "checked against (70.0); printing the PDF with stock WeasyPrint (the same pages, slower)"], \
        p.stderr
    assert "pdf: stock WeasyPrint (weasyprint 71.0 is not the version" in p.stderr, p.stderr  # --timings says so
    committed = ROOT / "out" / "llama8b-h100" / "report.pdf"
    assert (out / "llama8b-h100" / "report.pdf").read_bytes() == committed.read_bytes()


def test_off_names_only_known_parts():
    """GENREPORT_PDF_OFF's names are the registry's patches and the printing's ways (the README lists them)."""
    from genreport.printing import gate

    assert set(gate.PARTS) == {"lazyimports", "pango", "svg", "write", "opcache", "layout", "features",
                               "split-layout", "split-paint", "seed-pages", "early-layout", "worker"}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert all(f"`{part}`" in readme for part in gate.PARTS)
