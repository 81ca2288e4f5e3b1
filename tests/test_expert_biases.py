"""gpt-oss-120b in its checkpoint's formats (QA of stop 71): the routed experts' matrices are mxfp4 (4 bits and an
8-bit scale per 32: 0.53125 B), their biases bf16 beside them (the checkpoint's gate_up_proj_bias and down_proj_bias);
the experts' class took every routed parameter at 0.53125 B, 58 MB under the hand count."""

from __future__ import annotations

import pytest
from shared import evaluated_text

GPT_OSS = """\
kind: report
name: gpt-oss-checkpoint
title: gpt-oss-120b in its checkpoint's formats on one H100
hardware: h100-sxm
model: gpt-oss-120b
precision: checkpoint
workloads:
  decode: {batch: [1], context: [1k]}
"""


def test_the_experts_biases_keep_sixteen_bits():
    """36 layers of 128 experts, each 2 880 x 5 760 (gate and up) + 2 880 x 2 880 (down) weights: 114,661,785,600 at
    0.53125 B; their biases 36 x 128 x (2 x 2,880 + 2,880) = 39,813,120 and every other parameter (2,127,557,952,
    attention, embeddings, router, norms, sinks) at 2 B: 65,248,815,744 B."""
    r = evaluated_text(GPT_OSS, "gpt-oss-checkpoint")
    matrices = 36 * 128 * 3 * 2880 * 2880
    biases = 36 * 128 * 3 * 2880
    assert (matrices, biases) == (114_661_785_600, 39_813_120)
    from genreport.model.env import held_weight_bytes, spec_env

    pc = spec_env(r.spec, "exact").pc
    assert pc.experts_bias == biases and pc.experts_routed == matrices + biases
    other = pc.total - pc.experts_routed
    held = held_weight_bytes(r.spec.precision, r.spec.model) * pc.total  # the whole model's bytes, from its shapes
    assert held == pytest.approx(matrices * 0.53125 + (biases + other) * 2, rel=1e-12)
    assert held == pytest.approx(65_248_815_744, rel=1e-12)
