"""One prompt's prefill with expert parallelism wider than tensor parallelism: its routed experts' FLOPs run on the
GPUs of the expert group (n_EP of them), not on its replica's n_TP (formulas.parallel.prefill_flops_per_gpu).

DeepSeek-V3 in fp8 on 8 H200, tp 1 x dp 8 x ep 8 (specs/deepseek-v3-h200-ep8.yaml), an 8,192-token prompt, the seed
accounting (the declared counts).  Shapes: deepseek-ai/DeepSeek-V3 config.json (huggingface.co/deepseek-ai/DeepSeek-V3:
61 layers, hidden 7168, 128 heads, vocabulary 129,280, 256 routed experts, 8 a token; qk_nope_head_dim 128,
qk_rope_head_dim 64, v_head_dim 128); 671e9 and 37e9 parameters (DeepSeek-V3 Technical Report, arXiv:2412.19437,
section 1); H200's dense fp8 peak 1978.9 TFLOP/s (NVIDIA H200 datasheet, nvidia.com/en-us/data-center/h200).

By hand:
* N_p = 37e9 - 2 x 129,280 x 7,168 (input embedding and head) = 35,146,641,920 parameters a prompt token applies;
* the routed experts' share of them, N_x k_e / E_x: the declared 671e9 - 37e9 = 634e9 idle parameters are the
  248 experts a token does not pick, so its 8 hold 634e9 x 8 / 248 = 20,451,612,903 parameters;
* F = 2 N_p T + 2 L H_q d_hp T^2 + 2 V d = 2 x 35,146,641,920 x 8,192 + 2 x 61 x 128 x 160 x 8,192^2 + 2 x 129,280 x
  7,168 = 5.75843e14 + 1.67676e14 + 1.853e9 = 7.43520e14 FLOP (d_hp = (128 + 64 + 128) / 2 = 160, MLA's prefill form);
* F_x = 2 x 8,192 x 20,451,612,903 = 3.35079e14 FLOP in the routed experts;
* the engine runs, on the replica's one GPU, F - F_x = 4.08441e14 (attention, the 3 dense layers, the shared experts,
  the head) and then its 1/8 of F_x, 4.18849e13: 4.50326e14 FLOP, 227.56 ms at 1978.9 TFLOP/s: the serial estimate's
  order (before fix17, all of F on that GPU: 375.72 ms).
* the bound (fix19): an engine can run one chunk's attention on the replica while the other 7 GPUs run another
  chunk's experts, and routing or redundant experts can move the expert FLOPs off the replica, so only the larger of
  the replica's own work, F - F_x = 4.08441e14 (206.40 ms), and the whole prompt over the group, F / 8 = 9.294e13
  (46.97 ms), is provable: 206.40 ms.
* its HBM (20.6 ms: the non-routed weights and 1/8 of the experts) and links (69.6 ms) are below: the bound is 206.40
  ms.
"""

from __future__ import annotations

import pytest
from genreport.formulas.compiled import load
from shared import evaluated


def test_deepseek_v3_ep8_prefill_by_hand():
    r = evaluated("deepseek-v3-h200-ep8.yaml")
    assert r.spec.accounting == "seed" and list(r.spec.workloads.prefill_prompt) == [512, 2048, 8192]
    n_p = 37e9 - 2 * 129280 * 7168
    routed = (671e9 - 37e9) * 8 / 248
    t = 8192
    flops = 2 * n_p * t + 2 * 61 * 128 * 160 * t**2 + 2 * 129280 * 7168
    f_x = 2 * t * routed
    assert flops == pytest.approx(7.43520e14, rel=1e-6) and f_x == pytest.approx(3.35079e14, rel=1e-6)
    serial = (flops - f_x) + f_x / 8
    assert serial == pytest.approx(4.50326e14, rel=1e-6)
    bound = max(flops - f_x, flops / 8)
    assert bound == flops - f_x == pytest.approx(4.08441e14, rel=1e-6)
    pre = r.parallel.prefill["seed"]
    assert pre["prefill_time_compute_gpu"][2] == pytest.approx(bound / 1978.9e12, rel=1e-9)
    assert pre["prefill_time_compute_gpu"][2] == pytest.approx(0.20640, abs=5e-6)
    assert pre["prefill_time_bound"][2] == pre["prefill_time_compute_gpu"][2]  # compute binds
    assert pre["prefill_time_memory_gpu"][2] < pre["prefill_time_comm"][2] < pre["prefill_time_bound"][2]
    # the serial estimate keeps the engine's serial order (its FLOPs at e_m = 0.734 of the peak) and stays above it
    assert pre["prefill_time_compute_serial"][2] == pytest.approx(serial / 1978.9e12 / 0.734, rel=1e-9)
    assert pre["prefill_time_compute_serial"][2] == pytest.approx(0.22756 / 0.734, abs=5e-5)
    assert all(pre["prefill_time_serial"] >= pre["prefill_time_bound"])


def test_the_bound_is_the_larger_of_the_replicas_work_and_the_groups():
    """With the expert group wider than the replica the bound is max(A / n_TP, (A + F_x) / n_EP) per stage: where the
    routed experts are most of the FLOPs and the group is small (here F_x 90% of F, n_EP = 2 n_TP) the group's share
    binds; where they are few, the replica's own work.  Never above the serial order's A / n_TP + F_x / n_EP."""
    q, s = load()["prefill_time_compute_gpu"], load()["prefill_time_compute_serial"]
    v = {"H_q": 64.0, "L": 56.0, "N_p": 1.4e11, "P": 1e15, "T": 4096.0, "V": 32768.0, "d": 6144.0, "d_h": 128.0,
         "n_PP": 1.0, "n_St": 1.0, "s_st": 0.0, "kappa_B": 1.0, "E_x": 8.0, "k_e": 2.0, "e_m": 1.0, "m_P": 1.0, "N_R": 0.0,
         "P_a": 1e15}  # one format: P_a = P
    f = 2 * 64.0 * 56.0 * 4096.0**2 * 128.0 + 2 * 1.4e11 * 4096.0 + 2 * 32768.0 * 6144.0
    for n_x, tp, ep in ((0.9 * f / (2 * 4096.0 * 2 / 8), 4.0, 8.0), (0.1 * f / (2 * 4096.0 * 2 / 8), 1.0, 8.0)):
        f_x = 2 * 4096.0 * n_x * 2 / 8
        a = f - f_x
        got = float(q({**v, "N_x": n_x, "n_TP": tp, "n_EP": ep}))
        assert got == pytest.approx(max(a / tp, f / ep) / 1e15, rel=1e-12)
        assert got <= float(s({**v, "N_x": n_x, "n_TP": tp, "n_EP": ep})) == pytest.approx((a / tp + f_x / ep) / 1e15)
        # every replica of the group prefilling at once (m_P = n_EP / n_TP): each GPU runs its replica's whole work,
        # bound and serial order alike, F / n_TP (the work conserved); between, the group's share grows with m_P
        steady = {**v, "N_x": n_x, "n_TP": tp, "n_EP": ep, "m_P": ep / tp}
        assert float(q(steady)) == pytest.approx(f / tp / 1e15, rel=1e-12) == float(s(steady))
        half = {**steady, "m_P": (1 + ep / tp) / 2}
        assert got <= float(q(half)) <= float(q(steady))


def test_the_split_is_todays_where_the_experts_stay_in_the_replica():
    """n_EP <= n_TP: every GPU of the replica holds its 1/n_TP of each expert (or whole experts of its group), so a
    prompt's expert FLOPs were already split n_TP ways; the formula gives today's F / (n_TP n_PP P), bit for bit."""
    q = load()["prefill_time_compute_gpu"]
    v = {"H_q": 64.0, "L": 56.0, "N_p": 1.4e11, "P": 989.4e12, "T": 4096.0, "V": 32768.0, "d": 6144.0, "d_h": 128.0,
         "n_PP": 1.0, "n_St": 1.0, "s_st": 0.0, "kappa_B": 1.0, "E_x": 8.0, "k_e": 2.0, "N_x": 1.3e11, "m_P": 1.0, "N_R": 0.0}
    today = (2 * 64.0 * 56.0 * 4096.0**2 * 128.0 + 2 * 1.4e11 * 4096.0 + 2 * 32768.0 * 6144.0) / (989.4e12 * 1.0 * 8.0)
    for ep in (1.0, 2.0, 8.0):
        assert float(q({**v, "n_TP": 8.0, "n_EP": ep})) == today
    assert float(q({**v, "n_TP": 8.0, "n_EP": 16.0})) < today  # wider than the replica: the experts spread further


def test_a_prompts_occupancy_prices_it():
    """What an 8,192-token prompt occupies its replica (one GPU) for while all 8 replicas of the expert group prefill:
    each GPU then runs its own prompt's attention and the rest and, of the 8 prompts' expert FLOPs, its 1/8 share,
    F = 7.43520e14 FLOP, 375.72 ms at 1978.9 TFLOP/s, longer than the prompt's TTFT alone (206.40 ms, the group running
    its experts).  Page 1's prompt rate and price take it: 8,192 / 0.37572 = 21,803 tok/s per replica of one GPU, below
    the 26,615 an H200 reaches on this model's 2 x 37e9 FLOP a token at its fp8 peak (the TTFT's 39,690 was above it).
    Where the expert group is inside the replica (Mixtral 8x22B, tp 8 = ep 8) the occupancy is the TTFT."""
    r = evaluated("deepseek-v3-h200-ep8.yaml")
    pre = r.parallel.prefill["seed"]
    flops = 2 * (37e9 - 2 * 129280 * 7168) * 8192 + 2 * 61 * 128 * 160 * 8192**2 + 2 * 129280 * 7168
    assert pre["prefill_occupancy_bound"][2] == pytest.approx(flops / 1978.9e12, rel=1e-9)
    assert pre["prefill_occupancy_bound"][2] == pytest.approx(0.37572, abs=5e-6)
    assert pre["prefill_occupancy_bound"][2] > pre["prefill_time_bound"][2]
    assert all(pre["prefill_occupancy_serial"] >= pre["prefill_occupancy_bound"])
    row = next(x for x in r.decision if x["workload"] == "prefill" and x["tokens"] == 8192)
    assert row["ms_to_first_token"] == pytest.approx(206.40, abs=0.005)  # the TTFT stays the prompt's alone
    assert row["tokens_per_s"] == pytest.approx(8192 / 0.37572, rel=1e-4) == pytest.approx(21803, abs=1)
    assert row["tokens_per_s"] < 1978.9e12 / (2 * 37e9)
    price = r.spec.hardware.price_per_hour
    assert row["usd_per_mtok"] == pytest.approx(price / (row["tokens_per_s"] * 3600) * 1e6, rel=1e-12)
    entry = next(e for e in r.entries if e.id == "prefill_occupancy_bound" and e.params == {"tokens": 8192})
    assert entry.value == pre["prefill_occupancy_bound"][2] and "m_{P}" in entry.symbol
    mixtral = evaluated("mixtral8x22b-h100-tp8-ep8.yaml").parallel.prefill["seed"]
    assert list(mixtral["prefill_occupancy_bound"]) == list(mixtral["prefill_time_bound"])
    assert list(mixtral["prefill_occupancy_serial"]) == list(mixtral["prefill_time_serial"])


def test_page_one_states_the_layouts_ledgers():
    """Page 1's 8,192-token row: the layout's bound (206.40 ms, compute) and its next ledger over the same GPU's,
    the links' 69.6 ms (2.96x), not one GPU's slice of the card's FLOPs (375.72 ms, which read 5.40x)."""
    r = evaluated("deepseek-v3-h200-ep8.yaml")
    pre = r.parallel.prefill[r.lead]
    row = next(x for x in r.decision if x["workload"] == "prefill" and x["tokens"] == 8192)
    assert row["binds"] == r.verdicts["prefill_binds"][2] == "compute" and row["other"] == "interconnect"
    assert row["time"] == pre["prefill_time_bound"][2]
    assert row["other_roof"] == pytest.approx(pre["prefill_time_compute_gpu"][2] / pre["prefill_time_comm"][2])
    assert row["other_roof"] == pytest.approx(2.965, abs=0.001)


def test_the_serving_rows_and_plan_price_a_prompt_at_its_occupancy():
    """One number: the serving chapter's $/M input tokens and ``plan``'s row of the same layout (DeepSeek-V3 fp8 on 8
    H200, tp 1 x dp 8 x ep 8, 4,096 + 1,024 tokens) price the prompt at what it occupies its one-GPU replica for while
    the 8 replicas prefill, price / (4,096 / t_occ); the TTFT is the prompt's alone, shorter."""
    from genreport.model.plan import Shape, plan

    r = evaluated("deepseek-v3-h200-ep8.yaml")
    spec, sv = r.spec, r.spec.serving
    row = r.serving["rows"][0]["bound"]
    price = spec.hardware.price_per_hour
    occupancy = 4096 * row["usd_per_mtok_in"] * 3600 / (price * 1e6)  # s a prompt occupies its replica's GPU
    assert occupancy > row["ttft"] * 1.5  # the group ran the lone prompt's experts: its TTFT is much shorter
    # by the formulas: the prefill bound at m_P = 8 is the prompt's whole work on its GPU (compute-bound), F / P
    f = 2 * (37e9 - 2 * 129280 * 7168) * 4096 + 2 * 61 * 128 * 160 * 4096**2 + 2 * 129280 * 7168
    assert occupancy == pytest.approx(f / 1978.9e12, rel=1e-9)
    found = plan(spec.model, spec.hardware, 16, None, None, ("checkpoint",), 8, spec.accounting,
                 shape=Shape(sv.prompt, sv.output))
    p = next(x for x in found.rows if (x.tp, x.pp, x.ep, x.dp) == (1, 1, 8, 8))
    assert p.ttft == pytest.approx(row["ttft"], rel=1e-12)
    assert p.usd_per_mtok_in == pytest.approx(row["usd_per_mtok_in"], rel=1e-12)
    tp8 = next(x for x in found.rows if (x.tp, x.pp, x.ep, x.dp) == (8, 1, 8, 1))
    assert tp8.usd_per_mtok_in == pytest.approx(price / (4096 / (tp8.ttft * 8)) / 3600 * 1e6, rel=1e-12)


def test_a_pipelined_replica_admits_a_prompt_every_1_over_pp_of_its_pass():
    """Llama 3.1 70B on 16 H100, tp 8 x pp 2: a prompt's pass takes both stages' ledgers in turn, but the replica works
    on two prompts at once, one a stage, so it admits one every pass / 2 (DistServe, Zhong et al., OSDI 2024, section
    3.1; the disaggregation row's admission).  Page 1's prompt tok/s and price, the serving rows' $/M input tokens and
    plan's count that: 2 T / pass per replica, an upper bound since the busiest stage takes at least pass / 2; at tp 8
    x pp 1 the same rate is T / TTFT (one stage: the pass is the TTFT's bound).  The TTFT's bound is below the pass:
    a schedule may walk the prompt's pieces over the stages.  Page 1's footnote says so."""
    from genreport.model.plan import Shape, plan
    from shared import rendered

    over = ["parallelism.pp=2"]
    r = evaluated("llama70b-h100-tp8.yaml", over)
    assert (r.spec.parallelism.tp, r.spec.parallelism.pp, r.spec.parallelism.replica_gpus) == (8, 2, 16)
    price = r.spec.hardware.price_per_hour
    lp = r.parallel.prefill[r.lead]
    for i, row in enumerate(x for x in r.decision if x["workload"] == "prefill"):
        passed = float(lp["prefill_occupancy_bound"][i])  # the prompt's pass (no expert group wider than a replica)
        assert row["time"] < passed < 2 * row["time"]
        assert row["tokens_per_s"] == pytest.approx(2 * row["tokens"] / passed, rel=1e-12)
        assert row["usd_per_mtok"] == pytest.approx(16 * price / (row["tokens_per_s"] * 3600) * 1e6, rel=1e-12)
    sv, first = r.spec.serving, r.serving["rows"][0]["bound"]
    rate = 2 * sv.prompt / first["prefill"] / 16  # prompt tokens a GPU a second
    assert first["ttft"] < first["prefill"]  # its pass through both stages, beyond its TTFT's bound
    assert first["usd_per_mtok_in"] == pytest.approx(price / (rate * 3600) * 1e6, rel=1e-12)
    found = plan(r.spec.model, r.spec.hardware, 1, None, None, ("bf16",), 16, r.spec.accounting,
                 shape=Shape(sv.prompt, sv.output))
    p2 = next(x for x in found.rows if (x.tp, x.pp, x.ep, x.dp) == (8, 2, 1, 1))
    p1 = next(x for x in found.rows if (x.tp, x.pp, x.ep, x.dp) == (8, 1, 1, 1))
    assert p2.usd_per_mtok_in == pytest.approx(price / (2 * sv.prompt / (first["prefill"] * 16) * 3600) * 1e6,
                                               rel=1e-12)
    assert p1.usd_per_mtok_in == pytest.approx(price / (sv.prompt / (p1.ttft * 8) * 3600) * 1e6, rel=1e-12)
    words = " ".join(rendered(r).split())
    assert "A replica of 2 pipeline stages works on 2 prompts at once, admitting one every 1/2 of a prompt's pass" in words


def test_chapter_6_states_a_long_prompts_occupancy_in_seconds():
    """The bound's row names what one prompt occupies a GPU for while every replica of the group prefills; a 64k
    prompt of DeepSeek-V3 takes seconds there, printed as the rest of the report prints a time ('3.20 s'), not in
    milliseconds with Python's exponent ('3.2e+03 ms', read in a DeepSeek-V3 report on 16 H20, tp 2 x dp 8 x ep 16)."""
    r = evaluated("deepseek-v3-h200-ep8.yaml", ["workloads.prefill.prompt=[8k, 64k]"])
    pre = r.parallel.prefill[r.spec.accounting]
    occupancy = float(pre["prefill_occupancy_bound"][1])
    assert occupancy > 1  # seconds: the case the row once wrote with an exponent
    title = next(t for qid, t, _, _ in r.parallel.collective_formulas if qid == "prefill_time_compute_gpu")
    from genreport.present import fmt

    assert f"each GPU runs its prompt's whole work: {fmt.time(occupancy)}, what prices" in title
    assert fmt.time(occupancy).endswith(" s") and "e+" not in title
