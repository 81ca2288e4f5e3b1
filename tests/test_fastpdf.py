"""The PDF fast paths (prebuilt Pango bindings, fast SVG paths, cached formula drawings) give stock WeasyPrint's bytes.

Each committed report's HTML is printed twice in fresh processes: once by genreport's PDF stage with every fast
path on (the first one by the PDF worker process), once by plain WeasyPrint with every one of them off. The two
PDFs must be the same bytes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("weasyprint")

ROOT = Path(__file__).resolve().parents[1]
REPORTS = sorted(p.parent.name for p in (ROOT / "out").glob("*/report.html"))

FAST = """
import hashlib, sys
from pathlib import Path
from genreport.present import pangoffi, pdf
assert pdf.start_worker()  # the first report is printed by the worker process, the others in this one
for name in sys.argv[1:]:
    html = Path(name).read_text(encoding="utf-8")
    print(hashlib.sha256(pdf.html_to_pdf(html)).hexdigest())
print("prebuilt" if pangoffi.used() else "stock")
"""

STOCK = """
import hashlib, os, sys
from pathlib import Path
import weasyprint
for name in sys.argv[1:]:
    html = Path(name).read_text(encoding="utf-8")
    pdf = weasyprint.HTML(string=html, base_url=None).render().write_pdf(pdf_identifier=False)
    print(hashlib.sha256(pdf).hexdigest())
"""

STOCK_ENV = {"GENREPORT_STOCK_PANGO": "1", "GENREPORT_STOCK_SVG": "1", "GENREPORT_STOCK_MATHOPS": "1"}


def _start(code: str, env: dict, cache: Path) -> subprocess.Popen:
    e = {k: v for k, v in os.environ.items() if k not in STOCK_ENV}
    e.update(env, SOURCE_DATE_EPOCH="0", GENREPORT_CACHE=str(cache))
    files = [str(ROOT / "out" / name / "report.html") for name in REPORTS]
    return subprocess.Popen([sys.executable, "-c", code, *files], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=e, cwd=ROOT)


def _lines(p: subprocess.Popen) -> list[str]:
    out, err = p.communicate(timeout=600)
    assert p.returncode == 0, err
    return out.split()


def test_fast_and_stock_pdfs_of_the_committed_reports_are_the_same_bytes(tmp_path):
    assert len(REPORTS) >= 4
    fast = _start(FAST, {}, tmp_path / "cache")  # the two run side by side
    stock = _start(STOCK, STOCK_ENV, tmp_path / "stock-cache")
    fast_lines, stock_lines = _lines(fast), _lines(stock)
    assert fast_lines[-1] == "prebuilt", "the prebuilt Pango bindings were not used: regenerate them"
    assert fast_lines[:-1] == stock_lines, dict(zip(REPORTS, zip(fast_lines, stock_lines, strict=False), strict=False))


def test_prebuilt_bindings_are_current_for_the_pinned_weasyprint():
    """The committed module was generated from this WeasyPrint's declarations (regenerate after an upgrade)."""
    import weasyprint
    from genreport.present import _pango_ffi, pangoffi

    if weasyprint.__version__ != _pango_ffi.WEASYPRINT:
        pytest.skip(f"WeasyPrint {weasyprint.__version__} here; the prebuilt module is for {_pango_ffi.WEASYPRINT}")
    assert pangoffi.matches(), "regenerate: python -m genreport.present.pangoffi"
    assert pangoffi.module_text() == pangoffi.GENERATED.read_text()


CHECK_FALLBACK = """
from genreport.present import _pango_ffi, pangoffi, pdf
_pango_ffi.SOURCE_SHA256 = "0" * 64  # as if WeasyPrint's ffi.py had changed
pdf.prepare()
import weasyprint.text.ffi as f
print(pangoffi.used(), type(f.ffi).__module__)
"""


def test_other_weasyprint_declarations_fall_back_to_the_stock_import():
    p = subprocess.run([sys.executable, "-c", CHECK_FALLBACK], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["False", "cffi.api"]


WORKER_FAILS = """
import os, signal
from genreport.present import pdf
html = "<h1>Title</h1><p>text</p>"
assert pdf.start_worker()
os.kill(pdf._worker.pid, signal.SIGKILL)  # the worker dies before it is sent anything
first = pdf.html_to_pdf(html)
assert pdf._worker is None
print(first == pdf.html_to_pdf(html), first[:5])
"""

UNUSED_WORKER = """
import os
from genreport.commands import cli
from genreport.present import pdf
started = []
real = pdf.start_worker
pdf.start_worker = lambda: started.append(real()) or started[-1]
code = cli.main(["specs/no-such-spec.yaml", "-o", os.environ["OUT"]])
assert started == [True], started
try:
    os.waitpid(-1, os.WNOHANG)
    left = "a child process is left"
except ChildProcessError:
    left = "none left"
print(code, left, pdf._worker)
"""


def test_a_failed_worker_leaves_the_printing_to_the_build(tmp_path):
    env = dict(os.environ, SOURCE_DATE_EPOCH="0", GENREPORT_CACHE=str(tmp_path))
    p = subprocess.run([sys.executable, "-c", WORKER_FAILS], capture_output=True, text=True, cwd=ROOT, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["True", "b'%PDF-'"]


def test_a_build_that_fails_ends_its_worker(tmp_path):
    env = dict(os.environ, OUT=str(tmp_path / "out"), GENREPORT_CACHE=str(tmp_path))
    p = subprocess.run([sys.executable, "-c", UNUSED_WORKER], capture_output=True, text=True, cwd=ROOT, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["1", "none", "left", "None"]
    assert not (tmp_path / "out").exists()
