"""A chunked model's decode-step quantities taken at a context without a batch read what a step reads.

Llama 4 Maverick (specs/models/llama-4-maverick.yaml, from its config.json): 48 layers, every 4th global, the other 36
attending within their own 8,192-token chunk (attention_chunk_size 8192), 8 KV heads of 128.  A decode step at context
S reads S in a global layer and the S mod 8,192 tokens of the current chunk in a chunked one
(formulas.architecture.attended_positions), while a sequence that goes on holds up to the whole chunk
(kv_positions_held).  The intensity ceiling, lim B->inf of the step's FLOPs over its bytes, and the crossover batch are
a step's: they take the cache read.  They took the cache held, so that at 8k the ceiling was 45.2 FLOP/B where the
step's own intensity tends to 180.7 as the batch grows (the decode grid reads the chunk's S mod 8,192 = 0 tokens).
"""

from __future__ import annotations

import numpy as np
import pytest
from genreport.load.loader import load_report
from genreport.model.env import READ_AT_CONTEXT
from genreport.model.evaluate import evaluate

SPEC = """\
kind: report
name: mav
title: Llama 4 Maverick on 8 B200
hardware: b200
model: llama-4-maverick
precision: fp8
parallelism: {tp: 8, ep: 8}
workloads:
  decode: {batch: [1, 64], context: [4k, 8k, 12k, 128k]}
"""
CONTEXTS = [4096, 8192, 12288, 131072]


@pytest.fixture(scope="module")
def maverick(tmp_path_factory):
    path = tmp_path_factory.mktemp("mav") / "mav.yaml"
    path.write_text(SPEC)
    return evaluate(load_report(path))


def _read_share(s: int) -> float:
    """Positions a step at S reads over the 48 layers, over 48 S."""
    return (12 * s + 36 * (s % 8192 if s >= 8192 else s)) / (48 * s)


def _held_share(s: int) -> float:
    return (12 * s + 36 * min(s, 8192)) / (48 * s)


def test_the_ceiling_is_the_limit_of_the_steps_own_intensity(maverick):
    """At every context the decode intensity at a batch of 10^9 sequences (weights a vanishing share) is the ceiling
    within 0.1%, and never above it: at 8k 181.8 FLOP/B (180.7 before each GPU's FLOPs counted the norms and router it
    holds whole: tests/test_tp_copies.py), where the held cache gave 45.5."""
    r = maverick
    env = r.envs[r.lead]
    ceiling = r.per_context[r.lead]["decode_intensity_ceiling"]
    for j, s in enumerate(CONTEXTS):
        far = float(r.q["decode_intensity"](env.at(batch=1e9, context=float(s))))
        assert far <= ceiling[j] * (1 + 1e-9) and far == pytest.approx(ceiling[j], rel=1e-3), s
    assert ceiling[1] == pytest.approx(181.80, rel=1e-3)
    held = float(r.q["decode_intensity_ceiling"](env.at(context=8192.0)))
    assert held == pytest.approx(45.45, rel=1e-3) and held < ceiling[1]


def test_the_cache_read_and_the_cache_held_by_hand(maverick):
    """c at a context: the held share for the capacity (Env.at without a batch), the read share for a step's
    quantities (READ_AT_CONTEXT); equal below the first chunk boundary."""
    env = maverick.envs[maverick.lead]
    full = float(env.one_card().at(context=1.0)["c"])  # 48 x 2 x 8 x 128 x 1 B: every layer at S = 1
    assert full == 98_304
    for s in CONTEXTS:
        held = float(np.ravel(env.one_card().at(context=float(s))["c"])[0])
        read = float(np.ravel(env.one_card().at(context=float(s), reads=True)["c"])[0])
        assert held == pytest.approx(full * _held_share(s)) and read == pytest.approx(full * _read_share(s)), s
    assert _read_share(4096) == _held_share(4096) == 1.0
    assert {"decode_intensity_ceiling", "crossover_batch", "comm_hbm_crossover_batch"} == READ_AT_CONTEXT


def test_the_layouts_comm_crossover_takes_the_cache_read(maverick):
    """The batch where tp 8 x ep 8's collectives meet the HBM reads at 12k: with the 0.5 read share, not the 0.75
    held (a larger batch, since each sequence brings fewer bytes)."""
    from genreport.model.layout import point_values

    r = maverick
    got = r.parallel.per_context[r.lead]["comm_hbm_crossover_batch"][2]
    at = point_values(r.spec, r.lead, "comm_hbm_crossover_batch", context=12288)
    assert float(r.q["comm_hbm_crossover_batch"](at)) == pytest.approx(got, rel=1e-12)
    assert float(np.ravel(at["c"])[0]) == pytest.approx(98_304 * 0.5)
