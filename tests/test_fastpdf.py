"""The PDF fast paths (prebuilt Pango bindings, fast SVG paths, formulas replayed, PDF worker, early layout) give
stock WeasyPrint's bytes.

Each committed report's HTML, as a build prints it, is printed twice in fresh processes: once by genreport's PDF
stage with every fast path on (the first one by the PDF worker process), once by plain WeasyPrint with every one of
them off. The two PDFs must be the same bytes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("weasyprint")

ROOT = Path(__file__).resolve().parents[1]
ALL_REPORTS = sorted(p.parent.name for p in (ROOT / "out").glob("*/report.html"))
# Two reports, one that fits and one that does not (the fast paths are opt-in; every committed report would cost
# CI two more minutes for the same code paths, and the suite stays under five minutes). GENREPORT_ALL_PDFS=1: all.
REPORTS = [n for n in ALL_REPORTS if n in ("llama8b-h100", "seed000-70b-h100")
           and not os.environ.get("GENREPORT_ALL_PDFS")] or ALL_REPORTS
# The report the single-path builds below use: a single-GPU one, whose figure sizes the early layout remembers.
PROBE = next((n for n in REPORTS if n.startswith("llama8b-")), REPORTS[0])

# The document a build prints is report.html as render._for_print and live.without_scripts make it (its tables
# given widths, the live page's scripts and marks left out): plain text, before any of WeasyPrint's fast paths.
STOCK = """
import hashlib, os, sys
from pathlib import Path
import weasyprint
from genreport.present.live import without_scripts
from genreport.present.render import _for_print
for name in sys.argv[1:]:
    html = without_scripts(_for_print(Path(name).read_text(encoding="utf-8")))
    pdf = weasyprint.HTML(string=html, base_url=None).render().write_pdf(pdf_identifier=False)
    print(hashlib.sha256(pdf).hexdigest())
"""

OPT_IN = {"GENREPORT_PDF_WORKER": "1", "GENREPORT_EARLY_LAYOUT": "1"}  # both are on by default: said, not assumed
STOCK_ENV = {"GENREPORT_STOCK_PANGO": "1", "GENREPORT_STOCK_SVG": "1", "GENREPORT_OPCACHE": "0"}


def _stock_prints(tmp_path: Path) -> subprocess.Popen:
    """Plain WeasyPrint, every fast path off, printing each committed report's printed HTML; one digest a line."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("GENREPORT_")}
    e.update(STOCK_ENV, SOURCE_DATE_EPOCH="0", GENREPORT_CACHE=str(tmp_path / "stock-cache"))
    files = [str(ROOT / "out" / name / "report.html") for name in REPORTS]
    return subprocess.Popen([sys.executable, "-c", STOCK, *files], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=e, cwd=ROOT)


def _build(args: list[str], cache: Path, out: Path, **env) -> str:
    e = {k: v for k, v in os.environ.items() if not k.startswith("GENREPORT_")}
    e.update(env, SOURCE_DATE_EPOCH="0", GENREPORT_CACHE=str(cache))
    p = subprocess.run([sys.executable, "-m", "genreport", *args, "-o", str(out), "--timings", "-q"],
                       capture_output=True, text=True, env=e, cwd=ROOT, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stderr


def test_fast_and_stock_pdfs_of_the_committed_reports_are_the_same_bytes(tmp_path):
    """Every PDF path of a build against plain WeasyPrint: the worker (one per spec; the default), early layouts
    where the figures' sizes are known (on the worker, and in-process below), the worker without an early layout,
    and no worker (early layout in this process). Each paints its pages in two processes (splitpaint)."""
    assert len(REPORTS) >= 2 and len(ALL_REPORTS) >= len(REPORTS)
    stock = _stock_prints(tmp_path)  # side by side with the builds
    cache, out = tmp_path / "cache", tmp_path / "out"
    first = _build([f"specs/{name}.yaml" for name in REPORTS], cache, out, **OPT_IN)
    early = _build([f"specs/{PROBE}.yaml", "--force"], cache, tmp_path / "early", **OPT_IN)
    again = _build([f"specs/{PROBE}.yaml", "--force"], cache, tmp_path / "again", GENREPORT_PDF_WORKER="1",
                   GENREPORT_EARLY_LAYOUT="0")
    plain = _build([f"specs/{PROBE}.yaml", "--force"], cache, tmp_path / "plain", GENREPORT_PDF_WORKER="0")  # here
    out_stock, err = stock.communicate(timeout=600)
    assert stock.returncode == 0, err
    stock_digests = dict(zip(REPORTS, out_stock.split(), strict=True))
    timings = first.strip().splitlines()
    assert len(timings) == len(REPORTS)
    assert "pdf-wait" in timings[0] and any("pdf-early-layout" in t for t in timings[1:]), first
    assert "pdf-early-layout" in early and "pdf-wait" in early, early  # the worker, from its early layout
    assert "pdf-early-layout" not in again and "pdf-wait" in again, again  # the worker, laying out itself
    assert "pdf-early-layout" in plain and "pdf-wait" not in plain, plain
    assert (cache / "svg-ops-1.json").is_file()  # the builds after the first replayed its formulas
    assert any((cache / "svg-ops-placed-1").glob("*.json"))  # and its figures, where they were drawn
    import hashlib

    for folder in (out, tmp_path / "early", tmp_path / "again", tmp_path / "plain"):
        for name in REPORTS if folder == out else [PROBE]:
            built = folder / name
            assert (built / "report.html").read_bytes() == (ROOT / "out" / name / "report.html").read_bytes(), \
                f"out/{name} is not what this code builds (tests/test_golden.py says more)"
            assert hashlib.sha256((built / "report.pdf").read_bytes()).hexdigest() == stock_digests[name], \
                f"{folder.name}/{name}/report.pdf differs from stock WeasyPrint's"


def test_an_early_layout_that_does_not_fit_is_redone(tmp_path):
    """A remembered figure size that is wrong: the pages are laid out again, and the PDF is still the same."""
    import json

    from genreport.present.pdf import SHIPPED_SIZES

    cache = tmp_path / "cache"
    first = _build(["specs/llama8b-h100.yaml", "--format", "html,pdf"], cache, tmp_path / "a",
                   GENREPORT_EARLY_LAYOUT="1", GENREPORT_FIGURE_CACHE="0")  # drawn: blank stand-ins of a size
    assert "pdf-early-layout" in first, first  # the built-in reports' sizes ship with the package
    sizes = json.loads(Path(SHIPPED_SIZES).read_text())
    name = sorted(sizes)[0]
    sizes[name] = ["400pt", "300pt", "0 0 400 300"]
    (cache / "figure-sizes.json").write_text(json.dumps(sizes))  # remembered wrong
    err = _build(["specs/llama8b-h100.yaml", "--format", "html,pdf"], cache, tmp_path / "b", GENREPORT_EARLY_LAYOUT="1",
                 GENREPORT_FIGURE_CACHE="0")
    assert "pdf-early-layout" not in err, err
    assert (tmp_path / "b" / "llama8b-h100" / "report.pdf").read_bytes() == \
        (tmp_path / "a" / "llama8b-h100" / "report.pdf").read_bytes()
    assert json.loads((cache / "figure-sizes.json").read_text())[name] != sizes[name]  # corrected


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
    env = dict(os.environ, SOURCE_DATE_EPOCH="0", GENREPORT_CACHE=str(tmp_path), GENREPORT_PDF_WORKER="1")
    p = subprocess.run([sys.executable, "-c", WORKER_FAILS], capture_output=True, text=True, cwd=ROOT, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["True", "b'%PDF-'"]


def test_a_build_that_fails_ends_its_worker(tmp_path):
    env = dict(os.environ, OUT=str(tmp_path / "out"), GENREPORT_CACHE=str(tmp_path), GENREPORT_PDF_WORKER="1")
    p = subprocess.run([sys.executable, "-c", UNUSED_WORKER], capture_output=True, text=True, cwd=ROOT, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["1", "none", "left", "None"]
    assert not (tmp_path / "out").exists()
