"""Loaded specs as plain frozen data, everything in SI units.  No algorithms here."""

from __future__ import annotations

from dataclasses import dataclass, field

# vLLM's EngineArgs: gpu_memory_utilization defaults to 0.9 (docs.vllm.ai, engine arguments): 10% of each GPU is
# left to activations, CUDA graphs and communication buffers; SGLang's mem_fraction_static is of the same order.
DEFAULT_MEMORY_RESERVE = 0.1
MEMORY_RESERVE_SOURCE = "vLLM engine arguments: gpu_memory_utilization defaults to 0.9"

# The kernels' fixed costs of the serial estimate (formulas.parallel.decode_time_overhead): what an engine pays per
# kernel beside its bytes and FLOPs.  A kernel launched on its own costs the host about 4-6 us (pegainfer (3), "From
# Launch Overhead to CUDA Graph", susun-blog.com/blog/pegainfer-3-cuda-graph); inside a CUDA graph replay the
# per-kernel cost falls to about 0.5 us (NVIDIA Technical Blog, "Getting Started with CUDA Graphs", A. Gray 2019:
# 2.9 us kernels take 3.8 us each launched from a stream, 3.4 us each replayed from a graph).  vLLM's Llama decoder
# layer launches 10 kernels besides its collectives (vllm/model_executor/models/llama.py: fused-add RMSNorm, QKV GEMM,
# rotary embedding, KV-cache write, attention, O GEMM, fused-add RMSNorm, gate-up GEMM, SiLU-and-mul, down GEMM).
# vLLM, SGLang and TensorRT-LLM capture decode in CUDA graphs by default and launch prefill kernel by kernel.
DEFAULT_KERNEL_LAUNCH = 5e-6
DEFAULT_GRAPH_KERNEL = 0.5e-6
DEFAULT_KERNELS_PER_LAYER = 10
# vLLM's, SGLang's and TensorRT-LLM's one-shot (custom) all-reduce kernels take 5.7-7.8 us for 0.5-32 KiB on
# 8 x H100 (the measurements gathered in issue 27): a fixed 5.7 us and the n-1 peers' bytes at the bus bandwidth.
DEFAULT_ONE_SHOT_LATENCY = 5.7e-6
ONE_SHOT_SOURCE = ("vLLM, SGLang and TensorRT-LLM one-shot all-reduce kernels: 5.7-7.8 us for 0.5-32 KiB on 8 x H100 "
                   "(measurements gathered in issue 27)")
KERNELS_SOURCE = ("launch about 4-6 us per kernel (pegainfer (3), From Launch Overhead to CUDA Graph); 0.5 us per "
                  "kernel in a CUDA graph replay (NVIDIA, Getting Started with CUDA Graphs: 3.8 against 3.4 us per "
                  "2.9 us kernel); 10 kernels per layer (vLLM's Llama decoder layer); vLLM, SGLang and TensorRT-LLM "
                  "capture decode in CUDA graphs by default")

PRECISION_BYTES = {
    "fp32": 4.0, "tf32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "fp6": 0.75, "fp4": 0.5, "int8": 1.0, "int4": 0.5,
}
INTEGER_FORMATS = ("int8", "int4")


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

    @property
    def decode(self) -> float:
        """tau_k [s]: the per-kernel cost of a decode step (graph replay, or launch without graphs)."""
        return self.graph if self.cuda_graphs else self.launch


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

    def rate(self, n: int) -> float:
        """Per-direction rate one GPU of a group of ``n`` gets: all its links on a switch, n-1 peer links on a mesh."""
        if self.topology == "mesh" and self.link_bandwidth_per_direction and n > 1:
            return min(self.bandwidth_per_direction, (n - 1) * self.link_bandwidth_per_direction)
        return self.bandwidth_per_direction

    def bus_rate(self, n: int) -> float | None:
        """The library's bus bandwidth for a group of ``n``: on a mesh, the share of the links the group uses."""
        if self.bus_bandwidth is None:
            return None
        return self.bus_bandwidth * self.rate(n) / self.bandwidth_per_direction


@dataclass(frozen=True)
class Collectives:
    """The collectives library's own costs (its tuning model), for the estimate."""

    library: str
    call_latency: float  # s, fixed cost of one call
    in_network_call_latency: float | None  # s, one all-reduce with the reduction in the switch
    source: Source


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
    price_per_hour: float | None = None
    measured_bandwidth: float | None = None
    measured_peaks: dict[str, float] = field(default_factory=dict)
    measured_method: str = ""
    notes: str = ""
    file: str = ""
    memory_reserve: float = 0.0  # fraction of the memory the serving engine keeps (the report spec's engine block)
    kernels: Kernels = field(default_factory=Kernels)  # the engine's fixed costs per kernel (the engine block)

    @property
    def usable(self) -> float:
        """Memory the model may use on one GPU [B]: the capacity less the engine's reserve."""
        return self.capacity * (1.0 - self.memory_reserve)

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


@dataclass(frozen=True)
class Precision:
    weights: str
    kv_cache: str
    compute: str
    group_size: int | None = None

    @property
    def weight_bytes(self) -> float:
        """Bytes per weight, with one fp16 scale per group for integer formats."""
        base = PRECISION_BYTES[self.weights]
        if self.group_size and self.weights in INTEGER_FORMATS:
            base += 2.0 / self.group_size
        return base

    @property
    def kv_bytes(self) -> float:
        return PRECISION_BYTES[self.kv_cache]

    def label(self) -> str:
        if self.weights == self.kv_cache == self.compute:
            return self.weights
        g = f" (group {self.group_size})" if self.group_size else ""
        return f"weights {self.weights}{g}, KV {self.kv_cache}, compute {self.compute}"


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


@dataclass(frozen=True)
class Parallelism:
    """Degrees of parallelism; gpus = tp pp dp, the experts split over ep GPUs of the tp x dp group."""

    tp: int = 1
    pp: int = 1
    ep: int = 1
    dp: int = 1

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp

    @property
    def replica_gpus(self) -> int:
        """GPUs holding one copy of the model: tp x pp."""
        return self.tp * self.pp

    def label(self) -> str:
        bits = [f"{k}{v}" for k, v in (("tp", self.tp), ("pp", self.pp), ("ep", self.ep), ("dp", self.dp)) if v > 1]
        return " ".join(bits) or "1 GPU"


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
    warnings: tuple[str, ...] = ()
    parallelism: Parallelism | None = None  # None: no 'parallelism' block, the single-card report
    engine_reserve_given: bool = False  # engine.memory_reserve written in the spec (else the default)
    engine_given: tuple[str, ...] = ()  # the engine block's keys written in the spec (the others are defaults)
    precision_spec: object = None  # 'precision' as written (a format, or weights / kv_cache / compute / group_size)
