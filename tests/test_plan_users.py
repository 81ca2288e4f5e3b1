"""plan with --users prices the deployment the users take: each copy of a layout at the busiest replica's share of
them, not at the largest batch a replica could run (a review: 256 users on Llama 3.1 405B)."""

from __future__ import annotations

import json

import pytest
from genreport.commands.cli import main

ASK = ["plan", "llama-3.1-405b", "--hardware", "h100-sxm", "--weights", "fp8", "--prompt", "3k", "--output", "1k",
       "--tpot", "50ms", "--max-gpus", "16", "--format", "json"]


def _rows(capsys, *extra) -> list[dict]:
    assert main([*ASK, *extra]) == 0
    return json.loads(capsys.readouterr().out)["rows"]


def test_users_spread_over_the_copies_they_take(capsys):
    """tp 8 (8 GPUs, fp8) holds 193 sequences of 4,095 tokens within 50 ms; 256 users take 2 copies, 128 on each.
    By hand at 128: each GPU reads 405.85e9 / 8 = 50.73e9 B of weights and 128 x 4,095 x 32,256 B of KV cache (126
    layers x 2 x 8 KV heads x 128 x 1 B / 8 GPUs): (50.73e9 + 16.91e9) / 3.35e12 = 20.19 ms.  The row priced 193
    a replica ($0.751/M) beside the 16 GPUs the users take; at 128 it is $1.015/M, and tp 16 (all 256 on 16 GPUs at
    $0.852/M) is the cheaper way to serve them."""
    rows = _rows(capsys, "--users", "256")
    tp8 = next(r for r in rows if (r["tp"], r["pp"], r["dp"]) == (8, 1, 1))
    assert (tp8["batch"], tp8["limit"], tp8["gpus_for_users"]) == (128, "users", 16)
    kv = 128 * 4095 * 126 * 2 * 8 * 128 * 1 / 8
    assert kv == pytest.approx(16.91e9, rel=1e-3)
    assert tp8["time_bound"] == pytest.approx((tp8["weight_bytes_per_gpu"] + kv) / 3.35e12, rel=2e-3)
    assert tp8["usd_per_mtok_out"] == pytest.approx(1.015, abs=5e-4)
    assert rows[0]["tp"] == 16 and rows[0]["usd_per_mtok_out"] < tp8["usd_per_mtok_out"]
    # without users the row is the replica's best batch, as before
    alone = next(r for r in _rows(capsys, "--batch", "256") if (r["tp"], r["pp"], r["dp"]) == (8, 1, 1))
    assert alone["batch"] > 128 and alone["limit"] != "users"


def test_one_user_and_the_layouts_left_out_read_in_words(capsys):
    """"--users 1" is "1 user", not "1 users"; the layouts left out are counted as layouts: DeepSeek-V3 in fp8 on
    one H100 is one layout (tp 1, its 671e9 B of weights beside 80 GiB), not "1 weights do not fit"."""
    assert main(["plan", "deepseek-v3", "--hardware", "h100-sxm", "--weights", "fp8", "--gpus", "1", "--users", "1",
                 "--context", "1k"]) == 5  # no layout: a search with no answer
    out = capsys.readouterr().out
    assert ", 1 user;" in out and "1 users" not in out
    assert "not listed: 1 layout (weights do not fit)" in out and "1 weights" not in out


def test_an_unknown_draft_is_named_once(capsys):
    """``plan ... --speculative 3,0.8,nope`` (review, stop 78): the error's place read "--speculative 3,0.8,nope
    nope:1:1", the name twice; it names the option's value once, exits 1 and writes no traceback."""
    from genreport.commands.cli import main

    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--speculative", "3,0.8,nope"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("--speculative 3,0.8,nope: no model named 'nope'"), err
    assert "Traceback" not in err


def test_a_prompt_only_requests_equal_costs_tie_and_the_fewest_gpus_rank_first(capsys):
    """Llama 3.1 8B fp8 on H100, 8k-token prompts and one token out: the prefill is compute-bound on every layout, so
    every pipeline of one GPU a stage costs the same, 5.5377e-05 a request (the floats' last bits apart); the hostile
    review of stop 89 found tp 1 x pp 16 (16 GPUs) ranked first by those bits.  Equal costs tie and the fewest GPUs come first."""
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--weights", "fp8", "--prompt", "8k",
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    cheapest = [r for r in rows if r["usd_per_request"] == pytest.approx(rows[0]["usd_per_request"], rel=1e-12)]
    # the pipelines of one GPU a stage tie (tp 1 x pp 16's last bits among them); a tensor-parallel layout costs a
    # little more, each GPU computing with the norms it holds whole (tests/test_tp_copies.py)
    assert len(cheapest) >= 6 and {r["layout"] for r in cheapest} >= {"tp 1", "tp 1 × pp 16"}
    assert [r["gpus"] for r in cheapest] == sorted(r["gpus"] for r in cheapest)
    assert rows[0]["layout"] == "tp 1"


def test_gpus_above_max_gpus_is_refused(capsys):
    """``--gpus 4 --max-gpus 2`` tried no replica of 4 GPUs and listed them anyway (the hostile review of stop 89):
    refused, naming both; --gpus alone still sets the largest replica."""
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--max-gpus", "2", "--gpus", "4"]) != 0
    err = capsys.readouterr().err
    assert "--gpus 4: is above --max-gpus 2: no replica of 4 devices would be tried" in err
    assert "Traceback" not in err
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--gpus", "4", "--format", "json"]) == 0
    assert {r["gpus"] for r in json.loads(capsys.readouterr().out)["rows"]} == {4}


def test_a_time_the_table_would_round_to_zero_keeps_two_digits(capsys):
    """A 1-token prompt and 2 out with pools (the hostile review of stop 89): "E2E s 0.00" and "KV ms 0.00" read as
    no time at all; a positive time that its decimals round to zero takes two significant digits."""
    from genreport.commands.plan import _fixed

    assert (_fixed(0.0048, 2), _fixed(0.00015, 2), _fixed(12.654, 2), _fixed(0.0, 2)) == ("0.0048", "0.00015", "12.65",
                                                                                           "0.00")
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--prompt", "1", "--output", "2",
                 "--disaggregate", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("fp8"))
    assert " 0.00 " not in row, row
