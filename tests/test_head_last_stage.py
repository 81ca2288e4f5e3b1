"""An EAGLE/MTP head at a pipeline layout is the last stage's whole, not an even share of each stage.

The head's layer takes the hidden state the target's last layer hands it, so engines run it on the last pipeline rank
(vLLM's EAGLE and MTP proposers draft after the last stage's forward).  Its weights and its KV cache therefore take the
room of the last stage's GPUs, and the replica holds what its tighter stage holds: the last with the head, or the one
that binds without it.  Before: DeepSeek-V3 fp8 at tp 8 x pp 2 on 16 H100 (6 GiB kept; the review of stop 86) read
377 sequences beside one MTP layer, the head halved over two stages, where the last stage, which binds, holds fewer.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from genreport.formulas.compiled import load
from genreport.load.loader import load_report
from genreport.model import stages
from genreport.model.draft import of_spec, replica_capacity
from shared import SPECS as SPECS_DIR
from shared import spec_file

DSV3_PP2 = """\
kind: report
name: dsv3-h100-pp2-mtp
title: DeepSeek-V3 fp8 on 16 H100, tp 8 x pp 2, one MTP layer
hardware: h100-sxm
model: deepseek-v3
precision: fp8
parallelism: {tp: 8, pp: 2}
engine: {memory_reserve: 6 GiB}
workloads:
  decode: {batch: [1], context: [4k]}
  prefill: {prompt: [2k]}
serving:
  prompt: 2k
  output: 2k
  users: 64
  speculative: {draft_tokens: 1, acceptance: 0.85, draft_layers: 1}
"""


def _spec():
    return load_report(spec_file(DSV3_PP2, "dsv3-h100-pp2-mtp"))


def test_the_head_takes_the_last_stages_room():
    """By hand from the stage ledger: the last stage's room less its weights and the whole MTP layer on each of its
    8 GPUs, over the last stage's latent cache (30 of the 61 layers, 576 bytes a token each in fp8, every GPU its own
    copy) and the head's one layer's, per token of the 4,095-token context."""
    spec = _spec()
    s = float(spec.serving.prompt + spec.serving.output - 1)
    led = stages.ledger(spec.hardware, spec.model, spec.precision, 8, 2)
    assert led.kinds[-1][0] == 30 and led.binding(None) == 1  # the last stage: 30 layers, the head, the logits
    m_head, c_head = of_spec(spec).memory(load(), s, 8, 1.0)
    assert c_head == 576.0  # one MLA layer's latent and rope key, one byte each, on every GPU
    expected = math.floor((led.room[-1] - led.held[-1] - m_head) / ((30 * 576.0 + c_head) * s))
    plain, with_head, m_d, c_d = replica_capacity(spec, s)
    assert (m_d, c_d) == (m_head, c_head)
    assert with_head == expected < plain
    # the even split of the head over both stages (the rule before) leaves more than the last stage holds
    m_half, c_half = of_spec(spec).memory(load(), s, 8, 2.0)
    half = math.floor((led.room[-1] - led.held[-1] - m_half) / ((30 * 576.0 + c_half) * s))
    assert half > with_head


def test_the_tighter_stage_binds():
    """Where the head on the last stage leaves that stage more than the other stage holds without it, the other
    stage's capacity is the replica's (the minimum of the two), and it equals the capacity without the head."""
    spec = _spec()
    q = load()
    s = float(spec.serving.prompt + spec.serving.output - 1)
    led = stages.ledger(spec.hardware, spec.model, spec.precision, 8, 2)
    cv_first = {**_cv(spec, s), **led.stage(0)}
    first = float(q["capacity_batch_replica"](cv_first))
    _, with_head, _, _ = replica_capacity(spec, s)
    assert with_head <= first
    last = {**_cv(spec, s), **led.stage(1)}
    assert float(q["capacity_batch_replica"](last)) == pytest.approx(replica_capacity(spec, s)[0])


def _cv(spec, s):
    from genreport.model.env import make_env
    from genreport.model.layout import choose_links, held_at, layout_values

    env = make_env(spec.hardware, spec.model, spec.precision, spec.accounting)
    par = spec.parallelism
    base = layout_values(env.values, spec.model, par, choose_links(spec.hardware, par)[0], spec.precision,
                         spec.accounting, env.pc, kernels=spec.hardware.kernels, hw=spec.hardware)
    g = env.at(context=s)
    return dict(held_at(base, spec.hardware, spec.model, spec.precision, par, np.float64(s),
                        np.float64(np.ravel(g["c"])[0])), d_h=np.float64(np.ravel(g["d_h"])[0]))


def test_derive_counts_the_binding_stages_latent_layers(capsys):
    """``derive kv_bytes_per_token`` of DeepSeek-V3 at tp 8 x pp 2 (no serving block): the cache one GPU holds is the
    binding (last) stage's 30 layers' latents, 30 x 576 x 1 B = 17,280 B, the report's value, where the note counted
    the time slice's 31 layers and a line called the GQA form's 4.3 MB at d_h = 544 "not a number the report states"
    (the review of stop 86)."""
    from genreport.commands.cli import main

    text = DSV3_PP2[:DSV3_PP2.index("serving:")]
    assert main(["derive", "kv_bytes_per_token", "--spec", str(spec_file(text, "dsv3-h100-pp2"))]) == 0
    out = capsys.readouterr().out
    assert "c_g = L_b (r + rho) b_kv = 30 x 576 x 1 B on one GPU" in out and "c = 17280 B" in out
    assert "not a number the report states" not in out and "31 x 576" not in out


# Mixtral 8x22B in bf16 on 6 H100 (tp 2 x pp 3): 56 layers over 19, 19 and 18; the first stage binds without a head
# (its 19 layers and the embedding), the last with one (its 18 layers, the output head and the MTP layer): the review
# of this stop found derive, the KV cache room's ceiling and plan's free memory charging the head to the first stage
MIXTRAL_PP3 = """\
kind: report
name: mx-pp3-t
title: Mixtral 8x22B on 6 H100, tp 2 x pp 3, one MTP layer
hardware: h100-sxm
model: mixtral-8x22b
precision: bf16
parallelism: {tp: 2, pp: 3}
workloads:
  decode: {batch: [1, 8, 32], context: [1k, 8k]}
  prefill: {prompt: [512, 2k]}
serving:
  prompt: 2k
  output: 2k
  users: 32
  tpot: 50 ms
  ttft: 2 s
  speculative: {draft_tokens: 1, acceptance: 0.85, draft_layers: 1}
"""


def _derived(capsys, qid: str, path, results, *more) -> float:
    import re

    from genreport.commands.cli import main
    from shared import derive_reads

    derive_reads(path, results)
    assert main(["derive", qid, "--spec", str(path), *more]) == 0
    out = capsys.readouterr().out
    return float(re.findall(r"= ([0-9.e+-]+)(?: 1/s)?\n", out)[-1]), out


def test_derive_plan_and_the_ceilings_take_the_stage_the_head_binds(capsys):
    """By hand from the stage ledger at 4,095 tokens: stage 0 without the head holds (C_0 - w_0) / (c_0 S) = 179.0
    sequences; the last stage with the whole MTP layer (2.504 GB and 2,048 B a token on each of its GPUs)
    (C_2 - w_2 - M_d) / ((c_2 + c_d) S) = 178.8: the replica holds 178, the last stage binding.  derive's
    capacity_batch_draft said 155 (the head charged to stage 0), and the chapter's KV cache room's ceiling 2.02
    requests/s where derive, at the last stage's room, gives 2.28; now derive, the report and plan's free memory take
    the last stage's room."""
    from genreport.model.evaluate import evaluate

    path = spec_file(MIXTRAL_PP3, "mx-pp3-t")
    spec = load_report(path)
    q = load()
    s = 4095.0
    led = stages.ledger(spec.hardware, spec.model, spec.precision, 2, 3)
    assert [k[0] for k in led.kinds] == [19, 19, 18] and led.binding(None) == 0
    m_d, c_d = of_spec(spec).memory(q, s, 2, 1.0)
    c = 56 * 2 * 8 * 128 * 2 / 2  # the whole model's K and V, 8 KV heads of 128 at 2 bytes, over tp 2 (s_kv = 2)
    first = (led.room[0] - led.held[0]) / (c * 19 / 56 * s)
    last = (led.room[2] - led.held[2] - m_d) / ((c * 18 / 56 + c_d) * s)
    assert round(first, 1) == 179.0 and round(last, 1) == 178.8 and m_d == pytest.approx(2.504e9, rel=1e-3)
    plain, with_head, _, _ = replica_capacity(spec, s)
    assert (plain, with_head) == (179.0, 178.0)
    r = evaluate(spec, plans=False)
    n = r.serving["techniques"]["numbers"]
    assert n["capacity_with_draft"] == 178.0
    value, _ = _derived(capsys, "capacity_batch_draft", path, r)
    assert value == 178.0
    rate, out = _derived(capsys, "goodput_rate_capacity", path, r)
    assert rate == pytest.approx(n["goodput_rate_capacity"], rel=1e-5) and 2.2 < rate < 2.35, out
    # plan's free memory: the last stage's with the head and its cache, not stage 0's less the whole head
    from genreport.load.spec import Parallelism
    from genreport.model.draft import _replica_cv

    cv, par = _replica_cv(spec, s)
    options = of_spec(spec).stages(q, cv, par, (spec.model, spec.precision))
    assert len(options) == 2 and options[1]["C"] == led.room[2] and par == Parallelism(tp=2, pp=3)


def test_the_kv_cache_room_holds_the_binding_stages_cache():
    """DeepSeek-V3 at tp 8 x pp 2: the KV cache room's c_h is the last stage's 30 latent layers, 30 x 576 = 17,280 B
    a token on a GPU, not the time slice's 31 (17,856): the ceiling was 3% low, in the report and derive alike."""
    from genreport.model.evaluate import evaluate
    from genreport.model.techniques import held_room

    spec = _spec()
    r = evaluate(spec, plans=False)
    last = float(spec.serving.prompt + spec.serving.output - 1)
    lead = r.envs[r.lead]
    room = held_room(lead, {"N": 1.0, "b": 1.0, "C": 1.0, "c_h": 17_856.0}, last)
    assert float(np.ravel(lead.at(context=last)["c"])[0]) == 17_856.0
    assert room["c_h"] == 17_280.0


def test_the_serving_table_says_its_capacity_is_beside_the_draft():
    """A speculating spec's serving table decodes plainly, and the capacity below it is the one beside the draft: the
    sentence says so and gives the capacity without it (the review of this stop read "A replica holds 427 sequences"
    under "The rows decode plainly", where 462 fit without the head)."""
    import re

    from shared import evaluated, html

    n = evaluated("deepseek-v3-h200-ep8.yaml").serving["techniques"]["numbers"]
    assert n["capacity_plain"] > n["capacity_with_draft"]
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html("deepseek-v3-h200-ep8.yaml")))
    assert "The rows decode plainly" in text
    assert (f"A replica holds {n['capacity_with_draft']:,.0f} sequences of 5,119 tokens (1,320 over the 8 replicas) "
            f"beside the draft's weights and cache, {n['capacity_plain']:,.0f} without it") in text


def test_the_serial_estimate_runs_the_heads_passes_on_the_last_stage():
    """The bound divides the head's passes over all 16 GPUs of tp 8 x pp 2 (a lower bound however it is placed); the
    serial estimate, what engines pay, runs them on the 8 GPUs of the last stage that holds it: twice the time where
    a pass is memory-bound (one MTP layer at batch 8: its weights over 8 GPUs' bandwidth, not 16's).  A draft_cost
    stays a fraction of the plain round."""
    from genreport.model.serving import draft_time

    spec, q = _spec(), load()
    values = {"S": np.float64(4095.0), "n_TP": np.float64(8.0), "n_St": np.float64(2.0)}
    bound, serial = (float(draft_time(q, of_spec(spec), 1, values, np.asarray([8.0]), None, s)[0])
                     for s in (False, True))
    assert serial == pytest.approx(2 * bound, rel=1e-12)
    assert draft_time(q, 0.05, 1, values, np.asarray([8.0]), np.asarray([0.01]), True)[0] == pytest.approx(5e-4)


def test_derive_says_the_capacity_beside_the_draft_is_the_chapters(capsys):
    """derive capacity_batch_draft at a request's last context states the serving chapter's capacity beside the draft
    (results.json serving.techniques.numbers.capacity_with_draft) and says so; it printed no scope before."""
    from shared import evaluated

    r = evaluated("deepseek-v3-h200-ep8.yaml")
    value, out = _derived(capsys, "capacity_batch_draft", SPECS_DIR / "deepseek-v3-h200-ep8.yaml", r)
    assert value == r.serving["techniques"]["numbers"]["capacity_with_draft"]
    assert "scope: one replica's (1 GPU of tp 1 x pp 1 x ep 8 x dp 8), as the serving chapter states it" in out


def test_the_prefix_rows_count_takes_the_stage_the_head_binds(capsys):
    """DeepSeek-V3 fp8 at tp 8 x pp 2 x ep 8 on 16 H200 with one MTP layer and half of each prompt cached: the last
    stage (30 layers and the head) binds beside the head, 1,088 sequences of 4,607 tokens. The prefix row read 1,092 ->
    1,965, the head's bytes charged to the first stage (31 layers), which binds only without it; now its first count
    is the chapter's capacity beside the draft, its second the least over both stages with the prefix held once, and
    derive gives the row's count (stop 91's review, reviewer H)."""
    from genreport.commands.cli import main
    from shared import evaluated

    sets = ["parallelism.tp=8", "parallelism.pp=2", "parallelism.dp=1", "serving.prefix_hit=0.5", "serving.output=512"]
    r = evaluated("deepseek-v3-h200-ep8.yaml", sets)
    n = r.serving["techniques"]["numbers"]
    # (1,093 and 1,968 before each GPU held the MLA down-projections, norms and router whole: tests/test_tp_copies.py)
    assert n["prefix_capacity_before"] == n["capacity_with_draft"] == 1088
    assert n["prefix_capacity_after"] == 1958
    assert main(["derive", "prefix_capacity_batch", "--spec", str(SPECS_DIR / "deepseek-v3-h200-ep8.yaml"),
                 *(x for s in sets for x in ("--set", s))]) == 0
    assert "B_cap,h = 1958.27 (floor: 1958)" in capsys.readouterr().out
