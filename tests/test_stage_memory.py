"""The memory of each pipeline stage (genreport.model.stages): the stage that holds the fewest tokens sets what a
replica holds, not the even split L / n_PP the time formulas take.

Hand counts from the models' shapes (specs/models/*.yaml, their Hugging Face configs): Llama 3.1 70B (80 layers of
855,654,400 parameters, a 128,256 x 8192 embedding and an untied head), Gemma 3 27B (62 layers, every sixth global,
the others a 1,024-token window; a tied 262,208 x 5,376 embedding), DeepSeek-V3 (61 layers, the first three dense)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from genreport import evaluate
from genreport.formulas.architecture import parameter_count
from genreport.load.loader import _precision, load_hardware, load_model, load_report
from genreport.load.spec import Parallelism
from genreport.model import stages
from genreport.model.env import usable_at
from shared import ROOT

SPEC = """\
kind: report
name: stages
title: pipeline stages
hardware: {hw}
model: {model}
precision: {precision}
parallelism: {{tp: {tp}, pp: {pp}}}
workloads:
  decode:
    batch: [1, 8]
    context: [{contexts}]
"""


def _spec(tmp_path, model, pp, tp=1, hw="h100-sxm", precision="bf16", contexts="4k, 128k"):
    path = tmp_path / f"{model}-{tp}x{pp}.yaml"
    path.write_text(SPEC.format(model=model, pp=pp, tp=tp, hw=hw, precision=precision, contexts=contexts),
                    encoding="utf-8")
    return load_report(path)


def _entry(r, qid, **params):
    return next(e.value for e in r.entries if e.id == qid and e.params == params)


def test_llama70b_first_and_last_stages_hold_the_embedding_and_the_head():
    """pp 4: every stage 20 layers; the first adds the embedding, the last the head and the final norm: 18,163,761,152
    and 18,163,769,344 parameters where an even split gives 17,638,426,624."""
    m, hw = load_model(ROOT / "specs/models/llama-3.1-70b.yaml"), load_hardware(ROOT / "specs/hardware/h100-sxm.yaml")
    led = stages.ledger(hw, m, _precision("bf16"), tp=1, pp=4)
    layer, vd = 855_654_400, 128256 * 8192
    assert [h / 2 for h in led.held] == [20 * layer + vd, 20 * layer, 20 * layer, 20 * layer + vd + 8192]
    assert led.held[0] / 2 == 18_163_761_152
    assert led.flat / 2 == parameter_count(m).total == 80 * layer + 2 * vd + 8192
    # the last stage computes the logits: its room is max_sequences x V x 4 B less than the others'
    assert led.room[0] - led.room[3] == hw.max_sequences * 128256 * 4
    v = led.values()
    assert int(led.binding()) == 3 and v["n_PW"] == led.flat / led.held[3] and v["n_PK"] == 4.0


def test_one_stage_is_the_card_exactly():
    m, hw = load_model(ROOT / "specs/models/gemma-3-27b.yaml"), load_hardware(ROOT / "specs/hardware/h100-sxm.yaml")
    v = stages.stage_values(hw, m, _precision("bf16"), Parallelism(tp=2))
    assert v["n_PW"] == 1.0 and v["n_PK"] == 1.0
    led = stages.ledger(hw, m, _precision("bf16"), tp=2, pp=1)
    assert led.held == (led.flat,)  # a tied embedding is held once on one stage


def test_gemma3_27b_holds_18_sequences_of_128k_at_pp4_not_the_even_splits_21(tmp_path):
    """Stages of 15, 16, 16 and 15 layers (vLLM's split); the global layers 5, 11, ..., 59 fall 2, 3, 2, 3 on them.  At 131,072
    tokens a global layer holds the whole context and a windowed one 1,024 positions.  The last stage holds 3 global
    and 12 windowed layers, the tied embedding's copy as its head, and computes the logits: it binds, 18 sequences of
    3 x 131,072 + 12 x 1,024 positions (8 KiB each: 16 KV heads of 128, K and V in bf16).  The even split (n_PP = 62/16,
    the whole model's cache and weights over it, the room of a stage without the logits) claimed 21."""
    m = load_model(ROOT / "specs/models/gemma-3-27b.yaml")
    kinds = stages.layer_kinds(m)
    assert [i for i, k in enumerate(kinds) if k == "global"] == list(range(5, 62, 6))
    assert stages.stage_layers(62, 4) == (15, 16, 16, 15)
    r = evaluate(_spec(tmp_path, "gemma-3-27b", 4))
    hw = r.spec.hardware
    led = stages.ledger(hw, m, r.spec.precision, tp=1, pp=4)
    assert led.kinds == ((2, 13, 0), (3, 13, 0), (2, 14, 0), (3, 12, 0))
    pc = parameter_count(m)
    # the first and the last stage hold 15 layers each, the first the embedding, the last its copy as the head and the
    # final norm (5,376 bf16 weights); 2 global layers on the first, 3 on the last
    assert led.held[3] - led.held[0] == 2 * m.hidden_size and pc.lm_head == 0
    assert int(led.binding(131072.0)[0]) == 3
    per_layer = 2 * 16 * 128 * 2
    held = (3 * 131072 + 12 * 1024) * per_layer
    stage = (led.room[3] - led.held[3] * 27.009e9 / pc.total) / held  # the declared 27.009e9 (seed accounting)
    assert _entry(r, "capacity_batch_replica", context=131072) == math.floor(stage) == 18
    even = (usable_at(hw, m, 1, 1, 4) - 27.009e9 * 2 / (62 / 16)) / ((10 * 131072 + 52 * 1024) * per_layer / (62 / 16))
    assert math.floor(even) == 21
    # the chapters state the same number as the layout (one number, one place)
    assert _entry(r, "capacity_batch", context=131072) == 18


def test_deepseek_v3_stage_values_move_the_plan_and_the_fit_search(tmp_path):
    """DeepSeek-V3 fp8 at tp 8 x pp 2 (its first stage has the three dense layers): the stage values the plan's rows
    take are the ledger's, and the fit search's smallest layout holds the batch on the binding stage."""
    r = evaluate(_spec(tmp_path, "deepseek-v3", 2, tp=8, precision="fp8", contexts="4k"))
    led = stages.ledger(r.spec.hardware, r.spec.model, r.spec.precision, tp=8, pp=2)
    assert int(led.binding()) == 1
    # fp8: 1 B, with what each GPU holds whole (7 more copies of DeepSeek-V3's 1,030,904,832: tests/test_tp_copies.py)
    copies = 7 * 1_030_904_832
    assert _entry(r, "weight_bytes_per_gpu") == pytest.approx((671e9 + copies) / 8 * led.held[1] / led.flat, rel=1e-12)
    # the memory a GPU may use at the layout is that stage's: the weights fit where they do on it
    assert r.scalars[r.lead]["capacity"] == pytest.approx(led.room[1], rel=1e-15)
    assert np.all(np.asarray(r.per_context[r.lead]["capacity_batch"]) == np.asarray(
        r.parallel.per_context[r.lead]["capacity_batch_replica"]))


def test_training_state_is_the_heaviest_stages():
    """The training state a GPU holds is its stage's (n_PT): Llama 3.1 70B at pp 4 has 18,163,769,344 parameters on
    the last stage (20 layers, the head, the final norm) and 18,163,761,152 on the first (20 layers, the embedding),
    where 80 / 4 layers' share of the whole model is 17,638,426,624; ZeRO-0 at tp 2 holds 16 B for each of the last
    stage's parameters on each of its GPUs, in the seed accounting's 70.6e9 (the shapes' ratio).  A mixture of experts
    takes its dense and routed parameters each at their heaviest stage (DeepSeek-V3 at pp 2: the first stage's
    embedding and dense layers, the second's 30 routed layers of 58), never less than any stage holds."""
    m = load_model(ROOT / "specs/models/llama-3.1-70b.yaml")
    layer, vd, total = 855_654_400, 128256 * 8192, 70_553_706_496
    assert stages.training_split(m, 4) == total / (20 * layer + vd + 8192)
    assert stages.training_split(m, 1) == 1.0
    r = evaluate(load_report(ROOT / "specs/llama8b-h100.yaml", [
        "model=llama-3.1-70b", "parallelism.tp=2", "parallelism.pp=4", "workloads.training.micro_batch_tokens=4k"]))
    zero0 = next(v for q, p, v in r.parallel.training["seed"]
                 if q == "training_state_per_gpu_zero0" and p.get("recipe") == "bf16-grads")
    # with the norms each GPU of tp 2 holds whole, one more copy of 80 x 2 x 8,192 + 8,192 (tests/test_tp_copies.py)
    assert zero0 == pytest.approx(16 * (70.6e9 + 1_318_912) * (20 * layer + vd + 8192) / total / 2, rel=1e-12)
    assert zero0 > 16 * 70.6e9 / 4 / 2  # the even split under-counted it by 3%
    ds = load_model(ROOT / "specs/models/deepseek-v3.yaml")
    pc, parts = parameter_count(ds), stages.stage_parts(ds, 2)
    assert parts.experts[1] / pc.experts_routed == pytest.approx(30 / 58, rel=1e-12)
    dense = [parts.attention[i] + parts.default[i] + parts.embedding[i] + parts.head[i] for i in range(2)]
    split = stages.training_split(ds, 2)
    assert split == min((pc.total - pc.experts_routed) / max(dense), 58 / 30)
    for i in range(2):  # the state charged is at least each stage's, dense and routed alike
        assert (pc.total - pc.experts_routed) / split >= dense[i] * (1 - 1e-12)
        assert pc.experts_routed / split >= parts.experts[i] * (1 - 1e-12)


def test_the_bound_of_a_full_pipeline_is_its_busiest_real_stage():
    """Llama 3.1 70B bf16 on H100 at pp 3 (vLLM's 27, 27 and 26 layers): with the pipeline full (batch 3, three
    micro-batches, as vLLM runs it) every GPU streams its stage three times a round.  The last stage's 26 layers and the output head
    (26 x 855,654,400 + 128,256 x 8,192 + the final norm's 8,192 parameters) outweigh a 27-layer stage (27 x
    855,654,400), so the round's HBM ledger is 3 x that stage's bytes over 3.35 TB/s, and no more: an even share of
    the whole model, head included (27/80 of 70,553,706,496), charged a 27-layer stage 0.7% more than any stage
    streams, which a perfect engine would beat.  At pp 4 (20 layers a stage) the last stage's 20 layers and head."""
    from genreport.formulas.compiled import load
    from genreport.load.loader import load_hardware as _hw
    from genreport.model.env import make_env
    from genreport.model.layout import at_batch, choose_links, layout_values

    q, m = load(), load_model(ROOT / "specs/models/llama-3.1-70b.yaml")
    hw, prec = _hw(ROOT / "specs/hardware/h100-sxm.yaml"), _precision("bf16")
    layer, head = 855_654_400, 128256 * 8192
    for pp, last in ((3, 26), (4, 20)):
        par = Parallelism(1, pp)
        env = make_env(hw, m, prec, "exact")
        base = layout_values(env.values, m, par, choose_links(hw, par)[0], prec, "exact", env.pc, kernels=hw.kernels)
        v = at_batch(dict(base, S=0.0, c=float(env.at(context=1.0)["c"])), env.with_layout(par), float(pp))
        stage = (last * layer + head) * 2 / hw.bandwidth  # the last stage's weights (the final norm aside), bf16
        assert float(q["decode_time_bound"](dict(v, m_b=float(pp)))) == pytest.approx(pp * stage, rel=1e-6)
        # without a cache to read, one micro-batch of all pp sequences walking the stages streams every weight once,
        # less than pp streams of the last stage: the bound takes that schedule (parallel.fastest_schedule)
        assert v["m_b"] == 1.0
        assert float(q["decode_time_bound"](v)) == pytest.approx((80 * layer + head) * 2 / hw.bandwidth, rel=1e-6)
        assert last * layer + head > max(stages.stage_layers(80, pp)) * layer  # it outweighs the longest stage
    # at pp 3 the old even share of a 27-layer stage passed the last stage's weights; at pp 4 it fell short of them
    assert 27 / 80 * 70_553_706_496 > 26 * layer + head + 8192 > 27 * layer
    assert 20 / 80 * 70_553_706_496 < 20 * layer + head


@pytest.mark.parametrize("name", ["gemma-3-27b", "gemma-2-9b", "deepseek-v3", "llama-4-maverick", "llama-3.1-70b"])
def test_a_stages_layers_counted_without_walking_them_are_those_it_holds(name):
    """stages.kinds_before and routed_before (the global, windowed, chunked and routed layers before layer i, counted
    in O(1) so that a spec of 10^5 layers over 10^4 stages is not walked layer by layer at every plan) against the
    layers themselves (layer_kinds, moe_layers), at the catalog's pattern and at others: every period of global layers,
    every first dense layer and step of routed ones."""
    import dataclasses

    base = load_model(ROOT / "specs" / "models" / f"{name}.yaml")
    att = base.attention
    for period in ([None, 0, 1, 2, 5] if att.sliding_window or att.chunk_size else [None]):
        for first, step in ([(0, 1), (3, 1), (1, 2), (5, 4)] if base.moe else [(None, None)]):
            model = dataclasses.replace(base, layers=23, attention=dataclasses.replace(
                att, local_layers_per_global=period if period is not None else att.local_layers_per_global),
                moe=dataclasses.replace(base.moe, first_dense_layers=first, layer_step=step) if base.moe else None)
            kinds, routed = stages.layer_kinds(model), stages.moe_layers(model)
            for i in range(model.layers + 1):
                assert stages.kinds_before(model, i) == tuple(kinds[:i].count(k) for k in stages.KINDS), (period, i)
                assert stages.routed_before(model, i) == sum(routed[:i]), (first, step, i)
            for pp in (1, 2, 5, 23):  # each stage's own layers, walked one by one
                parts, first = stages.stage_parts(model, pp), 0
                for i, n in enumerate(stages.stage_layers(model.layers, pp)):
                    mine = kinds[first:first + n]
                    assert parts.kinds[i] == tuple(mine.count(k) for k in stages.KINDS), (period, pp, i)
                    experts = parameter_count(model).experts_routed / max(sum(routed), 1)
                    assert parts.experts[i] == pytest.approx(experts * sum(routed[first:first + n]), rel=1e-12)
                    first += n


def test_the_summary_and_chapter_4_count_a_long_sequence_stage_by_stage(tmp_path, capsys):
    """Gemma 3 27B at pp 4 on H100, 32k (an outside review, stop 91): the summary's "fits" line, page 1's per-GPU KV
    and chapter 4's "one sequence can reach" split the whole model's cache evenly over the stages (2.5 global layers a
    GPU, stage 2's free memory): "80 sequences at 32,768" beside results.json's 66, "can reach 3,064,191 tokens".  The
    last stage (3 global and 12 windowed layers, the logits' room) fills first.  Its room 75,807,784,960 B less its
    15,206,227,968 B of weights (the shapes' count: 15 layers, the tied table's copy as the head, the final norm),
    scaled to the declared 27.009e9 parameters as every number of the seed accounting: one sequence holds 3 S + 12 x
    1,024 positions of 8 KiB (16 KV heads of 128, K and V in bf16)."""
    m = load_model(ROOT / "specs/models/gemma-3-27b.yaml")
    r = evaluate(_spec(tmp_path, "gemma-3-27b", 4, contexts="32k"))
    led = stages.ledger(r.spec.hardware, m, r.spec.precision, tp=1, pp=4)
    assert (led.room[3], led.held[3]) == (75_807_784_960, 15_206_227_968)
    free = 75_807_784_960 - 15_206_227_968 * 27.009e9 / parameter_count(m).total
    per = 2 * 16 * 128 * 2
    reach = math.floor((free - 12 * 1024 * per) / (3 * per))  # past the window the global layers' 24 KiB a token
    sequences = math.floor(free / ((3 * 32768 + 12 * 1024) * per))
    assert (reach, sequences) == (2_461_795, 66)
    assert _entry(r, "capacity_batch", context=32768) == sequences  # one number, one place
    from genreport.present import prose, summary

    line = next(x for x in summary.terminal_lines(r) if "fits:" in x)
    assert f"{reach:,} tokens for one sequence" in line and "66 sequences at 32,768 per replica" in line, line
    assert "24 KiB/token + 96 MiB/sequence on each GPU of stage 4 of 4, the first to fill: 3 global and 12 windowed" \
        in line, line
    assert f"one sequence can reach {reach:,} tokens" in prose.bounded_fact(r)
    assert r.facts["kv_global_per_token_gpu"] == 3 * per and r.facts["kv_windowed_per_sequence_gpu"] == 12 * 1024 * per
    from genreport.commands.cli import main

    assert main(["derive", "kv_capacity_tokens", "--spec", str(tmp_path / "gemma-3-27b-1x4.yaml")]) == 0
    assert f"one sequence can reach {reach:,} tokens" in capsys.readouterr().out
    # one stage: the whole model's share is every GPU's, as before
    one = evaluate(_spec(tmp_path, "gemma-3-27b", 1, tp=2, contexts="32k"))
    assert stages.kv_room(one.spec.hardware, m, one.spec.precision, one.spec.parallelism) is None
    assert "kv_stage_words" not in one.facts
