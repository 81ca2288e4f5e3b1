"""The two accountings of one decode step, Llama 3.1 8B bf16 on one H100 SXM (spec llama8b-h100).

* ``seed``: seed 003's accounting -- N = 8.03e9 declared parameters, all of them streamed every step;
  weights only, batch 1: 8.03e9 x 2 B / 3.35 TB/s = 4.79 ms (seed-claims.yaml, s003-decode-tmem-h100).
* ``exact``: per matrix -- N counted from the shapes (8,030,261,248 with vocabulary 128,256 and an untied
  head; seed-claims.yaml, s003-param-count-from-dims), the input embedding is a row lookup and is not
  streamed, and at context 1024 the KV cache is read as well: (8,030,261,248 - 525,336,576) x 2 B +
  1024 x 131,072 B = 15.14 GB over 3.35 TB/s = 4.52 ms.
"""

from __future__ import annotations

from functools import cache

import pytest
from genreport.model.evaluate import Results
from shared import ROOT, evaluated

SPEC = ROOT / "specs" / "llama8b-h100.yaml"
MS = 1e-3


@cache
def results() -> Results:
    return evaluated(SPEC)


def at(acc: str, qid: str, batch: int, context: int) -> float:
    r = results()
    w = r.spec.workloads
    return float(r.decode[acc][qid][w.decode_batch.index(batch), w.decode_context.index(context)])


def test_parameter_count_from_the_shapes():
    r = results()
    pc = r.params
    assert pc.total == 8_030_261_248
    # per matrix: L = 32, d = 4096, H_kv d_h = 1024, d_ff = 14336, V = 128256, RMSNorm
    assert pc.embedding == pc.lm_head == 128_256 * 4096 == 525_336_576
    assert pc.attention == 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024) == 1_342_177_280
    assert pc.ffn_dense == 32 * 3 * 4096 * 14336 == 5_637_144_576
    assert pc.norms == 32 * 2 * 4096 + 4096 == 266_240
    assert r.scalars["exact"]["parameters"] == 8_030_261_248
    assert r.scalars["seed"]["parameters"] == 8.03e9  # declared in the model spec, as in the seed


def test_exact_accounting_batch1_context1k_is_4_52_ms():
    t_mem = at("exact", "decode_time_memory", 1, 1024)
    t_comp = at("exact", "decode_time_compute", 1, 1024)
    assert t_mem == pytest.approx(4.52 * MS, rel=0.01)
    assert t_mem > 100 * t_comp  # bandwidth-bound by two orders of magnitude
    step = 1 / at("exact", "decode_tokens_per_s", 1, 1024)
    assert step == pytest.approx(4.52 * MS, rel=0.01)
    assert results().verdicts["decode_binds"][0][1] == "bandwidth"


def test_seed_accounting_weights_only_is_4_79_ms():
    r = results()
    assert r.scalars["seed"]["weight_stream_time"] / MS == pytest.approx(4.79, abs=0.005)
    base = next(c for c in r.compare if c["is_base"])
    assert base["t_mem"] / MS == pytest.approx(4.79, abs=0.005)
    assert base["decode_tokens_per_s"] == pytest.approx(1 / 4.794e-3, rel=1e-3)  # 208.6 token/s


def test_exact_is_below_seed_accounting_at_batch1():
    """The embedding lookup saves more bytes (1.05 GB) than 1k tokens of KV add (0.13 GB)."""
    assert at("exact", "decode_time_memory", 1, 1024) < at("seed", "decode_time_memory", 1, 1024)
    assert at("exact", "decode_bytes", 1, 1024) == pytest.approx(
        (8_030_261_248 - 525_336_576) * 2 + 1024 * 131_072, rel=1e-12)
