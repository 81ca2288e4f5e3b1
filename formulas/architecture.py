"""Counting a model's parameters and KV bytes from its shapes (plain numbers, no SymPy).

These feed the symbols N, N_a, N_e, d_h and c of the roofline formulas:

* dense: N = L (attention + FFN + norms) + embedding + head (+ final norm), with the optional biases
  (q/k/v, output, FFN), attention sinks, per-head q/k norms and extra norms per layer (Gemma 2/3);
* mixture of experts: routed and shared experts, leading dense layers, MoE on every k-th layer (Llama 4),
  router and expert biases (gpt-oss), and the expected number of distinct experts a decode batch touches;
* multi-head latent attention (DeepSeek-V2/V3): the cached latent plus the
  decoupled RoPE key per layer, and the absorbed attention FLOPs;
* sliding-window layers (Mistral, Gemma 2/3, gpt-oss): a local layer caches at most its window;
* chunked layers (Llama 4): a local layer attends only within its own chunk of c tokens, so it caches at
  most c tokens of a sequence and at context S reads the S mod c tokens of the current chunk.

Layers that attend to the whole context are *global*; windowed and chunked layers are *bounded*: their
cache per sequence stops growing at the window (chunk).  The KV headline of such a model is two numbers,
:func:`kv_bytes_per_token_global` (per token of context) and :func:`kv_bytes_per_sequence_windowed`
(per sequence), and the capacities use both (:func:`kv_sequences_that_fit`, :func:`kv_tokens_that_fit`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from genreport.formulas import portable

# vLLM's fused MoE runs a step's tokens in chunks of at most this many and sizes its buffers for one chunk
# (vllm/envs.py VLLM_FUSED_MOE_CHUNK_SIZE, read at run time with the default "32768"; fused_moe.py fused_experts_impl:
# M = min(num_tokens, CHUNK_SIZE)); formulas.memory.activation_workspace_moe.
FUSED_MOE_CHUNK_TOKENS = 32768


@dataclass(frozen=True)
class ParameterCount:
    embedding: int  # input embedding V d
    lm_head: int  # output head V d (0 when tied)
    attention: int  # all layers (projections, their biases, attention sinks)
    ffn_dense: int  # dense FFN layers
    experts_routed: int  # all routed experts, all MoE layers (with their biases)
    experts_shared: int
    router: int
    norms: int  # every norm vector, the per-head q/k norms included
    expert_size: int  # parameters of one routed expert
    moe_layers: int
    active_routed: int  # routed experts used per token, all MoE layers
    experts_bias: int = 0  # the routed experts' biases (in experts_routed), which checkpoints keep in 16 bits
    # what every GPU of a tensor-parallel group holds whole (tp_replicated_params): of the norms, router, attention
    # (MLA's down-projections, the output bias) and dense FFNs (their down-projection bias) counted above
    replicated: int = 0
    replicated_attention: int = 0  # of ``replicated``, those in the attention class
    kv_projections: int = 0  # the K and V projections and their biases (in attention), 0 for MLA

    def tp_copies(self, tp: int, s_kv: float, b_t: float = 1.0, b_d: float = 1.0) -> float:
        """N_R [1]: the parameters tensor parallelism over ``tp`` GPUs adds to one replica by holding some whole on
        every GPU, N_u (n_TP - 1) + N_k (n_TP / s_kv - 1): the ``replicated`` ones on all tp GPUs, the K and V
        projections on tp / s_kv GPUs each (s_kv = min(tp, H_kv)); 0 on one GPU.  With the attention and default
        classes' bytes per weight ``b_t``, ``b_d``: their bytes (:func:`tp_copies_of`)."""
        return tp_copies_of(self.replicated_attention, self.replicated - self.replicated_attention,
                            self.kv_projections, tp, s_kv, b_t, b_d)

    @property
    def total(self) -> int:
        return (self.embedding + self.lm_head + self.attention + self.ffn_dense + self.experts_routed
                + self.experts_shared + self.router + self.norms)

    @property
    def active(self) -> int:
        """Parameters used for one token (all of them for a dense model), both embedding tables included."""
        return self.total - self.experts_routed + self.active_routed

    @property
    def blocks(self) -> int:
        """Transformer-block parameters: everything but the embedding and the head."""
        return self.total - self.embedding - self.lm_head

    @property
    def ffn_share_of_blocks(self) -> float:
        return (self.ffn_dense + self.experts_routed + self.experts_shared) / self.blocks


def tp_copies_of(attention, default, kv, tp: int, s_kv: float, b_t: float = 1.0, b_d: float = 1.0) -> float:
    """What tensor parallelism over ``tp`` GPUs adds by holding ``attention`` and ``default`` parameters (b_t and b_d
    bytes each) whole on every GPU and ``kv`` K/V-projection parameters on tp / s_kv GPUs: (attention b_t + default
    b_d) (tp - 1) + kv b_t (tp / s_kv - 1); parameters with unit bytes (N_R), a model's or one pipeline stage's."""
    return float((attention * b_t + default * b_d) * (tp - 1) + kv * b_t * (tp / s_kv - 1))


def _ffn_matrices(kind: str) -> int:
    return 3 if kind in ("swiglu", "geglu") else 2


def _ffn_bias(kind: str, width: int, d: int) -> int:
    """Bias vectors of one FFN block of width ``width``: gate and up (or the one input matrix), and down."""
    return (2 if _ffn_matrices(kind) == 3 else 1) * width + d


def attention_params_per_layer(m) -> int:
    """The attention projections of one layer, their biases and the attention sinks (norms: :func:`norm_params`)."""
    d, a = m.hidden_size, m.attention
    extra = (d if m.o_bias else 0) + (m.heads if a.sinks else 0)  # output bias; one sink logit per query head
    if a.kind == "mla":
        qk = a.qk_nope_head_dim + a.qk_rope_head_dim
        q = (d * a.q_lora_rank + a.q_lora_rank + a.q_lora_rank * m.heads * qk) if a.q_lora_rank else d * m.heads * qk
        kv = d * (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank \
            + a.kv_lora_rank * m.heads * (a.qk_nope_head_dim + a.v_head_dim)
        o = m.heads * a.v_head_dim * d
        return q + kv + o + extra
    q = d * m.heads * m.head_dim
    kv = 2 * d * m.kv_heads * m.head_dim
    o = m.heads * m.head_dim * d
    bias = (m.heads + 2 * m.kv_heads) * m.head_dim if m.qkv_bias else 0
    return q + kv + o + bias + extra


def tp_replicated_params(m, moe_layers: int, shared_blocks: int) -> tuple[int, int, int]:
    """(replicated, of them attention's, K and V projections) of model spec ``m``: what tensor parallelism does not
    split, as vLLM, SGLang and TensorRT-LLM shard a checkpoint.

    Every GPU of the group holds whole: the norms (the per-head q/k norms too), the MoE router (vLLM's ``gate =
    ReplicatedLinear``), MLA's down-projections q_a_proj and kv_a_proj_with_mqa with the latent norms after them
    (ReplicatedLinear: the latent is every head's), and a
    row-parallel layer's bias (RowParallelLinear keeps the whole output_size bias on every rank: the attention
    output's, a dense FFN's or shared expert's down-projection's).  The K and V projections of a GQA or MHA layer
    split by KV head: past n_TP = H_kv each GPU holds one whole head (QKVParallelLinear's num_kv_head_replicas =
    n_TP / H_kv), so they split min(n_TP, H_kv) ways (formulas.parallel.kv_split), the third number."""
    d, L, a = m.hidden_size, m.layers, m.attention
    attention = L * d if m.o_bias else 0
    if a.kind == "mla":
        down = d * (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank
        if a.q_lora_rank:
            down += d * a.q_lora_rank + a.q_lora_rank
        attention += L * down
        kv = 0
    else:
        kv = L * (2 * d * m.kv_heads * m.head_dim + (2 * m.kv_heads * m.head_dim if m.qkv_bias else 0))
    router = moe_layers * (d * m.moe.experts + (m.moe.experts if m.ffn_bias else 0)) if m.moe else 0
    down_bias = d * ((L - moe_layers) + shared_blocks) if m.ffn_bias else 0
    return attention + norm_params(m) + router + down_bias, attention, kv


def norm_params(m) -> int:
    """Every norm's weights: norms_per_layer vectors a layer (2: before attention and FFN; 4 in Gemma 2/3, a
    post-norm after each too), the per-head q and k norms (2 d_h a layer: Qwen3, Gemma 3), and the final norm.
    A layernorm has a bias vector too."""
    per_norm = 2 * m.hidden_size if m.norm == "layernorm" else m.hidden_size
    qk = m.layers * 2 * m.head_dim if m.attention.qk_norm and m.attention.kind != "mla" else 0
    return m.layers * m.norms_per_layer * per_norm + per_norm + qk


def moe_layer_count(m) -> int:
    """Layers whose FFN is routed: after ``first_dense_layers`` leading dense ones, every ``layer_step``-th
    (layers f + k - 1, f + 2k - 1, ... counting from 0, as Llama 4's interleave_moe_layer_step and Qwen's
    decoder_sparse_step place them); 0 for a dense model."""
    if m.moe is None:
        return 0
    return (m.layers - m.moe.first_dense_layers) // max(1, m.moe.layer_step)


@lru_cache(maxsize=256)
def parameter_count(m) -> ParameterCount:
    """Parameters of model spec ``m`` by matrix, from its shapes.  Remembered per model (a frozen Model; the layout
    searches ask for it at each candidate: 1,785 times in one DeepSeek-V3 evaluation)."""
    d, L = m.hidden_size, m.layers
    emb = m.vocab_size * d
    head = 0 if m.tied_embeddings else m.vocab_size * d
    attn = L * attention_params_per_layer(m)
    mats = _ffn_matrices(m.ffn_kind)
    norms = norm_params(m)
    bias = m.ffn_bias

    def block(width: int) -> int:  # one FFN block (a dense layer's, an expert's) of intermediate width ``width``
        return mats * d * width + (_ffn_bias(m.ffn_kind, width, d) if bias else 0)

    if m.moe is None:
        ffn = L * block(m.ffn_size)
        rep, rep_att, kv = tp_replicated_params(m, 0, 0)
        return ParameterCount(emb, head, attn, ffn, 0, 0, 0, norms, 0, 0, 0, replicated=rep,
                              replicated_attention=rep_att, kv_projections=kv)
    moe = m.moe
    moe_layers = moe_layer_count(m)
    rep, rep_att, kv = tp_replicated_params(m, moe_layers, moe_layers * moe.shared_experts)
    expert = block(moe.expert_ffn_size)
    return ParameterCount(
        embedding=emb, lm_head=head, attention=attn,
        ffn_dense=(L - moe_layers) * block(m.ffn_size),
        experts_routed=moe_layers * moe.experts * expert,
        experts_shared=moe_layers * moe.shared_experts * block(moe.shared_expert_ffn_size or moe.expert_ffn_size),
        router=moe_layers * (d * moe.experts + (moe.experts if bias else 0)), norms=norms, expert_size=expert,
        moe_layers=moe_layers, active_routed=moe_layers * moe.active_experts * expert,
        experts_bias=moe_layers * moe.experts * (_ffn_bias(m.ffn_kind, moe.expert_ffn_size, d) if bias else 0),
        replicated=rep, replicated_attention=rep_att, kv_projections=kv,
    )


def expected_experts_touched(experts: int, active: int, batch):
    """Expected distinct experts a batch of B tokens touches in one layer, routing uniformly at random.

    E (1 - (1 - k/E)^B): one token touches k, a large batch touches all E.
    """
    batch = np.asarray(batch, dtype=float)
    return experts * (1.0 - portable.power(1.0 - active / experts, batch))  # the same bits on every CPU


def parameters_read(m, batch, pc: ParameterCount | None = None):
    """Parameters streamed by one decode step at batch B: all of a dense model, the touched experts of an MoE."""
    pc = pc or parameter_count(m)
    if m.moe is None:
        return np.full(np.shape(batch), float(pc.total))
    touched = expected_experts_touched(m.moe.experts, m.moe.active_experts, batch)
    return pc.total - pc.experts_routed + pc.moe_layers * touched * pc.expert_size


# ----------------------------------------------------------------------------------------------- KV cache

def kv_elements_per_token_layer(m) -> float:
    """Cached elements per token per layer: 2 H_kv d_h, or the MLA latent plus its RoPE key."""
    a = m.attention
    if a.kind == "mla":
        return float(a.kv_lora_rank + a.qk_rope_head_dim)
    return float(2 * m.kv_heads * m.head_dim)


def _pattern(m) -> int:
    """Local layers of a model whose local (windowed or chunked) layers follow local_layers_per_global: all of
    them without it, else every layer but each (local_layers_per_global + 1)-th."""
    per_global = m.attention.local_layers_per_global
    if not per_global:
        return m.layers
    period = per_global + 1
    return m.layers - m.layers // period  # every period-th layer is global


def local_layers(m) -> int:
    """Layers that attend within a sliding window (chunked layers are :func:`chunked_layers`)."""
    if not m.attention.sliding_window:
        return 0
    return _pattern(m)


def chunked_layers(m) -> int:
    """Layers that attend only within their own chunk of ``attention.chunk_size`` tokens (Llama 4): every layer
    but the global ones, one after every ``local_layers_per_global`` chunked layers."""
    if not m.attention.chunk_size:
        return 0
    return _pattern(m)


def bounded_layers(m) -> int:
    """Layers whose cache per sequence is bounded: windowed plus chunked."""
    return local_layers(m) + chunked_layers(m)


def global_layers(m) -> int:
    """Layers that attend to (and cache) the whole context."""
    return m.layers - bounded_layers(m)


def _positions(m, context, chunk_part):
    """Cached positions over the layers at context S: S in a global layer, min(S, w) in a windowed one, and
    ``chunk_part(S, c)`` in a chunked one."""
    context = np.asarray(context, dtype=float)
    n_local, n_chunk = local_layers(m), chunked_layers(m)
    out = (m.layers - n_local - n_chunk) * context
    if n_local:
        out = out + n_local * np.minimum(context, float(m.attention.sliding_window))
    if n_chunk:
        out = out + n_chunk * chunk_part(context, float(m.attention.chunk_size))
    return out


def attended_positions(m, context):
    """Cached positions a new token at context S reads, summed over the layers.

    A global layer reads S, a windowed layer min(S, w).  A chunked layer attends only to the tokens of its own
    chunk: at context S (S tokens cached before the new one) those are the S mod c tokens since the chunk
    began, S itself below the first boundary.  That is exactly what a step at S must read (at a multiple of c
    a chunked layer reads nothing); averaged over the steps of a whole chunk it reads (c - 1) / 2.  The cache
    a chunked layer must *hold* for a sequence that goes on is the whole chunk: see :func:`kv_positions_held`.
    """
    return _positions(m, context, np.mod)


def kv_positions_held(m, context):
    """Cached positions one sequence at context S holds, summed over the layers, for the memory capacity:
    S in a global layer, min(S, w) in a windowed one, and min(S, c) in a chunked one (the worst case within
    a chunk: a sequence that goes on fills its chunk to c before the chunk's cache can be dropped)."""
    return _positions(m, context, np.minimum)


def kv_prefix_positions_held(m, context, prefix):
    """Positions of a prefix of the first ``prefix`` tokens that one sequence at context S still holds, summed over
    the layers: all of it in a global layer, in a windowed one those within its last w positions (none once S - w
    passes the prefix), in a chunked one those within its current chunk (from floor(S / c) c on, as
    :func:`kv_positions_held` holds it).  A prefix cache shares only these: the rest of a windowed or chunked layer's
    cache is the sequence's own (Gemma 3 27B at 16k with 90% of each prompt cached: its 52 windowed layers hold
    1,024 positions past the prefix each, its 10 global layers the whole prefix)."""
    context = np.asarray(context, dtype=float)
    p = np.minimum(np.asarray(prefix, dtype=float), context)
    n_local, n_chunk = local_layers(m), chunked_layers(m)
    out = (m.layers - n_local - n_chunk) * p
    if n_local:
        out = out + n_local * np.maximum(0.0, p - np.maximum(0.0, context - float(m.attention.sliding_window)))
    if n_chunk:
        c = float(m.attention.chunk_size)
        out = out + n_chunk * np.maximum(0.0, p - np.floor(context / c) * c)
    return out


def kv_bytes_per_token(m, b_kv: float) -> float:
    """c: KV bytes per token over all layers, at a context within every window (and the first chunk)."""
    return m.layers * kv_elements_per_token_layer(m) * b_kv


def kv_bytes_per_token_at(m, b_kv: float, context):
    """Effective c at context S, the bytes read: c(S) = (cached positions read at S) / S times the bytes per
    position and layer.  Windowed layers read at most their window, chunked layers the S mod c tokens of the
    current chunk (:func:`attended_positions`); the decode bytes B S c(S) are then what a step at S must
    read at least.  For the cache a sequence holds (capacity) see :func:`kv_cache_bytes_per_token_at`."""
    context = np.asarray(context, dtype=float)
    per_layer = kv_elements_per_token_layer(m) * b_kv
    n_local = local_layers(m)
    if chunked_layers(m):
        return per_layer * attended_positions(m, context) / context
    if n_local == 0:
        return np.full(context.shape, m.layers * per_layer)
    window = float(m.attention.sliding_window)
    cached = (m.layers - n_local) * context + n_local * np.minimum(context, window)
    return per_layer * cached / context


def kv_cache_bytes_per_token_at(m, b_kv: float, context):
    """The cache one sequence at context S holds, per token of S: (positions held) / S times the bytes per
    position and layer (:func:`kv_positions_held`: a chunked layer holds up to its whole chunk).  Equal to
    :func:`kv_bytes_per_token_at` for models without chunked layers."""
    context = np.asarray(context, dtype=float)
    if not chunked_layers(m):
        return kv_bytes_per_token_at(m, b_kv, context)
    return kv_elements_per_token_layer(m) * b_kv * kv_positions_held(m, context) / context


def attended_fraction(m, context):
    """f(S): the share of S that a new token attends to, averaged over layers; 1 without windows or chunks.

    A local layer attends to (and caches) at most its window w, so over L layers a token at context S reads
    sum_l min(S, w_l) = f(S) L S cached positions, f(S) = ((L - n) S + n min(S, w)) / (L S) with n local layers;
    a chunked layer reads S mod c (:func:`attended_positions`).
    The same f scales the KV bytes per token (:func:`kv_bytes_per_token_at`) and the attention FLOPs
    (4 L H_q d_h S, through d_h).
    """
    context = np.asarray(context, dtype=float)
    n_local = local_layers(m)
    if chunked_layers(m):
        return attended_positions(m, context) / (m.layers * context)
    if n_local == 0:
        return np.ones(context.shape)
    window = float(m.attention.sliding_window)
    return ((m.layers - n_local) * context + n_local * np.minimum(context, window)) / (m.layers * context)



def prefill_attended_fraction(m, tokens):
    """g(T): the share of a T-token prompt's causal attention that its layers compute, averaged over the layers; 1
    without windows or chunks, and for a prompt within every window (and the first chunk).

    The prefill FLOPs count the causal attention as 2 L H_q d_h T^2, position t attending to the t before it
    (T^2 / 2 of them in all).  Position t of a windowed layer attends to min(t, w): w T - w^2 / 2 in all past the
    window; of a chunked layer to the t mod c of its own chunk: floor(T / c) c^2 / 2 + (T mod c)^2 / 2.  Engines
    skip the masked blocks (FlashAttention's window_size, vLLM's sliding-window and chunked-local attention), so
    the strict bound counts only these; g(T) scales d_h in a prefill as f(S) does in a decode step
    (:func:`attended_fraction`)."""
    tokens = np.asarray(tokens, dtype=float)
    n_local, n_chunk = local_layers(m), chunked_layers(m)
    if not n_local and not n_chunk:
        return np.ones(tokens.shape)
    full = tokens * tokens / 2.0
    out = (m.layers - n_local - n_chunk) * full
    if n_local:
        w = float(m.attention.sliding_window)
        out = out + n_local * np.where(tokens <= w, full, w * tokens - w * w / 2.0)
    if n_chunk:
        c = float(m.attention.chunk_size)
        out = out + n_chunk * (np.floor(tokens / c) * c * c / 2.0 + np.mod(tokens, c) ** 2 / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(tokens > 0, out / (m.layers * full), 1.0)


def prefill_attended_fraction_after(m, tokens, cached):
    """g of ``tokens`` prompt positions that follow ``cached`` positions a prefix cache already holds: the pairs they
    attend to, A(cached + tokens) - A(cached) with A(x) = g(x) x^2 / 2 a layer (:func:`prefill_attended_fraction`),
    over the ((cached + tokens)^2 - cached^2) / 2 pairs causal attention without windows gives them.  A prompt's
    uncached part attends to its cached prefix too; a windowed layer's positions past the window attend to w each,
    cached or not.  g(tokens) where nothing is cached; 1 without windows or chunks."""
    c = np.asarray(cached, dtype=float)
    if not np.any(c > 0):
        return prefill_attended_fraction(m, tokens)
    t = np.asarray(tokens, dtype=float)
    if not local_layers(m) and not chunked_layers(m):
        return np.ones(np.broadcast(t, c).shape)
    total = t + c
    pairs = [prefill_attended_fraction(m, x) * x * x / 2.0 for x in (total, c)]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(t > 0, (pairs[0] - pairs[1]) / ((total * total - c * c) / 2.0), 1.0)


# ----------------------------------------------------------------------------------------------- KV headlines

def kv_bytes_per_token_global(m, b_kv: float) -> float:
    """KV bytes per token of context in the global layers: what every further token of a long context costs.
    The whole c (:func:`kv_bytes_per_token`) for a model without windowed or chunked layers."""
    return global_layers(m) * kv_elements_per_token_layer(m) * b_kv


def kv_bytes_per_sequence_windowed(m, b_kv: float) -> float:
    """KV bytes one sequence holds in its windowed and chunked layers at full window: n_w w + n_c c positions
    (a chunk at its worst case, full); 0 for a model without them."""
    a = m.attention
    positions = local_layers(m) * a.sliding_window + chunked_layers(m) * a.chunk_size
    return float(positions * kv_elements_per_token_layer(m) * b_kv)


def kv_bytes_per_sequence(m, b_kv: float, context) -> np.ndarray | float:
    """The KV cache one sequence at context S holds: global S + windowed min(S, w) + chunked min(S, c)
    positions, times the bytes per position and layer."""
    held = kv_positions_held(m, context)
    out = kv_elements_per_token_layer(m) * b_kv * held
    return float(out) if np.ndim(out) == 0 else out


def kv_sequences_that_fit(m, b_kv: float, free_bytes: float, context) -> int:
    """Whole sequences at context S whose KV caches fit in ``free_bytes`` (the capacity left beside the
    weights); 0 when nothing is free.  ``context`` is a token count, at least 1."""
    if not context >= 1:
        raise ValueError(f"context {context!r} is not a token count of at least 1")
    if not free_bytes > 0:
        return 0
    return int(math.floor(free_bytes / kv_bytes_per_sequence(m, b_kv, float(context))))


def kv_tokens_that_fit(m, b_kv: float, free_bytes: float) -> int | None:
    """The longest context one sequence can hold in ``free_bytes``: free / c for a model without bounded layers;
    with them, each token costs every layer's bytes up to the first window, and past the windows (chunks) only
    the global layers' bytes per token, on top of the windows' bytes per sequence.  None when every layer is
    bounded and a full window fits: no context is then too long."""
    if not free_bytes > 0:
        return 0
    per_position = kv_elements_per_token_layer(m) * b_kv
    if not bounded_layers(m):
        return int(math.floor(free_bytes / (m.layers * per_position)))
    a = m.attention
    return reach_of(lambda x: float(kv_positions_held(m, x)), per_position, free_bytes,
                    [float(x) for x in (a.sliding_window, a.chunk_size) if x])


def reach_of(held, per_position: float, free_bytes: float, edges) -> int | None:
    """The longest context S whose ``held(S)`` cached positions, ``per_position`` bytes each, fit in ``free_bytes``:
    held grows piecewise linearly in S, more slowly past each of ``edges`` (a window, a chunk), so the segment where
    the memory runs out is found, then S within it.  None where held stops growing past the last edge and it fits
    (every layer bounded: no context is too long); 0 where nothing is free.  One model's layers
    (:func:`kv_tokens_that_fit`) or one pipeline stage's (genreport.model.stages.StageLedger.reach)."""
    if not free_bytes > 0:
        return 0
    lo = 0.0
    for edge in sorted(set(edges)):
        if held(edge) * per_position > free_bytes:
            break
        lo = edge
    else:
        edge = math.inf
    slope = (held(lo + 1.0) - held(lo)) * per_position
    if edge == math.inf and slope <= 0:
        return None
    return int(math.floor(lo + (free_bytes - held(lo) * per_position) / slope))


def kv_headline(m, b_kv: float, free_bytes: float | None = None, contexts=()) -> dict:
    """The KV numbers a one-line summary states, computed once for ``genreport list``, the terminal summary and
    page 1: the global layers' bytes per token, the bounded layers' bytes per sequence at full window, and,
    given the bytes free beside the weights, the longest context of one sequence and the sequences that fit
    at each context."""
    out = {"bytes_per_token_global": kv_bytes_per_token_global(m, b_kv),
           "bytes_per_sequence_windowed": kv_bytes_per_sequence_windowed(m, b_kv),
           "bytes_per_token_full": kv_bytes_per_token(m, b_kv),
           "global_layers": global_layers(m), "windowed_layers": local_layers(m), "chunked_layers": chunked_layers(m)}
    if free_bytes is not None:
        out["tokens_one_sequence"] = kv_tokens_that_fit(m, b_kv, free_bytes)
        out["sequences"] = {int(s): kv_sequences_that_fit(m, b_kv, free_bytes, s) for s in contexts}
    return out


def prefill_head_dim_for_flops(m) -> float:
    """d_h of a prefill (or any pass over a whole sequence): for MLA the cheaper of the absorbed form and the
    form engines run prefill in (keys and values decompressed per head: scores over qk_nope + qk_rope, values
    over v_head_dim, so d_h = (qk_nope + qk_rope + v) / 2; DeepSeek-V3: 160 against the absorbed 544).  The
    decompression itself is the kv up-projection, already in the 2 N_p T of the blocks.  Other attention: d_h."""
    a = m.attention
    if a.kind == "mla":
        return min(attention_head_dim_for_flops(m), (a.qk_nope_head_dim + a.qk_rope_head_dim + a.v_head_dim) / 2.0)
    return attention_head_dim_for_flops(m)


def attention_head_dim_for_flops(m) -> float:
    """d_h such that 4 L H_q d_h S counts the attention FLOPs of one token.

    MLA with absorbed projections scores against the (r + rho)-wide latent and
    mixes values in the r-wide latent: 2 H_q (2r + rho) S FLOPs per layer.
    """
    a = m.attention
    if a.kind == "mla":
        return (2 * a.kv_lora_rank + a.qk_rope_head_dim) / 2.0
    return float(m.head_dim)
