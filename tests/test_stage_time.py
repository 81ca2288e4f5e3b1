"""A decode round's time on pipeline stages whose global layers fall unevenly (genreport.model.stages.time_share).

The time formulas take the busiest stage as ceil(L/pp) mean layers. Gemma 3 interleaves one global layer in six
with windowed ones (Gemma 3 1B: 26 layers, global layers 5, 11, 17 and 23; specs/models/gemma-3-1b.yaml, its Hugging
Face config's sliding_window_pattern 6), so at pp 4 (stages of 6, 7, 7 and 6 layers, vLLM's split) every stage
holds one global layer: seven mean layers would read 7 x 4/26 = 1.077 global layers' cache, more than any stage
reads, and the strict bound would claim more than any engine needs. Here each stage's HBM bytes are counted from its
own layers (stages.stage_parts), independently of the formulas, and the layout's HBM ledgers must not exceed them:
X (a GPU of the busiest stage before the last) at most a stage of ceil(L/pp) layers, X_L at most the last stage,
and the walk ((n_PP - r) X + X_L) / m at most the stages' sum over m (the final norm's d weights, which a mean layer
carries and the last stage holds, aside: a few bytes in a GB, below the last stage's head)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from genreport import evaluate
from genreport.formulas import architecture as arch
from genreport.formulas.compiled import load
from genreport.model import stages
from genreport.model.layout import point_values
from shared import ROOT
from test_stage_memory import _spec

# dense models with global and windowed layers, at pipeline degrees that divide their layers or are powers of two
CASES = [("gemma-3-1b", pp) for pp in (2, 4, 5, 8)] + [("gemma-3-27b", pp) for pp in (2, 4, 5, 8)] + [
    ("gemma-2-9b", pp) for pp in (2, 3, 6)] + [("gemma-2-27b", 4)]
BATCHES, CONTEXTS = (1.0, 8.0, 64.0), (4096.0, 32768.0, 131072.0)
TOL = 1e-9


def _exact_stage_bytes(r, batch, context, micro):
    """Each stage's HBM bytes on one of its GPUs in a decode round at (batch, context): ``micro`` streams of its weights
    (the first stage's embedding is a lookup; the last holds the head), B sequences' cache of its own layers, and
    their activations."""
    m, pp = r.spec.model, r.spec.parallelism.pp
    parts = stages.stage_parts(m, pp)
    b = 2.0  # bf16
    e = arch.kv_elements_per_token_layer(m) * 2.0  # one cached position of one layer
    w = float(m.attention.sliding_window)
    a = float(r.envs["exact"].card["a"])
    out = []
    for i, (g, n_w, n_c) in enumerate(parts.kinds):
        assert n_c == 0
        layers = g + n_w
        weights = (parts.attention[i] + parts.default[i] + parts.head[i]) * b
        cache = batch * e * (g * context + n_w * min(context, w))
        out.append(micro * weights + cache + batch * a * layers / m.layers)
    return np.asarray(out)


@pytest.mark.parametrize("model,pp", CASES)
def test_each_hbm_ledger_is_a_real_stages_and_the_walk_the_real_one(tmp_path, model, pp):
    r = evaluate(_spec(tmp_path, model, pp, contexts="4k, 32k, 128k"))
    m, q, W = r.spec.model, load(), r.spec.hardware.bandwidth
    sizes = stages.stage_layers(m.layers, pp)
    ceil_stages = [i for i, n in enumerate(sizes[:-1]) if n == max(sizes)]  # before the last, which has the head
    n_pp = m.layers / max(sizes)
    r_last = sizes[-1] * n_pp / m.layers
    for batch in BATCHES:
        for context in CONTEXTS:
            v = point_values(r.spec, "exact", "decode_time_memory_gpu", batch, context)
            micro = float(v["m_b"])  # the bound's micro-batches at this point (layout.fastest_schedule)
            real = _exact_stage_bytes(r, batch, context, micro)
            head = micro * m.vocab_size * m.hidden_size * 2.0
            norm = micro * m.hidden_size * 2.0  # the final norm: a mean layer carries its share, the last stage all
            at = lambda k, v=v: float(q["decode_time_memory_gpu"](dict(v, kappa_B=k))) * W  # noqa: E731
            x = at(v["kappa_B"])  # a GPU of the busiest stage: its own layers (the ledger the report shows)
            # X_L = r X + h at the last stage's own layers (formulas.parallel.at_last_stage, at_stage)
            x_last = r_last * at(v["kappa_L"]) + head
            walk = ((n_pp - r_last) * at(1.0) + r_last * at(1.0) + head) / micro  # every layer once, the mean's
            where = f"{model} pp {pp} at B {batch:g}, S {context:g}"
            busiest = max(real[i] for i in ceil_stages)
            assert busiest <= x <= busiest + norm, where  # exactly the busiest stage's (the norm's share aside)
            assert real[-1] - norm <= x_last <= real[-1] * (1 + TOL), where  # the last stage's
            assert walk == pytest.approx(real.sum() / micro, rel=1e-9), where  # the walk through every stage


def test_more_stages_never_speed_up_one_sequence(tmp_path):
    """A sequence alone walks every stage: at batch 1 a pipeline's round is at least one tensor-parallel group's (a
    review, stop 82: the walk at the lightest stage's share of global layers made Gemma 3 1B at tp 4 x pp 13 faster
    per user than tp 4 alone, and plan and the frontier ranked the pipelines first)."""
    ones = {pp: evaluate(_spec(tmp_path, "gemma-3-1b", pp, contexts="512, 32k")).parallel.decode["seed"]
            for pp in (1, 4, 9, 13)}
    for pp in (4, 9, 13):
        for j in range(2):
            assert ones[pp]["decode_time_bound"][0, j] >= ones[1]["decode_time_bound"][0, j] * (1 - 1e-12), (pp, j)
    # and a longer context costs the pipeline more, as it costs the one group (stages without a global layer
    # left the bound flat in the context)
    assert ones[9]["decode_time_bound"][0, 1] > ones[9]["decode_time_bound"][0, 0]


def test_gemma3_1b_at_pp4_takes_the_stage_of_seven_layers_with_one_global():
    """Every stage holds one global layer: the busiest stage's share is 1/7 (G / L = 4/26 would claim 1.077 global
    layers on it), and its HBM ledger is that stage's bytes exactly; at 128k the old mean over-claimed by 6%."""
    from pathlib import Path
    from tempfile import mkdtemp

    r = evaluate(_spec(Path(mkdtemp()), "gemma-3-1b", 4, contexts="128k"))
    m = r.spec.model
    assert stages.stage_layers(26, 4) == (6, 7, 7, 6)
    assert stages.stage_parts(m, 4).kinds == ((1, 5, 0), (1, 6, 0), (1, 6, 0), (1, 5, 0))
    assert stages.time_share(m, 4) == pytest.approx(1 / 7, rel=1e-15)
    assert stages.time_share(m, 1) is None and stages.time_share(m, 2) is None  # one stage; 13 + 13, two each
    q, W = load(), r.spec.hardware.bandwidth
    v = point_values(r.spec, "exact", "decode_time_memory_gpu", 64.0, 131072.0)
    x = float(q["decode_time_memory_gpu"](v)) * W
    assert v["m_b"] == 4.0  # at 128k the cache dominates: one micro-batch a stage, as vLLM runs it
    real = _exact_stage_bytes(r, 64.0, 131072.0, 4.0)
    assert x == pytest.approx(real[1] + 4 * 7 / 26 * 1152 * 2, rel=1e-12)  # and 7/26 of the final norm, 4 streams
    # the mean layers' claim: 7 x 4/26 global layers' cache on the stage, where it holds one
    e = arch.kv_elements_per_token_layer(m) * 2.0
    mean_cache = 64 * e * 7 * (4 / 26 * 131072 + 22 / 26 * 512)
    own_cache = 64 * e * (131072 + 6 * 512)
    assert mean_cache / own_cache == pytest.approx(1.07487, abs=1e-5)
    assert (x - own_cache + mean_cache) / real[1] > 1.06


def test_the_share_is_linear_in_a_mean_over_contexts():
    """at_share moves a mean of c over contexts (a request's rounds) as it moves each round's c: the request
    formulas take the mean c, so the share must commute with it."""

    from genreport.load.loader import load_model

    m = load_model(ROOT / "specs/models/gemma-3-27b.yaml")
    share = stages.time_share(m, 5)
    assert share == pytest.approx(2 / 13)
    s = np.arange(500.0, 40000.0, 37.0)
    full = arch.kv_bytes_per_token(m, 2.0)
    c = arch.kv_bytes_per_token_at(m, 2.0, s)
    each = stages.at_share(m, share, c, full)
    assert float(np.mean(s * each)) == pytest.approx(
        float(np.mean(s)) * stages.at_share(m, share, float(np.mean(s * c)) / float(np.mean(s)), full), rel=1e-12)
    assert stages.at_share(m, share, full, full) == full  # a context within the window: unchanged
    assert math.isclose(stages.at_share(m, None, 3.0, 5.0), 3.0)


def test_the_bound_takes_the_fastest_split_into_micro_batches(tmp_path):
    """vLLM runs a round of B sequences over pp stages as min(pp, B) micro-batches, each streaming every GPU's weights
    and the last stage's head once; fewer, larger micro-batches stream less and walk the stages in turn.  Gemma 3 1B
    at tp 1 x pp 4, batch 8, 512 tokens: its 262,144 x 1,152 head (604 MB in bf16) streamed four times made the bound
    1.11 ms, where two micro-batches need 0.61 ms (a review, stop 82).  The bound is the least over m = 1 .. 4
    (formulas.parallel.fastest_schedule); the serial estimate keeps vLLM's four and stays above it."""
    r = evaluate(_spec(tmp_path, "gemma-3-1b", 4, contexts="512, 32k"))
    q = load()
    v = point_values(r.spec, "exact", "decode_time_bound", 8.0, 512.0)
    rounds = [float(q["decode_time_bound"](dict(v, m_b=float(m)))) for m in (1, 2, 3, 4)]
    assert v["m_b"] == 2.0 and float(q["decode_time_bound"](v)) == min(rounds)
    assert rounds[3] == pytest.approx(1.113e-3, rel=1e-3) and min(rounds) == pytest.approx(0.613e-3, rel=1e-3)
    # the slice's HBM ledger (chapter 1) is the layout's at the same schedule: m_b streams of the slice
    assert value_at(r, "decode_time_memory", 8, 512) == pytest.approx(value_at(r, "decode_time_memory_gpu", 8, 512),
                                                                        rel=1e-12)
    assert value_at(r, "decode_time_serial", 8, 512) > value_at(r, "decode_time_bound", 8, 512)
    # at batch 1 there is one micro-batch whatever the engine; the longer the context, the more the caches (read once
    # however the round is split) outweigh the weights (read once a micro-batch), and the more micro-batches pay
    assert point_values(r.spec, "exact", "decode_time_bound", 1.0, 512.0)["m_b"] == 1.0
    assert [float(point_values(r.spec, "exact", "decode_time_bound", 64.0, s)["m_b"])
            for s in (512.0, 32768.0, 131072.0)] == [2.0, 3.0, 4.0]


def value_at(r, qid, batch, context):
    return next(e.value for e in r.entries if e.id == qid + "_exact" and e.params == {"batch": batch, "context": context})


@pytest.mark.parametrize("model,pp,tokens", [("gemma-3-1b", 4, 2048.0), ("gemma-3-1b", 4, 32768.0),
                                             ("gemma-2-9b", 3, 8192.0), ("gemma-3-27b", 5, 16384.0)])
def test_the_walk_through_the_stages_before_the_last_is_at_most_theirs(tmp_path, model, pp, tokens):
    """A prompt's pass takes the stages before the last as one group at their own mean attention (kappa_F) and the last
    at its own (kappa_L): the group's ledger, a max of sums, is at most the sum of its stages' ledgers, each at its own
    global layers (stages.stage_parts), whether they are bound by compute or by HBM.  The model's mean for the group, as
    before, gave the last stage's missing global layers to it, which passed the real sum where the two kinds of stage
    mix (a review, stop 82: by about 1e-4)."""
    from genreport.model.layout import at_prompt, point_base

    r = evaluate(_spec(tmp_path, model, pp, contexts="4k"))
    m, q = r.spec.model, load()
    base, lay, _ = point_base(r.spec, "exact")
    v = at_prompt(base, lay, tokens)
    sizes, parts = stages.stage_layers(m.layers, pp), stages.stage_parts(m, pp)
    x = arch.prefill_attended_fraction(m, tokens)

    def stage(kappa):  # a ceil(L/pp)-layer stage's ledger at a share kappa of the mean layer's attention
        return max(float(q[k](dict(v, kappa_B=kappa))) for k in
                   ("prefill_time_compute_gpu", "prefill_time_memory_gpu", "prefill_time_comm"))

    real = sum(n / max(sizes) * stage(stages.at_share(m, g / n, x, 1.0) / x)
               for (g, _, _), n in zip(parts.kinds[:-1], sizes[:-1], strict=True))
    group = (m.layers - sizes[-1]) / max(sizes) * stage(float(v["kappa_F"]))
    assert group <= real * (1 + 1e-12)
    # the pass is the group and the last stage: kappa_F and kappa_L conserve the model's global layers
    g_all = stages.layer_kinds(m).count("global")
    assert (m.layers - sizes[-1]) * float(v["kappa_F"]) + sizes[-1] * float(v["kappa_L"]) == pytest.approx(
        m.layers * 1.0, rel=1e-12) or g_all == 0
