"""The one glossary: every symbol the formulas use, defined once.

Each symbol has a name, its LaTeX, its unit and its meaning, and is a positive
real SymPy symbol.  The report's notation table is generated from this list.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    name: str
    latex: str
    unit: str
    meaning: str


ENTRIES: tuple[Entry, ...] = (
    # hardware
    Entry("P", r"P", "FLOP/s", "dense peak compute of the GPU in the compute format"),
    Entry("W", r"W", "B/s", "peak memory (HBM) bandwidth"),
    Entry("C", r"C", "B", "memory capacity of the card"),
    Entry("R", r"R", "FLOP/B", "ridge point P/W: the intensity where the two roofs meet"),
    # model
    Entry("N", r"N", "1", "parameters (total; for MoE, read at the given batch)"),
    Entry("N_a", r"N_{a}", "1", "parameters that do arithmetic for one token (active; = N for dense models)"),
    Entry("N_e", r"N_{e}", "1", "parameters not streamed per step (input embedding, a row lookup); 0 in the seed accounting"),
    Entry("N_p", r"N_{p}", "1", "parameters applied to every prompt token: the active transformer blocks, without the "
          "input embedding (a row lookup) and the output head (V d, applied to the last prompt token only)"),
    Entry("L", r"L", "1", "transformer layers"),
    Entry("d", r"d", "1", "hidden size (model width)"),
    Entry("H_q", r"H_{q}", "1", "query heads"),
    Entry("H_kv", r"H_{\mathrm{kv}}", "1", "key/value heads"),
    Entry("d_h", r"d_{h}", "1", "head dimension"),
    Entry("d_ff", r"d_{\mathrm{ff}}", "1", "FFN intermediate size"),
    Entry("V", r"V", "1", "vocabulary size"),
    Entry("G", r"G", "1", "GQA group size H_q/H_kv"),
    Entry("I_KV", r"I_{\mathrm{KV}}", "FLOP/B", "attention intensity 4 L H_q d_h / c: FLOPs per KV-cache byte read (2G/b_kv for GQA)"),
    # precision
    Entry("b", r"b", "B", "bytes per weight"),
    Entry("b_kv", r"b_{\mathrm{kv}}", "B", "bytes per KV-cache element"),
    # workload
    Entry("B", r"B", "1", "batch: sequences decoded together in one step"),
    Entry("S", r"S", "token", "context length: tokens already in the KV cache"),
    Entry("T", r"T", "token", "tokens served by one weight load (prompt length, micro-batch)"),
    Entry("n", r"n", "1", "rows of a weight matrix"),
    Entry("m", r"m", "1", "columns of a weight matrix"),
    Entry("c", r"c", "B/token", "KV-cache bytes per token (all layers, K and V)"),
    Entry("a", r"a", "B", "activation traffic per sequence per decode step (0: excluded, intensities are upper bounds)"),
    Entry("k", r"k", "B", "training bytes per parameter (weights, gradients, optimizer state)"),
    Entry("F", r"F", "FLOP", "floating-point operations of one step"),
    Entry("Q", r"Q", "B", "bytes moved to or from memory in one step"),
    Entry("t", r"t", "s", "measured time of one step (decode step, or one prefill)"),
    Entry("eta_W", r"\eta_{W}", "1", "achievable fraction of peak bandwidth"),
    Entry("eta_P", r"\eta_{P}", "1", "achievable fraction of peak compute"),
)

# Many GPUs (formulas/parallel.py).  Kept apart from ENTRIES, whose order and content the single-card
# report's notation table prints, so that a report without 'parallelism' is unchanged.
PARALLEL_ENTRIES: tuple[Entry, ...] = (
    Entry("n_TP", r"n_{\mathrm{TP}}", "1", "tensor-parallel degree: GPUs that split each layer's matrices"),
    Entry("n_PP", r"n_{\mathrm{PP}}", "1", "pipeline split: L over the busiest stage's ceil(L/pp) layers, so that L/n_PP layers (and their share of the weights and KV cache) sit on its GPUs, the output head on the last stage's; the stage count pp when it divides L"),
    Entry("n_St", r"n_{\mathrm{st}}", "1", "pipeline stages pp: micro-batches in flight, and whether there are stages to send between"),
    Entry("s_st", r"s_{\mathrm{st}}", "1", "1 where the layout has pipeline stages, else 0: the output head is then the last stage's, not in the busiest stage's share of a round"),
    Entry("kappa_B", r"\kappa_{\mathrm{B}}", "1", "the busiest stage's attention over a mean layer's: the KV bytes and attention FLOPs of its ceil(L/pp) layers, whose global layers need not be the model's share, over ceil(L/pp) mean layers' (1 for one stage, or layers of one kind)"),
    Entry("kappa_L", r"\kappa_{\mathrm{L}}", "1", "the last stage's attention over a mean layer's: the KV bytes and attention FLOPs of its floor(L/pp) layers over as many mean layers' (1 for one stage, or layers of one kind)"),
    Entry("kappa_F", r"\kappa_{\mathrm{F}}", "1", "the stages before the last together: their attention over as many mean layers' ((n_PP - r kappa_L) / (n_PP - r)), what a micro-batch's walk through them reads (1 for one stage, or layers of one kind)"),
    Entry("m_b", r"m_{\mathrm{b}}", "1", "micro-batches of the strict bound's round: of the splits of the B sequences into m = 1 .. min(pp, B) micro-batches, the one whose round is the least (each micro-batch streams the weights once and walks the stages); vLLM and TensorRT-LLM run min(pp, B), the estimate's; 1 on one stage"),
    Entry("n_PW", r"n_{\mathrm{PW}}", "1", "pipeline split of the weights held: the bytes one GPU would hold with every layer over those of the stage that holds the fewest tokens (its layers, the first stage's embedding, the last stage's head); 1 for one stage"),
    Entry("n_PK", r"n_{\mathrm{PK}}", "1", "pipeline split of the KV cache held: the cache positions a token holds over all layers over those on the stage that holds the fewest tokens (its global, windowed and chunked layers); 1 for one stage"),
    Entry("n_PT", r"n_{\mathrm{PT}}", "1", "pipeline split of the training state: a GPU's parameters with every layer over those of the stage that holds the most (the first stage's embedding, the last stage's head), the dense and the routed parameters each at their heaviest stage, the smaller split of the two taken; 1 for one stage"),
    Entry("n_EP", r"n_{\mathrm{EP}}", "1", "expert-parallel degree: GPUs of the tp x dp group that split the routed experts"),
    Entry("n_DP", r"n_{\mathrm{DP}}", "1", "data-parallel degree: replicas of the tp x pp group"),
    Entry("T_w", r"T_{w}", "token", "tokens one engine step may batch (vLLM max_num_batched_tokens): the step whose activations the engine sets aside"),
    Entry("n_sq", r"n_{\mathrm{sq}}", "1", "sequences one engine step may sample (vLLM max_num_seqs): the rows of the step's logits"),
    Entry("n_g", r"n_{g}", "1", "GPUs in one collective group"),
    Entry("Z_g", r"Z_{g}", "B", "message: bytes each GPU contributes to one collective"),
    Entry("W_x", r"W_{x}", "B/s", "link bandwidth per direction per GPU (what one GPU sends while it receives as much)"),
    Entry("alpha", r"\alpha", "s", "time of one collective step (one hop over the link) at small message sizes"),
    Entry("W_TP", r"W_{\mathrm{TP}}", "B/s", "per-direction bandwidth of the link the tensor-parallel group crosses"),
    Entry("alpha_TP", r"\alpha_{\mathrm{TP}}", "s", "step latency of the link the tensor-parallel group crosses"),
    Entry("W_PP", r"W_{\mathrm{PP}}", "B/s", "per-direction bandwidth of the link between pipeline stages"),
    Entry("alpha_PP", r"\alpha_{\mathrm{PP}}", "s", "step latency of the link between pipeline stages"),
    Entry("W_EP", r"W_{\mathrm{EP}}", "B/s", "per-direction bandwidth of the link the expert-parallel group crosses"),
    Entry("alpha_EP", r"\alpha_{\mathrm{EP}}", "s", "step latency of the link the expert-parallel group crosses"),
    Entry("W_DP", r"W_{\mathrm{DP}}", "B/s", "per-direction bandwidth of the link the data-parallel group crosses"),
    Entry("alpha_DP", r"\alpha_{\mathrm{DP}}", "s", "step latency of the link the data-parallel group crosses"),
    Entry("W_c", r"\tilde{W}_{x}", "B/s", "bus bandwidth the collectives library reaches on a link (nccl-tests busbw, large messages)"),
    Entry("tau_c", r"\tau_{c}", "s", "fixed cost of one collective call in the library (NCCL, RCCL), before its ring steps"),
    Entry("W_s", r"\tilde{W}_{s}", "B/s", "bus bandwidth of the library's all-reduce with the reduction in the switch (NCCL NVLS); 0 without"),
    Entry("tau_s", r"\tau_{s}", "s", "fixed cost of one all-reduce call with the reduction in the switch (NCCL NVLS)"),
    Entry("s_TP", r"s_{\mathrm{TP}}", "1", "1 where the tensor-parallel link's switch can reduce (NVLink SHARP), else 0"),
    Entry("W_cTP", r"\tilde{W}_{\mathrm{TP}}", "B/s", "bus bandwidth the library reaches on the tensor-parallel link"),
    Entry("W_sTP", r"\tilde{W}_{s,\mathrm{TP}}", "B/s", "bus bandwidth of the library's in-switch all-reduce on the tensor-parallel link; 0 without"),
    Entry("W_cPP", r"\tilde{W}_{\mathrm{PP}}", "B/s", "bus bandwidth the library reaches on the link between pipeline stages"),
    Entry("W_cEP", r"\tilde{W}_{\mathrm{EP}}", "B/s", "bus bandwidth the library reaches on the expert-parallel link"),
    Entry("W_cDP", r"\tilde{W}_{\mathrm{DP}}", "B/s", "bus bandwidth the library reaches on the data-parallel link"),
    Entry("tau_o", r"\tau_{o}", "s", "fixed cost of a one-shot all-reduce call: the engine's kernel (vLLM, SGLang, TensorRT-LLM custom all-reduce) or the library's all-pairs algorithm on a full mesh (collectives.all_pairs_call_latency), the lesser where both run"),
    Entry("o_TP", r"o_{\mathrm{TP}}", "1", "1 where a one-shot all-reduce runs on the tensor-parallel link inside one domain (the engine's, engine.all_reduce, in the scale-up domain; or the library's on a full mesh), else 0"),
    Entry("o_EP", r"o_{\mathrm{EP}}", "1", "1 where the engine runs DeepEP's kernels for the experts' all-to-alls (engine.all_to_all: deepep), else 0: the library's"),
    Entry("e_Du", r"e_{D,u}", "1", "share of the scale-up link's line rate DeepEP's kernels reach (153-158 of H800's 200 GB/s NVLink a direction)"),
    Entry("e_Do", r"e_{D,o}", "1", "share of the NIC's line rate DeepEP's normal (prefill) kernels reach across nodes (50-51 of ~50 GB/s at EP64)"),
    Entry("e_Dl", r"e_{D,\ell}", "1", "share of the NIC's line rate DeepEP's low-latency (decode) kernels reach across nodes (39-46 of ~50 GB/s at EP64-EP256)"),
    Entry("n_u", r"n_{u}", "1", "GPUs of a collective group inside one scale-up domain (n_g when the group stays in one)"),
    Entry("W_o", r"W_{o}", "B/s", "scale-out (NIC) bandwidth per direction per GPU, across scale-up domains"),
    Entry("alpha_o", r"\alpha_{o}", "s", "time of one collective step across scale-up domains (over the NICs); 0 inside one"),
    Entry("W_co", r"\tilde{W}_{o}", "B/s", "bus bandwidth the library reaches per GPU across domains (nccl-tests, one NIC)"),
    Entry("n_uTP", r"n_{u,\mathrm{TP}}", "1", "GPUs of the tensor-parallel group in one scale-up domain (n_TP when it stays in one)"),
    Entry("W_oTP", r"W_{o,\mathrm{TP}}", "B/s", "scale-out bandwidth per direction per GPU of a tensor-parallel group that leaves its domain"),
    Entry("alpha_oTP", r"\alpha_{o,\mathrm{TP}}", "s", "step latency across domains of the tensor-parallel group; 0 inside one"),
    Entry("W_coTP", r"\tilde{W}_{o,\mathrm{TP}}", "B/s", "bus bandwidth the library reaches per GPU across domains for the tensor-parallel group"),
    Entry("tau_c8", r"\tau_{c,8}", "s", "fixed cost of one ring call with the library's LL128 protocol (NCCL 14 us); tau_c where the file gives no protocols"),
    Entry("tau_cS", r"\tau_{c,S}", "s", "fixed cost of one ring call with the library's Simple protocol (NCCL 8.4 us); tau_c where the file gives no protocols"),
    Entry("tau_cSm", r"\tilde{\tau}_{c,S}", "s", "fixed cost of one ring call with Simple as nccl-tests measure it on the scale-up link (the least-squares line through the sizes NCCL's tuner runs Simple at); tau_cS where the file gives no measurement"),
    Entry("alpha_SmTP", r"\tilde{\alpha}_{S,\mathrm{TP}}", "s", "one ring step of the tensor-parallel group with Simple as nccl-tests measure it; alpha_STP where the file gives no measurement"),
    Entry("alpha_8TP", r"\alpha_{8,\mathrm{TP}}", "s", "one ring step of the tensor-parallel group with LL128 (NCCL: 1.9 us over NVLink, 2.5 over PCIe)"),
    Entry("alpha_STP", r"\alpha_{S,\mathrm{TP}}", "s", "one ring step of the tensor-parallel group with Simple (NCCL: 3.4 us over NVLink, 5.7 over PCIe)"),
    Entry("alpha_8oTP", r"\alpha_{8,o,\mathrm{TP}}", "s", "one ring step across domains with LL128 (NCCL 4.0 us); 0 inside one domain"),
    Entry("alpha_SoTP", r"\alpha_{S,o,\mathrm{TP}}", "s", "one ring step across domains with Simple (NCCL 14 us); 0 inside one domain"),
    Entry("W_lTP", r"\tilde{W}_{\ell,\mathrm{TP}}", "B/s", "bus bandwidth of the library's LL protocol on the tensor-parallel link: half the bus bandwidth, at most NCCL's llMaxBw"),
    Entry("W_loTP", r"\tilde{W}_{\ell,o,\mathrm{TP}}", "B/s", "bus bandwidth of the LL protocol per GPU across domains: half W_coTP, the ring's at most NCCL's two-node llMaxBw"),
    Entry("n_uEP", r"n_{u,\mathrm{EP}}", "1", "GPUs of the expert-parallel group in one scale-up domain (n_EP when it stays in one)"),
    Entry("W_oEP", r"W_{o,\mathrm{EP}}", "B/s", "scale-out bandwidth per direction per GPU of an expert-parallel group that leaves its domain"),
    Entry("alpha_oEP", r"\alpha_{o,\mathrm{EP}}", "s", "step latency across domains of the expert-parallel group; 0 inside one"),
    Entry("W_coEP", r"\tilde{W}_{o,\mathrm{EP}}", "B/s", "bus bandwidth the library reaches per GPU across domains for the expert-parallel group"),
    Entry("rho_x", r"\rho_{x}", "1", "redundant expert replicas per routed expert, r/E (engine.redundant_experts; DeepSeek's EPLB); 0 without"),
    Entry("k_L", r"k_{L}", "1", "kernels the engine launches per layer in one forward pass (norms, GEMMs, rotary, cache write, attention, activation; collectives apart)"),
    Entry("tau_k", r"\tau_{k}", "s", "fixed cost per kernel in a decode step: its share of a CUDA graph replay, or a launch where decode runs without graphs"),
    Entry("tau_l", r"\tau_{l}", "s", "fixed cost of one kernel launched on its own (no CUDA graph): prefill steps"),
    Entry("e_w", r"e_{w}", "1", "share of a bf16 GEMM's HBM bandwidth the engine's GEMMs reach on the weights: below 1 for weight-only int8/int4 (they unpack every weight for bf16 tensor cores), 1 for other formats; the serial estimate's (engine.weight_only_efficiency)"),
    Entry("P_a", r"P_{a}", "FLOP/s", "dense peak the attention's scores and values (Q K^T, A V) run at in the serial estimate: the slower of the compute format's and the KV cache format's (an fp4 cache read in fp8); P where they are one format; the bound charges them at P, never slower"),
    Entry("e_m", r"e_{m}", "1", "share of the dense peak P a large matmul reaches on this GPU in the compute format, as measured (hardware file's achieved_matmul: the Maximum Achievable Matmul FLOPS over the peak); 1 where no measurement is published; the serial estimate's compute is F / (e_m P), the bound's F / P"),
    Entry("e_g", r"e_{g}", "1", "share of the HBM bandwidth a GEMM with few rows (a short prompt's tokens) streams its weights at on this GPU in the compute format, as measured (hardware file's achieved_bandwidth); 1 where no measurement is published; the serial prefill and decode read the weights at e_w e_g W, the bound at W"),
    Entry("u_x", r"u_{x}", "1", "routed-expert reads of the busiest GPU of the expert group over the mean (expected maximum under uniform routing; 1 without expert parallelism)"),
    Entry("m_P", r"m_{P}", "1", "replicas of an expert group wider than a replica (n_EP > n_TP) whose prompts the group prefills at once: 1 for one prompt alone (its time to first token), n_EP / n_TP for every replica of the group (the GPU time a prompt occupies in a steady state); 1 where n_EP <= n_TP"),
    Entry("N_x", r"N_{x}", "1", "routed-expert parameters (all experts, all MoE layers; 0 for dense models)"),
    Entry("N_R", r"N_{R}", "1", "parameters tensor parallelism adds to a replica by holding them whole on each GPU, as engines shard a checkpoint: N_u (n_TP - 1) + N_k (n_TP / s_kv - 1), N_u the norms, router, MLA's down-projections and row-parallel biases, N_k the K and V projections (one whole KV head a GPU past n_TP = H_kv); 0 on one GPU"),
    Entry("L_x", r"L_{x}", "1", "MoE layers (0 for dense models)"),
    Entry("k_e", r"k_{e}", "1", "routed experts each token is sent to (top-k)"),
    Entry("E_x", r"E_{x}", "1", "routed experts of one MoE layer (1 for dense models, whose N_x is 0): a token applies k_e / E_x of N_x"),
    Entry("d_fx", r"d_{\mathrm{ff},x}", "1", "intermediate width of one routed expert"),
    Entry("s_x", r"s_{x}", "1", "ways one routed expert's intermediate is split over GPUs: n_TP / n_EP, at least 1"),
    Entry("g_x", r"g_{x}", "1", "replicas whose tokens reach one GPU's MoE layer: n_EP / n_TP with data-parallel attention (the ranks' tokens gathered), at least 1"),
    Entry("b_a", r"b_{a}", "B", "bytes per activation element sent between GPUs"),
    Entry("s_kv", r"s_{\mathrm{kv}}", "1", "ways one layer's KV cache is split over the tp GPUs: min(n_TP, H_kv); 1 for MLA"),
    Entry("k_w", r"k_{w}", "B", "training bytes per parameter for the weights"),
    Entry("k_g", r"k_{g}", "B", "training bytes per parameter for the gradients"),
    Entry("k_o", r"k_{o}", "B", "training bytes per parameter for the optimizer state (fp32 master, Adam m, v)"),
    Entry("k_t", r"k_{t}", "1", "index of a decode round within one request (k_t = 1 .. T_o - 1)"),
    Entry("T_o", r"T_{o}", "token", "tokens one request generates (its output; the first comes out of the prefill)"),
)

# What serving engines do to a step (formulas/techniques.py): speculative decoding, chunked prefill, continuous
# batching, prefill/decode disaggregation, prefix caching.  Apart from ENTRIES for the same reason as above.
TECHNIQUE_ENTRIES: tuple[Entry, ...] = (
    Entry("p_a", r"p_{a}", "1", "probability that a draft token is accepted, given that the ones before it were"),
    Entry("k_d", r"k_{d}", "token", "draft tokens proposed per verify step (speculation length; MTP depth)"),
    Entry("t_d", r"t_{d}", "s", "time the draft tokens of one verify step take (a draft model's k_d steps, an MTP head)"),
    Entry("F_d", r"F_{d}", "FLOP", "FLOPs of one forward pass of a draft model over the batch (its decode step at the draft's shapes)"),
    Entry("Q_d", r"Q_{d}", "B", "bytes one forward pass of a draft model reads: its weights once and its KV cache of S tokens per sequence"),
    Entry("f_d", r"f_{d}", "FLOP", "FLOPs of one draft pass for one sequence at a request's mean context: a draft model's or an EAGLE/MTP head's 2 N_a + 4 L H_q d_h S at its own shapes (F_d at B = 1), counted at the target's peak: times P / P_d, P_d the draft's own; 0 where the spec gives the drafts as a time (draft_cost)"),
    Entry("M_s", r"M_{s}", "1", "the most sequences one replica's engine runs at once (its max_sequences: vLLM's max_num_seqs, SGLang's max_running_requests)"),
    Entry("M_d", r"M_{d}", "B", "bytes a draft model's weights take on one GPU of the replica (split at the target's tp and pp)"),
    Entry("c_d", r"c_{d}", "B", "KV bytes per token a draft model's cache takes on one GPU of the replica"),
    Entry("c_s", r"c_{s}", "B/token", "KV-cache bytes per token of a shared prefix that a sequence still holds on one GPU of the replica: c where every layer is global; a windowed layer holds none of the prefix once its window has passed it, a chunked layer only what its current chunk holds (at the context S of B_h(S); averaged over a request's decode contexts in the goodput's KV cache room, as c_h is)"),
    Entry("c_h", r"c_{h}", "B/token", "KV-cache bytes per token a sequence holds on one GPU of the replica, where a step reads less (a chunked layer holds up to its whole chunk, a step reads its current one): at the context S in the batching chapter's B_cap(S); averaged over a request's decode contexts in the serving chapter (S c_h the mean of S c_held(S) at the mean context S); c where no layer is windowed or chunked"),
    Entry("n_v", r"n_{v}", "token", "tokens of each sequence one verify step runs through the target: k_d + 1 for a chain of drafts, a draft tree's nodes with its root (SGLang's speculative_num_draft_tokens, Medusa's and EAGLE's trees)"),
    Entry("C_p", r"C_{p}", "token", "prompt tokens a mixed step carries beside its decode tokens (the chunk)"),
    Entry("n_c", r"n_{c}", "1", "mixed steps a batch's prompts ride along: B T_in (1 - h_p) / C_p, its B requests' uncached prompt tokens one chunk a step"),
    Entry("kappa_c", r"\kappa_{c}", "1", "a mixed step's time over a plain decode round's at the same batch (the chunked prefill row's cost: the step's ledgers on a GPU and, at a layout, its links)"),
    Entry("d_hp", r"d_{h,p}", "1", "head dimension of the attention FLOPs of prompt tokens (a prefill, a prompt chunk): MLA's decompressed (MHA) form, (d_qk + d_v) / 2, where decode tokens take the absorbed form's d_h; for other attention d_h times the share of the uncached prompt's causal attention its windowed and chunked layers compute (1 without them), where a decode token's d_h takes the share of its context"),
    Entry("s_c", r"s_{c}", "token", "chunk size: prompt tokens of one sequence per step"),
    Entry("lam", r"\lambda", "1/s", "request arrival rate of one replica"),
    Entry("T_in", r"T_{\mathrm{in}}", "token", "prompt tokens per request"),
    Entry("T_out", r"T_{\mathrm{out}}", "token", "tokens generated per request (the first one by the prefill)"),
    Entry("h_p", r"h_{p}", "1", "prefix-cache hit rate: the part of a prompt whose KV cache is already held"),
    Entry("n_P", r"n_{P}", "1", "GPUs of the prefill pool (disaggregated serving)"),
    Entry("n_D", r"n_{D}", "1", "GPUs of the decode pool (disaggregated serving)"),
    Entry("n_S", r"n_{S}", "1", "GPUs a disaggregated deployment splits into its prefill and decode pools"),
    Entry("W_kv", r"W_{\mathrm{kv}}", "B/s", "bandwidth that carries a request's KV cache from the prefill pool to the decode pool"),
    Entry("t_p", r"t_{p}", "s", "prefill time of one prompt's uncached tokens alone on one GPU's slice of the layout, no collectives (the rate figure's queues and tails)"),
    Entry("t_pr", r"t_{p,\mathrm{R}}", "s", "prefill time of one whole prompt at a prefill replica of the layout, its collectives included: its TTFT there (disaggregation's pools)"),
    Entry("t_s", r"t_{s}", "s", "time of one decode step (one token for each running sequence)"),
    Entry("t_v", r"t_{v}", "s", "time of one verify round: n_v tokens of each running sequence, its cache read once"),
    Entry("theta", r"\theta", "s", "target time per output token (TPOT)"),
    Entry("t_r", r"t_{r}", "s", "time of one decode round alone without chunked prefill (the prefills between rounds apart)"),
    Entry("k_s", r"k_{s}", "1", "prompts prefilled between two decode rounds without chunked prefill (one stall)"),
    Entry("m_s", r"m_{s}", "1", "most whole prefills one gap between tokens can hold within the target: floor((theta - t_r) / t_p)"),
    Entry("q_p", r"q_{p}", "1", "the percentile of a tail target, as a fraction (0.99 for a P99 time between tokens)"),
    Entry("c_v", r"c_{v}", "1", "coefficient of variation of the prompts' prefill times (0: every prompt alike)"),
    Entry("k_pp", r"k_{\mathrm{pp}}", "1", "pipeline stages of a prefill instance: it admits the next prompt after t_pr / k_pp"),
)

ALL_ENTRIES: tuple[Entry, ...] = ENTRIES + PARALLEL_ENTRIES + TECHNIQUE_ENTRIES

BY_NAME: dict[str, Entry] = {e.name: e for e in ALL_ENTRIES}

# Shares with no physical value past 1, as the spec files bound them: a draft token's acceptance and the prefix-cache
# hit rate below 1 (report.schema.json: exclusiveMaximum 1; p_a = 1 divides E by zero), the measured shares of a peak
# at most 1 and above 0 (common.schema.json's fraction, (0, 1]: e_m = 1.5 put the serial estimate under the strict
# bound).  ``derive --at`` refuses them past those limits (hostile review, stop 77: p_a=1.5 gave a B_P).
BELOW_ONE = frozenset({"p_a", "h_p"})
AT_MOST_ONE = frozenset({"e_m", "e_g", "eta_P", "eta_W"})

# Symbols with no physical value at 0: the rates (a card with no bandwidth or no compute, a link that carries
# nothing) and the counts every formula divides by or multiplies a whole model by (a model with no layers, a layout
# of no GPUs, a step of no sequences).  ``derive --at NAME=0`` refuses them; the others (N_x, L_x, a, alpha, the
# shares and flags) are 0 in specs that do not have what they count.
ABOVE_ZERO = frozenset(
    {e.name for e in ALL_ENTRIES if e.unit in ("B/s", "FLOP/s")}
    | {"C", "L", "d", "H_q", "H_kv", "d_h", "d_ff", "V", "G", "b", "b_kv", "B", "T", "n", "m", "n_TP", "n_PP", "n_PW", "n_PK", "n_PT", "n_St",
       "n_EP", "n_DP", "n_g", "n_u", "n_uTP", "n_uEP", "E_x", "k_e", "d_fx", "b_a", "T_o", "T_in", "T_out", "n_v",
       "n_S", "theta"} | AT_MOST_ONE)

# Symbols that count whole things: layers, heads, widths, the GPUs of a group, experts, draft and prompt tokens, the
# engine's sequences.  ``derive --at NAME=2.5`` refuses them as a spec's tp: 2.5 is refused.  Not n_PP (L over the
# busiest stage's layers: 61 layers over 2 stages are 61/31 of one) nor d_h (a windowed layer's attended share).
WHOLE = frozenset({"L", "L_x", "H_q", "H_kv", "d", "d_ff", "V", "n_TP", "n_EP", "n_DP", "n_g", "n_uTP", "n_uEP", "k_e",
                   "E_x", "k_d", "n_v", "T_o", "T_in", "T_out", "M_s"})

# Workload parameters of results.json and the glossary symbol each one binds (the one table of them).
PARAM_SYMBOL = {"batch": "B", "context": "S", "tokens": "T", "n": "n", "m": "m", "recipe": "k", "output": "T_o"}

_SYMBOLS: dict = {}


def _symbols() -> dict:
    """The SymPy symbols, created on first use so that importing the glossary does not import SymPy."""
    if not _SYMBOLS:
        import sympy as sp

        _SYMBOLS.update({e.name: sp.Symbol(e.name, positive=True) for e in ALL_ENTRIES})
    return _SYMBOLS


def __getattr__(name: str):
    if name == "LATEX_NAMES":  # symbol -> LaTeX, for sympy.latex(symbol_names=...)
        syms = _symbols()
        return {syms[e.name]: e.latex for e in ALL_ENTRIES}
    raise AttributeError(name)


def sym(name: str):
    """The glossary symbol ``name`` (positive real)."""
    return _symbols()[name]


def symbols(names: str) -> tuple:
    """``symbols("N b W")`` -> the three glossary symbols."""
    return tuple(_symbols()[n] for n in names.split())


def latex(expr) -> str:
    """LaTeX of an expression with the glossary's symbol names."""
    import sympy as sp

    return sp.latex(expr, symbol_names=__getattr__("LATEX_NAMES"), mul_symbol=" ")
