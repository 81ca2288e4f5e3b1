"""Figure 5 at one scope: a layout's report with training bars (the whole model's state, chapter 5: tables.training
evaluates it on one card) draws its inference bar for the whole model on one card too (frame.one_card), not one
GPU's slice of the layout beside them, and says so on the axis and in the caption.

Llama 2 13B (13.0B parameters, Touvron et al. 2023, arXiv 2307.09288, table 1) in bf16 on 2 A100 40GB at tp 2: one
GPU holds about half the 26 GB of weights; the reviewers found the 13 GB slice drawn beside the whole model's
training state.
"""

from __future__ import annotations

import pytest
from genreport.load.loader import load_report
from genreport.model.evaluate import evaluate
from genreport.present.figures.fig5_memory_ledger import _ledger, caption5, fig5_memory_ledger

SPEC = """\
kind: report
name: l13
title: "Llama 2 13B on 2 A100 40GB"
hardware: a100-sxm-40gb
model: llama-2-13b
precision: bf16
parallelism: {tp: 2}
workloads:
  decode: {batch: [1, 16], context: [4k]}
  training: {micro_batch_tokens: 8k, recipes: [bf16-grads]}
"""


def test_training_and_inference_bars_are_the_whole_model_on_one_card(tmp_path):
    path = tmp_path / "l13.yaml"
    path.write_text(SPEC)
    r = evaluate(load_report(path))
    one, gpu = r.frame.one_card, r.scalars[r.lead]
    assert gpu["weight_bytes"] == pytest.approx(one["weight_bytes"] / 2, rel=0.01)  # the slice: half the weights
    (tr,), (name, inference) = r.training, _ledger(r)[-1]
    assert sum(v for _, v in _ledger(r)[0][1]) == pytest.approx(tr["total"], rel=1e-12)
    assert inference[0][1] == one["weight_bytes"] and name.startswith("inference")
    assert sum(v for _, v in inference) == pytest.approx(one["capacity"], rel=1e-12)  # the KV cache fills one card
    text = caption5(r)
    assert "whole model on one card" in text and "not one GPU of the tp 2 layout" in text
    fig = fig5_memory_ledger(r)
    assert fig.axes[0].get_ylabel() == "memory of one card, whole model (GiB)"
