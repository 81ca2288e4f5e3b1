"""What tensor parallelism does not split: N_R, the parameters every GPU of the group holds whole beyond one copy.

vLLM, SGLang and TensorRT-LLM shard a checkpoint so that each tensor-parallel GPU holds whole: the norm weights, the
MoE router (vLLM's ``gate = ReplicatedLinear``), MLA's down-projections ``q_a_proj`` and ``kv_a_proj_with_mqa`` with
the latent norms after them (ReplicatedLinear), a row-parallel layer's bias; and, past tp = H_kv, one whole KV head's
K and V projections (QKVParallelLinear's num_kv_head_replicas = tp / H_kv).  Each GPU holds, reads and computes with
them: N_R = N_u (tp - 1) + N_k (tp / s_kv - 1) more parameters in the replica (formulas.parallel.N_R).  The counts
below are by hand from the model files' shapes (specs/models/*.yaml, the Hugging Face configs they cite).
"""

from __future__ import annotations

import pytest
from genreport.formulas import architecture as arch
from genreport.load.loader import load_report
from genreport.model.env import layout_slice, make_env
from genreport.model.evaluate import evaluate
from test_layout_frame import GIB, SPEC, spec_at, value


def test_deepseek_v3_holds_its_latent_projections_and_router_whole(tmp_path):
    """DeepSeek-V3 (61 layers, d = 7168, q_lora_rank 1536, kv_lora_rank 512, qk_rope_head_dim 64; 58 MoE layers of 256
    experts) at tp 8 in fp8 on H200."""
    d, layers = 7168, 61
    down = d * (512 + 64) + 512 + d * 1536 + 1536  # kv_a_proj_with_mqa, its latent norm; q_a_proj, its norm
    assert down == 15_140_864
    norms = layers * 2 * d + d  # before attention and FFN, and the final norm
    router = 58 * d * 256
    whole = layers * down + norms + router
    assert whole == 1_030_904_832
    spec = spec_at(tmp_path, model="deepseek-v3", hw="h200", precision="fp8", tp=8)
    pc = arch.parameter_count(spec.model)
    assert (pc.replicated, pc.replicated_attention, pc.kv_projections) == (whole, layers * down, 0)  # MLA: no K/V
    cut = layout_slice(spec.model, spec.parallelism)
    assert cut.copies == 7 * whole == 7_216_333_824
    r = evaluate(spec)
    n = r.entry("parameters").value  # the declared 671e9 (seed accounting)
    w = (n + 7 * whole) / 8  # one byte a weight
    assert value(r, "weight_bytes") == pytest.approx(w, rel=1e-12)
    # 0.90 GB a GPU more than an even split of every weight: 1.1% of the weights, the cache room 2% less
    assert w - n / 8 == pytest.approx(0.902e9, rel=1e-3)
    # vLLM (Habana's fork) loading DeepSeek-R1, the same 671B architecture in fp8, over 8 devices: "Pre-loading
    # model weights on hpu:0 took 79.41 GiB of device memory" (github.com/HabanaAI/vllm-fork issue 809, 2025-02-07),
    # its bf16 embedding, head, norms and router and fp8 block scales beside; the even split (78.1 GiB) was further
    # from it than the count with the copies (78.96 GiB), which stays below it
    assert n / 8 / GIB < w / GIB < 79.41
    assert w / GIB == pytest.approx(78.96, abs=0.01)
    # in the checkpoint's own formats (fp8 blocks with their scales, bf16 embedding, head, norms and router): 79.18 GiB,
    # 0.3% under what vLLM loaded
    path = tmp_path / "checkpoint.yaml"
    path.write_text(SPEC.format(name="checkpoint", model="deepseek-v3", hw="h200", precision="{weights: checkpoint}",
                                tp=8, pp=1, ep=1, dp=1), encoding="utf-8")
    ck = evaluate(load_report(path))
    assert value(ck, "weight_bytes") / GIB == pytest.approx(79.18, abs=0.01) and value(ck, "weight_bytes") / GIB < 79.41


def test_qwen3_replicates_its_kv_projections_past_four_gpus(tmp_path):
    """Qwen3-235B-A22B (94 layers, d = 4096, 4 KV heads of 128, per-head q/k norms, 128 routed experts on every layer)
    at tp 8: each GPU holds one KV head's K and V projections, two GPUs per head."""
    d, layers = 4096, 94
    kv = layers * 2 * d * 4 * 128
    norms = layers * 2 * d + d + layers * 2 * 128
    router = layers * d * 128
    spec = spec_at(tmp_path, model="qwen3-235b-a22b", hw="h200", precision="fp8", tp=8, ep=8)
    pc = arch.parameter_count(spec.model)
    assert (pc.kv_projections, pc.replicated) == (kv, norms + router) == (394_264_576, 50_081_280)
    # s_kv = min(8, 4) = 4: the K/V projections are held 8 / 4 = 2 times, one more copy; the rest 8 times
    assert layout_slice(spec.model, spec.parallelism).copies == kv * (8 / 4 - 1) + (norms + router) * 7
    # at tp 4 the KV heads split evenly: only the norms and router are copied
    four = spec_at(tmp_path, model="qwen3-235b-a22b", hw="h200", precision="fp8", tp=4)
    assert layout_slice(four.model, four.parallelism).copies == (norms + router) * 3


def test_a_two_node_405b_holds_each_kv_head_twice(tmp_path):
    """Llama 3.1 405B (126 layers, d = 16384, 8 KV heads of 128) at tp 16: the K and V projections, 4.23e9 parameters,
    split 8 ways, not 16 (268 MB a GPU more in fp8, with the norms' copies)."""
    spec = spec_at(tmp_path, model="llama-3.1-405b", hw="h200", precision="fp8", tp=16)
    kv = 126 * 2 * 16384 * 8 * 128
    norms = 126 * 2 * 16384 + 16384
    assert layout_slice(spec.model, spec.parallelism).copies == kv + norms * 15
    env = make_env(spec.hardware, spec.model, spec.precision, "exact", 0.0, spec.parallelism)
    assert env.values["N"] * 16 == pytest.approx(env.card["N"] + kv + norms * 15, rel=1e-12)
    assert (kv + norms * 15) / 16 == 268_127_232


def test_the_copies_are_read_and_computed_with(tmp_path):
    """A decode step at tp 8 streams every GPU's whole norms too, and computes with them: Llama 3.1 70B in bf16, batch
    1 at 1,024 tokens, the weights over W (the bound's memory side), and the FLOPs 2 N_a,g + 4 L_g H_q,g d_h S."""
    r = evaluate(spec_at(tmp_path, tp=8))
    copies = 7 * (80 * 2 * 8192 + 8192)
    n_a = r.entry("parameters").value  # dense: N_a = N, 70.6e9 declared
    flops = value(r, "decode_flops", batch=1, context=1024)  # one GPU's at the layout
    assert flops == pytest.approx((2 * (n_a + copies) + 4 * 80 * 64 * 128 * 1024) / 8, rel=1e-12)
    t = value(r, "decode_time_memory", batch=1, context=1024)
    assert t == pytest.approx(((70.6e9 + copies) * 2 / 8 + 1024 * 2 * 80 * 8 * 128 * 2 / 8) / 3.35e12, rel=1e-12)


def test_one_gpu_holds_one_copy(tmp_path):
    """N_R is 0 on one GPU: the seeds' numbers stay."""
    spec = spec_at(tmp_path, model="deepseek-v3", hw="h200", precision="fp8", tp=1)
    assert layout_slice(spec.model, spec.parallelism).copies == 0.0
    assert arch.parameter_count(spec.model).tp_copies(1, 1.0) == 0.0


def test_the_fewest_gpus_price_each_candidates_copies_in_their_own_formats(tmp_path):
    """DeepSeek-V3 with nvfp4 experts and bf16 the rest on a 95.5 GiB card (102.54 GB, no reserve): tp 4 holds the
    weights (its 3 more copies of the 1,030,904,832 in bf16: 101.85 GB a GPU) and 9 sequences of 1,024 tokens, so the
    fewest GPUs are 4, from a report at tp 4 or at tp 8.  A review found the tp 8 report pricing tp 4's weights at tp
    8's mean bytes per weight (its seven bf16 copies in it: 103.49 GB, over the memory) and answering 8."""
    answers = []
    for tp in (4, 8):
        path = tmp_path / f"pc{tp}.yaml"
        path.write_text(SPEC.format(name=f"pc{tp}", model="deepseek-v3", hw="h200",
                                    precision="{weights: {experts: nvfp4, default: bf16}}", tp=tp, pp=1, ep=1, dp=1),
                        encoding="utf-8")
        r = evaluate(load_report(path, ("hardware.memory.capacity=95.5 GiB",)))
        answers.append(value(r, "min_gpus_to_fit", batch=1, context=1024))
        if tp == 4:
            assert r.parallel.scalars[r.lead]["weight_bytes_per_gpu"] == pytest.approx(101.85e9, rel=1e-4)
            assert value(r, "capacity_batch", context=1024) == 9
    assert answers == [4, 4]
