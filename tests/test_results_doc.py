"""docs/results.md documents every part of results.json that a report emits."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from genreport.formulas.quantities import DEFS, PARAM_SYMBOL
from genreport.load.loader import load_report
from genreport.model.evaluate import evaluate
from genreport.write.results import document

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "results.md"
EXACT = "_exact"


@cache
def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


@cache
def documented() -> set[str]:
    """Every `code` span of the document."""
    return set(re.findall(r"`([^`\n]+)`", doc_text()))


@cache
def results_json() -> dict:
    return document(evaluate(load_report(ROOT / "specs" / "llama8b-h100.yaml")))


def base_id(entry: dict) -> str:
    qid = entry["id"]
    if entry["accounting"] == "exact":
        assert qid.endswith(EXACT), qid
        return qid[: -len(EXACT)]
    return qid


def test_every_emitted_id_is_documented():
    emitted = results_json()["quantities"]
    missing = sorted({base_id(e) for e in emitted} - documented())
    assert not missing, f"quantity ids emitted in results.json but not documented in docs/results.md: {missing}"
    assert any(e["accounting"] == "exact" for e in emitted)
    assert f"`{EXACT}`" in doc_text()


def test_every_quantity_definition_is_documented():
    missing = sorted({q.id for q in DEFS} - documented())
    assert not missing, f"quantities in formulas/quantities.py not documented in docs/results.md: {missing}"


def test_every_param_is_documented():
    emitted = {p for e in results_json()["quantities"] for p in e["params"]}
    assert emitted <= set(PARAM_SYMBOL)
    assert not sorted(set(PARAM_SYMBOL) - {"n", "m"} - documented())
    assert "`n`, `m`" in doc_text()


def test_every_block_and_key_is_documented():
    d = results_json()
    keys = set(d) | {"baseline"}
    keys |= set(d["verdicts"])
    keys |= {k for row in d["compare"] for k in row}
    keys |= {k for row in d["training"] for k in row}
    keys |= {k for block in d["inputs"].values() for k in block}
    keys |= {k for e in d["quantities"] for k in e}
    prose = doc_text()
    missing = sorted(k for k in keys if f"`{k}`" not in prose and f"\"{k}\"" not in prose)
    assert not missing, f"results.json keys not documented in docs/results.md: {missing}"
