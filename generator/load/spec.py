"""Loaded specs as plain frozen data, everything in SI units.  No algorithms here."""

from __future__ import annotations

from dataclasses import dataclass, field

PRECISION_BYTES = {
    "fp32": 4.0, "tf32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "fp6": 0.75, "fp4": 0.5, "int8": 1.0, "int4": 0.5,
}
INTEGER_FORMATS = ("int8", "int4")


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
    architecture: dict[str, float] = field(default_factory=dict)
    price_per_hour: float | None = None
    measured_bandwidth: float | None = None
    measured_peaks: dict[str, float] = field(default_factory=dict)
    measured_method: str = ""
    notes: str = ""
    file: str = ""

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


@dataclass(frozen=True)
class Attention:
    kind: str  # mha, gqa, mqa, mla
    kv_lora_rank: int = 0
    q_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    qk_nope_head_dim: int = 0
    v_head_dim: int = 0
    sliding_window: int = 0
    local_layers_per_global: int = 0


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
    precision_spec: object = None  # 'precision' as written (a format, or weights / kv_cache / compute / group_size)
