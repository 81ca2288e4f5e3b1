"""The multi-GPU reference specs in specs/ load, evaluate and say what the issue asks of them."""

from __future__ import annotations

import pytest
from genreport.load.loader import load_report
from genreport.model.evaluate import evaluate
from shared import ROOT, evaluated

SPECS = sorted(p for p in (ROOT / "specs").glob("*.yaml") if "parallelism:" in p.read_text())


def value(r, qid, **params):
    (hit,) = [e.value for e in r.entries if e.id == qid and e.params == params]
    return hit


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.stem)
def test_reference_spec_evaluates(path):
    spec = load_report(path, strict=True)
    assert spec.name == path.stem
    r = evaluate(spec)
    assert r.parallel is not None and value(r, "gpus") == spec.parallelism.gpus
    assert value(r, "kv_capacity_tokens_replica") > 0  # every layout holds its weights and some KV
    assert not r.verdicts["weights_fit_one_card"]  # none of these models fits one of its cards
    assert r.verdicts["weights_fit"]  # the layout holds its share on every GPU
    for b in spec.workloads.decode_batch:
        for s in spec.workloads.decode_context:
            assert value(r, "decode_time_bound", batch=b, context=s) <= value(r, "decode_time_serial", batch=b,
                                                                              context=s)


def test_eight_h100_give_less_than_eight_times_one_ideal_card():
    r8 = evaluated("llama70b-h100-tp8.yaml")
    one = value(r8, "decode_tokens_per_s", batch=1, context=1024)
    serial = 1 / value(r8, "decode_time_serial", batch=1, context=1024)
    assert serial < 8 * one and value(r8, "decode_tokens_per_s_replica", batch=1, context=1024) <= 8 * one * 1.000001
