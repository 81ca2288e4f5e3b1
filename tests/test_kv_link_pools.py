"""The link a prompt's KV cache crosses from the prefill pool to the decode pool, where the pools are whole
expert-parallel groups (ep > tp: data-parallel attention, SGLang's DeepSeek layout).

QA review: DeepSeek-V3 on 8 H200 (tp 1, ep 8, dp 8; specs/deepseek-v3-h200-ep8.yaml) disaggregates in whole groups of
8 GPUs, "1 of 2 expert-parallel groups of 8 GPUs prefill, 1 decode" (the serving chapter's row): the prefill group
fills one HGX H200 node and the decode group another, yet the row, derive kv_transfer_time and plan --disaggregate
sent the cache over the 8-GPU NVLink domain (0.320 ms at 450 GB/s), because the link was chosen by whether two
*replicas* (1 GPU each) fit the domain.  Two copies of what a pool is made of must fit: 2 x 8 GPUs do not fit 8, so
the cache crosses the scale-out network.

Hand counts: DeepSeek-V3's MLA cache is 61 layers x (512 + 64) x 1 B in fp8 = 35,136 B a token (config.json:
kv_lora_rank 512, qk_rope_head_dim 64; specs/models/deepseek-v3.yaml); a 4,096-token prompt leaves 143,917,056 B.
Each GPU of the sending replica has its own 400 Gb/s ConnectX-7, 50 GB/s a direction (DGX H200 user guide;
specs/hardware/h200.yaml node.scale_out), so a 1-GPU replica sends it in 143,917,056 / 50e9 = 2.878 ms and a 2-GPU
one (tp 2) in half that.
"""

from __future__ import annotations

import json
import re

import pytest
from genreport.commands.cli import main
from genreport.load.loader import load_hardware
from genreport.load.spec import Parallelism
from genreport.model.plan import kv_link
from genreport.model.serving_report import pool_unit_gpus

from tests.shared import SPECS, evaluated

PROMPT_CACHE = 4096 * 61 * (512 + 64) * 1  # B, DeepSeek-V3's fp8 MLA cache of a 4,096-token prompt
NIC = 50e9  # B/s a direction, one ConnectX-7 per GPU (DGX H200 / DGX H100)
NVLINK = 450e9  # B/s a direction, NVLink 4 (HGX H100/H200)


def test_pool_unit_is_the_expert_group_where_it_spans_replicas():
    # tp 1 x ep 8: the group is lcm(1, 8) / 1 = 8 replicas of 1 GPU; tp 4 x ep 8: 2 replicas of 4; tp 8 x ep 8 and a
    # dense tp 8: the replica itself
    assert pool_unit_gpus(Parallelism(tp=1, ep=8, dp=8)) == 8
    assert pool_unit_gpus(Parallelism(tp=4, ep=8, dp=2)) == 8
    assert pool_unit_gpus(Parallelism(tp=8, ep=8)) == 8
    assert pool_unit_gpus(Parallelism(tp=2)) == 2


def test_kv_link_asks_two_pool_copies_to_fit_the_domain():
    h200 = load_hardware(SPECS / "hardware" / "h200.yaml")
    par = Parallelism(tp=1, ep=8, dp=8)
    # two 1-GPU replicas fit the 8-GPU domain, two 8-GPU groups do not: the rate stays the replica's one GPU's
    rate, name = kv_link(h200, par)
    assert name.startswith("scale-up") and rate == pytest.approx(NVLINK)
    rate, name = kv_link(h200, par, pool_unit_gpus(par))
    assert name.startswith("scale-out") and rate == pytest.approx(NIC)
    # a 72-GPU NVLink domain holds two such groups: the cache stays on NVLink 5
    rate, name = kv_link(load_hardware(SPECS / "hardware" / "gb200.yaml"), par, pool_unit_gpus(par))
    assert name.startswith("scale-up")


def test_the_chapters_row_and_derive_send_the_cache_between_nodes(capsys):
    r = evaluated("deepseek-v3-h200-ep8.yaml")
    n = r.serving["techniques"]["numbers"]
    row = next(x for x in r.serving["techniques"]["rows"] if x["technique"] == "prefill/decode disaggregation")
    assert "expert-parallel groups of 8 GPUs" in row["setting"]
    assert n["kv_link"].startswith("scale-out")
    assert n["kv_transfer_time"] == pytest.approx(PROMPT_CACHE / NIC, rel=1e-12)  # 2.878 ms
    assert "scale-out 400 Gb/s NDR InfiniBand" in row["ends"] and "2.88 ms" in row["ends"]
    assert main(["derive", "kv_transfer_time", "--spec", str(SPECS / "deepseek-v3-h200-ep8.yaml"), "--no-latex"]) == 0
    out = capsys.readouterr().out
    assert "scale-out" in out and "scale-up" not in out
    assert float(re.search(r"^  t_kv = ([0-9.e+-]+) s", out, re.M).group(1)) == pytest.approx(PROMPT_CACHE / NIC,
                                                                                              rel=1e-5)


def test_plan_disaggregate_sends_it_between_copies_of_the_layout(capsys):
    # plan's pools are copies of a row's tp x dp GPUs (8 here, one node each): scale-out, tp GPUs sending at once
    assert main(["plan", "deepseek-v3", "--hardware", "h200", "--weights", "fp8", "--gpus", "8", "--prompt", "4k",
                 "--output", "1k", "--disaggregate", "--format", "json"]) == 0
    rows = [x for x in json.loads(capsys.readouterr().out)["rows"] if x["ep"] > x["tp"] and x["kv_cache"] == "fp8"]
    assert rows
    for x in rows:
        assert x["kv_link"].startswith("scale-out"), x
        assert x["kv_transfer"] == pytest.approx(PROMPT_CACHE / (x["tp"] * NIC), rel=1e-9)


def test_a_compute_that_keeps_no_sequence_says_so_in_words():
    """Llama 3.1 70B bf16 on 8 H100 (specs/llama70b-h100-tp8.yaml) with a 2-token output under a 5 ms TPOT: the
    replica computes 8 x 989.4e12 x 0.005 x (2 - 1) = 3.96e13 FLOP in its one round at the target, a 4,096-token
    prompt's prefill alone 2 x 68.5e9 x 4,096 = 5.6e14 (N_p, the blocks without embedding and head; H100 datasheet's
    989.4 TFLOP/s dense bf16): B_P = 0 speculating or not.  The lever row said "keeps at most 0 sequences ..., 0
    decoding plainly"; it now says not one."""
    r = evaluated("llama70b-h100-tp8.yaml", ["serving.output=2", "serving.tpot=5 ms"])
    assert r.serving["compute_batch"] == 0 == r.serving["compute_batch_speculative"]
    assert 8 * 989.4e12 * 0.005 * 1 < 2 * 68.5e9 * 4096
    ends = r.serving["techniques"]["rows"][0]["ends"]
    assert "keeps no sequence at the TPOT target with its prompt's prefill, nor decoding plainly" in ends
    assert "0 sequences" not in ends and "0 decoding" not in ends
