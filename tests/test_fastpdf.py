"""The PDF fast path gives the stock path's bytes, on every committed report.

The stock path is what genreport users get when the gate is closed (an upgraded WeasyPrint, or
``GENREPORT_PDF=stock``): genreport's printing package with no fast path installed, WeasyPrint as it is. Each
committed report's HTML, as a build prints it, is printed by that path in one process and by the fast path in
another (one warm process, as a command line of several specs prints them: the formulas drawn in one report are
replayed in the next). Builds of one report then take the fast path's other ways (the worker, early layouts, no
worker), each compared too, and each committed report.pdf is compared with those bytes.
With GENREPORT_SLOW (CI) every committed report is compared; otherwise two, one that fits and one that does not.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("weasyprint")

from shared import ROOT

ALL_REPORTS = sorted(p.parent.name for p in (ROOT / "out").glob("*/report.html"))
REPORTS = ALL_REPORTS if os.environ.get("GENREPORT_SLOW") else [
    n for n in ALL_REPORTS if n in ("llama8b-h100", "seed000-70b-h100")]
# The report the single-path builds below use: a single-GPU one, whose figure sizes the early layout remembers.
PROBE = next((n for n in REPORTS if n.startswith("llama8b-")), REPORTS[0])

# The document a build prints is report.html as render._for_print and live.without_scripts make it (its tables
# given widths, the live page's scripts and marks left out), printed by genreport's printing package as a command
# line of several specs prints them: the collector paused for each document, resumed between them and paused to the
# end after the last, and the process ended by os._exit (genreport.commands.cli: _build_all, entry). Left running,
# the collector took 3.9 s of the stock process's 27.8 s and the clean-up at exit 1.3 s of the fast one's 15 s.
PRINT = """
import hashlib, json, os, sys
from pathlib import Path
from genreport import printing
from genreport.printing import gate
from genreport.present.live import without_scripts
from genreport.present.render import _for_print
from genreport.procs import no_gc
digests = []
for i, name in enumerate(sys.argv[1:], 1):
    html = without_scripts(_for_print(Path(name).read_text(encoding="utf-8")))
    with no_gc(resume=i < len(sys.argv) - 1):
        digests.append(hashlib.sha256(printing.print_pdf(html)).hexdigest())
print(json.dumps({"digests": digests, "open": gate.is_open(), "reason": gate.reason(), "installed": gate.installed(),
                  "versions": gate.versions()}), flush=True)
sys.stderr.flush()
os._exit(0)
"""


def _prints(tmp_path: Path, path: str) -> subprocess.Popen:
    """Each report's printed HTML printed by the ``path`` ("stock" or "fast") in one process."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("GENREPORT_")}
    e.update(GENREPORT_PDF=path, SOURCE_DATE_EPOCH="0", GENREPORT_CACHE=str(tmp_path / f"{path}-cache"))
    files = [str(ROOT / "out" / name / "report.html") for name in REPORTS]
    return subprocess.Popen([sys.executable, "-c", PRINT, *files], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=e, cwd=ROOT)


def _answer(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    return json.loads(out)


def _build(args: list[str], cache: Path, out: Path, **env) -> str:
    e = {k: v for k, v in os.environ.items() if not k.startswith("GENREPORT_")}
    e.update(env, SOURCE_DATE_EPOCH="0", GENREPORT_CACHE=str(cache))
    p = subprocess.run([sys.executable, "-m", "genreport", *args, "-o", str(out), "--timings", "-q"],
                       capture_output=True, text=True, env=e, cwd=ROOT, timeout=600)
    assert p.returncode == 0, p.stderr
    return p.stderr


def _gate_should_open(answer: dict) -> bool:
    from genreport.printing import _upstream

    return answer["versions"] == _upstream.VERSIONS


def test_fast_and_stock_pdfs_of_the_committed_reports_are_the_same_bytes(tmp_path):
    """Every committed report (CI) printed by the stock path and the fast path; then the fast path's ways of a
    build: the worker (the default) with an early layout from the shipped figure sizes, the worker with one from
    the sizes the first build remembered, the worker whose early layout does not fit (a remembered size that is
    wrong, the figures drawn: blank stand-ins of that size) and lays the pages out again, and no worker (early
    layout in this process). Where the gate is closed here the fast process prints on the stock path too and says
    why."""
    assert len(REPORTS) >= 2 and len(ALL_REPORTS) >= len(REPORTS)
    stock = _prints(tmp_path, "stock")  # side by side with the rest
    fast = _answer(_prints(tmp_path, "fast"))
    cache = tmp_path / "cache"
    first = _build([f"specs/{PROBE}.yaml"], cache, tmp_path / "first")
    early = _build([f"specs/{PROBE}.yaml", "--force"], cache, tmp_path / "early")
    from genreport.printing.pdf import SHIPPED_SIZES

    kept = cache / "figure-sizes.json"  # written where a build's sizes are not the shipped ones
    sizes = json.loads((kept if kept.is_file() else Path(SHIPPED_SIZES)).read_text())
    wrong = sorted(sizes)[0]
    kept.write_text(json.dumps({**sizes, wrong: ["400pt", "300pt", "0 0 400 300"]}))
    again = _build([f"specs/{PROBE}.yaml", "--force"], cache, tmp_path / "again", GENREPORT_FIGURE_CACHE="0")
    plain = _build([f"specs/{PROBE}.yaml", "--force"], cache, tmp_path / "plain", GENREPORT_PDF_OFF="worker")  # here
    stock = _answer(stock)
    assert not stock["open"] and stock["reason"] == "GENREPORT_PDF=stock" and stock["installed"] == []
    if _gate_should_open(fast):
        assert fast["open"], fast["reason"]
        assert fast["installed"] == ["lazyimports", "pango", "svg", "write", "opcache", "layout", "features"]
        assert "pdf: fast path" in first and "printed by the PDF worker process" in first, first
        assert "early layout: used" in early and "pdf-wait" in early, early  # the worker, from its early layout
        assert "early layout: not used (a figure's size is not its stand-in's)" in again, again  # laid out again
        assert "pdf-wait" in again, again  # on the worker
        assert json.loads(kept.read_text())[wrong] != ["400pt", "300pt", "0 0 400 300"]  # corrected
        assert "early layout: used" in plain and "printed by this process" in plain, plain
        assert "split layout: the pages after the break" in early, early  # the first build noted where to split
        assert (cache / "svg-ops-1.json").is_file()  # the builds after the first replayed its formulas
        assert any((cache / "svg-ops-placed-1").glob("*.json"))  # and its figures, where they were drawn
    else:  # an install the gate does not know: both print on the stock path, and the comparison still runs
        assert not fast["open"] and fast["reason"] and fast["installed"] == [], fast
        assert "pdf: stock WeasyPrint" in first, first
    stock_digests = dict(zip(REPORTS, stock["digests"], strict=True))
    mismatched = [name for name, digest in zip(REPORTS, fast["digests"], strict=True) if digest != stock_digests[name]]
    assert not mismatched, f"the fast path's PDF differs from the stock path's: {mismatched}"
    import hashlib

    # and the committed PDFs are those bytes (tests/test_golden.py compares the HTML and results.json; a report.pdf
    # left behind by an older printing would pass it)
    stale = [name for name in REPORTS
             if hashlib.sha256((ROOT / "out" / name / "report.pdf").read_bytes()).hexdigest() != stock_digests[name]]
    assert not stale, f"out/NAME/report.pdf is not what its report.html prints to (rebuild with --force): {stale}"

    for folder in ("first", "early", "again", "plain"):
        built = tmp_path / folder / PROBE
        assert (built / "report.html").read_bytes() == (ROOT / "out" / PROBE / "report.html").read_bytes(), \
            f"out/{PROBE} is not what this code builds (tests/test_golden.py says more)"
        assert hashlib.sha256((built / "report.pdf").read_bytes()).hexdigest() == stock_digests[PROBE], \
            f"{folder}/{PROBE}/report.pdf differs from the stock path's"


def test_prebuilt_bindings_are_current_for_the_pinned_weasyprint():
    """The committed module was generated from this WeasyPrint's declarations (regenerate after an upgrade)."""
    import weasyprint
    from genreport.printing import _pango_ffi, pangoffi

    if weasyprint.__version__ != _pango_ffi.WEASYPRINT:
        pytest.skip(f"WeasyPrint {weasyprint.__version__} here; the prebuilt module is for {_pango_ffi.WEASYPRINT}")
    assert pangoffi.matches(), "regenerate: python -m genreport.printing.pangoffi"
    assert pangoffi.module_text() == pangoffi.GENERATED.read_text()


CHECK_FALLBACK = """
from genreport.printing import _pango_ffi, pangoffi, pdf
_pango_ffi.SOURCE_SHA256 = "0" * 64  # as if WeasyPrint's ffi.py had changed
pdf.prepare()
import weasyprint.text.ffi as f
print(pangoffi.used(), type(f.ffi).__module__)
"""


def test_other_weasyprint_declarations_fall_back_to_the_stock_import():
    p = subprocess.run([sys.executable, "-c", CHECK_FALLBACK], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["False", "cffi.api"]


LIBRARIES_KEPT = """
from genreport.printing import pdf
pdf._import()
import weasyprint.text.ffi as f
def mapped():
    with open("/proc/self/maps") as maps:
        return {line.split()[-1].rsplit("/", 1)[-1].split(".so")[0] for line in maps if ".so" in line}
before = mapped()
for name in ("pangoft2", "harfbuzz_subset", "harfbuzz_vector", "fontconfig", "harfbuzz", "pango", "gobject"):
    if getattr(f, name, None) is not None:
        f.ffi.dlclose(getattr(f, name))  # as the interpreter's exit does when it frees the bindings' objects
print(sorted({"libpango-1.0", "libpangoft2-1.0", "libharfbuzz", "libfontconfig"} & before - mapped()))
"""


@pytest.mark.skipif(not Path("/proc/self/maps").is_file(), reason="reads /proc/self/maps (Linux)")
def test_pango_stays_loaded_when_its_bindings_are_freed():
    """A test process that kept laid-out documents passed every test, then ended with a segmentation fault: at exit
    cffi closed Pango when the bindings' objects were freed, before a font map made with it, whose unref then ran
    unmapped code (gdb: g_object_unref in the garbage collector's finalize_modules). The printing package opens the
    libraries once more with ctypes, which never closes them (printing.common.keep_libraries_open)."""
    p = subprocess.run([sys.executable, "-c", LIBRARIES_KEPT], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[0] == "[]", f"unmapped when their cffi bindings closed: {p.stdout}"


WORKER_FAILS = """
import os, signal
from genreport.printing import pdf
html = "<h1>Title</h1><p>text</p>"
calls = []  # idle() runs once: while the worker prints, or after the PDF is made here (the build's page meanwhile)
assert pdf.start_worker()
by_worker = pdf.html_to_pdf(html, idle=lambda: calls.append("worker" if pdf._worker is None else "?"))
assert pdf.start_worker()
os.kill(pdf._worker.pid, signal.SIGKILL)  # the worker dies before it is sent anything
first = pdf.html_to_pdf(html, idle=lambda: calls.append("here"))
assert pdf._worker is None
print(first == pdf.html_to_pdf(html) == by_worker, first[:5], *calls)
"""

UNUSED_WORKER = """
import os
from genreport.commands import cli
from genreport.printing import pdf
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
    env = dict(os.environ, SOURCE_DATE_EPOCH="0", GENREPORT_CACHE=str(tmp_path), GENREPORT_PDF_OFF="")
    p = subprocess.run([sys.executable, "-c", WORKER_FAILS], capture_output=True, text=True, cwd=ROOT, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["True", "b'%PDF-'", "worker", "here"]


def test_a_build_that_fails_ends_its_worker(tmp_path):
    env = dict(os.environ, OUT=str(tmp_path / "out"), GENREPORT_CACHE=str(tmp_path), GENREPORT_PDF_OFF="")
    p = subprocess.run([sys.executable, "-c", UNUSED_WORKER], capture_output=True, text=True, cwd=ROOT, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["1", "none", "left", "None"]
    assert not (tmp_path / "out").exists()
