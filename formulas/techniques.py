"""What serving engines do to a step, on the roofline: speculative decoding, chunked prefill, continuous batching,
prefill/decode disaggregation and prefix caching.

Each technique changes how many tokens one pass over the weights serves, so each is the seeds' story again: the
weight-reuse intensity I_W = 2B/b with B the tokens of the step (seed 003, section 3).  The step's two ledgers are
the seeds' decode and prefill ledgers of one GPU (``decode.decode_flops``, ``decode.decode_bytes``, the prefill
FLOPs of ``derive``), so at the limits each formula gives today's numbers: acceptance 0 is plain decode, a chunk of
0 tokens a plain decode step, a whole prompt as one chunk with no decode tokens a plain prefill.

Sources:
- speculative decoding: Leviathan, Kalman and Matias, "Fast Inference from Transformers via Speculative Decoding",
  ICML 2023, section 3.3 and equation (1): a verify step yields (1 - p^(k+1)) / (1 - p) tokens in expectation;
  Chen et al., "Accelerating Large Language Model Decoding with Speculative Sampling", 2023 (the same for k drafts);
  DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437, section 5.4.3 (MTP depth 1: the second token is
  accepted 85-90% of the time, 1.8x the tokens per second); tree verification: Miao et al., "SpecInfer", ASPLOS
  2024, section 4 (a token tree verified in one pass, every node a token of the step), Cai et al., "Medusa", ICML
  2024, section 2.1.2 (tree attention), Li et al., "EAGLE", ICML 2024 (a draft tree): a step verifies n_v tokens
  per sequence, the tree's nodes, while at most its depth k_d + 1 are accepted;
- chunked prefill: Agrawal et al., "Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve",
  OSDI 2024, sections 3-4 (stall-free batching: each step carries the decode tokens and a prompt chunk);
- continuous batching: Yu et al., "Orca", OSDI 2022 (iteration-level scheduling); Little, "A Proof for the
  Queuing Formula L = lambda W", Operations Research 9(3), 1961;
- disaggregation: Zhong et al., "DistServe", OSDI 2024, section 3 (prefill and decode pools sized to one rate,
  the KV cache sent between them); Patel et al., "Splitwise", ISCA 2024;
- prefix caching: Zheng et al., "SGLang: Efficient Execution of Structured Language Model Programs" (RadixAttention),
  NeurIPS 2024; Kwon et al., "vLLM" (PagedAttention), SOSP 2023, section 4.4 (shared prefixes held once);
- the tail (P99 time between tokens): vLLM v0's scheduler, vllm/core/scheduler.py ``_schedule_default`` (prefills
  first), and Sarathi-Serve's artifact (github.com/microsoft/sarathi-serve: its vLLM baseline
  sarathi/core/scheduler/vllm_scheduler.py, capacity at the P99 TBT); Tanner, "A derivation of the Borel
  distribution", Biometrika 48, 1961; Consul and Jain, "A generalization of the Poisson distribution",
  Technometrics 15, 1973;
- the TTFT tail (the time to first token's law under Poisson arrivals): Erlang, "Sandsynlighedsregning og
  Telefonsamtaler", Nyt Tidsskrift for Matematik B 20, 1909, and Crommelin, "Delay probability formulae when the
  holding times are constant", P.O. Elec. Engrs. J. 25, 1932 (the M/D/1 waiting time); Pollaczek 1930 and
  Khinchine 1932 (the M/G/1 waiting time's transform); Fuhrmann and Cooper, "Stochastic decompositions in the M/G/1
  queue with generalized vacations", Operations Research 33(5), 1985 (a server that leaves on a vacation whenever
  its queue empties adds the vacation's residual to the wait, independent of it).

Every function returns a SymPy expression in the glossary's symbols; the closed forms (a sum, a solved balance, a
solved rate) are SymPy's, checked against the sums and equations they come from in tests/test_techniques.py.
"""

from __future__ import annotations

import sympy as sp

from . import decode, parallel
from .glossary import sym

DRAFT = ("Leviathan, Kalman, Matias, ICML 2023, section 3 (the draft model's k_d sequential passes); seed 003's "
         "decode roofline at the draft's shapes; vLLM vllm/config/speculative.py _verify_and_get_draft_tp (the draft "
         "at the target's tp); for a head of the target's layers (draft_layers) EAGLE, Li et al., ICML 2024, section 3 "
         "and the DeepSeek-V3 Technical Report, section 2.2 (MTP modules sharing the output head)")
LEVIATHAN = "Leviathan, Kalman, Matias, ICML 2023, eq. (1); DeepSeek-V3 Technical Report, section 5.4.3 (MTP)"
SARATHI = "Agrawal et al., Sarathi-Serve, OSDI 2024, sections 3-4 (chunked prefill, stall-free batching)"
LITTLE = "Yu et al., Orca, OSDI 2022 (continuous batching); Little 1961 (L = lambda W)"
DISTSERVE = "Zhong et al., DistServe, OSDI 2024, section 3; Patel et al., Splitwise, ISCA 2024"
PREFIX = "Zheng et al., SGLang RadixAttention, NeurIPS 2024; Kwon et al., vLLM, SOSP 2023, section 4.4"
STALLS = ("vLLM v0 vllm/core/scheduler.py _schedule_default and Sarathi-Serve's baseline "
          "sarathi/core/scheduler/vllm_scheduler.py (prefills first, every waiting prompt the budget holds, no decodes "
          "in that step); Tanner, Biometrika 48, 1961 (Borel-Tanner law); Consul and Jain, Technometrics 15, 1973 "
          "(generalized Poisson law)")

(N, N_a, N_e, N_p, L, d, H_q, d_h, V, b, c, a, P, W, B, S, C) = (
    sym(x) for x in ("N", "N_a", "N_e", "N_p", "L", "d", "H_q", "d_h", "V", "b", "c", "a", "P", "W", "B", "S", "C"))
(p_a, k_d, t_d, C_p, s_c, lam, T_in, T_out, h_p, n_P, n_D, W_kv, t_p, t_s, theta) = (
    sym(x) for x in ("p_a", "k_d", "t_d", "C_p", "s_c", "lam", "T_in", "T_out", "h_p", "n_P", "n_D", "W_kv",
                     "t_p", "t_s", "theta"))
(t_r, k_s, m_s, q_p, n_v) = (sym(x) for x in ("t_r", "k_s", "m_s", "q_p", "n_v"))
kappa_c = sym("kappa_c")  # a mixed step's time over a plain round's (the chunked row's cost, genreport.model.techniques)
n_c = sym("n_c")  # the mixed steps a batch's prompts ride along (chunked_steps), named in chunked_life_cost
d_hp = sym("d_hp")  # the prompt tokens' head dim: MLA's prefill (MHA) form, where decode tokens take the absorbed d_h
t_pr = sym("t_pr")  # a whole prompt's prefill at a prefill replica of the layout (its TTFT there): the pools'
k_pp = sym("k_pp")  # pipeline stages of a prefill instance (DistServe, section 3.1): the pools and the queue below
_s = sp.Symbol("s", positive=True)  # a transform's argument, not a glossary symbol
_i = sp.Symbol("i", integer=True, nonnegative=True)  # a summation index, not a glossary symbol


def _step_time(flops, nbytes):
    """The seeds' lower bound of a step: the larger of its compute and memory ledgers [s]."""
    return sp.Max(flops / P, nbytes / W)


def _decode_flops_per_seq(S=S):
    """FLOPs of one decode token at context S [FLOP]: 2 N_a + 4 L H_q d_h S (seed 003, section 3)."""
    return 2 * N_a + decode.attention_flops_per_token(S=S)


# ----------------------------------------------------------------------------------------------- speculative

def expected_tokens_sum():
    """Tokens one verify step yields in expectation, as the sum it is [token]: sum_{i=0}^{k_d} p_a^i.

    The i-th draft token counts only if it and every one before it were accepted (probability p_a^i); the step
    always yields one token of the target model's own (the correction or the bonus token)."""
    return sp.Sum(p_a**_i, (_i, 0, k_d))


def expected_tokens():
    """E = (1 - p_a^(k_d+1)) / (1 - p_a) [token]: the closed form of :func:`expected_tokens_sum` (Leviathan et
    al., eq. 1); k_d + 1 when every draft is accepted (p_a -> 1), 1 with none (p_a -> 0)."""
    return (1 - p_a**(k_d + 1)) / (1 - p_a)


def request_expected_tokens():
    """E_R = min(E, T_out - 1) [token]: the tokens a verify round yields for a request with T_out - 1 decode tokens to
    make after its first, never more than it needs: a 2-token output's one round yields its one token whatever E
    (a review found plan crediting such a request 2.81x at E = 2.95).  Over a request's rounds the mean is at most
    this (its last round is cut short), so a speed-up or B_P counted with it stays an upper bound; with T_out - 1 at
    or above E it is E exactly."""
    return sp.Min(expected_tokens(), T_out - 1)


def verify_flops(B=B, S=S):
    """FLOPs of one verify step [FLOP]: every sequence's n_v tokens through the weights and its cache,
    B n_v (2 N_a + 4 L H_q d_h S); n_v = k_d + 1 for a chain of drafts, a tree's nodes for a draft tree (SpecInfer,
    Medusa, EAGLE: 8 in SGLang's default tree of depth 5, 64 in Medusa's)."""
    return B * n_v * _decode_flops_per_seq(S)


def verify_bytes(B=B, S=S):
    """Bytes of one verify step [B]: the weights once and each sequence's cache once (its n_v queries read it
    together), (N - N_e) b + B (S c + a): the same as a decode step's."""
    return decode.decode_bytes(B, S)


def verify_time(B=B, S=S):
    """Lower bound of one verify step [s]: max(F_v / P, Q_v / W)."""
    return _step_time(verify_flops(B, S), verify_bytes(B, S))


def decode_step_time(B=B, S=S):
    """Lower bound of one plain decode step [s]: max(decode FLOPs / P, decode bytes / W) (seed 003)."""
    return _step_time(decode.decode_flops(B, S), decode.decode_bytes(B, S))


def draft_time_bound():
    """Strict lower bound of the drafts of one verify step, a draft model's k_d forward passes [s]:
    k_d max(F_d / (n_TP n_St P), Q_d / (n_TP n_St W)).

    The drafts run one after another (each pass needs the token the previous one proposed), so their times add; each
    pass is at least its own roofline step (seed 003): the draft's FLOPs F_d = B (2 N_a + 4 L H_q d_h S) and bytes
    Q_d = (N - N_e) b + B (S c + a) of ``decode.decode_flops`` / ``decode.decode_bytes`` at the draft model's shapes
    and precision, its KV cache of S tokens per sequence read once per pass.  The engines run the draft on the
    target's GPUs at the target's tensor-parallel degree (vLLM vllm/config/speculative.py
    ``SpeculativeConfig._verify_and_get_draft_tp``: draft_tensor_parallel_size unset is the target's, and only 1 or
    the target's is accepted; vllm/v1/spec_decode/draft_model.py refuses another; V1 builds the drafter on the last
    pipeline stage, vllm/v1/worker/gpu_model_runner.py); however it is split over the replica's n_TP n_St GPUs (n_St
    its pipeline stages, not the layers' share n_PP: an uneven pipeline's L / ceil(L/pp) stages' worth would count
    fewer GPUs than the replica has), their peak and bandwidth add up to at most n_TP n_St times one GPU's, so
    dividing the whole pass by that keeps the bound (no collective counted; a draft at tp 1 only takes longer).  F_d = Q_d = 0 (no draft model) gives
    t_d = 0."""
    n = sym("n_TP") * sym("n_St")
    return k_d * sp.Max(sym("F_d") / (n * P), sym("Q_d") / (n * W))


def capacity_batch_draft():
    """Sequences of context S one replica holds beside a draft model [1]:
    floor((C - w_g - M_d) / ((c_g + c_d) S)), :func:`parallel.capacity_batch_replica` with the draft's weights M_d
    and its KV cache c_d per token on each GPU (the draft keeps a cache of every sequence's tokens as the target does:
    vLLM V1's get_kv_cache_spec in vllm/v1/worker/gpu_model_runner.py walks every attention layer, the drafter's
    included, so one memory pool holds both caches).  M_d = c_d = 0 gives
    the replica's capacity without a draft."""
    room = C - parallel.weight_bytes_per_gpu() - sym("M_d")
    return sp.floor(room / ((parallel.kv_bytes_per_token_per_gpu() + sym("c_d")) * S))


def speculative_tokens_per_s(B=B, S=S):
    """Tokens per second of speculative decoding at batch B [token/s]: B E / (t_v + t_d), the draft's time t_d
    (k_d steps of a draft model, or an MTP head) added to the verify step's."""
    return B * expected_tokens() / (verify_time(B, S) + t_d)


def speculative_speedup(B=B, S=S):
    """Speed-up over plain decode at the same batch [1]: E t(B) / (t_v(B) + t_d).

    While both steps are memory-bound the verify step costs what a decode step costs (the weights are read once
    either way), so the speed-up is E / (1 + t_d / t(B)): nearly free.  Past the batch where the verify step's
    n_v tokens per sequence turn it compute-bound it costs n_v times the FLOPs, and the speed-up falls towards
    E / n_v < 1 (a tree's n_v passes its depth k_d + 1, so it turns compute-bound at a smaller batch)."""
    return expected_tokens() * decode_step_time(B, S) / (verify_time(B, S) + t_d)


def verify_crossover_batch(S=S):
    """Batch where the verify step turns compute-bound [1]: F_v / P = Q_v / W solved for B (SymPy)."""
    sol = sp.solve(sp.Eq(verify_flops(B, S) / P, verify_bytes(B, S) / W), B)
    return sp.simplify(sol[0])


def speculative_breakeven_batch(S=S):
    """Batch where speculative decoding stops paying [1]: the speed-up is 1 with the verify step compute-bound
    and the plain step memory-bound, E Q(B) / W = n_v F(B) / P + t_d, solved for B (SymPy); at larger
    batches speculation costs more than it yields.  The root is positive only where the verify step's intensity
    ceiling n_v I_ceil(S) passes E R: at long contexts the KV reads grow with the batch as fast as the verify
    FLOPs, the speed-up levels off at E R / (n_v I_ceil(S)) and, above 1, never ends (a negative root)."""
    plain = expected_tokens() * decode.decode_bytes(B, S) / W
    sol = sp.solve(sp.Eq(plain, verify_flops(B, S) / P + t_d), B)
    return sp.simplify(sol[0])


def _tokens_for_batch(expr, tokens):
    """``expr`` with the step's tokens in place of B where B counts tokens (FLOPs, activations sent); the
    micro-batches still count sequences (a sequence's n_v tokens travel together)."""
    m = sp.Dummy("m")

    def swap(e):
        return e.xreplace({parallel.microbatches(): m}).subs(B, tokens).xreplace({m: parallel.microbatches()})

    for ring in expr.atoms(sp.Piecewise):  # a ring all-reduce stays one for the LaTeX printer (parallel.RING_CALLS)
        if ring in parallel.RING_CALLS:
            n, z = parallel.RING_CALLS[ring]
            parallel.RING_CALLS[swap(ring)] = (n, swap(z))
    return swap(expr)


def _verify_ledgers(busiest: bool = False, last: bool = False):
    """Compute and HBM ledgers of one GPU in a verify round at the layout [s]: n_v B tokens through the GPU's
    slice of the weights (FLOPs and the activations they write), the B sequences' caches read once; ``last``: a GPU
    of the last stage (parallel.at_last_stage: r of the busiest stage's layers, the head)."""
    if last:
        comp, mem = ((parallel.decode_time_compute_serial_last(), parallel.decode_time_memory_busiest_last()) if busiest
                     else (parallel.decode_time_compute_last(), parallel.decode_time_memory_last()))
    else:
        comp, mem = ((parallel.decode_time_compute_serial(), parallel.decode_time_memory_busiest()) if busiest
                     else (parallel.decode_time_compute_gpu(), parallel.decode_time_memory_gpu()))
    comp = _tokens_for_batch(comp, n_v * B)  # the estimate's: at e_m of the peak, the attention at P_a
    extra = (n_v - 1) * B * sym("a") / (sym("n_TP") * sym("n_PP") * W)  # the drafts' activations
    return comp, mem + (parallel.at_last_stage(extra, 0) if last else extra)


def speculative_speedup_rounds():
    """Speed-up of speculative decoding from the two rounds as evaluated [1]: E t_s / (t_v + t_d), t_s the plain
    round and t_v the verify round at the layout (:func:`verify_time_layout`, the collectives included), t_d the
    drafts.  One GPU's ledgers for t_s and t_v give :func:`speculative_speedup`."""
    return expected_tokens() * t_s / (sym("t_v") + t_d)


def speculative_speedup_request():
    """Speed-up of a request's rounds with speculative decoding [1]: E_R t_s / (t_v + t_d), :func:`speculative_speedup_rounds`
    with the tokens a round yields capped at those the request still makes (:func:`request_expected_tokens`): plan,
    the frontier and the serving chapter's lever row, for a request of T_out >= 2 tokens."""
    return request_expected_tokens() * t_s / (sym("t_v") + t_d)


def verify_time_layout():
    """Strict lower bound of a verify round at the layout [s]: the decode round (:func:`parallel.decode_time_bound`)
    with n_v B tokens in the FLOPs and the collectives and the B sequences' caches read once.

    The weights the round streams are those the n_v B tokens touch (an MoE's N_x, given by the caller);
    n_v = 1 is the decode round itself."""
    comp, mem = _verify_ledgers()
    comp_l, mem_l = _verify_ledgers(last=True)
    comm = _tokens_for_batch(parallel.decode_time_comm(), n_v * B)
    last = _tokens_for_batch(parallel.decode_time_comm_last(), n_v * B)
    return parallel.fastest_schedule(parallel.pipelined(sp.Max(comp, mem, comm), sp.Max(comp_l, mem_l, last)))


def verify_time_layout_serial():
    """Serialized estimate of a verify round at the layout [s]: :func:`parallel.decode_time_serial` with the verify
    round's tokens (their FLOPs at e_m of the peak), the busiest GPU's expert reads and the kernels' fixed costs."""
    comp, mem = _verify_ledgers(busiest=True)
    comp_l, mem_l = _verify_ledgers(busiest=True, last=True)
    work = sp.Max(comp, mem) + parallel.decode_time_overhead()
    work_l = sp.Max(comp_l, mem_l) + parallel.decode_time_overhead_last()
    comm = _tokens_for_batch(parallel.decode_time_comm(True), n_v * B)
    last = _tokens_for_batch(parallel.decode_time_comm_last(True), n_v * B)
    return parallel.pipelined(work + comm, work_l + last)


# ----------------------------------------------------------------------------------------------- chunked prefill

def mixed_flops(B=B, S=S, C_p=C_p):
    """FLOPs of a mixed step [FLOP]: B decode tokens at context S and C_p prompt tokens of T_in-token prompts.

    2 N_a B + 4 L H_q d_h B S for the decode tokens; for the prompt tokens the blocks 2 N_p C_p, the causal
    attention 2 L H_q d_hp C_p T_in (1 + h_p) (the T_in (1 - h_p) uncached tokens of a prompt whose first h_p T_in a
    prefix cache holds attend to the positions before them, cached ones too: 2 L H_q d_hp T_in^2 (1 - h_p^2) spread
    over them, as :func:`request_flops` counts a prompt) and the head 2 V d once per prompt finished (C_p / (T_in (1
    - h_p)) of one).  Each part in its own attention form: with MLA the decode tokens attend in the absorbed form
    (d_h; DeepSeek-V3 544), the chunk in the decompressed (MHA) form a prefill runs (d_hp = (192 + 128) / 2 = 160),
    as vLLM's and SGLang's MLA backends split a mixed batch into its decode and prefill parts; d_hp = d_h for other
    attention.  B = 0 and C_p = T_in (1 - h_p) give the prefill of a prompt's uncached tokens."""
    return (decode.decode_flops(B, S) + 2 * N_p * C_p + 2 * L * H_q * d_hp * C_p * T_in * (1 + h_p)
            + 2 * V * d * C_p / (T_in * (1 - h_p)))


def mixed_bytes(B=B, S=S, C_p=C_p):
    """Bytes of a mixed step [B]: the weights once, each decode sequence's cache (S c + a), the chunk's KV written
    (C_p c) and, for each of its C_p / s chunks, the uncached chunks' cache before it read once (on average (T_in (1 -
    h_p) - s) / 2 tokens), s = min(s_c, T_in (1 - h_p)): a budget of a prompt's whole uncached part or more takes it
    in one chunk, which reads none of them.  A cached prefix's reads are left out: a windowed layer reads at most its
    window of it, which c (a mean layer's bytes per token) does not say, so counting h_p T_in c put the bound above
    what a windowed model's prefill reads (a review of stop 88: Gemma 3 27B at h_p = 0.99, 17.4 ms against 16.5);
    the bound stays a bound.  C_p = 0 is a decode step's bytes; one whole prompt (h_p = 0, s_c = C_p = T_in) a
    prefill's."""
    s = sp.Min(s_c, T_in * (1 - h_p))
    return decode.decode_bytes(B, S) + C_p * c + (C_p / s) * c * (T_in * (1 - h_p) - s) / 2


def mixed_intensity(B=B, S=S, C_p=C_p):
    """Arithmetic intensity of a mixed step [FLOP/B]: the chunk raises the tokens per weight pass, so the step
    moves right on the roofline (I_W = 2 (B + C_p) / b for the weight GEMMs alone)."""
    return mixed_flops(B, S, C_p) / mixed_bytes(B, S, C_p)


def mixed_time(B=B, S=S, C_p=C_p):
    """Lower bound of a mixed step [s], and so of every running sequence's time per output token while a chunk
    rides along: max(F_mix / P, Q_mix / W)."""
    return _step_time(mixed_flops(B, S, C_p), mixed_bytes(B, S, C_p))


def prompt_chunk(B=B):
    """Tokens of one prompt a round carries beside its B decode tokens [token]: min(max(n_st s_c - B, 0),
    T_in (1 - h_p)), what the steps' budgets leave once the decode tokens are in (n_st = pp steps a round, one per
    micro-batch in flight, each with its own budget; one without a pipeline) (vLLM's max_num_batched_tokens and Sarathi-Serve's
    token budget count the running sequences' decode tokens first and fill the rest with a prompt chunk: vLLM v1
    vllm/v1/core/sched/scheduler.py schedules the running requests, then the waiting ones from the token budget
    left) or, where that holds the whole uncached prompt, the prompt in one chunk; 0 where the decode tokens fill
    the budget. B = 0 is the budget's whole width, the chunk of the steady state (``request_bytes``).
    The formulas below take it as the symbol C_p, its value computed once from this (genreport.model.techniques
    ``prompt_chunk``), so they print as a textbook does, with the chunk named."""
    return sp.Min(sp.Max(parallel.n_St * s_c - B, 0), T_in * (1 - h_p))


def chunked_steps(B=B):
    """Mixed steps a batch's prompts ride along [1]: n_c = B T_in (1 - h_p) / C_p, the B requests' uncached prompt
    tokens in chunks of C_p, one chunk a step (Sarathi-Serve's stall-free batching admits the prompts of the
    requests that replace the batch's as its decode tokens run)."""
    return B * T_in * (1 - h_p) / C_p


def chunked_life_cost():
    """Mean cost of a decode round over a batch's life, in plain rounds [1]: (n_c kappa_c + max(T_out - 1 - n_c, 0))
    / (T_out - 1), n_c = :func:`chunked_steps` (its value computed once, printed by name as C_p is): the batch's
    T_out - 1 rounds, n_c of them mixed steps of kappa_c plain rounds each (n_c kappa_c / (T_out - 1) where the
    prompts need more mixed steps than the batch has rounds, its output then waiting on them).  The chunked row's
    tok/s per GPU and $/M divide and multiply by it, its TPOT takes the mixed step itself: charging every round a
    chunk would count a batch's prompts (T_out - 1) / n_c times over.  kappa_c = 1 (no cost to a chunk) gives 1 at
    any n_c <= T_out - 1."""
    return (n_c * kappa_c + sp.Max(T_out - 1 - n_c, 0)) / (T_out - 1)


def chunked_ttft(B=B, S=S):
    """Time to first token of a prompt prefilled in chunks of C_p = min(max(n_st s_c - B, 0), T_in (1 - h_p)) tokens
    beside B decode sequences [s]: (T_in (1 - h_p) / C_p) mixed steps, the prompt's uncached tokens only (one step
    where the budget left beside the decode tokens holds them all; none, an infinity, where they fill it)."""
    return T_in * (1 - h_p) / C_p * mixed_time(B, S, C_p)


# ----------------------------------------------------------------------------------------------- continuous batching

def mean_decode_context():
    """Mean context of a request's decode steps [token]: T_in + T_out / 2."""
    return T_in + T_out / 2


def request_bytes():
    """Cache and activation bytes one request adds to the steps it rides in [B]: its T_out - 1 decode tokens each
    read its cache (mean context T_in + T_out/2), its T_in (1 - h_p) uncached prompt tokens write theirs and each
    chunk reads the prompt before it (mean (T_in (1 + h_p) - C_p) / 2 tokens, C_p the budget's whole width,
    prompt_chunk at B = 0 and one step, min(s_c, T_in (1 - h_p)): the widest chunk reads the least, so the steady state's rates
    stay upper bounds; one chunk reads the cached prefix h_p T_in once)."""
    prompt = T_in * (1 - h_p)
    return ((T_out - 1) * (mean_decode_context() * c + a)
            + prompt * c * (1 + (T_in * (1 + h_p) - C_p) / (2 * C_p)))


def _prompt_flops():
    """FLOPs of the prefill of one request's uncached prompt [FLOP]: 2 N_p T_in (1 - h_p), the causal attention
    2 L H_q d_hp T_in^2 (1 - h_p^2) in the prompt's attention form (as :func:`mixed_flops` takes a chunk's) and the
    head 2 V d once."""
    return 2 * N_p * T_in * (1 - h_p) + 2 * L * H_q * d_hp * T_in**2 * (1 - h_p**2) + 2 * V * d


def request_flops():
    """FLOPs of one request [FLOP]: its T_out - 1 decode tokens at the mean context and the prefill of its
    uncached prompt (2 N_p, the causal attention 2 L H_q d_hp T_in^2 (1 - h_p^2) in the prompt's attention form, as
    :func:`mixed_flops` takes a chunk's, the head once)."""
    return (T_out - 1) * _decode_flops_per_seq(mean_decode_context()) + _prompt_flops()


def request_flops_speculative():
    """FLOPs of one request decoded with speculative decoding [FLOP]: (T_out - 1) (n_v F_1 + k_d f_d) / E and the
    prefill of its uncached prompt as :func:`request_flops` counts it.

    A verify round runs n_v tokens of each sequence through the target (k_d + 1 for a chain, a tree's nodes), each
    F_1 = 2 N_a + 4 L H_q d_h S at the mean context, and k_d draft passes of f_d each (a draft model's or an
    EAGLE/MTP head's FLOPs for one sequence: :func:`draft_time_bound`'s F_d at B = 1), and keeps E tokens of it on
    average (:func:`expected_tokens`, Leviathan et al., eq. 1), so each of the T_out - 1 decode tokens costs n_v / E
    verified tokens and k_d / E draft passes.  p_a = 0 with n_v = 1 and k_d = 0 (or f_d = 0) is
    :func:`request_flops`."""
    per_round = n_v * _decode_flops_per_seq(mean_decode_context()) + k_d * sym("f_d")
    return (T_out - 1) * per_round / request_expected_tokens() + _prompt_flops()


def compute_batch():
    """Most sequences one replica keeps decoding at the TPOT target theta with their prompts' prefills within its
    compute roof [1]: B_P = n_TP n_St P (T_out - 1) theta / F_r.  A replica of B sequences retires a request every
    (T_out - 1) t_s / B on average and prefills as many prompts (the steady state's arrivals), so its compute does
    B F_r / ((T_out - 1) t_s) FLOP/s, at most its n_TP n_St GPUs' peak (split over them, no collective counted:
    the bound stays a bound); with t_s <= theta, B <= B_P.  A lower bound on the GPUs a number of users (sequences
    decoding at once) takes that the decode round alone leaves out: Llama 3.1 70B with 2k prompts and 256 outputs
    at 50 ms is compute-bound by the prompts, not by its decode."""
    return sym("n_TP") * sym("n_St") * P * (T_out - 1) * theta / request_flops()


def compute_batch_speculative():
    """Most sequences one replica keeps decoding with speculative decoding at the TPOT target theta with their
    prompts' prefills within its compute roof [1]: B_P,spec = n_TP n_St P (T_out - 1) theta / F_r,spec, F_r,spec
    :func:`request_flops_speculative`.  B sequences verify a round every t_r and keep E tokens each, so the TPOT is
    t_r / E <= theta; the round's compute is B (n_v F_1 + k_d f_d) / t_r FLOP/s, and the replica retires
    B E / ((T_out - 1) t_r) requests a second and prefills as many prompts; all of it at most the n_TP n_St GPUs'
    peak gives B <= n_TP n_St P t_r / ((n_v F_1 + k_d f_d) + E F_p / (T_out - 1)), F_p the prompt's prefill, and with
    t_r <= E theta this bound.  The verify round's n_v / E > 1 tokens a kept token and the drafts lower it below
    :func:`compute_batch` (DeepSeek-V3's MTP, k_d = 1 at p_a = 0.85: 2 / 1.85 of the decode FLOPs and the head's
    pass); p_a = 0 with n_v = 1 and k_d = 0 is :func:`compute_batch`."""
    return sym("n_TP") * sym("n_St") * P * (T_out - 1) * theta / request_flops_speculative()


def steady_step_time():
    """Time per output token in steady state at arrival rate lam [s] (a lower bound).

    Each step of length t_s carries B = lam (T_out - 1) t_s decode tokens and lam T_in (1 - h_p) t_s prompt
    tokens (Little's law over the steps), so its memory ledger is (N - N_e) b + lam t_s Q_r and its compute ledger
    lam t_s F_r: both grow with t_s.  The compute ledger stays below t_s while lam F_r < P (else no steady state);
    the memory ledger gives t_s = (N - N_e) b / (W - lam Q_r), solved by SymPy."""
    t = sp.Symbol("t", positive=True)
    sol = sp.solve(sp.Eq(t * W, (N - N_e) * b + lam * t * request_bytes()), t)
    return sol[0]


def steady_concurrency():
    """Sequences decoding at once in steady state [1]: B = lam (T_out - 1) t_s (Little's law)."""
    return lam * (T_out - 1) * steady_step_time()


def goodput_rate_tpot():
    """Highest arrival rate whose time per output token meets the target theta [1/s]: t_s(lam) = theta solved
    for lam (SymPy); no rate meets it when theta is below the weights' stream time (N - N_e) b / W."""
    sol = sp.solve(sp.Eq(steady_step_time(), theta), lam)
    return sp.simplify(sol[0])


def goodput_rate_compute():
    """Highest arrival rate the compute roof allows [1/s]: lam F_r = P."""
    return P / request_flops()


def goodput_rate_capacity():
    """Highest arrival rate the KV caches allow, steady state [1/s]: the rate where the running sequences' caches fill
    the room beside the weights, lam (T_out - 1) t_s(lam) ((T_in + T_out / 2) (c_h + c_d) - h_p T_in (c_s + c_d))
    = C - N b - M_d - h_p T_in (c_s + c_d) = R, with t_s(lam) = (N - N_e) b / (W - lam Q_r) the steady step time
    (:func:`steady_step_time`), linear in lam once multiplied out: lam = R W / (K (N - N_e) b + R Q_r), K the
    tokens' bytes (T_out - 1) ((T_in + T_out / 2) (c_h + c_d) - h_p T_in (c_s + c_d)) (tests/test_techniques.py solves the balance
    with SymPy and finds this; the expanded solution printed three times as long).

    Little's law counts lam (T_out - 1) t_s sequences decoding; at steady state their progress is spread evenly over
    the output, so together they hold T_in + T_out / 2 tokens each (:func:`mean_decode_context`, the time average):
    the least an engine that allocates its cache as tokens come (PagedAttention) needs.  A prefix of h_p T_in tokens
    shared by every request is held once (:func:`prefix_capacity_batch`: PagedAttention's shared blocks,
    RadixAttention), so each sequence holds its own T_in (1 - h_p) + T_out / 2 tokens beside it (where every layer
    is global; c_s the bytes of the prefix a sequence still holds, averaged over its decode contexts): the balance is
    B_h(S) of :func:`prefix_capacity_batch` at the mean context S = T_in + T_out / 2, where the chapter's count of
    the sequences that fit takes the last context.  The step t_s(lam) is a lower bound, so at any rate past this
    one even the fastest engine runs more sequences than the caches hold: the ceiling is an upper bound whatever the
    TPOT target.  (Each sequence charged its final T_in + T_out tokens gave a lower ceiling, 42.3 requests/s against
    43.2 for Mistral-7B on A100 with 1k prompts and 256 outputs: below rates a paged engine reaches.)  It does not
    depend on theta: where the step at this rate is longer than theta, the TPOT ceiling (:func:`goodput_rate_tpot`)
    is the lower of the two (t_s grows with lam), so the least of the ceilings is the goodput either way.  (Counting
    lam (T_out - 1) theta sequences, a token each theta, held the caches full at a rate where the step is shorter
    than theta and fewer sequences run.)

    With a draft model (``serving.speculative.draft_model``) its weights M_d take the room too and every sequence
    keeps the draft's cache c_d per token beside the target's (:func:`capacity_batch_draft`: one pool holds both
    caches in vLLM V1): C - N b - M_d over (c_h + c_d); M_d = c_d = 0 without a draft.  h_p = 0 holds no prefix
    once.

    The caches the balance counts are what the sequences hold, c_h per token (the held cache S c_held(S) averaged
    over a request's decode contexts, serving.held_mean_c), while the step's bytes Q_r read c: the two differ past
    a chunked layer's chunk (Llama 4: a sequence holds up to its whole chunk of 8,192 tokens, a step reads the
    S mod 8,192 of the current one) and, against the last context's c, past a sliding window (the held cache per
    token falls with S).  c_h = c for a model with no windowed or chunked layers."""
    shared = h_p * T_in * (sym("c_s") + sym("c_d"))  # the prefix a sequence still holds, once (c_s: its share)
    room = C - N * b - sym("M_d") - shared
    tokens = (T_out - 1) * (mean_decode_context() * (sym("c_h") + sym("c_d")) - shared)
    return room * W / (tokens * (N - N_e) * b + room * request_bytes())



def goodput_rate_engine():
    """Highest arrival rate the engine's max_sequences allows, steady state [1/s]: the rate whose running sequences,
    lam (T_out - 1) t_s(lam) (Little's law, :func:`steady_concurrency`), are the M_s the engine runs at once, with
    t_s(lam) = (N - N_e) b / (W - lam Q_r) the steady step time: lam = M_s W / ((T_out - 1) (N - N_e) b + M_s Q_r),
    solved by SymPy.  Past it the engine holds the arrivals back (vLLM's max_num_seqs, 256 by default; SGLang's
    max_running_requests): they wait, and no step runs more sequences, however much room the caches leave.  The step
    t_s(lam) is a lower bound, so this ceiling is an upper bound; it does not depend on theta.  Written with Q_r whole
    (:func:`request_bytes`), as :func:`goodput_rate_capacity` is: tests/test_techniques.py solves the balance with
    SymPy and finds this; the expanded solution prints four times as long."""
    m = sym("M_s")
    return m * W / ((T_out - 1) * (N - N_e) * b + m * request_bytes())


# ----------------------------------------------------------------------------------------------- disaggregation

def prefill_pool_rate():
    """Requests per second a prefill pool of n_P GPUs serves [1/s]: k_pp n_P / t_pr (t_pr: a whole prompt's prefill
    time at a prefill replica of the layout, its collectives included, times its GPUs where n_P counts GPUs; not
    t_p, the uncached prompt on one GPU's slice that the rate figure's queues take).  Each prefill instance is a
    replica of k_pp pipeline stages: it admits the next prompt after t_pr / k_pp of its time and each prompt still
    takes t_pr, its time to first token (DistServe, Zhong et al., OSDI 2024, section 3.1, "inter-op parallelism");
    k_pp = 1 is a replica that prefills one prompt at a time.  Where the stages are uneven or send to each other
    the busiest stage takes more than t_pr / k_pp, so the rate is at most this: the side a bound takes."""
    return k_pp * n_P / t_pr


def decode_pool_rate(B=B):
    """Requests per second a decode pool of n_D GPUs serves [1/s] at B sequences per GPU-share and step t_s:
    n_D B / ((T_out - 1) t_s)."""
    return n_D * B / ((T_out - 1) * t_s)


def balanced_prefill_gpus(B=B):
    """GPUs of the prefill pool that balance the two pools' rates for n_S = n_P + n_D GPUs [1] (DistServe,
    section 3), solved by SymPy with n_D = n_S - n_P; the prefill instances pipelines of k_pp stages
    (:func:`prefill_pool_rate`; 1: whole replicas).  The share is a balance, not a pool: where an expert-parallel
    group spans G GPUs wider than a replica (ep > tp, no replica serves alone) each pool is a whole number of groups,
    p = round(n_P* n / G) of the n / G groups, at least 1 and at most all but one, and the pools serve the lesser of
    their rates (genreport.model.techniques.whole_group_pools)."""
    sol = sp.solve(sp.Eq(prefill_pool_rate(), decode_pool_rate(B).subs(n_D, sym("n_S") - n_P)), n_P)
    return sp.simplify(sol[0])


def aggregated_tpot():
    """Mean time per output token in one pool that prefills whole prompts between decode rounds [s]:
    t_s + B t_pr / (T_out - 1).

    Each of a request's T_out - 1 rounds, B / (T_out - 1) of the running sequences finish and as many prompts
    are prefilled (t_pr each, a whole prompt at the replica) while the B users wait.  A disaggregated decode pool pays t_s alone;
    the two pools balanced (:func:`balanced_prefill_gpus`) serve the same tokens per GPU as this one pool at the
    same B, so disaggregation gains where the TPOT target holds one pool to a smaller batch (DistServe, section 2)."""
    return t_s + B * t_pr / (T_out - 1)


def kv_transfer_time():
    """Time to send one request's KV cache from the prefill pool to the decode pool [s]: T_in c / W_kv (layer by
    layer it can overlap the prefill; the estimate adds it to the time to first token)."""
    return T_in * c / W_kv


# ----------------------------------------------------------------------------------------------- prefix caching

def prefix_capacity_batch(S=S):
    """Sequences of context S that fit when they share a prefix of h_p T_in tokens held once [1]:
    (C - N b - M_d - h_p T_in (c_s + c_d)) / (S (c + c_d) - h_p T_in (c_s + c_d)) (PagedAttention, RadixAttention);
    c_s the bytes per prefix token a sequence still holds, c where every layer is global (then (C - N b - M_d -
    h_p T_in (c + c_d)) / ((S - h_p T_in) (c + c_d))): a windowed layer past its window holds none of the prefix, so
    its cache is the sequence's own (stop 89's review: Gemma 3 27B on an L40S at 16k, 90% cached, read 147 sequences
    where 56 fit); M_d and c_d a draft model's weights and KV bytes per token on the GPU (:func:`capacity_batch_draft`;
    vLLM V1's prefix cache hashes the blocks of every KV cache group, the drafter's included, so the draft's prefix
    is held once too), 0 without a draft."""
    shared = h_p * T_in * (sym("c_s") + sym("c_d"))
    return (C - N * b - sym("M_d") - shared) / (S * (c + sym("c_d")) - shared)


# ----------------------------------------------------------------------------------------------- the rate figure
# TTFT and TPOT against the arrival rate, with chunked prefill (the steady state above: every step carries its share
# of prompt tokens) and without (each prompt prefilled alone, the decode steps waiting for it).

def prefill_alone_time():
    """Prefill of one prompt's uncached T_in (1 - h_p) tokens alone on the GPU, at least [s]: a mixed step with no
    decode tokens and the whole uncached prompt as its one chunk (s_c = T_in), max(F / P, Q / W): its tokens attend
    to the cached prefix too (its FLOPs), its cache's reads left out as :func:`mixed_bytes` leaves them (the prefix
    caching row's TTFT at the layout the same)."""
    prompt = T_in * (1 - h_p)
    return _step_time(mixed_flops(0, S, prompt), mixed_bytes(0, S, prompt)).subs(s_c, T_in)


def steady_rate_memory():
    """Arrival rate where the chunked steady state's step time grows without end [1/s]: lam Q_r = W (the requests'
    own bytes take the whole bandwidth; :func:`steady_step_time` has W - lam Q_r below)."""
    return W / request_bytes()


def chunk_budget_rate():
    """Highest arrival rate whose tokens fit the step's budget [1/s]: each step of t_s(lam) carries
    lam T_in (1 - h_p) t_s prompt tokens beside its B = lam (T_out - 1) t_s decode tokens, and the budget s_c holds
    both (vLLM's max_num_batched_tokens and Sarathi-Serve's token budget count the decode tokens first, the prompt
    chunks fill the rest); lam (T_in (1 - h_p) + T_out - 1) t_s(lam) = n_St s_c solved for lam (SymPy).  Past it
    the prompts queue without end.  Over a pipeline of n_St stages the steady step is a round, each stage streaming
    its slice once per micro-batch in flight, and each of its n_St steps takes its own budget (as
    :func:`prompt_chunk` counts a round's chunk): Llama 3.1 70B at tp 4 x pp 2 with a budget of 128 tokens and
    one-token 4k requests read 3.0 requests/s from one step's budget over a round of two, where the round's 256 tokens
    admit 6.0 (a review of stop 90); n_St = 1 is one step."""
    sol = sp.solve(sp.Eq(lam * (T_in * (1 - h_p) + T_out - 1) * steady_step_time(), parallel.n_St * s_c), lam)
    return sp.simplify(sol[0])


def unchunked_step_time():
    """Mean time per output token at arrival rate lam without chunked prefill, steady state, at least [s].

    Each prompt is prefilled alone (t_p each), so the decode steps run in the 1 - lam t_p of every second left;
    they carry B = lam (T_out - 1) t_u sequences at the mean context (Little's law), each step reading the weights
    and their caches: t_u (1 - lam t_p) = ((N - N_e) b + B (S c + a)) / W at S = T_in + T_out / 2, solved for t_u
    (SymPy).  lam = 0 gives the weights' stream time, as :func:`steady_step_time` does."""
    t = sp.Symbol("t", positive=True)
    batch = lam * (T_out - 1) * t
    sol = sp.solve(sp.Eq(t * (1 - lam * t_p) * W, decode.decode_bytes(batch, mean_decode_context())), t)
    return sol[0]


def unchunked_stall_time():
    """The slowest round without chunked prefill [s]: a decode step that waits for one whole prefill,
    t_u (1 - lam t_p) + t_p (Sarathi-Serve's generation stall)."""
    return unchunked_step_time() * (1 - lam * t_p) + t_p


def unchunked_rate_memory():
    """Arrival rate where the mean time per output token without chunked prefill grows without end [1/s]: the
    prefills and the caches take all the time, W (1 - lam t_p) = lam (T_out - 1) (S c + a), solved for lam."""
    sol = sp.solve(sp.Eq(W * (1 - lam * t_p), lam * (T_out - 1) * (mean_decode_context() * c + a)), lam)
    return sp.simplify(sol[0])


def unchunked_rate_compute():
    """Highest arrival rate the compute roof allows without chunked prefill [1/s]: each request's prefill t_p and
    its T_out - 1 decode tokens' FLOPs at the mean context fill one second, lam (t_p + (T_out - 1) F_1 / P) = 1."""
    return 1 / (t_p + (T_out - 1) * _decode_flops_per_seq(mean_decode_context()) / P)


def goodput_rate_unchunked():
    """Highest arrival rate whose mean time per output token without chunked prefill meets theta [1/s]:
    t_u(lam) = theta solved for lam (SymPy)."""
    sol = sp.solve(sp.Eq(unchunked_step_time(), theta), lam)
    return sp.simplify(sol[0])


# ----------------------------------------------------------------------------------------------- the tail: P99 TBT
# Sarathi-Serve measures capacity as the highest rate whose P99 time between tokens (TBT) meets a target (its
# artifact, sarathi/benchmark/capacity_search: tbt_slo_quantile 0.99; the strict targets 0.1 s for Mistral-7B, 0.2 s
# for Yi-34B, osdi-experiments/figure-5-6/README.md).  The steady state above gives the mean; the tail is where the
# prefills fall.  Without chunked prefill the engines' scheduler runs prefills first: vLLM v0's _schedule_default
# (vllm/core/scheduler.py: "Don't schedule decodes if prefills are scheduled") and the vLLM baseline Sarathi-Serve
# measured (sarathi/core/scheduler/vllm_scheduler.py) admit, before each round, every waiting prompt that fits the
# token budget (max_num_batched_tokens: the longest prompt allowed, 8,192 or 16,384 in Sarathi-Serve's runs) and the
# sequence limit (max_num_seqs, 128), and prefill them in a step with no decode tokens; prompts that arrive during
# that prefill are admitted the same way before the next round.  With Poisson arrivals at lam, the prompts waiting
# after a round of t_r are Poisson of mean lam t_r, and each prefill of t_p lets a Poisson(lam t_p) number more
# arrive: the prompts prefilled in one gap are the customers served in a busy period of a queue with constant
# service t_p started by a Poisson(lam t_r) number (Borel-Tanner, mixed over a Poisson start: the generalized
# Poisson law).  A prefill is compute-bound, its time linear in its prompts (t_p each, the batch of k taking k t_p
# at least), so the gap between two tokens of a running sequence is t_r + k_s t_p, whatever the budget splits the
# k_s prompts into.

def unchunked_round_time():
    """One decode round alone without chunked prefill, at arrival rate lam [s]: t_r = t_u (1 - lam t_p), the
    memory ledger of the lam (T_out - 1) t_u sequences running at the mean context (:func:`unchunked_step_time`: the
    rounds run in the 1 - lam t_p of every second the prefills leave).  lam = 0 gives the weights' stream time."""
    return sp.simplify(unchunked_step_time() * (1 - lam * t_p))


def stall_prompts_given(n):
    """P(K = k_s | n prompts waiting after a round) [1], the Borel-Tanner law (Tanner 1961): the customers served in
    a busy period of a queue with constant service t_p and Poisson arrivals (lam t_p per service) started by n,
    (n / k_s) e^(-lam t_p k_s) (lam t_p k_s)^(k_s - n) / (k_s - n)! for k_s >= n."""
    rho = lam * t_p
    return n / k_s * sp.exp(-rho * k_s) * (rho * k_s)**(k_s - n) / sp.factorial(k_s - n)


def stall_prompts_pmf():
    """P(K = k_s) [1]: the prompts prefilled between two decode rounds without chunked prefill, with Poisson arrivals
    at lam, a round of t_r and t_p a prefill: the generalized Poisson law (Consul and Jain 1973) of a = lam t_r and
    rho = lam t_p, a (a + rho k_s)^(k_s - 1) e^(-a - rho k_s) / k_s!: the Borel-Tanner law of
    :func:`stall_prompts_given` mixed over the Poisson(a) prompts waiting after the round (tests/test_techniques.py
    checks the two agree).  k_s = 0 (no prompt arrived: no stall) has e^(-lam t_r); its mean is lam t_r / (1 - lam t_p),
    finite below lam t_p = 1."""
    a, rho = lam * t_r, lam * t_p
    return a * (a + rho * k_s)**(k_s - 1) * sp.exp(-a - rho * k_s) / sp.factorial(k_s)


def stall_gap_prompts():
    """Most whole prefills one gap between tokens can hold within the target [1]: m_s = floor((theta - t_r) / t_p);
    a gap of t_r + k_s t_p meets theta exactly when k_s <= m_s (none where theta < t_r)."""
    return sp.floor((theta - t_r) / t_p)


def stall_tail_share():
    """P(K <= m_s) [1]: the share of the gaps between tokens that meet the target without chunked prefill,
    sum_{k=0}^{m_s} P(K = k) (:func:`stall_prompts_pmf`).  Every running sequence sees every gap, so this is the
    share of its tokens too: the P-q_p time between tokens meets theta while it is at least q_p (the rate where it
    falls to q_p is solved numerically, genreport.model.techniques ``rate_curves``: m_s and t_r move with lam)."""
    i = sp.Symbol("i", integer=True, nonnegative=True)
    return sp.Sum(stall_prompts_pmf().subs(k_s, i), (i, 0, m_s))


def stall_free_rate():
    """Highest arrival rate whose P-q_p time between tokens meets the target when no whole prefill fits a gap
    (m_s = 0: t_p > theta - t_r, every stall misses) [1/s]: the share of stall-free gaps e^(-lam t_r(lam)) is q_p,
    lam t_r(lam) = -ln q_p with t_r(lam) the round alone (:func:`unchunked_round_time`), solved for lam by SymPy.
    Where a gap holds one prefill or more (m_s >= 1) the rate is higher (:func:`stall_tail_share`)."""
    num, den = sp.fraction(sp.together(unchunked_round_time()))
    z = sp.Dummy("z", positive=True)  # -ln q_p, kept whole through the solve (SymPy would fold it into powers of q_p)
    qa, qb, qc = sp.Poly(sp.expand(lam * num - z * den), lam).all_coeffs()  # a quadratic in lam
    sol = [((-qb + sign * sp.sqrt(qb**2 - 4 * qa * qc)) / (2 * qa)).subs(z, -sp.log(q_p)) for sign in (1, -1)]
    # two roots of a quadratic: lam t_r(lam) rises from 0 and meets -ln q_p first at the smaller one (the larger lies
    # past the rate where the rounds take all the time the prefills leave); told apart at one sample point
    names = ("N", "N_e", "b", "W", "t_p", "T_in", "T_out", "c", "a", "q_p")
    sample = (7e9, 0.0, 2.0, 2e12, 0.05, 1024.0, 256.0, 131072.0, 0.0, 0.99)
    return min(sol, key=lambda x: float(sp.lambdify([sym(k) for k in names], x, "math")(*sample)))


def unchunked_ttft():
    """Mean time to first token without chunked prefill at arrival rate lam, at least [s]:
    (t_r + t_p) / 2 + t_p / (2 (1 - lam t_p)).

    Prefills first (vLLM v0), Poisson arrivals (each sees the time average): a prompt that arrives during a round
    (a share t_r / t_c of the time, t_c = t_r + t_p a / (1 - rho) the mean cycle of a round and its stall, a = lam t_r,
    rho = lam t_p) waits for the round to end (t_r / 2) and for its own prefill and those of the prompts that arrived
    before it in the round (1 + a / 2 of them); one that arrives during a prefill step of S prompts waits for the step
    to end (S t_p / 2) and for its prefill and the ones ahead of it (1 + rho S / 2).  The steps of a stall are the
    generations of the branching process of :func:`stall_prompts_pmf`: S_1 ~ Poisson(a), S_(i+1) ~ Poisson(rho S_i),
    so sum E[S_i] = a / (1 - rho) and sum E[S_i^2] = (a + a^2 + rho a / (1 - rho)) / (1 - rho^2); weighting each
    step by its time and simplifying (SymPy) gives the closed form.  Only the prompts ahead are counted (a batched
    prefill ends all its prompts together, later), so it is at least what the scheduler gives; lam = 0 gives
    t_r / 2 + t_p, the round in progress and the prefill."""
    a, rho = lam * t_r, lam * t_p
    squares = (a + a**2 + rho * a / (1 - rho)) / (1 - rho**2)
    cycle = t_r + t_p * a / (1 - rho)
    waited = (t_r * (t_r / 2 + t_p * (1 + a / 2)) + t_p**2 * a / (1 - rho) + (1 + rho) * t_p**2 * squares / 2)
    return sp.factor(sp.simplify(waited / cycle))


def chunk_step_share():
    """Share of the steps that carry a prompt chunk with chunked prefill, steady state [1]: lam T_in (1 - h_p) t_s / C_p
    (Little's law: the prompt tokens arriving per step over the chunk a step carries), at most 1.  Where it passes
    1 - q_p the P-q_p time between tokens is a step with a full chunk (:func:`mixed_time`), else a plain step."""
    return lam * T_in * (1 - h_p) * t_s / C_p


# ----------------------------------------------------------------------------------------------- the tail: P90 TTFT
# DistServe judges a design by the rate at which 90% of the requests meet both the TTFT and the TPOT target (Zhong et
# al., OSDI 2024, section 2.2: goodput at an SLO attainment of 90%).  The prompts queue for their prefills:
# - prefilled alone, prefills first (vLLM v0): the prefill server takes the prompts first come first served, t_p each,
#   and whenever none waits it leaves for a decode round of t_r (an M/D/1 queue with exhaustive service and multiple
#   vacations).  Fuhrmann and Cooper's decomposition: the wait is the M/D/1 wait (Erlang, Crommelin) plus the residual
#   of the round in progress, uniform on (0, t_r), the two independent; the TTFT is that plus the prompt's own t_p.
#   A batched prefill ends all its prompts together, later than one at a time, so this is at least what vLLM gives;
# - with chunked prefill: the same queue, its service the prompt's chunked prefill (``chunked_ttft``: T_in (1 - h_p) /
#   C_p mixed steps, the next prompt's chunk packed into the budget a prompt leaves), its vacation one plain step;
# - a disaggregated prefill pool: no decode rounds, no vacation: the plain M/D/1 queue.
# The law of the sum is the Pollaczek-Khinchine transform below times the vacation's; genreport.model.techniques
# ``ttft_law`` inverts it numerically on a grid (every length rounded down to the grid: a quantile at least as long
# as counted is never claimed).

def prefill_wait_share(x):
    """P(W <= x) [1]: the share of prompts that wait at most ``x`` for the prefills ahead of them in an M/D/1 queue
    (Poisson arrivals at lam, each prefill t_p, first come first served, lam t_p < 1), Erlang's formula (Erlang 1909,
    Crommelin 1932): (1 - rho) sum_{i=0}^{floor(x / t_p)} (lam (i t_p - x))^i / i! e^(-lam (i t_p - x)), rho = lam t_p.
    The terms alternate in sign and grow like e^(x / t_p): a float evaluates it only for a wait of a few prefills
    (genreport.model.techniques ``ttft_law`` takes the transform instead)."""
    i = sp.Symbol("i", integer=True, nonnegative=True)
    u = lam * (i * t_p - x)
    return (1 - lam * t_p) * sp.Sum(u**i / sp.factorial(i) * sp.exp(-u), (i, 0, sp.floor(x / t_p)))


def queued_ttft_transform(service=t_p, vacation=t_r):
    """E[e^(-s TTFT)] [1]: the Laplace transform of the time to first token of a prompt queued for its prefill, the
    product of three independent parts: the Pollaczek-Khinchine transform of the M/D/1 wait,
    (1 - rho) s / (s - lam (1 - e^(-s t_p))), the residual of the vacation in progress (Fuhrmann and Cooper),
    (1 - e^(-s v)) / (s v), and the prompt's own prefill e^(-s t_p); ``service`` t_p and ``vacation`` v (t_r prefilled
    alone, one plain step with chunks; 0 for a disaggregated prefill pool, where the residual is 1)."""
    rho = lam * service
    wait = (1 - rho) * _s / (_s - lam * (1 - sp.exp(-_s * service)))
    rest = 1 if vacation == 0 else (1 - sp.exp(-_s * vacation)) / (_s * vacation)
    return wait * rest * sp.exp(-_s * service)


def queued_ttft_mean(service=t_p, vacation=t_r):
    """Mean time to first token of a prompt queued for its prefill [s]: t_p + lam t_p^2 / (2 (1 - lam t_p)) + v / 2,
    minus the derivative of :func:`queued_ttft_transform` at s = 0 (SymPy); at (t_p, t_r) it is
    :func:`unchunked_ttft`, derived there from the branching steps of a stall (tests/test_techniques.py)."""
    # e^(-s x) by its first terms (enough for the first derivative at 0): a rational function of s, whose derivative
    # SymPy takes at 0 at once (a limit of the exponentials took seconds)
    def poly(e):
        return sum(e.args[0]**n / sp.factorial(n) for n in range(5))

    expr = queued_ttft_transform(service, vacation).replace(lambda e: isinstance(e, sp.exp), poly)
    return sp.factor(sp.cancel(-sp.diff(sp.cancel(expr), _s).subs(_s, 0)))


# ----------------------------------------------------------------------------------------------- the spread of prompts
# Prompts differ in length (a chat trace's prompts run from tens to thousands of tokens), so their prefills differ in
# time: the prefill queue is an M/G/1 queue, not an M/D/1 one, and the stalls of the decode rounds are M/G/1 busy
# periods.  Pollaczek-Khinchine's mean wait takes the service's second moment, E[t^2] = t_p^2 (1 + c_v^2), t_p the
# mean prefill and c_v its coefficient of variation (0: every prompt alike, today's one-length numbers).  A prefill
# instance of k_pp pipeline stages admits the next prompt after t / k_pp and still takes t for each (DistServe, Zhong
# et al., OSDI 2024, section 3.1, "inter-op parallelism": Avg_TTFT_inter = D + R D^2 / (4 (2 - R D)) for two stages
# and one prompt length); genreport.model.techniques ``ttft_law_mixed`` inverts the whole law over the length classes.
c_v = sym("c_v")  # the prefill times' coefficient of variation (k_pp, a prefill instance's stages: above)
SPREAD = ("Pollaczek 1930, Khinchine 1932 (the M/G/1 mean wait); Takacs 1962, chapter 1 (the busy period); "
          "Zhong et al., DistServe, OSDI 2024, section 3.1 (a pipelined prefill instance as a queue)")


def queued_ttft_mean_spread(stages=k_pp, vacation=t_r):
    """Mean time to first token of a prompt queued for its prefill when the prefill times spread [s]:
    t_p + lam E[(t / k_pp)^2] / (2 (1 - lam t_p / k_pp)) + v / 2, with E[t^2] = t_p^2 (1 + c_v^2) (Pollaczek-
    Khinchine), the queue's service the pipeline's stage t / k_pp, each prompt's own prefill t_p on average, the
    vacation's residual v / 2 (Fuhrmann and Cooper; v = 0 for a disaggregated prefill pool).  At c_v = 0 and one
    stage it is :func:`queued_ttft_mean`; at c_v = 0, two stages and v = 0 DistServe's D + R D^2 / (4 (2 - R D))."""
    second = t_p**2 * (1 + c_v**2) / stages**2
    rho = lam * t_p / stages
    return t_p + lam * second / (2 * (1 - rho)) + vacation / 2


def stall_gap_variance():
    """Variance of one gap between tokens without chunked prefill, prefills first, when the prefill times spread
    [s^2]: the gap is the round t_r and the busy period of the prefills that arrive during it and during each other,
    an M/G/1 busy period started by the compound-Poisson work A(t_r) (Takacs 1962): given the work x, mean x / (1 - rho)
    and variance x lam E[t^2] / (1 - rho)^3; with E[x] = lam t_r t_p and Var x = lam t_r E[t^2],
    lam t_r t_p^2 (1 + c_v^2) / (1 - rho)^3, rho = lam t_p.  Its mean, t_r / (1 - rho), is ``unchunked_step_time``
    (the steady mean gap); at c_v = 0 the variance is the generalized Poisson law's a t_p^2 / (1 - rho)^3."""
    rho = lam * t_p
    return lam * t_r * t_p**2 * (1 + c_v**2) / (1 - rho) ** 3
