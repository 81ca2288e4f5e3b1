"""What many test files share, made once per test session: the checkout's paths, the evaluated results of a
spec, the built reports and the committed reports printed by the fast path.

``ROOT`` is the checkout (every file used to compute its own). ``evaluated`` and ``built`` remember what they made,
keyed by the spec file and the overrides, so that the nine committed reports are evaluated and built once per run, not
once per file. Tests stay independent of order: ``evaluated`` hands out a copy of the remembered results (read back
from their pickle: 0.004-0.006 s against 0.1-0.2 s to evaluate) and ``built`` a fresh ``Built`` with its own dict of
the (immutable) file bytes, so a test that changes what it got changes nothing another test sees. ``printed`` lays a
committed report's printed HTML out once and keeps the document and its PDF: each fast-path component's test writes it
again with its own switch off and compares. The fixtures of the same names in ``conftest.py`` return these functions.

Under pytest-xdist the workers share what ``evaluated`` and ``built`` make (``PIPE_DIR``: a folder the controlling
process makes for the run and removes after it, ``conftest.py``): the first worker to ask for a committed spec's
results or build makes them and leaves them there pickled, under a lock; a worker asking for the same waits for it
and reads them (0.02 s against up to 4 s to evaluate and 9 s to build, on the 2-core machine).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import hashlib
import os
import pickle
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SPECS = ROOT / "specs"
COMMITTED = tuple(sorted(p.name for p in SPECS.glob("*.yaml")))  # the committed reports' spec files


# Llama 4 Maverick in bf16 over two nodes (tp 8 x pp 2 x ep 8) with an MTP-style draft: an MoE that no 8-GPU
# replica holds, a pipeline whose rounds stream each slice once per micro-batch (tests/test_serving_figures.py,
# tests/test_derive_serving.py).
MAVERICK_TWO_NODES = """\
kind: report
name: svmav
title: Llama 4 Maverick in bf16 on 16 H100, served
hardware: h100-sxm
model: llama-4-maverick
precision: bf16
parallelism: {tp: 8, pp: 2, ep: 8}
serving: {prompt: 4k, output: 512, ttft: 2 s, tpot: 50 ms, speculative: {draft_tokens: 3, acceptance: 0.7, draft_layers: 1}}
workloads:
  decode: {batch: [1, 64], context: [4k]}
"""


def _path(spec) -> Path:
    path = Path(spec)
    return path if path.is_absolute() or path.parent != Path(".") else SPECS / path


PIPE_DIR = "GENREPORT_TESTS_SHARED"  # the run's folder of what the workers share (set by conftest.py under xdist)


def _by_workers(kind: str, key: tuple, make):
    """``make()``, made once per run by whichever xdist worker asks first and read back by the others (see the
    module); made here where no worker shares a folder (a run without xdist) or it cannot be pickled."""
    import fcntl

    folder = os.environ.get(PIPE_DIR)
    if not folder or not os.environ.get("PYTEST_XDIST_WORKER") or not Path(folder).is_dir():
        return make()
    name = hashlib.sha256(repr((kind, key)).encode()).hexdigest()[:32]
    data = Path(folder) / f"{name}.pickle"
    with open(Path(folder) / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes: a worker that dies leaves no lock
        if data.is_file():
            blob = data.read_bytes()
            value = pickle.loads(blob)
            _PICKLED[id(value)] = (value, blob)  # the pickle _copy reads back: not made again here
            return value
        value = make()
        try:
            blob = _pickled(value)
        except (pickle.PicklingError, TypeError, AttributeError):
            return value
        _PICKLED[id(value)] = (value, blob)
        part = data.with_suffix(".part")
        part.write_bytes(blob)
        part.replace(data)
        return value


def _arrays(obj) -> list:
    """The NumPy arrays inside ``obj``, each once."""
    import numpy as np

    found, seen, todo = [], set(), [obj]
    while todo:
        x = todo.pop()
        if id(x) in seen or isinstance(x, (str, bytes, int, float, bool, type(None))):
            continue
        seen.add(id(x))
        if isinstance(x, np.ndarray):
            found.append(x)
        elif isinstance(x, dict):
            todo += [*x.keys(), *x.values()]
        elif isinstance(x, (list, tuple, set, frozenset)):
            todo += list(x)
        elif dataclasses.is_dataclass(x):
            todo += [getattr(x, f.name) for f in dataclasses.fields(x)]
        elif hasattr(x, "__dict__") and not callable(x):
            todo += list(vars(x).values())
    return found


def _read_only_array(reduced):
    """An array pickled read-only (``_Pickler``), read-only again: a pickled array comes back writeable."""
    make, args, *state = reduced
    array = make(*args)
    if state:
        array.__setstate__(state[0])
    array.flags.writeable = False
    return array


class _Pickler(pickle.Pickler):
    """Pickles the read-only NumPy arrays as read-only ones: what a worker reads back is what the other made, without a
    walk over the results for their arrays on either side (it was 5-8 s of a run's CPU)."""

    def reducer_override(self, obj):
        import numpy as np

        if type(obj) is np.ndarray and not obj.flags.writeable:
            return _read_only_array, (obj.__reduce__(),)
        return NotImplemented


def _pickled(value) -> bytes:
    import io

    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return buffer.getvalue()


def _evaluate(path: Path, overrides: tuple[str, ...]):
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate

    return evaluate(load_report(path, overrides=list(overrides)))


@functools.cache
def _evaluated(path: Path, overrides: tuple[str, ...]):
    """A committed spec's results, made once per run (by the workers together)."""
    return _by_workers("evaluated", (str(path), overrides), lambda: _evaluate(path, overrides))


def _committed(path: Path) -> bool:
    """Only the committed specs are remembered: a test's own spec file may be rewritten under the same name."""
    return path.parent == SPECS


def evaluated(spec, overrides=()):
    """``evaluate(load_report(spec, overrides))``, a copy of the one made this session.  ``spec`` is a path, or
    the file name of a committed spec ("llama8b-h100.yaml"); any other file is evaluated afresh every call."""
    path = _path(spec)
    if not _committed(path):
        return _evaluate(path, tuple(overrides))
    return _copy(_evaluated(path, tuple(overrides)))


def _copy(results):
    """A copy of remembered ``results``: its pickle (made once, ``_Pickler``: read-only arrays come back read-only;
    under xdist the one ``_by_workers`` shares) read back: 4-6 ms a call for a serving spec's results against 40-55 ms for ``copy.deepcopy`` with its walk for
    the read-only arrays (about 360 calls a CI run)."""
    key = id(results)
    if key not in _PICKLED:
        try:
            blob = _pickled(results)
        except (pickle.PicklingError, TypeError, AttributeError):
            blob = None
        _PICKLED[key] = (results, blob)  # results kept: its id stays its own
    blob = _PICKLED[key][1]
    if blob is None:  # something in it cannot be pickled: a deep copy, the read-only arrays handed out as they are
        return copy.deepcopy(results, {id(a): a for a in _arrays(results) if not a.flags.writeable})
    return pickle.loads(blob)


_PICKLED: dict[int, tuple] = {}


def _build(path: Path, formats: tuple[str, ...], overrides: tuple[str, ...]):
    from genreport.write.build import build

    return build(path, formats=formats, overrides=overrides)


@functools.cache
def _built(path: Path, formats: tuple[str, ...], overrides: tuple[str, ...]):
    """A committed spec's build, made once per run (by the workers together)."""
    return _by_workers("built", (str(path), formats, overrides), lambda: _build(path, formats, overrides))


def built(spec, formats=("html", "json"), overrides=()):
    """``build(spec, formats, overrides)``, a copy of the one made this session (a new ``Built``, its own
    ``files`` dict; the bytes are immutable); a spec outside ``specs/`` is built afresh every call."""
    path = _path(spec)
    if not _committed(path):
        return _build(path, tuple(formats), tuple(overrides))
    return dataclasses.replace(b := _built(path, tuple(formats), tuple(overrides)), files=dict(b.files),
                               timings=dict(b.timings))


def html(spec, overrides=()) -> str:
    """The screen HTML of a built report (from the html,json build the golden test compares with out/)."""
    return built(spec, ("html", "json"), overrides).files["report.html"].decode("utf-8")


@dataclasses.dataclass(frozen=True)
class Printed:
    """A committed report's printed HTML laid out and written by the fast path as this session installs it."""

    html: str  # report.html as a build prints it (render._for_print, live.without_scripts)
    document: object  # WeasyPrint's laid-out Document: write it with ``write()``, never change its pages
    pdf: bytes  # its PDF (pdf_identifier=False): out/NAME/report.pdf where this machine's fonts are the committed ones
    pages_laid_out: int  # calls of WeasyPrint's remake_page in the layout (tests/test_fastlayout.py)


@functools.cache
def printed(name: str) -> Printed:
    """The committed report ``name`` ("llama8b-h100") printed once per session by the fast path: the reference each
    fast-path component's test compares its own switch turned off with (tests/test_fastpdf.py compares the whole
    fast path with stock WeasyPrint on every report, in fresh processes).  Tests share the laid-out document:
    ``write()`` it, which starts from no fonts as a first write does."""
    import os

    import weasyprint.layout.page as wpage
    from genreport.present.live import without_scripts
    from genreport.present.render import _for_print
    from genreport.printing import pdf as pdfstage

    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    pdfstage._import()
    html = without_scripts(_for_print((ROOT / "out" / name / "report.html").read_text(encoding="utf-8")))
    stock_remake, made = wpage.remake_page, [0]

    def counting(*args):
        made[0] += 1
        return stock_remake(*args)

    wpage.remake_page = counting
    try:
        document = pdfstage._html(html).render()
    finally:
        wpage.remake_page = stock_remake
    return Printed(html, document, write(document), made[0])


def write(document) -> bytes:
    """``document.write_pdf(pdf_identifier=False)`` as a first write: a write keeps the fonts it made (with their
    glyphs) in the document for the next, so they are cleared first."""
    document.fonts.clear()
    return document.write_pdf(pdf_identifier=False)


@functools.cache
def _texts_dir() -> Path:
    """Where ``spec_file`` writes a test's own spec texts: the run's shared folder under xdist (so each worker's
    results name the same file), else a folder of this process, removed when it exits."""
    import atexit
    import shutil
    import tempfile

    folder = os.environ.get(PIPE_DIR)
    if folder and os.environ.get("PYTEST_XDIST_WORKER") and Path(folder).is_dir():
        return Path(folder)
    made = Path(tempfile.mkdtemp(prefix="genreport-test-specs-"))
    atexit.register(shutil.rmtree, made, True)
    return made


def spec_file(text: str, name: str) -> Path:
    """A test's own spec ``text`` written once per run as ``NAME.yaml`` (in a folder named for the text's digest,
    never rewritten: another text gets another folder), for ``evaluated_text`` and for the commands given it."""
    folder = _texts_dir() / ("spec-" + hashlib.sha256(f"{name}\n{text}".encode()).hexdigest()[:24])
    path = folder / f"{name}.yaml"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        part = folder / f"{name}.yaml.{os.getpid()}.part"
        part.write_text(text, encoding="utf-8")
        part.replace(path)
    return path


@functools.cache
def _evaluated_text(text: str, name: str, overrides: tuple[str, ...]):
    path = spec_file(text, name)
    return _by_workers("evaluated-text", (text, name, overrides), lambda: _evaluate(path, overrides))


def evaluated_text(text: str, name: str, overrides=()):
    """``evaluate(load_report(spec_file(text, name), overrides))``: a test's own spec (not a committed one) evaluated
    once per run and shared between the files that use the same text (``MAVERICK_TWO_NODES``), a copy each call."""
    return _copy(_evaluated_text(text, name, tuple(overrides)))


def derive_reads(spec, results, overrides=()) -> None:
    """Hand ``genreport derive`` run in this process (``cli.main(["derive", ...])``) the evaluation ``results`` of
    ``spec`` with ``overrides`` (``evaluated``'s or ``evaluated_text``'s), as the one it made itself for that spec
    (``derive_values.report_of``: the same ``evaluate(load_report(spec, overrides))``), so that derive's calls on a
    spec a test has evaluated do not evaluate it again.  Its next call on another spec evaluates that afresh."""
    from genreport.commands.derive_values import report_of
    from genreport.load.loader import load_report

    report_of(load_report(_path(spec), overrides=tuple(overrides)), results=results)


def evaluated_to_read(spec, overrides=()):
    """The session's evaluation of a committed spec itself, not a copy (``evaluated`` hands out a copy read back from
    its pickle, 4-6 ms for a serving spec's results), for a test that only reads it and evaluates many what-ifs once
    each (tests/test_live_serving.py).  Never change what it returns: the next test asking for the same spec and
    overrides gets the same object, through ``evaluated`` a copy of it."""
    path = _path(spec)
    if not _committed(path):
        return _evaluate(path, tuple(overrides))
    return _evaluated(path, tuple(overrides))


def built_into_empty_cache(spec, folder, formats=("html", "json")):
    """``build(spec, formats)`` with ``GENREPORT_CACHE`` an empty folder, made once per run for a committed spec (by
    the workers together): writes into ``folder`` (not there yet) what that build left in its cache folder, each
    file's bytes and each file's and folder's mode, and returns a copy of the build.  tests/test_figure_store.py and
    tests/test_hostile_cache.py start from the same first build of llama8b-a100 (its figures drawn and kept)."""
    path = _path(spec)
    assert _committed(path), path
    made, left = _built_cold(path, tuple(formats))
    folder = Path(folder)
    assert not folder.exists(), folder
    for rel, _mode, data in left:
        if data is None:
            (folder / rel).mkdir(exist_ok=rel == ".")
        else:
            (folder / rel).write_bytes(data)
    for rel, mode, _data in reversed(left):  # a folder's mode after its files are in
        os.chmod(folder / rel, mode)
    return dataclasses.replace(made, files=dict(made.files), timings=dict(made.timings))


@functools.cache
def _built_cold(path: Path, formats: tuple[str, ...]):
    return _by_workers("built-cold", (str(path), formats), lambda: _build_cold(path, formats))


def _build_cold(path: Path, formats: tuple[str, ...]):
    """(the build, [(path in the cache folder, mode, bytes or None for a folder)], the folder first)."""
    import shutil
    import stat
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="genreport-cold-")) / "cache"
    saved = {name: os.environ.get(name) for name in ("GENREPORT_CACHE", "GENREPORT_FIGURE_CACHE")}
    os.environ["GENREPORT_CACHE"] = str(folder)
    os.environ.pop("GENREPORT_FIGURE_CACHE", None)
    try:
        made = _build(path, formats, ())
        left = []
        for p in [folder, *sorted(folder.rglob("*"))]:
            assert not p.is_symlink() and (p.is_dir() or p.is_file()), p
            left.append((str(p.relative_to(folder)), stat.S_IMODE(p.stat().st_mode),
                         None if p.is_dir() else p.read_bytes()))
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(folder.parent, ignore_errors=True)
    return made, left


_SPLIT_FIRST: dict[str, tuple[bytes, bytes, dict]] = {}


def split_first_print(html: str, make):
    """``make()``: (the one-process PDF of ``html``, the page-splits records file its layout left in an empty cache
    folder, the split layout's counts it added), made once per run (by the workers together) and remembered here.
    tests/test_splitlayout.py and tests/test_hostile_cache.py start from the same first print of the synthetic
    document; a caller whose ``make`` did not run writes the records into its own cache folder itself."""
    if html not in _SPLIT_FIRST:
        key = hashlib.sha256(html.encode()).hexdigest()
        _SPLIT_FIRST[html] = _by_workers("split-first-print", (key,), make)
    return _SPLIT_FIRST[html]


class _Undrawn:
    """``figures.start``'s ``Pending`` for :func:`page`: every figure of the report an empty SVG, none drawn."""

    def __init__(self, results, baseline=None, apart=False, phone=True):
        from genreport.present.figures import figure_list

        self._empty = {name: b"" for name, _cap in figure_list(results)}

    def result(self) -> dict[str, bytes]:
        return dict(self._empty)

    narrow = ready = result

    def at_hand(self, kind: str) -> bool:
        return True

    def keep(self) -> None:
        pass

    def cancel(self) -> None:
        pass


@contextlib.contextmanager
def formulas_undrawn():
    """While it is open, every formula the page's renderer asks for is an empty SVG at the baseline (its ``<img>``
    keeps its class, its alt text, the LaTeX, and its place; only ``src`` is ``data:image/svg+xml;base64,``): for a
    test that reads a page's words.  A what-if's formulas are not in the shipped table (their numbers are new), and
    ziamath draws each in 25-90 ms: 150 for the live page's 13 what-ifs.  Nothing drawn is remembered (the stand-in
    is not ``mathsvg.svg``'s cached function and writes no cache file)."""
    from genreport.present import mathsvg

    drawing = mathsvg.svg
    mathsvg.svg = lambda tex, size=15.0, inline=False: ("", 0.0)
    try:
        yield
    finally:
        mathsvg.svg = drawing


def rendered(results, template: str = "report.html.j2") -> str:
    """``template`` (the whole report or one of its ``sections/``) rendered from ``results``' context as a build
    renders it, with no figure (their URIs empty) and no formula drawn (``formulas_undrawn``): for a test that reads a
    chapter's words."""
    from genreport.present.render import _env, context

    with formulas_undrawn():
        return _env().get_template(template).render(**context(results, None, {}).variables())


def page(spec, overrides=()) -> str:
    """The screen HTML ``build(spec, ("html",), overrides)`` writes, its prose, tables, math and live page, made by
    the same ``Rendering`` from the session's evaluations (``evaluated``: with overrides, the spec's own as the
    baseline, as a build makes it), with no figure or formula drawn: each figure's data URI (wide and phone) and
    each formula's is that of an empty SVG, ``data:image/svg+xml;base64,`` (``formulas_undrawn``).  For a test that
    reads the page's words, not its pictures: a build draws the report's figures twice (2-4 s of CPU in its
    children) and a what-if's formulas afresh.  tests/test_report.py checks that it is a build's page with the
    figures' and formulas' URIs emptied.  ``spec`` may also be a test's own evaluated results (no baseline)."""
    from genreport.model.results import Results
    from genreport.present import figures
    from genreport.present.render import Rendering

    overrides = tuple(overrides)
    if isinstance(spec, Results):
        results, baseline = spec, None
    else:
        results = evaluated(spec, overrides)
        baseline = evaluated(spec) if overrides else None
    drawing, figures.start = figures.start, _Undrawn
    try:
        with formulas_undrawn():
            html, _figures = Rendering(results, baseline, None, overrides, for_print=False, want_phone=True).finish()
    finally:
        figures.start = drawing
    return html


def words(results, *sections: str) -> str:
    """The plain words of ``sections`` (template names under ``templates/sections``, "s9_serving") rendered from
    ``results`` (:func:`rendered`: no figure, no formula drawn), tags left out and white space made single: for a
    test that reads a sentence of one chapter without building the report."""
    import html as _html
    import re as _re

    text = " ".join(rendered(results, f"sections/{name}.html.j2") for name in sections)
    return _re.sub(r"\s+", " ", _html.unescape(_re.sub(r"<[^>]+>", "", text)))
