"""Groups that leave the scale-up domain (issue 27): two tiers, the bound a lower bound, the estimate NCCL's ring across
the nodes or its hierarchical all-reduce, whichever is faster.

Facts copied here, with their sources:
* NVIDIA/nccl-tests issue 309 ("Acceptable performance of nccl-test on 2 HGX hosts?", 2025): H100 HGX nodes with one
  400 Gb/s NIC per GPU, all_reduce_perf with NCCL's default algorithms: about 470 GB/s bus bandwidth on 2 nodes (16
  GPUs), 365.84 GB/s on 4 nodes (32 GPUs), 480 GB/s in one node, for the largest messages.
* NVIDIA/nccl-tests issue 290 (NCCL's maintainer, 2025): 46-48 GB/s per NDR 400 Gb/s NIC with NCCL_ALGO=RING on two
  nodes; issue 160 (NCCL's maintainer): across nodes the ring's busbw is what crosses the NICs; issue 196: on two
  nodes NCCL runs its tree / NVLS tree, which can go past the NICs' bandwidth.
* DGX H100 / H200: 8 GPUs per node, one 400 Gb/s ConnectX-7 per GPU (50 GB/s per direction).
* NCCL 2.30 src/graph/tuning.cc: 6.6 us per ring call, 0.6 us per NVLink step and 2.7 us per network step (LL).
"""

from __future__ import annotations

import pytest
from genreport.formulas.compiled import load
from genreport.load.loader import _precision, load_hardware, load_model
from genreport.load.spec import Parallelism
from genreport.model.env import make_env
from genreport.model.layout import _all_reduce_costs, choose_links, layout_values
from shared import ROOT

GIB = 2**30


def _values(hw: str, model: str, par: Parallelism) -> dict:
    h, m, prec = load_hardware(ROOT / "specs" / "hardware" / f"{hw}.yaml"), \
        load_model(ROOT / "specs" / "models" / f"{model}.yaml"), _precision("bf16")
    env = make_env(h, m, prec, "seed")
    links, _ = choose_links(h, par)
    return layout_values(env.values, m, par, links, prec, "seed", env.pc)


def _tp_all_reduce(n: int, z: float, hw: str = "h100-sxm") -> dict:
    """The batch-1 all-reduce costs of the layout, at a message of z bytes (d b_a set so that d b_a = z)."""
    v = dict(_values(hw, "llama-3.1-405b", Parallelism(n)))
    v["d"], v["b_a"] = z / 2.0, 2.0
    return _all_reduce_costs(load(), v)


def test_a_group_over_two_nodes_has_two_tiers():
    h = load_hardware(ROOT / "specs" / "hardware" / "h100-sxm.yaml")
    links, _ = choose_links(h, Parallelism(16))
    tp = links["tp"]
    assert (tp.tier, tp.local, tp.bandwidth_per_direction, tp.bus_bandwidth) == ("scale-out", 8, 50e9, 47e9)
    assert tp.inner.bandwidth_per_direction == 450e9 and tp.inner.in_network
    v = _values("h100-sxm", "llama-3.1-405b", Parallelism(16))
    got = [float(v[k]) for k in ("n_uTP", "W_TP", "alpha_TP", "W_cTP", "W_oTP", "alpha_oTP", "W_coTP", "s_TP")]
    assert got == pytest.approx([8, 450e9, 0.6e-6, 370e9, 50e9, 2.7e-6, 47e9, 1.0], rel=1e-12)
    one = _values("h100-sxm", "llama-3.1-405b", Parallelism(8))  # one domain: the two-tier forms are the one-tier ones
    got = [float(one[k]) for k in ("n_uTP", "W_oTP", "alpha_oTP", "W_coTP")]
    assert got == pytest.approx([8, 450e9, 0.0, 370e9], rel=1e-12)


def test_one_domain_keeps_the_one_tier_costs():
    q, z = load(), 32 * 1024
    c = _tp_all_reduce(8, z)
    assert c["hierarchical"] is None and c["gpus_per_domain"] == 8
    ring = 6.6e-6 + 14 * 0.6e-6 + 1.75 * z / 141e9  # LL: half of 370 GB/s, at most NCCL's 141 on Hopper
    assert c["ring"] == pytest.approx(ring, rel=1e-12) and c["ring_protocol"] == "LL"
    assert c["bound"] == pytest.approx(float(q["all_reduce_time"]({"n_g": 8, "Z_g": z, "W_x": 450e9, "alpha": 0.6e-6,
                                                                    "s_TP": 1.0})), rel=1e-12)


def test_two_nodes_by_hand_small_message():
    """32 KiB (405B's batch-1 all-reduce) over 16 H100 in two nodes, with LL (the fastest protocol at this size): the
    hierarchical form is 21.7 us (the node at LL's 141 GB/s, each GPU's shard across at 39/8 GB/s, NCCL's two-node LL
    cap shared by the node's 8 NICs), the ring across the nodes pays 30 network steps, 89.2 us; the bound the NICs'
    least bytes and one network step."""
    z = 32 * 1024
    c = _tp_all_reduce(16, z)
    hier = 6.6e-6 + 2 * 7 * 0.6e-6 + 2 * 7 / 8 * z / 141e9 + 2 * 1 * 2.7e-6 + 2 * 1 / 2 * z / (8 * 39e9 / 8)
    ring = 6.6e-6 + 2 * 15 * 2.7e-6 + 2 * 15 / 16 * z / min(141e9, 39e9)
    bound = max(z / (450e9 + 50e9) + 0.6e-6, 2 * 1 / 2 * z / (8 * 50e9) + 2.7e-6)  # NVLS: each GPU sends Z once
    assert c["hierarchical"] == pytest.approx(hier, rel=1e-12) and hier == pytest.approx(21.65e-6, abs=0.01e-6)
    assert c["ring"] == pytest.approx(ring, rel=1e-12) and ring == pytest.approx(89.18e-6, abs=0.01e-6)
    assert c["ring_protocol"] == "LL" and c["protocol"] == "LL"
    assert c["bound"] == pytest.approx(bound, rel=1e-12)
    assert c["picked"] == "hierarchical" and c["estimate"] == pytest.approx(hier, rel=1e-12)


@pytest.mark.parametrize("n, busbw", [
    (16, 470e9),  # 2 x 8 H100, NCCL's default (NVLS tree), nccl-tests issue 309
    (32, 365.84e9),  # 4 x 8 H100, nccl-tests issue 309
    (16, 8 * 47e9),  # 2 x 8 H100 with NCCL_ALGO=RING: 46-48 GB/s per NIC, nccl-tests issue 290
])
def test_multi_node_all_reduce_against_nccl_tests(n, busbw):
    """8 GiB: the estimate within 30% of the measured time, the bound never above it."""
    z = 8 * GIB
    measured = 2 * (n - 1) / n * z / busbw  # nccl-tests: busbw = algbw 2 (n-1)/n
    c = _tp_all_reduce(n, z)
    assert c["bound"] <= measured
    assert c["estimate"] == pytest.approx(measured, rel=0.30)
    assert c["picked"] == "ring"  # large messages: one ring per NIC


def test_the_old_bound_was_above_the_two_node_measurement():
    """The whole ring over the NICs at line rate (the one-tier bound) is 8 times what 16 H100 measure: not a bound."""
    z, n = 8 * GIB, 16
    measured = 2 * (n - 1) / n * z / 470e9
    one_tier = 2 * (n - 1) / n * z / 50e9
    assert one_tier > 8 * measured > 8 * _tp_all_reduce(n, z)["bound"]


def test_the_experts_all_to_all_over_four_nodes_by_hand():
    """DeepSeek-V3 with ep 32 over four H200 nodes (dp-attention 32): per GPU, 8 peers in its node over NVLink and 24
    over its NIC."""
    q = load()
    v = _values("h200", "deepseek-v3", Parallelism(1, dp=32, ep=32))
    assert float(v["n_uEP"]) == 8 and float(v["W_oEP"]) == 50e9 and float(v["alpha_oEP"]) == 2.7e-6
    z = 7168 * 2 * 8 * 64.0  # 64 tokens, 8 experts each, d 7168, bf16
    args = {"n_g": 32.0, "Z_g": z, "n_u": 8.0, "alpha": float(v["alpha_EP"]), "alpha_o": 2.7e-6}
    bound = float(q["all_to_all_time_tiers"](dict(args, W_x=float(v["W_EP"]), W_o=50e9)))
    assert bound == pytest.approx(max(31 / 32 * z / (450e9 + 50e9) + 0.6e-6, 24 / 32 * z / 50e9 + 2.7e-6), rel=1e-12)
    est = float(q["all_to_all_time_library_tiers"](dict(args, W_c=float(v["W_cEP"]), W_co=47e9,
                                                        tau_c=float(v["tau_c"]))))
    assert est == pytest.approx(6.6e-6 + 7 * 0.6e-6 + 24 * 2.7e-6 + 7 / 32 * z / 370e9 + 24 / 32 * z / 47e9,
                                rel=1e-12)
    assert bound < est
    # the ledger's bound: each of the 64 tokens once (7168 elements, one byte each) to each of the 31 (1 - (31/32)^8) =
    # 6.95 other GPUs and 3 (1 - (3/4)^8) = 2.70 other nodes that hold one of its 8 experts, on average
    once = 7168 * 1 * 64.0
    experts = float(q["all_to_all_time_experts"](dict(args, Z_g=once, k_e=8.0, W_x=float(v["W_EP"]), W_o=50e9)))
    gpus, nodes = 31 * (1 - (31 / 32) ** 8), 3 * (1 - (3 / 4) ** 8)
    assert (gpus, nodes) == (pytest.approx(6.953, abs=1e-3), pytest.approx(2.700, abs=1e-3))
    assert experts == pytest.approx(max(gpus * once / 500e9 + 0.6e-6, nodes * once / 50e9 + 2.7e-6), rel=1e-12)
    assert experts < bound


def test_the_chapter_prints_the_two_tier_formulas_where_the_layout_uses_them():
    from genreport.model.layout import ParallelResults, _collective_formulas

    def ids(hw: str, par: Parallelism) -> list[str]:
        h = load_hardware(ROOT / "specs" / "hardware" / f"{hw}.yaml")
        links, notes = choose_links(h, par)
        model = "deepseek-v3" if par.ep > 1 else "llama-3.1-405b"
        ar = _all_reduce_costs(load(), _values(hw, model, par))
        return [row[0] for row in _collective_formulas(ParallelResults(par, links, notes, all_reduce=ar))]

    one = ids("h100-sxm", Parallelism(8))
    assert "all_reduce_time" in one and "all_reduce_time_tiers" not in one
    two = ids("h100-sxm", Parallelism(16))
    assert {"all_reduce_time_tiers", "all_reduce_time_ring_tiers", "all_reduce_time_hierarchical"} <= set(two)
    assert "all_reduce_time" not in two
    experts = ids("h200", Parallelism(1, dp=32, ep=32))
    assert {"all_to_all_time_experts", "all_to_all_time_library_tiers"} <= set(experts)
    assert "all_to_all_time_library" not in experts


def test_the_two_tier_sentence_is_its_own_sentence():
    """Chapter 6 printed "... 9.5 us per step.It is two tiers" (the template's line break after the block tag is
    trimmed): the sentence of the group's links, rendered alone with a two-tier ep group, keeps its space."""
    from types import SimpleNamespace as NS

    from genreport.present.render import _env

    src = (ROOT / "templates" / "sections" / "s7_gpus.html.j2").read_text(encoding="utf-8")
    start = src.index("{% for lg in par_links %}")
    fragment = src[start:src.index("{% endfor %}", start) + len("{% endfor %}")]
    inner = NS(name="NVLink", bandwidth_per_direction=450e9, latency=0.6e-6, bus_bandwidth=None, in_network=False)
    link = NS(span=32, tier="scale-out", name="NICs", bandwidth_per_direction=50e9, latency=9.5e-6,
              bus_bandwidth=None, in_network=False, inner=inner, local=8, domains=4)
    group = {"who": "The ep group (32 GPUs)", "several": False, "link": link, "switch": False}  # render._link_groups
    text = _env().from_string(fragment).render(par_links=[group], par=NS(parallelism={"ep": 32}))
    assert "The ep group (32 GPUs) crosses scale-out" in " ".join(text.split())
    assert "per step. It is two tiers" in " ".join(text.split())
