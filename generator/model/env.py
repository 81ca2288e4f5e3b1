"""The inputs of the formulas at one point: a GPU, a model, a precision, an accounting and a layout.

``make_env`` gives the glossary symbols' values for one GPU of the layout (one card is the layout
1 x 1 x 1 x 1): the seeds' symbols hold that GPU's slice of the model (:mod:`genreport.formulas.layout`),
so every single-card formula evaluated on it states the layout's number.  ``Env.at`` moves the inputs to a
workload point: the context (windowed layers), the batch (the experts an MoE batch touches; the weight slice
streamed once per pipeline micro-batch).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from genreport.formulas import architecture as arch
from genreport.load.spec import WEIGHT_CLASSES, Hardware, Model, Parallelism, Precision
from genreport.model.stages import at_share, stage_values, time_share, usable_at  # noqa: F401 - usable_at re-exported

ONE_CARD = Parallelism()

# The seeds' symbols whose value is a GPU's share (formulas.layout.slice_inputs), and by what they are divided.
_BY_SHARE = ("N_a", "N_e", "N_p", "V", "a")


@dataclass(frozen=True)
class Slice:
    """How one GPU's share of the model follows from the layout (numbers of formulas.layout.slice_inputs)."""

    tp: int = 1
    pp: int = 1
    ep: int = 1
    s_kv: float = 1.0  # ways one layer's KV cache is split over the tp GPUs: min(tp, H_kv); 1 for MLA
    split: float = 1.0  # n_PP: L over the busiest stage's ceil(L / pp) layers (pp when it divides L)
    redundant: int = 0  # redundant expert replicas r (engine.redundant_experts), held r/ep to a GPU
    experts: int = 0  # the model's routed experts E (0 for a dense model)
    copies: float = 0.0  # N_R: the parameters tp holds whole on each GPU beyond one copy (ParameterCount.tp_copies)
    copies_bytes: float = 0.0  # their bytes, each tensor class in its format (0 where the precision is uniform)

    @property
    def share(self) -> float:
        return self.tp * self.split

    @property
    def expert_keep(self) -> float:
        """1 - n_TP / max(n_TP, n_EP): the part of the routed experts a GPU does not hold beyond the tp split."""
        return 1.0 - self.tp / max(self.tp, self.ep)

    @property
    def rho(self) -> float:
        """rho_x [1]: redundant replicas per routed expert, r/E."""
        return self.redundant / self.experts if self.experts else 0.0

    @property
    def expert_held(self) -> float:
        """1 - (1 + rho_x) n_TP / max(n_TP, n_EP): :attr:`expert_keep` for the experts a GPU holds, replicas and all."""
        return 1.0 - (1.0 + self.rho) * self.tp / max(self.tp, self.ep)

    @property
    def trivial(self) -> bool:
        return self.tp == self.pp == self.ep == 1


def layout_slice(model: Model, layout: Parallelism | None, precision=None) -> Slice:
    """One GPU's share of ``model`` at ``layout``; ``precision``: the copies' bytes where it differs by tensor class."""
    par = layout or ONE_CARD
    s_kv = 1.0 if model.attention.kind == "mla" else float(min(par.tp, model.kv_heads))
    copies = copies_bytes = 0.0
    if par.tp > 1:
        pc = arch.parameter_count(model)
        copies = pc.tp_copies(par.tp, s_kv)
        if precision is not None and not precision.uniform:
            copies_bytes = pc.tp_copies(par.tp, s_kv, precision.class_bytes("attention"),
                                        precision.class_bytes("default"))
    return Slice(par.tp, par.pp, par.ep, s_kv, pipeline_split(model.layers, par.pp), par.redundant_experts,
                 model.moe.experts if model.moe else 0, copies, copies_bytes)


def pipeline_split(layers: int, pp: int) -> float:
    """n_PP [1]: L / ceil(L / pp), the layers over the busiest stage's.  Stages of ceil(L/pp) and floor(L/pp) layers
    (61 layers over 2 stages: 31 and 30); the busiest sets each GPU's memory and time.  pp when it divides L."""
    return float(pp) if layers % pp == 0 else layers / math.ceil(layers / pp)


@dataclass(frozen=True)
class WeightBytes:
    """Bytes per weight of one precision on one model, by tensor class: the routed experts (b_x), the mean over
    every other weight (attention, embeddings and head, dense FFN, shared experts, router, norms: weighted by their
    parameters), and the input embedding's (the weights N_e stands for).  ``uniform``: the one value when every
    class has the same format (then b is that value exactly, as before per-class precisions)."""

    experts: float
    rest: float
    embedding: float
    uniform: float | None

    def mean(self, n_rest, n_x, n_skip=0.0, copies=0.0, copies_bytes=0.0):
        """b: the mean bytes per weight of n_rest non-expert and n_x routed-expert weights, less n_skip input
        embedding weights counted in n_rest but not read (N_e), and ``copies`` weights of ``copies_bytes`` bytes in
        all that tensor parallelism holds whole on each GPU beyond one copy (N_R, :attr:`Slice.copies_bytes`)."""
        if self.uniform is not None:
            return self.uniform
        return ((n_rest * self.rest + n_x * self.experts - n_skip * self.embedding + copies_bytes)
                / (n_rest + n_x - n_skip + copies))


def class_parameters(pc: arch.ParameterCount) -> dict[str, int]:
    """Parameters of each weight class (precision.weights' experts, attention, embeddings, default): the routed
    experts' matrices; their biases, which checkpoints keep in 16 bits, with the default class's (gpt-oss)."""
    return {"experts": pc.experts_routed - pc.experts_bias, "attention": pc.attention,
            "embeddings": pc.embedding + pc.lm_head,
            "default": pc.ffn_dense + pc.experts_shared + pc.router + pc.norms + pc.experts_bias}


def weight_bytes_of(precision: Precision, pc: arch.ParameterCount) -> WeightBytes:
    """The tensor classes' bytes per weight (:class:`WeightBytes`) of ``precision`` on a model of ``pc``."""
    if precision.uniform:
        b = precision.class_bytes("default")
        return WeightBytes(b, b, b, b)
    b_e, b_t, b_d = (precision.class_bytes(c) for c in ("embeddings", "attention", "default"))
    rest = (pc.embedding + pc.lm_head, pc.attention, pc.ffn_dense + pc.experts_shared + pc.router + pc.norms)
    n_rest = sum(rest)
    mean = (rest[0] * b_e + rest[1] * b_t + rest[2] * b_d) / n_rest if n_rest else b_d
    b_x = precision.class_bytes("experts")
    if pc.experts_bias and pc.experts_routed:  # the experts' biases stay in the default class's format (gpt-oss: bf16
        # beside its mxfp4 matrices), not the matrices' 4.25 bits: 58 MB of gpt-oss-120b's 65.2 GB were missing
        b_x = ((pc.experts_routed - pc.experts_bias) * b_x + pc.experts_bias * b_d) / pc.experts_routed
    return WeightBytes(b_x, mean, b_e, None)


def weight_efficiency(precision: Precision, pc: arch.ParameterCount, kernels) -> float:
    """e_w [1]: the share of a bf16 GEMM's HBM bandwidth the engine's GEMMs reach on the weights (spec.WEIGHT_ONLY_
    EFFICIENCY; ``kernels``: the engine's Kernels).  One format: its share (1 unless weight-only int8/int4).  Per-class
    formats: the held bytes over the time to stream them, sum(bytes) / sum(bytes_c / e_c) over the tensor classes."""
    eff = kernels.weight_only_efficiency
    if precision.uniform:
        return eff(precision.format_of("default"), precision.compute)
    held = [(float(n) * precision.class_bytes(c), eff(precision.format_of(c), precision.compute))
            for c, n in class_parameters(pc).items()]
    total = sum(q for q, _ in held)
    return total / sum(q / e for q, e in held) if total else 1.0


def class_flops(pc: arch.ParameterCount, model: Model) -> dict[str, float]:
    """The weights a token multiplies by in each tensor class [1] (its GEMMs' share of 2 N_a per token): the routed
    experts it is sent to, the attention projections, the output head (tied: the embedding table, V d) and the rest
    (dense FFN, shared experts, router).  The input embedding is a lookup; norms and biases add no GEMM."""
    routed = pc.active_routed * (1.0 - pc.experts_bias / pc.experts_routed) if pc.experts_routed else 0.0
    return {"experts": float(routed), "attention": float(pc.attention),
            "embeddings": float(model.vocab_size * model.hidden_size),
            "default": float(pc.ffn_dense + pc.experts_shared + pc.router)}


CLASS_NAMES = {"experts": "routed experts", "attention": "attention", "embeddings": "output head", "default": "rest"}


def _and(words: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'; 'a and b, and c' where a word has an 'and' of its own."""
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + (", and " if any(" and " in w for w in words) else " and ") + words[-1]


@dataclass(frozen=True)
class Peak:
    """P and e_m of a precision on one GPU: the dense peak its GEMMs run at and a large matmul's measured share of it.

    One compute format: its datasheet peak and achieved_matmul share.  Per-class weights whose classes compute in
    different formats (Precision.class_compute: gpt-oss's MXFP4 experts in fp4 on a B200, the rest in bf16): the
    rate at which a token's weight FLOPs finish, P = sum F_c / sum (F_c / P_c) over the classes (F_c: class_flops),
    and e_m so that P e_m = sum F_c / sum (F_c / (P_c e_c)).  A decode token runs the output head, a prompt's tokens
    run it once (F_pre's 2 V d beside 2 N_p T): P is the faster of the two mixes (head F_c = V d or 0), so that no
    workload, whatever its share of head FLOPs, runs faster than P says.  The attention's scores and values, computed
    in the default class's format, are charged at that P too: never slower than theirs, so the bound stays a lower
    bound (found by a review: with the head in every mix an FP4 engine's 1k prefill beat it by 13%)."""

    value: float  # P [FLOP/s]
    matmul: float  # e_m [1]
    # where the classes compute in different formats, fastest first: (classes, format, its peak, share of F)
    parts: tuple[tuple[tuple[str, ...], str, float, float], ...] = ()
    prompt: bool = False  # the mix without the output head (a prompt's, which runs it once) was the faster

    @property
    def mixed(self) -> bool:
        return bool(self.parts)

    def names(self) -> list[tuple[str, str]]:
        """(what, format) of each part: 'routed experts', 'attention', 'routed experts and output head'; 'the rest'
        for the part holding the default class."""
        return [("the rest" if "default" in cls else _and([CLASS_NAMES[c] for c in cls]), f)
                for cls, f, _, _ in self.parts]

    def label(self, compute: str) -> str:
        """'a blend of fp4 for the routed experts and bf16 for the rest' where the classes compute apart (P is no one
        format's peak); ``compute`` otherwise."""
        if not self.parts:
            return compute
        return "a blend of " + _and([f"{f} for the {what.removeprefix('the ')}" for what, f in self.names()])


def peak_of(precision: Precision, hw: Hardware, model: Model, pc: arch.ParameterCount | None = None,
            measured: bool = False) -> Peak:
    """The :class:`Peak` of ``precision`` on ``hw`` for ``model``; ``measured``: of the peaks 'genreport calibrate'
    measured (Hardware.measured_peaks), the datasheet's where it measured none."""
    base = precision.compute
    e_of = lambda f: hw.achieved_matmul.get(f, 1.0)  # noqa: E731
    peak = (lambda f: hw.measured_peaks.get(f, hw.dense[f])) if measured else hw.dense.__getitem__
    forms = {c: precision.class_compute(c, hw.dense) for c in WEIGHT_CLASSES}
    if len(set(forms.values())) == 1 and forms["default"] == base:
        return Peak(peak(base), e_of(base))
    every = class_flops(pc or arch.parameter_count(model), model)
    best = None
    for head in (1.0, 0.0):  # a decode token runs the output head, a prompt's tokens run it once: the faster mix
        flops = {**every, "embeddings": every["embeddings"] * head}
        by_form: dict[str, float] = {}
        for c, f in forms.items():
            by_form[f] = by_form.get(f, 0.0) + flops[c]
        total = sum(by_form.values())  # (summed as the page's model.js peakOf sums it)
        ideal = sum(q / peak(f) for f, q in by_form.items())
        if best is None or total / ideal > best[0] / best[1]:
            best = (total, ideal, by_form, flops, head)
    total, ideal, by_form, flops, head = best
    real = sum(q / (peak(f) * e_of(f)) for f, q in by_form.items())
    parts = tuple((tuple(c for c in WEIGHT_CLASSES if forms[c] == f and flops[c]), f, peak(f), q / total)
                  for f, q in sorted(by_form.items(), key=lambda kv: (-peak(kv[0]), kv[0])) if q)
    return Peak(total / ideal, ideal / real, parts if len(parts) > 1 else (), head == 0.0)


def attention_peak(precision: Precision, hw: Hardware) -> float:
    """P_a [FLOP/s]: the dense peak the attention's scores and values run at in the serial estimate, the slower of
    the compute format's and the KV cache's format's (an fp4 cache read in fp8; an int8/int4 cache, or one the GPU
    has no peak for, dequantized to the compute format): engines run FlashAttention-style kernels in the cache's
    format or the activations', not at NVFP4's fp4 peak nor at per-class weights' blend (a review: gpt-oss on 4 GB200,
    an 8k prefill's attention charged at 6.1 PFLOP/s where it runs at bf16's 2.5)."""
    kv = "fp8" if precision.kv_cache == "fp4" else precision.kv_cache
    kv = kv if kv in hw.dense and kv not in ("int8", "int4") else precision.compute
    return min(hw.dense[precision.compute], hw.dense[kv])


def held_weight_bytes(precision: Precision, model: Model) -> float:
    """The mean bytes per weight the whole model holds (Precision.held_bytes): all its parameters, by class."""
    pc = arch.parameter_count(model)
    wb = weight_bytes_of(precision, pc)
    return float(wb.mean(float(pc.total - pc.experts_routed), float(pc.experts_routed)))


# A decode step's quantities taken at a context without a batch: the intensity ceiling (a step's FLOPs over its
# bytes as the batch grows), the batch that crosses the ridge, and the batch where a layout's collectives meet its HBM
# reads.  Their c is the cache a step reads (a chunked layer: the S mod chunk tokens of its current chunk), as the
# decode grid's at a batch; the capacities' is the cache a sequence holds (Env.at's reads).
READ_AT_CONTEXT = frozenset({"decode_intensity_ceiling", "crossover_batch", "comm_hbm_crossover_batch"})


@dataclass
class Env:
    """Scalar inputs of one accounting at one GPU of a layout (glossary symbol -> SI value), and how to vary them.

    ``values`` hold the GPU's slice; ``card`` the whole model's values (the layout 1 x 1 x 1 x 1).
    """

    values: dict[str, float]
    model: Model
    accounting: str
    pc: arch.ParameterCount
    card: dict[str, float] | None = None
    layout: Parallelism = ONE_CARD
    cut: Slice = Slice()
    wb: WeightBytes | None = None  # bytes per weight by tensor class (None: b as given)
    hw: Hardware | None = None  # the GPU, for the memory each pipeline stage may use (:meth:`held`)
    precision: Precision | None = None
    # f_B: the busiest stage's share of global layers, which one GPU of a layout's time takes (stages.time_share; None: G / L)
    share: float | None = None
    # m_b at (batch, context): the micro-batches of the layout's bound at that point (layout.SliceSchedule, set by
    # layout.report_env on a pipeline); None: vLLM's min(pp, B)
    schedule: object = None

    def one_card(self) -> Env:
        """The same inputs on one card holding the whole model."""
        if self.cut.trivial:
            return self
        return Env(dict(self.card), self.model, self.accounting, self.pc, wb=self.wb, hw=self.hw,
                   precision=self.precision)

    def held(self, context=None, stage: int | None = None) -> dict[str, object]:
        """The inputs of the memory this GPU holds (the capacity, the weights' bytes): :meth:`at` at ``context``
        (no batch: the cache a sequence holds), and with pipeline stages N and c those of the stage that holds the
        fewest tokens (genreport.model.stages: N and c over n_PW and n_PK, not the even split n_PP the time formulas
        take) and C the memory its GPU may use; of ``stage`` where given (the last, where an EAGLE/MTP head beside it
        binds: draft.replica_binding)."""
        env = self.at(context=context)
        cut = self.cut
        if cut.pp <= 1 or self.hw is None:
            return env
        at = None if context is None or not arch.bounded_layers(self.model) else context
        if stage is None:
            st = stage_values(self.hw, self.model, self.precision, self.layout, at)
        else:
            from genreport.model.stages import ledger

            par = self.layout
            st = ledger(self.hw, self.model, self.precision, par.tp, par.pp, par.ep, par.redundant_experts).stage(
                stage, None if at is None else float(np.ravel(at)[0]))
        card = self.card if self.card is not None else self.values
        # the slice's N leaves the head to the last stage (stage_head); n_PW divides the whole model's
        env["N"] = (env["N"] + stage_head(card, cut) / cut.share) * cut.split / st["n_PW"]
        env["c"] = env["c"] * cut.split / st["n_PK"]
        env["C"] = st["C"]
        return env

    @property
    def per_class(self) -> bool:
        """Whether the precision differs by tensor class (b then moves with what a point reads)."""
        return self.wb is not None and self.wb.uniform is None

    def n_routed(self) -> float:
        """N_x of the whole model, counted as the accounting counts N."""
        card = self.card if self.card is not None else self.values
        return routed_parameters(card, self.pc, self.accounting) if self.model.moe else 0.0

    def read_b(self, n=None, n_x=None):
        """b at a point that reads weights: the mean bytes per weight of what this GPU reads, its slice of n
        whole-model weights of which n_x routed experts (the held ones by default), less the input embedding (N_e,
        not streamed).  Equal to the held b unless the precision differs by tensor class."""
        if not self.per_class:
            return self.values["b"]
        card = self.card if self.card is not None else self.values
        n = card["N"] if n is None else n
        n_x = self.n_routed() if n_x is None else n_x
        return self.wb.mean(n - n_x, n_x * (1.0 - self.cut.expert_keep), card["N_e"], self.cut.copies,
                            self.cut.copies_bytes)

    def at(self, batch=None, context=None, stream=None, reads: bool = False, **extra) -> dict[str, object]:
        """Inputs at a workload point; arrays broadcast (batch along axis 0, context along axis 1).

        ``stream``: times the weight slice is streamed, when no batch is given (the crossover batch's closed
        form takes the pipeline full: n_PP).  ``reads``: c is what a decode step at the context reads, as at a batch,
        for a step's quantity taken without one (READ_AT_CONTEXT); else, without a batch, the cache a sequence holds.
        """
        env = {k: np.float64(v) for k, v in self.values.items()}  # numpy semantics: x/0 is inf, not an exception
        cut = self.cut
        if context is not None:
            s = np.asarray(context, dtype=float)
            env["S"] = s
            # the cache a sequence holds (a chunked layer: up to its whole chunk), for the capacity; a decode step
            # (a batch) reads less from a chunked layer: the S mod chunk tokens of its current chunk.  Equal for
            # models without chunked layers.
            timed = batch is not None or reads
            if timed and arch.chunked_layers(self.model):
                env["c"] = arch.kv_bytes_per_token_at(self.model, env["b_kv"], s)
            else:
                env["c"] = arch.kv_cache_bytes_per_token_at(self.model, env["b_kv"], s)
            share = self.share if timed else None  # a step's time on the stages' share of global layers (the
            # capacity takes each stage's own memory: held)
            env["c"] = at_share(self.model, share, env["c"], arch.kv_bytes_per_token(self.model, env["b_kv"]))
            if not cut.trivial:
                env["c"] = env["c"] / (cut.split * cut.s_kv)
            if arch.bounded_layers(self.model):  # windowed / chunked layers attend to fewer: 4 L H_q d_h S overcounts
                env["d_h"] = env["d_h"] * at_share(self.model, share, arch.attended_fraction(self.model, s), 1.0)
        if batch is not None:
            self._at_batch(env, batch, context)
        elif stream is not None and stream != 1:
            env["N"] = env["N"] * stream
            env["N_e"] = env["N_e"] * stream
        if batch is None and "T" in extra and self.model.moe is not None:  # a pass over T tokens: the experts they
            self._set_read(env, extra["T"])  # touch, as a decode step of T tokens reads them
        elif batch is None and "T" in extra and self.per_class:  # a pass over T tokens: all but the input embedding
            env["b"] = np.float64(self.read_b())
        env.update({k: np.asarray(v, dtype=float) if isinstance(v, (list, tuple, np.ndarray)) else v
                    for k, v in extra.items()})
        if "T" in extra and context is None and "d_h" not in extra:  # a pass over T tokens: MLA in its MHA form
            env["d_h"] = prefill_head_dim(self.model, env["d_h"], env["T"], self.share)
        return env

    def _at_batch(self, env: dict, batch, context=None) -> None:
        """:meth:`at`'s batch: B, and the N, N_e and b a step of ``batch`` sequences reads, set in ``env`` (which
        holds the GPU's values of N, N_e and b as float64).  With stages each micro-batch streams the slice again: m
        the layout bound's micro-batches at (batch, ``context``) where the Env knows them (:attr:`schedule`), so that
        the slice's ledgers are the layout's (formulas.parallel.fastest_schedule), else vLLM's min(pp, B)."""
        cut = self.cut
        bt = np.asarray(batch, dtype=float)
        env["B"] = bt
        micro = bt if cut.pp == 1 else bt / np.minimum(float(cut.pp), bt)
        if self.model.moe is not None:  # MoE: the weights read depend on how many experts the batch touches
            self._set_read(env, micro)
        elif self.per_class:
            env["b"] = np.float64(self.read_b())
        if cut.pp > 1:  # each micro-batch streams the slice again: m of the bound's schedule, else min(n_PP, B)
            m = (np.minimum(float(cut.pp), bt) if self.schedule is None or context is None
                 else self.schedule(bt, context))
            env["N"] = env["N"] * m
            env["N_e"] = env["N_e"] * m

    def _set_read(self, env: dict, tokens) -> None:
        """The N (this GPU's slice) and b that ``tokens`` tokens of an MoE read, set in ``env``: one micro-batch of a
        decode step (:meth:`_at_batch`) or a whole prompt, which passes each stage once (:meth:`at` with T)."""
        cut = self.cut
        n, n_x = self.read(np.asarray(tokens, dtype=float))
        head = stage_head(self.card if self.card is not None else self.values, cut)  # the last stage's (slice_values)
        env["N"] = n if cut.trivial else (n + cut.copies - head - n_x * cut.expert_keep) / cut.share
        if self.per_class:
            env["b"] = np.float64(self.read_b(n, n_x)) if np.ndim(n) == 0 else self.read_b(n, n_x)

    def weights_at(self, batch) -> dict[str, object]:
        """N, N_e and b of ``at(batch=batch, ...)`` (no context changes them), without the other inputs: what a
        fixed-point search over the batch a step reads asks many times (techniques.rate_curves)."""
        env = {k: np.float64(self.values[k]) for k in ("N", "N_e", "b")}
        self._at_batch(env, batch)
        return env

    def crossover_at(self, context) -> dict[str, object]:
        """Inputs of the batch that crosses the ridge at ``context``: a full pipeline streams each GPU's slice once
        per stage's micro-batch (N and N_e n_PP times the slice, N_a the slice), one stage the slice once.  The
        evaluation's value and its printed formula both take these."""
        return self.at(context=context, stream=self.cut.pp if self.cut.pp > 1 else None, reads=True)

    def busiest(self, tokens):
        """u_x: routed-expert parameters the busiest GPU of the expert group reads, over the mean (1 without expert
        parallelism, or for a dense model).

        The tokens of the group (as :meth:`read` counts them) touch E (1 - (1 - k/E)^tokens) experts on average;
        taking that many distinct experts uniformly at random, spread E/n_EP to a GPU, the busiest GPU holds
        E[max] of them (:func:`busiest_experts`), against the mean touched/n_EP.  Exact for one token (k distinct
        experts), and within 0.3% of a simulation for DeepSeek-V3 at 8 tokens (10.65 of 32 against the mean 7.18).
        """
        moe, cut = self.model.moe, self.cut
        tokens = np.asarray(tokens, dtype=float)
        if moe is None or cut.ep <= 1:
            return np.ones(tokens.shape)
        touched = self.touched(tokens)
        flat = [busiest_experts_redundant(moe.experts, cut.ep, cut.redundant, float(t)) / (float(t) / cut.ep)
                if t > 0 else 1.0 for t in np.ravel(touched)]
        return np.reshape(np.asarray(flat, dtype=float), np.shape(touched))

    def with_layout(self, layout: Parallelism | None) -> Env:
        """The same GPU, model, precision and accounting on one GPU of ``layout``."""
        cut = layout_slice(self.model, layout, self.precision)
        card = self.card if self.card is not None else self.values
        n_x = routed_parameters(card, self.pc, self.accounting) if self.model.moe else 0.0
        return Env(slice_values(card, cut, n_x, self.wb), self.model, self.accounting, self.pc, dict(card),
                   layout or ONE_CARD, cut, self.wb, self.hw, self.precision, time_share(self.model, cut.pp))

    def touched(self, tokens, replicas=None):
        """Experts of one MoE layer that ``tokens`` tokens touch in expectation under uniform routing,
        E (1 - (1 - k/E)^t): with n_EP > n_TP the experts of one GPU serve n_EP/n_TP replicas' tokens, t those of all
        (a decode step: every replica steps at once); ``replicas``: how many replicas' ``tokens`` the group runs
        instead (a prompt: m_P, 1 for a prompt alone)."""
        cut, moe = self.cut, self.model.moe
        if replicas is None:
            replicas = cut.ep / cut.tp if cut.ep > cut.tp else 1.0
        group = tokens * replicas if replicas != 1 else tokens
        return arch.expected_experts_touched(moe.experts, moe.active_experts, group)

    def read(self, tokens, replicas=None):
        """Whole-model parameters read (N) and routed-expert parameters read (N_x) when ``tokens`` pick experts.

        With n_EP > n_TP the experts of one GPU serve the micro-batches of n_EP/n_TP replicas, so the experts
        touched are those of all their tokens (``replicas``: another number of replicas, :meth:`touched`).
        """
        pc = self.pc
        touched = self.touched(tokens, replicas)
        read = pc.total - pc.experts_routed + pc.moe_layers * touched * pc.expert_size
        experts = pc.moe_layers * touched * pc.expert_size
        card = self.card or self.values
        if self.accounting == "exact":
            return read, experts
        # the declared counts throughout: N_a at batch 1, rising to the declared N when all are read
        spare = pc.total - pc.active  # 0 when every expert is active
        idle = (read - pc.active) / spare if spare else np.zeros_like(read)
        per_routed = (card["N"] - card["N_a"]) / spare if spare else 0.0
        return card["N_a"] + (card["N"] - card["N_a"]) * idle, experts * per_routed


def prefill_head_dim(model: Model, d_h, tokens, share: float | None = None, cached=0.0):
    """d_h for a pass over a whole prompt of ``tokens`` tokens
    (:func:`genreport.formulas.architecture.prefill_head_dim_for_flops`): MLA runs it in the cheaper, decompressed
    form; any other attention keeps ``d_h``, times the share of the causal attention that windowed and chunked
    layers compute (:func:`genreport.formulas.architecture.prefill_attended_fraction`, 1 without them), on a
    layout's stages at their ``share`` of global layers (stages.time_share; None: the model's own).  ``cached``: the
    prompt positions a prefix cache holds before the ``tokens`` (their share of the attention the uncached positions
    compute, :func:`genreport.formulas.architecture.prefill_attended_fraction_after`)."""
    if model.attention.kind == "mla":
        return np.float64(arch.prefill_head_dim_for_flops(model))
    if not arch.bounded_layers(model):
        return d_h
    g = at_share(model, share, arch.prefill_attended_fraction_after(model, tokens, cached), 1.0)
    return d_h * (np.float64(g) if np.ndim(g) == 0 else g)


@lru_cache(maxsize=64)
def _busiest_table(experts: int, groups: int) -> tuple[float, ...]:
    """:func:`busiest_experts` at every whole number t = 0 .. ``experts`` of experts touched, in one pass: the
    product over the GPUs of sum_{j<=min(m, s_i)} C(s_i, j) x^j holds C(E, t) P(max <= m) at x^t for every t at once
    (exact integers; each t's sum stops where its P(max <= m) reaches 1, so each entry is the sum taken for that t
    alone).  The GPUs hold s_i = ceil(E/n) experts (E mod n of them) or floor(E/n) (the others), as an engine places
    experts that do not divide evenly (vLLM's expert map: the first E mod n ranks one more).

    The polynomials are multiplied as integers (Kronecker substitution): each coefficient is at most C(E, t) < 2^E, so
    one of E + 1 bits, padded to whole bytes, never carries into the next, and a power of a GPU's polynomial is one
    ``int.__pow__`` (DeepSeek-V3's 256 experts: 7 tables in 0.06 s, 0.47 s multiplied term by term, the same floats)."""
    lo_size, extra = divmod(experts, groups)
    width = (experts + 8) // 8  # bytes a coefficient takes
    total = [math.comb(experts, t) for t in range(experts + 1)]
    # (experts a GPU holds, GPUs holding that many, C(s, 0..s) as integers of ``width`` bytes, lowest first)
    holders = [(size, count, b"".join(math.comb(size, j).to_bytes(width, "little") for j in range(size + 1)))
               for size, count in ((lo_size + 1, extra), (lo_size, groups - extra)) if count]
    out = [0.0] * (experts + 1)
    first = 1  # every t below it has P(max <= m) = 1 from this m on (P falls as t grows)
    for m in range(lo_size + (1 if extra else 0) + 1):
        product = 1
        for size, count, row in holders:
            product *= int.from_bytes(row[: width * (min(m, size) + 1)], "little") ** count
        coefficients = product.to_bytes(width * (experts + 1), "little")  # the degree is at most E
        for t in range(first, experts + 1):
            ways = int.from_bytes(coefficients[width * t: width * (t + 1)], "little")
            if ways == total[t]:  # P(max <= m) = 1: nothing to add, now or later
                if t == first:
                    first = t + 1
                continue
            out[t] += 1.0 - ways / total[t]
        if first > experts:
            break
    return tuple(out)


@lru_cache(maxsize=4096)
def busiest_experts_redundant(experts: int, groups: int, redundant: int, touched: float) -> float:
    """Expected touched experts of the busiest of ``groups`` GPUs when ``redundant`` of the experts have a replica
    (DeepSeek's EPLB) and the engine hands a replicated expert's tokens to the least-loaded holder [experts].

    The E - r experts without a replica sit (E - r)/n to a GPU and are touched in proportion, t (E - r)/E of the t;
    their busiest GPU holds :func:`busiest_experts` of them.  The replicated experts' t r/E fill the other GPUs up to
    that level (the balancer's best case: their load taken as divisible), so the busiest holds max(that, t/n): never
    less than the mean, and the occupancy maximum of :func:`busiest_experts` without replicas (r = 0).
    An estimate (the replicas' load is not divisible, and each replica sits on one GPU), not a bound.  Where the E - r
    do not split evenly over the GPUs (256 - 32 over 72: the slots are even, the unreplicated experts are not), some
    GPUs hold one more of them (:func:`busiest_experts`' uneven groups).
    """
    if redundant <= 0:
        return busiest_experts(experts, groups, touched)
    fixed = experts - min(redundant, experts)
    if fixed <= 0:
        return touched / groups
    return max(busiest_experts(fixed, groups, touched * fixed / experts), touched / groups)


def busiest_experts(experts: int, groups: int, touched: float) -> float:
    """Expected largest number of touched experts on one of ``groups`` GPUs holding experts/groups each, when
    ``touched`` distinct experts of ``experts`` are chosen uniformly at random (interpolated between whole numbers).

    P(max <= m) = [x^t] (sum_{j<=m} C(s, j) x^j)^n / C(E, t) with s = E/n experts per GPU: the multivariate
    hypergeometric occupancy.  E[max] = sum_{m>=0} (1 - P(max <= m)).
    """
    lo = int(math.floor(touched))
    frac = touched - lo
    table = _busiest_table(experts, groups)
    whole = lambda t: table[t] if 0 <= t < len(table) else 0.0  # noqa: E731
    return whole(lo) if frac == 0 else (1 - frac) * whole(lo) + frac * whole(lo + 1)


def card_values(hw: Hardware, model: Model, precision, accounting: str, activation_bytes: float = 0.0,
                pc: arch.ParameterCount | None = None) -> dict[str, float]:
    """The glossary symbols' values on one card holding the whole model."""
    pc = pc or arch.parameter_count(model)
    wb = weight_bytes_of(precision, pc)
    b_kv = precision.kv_bytes
    if accounting == "seed":  # the declared counts (embeddings included, as published), for FLOPs and bytes alike
        n = model.declared_parameters or float(pc.total)
        n_a = (model.declared_active or float(pc.active) * n / pc.total) if model.moe else n
        n_e = 0.0
        n_p = n_a - pc.embedding - pc.lm_head
    else:  # the counts from the shapes
        n = float(pc.total)
        n_e = 0.0 if model.tied_embeddings else float(pc.embedding)
        n_a = float(pc.active) - n_e
        n_p = float(pc.active - pc.embedding - pc.lm_head)
    n_x = routed_parameters({"N": n, "N_a": n_a}, pc, accounting) if model.moe else 0.0
    b = wb.mean(n - n_x, n_x)  # every weight the card holds
    peak = peak_of(precision, hw, model, pc)
    return {
        "P": peak.value, "W": hw.bandwidth, "C": hw.usable,
        "P_a": min(attention_peak(precision, hw), peak.value),  # never above P (the estimate adds, never takes off)
        # e_m: a large matmul's measured share of the peak in the compute format, the serial estimate's (1: none given)
        "e_m": peak.matmul,
        # e_g: a small-M GEMM's measured share of the HBM bandwidth on its weights, the serial prefill's and decode's (1: none)
        "e_g": hw.achieved_bandwidth.get(precision.compute, 1.0),
        "N": n, "N_a": n_a, "N_e": n_e, "N_p": n_p, "L": float(model.layers), "d": float(model.hidden_size),
        "H_q": float(model.heads), "H_kv": float(model.kv_heads),
        "d_h": arch.attention_head_dim_for_flops(model), "d_ff": float(model.ffn_size),
        "V": float(model.vocab_size), "G": model.heads / model.kv_heads,
        "b": b, "b_kv": b_kv, "c": arch.kv_bytes_per_token(model, b_kv), "a": activation_bytes,
    }


def routed_parameters(values: dict, pc: arch.ParameterCount, accounting: str) -> float:
    """N_x: the routed experts' parameters, counted as the accounting counts N (declared or from the shapes)."""
    if accounting != "seed":
        return float(pc.experts_routed)
    spare = pc.total - pc.active
    return float(pc.experts_routed) * ((values["N"] - values["N_a"]) / spare if spare else 0.0)


def stage_head(card: dict[str, float], cut: Slice) -> float:
    """The output head's V d parameters where the layout has stages (the last stage's, out of the busiest stage's
    slice: formulas.parallel.at_last_stage), else 0."""
    return card["V"] * card["d"] if cut.pp > 1 else 0.0


def slice_values(card: dict[str, float], cut: Slice, n_x: float, wb: WeightBytes | None = None) -> dict[str, float]:
    """One GPU's values: formulas.layout.slice_inputs evaluated (the test suite checks the two agree); b, with
    per-class precisions, the mean bytes per weight of the slice the GPU holds.  With pipeline stages the GPU is one
    of the busiest stage before the last: the output head (V d parameters) is the last stage's, not in its slice."""
    if cut.trivial:
        return dict(card)
    v = dict(card)
    if wb is not None and wb.uniform is None:
        v["b"] = wb.mean(card["N"] - n_x, n_x * (1.0 - cut.expert_held), 0.0, cut.copies, cut.copies_bytes)
    head = stage_head(card, cut)
    # what tensor parallelism holds whole on each GPU, N_R (cut.copies), is held, read and computed with there
    v["N"] = (card["N"] + cut.copies - head - n_x * cut.expert_held) / cut.share
    for k in _BY_SHARE:
        v[k] = card[k] / cut.share
    v["N_a"] = (card["N_a"] + cut.copies - head) / cut.share
    v["N_p"] = (card["N_p"] + cut.copies) / cut.share
    if cut.pp > 1:
        v["V"] = 0.0
    v["L"] = card["L"] / cut.split
    v["H_q"] = card["H_q"] / cut.tp
    v["H_kv"] = card["H_kv"] / cut.s_kv
    v["c"] = card["c"] / (cut.split * cut.s_kv)
    v["G"] = v["H_q"] / v["H_kv"]
    return v


def make_env(hw: Hardware, model: Model, precision, accounting: str, activation_bytes: float = 0.0,
             layout: Parallelism | None = None) -> Env:
    """The inputs of one GPU of ``layout`` (one card when None)."""
    pc = arch.parameter_count(model)
    card = card_values(hw, model, precision, accounting, activation_bytes, pc)
    cut = layout_slice(model, layout, precision)
    wb = weight_bytes_of(precision, pc)
    values = slice_values(card, cut, routed_parameters(card, pc, accounting) if model.moe else 0.0, wb)
    return Env(values, model, accounting, pc, card, layout or ONE_CARD, cut, wb, hw, precision, time_share(model, cut.pp))


def spec_env(spec, accounting: str | None = None, layout: bool = True) -> Env:
    """The inputs of a report spec in one accounting (the spec's own by default), at its layout."""
    return make_env(spec.hardware, spec.model, spec.precision, accounting or spec.accounting,
                    spec.workloads.activation_bytes, spec.parallelism if layout else None)
