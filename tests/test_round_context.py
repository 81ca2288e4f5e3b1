"""The TPOT round of a request whose model has chunked layers (Llama 4): a chunked layer reads only the S mod chunk
tokens of its current chunk, so a round's cost is a sawtooth in the context and the slowest round can come before the
last (serving.round_context)."""

from __future__ import annotations

import json

import pytest
from genreport.commands.cli import main
from genreport.load.loader import load_model
from genreport.model.serving import last_context, round_context
from shared import ROOT

MODELS = ROOT / "specs" / "models"


def test_the_round_at_the_end_of_a_chunk_by_hand():
    """Llama 4 Maverick (specs/models/llama-4-maverick.yaml: 48 layers, every fourth global, the others chunked at
    8,192): rounds of a 7k + 2k request read contexts 7,169 .. 9,215.  At 8,191 the 36 chunked layers read 8,191
    positions each and the 12 global ones 8,191: 48 x 8,191 = 393,168; at 9,215 the chunked layers read 9,215 mod 8,192
    = 1,023 and the global ones 9,215: 36 x 1,023 + 12 x 9,215 = 147,408.  The round at 8,191 is the slowest."""
    m = load_model(MODELS / "llama-4-maverick.yaml")
    assert (m.layers, m.attention.chunk_size) == (48, 8192)
    assert 48 * 8191 > 36 * 1023 + 12 * 9215
    assert round_context(m, 7168, 2048) == 8191 and last_context(7168, 2048) == 9215
    assert round_context(m, 7168, 1024) == 8191  # its last context: no other round comes near
    assert round_context(m, 7168, 1025) == 8191  # the last round (8,192) reads a new chunk's 0 positions
    assert round_context(m, 8192, 512) == last_context(8192, 512)  # inside one chunk: the last
    assert round_context(m, 100, 1) == 100  # no decode round: the prompt
    # a global share large enough wins back: 12 global layers at 8,191 + 20k - a chunk's 36 x 8,191 reads
    assert round_context(m, 8000, 40_000) == last_context(8000, 40_000)
    dense = load_model(MODELS / "llama-3.1-70b.yaml")
    assert round_context(dense, 7168, 2048) == 9215


def _plan(capsys, *args) -> dict:
    assert main(["plan", "llama-4-maverick", "--hardware", "h200", "--gpus", "8", "--weights", "fp8", "--batch", "64",
                 "--format", "json", *args]) == 0
    return {(r["tp"], r["ep"], r["dp"]): r for r in json.loads(capsys.readouterr().out)["rows"]}


def test_plan_takes_the_tpot_at_the_slowest_round(capsys):
    """A review: ``plan llama-4-maverick --prompt 7k --output 2k --tpot 20ms`` listed tp 1 x dp 8 at batch 64 with a
    TPOT of 16.86 ms (the round at 9,215) where the round at 8,191 takes 23.57 ms, the bound at ``--context 8191``."""
    request = _plan(capsys, "--prompt", "7k", "--output", "2k")
    at_edge = _plan(capsys, "--context", "8191")
    for key in ((1, 8, 8), (8, 1, 1)):
        assert request[key]["time_bound"] == pytest.approx(at_edge[key]["time_bound"], rel=1e-12), key
    assert request[(1, 8, 8)]["time_bound"] == pytest.approx(0.023571, abs=1e-6)
    assert request[(1, 8, 8)]["capacity_batch"] == 85  # the capacity stays at the last context's held cache
    met = _plan(capsys, "--prompt", "7k", "--output", "2k", "--tpot", "20ms")
    assert met[(1, 8, 8)]["batch"] < 64 and met[(1, 8, 8)]["time_bound"] <= 0.020
