"""The frontier figure and the serving chapter's cheapest layout with ``serving.speculative`` (issue 30).

Each layout's curve with speculative decoding is timed as ``plan --speculative`` times a batch where it speculates
(generator/model/serving.speculate and mean_speedup), its capacity beside a draft model is Draft.capacity's, and the
best point at the TPOT target is taken over both curves.  Without ``speculative`` the figure and the chapter are
those of before (the plain curves and frontiers do not move, the figure's bytes do not change).

The hand count: the expected tokens of one verify round of k drafts, each accepted with p, are
(1 - p^(k+1)) / (1 - p) (Leviathan, Kalman and Matias, "Fast Inference from Transformers via Speculative Decoding",
ICML 2023, equation 1; the issue's formula); where the verify round of llama70b-h100-tp8 stays memory-bound (it
reads the weights and each sequence's cache once, as a plain round does), the bound's speed-up is that over
1 + draft_cost.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools

import matplotlib
import pytest
from genreport.load.loader import load_report
from genreport.model.evaluate import evaluate
from genreport.model.plan import Shape, plan
from genreport.present import figures
from genreport.present.figures import style
from shared import ROOT, evaluated


def _words(r) -> str:
    """What the report says of figure 9: its caption (what is drawn, its key) and the chapter's words on it
    (fig10_frontier.frontier_text: the frontiers, speculation, the best point inside the TPOT target)."""
    from genreport.present.figures.fig10_frontier import frontier_text

    return figures.captions(r)["fig10-frontier"] + " " + frontier_text(r)

SPEC = "llama70b-h100-tp8.yaml"  # serving.speculative: 3 draft tokens, each accepted 80%, drafts 5% of a round
SPEC_LABELS = ("spec. frontier, estimate", "spec. frontier, bound")


@pytest.fixture(scope="module")
def r70():
    return evaluated(SPEC)


@pytest.fixture(scope="module")
def plain70(tmp_path_factory):
    """The same spec without its speculative block (the committed file, that line left out)."""
    text = (ROOT / "specs" / SPEC).read_text(encoding="utf-8")
    kept = [line for line in text.splitlines() if not line.strip().startswith("speculative:")]
    assert len(kept) == len(text.splitlines()) - 1
    path = tmp_path_factory.mktemp("plain") / "l70plain.yaml"
    path.write_text("\n".join(kept).replace(f"name: {SPEC[:-5]}", "name: l70plain") + "\n", encoding="utf-8")
    return evaluate(load_report(path))


def _own(f):
    return next(x for x in f["layouts"] if x["titled"])


def test_the_spec_states_what_the_hand_count_takes(r70):
    sp = r70.spec.serving.speculative
    assert (sp.draft_tokens, sp.acceptance, sp.draft_cost, sp.verified, sp.draft) == (3, 0.8, 0.05, 4, None)


def test_a_point_by_hand_and_as_plan_and_the_lever_row_give_it(r70):
    """tp8 at the table's 128 users: the bound's speed-up is E / (1 + 0.05), E = (1 - 0.8^4) / 0.2 = 2.952 (the verify
    round memory-bound there); at 128 and at the chapter's busiest batch (256, the engine's max_sequences: the TPOT
    target allows the 313 that fit) TPOT and tok/s per GPU with speculation are plan --speculative's at the same
    layout and batch, and at 256 tok/s per GPU is the lever row's."""
    f = r70.serving["frontier"]
    own = _own(f)
    sp = own["speculative"]
    assert sp["batch"] == own["batch"]  # a draft_cost takes no memory: the same batches
    users, busiest = (row["batch"] for row in r70.serving["rows"][1:])
    assert (users, busiest) == (128, 256)
    k, kp = own["batch"].index(users), sp["batch"].index(users)
    e = (1 - 0.8**4) / (1 - 0.8)
    assert e == pytest.approx(2.952, rel=1e-12)
    assert sp["bound"]["speedup"][kp] == pytest.approx(e / 1.05, rel=1e-9)
    assert sp["bound"]["tpot"][kp] == pytest.approx(own["bound"]["tpot"][k] * 1.05 / e, rel=1e-9)
    assert sp["bound"]["tokens_per_s_gpu"][kp] == pytest.approx(own["bound"]["tokens_per_s_gpu"][k] * e / 1.05,
                                                                rel=1e-9)
    spec = r70.spec
    sv = spec.serving
    for b in (users, busiest):
        kp = sp["batch"].index(b)
        for est in ("bound", "serial"):
            found = plan(spec.model, spec.hardware, b, sv.prompt + sv.output - 1, None, ("bf16",), 8, spec.accounting,
                         est, shape=Shape(sv.prompt, sv.output), speculative=(3, 0.8, 0.05, 4))
            row = next(x for x in found.rows if (x.tp, x.pp, x.ep, x.dp) == (8, 1, 1, 1))
            assert row.batch == b and row.speculative == "on"
            assert sp[est]["tpot"][kp] == pytest.approx(row.tpot, rel=1e-12)
            assert sp[est]["tokens_per_s_user"][kp] == pytest.approx(1 / row.tpot, rel=1e-12)
            assert sp[est]["tokens_per_s_gpu"][kp] == pytest.approx(row.tokens_per_s_gpu, rel=1e-12)
            assert sp[est]["speedup"][kp] == pytest.approx(row.spec_speedup, rel=1e-12)
    lever = next(x for x in r70.serving["techniques"]["rows"] if x["technique"] == "speculative decoding")
    assert r70.serving["techniques"]["batch"] == busiest
    assert sp["bound"]["tokens_per_s_gpu"][sp["batch"].index(busiest)] == pytest.approx(lever["per_gpu"][1], rel=1e-12)
    # and its TPOT: the plain round at the last context over the speed-up there, as plan's (one function,
    # serving.speculative_request); tok/s per GPU the plain one times the speed-up at the mean context
    n = r70.serving["techniques"]["numbers"]
    kb = sp["batch"].index(busiest)
    assert sp["bound"]["tpot"][kb] == pytest.approx(lever["tpot"][1], rel=1e-12)
    assert sp["bound"]["speedup"][kb] == pytest.approx(n["speedup_last"], rel=1e-12)
    assert lever["tpot"][1] == pytest.approx(lever["tpot"][0] / n["speedup_last"], rel=1e-12)
    assert lever["per_gpu"][1] == pytest.approx(lever["per_gpu"][0] * n["speedup_mean"], rel=1e-12)


def test_nothing_accepted_nothing_drafted_changes_nothing():
    """The limit: acceptance 0 (E = 1 token a verify round) and drafts that take no time, on one GPU at batch 1,
    where the verify round reads the weights and the cache once, as a plain round does, and stays memory-bound: the
    speed-up is 1 at both contexts, so TPOT, tok/s per user and per GPU are plain decode's (Llama 3.1 8B in bf16
    on one H100 SXM)."""
    from genreport.load.spec import Parallelism
    from genreport.model.serving import curve

    spec = evaluated("llama8b-h100.yaml").spec
    c = curve(spec.model, spec.hardware, spec.precision, Parallelism(), [1.0], 4096, 512, spec.accounting,
              speculative=(3, 0.0, 0.0, 4))
    for est in ("bound", "serial"):
        assert c[f"spec_speedup_{est}"][0] == pytest.approx(1.0, rel=1e-12)
        assert c[f"spec_speedup_mean_{est}"][0] == pytest.approx(1.0, rel=1e-12)
        for key in ("tpot", "tokens_per_s_user", "tokens_per_s_gpu"):
            assert c[f"spec_{key}_{est}"][0] == pytest.approx(c[f"{key}_{est}"][0], rel=1e-12)


def test_speculative_frontiers_dominate_and_the_bound_stays_a_bound(r70):
    f = r70.serving["frontier"]
    for est in ("bound", "serial"):
        pts = [(x, y) for row in f["layouts"] for x, y in zip(row["speculative"][est]["tokens_per_s_user"],
                                                             row["speculative"][est]["tokens_per_s_gpu"], strict=True)]
        front = [(p["tokens_per_s_user"], p["tokens_per_s_gpu"]) for p in f["pareto_speculative"][est]]
        assert front and all(p in pts for p in front)
        for x, y in pts:
            assert any(fx >= x and fy >= y for fx, fy in front)
    for row in f["layouts"]:  # the bound's verify round and drafts never slower than the estimate's
        sp = row["speculative"]
        for a, b in zip(sp["bound"]["tpot"], sp["serial"]["tpot"], strict=True):
            assert a <= b * (1 + 1e-12)
    # the best at the target over both curves: the larger of the two curves' bests, and it says which
    theta = f["tpot_target"]
    for est in ("bound", "serial"):
        best, plain = f["best_at_target"][est], f["best_at_target_plain"][est]
        assert best["tokens_per_s_user"] >= 1 / theta and best["tokens_per_s_gpu"] >= plain["tokens_per_s_gpu"]
        spec_best = max((p for p in f["pareto_speculative"][est] if p["tokens_per_s_user"] >= 1 / theta),
                        key=lambda p: p["tokens_per_s_gpu"])
        assert best["speculative"] == (spec_best["tokens_per_s_gpu"] > plain["tokens_per_s_gpu"])
    assert f["best_at_target"]["serial"]["speculative"] is True  # 2.8x at a memory-bound verify: it wins here


def test_past_the_break_even_the_curve_shows_the_cost():
    """A verify round of 64 tree tokens (Medusa's default tree) at acceptance 0.3: at batch 1 the bound's speed-up
    is E / 1.05, E = (1 - 0.3^4) / 0.7 = 1.417; within a few sequences the 64 B verify tokens make the round
    compute-bound and the curve falls below the plain one (speed-up under 1), so the best at the target and the
    cheapest layout do without speculation, and the caption names the lever row's break-even batch."""
    r = evaluated(SPEC, ["serving.speculative.acceptance=0.3", "serving.speculative.verify_tokens=64"])
    f = r.serving["frontier"]
    own = _own(f)
    sp = own["speculative"]
    e = (1 - 0.3**4) / (1 - 0.3)
    assert sp["batch"][0] == 1 and sp["bound"]["speedup"][0] == pytest.approx(e / 1.05, rel=1e-9)
    assert sp["serial"]["speedup"][0] > 1
    k = sp["batch"].index(8)
    assert sp["bound"]["speedup"][k] < 1 and sp["serial"]["speedup"][k] < 1
    for est in ("bound", "serial"):
        past = [i for i, x in enumerate(sp[est]["speedup"]) if x < 1]
        for i in past:  # a cost: fewer tokens per GPU and per user than the plain curve at the same batch
            j = own["batch"].index(sp["batch"][i])
            assert sp[est]["tokens_per_s_gpu"][i] < own[est]["tokens_per_s_gpu"][j]
            assert sp[est]["tokens_per_s_user"][i] < own[est]["tokens_per_s_user"][j]
    assert f["best_at_target"]["serial"]["speculative"] is False
    assert r.serving["cheapest"]["speculative"] == ""  # plan without --speculative is as cheap or cheaper
    be = r.serving["techniques"]["numbers"]["breakeven_batch"]
    assert be == 7 and "speculating stops paying at batch 7 per replica" in _words(r)


def test_a_draft_models_memory_shrinks_the_speculative_curve():
    """A draft model's weights and KV cache take room on every layout (Draft.capacity, plan's): the titled layout's
    speculative curve stops at the chapter's capacity beside the draft, the plain one at the capacity without, each
    no further than the engine's max_sequences (256, vLLM's max_num_seqs default) runs at once."""
    r = evaluated(SPEC, ["serving.speculative.draft_model=llama-3.2-1b"])
    f = r.serving["frontier"]
    own = _own(f)
    cap = own["speculative"]["capacity_batch"]
    assert cap == r.serving["capacity_batch"] < own["capacity_batch"]
    assert own["speculative"]["batch"][-1] == own["speculative"]["batch_limit"] == min(cap, 256)
    assert own["batch"][-1] == own["batch_limit"] == min(own["capacity_batch"], 256)
    assert f["speculative"]["draft"] == r.spec.serving.speculative.draft.title
    assert "holds" in _words(r) and f"{cap:,} sequences" in _words(r)


def test_without_speculative_nothing_moves(r70, plain70):
    """The plain curves, frontiers and best are the same with and without the speculative block; the figure of
    the spec without it is byte for byte the figure of the speculative spec's numbers with their speculative parts
    taken out (wide and narrow), and neither it nor its caption names speculation."""
    f, g = r70.serving["frontier"], plain70.serving["frontier"]
    assert not {"speculative", "pareto_speculative", "best_at_target_plain", "frontier_layouts_speculative"} & set(g)
    assert all("speculative" not in x for x in g["layouts"])
    stripped = copy.deepcopy(f)
    for key in ("speculative", "pareto_speculative", "best_at_target_plain", "frontier_layouts_speculative"):
        stripped.pop(key)
    for row in stripped["layouts"]:
        row.pop("speculative")
    stripped["best_at_target"] = {k: {a: b for a, b in v.items() if a != "speculative"}
                                  for k, v in f["best_at_target_plain"].items()}
    assert stripped == g
    assert plain70.serving["cheapest"]["speculative"] == ""  # plan without --speculative
    as_plain = dataclasses.replace(r70, serving={**r70.serving, "frontier": stripped})
    for narrow in (False, True):
        drawn = figures.draw("fig10-frontier", plain70, None, narrow)
        assert figures.draw("fig10-frontier", as_plain, None, narrow) == drawn
        assert not any(label.encode() in drawn for label in (*SPEC_LABELS, b"with speculation".decode()))
    assert "speculat" not in figures.captions(plain70)["fig10-frontier"]


@pytest.mark.parametrize("narrow", [False, True], ids=["wide", "narrow"])
@pytest.mark.parametrize("spec", [SPEC, "deepseek-v3-h200-ep8.yaml"])
def test_the_figure_names_the_speculative_curves_and_its_labels_read(spec, narrow):
    """The committed specs that declare speculation: the legend names the speculative frontiers and the report's
    layout with speculation, no two texts overlap and every text is on the canvas (tests/test_figure_labels.py's
    rules)."""
    r = evaluated(spec)
    with matplotlib.rc_context(figures.RC), style.layout(narrow):
        fig = figures.DRAWERS["fig10-frontier"](r, None)
    legend = [t.get_text() for lg in fig.legends for t in lg.get_texts()]
    own = r.serving["frontier"]["titled"]
    for label in (*SPEC_LABELS, f"{own} with speculation", "frontier, estimate", "frontier, bound"):
        assert label in legend, (label, legend)
    boxes = style.text_boxes(fig)
    assert [(a, b) for (a, ba), (b, bb) in itertools.combinations(boxes, 2) if ba.overlaps(bb)] == []
    for text, bb in boxes:
        assert bb.x0 >= -1 and bb.x1 <= fig.bbox.x1 + 1 and bb.y0 >= -1 and bb.y1 <= fig.bbox.y1 + 1, text


def test_the_caption_and_the_chapter_say_which_wins(r70):
    f = r70.serving["frontier"]
    cap = _words(r70)
    best, plain = f["best_at_target"]["serial"], f["best_at_target_plain"]["serial"]
    assert f"{best['layout']} at batch {best['batch']:,} with speculative decoding" in cap
    assert f"without it {plain['layout']} at batch {plain['batch']:,}" in cap
    assert "3 draft tokens, each accepted 80%, the drafts 5% of a plain round" in cap
    assert "a bound given the acceptance" in cap
    cheapest = r70.serving["cheapest"]
    assert cheapest["speculative"] == "on" and cheapest["tpot"] < cheapest["tpot_plain"]


def test_a_pipelines_verify_round_keeps_each_sequences_tokens_together():
    """Mixtral 8x7B in bf16 on 4 H100, k = 1 draft token accepted 85% (E = 1.85), free drafts.  A verify round runs
    n_v = 2 tokens of each sequence, and a sequence's tokens go through the pipeline together: at pp 4 and batch 1
    the one micro-batch carries 2 tokens and reads the experts 2 tokens touch, as tensor parallelism's one step does.
    The micro-batch was counted n_v B / min(pp, n_v B) tokens, 1 token at batch 1 to 4 (a review, DeepSeek-V3 with
    MTP on 8 H200: pp 8 "speeds up" 1.84x at batch 1-4 where tp 8 gives 1.18x, and falls to 1.20x at batch 8).
    The speed-ups as the lever row and the frontier take them (serving.speculate at the layout), from the spec alone."""
    import numpy as np
    from genreport.model.draft import speculative_inputs
    from genreport.model.layout import at_batch
    from genreport.model.serving import speculate
    from genreport.model.techniques import layout_inputs
    from shared import spec_file

    def speedups(par):
        text = ("kind: report\nname: mx\ntitle: t\nhardware: h100-sxm\nmodel: mixtral-8x7b\nprecision: bf16\n"
                f"parallelism: {par}\nworkloads:\n  decode: {{batch: [1, 32], context: [2k]}}\n"
                "serving:\n  prompt: 1k\n  output: 1k\n  tpot: 50 ms\n  users: 32\n"
                "  speculative: {draft_tokens: 1, acceptance: 0.85, draft_cost: 0.0}\n")
        spec = load_report(spec_file(text, f"mx{par[1:3]}.yaml"))
        _, q, _, lay, _, read = layout_inputs(spec, 2047.0, 2047.0)
        batches = np.arange(1.0, 17.0)
        plain = np.asarray(q["decode_time_bound"](at_batch(read, lay, batches, busiest=False)), dtype=float)
        return lay, read, [float(x) for x in speculate(q, lay, read, batches, plain, speculative_inputs(spec), False)[0]]

    (lay, read, pp4), (_, _, tp4) = speedups("{pp: 4}"), speedups("{tp: 4}")
    assert pp4[0] == pytest.approx(tp4[0], rel=1e-3) and pp4[0] < 1.85 / 1.5  # 2 tokens read ~2 experts' worth more
    # batch 1-3: one sequence a micro-batch, its 2 tokens, the walk through the 4 stages sets the round; at batch 4
    # the last stage's own four passes, each with the output head (formulas.parallel.at_last_stage), set it
    assert pp4[:3] == pytest.approx([pp4[0]] * 3, rel=1e-9)
    assert all(b >= a - 1e-9 for a, b in itertools.pairwise(pp4))  # no step down where n_v B passes pp
    for b in (1.0, 3.0, 4.0, 8.0):  # a micro-batch of B / min(4, B) sequences, 2 tokens each
        verify = at_batch(read, lay, b, per_sequence=2.0)
        assert (verify["N"], verify["N_x"]) == lay.read(2.0 * b / min(4.0, b))
        assert verify["B"] == b
