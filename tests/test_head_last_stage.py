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
