"""Published multi-GPU measurements against the strict bound: no real measurement beats it.

The rows are tests/data/published.csv (each with its source; see tests/data/README.md).  For each row on
more than one GPU the bound is taken as optimistically as the row allows: the smallest context a decode
step sees (the prompt), the layout stated (or, where the row does not state it, the fastest tensor x data x
expert layout on that many GPUs), the precision stated (or the smallest weight format the GPU computes),
and the batch stated (or the largest one that fits).  End-to-end throughputs include prefill time, so the
decode bound is an upper bound for them too.
"""

from __future__ import annotations

import csv
import math
from functools import cache

import pytest
from genreport.load.loader import _precision, load_hardware, load_model
from genreport.load.spec import Parallelism
from genreport.model.layout import tp_choices
from genreport.model.plan import point
from shared import ROOT

ROWS = [r for r in csv.DictReader((ROOT / "tests" / "data" / "published.csv").open(encoding="utf-8"))
        if int(r["gpus"] or 1) > 1 and r["metric"] in ("tokens_per_s", "tokens_per_s_per_gpu", "ms_per_token",
                                                        "ttft_ms")]
FORMATS = {"bf16": "bf16", "fp16": "fp16", "fp8": "fp8", "int8-weights": "int8", "int4-weights": "int4"}


@cache
def _model(name):
    return load_model(ROOT / "specs" / "models" / f"{name}.yaml")


@cache
def _hw(name):
    return load_hardware(ROOT / "specs" / "hardware" / f"{name}.yaml")


def _precisions(row, hw):
    if row["precision"]:
        return [_precision(FORMATS[row["precision"]])]
    return [p for p in map(_precision, ("fp4", "fp8", "int4", "bf16")) if p.compute in hw.dense]


def _layouts(row, model):
    gpus = int(row["gpus"])
    if row["tp"]:
        tp, pp = int(row["tp"]), int(row["pp"] or 1)
        return [Parallelism(tp, pp, 1, gpus // (tp * pp))]
    out = []
    for tp in tp_choices(model, gpus):
        if gpus % tp:
            continue
        dp = gpus // tp
        eps = [e for e in range(1, tp * dp + 1) if model.moe and model.moe.experts % e == 0] or [1]
        out += [Parallelism(tp, 1, max(eps), dp)]  # the widest expert split streams the fewest bytes per GPU
    return out


def best_bound(row):
    """(the best the bound allows in the row's metric, a text saying where), over the layouts and precisions."""
    model, hw = _model(row["model"]), _hw(row["hardware"])
    context = float(row["input_tokens"] or 1)
    best = None
    for prec in _precisions(row, hw):
        for par in _layouts(row, model):
            probe = point(model, hw, prec, par, 1.0, context, prompt=context)
            if not probe.weights_fit or probe.capacity_batch < 1:
                continue
            batch = float(row["batch"]) if row["batch"] else math.floor(probe.capacity_batch)
            p = point(model, hw, prec, par, batch, context, prompt=context)
            if row["metric"] == "ttft_ms":
                value = p.prefill_bound * 1e3  # a lower bound on the time
                better = best is None or value < best[0]
            elif row["metric"] == "ms_per_token":
                value = p.time_bound * 1e3
                better = best is None or value < best[0]
            else:
                value = par.dp * batch / p.time_bound
                if row["metric"] == "tokens_per_s_per_gpu":
                    value /= par.gpus
                better = best is None or value > best[0]
            if better:
                best = (value, f"{prec.label()} {par.label()} batch {batch:g}")
    return best


@pytest.mark.parametrize("row", [r for r in ROWS if r["expect"] == "ok"], ids=lambda r: r["id"])
def test_no_measurement_beats_the_strict_bound(row):
    best = best_bound(row)
    assert best is not None, f"{row['id']}: no layout holds the model"
    bound, where = best
    measured = float(row["value"])
    if row["metric"] in ("ttft_ms", "ms_per_token"):
        assert measured >= bound, f"{row['id']}: {measured} ms beats the bound {bound:.4g} ms ({where})"
    else:
        assert measured <= bound, f"{row['id']}: {measured} beats the bound {bound:.4g} ({where})"


@pytest.mark.parametrize("row", [r for r in ROWS if r["expect"] == "impossible"], ids=lambda r: r["id"])
def test_impossible_claims_beat_the_bound(row):
    best = best_bound(row)
    assert best is None or float(row["value"]) > best[0], f"{row['id']}: {row['value']} is within {best}"


def test_the_table_has_multi_gpu_rows():
    assert len(ROWS) >= 25
