"""Shared pytest setup: markers for long-running tests.  ROOT and the session's evaluated results and built reports are
in tests/shared.py (``from shared import ROOT, built, evaluated``: plain functions that remember what they made,
usable where a fixture is not, in a parametrize list or a module constant).

``fuzz`` (the 2,000-example fuzz of the loader) and ``slow`` (full html,pdf,json builds killed
mid-way) are skipped unless selected: ``pytest -m fuzz``, ``pytest -m slow``, or the environment
variables GENREPORT_FUZZ=1 / GENREPORT_SLOW=1.  The default run stays quick; CI runs them as steps.
"""

from __future__ import annotations

import os

import pytest

# a developer's own defaults (~/.config/genreport/config.yaml, a .genreport.yaml above the checkout) must not
# change what the tests build; tests of the config files set their own (genreport.config)
os.environ["GENREPORT_NO_CONFIG"] = "1"

OPT_IN = {
    "fuzz": ("GENREPORT_FUZZ", "long fuzz run (2,000 examples)"),
    "slow": ("GENREPORT_SLOW", "full html,pdf,json builds"),
}


def pytest_configure(config):
    for marker, (env, what) in OPT_IN.items():
        config.addinivalue_line("markers", f"{marker}: {what}; run with 'pytest -m {marker}' or {env}=1")


def pytest_collection_modifyitems(config, items):
    selected = config.getoption("markexpr") or ""
    for marker, (env, what) in OPT_IN.items():
        if marker in selected or os.environ.get(env) == "1":
            continue
        skip = pytest.mark.skip(reason=f"{what}: select with 'pytest -m {marker}' or {env}=1")
        for item in items:
            if marker in item.keywords:
                item.add_marker(skip)

