"""Many GPUs: per-GPU memory, the collectives of the interconnect ledger, and the parallel bounds.

A replica is n_TP x n_PP GPUs; n_DP replicas serve independent batches, so the GPU count is
n_TP n_PP n_DP.  The routed experts of an MoE model are split over n_EP GPUs of the n_TP x n_DP
group (as vLLM, SGLang and Megatron-Core place them).

Collectives follow the alpha-beta model with the conventions of NCCL's performance notes
(nccl-tests doc/PERFORMANCE.md: the bus bandwidth of a ring all-reduce is 2 (n-1)/n times the
algorithm bandwidth, of all-gather and reduce-scatter (n-1)/n) and the ring algorithms of
Thakur, Rabenseifner and Gropp, "Optimization of Collective Communication Operations in MPICH"
(IJHPCA 19(1), 2005): a ring all-reduce is a reduce-scatter then an all-gather, n-1 steps each,
every step paying the link's fixed latency alpha.  W is the bandwidth one GPU sends per direction
(datasheets print both directions summed: H100's 900 GB/s NVLink is 450 GB/s each way).

Decode under tensor parallelism (Shoeybi et al., "Megatron-LM", 2019, section 3): each layer's
attention and MLP blocks end in one all-reduce of the activations, B d elements per token step.
Pipeline stages exchange activations point to point; with the scatter/gather optimisation each of
the n_TP GPUs of a stage sends 1/n_TP of them (Narayanan et al., "Efficient Large-Scale Language
Model Training on GPU Clusters Using Megatron-LM", SC'21, section 4.1).  Expert parallelism adds an
all-to-all before (dispatch) and after (combine) each MoE layer (Lepikhin et al., "GShard", 2020,
section 2.2).  ZeRO sharding of the training state: Rajbhandari et al., "ZeRO: Memory Optimizations
Toward Training Trillion Parameter Models", SC'20, section 5 and figure 1.

Every formula is a pure function returning a SymPy expression; closed forms are solved by SymPy.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import sympy as sp

from . import decode
from .glossary import sym

NCCL_PERF = "NCCL tests, doc/PERFORMANCE.md (bus bandwidth); Thakur, Rabenseifner, Gropp 2005 (ring algorithms)"
MEGATRON = "Shoeybi et al. 2019, Megatron-LM, section 3 (two all-reduces per layer)"
MEGATRON_PP = "Narayanan et al. SC'21, Megatron-LM, sections 2.2 and 4.1 (pipeline bubble, scatter/gather)"
GSHARD = "Lepikhin et al. 2020, GShard, section 2.2 (dispatch and combine all-to-all)"
ZERO = "Rajbhandari et al. SC'20, ZeRO, section 5, figure 1"
LOWER = "Patarasuk and Yuan 2009, Bandwidth optimal all-reduce algorithms (2 (n-1)/n Z sent at least); NVLink SHARP"
KERNELS = ("kernels per layer as vLLM's Llama decoder launches them; launch and CUDA graph replay costs per kernel: "
           "NVIDIA, Getting Started with CUDA Graphs (2019); pegainfer (3), From Launch Overhead to CUDA Graph")
ALL_PAIRS = ("RCCL's all-pairs all-reduce on the 8 x MI300X xGMI mesh: rccl-tests all_reduce_perf on one 8-GPU node, "
             "13.7 us for 1-8 KiB and 14.6 us at 128 KiB against the ring's 23 us (hisohara/ai-scripts, "
             "training/01_rccl-smoketest/README.md at commit 0780bb3)")
ONE_SHOT = ("vLLM, SGLang and TensorRT-LLM custom (one-shot) all-reduce kernels: 5.7-7.8 us for 0.5-32 KiB on "
            "8 x H100, as gathered in issue 27")
SMALL_GEMM = ("NVIDIA's aiconfigurator GEMM tables (ai-dynamo/aiconfigurator, commit 095f58a): vLLM's and SGLang's "
              "GEMMs of 16-128 rows with 4096-16384 columns timed on each GPU, e.g. the H100's fp8 at 2.2-2.5 TB/s of "
              "3.35; the median share per GPU and format in the hardware files' achieved_bandwidth")
MAMF = ("Bekman, Machine Learning Engineering, Maximum Achievable Matmul FLOPS table (stas00/ml-engineering "
        "compute/accelerator/README.md, commit 744d01e): measured matmul TFLOPS per accelerator and format")
NCCL_TUNING = "NCCL 2.30 src/graph/tuning.cc (base latency per call; ring steps); nccl-tests busbw as measured"
DEEPEP = ("deepseek-ai/DeepEP docs/legacy.md (V1), Performance: normal kernels on H800 (~160 GB/s NVLink, one CX7 "
          "400 Gb/s NIC, ~50 GB/s, a GPU), 4096 tokens, FP8 dispatch, BF16 combine: 153-158 GB/s NVLink in the node, 43-58 "
          "GB/s RDMA (50-51 at EP64); low-latency kernels, pure RDMA, 128 tokens: 39-46 GB/s at EP64-EP256 (dispatch 173 "
          "us at EP64, 192 at EP128; combine 314, 369); tests/legacy/test_low_latency.py: hidden + hidden/128 x 4 B a "
          "token-expert in FP8, 10 bits an element with LogFMT combine")
TIERS = ("two tiers: NCCL's hierarchical all-reduce (reduce-scatter in the node, all-reduce across nodes, all-gather "
         "in the node; nccl-tests issue 196, NCCL's maintainer) and its ring across nodes, whose bus bandwidth is the "
         "node's NICs (nccl-tests issues 160 and 290); Patarasuk and Yuan 2009 applied to the nodes")

(n_TP, n_PP, n_EP, n_DP, n_g, Z, W_x, alpha, N_x, L_x, k_e, b_a, s_kv, k_w, k_g, k_o) = (
    sym(x) for x in ("n_TP", "n_PP", "n_EP", "n_DP", "n_g", "Z_g", "W_x", "alpha", "N_x", "L_x", "k_e", "b_a",
                     "s_kv", "k_w", "k_g", "k_o"))
E_x = sym("E_x")
n_St = sym("n_St")
n_PW, n_PK = sym("n_PW"), sym("n_PK")  # the pipeline splits of the memory held (genreport.model.stages)
n_PT = sym("n_PT")  # the pipeline split of the training state (the stage that holds the most parameters)
s_st = sym("s_st")  # 1 with pipeline stages (the output head the last stage's), 0 on one
kappa_B, kappa_L = sym("kappa_B"), sym("kappa_L")  # each stage's attention over mean layers' (global layers unevenly)
kappa_F = sym("kappa_F")  # the stages before the last together, over mean layers' (the walk's)
m_b = sym("m_b")  # the bound's micro-batches: the count of 1 .. min(pp, B) whose round is the least (fastest_schedule)
W_TP, a_TP, W_PP, a_PP, W_EP, a_EP, W_DP, a_DP = (
    sym(x) for x in ("W_TP", "alpha_TP", "W_PP", "alpha_PP", "W_EP", "alpha_EP", "W_DP", "alpha_DP"))
W_c, tau_c, W_s, tau_s, s_TP, W_cTP, W_sTP, W_cPP, W_cEP, W_cDP, u_x = (
    sym(x) for x in ("W_c", "tau_c", "W_s", "tau_s", "s_TP", "W_cTP", "W_sTP", "W_cPP", "W_cEP", "W_cDP", "u_x"))
k_L, tau_k, tau_l, tau_o, o_TP = (sym(x) for x in ("k_L", "tau_k", "tau_l", "tau_o", "o_TP"))
n_u, W_o, a_o, W_co = (sym(x) for x in ("n_u", "W_o", "alpha_o", "W_co"))
rho_x = sym("rho_x")
N_R = sym("N_R")  # the parameters tensor parallelism holds whole on each GPU, beyond one copy (replica's)
m_P = sym("m_P")
o_EP, e_Du, e_Do, e_Dl = (sym(x) for x in ("o_EP", "e_Du", "e_Do", "e_Dl"))
# Bytes an element of an expert all-to-all: the least a published kernel sends (DeepEP's FP8 dispatch, one byte and
# its scales; its LogFMT combine, 10 bits), which the bound charges; DeepEP's FP8 dispatch with one fp32 scale per 128
# channels (1 + 4/128 B) and its BF16 combine (2 B), which the estimate charges where the engine runs DeepEP.
A2A_LEAST = 1
DEEPEP_DISPATCH = sp.Rational(33, 32)
DEEPEP_COMBINE = 2
e_w = sym("e_w")
e_m = sym("e_m")
e_g = sym("e_g")
P_a = sym("P_a")
n_uTP, W_oTP, a_oTP, W_coTP, n_uEP, W_oEP, a_oEP, W_coEP = (
    sym(x) for x in ("n_uTP", "W_oTP", "alpha_oTP", "W_coTP", "n_uEP", "W_oEP", "alpha_oEP", "W_coEP"))
# The library's protocols for the tensor-parallel ring (NCCL src/graph/tuning.cc): LL is tau_c, alpha_TP, alpha_oTP at
# W_lTP, W_loTP (half the bus bandwidth, capped); LL128 and Simple their own call and step latencies, LL128 at
# LL128_SHARE of the bus bandwidth, Simple at all of it.  NCCL's tuner prices them with its own constants and the
# link's line rate and runs the cheapest; the estimate charges the protocol it runs what it measures: Simple's call
# and step on the scale-up link as nccl-tests time them (tau_cSm, alpha_SmTP).  Where the hardware file gives no
# protocols, LL128's and Simple's latencies are LL's and LL's bandwidth the whole bus bandwidth: the one ring.
tau_c8, tau_cS, a_8TP, a_STP, a_8oTP, a_SoTP, W_lTP, W_loTP, tau_cSm, a_SmTP = (
    sym(x) for x in ("tau_c8", "tau_cS", "alpha_8TP", "alpha_STP", "alpha_8oTP", "alpha_SoTP", "W_lTP", "W_loTP",
                     "tau_cSm", "alpha_SmTP"))
LL128_SHARE = sp.Rational(92, 100)  # NCCL src/graph/tuning.cc: busBw * 0.92 for the ring with LL128
N, N_a, N_e, L, d, H_kv, b, c, C, P, W, B, S, T, a, V = (
    sym(x) for x in ("N", "N_a", "N_e", "L", "d", "H_kv", "b", "c", "C", "P", "W", "B", "S", "T", "a", "V"))


# ----------------------------------------------------------------------------------------------- collectives
#
# Two models of each collective.  The strict bound is what the best algorithm could reach on the link: the fewest
# bytes any algorithm must send (2 (n-1)/n Z for an all-reduce without in-network reduction, Patarasuk and Yuan
# 2009; Z with it, NVLink SHARP, since every GPU sends its Z once) at the line rate W, and one step of the link's
# latency alpha (a one-shot all-reduce: vLLM's, SGLang's and TensorRT-LLM's custom kernels reach 5.7-7.8 us for
# 0.5-32 KiB on 8 x H100).  The estimate is what the library runs (NCCL, RCCL): a fixed cost tau_c per call, the
# ring's 2 (n-1) steps of alpha, and the bus bandwidth the library reaches on that link (nccl-tests busbw, below the
# line rate); NCCL also has its NVLS algorithm where the switch reduces (tau_s, its own bus bandwidth), and picks
# the faster of the two for each message, as its tuner does (NCCL src/graph/tuning.cc).

def _some(n):
    """1 for a group of two or more GPUs, 0 for one: a group of one sends nothing and waits for nothing."""
    return sp.Min(1, n - 1)


def _all_reduce_sent(n, s):
    """Bytes one GPU sends in an all-reduce over n GPUs, per byte it holds, at least [1]: 2 (n-1)/n without in-network
    reduction (s = 0; the ring reaches it), 1 where the switch reduces (s = 1: each byte once into the switch); 0 for
    n = 1 (:func:`all_reduce_time`, :func:`all_reduce_time_tiers` and the interconnect bytes beside them)."""
    return 2 * (n - 1) / n * (1 - s) + s * _some(n)


def all_reduce_time(n=n_g, Z=Z, W=W_x, alpha=alpha, s=0):
    """All-reduce of Z bytes per GPU over n GPUs, at least [s]: (2 (n-1)/n (1 - s) + s) Z/W + alpha.

    Without in-network reduction (s = 0) any algorithm sends at least 2 (n-1)/n Z per GPU (the ring reaches it;
    NCCL's busBw = algBw 2 (n-1)/n); where the switch reduces (s = 1, NVLink SHARP) each GPU sends its Z once.
    At least one step of latency.  Zero for n = 1.

    >>> t = all_reduce_time().subs({sym('n_g'): 8, sym('Z_g'): 16384, sym('W_x'): 450e9, sym('alpha'): 0.6e-6})
    >>> round(float(t) * 1e6, 3)
    0.664
    """
    return _all_reduce_sent(n, s) * Z / W + _some(n) * alpha


def all_reduce_time_library(n=n_g, Z=Z, W=W_c, alpha=alpha, tau=tau_c):
    """Ring all-reduce as the library runs it [s]: tau_c + 2 (n-1) alpha + 2 (n-1)/n Z / W_c.

    A reduce-scatter then an all-gather, n-1 steps each (Thakur et al. 2005), after a fixed cost per call (NCCL
    2.30 src/graph/tuning.cc: 6.6 us base latency of its ring with the LL protocol), at the bus bandwidth nccl-tests
    measures on the link.

    >>> t = all_reduce_time_library().subs({sym('n_g'): 8, sym('Z_g'): 16384, sym('W_c'): 370e9,
    ...                                      sym('alpha'): 0.6e-6, sym('tau_c'): 6.6e-6})
    >>> round(float(t) * 1e6, 2)
    15.08
    """
    return _some(n) * tau + 2 * (n - 1) * alpha + 2 * (n - 1) / n * Z / W


def all_reduce_time_switch(n=n_g, Z=Z, W=W_s, tau=tau_s, line=W_x):
    """All-reduce with the reduction in the switch as the library runs it (NCCL NVLS) [s]:
    tau_s + max(2 (n-1)/n Z / W_s, Z / W_x).

    W_s is the bus bandwidth nccl-tests measures with NVLS (it reports it with the ring's 2 (n-1)/n, so the
    algorithm bandwidth is W_s n / (2 (n-1))); measured on the whole domain, it never lets a smaller group send
    its Z faster than the line rate W_x.
    """
    return _some(n) * tau + sp.Max(2 * (n - 1) / n * Z / W, Z / line)


def all_reduce_time_oneshot(n=n_g, Z=Z, W=W_c, tau=tau_o):
    """The one-shot all-reduce [s]: tau_o + (n-1) Z / W_c.

    Each GPU reads its n-1 peers' Z bytes and sums them in one step: no ring steps, n/2 times the ring's bytes, so it
    wins for small messages only.  The engine's kernel (vLLM's, SGLang's and TensorRT-LLM's custom all-reduce: 5.7-7.8
    us for 0.5-32 KiB on 8 x H100, over NVLink), or the library's own all-pairs algorithm on a full mesh (RCCL on 8 x
    MI300X, one xGMI link to each peer: 13.7 us for 1-8 KiB, where its ring model charges 12 us + 14 x 0.8 us); tau_o
    is the faster call of the two where both run.  Never below the bound's all-reduce while tau_o is at least the
    link's step: (n-1) Z >= 2 (n-1)/n Z and W_c <= W_x.

    >>> t = all_reduce_time_oneshot().subs({sym('n_g'): 8, sym('Z_g'): 16384, sym('W_c'): 336e9, sym('tau_o'): 13.7e-6})
    >>> round(float(t) * 1e6, 2)  # rccl-tests on 8 x MI300X: 15.5 us at 16 KiB, 13.9 at 32 KiB
    14.04
    """
    return _some(n) * tau + (n - 1) * Z / W


# Each protocol of the ring: (its bus bandwidth in the domain, its step there, its call latency, its bus bandwidth
# across domains, its step across), as NCCL's tuner prices it (the link's line rate, the tuner's latencies) and as the
# estimate charges it (the bus bandwidth the library reaches; Simple's latencies as nccl-tests measure them).
TUNER_PROTOCOLS = {"LL": (W_lTP, a_TP, tau_c, W_loTP, a_oTP),
                   "LL128": (LL128_SHARE * W_TP, a_8TP, tau_c8, LL128_SHARE * W_coTP, a_8oTP),
                   "Simple": (W_TP, a_STP, tau_cS, W_coTP, a_SoTP)}
PAID_PROTOCOLS = {"LL": (W_lTP, a_TP, tau_c, W_loTP, a_oTP),
                  "LL128": (LL128_SHARE * W_cTP, a_8TP, tau_c8, LL128_SHARE * W_coTP, a_8oTP),
                  "Simple": (W_cTP, a_SmTP, tau_cSm, W_coTP, a_SoTP)}


def _ring_forms(n, Z, W, alpha, tau, W_o, alpha_o):
    """The faster of the ring and the hierarchical form of one protocol (inside one domain both are the ring) [s]."""
    return sp.Min(all_reduce_time_ring_tiers(n, Z, W, alpha, tau, n_uTP, W_o, alpha_o),
                  all_reduce_time_hierarchical(n, Z, W, alpha, tau, n_uTP, W_o, alpha_o))


def picked_protocol(priced: dict, at: dict | None = None):
    """The conditions under which NCCL's tuner runs each protocol, given each one's priced cost (a tie goes to the
    first of LL, LL128, Simple): {protocol: condition}, ``at`` substituted where given."""
    t = {p: (e.subs(at) if at else e) for p, e in priced.items()}
    return {"LL": sp.And(t["LL"] <= t["LL128"], t["LL"] <= t["Simple"]),
            "LL128": sp.And(t["LL128"] < t["LL"], t["LL128"] <= t["Simple"]),
            "Simple": sp.And(t["Simple"] < t["LL"], t["Simple"] < t["LL128"])}


def all_reduce_time_ring_protocols(n=n_g, Z=Z):
    """The library's ring all-reduce for the tensor-parallel group with the protocol its tuner runs [s]: of LL
    (tau_c, alpha, at W_l: half the bus bandwidth, at most NCCL's llMaxBw), LL128 (tau_c8, alpha_8, at 0.92 W) and
    Simple (tau_cS, alpha_S, at W), each across domains the faster of the ring and the hierarchical form, NCCL prices
    all three at the link's line rate W_TP and runs the cheapest (src/graph/tuning.cc); the estimate charges that
    one at the bus bandwidth the library reaches (LL at W_l, LL128 at 0.92 W_c, Simple at W_c) and, for Simple, its
    call and step as nccl-tests measure them (tau_cSm, alpha_SmTP).

    LL's small latency with the large messages' bus bandwidth is no protocol's, and at 1-16 MiB on 8 x H100 that blend
    is 0.5-0.7 of nccl-tests' time; the cheapest protocol at the measured costs is not the one NCCL runs either: on 2 x
    A100 its tuner leaves LL between 512 KiB and 1 MiB, where nccl-tests' time doubles (19.4 to 40.8 us), while LL at
    1 MiB would take about 22 us.  Without the file's protocols LL128's and Simple's latencies are LL's and LL's
    bandwidth W_c: the one ring.

    >>> t = all_reduce_time_ring_protocols().subs({sym('n_g'): 8, sym('Z_g'): 4 * 2**20, sym('n_uTP'): 8,
    ...     sym('W_TP'): 450e9, sym('W_cTP'): 370e9, sym('W_coTP'): 370e9, sym('W_lTP'): 141e9, sym('W_loTP'): 141e9,
    ...     sym('alpha_TP'): 0.6e-6, sym('alpha_8TP'): 1.9e-6, sym('alpha_STP'): 3.4e-6, sym('alpha_oTP'): 0,
    ...     sym('alpha_8oTP'): 0, sym('alpha_SoTP'): 0, sym('tau_c'): 6.6e-6, sym('tau_c8'): 14e-6, sym('tau_cS'): 8.4e-6,
    ...     sym('tau_cSm'): 24.1e-6, sym('alpha_SmTP'): 0.89e-6})
    >>> round(float(t) * 1e6, 1)  # LL128: 14 + 14 x 1.9 + 14/8 x 4 MiB / 340.4 GB/s; nccl-tests on 8 x H100: 50.5
    62.2
    """
    priced = {p: _ring_forms(n, Z, *f) for p, f in TUNER_PROTOCOLS.items()}
    paid = {p: _ring_forms(n, Z, *f) for p, f in PAID_PROTOCOLS.items()}
    runs = picked_protocol(priced)
    ring = sp.Piecewise((paid["LL"], runs["LL"]), (paid["LL128"], runs["LL128"]), (paid["Simple"], True))
    RING_CALLS[ring] = (n, Z)
    return ring


# Each ring all-reduce built, with its group and message: the LaTeX printer writes one inside a larger formula as
# \tilde{t}_{ring}(n, Z) (formulas.compiled._shared_latex), where written out it repeats every protocol's two forms
# in each condition of the tuner's choice (a serial decode round's LaTeX was 140 KB).
RING_CALLS: dict = {}


def all_reduce_time_estimate(n=n_g, Z=Z):
    """The tensor-parallel all-reduce the estimate charges [s]: the library's ring with the fastest of its protocols
    (across domains the faster of its ring and its hierarchical form; :func:`all_reduce_time_ring_protocols`), or its
    NVLS algorithm where the switch reduces (s_TP = 1) and that is faster (across domains NVLS in the node then the
    shard across nodes), t = t_ring + s_TP min(0, t_NVLS - t_ring); where a one-shot all-reduce runs (o_TP = 1, inside
    one domain: the engine's kernel, or the library's all-pairs algorithm on a full mesh), that where it is faster
    still: t + o_TP min(0, t_one-shot - t)."""
    ring = all_reduce_time_ring_protocols(n, Z)
    m = _domains(n, n_uTP)
    across = 2 * (m - 1) * a_oTP + 2 * (m - 1) / m * Z / (n_uTP * W_coTP)  # the NVLS tree's step across nodes
    lib = ring + s_TP * sp.Min(0, all_reduce_time_switch(n_uTP, Z, W_sTP, tau_s, W_TP) + across - ring)
    return lib + o_TP * sp.Min(0, all_reduce_time_oneshot(n, Z, W_cTP, tau_o) - lib)


# ----------------------------------------------------------------------------------------------- two tiers
#
# A group that leaves the scale-up domain (tp 16 over two 8-GPU nodes, ep 32 over four) has n_u of its n GPUs in each
# domain and m = n / n_u domains; inside a domain they use the scale-up link (W, alpha), across domains each GPU its
# own NIC (W_o, alpha_o).  A group inside one domain has n_u = n, m = 1, and every form below is the one-tier form.
# The bound: the least any algorithm sends, each GPU over all its links together, and each node over its n_u NICs
# (Patarasuk and Yuan's 2 (m-1)/m Z for the m nodes as units), at line rate.  The estimate: what NCCL runs, the faster
# of its ring across all n GPUs (one ring per NIC, so its bus bandwidth is the node's NICs, n_u W_co, where that is
# below the scale-up bus bandwidth; every step waits for the slower link) and its hierarchical form (reduce-scatter in
# the node, all-reduce of the 1/n_u shard across nodes over each GPU's NIC, all-gather in the node, one after another).

def _domains(n=n_g, n_u=n_u):
    """Scale-up domains a group of n GPUs spans, n_u in each [1]: m = n / n_u (1 inside one domain)."""
    return n / n_u


def all_reduce_time_tiers(n=n_g, Z=Z, W=W_x, alpha=alpha, s=0, n_u=n_u, W_o=W_o, alpha_o=a_o):
    """All-reduce of Z bytes per GPU over n GPUs in m = n/n_u domains, at least [s]:
    max((2 (n-1)/n (1-s) + s) Z / (W + W_o) + alpha, 2 (m-1)/m Z / (n_u W_o) + alpha_o).

    Each GPU sends its least bytes (:func:`all_reduce_time`) over its scale-up link and its NIC together; each node
    sends at least 2 (m-1)/m Z across its boundary (Patarasuk and Yuan for the m nodes as units, no reduction in the
    scale-out switches), over its n_u NICs.  Inside one domain (m = 1): :func:`all_reduce_time`.

    >>> t = all_reduce_time_tiers().subs({sym('n_g'): 16, sym('n_u'): 8, sym('Z_g'): 2**30, sym('W_x'): 450e9,
    ...                                   sym('alpha'): 0.6e-6, sym('W_o'): 50e9, sym('alpha_o'): 2.7e-6})
    >>> round(float(t) * 1e3, 3)  # each GPU's 1.875 GiB over 450 + 50 GB/s; the nodes' 1 GiB over 8 NICs is 2.687
    4.027
    """
    m = _domains(n, n_u)
    inner = _all_reduce_sent(n, s) * Z / (W + _some(m) * W_o) + _some(n) * alpha
    outer = 2 * (m - 1) / m * Z / (n_u * W_o) + _some(m) * alpha_o
    return sp.Max(inner, outer)


def all_reduce_time_hierarchical(n=n_g, Z=Z, W=W_c, alpha=alpha, tau=tau_c, n_u=n_u, W_o=W_co, alpha_o=a_o):
    """Hierarchical all-reduce as the library runs it [s]: tau_c + 2 (n_u-1) alpha + 2 (n_u-1)/n_u Z / W_c
    + 2 (m-1) alpha_o + 2 (m-1)/m Z / (n_u W_co).

    A reduce-scatter inside the node, an all-reduce of each GPU's Z/n_u shard across the m nodes over its own NIC, an
    all-gather inside the node, one after another; W_c and W_co the bus bandwidths the library reaches on the two
    links.  Inside one domain (m = 1): the ring, :func:`all_reduce_time_library`.
    """
    m = _domains(n, n_u)
    return (_some(n) * tau + 2 * (n_u - 1) * alpha + 2 * (n_u - 1) / n_u * Z / W
            + 2 * (m - 1) * alpha_o + 2 * (m - 1) / m * Z / (n_u * W_o))


def all_reduce_time_ring_tiers(n=n_g, Z=Z, W=W_c, alpha=alpha, tau=tau_c, n_u=n_u, W_o=W_co, alpha_o=a_o):
    """Ring all-reduce across domains as the library runs it [s]: tau_c + 2 (n-1) max(alpha, alpha_o)
    + 2 (n-1)/n Z / min(W_c, n_u W_co).

    NCCL builds one ring per NIC, so its bus bandwidth across nodes is the node's NICs, n_u W_co (nccl-tests issue
    160: on two or more nodes the ring's busbw is what crosses the NICs), and each of its 2 (n-1) steps waits for the
    slower hop.  Inside one domain (m = 1, alpha_o = 0, W_co = W_c): :func:`all_reduce_time_library`.
    """
    return _some(n) * tau + 2 * (n - 1) * sp.Max(alpha, alpha_o) + 2 * (n - 1) / n * Z / sp.Min(W, n_u * W_o)


def all_to_all_time_tiers(n=n_g, Z=Z, W=W_x, alpha=alpha, n_u=n_u, W_o=W_o, alpha_o=a_o):
    """All-to-all of Z bytes per GPU over n GPUs in m = n/n_u domains, at least [s]:
    max((n-1)/n Z / (W + W_o) + alpha, (n - n_u)/n Z / W_o + alpha_o).

    Each GPU sends (n-1)/n of its buffer over all its links; a node sends n_u (n - n_u)/n Z to the other nodes over
    its n_u NICs.  Inside one domain: :func:`all_to_all_time`.
    """
    m = _domains(n, n_u)
    return sp.Max((n - 1) / n * Z / (W + _some(m) * W_o) + _some(n) * alpha,
                  (n - n_u) / n * Z / W_o + _some(m) * alpha_o)


def distinct_peers(n=n_g, k=k_e):
    """Other GPUs (or domains) of n that a token's k experts fall on, at least, on average [1]: (n-1) (1 - (1 - 1/n)^k).

    A token goes to each GPU that holds one of its experts once, whatever the number of its experts there (DeepEP's
    normal kernels send it once a rank, and across nodes once a node, forwarding it over NVLink), and comes back
    once, summed there.  With its k experts spread uniformly (the busiest-GPU model's routing), a given other GPU holds
    none of them with probability C(E - E/n, k) / C(E, k) <= (1 - 1/n)^k, so the expected count is at least this; at
    most k (n-1)/n, the copies of a kernel that sends each token-expert on its own.  0 for n = 1.
    """
    return (n - 1) * (1 - sp.Max(0, 1 - 1 / n) ** k)  # Max: never a negative base (n >= 1 in any layout)


def all_to_all_time_experts(n=n_g, Z=Z, W=W_x, alpha=alpha, n_u=n_u, W_o=W_o, alpha_o=a_o, k=k_e):
    """The experts' dispatch (or combine) of Z bytes a GPU (its tokens once) over n GPUs in m = n/n_u domains, at
    least [s]: max(c_n Z / (W + W_o) + alpha, c_m Z / W_o + alpha_o), c the :func:`distinct_peers` of k experts.

    Each GPU sends its tokens once to each other GPU that holds one of their experts, over all its links; once to
    each other domain over the NICs (forwarded inside it).  :func:`all_to_all_time_tiers` of the k copies, less the
    copies a rank or a node needs once.  Inside one domain: c_n Z / W + alpha.
    """
    m = _domains(n, n_u)
    return sp.Max(distinct_peers(n, k) * Z / (W + _some(m) * W_o) + _some(n) * alpha,
                  distinct_peers(m, k) * Z / W_o + _some(m) * alpha_o)


def all_to_all_time_library_tiers(n=n_g, Z=Z, W=W_c, alpha=alpha, tau=tau_c, n_u=n_u, W_o=W_co, alpha_o=a_o):
    """All-to-all across domains as the library runs it [s]: tau_c + (n_u-1) alpha + (n-n_u) alpha_o
    + (n_u-1)/n Z / W_c + (n-n_u)/n Z / W_co: the n_u - 1 peers in the node over the scale-up link, the n - n_u
    others over the GPU's NIC, one exchange after another.  Inside one domain: :func:`all_to_all_time_library`."""
    return (_some(n) * tau + (n_u - 1) * alpha + (n - n_u) * alpha_o
            + (n_u - 1) / n * Z / W + (n - n_u) / n * Z / W_o)


def all_to_all_time_deepep(n=n_g, Z=Z, W=W_x, alpha=alpha, n_u=n_u, W_o=W_o, alpha_o=a_o, e_u=e_Du, e_o=e_Do):
    """All-to-all as DeepEP's kernels run it [s]: max(alpha, alpha_o) + max((n_u-1)/n Z / (e_u W), (n-n_u)/n Z / (e_o W_o)).

    Every peer's writes are posted at once (NVLink stores in the node, RDMA writes across nodes, no step per peer), so
    the call waits one step of the slower link and the busier of its two tiers, each at the share e of its line rate
    DeepEP is published to reach: its normal kernels 153-158 GB/s of H800's 200 GB/s NVLink a direction (e_u = 0.765)
    and 50-51 GB/s of the CX7's ~50 GB/s RDMA at EP64 (e_o = 1); its low-latency kernels 39-46 GB/s at EP64-EP256, 41
    GB/s on average (e_o = 0.82; deepseek-ai/DeepEP docs/legacy.md).  Never below :func:`all_to_all_time_tiers` for
    the same bytes while e_u, e_o <= 1: (a + c)/(W + W_o) <= max(a/W, c/W_o); nor below
    :func:`all_to_all_time_experts`, whose copies are fewer and a byte at most.  The low-latency kernels' published
    figures are pure RDMA; inside a node this charges NVLink at the normal kernels' share, for which no low-latency
    figure is published.

    >>> t = all_to_all_time_deepep().subs({sym('n_g'): 64, sym('n_u'): 8, sym('Z_g'): 128 * 8 * 7392, sym('W_x'): 200e9,
    ...     sym('alpha'): 0.6e-6, sym('W_o'): 50e9, sym('alpha_o'): 2.7e-6, sym('e_Du'): 0.765, sym('e_Do'): 0.82})
    >>> round(float(t) * 1e6, 1)  # DeepEP's low-latency dispatch, 128 tokens at EP64: 173 us published
    164.2
    """
    return _some(n) * sp.Max(alpha, alpha_o) + sp.Max((n_u - 1) / n * Z / (e_u * W), (n - n_u) / n * Z / (e_o * W_o))


def all_gather_time(n=n_g, Z=Z, W=W_x, alpha=alpha):
    """All-gather of Z bytes in total (Z/n from each GPU), at least [s]: (n-1)/n Z/W + alpha.  NCCL; Thakur 2005."""
    return (n - 1) / n * Z / W + _some(n) * alpha


def reduce_scatter_time(n=n_g, Z=Z, W=W_x, alpha=alpha):
    """Reduce-scatter of Z bytes per GPU (Z/n kept), at least [s]: (n-1)/n Z/W + alpha.  NCCL; Thakur 2005."""
    return (n - 1) / n * Z / W + _some(n) * alpha


def all_to_all_time(n=n_g, Z=Z, W=W_x, alpha=alpha):
    """All-to-all of Z bytes per GPU, at least [s]: (n-1)/n Z/W + alpha.

    Each GPU keeps 1/n of its buffer and sends (n-1)/n (NCCL's alltoall bus bandwidth is (n-1)/n times the
    algorithm bandwidth); the n-1 exchanges can all be in flight at once.
    """
    return (n - 1) / n * Z / W + _some(n) * alpha


def all_to_all_time_library(n=n_g, Z=Z, W=W_c, alpha=alpha, tau=tau_c):
    """All-to-all as the library runs it [s]: tau_c + (n-1) alpha + (n-1)/n Z / W_c, one exchange after another."""
    return _some(n) * tau + (n - 1) * alpha + (n - 1) / n * Z / W


def p2p_time(Z=Z, W=W_x, alpha=alpha):
    """Point-to-point send of Z bytes, at least [s]: Z/W + alpha (one step)."""
    return Z / W + alpha


def p2p_time_library(Z=Z, W=W_c, alpha=alpha, tau=tau_c):
    """Point-to-point send as the library runs it [s]: tau_c + alpha + Z / W_c."""
    return tau + alpha + Z / W


# ----------------------------------------------------------------------------------------------- memory

def expert_split():
    """GPUs one layer's routed experts are spread over [1]: max(n_TP, n_EP).

    By expert over n_EP GPUs; when n_EP < n_TP each expert is further split by tensor over the
    remaining n_TP/n_EP (Megatron-Core's expert tensor parallelism; vLLM without --enable-expert-parallel
    shards every expert n_TP ways).
    """
    return sp.Max(n_TP, n_EP)


def weight_bytes_per_gpu(N=N, redundant: bool = True, stages=n_PW):
    """Weight bytes on one GPU [B]: (N + N_R - N_x (1 - (1 + rho_x) n_TP / max(n_TP, n_EP))) b / (n_TP n_PW).

    Everything but the routed experts is split n_TP ways, save what engines hold whole on every GPU of the group
    (N_R: the norms, the router, MLA's down-projections, the K and V projections past n_TP = H_kv; vLLM's
    ReplicatedLinear and QKVParallelLinear), the N_x expert parameters max(n_TP, n_EP) ways, and the
    layers over the pipeline's stages: n_PW is the bytes one GPU would hold with every layer over those of the
    stage that holds the fewest tokens (genreport.model.stages: its layers, the first stage's embedding, the last
    stage's head), not the even split n_PP.  Redundant experts (DeepSeek's EPLB, SGLang's
    --ep-num-redundant-experts: r replicas of the E routed experts, rho_x = r/E) add their bytes, r/n_EP more
    expert slots a GPU.  Equals N b on one GPU.  ``redundant=False``: the experts once, the least a GPU must read;
    ``stages``: n_PP for the bytes a pass reads from the busiest stage (the time formulas).
    """
    held = (1 + rho_x) if redundant else 1
    return (N + N_R - N_x * (1 - held * n_TP / expert_split())) * b / (n_TP * stages)


def kv_split():
    """Ways one layer's K and V are split over the tensor-parallel GPUs [1]: min(n_TP, H_kv).

    Each GPU holds H_kv/n_TP KV heads; when n_TP > H_kv every GPU still holds one head, so each is
    replicated n_TP/H_kv times (vLLM and TensorRT-LLM replicate KV heads this way).  MLA's latent is
    shared by all heads and is replicated on every GPU of the group (s_kv = 1).
    """
    return sp.Min(n_TP, H_kv)


def kv_bytes_per_token_per_gpu(stages=n_PK):
    """KV bytes of one token on one GPU [B/token]: c / (n_PK s_kv), split by layer and by KV head; n_PK the cache
    positions over those of the stage that holds the fewest tokens (``stages``: n_PP for what a pass reads)."""
    return c / (stages * s_kv)


def kv_capacity_tokens_replica():
    """KV tokens one replica holds beside its weights [token]: (C - weights per GPU) / KV bytes per token per GPU.

    Every GPU of the replica holds its share of every cached token, so the replica holds as many tokens
    as one GPU has room for.  On one GPU: (C - N b) / c, seed 003 section 3.
    """
    return (C - weight_bytes_per_gpu()) / kv_bytes_per_token_per_gpu()


def capacity_batch_replica():
    """Sequences of context S one replica holds [1]: floor(S_max / S)."""
    return sp.floor(kv_capacity_tokens_replica() / S)


def gpus_ideal():
    """GPUs needed if weights and KV split perfectly over them [1]: (N b + B S c) / C (before rounding up)."""
    return (N * b + B * S * c) / C


# ----------------------------------------------------------------------------------------------- decode

def microbatches():
    """Micro-batches in flight in the pipeline [1]: min(n_st, B), one sequence at least in each, n_st the stages.

    The pipeline is full once B >= n_st; below that (n_st - B)/n_st of each GPU's time is bubble.
    """
    return sp.Min(n_St, B)


def fastest_schedule(expr):
    """``expr`` (a round of the strict bound, or one of its ledgers) with the bound's micro-batches m_b in place of
    vLLM's min(n_St, B) [same unit].

    How many micro-batches the B sequences of a round are split into is the engine's choice: each micro-batch streams
    every GPU's weight slice (and the last stage's head) once and pays each collective's latency once, while the walk
    of one micro-batch through the stages shrinks as they grow in number.  vLLM and TensorRT-LLM run m = min(pp, B)
    (the serial estimate's); one micro-batch of all B sequences can be faster where the weights or the head dominate
    (Gemma 3 1B at pp 4, batch 8, 512 tokens: 0.63 ms against 1.11 ms at m = 4).  A bound on any implementation takes
    the least round over m = 1 .. min(pp, B): m_b is that m, found by the evaluation (genreport.model.layout.
    at_batch), which evaluates the round at each m.  For a dense model a schedule of m micro-batches of unequal sizes
    reads what the equal one reads (weights once a micro-batch, every cache once) and its largest micro-batch walks at
    least the equal split's, so the equal split is the least of each m; more micro-batches than stages only add weight
    reads once the walk is shorter than a stage's work.  For an MoE an unequal split touches fewer experts in all
    (those a micro-batch touches grow slower than its size) while its largest micro-batch walks longer: the equal
    split's m is taken there too, which a review's search found no unequal split to beat, short of a proof."""
    return expr.xreplace({microbatches(): m_b})


def at_stage(expr, kappa, names=("c", "d_h")):
    """``expr`` (a ledger of mean layers) on a stage whose layers' attention is ``kappa`` times theirs: the KV bytes
    per token c and the attention's d_h (``names``; a prompt's KV writes stay every position's, so a prefill scales
    d_h alone) times kappa.  Gemma 3 1B at pp 4: stages of 6, 7, 7 and 6 layers with one global layer each, where 7
    mean layers hold 7 x 4/26 = 1.08."""
    return expr.xreplace({sym(n): kappa * sym(n) for n in names})


def busiest_stage(ledger, names=("c", "d_h")):
    """``ledger`` (a function of no arguments giving mean layers' ledger) on a GPU of the busiest stage: at its own
    layers' attention (:func:`at_stage` at kappa_B), as the round's X takes it (:func:`pipelined`)."""
    def staged():
        return at_stage(ledger(), kappa_B, names)
    staged.__name__, staged.__doc__ = ledger.__name__, ledger.__doc__
    return staged


def pipelined(busy, busy_last):
    """A round of the pipeline from the per-round ledgers of its GPUs [s]: max(X, X_L, ((n_PP - r) X + X_L) / m),
    X and X_L each at its own stage's attention (kappa_B, kappa_L: :func:`at_stage`), the walk's stages before the last
    at theirs together (kappa_F) and its last stage at its own.

    Every GPU must do its round's work: X on a GPU of the busiest stage before the last (its ceil(L/pp) layers, no
    head), X_L on the last stage's (r of those layers, the output head, nothing to send on: :func:`at_last_stage`);
    and each micro-batch walks the stages in turn, X/m per stage and X_L/m at the last: with fewer micro-batches
    than stages (m < n_PP) the walk is longer than the work, the bubble of Narayanan et al. SC'21 section 2.2.  The
    stages before the last hold L - floor(L/pp) layers, n_PP - r busiest stages' worth (r = :func:`last_stage_share`),
    at most the real walk, so the bound stays a bound.  Where the global (whole-context) layers fall unevenly on the
    stages, X takes the attention of the busiest stage's own layers and X_L the last stage's (kappa_B, kappa_L), and
    the walk, every layer once, the stages before the last at their own mean (kappa_F) and the last at its own: each
    term is then a real stage's, or at most the real walk (genreport.model.stages.stage_shares).  The stages before
    the last at the model's mean, as before, could pass the real walk where stages bound by compute and by HBM mix
    (by about 1e-4: the last stage's attention, fewer global layers than the mean, counted at a compute-bound stage
    that has them not); a group's ledger at its mean is at most the sum of its stages' (a max of sums).  Equals X on
    one stage (X_L = X there, every kappa 1).
    """
    return sp.Max(at_stage(busy, kappa_B), at_stage(busy_last, kappa_L),
                  ((n_PP - last_stage_share()) * at_stage(busy, kappa_F) + at_stage(busy_last, kappa_L))
                  / microbatches())


def at_last_stage(busy, head):
    """A ledger of the last stage's GPU from the busiest stage's [s]: X (1 - s_st (1 - r)) + s_st h = r X + h with
    stages (s_st = 1), X on one (s_st = 0).

    vLLM splits the layers so that the last stage has floor(L/pp) of them, r = :func:`last_stage_share` of the
    busiest stage's, and gives it the output head (the final norm, the logits), whose share of the ledger, h, the
    busiest stage before it does not carry: the head's V d weights streamed and multiplied where the last stage's
    GPUs hold them (vocabulary-parallel, n_TP ways).  Spreading the head over every stage, as L / n_PP of the whole
    model, charged a busiest stage more than any stage streams where the head is smaller than a layer over 1 -
    ceil(L/pp) / L (Llama 3.1 70B at pp 3: 27 / 80 of the head on a 27-layer stage, above the last's 26 layers and
    head)."""
    return busy * (1 - s_st * (1 - last_stage_share())) + s_st * head


def head_parameters():
    """Parameters of the output head [1]: V d (the untied head, or a tied embedding's copy on the last stage)."""
    return V * d


def decode_flops_per_gpu():
    """FLOPs of one GPU of the busiest stage in one decode round [FLOP]: (2 (N_a + N_R - s_st V d) + 4 L H_q d_h S) B
    / (n_TP n_PP), its layers' share, each GPU computing with what it holds whole (N_R); s_st = 1 with stages (the
    head is the last stage's: :func:`at_last_stage`), 0 on one."""
    return (decode.decode_flops() + 2 * (N_R - s_st * head_parameters()) * B) / (n_TP * n_PP)


def decode_bytes_per_gpu():
    """HBM bytes of one GPU in one decode round [B]: m (weights streamed per GPU) + B (S c / (n_PP s_kv) + a / (n_TP n_PP)).

    Each of the m micro-batches streams the GPU's weight slice once (N - N_e weights read, the
    experts split max(n_TP, n_EP) ways; with stages the busiest stage's layers, the head on the last:
    :func:`decode_streamed_weights`); every sequence's KV is read once, split by layer and head.
    """
    return microbatches() * decode_streamed_weights() + B * (S * c / (n_PP * s_kv) + a / (n_TP * n_PP))


def decode_streamed_weights():
    """Weight bytes a GPU of the busiest stage streams for one micro-batch [B]: (N + N_R - N_e - s_st V d - N_x (1 -
    n_TP / max(n_TP, n_EP))) b / (n_TP n_PP), s_st = 1 with stages (the head is the last stage's), 0 on one."""
    return (N + N_R - N_e - s_st * head_parameters() - N_x * (1 - n_TP / expert_split())) * b / (n_TP * n_PP)


def decode_bytes_busiest_gpu():
    """HBM bytes of the busiest GPU of the expert group in a decode round [B]: its expert reads u_x times the mean.

    :func:`decode_bytes_per_gpu` + m (u_x - 1) N_x b / (max(n_TP, n_EP) n_PP): the mean GPU streams N_x b /
    (max(n_TP, n_EP) n_PP) of the experts the batch touches, the busiest u_x times that.  The round ends when the GPU
    that holds the most of the batch's experts has streamed them (Mixtral 8x22B at tp 8, ep 8, batch 1: the two
    experts a token picks sit whole on two GPUs).  Equals :func:`decode_bytes_per_gpu` for u_x = 1.
    """
    return decode_bytes_per_gpu() + microbatches() * (u_x - 1) * N_x * b / (expert_split() * n_PP)


def decode_weights_busiest_gpu():
    """Weight bytes the busiest GPU of the expert group streams in a decode round [B]: m (weights streamed per GPU)
    + m (u_x - 1) N_x b / (max(n_TP, n_EP) n_PP); :func:`decode_bytes_busiest_gpu` less the KV and activations."""
    return microbatches() * (decode_streamed_weights() + (u_x - 1) * N_x * b / (expert_split() * n_PP))


def decode_time_memory_busiest():
    """HBM ledger of the busiest GPU of the expert group in a decode round as the engine runs it [s]:
    (weights / (e_w e_g) + B (S c / (n_PP s_kv) + a / (n_TP n_PP))) / W.

    The weights at e_w e_g of the bandwidth: e_w, a weight-only int8/int4 GEMM unpacks every weight on its way to the
    tensor cores and reaches a lower share of the bandwidth than a bf16 GEMM (spec.WEIGHT_ONLY_EFFICIENCY; 1 for other
    formats); e_g, the share a GEMM of few rows is measured to stream its weights at on this GPU, as in a short
    prefill (:func:`prefill_time_memory_serial`): a decode round's GEMMs have B rows, and the same tables time 1-8
    rows within a few percent of their 16-128 (A100 bf16 0.74 against 0.68, H100 0.83 against 0.83).  The KV cache
    and activations at W.  Equals :func:`decode_bytes_busiest_gpu` / W for e_w = e_g = 1.  An estimate: the bound
    reads every byte at W.
    """
    rest = B * (S * c / (n_PP * s_kv) + a / (n_TP * n_PP))
    return (decode_weights_busiest_gpu() / (e_w * e_g) + rest) / W


def tp_all_reduce_bytes(tokens=B):
    """Bytes of one tensor-parallel all-reduce [B]: tokens d b_a (B d b_a in decode, T d b_a in prefill)."""
    return tokens * d * b_a


def _tp_bound(z):
    """The bound's tensor-parallel all-reduce of z bytes: two tiers where the group leaves its domain."""
    return all_reduce_time_tiers(n_TP, z, W_TP, a_TP, s_TP, n_uTP, W_oTP, a_oTP)


def ep_layer_time(tokens, estimate: bool, low_latency: bool = True):
    """Dispatch and combine of one MoE layer for the ``tokens`` a GPU dispatches [s].

    The bound: two all-to-alls of each token once to each other GPU (and domain) that holds one of its k_e experts
    (:func:`all_to_all_time_experts`), at the least bytes a published kernel sends, one an element
    (:data:`A2A_LEAST`), at line rate over two tiers where the group leaves its domain.  The estimate: the
    library's two all-to-alls in the activations' b_a (:func:`all_to_all_time_library_tiers`), or where the engine
    runs DeepEP (o_EP = 1) its FP8 dispatch and BF16 combine (:func:`all_to_all_time_deepep`), the low-latency kernels'
    RDMA share e_Dl in decode, the normal kernels' e_Do in prefill: t_NCCL + o_EP (t_DeepEP - t_NCCL).
    """
    if not estimate:
        return 2 * all_to_all_time_experts(n_EP, tokens * d * A2A_LEAST, W_EP, a_EP, n_uEP, W_oEP, a_oEP, k_e)
    elements = tokens * k_e * d  # every token-expert on its own
    nccl = 2 * all_to_all_time_library_tiers(n_EP, elements * b_a, W_cEP, a_EP, tau_c, n_uEP, W_coEP, a_oEP)
    rdma = e_Dl if low_latency else e_Do
    # two calls of the mean of the dispatch's and the combine's bytes: past its one step, DeepEP's time is the bytes
    # over the busier tier, the same tier for both (their bytes split over the tiers alike), so linear in the bytes
    mean = (DEEPEP_DISPATCH + DEEPEP_COMBINE) / 2
    deep = 2 * all_to_all_time_deepep(n_EP, elements * mean, W_EP, a_EP, n_uEP, W_oEP, a_oEP, e_Du, rdma)
    return nccl + o_EP * (deep - nccl)


def decode_time_tp(estimate: bool = False):
    """Tensor-parallel all-reduces of one GPU in a decode round [s]: 2 (L/n_PP) m all-reduces of B d b_a / m.

    At least :func:`all_reduce_time` each for the bound; what the library picks (:func:`all_reduce_time_estimate`)
    for the estimate.
    """
    z = tp_all_reduce_bytes() / microbatches()
    one = all_reduce_time_estimate(n_TP, z) if estimate else _tp_bound(z)
    return 2 * L / n_PP * microbatches() * one


def decode_time_pp(estimate: bool = False):
    """Stage-to-stage sends of one GPU in a decode round [s]: m sends of B d b_a / (m n_TP); none when n_PP = 1."""
    z = B * d * b_a / (microbatches() * n_TP)
    one = p2p_time_library(z, W_cPP, a_PP, tau_c) if estimate else p2p_time(z, W_PP, a_PP)
    return _some(n_St) * microbatches() * one


def ep_token_split():
    """Ways a replica's tokens are spread over the GPUs that dispatch them to the experts [1]: min(n_EP, n_TP).

    Inside one replica (n_EP <= n_TP) every GPU has all B tokens after the all-reduce and dispatches 1/n_EP
    of them; an expert group wider than a replica (n_EP > n_TP: data-parallel attention) gathers n_EP/n_TP
    replicas, each GPU dispatching its replica's B tokens over its n_TP share: B / n_TP per GPU.
    """
    return sp.Min(n_EP, n_TP)


def ep_dispatches():
    """Whether the experts' tokens travel by all-to-all [1]: 1 when the expert group is wider than a replica.

    With n_EP <= n_TP the attention is tensor-parallel: after its all-reduce every GPU of the replica holds all the
    tokens, runs its own experts on them, and the layer's closing all-reduce sums the experts' outputs as it sums
    the MLP's: no all-to-all (vLLM and SGLang with expert parallelism inside the tensor-parallel group).  Only a
    group wider than a replica (data-parallel attention, n_EP > n_TP) dispatches and combines (GShard 2.2).
    """
    return sp.Max(0, sp.Min(1, n_EP - n_TP))


def decode_time_ep(estimate: bool = False):
    """Expert all-to-alls of one GPU in a decode round [s]: (L_x/n_PP) m layers' dispatch and combine of the
    B / (m min(n_EP, n_TP)) tokens it dispatches (:func:`ep_layer_time`; DeepEP's low-latency kernels where the engine
    runs DeepEP).

    Dispatch sends each token's activations to its k_e experts, combine brings them back (GShard 2.2); the bound
    sends each token once to each GPU that holds one of them; only for an expert group wider than a replica
    (:func:`ep_dispatches`).
    """
    tokens = B / (microbatches() * ep_token_split())
    return ep_dispatches() * L_x / n_PP * microbatches() * ep_layer_time(tokens, estimate, low_latency=True)


def decode_interconnect_bytes():
    """Bytes one GPU sends in a decode round as the strict bound counts them [B]: all-reduces (2 (n_TP-1)/n_TP (1 -
    s_TP) + s_TP) 2 L B d b_a / n_PP (the ring's least bytes, or each byte once where the switch reduces, as
    :func:`decode_time_comm` charges them), plus all-to-alls (the bound's: each token once to each other GPU that holds
    one of its experts, :func:`distinct_peers`, at the least a published kernel sends, one byte an element) and stage
    sends."""
    tp = 2 * L / n_PP * _all_reduce_sent(n_TP, s_TP) * tp_all_reduce_bytes()
    ep = ep_dispatches() * 2 * L_x / n_PP * distinct_peers(n_EP) * B * d * A2A_LEAST / ep_token_split()
    pp = _some(n_St) * B * d * b_a / n_TP
    return tp + ep + pp


def decode_time_comm(estimate: bool = False):
    """Interconnect ledger of one GPU in a decode round [s]: the TP, EP and PP collectives, one after another.

    Each collective needs the output of the computation before it (layer l's all-reduce, layer l's
    matmul), so within one GPU they add.  The bound's at its m_b micro-batches (:func:`fastest_schedule`), the
    estimate's at vLLM's min(n_St, B).
    """
    out = decode_time_tp(estimate) + decode_time_ep(estimate) + decode_time_pp(estimate)
    return out if estimate else fastest_schedule(out)


def decode_time_comm_estimate():
    """Interconnect of one GPU in a decode round as the library runs it [s]: the same collectives, each at the
    library's cost (a fixed cost per call, every ring step, the measured bus bandwidth)."""
    return decode_time_comm(True)


def decode_time_compute_gpu():
    """Compute ledger of one GPU in a decode round [s]: FLOPs per GPU / P."""
    return decode_flops_per_gpu() / P


def decode_time_compute_serial():
    """Compute of one GPU in a decode round as the engine runs it [s]: B (2 N_a / P + 4 L H_q d_h S / P_a) /
    (n_TP n_PP e_m): the weights' FLOPs at P, the attention's scores and values at P_a (the compute format's or the
    KV cache's, the slower: an NVFP4 model's attention on a bf16 cache runs in bf16, not at fp4's peak, and per-class
    weights' blend, env.peak_of, is their GEMMs' rate, not the attention's); P_a = P in one format.

    e_m is the share of the dense peak a large matmul reaches on this GPU in the compute format, as measured (the
    hardware file's achieved_matmul: Maximum Achievable Matmul FLOPS over the peak); 1 where none is published, so
    that this equals :func:`decode_time_compute_gpu` where P_a = P.  An estimate: the bound keeps the peak.
    """
    weights = 2 * (decode.N_a + N_R - s_st * head_parameters())  # the head is the last stage's
    return B * (weights / P + decode.attention_flops_per_token(S=S) / P_a) / (n_TP * n_PP * e_m)


def decode_time_memory_gpu():
    """HBM ledger of one GPU in a decode round [s]: bytes per GPU / W, at the bound's m_b micro-batches
    (:func:`fastest_schedule`)."""
    return fastest_schedule(decode_bytes_per_gpu() / W)


def decode_time_comm_last(estimate: bool = False):
    """Interconnect ledger of a last-stage GPU in a decode round [s]: no activations to send on.

    It returns the sampled token ids to the first stage, a few bytes: one step latency per micro-batch.
    """
    back = a_PP + tau_c if estimate else a_PP
    layers = at_last_stage(decode_time_tp(estimate) + decode_time_ep(estimate), 0)  # r of the busiest's layers
    out = layers + _some(n_St) * microbatches() * back
    return out if estimate else fastest_schedule(out)  # the bound's micro-batches (fastest_schedule)


def decode_time_compute_last():
    """Compute ledger of a last-stage GPU in a decode round [s]: r of the busiest stage's layers and the head's
    2 V d B / n_TP FLOPs (:func:`at_last_stage`)."""
    return at_last_stage(decode_time_compute_gpu(), 2 * head_parameters() * B / (n_TP * P))


def decode_time_memory_last():
    """HBM ledger of a last-stage GPU in a decode round [s]: r of the busiest stage's layers and their caches, and the
    head's V d b / n_TP bytes once a micro-batch (:func:`at_last_stage`)."""
    return fastest_schedule(at_last_stage(decode_time_memory_gpu(), microbatches() * head_parameters() * b / (n_TP * W)))


def decode_time_compute_serial_last():
    """:func:`decode_time_compute_serial` on a last-stage GPU [s] (:func:`at_last_stage`)."""
    return at_last_stage(decode_time_compute_serial(), 2 * head_parameters() * B / (n_TP * P * e_m))


def decode_time_memory_busiest_last():
    """:func:`decode_time_memory_busiest` on a last-stage GPU [s] (:func:`at_last_stage`)."""
    return at_last_stage(decode_time_memory_busiest(), microbatches() * head_parameters() * b / (n_TP * W * e_w * e_g))


def decode_time_overhead_last():
    """:func:`decode_time_overhead` on a last-stage GPU [s]: r of the busiest stage's layers' kernels."""
    return at_last_stage(decode_time_overhead(), 0)


def decode_time_bound():
    """Strict lower bound of a decode round [s]: the ledgers overlapped per GPU, through the pipeline.

    X = max(compute, HBM, interconnect) of one GPU's round, X_L the same at the last stage; the round
    lasts max(X, ((n_PP - 1) X + X_L) / m) (:func:`pipelined`).  On one GPU it is max(F/P, Q/W), seed 003
    figure 1.
    """
    comp, mem = decode_time_compute_gpu(), decode_time_memory_gpu()
    return fastest_schedule(pipelined(sp.Max(comp, mem, decode_time_comm()),
                                      sp.Max(decode_time_compute_last(), decode_time_memory_last(),
                                             decode_time_comm_last())))


def decode_time_overhead():
    """Fixed kernel costs of one GPU in a decode round [s]: m (L/n_PP) k_L tau_k.

    Each micro-batch runs the stage's L/n_PP layers, k_L kernels a layer, each paying a fixed cost tau_k that no
    byte or FLOP explains: its share of a CUDA graph replay where the engine captures decode in graphs (vLLM,
    SGLang, TensorRT-LLM by default), its launch where it does not.  Seed 000's third state, overhead-bound, is
    where this term is the largest of the estimate's.  An estimate: an overhead is not a lower bound.
    """
    return microbatches() * L / n_PP * k_L * tau_k


def decode_time_serial():
    """Serialized estimate of a decode round [s]: max(compute at e_m of the peak, HBM of the busiest GPU) +
    interconnect as the library runs it + the kernels' fixed costs, per GPU, through the pipeline.

    The all-reduces sit on the critical path (the next layer needs their result), as in real decode
    engines without compute-communication overlap; not a bound, an estimate.
    """
    work = sp.Max(decode_time_compute_serial(), decode_time_memory_busiest()) + decode_time_overhead()
    last = sp.Max(decode_time_compute_serial_last(), decode_time_memory_busiest_last()) + decode_time_overhead_last()
    return pipelined(work + decode_time_comm(True), last + decode_time_comm_last(True))


# ----------------------------------------------------------------------------------------------- prefill

def prefill_time_tp(estimate: bool = False):
    """Tensor-parallel all-reduces of one GPU in a prefill of T tokens [s]: 2 L/n_PP all-reduces of T d b_a."""
    z = tp_all_reduce_bytes(T)
    one = all_reduce_time_estimate(n_TP, z) if estimate else _tp_bound(z)
    return 2 * L / n_PP * one


def prefill_time_comm(estimate: bool = False):
    """Interconnect ledger of a prefill of T tokens on a GPU that sends to the next stage [s]: TP, EP and PP."""
    z = T * d * b_a / n_TP
    send = p2p_time_library(z, W_cPP, a_PP, tau_c) if estimate else p2p_time(z, W_PP, a_PP)
    return _prefill_layer_comm(estimate) + _some(n_St) * send


def _prefill_layer_comm(estimate: bool = False):
    """The all-reduces and all-to-alls of the busiest stage's layers in a prefill of T tokens [s]."""
    tokens = T / ep_token_split()
    return prefill_time_tp(estimate) + ep_dispatches() * L_x / n_PP * ep_layer_time(tokens, estimate, low_latency=False)


def prefill_time_comm_last(estimate: bool = False):
    """Interconnect ledger of a prefill on the last stage (or the only one) [s]: its layers' all-reduces and
    all-to-alls, r of the busiest stage's (:func:`at_last_stage`); nothing to send on."""
    return at_last_stage(_prefill_layer_comm(estimate), 0)


def prefill_routed_flops():
    """FLOPs of a prompt's T tokens in the routed experts [FLOP]: 2 T N_x k_e / E_x, each token through k_e of each
    MoE layer's E_x experts (N_x k_e / E_x of the routed parameters; 0 for a dense model).  Part of the 2 N_p T."""
    return 2 * T * N_x * k_e / E_x


def prefill_flops_per_gpu():
    """FLOPs of the busiest GPU in a prefill of one prompt as the engine runs it, layer after layer [FLOP]:
    (F - F_x (1 - n_TP / max(n_TP, n_EP))) / (n_TP n_PP),
    F = 2 N_p T + 2 V d + 2 L H_q d_h T^2 (the single-card prefill's), F_x = :func:`prefill_routed_flops`.

    Attention, the dense layers, the shared experts, the router and the head run on the n_TP GPUs of the prompt's
    replica (F - F_x over n_TP n_PP); the routed experts on the GPUs that hold them, max(n_TP, n_EP) n_PP ways, as
    their weights are split (:func:`weight_bytes_per_gpu`).  With expert parallelism wider than a replica (n_EP >
    n_TP, data-parallel attention) a prompt's expert FLOPs are spread over the whole expert group, not its replica's
    n_TP GPUs: a GPU of the replica does its share of the attention and the rest, then its 1/n_EP share of the
    experts, layer after layer (a layer's experts need its attention's output, the next layer's attention theirs),
    the mean share as the HBM ledger reads the mean GPU's experts.  With m_P of the group's replicas prefilling at
    once, each GPU runs m_P prompts' shares of the experts: (F - F_x (1 - m_P n_TP / max(n_TP, n_EP))) / (n_TP n_PP);
    m_P = 1 is one prompt alone (its TTFT), m_P = n_EP / n_TP every replica of the group (what a prompt occupies in a
    steady state: F / (n_TP n_PP), the work conserved).  Equals F / (n_TP n_PP) for n_EP <= n_TP.  The serial
    estimate's order (:func:`prefill_time_compute_serial`); the bound takes :func:`prefill_flops_bound_gpu`.
    """
    return (_prefill_stage_flops() - prefill_routed_flops() * (1 - m_P * n_TP / expert_split())) / (n_TP * n_PP)


def _prefill_stage_flops():
    """A prefill's FLOPs as the busiest stage's share counts them [FLOP]: 2 N_p T + 2 V d + 2 L H_q d_h T^2, the head's
    2 V d (the last token's logits) left out with stages, where the last stage computes them (:func:`at_last_stage`)."""
    from .quantities import _prefill_attention_flops

    return _prefill_stage_weight_flops() + _prefill_attention_flops()


def _prefill_stage_weight_flops():
    """The single-card prefill's FLOPs on the weights, 2 N_p T + 2 V d, with what each GPU holds whole (N_R) and the
    head's V d rows the last stage's: 2 (N_p + N_R) T + 2 V d (1 - s_st)."""
    from .quantities import _prefill_weight_flops

    return _prefill_weight_flops().subs({V: V * (1 - s_st), sym("N_p"): sym("N_p") + N_R}, simultaneous=True)


def prefill_flops_bound_gpu():
    """FLOPs no schedule keeps off the busiest GPU in a prefill of one prompt [FLOP]:
    max(F - F_x, F n_TP / max(n_TP, n_EP)) / (n_TP n_PP), i.e. max(A / n_TP, (A + F_x) / n_EP) per stage, A = F - F_x.

    Why not the engine's A / n_TP + F_x / n_EP (:func:`prefill_flops_per_gpu`) where the expert group is wider than
    a replica (n_EP > n_TP, data-parallel attention): that sum charges a GPU of the prompt's replica its share of the
    attention and then its 1/n_EP of the routed experts, which holds only if the prompt's tokens route evenly onto the
    experts it holds and nothing else of the group runs them.  An engine that splits the prompt into chunks can run
    one chunk's attention on the replica while the group's other GPUs run another chunk's experts (DeepSeek-V3's
    two-micro-batch overlap, arXiv:2412.19437 section 3.4; SGLang's two-batch overlap), and routing, redundant
    experts (EPLB) or a prompt whose tokens pick other GPUs' experts move the expert FLOPs off the replica's GPUs.
    What no schedule moves: the attention and the rest of the prompt's non-routed work run on its replica's n_TP
    GPUs (its KV cache is there: data-parallel attention), A / n_TP; and the whole prompt's work, A + F_x, runs on
    the group's n_EP GPUs, (A + F_x) / n_EP at best.  The larger of the two is a lower bound on any schedule; the
    remainder an overlap cannot hide (the first chunk's attention before any expert work, the last chunk's experts
    after the attention) shrinks with the chunk, so no more is provable.  For n_EP <= n_TP both are F / (n_TP n_PP),
    the engine's split.  DeepSeek-V3 on 8 H200 (tp 1 x ep 8) at 8,192 tokens: 206.4 ms where the sum read 227.6 ms.
    With m_P of the group's replicas prefilling at once the group runs m_P prompts' work: max(A / n_TP,
    m_P (A + F_x) / n_EP), which is F / n_TP at m_P = n_EP / n_TP (every replica of the group: a prompt's share of a
    steady state, whatever the schedule).
    """
    f = _prefill_stage_flops()
    return sp.Max(f - prefill_routed_flops(), m_P * f * n_TP / expert_split()) / (n_TP * n_PP)


def _prefill_ledgers():
    """Compute and HBM ledgers of one GPU in a prefill of T tokens [s]: the FLOPs no schedule keeps off it
    (:func:`prefill_flops_bound_gpu`) and its share of the bytes."""
    t_comp = prefill_flops_bound_gpu() / P
    t_mem = (weight_bytes_per_gpu(N - N_e - s_st * head_parameters(), redundant=False, stages=n_PP)
             + T * kv_bytes_per_token_per_gpu(n_PP)) / W
    return t_comp, t_mem


def _prefill_last_ledgers():
    """Compute and HBM ledgers of a last-stage GPU in a prefill [s] (:func:`at_last_stage`): r of the busiest stage's
    and the head's, its 2 V d FLOPs on the replica's n_TP GPUs (at most the share of them no schedule moves,
    m_P n_TP / max(n_TP, n_EP) where the expert group is wider: :func:`prefill_flops_bound_gpu`) and its V d b bytes."""
    t_comp, t_mem = _prefill_ledgers()
    kept = sp.Min(1, m_P * n_TP / expert_split())
    return (at_last_stage(t_comp, 2 * head_parameters() * kept / (n_TP * P)),
            at_last_stage(t_mem, head_parameters() * b / (n_TP * W)))


def prefill_time_compute_gpu():
    """Compute ledger of one GPU in a prefill of T tokens [s]: the prefill FLOPs no schedule keeps off it / P
    (:func:`prefill_flops_bound_gpu`: max(A / n_TP, (A + F_x) / n_EP) per stage with an expert group wider than a
    replica, else its share F / (n_TP n_PP))."""
    return _prefill_ledgers()[0]


def prefill_time_compute_serial():
    """Compute of one GPU in a prefill of T tokens as the engine runs it [s]: its share of the prefill FLOPs / (e_m P),
    in the engine's serial order (:func:`prefill_flops_per_gpu`: the attention and the rest on the replica, then its
    1/n_EP of the routed experts, layer after layer).

    e_m and P_a as in :func:`decode_time_compute_serial` (the causal attention 2 L H_q d_h T^2 at P_a, the rest at
    P); equals :func:`prefill_time_compute_gpu` for e_m = 1, P_a = P and n_EP <= n_TP.  An estimate, not a bound.
    """
    from .quantities import _prefill_attention_flops

    weights = _prefill_stage_weight_flops() - prefill_routed_flops() * (1 - m_P * n_TP / expert_split())
    return (weights / P + _prefill_attention_flops() / P_a) / (n_TP * n_PP * e_m)


def prefill_time_memory_gpu():
    """HBM ledger of one GPU in a prefill of T tokens [s]: its weight slice and the prompt's KV cache / W."""
    return _prefill_ledgers()[1]


def prefill_time_memory_serial():
    """HBM of one GPU in a prefill of T tokens as the engine runs it [s]:
    (weight slice / (e_w e_g) + T c / (n_PP s_kv)) / W.

    The weight slice at e_w of the bandwidth (:func:`decode_time_memory_busiest`) and at e_g, the share of the HBM
    bandwidth a GEMM with few rows (few prompt tokens) is measured to stream its weights at on this GPU in the
    compute format (the hardware file's achieved_bandwidth; aiconfigurator's vLLM and SGLang tables: H100 fp8 0.714,
    about 2.4 of 3.35 TB/s); e_g is 1 where none is published.  It matters only where the weights bind, short prompts; the
    cache the prompt writes stays at W.  Equals :func:`prefill_time_memory_gpu` for e_w = e_g = 1.  An estimate, not a
    bound: the bound reads every byte at W.
    """
    return (weight_bytes_per_gpu(N - N_e - s_st * head_parameters(), redundant=False, stages=n_PP) / (e_w * e_g)
            + T * kv_bytes_per_token_per_gpu(n_PP)) / W


def prefill_time_comm_estimate():
    """Interconnect of one GPU in a prefill of T tokens as the library runs it [s] (a stage that sends on)."""
    return prefill_time_comm(True)


def _prefill_stage_times():
    """(X, X_L) [s]: a prefill's ledgers overlapped on a stage that sends on, max(compute, HBM, interconnect), and on
    the last stage (it sends nothing on); equal on one stage."""
    t_comp, t_mem = _prefill_ledgers()
    l_comp, l_mem = _prefill_last_ledgers()
    return sp.Max(t_comp, t_mem, prefill_time_comm()), sp.Max(l_comp, l_mem, prefill_time_comm_last())


def prefill_stage_walk_time():
    """The least time any part of a prompt takes to pass one pipeline stage [s]: the stage's dense weights read once,
    (N + N_R - N_e - s_st V d - N_x) b / (n_TP n_PP W), a busiest stage's (with stages, s_st = 1, the head is the
    last's).

    However small the piece of the prompt a stage works on, its GPU reads the stage's weights for it (they do not fit
    on chip); the routed experts are left out (one token reads only k_e of each layer's), so it stays a floor."""
    return (N + N_R - N_e - s_st * head_parameters() - N_x) * b / (n_TP * n_PP * W)


def last_stage_share():
    """The smallest stage's layers over the busiest's [1]: floor(L / n_St) n_PP / L (n_St stages, n_PP = L over the
    busiest stage's layers): 30 / 31 for 61 layers over 2 stages, 1 where the stages are even."""
    return sp.floor(L / n_St) * n_PP / L


def prefill_time_bound():
    """Strict lower bound of a prefill of T tokens [s]: max(X, X_L, (n_PP - r) w_s + X_L), X = max(compute, HBM,
    interconnect) of a stage that sends on (the busiest), X_L the last stage's (r of its layers and the head:
    :func:`at_last_stage`), w_s :func:`prefill_stage_walk_time`, r :func:`last_stage_share`.

    Every stage must do its whole ledger (X); a schedule may split the prompt into pieces that walk the stages in
    turn (TeraPipe, Li et al., ICML 2021: a prompt's tokens pipelined over the stages), so the last stage starts
    once the first piece has passed the stages before it (each at least its dense weights' read, w_s a busiest
    stage's) and then does its own ledger.  With uneven stages the last may be the smallest (r of the busiest's
    layers), the others then holding n_PP - r busiest stages' worth: the least the walk and the last stage can be.
    A prompt passed whole, stage after stage, takes (n_PP - 1) X + X_L, the serial estimate's order
    (:func:`prefill_time_serial`); the bound is at most that.  X and X_L each take their stage's own attention
    (:func:`at_stage`: kappa_B, kappa_L on d_h).  On one GPU: max(F/P, Q/W).
    """
    busiest, last = _prefill_stage_times()
    # each stage's own attention (kappa_B, kappa_L: at_stage), its KV writes every position's
    busiest, last = at_stage(busiest, kappa_B, ("d_h",)), at_stage(last, kappa_L, ("d_h",))
    return sp.Max(busiest, last, (n_PP - last_stage_share()) * prefill_stage_walk_time() + last)


def prefill_pass_bound():
    """A prompt's pass through the n_PP stages, at least [s]: (n_PP - r) X + X_L, each stage's ledger in turn
    (:func:`prefill_time_bound`'s X and X_L; the stages before the last hold n_PP - r busiest stages' layers, at their
    attention together, kappa_F, the last at its own, kappa_L: :func:`pipelined`'s walk).

    What a prompt occupies its replica's stages for, in all: however a schedule splits it, each stage does its ledger
    for every prompt, so a replica of n_PP stages admits a prompt at most every pass / n_PP (a pipeline of prompts,
    DistServe section 3.1), the rates' and prices' side of the bound; equal to the prefill's bound on one stage.
    """
    busiest, last = _prefill_stage_times()
    # the stages before the last at their attention together (kappa_F), the last at its own (kappa_L): their d_h
    return (n_PP - last_stage_share()) * at_stage(busiest, kappa_F, ("d_h",)) + at_stage(last, kappa_L, ("d_h",))


def prefill_time_overhead():
    """Fixed kernel costs of one stage in a prefill [s]: (L/n_PP) k_L tau_l.

    A prompt passes each layer once, k_L kernels a layer, each launched on its own (engines capture CUDA graphs
    for decode batches only), at tau_l each.  An estimate, not a bound.  Added to the compute and HBM time, it is the
    most the launches can add: the host launches while the GPU runs the kernels before, so a prompt long enough
    for its kernels to outlast their launches pays its kernels' time alone (measured on an H200, plain PyTorch:
    2k and 8k tokens within 3% of their kernels' GPU time; 16 tokens 3.6x it, host-bound; docs/measurements.md).
    """
    return L / n_PP * k_L * tau_l


def prefill_time_serial():
    """Serialized estimate of a prefill of T tokens [s]: (n_PP - r) (w + x) + w_L + x_L, w = max(compute, HBM) + o,
    w_L and x_L the last stage's (:func:`at_last_stage`).

    The collectives on the critical path at the library's cost, as :func:`decode_time_serial`, the FLOPs at the
    measured matmul share e_m of the peak (:func:`prefill_time_compute_serial`), the weights at the engine's share
    e_w of the bandwidth and the measured small-GEMM share e_g (:func:`prefill_time_memory_serial`), and each stage's
    kernels' fixed costs o
    (:func:`prefill_time_overhead`); an estimate, not a bound.
    """
    work = sp.Max(prefill_time_compute_serial(), prefill_time_memory_serial()) + prefill_time_overhead()
    # the last stage: r of the busiest's layers, the head's FLOPs on the replica's n_TP GPUs and its bytes
    head = head_parameters()
    last = (sp.Max(at_last_stage(prefill_time_compute_serial(), 2 * head / (n_TP * P * e_m)),
                   at_last_stage(prefill_time_memory_serial(), head * b / (n_TP * W * e_w * e_g)))
            + at_last_stage(prefill_time_overhead(), 0))
    return (n_PP - last_stage_share()) * (work + prefill_time_comm(True)) + last + prefill_time_comm_last(True)


def prefill_interconnect_bytes():
    """Bytes a GPU that sends to the next stage sends in a prefill of T tokens as the strict bound counts them [B]:
    all-reduces (:func:`decode_interconnect_bytes`' per byte), all-to-alls (the bound's: each token once to each GPU
    that holds one of its experts, one byte an element), one send."""
    tp = 2 * L / n_PP * _all_reduce_sent(n_TP, s_TP) * tp_all_reduce_bytes(T)
    ep = ep_dispatches() * 2 * L_x / n_PP * distinct_peers(n_EP) * T * d * A2A_LEAST / ep_token_split()
    return tp + ep + _some(n_St) * T * d * b_a / n_TP


# ----------------------------------------------------------------------------------------------- training

def expert_data_parallel():
    """GPUs that hold the same routed experts' slice [1]: n_TP n_DP / max(n_TP, n_EP), the data-parallel group the
    experts' gradients and optimizer state are reduced and sharded over (1 where an expert group spans every replica,
    data-parallel attention with ep = tp dp: each expert lives on one GPU); n_DP where ep <= tp."""
    return n_TP * n_DP / expert_split()


def _training_shares(stages=n_PP):
    """((parameters, data-parallel group), ...) of one GPU's slice [1]: the dense part (N - N_x) / (n_TP n_PP) over
    n_DP, the routed experts N_x / (max(n_TP, n_EP) n_PP) over :func:`expert_data_parallel` (as weight_bytes_per_gpu
    splits them, DeepSpeed-MoE and Megatron-Core keep an expert's gradients and optimizer state on the expert's
    data-parallel group).  ``stages``: n_PT for the state a GPU holds (the stage with the most parameters: the first
    holds the embedding, the last the head), n_PP for the busiest stage's traffic."""
    return (((N + N_R - N_x) / (n_TP * stages), n_DP), (N_x / (expert_split() * stages), expert_data_parallel()))


def training_state_per_gpu(stage: int):
    """Training state on one GPU under ZeRO stage 0-3 [B] (ZeRO SC'20 section 5, figure 1), per n_TP n_PP slice.

    0 (plain data parallel): (k_w + k_g + k_o) N;  1: optimizer sharded, (k_w + k_g + k_o/n_DP) N;
    2: gradients too, (k_w + (k_g + k_o)/n_DP) N;  3 (= FSDP full shard): everything, (k_w + k_g + k_o) N / n_DP;
    N the GPU's slice, the routed experts split max(n_TP, n_EP) ways and sharded over their own data-parallel group
    (:func:`_training_shares`; the dense model's N / (n_TP n_PT) over n_DP), on the pipeline stage that holds the
    most parameters (n_PT: Llama 3.1 70B at pp 4 holds 18.16e9 on its first and last stages, not 80 / 4 layers'
    17.64e9; genreport.model.stages.training_split).
    """
    def per_param(n):
        return {0: k_w + k_g + k_o, 1: k_w + k_g + k_o / n, 2: k_w + (k_g + k_o) / n, 3: (k_w + k_g + k_o) / n}[stage]

    return sum(per_param(n) * params for params, n in _training_shares(n_PT))


def training_grad_comm_time():
    """Gradient exchange of one step, ZeRO 0-2 [s]: a ring all-reduce of the GPU's k_g N / (n_TP n_PP) gradient bytes
    over n_DP, the routed experts' over their own data-parallel group (:func:`_training_shares`; none where each
    expert lives on one GPU), on the same links.

    ZeRO-2 reduce-scatters the gradients and all-gathers the updated weights: the same 2 (n-1)/n volume
    (ZeRO section 7).
    """
    (dense, n_d), (experts, n_x) = _training_shares()
    return all_reduce_time(n_d, k_g * dense, W_DP, a_DP) + sp.Min(1, N_x) * all_reduce_time(n_x, k_g * experts,
                                                                                            W_DP, a_DP)


def training_zero3_comm_time():
    """Parameter and gradient traffic of one step under ZeRO-3 / FSDP [s]: two weight all-gathers and a gradient reduce-scatter.

    Forward and backward each gather the k_w N weights, the gradients are reduce-scattered: 1.5 times
    the data-parallel volume (ZeRO section 7.2.2); the routed experts over their own data-parallel group.
    """
    def traffic(shard, n):
        return 2 * all_gather_time(n, k_w * shard, W_DP, a_DP) + reduce_scatter_time(n, k_g * shard, W_DP, a_DP)

    (dense, n_d), (experts, n_x) = _training_shares()
    return traffic(dense, n_d) + sp.Min(1, N_x) * traffic(experts, n_x)


def training_backward_time():
    """Backward pass of T tokens on one GPU [s]: 4 (N_a + N_R) T / (n_TP n_PP P), two thirds of 6 N_a T (seed 003
    section 2), each GPU computing with what it holds whole (N_R) as the training step's slice does (N_a,g)."""
    return 4 * (N_a + N_R) * T / (n_TP * n_PP * P)


# ----------------------------------------------------------------------------------------------- closed forms

def _positive_root(eq, var):
    """The one root of ``eq`` that is positive for positive symbols (SymPy may return a +/- pair)."""
    roots = sp.solve(eq, var, dict=False)
    sample = {s: sp.Rational(k + 2, k + 1) for k, s in enumerate(sorted(eq.free_symbols - {var}, key=str))}
    good = [r for r in roots if (r.subs(sample).is_real and r.subs(sample) > 0)]
    if len(good) != 1:
        raise ValueError(f"expected one positive root for {var}, SymPy found {roots}")
    return sp.factor(good[0]) if good[0].is_rational_function() else good[0]


def _dense_one_stage(expr):
    """Dense model, one stage, no experts, no activation traffic, all weights streamed: the closed forms' setting."""
    out = expr.subs({n_PP: 1, n_St: 1, N_x: 0, L_x: 0, n_EP: 1, a: 0, N_e: 0}).subs(sp.Min(1, B), 1)  # B >= 1
    return out.subs(_some(n_TP), 1)  # two GPUs or more: the question is how many


# The ring's protocols for the closed forms inside one domain: (its bus bandwidth, step latency, call latency), as the
# estimate charges them (PAID_PROTOCOLS) and as NCCL's tuner prices them to choose one (TUNER_PROTOCOLS).
RING_PROTOCOLS = {p: f[:3] for p, f in PAID_PROTOCOLS.items()}
RING_TUNER = {p: f[:3] for p, f in TUNER_PROTOCOLS.items()}


def decode_time_tp_ring(protocol="LL", table=None):
    """Tensor-parallel all-reduces of a decode round as the library's ring runs them with one of its protocols [s]
    (the closed forms' model): 2 (L/n_PP) m (tau + 2 (n-1) alpha + 2 (n-1)/n B d b_a / (m W)), LL's by default
    (tau_c, alpha_TP, W_lTP: W_cTP where the file gives no protocols); ``table`` RING_TUNER for the tuner's price.

    The ring with LL is what NCCL picks for the small messages of batch-1 decode (a few KiB per call); the strict
    bound's all-reduce (one step of latency) would put these crossings past hundreds of GPUs, which no engine reaches.
    """
    W_p, alpha_p, tau_p = (table or RING_PROTOCOLS)[protocol]
    z = tp_all_reduce_bytes() / microbatches()
    return 2 * L / n_PP * microbatches() * all_reduce_time_library(n_TP, z, W_p, alpha_p, tau_p)


@cache
def tp_weight_crossover():
    """TP degree where the batch-1 all-reduces, as the library's ring runs them, take as long as streaming the
    weight slice [1].

    Solve 2 L [tau_c + 2 (n-1) alpha_TP + 2 (n-1)/n d b_a / W_lTP] = N b / (n W) for n = n_TP: past it, adding
    GPUs makes batch-1 decode interconnect-bound (latency-bound all-reduces against a shrinking slice).
    """
    t_comm = _dense_one_stage(decode_time_tp_ring()).subs(B, 1)
    t_w = N * b / (n_TP * W)
    return _positive_root(sp.Eq(t_comm, t_w), n_TP)


def _one_root(expr, var, what):
    found = sp.solve(sp.Eq(expr, 0), var, dict=False)
    if len(found) != 1:
        raise ValueError(f"expected one root for {var} ({what}), SymPy found {found}")
    return sp.factor(found[0])


@cache
def crossover_lines() -> tuple[dict, dict]:
    """The lines in B behind :func:`comm_hbm_crossover_batch` (one stage, dense): each protocol's all-reduces as the
    estimate charges them less the HBM ledger, and as NCCL's tuner prices them."""
    t_mem = _dense_one_stage(decode_bytes_per_gpu()) / W
    gaps = {p: sp.expand(_dense_one_stage(decode_time_tp_ring(p)) - t_mem) for p in RING_PROTOCOLS}
    priced = {p: sp.expand(_dense_one_stage(decode_time_tp_ring(p, RING_TUNER))) for p in RING_TUNER}
    return gaps, priced


@cache
def comm_hbm_crossover_batch():
    """Batch where the all-reduces of a decode step, as the library's ring runs them with the protocol its tuner
    picks, reach the HBM ledger for good [1] (one stage, dense).

    Each protocol's time is a line in B, and so is the HBM ledger (N b / n + B S c / s_kv) / W; the tuner runs LL,
    then LL128, then Simple as the messages grow (their priced bandwidths rise in that order), and the time the
    estimate charges is the run protocol's line, so the gap to the ledger is a line in each protocol's range of B
    with a step where the tuner changes protocol.  Where every protocol's line grows faster than the ledger, the gap
    rises within each range, and the batch past which the all-reduces stay above the ledger is the last upward
    crossing: the largest of each protocol's root where the tuner runs that protocol there, and of each change of
    protocol where the gap steps from below the ledger to at or above it.  None where no crossing is found (the
    all-reduces lead from batch 1), or where one protocol grows no faster than the ledger (-1, read as none).  Where
    the file gives no protocols the three are one ring and this is its root.
    """
    parts = crossover_parts()
    none = sp.Integer(-1)
    candidates = [sp.Piecewise((c.value, c.holds), (none, True)) for c in parts]
    gaps, _ = crossover_lines()
    slopes = [sp.factor(sp.diff(g, B)) for g in gaps.values()]
    return sp.Piecewise((sp.Max(*candidates), sp.Min(*slopes) > 0), (none, True))


@dataclass(frozen=True)
class Crossing:
    """One candidate of :func:`comm_hbm_crossover_batch`: a batch (``value``) and when it is an upward crossing
    (``holds``): a protocol's root where the tuner runs that protocol there (``kind`` "root", ``protocols`` (p,)),
    or the tuner's change from one protocol to the next where the gap steps from below the ledger to at or above it
    (``kind`` "switch", ``protocols`` (a, c))."""

    kind: str
    protocols: tuple
    value: sp.Expr
    holds: sp.Basic


@cache
def crossover_parts() -> tuple[Crossing, ...]:
    """The candidates of :func:`comm_hbm_crossover_batch`, in order: each protocol's root, then each change of
    protocol (LL to LL128, LL to Simple, LL128 to Simple)."""
    gaps, priced = crossover_lines()
    out = []
    for p, gap in gaps.items():
        root = _one_root(gap, B, p)
        out.append(Crossing("root", (p,), root, picked_protocol(priced, {B: root})[p]))
    for a, c in (("LL", "LL128"), ("LL", "Simple"), ("LL128", "Simple")):
        # the tuner's change from a to c: their priced lines cross; a runs below it (its bandwidth is the lower),
        # c above it, where the third is not cheaper there
        slope = sp.diff(priced[a] - priced[c], B)
        at = -(priced[a] - priced[c]).subs(B, 0) / slope
        (third,) = set(priced) - {a, c}
        switch = sp.And(slope > 0, priced[third].subs(B, at) >= priced[a].subs(B, at),
                        gaps[a].subs(B, at) < 0, gaps[c].subs(B, at) >= 0)
        out.append(Crossing("switch", (a, c), at, switch))
    return tuple(out)


@cache
def link_ridge():
    """Link ridge point [FLOP/B]: the FLOPs per byte sent at which compute time equals link time.

    Solve I Z / P = Z / W_TP for I: P / W_TP.
    """
    intensity = sp.Symbol("I", positive=True)
    root = sp.solve(sp.Eq(intensity * Z / P, Z / W_TP), intensity, dict=False)
    return root[0]


def tp_link_intensity():
    """FLOPs per byte one GPU sends under tensor parallelism [FLOP/B]: (2 N_a T / n) / (2 L 2 (n-1)/n T d b_a).

    Weight FLOPs per all-reduced byte; the tokens cancel, so it holds for any batch or prompt.
    """
    flops = 2 * N_a * T / n_TP
    sent = 2 * L * 2 * (n_TP - 1) / n_TP * tp_all_reduce_bytes(T)
    return sp.cancel(flops / sent)


@cache
def tp_link_bound_degree():
    """TP degree where the weight FLOPs per byte sent fall to the link ridge [1]: prefill turns link-bound past it.

    Solve N_a / (2 L (n-1) d b_a) = P / W_TP for n = n_TP.
    """
    return _positive_root(sp.Eq(tp_link_intensity(), link_ridge()), n_TP)


@cache
def training_overlap_tokens():
    """Tokens per replica and step whose backward pass covers the gradient all-reduce (ZeRO 0-2) [token].

    Solve 4 N_a T / (n_TP n_PP P) = all-reduce(n_DP, k_g N / (n_TP n_PP)) for T: with fewer tokens per
    step the gradient exchange cannot hide behind the backward pass.
    """
    return _positive_root(sp.Eq(training_backward_time(), training_grad_comm_time()), T)


def memory_per_gpu():
    """Per-GPU memory of a replica at batch B and context S [B]: weights per GPU + B S c / (n_PK s_kv), on the
    stage that holds the fewest tokens."""
    return weight_bytes_per_gpu() + B * S * kv_bytes_per_token_per_gpu()



# ----------------------------------------------------------------------------------------------- one request
#
# A request of T prompt tokens and T_o generated ones, decoded in a batch of B: its first token comes out of the
# prefill (the time to first token, prefill_time_bound at T), each later token out of one decode round at a
# context one longer, T + k for k = 1 .. T_o - 1.  Every ledger of a decode round is affine in the context S at a
# fixed batch: the compute ledger through the attention FLOPs 4 L H_q d_h S B, the HBM ledger through the KV
# reads B S c, the interconnect ledger not at all.  The sum of an affine ledger over the T_o - 1 rounds is closed:
# (T_o - 1) times the ledger at the mean context T + T_o/2.  The sum of the rounds (each the max of its ledgers,
# through the pipeline) is at least the max of the ledgers' sums (a sum of maxima is at least the maximum of the
# sums, and the pipeline's round max(X, ((n_PP - 1) X + X_L)/m) is subadditive), so the bound below is still a
# strict lower bound; it is exact while one ledger binds every round (no crossover inside the request).

_k = sym("k_t")  # the summation index: the k-th decode round of a request
T_o = sym("T_o")


def request_mean_context():
    """Mean context of a request's decode rounds [token]: T + T_o/2, the mean of T + k over k = 1 .. T_o - 1."""
    return T + T_o / 2


def request_round_sum(expr):
    """sum_{k=1}^{T_o-1} expr(S = T + k) as SymPy sums it (for the derivation shown; tests check it equals
    :func:`_over_request`)."""
    return sp.summation(sp.expand(expr.subs(S, T + _k)), (_k, 1, T_o - 1))


def _over_request(expr):
    """sum_{k=1}^{T_o-1} expr(S = T + k) in closed form, (T_o - 1) expr(T + T_o/2): expr is affine in S."""
    return (T_o - 1) * expr.subs(S, request_mean_context())


def request_decode_time_bound():
    """Strict lower bound of the T_o - 1 decode rounds of one request after its prefill [s], at batch B.

    pipelined(max(sum compute, sum HBM, sum interconnect), ...) with every sum over k = 1 .. T_o - 1 of the
    ledger at context T + k, in closed form: (T_o - 1) times the ledger at T + T_o/2 (the ledgers are affine in
    S).  The max of the sums, not the sum of the maxima: smaller or equal, so a lower bound still (module note).
    Every round at the same m_b micro-batches (:func:`fastest_schedule`: the evaluation takes the m whose request is
    the least).  A schedule that changed m between the rounds, as the growing caches move each round's least split,
    could beat it by the difference of the sums: 0.24% for Llama 3.1 70B at tp 8 x pp 2, two sequences, 512-token
    prompts and 16k-token outputs (a review, stop 83); an engine keeps its count of micro-batches.
    """
    comp = _over_request(decode_time_compute_gpu())
    mem = _over_request(decode_time_memory_gpu())
    return fastest_schedule(pipelined(sp.Max(comp, mem, _over_request(decode_time_comm())),
                                      sp.Max(_over_request(decode_time_compute_last()),
                                             _over_request(decode_time_memory_last()),
                                             _over_request(decode_time_comm_last()))))


def request_decode_time_serial():
    """Serialized estimate of the T_o - 1 decode rounds of one request [s]: max(sum compute at e_m of the peak, sum HBM
    of the busiest GPU) + the kernels' fixed costs of every round + sum of the collectives as the library runs them,
    through the pipeline: each round is :func:`decode_time_serial`'s, its fixed costs included (without them the
    rounds' tok/s and end-to-end latency were short of the TPOT's round by (T_o - 1) m (L/n_PP) k_L tau_k).

    The max is taken of the sums, as in :func:`request_decode_time_bound`: when the compute and HBM ledgers cross
    inside the request this estimate is short of the sum of the rounds by less than the smaller sum.
    """
    work = (sp.Max(_over_request(decode_time_compute_serial()), _over_request(decode_time_memory_busiest()))
            + _over_request(decode_time_overhead()))
    last = (sp.Max(_over_request(decode_time_compute_serial_last()), _over_request(decode_time_memory_busiest_last()))
            + _over_request(decode_time_overhead_last()))
    return pipelined(work + _over_request(decode_time_comm(True)), last + _over_request(decode_time_comm_last(True)))
