"""A mixture of experts' chunked steady state on the two-point law (techniques.steady_weights): a share
p = m / (s_c - B) of the steps carries a full budget of s_c tokens beside their B decode tokens, the others none, m the
prompt tokens a step carries on average (Little's law).  The experts a step touches are concave in its tokens, so no
law of the prompt tokens over the steps with that mean reads fewer on average (the chord): the TPOT, capacity and
engine ceilings stay upper bounds on the rate.  Spreading the prompt tokens evenly over every step (before) read more
and was not one.  Over pipeline stages the round's weights follow its micro-batches (not concave): the spread stays.

Facts: Qwen3-30B-A3B's shapes (specs/models/qwen3-30b-a3b.yaml, its config.json: 128 experts, 8 a token), the H100
SXM's 3.35 TB/s (specs/hardware/h100-sxm.yaml, NVIDIA's datasheet), vLLM's default 8,192-token step budget.
"""

from __future__ import annotations

import numpy as np
import pytest
from shared import MAVERICK_TWO_NODES, evaluated, evaluated_text

QWEN = """\
kind: report
name: qwchord
title: Qwen3 30B-A3B on one H100, served
hardware: h100-sxm
model: qwen3-30b-a3b
precision: bf16
serving: {prompt: 8k, output: 64, ttft: 2 s, tpot: 20 ms}
workloads:
  decode: {batch: [1, 64], context: [8k]}
"""


def _n(r, tokens: float) -> tuple[float, float, float]:
    g = r.envs[r.lead].at(batch=max(float(tokens), 1.0))
    return tuple(float(np.ravel(g[k])[0]) for k in ("N", "N_e", "b"))


def _chord(r, decode: float, prompt: float) -> tuple[float, float]:
    """(the two-point law's bytes a step streams, the even spread's), by hand."""
    room = 8192 - decode
    p = prompt / room
    (n0, e0, b0), (n1, e1, b1), (ns, es, bs) = _n(r, decode), _n(r, decode + room), _n(r, decode + prompt)
    return (1 - p) * (n0 - e0) * b0 + p * (n1 - e1) * b1, (ns - es) * bs


def test_the_tpot_ceiling_streams_the_chord_and_meets_the_target_there():
    """Qwen3-30B-A3B on one H100, 8k prompts, 64 tokens out, a 20 ms TPOT: at the TPOT ceiling lam a step carries
    lam theta 63 decode tokens and lam theta 8,192 prompt tokens; on the two-point law it streams 25.2B parameters
    (bf16) on average, against 30.5B (every expert) with the prompt tokens spread over every step, and the steady
    step at lam with those weights is the 20 ms target.  The ceiling 16.1 requests/s (5.80 spread) is past the compute
    roof, which binds the goodput."""
    r = evaluated_text(QWEN, "qwchord")
    t, sv = r.serving["techniques"], r.spec.serving
    n = t["numbers"]
    lam = n["goodput_rate_tpot"]
    decode, prompt = lam * 0.02 * 63, lam * 0.02 * 8192
    chord, spread = _chord(r, decode, prompt)
    w = t["tpot_weights"]
    assert (w["N"] - w["N_e"]) * w["b"] == pytest.approx(chord, rel=1e-12)
    assert w["N"] / 1e9 == pytest.approx(25.18, abs=0.01) and spread / 2 / 1e9 == pytest.approx(30.5, abs=0.01)
    assert chord < 0.83 * spread
    from genreport.model.techniques import _inputs

    env = {**_inputs(r, t["batch"], sv.prompt + sv.output - 1), **w, "lam": lam}
    at_mean = _inputs(r, t["batch"], sv.prompt + sv.output / 2)
    env.update(c=at_mean["c"], d_h=at_mean["d_h"])
    assert float(r.q["steady_step_time"](env)) == pytest.approx(0.02, rel=1e-9)  # the fixed point meets theta
    assert lam == pytest.approx(16.08, abs=0.01)
    assert n["goodput_binds"] == "compute roof" and n["goodput_rate"] == n["goodput_rate_compute"] < lam
    # the capacity ceiling: B_h sequences running at the mean context, B_h 8,192 / 63 prompt tokens a step
    held = t["rates"]["held_sequences_mean"]
    chord, spread = _chord(r, held, held * 8192 / 63)
    c = t["capacity_weights"]
    assert (c["N"] - c["N_e"]) * c["b"] == pytest.approx(chord, rel=1e-12) and chord < spread
    # the rate figure's chunked curve takes the same law: its step at the TPOT ceiling is the target
    ch = t["rates"]["chunked"]
    k = int(np.searchsorted(ch["rate"], lam))
    assert ch["tpot"][k - 1] <= 0.02 * (1 + 1e-9)


def test_a_pipeline_and_a_dense_model_keep_the_spread():
    """Llama 4 Maverick over two stages (tests/shared.py): a round's weights follow its micro-batches, so the TPOT
    ceiling's weights are those of lam theta (T_out - 1 + T_in) tokens spread over the rounds, as before; Llama 3.1 70B
    (dense, one stage): every step streams the slice, whatever the law."""
    r = evaluated_text(MAVERICK_TWO_NODES, "svmav")
    t, sv = r.serving["techniques"], r.spec.serving
    lam = t["numbers"]["goodput_rate_tpot"]
    tokens = lam * sv.tpot * (sv.output - 1 + sv.prompt)
    want = r.envs[r.lead].at(batch=tokens, context=float(sv.prompt + sv.output - 1))
    assert t["tpot_weights"]["N"] == float(np.ravel(want["N"])[0])
    dense = evaluated("llama70b-h100-tp8.yaml", ["serving.tpot=30 ms"])
    held = float(np.ravel(dense.envs[dense.lead].values["N"])[0])
    assert all(dense.serving["techniques"][k]["N"] == held for k in ("tpot_weights", "capacity_weights"))


def test_the_law_and_its_limits():
    """steady_weights on numbers: no prompt tokens give the decode tokens' weights, no room for the two-point law
    (stages) the spread; a prompt share past the room takes every step full, and no room beside the decode tokens is
    that share's limit, the decode tokens' weights (a review found N jumping up to the spread there, where the TPOT
    ceiling's bisection then stopped on the jump: 2.11 requests/s returned for Qwen3-30B-A3B with 16-token budgets,
    whose weights at that rate give 1.57); mixed formats (b differs at the two points): N and N_e the law's mean
    parameters, (N - N_e) b its mean bytes."""
    from genreport.model.techniques import steady_weights

    def weigh(t):  # a concave N, b falling as more experts of 1 byte are read beside 2-byte dense weights
        t = np.asarray(t, dtype=float)
        experts = 100.0 * (1 - (1 - 0.05) ** np.maximum(t, 1.0))
        return {"N": 50.0 + experts, "N_e": np.full(t.shape, 10.0), "b": (100.0 + experts) / (50.0 + experts)}

    def streamed(w):
        return float((w["N"] - w["N_e"]) * w["b"])

    spread = weigh(np.float64(30.0))
    assert streamed(steady_weights(weigh, 10.0, 0.0, 90.0)) == streamed(weigh(np.float64(10.0)))
    assert streamed(steady_weights(weigh, 10.0, 20.0, 0.0)) == streamed(weigh(np.float64(10.0)))
    assert streamed(steady_weights(weigh, 10.0, 20.0, -5.0)) == streamed(weigh(np.float64(10.0)))
    assert streamed(steady_weights(weigh, 10.0, 20.0, 1e-9)) == pytest.approx(streamed(weigh(np.float64(10.0))))
    assert streamed(steady_weights(weigh, 10.0, 20.0, np.nan)) == streamed(spread)
    w = steady_weights(weigh, 10.0, 20.0, 90.0)
    p = 20.0 / 90.0
    a, f = weigh(np.float64(10.0)), weigh(np.float64(100.0))
    assert streamed(w) == pytest.approx((1 - p) * streamed(a) + p * streamed(f), rel=1e-14)
    assert streamed(w) < streamed(spread)
    assert float(w["N"]) == pytest.approx(float((1 - p) * a["N"] + p * f["N"]), rel=1e-14) and float(w["N_e"]) == 10.0
    full = steady_weights(weigh, 10.0, 200.0, 90.0)  # more prompt tokens than a step holds: every step full
    assert streamed(full) == pytest.approx(streamed(f), rel=1e-14)
    # fewer than one decode token: a step reads one token's weights at least (weigh's floor), so the envelope's left
    # point is one token, not the 0.25 the steps hold on average (a chord from 0.25 at one token's height lies above
    # a one-token step's own weights: not the least)
    from_quarter = streamed(one := weigh(np.float64(1.0))) + (streamed(weigh(np.float64(90.25))) - streamed(one)) * 0.75 / 90
    assert from_quarter > streamed(one)
    assert streamed(steady_weights(weigh, 0.25, 0.75, 90.0)) == pytest.approx(streamed(one), rel=1e-14)
    few = steady_weights(weigh, 0.25, 5.0, 90.0)
    q = (5.0 - 0.75) / (90.0 - 0.75)
    wide = weigh(np.float64(90.25))
    assert streamed(few) == pytest.approx((1 - q) * streamed(one) + q * streamed(wide), rel=1e-14)
    assert streamed(few) <= streamed(weigh(np.float64(5.25)))
    assert streamed(steady_weights(weigh, 0.25, 0.5, 90.0)) == pytest.approx(streamed(one), rel=1e-14)  # under one
    arr = steady_weights(weigh, np.array([10.0, 10.0]), np.array([20.0, 0.0]), np.array([90.0, 90.0]))
    assert streamed({k: v[0] for k, v in arr.items()}) == pytest.approx(streamed(w), rel=1e-14)


def test_derive_states_the_chapters_ceiling_and_says_the_law(capsys):
    """``derive goodput_rate_tpot --spec`` takes the chapter's weights (the two-point law's mean) and says so."""
    from genreport.commands.cli import main
    from shared import spec_file

    r = evaluated_text(QWEN, "qwchord")
    assert main(["derive", "goodput_rate_tpot", "--spec", str(spec_file(QWEN, "qwchord"))]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ("N the weights a step streams on average at this rate, its own decode tokens' in every step and the "
            "prompt tokens' in whole budgets on a share of the steps") in out
    value = float(out.split("lambda_theta = ")[-1].split()[0])
    assert value == pytest.approx(r.serving["techniques"]["numbers"]["goodput_rate_tpot"], rel=1e-4)


@pytest.mark.parametrize("output", [512, 2048])
def test_the_tpot_ceiling_is_a_fixed_point_where_the_decode_tokens_fill_the_budget(output):
    """Qwen3-30B-A3B with a 16-token step budget at a 20 ms TPOT: past the rate whose decode tokens fill the budget,
    lam = s_c / (theta (T_out - 1)), no prompt rides along; the weights there are the decode tokens' (the full
    share's limit), so the TPOT ceiling is a rate whose own steady step streams the weights it states (it returned
    2.11 requests/s at 512 out, at whose decode tokens the step streamed other weights), and the chunk budget binds
    the goodput below it."""
    from genreport.model.techniques import _steady_room, _weigh_lead, steady_weights

    r = evaluated_text(QWEN, "qwchord", ["serving.chunk=16", f"serving.output={output}"])
    t, sv = r.serving["techniques"], r.spec.serving
    n = t["numbers"]
    lam = n["goodput_rate_tpot"]
    lead = r.envs[r.lead]
    decode = lam * 0.02 * (output - 1)
    again = steady_weights(_weigh_lead(lead, float(sv.prompt + sv.output - 1)), decode, lam * 0.02 * 8192,
                           _steady_room(lead, sv, decode))
    assert float(again["N"]) == pytest.approx(t["tpot_weights"]["N"], rel=1e-9)
    assert n["goodput_binds"] == "chunk budget" and n["goodput_rate"] < lam
