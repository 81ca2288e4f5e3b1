"""``audit`` prices several GPUs through their layout (issue 29): the stated tp x pp (replicas sharing the batch), or
the loosest layout of that many GPUs, each round and prefill the layout's strict bound with its communication.

Hand counts: Llama 3.1 70B (Meta's config.json: 70.6e9 parameters, 80 layers, d 8192, vocabulary 128,256) in
bf16 on H100 SXM (NVIDIA's datasheet: 3.35 TB/s); audit's exact accounting reads the weights less the input
embedding (a row lookup) in a decode round."""

from __future__ import annotations

import json

import pytest
from genreport.commands.cli import main

HEADER = "id,model,hardware,gpus,tp,pp,precision,batch,input_tokens,output_tokens,metric,value,source\n"


def _audit(tmp_path, capsys, *rows):
    path = tmp_path / "claims.csv"
    path.write_text(HEADER + "\n".join(rows) + "\n")
    assert main(["audit", str(path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    return {r["id"]: r for r in (doc["rows"] if isinstance(doc, dict) else doc)}


def test_a_pipeline_walks_its_stages(tmp_path, capsys):
    """Batch 1 on tp 1 x pp 8: the one sequence walks the 8 stages in turn, each streaming its eighth of the
    weights, so a round streams them all at one GPU's bandwidth, 8x the tp 8 round (the old ideal group's)."""
    r = _audit(tmp_path, capsys,
               "tp8,llama-3.1-70b,h100-sxm,8,8,1,bf16,1,1,1,ms_per_token,1,s",
               "pp8,llama-3.1-70b,h100-sxm,8,1,8,bf16,1,1,1,ms_per_token,1,s",
               "pp8-rate,llama-3.1-70b,h100-sxm,8,1,8,bf16,1,1,1,tokens_per_s,30,s",
               "any,llama-3.1-70b,h100-sxm,8,,,bf16,1,1,1,ms_per_token,1,s")
    streamed = (70.6e9 - 128256 * 8192) * 2 / 3.35e12
    assert r["pp8"]["bound"] * 1e-3 == pytest.approx(streamed, rel=2e-3)
    assert r["pp8"]["bound"] == pytest.approx(8 * r["tp8"]["bound"], rel=1e-3)
    assert r["pp8"]["layout"] == "pp8" and r["pp8"]["assumed"]["layout"] == "pp8, as stated"
    # 30 token/s fits 8 ideal H100s (at most 193) but not a pipeline of 8 at batch 1 (at most 24.1)
    assert r["pp8-rate"]["verdict"] == "impossible" and r["pp8-rate"]["bound"] == pytest.approx(1 / streamed, rel=2e-3)
    # the layout unknown: the loosest of the layouts of 8 GPUs, tp 8
    assert r["any"]["bound"] == r["tp8"]["bound"] and r["any"]["layout"] == "tp8"
    assert "the loosest of" in r["any"]["assumed"]["layout"]


def test_ttft_and_end_to_end_through_the_layout(tmp_path, capsys):
    """One 4,096-token prompt over 8 stages: each stage's compute is the tp 8 prefill's (an eighth of the FLOPs), and
    a schedule may walk the prompt's pieces over the stages, so the bound is that and the 7 stages before the last
    reading their weights once (formulas.parallel.prefill_time_bound; 8x the tp 8 prefill before stop 71, the prompt
    passed whole); end to end is that prefill and 255 rounds at the mean context 4,096 + 127.5 at the same layout."""
    r = _audit(tmp_path, capsys,
               "t-tp8,llama-3.1-70b,h100-sxm,8,8,1,bf16,1,4096,1,ttft_ms,1,s",
               "t-pp8,llama-3.1-70b,h100-sxm,8,1,8,bf16,1,4096,1,ttft_ms,1,s",
               "e-pp8,llama-3.1-70b,h100-sxm,8,1,8,bf16,1,4096,256,e2e_ms,1,s",
               "d-pp8,llama-3.1-70b,h100-sxm,8,1,8,bf16,1,4096,256,ms_per_token,1,s")
    # ms: 7 stages' dense weights, bf16, 3.35 TB/s, without the input embedding (looked up) and the output head (the
    # last stage's: formulas.parallel.at_last_stage)
    walk = 7 * (70.6e9 - 2 * 128256 * 8192) * 2 / (8 * 3.35e12) * 1e3
    assert r["t-pp8"]["bound"] == pytest.approx(r["t-tp8"]["bound"] + walk, rel=2e-3)
    assert r["t-pp8"]["binds"] == "compute" and r["t-pp8"]["layout"] == "pp8"
    assert r["e-pp8"]["bound"] == pytest.approx(r["t-pp8"]["bound"] + 255 * r["d-pp8"]["bound"], rel=1e-9)
    assert r["e-pp8"]["layout"] == "pp8"


def test_replicas_share_the_batch(tmp_path, capsys):
    """tp 8 on 16 GPUs is two replicas: batch 64 is 32 each, twice the tokens/s of one replica at 32."""
    r = _audit(tmp_path, capsys,
               "two,llama-3.1-70b,h100-sxm,16,8,1,bf16,64,1024,1025,tokens_per_s,1,s",
               "one,llama-3.1-70b,h100-sxm,8,8,1,bf16,32,1024,1025,tokens_per_s,1,s")
    assert r["two"]["bound"] == pytest.approx(2 * r["one"]["bound"], rel=1e-12)
    assert r["two"]["layout"] == "tp8 dp2"


def test_expert_parallel_decode_is_priced_with_its_all_to_alls(tmp_path, capsys):
    """LMSYS's DeepSeek-V3 decode on 72 H100 (tests/data/published.csv, 2,787.5 token/s per GPU with 2,000-token
    inputs) stays within the bound, now the all-to-alls of an expert group over 72 GPUs (the experts placed
    unevenly, as SGLang's redundant experts do): the interconnect binds, well under the ideal group's rate (12,261
    token/s a GPU: each token once to each other node that holds one of its experts, one byte an element)."""
    r = _audit(tmp_path, capsys,
               "ep,deepseek-v3,h100-sxm,72,,,fp8,,2000,,tokens_per_s_per_gpu,2787.5,s")["ep"]
    assert r["verdict"] == "ok" and r["binds"] == "interconnect" and r["layout"].startswith("ep72")
    assert 2787.5 < r["bound"] < 13000


def test_no_layout_of_the_gpus_is_one_ideal_group(tmp_path, capsys):
    """tp 4 x pp 1 does not divide 6 GPUs: priced as one ideal group of 6, and the row says so."""
    r = _audit(tmp_path, capsys,
               "six,llama-3.1-70b,h100-sxm,6,4,1,bf16,1,1,1,ms_per_token,1,s")["six"]
    assert r["layout"] == "" and "one ideal group" in r["assumed"]["layout"]
    assert r["bound"] * 1e-3 == pytest.approx((70.6e9 - 128256 * 8192) * 2 / (6 * 3.35e12), rel=2e-3)
