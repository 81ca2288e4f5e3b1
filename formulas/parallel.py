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

from functools import cache

import sympy as sp

from . import decode
from .glossary import sym

NCCL_PERF = "NCCL tests, doc/PERFORMANCE.md (bus bandwidth); Thakur, Rabenseifner, Gropp 2005 (ring algorithms)"
MEGATRON = "Shoeybi et al. 2019, Megatron-LM, section 3 (two all-reduces per layer)"
MEGATRON_PP = "Narayanan et al. SC'21, Megatron-LM, sections 2.2 and 4.1 (pipeline bubble, scatter/gather)"
GSHARD = "Lepikhin et al. 2020, GShard, section 2.2 (dispatch and combine all-to-all)"
ZERO = "Rajbhandari et al. SC'20, ZeRO, section 5, figure 1"

(n_TP, n_PP, n_EP, n_DP, n_g, Z, W_x, alpha, N_x, L_x, k_e, b_a, s_kv, k_w, k_g, k_o) = (
    sym(x) for x in ("n_TP", "n_PP", "n_EP", "n_DP", "n_g", "Z_g", "W_x", "alpha", "N_x", "L_x", "k_e", "b_a",
                     "s_kv", "k_w", "k_g", "k_o"))
W_TP, a_TP, W_PP, a_PP, W_EP, a_EP, W_DP, a_DP = (
    sym(x) for x in ("W_TP", "alpha_TP", "W_PP", "alpha_PP", "W_EP", "alpha_EP", "W_DP", "alpha_DP"))
N, N_a, N_e, L, d, H_kv, b, c, C, P, W, B, S, T, a = (
    sym(x) for x in ("N", "N_a", "N_e", "L", "d", "H_kv", "b", "c", "C", "P", "W", "B", "S", "T", "a"))


# ----------------------------------------------------------------------------------------------- collectives

def all_reduce_time(n=n_g, Z=Z, W=W_x, alpha=alpha):
    """Ring all-reduce of Z bytes per GPU over n GPUs [s]: 2 (n-1)/n Z/W + 2 (n-1) alpha.

    A reduce-scatter then an all-gather, n-1 steps each (Thakur et al. 2005; NCCL's bus bandwidth
    busBw = algBw 2 (n-1)/n).  Zero for n = 1.

    >>> t = all_reduce_time().subs({sym('n_g'): 8, sym('Z_g'): 16384, sym('W_x'): 450e9, sym('alpha'): 0.6e-6})
    >>> round(float(t) * 1e6, 3)
    8.464
    """
    return 2 * (n - 1) / n * Z / W + 2 * (n - 1) * alpha


def all_gather_time(n=n_g, Z=Z, W=W_x, alpha=alpha):
    """Ring all-gather of Z bytes in total (Z/n from each GPU) [s]: (n-1)/n Z/W + (n-1) alpha.  NCCL; Thakur 2005."""
    return (n - 1) / n * Z / W + (n - 1) * alpha


def reduce_scatter_time(n=n_g, Z=Z, W=W_x, alpha=alpha):
    """Ring reduce-scatter of Z bytes per GPU (Z/n kept) [s]: (n-1)/n Z/W + (n-1) alpha.  NCCL; Thakur 2005."""
    return (n - 1) / n * Z / W + (n - 1) * alpha


def all_to_all_time(n=n_g, Z=Z, W=W_x, alpha=alpha):
    """All-to-all of Z bytes per GPU [s]: (n-1)/n Z/W + (n-1) alpha.

    Each GPU keeps 1/n of its buffer and sends (n-1)/n, one exchange with each of the n-1 others
    (NCCL's alltoall bus bandwidth is (n-1)/n times the algorithm bandwidth).
    """
    return (n - 1) / n * Z / W + (n - 1) * alpha


def p2p_time(Z=Z, W=W_x, alpha=alpha):
    """Point-to-point send of Z bytes [s]: Z/W + alpha (one step)."""
    return Z / W + alpha


# ----------------------------------------------------------------------------------------------- memory

def expert_split():
    """GPUs one layer's routed experts are spread over [1]: max(n_TP, n_EP).

    By expert over n_EP GPUs; when n_EP < n_TP each expert is further split by tensor over the
    remaining n_TP/n_EP (Megatron-Core's expert tensor parallelism; vLLM without --enable-expert-parallel
    shards every expert n_TP ways).
    """
    return sp.Max(n_TP, n_EP)


def weight_bytes_per_gpu(N=N):
    """Weight bytes on one GPU [B]: (N - N_x (1 - n_TP / max(n_TP, n_EP))) b / (n_TP n_PP).

    Everything but the routed experts is split n_TP n_PP ways, the N_x expert parameters
    max(n_TP, n_EP) n_PP ways; stages are assumed balanced (L/n_PP layers each).  Equals N b on one GPU.
    """
    return (N - N_x * (1 - n_TP / expert_split())) * b / (n_TP * n_PP)


def kv_split():
    """Ways one layer's K and V are split over the tensor-parallel GPUs [1]: min(n_TP, H_kv).

    Each GPU holds H_kv/n_TP KV heads; when n_TP > H_kv every GPU still holds one head, so each is
    replicated n_TP/H_kv times (vLLM and TensorRT-LLM replicate KV heads this way).  MLA's latent is
    shared by all heads and is replicated on every GPU of the group (s_kv = 1).
    """
    return sp.Min(n_TP, H_kv)


def kv_bytes_per_token_per_gpu():
    """KV bytes of one token on one GPU [B/token]: c / (n_PP s_kv), split by layer and by KV head."""
    return c / (n_PP * s_kv)


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
    """Micro-batches in flight in the pipeline [1]: min(n_PP, B), one sequence at least in each.

    The pipeline is full once B >= n_PP; below that (n_PP - B)/n_PP of each GPU's time is bubble.
    """
    return sp.Min(n_PP, B)


def pipelined(busy, busy_last):
    """A round of the pipeline from the per-round ledger of a GPU [s]: max(X, ((n_PP - 1) X + X_L) / m).

    Every GPU must do its round's work (X, its busiest ledger; X_L for the last stage, which sends no
    activations on), and each micro-batch walks the n_PP stages in turn, X/m per stage and X_L/m at the
    last: with fewer micro-batches than stages (m < n_PP) the walk is longer than the work, the bubble of
    Narayanan et al. SC'21 section 2.2.  Equals X on one stage.
    """
    return sp.Max(busy, ((n_PP - 1) * busy + busy_last) / microbatches())


def decode_flops_per_gpu():
    """FLOPs of one GPU in one decode round [FLOP]: (2 N_a + 4 L H_q d_h S) B / (n_TP n_PP)."""
    return decode.decode_flops() / (n_TP * n_PP)


def decode_bytes_per_gpu():
    """HBM bytes of one GPU in one decode round [B]: m (weights streamed per GPU) + B (S c / (n_PP s_kv) + a / (n_TP n_PP)).

    Each of the m micro-batches streams the GPU's weight slice once (N - N_e weights read, the
    experts split max(n_TP, n_EP) ways); every sequence's KV is read once, split by layer and head.
    """
    weights = (N - N_e - N_x * (1 - n_TP / expert_split())) * b / (n_TP * n_PP)
    return microbatches() * weights + B * (S * c / (n_PP * s_kv) + a / (n_TP * n_PP))


def tp_all_reduce_bytes(tokens=B):
    """Bytes of one tensor-parallel all-reduce [B]: tokens d b_a (B d b_a in decode, T d b_a in prefill)."""
    return tokens * d * b_a


def decode_time_tp():
    """Tensor-parallel all-reduces of one GPU in a decode round [s]: 2 (L/n_PP) m all-reduces of B d b_a / m."""
    return 2 * L / n_PP * microbatches() * all_reduce_time(n_TP, tp_all_reduce_bytes() / microbatches(), W_TP, a_TP)


def decode_time_pp():
    """Stage-to-stage sends of one GPU in a decode round [s]: m sends of B d b_a / (m n_TP); none when n_PP = 1."""
    sends = sp.Min(1, n_PP - 1)  # 0 for one stage, 1 otherwise
    return sends * microbatches() * p2p_time(B * d * b_a / (microbatches() * n_TP), W_PP, a_PP)


def ep_token_split():
    """Ways a replica's tokens are spread over the GPUs that dispatch them to the experts [1]: min(n_EP, n_TP).

    Inside one replica (n_EP <= n_TP) every GPU has all B tokens after the all-reduce and dispatches 1/n_EP
    of them; an expert group wider than a replica (n_EP > n_TP: data-parallel attention) gathers n_EP/n_TP
    replicas, each GPU dispatching its replica's B tokens over its n_TP share: B / n_TP per GPU.
    """
    return sp.Min(n_EP, n_TP)


def decode_time_ep():
    """Expert all-to-alls of one GPU in a decode round [s]: 2 (L_x/n_PP) m all-to-alls of B k_e d b_a / (m min(n_EP, n_TP)).

    Dispatch sends each token's activations to its k_e experts, combine brings them back (GShard 2.2).
    """
    z = B * k_e * d * b_a / (microbatches() * ep_token_split())
    return 2 * L_x / n_PP * microbatches() * all_to_all_time(n_EP, z, W_EP, a_EP)


def decode_interconnect_bytes():
    """Bytes one GPU sends in a decode round [B]: all-reduces 4 (n_TP-1)/n_TP L B d b_a / n_PP, plus all-to-alls and stage sends."""
    tp = 2 * L / n_PP * 2 * (n_TP - 1) / n_TP * tp_all_reduce_bytes()
    ep = 2 * L_x / n_PP * (n_EP - 1) / n_EP * B * k_e * d * b_a / ep_token_split()
    pp = sp.Min(1, n_PP - 1) * B * d * b_a / n_TP
    return tp + ep + pp


def decode_time_comm():
    """Interconnect ledger of one GPU in a decode round [s]: the TP, EP and PP collectives, one after another.

    Each collective needs the output of the computation before it (layer l's all-reduce, layer l's
    matmul), so within one GPU they add.
    """
    return decode_time_tp() + decode_time_ep() + decode_time_pp()


def decode_time_compute_gpu():
    """Compute ledger of one GPU in a decode round [s]: FLOPs per GPU / P."""
    return decode_flops_per_gpu() / P


def decode_time_memory_gpu():
    """HBM ledger of one GPU in a decode round [s]: bytes per GPU / W."""
    return decode_bytes_per_gpu() / W


def decode_time_comm_last():
    """Interconnect ledger of a last-stage GPU in a decode round [s]: no activations to send on.

    It returns the sampled token ids to the first stage, a few bytes: one step latency per micro-batch.
    """
    return decode_time_tp() + decode_time_ep() + sp.Min(1, n_PP - 1) * microbatches() * a_PP


def decode_time_bound():
    """Strict lower bound of a decode round [s]: the ledgers overlapped per GPU, through the pipeline.

    X = max(compute, HBM, interconnect) of one GPU's round, X_L the same at the last stage; the round
    lasts max(X, ((n_PP - 1) X + X_L) / m) (:func:`pipelined`).  On one GPU it is max(F/P, Q/W), seed 003
    figure 1.
    """
    comp, mem = decode_time_compute_gpu(), decode_time_memory_gpu()
    return pipelined(sp.Max(comp, mem, decode_time_comm()), sp.Max(comp, mem, decode_time_comm_last()))


def decode_time_serial():
    """Serialized estimate of a decode round [s]: max(compute, HBM) + interconnect per GPU, through the pipeline.

    The all-reduces sit on the critical path (the next layer needs their result), as in real decode
    engines without compute-communication overlap; not a bound, an estimate.
    """
    work = sp.Max(decode_time_compute_gpu(), decode_time_memory_gpu())
    return pipelined(work + decode_time_comm(), work + decode_time_comm_last())


# ----------------------------------------------------------------------------------------------- prefill

def prefill_time_tp():
    """Tensor-parallel all-reduces of one GPU in a prefill of T tokens [s]: 2 L/n_PP all-reduces of T d b_a."""
    return 2 * L / n_PP * all_reduce_time(n_TP, tp_all_reduce_bytes(T), W_TP, a_TP)


def prefill_time_comm():
    """Interconnect ledger of a prefill of T tokens on a GPU that sends to the next stage [s]: TP, EP and PP."""
    return prefill_time_comm_last() + sp.Min(1, n_PP - 1) * p2p_time(T * d * b_a / n_TP, W_PP, a_PP)


def prefill_time_comm_last():
    """Interconnect ledger of a prefill on the last stage (or the only one) [s]: its all-reduces and all-to-alls."""
    ep = 2 * L_x / n_PP * all_to_all_time(n_EP, T * k_e * d * b_a / ep_token_split(), W_EP, a_EP)
    return prefill_time_tp() + ep


def _prefill_ledgers():
    """Compute and HBM ledgers of one GPU in a prefill of T tokens [s]: its share of the FLOPs and bytes."""
    from .quantities import _prefill_flops  # 2 N_p T + 2 V d + 2 L H_q d_h T^2, the single-card prefill's FLOPs

    t_comp = _prefill_flops() / (n_TP * n_PP * P)
    t_mem = (weight_bytes_per_gpu(N - N_e) + T * kv_bytes_per_token_per_gpu()) / W
    return t_comp, t_mem


def prefill_time_bound():
    """Strict lower bound of a prefill of T tokens [s]: (n_PP - 1) X + X_L, X = max(compute, HBM, interconnect).

    One prompt (one micro-batch) passes the n_PP stages one after another; every stage but the last also
    sends its activations on.  On one GPU: max(F/P, Q/W).
    """
    t_comp, t_mem = _prefill_ledgers()
    return (n_PP - 1) * sp.Max(t_comp, t_mem, prefill_time_comm()) + sp.Max(t_comp, t_mem, prefill_time_comm_last())


def prefill_time_serial():
    """Serialized estimate of a prefill of T tokens [s]: (n_PP - 1) (max(compute, HBM) + x) + max(compute, HBM) + x_L.

    The all-reduces on the critical path, as :func:`decode_time_serial`; an estimate, not a bound.
    """
    t_comp, t_mem = _prefill_ledgers()
    work = sp.Max(t_comp, t_mem)
    return (n_PP - 1) * (work + prefill_time_comm()) + work + prefill_time_comm_last()


def prefill_interconnect_bytes():
    """Bytes a GPU that sends to the next stage sends in a prefill of T tokens [B]: all-reduces, all-to-alls, one send."""
    tp = 2 * L / n_PP * 2 * (n_TP - 1) / n_TP * tp_all_reduce_bytes(T)
    ep = 2 * L_x / n_PP * (n_EP - 1) / n_EP * T * k_e * d * b_a / ep_token_split()
    return tp + ep + sp.Min(1, n_PP - 1) * T * d * b_a / n_TP


# ----------------------------------------------------------------------------------------------- training

def training_state_per_gpu(stage: int):
    """Training state on one GPU under ZeRO stage 0-3 [B] (ZeRO SC'20 section 5, figure 1), per n_TP n_PP slice.

    0 (plain data parallel): (k_w + k_g + k_o) N;  1: optimizer sharded, (k_w + k_g + k_o/n_DP) N;
    2: gradients too, (k_w + (k_g + k_o)/n_DP) N;  3 (= FSDP full shard): everything, (k_w + k_g + k_o) N / n_DP.
    """
    per_param = {0: k_w + k_g + k_o, 1: k_w + k_g + k_o / n_DP, 2: k_w + (k_g + k_o) / n_DP,
                 3: (k_w + k_g + k_o) / n_DP}[stage]
    return per_param * N / (n_TP * n_PP)


def training_grad_comm_time():
    """Gradient exchange of one step, ZeRO 0-2 [s]: a ring all-reduce of the GPU's k_g N / (n_TP n_PP) gradient bytes.

    ZeRO-2 reduce-scatters the gradients and all-gathers the updated weights: the same 2 (n-1)/n volume
    (ZeRO section 7).
    """
    return all_reduce_time(n_DP, k_g * N / (n_TP * n_PP), W_DP, a_DP)


def training_zero3_comm_time():
    """Parameter and gradient traffic of one step under ZeRO-3 / FSDP [s]: two weight all-gathers and a gradient reduce-scatter.

    Forward and backward each gather the k_w N weights, the gradients are reduce-scattered: 1.5 times
    the data-parallel volume (ZeRO section 7.2.2).
    """
    shard = N / (n_TP * n_PP)
    return 2 * all_gather_time(n_DP, k_w * shard, W_DP, a_DP) + reduce_scatter_time(n_DP, k_g * shard, W_DP, a_DP)


def training_backward_time():
    """Backward pass of T tokens on one GPU [s]: 4 N_a T / (n_TP n_PP P), two thirds of 6 N_a T (seed 003 section 2)."""
    return 4 * N_a * T / (n_TP * n_PP * P)


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
    return expr.subs({n_PP: 1, N_x: 0, L_x: 0, n_EP: 1, a: 0, N_e: 0}).subs(sp.Min(1, B), 1)  # B >= 1


@cache
def tp_weight_crossover():
    """TP degree where the batch-1 all-reduces take as long as streaming the weight slice [1].

    Solve 2 L [2 (n-1)/n d b_a / W_TP + 2 (n-1) alpha_TP] = N b / (n W) for n = n_TP: past it, adding
    GPUs makes batch-1 decode interconnect-bound (latency-bound all-reduces against a shrinking slice).
    """
    t_comm = _dense_one_stage(decode_time_tp()).subs(B, 1)
    t_w = N * b / (n_TP * W)
    return _positive_root(sp.Eq(t_comm, t_w), n_TP)


@cache
def comm_hbm_crossover_batch():
    """Batch where the interconnect ledger of a decode step reaches the HBM ledger [1] (one stage, dense).

    Solve 2 L [2 (n-1)/n B d b_a / W_TP + 2 (n-1) alpha_TP] = (N b / n + B S c / s_kv) / W for B;
    negative when the all-reduces never catch up with the HBM traffic.
    """
    t_comm = _dense_one_stage(decode_time_tp())
    t_mem = _dense_one_stage(decode_bytes_per_gpu()) / W
    roots = sp.solve(sp.Eq(sp.expand(t_comm), t_mem), B, dict=False)
    if len(roots) != 1:
        raise ValueError(f"expected one root for B, SymPy found {roots}")
    return sp.factor(roots[0])


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
    """Per-GPU memory of a replica at batch B and context S [B]: weights per GPU + B S c / (n_PP s_kv)."""
    return weight_bytes_per_gpu() + B * S * kv_bytes_per_token_per_gpu()

