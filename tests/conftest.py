"""Shared pytest setup: markers for long-running tests.  ROOT and the session's evaluated results and built reports are
in tests/shared.py (``from shared import ROOT, built, evaluated``: plain functions that remember what they made,
usable where a fixture is not, in a parametrize list or a module constant).

``fuzz`` (the 2,000-example fuzz of the loader) and ``slow`` (full html,pdf,json builds killed
mid-way) are skipped unless selected: ``pytest -m fuzz``, ``pytest -m slow``, or the environment
variables GENREPORT_FUZZ=1 / GENREPORT_SLOW=1.  The default run stays quick; CI runs them as steps.

With ``-n 2 --dist loadfile`` (CI) each test file goes whole to one worker, in the order collected: the slowest
files are collected first (LONGEST, measured on the 2-core machine), so neither worker is left running one long
file while the other has finished (longest-first scheduling).  pytest-xdist would otherwise order files by their
number of tests, which put the five-test, 40-second PDF comparison last.
"""

from __future__ import annotations

import gc
import os

import pytest

# a developer's own defaults (~/.config/genreport/config.yaml, a .genreport.yaml above the checkout) must not
# change what the tests build; tests of the config files set their own (genreport.config)
os.environ["GENREPORT_NO_CONFIG"] = "1"
# nor what earlier runs or the user's own builds kept in ~/.cache/genreport (figures, formulas, page splits, replayed
# drawing operations): the run gets its own cache folder, made by the controlling process (the xdist workers
# inherit it and share it) and removed when the run ends, so this machine's run does the work a fresh machine's does
_CACHE = None
# A worker keeps what tests/shared.py remembers (evaluations, builds, printed documents, SymPy's caches: 1-1.5 GB),
# and the collector's full passes walk all of it: 100 of them took 47 s of a CI run's CPU (59 s with the young
# generations), about 8% of it. A full pass is considered every 100 passes of the middle generation, not every 10:
# 38 of them, 23 s (measured with gc.callbacks, stop 59); the workers' peak stays at 1.0-1.5 GB. Young objects are
# collected as before; a cycle that reaches the old generation waits longer to be freed.
gc.set_threshold(700, 10, 100)
if not os.environ.get("PYTEST_XDIST_WORKER") and "GENREPORT_CACHE" not in os.environ:
    import tempfile

    _CACHE = tempfile.mkdtemp(prefix="genreport-tests-cache-")
    os.environ["GENREPORT_CACHE"] = _CACHE

# Hypothesis draws new examples on every run, which is how a local run finds what nobody thought to test; a landing
# run (CI sets GENREPORT_SLOW=1) draws the same ones every time (derandomized, nothing kept in .hypothesis/), so that
# it fails on a change, not on the luck of a draw. GENREPORT_FUZZ_RANDOM=1 draws new examples there too.
try:
    from hypothesis import settings as _hypothesis_settings
except ImportError:  # only the test extra installs it
    pass
else:
    _hypothesis_settings.register_profile("landing", derandomize=True, database=None)
    if os.environ.get("GENREPORT_SLOW") == "1" and os.environ.get("GENREPORT_FUZZ_RANDOM") != "1":
        _hypothesis_settings.load_profile("landing")

OPT_IN = {
    "fuzz": ("GENREPORT_FUZZ", "long fuzz run (2,000 examples)"),
    "slow": ("GENREPORT_SLOW", "full html,pdf,json builds"),
}


# The slowest test files under CI's settings (GENREPORT_SLOW=1 GENREPORT_FUZZ=1), slowest first: seconds of one
# worker measured on the 2-core machine (pytest --junitxml, summed per file, the whole suite run with -n 2; stop 42).
# Files not named here follow in their usual order.  A stale list only costs balance, never a test.
LONGEST = (
    "test_regen.py",  # 98: every committed generated file made afresh (python -m genreport.regen --check)
    "test_fastpdf.py",  # 99: every committed report printed by the stock and the fast path
    "test_figure_labels.py",  # ~45 (56 before each figure kept one renderer): every figure of 13 reports, wide and narrow
    "test_live_page.py",  # 39
    "test_splitlayout.py",  # 37: the synthetic document's first print made once
    "test_colwidths.py",  # 32 (suite3: about 6 s of CPU less, WeasyPrint compared on four reports, not nine)
    "test_golden.py",  # 26: the nine committed reports built (tests/shared.py built(), which other files reuse)
    "test_hostile_cache.py",  # 25
    "test_hostile_round3.py",  # 25
    "test_atomic_write.py",  # 23
    "test_live_model.py",  # 20
    "test_live_parallel.py",  # 20
    "test_live_serving.py",  # ~17 (33 before its what-ifs left out the cheapest layout and the frontier; alone: CPU 36 -> 19 s)
    "test_fuzz_specs.py",  # 17
    "test_chromium.py",  # 17
    "test_print_layout.py",  # 15: the 8B report's build shared with test_report (suite3: ~6 s of CPU less, PGM pages)
    "test_report.py",  # ~8 (suite4: 14 before; the pages it reads made by shared.page, no figure drawn)
    "test_gate.py",  # 14
    "test_jsgen.py",  # 14: its SymPy work runs here, not while every worker collects
    "test_figure_processes.py",  # 13
    "test_figure_store.py",  # 12
    "test_figures.py",  # 12
    "test_file_safety.py",  # 12 (suite3: ~4 s of CPU less, --check builds once)
    "test_audit.py",  # 12: the layouts of a claim priced in one call (suite5: CPU 17.5 -> ~10, past claims of 9 models)
    "test_techniques.py",  # 12 (suite5: CPU 16 -> ~11, one xreplace a number)
    "test_serve.py",  # 12
    "test_serving_figures.py",  # 11 (more since: a two-node MoE with a draft)
    "test_live_rules.py",  # 11
    "test_live_whatif.py",  # 6 (suite1: 13 before its error cases ran in one node process)
)


@pytest.fixture(scope="session")
def evaluated():
    """``shared.evaluated``: the session's evaluated results of a spec (a copy each call)."""
    import shared

    return shared.evaluated


@pytest.fixture(scope="session")
def built():
    """``shared.built``: the session's build of a spec (its own dict of files each call)."""
    import shared

    return shared.built


@pytest.fixture(scope="session")
def printed():
    """``shared.printed``: a committed report's printed HTML, laid out and written by the fast path once a session."""
    import shared

    return shared.printed


def pytest_configure(config):
    if os.environ.get("PYTEST_XDIST_WORKER") or config.getoption("numprocesses", None) in (None, 0):
        # this process forks a figure child in every build it makes (hundreds a run): loaded here once, Matplotlib
        # and the fonts are each child's from the start (0.4-0.6 s of CPU less a child), as in a warm 'serve'
        from genreport.present import figures

        figures.preload()
    if hasattr(config.option, "loadscopereorder"):  # pytest-xdist: keep the order below (see the module's docstring)
        config.option.loadscopereorder = False
    for marker, (env, what) in OPT_IN.items():
        config.addinivalue_line("markers", f"{marker}: {what}; run with 'pytest -m {marker}' or {env}=1")


def pytest_collection_modifyitems(config, items):
    rank = {name: k for k, name in enumerate(LONGEST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST)))  # stable: each file's own order is kept
    selected = config.getoption("markexpr") or ""
    for marker, (env, what) in OPT_IN.items():
        if marker in selected or os.environ.get(env) == "1":
            continue
        skip = pytest.mark.skip(reason=f"{what}: select with 'pytest -m {marker}' or {env}=1")
        for item in items:
            if marker in item.keywords:
                item.add_marker(skip)


def pytest_collection_finish(session):
    """What collection loaded (the test modules, SymPy, Matplotlib, WeasyPrint, NumPy) lives until the worker ends:
    frozen out of the collector's reach, so that no full pass walks it again (the collector's time 32.8 -> 24.9 s
    a CI run, gc.callbacks, stop 60), and the figure children each build forks do not copy the pages the collector
    would write to."""
    gc.collect()
    gc.freeze()


_FILE = [None]  # the test file running in this process


def pytest_runtest_setup(item):
    """The same at each new test file: what the files before it left alive (tests/shared.py's evaluations, builds
    and printed documents, SymPy's caches) is collected once and frozen, so that the full passes of the files after
    it walk only what those make: the full passes' time 16.4 -> 8.0 s a CI run, these passes included (gc.callbacks);
    the workers' peaks unchanged (1.41 and 1.66 GB against 1.72 and 1.30)."""
    if item.path != _FILE[0]:
        _FILE[0] = item.path
        gc.collect()
        gc.freeze()


def pytest_sessionstart(session):
    """Under pytest-xdist, the folder where the workers share what tests/shared.py makes (made by the controlling
    process before the workers start, removed when the run ends)."""
    import tempfile

    import shared

    if os.environ.get("PYTEST_XDIST_WORKER") or session.config.getoption("numprocesses", None) in (None, 0):
        return
    folder = tempfile.mkdtemp(prefix="genreport-tests-")
    os.environ[shared.PIPE_DIR] = folder
    session.config._genreport_shared = folder


def pytest_sessionfinish(session):
    import shutil

    folder = getattr(session.config, "_genreport_shared", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
    if _CACHE and not os.environ.get("PYTEST_XDIST_WORKER"):
        shutil.rmtree(_CACHE, ignore_errors=True)
