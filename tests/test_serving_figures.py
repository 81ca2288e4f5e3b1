"""The serving chapter's figures (issues 29 and 30), drawn only for a spec with a ``serving`` block.

Figure 10: output tokens/s per GPU against tokens/s per user (1 / TPOT) for every layout ``plan`` tries, each a
curve over its batch, the serial estimate, with the Pareto frontier of the estimate and of the bound.  The numbers
are the evaluation's (``results.serving.frontier``): the spec's own layout at the serving table's batches gives the
table's TPOT and tok/s per GPU exactly.
"""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib
import pytest
from genreport.load.loader import load_report
from genreport.model.env import busiest_experts
from genreport.model.evaluate import evaluate
from genreport.model.frontier import pareto
from genreport.present import figures
from genreport.present.figures import style

ROOT = Path(__file__).resolve().parents[1]
SERVING_70B = """\
kind: report
name: sv70
title: Llama 3.1 70B in bf16 on 8 H100, served
hardware: h100-sxm
model: llama-3.1-70b
precision: bf16
parallelism: {tp: 8}
serving: {prompt: 4k, output: 512, ttft: 2 s, tpot: 50 ms, users: 128}
workloads:
  decode: {batch: [1, 64], context: [4k]}
"""
# An MoE with MLA on H200, data-parallel attention over eight GPUs (SGLang's layout), priced and without users.
SERVING_DSV3 = """\
kind: report
name: svds
title: DeepSeek-V3 in fp8 on 8 H200, served
hardware: h200
model: deepseek-v3
precision: fp8
parallelism: {tp: 1, dp: 8, ep: 8}
serving: {prompt: 4k, output: 1k, tpot: 50 ms}
workloads:
  decode: {batch: [1, 64], context: [4k]}
"""
SERVING_NAMES = [name for name, _cap in figures.SERVING_FIGURES]


def _evaluate(tmp_path_factory, text: str, name: str):
    path = tmp_path_factory.mktemp(name) / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return evaluate(load_report(path))


@pytest.fixture(scope="module")
def r70(tmp_path_factory):
    return _evaluate(tmp_path_factory, SERVING_70B, "sv70")


@pytest.fixture(scope="module")
def rds(tmp_path_factory):
    return _evaluate(tmp_path_factory, SERVING_DSV3, "svds")


def test_serving_figures_only_with_a_serving_block(r70):
    plain = evaluate(load_report(ROOT / "specs" / "llama70b-h100-tp8.yaml"))
    assert [n for n, _ in figures.figure_list(plain)] == [n for n, _ in figures.FIGURES]
    assert list(figures.captions(plain)) == [n for n, _ in figures.FIGURES]
    assert [n for n, _ in figures.figure_list(r70)] == [n for n, _ in figures.FIGURES] + SERVING_NAMES
    drawn = figures.draw_all(r70)
    assert list(drawn) == [n for n, _ in figures.FIGURES] + SERVING_NAMES
    for name in SERVING_NAMES:
        root = ET.fromstring(drawn[name])
        assert root.get("width") == "460.8pt" and root.get("height") == "259.2pt", name
    assert figures.draw_all(r70)["fig10-frontier"] == drawn["fig10-frontier"]  # the same bytes twice


def test_the_titled_layout_gives_the_tables_numbers(r70):
    """One number, one place: at the serving table's batches the figure's points are the table's TPOT and tok/s
    per GPU (serial estimate), and $/M out on the right axis is the table's."""
    f = r70.serving["frontier"]
    own = next(x for x in f["layouts"] if x["titled"])
    assert own["label"] == "tp8" and own["gpus"] == 8
    for row in r70.serving["rows"]:
        k = own["batch"].index(row["batch"])
        for est in ("bound", "serial"):
            assert own[est]["tpot"][k] == pytest.approx(row[est]["tpot"], rel=1e-12)
            assert own[est]["tokens_per_s_user"][k] == pytest.approx(1 / row[est]["tpot"], rel=1e-12)
            assert own[est]["tokens_per_s_gpu"][k] == pytest.approx(row[est]["tokens_per_s_gpu"], rel=1e-12)
    # batch 1 to the capacity (316 sequences of 4,608 tokens per replica, the chapter's)
    assert own["batch"][0] == 1 and own["batch"][-1] == own["capacity_batch"] == r70.serving["capacity_batch"]
    # per GPU = B x the request's mean rate / 8 GPUs: at batch 1 one eighth of tok/s per user of the table
    one = r70.serving["rows"][0]
    assert own["bound"]["tokens_per_s_gpu"][0] == pytest.approx(one["bound"]["tokens_per_s_user"] / 8, rel=1e-12)


@pytest.mark.parametrize("which", ["r70", "rds"])
def test_frontiers_dominate_and_the_bound_beats_the_estimate(which, request):
    f = request.getfixturevalue(which).serving["frontier"]
    assert f["layouts"] and any(x["titled"] for x in f["layouts"])
    for est in ("bound", "serial"):
        pts = [(x, y) for row in f["layouts"] for x, y in zip(row[est]["tokens_per_s_user"],
                                                             row[est]["tokens_per_s_gpu"], strict=True)]
        front = [(p["tokens_per_s_user"], p["tokens_per_s_gpu"]) for p in f["pareto"][est]]
        assert front and all(p in pts for p in front)
        for fx, fy in front:  # no point beats a frontier point on both axes
            assert not any(x > fx and y > fy for x, y in pts)
        for x, y in pts:  # and every point is matched or beaten by one of the frontier's
            assert any(fx >= x and fy >= y for fx, fy in front)
    for row in f["layouts"]:  # the bound is a bound: never slower than the estimate, per user or per GPU
        for a, b in zip(row["bound"]["tpot"], row["serial"]["tpot"], strict=True):
            assert a <= b * (1 + 1e-12)
    best = f["best_at_target"]["serial"]
    assert best is not None and best["tokens_per_s_user"] >= 1 / f["tpot_target"]
    assert best["usd_per_mtok_out"] == pytest.approx(f["price_per_hour"] / (best["tokens_per_s_gpu"] * 3600) * 1e6)


def test_pareto_by_hand():
    # (x, y): (1, 5) and (3, 3) and (4, 1) are on it; (2, 2) loses to (3, 3); (0.5, 5) loses to (1, 5) (ties on y)
    xs, ys = [1, 2, 3, 4, 0.5], [5, 2, 3, 1, 5]
    assert pareto(xs, ys) == [3, 2, 0]
    assert pareto([1.0, math.nan], [1.0, 9.0]) == [0]


def test_busiest_experts_by_enumeration():
    """The expected busiest GPU's experts, counted over every choice of touched experts (8 experts on 4 GPUs,
    two each): the one-pass table of :func:`busiest_experts` gives the same to rounding."""
    for t in range(0, 9):
        loads = [max(sum(1 for e in pick if e // 2 == g) for g in range(4)) if pick else 0
                 for pick in itertools.combinations(range(8), t)]
        assert busiest_experts(8, 4, float(t)) == pytest.approx(sum(loads) / len(loads), rel=1e-12), t
    # between whole numbers: interpolated
    assert busiest_experts(8, 4, 2.5) == pytest.approx((busiest_experts(8, 4, 2.0) + busiest_experts(8, 4, 3.0)) / 2)


def _collisions(fig) -> list[str]:
    boxes = style.text_boxes(fig)
    return [f"{a!r} overlaps {b!r}" for (a, ba), (b, bb) in itertools.combinations(boxes, 2) if ba.overlaps(bb)]


@pytest.mark.parametrize("narrow", [False, True], ids=["wide", "narrow"])
@pytest.mark.parametrize("which", ["r70", "rds"])
@pytest.mark.parametrize("name", SERVING_NAMES)
def test_serving_figure_labels_read(which, name, narrow, request):
    r = request.getfixturevalue(which)
    with matplotlib.rc_context(figures.RC), style.layout(narrow):
        fig = figures.DRAWERS[name](r, None)
    assert _collisions(fig) == []
    for text, bb in style.text_boxes(fig):  # every text on the canvas
        assert bb.x0 >= -1 and bb.x1 <= fig.bbox.x1 + 1 and bb.y0 >= -1 and bb.y1 <= fig.bbox.y1 + 1, text


def test_caption_states_the_frontier(r70, rds):
    cap = figures.captions(r70)["fig10-frontier"]
    f = r70.serving["frontier"]
    best = f["best_at_target"]["serial"]
    assert f"{len(f['layouts'])} layouts" in cap and "serial estimate" in cap
    assert f"{best['layout']} at batch {best['batch']:,}" in cap and "$2.99 per GPU-hour" in cap
    assert "TPOT target of 50 ms" in cap
    cap = figures.captions(rds)["fig10-frontier"]
    assert "this report's precision (fp8)" in cap and "ep8 dp8" in cap
