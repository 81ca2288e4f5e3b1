"""The activation workspace at a pipeline layout is the binding stage's (genreport.model.stages.binding_workspace), so
that the inputs table's workspace and C, page 1's usable memory, results.json's capacity and ``derive capacity`` state
one number.

A deployment review (stop 86) read DeepSeek-V3 in fp8 on 16 H100 (tp 8 x pp 2, a 6 GiB reserve) as "72.75 GiB usable
(80 GiB less the engine's 6 GiB and a 1.125 GiB activation workspace)", 80 - 6 - 1.125 being 72.875, beside "C =
78.25 GB" in Appendix C and 78.12 GB from ``derive capacity``: 61 layers over 2 stages are 31 and 30, the workspace
counted the 256 x 129,280 x 4 B = 132.4 MB of logits only where pp divides the layers, and the stage ledger charges
them to the last stage, which binds (30 MoE layers and the output head against 3 dense and 28 MoE layers and the
embedding).
"""

from __future__ import annotations

import pytest
from genreport import load_spec
from genreport.load.objects import activation_workspace
from genreport.model.stages import binding_workspace, ledger
from shared import SPECS, evaluated

DEEPSEEK_16_H100 = ["hardware=h100-sxm", "precision=fp8", "parallelism={tp: 8, pp: 2}", "engine.memory_reserve=6 GiB"]


def test_deepseek_v3_over_two_stages_states_one_usable_memory():
    spec = load_spec(SPECS / "deepseek-v3-h200-ep8.yaml", DEEPSEEK_16_H100)
    hw, m, par = spec.hardware, spec.model, spec.parallelism
    logits = 256 * 129280 * 4.0
    assert logits == pytest.approx(132.4e6, rel=1e-3)
    without = activation_workspace(m, 8, 8192, 0, 1, 1)  # one step's activations, no logits
    led = ledger(hw, m, spec.precision, 8, 2, 1)
    assert int(led.binding(None)) == 1  # the last stage holds the fewest tokens
    assert led.room == (hw.kept - without, hw.kept - without - logits)
    assert binding_workspace(hw, m, spec.precision, par) == (without + logits, 1)
    assert hw.workspace == without + logits  # 1.248 GiB, not the 1.125 of a rule that left the logits out
    assert hw.workspace / 2**30 == pytest.approx(1.2483, abs=1e-4)
    assert hw.kept == 80 * 2**30 - 6 * 2**30
    r = evaluated("deepseek-v3-h200-ep8.yaml", DEEPSEEK_16_H100)
    assert r.scalars[r.lead]["capacity"] == hw.usable == hw.kept - hw.workspace  # results.json's and the inputs table's
    assert hw.usable / 2**30 == pytest.approx(72.75, abs=0.005)


def test_a_layout_whose_stages_divide_the_layers_keeps_its_workspace():
    """Llama 3.1 70B at tp 4 x pp 2 (40 and 40 layers): the last stage binds, its logits counted, as before."""
    spec = load_spec(SPECS / "llama70b-h100-tp8.yaml", ["parallelism={tp: 4, pp: 2}"])
    hw, m = spec.hardware, spec.model
    assert hw.workspace == activation_workspace(m, 4, hw.max_batched_tokens, hw.max_sequences, 1, 2)
    assert binding_workspace(hw, m, spec.precision, spec.parallelism)[1] == 1
