"""Loaded specs as plain frozen data, everything in SI units.  No algorithms here."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

# vLLM's EngineArgs: gpu_memory_utilization defaults to 0.9 (docs.vllm.ai, engine arguments): 10% of each GPU is
# left to activations, CUDA graphs and communication buffers; SGLang's mem_fraction_static is of the same order.
DEFAULT_MEMORY_RESERVE = 0.1
MEMORY_RESERVE_SOURCE = "vLLM engine arguments: gpu_memory_utilization defaults to 0.9"

# The activation workspace (formulas.memory.activation_workspace): vLLM profiles one forward pass of
# max_num_batched_tokens tokens and gives the KV cache what is left of gpu_memory_utilization.  SchedulerConfig's own
# fallback is 2048 "mainly for convenience when testing" (docs.vllm.ai/en/stable/api/vllm/config/scheduler/);
# EngineArgs sets the real value per usage context, 8192 for V1's chunked prefill on the OpenAI server; max_num_seqs
# 256 (docs.vllm.ai engine arguments).  The logits are computed only at the sampled positions (logits_indices).
DEFAULT_MAX_BATCHED_TOKENS = 8192
DEFAULT_MAX_SEQUENCES = 256
WORKSPACE_SOURCE = ("vLLM: one profiled step of max_num_batched_tokens = 8192 tokens (V1 chunked prefill; "
                    "docs.vllm.ai config/scheduler), logits for max_num_seqs = 256 sampled positions")

# The kernels' fixed costs of the serial estimate (formulas.parallel.decode_time_overhead): what an engine pays per
# kernel beside its bytes and FLOPs.  A kernel launched on its own costs the host about 4-6 us (pegainfer (3), "From
# Launch Overhead to CUDA Graph", susun-blog.com/blog/pegainfer-3-cuda-graph); inside a CUDA graph replay the
# per-kernel cost falls to about 0.5 us (NVIDIA Technical Blog, "Getting Started with CUDA Graphs", A. Gray 2019:
# 2.9 us kernels take 3.8 us each launched from a stream, 3.4 us each replayed from a graph).  Measured on one H200
# (bench/gpu_step.py, 2026-12-04, CUDA 13.0; tests/data/gpu_step_h200.json): an empty kernel launched from C++ every
# 4.34 us, replayed from a graph every 0.496 us, and a plain-PyTorch decode step of Llama 3.1 8B's shape spends
# 0.31-0.54 us between each two of its ~1,450 kernels in a graph replay (tests/test_gpu_measured.py).  vLLM's Llama
# decoder layer launches 10 kernels besides its collectives (vllm/model_executor/models/llama.py: fused-add RMSNorm,
# QKV GEMM, rotary embedding, KV-cache write, attention, O GEMM, fused-add RMSNorm, gate-up GEMM, SiLU-and-mul, down
# GEMM).
# vLLM, SGLang and TensorRT-LLM capture decode in CUDA graphs by default and launch prefill kernel by kernel.
DEFAULT_KERNEL_LAUNCH = 5e-6
DEFAULT_GRAPH_KERNEL = 0.5e-6
DEFAULT_KERNELS_PER_LAYER = 10
# An MoE layer's MLP as vLLM runs it (vllm/model_executor/layers/fused_moe/fused_moe.py, fused_experts_impl; SGLang's
# Triton path is the same): the router's GEMM, topk_softmax, moe_align_block_size, the grouped GEMM of the gate and up
# projections, silu_and_mul, the grouped down GEMM and moe_sum: 7 kernels where a dense MLP runs 3 (GEMM, activation,
# GEMM), so 4 more; shared experts run as a dense MLP beside them and are added in: 4 more (GEMM, activation, GEMM,
# the add).
MOE_EXTRA_KERNELS = 4
SHARED_EXPERT_KERNELS = 4
MOE_KERNELS_SOURCE = ("an MoE layer: 4 kernels more than a dense one (router GEMM, topk_softmax, moe_align_block_size, "
                      "two grouped GEMMs, silu_and_mul, moe_sum: vLLM's fused_moe.py) and 4 more with shared experts")
# vLLM's, SGLang's and TensorRT-LLM's one-shot (custom) all-reduce kernels take 5.7-7.8 us for 0.5-32 KiB on
# 8 x H100 (the measurements gathered in issue 27): a fixed 5.7 us and the n-1 peers' bytes at the bus bandwidth.
DEFAULT_ONE_SHOT_LATENCY = 5.7e-6
ONE_SHOT_SOURCE = ("vLLM, SGLang and TensorRT-LLM one-shot all-reduce kernels: 5.7-7.8 us for 0.5-32 KiB on 8 x H100 "
                   "(measurements gathered in issue 27)")
# The experts' all-to-all (formulas.parallel.ep_layer_time): the collectives library's by default (NCCL, as vLLM's and
# SGLang's default all-to-all backends run it), or DeepEP's kernels (engine.all_to_all: deepep, as SGLang's
# --moe-a2a-backend deepep, vLLM's deepep_low_latency / deepep_high_throughput and TensorRT-LLM run DeepSeek-style MoE
# at scale).  DeepEP's shares of the line rate, from its published tables (deepseek-ai/DeepEP docs/legacy.md, V1, H800
# with ~160 GB/s NVLink, 200 GB/s a direction at line rate, and one CX7 400 Gb/s NIC, ~50 GB/s, a GPU; FP8 dispatch,
# BF16 combine): normal kernels 153 (dispatch) and 158 GB/s (combine) NVLink in the node, 153/200 = 0.765; 43-58 GB/s
# RDMA across nodes, 51 and 50 at EP64, the NIC's line rate (1); low-latency kernels 43/46, 39/39 and 39/40 GB/s
# (dispatch/combine) at EP64, EP128 and EP256, 41 GB/s on average, 41/50 = 0.82.
ALL_TO_ALL_BACKENDS = ("nccl", "deepep")
# NCCL's LL128 protocol moves data at 0.92 of the ring's bus bandwidth (src/graph/tuning.cc); the formulas' own copy is
# formulas.parallel.LL128_SHARE (a SymPy rational), which a test holds equal to this one
LL128_SHARE = 0.92
DEEPEP_NVLINK_SHARE = 0.765
DEEPEP_RDMA_SHARE = 1.0
DEEPEP_LOW_LATENCY_SHARE = 0.82
DEEPEP_SOURCE = ("DeepEP's kernels (deepseek-ai/DeepEP docs/legacy.md, V1 on H800 + CX7 400 Gb/s): FP8 dispatch and "
                 "BF16 combine, every peer posted at once; normal kernels (prefill) 153-158 GB/s NVLink (0.765 of "
                 "200 GB/s) and 50-51 GB/s RDMA at EP64 (the NIC's line rate); low-latency kernels (decode) 39-46 GB/s "
                 "at EP64-EP256 (0.82 of ~50 GB/s)")
NCCL_A2A_SOURCE = ("the default: the collectives library's all-to-all (NCCL, RCCL), the peers one after another, as "
                   "the hardware file's collectives block costs it")
# Weight-only quantized GEMMs (int8/int4 weights, bf16 activations and compute: Marlin, AWQ, GPTQ, tinygemm,
# TensorRT-LLM's weight-only GEMM) read fewer bytes but reach a lower share of the HBM bandwidth than a bf16 GEMM: they
# unpack and scale every weight on its way to the tensor cores.  The serial estimate divides the weight stream by e_w, the share the
# format's kernel reaches of what a bf16 GEMM reaches (formulas.parallel.decode_time_memory_busiest); the bound does not
# (max(F/P, Q/W) holds for any kernel).  Measured at batch 1 on one A100-80GB by torchao (pytorch/ao
# torchao/quantization/README.md, commit 03d01adc, Benchmarks table, "Memory Bandwidth (GB/s)" column): Llama-2-7B bf16
# 1418.93 GB/s, int8wo 1131.18 (0.797), int4wo-64 751.42 (0.530); Llama-3-8B bf16 1435.54, int8wo 1150.80 (0.802),
# int4wo-64 763.33 (0.532).  The same order on H100 with TensorRT-LLM (NVIDIA TensorRT-Model-Optimizer benchmark.md,
# TRT-LLM 0.9, batch 2): INT4 AWQ over FP8 1.20x (Llama3-70B, 77.36 / 64.35 tok/s) and 1.16x (Llama3-8B, 392.99 /
# 337.67) where the bytes allow 2x, about 0.6.  Marlin (Frantar et al. 2024, arXiv 2408.11743; IST-DASLab/marlin
# README, assets/peak.png and models.png) comes closer: 3.87x over fp16 on a 72k x 18k matrix on an A10 up to batch 32,
# and its fall past that (3.1x at 64, 1.55x at 128, against an ideal 3.27x and 1.64x) is the roofline's own, the
# bf16 compute that max(F/P, Q/(e_w W)) already charges; on real layer shapes on an A100 at batch 16 it reaches
# 2.2-3.6x of the 3.87x (0.57-0.94).  So no term grows with the batch beyond the bf16 compute roof; the defaults are
# torchao's measured shares.  A format computed in its own precision (int8 weights with int8 compute) is not
# weight-only: e_w = 1, as for bf16, fp8 and the block formats (nvfp4/mxfp4 are not charged: no measurement gathered).
WEIGHT_ONLY_EFFICIENCY = {"int8": 0.80, "int4": 0.53}
WEIGHT_ONLY_SOURCE = ("torchao (pytorch/ao quantization README, A100, batch 1): int8 weight-only reaches 1131-1151 GB/s "
                      "where bf16 reaches 1419-1436 (0.80), int4 (group 64) 751-763 (0.53); TensorRT-LLM INT4 AWQ on "
                      "H100 1.16-1.20x FP8 at batch 2 where the bytes allow 2x (TensorRT-Model-Optimizer benchmark.md); "
                      "Marlin's fall past batch 32 is the bf16 compute roof (Frantar et al. 2024, arXiv 2408.11743)")
# each source beside the one number it gives (Kernels.sources: one per row of the inputs table)
KERNEL_COUNT_SOURCE = ("10 kernels beside the collectives in vLLM's Llama decoder layer (vllm/model_executor/models/"
                       "llama.py): fused-add RMSNorm, QKV GEMM, rotary embedding, KV-cache write, attention, O GEMM, "
                       "fused-add RMSNorm, gate-up GEMM, SiLU-and-mul, down GEMM")
KERNELS_SOURCE = {
    "per_layer": KERNEL_COUNT_SOURCE,
    "graph": ("0.5 us a kernel in a CUDA graph replay (NVIDIA, Getting Started with CUDA Graphs: 3.8 against 3.4 us "
              "a 2.9 us kernel); on an H200 an empty kernel 0.50 us, a Llama 3.1 8B decode step 0.31-0.54 us between "
              "its kernels (genreport bench/gpu_step.py, 2026-12); vLLM, SGLang and TensorRT-LLM capture decode in "
              "CUDA graphs by default"),
    "launch": ("about 4-6 us a kernel launched on its own (pegainfer (3), From Launch Overhead to CUDA Graph); an "
               "empty kernel launched every 4.3 us on an H200 (genreport bench/gpu_step.py, 2026-12); engines launch "
               "prefill kernel by kernel"),
}
# Those costs are measured on NVIDIA GPUs with CUDA.  On AMD's Instinct GPUs (ROCm) a HIP graph replay costs more
# per kernel: an AMD engineer timed a captured graph of empty kernels on an MI300X at 1.381 us a dispatch packet
# (min of 8; 1.335 us with the fix that issue proposes, 1.461 -> 1.320 on an MI355X), where a CUDA graph costs about
# 0.5 us a kernel: the decode default there.  A HIP kernel launched on its own has no measurement on an MI300X-class
# GPU gathered (PETSc's MI250X test: 1.34 us asynchronous, the host's enqueue, 6.66 us with a synchronize), so
# prefill charges none there and says why.  Another vendor's stack has neither: the estimate charges no per-kernel
# cost (tau_k = tau_l = 0) and says why, unless the spec's engine block gives them: a TPU runs a step as one program
# XLA compiled (PyTorch/XLA, JAX jit: no kernel is launched on its own); Gaudi's graph compiler runs a step as one
# recipe (lazy mode, HPU graphs: docs.habana.ai, "Run Inference Using HPU Graphs" names the host overhead they remove,
# not its size).
AMD_KERNELS_SOURCE = {
    "per_layer": KERNEL_COUNT_SOURCE,
    "graph": ("1.381 us per kernel in a HIP graph replay on an MI300X (ROCm/rocm-systems issue 11282, 2026-09: a "
              "captured graph of empty kernels, min of 8, per dispatch packet); vLLM and SGLang on ROCm capture decode "
              "in HIP graphs by default"),
    "launch": "",
}
# each vendor's sourced defaults: (a kernel launched on its own, one kernel in a graph replay [s], their sources);
# 0 where none is sourced (NO_KERNEL_COST says why)
VENDOR_KERNELS = {"NVIDIA": (DEFAULT_KERNEL_LAUNCH, DEFAULT_GRAPH_KERNEL, KERNELS_SOURCE),
                  "AMD": (0.0, 1.381e-6, AMD_KERNELS_SOURCE)}
NO_KERNEL_COST = {
    "Google": "XLA compiles a TPU step into one program (PyTorch/XLA, JAX jit): no kernel is launched on its own, and no "
              "source gathered gives the program's dispatch cost",
    "Intel": "Gaudi's graph compiler runs a step as one recipe (lazy mode, HPU graphs), and no source gathered gives its "
             "per-op cost",
    "AMD": "no source gathered gives a HIP kernel launch's cost on an MI300X-class GPU; PETSc's MI250X test times the "
           "host's enqueue alone, 1.34 us",
}


def no_kernel_cost(vendor: str) -> str:
    """Why the estimate charges no per-kernel cost on ``vendor``'s hardware, or none for a kernel launched on its own
    (AMD: its HIP graph replay is sourced); "" where both defaults are sourced."""
    launch, graph, _ = VENDOR_KERNELS.get(vendor, (0.0, 0.0, ""))
    if launch and graph:
        return ""
    return NO_KERNEL_COST.get(vendor, f"no source gathered gives a per-kernel cost on {vendor}'s stack")

PRECISION_BYTES = {
    "fp32": 4.0, "tf32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "fp6": 0.75, "fp4": 0.5, "int8": 1.0, "int4": 0.5,
}
INTEGER_FORMATS = ("int8", "int4")

# Block-scaled weight formats, at their real bits per value with the scales (weights only: no tensor-core peak of
# their own; `compute` names the peak that applies, bf16 by default as for int4, fp4 where the GPU has one):
# - mxfp4: OCP Microscaling Formats (MX) v1.0 spec: blocks of k = 32 FP4 (E2M1) elements share one 8-bit E8M0
#   scale: 4 + 8/32 = 4.25 bits (gpt-oss ships its routed experts so: its quantization_config, quant_method mxfp4).
# - nvfp4: NVIDIA, "Introducing NVFP4 for efficient and accurate low-precision inference" (developer blog, 2025):
#   16 FP4 (E2M1) values share one FP8 (E4M3) scale, plus one FP32 scale per tensor (negligible): 4 + 8/16 = 4.5 bits.
# - fp8_block: DeepSeek-V3 technical report (arXiv 2412.19437, section 3.3): fp8 (E4M3) weights with one fp32 scale
#   per 128 x 128 block (config.json: quant_method fp8, weight_block_size [128, 128]): 8 + 32/16384 bits.
BLOCK_FORMAT_BITS = {"mxfp4": 4.0 + 8.0 / 32, "nvfp4": 4.0 + 8.0 / 16, "fp8_block": 8.0 + 32.0 / (128 * 128)}
FORMAT_SOURCES = {"mxfp4": "OCP Microscaling Formats (MX) v1.0: 32 E2M1 values share an E8M0 scale, 4.25 bits",
                  "nvfp4": "NVIDIA NVFP4 (developer blog, 2025): 16 E2M1 values share an E4M3 scale, 4.5 bits",
                  "fp8_block": "DeepSeek-V3 report sec. 3.3: an fp32 scale per 128x128 block, 8.002 bits"}
WEIGHT_FORMAT_BYTES = {**PRECISION_BYTES, **{k: v / 8 for k, v in BLOCK_FORMAT_BITS.items()}}
# the tensor-core format a weight format is computed in unless `compute` says otherwise (dequantized on load)
WEIGHT_COMPUTE = {"int8": "bf16", "int4": "bf16", "mxfp4": "bf16", "nvfp4": "bf16", "fp8_block": "fp8"}
# Block-scaled 4-bit formats whose values the tensor cores of a GPU with an fp4 peak multiply as they are (Blackwell:
# NVFP4 and MXFP4, W4A4 as TensorRT-LLM and vLLM serve NVFP4 checkpoints there): unless `compute` says otherwise
# they are computed in fp4 on such a GPU and in WEIGHT_COMPUTE's bf16 elsewhere (Precision.native, on_hardware).
# The strict bound needs it: at bf16's peak a B200's FP4 prefill would beat it (2.25 against 9 PFLOP/s dense).
NATIVE_FP4 = ("nvfp4", "mxfp4")
# the tensor classes a precision may set apart: routed experts, attention (MLA projections included), the input
# embedding and the output head, and the rest (dense FFN, shared experts, router, norms)
WEIGHT_CLASSES = ("experts", "attention", "embeddings", "default")


# Hardware.graph; NVIDIA and any other: "CUDA graph". A TPU runs a step as one program XLA compiled from the traced
# graph (PyTorch/XLA and JAX jit), no CUDA graph
GRAPHS = {"AMD": "HIP graph", "Intel": "HPU graph", "Google": "compiled XLA graph"}


@dataclass(frozen=True)
class Kernels:
    """The engine's fixed costs per kernel and its all-reduce (the report spec's engine block; the defaults above
    otherwise)."""

    per_layer: float = DEFAULT_KERNELS_PER_LAYER  # kernels launched per layer, collectives apart
    launch: float = DEFAULT_KERNEL_LAUNCH  # s, one kernel launched on its own
    graph: float = DEFAULT_GRAPH_KERNEL  # s, one kernel's share of a CUDA graph replay
    cuda_graphs: bool = True  # decode runs as CUDA graphs
    one_shot: bool = False  # the tensor-parallel all-reduce may run as the engine's one-shot kernel (engine.all_reduce)
    one_shot_latency: float = DEFAULT_ONE_SHOT_LATENCY  # s, that kernel's fixed cost
    all_to_all: str = "nccl"  # the experts' all-to-all backend (engine.all_to_all): "nccl" or "deepep"
    moe_per_layer: float | None = None  # kernels of an MoE layer; None: per_layer + MOE_EXTRA_KERNELS (+ shared)
    # e_w of each weight-only format: the share of a bf16 GEMM's HBM bandwidth its kernel reaches (WEIGHT_ONLY_EFFICIENCY)
    weight_only: tuple[tuple[str, float], ...] = tuple(sorted(WEIGHT_ONLY_EFFICIENCY.items()))
    # why the default per-kernel costs are absent (0) on this hardware: no source for its vendor (no_kernel_cost);
    # "" where they are sourced.  A cost the engine block gives is the spec's whatever the vendor.
    absent: str = ""
    # where the defaults come from (the vendor's): (("per_layer", text), ("graph", text), ("launch", text))
    sources: tuple[tuple[str, str], ...] = tuple(KERNELS_SOURCE.items())

    @classmethod
    def for_vendor(cls, vendor: str) -> Kernels:
        """The defaults on ``vendor``'s hardware (VENDOR_KERNELS: NVIDIA's both, AMD's HIP graph replay, none elsewhere),
        each absence with its reason (no_kernel_cost)."""
        launch, graph, sources = VENDOR_KERNELS.get(vendor, (0.0, 0.0, KERNELS_SOURCE))
        return cls(launch=launch, graph=graph, absent=no_kernel_cost(vendor), sources=tuple(sources.items()))

    def source(self, part: str) -> str:
        """Where the default of ``part`` ("per_layer", "graph" or "launch") comes from; "" where none is sourced."""
        return dict(self.sources).get(part, "")

    def moe_layer(self, shared_experts: int) -> float:
        """Kernels of one MoE layer [1]: the spec's kernels_per_layer where it gives one, else the dense count plus the
        fused-MoE path's (MOE_EXTRA_KERNELS) and the shared experts' (SHARED_EXPERT_KERNELS)."""
        if self.moe_per_layer is not None:
            return self.moe_per_layer
        return self.per_layer + MOE_EXTRA_KERNELS + (SHARED_EXPERT_KERNELS if shared_experts else 0)

    @property
    def decode(self) -> float:
        """tau_k [s]: the per-kernel cost of a decode step (graph replay, or launch without graphs)."""
        return self.graph if self.cuda_graphs else self.launch

    def weight_only_efficiency(self, fmt: str, compute: str) -> float:
        """e_w of one weight format computed in ``compute`` [1]: the engine's share for a weight-only format (int8 or int4
        weights computed in another format), 1 otherwise."""
        table = dict(self.weight_only)
        return table[fmt] if fmt in table and compute != fmt else 1.0


@dataclass(frozen=True)
class Source:
    title: str
    url: str = ""
    date: str = ""
    note: str = ""

    def short(self) -> str:
        bits = [self.title]
        if self.date:
            bits.append(self.date)
        return ", ".join(bits)


@dataclass(frozen=True)
class Link:
    """One link between accelerators, per GPU: the scale-up interconnect or the scale-out network."""

    name: str
    bandwidth_per_direction: float  # B/s, what one GPU sends (and at the same time receives)
    per_direction_from: str  # "spec" (bandwidth_per_direction given) or "bandwidth/2" (half the bidirectional total)
    bandwidth: float | None = None  # B/s, total bidirectional as datasheets print it (scale-up only)
    latency: float | None = None  # s, fixed cost of one collective step (one ring hop); None: not in the spec
    domain: int | None = None  # GPUs that reach each other over this link at full rate (scale-up only)
    topology: str = "switch"  # "switch" (any group gets the full rate) or "mesh" (one link to each peer)
    link_bandwidth_per_direction: float | None = None  # B/s, one peer link of a mesh
    in_network_reduction: bool = False  # the switch reduces (NVLink SHARP): an all-reduce sends each byte once
    bus_bandwidth: float | None = None  # B/s, what the library's ring reaches over the whole domain (nccl-tests)
    in_network_bus_bandwidth: float | None = None  # B/s, the library's in-switch all-reduce (NCCL NVLS)
    group_bus_bandwidth: tuple[tuple[int, float], ...] = ()  # (GPUs, B/s): the ring's, measured on smaller groups

    @property
    def short_name(self) -> str:
        """The link's name for running text (:func:`short_link`)."""
        return short_link(self.name)

    def rate(self, n: int) -> float:
        """Per-direction rate one GPU of a group of ``n`` gets: all its links on a switch, n-1 peer links on a mesh."""
        if self.topology == "mesh" and self.link_bandwidth_per_direction and n > 1:
            return min(self.bandwidth_per_direction, (n - 1) * self.link_bandwidth_per_direction)
        return self.bandwidth_per_direction

    def bus_rate(self, n: int) -> float | None:
        """The library's bus bandwidth for a group of ``n``: on a mesh, the share of the links the group uses; on a
        switch, the group's measured one where it is smaller than the domain (:meth:`group_bus`), else the domain's."""
        if self.bus_bandwidth is None:
            return None
        if self.topology == "mesh":
            return self.bus_bandwidth * self.rate(n) / self.bandwidth_per_direction
        group = self.group_bus(n)
        return self.bus_bandwidth if group is None else min(group, self.bus_bandwidth)

    def group_bus(self, n: int) -> float | None:
        """What nccl-tests measures at large messages on a switched group of ``n`` GPUs smaller than the domain, with
        whichever algorithm the library takes there: the entry of ``group_bus_bandwidth`` for the largest listed
        group of at most ``n`` (2 or 4 GPUs reach less than the domain's 8); None for the whole domain (its ring
        and in-switch values are ``bus_bandwidth`` and ``in_network_bus_bandwidth``) or where nothing is listed."""
        entry = self.group_bus_entry(n)
        return None if entry is None else entry[1]

    def group_bus_entry(self, n: int) -> tuple[int, float] | None:
        """(gpus, bus bandwidth) of the ``group_bus_bandwidth`` entry a group of ``n`` takes (:meth:`group_bus`)."""
        listed = [(gpus, bus) for gpus, bus in self.group_bus_bandwidth if gpus <= n]
        if self.topology == "mesh" or not listed:
            return None
        if n >= (self.domain if self.domain is not None else listed[-1][0] + 1):
            return None
        return listed[-1]


def short_link(name: str) -> str:
    """A link's name for running text: up to its first ';' or ', ' outside parentheses, so a sentence that names the
    link reads on ('NVLink 4 bridge between the two GPUs of a pair; PCIe Gen5 x16 otherwise' -> 'NVLink 4 bridge
    between the two GPUs of a pair'; '400 Gb/s NDR InfiniBand, one ConnectX-7 per GPU (DGX H100)' -> '400 Gb/s NDR
    InfiniBand'); a parenthesis stays whole ('NVLink 4 (18 links, NVSwitch; HGX H100 8-GPU)').  Tables and the
    appendix keep the full name."""
    depth = 0
    for i, ch in enumerate(name):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and (ch == ";" or name.startswith(", ", i)):
            return name[:i].rstrip()
    return name


@dataclass(frozen=True)
class MeasuredProtocol:
    """A protocol's call and step latency on the scale-up link as nccl-tests time them (the least-squares line through
    the message sizes NCCL's tuner runs it at): what the estimate charges, where the tuner's own constants, which
    choose the protocol, miss what it pays."""

    call_latency: float  # s
    step_latency: float  # s
    source: Source


@dataclass(frozen=True)
class Protocol:
    """One of the library's protocols beside LL (NCCL's LL128, Simple) as its tuning model costs a ring call."""

    call_latency: float  # s, the call's base latency
    step_latency: float  # s, one ring step over the scale-up link
    scale_out_step_latency: float | None = None  # s, one ring step over the network
    measured: MeasuredProtocol | None = None  # what a call pays on the scale-up link, where the tuner's price misses it


@dataclass(frozen=True)
class Protocols:
    """The library's protocols for the all-reduce estimate (NCCL src/graph/tuning.cc): LL at half the bus bandwidth and
    at most ``ll_bus_bandwidth`` (the collectives block's call_latency and the link's latency are LL's), LL128 at
    LL128_SHARE of it, Simple at all of it, each with its own latencies; the ring takes the fastest for each message."""

    ll_bus_bandwidth: float  # B/s, LL's most on one node
    ll128: Protocol
    simple: Protocol
    source: Source
    ll_scale_out_bus_bandwidth: float | None = None  # B/s, LL's most across nodes (the whole ring's)


@dataclass(frozen=True)
class Collectives:
    """The collectives library's own costs (its tuning model), for the estimate."""

    library: str
    call_latency: float  # s, fixed cost of one call
    in_network_call_latency: float | None  # s, one all-reduce with the reduction in the switch
    source: Source
    protocols: Protocols | None = None  # its protocols beside LL, where the file gives them
    # s, fixed cost of the library's all-pairs all-reduce inside a full mesh (RCCL on an 8-GPU xGMI platform: every
    # GPU reads its peers' bytes over its own link and sums them); None where the file does not give it
    all_pairs_call_latency: float | None = None


@dataclass(frozen=True)
class Node:
    gpus_per_node: int | None = None
    scale_out: Link | None = None


@dataclass(frozen=True)
class Hardware:
    name: str
    title: str
    vendor: str
    variant: str
    capacity: float  # B
    bandwidth: float  # B/s
    dense: dict[str, float]  # format -> FLOP/s
    sparse: dict[str, float]
    source: Source
    sources: dict[str, Source] = field(default_factory=dict)  # field path -> source, where it differs
    texts: dict[str, str] = field(default_factory=dict)  # field path -> the string as written
    memory_type: str = ""
    interconnect: tuple[str, float] | None = None
    link: Link | None = None  # the scale-up interconnect with its per-direction rate and latency
    node: Node | None = None
    collectives: Collectives | None = None
    architecture: dict[str, float] = field(default_factory=dict)
    price_per_hour: float | None = None  # USD per device-hour (price.usd_per_hour, or an override)
    power_watts: float | None = None  # W, board power of one device (power.board_watts)
    measured_bandwidth: float | None = None
    measured_peaks: dict[str, float] = field(default_factory=dict)
    # e_m per compute format: a large matmul's measured share of the dense peak (achieved_matmul.dense); the serial
    # estimate divides its compute by it, the bound keeps the peak; a format without a measurement is absent (1)
    achieved_matmul: dict[str, float] = field(default_factory=dict)
    # e_g per compute format: the share of the HBM bandwidth a GEMM with few rows (a short prompt) is measured to stream
    # its weights at (achieved_bandwidth.small_gemm); the serial prefill reads its weights at e_w e_g W, the bound at W;
    # a format without a measurement is absent (1)
    achieved_bandwidth: dict[str, float] = field(default_factory=dict)
    measured_method: str = ""
    notes: str = ""
    file: str = ""
    memory_reserve: float = 0.0  # fraction of the memory the serving engine keeps (the report spec's engine block)
    memory_reserve_bytes: float = 0.0  # B per GPU the engine keeps, where the spec writes the reserve as a size
    kernels: Kernels = field(default_factory=Kernels)  # the engine's fixed costs per kernel (engine block, vendor's)
    workspace: float = 0.0  # B per GPU: one engine step's activations at the report's layout (activation_workspace)
    max_batched_tokens: int = 0  # T_w: the tokens of the step the workspace is sized for (engine.max_batched_tokens)
    max_sequences: int = 0  # n_sq: the sampled positions of that step, the logits' rows (engine.max_sequences)
    noun: str = "GPU"  # what the report calls one device ("GPU", "chip"); its plural adds "s" (hardware spec's noun)

    @property
    def Noun(self) -> str:
        """:attr:`noun` at the start of a sentence or a table's heading ("GPU", "Chip")."""
        return self.noun[:1].upper() + self.noun[1:]

    @property
    def graph(self) -> str:
        """What the vendor's stack calls a captured sequence of kernels replayed at once: "CUDA graph" (NVIDIA),
        "HIP graph" (AMD ROCm, hipGraph), "HPU graph" (Intel Gaudi, Habana's HPU Graphs), "compiled XLA graph" (Google
        TPU: PyTorch/XLA and JAX compile the traced step)."""
        return GRAPHS.get(self.vendor, "CUDA graph")

    @property
    def kept(self) -> float:
        """Memory one GPU keeps beside the engine's reserve [B]: the capacity less its fraction (vLLM's
        gpu_memory_utilization) or its size (engine.memory_reserve: '6 GiB'), before the activation workspace."""
        return self.capacity * (1.0 - self.memory_reserve) - self.memory_reserve_bytes

    @property
    def usable(self) -> float:
        """Memory the model may use on one GPU [B]: the capacity less the engine's reserve and activation workspace."""
        return self.kept - self.workspace

    def source_of(self, path: str) -> Source:
        for key in (path, path.rsplit(".", 1)[0], path.split(".", 1)[0]):
            if key in self.sources:
                return self.sources[key]
        return self.source


@dataclass(frozen=True)
class MoE:
    experts: int
    active_experts: int
    expert_ffn_size: int
    shared_experts: int = 0
    first_dense_layers: int = 0
    layer_step: int = 1  # MoE on every layer_step-th layer after the leading dense ones (Llama 4: 1 or 2)
    shared_expert_ffn_size: int = 0  # width of one shared expert; 0: expert_ffn_size


@dataclass(frozen=True)
class Attention:
    kind: str  # mha, gqa, mqa, mla
    kv_lora_rank: int = 0
    q_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    qk_nope_head_dim: int = 0
    v_head_dim: int = 0
    sliding_window: int = 0
    local_layers_per_global: int = 0  # local (windowed or chunked) layers per global layer
    chunk_size: int = 0  # chunked attention (Llama 4): a local layer attends within its own chunk of this many tokens
    sinks: bool = False  # one learned sink logit per query head and layer (gpt-oss)
    qk_norm: bool = False  # per-head RMSNorm weights on queries and keys, 2 d_h a layer (Qwen3, Gemma 3)


@dataclass(frozen=True)
class Model:
    name: str
    title: str
    family: str
    layers: int
    hidden_size: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn_size: int
    ffn_kind: str
    vocab_size: int
    tied_embeddings: bool
    norm: str
    qkv_bias: bool
    declared_parameters: float | None
    declared_active: float | None
    moe: MoE | None
    attention: Attention
    source: Source
    max_context: int | None = None
    notes: str = ""
    file: str = ""
    given: tuple[str, ...] = ()  # optional shape keys written in the spec ('head_dim', 'attention.kind'), not derived
    norms_per_layer: int = 2  # norm vectors a layer: 2 (before attention and FFN), 4 in Gemma 2/3 (post-norms too)
    o_bias: bool = False  # a bias on the attention output projection (gpt-oss)
    ffn_bias: bool = False  # biases on every FFN matrix (dense, experts) and the router (gpt-oss, Llama mlp_bias)
    checkpoint_weights: tuple[tuple[str, str], ...] = ()  # (class, format) of the published checkpoint, if given


def format_bytes(fmt: str, group_size: int | None = None) -> float:
    """Bytes per weight of one format: block scales included, one fp16 scale per group for integer formats."""
    base = WEIGHT_FORMAT_BYTES[fmt]
    if group_size and fmt in INTEGER_FORMATS:
        base += 2.0 / group_size
    return base


@dataclass(frozen=True)
class Precision:
    weights: str  # the one weight format; with `classes`, a label of the formats ('mxfp4+bf16')
    kv_cache: str
    compute: str
    group_size: int | None = None
    classes: tuple[tuple[str, str], ...] = ()  # (class, format) of WEIGHT_CLASSES when weights differ by class
    held_bytes: float | None = None  # with `classes`: the model's mean bytes per weight held (set by the loader)
    native: bool = False  # weights of NATIVE_FP4 with no compute given: fp4 where the GPU has it (on_hardware)
    # per-class weights with no compute given: each class's GEMMs run in its own format's compute where the GPU has
    # that peak (class_compute), the attention's scores and values in ``compute`` (the default class's)
    own_compute: bool = False

    def format_of(self, cls: str) -> str:
        return dict(self.classes).get(cls, self.weights) if self.classes else self.weights

    def class_compute(self, cls: str, dense) -> str:
        """The format tensor class ``cls``'s GEMMs run in on a GPU of ``dense`` peaks: with per-class weights and no
        compute given, the faster of ``compute`` (the activations', which a weight-only kernel multiplies in) and the
        class's own format's (NVFP4/MXFP4 in fp4 where the GPU has an fp4 peak, fp8 and fp8_block in fp8, int8/int4
        in WEIGHT_COMPUTE's bf16) where the GPU has that peak; ``compute`` otherwise.  The strict bound needs it:
        gpt-oss's MXFP4 experts on a B200 multiply at 9 PFLOP/s, not bf16's 2.25; fp8 experts on an H100 at fp8's."""
        if not self.own_compute:
            return self.compute
        f = self.format_of(cls)
        own = "fp4" if f in NATIVE_FP4 and "fp4" in dense else WEIGHT_COMPUTE.get(f, f)
        return own if own in dense and dense[own] > dense.get(self.compute, 0.0) else self.compute

    def class_bytes(self, cls: str) -> float:
        return format_bytes(self.format_of(cls), self.group_size)

    @property
    def uniform(self) -> bool:
        return len({self.format_of(c) for c in WEIGHT_CLASSES}) == 1

    @property
    def weight_bytes(self) -> float:
        """Bytes per weight: of the one format, or the parameter-weighted mean the model holds (per class)."""
        if self.classes and self.held_bytes is not None:
            return self.held_bytes
        return format_bytes(self.format_of("default"), self.group_size)

    @property
    def kv_bytes(self) -> float:
        return PRECISION_BYTES[self.kv_cache]

    def weights_label(self) -> str:
        """'experts mxfp4, rest bf16' for per-class weights; the format otherwise."""
        if not self.classes:
            return self.weights
        rest = self.format_of("default")
        bits = [f"{c} {self.format_of(c)}" for c in WEIGHT_CLASSES[:-1] if self.format_of(c) != rest]
        return ", ".join(bits + [f"rest {rest}"]) if bits else rest

    def label(self, dense=None) -> str:
        """'bf16', or 'weights ..., KV ..., compute ...'; with classes computing apart (class_compute) on a GPU of
        ``dense`` peaks (any GPU where None) 'compute per class'."""
        if self.weights == self.kv_cache == self.compute and not self.classes:
            return self.weights
        # an integer format's scales: a group's fp16 scale counted where the spec gives the group, none without it
        # (0.5 B an int4 weight, seed 003's), said so beside page 1's "int4 (group 128)" lever (reviews, stops 91-92)
        g = (f" (group {self.group_size})" if self.group_size
             else " (no group scales)" if self.weights in INTEGER_FORMATS and not self.classes else "")
        apart = self.own_compute and (dense is None or any(self.class_compute(c, dense) != self.compute
                                                           for c in WEIGHT_CLASSES))
        compute = "per class" if apart else self.compute
        return f"weights {self.weights_label()}{g}, KV {self.kv_cache}, compute {compute}"


@dataclass(frozen=True)
class Measurement:
    workload: str  # decode / prefill
    source: Source
    tokens_per_s: float | None = None
    step_time: float | None = None
    achieved_flops: float | None = None
    achieved_bandwidth: float | None = None
    utilization: float | None = None
    batch: int | None = None
    context: int | None = None
    prompt: int | None = None
    path: str = ""  # e.g. 'workloads.decode.measured[0]'
    line: int = 1  # where the measurement starts in the report spec file
    col: int = 1


@dataclass(frozen=True)
class Workloads:
    decode_batch: tuple[int, ...] = ()
    decode_context: tuple[int, ...] = ()
    activation_bytes: float = 0.0
    prefill_prompt: tuple[int, ...] = ()
    training_tokens: int | None = None
    optimizer: str = "adamw"
    recipes: tuple[str, ...] = ()
    measured: tuple[Measurement, ...] = ()


@dataclass(frozen=True)
class Efficiency:
    bandwidth: float
    compute: float
    source: Source


def layout_words(tp: int, pp: int = 1, ep: int = 1, dp: int = 1, redundant: int = 0) -> str:
    """A layout's degrees as the reports write them: the GPUs' product, tp and the pipeline and data-parallel degrees
    above 1 joined by ×, then the expert-parallel degree with "with" (its GPUs are the tp x dp group's, not more of
    them) and its redundant replicas: "tp 2 × dp 4 with ep 8", "tp 8 × pp 2 with ep 8".  "ep 8 × dp 8" read as 64
    GPUs where there are 8 (QA, stop 81).

    >>> layout_words(1, 1, 8, 8), layout_words(2, 1, 72, 36, 32), layout_words(8, 2)
    ('tp 1 × dp 8 with ep 8', 'tp 2 × dp 36 with ep 72 (32 redundant experts)', 'tp 8 × pp 2')
    """
    core = " × ".join([f"tp {tp}"] + [f"{k} {v}" for k, v in (("pp", pp), ("dp", dp)) if v > 1])
    if ep > 1:
        core += f" with ep {ep}" + (f" ({redundant} redundant experts)" if redundant else "")
    return core


@dataclass(frozen=True)
class Parallelism:
    """Degrees of parallelism; gpus = tp pp dp, the experts split over ep GPUs of the tp x dp group."""

    tp: int = 1
    pp: int = 1
    ep: int = 1
    dp: int = 1
    redundant_experts: int = 0  # replicas of routed experts beyond the E (engine.redundant_experts; EPLB)

    @property
    def redundant_per_gpu(self) -> float:
        """Redundant expert replicas each expert-parallel GPU holds, r / ep [1]."""
        return self.redundant_experts / self.ep

    @property
    def redundant_spread(self) -> tuple[int, int]:
        """(fewest, most) replica slots one GPU of the expert group holds: floor(r / ep) and ceil(r / ep), equal where
        ep divides the replicas (32 over 72 GPUs: 0 or 1)."""
        return self.redundant_experts // self.ep, -(-self.redundant_experts // self.ep)

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp

    @property
    def replica_gpus(self) -> int:
        """GPUs holding one copy of the model: tp x pp."""
        return self.tp * self.pp

    def words(self) -> str:
        """The layout in a sentence's words (:func:`layout_words`): "tp 2 × dp 4 with ep 8"."""
        return layout_words(self.tp, self.pp, self.ep, self.dp, self.redundant_experts)

    def label(self) -> str:
        """"tp2 ep72+32 dp36": the degrees above 1, the expert group's redundant replicas after its degree."""
        ep = f"{self.ep}+{self.redundant_experts}" if self.redundant_experts else self.ep
        bits = [f"{k}{v}" for k, v in (("tp", self.tp), ("pp", self.pp), ("ep", ep), ("dp", self.dp)) if v != 1]
        return " ".join(bits) or "1 GPU"


@dataclass(frozen=True)
class Serving:
    """A service (the report spec's ``serving`` block): a request shape, its targets, the concurrency."""

    prompt: int  # tokens of one request's prompt
    output: int  # tokens one request generates
    ttft: float | None = None  # s, longest time to first token allowed
    tpot: float | None = None  # s, longest time per output token allowed
    users: int | None = None  # concurrent requests
    price: float | None = None  # USD per GPU-hour, overriding the GPU file's
    chunk: int = 8192  # chunked prefill: tokens per step (vLLM's max_num_batched_tokens: engine.max_batched_tokens's)
    rate: float | None = None  # requests per second at one replica
    prefix_hit: float = 0.0  # part of each prompt already cached
    speculative: Speculative | None = None
    prompt_spread: str = "none"  # the prompts' lengths around `prompt` (techniques.PROMPT_SPREADS): none, sharegpt
    # the spec's speculative block left out for a one-token request (no decode round to speculate): the live page
    # keeps it, so that a what-if to more output tokens speculates as a build of that spec does
    speculative_left_out: Speculative | None = None

    @property
    def declared_speculative(self) -> Speculative | None:
        """The spec's speculative block, used or left out (the live page's: a what-if may ask for more tokens)."""
        return self.speculative or self.speculative_left_out


@dataclass(frozen=True)
class Speculative:
    """Speculative decoding (serving.speculative): k draft tokens verified per step, each accepted with p."""

    draft_tokens: int
    acceptance: float
    draft_cost: float = 0.05  # the drafts' time over one plain decode step (an MTP head or a small draft model)
    source: Source | None = None
    verify_tokens: int | None = None  # tokens of each sequence one verify step runs (a tree's nodes); None: a chain
    accepted_length: float | None = None  # tau as the spec wrote it (None: not given)
    acceptance_given: bool = True  # whether the spec wrote the acceptance (False: derived from accepted_length)
    draft_model: str | None = None  # the catalog name of a draft model (serving.speculative.draft_model); None: draft_cost
    draft: Model | None = None  # that draft model, loaded (its k_d passes give t_d: formulas/techniques.draft_time_bound)
    draft_precision: Precision | None = None  # the draft's precision (serving.speculative.draft_precision; None: the target's)
    draft_layers: int | None = None  # an EAGLE / MTP head: N decoder layers shaped as the target's, its head shared

    @property
    def verified(self) -> int:
        """n_v: the tokens of each sequence one verify step runs through the target, draft_tokens + 1 for a chain."""
        return self.verify_tokens if self.verify_tokens is not None else self.draft_tokens + 1


@dataclass(frozen=True)
class ReportSpec:
    name: str
    title: str
    hardware: Hardware
    model: Model
    precision: Precision
    workloads: Workloads
    gemms: tuple[tuple[str, int, int], ...]
    compare_hardware: tuple[Hardware, ...] = ()
    compare_models: tuple[Model, ...] = ()
    efficiency: Efficiency | None = None
    accounting: str = "seed"
    seed: str | None = None
    notes: str = ""
    file: str = ""
    digest: str = ""  # sha256 of the spec files, for reproducibility
    overrides: tuple[str, ...] = ()  # the --set texts of a what-if, in order; () for the spec as written
    # the --set texts that change the spec's GPU, model, precision or layout (what its measurements ran on and its
    # seed's text is about): a what-if of another configuration
    configuration_changed: tuple[str, ...] = ()
    # of those, what its measurements ran on: a what-if's report does not compare them with its bound (() where it
    # sets measurements of its own)
    measured_elsewhere: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    parallelism: Parallelism | None = None  # None: no 'parallelism' block, the single-card report
    engine_reserve_given: bool = False  # engine.memory_reserve written in the spec (else the default)
    serving: Serving | None = None  # the spec's serving block (None without one)
    engine_given: tuple[str, ...] = ()  # the engine block's keys written in the spec (the others are defaults)
    precision_spec: object = None  # 'precision' as written (a format, or weights / kv_cache / compute / group_size)


# Weights stored in fp8 on an NVIDIA GPU without an fp8 peak (A100, A10, the Turing cards) run weight-only: each GEMM
# streams the fp8 weights and multiplies in bf16 after dequantizing them (W8A16). vLLM runs FP8 checkpoints so on
# Turing and Ampere with its FP8 Marlin kernel (vLLM docs, "FP8 W8A8": "FP8 models will run on compute capability >=
# 7.5 (Turing) as weight-only W8A16, utilizing FP8 Marlin"; vllm-project/vllm#5975 brought it to Ampere), so plan
# lists those layouts rather than skip the format: the bound streams 1 B a weight and computes at the bf16 peak.
# Another vendor's chip without fp8 (a TPU v5p, AMD's MI250) has no such kernel in a source gathered: skipped there.
WEIGHT_ONLY_FP8 = ("fp8", "fp8_block")
WEIGHT_ONLY_FP8_SOURCE = ("weight-only (W8A16), as vLLM runs FP8 checkpoints with its FP8 Marlin kernel where a GPU "
                          "has no fp8 tensor cores")


def weight_only_fp8(precision: Precision, hw: Hardware) -> Precision | None:
    """``precision`` with its fp8 weights computed in bf16, where an NVIDIA GPU ``hw`` has no fp8 peak but a bf16
    one (W8A16: WEIGHT_ONLY_FP8); None for any other format or device."""
    dense = hw.dense
    if precision.compute not in WEIGHT_ONLY_FP8 or precision.compute in dense or "bf16" not in dense \
            or hw.vendor != "NVIDIA":
        return None
    return dataclasses.replace(precision, compute="bf16", own_compute=False)


def weight_only_hint(precision: Precision, hw: Hardware) -> str:
    """What the loader adds to "has no dense fp8 peak" where fp8 weights could run weight-only on ``hw`` (the page's
    whatif.js says the same)."""
    if precision.weights != "fp8" or weight_only_fp8(precision, hw) is None:
        return ""
    return ("; or multiply the fp8 weights in bf16 (weight-only, W8A16, as vLLM's FP8 Marlin kernel runs them on this "
            "GPU): precision: {weights: fp8, compute: bf16}")


def on_hardware(precision: Precision, dense) -> Precision:
    """``precision`` as it runs on a GPU of ``dense`` peaks: weights of NATIVE_FP4 with no compute format given are
    computed in fp4 where the GPU has an fp4 peak, else in bf16 (dequantized: WEIGHT_COMPUTE); any other as it is."""
    if not precision.native:
        return precision
    compute = "fp4" if "fp4" in dense else WEIGHT_COMPUTE[precision.weights]
    return precision if compute == precision.compute else dataclasses.replace(precision, compute=compute)
