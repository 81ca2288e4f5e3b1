"""The engine's activation workspace (issue 27, "Headroom"): one step's activations come off the memory the KV cache
gets, in every fit decision, beside the reserve.

Facts copied here, with their sources:
* Llama 3.1 70B (meta-llama/Llama-3.1-70B config.json): hidden_size 8192, intermediate_size 28672, vocab_size 128256.
* vLLM profiles one forward pass of max_num_batched_tokens tokens before it sizes the KV cache (V1
  gpu_worker.determine_available_memory); the logits are computed only at the sampled positions (logits_indices,
  one a sequence), at most max_num_seqs rows, upcast to float32 by the sampler.  Defaults taken: 8192 tokens
  (V1 chunked prefill), 256 sequences (docs.vllm.ai engine arguments).
"""

from __future__ import annotations

from genreport.formulas import memory
from genreport.formulas.glossary import sym
from genreport.load.loader import load_report
from genreport.load.objects import activation_workspace
from genreport.model.env import usable_at
from genreport.model.evaluate import evaluate
from genreport.model.plan import point

GB = 1e9

SPEC = """\
kind: report
name: ws
title: Workspace test
hardware: h100-sxm
model: llama-3.1-70b
precision: bf16
engine: {engine}
parallelism: {{tp: 8}}
workloads:
  decode: {{batch: [1, 64], context: [8k]}}
"""

# Llama 3.1 70B tp 8, bf16, 8192 tokens and 256 sampled sequences, by hand:
#   residual + normed hidden state  8192 x 2 x 8192 x 2 B            = 268,435,456 B
#   FFN gate, up and their product  8192 x 3 x 28672 / 8 x 2 B       = 176,160,768 B
#   logits at the sampled positions 256 x 128256 x 4 B               = 131,334,144 B
HAND_70B_TP8 = 268_435_456 + 176_160_768 + 131_334_144  # 575,930,368 B = 0.576 GB


def _spec(tmp_path, engine="{memory_reserve: 0.1}"):
    path = tmp_path / "ws.yaml"
    path.write_text(SPEC.format(engine=engine), encoding="utf-8")
    return load_report(path)


def test_the_formula_is_the_hand_count_and_the_numeric_mirror(tmp_path):
    expr = memory.activation_workspace()
    at = {sym("T_w"): 8192, sym("n_sq"): 256, sym("d"): 8192, sym("d_ff"): 28672, sym("V"): 128256, sym("n_TP"): 8}
    assert float(expr.subs(at)) == HAND_70B_TP8
    # the logits of every token of the step (8192 x 128256 x 4 B = 4.2 GB) would be 7 times the whole workspace
    assert 8192 * 128256 * 4 > 7 * HAND_70B_TP8
    model = _spec(tmp_path).model
    assert (model.hidden_size, model.ffn_size, model.vocab_size) == (8192, 28672, 128256)
    assert activation_workspace(model, 8, 8192, 256) == HAND_70B_TP8
    assert activation_workspace(model, 1, 8192, 256) == float(expr.subs(at | {sym("n_TP"): 1}))
    assert activation_workspace(model, 1, 8192, 256) > 2 * HAND_70B_TP8  # the FFN's share is split tp ways


def test_every_fit_decision_gives_the_cache_what_is_left(tmp_path):
    spec = _spec(tmp_path)
    hw = spec.hardware
    assert hw.workspace == HAND_70B_TP8
    assert hw.usable == hw.capacity * 0.9 - HAND_70B_TP8
    assert usable_at(hw, spec.model, 8) == hw.usable
    r = evaluate(spec)
    assert r.scalars[r.lead]["capacity"] == hw.usable
    none = _spec(tmp_path, "{memory_reserve: 0.1, max_batched_tokens: 0, max_sequences: 0}")
    assert none.hardware.workspace == 0 and none.hardware.usable == none.hardware.capacity * 0.9
    # the replica's KV tokens: the workspace's bytes fewer on every GPU, at its KV bytes per token per GPU
    c_gpu = 80 * 2 * 8 * 128 * 2 / 8  # L 2 H_kv d_h b_kv over tp 8 (H_kv = 8 = tp: one KV head a GPU)
    lost = (none.hardware.usable - hw.usable) / c_gpu
    assert abs(lost - HAND_70B_TP8 / c_gpu) < 1e-6
    # the plan's point at the report's layout sees the same memory
    p_with = point(spec.model, hw, spec.precision, spec.parallelism, 1, 8192)
    p_without = point(none.model, none.hardware, none.precision, none.parallelism, 1, 8192)
    assert p_with.capacity_batch < p_without.capacity_batch


def test_the_inputs_table_shows_it(tmp_path):
    from genreport.present.render import _inputs
    r = evaluate(_spec(tmp_path, "{memory_reserve: 0.1, max_batched_tokens: 4096}"))
    row = next(x for x in _inputs(r) if x["what"].startswith("engine activation workspace"))
    assert "4,096 tokens, 256 sequences, tp 8" in row["value"]
    assert "engine.max_batched_tokens" in row["source"]


def test_a_serving_chunk_is_the_step_the_engine_profiles(tmp_path):
    """serving.chunk and engine.max_batched_tokens are one vLLM setting (max_num_batched_tokens): a spec that writes
    only the chunk sizes the workspace for it, not for the engine default of 8192 beside a 4,096-token chapter."""
    path = tmp_path / "ws.yaml"
    path.write_text(SPEC.format(engine="{memory_reserve: 0.1}")
                    + "serving: {prompt: 2k, output: 256, chunk: 4k}\n", encoding="utf-8")
    spec = load_report(path)
    assert spec.serving.chunk == 4096
    assert spec.hardware.max_batched_tokens == 4096
    # by hand at 4096 tokens, tp 8: 4096 x 2 x 8192 x 2 + 4096 x 3 x 28672 / 8 x 2 + 256 x 128256 x 4
    assert spec.hardware.workspace == 134_217_728 + 88_080_384 + 131_334_144
    assert spec.hardware.workspace == activation_workspace(spec.model, 8, 4096, 256)
    from genreport.present.render import _inputs
    row = next(x for x in _inputs(evaluate(spec)) if x["what"].startswith("engine activation workspace"))
    assert "4,096 tokens, 256 sequences, tp 8" in row["value"] and "serving.chunk" in row["source"]
    # the engine's own number still wins where given (and must then equal the chunk)
    path.write_text(SPEC.format(engine="{memory_reserve: 0.1, max_batched_tokens: 0}")
                    + "serving: {prompt: 2k, output: 256, chunk: 4k}\n", encoding="utf-8")
    assert load_report(path).hardware.workspace == 131_334_144  # logits only: no tokens profiled


def test_plan_counts_it_at_each_layouts_tp(capsys):
    import json

    from genreport.commands.cli import main

    def rows(*extra):
        assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--context", "32k", "--gpus", "2",
                     "--weights", "bf16,fp8,int4", "--format", "json", *extra]) == 0
        return {(r["precision"], r["tp"]): r for r in json.loads(capsys.readouterr().out)["rows"]}

    with_ws, without = rows(), rows("--max-batched-tokens", "0")
    # int4 weights, bf16 KV, tp 2: 70.6e9 x 0.5 B / 2 = 17.65e9 B of weights a GPU; the workspace at tp 2 (8192 tokens,
    # 256 sequences) is 8192 x 2 x (2 x 8192 + 3 x 28672 / 2) + 256 x 128256 x 4 = 1,104,412,672 B a GPU, and
    # one sequence of 32k holds 32768 x 80 x 2 x 8 x 128 x 2 / 2 = 5.369e9 B a GPU: (0.9 x 85.90e9 - 17.65e9) /
    # 5.369e9 = 11.1 -> 11 sequences without it, (77.31e9 - 17.65e9 - 1.104e9) / 5.369e9 = 10.9 -> 10 with it
    assert 8192 * 2 * (2 * 8192 + 3 * 28672 / 2) + 256 * 128256 * 4 == 1_104_412_672
    assert without[("int4", 2)]["batch"] == 11 and with_ws[("int4", 2)]["batch"] == 10
    assert all(with_ws[k]["batch"] <= without[k]["batch"] for k in with_ws)


# ----------------------------------------------------------------------------------------------- MoE layers
#
# vLLM's fused MoE (vllm/model_executor/layers/fused_moe/fused_moe.py, fused_experts_impl): for M = min(tokens,
# VLLM_FUSED_MOE_CHUNK_SIZE) tokens and top_k experts each, cache13 = M top_k max(N, K) elements (N = w1's rows, the
# gate and up projections of one expert's slice: 2 x intermediate / split; K = hidden) and intermediate_cache2 =
# M top_k N / 2, in the activation dtype.  Mixtral 8x7B (mistralai config.json): hidden 4096, intermediate 14336,
# 8 experts, top-2, vocab 32000, 32 layers.  DeepSeek-V3 (deepseek-ai config.json): hidden 7168, moe_intermediate
# 2048, dense intermediate 18432 (first 3 layers), top-8, vocab 129280, 61 layers.

def _catalog(name):
    from genreport.load.loader import load_model
    from shared import ROOT
    return load_model(ROOT / "specs" / "models" / f"{name}.yaml")


def test_mixtral_workspace_by_hand():
    m = _catalog("mixtral-8x7b")
    logits = 256 * 32000 * 4  # 32,768,000 B
    # tp 8, the experts split tensor-parallel: N = 2 x 14336 / 8 = 3584 < K = 4096, so cache13 is K wide
    # 8192 x 2 B x (2 x 4096 + 2 x (4096 + 1792)) = 327,155,712 B (the dense formula's 3 x 14336 / 8 gave 222,298,112)
    assert activation_workspace(m, 8, 8192, 256) == 327_155_712 + logits
    # tp 8 ep 8: each GPU holds whole experts and sizes the buffers for every routed pair, 2 x (28672 + 14336)
    assert activation_workspace(m, 8, 8192, 256, ep=8) == 8192 * 2 * (8192 + 2 * (28672 + 14336)) + logits
    assert activation_workspace(m, 8, 8192, 256, ep=8) == 1_576_271_872
    # one GPU: the same as whole experts (s_x = 1); the dense formula said 871,628,800
    assert activation_workspace(m, 1, 8192, 256) == 1_576_271_872


def test_deepseek_v3_workspace_by_hand():
    m = _catalog("deepseek-v3")
    logits = 256 * 129280 * 4  # 132,382,720 B
    # tp 8: the dense layers' 3 x 18432 / 8 = 6912 against the MoE layers' 8 x (max(2 x 2048 / 8, 7168) + 2048 / 8)
    # = 8 x 7424 = 59,392 a token: the MoE layers peak; 8192 x 2 x (2 x 7168 + 59392) = 1,207,959,552 B
    assert activation_workspace(m, 8, 8192, 256) == 1_207_959_552 + logits
    # tp 8 ep 8 (whole experts): 8 x (7168 + 2048) = 73,728 a token
    assert activation_workspace(m, 8, 8192, 256, ep=8) == 8192 * 2 * (14336 + 73728) + logits == 1_575_223_296
    # tp 8 pp 2: 61 layers as 31 + 30, the first stage decides the fit and computes no logits
    assert activation_workspace(m, 8, 8192, 256, pp=2) == 1_207_959_552


def test_the_logits_sit_on_the_last_stage():
    m = _catalog("llama-3.1-70b")
    one = activation_workspace(m, 2, 8192, 256)
    assert activation_workspace(m, 2, 8192, 256, pp=4) == one  # 4 x 20 layers: the last stage is one of the busiest
    assert activation_workspace(m, 2, 8192, 256, pp=3) == one - 256 * 128256 * 4  # 27, 27, 26: an earlier one decides


def test_the_moe_formula_is_the_numeric_mirror():
    expr = memory.activation_workspace_moe()
    m = _catalog("mixtral-8x7b")
    at = {sym("T_w"): 8192, sym("n_sq"): 256, sym("d"): 4096, sym("d_fx"): 14336, sym("V"): 32000, sym("k_e"): 2}
    for tp, ep in ((8, 1), (8, 8), (2, 1), (4, 2), (1, 8), (2, 8)):
        s_x, g_x = max(tp / ep, 1), max(ep / tp, 1)
        assert float(expr.subs(at | {sym("s_x"): s_x, sym("g_x"): g_x})) == activation_workspace(m, tp, 8192, 256,
                                                                                                 ep=ep)


def test_an_moe_report_counts_the_experts_buffers(tmp_path):
    path = tmp_path / "mx.yaml"
    path.write_text(SPEC.replace("llama-3.1-70b", "mixtral-8x7b").format(engine="{memory_reserve: 0.1}")
                    .replace("{tp: 8}", "{tp: 8, ep: 8}"), encoding="utf-8")
    spec = load_report(path)
    assert spec.hardware.workspace == 1_576_271_872
    assert usable_at(spec.hardware, spec.model, 8, 8) == spec.hardware.usable


# ----------------------------------------------------------------------------------------------- one step budget

def _serving_spec(tmp_path, engine: str, chunk: str = ""):
    path = tmp_path / "sv.yaml"
    path.write_text(SPEC.format(engine=engine) + "serving:\n  prompt: 2k\n  output: 256\n" + chunk, encoding="utf-8")
    return load_report(path)


def test_the_chunk_is_the_engines_step_budget(tmp_path):
    """serving.chunk and engine.max_batched_tokens are vLLM's one max_num_batched_tokens: the chunk takes the
    engine's number, the default 8192 where the engine block is silent or sets 0 (no workspace)."""
    assert _serving_spec(tmp_path, "{memory_reserve: 0.1}").serving.chunk == 8192
    s = _serving_spec(tmp_path, "{memory_reserve: 0.1, max_batched_tokens: 2048}")
    assert s.serving.chunk == 2048 == s.hardware.max_batched_tokens
    same = _serving_spec(tmp_path, "{max_batched_tokens: 2048}", "  chunk: 2k\n")
    assert same.serving.chunk == 2048
    off = _serving_spec(tmp_path, "{max_batched_tokens: 0, max_sequences: 0}", "  chunk: 512\n")
    assert off.serving.chunk == 512 and off.hardware.workspace == 0
    assert _serving_spec(tmp_path, "{max_batched_tokens: 0, max_sequences: 0}").serving.chunk == 8192


def test_the_fused_moe_buffers_stop_at_one_chunk():
    """vLLM runs the experts over at most 32,768 tokens at a time (VLLM_FUSED_MOE_CHUNK_SIZE): a 65,536-token step's
    buffers are one chunk's, its residual stream the whole step's.  Mixtral 8x7B, one GPU, no logits rows."""
    m = _catalog("mixtral-8x7b")
    assert activation_workspace(m, 1, 65536, 0) == 2 * (2 * 4096 * 65536 + 32768 * 2 * (28672 + 14336))
    expr = memory.activation_workspace_moe()
    at = {sym("T_w"): 65536, sym("n_sq"): 0, sym("d"): 4096, sym("d_fx"): 14336, sym("V"): 32000, sym("k_e"): 2,
          sym("s_x"): 1, sym("g_x"): 1}
    assert float(expr.subs(at)) == activation_workspace(m, 1, 65536, 0)


# ----------------------------------------------------------------------------------------------- data-parallel attention
#
# SGLang with --enable-dp-attention and no MoE all-to-all backend gathers every rank's tokens before a sparse layer and
# runs each GPU's experts on all of them (python/sglang/srt/layers/communicator.py, commit fd3907ee, LayerScatterModes:
# a sparse layer's mlp_mode is ScatterMode.FULL, "[abcd, abcd, abcd, abcd]" for TP=4, DP=2; layers/dp_attention.py,
# commit 00161092, get_global_dp_buffer: (global_dp_buffer_len, hidden_size) in the model dtype).  DeepSeek-V3
# (deepseek-ai config.json): hidden 7168, moe_intermediate 2048, top-8, vocab 129280.  H200: 141 GB (the catalog's
# capacity), the default 10% reserve.

def test_deepseek_v3_dp_attention_workspace_by_hand():
    m = _catalog("deepseek-v3")
    logits = 256 * 129280 * 4  # 132,382,720 B
    # tp 1, dp 8, ep 8 on 8 x H200: each rank's step is 8192 tokens; the MoE layer of every GPU runs on the 8 ranks'
    # 65,536 tokens (g_x = ep / tp = 8), so the fused-MoE buffers stop at one 32,768-token chunk:
    residual = 8192 * 7168 * 2  # the rank's own residual stream, 117,440,512 B
    gathered = 8 * 8192 * 7168 * 2  # the gathered hidden state, 939,524,096 B
    buffers = 32768 * 8 * (7168 + 2048) * 2  # cache13 (K = 7168 > N = 4096) and intermediate_cache2, 4,831,838,208 B
    assert residual + gathered + buffers + logits == 6_021_185_536
    assert activation_workspace(m, 1, 8192, 256, ep=8) == 6_021_185_536
    # the rank's own batch alone (the rule before: 8192 x 8 routed pairs) was 1,575,223,296 B, as tp 8 ep 8 still is
    assert activation_workspace(m, 8, 8192, 256, ep=8) == 1_575_223_296
    # SGLang divides --chunked-prefill-size by dp_size: 1024 tokens a rank gather to 8192, under one chunk
    assert activation_workspace(m, 1, 1024, 256, ep=8) == (2 * (1024 * 7168 + 8192 * 7168 + 8192 * 8 * (7168 + 2048))
                                                           + logits)
    # tp 2, dp 4, ep 8: the experts' group holds 4 replicas' tokens (g_x = 4), 32,768 of them
    assert activation_workspace(m, 2, 8192, 256, ep=8) == 2 * (2 * 8192 * 7168 + 3 * 8192 * 7168
                                                               + 32768 * 8 * (7168 + 2048)) + logits


def test_dp_attention_workspace_decides_the_fit(tmp_path):
    """The report, plan's point and the live page's usable memory all take the gathered workspace."""
    from genreport.load.loader import _precision
    from genreport.load.spec import Parallelism
    from shared import ROOT

    spec = load_report(ROOT / "specs" / "deepseek-v3-h200-ep8.yaml")
    hw, m = spec.hardware, spec.model
    assert spec.parallelism.tp == 1 and spec.parallelism.ep == 8 and spec.parallelism.dp == 8
    assert hw.workspace == 6_021_185_536
    assert usable_at(hw, m, 1, 8) == hw.usable == hw.capacity * 0.9 - 6_021_185_536
    # plan's point at the layout holds fewer sequences than the rank's own batch alone would allow
    par = Parallelism(1, 1, 8, 8)
    p = point(m, hw, _precision("fp8"), par, 1, 8192)
    c = 61 * (512 + 64) * 1 * 8192  # one fp8 latent sequence of 8k, 287,834,112 B
    lost = (6_021_185_536 - 1_575_223_296) / c  # 15.4 sequences of 8k a GPU
    import dataclasses
    flat = dataclasses.replace(hw, max_batched_tokens=1024)  # SGLang's own division: 8192 gathered
    assert point(m, flat, _precision("fp8"), par, 1, 8192).capacity_batch - p.capacity_batch > lost - 1
