"""The search over layouts: ``plan`` (every tp x pp x ep layout, weight and KV-cache format that fits, with one
request's TTFT, TPOT, end-to-end latency, rates and cost at the batch chosen; ranked by tokens/s per GPU), one
point's bounds for audits, and the report's many-GPU view (``many_gpus``: how the decode round
scales with the tensor-parallel degree, how many GPUs each context needs per weight format, and, when the
model does not fit the spec's layout, the smallest layout that does).

Built on :mod:`genreport.model.layout` (one evaluation at one layout)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np
from genreport.formulas import architecture as arch
from genreport.formulas.compiled import load
from genreport.load.spec import (
    WEIGHT_FORMAT_BYTES,
    WEIGHT_ONLY_FP8_SOURCE,
    Hardware,
    Model,
    Parallelism,
    Precision,
    layout_words,
    on_hardware,
    weight_only_fp8,
)
from genreport.model.env import make_env, spec_env
from genreport.model.layout import (
    BINDS,
    _pp_choices,
    at_batch,
    at_prompt,
    choose_links,
    fastest_schedule,
    held_at,
    layout_base,
    layout_values,
    min_gpus_to_fit,
    prompt_rate,
    stage_capacity,
    tp_choices,
)
from genreport.model.serving import (
    PAYS,
    _mean_context_values,
    _read_c,
    _requests_many,
    compute_batch,
    engine_limit,
    joules_per_token,
    last_context,
    node_busy_gpus,
    prompt_cache_c,
    prompt_prefill,
    round_context,
    round_values,
    usd_per_mtok,
)
from genreport.model.stacked import over

# Every uniform weight format plan knows how to try; the default tries fewer (plan_precisions).
PLAN_PRECISIONS = ("bf16", "fp8", "int8", "int4")
# Below this many parameters fp8 is not tried by default: the usual practice quantizes to fp8 from 8B up (Meta ships
# Llama 3.1 405B in FP8 for one 8-GPU node, NVIDIA's ModelOpt and vLLM publish FP8 checkpoints of 8B and larger).
FP8_FROM_PARAMETERS = 8e9
# Formats that change the model's accuracy more than a roofline can price: tried only when asked (--weights ...,int4).
ACCURACY_FORMATS = ("int8", "int4")


def plan_precisions(model: Model) -> tuple[str, ...]:
    """The weight formats plan, the serving chapter's cheapest layout and page 1's smallest layout try by default:
    the checkpoint's own ('checkpoint' where the model spec gives checkpoint_precision, per tensor class: DeepSeek-V3's
    fp8_block, gpt-oss's mxfp4 experts; else bf16, the format open checkpoints ship in) and, for a 16-bit checkpoint of
    FP8_FROM_PARAMETERS or more, fp8, which practitioners treat as quality-preserving (Llama 3.1 405B FP8: Meta's own
    release for one 8-GPU node).  int8/int4 weight-only formats trade accuracy the roofline does not price: only
    when asked (``--weights bf16,fp8,int8,int4``)."""
    own = dict(model.checkpoint_weights)
    sixteen = not own or set(own.values()) <= {"bf16", "fp16"}
    params = model.declared_parameters or float(arch.parameter_count(model).total)
    return ("checkpoint" if own else "bf16",) + (("fp8",) if sixteen and params >= FP8_FROM_PARAMETERS else ())


def formats_not_tried(model: Model, tried) -> tuple[str, ...]:
    """The uniform formats of PLAN_PRECISIONS that the default leaves out and a user could still ask for: those
    narrower than the values of the checkpoint's default tensor class (one as wide or wider stores the same weights in
    as many bytes or more: bf16, fp8 and int8 for DeepSeek-V3's fp8_block checkpoint) and not tried."""
    own = dict(model.checkpoint_weights).get("default", "bf16")
    element = math.floor(WEIGHT_FORMAT_BYTES[own] * 8) / 8  # the value's own bytes, without its block scales
    return tuple(f for f in PLAN_PRECISIONS if f not in tried and WEIGHT_FORMAT_BYTES[f] < element)


@dataclass(frozen=True)
class PlanRow:
    precision: str
    tp: int
    pp: int
    ep: int
    gpus: int
    weight_bytes_per_gpu: float
    capacity_batch: int  # sequences of the request's last context (Shape.last_context) one replica holds
    batch: int  # the batch chosen: the largest up to the one asked that fits and meets the latency target
    # what stopped the batch: "batch" (the one asked), "capacity", "engine" (its max_sequences), "latency",
    # "prompts" (the compute the sequences' prompts' prefills take at the TPOT target: serving.compute_batch), or
    # "users"
    # (the users spread over the copies of the layout they take: the busiest replica runs fewer than the targets allow)
    limit: str
    binds: str  # compute, HBM, interconnect; "capacity" when the KV cache limits the batch
    time_bound: float  # s, strict lower bound of a decode round at the chosen batch
    time_serial: float  # s, serialized estimate
    time_comm: float  # s, interconnect ledger
    tokens_per_s_replica: float  # the batch at the request's mean rate (b / time at one generated token)
    tokens_per_s_gpu: float
    links: str  # e.g. "tp: scale-up NVLink 4"
    dp: int = 1  # replicas; > 1 only with data-parallel attention (ep = tp dp), each serving ``batch`` sequences
    # one request of ``prompt`` + ``output`` tokens at this layout and batch (generator/model/serving.py)
    hardware: str = ""  # the GPU's catalog name
    kv_cache: str = ""  # the KV-cache format
    ttft: float = math.nan  # s, time to first token (the estimate's with estimate="serial")
    tpot: float = math.nan  # s, the request's slowest decode round (at its last context)
    e2e: float = math.nan  # s, TTFT + the output - 1 decode rounds (closed form)
    tokens_per_s_user: float = math.nan  # one sequence's mean rate over its output
    concurrency: int = 0  # sequences of the last context all dp replicas hold (capacity_batch x dp)
    headroom_bytes: float = math.nan  # B per GPU left at the chosen batch and context
    usd_per_mtok_in: float | None = None  # $ per million prompt tokens (one prompt at a time on the replica)
    usd_per_mtok_out: float | None = None  # $ per million generated tokens at tokens_per_s_gpu
    joules_per_token: float | None = None  # J per generated token at the board power
    gpus_for_users: int = 0  # GPUs of the replicas that serve the users asked (0: no users asked)
    tokens_per_s_node: float | None = None  # output tok/s of one node full of such replicas (None: no node in the spec)
    # plan --speculative: the verify round at this layout (formulas/techniques.py, verify_time_bound / _serial)
    speculative: str = ""  # "on", "off" (past the break-even batch: plain decode), "" (not asked)
    spec_speedup: float | None = None  # plain round / (verify round + drafts) x expected tokens, at the last context
    spec_speedup_mean: float | None = None  # the same at the request's mean context: divides its decode time
    # first batch up to the one asked and the engine's max_sequences where speculation stops paying
    spec_breakeven_batch: int | None = None
    # first batch past the break-even where it pays again (a mixture of experts: the verify round's tokens touch
    # more experts at small batches, fewer more once every expert is read), as the serving chapter's lever row says
    spec_resumes_batch: int | None = None
    # first batch past that where it stops paying again (a draft model's passes read its own cache of every sequence)
    spec_stops_again_batch: int | None = None
    tpot_plain: float | None = None  # s, TPOT without speculation at the chosen batch
    # plan --disaggregate: prefill and decode pools of this layout, balanced for the request (DistServe)
    pool_prefill_share: float | None = None  # share of the GPUs that prefill (balanced_prefill_gpus at the stages')
    pool_split: str = ""  # "P:D" copies of the row's layout (its tp x pp x dp GPUs, whole expert groups): the
    # smallest split near the balanced share
    pool_prefill_stages: int | None = None  # each prefill replica's instance: 1 a whole replica, pp its pipeline
    pool_prefill_pass: float | None = None  # s, what a prompt occupies a prefill replica's stages for (its pass)
    # a decode replica's batch: the row's, or, where the prompts' compute stops the row's (limit "prompts"), the TPOT
    # target's for the decode round alone (a decode replica prefills nothing)
    pool_decode_batch: int | None = None
    kv_transfer: float | None = None  # s, one prompt's KV cache from a prefill replica to a decode replica
    kv_link: str = ""  # the link it crosses
    pool_ttft: float | None = None  # s, TTFT + the KV transfer
    pool_tokens_per_s_gpu: float | None = None  # output tok/s per GPU of the split, both pools' GPUs counted
    one_pool_batch: int = 0  # batch of one pool prefilling between rounds that meets the TPOT target (0: none)
    one_pool_tpot: float | None = None  # s, aggregated_tpot at that batch
    one_pool_tokens_per_s_gpu: float | None = None  # output tok/s per GPU of that one pool
    pool_beats: str = ""  # "yes", "no", "tie" (same tokens per GPU) or "" (not asked)
    # routed-expert replicas beyond the E the ep GPUs hold (EPLB's redundant experts), so that every GPU holds as
    # many expert slots: an expert group that does not divide the experts (:func:`dp_attention_layouts`)
    redundant_experts: int = 0
    # $ of one request: its prompt's prefill and its output - 1 decode tokens, (prompt x usd_per_mtok_in +
    # (output - 1) x usd_per_mtok_out) / 10^6 (None without a price or a decode: plan --context); what "cost" ranks
    usd_per_request: float | None = None
    # the groups (tp, pp, ep) whose collectives cross the scale-out network between nodes
    scale_out_groups: tuple[str, ...] = ()
    compute: str = ""  # the format the GEMMs multiply in: bf16 for fp8 weights on a GPU without an fp8 peak
    weight_only: bool = False  # fp8 weights dequantized to bf16 there (weight_only_fp8: W8A16)

    @property
    def weights_label(self) -> str:
        """The weights column: the format, with "(W8A16)" where fp8 weights compute in bf16 (weight_only_fp8)."""
        return f"{self.precision} (W8A16)" if self.weight_only else self.precision

    def as_json(self) -> dict:
        # no users asked: no count of GPUs for them (null, not 0 GPUs: deployment review, stop 75)
        return {**self.__dict__, "gpus_for_users": self.gpus_for_users or None,
                "scale_out_groups": list(self.scale_out_groups),
                "layout": layout_words(self.tp, self.pp, self.ep, self.dp, self.redundant_experts or 0)}


@dataclass
class Plan:
    rows: list[PlanRow]
    rejected: dict[str, int]  # why -> how many layouts
    skipped_precisions: list[tuple[str, str]]  # (precision, why)
    estimate: str  # "bound" or "serial"; in a merged plan of several GPUs (commands.plan.merge) the order, in words
    # the nearest a rejected layout came to each target it missed: "ttft" (the least TTFT of the layouts that fit)
    # and "tpot" (the least batch-1 TPOT of those), [s]; what a plan that lists no row says
    closest: dict = field(default_factory=dict)
    # what plan did in place of skipping a format, in words (fp8 weights computed in bf16 on a GPU without an fp8 peak)
    notes: list[str] = field(default_factory=list)


def runs_as(name: str, model: Model, own: Precision | None, hw: Hardware) -> tuple[Precision | None, bool]:
    """(the precision plan runs the weight format ``name`` in on ``hw``, whether its fp8 weights compute in bf16
    there: weight_only_fp8); (None, False) where the device has no peak to compute it in (fp8 on a TPU v5p)."""
    auto = on_hardware(own_precision(name, model, own), hw.dense)  # NVFP4/MXFP4 in fp4 where it runs
    if auto.compute in hw.dense:
        return auto, False
    weight_only = weight_only_fp8(auto, hw)
    return weight_only, weight_only is not None


# What each order of plan's rows ranks by (``ranking``): its name in words.
ORDERS = {"cost": "$ per request (its prompt and its output; $/M output tokens where no prompt is priced: --context "
                  "alone)",
          "speed": "tok/s per GPU", "gpus": "GPUs for the users, then $ per request", "user": "tok/s per user"}


def ranking(sort: str, priced: bool):
    """The key that orders plan's rows for ``sort`` (one of ``ORDERS``, or "auto": cost where every device is priced,
    else speed), ties broken by the layout (fewest GPUs, then the device, formats, tp, pp, ep, dp): the order of
    ``genreport plan``'s table and the serving chapter's cheapest layout, its first row."""
    sort = ("cost" if priced else "speed") if sort == "auto" else sort

    def money(r):
        # a request's cost, its prompt's prefill with it: by $/M output tokens alone, 64 H100s at tp 64 ranked
        # fourth for Llama 3.1 405B at 2k + 256 where their prompts cost 5.7x tp 8's (deployment review, stop 75)
        # to 12 significant digits: costs equal but for the floats' last bits (a prompt-only request's prefill costs
        # the same on every layout where it is compute-bound) tie, and the fewest GPUs rank first (the hostile review
        # of stop 89: tp 1 x pp 16 ranked above tp 1 at 5.5377027375990027e-05 against ...03e-05)
        if r.usd_per_request is not None:
            return float(f"{r.usd_per_request:.12g}")
        return math.inf if r.usd_per_mtok_out is None else float(f"{r.usd_per_mtok_out:.12g}")

    def tail(r):
        return (r.gpus, r.hardware, r.precision, r.kv_cache, r.tp, r.pp, r.ep, r.dp)

    return {"cost": lambda r: (money(r), *tail(r)), "speed": lambda r: (-r.tokens_per_s_gpu, *tail(r)),
            "gpus": lambda r: (r.gpus_for_users, money(r), *tail(r)),
            "user": lambda r: (-r.tokens_per_s_user, money(r), *tail(r))}[sort]


def _layout_key(r: PlanRow) -> tuple:
    return (r.hardware, r.precision, r.kv_cache, r.tp, r.pp, r.ep, r.dp)


def better_of(plain: Plan, speculating: Plan, key) -> Plan:
    """One plan of one device's layouts from a plan without speculation and one with it (the same layouts tried):
    each layout's row that ``key`` ranks first, the plain one where they tie (speculation that gains nothing is not
    run).  A layout only the speculating plan lists is one the plain plan rejected for its TPOT (speculation adds a
    draft's weights and passes, so it fits and prefills no better): the rejections are the plain plan's, less those."""
    rows = {_layout_key(r): r for r in plain.rows}
    only_speculating = 0
    for r in speculating.rows:
        k = _layout_key(r)
        if k not in rows:
            only_speculating += 1
            rows[k] = r
        elif key(r) < key(rows[k]):
            rows[k] = r
    rejected = dict(plain.rejected)
    latency = "misses the latency target"
    rejected[latency] = max(rejected.get(latency, 0) - only_speculating, 0)
    skipped = list(dict.fromkeys([*plain.skipped_precisions, *speculating.skipped_precisions]))
    return Plan(sorted(rows.values(), key=key), rejected, skipped, plain.estimate, nearest((plain, speculating)),
                list(dict.fromkeys([*plain.notes, *speculating.notes])))


def _ep_choices(model: Model, tp: int) -> list[int]:
    if model.moe is None:
        return [1]
    return [e for e in range(1, tp + 1) if model.moe.experts % e == 0 and tp % e == 0]


def dp_attention_layouts(model: Model, max_gpus: int) -> list[Parallelism]:
    """Data-parallel attention with expert parallelism (SGLang's DeepSeek layout): dp replicas of a tp group each
    run attention on their own sequences, and the routed experts are split over all tp x dp GPUs (ep = tp dp).
    Every GPU then keeps its replica's KV cache alone; one stage.  None for a dense model.

    Expert groups of a power of two GPUs that divides the experts, and the group that fills ``max_gpus`` (an NVL72
    domain of 72, as :func:`_fill_pp` fills it with stages) where it is not one of those and has no more GPUs than
    experts: its experts do not divide evenly, so it holds :func:`redundant_to_even` replicas more, every GPU as many
    slots (SGLang's DeepSeek-V3 on 72 GPUs: 256 + 32 redundant experts, 4 a GPU; --ep-num-redundant-experts)."""
    if model.moe is None:
        return []
    experts = model.moe.experts
    out = []
    for tp in tp_choices(model, max_gpus):
        dp = 2
        while tp * dp <= max_gpus:
            if experts % (tp * dp) == 0:
                out.append(Parallelism(tp, 1, tp * dp, dp))
            dp *= 2
        fill = max_gpus // tp
        if max_gpus % tp == 0 and fill > 1 and max_gpus <= experts and fill & (fill - 1) | experts % max_gpus:
            out.append(Parallelism(tp, 1, max_gpus, fill, redundant_to_even(experts, max_gpus)))
    return out


def redundant_note(experts: int, ep: int, redundant: int, noun: str = "GPU") -> str:
    """What "ep72+32" (Parallelism.label) means, in words, for a table's or a figure's key."""
    return (f"ep{ep}+{redundant}: {ep} {noun}s hold the {experts} routed experts and {redundant} redundant replicas, "
            f"{(experts + redundant) // ep} a {noun} (EPLB copies the most loaded experts; SGLang's "
            "--ep-num-redundant-experts)")


def redundant_to_even(experts: int, gpus: int) -> int:
    """Redundant expert replicas that give each of ``gpus`` GPUs as many expert slots, ceil(E / n) n - E (0 where n
    divides E): 256 experts on 72 GPUs, 32 (4 a GPU)."""
    return -(-experts // gpus) * gpus - experts


# the largest replica plan (and the report's cheapest layout and frontier figure) tries: an NVL72 domain
MAX_GPUS = 72


def _fill_pp(layers: int, max_gpus: int, tp: int) -> list[int]:
    """Pipeline degrees tried at tensor degree ``tp``: those of :func:`_pp_choices`, and the one that fills
    ``max_gpus`` exactly (tp 8 x pp 9 on an NVL72 domain of 72; uneven stages of ceil(L/pp) and floor(L/pp) layers)."""
    out = _pp_choices(layers, max_gpus // tp)
    fill = max_gpus // tp
    if max_gpus % tp == 0 and 1 < fill <= layers and fill not in out:
        out.append(fill)
    return out


def plan_layouts(model: Model, max_gpus: int) -> list[Parallelism]:
    """Every layout ``plan`` tries up to ``max_gpus``: tp x pp (x ep inside the tp group; pp including the one
    that fills ``max_gpus``, :func:`_fill_pp`), then data-parallel attention with expert parallelism
    (:func:`dp_attention_layouts`)."""
    layouts = [Parallelism(tp, pp, ep, 1) for tp in tp_choices(model, max_gpus)
               for pp in _fill_pp(model.layers, max_gpus, tp) for ep in _ep_choices(model, tp)]
    return layouts + dp_attention_layouts(model, max_gpus)


def plan_precision(name: str, model: Model) -> Precision:
    """A precision plan tries: a format, or 'checkpoint', the model spec's checkpoint_precision per tensor class."""
    from genreport.load.loader import _precision
    from genreport.model.env import held_weight_bytes

    if name != "checkpoint":
        return _precision(name)
    prec = _precision({"weights": dict(model.checkpoint_weights)})
    return dataclasses.replace(prec, held_bytes=held_weight_bytes(prec, model)) if prec.classes else prec


def own_precision(name: str, model: Model, own: Precision | None) -> Precision:
    """The precision plan tries for the format ``name``: a report's own (``own``: its group size, compute format and
    KV cache) where ``name`` is its uniform weight format or its per-class checkpoint formats, so the report's plan
    answers time the weights and the cache the report times (int4 with group 128: 0.516 B a weight, not int4's 0.5;
    an fp8 cache beside int4 weights, which plan's own pick for int4 would make bf16); else :func:`plan_precision`."""
    if own is not None and name == own_format(own, model):
        return own
    return plan_precision(name, model)


def own_format(precision: Precision, model: Model) -> str:
    """The name plan gives a report's weights: its uniform format, or 'checkpoint' where its per-class formats are
    the model's checkpoint's (gpt-oss-120b's mxfp4 experts beside bf16 attention, whatever its cache and compute)."""
    if precision.classes and plan_precision("checkpoint", model).classes == precision.classes:
        return "checkpoint"
    return precision.weights


def model_format(model: Model, name: str) -> str:
    """A format plan tries, in words: 'checkpoint' as the model spec's checkpoint_precision label ('fp8_block, embeddings
    bf16' style: Precision.weights_label), any other name as itself."""
    return plan_precision(name, model).weights_label() if name == "checkpoint" else name


def report_precisions(spec) -> tuple[str, ...]:
    """The formats a report's plan answers try (page 1's smallest layout, the serving chapter's cheapest): the
    default's (:func:`plan_precisions`) and the spec's own weights, which its author chose: a uniform format, the
    checkpoint's per-class formats ('checkpoint'), or other per-class formats by their label ('nvfp4+fp8', which
    :func:`own_precision` maps to the spec's precision; a review found them planned as the checkpoint's)."""
    return tuple(dict.fromkeys(plan_precisions(spec.model) + (own_format(spec.precision, spec.model),)))


@dataclass(frozen=True)
class Shape:
    """The request ``plan`` serves: prompt and output tokens, the TTFT target, the concurrent users."""

    prompt: int
    output: int = 1
    ttft: float | None = None  # s
    users: int | None = None
    # the share of each prompt a prefix cache holds (serving.prefix_hit, plan --prefix-hit): its TTFT, its prefill's
    # occupancy (serving.prompt_prefill) and compute_batch's F_r are the rest's
    prefix_hit: float = 0.0
    # a request of its prompt alone (output 1 asked for: a classification, a scoring, a prefill-only service): its
    # cost is its prompt's prefill, which 'cost' ranks; else output 1 reads as decode at the prompt's context (plan
    # --context, the default), priced by $/M output tokens
    prefill_only: bool = False

    @property
    def last_context(self) -> int:
        """The context the request's last decode step reads, prompt + output - 1 (serving.last_context): where
        ``plan`` times its TPOT round and counts the sequences a replica holds, as the serving chapter does."""
        return last_context(self.prompt, self.output)


NO_ROOM = "the engine's reserve and step leave no memory"  # a layout's reason (plan's rejected), the reserve a size


def plan(model: Model, hw: Hardware, batch: int, context: int | None, latency: float | None = None,
         precisions=None, max_gpus: int = MAX_GPUS, accounting: str = "seed", estimate: str = "bound",
         kv_caches=("auto",), shape: Shape | None = None, speculative: tuple[int, float, float, int] | None = None,
         disaggregate: bool = False, draft_precision: Precision | None = None,
         own: Precision | None = None, memo: dict | None = None) -> Plan:
    """Every tp x pp (x ep) layout and weight precision whose replica holds at least one sequence of the request's
    last context.

    For each, the largest batch up to ``batch`` that fits in the KV capacity, that the engine runs at once
    (``hw.max_sequences``, serving.engine_limit) and whose decode round (the strict
    bound, or the serialized estimate with ``estimate="serial"``) meets ``latency``; rows sorted by tokens/s per
    GPU at that batch, best first.  ``precisions``: the weight formats tried (None: :func:`plan_precisions`, the
    checkpoint's and fp8).  ``kv_caches``: the KV-cache formats to try ("auto": the weights' compute
    format's, fp8 for fp8 weights, else bf16).  ``shape``: the request (``latency`` is then its TPOT target)
    with its TTFT target and users; its last context, ``Shape.last_context`` = prompt + output - 1, is where the TPOT
    round and the capacity are counted, as the serving chapter counts them (``context`` may then be None; given, it
    must be that last context); without a shape, a request of ``context`` prompt tokens and one generated (last
    context ``context``).  Pipeline degrees divide the layers or are powers of
    two (uneven stages: the busiest, ceil(L/pp) layers, counted); expert parallelism inside the tp group
    (one replica: dp = 1, which changes nothing per GPU), or over tp x dp GPUs with data-parallel attention
    (:func:`dp_attention_layouts`): ``batch`` is then per replica, each of the dp replicas serving as many.

    ``speculative``: (draft tokens k, acceptance p, the drafts' cost over a plain round or a draft model, tokens
    verified) re-times every batch with the verify round at the layout (serving.speculative_request); a draft model or
    an EAGLE/MTP head runs at ``draft_precision`` (serving.speculative.draft_precision, ``plan --speculative
    K,P,MODEL@FORMAT`` or ``K,P,layers:N@FORMAT``), else at each row's precision;
    ``disaggregate``: adds prefill/decode pools of each row's layout (:func:`_pools`).  ``memo``: a dict shared by
    plan calls that differ only in ``speculative``, ``disaggregate`` and ``draft_precision`` (the serving chapter's
    plain and speculative plans), which keeps each layout's numbers that these do not change, counted once.
    """
    from genreport.load.loader import is_head

    q = load()
    precisions = plan_precisions(model) if precisions is None else tuple(precisions)
    rows: list[PlanRow] = []
    skipped: list[tuple[str, str]] = []
    notes: list[str] = []
    rejected = {"weights do not fit": 0, "no sequence of the context fits": 0, "misses the latency target": 0,
                "misses the TTFT target": 0, NO_ROOM: 0}
    closest: dict[str, float] = {}
    if shape is None:
        shape = Shape(int(context), 1)
    elif context is not None and context != shape.last_context:
        raise ValueError(f"plan: context {context} is not the request's last context {shape.last_context} "
                         f"(prompt {shape.prompt} + output {shape.output} - 1)")
    context = shape.last_context
    if hw.link is None and max_gpus > 1:  # no link in the spec: nothing to price the collectives with
        skipped.append(("layouts of more than one GPU", f"{hw.title}'s spec has no interconnect"))
        max_gpus = 1
    # no row takes a batch past what the engine runs at once (its ok-mask and its break-even scan stop there): the
    # batches end one past it, so that a service of millions of users does not size every layout's arrays by them
    # (serving.users 10^6 on DeepSeek-V3: 24 GB and 77 s, each array a million batches long)
    runs = engine_limit(hw, math.inf)
    batches = np.arange(1, (batch if math.isinf(runs) else min(batch, int(runs) + 1)) + 1, dtype=float)
    s = float(context)
    tc = float(round_context(model, shape.prompt, shape.output))  # the slowest round's context: its TPOT
    drafted = speculative is not None and not isinstance(speculative[2], (int, float))  # a draft model or a head
    draft_model = drafted and not is_head(speculative[2], model)  # a catalog draft, not an EAGLE/MTP head
    if drafted and draft_precision is not None and draft_precision.compute not in hw.dense:
        weight_only = weight_only_fp8(draft_precision, hw)  # an fp8 draft on an A100: W8A16, as the target's weights
        if weight_only is None:
            skipped.append((f"the draft at {draft_precision.label()}",
                            f"{hw.title} has no dense {draft_precision.compute} peak"))
            precisions = ()
        else:
            notes.append(f"the draft's {draft_precision.weights} weights computed in bf16 on the {hw.title}, which "
                         f"has no fp8 peak: {WEIGHT_ONLY_FP8_SOURCE}")
            draft_precision = weight_only
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        layouts = plan_layouts(model, max_gpus)
        for name in precisions:
            auto, weight_only = runs_as(name, model, own, hw)
            if auto is None:
                compute = on_hardware(own_precision(name, model, own), hw.dense).compute
                skipped.append((name, f"{hw.title} has no dense {compute} peak"))
                continue
            if weight_only:
                words = model_format(model, name)
                notes.append(f"{name if words == name else f'{name} ({words})'} weights computed in bf16 on the "
                             f"{hw.title}, which has no fp8 peak: {WEIGHT_ONLY_FP8_SOURCE}")
            for kv in dict.fromkeys(auto.kv_cache if k == "auto" else k for k in kv_caches):
                prec = dataclasses.replace(auto, kv_cache=kv)
                acc_env = make_env(hw, model, prec, accounting)
                ctx = acc_env.at(context=s)
                mean = _once(memo, ("mean", prec), lambda e=acc_env: _mean_context_values(e, shape.prompt, shape.output))
                # what the slowest round reads (serving.round_context: s, or the end of a chunk before it)
                read_c = _once(memo, ("read_c", prec), lambda e=acc_env: round_values(e, s, tc))
                c_prompt = prompt_cache_c(acc_env, shape.prompt) if disaggregate else math.nan  # the KV sent
                spec_here = speculative
                if speculative is not None and not isinstance(speculative[2], (int, float)):  # a draft model
                    from genreport.model.draft import Draft

                    draft_at = draft_precision if draft_model and draft_precision is not None else prec
                    spec_here = (speculative[0], speculative[1], Draft(speculative[2], draft_at, hw, accounting),
                                 *speculative[3:])
                head = spec_here is not None and hasattr(spec_here[2], "memory") and \
                    is_head(spec_here[2].model, model)  # an EAGLE/MTP head (head_layers)
                if head:
                    from genreport.model.draft import Draft

                    # in its own declared precision (serving.speculative.draft_precision), else the row's; its
                    # cache in the row's KV format (an engine keeps one, loader._draft)
                    the_head = Draft(spec_here[2].model, prec if draft_precision is None else
                                     dataclasses.replace(draft_precision, kv_cache=prec.kv_cache), hw, accounting,
                                     head=True)
                runs = []
                for par in layouts:
                    if head:  # its output head the target's, its experts over this layout's ep GPUs
                        spec_here = (spec_here[0], spec_here[1], the_head.at_layout(par.ep, par.tp), *spec_here[3:])
                    runs.append(_plan_one(q, acc_env, model, hw, prec, name, par, ctx, batches, latency, accounting,
                                          estimate, rejected, shape, mean, spec_here, disaggregate, c_prompt, memo,
                                          read_c, closest))
                rows += [dataclasses.replace(row, weight_only=True) if weight_only else row
                         for row in _run_rows(q, runs, estimate) if row is not None]
    order = {p: i for i, p in enumerate(precisions)}
    rows.sort(key=lambda r: (-r.tokens_per_s_gpu, r.gpus, order.get(r.precision, 99), r.kv_cache, r.tp, r.pp, r.ep))
    return Plan(rows, rejected, skipped, estimate, closest, notes)


def nearest(plans) -> dict[str, float]:
    """The least of each :attr:`Plan.closest` value over ``plans``."""
    out: dict[str, float] = {}
    for p in plans:
        for k, v in p.closest.items():
            out[k] = min(v, out.get(k, math.inf))
    return out


def _pools(q, par, b, batches, ok, t_use, t_prefill, tpot, shape, latency, t_kv_link, c_tok, mean_round=None):
    """Prefill/decode disaggregation with pools of this layout (``tpot``: a decode replica's mean round, the steady
    state's): the balanced share, the smallest split of
    replicas near it, the KV transfer (``c_tok`` the cache the prompt leaves, serving.prompt_cache_c: T_in c is what
    crosses the link), and one pool at the TPOT target (formulas/techniques.py).  Each pool is a whole number of
    the layout's par.gpus GPUs, which is a whole number of expert-parallel groups (layouts_of: ep | tp, or ep over
    all the GPUs), so no pool holds part of a group where ep > tp; the pools' rate the lesser of the two."""
    out_rounds = max(shape.output - 1, 1)
    t_pr = t_prefill * par.replica_gpus  # GPU-seconds of one prompt (its replica's steady-state occupancy)
    seqs = b * par.dp / par.gpus  # decode sequences per GPU
    pools = {"t_pr": t_pr, "B": seqs, "T_out": float(shape.output), "t_s": tpot}
    decode_rate = float(q["decode_pool_rate"]({**pools, "n_D": float(par.gpus)}))  # requests/s one group retires
    # the prefill instances: whole replicas (one prompt at a time), or, where the layout has pipeline stages, each
    # replica a pipeline admitting a prompt every t_pr / pp (DistServe, section 3.1); the better split of either, a
    # tie to whole replicas
    best = None
    for k in dict.fromkeys((1, par.pp)):
        prefill_rate = float(q["prefill_pool_rate"]({**pools, "k_pp": float(k), "n_P": float(par.gpus)}))
        for n in range(2, 17):  # groups in all
            for pre in range(1, n):
                rate = min(pre * prefill_rate, (n - pre) * decode_rate)
                per_gpu = rate * out_rounds / (n * par.gpus)
                if best is None or per_gpu > best[0] * (1 + 1e-9):
                    best = (per_gpu, pre, n - pre, k)
    share = float(q["balanced_prefill_gpus"]({**pools, "n_S": 1.0, "k_pp": float(best[3])}))
    w_kv, link = t_kv_link
    t_kv = None
    if w_kv:
        t_kv = float(q["kv_transfer_time"]({"T_in": float(shape.prompt), "c": c_tok, "W_kv": w_kv}))
    # one pool that prefills whole prompts between rounds: the largest batch meeting the TPOT target
    agg = np.asarray(q["aggregated_tpot"]({"B": batches, "T_out": float(shape.output), "t_pr": t_prefill, "t_s": t_use}),
                     dtype=float) * np.ones_like(batches)
    fine = ok & (agg <= latency) if latency is not None else ok
    one_b, one_t, one_gpu = 0, None, 0.0
    if fine.any():
        j = int(np.flatnonzero(fine)[-1])
        one_b, one_t = int(batches[j]), float(agg[j])
        # its rate at the steady state's mean round (``mean_round``, as the pools'), its TPOT at the last context's
        t_rate = one_t if mean_round is None else float(q["aggregated_tpot"](
            {"B": float(one_b), "T_out": float(shape.output), "t_pr": t_prefill, "t_s": float(mean_round[j])}))
        one_gpu = one_b * par.dp / (par.gpus * t_rate)
    return share, best, t_kv, link, one_b, one_t, one_gpu


def _run_rows(q, runs: list, estimate: str) -> list:
    """The rows of :func:`_plan_one`'s runs, in their order: each runs to its speculative rounds (it yields its
    request's values and what :func:`serving.speculative_request` takes), where the rounds of all the layouts are
    counted at once (serving._requests_many, stacked.over) and sent back."""
    rows, waiting = [None] * len(runs), []
    for i, run in enumerate(runs):
        try:
            waiting.append((i, run, next(run)))
        except StopIteration as done:
            rows[i] = done.value
    if waiting:
        serial = estimate != "bound"
        dec_qid = "request_decode_time_bound" if estimate == "bound" else "request_decode_time_serial"
        decs = [np.asarray(d, dtype=float) * np.ones_like(ask[1][5]) for d, (_, _, ask) in
                zip(over(q[dec_qid], [ask[0] for _, _, ask in waiting]), waiting, strict=True)]
        items = [(env, lay, cv, rv, mean, batches, t_last, dec, output, spec, read)
                 for (_, _, (_, (env, lay, cv, rv, mean, batches, t_last, output, spec, read))), dec
                 in zip(waiting, decs, strict=True)]
        for (i, run, _), dec, sr in zip(waiting, decs, _requests_many(q, items, serial), strict=True):
            try:
                run.send((dec, sr))
                raise RuntimeError("plan: a row asked twice for its speculative rounds")
            except StopIteration as done:
                rows[i] = done.value
    return rows


def _once(memo: dict | None, key, make):
    """``make()``, kept in ``memo`` under ``key`` (None: no memo, made each time)."""
    if memo is None:
        return make()
    if key not in memo:
        memo[key] = make()
    return memo[key]


def _plan_one(q, env, model, hw, prec, name, par, ctx, batches, latency, accounting, estimate, rejected, shape, mean,
              speculative=None, disaggregate=False, c_prompt=math.nan, memo=None, read_c=None, closest=None):
    """One row of :func:`plan` (None: the layout is rejected, counted in ``rejected``), a generator run by
    :func:`_run_rows`: with ``speculative`` it yields its request's values at every batch and the inputs of
    serving.speculative_request, and takes back (the plain decode times, the speculative request).  ``memo``: numbers of the
    layout that speculation does not change (its values, the weights' bytes, TTFT, the plain decode rounds), kept
    over the plan calls that share it (:func:`plan`'s ``memo``); ``read_c``: the c a decode step at the request's
    slowest round reads (serving.round_values: its c, and its S and d_h where that is not the last context), where
    the caller has it."""
    key = (name, prec, par)  # the precision itself: a plan's own format may differ from another's of the same name

    def layout_part():
        links, base, usable = layout_base(env, model, hw, prec, par, accounting)
        return links, base, usable, float(q["weight_bytes_per_gpu"](base))

    links, base, usable, w_gpu = _once(memo, ("layout",) + key, layout_part)
    if not usable > 0:  # the engine's reserve and its step's activations take the whole GPU: no weight fits
        rejected[NO_ROOM] += 1
        return None
    if w_gpu > usable:
        rejected["weights do not fit"] += 1
        return None

    def context_part():
        cv = dict(held_at(base, hw, model, prec, par, np.float64(ctx["S"]), np.float64(np.ravel(ctx["c"])[0])),
                  d_h=np.float64(np.ravel(ctx["d_h"])[0]))
        return cv, float(q["capacity_batch_replica"](cv))

    cv, cap = _once(memo, ("context",) + key, context_part)
    if cap + 1 < len(batches):
        # no row takes a batch past what fits (a draft's share only lowers it), nor scans one for its break-even
        # (the serving chapter's lever stops at what fits and at the engine, serving.engine_limit): its batches end
        # one past that, as :func:`plan` ends them one past the engine's limit
        batches = batches[:int(cap) + 1]
    draft = speculative[2] if speculative is not None and hasattr(speculative[2], "memory") else None
    if draft is not None:  # the draft's weights and KV cache share the replica's memory (capacity_batch_draft)
        cap, m_d, c_d = draft.capacity(q, cv, par, (model, prec))
    if not cap >= 1:
        rejected["no sequence of the context fits"] += 1
        return None

    def ttft_part():
        lay = env.with_layout(par)
        qid, busy = (("prefill_time_bound", "prefill_pass_bound") if estimate == "bound"
                     else ("prefill_time_serial", "prefill_time_serial"))
        # and what the prompt occupies its replica for in a steady state, which prices it (Request.prefill_bound): its
        # pass through the stages; a prefix cache's share of each prompt not prefilled (serving.prompt_prefill)
        alone, steady = prompt_prefill(q, base, lay, shape.prompt, shape.prefix_hit, (qid,), (busy,))
        return alone[qid], steady[busy]

    ttft, busy = _once(memo, ("ttft", shape.prefix_hit) + key, ttft_part)  # a memo over shapes keeps each hit's
    if shape.ttft is not None and not ttft <= shape.ttft:
        rejected["misses the TTFT target"] += 1
        if closest is not None and math.isfinite(ttft):
            closest["ttft"] = min(ttft, closest.get("ttft", math.inf))
        return None
    serial = estimate != "bound"  # the bound never reads u_x: the estimate's busiest GPU is counted where it is used

    def rounds_part():
        lay = env.with_layout(par)
        read = dict(cv, **(read_c if read_c is not None else round_values(env, float(cv["S"]), float(cv["S"]))))
        v = at_batch(read, lay, batches, busiest=serial)
        t_bound = np.asarray(q["decode_time_bound"](v), dtype=float) * np.ones_like(batches)
        t_serial = np.asarray(q["decode_time_serial"](v), dtype=float) * np.ones_like(batches) if serial else None
        return lay, read, v, t_bound, t_serial

    lay, read, v, t_bound, t_serial = _once(memo, ("rounds",) + key, rounds_part)
    t_use = t_bound if estimate == "bound" else t_serial
    t_plain = t_use
    # the request's rounds summed in closed form at the mean context (serving.py), the values at each batch
    req = dict(base, T=np.float64(shape.prompt), T_o=np.float64(shape.output), c=np.float64(mean[1]),
               d_h=np.float64(mean[2]))
    dec_qid = "request_decode_time_bound" if estimate == "bound" else "request_decode_time_serial"
    if speculative is not None:  # serving.speculative_request: TPOT at the last context's speed-up, rates the mean's
        rv_all = at_batch(req, lay, batches, busiest=serial, bound="request_decode_time_bound")
        # dec_all: q[dec_qid](rv_all) at every batch; sr: serving.speculative_request, both counted by _run_rows
        dec_all, sr = yield rv_all, (env, lay, cv, rv_all, shape.prompt + shape.output / 2, batches, t_use,
                                     shape.output, speculative, read)
        speed = sr["last"]["speedup"]
        spec_on = speed > PAYS  # serving.PAYS: a tie (past rounding) goes to plain decoding
        t_use = np.where(spec_on, sr["tpot"], t_use)
    want = int(batches[-1])
    if shape.users:  # the users spread over the dp replicas: no replica is asked for more than its share
        want = min(want, -(-shape.users // par.dp))
    runs = engine_limit(hw, math.inf)  # the engine's max_sequences (serving.engine_limit): inf where none
    ok = (batches <= cap) & (batches <= want) & (batches <= runs)
    prompts = math.inf
    if latency is not None:
        ok &= t_use <= latency
    decoding = ok.copy()  # a decode replica of disaggregated pools prefills nothing: the TPOT target's batch alone
    if latency is not None:
        # and no more sequences than the replica's compute keeps at the target with their prompts' prefills: where
        # the round speculates, each kept token's n_v / E verified tokens and k_d / E draft passes counted
        # (serving.compute_batch with the speculative inputs, compute_batch_speculative), else the plain one's
        prompts = _once(memo, ("prompts",) + key, lambda: compute_batch(env, par, shape.prompt, shape.output, latency,
                                                                          shape.prefix_hit))
        if speculative is not None:
            # kept by the speculative inputs, the draft object itself (its identity, as serving._draft_capacity's)
            prompts_spec = _once(memo, ("prompts_spec",) + key + tuple(speculative), lambda: compute_batch(
                env, par, shape.prompt, shape.output, latency, shape.prefix_hit, speculative))
            prompts = np.where(spec_on, prompts_spec, prompts)
        ok &= batches <= prompts
    if not ok.any():
        rejected["misses the latency target"] += 1
        if closest is not None and math.isfinite(float(t_use[0])):
            closest["tpot"] = min(float(t_use[0]), closest.get("tpot", math.inf))
        return None
    i = int(np.flatnonzero(ok)[-1])
    b = int(batches[i])
    if b == want:
        limit = "batch"
    elif b >= cap:
        limit = "capacity"
    elif b >= runs:
        limit = "engine"
    elif b + 1 > np.ravel(prompts)[min(i + 1, np.size(prompts) - 1)]:
        # the compute the sequences' prompts take at the TPOT target (serving.compute_batch), the next batch's (its
        # round may speculate where this one's does not)
        limit = "prompts"
    else:
        limit = "latency"
    if shape.users:
        # the users take ceil(users / (b dp)) copies of the layout; spread over them, the busiest replica runs fewer
        # than b, and the row is that deployment: its TPOT, rates and $/M at that batch (256 users at tp 8, where 193
        # fit a replica, run 128 on each of 2: the row priced 193 a replica beside the 16 GPUs the 256 take)
        copies = -(-shape.users // (b * par.dp))
        spread = -(-shape.users // (copies * par.dp))
        if spread < b and batches[spread - 1] == spread and ok[spread - 1]:
            i, b, limit = spread - 1, spread, "users"
    ledgers = [float(x[i]) for x in _once(memo, ("ledgers",) + key, lambda: [
        np.ravel(np.asarray(q[qid](v), dtype=float) * np.ones_like(batches))
        for qid in ("decode_time_compute_gpu", "decode_time_memory_gpu", "decode_time_comm")])]
    binds = "capacity" if limit == "capacity" else BINDS[int(np.argmax(ledgers))]
    link_text = ", ".join(f"{g}: {c.tier} {c.name}" for g, c in links.items() if c.tier != "none") or "-"
    t = float(t_use[i])
    t_ser = float(t_serial[i]) if serial else _once(
        memo, ("serial", b) + key, lambda: float(q["decode_time_serial"](at_batch(read, lay, float(b)))))
    # the request: its output - 1 decode rounds in closed form at the chosen batch (serving.py)
    spec_fields = {}
    if speculative is None:
        dec = float(q[dec_qid](at_batch(req, lay, float(b), busiest=serial, bound="request_decode_time_bound")))
        per_user = (shape.output - 1) / dec if shape.output > 1 and dec > 0 else 1.0 / t
    else:
        on = bool(spec_on[i])
        # speculating, the rounds at the mean context yield its speed-up's tokens; off, plain rounds
        dec = float(sr["decode"][i] if on else dec_all[i])
        per_user = float(sr["tokens_per_s_user"][i]) if on else \
            (shape.output - 1) / dec if shape.output > 1 and dec > 0 else 1.0 / t
        # the break-even scan stops where the engine does (its max_sequences, serving.engine_limit), as the serving
        # chapter's lever scans: no batch past what a replica runs at once (it named batches past 256)
        scan = spec_on[batches <= runs]
        past = np.flatnonzero(~scan)
        again = np.flatnonzero(scan[past[0]:]) + past[0] if past.size else np.array([], dtype=int)
        stops = np.flatnonzero(~scan[again[0]:]) + again[0] if again.size else np.array([], dtype=int)
        spec_fields = {"speculative": "on" if on else "off", "spec_speedup": float(speed[i]),
                       "spec_speedup_mean": float(sr["mean"]["speedup"][i]),
                       "spec_breakeven_batch": int(batches[past[0]]) if past.size else None,
                       "spec_resumes_batch": int(batches[again[0]]) if again.size else None,
                       "spec_stops_again_batch": int(batches[stops[0]]) if stops.size else None,
                       "tpot_plain": float(t_plain[i])}
    per_gpu = b * per_user / par.replica_gpus
    held = dict(cv, B=np.float64(b))
    headroom = float(cv["C"]) - float(q["memory_per_gpu"](held))  # on the stage that holds the fewest tokens
    if draft is not None:  # the draft's weights and its cache of the b sequences, on each stage they may bind
        headroom = min(float(o["C"]) - float(q["memory_per_gpu"](dict(held, **o))) - float(o["M_d"])
                       - b * float(cv["S"]) * float(o["c_d"]) for o in draft.stages(q, cv, par, (model, prec)))
    price = hw.price_per_hour
    users = shape.users or 0
    replicas = -(-users // (b * par.dp)) if users else 0
    if disaggregate:
        # the pools at the steady state's mean round, (T_o - 1) / tok/s per user, as per_gpu above and the serving
        # chapter's disaggregation row take it, not the TPOT round at the last context (a latency, not a rate)
        rounds = max(shape.output - 1, 1)
        if speculative is not None:
            mean_round = np.where(spec_on, 1.0 / sr["tokens_per_s_user"], dec_all / rounds)
        else:
            mean_round = np.asarray(q[dec_qid](at_batch(req, lay, batches, busiest=serial,
                                                        bound="request_decode_time_bound")), dtype=float) / rounds
        mean_round = mean_round * np.ones_like(batches)
        # a decode pool's replica runs the batch its TPOT allows without prompts to prefill (compute_batch binds the
        # one pool's, not its); else the row's batch and mean round (1 / its tok/s per user)
        d_b, d_round = (int(batches[np.flatnonzero(decoding)[-1]]), float(mean_round[np.flatnonzero(decoding)[-1]])) \
            if limit == "prompts" and decoding.any() else (b, 1.0 / per_user)
        share, best, t_kv, link, one_b, one_t, one_gpu = _pools(
            q, par, d_b, batches, (batches <= cap) & (batches <= want) & (batches <= runs), t_use, busy, d_round, shape,
            latency, kv_link(hw, par, par.gpus), c_prompt, mean_round)
        pool_ttft = ttft + (t_kv or 0.0)
        misses = shape.ttft is not None and not pool_ttft <= shape.ttft
        pool_gpu = None if misses else best[0]
        if misses:
            beats = "no"  # the KV transfer pushes TTFT past its target
        elif not one_b or pool_gpu > 1.02 * one_gpu:
            beats = "yes"  # one pool meets the TPOT target at no batch, or only at a smaller one
        else:
            beats = "no" if pool_gpu < 0.98 * one_gpu else "tie"
        spec_fields.update({"pool_prefill_share": share, "pool_split": f"{best[1]}:{best[2]}",
                            "pool_prefill_stages": best[3], "pool_prefill_pass": busy, "pool_decode_batch": d_b,
                            "kv_transfer": t_kv,
                            "kv_link": link, "pool_ttft": pool_ttft, "pool_tokens_per_s_gpu": pool_gpu,
                            "one_pool_batch": one_b, "one_pool_tpot": one_t, "one_pool_tokens_per_s_gpu": one_gpu,
                            "pool_beats": beats})
    p_in = usd_per_mtok(price, prompt_rate(shape.prompt, busy, par.pp) / par.replica_gpus)
    p_out = usd_per_mtok(price, per_gpu)
    return PlanRow(name, par.tp, par.pp, par.ep, par.gpus, w_gpu, int(min(cap, 1e9)), b, limit, binds,
                   float(t_bound[i]), t_ser, ledgers[2], b * per_user, per_gpu, link_text,
                   par.dp, hw.name, prec.kv_cache, ttft, t, ttft + dec, per_user, int(min(cap, 1e9)) * par.dp,
                   headroom, p_in, p_out, joules_per_token(hw.power_watts, per_gpu),
                   replicas * par.gpus,
                   per_gpu * node_busy_gpus(par.replica_gpus, hw.node.gpus_per_node)
                   if hw.node is not None and hw.node.gpus_per_node else None,
                   redundant_experts=par.redundant_experts,
                   scale_out_groups=tuple(g for g, c in links.items() if c.tier == "scale-out"),
                   compute=prec.compute,
                   usd_per_request=(shape.prompt * p_in + (shape.output - 1) * p_out) / 1e6
                   if p_in is not None and p_out is not None and shape.output > 1 else
                   shape.prompt * p_in / 1e6 if p_in is not None and shape.prefill_only and shape.output == 1 else None,
                   **spec_fields)


def kv_link(hw: Hardware, par: Parallelism, pool_gpus: int | None = None) -> tuple[float | None, str]:
    """(B/s, name) of the path one prompt's KV cache takes from a prefill replica to a decode replica: the
    scale-up link when two copies of what each pool is made of, ``pool_gpus`` GPUs (default a replica's; where an
    expert-parallel group spans replicas, the pools are whole groups and a prefill replica's decode partner sits in
    another group), fit in its domain; else the scale-out network; (None, reason) when the spec has neither.  Each of
    the replica's GPUs sends its own slice, all at once: the rate is the replica's GPUs' links."""
    g = par.replica_gpus
    unit = max(int(pool_gpus or g), g)
    if hw.link is not None and hw.link.domain and 2 * unit <= hw.link.domain:
        return g * hw.link.rate(2), f"scale-up {hw.link.short_name}"
    out = hw.node.scale_out if hw.node is not None else None
    if out is not None:
        return g * out.bandwidth_per_direction, f"scale-out {out.short_name}"
    return None, "no link between replicas in the spec"


@dataclass(frozen=True)
class Point:
    """The bounds of one layout at one workload point (for audits of published numbers and for ``plan``)."""

    weights_fit: bool
    capacity_batch: float  # sequences of the context one replica holds
    time_bound: float  # s, strict lower bound of a decode round
    time_serial: float  # s, serialized estimate
    time_comm: float  # s, interconnect ledger of a decode round
    prefill_bound: float  # s, strict lower bound of one prefill of ``prompt`` tokens (nan without a prompt)
    prefill_serial: float = math.nan  # s, serialized estimate of the same prefill (nan without a prompt)


def _at_layout(env, model: Model, hw: Hardware, precision: Precision, par: Parallelism, context: float,
               accounting: str) -> tuple[dict, float, dict]:
    """The layout's values (``C`` the usable memory per GPU at its tp), that memory, and the values at one
    context (its KV bytes per token ``c`` and head dimension): what :func:`point` and :func:`layout_bound` read."""
    _, base, usable = layout_base(env, model, hw, precision, par, accounting)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ctx = env.at(context=float(context))
        cv = dict(held_at(base, hw, model, precision, par, np.float64(context), np.float64(np.ravel(ctx["c"])[0])),
                  d_h=np.float64(np.ravel(ctx["d_h"])[0]))
    return base, usable, cv


def point(model: Model, hw: Hardware, precision: Precision, par: Parallelism, batch: float, context: float,
          prompt: float | None = None, accounting: str = "seed") -> Point:
    """Decode (and prefill) bounds of ``model`` on ``hw`` laid out as ``par`` at one batch and context."""
    q = load()
    env = make_env(hw, model, precision, accounting)
    base, usable, cv = _at_layout(env, model, hw, precision, par, context, accounting)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        w_gpu = float(q["weight_bytes_per_gpu"](base))
        cap = float(q["capacity_batch_replica"](cv))
        v = at_batch(dict(cv, c=_read_c(env, cv["S"])), env.with_layout(par), float(batch))
        pv = at_prompt(base, env.with_layout(par), float(prompt)) if prompt else None
        pre, pre_serial = ((float(q["prefill_time_bound"](pv)), float(q["prefill_time_serial"](pv))) if pv
                           else (math.nan, math.nan))
        return Point(w_gpu <= usable, max(cap, 0.0), float(q["decode_time_bound"](v)),
                     float(q["decode_time_serial"](v)), float(q["decode_time_comm"](v)), pre, pre_serial)


def layouts_of(model: Model, gpus: int, tp: int | None = None, pp: int | None = None) -> list[Parallelism]:
    """Every layout of exactly ``gpus`` GPUs that ``plan`` considers: tp x pp replicas (dp = gpus / (tp pp) of
    them, the experts split inside each, ep | tp) and, for an MoE, data-parallel attention with the experts over
    all of them; only those with the stated ``tp`` / ``pp`` where given."""
    out: list[Parallelism] = []
    for t in tp_choices(model, gpus):
        for p in _pp_choices(model.layers, gpus // t):
            if gpus % (t * p) or (tp is not None and t != tp) or (pp is not None and p != pp):
                continue
            out += [Parallelism(t, p, e, gpus // (t * p)) for e in _ep_choices(model, t)]
    if pp in (None, 1) and model.moe is not None:  # the experts over all the GPUs, evenly or not (SGLang's
        # redundant experts place 288 copies of DeepSeek-V3's 256 on 72 GPUs): the mean GPU's share is counted
        out += [Parallelism(t, 1, gpus, gpus // t) for t in tp_choices(model, gpus)
                if gpus % t == 0 and gpus // t > 1 and (tp is None or t == tp)]
    return out


@dataclass(frozen=True)
class LayoutBound:
    """A strict bound of a group's work at one layout (for ``audit``): the decode round at a batch per replica, the
    prefill of one prompt on one replica, the fewest expert bytes any routing reads."""

    par: Parallelism
    fits: bool  # the weights fit in each GPU's memory
    capacity_batch: float  # sequences of the context one replica holds
    decode: float  # s, a decode round (nan without a batch)
    decode_binds: str
    prefill: float  # s (nan without a prompt)
    prefill_binds: str


def layout_bound(model: Model, hw: Hardware, precision: Precision, par: Parallelism, batch: float | None,
                 context: float, prompt: float | None, accounting: str = "exact", env=None) -> LayoutBound:
    """``decode_time_bound`` and ``prefill_time_bound`` at the layout, communication included; an MoE's round
    reads the experts one token picks (every token of the batch picking the same: the fewest bytes)."""
    return layout_bounds(model, hw, precision, [par], [batch], context, prompt, accounting, env)[0]


def layout_bounds(model: Model, hw: Hardware, precision: Precision, pars: list[Parallelism],
                  batches: list[float | None], context: float, prompt: float | None, accounting: str = "exact",
                  env=None) -> list[LayoutBound]:
    """:func:`layout_bound` of each layout of ``pars`` at its batch per replica (``batches``, None: no decode round):
    each layout's values made one at a time, each formula evaluated once over all the layouts (the generated NumPy
    functions take arrays, element by element), as ``audit`` prices every layout of a claim's GPUs."""
    q = load()
    env = env or make_env(hw, model, precision, accounting)
    if not pars:
        return []
    bases, usables, cvs, decode = [], [], [], {}
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i, (par, batch) in enumerate(zip(pars, batches, strict=True)):
            base, usable, cv = _at_layout(env, model, hw, precision, par, context, accounting)
            bases.append(base)
            usables.append(usable)
            cvs.append(cv)
            if batch is not None:
                lay = env.with_layout(par)
                read = dict(cv, c=_read_c(env, cv["S"]))
                v = at_batch(read, lay, float(batch), busiest=False)
                if model.moe is not None:  # the fewest experts: those one token picks, and their fastest schedule
                    one = at_batch(read, lay, 1.0, busiest=False)
                    v.update({k: one[k] for k in ("N", "N_x", "b") if k in one})
                    v["m_b"] = fastest_schedule(v, par.pp)
                decode[i] = v
        weights = _over(q["weight_bytes_per_gpu"], bases)
        caps = _over(q["capacity_batch_replica"], cvs)
        t_dec, dec_binds = [math.nan] * len(pars), [""] * len(pars)
        if decode:
            rows, values = list(decode), list(decode.values())
            times = _over(q["decode_time_bound"], values)
            ledgers = np.stack([_over(q[k], values) for k in
                                ("decode_time_compute_gpu", "decode_time_memory_gpu", "decode_time_comm")])
            for j, i in enumerate(rows):
                t_dec[i], dec_binds[i] = float(times[j]), BINDS[int(np.argmax(ledgers[:, j]))]
        t_pre, pre_binds = [math.nan] * len(pars), [""] * len(pars)
        if prompt:
            # the fewest experts, as the decode round's: those one token picks (every token picking the same)
            pvs = [at_prompt(base, env.with_layout(par), float(prompt), fewest=True)
                   for base, par in zip(bases, pars, strict=True)]
            times = _over(q["prefill_time_bound"], pvs)
            ledgers = np.stack([_over(q[k], pvs) for k in
                                ("prefill_time_compute_gpu", "prefill_time_memory_gpu", "prefill_time_comm")])
            t_pre = [float(t) for t in times]
            pre_binds = [BINDS[int(np.argmax(ledgers[:, j]))] for j in range(len(pars))]
    return [LayoutBound(par, float(weights[i]) <= usables[i], max(float(caps[i]), 0.0), t_dec[i], dec_binds[i],
                        t_pre[i], pre_binds[i]) for i, par in enumerate(pars)]


def _over(formula, values: list[dict]) -> np.ndarray:
    """``formula`` evaluated once over several dicts of values (each argument stacked into a float64 array): one
    result per dict, as one call per dict gives."""
    args = {a: np.array([np.float64(v[a]) for v in values]) for a in formula.fn_args}
    return np.broadcast_to(np.asarray(formula(args), dtype=np.float64), (len(values),))


def smallest(result: Plan) -> PlanRow | None:
    """The layout with the fewest GPUs in a plan (then the most tokens/s per GPU): what page 1 names when the
    model does not fit one card."""
    if not result.rows:
        return None
    return min(result.rows, key=lambda r: (r.gpus, -r.tokens_per_s_gpu, r.pp, r.tp, r.ep))


def scaling(model: Model, hw: Hardware, precision: Precision, batch: float, context: float,
            degrees=(1, 2, 4, 8, 16, 32, 64), accounting: str = "seed") -> list[dict]:
    """The decode round against the tensor-parallel degree: the three ledgers, the bound, the estimate, the rates.

    One row per degree the model accepts (a divisor of the heads that splits the KV heads evenly); ``fits``
    says whether the replica holds the weights and ``batch`` sequences of ``context``.  For the figure of
    the time split into compute / HBM / interconnect against the GPU count.
    """
    q = load()
    env = make_env(hw, model, precision, accounting)
    ok = set(tp_choices(model, max(degrees)))
    rows = []
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for tp in degrees:
            if tp not in ok:
                continue
            par = Parallelism(tp=tp)
            links, _ = choose_links(hw, par)
            # the memory a GPU of this degree may use (its own activations), not the report's layout's
            _, _, cv = _at_layout(env, model, hw, precision, par, context, accounting)
            v = at_batch(dict(cv, c=_read_c(env, cv["S"])), env.with_layout(par), float(batch))
            t = {qid: float(q[qid](v)) for qid in ("decode_time_compute_gpu", "decode_time_memory_gpu",
                                                  "decode_time_comm", "decode_time_bound", "decode_time_serial",
                                                  "decode_time_comm_estimate", "decode_time_memory_busiest",
                                                  "decode_time_overhead", "decode_time_compute_serial")}
            cap = float(q["capacity_batch_replica"](cv))
            rows.append({"tp": tp, "gpus": tp, "compute": t["decode_time_compute_gpu"],
                         "hbm": t["decode_time_memory_gpu"], "interconnect": t["decode_time_comm"],
                         "interconnect_estimate": t["decode_time_comm_estimate"],
                         "hbm_busiest": t["decode_time_memory_busiest"], "overhead": t["decode_time_overhead"],
                         "compute_estimate": t["decode_time_compute_serial"],  # the FLOPs at e_m of the peak
                         "bound": t["decode_time_bound"], "serial": t["decode_time_serial"],
                         "tokens_per_s_replica": batch / t["decode_time_bound"],
                         "tokens_per_s_gpu": batch / (t["decode_time_bound"] * tp),
                         "tokens_per_s_gpu_serial": batch / (t["decode_time_serial"] * tp),
                         "fits": bool(cap >= batch), "link": links["tp"].tier})
    return rows


def fit_map(model: Model, hw: Hardware, contexts, precisions=PLAN_PRECISIONS, batch: float = 1.0,
            accounting: str = "seed") -> dict[str, list[float | None]]:
    """Smallest tp x pp that holds ``batch`` sequences at each context, per weight precision the GPU computes.

    For the fit map (minimum GPUs by context x precision); None where nothing up to 4096 GPUs fits.
    """
    q = load()
    out: dict[str, list[float | None]] = {}
    ctx = np.asarray(contexts, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for name in precisions:
            prec = runs_as(name, model, None, hw)[0]  # fp8 on an A100: weight-only in bf16, as plan's rows
            if prec is None:
                continue
            env = make_env(hw, model, prec, accounting)
            par = Parallelism()
            links, _ = choose_links(hw, par)
            base = layout_values(env.values, model, par, links, prec, accounting, env.pc, kernels=hw.kernels)
            c = np.asarray(env.at(context=ctx)["c"], dtype=float)[None, :]
            gpus, _, _ = min_gpus_to_fit(q, dict(base, c=c), model, [batch], ctx, stage_capacity(hw, model, prec, ctx))
            out[name] = [None if not np.isfinite(g) else float(g) for g in gpus[0]]
    return out


def spec_values(spec, accounting: str, batch=None) -> dict[str, float]:
    """The parallel symbols' values of a report spec (one GPU when it has no ``parallelism``), for ``derive``.

    Only the symbols the single-card inputs lack: degrees, links, expert counts, b_a, s_kv and the training split
    of the spec's first recipe; at a batch, an MoE model's N_x is what that batch touches.
    """
    par = spec.parallelism or Parallelism()
    env = spec_env(spec, accounting, layout=False)
    links, _ = choose_links(spec.hardware, par)
    recipe = spec.workloads.recipes[0] if spec.workloads.recipes else "bf16-grads"
    values = layout_values(env.values, spec.model, par, links, spec.precision, accounting, env.pc, recipe,
                           spec.hardware.kernels, spec.hardware)
    if batch is not None:
        values = at_batch(values, env.with_layout(par), float(batch), bound=None)  # m_b: at the point's context
    return {k: float(np.ravel(v)[0]) for k, v in values.items() if k not in env.values and k != "B"} | (
        {"N_x": float(np.ravel(values["N_x"])[0])})


# ----------------------------------------------------------------------------------------------- the report's view

@dataclass(frozen=True)
class ManyGpus:
    batch_large: int  # the large batch of the scaling curves: the spec's largest
    context: int  # the context of the scaling curves and of the smallest layout: the spec's first
    scaling_batch1: tuple[dict, ...]  # one row per TP degree (scaling)
    scaling_large: tuple[dict, ...]
    fit_contexts: tuple[int, ...]
    fit_map: dict  # weight format -> minimum GPUs per context (None: nothing up to 4096 fits)
    smallest: dict | None  # the smallest layout in the spec's weight format that holds one sequence of the
    # context (a plan row), when one card does not hold the weights
    smallest_any: dict | None  # the same over every weight format
    link: str  # the scale-up link, in words ("" when the spec has none)
    weight_only: tuple[str, ...] = ()  # the fit map's formats whose fp8 weights compute in bf16 here (W8A16)

    @property
    def tp_fits(self) -> bool:
        """Whether a tensor-parallel layout of the scaling curves holds the weights and one sequence: where none
        does, the report says so in a sentence, not a figure of nothing (Llama 4 Maverick bf16 up to 8 H100)."""
        return any(x["fits"] for x in (*self.scaling_batch1, *self.scaling_large))


def many_gpus(r) -> ManyGpus | None:
    """None for a spec without decode, or a GPU whose spec has no interconnect (nothing to price the collectives)."""
    spec = r.spec
    w = spec.workloads
    hw = spec.hardware
    if not w.decode_context or hw.link is None:
        return None
    s0 = int(w.decode_context[0])
    big = int(max(w.decode_batch or (1,)))
    degrees = (1, 2, 4, 8, 16, 32, 64)
    b1 = scaling(spec.model, hw, spec.precision, 1.0, float(s0), degrees, spec.accounting)
    bl = scaling(spec.model, hw, spec.precision, float(big), float(s0), degrees, spec.accounting)
    ctxs = tuple(int(s) for s in w.decode_context)
    fmap = fit_map(spec.model, hw, ctxs, accounting=spec.accounting)
    smallest_own = smallest_any = None
    if not r.verdicts.get("weights_fit", True):
        found = plan(spec.model, hw, 1, s0, precisions=report_precisions(spec), accounting=spec.accounting,
                     own=spec.precision)
        best = smallest(found)
        smallest_any = best.as_json() if best is not None else None
        # the spec's own weights as plan names them (own_format: gpt-oss-120b's checkpoint formats are 'checkpoint')
        mine = own_format(spec.precision, spec.model)
        own = smallest(Plan([x for x in found.rows if x.precision == mine], {}, [], ""))
        smallest_own = own.as_json() if own is not None else None
    link = f"{hw.link.short_name}" if getattr(hw.link, "name", None) else ""
    weight_only = tuple(name for name in fmap if runs_as(name, spec.model, None, hw)[1])
    return ManyGpus(big, s0, tuple(b1), tuple(bl), ctxs, fmap, smallest_own, smallest_any, link, weight_only)
