"""The serving chapter's figures (issues 29 and 30), drawn only for a spec with a ``serving`` block.

Figure 10: output tokens/s per GPU against tokens/s per user (1 / TPOT) for every layout ``plan`` tries, each a
curve over its batch, the serial estimate, with the Pareto frontier of the estimate and of the bound.  The numbers
are the evaluation's (``results.serving.frontier``): the spec's own layout at the serving table's batches gives the
table's TPOT and tok/s per GPU exactly.
"""

from __future__ import annotations

import itertools
import json
import math
import xml.etree.ElementTree as ET

import matplotlib
import pytest
from genreport.load.loader import load_report
from genreport.model.env import busiest_experts
from genreport.model.evaluate import evaluate
from genreport.model.frontier import pareto
from genreport.present import figures
from genreport.present.figures import style
from livejs import needs_node
from shared import MAVERICK_TWO_NODES, evaluated, evaluated_text


def _words(r) -> str:
    """What the report says of figure 9: its caption (what is drawn, its key) and the chapter's words on it
    (fig10_frontier.frontier_text: the frontiers, speculation, the best point inside the TPOT target)."""
    from genreport.present.figures.fig10_frontier import frontier_text

    return figures.captions(r)["fig10-frontier"] + " " + frontier_text(r)

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
# shared.MAVERICK_TWO_NODES: the longest layout names of the key ("tp8 pp2 ep8 with speculation"), which ran off a
# wide figure's right edge.

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


@pytest.fixture(scope="module")
def rmav():
    return evaluated_text(MAVERICK_TWO_NODES, "svmav")  # evaluated once a run (tests/test_derive_serving.py too)


def test_serving_figures_only_with_a_serving_block(r70):
    plain = evaluated("llama70b-h100-tp2.yaml")  # a committed spec without serving (the session's evaluation)
    assert [n for n, _ in figures.figure_list(plain)] == [n for n, _ in figures.FIGURES]
    assert list(figures.captions(plain)) == [n for n, _ in figures.FIGURES]
    assert [n for n, _ in figures.figure_list(r70)] == [n for n, _ in figures.FIGURES] + SERVING_NAMES
    drawn = figures.draw_all(r70)
    assert "fig5-memory-ledger" in figures.hidden(r70) and not r70.training  # no training: no memory ledger drawn
    assert list(drawn) == [n for n, _ in figures.FIGURES if n != "fig5-memory-ledger"] + SERVING_NAMES
    for name in SERVING_NAMES:
        root = ET.fromstring(drawn[name])
        assert root.get("width") == "460.8pt" and root.get("height") == "259.2pt", name
    # the same bytes twice (figures.draw is draw_all's drawing of one figure: tests/test_figures.py)
    assert figures.draw("fig10-frontier", r70) == drawn["fig10-frontier"]


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
    # batch 1 to the capacity (313 sequences of 4,607 tokens per replica, the chapter's), or the 256 the engine runs
    assert own["capacity_batch"] == r70.serving["capacity_batch"] == 313
    assert own["batch"][0] == 1 and own["batch"][-1] == own["batch_limit"] == 256
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


def test_busiest_experts_on_uneven_gpus_by_enumeration():
    """Experts that do not divide over the GPUs sit ceil(E/n) on E mod n of them, floor(E/n) on the others (vLLM's
    expert map): 7 experts on 3 GPUs (3, 2, 2), counted over every choice; and DeepSeek-V3's 256 over 72 GPUs (40 of 4,
    32 of 3) at 8 touched: 1.2633 against a 200,000-draw simulation's 1.2638 (stop 61), over the mean 0.111."""
    owner = [0, 0, 0, 1, 1, 2, 2]
    for t in range(0, 8):
        loads = [max(sum(1 for e in pick if owner[e] == g) for g in range(3)) if pick else 0
                 for pick in itertools.combinations(range(7), t)]
        assert busiest_experts(7, 3, float(t)) == pytest.approx(sum(loads) / len(loads), rel=1e-12), t
    assert busiest_experts(256, 72, 8.0) == pytest.approx(1.2634, abs=0.0005)
    # with 32 replicas the 224 unreplicated experts sit 3 or 4 to a GPU: the busiest holds less, never below the mean
    from genreport.model.env import busiest_experts_redundant

    assert 8 / 72 < busiest_experts_redundant(256, 72, 32, 8.0) < busiest_experts(256, 72, 8.0)


@needs_node
def test_the_page_counts_the_busiest_gpu_as_python_does():
    """templates/live/parallel.js's busiestRedundant against env.busiest_experts_redundant, even and uneven."""
    from genreport.model.env import busiest_experts_redundant
    from livejs import run

    cases = [(256, 8, 0, 57.4), (256, 72, 0, 8.0), (256, 72, 32, 8.0), (7, 3, 0, 2.5), (8, 3, 1, 3.0), (128, 24, 0, 16.3)]
    got = run(("formulas.js", "model.js", "parallel.js"),
              "output(INPUT.map(c => GR_PARALLEL.busiestRedundant(c[0], c[1], c[2], c[3])));", cases)
    for (e, n, r, t), js in zip(cases, got, strict=True):
        assert js == pytest.approx(busiest_experts_redundant(e, n, r, t), rel=1e-9), (e, n, r, t)


def _collisions(fig, boxes=None) -> list[str]:
    boxes = style.text_boxes(fig) if boxes is None else boxes  # measuring is a draw of the figure: done once a test
    return [f"{a!r} overlaps {b!r}" for (a, ba), (b, bb) in itertools.combinations(boxes, 2) if ba.overlaps(bb)]


@pytest.mark.parametrize("narrow", [False, True], ids=["wide", "narrow"])
@pytest.mark.parametrize("which", ["r70", "rds", "rmav"])
@pytest.mark.parametrize("name", SERVING_NAMES)
def test_serving_figure_labels_read(which, name, narrow, request):
    r = request.getfixturevalue(which)
    with matplotlib.rc_context(figures.RC), style.layout(narrow):
        fig = figures.DRAWERS[name](r, None)
    boxes = style.text_boxes(fig)
    assert _collisions(fig, boxes) == []
    for text, bb in boxes:  # every text on the canvas
        assert bb.x0 >= -1 and bb.x1 <= fig.bbox.x1 + 1 and bb.y0 >= -1 and bb.y1 <= fig.bbox.y1 + 1, text


def test_caption_states_the_frontier(r70, rds):
    cap = _words(r70)
    f = r70.serving["frontier"]
    best = f["best_at_target"]["serial"]
    assert f"{len(f['layouts'])} layouts" in cap and "serial estimate" in cap
    assert f"{best['layout']} at batch {best['batch']:,}" in cap and "$2.99 per GPU-hour" in cap
    assert "TPOT target of 50 ms" in cap
    cap = figures.captions(rds)["fig10-frontier"]
    assert "this report's precision (fp8)" in cap and "ep8 dp8" in cap


def test_the_layout_the_caption_names_best_has_a_colour_and_a_key():
    """Llama 3.1 405B fp8 on H100 at tp 8 x pp 4, served under a 50 ms TPOT: the frontier's best per GPU inside the
    target is tp8 pp2, which the caption names, but the figure coloured the six layouts with the most frontier
    points and drew tp8 pp2 grey, with no key (a report's "pp12" likewise).  The layout the caption names is coloured
    and keyed first.  (An engine with no max_sequences, as the seeds assume: at the engine's 256 the best is tp8.)"""
    from shared import evaluated

    r = evaluated("llama405b-h200-fp8-tp8.yaml", ("hardware=h100-sxm", "parallelism.pp=4", "serving.prompt=2k",
                                                  "serving.output=256", "serving.tpot=50ms",
                                                  "engine.max_sequences=0"))
    best = r.serving["frontier"]["best_at_target"]["serial"]["layout"]
    # tp8 pp3 since stop 75 (tp8 pp2's best point lies past the batch its compute keeps with the prompts): a layout
    # past the six with the most frontier points, as tp8 pp2 was
    assert best == "tp8 pp3" and f"is {best} at batch" in _words(r)
    with matplotlib.rc_context(figures.RC), style.layout(False):
        fig = figures.DRAWERS["fig10-frontier"](r, None)
    keys = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert best in keys and len([k for k in keys if k.startswith("tp")]) <= 1 + 6  # its own and six at most
    assert _collisions(fig) == []


def test_the_rate_captions_limits_explain_themselves_once():
    """Qwen3 30B-A3B in bf16 on one H100 (4k + 512-token requests, 128 users): both curves stop at the KV cache room
    and both goodputs are set by it, and figure 11's caption said "(the caches fill at the mean context)" all four
    times.  The parenthesis now comes once, the limit's name after it."""
    from shared import evaluated

    r = evaluated("llama70b-h100-tp8.yaml", ("model=qwen3-30b-a3b", "parallelism.tp=1"))
    ra = r.serving["techniques"]["rates"]
    assert {ra[k][x] for k in ("chunked", "unchunked") for x in ("stops_at", "goodput_binds")} == {"capacity"}
    cap = figures.captions(r)["fig11-rates"]
    assert cap.count("the KV cache room (the caches fill at the mean context)") == 1
    assert cap.count("the KV cache room") == 4


# -- figure 11: TTFT and TPOT against the arrival rate, with chunked prefill and without ----------------------------

def _num(expr, values: dict) -> float:
    from genreport.formulas.glossary import sym

    return float(expr.subs({sym(k): v for k, v in values.items()}))


# One GPU of Llama 3.1 70B bf16 tp 8 on H100, in round numbers: the formulas' own identities are checked, not values.
ONE_GPU = {"N": 8.8e9, "N_e": 0.0, "N_a": 8.8e9, "N_p": 8.6e9, "L": 80, "d": 8192, "H_q": 8, "d_h": 128, "d_hp": 128,
           "V": 16032, "b": 2.0, "c": 40960.0, "a": 16384.0, "P": 989e12, "W": 3.35e12, "C": 77e9,
           "T_in": 4096, "T_out": 512, "h_p": 0.0, "s_c": 512, "C_p": 512, "theta": 0.05, "n_St": 1.0}


def test_unchunked_steady_state_solves_its_balance():
    from genreport.formulas import techniques as t

    v = dict(ONE_GPU, t_p=0.07, lam=5.0)
    t_u = _num(t.unchunked_step_time(), v)
    # t_u (1 - lam t_p) W = (N - N_e) b + lam (T_out - 1) t_u (S c + a), S = T_in + T_out / 2
    s_mean = v["T_in"] + v["T_out"] / 2
    lhs = t_u * (1 - v["lam"] * v["t_p"]) * v["W"]
    rhs = (v["N"] - v["N_e"]) * v["b"] + v["lam"] * (v["T_out"] - 1) * t_u * (s_mean * v["c"] + v["a"])
    assert lhs == pytest.approx(rhs, rel=1e-12)
    # no arrivals: the weights' stream time, as with chunked prefill
    assert _num(t.unchunked_step_time(), dict(v, lam=0.0)) == pytest.approx(v["N"] * v["b"] / v["W"], rel=1e-12)
    assert _num(t.steady_step_time(), dict(v, lam=0.0)) == pytest.approx(v["N"] * v["b"] / v["W"], rel=1e-12)
    # the stall: a decode step plus one whole prefill
    assert _num(t.unchunked_stall_time(), v) == pytest.approx(t_u * (1 - 5.0 * 0.07) + 0.07, rel=1e-12)
    # the goodput rate gives the target back; past the memory rate the step has no finite time
    good = _num(t.goodput_rate_unchunked(), dict(ONE_GPU, t_p=0.07))
    assert _num(t.unchunked_step_time(), dict(v, lam=good)) == pytest.approx(0.05, rel=1e-9)
    edge = _num(t.unchunked_rate_memory(), dict(ONE_GPU, t_p=0.07))
    assert v["W"] * (1 - edge * 0.07) == pytest.approx(edge * 511 * (s_mean * v["c"] + v["a"]), rel=1e-12)
    # the chunk budget: each step of t_s carries lam T_in t_s prompt tokens and lam 511 t_s decode ones, s_c at that rate
    rate = _num(t.chunk_budget_rate(), ONE_GPU)
    assert rate * (4096 + 511) * _num(t.steady_step_time(), dict(ONE_GPU, lam=rate)) == pytest.approx(512, rel=1e-9)


def test_prefill_alone_is_the_prefill_ledgers():
    """Seed 003's prefill of T tokens: FLOPs 2 N_p T + 2 L H_q d_h T^2 + 2 V d (the head once), bytes the weights and
    the T tokens' cache written; the time is the larger of the two over the roofs."""
    from genreport.formulas import techniques as t

    v = ONE_GPU
    T = v["T_in"]
    flops = 2 * v["N_p"] * T + 2 * v["L"] * v["H_q"] * v["d_h"] * T**2 + 2 * v["V"] * v["d"]
    nbytes = v["N"] * v["b"] + T * v["c"]
    assert _num(t.prefill_alone_time(), v) == pytest.approx(max(flops / v["P"], nbytes / v["W"]), rel=1e-12)


def test_rate_curves_of_the_70b(r70):
    ra = r70.serving["techniques"]["rates"]
    ch, un = ra["chunked"], ra["unchunked"]
    # no arrivals: one GPU streams its 17.65 GB slice of the 70.6 B bf16 weights at 3.35 TB/s: 5.27 ms a token
    weights = 70.6e9 * 2 / 8 / 3.35e12
    assert ch["tpot"][0] == pytest.approx(weights, rel=1e-3) and un["tpot"][0] == pytest.approx(weights, rel=1e-3)
    # the round that waits for a prefill: that plus the prompt's prefill alone (the TTFT without chunks)
    assert un["stall"][0] == pytest.approx(weights + ra["prefill_alone_time"], rel=1e-3)
    assert un["ttft"] == [ra["prefill_alone_time"]] * len(un["ttft"])
    for c in (ch, un):
        assert c["rate"][0] == 0 and c["rate"][-1] == pytest.approx(c["stop"], rel=1e-5)
        assert c["stop"] == pytest.approx(min(x for x in c["limits"].values() if x is not None))
        assert all(b >= a for a, b in zip(c["tpot"], c["tpot"][1:], strict=False))  # TPOT grows with the rate
        assert 0 < c["goodput"] <= c["stop"] and c["goodput_tpot"] <= 0.05 * (1 + 1e-9)
        assert c["goodput_ttft"] <= 2.0
    # with chunks the prompts ride along memory-bound steps: compute binds first (12 requests/s, the chapter's)
    assert ch["stops_at"] == "compute" and ch["goodput"] == pytest.approx(
        r70.serving["techniques"]["numbers"]["goodput_rate_compute"], rel=1e-12)
    # prefilled alone the decode steps lose the prefill time: the TPOT target binds lower, at exactly 50 ms
    assert un["goodput_binds"] == "TPOT target" and un["goodput_tpot"] == pytest.approx(0.05, rel=1e-6)
    assert un["goodput"] < ch["goodput"]


def test_the_p99_tail_of_the_70b(r70):
    """The P99 time between tokens (issue 30, the tail) on Llama 3.1 70B bf16 at tp 8, 4k prompts, 512 outputs, a
    50 ms target.  The spec's budget (vLLM's 8,192) holds a whole 4k prompt, so a chunked step carries it whole: the
    two designs have the same tail once more than 1% of the steps carry a prompt (lam 4,096 t_s / 4,096 > 0.01), and
    the same P99 capacity, set where a gap holds no whole prefill (t_p 79 ms > 50 ms - t_r): e^(-lam t_r) = 0.99,
    ``stall_free_rate``; far below the mean-TPOT goodputs."""
    ra = r70.serving["techniques"]["rates"]
    ch, un = ra["chunked"], ra["unchunked"]
    assert ra["tail"] == 0.99 and ra["prefill_alone_time"] > 0.05
    weights = 70.6e9 * 2 / 8 / 3.35e12
    assert ch["p99"][0] == pytest.approx(weights, rel=1e-3) and un["p99"][0] == pytest.approx(weights, rel=1e-3)
    t_p = ra["prefill_alone_time"]
    from genreport.model.techniques import _eval, _inputs

    env = {**_inputs(r70, 1.0, ra["mean_context"]), "S": ra["mean_context"], "t_p": t_p, "q_p": 0.99}
    free = _eval(r70, "stall_free_rate", env)
    assert un["p99_rate"] == pytest.approx(free, rel=1e-6) and un["p99_binds"] == "P99 TBT target"
    assert ch["p99_rate"] == pytest.approx(un["p99_rate"], rel=0.02)
    assert un["p99_rate"] < un["goodput"] < ch["goodput"]
    for c in (ch, un):  # past the capacity the tail is a whole prefill or more: over the target
        past = [p for x, p in zip(c["rate"], c["p99"], strict=True) if x > c["p99_rate"] * 1.01]
        assert past and min(past) > 0.05 and min(past) >= t_p
    # the queued mean TTFT without chunks: no arrivals, half a round and the prefill; then it grows with the rate
    assert un["ttft_queued"][0] == pytest.approx(weights / 2 + t_p, rel=1e-3)
    assert all(b >= a for a, b in zip(un["ttft_queued"], un["ttft_queued"][1:], strict=False))
    # without chunks the tail is the round plus whole prefills: (p99 - t_r) / t_p is a whole number
    t_r = [u * (1 - x * t_p) for x, u in zip(un["rate"], un["tpot"], strict=True)]
    for tail, rnd in zip(un["p99"], t_r, strict=True):
        if math.isfinite(tail):
            k = (tail - rnd) / t_p
            assert k == pytest.approx(round(k), abs=1e-6)


def test_the_p90_ttft_tail(r70, rds):
    """The TTFT tail (formulas/techniques.py, "the tail: P90 TTFT"): the prompts queue for their prefills, an M/D/1
    queue whose server leaves for a round (without chunks) or a plain step (with chunks) whenever none waits.  With no
    arrivals the P90 is the prefill and 90% of the round in progress (the round's residual is uniform): for the 70B at
    tp 8, t_p + 0.9 x 70.6e9 x 2 / 8 / 3.35e12 (5.27 ms a round), to a grid step t_p / 64 below; at every rate the
    P90 is at least the prefill itself, and the mean of the inverted law is the closed form ``unchunked_ttft``.  The
    2 s TTFT target binds neither design before its curve stops (the P90 there: 287 ms without chunks, 815 ms with:
    a chunked prompt's steps carry the running sequences too, so its service is longer and its queue fuller).
    DeepSeek-V3 (MoE, MLA, fp8, 8 H200) has no TTFT target: curves, no capacity."""
    import numpy as np
    from genreport.model.techniques import ttft_law

    ra = r70.serving["techniques"]["rates"]
    ch, un = ra["chunked"], ra["unchunked"]
    t_p, weights = ra["prefill_alone_time"], 70.6e9 * 2 / 8 / 3.35e12
    assert ra["ttft_tail"] == 0.9
    for c, service in ((un, t_p), (ch, ch["ttft"][0])):
        assert service + 0.9 * weights * (1 - 1e-3) - t_p / 64 <= c["ttft_p90"][0] <= service + 0.9 * weights * 1.001
        assert all(p >= f * (1 - 1e-12) for p, f in zip(c["ttft_p90"], c["ttft"], strict=True))
        assert c["ttft_tail_rate"] == c["stop"] and c["ttft_tail_binds"] == c["stops_at"]
    # the unchunked curve stops at 8.98 requests/s, where 256 sequences run (the engine's max_sequences), not at the
    # caches' 9.18 (0.287 there)
    assert un["stops_at"] == "engine"
    assert max(un["ttft_p90"]) == pytest.approx(0.274, abs=1e-3) and max(ch["ttft_p90"]) == pytest.approx(0.815, abs=1e-3)
    i = len(un["rate"]) // 2  # half way up the curve: the inverted law's mean against the closed form
    lam = un["rate"][i]
    t_r = un["tpot"][i] * (1 - lam * t_p)
    grid, cdf = ttft_law(lam, t_p, t_r)
    mean = t_p + grid * float(np.sum(1 - cdf[:-1]))
    assert un["ttft_queued"][i] - grid * (1 + lam * t_p / (1 - lam * t_p)) <= mean <= un["ttft_queued"][i] * (1 + 1e-9)
    ds = rds.serving["techniques"]["rates"]
    for kind in ("chunked", "unchunked"):
        c = ds[kind]
        assert c["ttft_tail_rate"] is None and math.isfinite(c["ttft_p90"][0]) and c["ttft_p90"][0] >= c["ttft"][0]


def test_a_tight_ttft_target_binds_the_tail(tmp_path_factory):
    """The 70B at tp 8 with a TTFT target of 150 ms (the prefill alone 73.7 ms): the P90 TTFT passes it below where
    the curves stop, so the TTFT tail capacity binds: 5.32 requests/s without chunks, 5.25 with (the 8,192-token
    budget holds the whole 4k prompt, so the two queues nearly agree), far below the steady goodputs (8.87 and 12);
    there the P90 is the target (to the bisection), and figure 11 marks it (a diamond on the TTFT panel) without a
    collision."""
    r = _evaluate(tmp_path_factory, SERVING_70B.replace("ttft: 2 s", "ttft: 150 ms"), "sv70t")
    ra = r.serving["techniques"]["rates"]
    from genreport.model.techniques import ttft_quantile

    for kind in ("chunked", "unchunked"):
        c = ra[kind]
        assert c["ttft_tail_binds"] == "P90 TTFT target" and 0 < c["ttft_tail_rate"] < c["stop"]
        below = [p for x, p in zip(c["rate"], c["ttft_p90"], strict=True) if x <= c["ttft_tail_rate"]]
        above = [p for x, p in zip(c["rate"], c["ttft_p90"], strict=True) if x > c["ttft_tail_rate"] * 1.01]
        assert max(below) <= 0.15 < min(above)
    un = ra["unchunked"]
    assert (un["ttft_tail_rate"], ra["chunked"]["ttft_tail_rate"]) == (pytest.approx(5.32, abs=0.01),
                                                                       pytest.approx(5.25, abs=0.01))
    lam = un["ttft_tail_rate"]
    i = max(j for j, x in enumerate(un["rate"]) if x <= lam)  # the round at the grid rate below, a little shorter
    assert ttft_quantile(lam, ra["prefill_alone_time"], un["tpot"][i] * (1 - lam * ra["prefill_alone_time"])) <= 0.15
    with matplotlib.rc_context(figures.RC):
        fig = figures.DRAWERS["fig11-rates"](r, None)
    assert _collisions(fig) == []


def test_the_chapter_states_the_ttft_tail_capacity():
    """The serving chapter's one sentence on the TTFT tail (specs/llama70b-h100-tp8.yaml, TTFT target 2 s): the
    highest rate whose P90 TTFT meets it, with and without chunks, here where the curves stop (the session's build,
    which the golden test makes anyway)."""
    from shared import html

    page = " ".join(html("llama70b-h100-tp8.yaml").split())
    # without chunks the curve stops where the engine's 256 sequences run (8.98), not the caches' 9.18
    assert ("the P90 TTFT meets 2 s up to <strong>12 requests/s</strong> with chunks and <strong>8.98</strong> without, "
            "where the curves stop: the TTFT tail does not bind.") in page


def test_rate_caption_states_the_goodput(r70):
    cap = figures.captions(r70)["fig11-rates"]
    ra = r70.serving["techniques"]["rates"]
    assert f"its goodput (star) is {figures.num(ra['unchunked']['goodput'])} requests/s, set by the TPOT target" in cap
    assert "the compute roof" in cap and "no collectives counted" in cap


def test_an_moe_steady_state_reads_the_experts_its_tokens_touch(rds):
    """DeepSeek-V3: the steps of the rate curves read the experts their own tokens touch (a fixed point: the
    sequences running depend on the step, the weights read on the sequences), not one sequence's; the prompt tokens
    on the two-point law (techniques.steady_weights): a share p = lam T_in t_s / (s_c - B) of the steps carries a
    full 8,192-token budget beside the B decode tokens, the others none, which reads fewer experts on average than
    the prompt tokens spread over every step (at the lowest rate 0.65 as many, the step 7.3 ms where it was 16.1)."""
    import numpy as np
    from genreport.model.techniques import _inputs

    ra = rds.serving["techniques"]["rates"]
    ch = ra["chunked"]
    lead = rds.envs[rds.lead]
    mean = ra["mean_context"]
    env = dict(_inputs(rds, 1.0, mean), S=mean, t_p=ra["prefill_alone_time"])

    def n_at(tokens):  # a step of at least one token (a rate whose running sequences are fewer still steps one)
        return float(np.ravel(lead.at(batch=max(float(tokens), 1.0), context=mean)["N"])[0])

    one = n_at(1.0)
    assert float(np.ravel(lead.at(batch=1.0)["b"])[0]) == 1.0 and float(np.ravel(lead.at(batch=1.0)["N_e"])[0]) == 0
    for k in (1, 16, 40, len(ch["rate"]) - 1):
        lam, t, busy = ch["rate"][k], ch["tpot"][k], ch["running"][k]
        prompt, room = lam * 4096 * t, 8192 - busy
        below = max(1 - busy, 0.0)  # under one decode token a step: the left point one token (a step reads one)
        p = (prompt - below) / (room - below)
        assert 0 < p < 1 and (below > 0) == (k == 1)
        chord = (1 - p) * n_at(busy + below) + p * n_at(busy + room)  # fp8: b = 1 at both points, N_e = 0
        assert chord <= n_at(busy + prompt) * (1 + 1e-12)  # never above the spread (the experts are concave)
        if k == 1:
            assert chord < 0.65 * n_at(busy + prompt) and t < 0.5 * 0.016140901809998227  # the spread: 16.1 ms
        else:
            assert chord > 1.5 * one  # many sequences touch far more experts than one
        again = float(rds.q["steady_step_time"]({**env, "lam": lam, "N": chord, "N_e": 0.0, "b": 1.0}))
        assert again == pytest.approx(t, rel=1e-9)
        assert busy == pytest.approx(lam * 1023 * t, rel=1e-12)  # Little's law
    # the KV cache room counts the weights a GPU holds, as the serving table's capacity does: the sequences it holds
    # at the mean context 4,608 are the table's whole sequences of the last context 5,119 scaled by 5,119 / 4,608
    # (MLA's cache per token does not depend on the context), up to the table's rounding down
    cap = rds.serving["capacity_batch"]
    assert cap * 5119 / 4608 <= ra["held_sequences_mean"] < (cap + 1) * 5119 / 4608


def test_the_figure_store_keeps_the_serving_figures(r70, tmp_path, monkeypatch):
    """A report with a serving block keeps its ten figures (the eleven less the memory ledger, hidden without a
    training workload) for the next build, which draws none and gets the same bytes."""
    from genreport.present.figures import store

    monkeypatch.setenv("GENREPORT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("GENREPORT_FIGURE_CACHE", raising=False)
    pending = figures.start(r70, None, phone=False)
    wide = pending.result()
    pending.keep()
    kept = list((tmp_path / "cache" / store.FOLDER).glob("*.json"))
    assert list(wide) == [n for n, _ in figures.FIGURES if n != "fig5-memory-ledger"] + SERVING_NAMES
    assert len(kept) == 1 and len(json.loads(kept[0].read_text())["figures"]) == 10

    def refuse(*_a, **_k):
        raise AssertionError("a figure was drawn")

    monkeypatch.setattr(figures, "draw_all", refuse)
    assert figures.start(r70, None, phone=False).result() == wide


# Llama 3.1 70B in bf16 on one L4 (24 GB): the weights alone do not fit, so the spec's layout serves nothing.
NO_FIT = """\
kind: report
name: l4
title: Llama 3.1 70B on one L4
hardware: l4
model: llama-3.1-70b
precision: bf16
serving: {prompt: 2k, output: 256, ttft: 1 s, tpot: 50 ms}
workloads:
  decode: {batch: [1], context: [2k]}
"""
# One generated token: no decode round (T_out - 1 = 0), the division the steady state has is an infinity, not a crash.
ONE_TOKEN = SERVING_70B.replace("output: 512", "output: 1").replace("users: 128", "users: 4")


@pytest.mark.parametrize("text,words", [
    (NO_FIT, ["This report's layout, 1 GPU, holds no such sequence", "no request is served"]),
    # a one-token request decodes nothing: no "0 rounds" in Little's law, no TPOT or TBT for the second panel
    (ONE_TOKEN, ["A one-token request has no decode round", "it has no time per output token",
                 "the prefills back to back (one prompt every t_p)", "Rates are per replica."]),
])
def test_awkward_services_draw_and_say_so(tmp_path_factory, text, words):
    r = _evaluate(tmp_path_factory, text, "awk")
    caps = figures.captions(r)
    joined = caps["fig10-frontier"] + caps["fig11-rates"]
    for w in words:
        assert w in joined
    assert "0 rounds" not in joined and "P99 capacity" not in joined or text is not ONE_TOKEN
    for name in SERVING_NAMES:
        for narrow in (False, True):
            with matplotlib.rc_context(figures.RC), style.layout(narrow):
                fig = figures.DRAWERS[name](r, None)
            boxes = style.text_boxes(fig)
            assert _collisions(fig, boxes) == []
            for text_, bb in boxes:
                assert bb.x0 >= -1 and bb.x1 <= fig.bbox.x1 + 1, text_


def test_speculation_that_pays_again_says_where_it_does_not(rmav):
    """A mixture of experts' verify step touches more experts than a plain step while the batch is small, so
    speculative decoding stops paying past a break-even batch, and pays again once the plain step reads every expert
    too (Llama 4 Maverick, 128 experts, top-1: the plain step at batch B touches 128 (1 - (127/128)^B) experts a layer,
    the verify step 4 B tokens' worth).  The row states the window, not "ends at" a batch below the chapter's where
    the speed-up is 2x; the speed-up crosses 1 at both ends of it (generator/model/techniques._layout_round)."""
    from genreport.model import techniques

    numbers = rmav.serving["techniques"]["numbers"]
    low, high = numbers["breakeven_batch"], numbers["resumes_batch"]
    assert low is not None and high is not None and 1 < low < high < rmav.serving["rows"][-1]["batch"]
    speedup = {b: techniques._layout_round(rmav, float(b))["last"]["speedup"] for b in (low - 1, low, high - 1, high)}
    assert speedup[low - 1] > 1 >= speedup[low] and speedup[high - 1] <= 1 < speedup[high], speedup
    row = next(x for x in rmav.serving["techniques"]["rows"] if x["technique"] == "speculative decoding")
    assert row["ends"].startswith(f"does not pay from batch {low:,} to {high - 1:,} per replica")
    assert f"pays again from batch {high:,}" in row["ends"] and row["gain"] > 1
    assert f"does not pay from batch {low:,} to {high - 1:,} per replica and pays again from {high:,}" in \
        _words(rmav)


def test_the_kv_capacity_ceiling_counts_the_weights_a_gpu_holds(rmav):
    """``goodput_rate_capacity`` solves lam (T_out - 1) t_s(lam) (T_in + T_out / 2) (c + c_d) = C - N b - M_d
    (formulas/techniques.py): N b there is what a GPU holds, while the steady step t_s streams what a round reads.
    At tp 8 x pp 2 x ep 8 a round at the chapter's batch streams each GPU's slice once per micro-batch (40.9e9
    parameters against the 25.0e9 it holds at the 400-odd sequences that fit; 32.4e9 at the engine's 256), which
    left no room and no ceiling ("none: the KV capacity allows no rate").  At the ceiling the running sequences'
    caches fill the held room, the steady step streaming the weights of its own tokens (techniques.capacity_weights:
    the sequences filling the room and their prompt tokens, fix19), not the chapter's batch's."""
    import numpy as np
    from genreport.model import techniques

    n = rmav.serving["techniques"]["numbers"]
    lam = n["goodput_rate_capacity"]
    assert lam is not None and lam > 0
    sv, lead = rmav.spec.serving, rmav.envs[rmav.lead]
    last = sv.prompt + sv.output - 1
    env = techniques._inputs(rmav, float(rmav.serving["rows"][-1]["batch"]), float(last))
    held = lead.held(context=float(last))  # the stage that holds the fewest tokens: its weights and memory
    n_held, b_held = float(np.ravel(held["N"])[0]), float(np.ravel(held["b"])[0])
    own = rmav.serving["techniques"]["capacity_weights"]
    assert env["N"] > 1.25 * n_held and own["N"] > 1.25 * n_held  # what a round reads is not what a GPU holds
    t_s = techniques._eval(rmav, "steady_step_time", {**env, **own, "lam": lam})
    room = float(np.ravel(held["C"])[0]) - n_held * b_held - env["M_d"]
    caches = lam * (sv.output - 1) * t_s * (sv.prompt + sv.output / 2) * (env["c"] + env["c_d"])
    assert caches == pytest.approx(room, rel=1e-9)


def test_the_rate_figure_counts_the_kv_cache_room_as_the_chapter_does(rmav):
    """One counting of the caches (issue 30's review): the rate figure's curves stop at the KV cache room the chapter
    states, the running sequences at a request's mean context (Little's law's time average), not at the sequences
    that fit at its last context.  Llama 4 Maverick at tp 8 x pp 2 x ep 8: the chunked curve stopped at 22.5
    requests/s, where its running sequences reached the 422 that fit at the last context 4,607, beside the chapter's
    27.7; now both say 27.7.  Without chunks the curve stops where its own running sequences reach those the caches
    hold at the mean context 4,352: for the 70B at tp 8 in bf16, each GPU's room beside its 17.65 GB of weights over
    4,352 tokens of 40,960 B (80 layers x 2 x 8 KV heads x 128 x 2 B over 8 GPUs)."""
    # the engine's 256 sequences stop both curves before the caches now (goodput_rate_engine): the KV cache room's
    # limit is still the chapter's ceiling, one number, and the engine's below it
    n = rmav.serving["techniques"]["numbers"]
    ch = rmav.serving["techniques"]["rates"]["chunked"]
    assert ch["limits"]["capacity"] == n["goodput_rate_capacity"] > ch["stop"] == ch["limits"]["engine"]
    assert ch["stops_at"] == "engine" and ch["stop"] == n["goodput_rate_engine"]
    assert n["goodput_binds"] == "engine's max_sequences" and ch["goodput"] == n["goodput_rate"]
    # with no engine limit (max_sequences 0): the engine's 256 stop the 70B's unchunked curve before the caches
    r70 = evaluated_text(SERVING_70B + "engine: {max_sequences: 0}\n", "sv70free")
    ra = r70.serving["techniques"]["rates"]
    un = ra["unchunked"]
    room = r70.envs[r70.lead].values["C"] - 70.6e9 * 2 / 8
    assert ra["held_sequences_mean"] == pytest.approx(room / (4352 * 327680 / 8), rel=2e-3)
    assert un["stops_at"] == "capacity" and un["running"][-1] == pytest.approx(ra["held_sequences_mean"], rel=1e-9)
    assert ra["held_sequences_mean"] > r70.serving["capacity_batch"]  # more fit on average than at the last token


def test_the_frontier_caption_names_the_sequences_length_its_capacity_counts():
    """Llama 3.1 70B on 8 H100 serving 4,096 + 512-token requests (specs/llama70b-h100-tp8.yaml): a replica holds
    sequences of the last context, 4,096 + 512 - 1 = 4,607 tokens (the last token is sampled, never cached), as the
    chapter's "A replica holds N sequences of 4,607 tokens" says; figure 9's caption said "the 4,608-token sequences
    it holds"."""
    from shared import evaluated

    r = evaluated("llama70b-h100-tp8.yaml")
    assert r.serving["last_context"] == 4096 + 512 - 1
    own = next(x for x in r.serving["frontier"]["layouts"] if x["titled"])
    assert own["capacity_batch"] == r.serving["capacity_batch"]
    text = figures.captions(r)["fig10-frontier"]
    assert "to the 4,607-token sequences it holds" in text and "4,608" not in text


def test_the_cheapest_layout_sentence_names_the_batch_it_was_planned_at():
    """Gemma 3 27B in fp8 on H100 NVL with 64 users: the chapter named 1 GPU "the cheapest per million output tokens
    that meets the targets" at $0.094, and the next sentence gave the frontier's pp31 at batch 4,765 at $0.068 inside
    the same TPOT target. The first is plan's row at the strict bound with at most the spec's users a replica; the
    sentence now says so (specs/llama70b-h100-tp8.yaml: 128 users)."""
    import re

    from shared import evaluated, html

    r = evaluated("llama70b-h100-tp8.yaml")
    assert r.serving["cheapest"]["batch"] <= r.spec.serving.users == 128
    page = re.sub(r"\s+", " ", html("llama70b-h100-tp8.yaml"))
    # and at the batch it runs: the users over the replicas they take (it said "at most 128 sequences a replica" of
    # DeepSeek-V3's tp 2 x dp 4, whose replicas run 32 each: plan's limit "users")
    assert "that meets the targets at the strict bound serving the spec's 128 users is <strong>" in \
        page.replace("&#39;", "'")
    b = r.serving["cheapest"]["batch"]
    assert f"</strong>: {b} sequences on its replica, TTFT" in page
    ds = re.sub(r"\s+", " ", html("deepseek-v3-h200-ep8.yaml"))
    assert "</strong>: 32 sequences on each replica, TTFT" in ds


MIXTRAL_DRAFTED = """\
kind: report
name: mixdraft
title: Mixtral 8x7B in int4 on 2 H100 PCIe, drafted by Mistral 7B
hardware: h100-pcie
model: mixtral-8x7b
precision: {weights: int4, group_size: 128, kv_cache: bf16, compute: bf16}
parallelism: {tp: 2, ep: 2}
serving: {prompt: 2k, output: 512, ttft: 1 s, tpot: 40 ms, users: 64,
          speculative: {draft_tokens: 4, acceptance: 0.7, draft_model: mistral-7b, draft_precision: int4}}
workloads:
  decode: {batch: [1, 64], context: [2k]}
"""


def test_speculation_that_pays_in_a_window_says_where_it_stops_again(tmp_path):
    """Mixtral 8x7B (8 experts, top-2) drafted by Mistral 7B on 2 H100 PCIe: speculation does not pay at batch 1-3
    (the verify step's 5 tokens touch more of the 8 experts than one token's 2), pays once the plain step reads
    most experts too, and stops again as the draft's 4 passes, each reading its own cache of every sequence (Mistral
    7B: 32 layers x 8 KV heads x 128 x 2 x 2 B = 128 KiB a token, config.json of mistralai/Mistral-7B-v0.1), outgrow
    the verify round's saving.  The lever row said "pays again from batch 4" beside a 0.69x speed-up at the chapter's
    batch 184; it now states where the window ends, and the speed-up crosses 1 there."""
    from genreport.load.loader import load_report
    from genreport.model import techniques
    from genreport.model.evaluate import evaluate

    path = tmp_path / "mixdraft.yaml"
    path.write_text(MIXTRAL_DRAFTED, encoding="utf-8")
    r = evaluate(load_report(path))
    numbers = r.serving["techniques"]["numbers"]
    low, high, stop = numbers["breakeven_batch"], numbers["resumes_batch"], numbers["stops_again_batch"]
    batch = r.serving["rows"][-1]["batch"]
    assert low is not None and high is not None and stop is not None and low < high < stop <= batch
    speedup = {b: techniques._layout_round(r, float(b))["last"]["speedup"] for b in (stop - 1, stop)}
    assert speedup[stop - 1] > 1 >= speedup[stop], speedup
    row = next(x for x in r.serving["techniques"]["rows"] if x["technique"] == "speculative decoding")
    assert row["gain"] < 1  # at the chapter's batch it does not pay, and the row says so
    # it never paid below batch 1: it "pays from batch 4", not "pays again"
    assert low == 1 and (f"pays from batch {high:,} to {stop - 1:,} and stops paying again at batch {stop:,}"
                         in row["ends"]), row["ends"]
    assert (f"pays from {high:,} to {stop - 1:,} and stops paying again at {stop:,} (the lever row's)"
            in " ".join(_words(r).split()))


def test_a_data_parallel_layout_reaches_the_frontier_its_replica_reaches():
    """Llama 3.1 8B int4 on H100 at dp 4 (found on 64 H100 at dp 64): a replica is one GPU, so the dp4 curve is the
    1-GPU layout's point for point, and the 1-GPU curve holds frontier points; ``pareto`` keeps one of two tied
    points (the 1-GPU one), and the chapter said "this report's dp4 is not on the frontier at any batch" while the
    caption's frontier ran through 1 GPU."""
    from shared import evaluated

    r = evaluated("llama8b-h100.yaml", ("parallelism.dp=4", "precision.weights=int4", "serving.prompt=2k",
                                        "serving.output=256", "serving.tpot=30ms"))
    f = r.serving["frontier"]
    one, own = (next(x for x in f["layouts"] if x["label"] == lab) for lab in ("1 GPU", "dp4"))
    # point for point where both have a batch (the titled curve also holds the chapter's rows' batches: since stop 75
    # its TPOT row's, where the prompts' prefills fill the compute, is not one of the grid's)
    mine = dict(zip(own["batch"], own["serial"]["tokens_per_s_gpu"], strict=True))
    theirs = dict(zip(one["batch"], one["serial"]["tokens_per_s_gpu"], strict=True))
    assert own["titled"] and len(set(mine) & set(theirs)) >= len(theirs) - 1
    assert all(mine[b] == theirs[b] for b in set(mine) & set(theirs))
    assert "1 GPU" in f["frontier_layouts"] and "dp4" not in f["frontier_layouts"]  # the tie went to 1 GPU
    assert f["titled_on_frontier"] is True
    plain = evaluated("llama8b-h100.yaml", ("parallelism.dp=4", "serving.prompt=2k", "serving.output=256",
                                            "serving.tpot=30ms"))  # bf16: tensor-parallel layouts beat one GPU
    assert "1 GPU" not in plain.serving["frontier"]["frontier_layouts"]
    assert plain.serving["frontier"]["titled_on_frontier"] is False


def test_the_frontiers_best_at_the_target_is_a_batch_its_compute_keeps():
    """QA, stop 75: Mixtral 8x22B at 4k + 256, 30 ms, named tp4 ep8 dp2 at batch 149 the frontier's best per GPU where
    that layout's compute keeps 86 sequences at 30 ms with their prompts (compute_batch: 4 x 989.4 TFLOP/s x 255 x
    0.03 s over a request's FLOPs).  The best at the target is a point whose batch its layout's compute keeps; each
    layout's curve says its compute_batch."""
    from shared import evaluated

    sets = ("serving.prompt=4096", "serving.output=256", "serving.tpot=30 ms", "serving.ttft=2 s",
            "serving.users=2000")
    f = evaluated("llama70b-h100-tp8.yaml", ("model=mixtral-8x22b", "parallelism.tp=4", "parallelism.ep=8",
                                             "parallelism.dp=2", *sets)).serving["frontier"]
    limits = {x["label"]: x["compute_batch"] for x in f["layouts"]}
    assert all(v is not None and v > 0 for v in limits.values())
    for est in ("bound", "serial"):
        best = f["best_at_target"][est]
        assert best is not None and best["batch"] <= limits[best["layout"]], (est, best, limits[best["layout"]])
    fast = [x for x in f["pareto"]["serial"] if x["tokens_per_s_user"] >= 1 / 0.03]
    assert any(x["batch"] > limits[x["layout"]] for x in fast)  # the frontier holds points past it: now left out


def test_a_pipelines_lone_sequence_passes_every_stage_in_the_rate_figure(rmav):
    """Llama 4 Maverick at tp 8 x pp 2: at no load one sequence decodes alone, one micro-batch, and each of its tokens
    passes both stages, so the rate figure's time per output token is two stages' reads, 2 N_g b / W, with N_g the
    slice one token's experts make of a GPU's (a review read one stage's 0.48 ms for DeepSeek-V3 at tp 8 x pp 2 beside
    the table's 0.997 ms); where two or more sequences fill the two micro-batches nothing changes."""
    r = rmav
    lead = r.envs[r.lead]
    assert lead.cut.pp == 2
    import numpy as np

    one = lead.weights_at(np.asarray([1.0]))
    w = float(lead.values["W"])
    rates = r.serving["techniques"]["rates"]["unchunked"]
    assert rates["rate"][0] == 0.0
    n_g, b = (float(np.ravel(one[k])[0]) for k in ("N", "b"))
    assert rates["tpot"][0] == pytest.approx(2 * n_g * b / w, rel=1e-9)
