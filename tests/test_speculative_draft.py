"""Issue 30: a draft model declared in the spec (serving.speculative.draft_model): the drafts' time t_d derived from
its k_d forward passes (formulas/techniques.draft_time_bound), its memory in the fit (capacity_batch_draft), the
bad specs, ``plan --speculative K,P,MODEL`` and one published draft-target run re-checked with the derived t_d.

Hand counts from the catalog's config.json numbers: Llama 3.2 1B (specs/models/llama-3.2-1b.yaml, meta-llama/
Llama-3.2-1B config.json): 1,235,800,000 parameters (tied embeddings, read once), 16 layers, 8 KV heads of 64:
KV 16 x 2 x 8 x 64 x 2 B = 32,768 B per token in bf16.  H100 SXM: 3.35 TB/s, 989.4 TFLOP/s dense bf16
(specs/hardware/h100-sxm.yaml)."""

from __future__ import annotations

import numpy as np
import pytest
from genreport.errors import SpecError
from genreport.formulas.compiled import load
from genreport.load.loader import load_report
from shared import ROOT, evaluated

# Llama 3.2 1B's norms (16 layers x 2 x 2,048 and the final 2,048), which each GPU of tp 8 holds whole: 7 more copies
DRAFT_COPIES = 7 * (16 * 2 * 2048 + 2048)

SPEC = "llama70b-h100-tp8.yaml"
DRAFT = ("serving.speculative.draft_model=llama-3.2-1b", "serving.speculative.draft_tokens=4")


def _draft():
    from genreport.model.draft import of_spec

    return of_spec(evaluated(SPEC, DRAFT).spec)


def test_one_pass_of_llama_3_2_1b_by_hand():
    """Batch 1 at 4,096 tokens: Q_d = 1.2358e9 x 2 B + 4,096 x 32,768 B = 2.4716 GB + 0.1342 GB = 2.6058 GB;
    F_d = 2 x 1.2358e9 + 4 x 16 x 32 x 64 x 4,096 = 2.4716 + 0.5369 = 3.0085 GFLOP.  On one H100 each pass takes
    at least 2.6058 GB / 3.35 TB/s = 0.7779 ms (memory-bound: 3.0 GFLOP / 989.4 TFLOP/s = 3 us), four passes 3.111 ms;
    at the target's tp 8 the replica's eight GPUs stream it at 8 x 3.35 TB/s: 0.3889 ms."""
    q, d = load(), _draft()
    f, b = d.ledgers(q, np.asarray([1.0]), 4096.0)
    assert b[0] == pytest.approx(1.2358e9 * 2 + 4096 * 32768, rel=1e-9)
    assert f[0] == pytest.approx(2 * 1.2358e9 + 4 * 16 * 32 * 64 * 4096, rel=1e-9)
    one = d.time(q, 4, np.asarray([1.0]), 4096.0, 1.0, 1.0)[0]
    assert one == pytest.approx(4 * 2.60582e9 / 3.35e12, rel=1e-5) and one == pytest.approx(3.111e-3, abs=1e-6)
    tp8 = d.time(q, 4, np.asarray([1.0]), 4096.0, 8.0, 1.0)[0]
    assert tp8 == pytest.approx(one / 8) and tp8 == pytest.approx(0.3889e-3, abs=1e-7)
    # memory at tp 8: the weights an eighth each (308.95 MB) and the norms each GPU holds whole (16 layers x 2 x
    # 2,048 + the final 2,048, 7 more copies: tests/test_tp_copies.py), the cache 8 KV heads over 8 GPUs (4,096 B)
    m_d, c_d = d.memory(q, 4096.0, 8, 1.0)
    assert m_d == pytest.approx((1.2358e9 + DRAFT_COPIES) * 2 / 8) and c_d == 32768 / 8


def test_limits_and_the_bound_holds_for_any_split():
    """A draft of zero size costs nothing (t_d = 0) and takes no memory (the capacity without a draft); a draft on
    fewer GPUs (vLLM's draft_tensor_parallel_size 1) only takes longer, so dividing by the replica's GPUs keeps a
    lower bound; k_d passes cost k_d times one."""
    q = load()
    zero = {"k_d": 4.0, "F_d": 0.0, "Q_d": 0.0, "P": 989.4e12, "W": 3.35e12, "n_TP": 8.0, "n_St": 1.0}
    assert float(q["draft_time_bound"](zero)) == 0.0
    one = dict(zero, F_d=3.0e9, Q_d=2.6e9, k_d=1.0)
    assert float(q["draft_time_bound"](dict(one, k_d=4.0))) == pytest.approx(4 * float(q["draft_time_bound"](one)))
    assert float(q["draft_time_bound"](one)) < float(q["draft_time_bound"](dict(one, n_TP=1.0)))
    r = evaluated(SPEC)
    from genreport.model.draft import replica_capacity

    plain, with_none, m_d, c_d = replica_capacity(r.spec, 4351.0)
    assert plain == with_none and m_d == c_d == 0.0


def test_the_report_derives_t_d_and_the_fit_sees_the_draft():
    """The lever row at the serving chapter's busiest batch: t_d from the draft (not 0.05 of a step), the printed
    formula's t_d that number (at the mean context, the tok/s' speed-up), and the draft's weights and cache leave
    fewer sequences (313 -> 283 of the last context's 4,607 tokens per replica, as plan counts them:
    (C - w_g - 309 MB) / ((40,960 + 4,096) B x 4,607)); the serving chapter's batches stay within it."""
    r = evaluated(SPEC, DRAFT)
    n = r.serving["techniques"]["numbers"]
    assert n["draft_model"] == "Llama 3.2 1B"
    assert n["capacity_with_draft"] < n["capacity_plain"]
    assert n["capacity_plain"] == 313 and n["capacity_with_draft"] == 283
    t_d = 4 * max(n["draft_flops_pass"] / (8 * 989.4e12), n["draft_bytes_pass"] / (8 * 3.35e12))
    assert n["draft_time_mean"] == pytest.approx(t_d)
    assert n["draft_time_mean"] / n["plain_round_mean"] != pytest.approx(0.05, abs=0.01)
    assert r.blocks["tech_speculative_mean"].inputs["t_d"] == pytest.approx(t_d)
    assert r.blocks["tech_speculative"].inputs["t_d"] == n["draft_time_last"] > t_d  # its cache reads grow with S
    assert r.blocks["tech_draft"].entry.value == pytest.approx(t_d)
    assert max(row["batch"] for row in r.serving["rows"]) <= r.serving["capacity_batch"] <= 283
    row = next(x for x in r.serving["techniques"]["rows"] if x["technique"] == "speculative decoding")
    assert "drafted by Llama 3.2 1B" in row["setting"] and "sequences" in row["ends"]


def _spec(tmp_path, speculative: str):
    text = (ROOT / "specs" / SPEC).read_text(encoding="utf-8")
    text = text.replace("speculative: {draft_tokens: 3, acceptance: 0.8, draft_cost: 0.05}", speculative)
    text = text.replace("hardware: h100-sxm", f"hardware: {ROOT / 'specs/hardware/h100-sxm.yaml'}")
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("speculative, words", [
    ("speculative: {draft_tokens: 3, acceptance: 0.8, draft_cost: 0.05, draft_model: llama-3.2-1b}", "both"),
    ("speculative: {draft_tokens: 3, acceptance: 0.8, draft_model: llama-2-7b}", "vocabulary of 32,000"),
    ("speculative: {draft_tokens: 3, acceptance: 0.8, draft_model: llama-9-1b}", "llama-9-1b"),
    ("speculative: {draft_tokens: 3, acceptance: 0.8, draft_precision: fp8}", "draft_precision without"),
    # draft_layers (an EAGLE/MTP head) excludes a draft model and a cost
    ("speculative: {draft_tokens: 1, acceptance: 0.8, draft_layers: 1, draft_model: llama-3.2-1b}",
     "draft_layers and draft_model"),
    ("speculative: {draft_tokens: 1, acceptance: 0.8, draft_layers: 1, draft_cost: 0.05}", "draft_layers and draft_cost"),
])
def test_bad_draft_specs_name_the_line_and_the_fix(tmp_path, speculative, words):
    path = _spec(tmp_path, speculative)
    with pytest.raises(SpecError) as exc:
        load_report(path)
    text = str(exc.value)
    assert words in text and "s.yaml" in text and "Traceback" not in text
    assert any(f.hint for f in exc.value.findings)
    if words.startswith("draft_layers and "):
        assert any("keep draft_layers" in (f.hint or "") for f in exc.value.findings)


def test_set_swaps_draft_cost_for_a_draft_model():
    """--set serving.speculative.draft_model=... replaces the written draft_cost (and draft_cost the model)."""
    spec = load_report(ROOT / "specs" / SPEC, list(DRAFT))
    assert spec.serving.speculative.draft.name == "llama-3.2-1b"
    assert spec.serving.speculative.draft_precision.weights == "bf16"
    back = load_report(ROOT / "specs" / SPEC, [*DRAFT, "serving.speculative.draft_cost=0.1"])
    assert back.serving.speculative.draft is None and back.serving.speculative.draft_cost == 0.1


def test_plan_takes_a_draft_model():
    from genreport.commands.plan import _draft, _speculative

    k = _speculative("4,0.8,llama-3.2-1b")
    assert k == (4, 0.8, "llama-3.2-1b", 5)
    target = evaluated(SPEC).spec.model
    assert _draft(k, target, "4,0.8,llama-3.2-1b")[0][2].name == "llama-3.2-1b"
    with pytest.raises(SpecError, match="vocabulary"):
        _draft(_speculative("4,0.8,llama-2-7b"), target, "4,0.8,llama-2-7b")
    assert _speculative("3,0.7,0.1") == (3, 0.7, 0.1, 4)


def test_tensorrt_llm_draft_target_on_h200_with_the_derived_drafts():
    """The NVIDIA post of tests/test_speculative_published.py (Llama 3.3 70B target on one H200 in fp8, 51.14 ->
    181.74 tokens/s with a draft model) re-run with t_d derived instead of typed: the smallest Llama 3 draft of the
    catalog, Llama 3.2 1B, in fp8 at batch 1 and a short context reads at least 1.2358 GB a pass, 0.2575 ms at
    4.8 TB/s, against the target's 70.6 GB, 14.71 ms: t_d / t_s = 0.0175 per draft token, 0.070 for 4 drafts (the
    typed default draft_cost 0.05 is under it).  The measured 181.74 tokens/s then needs E >= 181.74 x (14.71 +
    1.03) ms = 2.86 tokens per verify step with 4 drafts (2.67 with a free draft): the ratio measured / bound-with-
    draft is 181.74 / (E_max / (t_s + t_d)) = 181.74 / (5 / 15.74 ms) = 0.572 at E's ceiling of 5; a larger draft
    only raises t_d, so the check holds whichever Llama 3 draft the post ran."""
    t_s = 70.6e9 / 4.8e12
    per = 1.2358e9 / 4.8e12
    assert per == pytest.approx(0.2575e-3, rel=1e-3) and per / t_s == pytest.approx(0.0175, abs=5e-4)
    q = load()
    t_d = float(q["draft_time_bound"]({"k_d": 4.0, "F_d": 2 * 1.2358e9, "Q_d": 1.2358e9, "P": 1978.9e12, "W": 4.8e12,
                                       "n_TP": 1.0, "n_St": 1.0}))
    assert t_d == pytest.approx(4 * per) and t_d / t_s == pytest.approx(0.070, abs=1e-3)
    needed = 181.74 * (t_s + t_d)
    assert needed == pytest.approx(2.86, abs=0.01) and needed < 5
    assert 181.74 / (5 / (t_s + t_d)) == pytest.approx(0.572, abs=2e-3)


def test_plan_fits_the_draft_beside_the_target():
    """plan with the 1B draft (fp8 rows: the draft in fp8 too): each layout holds fewer sequences and keeps less free
    memory than with a typed draft_cost; at tp 2 the draft takes 1.2358 GB / 2 of weights and 64 x 4,607 tokens x
    16,384 B / 2 of cache, 3.0 GB = 2.8 GiB a GPU."""
    from genreport.model.plan import Shape, plan

    spec = evaluated(SPEC).spec
    d = _draft()
    kw = dict(precisions=("fp8",), max_gpus=2, shape=Shape(4096, 512, None, None))
    typed = plan(spec.model, spec.hardware, 64, 4607, 0.05, speculative=(4, 0.8, 0.05, 5), **kw)
    drafted = plan(spec.model, spec.hardware, 64, 4607, 0.05, speculative=(4, 0.8, d.model, 5), **kw)
    a = {(r.tp, r.pp): r for r in typed.rows}
    b = {(r.tp, r.pp): r for r in drafted.rows}
    assert a.keys() == b.keys() and (2, 1) in a
    for key in a:
        assert b[key].concurrency < a[key].concurrency
        assert b[key].spec_speedup < a[key].spec_speedup
    freed = a[2, 1].headroom_bytes - b[2, 1].headroom_bytes
    assert freed == pytest.approx((1.2358e9 + DRAFT_COPIES / 7) / 2 + 64 * 4607 * 16384 / 2, rel=1e-6)


# Every capacity one report states with a draft, by hand: Llama 3.1 70B in bf16 at tp 8 on H100 SXM with Llama 3.2 1B
# drafting 4 tokens, half of each prompt cached and a 512-token step budget (4k prompts, 512 outputs).  Per GPU of the
# replica: C = 0.9 x 80 GiB less one engine step's activations, at the 512-token step serving.chunk=512 sets (vLLM's
# one max_num_batched_tokens: 512 x 2 B x (2 x 8,192 + 3 x 28,672 / 8) + 256 x 128,256 x 4 B = 159,121,408 B;
# tests/test_techniques_report.py) = 77,150,289,920 B; the target's weights
# 70.6e9 x 2 B / 8 = 17.65 GB and KV 80 x 2 x 8 x 128 x 2 B / 8 = 40,960 B a token; the draft's weights
# 1.2358e9 x 2 B / 8 = 308.95 MB and KV 32,768 B / 8 = 4,096 B a token (the catalog's config.json numbers above).
CAP_GPU = 0.9 * 80 * 2**30 - (512 * 2 * (2 * 8192 + 3 * 28672 / 8) + 256 * 128256 * 4)
CAP_8K = 0.9 * 80 * 2**30 - 575_930_368  # a spec without a chunk: the engine's default 8,192-token step
# Each GPU holds the norms of both whole (7 more copies over 8 GPUs: tests/test_tp_copies.py).
W_GPU, C_GPU, M_D, C_D = (70.6e9 + 7 * 1_318_912) * 2 / 8, 40960, (1.2358e9 + DRAFT_COPIES) * 2 / 8, 4096
ROOM, KV = CAP_GPU - W_GPU - M_D, C_GPU + C_D  # 59,191,339,920 B beside both models' weights; 45,056 B a token
CAPACITY = ("serving.speculative.draft_model=llama-3.2-1b", "serving.speculative.draft_tokens=4",
            "serving.prefix_hit=0.5", "serving.chunk=512")


def test_every_capacity_of_a_report_takes_the_draft(capsys):
    """One number, one place: the serving chapter's batch limit, the lever row's fit, the KV cache room of the
    goodput, the prefix-cache capacities, the rate figure's capacity, the memory ledger (figure 5) and ``derive``
    all take the draft's weights and cache.  Hand counts (the room 59,191,339,920 B, 45,056 B a token):
    - the chapter's batch limit at the last context 4,607: floor(room / (45,056 x 4,607)) = 285, the lever row's
      and plan's too (315 without the draft: (C - w_g) / (40,960 x 4,607) = 315.3);
    - the KV cache room: R W / (511 x 2,304 x 45,056 x 17.65e9 + R Q_r), R = room - 2,048 x 45,056 (the shared
      half of the prompt held once, each running sequence its own 4,352 - 2,048 tokens on average), Q_r = 511 x
      4,352 x 40,960 + 2,048 x 40,960 x (1 + (6,144 - 512) / 1,024) (request_bytes: the draft's cache takes room,
      the target's reads time) = 31.17 requests/s per replica (31.62 without the draft);
    - the prefix cache, 2,048 tokens held once: floor((room - 2,048 x 45,056) / (2,559 x 45,056)) = 512 (before:
      floor(room / (4,607 x 45,056)) = 285), sequences that fit at the last context 4,607; the rate figure's
      sequences held at the mean context 4,352, as the KV cache room counts them (issue 30's review: it took the
      last context's 508.96 where the chapter's ceiling took the mean), (room - 2,048 x 45,056) / (2,304 x 45,056)
      = 569.3."""
    r = evaluated(SPEC, CAPACITY)
    assert r.envs[r.lead].values["C"] == pytest.approx(CAP_GPU, rel=1e-12)
    n = r.serving["techniques"]["numbers"]
    assert n["draft_weights_gpu"] == pytest.approx(M_D) and n["draft_kv_token_gpu"] == C_D
    assert r.serving["capacity_batch"] == int(ROOM / (KV * 4607)) == 285
    assert n["capacity_with_draft"] == int(ROOM / (KV * 4607)) == 285
    assert n["capacity_plain"] == int((CAP_GPU - W_GPU) / (C_GPU * 4607)) == 315
    q_r = 511 * 4352 * C_GPU + 2048 * C_GPU * (1 + (4096 * 1.5 - 512) / 1024)
    room = ROOM - 2048 * KV
    ceiling = room * 3.35e12 / (511 * 2304 * KV * W_GPU + room * q_r)
    assert n["goodput_rate_capacity"] == pytest.approx(ceiling, rel=1e-9) and ceiling == pytest.approx(31.17, abs=0.01)
    plain = CAP_GPU - W_GPU - 2048 * C_GPU
    plain = plain * 3.35e12 / (511 * 2304 * C_GPU * W_GPU + plain * q_r)
    assert plain == pytest.approx(31.62, abs=0.01)  # the ceiling without the draft's room
    assert n["prefix_capacity_after"] == int((ROOM - 2048 * KV) / (2559 * KV)) == 512
    assert n["prefix_capacity_before"] == int(ROOM / (4607 * KV)) == 285
    rates = r.serving["techniques"]["rates"]
    assert rates["held_sequences_mean"] == pytest.approx((ROOM - 2048 * KV) / (2304 * KV), rel=1e-12)
    from genreport.present.figures.fig5_memory_ledger import _ledger

    name, parts = _ledger(r)[-1]
    assert [p[0] for p in parts] == ["bf16 weights", "draft Llama 3.2 1B", "KV cache"]
    assert [p[1] for p in parts] == pytest.approx([W_GPU, M_D, ROOM], rel=1e-12)
    from genreport.commands.cli import main

    spec = str(ROOT / "specs" / SPEC)
    sets = [x for o in CAPACITY for x in ("--set", o)]
    assert main(["derive", "goodput_rate_capacity", "--spec", spec, *sets]) == 0
    out = capsys.readouterr().out
    line = [x for x in out.splitlines() if x.strip().startswith("lambda_C =")][-1]
    assert float(line.split("=")[-1].split()[0]) == pytest.approx(ceiling, rel=1e-3)


def test_the_memory_figures_caption_counts_the_draft_it_draws():
    """Figure 5's inference bar stacks the target's weights, the draft's and the KV cache in the rest (by hand above:
    W_GPU, M_D, ROOM on each GPU of tp 8); its caption said "16.44 GiB of bf16 weights plus 55.02 GiB of KV cache
    fill each GPU", the KV the room beside the target alone and the draft's 0.2877 GiB left out, where the bar drew
    54.74 GiB of KV cache (at the 8,192-token workspace then; 55.13 GiB at the chunk's 512 now).  The caption now
    names the bar's three parts."""
    from genreport.present.figures.fig5_memory_ledger import caption5
    from genreport.present.figures.style import gib

    r = evaluated(SPEC, CAPACITY)
    assert (f"Inference: {gib(W_GPU)} GiB of bf16 weights, {gib(M_D)} GiB of the draft Llama 3.2 1B and "
            f"{gib(ROOM)} GiB of KV cache fill each GPU.") in caption5(r)
    assert f"{gib(W_GPU)} GiB of bf16 weights plus" in caption5(evaluated(SPEC))  # no draft model: two parts


HEAD = ("serving.speculative.draft_layers=1", "serving.speculative.draft_tokens=1")


def test_an_eagle_head_of_one_layer_by_hand():
    """``draft_layers: 1`` (EAGLE, Li et al. ICML 2024 section 3: one decoder layer and the target's LM head;
    DeepSeek-V3 report 2.2: an MTP module one Transformer block sharing embedding and output head) for the 70B at
    tp 8: one Llama 3.1 70B layer holds 2 x 8,192^2 + 2 x 8,192 x 1,024 + 3 x 8,192 x 28,672 + 2 x 8,192 =
    855,654,400 weights (and the final norm's 8,192), 213,915,648 B on each of 8 GPUs in bf16, the head's
    128,256 x 8,192 held once by the target; its cache 2 x 8 x 128 x 2 B / 8 = 512 B a token on a GPU.  A pass at
    batch B reads the layer, the norm and the head, 2 x (855,662,592 + 1,050,673,152) B, and B x 4,352 x 4,096 B of
    its cache (4,096 B a token over the replica): t_d >= Q_d / (8 x 3.35 TB/s)."""
    r = evaluated(SPEC, HEAD)
    n = r.serving["techniques"]["numbers"]
    layer = 2 * 8192**2 + 2 * 8192 * 1024 + 3 * 8192 * 28672 + 2 * 8192
    assert layer == 855_654_400
    # and its norms (2 x 8,192 and the final 8,192) whole on each GPU, 7 more copies (tests/test_tp_copies.py)
    assert n["draft_weights_gpu"] == pytest.approx((layer + 8192 + 7 * 3 * 8192) * 2 / 8, rel=1e-12)
    assert n["draft_kv_token_gpu"] == 512
    b = r.serving["techniques"]["batch"]
    weights = (layer + 8192 + 128256 * 8192) * 2
    assert n["draft_bytes_pass"] == pytest.approx(weights + b * 4352 * 4096, rel=1e-9)
    assert n["draft_time_mean"] == pytest.approx(n["draft_bytes_pass"] / (8 * 3.35e12), rel=1e-9)
    room = n["capacity_plain"], n["capacity_with_draft"]
    assert room == (313, int((CAP_8K - W_GPU - (layer + 8192) * 2 / 8) / ((C_GPU + 512) * 4607)))
    row = next(x for x in r.serving["techniques"]["rows"] if x["technique"] == "speculative decoding")
    assert "drafted by an EAGLE/MTP head of 1 Llama 3.1 70B layer (1 pass" in row["setting"]


def _moe_head_spec(tmp_path, layout: str):
    """A spec of Qwen3 30B-A3B at ``layout`` drafted by a one-layer head of its own (an MoE head), on H100."""
    path = tmp_path / "head.yaml"
    path.write_text(f"""\
kind: report
name: head
title: MoE head
hardware: h100-sxm
model: qwen3-30b-a3b
precision: bf16
parallelism: {layout}
serving: {{prompt: 2k, output: 256, speculative: {{draft_tokens: 2, acceptance: 0.7, draft_layers: 1}}}}
workloads:
  decode: {{batch: [1], context: [2k]}}
""", encoding="utf-8")
    return path


@pytest.mark.parametrize("layout,share", [("{tp: 4, ep: 4}", 1.0), ("{tp: 4, ep: 1}", 1.0),
                                          ("{tp: 1, ep: 4, dp: 4}", 0.25), ("{tp: 2, ep: 4, dp: 2}", 0.5)])
def test_an_moe_heads_routed_reads_are_the_replicas_share(layout, share, tmp_path):
    """An EAGLE/MTP head of one Qwen3 30B-A3B layer (Qwen/Qwen3-30B-A3B config.json: hidden 2048, 128 experts, 8 a
    token, moe_intermediate_size 768): at batch 256 its tokens touch 128 (1 - (120/128)^256) experts, 3 x 2,048 x 768
    weights each, 2 B in bf16.  The replica's GPUs read all of them unless its expert group gathers the tokens of
    ep / tp replicas, whose share is tp / ep: at tp 4 x ep 4 the whole routed reads (they were counted 1/4, as at
    tp 1 x ep 4 x dp 4, and the draft's bound fell below its own bytes)."""
    from genreport.model.draft import of_spec

    path = _moe_head_spec(tmp_path, layout)
    q, d = load(), of_spec(load_report(path))
    touched = 128 * (1 - (120 / 128) ** 256)
    routed = touched * 3 * 2048 * 768 * 2
    whole = d.ledgers(q, np.asarray([256.0]), 2048.0)[1][0]
    d.ep = 1  # the same head with no expert parallelism reads every expert its batch touches
    plain = d.ledgers(q, np.asarray([256.0]), 2048.0)[1][0]
    assert plain - whole == pytest.approx(routed * (1 - share), rel=1e-6)


def test_the_frontier_drafts_each_layout_with_its_own_share(tmp_path, monkeypatch):
    """Figure 9's curves with an MoE head: each layout speculates with a draft of its own tp and ep (the replica's
    share of the routed reads is tp / ep, Draft.ledgers), not the one of the first layout of the same ep (the curves
    were cached per ep: ep 4 x dp 4 and tp 4 x ep 4 shared one draft)."""
    from genreport.model import frontier

    path = _moe_head_spec(tmp_path, "{tp: 4, ep: 4}")
    seen, own = [], frontier._speculative_curves

    def record(spec, env, kept, *rest):  # kept: (layout, titled, capacity, limit, speculative inputs, probe)
        seen.extend((par.tp, par.ep, spec_in[2].tp, spec_in[2].ep) for par, _, _, _, spec_in, _ in kept)
        return own(spec, env, kept, *rest)

    monkeypatch.setattr(frontier, "_speculative_curves", record)
    frontier.frontier(load_report(path), max_gpus=4)
    assert {(1, 4), (2, 4), (4, 4)} <= {(tp, ep) for tp, ep, _, _ in seen}
    assert all((tp, ep) == (d_tp, d_ep) for tp, ep, d_tp, d_ep in seen), seen


def test_an_uneven_pipeline_s_drafts_stream_over_every_gpu_of_the_replica():
    """tp 4 x pp 3 of Llama 3.1 70B's 80 layers: stages of 27, 27 and 26 layers, so the formulas' layer share is
    n_PP = 80 / 27 = 2.963, but the replica has 4 x 3 = 12 GPUs and the draft's passes may use all of them: the bound is
    Q_d / (12 x 3.35 TB/s) (memory-bound), not Q_d / (4 x 2.963 x 3.35 TB/s), 1.2% above it and no lower bound."""
    r = evaluated(SPEC, HEAD + ("parallelism.tp=4", "parallelism.pp=3"))
    n = r.serving["techniques"]["numbers"]
    assert n["draft_time_mean"] == pytest.approx(n["draft_bytes_pass"] / (12 * 3.35e12), rel=1e-9)


def test_set_draft_layers_replaces_a_written_draft_model():
    """--set draft_layers replaces a written draft model or fraction (overrides.REPLACES)."""
    spec = load_report(ROOT / "specs" / SPEC, [*DRAFT, "serving.speculative.draft_layers=2"])
    assert spec.serving.speculative.draft_layers == 2 and spec.serving.speculative.draft.layers == 2


def test_plan_takes_a_head_of_layers():
    """``plan --speculative 1,0.85,layers:1``: the draft an EAGLE/MTP head of one target layer (as draft_layers)."""
    from genreport.commands.plan import _draft, _speculative

    target = evaluated(SPEC).spec.model
    k, own = _draft(_speculative("1,0.85,layers:1"), target, "1,0.85,layers:1")
    assert own is None and k[2].layers == 1 and k[2].hidden_size == target.hidden_size and k[2].name == "llama-3.1-70b-head-1"
    with pytest.raises(SpecError, match="layers:x"):
        _draft(_speculative("1,0.85,layers:x"), target, "1,0.85,layers:x")


def test_plan_runs_a_draft_at_its_own_precision():
    """serving.speculative.draft_precision (plan --speculative K,P,MODEL@FORMAT) in plan, as the report's own
    evaluation takes it: fp8 target rows with the 1B draft in bf16 keep less free memory than with the draft in the
    row's fp8, by the draft's second byte a weight and a KV value at tp 2: 1.2358e9 x (2 - 1) B / 2 + 64 sequences
    x 4,607 tokens x (32,768 - 16,384) B / 2 a GPU; every speed-up falls (its passes read twice the bytes)."""
    from genreport.model.plan import Shape, plan, plan_precision

    spec = evaluated(SPEC).spec
    d = _draft()
    kw = dict(precisions=("fp8",), max_gpus=2, shape=Shape(4096, 512, None, None), speculative=(4, 0.8, d.model, 5))
    own = plan(spec.model, spec.hardware, 64, 4607, 0.05, **kw)
    wide = plan(spec.model, spec.hardware, 64, 4607, 0.05, draft_precision=plan_precision("bf16", d.model), **kw)
    a = {(r.tp, r.pp): r for r in own.rows}
    b = {(r.tp, r.pp): r for r in wide.rows}
    assert a.keys() == b.keys() and (2, 1) in a and a[2, 1].batch == b[2, 1].batch == 64
    for key in a:
        assert b[key].spec_speedup < a[key].spec_speedup and b[key].concurrency <= a[key].concurrency
    assert a[2, 1].headroom_bytes - b[2, 1].headroom_bytes == pytest.approx(
        (1.2358e9 + DRAFT_COPIES / 7) / 2 + 64 * 4607 * 16384 / 2, rel=1e-6)
    # on a device without an fp8 peak or a weight-only fp8 kernel (a TPU v5p) a draft declared in fp8 cannot run: the
    # device is skipped, and says why; on an A100 its fp8 weights compute in bf16 (spec.weight_only_fp8), as the
    # target's would, and the plan says so
    from genreport.load.loader import load_hardware

    tpu = load_hardware(ROOT / "specs" / "hardware" / "tpu-v5p.yaml")
    none = plan(spec.model, tpu, 64, 4607, 0.05, draft_precision=plan_precision("fp8", d.model),
                **dict(kw, precisions=("bf16",), max_gpus=1))
    assert none.rows == [] and ("the draft at fp8", f"{tpu.title} has no dense fp8 peak") in none.skipped_precisions
    a100 = load_hardware(ROOT / "specs" / "hardware" / "a100-sxm-80gb.yaml")
    some = plan(spec.model, a100, 64, 4607, 0.05, draft_precision=plan_precision("fp8", d.model),
                **dict(kw, precisions=("bf16",)))
    assert some.rows and not some.skipped_precisions
    assert any(n.startswith("the draft's fp8 weights computed in bf16 on the NVIDIA A100") for n in some.notes)


def test_the_report_plans_with_the_declared_draft_precision():
    """The serving chapter's cheapest layout (plan over layouts and weight formats) takes the spec's draft_precision;
    without one (the loader then gives the draft the target's precision object itself) each row's, and a head is
    the target's own layers, always in the row's."""
    from genreport.model.draft import declared_precision

    assert declared_precision(evaluated(SPEC, DRAFT).spec) is None
    assert declared_precision(evaluated(SPEC, ("serving.speculative.draft_layers=1",)).spec) is None
    # bf16 written: the target's format, but the draft's own, kept in the fp8 rows plan finds cheapest
    r = evaluated(SPEC, (*DRAFT, "serving.speculative.draft_precision=bf16"))
    assert declared_precision(r.spec).weights == "bf16"
    cheap = r.serving["cheapest"]
    assert cheap["precision"] == "fp8"
    from genreport.model.plan import Shape, plan

    spec, sv = r.spec, r.spec.serving
    found = plan(spec.model, spec.hardware, sv.users, sv.prompt + sv.output - 1, sv.tpot, (cheap["precision"],), 72,
                 spec.accounting, shape=Shape(sv.prompt, sv.output, sv.ttft, sv.users),
                 speculative=(4, 0.8, sv.speculative.draft, 5), draft_precision=declared_precision(spec))
    row = next(x for x in found.rows if (x.tp, x.pp, x.ep, x.dp, x.kv_cache) == (
        cheap["tp"], cheap["pp"], cheap["ep"], cheap["dp"], cheap["kv_cache"]))
    assert cheap["speculative"] == "on" and row.as_json() == cheap
    kw = dict(shape=Shape(sv.prompt, sv.output, sv.ttft, sv.users), speculative=(4, 0.8, sv.speculative.draft, 5))
    rows = plan(spec.model, spec.hardware, sv.users, sv.prompt + sv.output - 1, sv.tpot, ("fp8",), 72, spec.accounting,
                **kw).rows
    same = next(x for x in rows if (x.tp, x.pp, x.ep, x.dp, x.kv_cache) == (row.tp, row.pp, row.ep, row.dp, row.kv_cache))
    assert same.headroom_bytes > row.headroom_bytes and same.spec_speedup > row.spec_speedup  # the draft in fp8


def test_plan_reads_model_at_format(capsys):
    """``--speculative K,P,MODEL@FORMAT``: the draft's own format, as serving.speculative.draft_precision, a head's
    too (``layers:1@fp8``); a bad format or head is a clear error naming the option, with a fix."""
    from genreport.commands.cli import main
    from genreport.commands.plan import _draft, _speculative

    target = evaluated(SPEC).spec.model
    k, own = _draft(_speculative("4,0.8,llama-3.2-1b@fp8"), target, "4,0.8,llama-3.2-1b@fp8")
    assert k[2].name == "llama-3.2-1b" and (own.weights, own.kv_cache, own.compute) == ("fp8", "fp8", "fp8")
    assert _draft(_speculative("4,0.8,llama-3.2-1b"), target, "4,0.8,llama-3.2-1b")[1] is None
    head, own = _draft(_speculative("1,0.85,layers:1@fp8"), target, "1,0.85,layers:1@fp8")  # a head's own format
    assert head[2].layers == 1 and own.weights == "fp8"
    for text, words, hint in (("4,0.8,llama-3.2-1b@fp9", "unknown draft format 'fp9'", "llama-3.2-1b@fp8"),
                              ("1,0.85,layers:x@fp8", "layers:x is not a head of 1 to 16 layers", "layers:1@bf16"),
                              ("1,0.85,0.05@bf16", "COST 0.05 is a fraction of a plain round, which has no format",
                               "write 0.05 alone"),
                              ("4,0.8,llama-3.2-1b@", "nothing follows @", "llama-3.2-1b@fp8")):
        assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--speculative", text]) == 1
        err = capsys.readouterr().err
        assert f"--speculative {text}" in err and words in err and hint in err and "Traceback" not in err


@pytest.mark.parametrize("k,passes", [(1, "one pass, at least"), (3, "3 passes, each at least")])
def test_plan_counts_the_drafts_passes_in_words(k, passes, capsys):
    """plan's note on a draft model: "one pass", not "1 passes each" (a review of plan's output, stop 43)."""
    from genreport.commands.cli import main

    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--max-gpus", "1", "--weights", "bf16",
                 "--speculative", f"{k},0.7,llama-3.2-1b"]) == 0
    out = capsys.readouterr().out
    assert f"drafts by Llama 3.2 1B in the row's precision, {passes} its roofline step" in " ".join(out.split())


def test_a_draft_model_leaves_the_reports_own_precision_to_the_next_format():
    """plan's precision loop named the draft's precision ``own``, the parameter holding the report's own weight
    format: after the first format's rows, an int4 report's own group scales (0.516 B a weight at group 128) were
    lost for the next format, which fell back to plan's plain int4 (0.5 B). The int4 rows with a format tried before
    them equal those of int4 tried alone."""
    import dataclasses

    from genreport.model.plan import Shape, plan, plan_precision

    spec = evaluated(SPEC).spec
    d = _draft()
    own = dataclasses.replace(plan_precision("int4", spec.model), group_size=128)
    assert own.weight_bytes != plan_precision("int4", spec.model).weight_bytes
    kw = dict(max_gpus=2, shape=Shape(4096, 512, None, None), speculative=(4, 0.8, d.model, 5), own=own)
    alone = plan(spec.model, spec.hardware, 64, 4607, 0.05, precisions=("int4",), **kw)
    after = plan(spec.model, spec.hardware, 64, 4607, 0.05, precisions=("bf16", "int4"), **kw)
    rows = [(r.tp, r.pp, r.weight_bytes_per_gpu) for r in after.rows if r.precision == "int4"]
    assert rows and rows == [(r.tp, r.pp, r.weight_bytes_per_gpu) for r in alone.rows]


def test_a_draft_within_one_tokenizers_padding_is_a_warning(tmp_path, capsys):
    """Gemma 3 1B (262,144 vocabulary rows) drafting for Gemma 3 27B (262,208): one tokenizer, the embedding padded to
    another multiple, 64 rows apart, within the 128 llama.cpp accepts (common/speculative.cpp,
    SPEC_VOCAB_MAX_SIZE_DIFFERENCE); vLLM refuses any difference (verify_equal_vocab_size_if_draft_model).  The spec
    loads with a warning that says both and how to run it on vLLM; the draft is counted with its own rows.  Llama 3.2
    1B (128,256 rows) for the same target stays an error; plan --speculative takes the same rule."""
    from genreport.commands.cli import main
    from genreport.load.loader import VOCAB_PADDING, draft_vocabulary
    from genreport.load.loader import load_model as _model

    assert VOCAB_PADDING == 128
    g27, g1 = _model(ROOT / "specs/models/gemma-3-27b.yaml"), _model(ROOT / "specs/models/gemma-3-1b.yaml")
    assert (g27.vocab_size, g1.vocab_size) == (262_208, 262_144)
    severity, message, hint = draft_vocabulary(g1, g27)
    assert severity == "warning" and "64 rows apart" in message and "vocab_size: 262208" in hint
    assert draft_vocabulary(_model(ROOT / "specs/models/llama-3.2-1b.yaml"), g27)[0] == "error"
    assert draft_vocabulary(g27, g27) is None
    spec = load_report(ROOT / "specs" / SPEC, ["model=gemma-3-27b", "serving.speculative.draft_model=gemma-3-1b"])
    assert spec.serving.speculative.draft.vocab_size == 262_144
    assert any("64 rows apart" in w for w in spec.warnings)
    with pytest.raises(SpecError):
        load_report(ROOT / "specs" / SPEC, ["model=gemma-3-27b", "serving.speculative.draft_model=llama-3.2-1b"])
    assert main(["plan", "gemma-3-27b", "--hardware", "h100-sxm", "--context", "8k", "--max-gpus", "2",
                 "--speculative", "3,0.7,gemma-3-1b", "--limit", "1"]) == 0
    assert "note: the draft Gemma 3 1B has 262,144 vocabulary rows" in capsys.readouterr().out


@pytest.mark.parametrize("value,words", [
    ("10000,0.8", "K (draft tokens) must be an integer from 1 to 16"),  # was told N's range, which is K's
    ("0,0.8", "K (draft tokens) must be an integer from 1 to 16"),
    ("3,0.8,0.1,3", "N (tokens verified per sequence) must be from K + 1 to 1024"),
    ("3,1.0", "P (acceptance) must be at least 0 and below 1"),
])
def test_plan_speculative_names_the_part_that_is_wrong(value, words, capsys):
    """``plan --speculative``'s K,P[,COST[,N]]: each refusal names the part at fault (the hostile review of stop 88:
    K = 10,000 was told "N (tokens verified per sequence) must be from K + 1 to 1024")."""
    from genreport.commands.cli import main

    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--speculative", value]) == 1
    err = capsys.readouterr().err
    assert f"--speculative {value}: {words}" in err, err


@pytest.mark.parametrize("speculative,sets,words", [
    ("{draft_tokens: 3, acceptance: 0.8, draft_model: llama-3.1-70b}", [],
     "the draft Llama 3.1 70B has as many parameters as the target Llama 3.1 8B or more"),
    ("{draft_tokens: 1, acceptance: 0.8, draft_layers: 2}", ["model.layers=2"],
     "a head of 2 layers beside a target of 2: each draft pass costs as much as a target step or more"),
])
def test_a_draft_as_large_as_its_target_is_warned_of(tmp_path, capsys, speculative, sets, words):
    """A draft model as large as its target, or a head as deep, builds (it is a what-if one may ask) but says that no
    speculation pays: the hostile review of stop 88 built a 70B drafting for an 8B, and a 16-layer head on a 1-layer
    target, without a word."""
    from genreport.commands.cli import main
    from shared import spec_file

    path = spec_file(f"""\
kind: report
name: big-draft
title: Llama 3.1 8B on one H100, a large draft
hardware: h100-sxm
model: llama-3.1-8b
precision: bf16
workloads:
  decode: {{batch: [1], context: [1k]}}
serving: {{prompt: 1k, output: 64, speculative: {speculative}}}
""", "big-draft")
    args = [x for s in sets for x in ("--set", s)]
    assert main([str(path), *args, "-o", str(tmp_path), "--format", "json", "-q"]) == 0
    err = capsys.readouterr().err
    assert "warning: " + words in err, err
    assert main([str(path), *args, "-o", str(tmp_path / "strict"), "--format", "json", "-q", "--strict"]) == 1


GPT_OSS_HEAD = """\
kind: report
name: gptoss-head
title: gpt-oss-120b on 4 H200 with an EAGLE head
hardware: h200
model: gpt-oss-120b
precision: {weights: {experts: mxfp4, default: bf16}}
parallelism: {tp: 4}
serving: {prompt: 4k, output: 1k, tpot: 30 ms, speculative: {draft_tokens: 3, acceptance: 0.7, draft_layers: 1}}
workloads:
  decode: {batch: [1], context: [4k]}
"""


def test_a_heads_shared_table_is_taken_at_its_own_formats_bytes(tmp_path):
    """gpt-oss-120b's EAGLE head (one layer, the target's tables): its weights per GPU are its one-table model's at
    the per-class formats less the 201,088 x 2,880 table in bf16 (2 B a weight), 289,566,720 B on each of 4 GPUs.
    Stop 89's review found the table taken at the head's mean 0.766 B a weight (mxfp4 experts beside it): 615.6 MB a
    GPU where the layer holds 437.0 MB, 41% over (the reviewer's hand count: (1.7473 + 1.1582) GB / 4 - 0.2896 GB)."""
    from genreport.formulas import architecture as arch
    from genreport.load.loader import load_report
    from genreport.model import draft as draftmod
    from genreport.model.env import held_weight_bytes
    from genreport.model.serving import load

    path = tmp_path / "head.yaml"
    path.write_text(GPT_OSS_HEAD, encoding="utf-8")
    spec = load_report(path)
    d = draftmod.of_spec(spec)
    assert d.head
    m_d, _ = d.memory(load(), 5119.0, 4, 1.0)
    table = 201_088 * 2_880
    assert table == 579_133_440
    held = arch.parameter_count(d.model).total * held_weight_bytes(d.precision, d.model)  # the one-table model's
    # and what each GPU of tp 4 holds whole in bf16, 3 more copies (tests/test_tp_copies.py): the layer's two norms
    # and the final one, its router (2,880 x 128 and 128 biases) and its attention output's bias
    copies = 3 * (3 * 2880 + 2880 * 128 + 128 + 2880) * 2
    assert copies == 2_281_728
    assert m_d == pytest.approx((held - table * 2) / 4 + copies / 4, rel=1e-12)
    assert m_d == pytest.approx(0.4376e9, rel=1e-3)
    n = evaluated(path).serving["techniques"]["numbers"]
    assert n["draft_weights_gpu"] == pytest.approx(m_d, rel=1e-12)
