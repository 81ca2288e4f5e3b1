"""Published claims against the physical bound: one verdict per claim, and the likely mislabel when it beats it.

A claim is a measurement as published: a model on some GPUs at a precision, batch and prompt/output
lengths, and one number (tokens/s in total or per GPU, ms per output token, time to first token, end-to-end
latency of one request, MBU or MFU).  Its bound is computed with the evaluation code (:func:`genreport.model.evaluate.make_env` and
the compiled quantities) in the ``exact`` accounting, which counts what is physically moved and
computed (the input embedding is a row lookup, the output head runs once per prefill):

* a decode step at batch B and mean context S is no faster than max(F / P, Q / W)
  (``decode_time_compute``, ``decode_time_memory``); output tokens/s <= B / that, and with both lengths given
  <= the group's peak P o / (F_pre(T_in) + o F / B): each output token carries 1/o of its prompt's prefill FLOPs;
* a prefill of T tokens is no faster than ``prefill_time_compute`` and ``prefill_time_memory``;
* the weights must fit in the GPUs' memory.

Every unknown (an empty cell) takes the value that makes the bound loosest, so a verdict of
``impossible`` holds whatever the unknown was: no batch -> the largest batch that fits; no GPU count ->
no bound on the total; no precision -> 4-bit weights and KV and the GPU's highest dense peak; no lengths ->
a 1-token context; a block-scaled weight format (nvfp4, mxfp4, fp8_block) names no KV cache -> the smallest.
A mixture of experts is bounded as if every token of the batch picked the same
experts (the fewest bytes any routing reads).

Several GPUs are priced through their layout (:func:`_through_layouts`): the stated tp x pp (the replicas
dp = gpus / (tp pp) sharing the batch), or where the claim does not say, every layout of that many GPUs that
``plan`` considers, the loosest of them; each round and prefill is the layout's strict bound
(``decode_time_bound``, ``prefill_time_bound``: compute, HBM and the collectives over the GPU's link, overlapped).
Where no layout applies (a GPU without an interconnect in its spec, a stated tp x pp that does not divide the
GPUs) they are one ideal group (:func:`group`): n times the bandwidth, compute and memory, no communication.
The utilisations (MBU, MFU) are always the group's: what the claim implies of n GPUs' peaks.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np
from genreport.formulas.compiled import load as load_compiled
from genreport.load.spec import PRECISION_BYTES, WEIGHT_FORMAT_BYTES, Hardware, Model, Precision, on_hardware
from genreport.model.env import make_env
from genreport.present import fmt

METRICS = {
    "tokens_per_s": "token/s",
    "tokens_per_s_per_gpu": "token/s",
    "ms_per_token": "ms",
    "ttft_ms": "ms",
    "e2e_ms": "ms",
    "mbu": "1",
    "mfu": "1",
}
RATES = ("tokens_per_s", "tokens_per_s_per_gpu")
DECODE_METRICS = ("tokens_per_s", "tokens_per_s_per_gpu", "ms_per_token")
WEIGHT_ONLY = {"int8-weights": "int8", "int4-weights": "int4"}
PRECISIONS = tuple(sorted(set(PRECISION_BYTES) | set(WEIGHT_FORMAT_BYTES) | set(WEIGHT_ONLY) | {"checkpoint"}))
GROUP_SIZES = (1, 2, 4, 8, 16, 32, 64, 72, 128, 256, 512, 1024)
TOLERANCE = 1e-9  # rounding of the inputs, not physics
NEAR_PEAK = 0.9  # an ok claim above this MBU or MFU gets a word of caution (not a verdict)
SPECULATION = 8.0  # tokens per weight pass that speculative decoding can plausibly accept, at most


@dataclass(frozen=True)
class Claim:
    """One published measurement; None means the source does not say."""

    id: str
    model: Model
    hardware: Hardware
    metric: str
    value: float
    gpus: int | None = None
    tp: int | None = None
    pp: int | None = None
    precision: str | Precision | None = None
    batch: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    accounting: str = "exact"  # the physical one; a report's measurement check passes its lead accounting


@dataclass
class Bound:
    """The physical bound of a claim in the claim's own terms, and what the claim implies."""

    value: float | None  # in the metric's unit: the most tokens/s, the fewest ms, or 1 for MBU/MFU
    fits: bool  # the weights fit in the group's memory
    mbu: float | None = None
    mfu: float | None = None
    binds: str = ""  # bandwidth, compute, capacity or "" (no bound)
    assumed: dict[str, object] = field(default_factory=dict)  # what filled an empty cell
    weight_bytes: float = 0.0
    memory: float = 0.0
    layout: str = ""  # the layout the bound was priced at ("" for one GPU or the ideal group)
    sequence: float = 0.0  # the weights fit, but not one sequence of this many tokens beside them (0: not so)
    # the stated batch does not fit at its mean context: (the batch, the context, the sequences that fit); None: it does
    crowded: tuple[float, float, float] | None = None

    def holds(self, metric: str, value: float) -> bool:
        """Whether the claimed value is physically possible under this bound."""
        if not self.fits:
            return False
        if self.value is None:
            return True
        if metric in RATES or metric in ("mbu", "mfu"):
            return value <= self.value * (1 + TOLERANCE)
        return value * (1 + TOLERANCE) >= self.value


def group(hw: Hardware, gpus: int, tp: int | None = None, pp: int | None = None) -> Hardware:
    """n GPUs as one ideal device: n times the bandwidth, dense peaks and memory, no communication.

    This is the loosest physically valid bound for any split (tensor, pipeline, expert or data parallel):
    each GPU streams only its share of the weights and does its share of the FLOPs, and nothing else
    costs time.  ``tp`` and ``pp`` are accepted so that a model of parallelism can replace this function.
    """
    if gpus == 1:
        return hw
    return dataclasses.replace(hw, bandwidth=hw.bandwidth * gpus, capacity=hw.capacity * gpus,
                               dense={k: v * gpus for k, v in hw.dense.items()})


def precision_of(name: str | Precision | None, hw: Hardware, model=None) -> tuple[Precision, dict]:
    """The Precision of a claim's precision cell, and what was assumed for an empty cell or a missing peak.

    ``int8-weights`` / ``int4-weights``: weight-only quantization, a 16-bit KV cache and bf16 compute (no
    group scales: the loosest).  A report-spec format (``bf16``, ``fp8`` ...) means weights, KV cache and
    compute in it, as ``precision: fp8`` does in a report spec; ``int8`` / ``int4`` are weight-only there too.
    ``checkpoint``: the weights as ``model``'s checkpoint stores them, each tensor class in its own format
    (gpt-oss-120b: mxfp4 experts, bf16 attention, as it is served), the KV cache and the compute unknown: the
    loosest, as for an empty cell.
    """
    assumed: dict[str, object] = {}
    if isinstance(name, Precision):
        return name, assumed
    fastest = max(hw.dense, key=lambda k: (hw.dense[k], k))
    smallest = min(PRECISION_BYTES, key=lambda k: (PRECISION_BYTES[k], k))
    if not name:
        assumed["precision"] = f"weights and KV cache {smallest}, compute at the highest dense peak ({fastest})"
        return Precision(smallest, smallest, fastest), assumed
    if name == "checkpoint" and model is not None:
        from genreport.model.plan import plan_precision

        stored = plan_precision("checkpoint", model)
        given = "" if model.checkpoint_weights else f" ({model.title}'s spec names no checkpoint_precision: bf16)"
        assumed["precision"] = (f"weights as the checkpoint stores them ({stored.weights_label()}){given}; KV cache "
                                f"{smallest} and compute at the highest dense peak ({fastest}): not given, the loosest")
        return dataclasses.replace(stored, kv_cache=smallest, compute=fastest), assumed
    if name in WEIGHT_ONLY or name in ("int8", "int4"):
        weights = WEIGHT_ONLY.get(name, name)
        p = Precision(weights, "bf16", "bf16")
    elif name not in PRECISION_BYTES:  # a block-scaled format (nvfp4, mxfp4, fp8_block): it names the weights only
        from genreport.load.objects import _precision

        p = on_hardware(_precision(name), hw.dense)  # nvfp4 and mxfp4 at the fp4 peak where the GPU has one
        # the KV cache unknown, so the loosest, as for an empty cell: engines keep FP4 checkpoints' cache in fp8 (the
        # ModelOpt DeepSeek-R1 FP4 default) or NVFP4, not the report spec's bf16 (a review found a 70B NVFP4 claim
        # on GB200 at 0.98 of a bound twice too tight)
        p = dataclasses.replace(p, kv_cache=smallest)
        assumed["kv_cache"] = f"not given with {name} weights: {smallest}, the smallest (the loosest)"
    else:
        p = Precision(name, name, name)
    if p.compute not in hw.dense:
        assumed["compute"] = f"{hw.title} lists no dense {p.compute} peak: its highest, {fastest}"
        p = dataclasses.replace(p, compute=fastest)
    return p, assumed


def mean_context(input_tokens: int | None, output_tokens: int | None) -> float:
    """Mean context of the decode steps that generate ``output_tokens`` after an ``input_tokens`` prompt.

    The step bound is convex in the context (a max of two linear functions), so the bound at the mean
    context is never above the mean of the per-step bounds (Jensen): it bounds the whole generation.
    """
    i = float(input_tokens or 0)
    o = float(output_tokens or 1)
    return max(1.0, i + (o - 1.0) / 2.0)


def bound(c: Claim) -> Bound:
    """The physical bound of claim ``c`` (see the module docstring)."""
    q = load_compiled()
    assumed: dict[str, object] = {}
    if c.gpus is None and c.metric not in ("mbu", "mfu"):  # enough GPUs serve any rate and any latency
        return Bound(None, True, assumed={"gpus": "unknown: any number of GPUs, so no bound"})
    n = c.gpus or 1
    hw = group(c.hardware, n, c.tp, c.pp)
    precision, more = precision_of(c.precision, c.hardware, c.model)
    assumed.update(more)
    env = make_env(hw, c.model, precision, c.accounting)
    weights = float(q["weight_bytes"](env.at()))
    # a utilisation is bounded by its definition, but only on a setup that runs at all: the weights must fit (a review
    # read "ok" for an MBU of Llama 3.1 405B on one H200, beside "impossible" for its tokens/s)
    fits = weights <= hw.capacity
    out = Bound(None, fits, assumed=assumed, weight_bytes=weights, memory=hw.capacity)
    if fits and c.metric not in ("mbu", "mfu"):  # and one sequence at its last context beside them (an unknown
        # length: the shortest); a 4M-token prompt of an 8B on one H100 (524 GB of cache) read "ok"
        last = max(1.0, float(c.input_tokens or 0) + float(c.output_tokens or 1) - 1.0)
        if float(q["capacity_batch"](env.at(context=last))) < 1.0:
            out.fits, out.sequence = False, last
    if not out.fits:  # nothing runs: no rate is possible, no time is short enough; no bound to print (the why says so)
        out.value, out.binds = None, "capacity"
        return out
    if c.metric in ("mbu", "mfu"):
        out.value, out.binds = 1.0, "definition"
        out.mbu = c.value if c.metric == "mbu" else None
        out.mfu = c.value if c.metric == "mfu" else None
        return out
    if c.metric in ("ttft_ms", "e2e_ms"):
        t_tok = float(c.input_tokens or 1)
        if c.input_tokens is None:
            assumed["input_tokens"] = "unknown: 1"
        e = env.at(T=t_tok)  # the first request's prompt alone: no schedule lets its first token come sooner
        if c.model.moe is not None:  # and the fewest experts any routing reads: those one token picks (every token
            one = env.at(batch=1.0)  # of the prompt picking the same), as the decode bound below takes them
            e.update(N=one["N"], b=one["b"])
        t_comp, t_mem = float(q["prefill_time_compute"](e)), float(q["prefill_time_memory"](e))
        t = max(t_comp, t_mem)
        out.binds = "compute" if t_comp >= t_mem else "bandwidth"
        if c.metric == "e2e_ms":
            return _end_to_end(c, q, env, out, t, assumed, precision)
        out.value = t * 1e3
        measured = c.value / 1e3
        out.mfu = float(q["prefill_flops"](e)) / measured / float(np.ravel(e["P"])[0])  # (env.peak_of)
        out.mbu = float(q["prefill_bytes"](e)) / measured / hw.bandwidth
        best = _through_layouts(c, precision, None, float(c.input_tokens or 1), t_tok, out)
        if best is not None:
            out.value, out.binds = best.prefill * 1e3, best.prefill_binds
        return out
    # decode
    s = mean_context(c.input_tokens, c.output_tokens)
    if c.input_tokens is None or c.output_tokens is None:
        assumed["context"] = f"{'prompt' if c.input_tokens is None else 'output'} length unknown: mean context {s:g}"
    n_min = np.asarray(env.at(batch=1.0)["N"])  # MoE: the fewest weights any routing reads (the active ones)
    if c.batch is not None:
        b = float(c.batch)
    elif c.metric == "ms_per_token":
        b = 1.0
        assumed["batch"] = "unknown: 1 (the shortest step)"
    else:
        cap = float(q["capacity_batch"](env.at(context=s)))
        b = max(1.0, min(cap, 1e9))
        assumed["batch"] = f"unknown: {b:,.0f}, the most sequences that fit at context {s:g}"
    if c.batch is not None:  # the stated batch's caches beside the weights, in the group's memory (the verdict notes
        # it: a shared prompt prefix or an offloaded cache, unknowns, could hold more; QA: 32 sequences of 100k tokens of
        # Gemma 3 27B on one H100, 280 GB of cache, passed without a word)
        held = float(q["capacity_batch"](env.at(context=s)))
        if b > held:
            out.crowded = (b, s, max(held, 0.0))
    e = env.at(batch=b, context=s, N=n_min)
    t_comp, t_mem = float(q["decode_time_compute"](e)), float(q["decode_time_memory"](e))
    t = max(t_comp, t_mem)
    out.binds = "compute" if t_comp >= t_mem else "bandwidth"
    if c.metric == "ms_per_token":
        out.value = t * 1e3
        step = c.value / 1e3
    elif c.metric == "tokens_per_s":
        out.value = b / t
        step = b / c.value
    else:  # per GPU: the group's total over its size
        out.value = b / t / n
        step = b / (c.value * n)
    out.mfu = float(q["decode_flops"](e)) / step / float(np.ravel(e["P"])[0])  # (env.peak_of)
    # the weights are shared by the batch: without the batch the bytes of a step, hence MBU, are unknown
    out.mbu = float(q["decode_bytes"](e)) / step / hw.bandwidth if "batch" not in assumed else None
    if n > 1:  # through the layout: the batch over its replicas (unknown: what they hold), each round its bound
        given = None if "batch" in assumed and c.metric != "ms_per_token" else b
        best = _through_layouts(c, precision, given, s, None, out)
        if best is not None:
            lb, total = best.par, min(best.capacity_batch, 1e9) * best.par.dp if given is None else b
            rate = total / best.decode
            out.value = best.decode * 1e3 if c.metric == "ms_per_token" else rate if c.metric == "tokens_per_s" \
                else rate / n
            out.binds = best.decode_binds
            if given is None and c.metric != "ms_per_token":
                assumed["batch"] = (f"unknown: {total:,.0f}, the most sequences of context {s:g} the {lb.dp} "
                                    f"replica{'s' if lb.dp > 1 else ''} of {lb.label()} hold")
    if c.metric in RATES and c.input_tokens and c.output_tokens:
        _prompts_computed(c, q, env, e, b, n, out)
    return out


def _prompts_computed(c: Claim, q, env, e: dict, b: float, n: int, out: Bound) -> None:
    """A rate of output tokens is also at most the group's peak over the FLOPs an output token costs with its share
    of its prompt's prefill: P o / (F_pre(T_in) + o F_dec/B), P the n GPUs' (every request's prompt is computed
    somewhere in the group, and no schedule overlaps a FLOP with another).  The decode bound alone leaves the prompts
    out: 31.5k output tokens/s of gpt-oss-120b on 2 H100s at 128 prompt + 4 output tokens passed it, which takes
    about 5x their peak (a review of stop 73's published Blackwell and Hopper rates).  Only where both lengths are
    given: an unknown one is the loosest, no prompt or no end to the output.  It takes the prompts distinct and
    uncached, as the decode bound takes each sequence's cache read apart: a benchmark that repeats one prompt or
    hits a prefix cache computes less, and the verdict's note says so."""
    o = float(c.output_tokens)
    f_prompt = float(q["prefill_flops"](env.at(T=float(c.input_tokens))))
    f_token = float(q["decode_flops"](e)) / b
    rate = float(np.ravel(e["P"])[0]) * o / (f_prompt + o * f_token)
    rate = rate / n if c.metric == "tokens_per_s_per_gpu" else rate
    if out.value is None or rate < out.value:
        out.value, out.binds = rate, "compute"
        out.assumed["prompts"] = (f"each output token carries 1/{o:,.0f} of its {c.input_tokens:,}-token prompt's "
                                  "prefill FLOPs (distinct prompts, none cached: a prefix cache or one prompt "
                                  "repeated computes less): the group's peak over them binds")


def _through_layouts(c: Claim, precision: Precision, batch: float | None, context: float, prompt: float | None,
                     out: Bound, output: float | None = None):
    """The claim's GPUs at their layout (the stated tp x pp, or the loosest of every layout of that many GPUs):
    the :class:`genreport.model.plan.LayoutBound` of the layout that bounds the claim least, or None where the
    group is priced as one ideal device (one GPU, no interconnect in the GPU's spec, no layout of the GPUs).

    ``batch``: the group's sequences (None: each layout's replicas full at ``context``); ``output``: e2e, the
    prefill then output - 1 rounds at the mean ``context``.  Sets ``out.layout`` and what was assumed."""
    from genreport.model.plan import layout_bounds, layouts_of

    n = c.gpus or 1
    if n <= 1:
        return None
    if c.hardware.link is None:
        out.assumed["layout"] = f"{c.hardware.title}'s spec has no interconnect: {n} GPUs as one ideal group"
        return None
    layouts = layouts_of(c.model, n, c.tp, c.pp)
    if not layouts:
        out.assumed["layout"] = (f"no layout of {n} GPUs with tp {c.tp or 'any'} x pp {c.pp or 'any'}: "
                                 "one ideal group")
        return None
    env = make_env(c.hardware, c.model, precision, c.accounting)
    pers = []
    for par in layouts:
        per = None if batch is None else max(batch / par.dp, min(batch, 1.0))  # the busiest replica's share
        if c.metric in ("ttft_ms",):
            per = None
        elif c.metric == "e2e_ms":
            per = per if per is not None else 1.0
        pers.append(per)
    # every layout at once (layout_bounds evaluates each formula over them all)
    bounds = layout_bounds(c.model, c.hardware, precision, layouts, pers, context, prompt, c.accounting, env)
    full = [i for i, (lb, per) in enumerate(zip(bounds, pers, strict=True)) if lb.fits and per is None
            and c.metric in RATES and lb.capacity_batch >= 1]  # the batch unknown: each replica full at the context
    again = layout_bounds(c.model, c.hardware, precision, [layouts[i] for i in full],
                          [min(bounds[i].capacity_batch, 1e9) for i in full], context, prompt, c.accounting, env)
    for i, lb in zip(full, again, strict=True):
        bounds[i] = lb
    best, key = None, math.inf
    for par, per, lb in zip(layouts, pers, bounds, strict=True):
        if not lb.fits:
            continue
        if per is None and c.metric in RATES and lb.capacity_batch < 1:
            continue
        if c.metric == "ttft_ms":
            k = lb.prefill
        elif c.metric == "e2e_ms":
            k = lb.prefill + (float(output or 1) - 1.0) * lb.decode
        elif c.metric == "ms_per_token":
            k = lb.decode
        else:  # rates: the fewest seconds per token of the group
            k = lb.decode / (min(lb.capacity_batch, 1e9) * par.dp if batch is None else batch)
        if k < key:
            best, key = lb, k
    if best is None:
        out.fits = False
        out.value, out.binds = (0.0 if c.metric in RATES else None), "capacity"
        out.assumed["layout"] = f"no layout of {n} GPUs holds the weights and a sequence"
        return None
    out.layout = best.par.label()
    stated = c.tp is not None and c.pp is not None
    out.assumed["layout"] = (f"{best.par.label()}, as stated" if stated and len(layouts) == 1 else
                             f"{best.par.label()}: the loosest of {len(layouts)} layouts of {n} GPUs")
    return best


def _end_to_end(c: Claim, q, env, out: Bound, t_prefill: float, assumed: dict, precision: Precision) -> Bound:
    """End to end of one request: its prefill (as ``ttft_ms``) and its output - 1 decode steps, each at least the step
    at the mean context (the step is convex in the context: Jensen), at the batch stated (unknown: 1, the shortest
    steps).  An unknown output is one token: no decode step."""
    o = float(c.output_tokens or 1)
    if c.output_tokens is None:
        assumed["output_tokens"] = "unknown: 1 (no decode step)"
    b = float(c.batch or 1)
    if c.batch is None:
        assumed["batch"] = "unknown: 1 (the shortest step)"
    s = mean_context(c.input_tokens, c.output_tokens)
    e = env.at(batch=b, context=s, N=np.asarray(env.at(batch=1.0)["N"]))
    t_comp, t_mem = float(q["decode_time_compute"](e)), float(q["decode_time_memory"](e))
    decode = (o - 1.0) * max(t_comp, t_mem)
    if decode > t_prefill:
        out.binds = "compute" if t_comp >= t_mem else "bandwidth"
    out.value = (t_prefill + decode) * 1e3
    best = _through_layouts(c, precision, b, s, float(c.input_tokens or 1), out, o)
    if best is not None:
        dec = (o - 1.0) * best.decode
        out.value = (best.prefill + dec) * 1e3
        out.binds = best.decode_binds if dec > best.prefill else best.prefill_binds
    return out


def _fits(c: Claim, **change) -> Bound | None:
    alt = dataclasses.replace(c, **change)
    b = bound(alt)
    return b if b.holds(alt.metric, alt.value) else None


def mislabels(c: Claim, variants: dict[str, Hardware] | None = None) -> list[str]:
    """The likely mislabels of a claim that beats its bound: each alternative reading under which it fits.

    Never a change of accounting: the bound is already the loosest physical one.
    """
    found: list[str] = []
    n = c.gpus or 1
    if c.metric == "tokens_per_s_per_gpu" and n > 1 and _fits(c, metric="tokens_per_s"):
        found.append(f"per-GPU vs total: {fmt.sig4(c.value)} token/s is within the bound as the total of the {n} "
                     f"{c.hardware.noun}s, not per {c.hardware.noun}")
    for more in GROUP_SIZES:
        if more > n and _fits(c, gpus=more, tp=None, pp=None):
            noun = c.hardware.noun  # a TPU's chips, not "GPUs"
            found.append(f"wrong {noun} count: within the bound on {more} {noun}s, not {n}")
            break
    fitting = [f"the {hw.title} ({name})" for name, hw in sorted((variants or {}).items())
               if name != c.hardware.name and _fits(c, hardware=hw)]
    if fitting:
        found.append(f"wrong {c.hardware.noun} variant: within the bound on " + " or ".join(fitting))
    current = (c.precision.weight_bytes if isinstance(c.precision, Precision)
               else PRECISION_BYTES.get(WEIGHT_ONLY.get(c.precision or "", c.precision or ""), 0.5))
    for alt in ("fp8", "int8-weights", "int4-weights"):
        if PRECISION_BYTES[WEIGHT_ONLY.get(alt, alt)] < current and alt in _allowed(c) and _fits(c, precision=alt):
            found.append(f"quantized weights: within the bound with {alt}")
            break
    if c.metric in DECODE_METRICS and (c.batch is None or c.batch <= 8):
        plain = bound(c)
        if plain.fits and plain.value and plain.binds != "compute":  # drafts save weight passes, not FLOPs
            x = c.value / plain.value if c.metric in RATES else plain.value / c.value
            if 1 < x <= SPECULATION:
                found.append(f"speculative decoding: {x:.3g} tokens per weight pass, as a draft model, "
                             "EAGLE or Medusa accept")
    if c.metric == "tokens_per_s" and n > 1 and _fits(c, value=c.value / n):
        found.append(f"per-GPU vs total: {fmt.sig4(c.value / n)} token/s (the value over the {n} GPUs) fits; the total "
                     "may count the GPUs twice")
    if (c.metric in RATES and c.input_tokens and c.output_tokens
            and _fits(c, value=c.value * c.output_tokens / (c.input_tokens + c.output_tokens))):
        # Qwen's speed benchmark states (prompt + generated tokens) / time: read as output tokens, 4x the bound
        share = c.output_tokens / (c.input_tokens + c.output_tokens)
        text = (f"prompt tokens counted: {fmt.sig4(c.value * share)} token/s of output (the value x "
                f"{c.output_tokens:,} / ({c.input_tokens:,} + {c.output_tokens:,})) fits; a rate of total tokens "
                "counts the prompt's too")
        if c.input_tokens >= c.output_tokens:  # first where the prompts outweigh the output: most likely then
            found.insert(0, text)
        else:
            found.append(text)
    if c.metric in DECODE_METRICS and c.batch is not None and _fits(c, batch=None):
        found.append(f"batch: within the bound with more than the stated {c.batch} sequence{'' if c.batch == 1 else 's'} "
                     "per step")
    if c.metric in ("mbu", "mfu") and c.value > 1:  # not where the setup cannot run at all
        found.append("a sparse peak or a wrong unit (MFU cannot exceed 1)" if c.metric == "mfu" else
                     "a wrong unit or another bandwidth than the datasheet's (MBU cannot exceed 1)")
    return found


def _allowed(c: Claim) -> tuple[str, ...]:
    out = ["int8-weights", "int4-weights"]
    if "fp8" in c.hardware.dense:
        out.append("fp8")
    return tuple(out)


def verdict(c: Claim, variants: dict[str, Hardware] | None = None) -> tuple[str, Bound, str]:
    """('ok' or 'impossible', the bound, why): why says by how much and the likely mislabels."""
    b = bound(c)
    if b.holds(c.metric, c.value):
        high = [f"{k} {v:.3g}" for k, v in (("MBU", b.mbu), ("MFU", b.mfu))
                if v is not None and c.metric not in ("mbu", "mfu") and v > NEAR_PEAK]
        why = (f"within the bound, but at {' and '.join(high)}, which engines rarely reach: check the GPU variant and "
               "count and the weight format" if high else "")
        layout = str(b.assumed.get("layout", ""))
        if layout.startswith("no layout"):  # the row's tp x pp does not lay out its GPUs: the bound took them whole
            why = (why + "; " if why else "") + f"{layout} (a looser bound than the stated layout's)"
        if b.crowded is not None:
            batch, context, held = b.crowded
            why = (why + "; but" if why else "within the bound, but") + (
                f" the stated batch of {batch:,.0f} sequences at their mean context of {context:,.0f} tokens holds "
                f"more KV cache than the whole memory keeps beside the weights (at most {held:,.0f} fit, with no "
                "engine reserve or workspace: a report of this setup keeps those and holds fewer): only a shared "
                "prompt prefix or a cache offloaded off the GPU holds them")
        return "ok", b, why
    if not b.fits and (b.sequence or str(b.assumed.get("layout", "")).startswith("no layout")):
        # the weights fit; a sequence's cache beside them does not (it said "the weights (16 GB) do not fit in 687 GB")
        what = f"one sequence of {b.sequence:,.0f} tokens" if b.sequence else "a sequence"
        why = (f"the weights ({fmt.sig4(b.weight_bytes / 1e9)} GB) fit in the memory of {c.gpus or 1} "
               f"{c.hardware.title} ({fmt.sig4(b.memory / 1e9)} GB), but not with the KV cache of {what} beside them"
               + ("" if b.sequence else f" at any layout ({b.assumed['layout']})"))
    elif not b.fits:
        why = (f"the weights ({fmt.sig4(b.weight_bytes / 1e9)} GB) do not fit in the memory of {c.gpus or 1} "
               f"{c.hardware.title} ({fmt.sig4(b.memory / 1e9)} GB)")
    else:
        unit = METRICS[c.metric]
        unit = "" if unit == "1" else f" {unit}"  # a utilisation is a plain number: "1.2 claimed", not "1.2 1 claimed"
        if c.metric in RATES or c.metric in ("mbu", "mfu"):
            x = c.value / b.value
            why = f"{x:.3g}x the bound: {fmt.sig4(c.value)}{unit} claimed, at most {fmt.sig4(b.value)}{unit} possible"
            if "prompts" in b.assumed:  # the prompts' prefill binds: say what it takes of them
                why += " with every prompt prefilled (distinct prompts, none cached)"
        else:
            x = b.value / c.value
            why = f"{x:.3g}x faster than the bound: {fmt.sig4(c.value)}{unit} claimed, at least {fmt.sig4(b.value)}{unit}"
    likely = mislabels(c, variants)
    why += "; likely: " + "; ".join(likely) if likely else "; no single relabelling explains it"
    return "impossible", b, why


def variants_of(hw: Hardware, catalog: dict[str, Hardware]) -> dict[str, Hardware]:
    """Other catalog GPUs of the same family (h100-sxm, h100-pcie, h100-nvl): a wrong variant is a common slip."""
    family = hw.name.split("-")[0]
    return {n: h for n, h in catalog.items() if n.split("-")[0] == family and n != hw.name}


def finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None
