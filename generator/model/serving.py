"""One request at a layout: time to first token, time per output token, end-to-end latency, rates and cost.

A request of ``prompt`` tokens and ``output`` generated ones, decoded with ``batch`` sequences per replica:

- TTFT: the prefill of the prompt at the layout, its communication included (``prefill_time_bound``; the estimate
  ``prefill_time_serial``), one prompt alone on the replica (no queueing, no other prefill in the way).
- TPOT: the request's slowest decode round of the batch (:func:`round_context`): at its last context, prompt +
  output - 1, where a round only grows with the context; with chunked layers (Llama 4) at the end of the last chunk
  its rounds fill where that reads more, ``decode_time_bound`` / ``decode_time_serial``.
- E2E: TTFT + the output - 1 decode rounds, summed in closed form (``request_decode_time_bound``: the ledgers are
  affine in the context, so each sums to (T_o - 1) times its value at the mean context T + T_o/2; the bound
  takes the max of the sums, at most the sum of the rounds' maxima, so it stays a lower bound).
- Rates, scoped: tok/s per user is one sequence's mean rate over its output (T_o - 1 tokens over the decode
  rounds), per replica B times that, per GPU over the replica's GPUs, per node over a node's GPUs full of replicas.
- Cost: output tokens at the decode rate per GPU, prompt tokens at the prefill rate of one prompt on the replica,
  each at the GPU's hourly price; J/token at the board power (an upper estimate of the draw, not a bound).

Windowed and chunked attention read fewer positions than the context: the compute and HBM ledgers are affine in
the positions read, so the mean context's values are the mean of the rounds' (``_mean_context_values``).
Only numbers; the formulas are in :mod:`genreport.formulas.parallel`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from genreport.formulas.architecture import (
    attended_positions,
    bounded_layers,
    chunked_layers,
    kv_positions_held,
    kv_prefix_positions_held,
)
from genreport.formulas.compiled import load
from genreport.load.spec import Hardware, Model, Parallelism, Precision
from genreport.model.env import make_env
from genreport.model.layout import at_batch, at_prompt, fastest_schedule, held_at, layout_base, occupancy, prompt_rate
from genreport.model.stacked import over


def node_busy_gpus(replica_gpus: int, gpus_per_node: int | None) -> float | None:
    """The GPUs of one node that run replicas of ``replica_gpus`` GPUs [GPUs]: as many whole replicas as the node
    holds (a replica of 6 GPUs on a node of 8 leaves 2 idle: 6), or, for a replica wider than a node, its GPUs
    over the nodes it spans (12 GPUs over 2 nodes of 8: 6 a node); None when the GPU's spec has no node."""
    if not gpus_per_node:
        return None
    if replica_gpus <= gpus_per_node:
        return float(gpus_per_node // replica_gpus * replica_gpus)
    return replica_gpus / -(-replica_gpus // gpus_per_node)


@dataclass(frozen=True)
class Request:
    """The metrics of one request shape at one layout and batch (times in s, rates in token/s)."""

    prompt: int
    output: int
    batch: int
    replica_gpus: int
    ttft_bound: float  # s, the prefill of the prompt at the layout, at least
    ttft_serial: float  # s, the same as the library runs the collectives
    tpot_bound: float  # s, the decode round at the last context (the request's slowest), at least
    tpot_serial: float
    decode_bound: float  # s, the output - 1 decode rounds after the first token, at least (closed form)
    decode_serial: float
    e2e_bound: float  # s, TTFT + decode, at least
    e2e_serial: float
    capacity_batch: float  # sequences of the last context (last_context: prompt + output - 1) one replica holds
    # s, the GPU time of the replica a prompt occupies in a steady state, at least and as run: the TTFT's, but with an
    # expert group wider than the replica every replica of the group prefilling at once (layout.at_prompt's steady)
    prefill_bound: float
    prefill_serial: float
    stages: int = 1  # pipeline stages of the replica: it admits a prompt every prefill / stages

    def per_user(self, estimate: str = "bound") -> float:
        """tok/s one sequence sees over its output: (T_o - 1) / decode time (1 / TPOT for one-token outputs)."""
        dec, tpot = (self.decode_bound, self.tpot_bound) if estimate == "bound" else (self.decode_serial, self.tpot_serial)
        return (self.output - 1) / dec if self.output > 1 and dec > 0 else 1.0 / tpot

    def per_gpu(self, estimate: str = "bound") -> float:
        """Output tok/s of one GPU [token/s per GPU]: B sequences of the replica at the per-user rate, over its GPUs."""
        return self.batch * self.per_user(estimate) / self.replica_gpus

    def per_node(self, gpus_per_node: int | None, estimate: str = "bound") -> float | None:
        """Output tok/s of one node full of such replicas [token/s per node]: per GPU x the node's GPUs that run
        replicas (:func:`node_busy_gpus`; None when the GPU's spec has no node)."""
        busy = node_busy_gpus(self.replica_gpus, gpus_per_node)
        return self.per_gpu(estimate) * busy if busy else None

    def prefill_per_gpu(self, estimate: str = "bound") -> float:
        """Prompt tok/s of one GPU: prompts one after another on the replica, each occupying it for its steady-state
        prefill time (a pipeline of pp stages admitting the next after 1/pp of it), over its GPUs."""
        t = self.prefill_bound if estimate == "bound" else self.prefill_serial
        return prompt_rate(self.prompt, t, self.stages) / self.replica_gpus

    def as_json(self, estimate: str = "bound") -> dict:
        return dict(self.__dict__) | {"tokens_per_s_user": self.per_user(estimate),
                                      "tokens_per_s_gpu": self.per_gpu(estimate)}


def usd_per_mtok(price_per_hour: float | None, tokens_per_s_gpu: float) -> float | None:
    """$ per million tokens at one GPU's hourly price and its tokens/s; None without a price."""
    if not price_per_hour or not tokens_per_s_gpu > 0:
        return None
    return price_per_hour / (tokens_per_s_gpu * 3600.0) * 1e6


def joules_per_token(power: float | None, tokens_per_s_gpu: float) -> float | None:
    """J per token at one GPU's board power [W] and its tokens/s; None without a power."""
    if not power or not tokens_per_s_gpu > 0:
        return None
    return power / tokens_per_s_gpu


def engine_limit(hw: Hardware, cap: float) -> float:
    """The most sequences one replica runs at once: the ``cap`` that fit, and no more than the engine's
    max_sequences (vLLM's max_num_seqs, 256 by default: the logits rows the activation workspace holds), where the
    spec's engine sets one (0: no such limit, as the seeds assume).  The one limit every batch a replica runs takes:
    the serving chapter's users' and TPOT batches, ``plan``'s batch, the frontier's curves and the speculative
    lever's scan; a data-parallel replica (data-parallel attention) is one engine rank, its own scheduler."""
    n = int(getattr(hw, "max_sequences", 0) or 0)
    return min(cap, n) if n > 0 else cap


def last_context(prompt: int, output: int) -> int:
    """A request's last context, prompt + output - 1 tokens: the step that makes its last token reads the prompt and
    the output - 1 tokens before it (the first token comes from the prefill).  The one definition every place takes
    its TPOT round and its capacity at: :func:`request` (the serving chapter), ``plan`` (``Shape.last_context``), the
    frontier's curves, the technique rows and ``derive``'s serving context.  A request of one generated token (``plan
    --context S``) has last context S, its prompt."""
    return int(prompt) + int(output) - 1


def round_context(model: Model, prompt: int, output: int) -> int:
    """The context of a request's slowest decode round, where its TPOT is taken: its last context (a round reads
    more as the context grows), except with chunked layers (Llama 4), which read only the S mod chunk tokens of their
    current chunk: there the round at the end of the last chunk the rounds fill (k chunk - 1, of the contexts
    prompt + 1 .. prompt + output - 1) may read more than the last one (Llama 4 Maverick, 7k prompt + 2k output: the
    round at 8,191 reads 36 chunked layers' whole chunk, 8.05 ms more at batch 64 on an H200 than the one at 9,215).
    Every TPOT round (the serving chapter, ``plan``, the frontier, the technique rows) is taken here; the capacity
    stays at the last context, where the cache a sequence holds is largest."""
    last = last_context(prompt, output)
    chunk = int(model.attention.chunk_size or 0)
    if not chunk or not chunked_layers(model) or output <= 1:
        return last
    edge = (last + 1) // chunk * chunk - 1  # the end of the last chunk filled at or before the last context
    if edge == last or edge < prompt + 1:
        return last
    reads = [float(np.ravel(attended_positions(model, np.asarray(float(s))))[0]) for s in (edge, last)]
    return edge if reads[0] > reads[1] else last


def round_reads(env, cv: dict, context: float) -> dict:
    """``cv`` (the values at the last context, the cache a sequence holds) as a decode round at ``context`` reads
    them (:func:`round_context`): its S, the c a step reads there (:func:`_read_c`) and its d_h."""
    return dict(cv, **round_values(env, float(cv["S"]), context))


def round_values(env, last: float, context: float) -> dict:
    """What :func:`round_reads` changes in the values at ``last``: the c a step reads, and where the round is at
    another context, its S and d_h."""
    if context == last:
        return {"c": _read_c(env, context)}
    g = env.at(batch=1.0, context=float(context))
    return {"S": np.float64(context), "c": _read_c(env, float(context)), "d_h": np.float64(np.ravel(g["d_h"])[0])}


def _mean_context_values(env, prompt: int, output: int) -> tuple[float, float, float]:
    """(S-bar, c-bar, d_h-bar): the mean context T + T_o/2 and the c and d_h whose products with it are the mean
    over the rounds k = 1 .. T_o - 1 of S c(S) and S d_h(S) at S = T + k (the KV bytes and attention FLOPs a round
    reads: c the cache a step reads, :func:`_read_c`, not the one a sequence holds).  With full attention c and d_h do not depend on S and these are their values."""
    mean = prompt + output / 2.0
    if output <= 1:
        g = env.at(context=float(prompt + 1))
        return mean, float(_read_c(env, prompt + 1)), float(np.ravel(g["d_h"])[0])
    def rounds(s):
        c = _read_c(env, s) * np.ones_like(s)  # what each round reads (a chunked layer: its current chunk)
        return s * c, s * (np.asarray(env.at(context=s)["d_h"], dtype=float) * np.ones_like(s))

    sc, sd = _round_means(rounds, prompt, output)
    return mean, sc / mean, sd / mean


ROUNDS_AT_ONCE = 1 << 20  # the rounds a request's means read at once: a 10^8-token output is 100 such chunks


def _round_means(f, prompt: int, output: int) -> tuple[float, ...]:
    """The means over the rounds k = 1 .. T_o - 1 (contexts S = T + k) of the arrays ``f(S)`` returns, read
    ROUNDS_AT_ONCE rounds at a time: one chunk for any output up to a million tokens (np.mean over the whole array,
    as before), and a bounded memory for longer ones (an output of 10^8 tokens held 4 GB of arrays at once)."""
    n = output - 1
    if n <= ROUNDS_AT_ONCE:
        return tuple(float(np.mean(x)) for x in f(np.arange(prompt + 1, prompt + output, dtype=float)))
    sums = 0.0
    for start in range(prompt + 1, prompt + output, ROUNDS_AT_ONCE):
        s = np.arange(start, min(start + ROUNDS_AT_ONCE, prompt + output), dtype=float)
        sums = sums + np.array([np.sum(x) for x in f(s)])
    return tuple(float(x) / n for x in sums)


def held_mean_c(env, prompt: int, output: int) -> float:
    """c_h: the KV bytes per token a sequence holds, averaged over a request's decode contexts as
    :func:`_mean_context_values` averages the cache a step reads: (T + T_o/2) c_h is the mean over the rounds
    k = 1 .. T_o - 1 of S c_held(S) at S = T + k, c_held the cache a sequence holds at S (``env.at(context=S)``: a
    windowed layer its window, a chunked layer up to its whole chunk), so that the running sequences at the mean
    context hold what they hold on average (``goodput_rate_capacity``'s balance).  A model with no windowed or
    chunked layer holds the same c at every context: that c, exactly, at the request's last context."""
    mean = prompt + output / 2.0
    if output <= 1 or not bounded_layers(env.model):
        return float(np.ravel(np.asarray(env.at(context=float(prompt + max(output, 2) - 1))["c"], dtype=float))[0])
    (sc,) = _round_means(lambda s: (s * (np.asarray(env.at(context=s)["c"], dtype=float) * np.ones_like(s)),),
                         prompt, output)
    return sc / mean


def _prefix_share(model, context, prefix):
    """The share of the bytes a sequence at ``context`` holds per cached position that its prefix of ``prefix``
    tokens keeps, per prefix token against per context token: S P_h(S) / (prefix x positions held), 1 where every
    layer is global (architecture.kv_prefix_positions_held over kv_positions_held)."""
    context = np.asarray(context, dtype=float)
    held = kv_positions_held(model, context)
    with np.errstate(divide="ignore", invalid="ignore"):
        # (per position of the prefix the context holds: a context shorter than the prefix holds S of it, so a model
        # of global layers keeps the share 1 and the count its "no sequence fits", not a division by zero)
        share = context * kv_prefix_positions_held(model, context, prefix) / (np.minimum(prefix, context) * held)
    return np.where(held > 0, share, 1.0)


def prefix_held_c(env, context: float, prefix: float, c: float) -> float:
    """c_s at ``context``: the bytes per token of a shared prefix of ``prefix`` tokens that a sequence holding ``c``
    per token (the env's held c there, one GPU's) still holds; ``c`` where every layer is global or no prefix is
    cached (formulas.techniques.prefix_capacity_batch)."""
    if prefix <= 0 or not bounded_layers(env.model):
        return float(c)
    return float(c) * float(np.ravel(_prefix_share(env.model, float(context), float(prefix)))[0])


def prefix_held_mean_c(env, prompt: int, output: int, prefix: float) -> float:
    """c_s averaged as :func:`held_mean_c` averages c_h: P_h c_s is the mean over the rounds k = 1 .. T_o - 1 of the
    prefix bytes a sequence at S = T + k still holds (a windowed layer none once its window has passed the prefix),
    the goodput's KV cache room (formulas.techniques.goodput_rate_capacity); c_h where every layer is global."""
    c_h = held_mean_c(env, prompt, output)
    if prefix <= 0 or output <= 1 or not bounded_layers(env.model):
        return c_h

    def held(s):
        c = np.asarray(env.at(context=s)["c"], dtype=float) * np.ones_like(s)
        return (c * _prefix_share(env.model, s, prefix),)

    (mean,) = _round_means(held, prompt, output)
    return mean


def compute_batch(env, par: Parallelism, prompt: int, output: int, tpot: float | None,
                  prefix_hit: float = 0.0, speculative: tuple | None = None) -> float:
    """B_P (formulas/techniques.py ``compute_batch``): the most sequences a replica of ``par`` keeps decoding at
    the TPOT target ``tpot`` with their prompts' prefills within its compute roof, the request's FLOPs (F_r:
    ``request_flops``, its decode tokens at the mean context, its uncached prompt in the prompt's attention form)
    of the whole model over the replica's tp x pp GPUs; inf without a target.  ``env``: the whole model's Env
    (make_env), as :func:`request` and ``plan`` take it.  What the decode round alone does not count: ``plan``,
    the serving chapter's TPOT batch and the GPUs its users take all stop there (one function).

    ``speculative`` (speculate's (k_d, p_a, draft or draft_cost, n_v)): the sequences speculating
    (``compute_batch_speculative``): each kept token costs n_v / E verified tokens and k_d / E draft passes of
    f_d (:func:`draft_pass_flops`), so fewer sequences keep the target with their prompts; what ``plan`` takes where
    its round speculates, the frontier's speculative curves and the serving chapter's speculative lever row."""
    if tpot is None or output <= 1:  # no target, or no decode round after the prompt's (plan --context S)
        return math.inf
    qid = "compute_batch" if speculative is None else "compute_batch_speculative"
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = float(np.asarray(load()[qid](compute_batch_values(env, par, prompt, output, tpot, prefix_hit,
                                                                speculative)), dtype=float))
    return out if math.isfinite(out) and out > 0 else 0.0


def draft_pass_flops(speculative: tuple, context: float, peak: float) -> float:
    """f_d: one draft pass's FLOPs for one sequence at ``context`` [FLOP], the draft model's or the EAGLE/MTP head's
    decode step at its own shapes (``Draft.ledgers`` at one sequence: 2 N_a + 4 L H_q d_h S of the draft, the
    F_d of ``draft_time_bound`` at B = 1), counted at the target's peak ``peak``: times P / P_d, P_d the draft's own
    peak, as ``draft_time_bound`` times a pass (a draft in fp8 beside a bf16 target costs half its FLOPs' time; counted
    at P, B_P,spec came out 222 where the draft's own peak keeps 223: not an upper bound, QA stop 77); 0 where
    ``speculative``'s draft is a draft_cost, a time (a fraction of a plain round) that states no FLOPs, so the drafts'
    compute is left out and B_P,spec stays an upper bound."""
    draft = speculative[2]
    if not hasattr(draft, "ledgers"):
        return 0.0
    flops, _ = draft.ledgers(load(), np.asarray([1.0]), float(context))
    return float(np.ravel(flops)[0]) * float(peak) / float(draft.env.values["P"])


def compute_batch_values(env, par: Parallelism, prompt: int, output: int, tpot: float,
                         prefix_hit: float = 0.0, speculative: tuple | None = None) -> dict[str, float]:
    """The inputs :func:`compute_batch` evaluates ``compute_batch`` at: the whole model's values at the request's
    mean context (``env``: make_env's, no layout's slice) with the request, the target and the replica's tp and pp
    (``derive compute_batch --spec`` takes the same, not one GPU's slice, which the formula's n_TP n_st would count
    twice); with ``speculative`` (k_d, p_a, draft or draft_cost, n_v) also p_a, k_d, n_v and the draft's f_d at the
    mean context (:func:`draft_pass_flops`), ``compute_batch_speculative``'s."""
    from genreport.model.env import prefill_head_dim

    mean = prompt + output / 2.0
    v = {k: float(np.ravel(np.asarray(x, dtype=float))[0]) for k, x in env.at(context=mean).items()}
    v.update(T_in=float(prompt), T_out=float(output), h_p=float(prefix_hit), theta=float(tpot),
             n_TP=float(par.tp), n_St=float(par.pp),
             d_hp=float(prefill_head_dim(env.model, float(env.values["d_h"]), float(prompt) * (1 - prefix_hit),
                                         cached=float(prompt) * prefix_hit)))
    if speculative is not None:
        k = speculative[0]
        n_v = speculative[3] if len(speculative) > 3 else k + 1
        v.update(p_a=float(speculative[1]), k_d=float(k), n_v=float(n_v), f_d=draft_pass_flops(speculative, mean, v["P"]))
    return v


def request(model: Model, hw: Hardware, precision: Precision, par: Parallelism, batch: int, prompt: int,
            output: int, accounting: str = "seed", env=None, serial: bool = True, prefix_hit: float = 0.0) -> Request:
    """The request metrics of ``model`` on ``hw`` laid out as ``par``, ``batch`` sequences per replica.
    ``serial=False`` skips the estimate's busiest expert GPU (costly to count for an MoE at many batches): the
    bound's numbers are the same, the estimate's are then not stated (nan).  ``prefix_hit``: the share of each
    prompt a prefix cache holds (serving.prefix_hit): the TTFT and the prefill's occupancy are its uncached part's
    (:func:`prompt_prefill`)."""
    v = _request_values(model, hw, precision, par, float(batch), prompt, output, accounting, env, serial,
                        prefix_hit=prefix_hit)
    ttft_b, ttft_s, cap = v["ttft_bound"], v["ttft_serial"], v["capacity_batch"]
    tpot_b, tpot_s, dec_b, dec_s = (float(v[k]) for k in ("tpot_bound", "tpot_serial", "decode_bound", "decode_serial"))
    return Request(prompt, output, batch, par.replica_gpus, ttft_b, ttft_s, tpot_b, tpot_s, dec_b, dec_s,
                   ttft_b + dec_b, ttft_s + dec_s, cap, v["prefill_bound"], v["prefill_serial"], par.pp)


def curve(model: Model, hw: Hardware, precision: Precision, par: Parallelism, batches, prompt: int, output: int,
          accounting: str = "seed", env=None, serial: bool = True, speculative: tuple | None = None,
          memo: dict | None = None, prefix_hit: float = 0.0) -> dict:
    """The request metrics of :func:`request` at many batches per replica at once: ``tpot_*`` [s],
    ``tokens_per_s_user_*`` and ``tokens_per_s_gpu_*`` [token/s] as arrays over ``batches`` (the same numbers
    :meth:`Request.per_user` and :meth:`Request.per_gpu` give at each), with ``ttft_*`` [s],
    ``capacity_batch`` and ``weights_fit`` of the layout.

    ``speculative`` (speculate's (k_d, p_a, draft or draft_cost, n_v)): also the same with speculative decoding
    at every batch, as ``plan --speculative`` times a batch where it speculates (:func:`speculative_request`):
    ``spec_tpot_*`` the plain round at the last context over the speed-up there (``spec_speedup_*``, plan's
    spec_speedup), the decode time over the speed-up at the mean context (``spec_speedup_mean_*``), whence
    ``spec_tokens_per_s_user_*`` and ``_gpu_*``; and
    ``capacity_batch_speculative``, what the replica holds beside a draft model (Draft.capacity; the plain capacity
    with a draft_cost).  Past the break-even batch the numbers show what speculating costs (plan then turns it off).

    ``memo``: a dict kept over calls with the same ``env`` (the frontier's layouts), which holds each layout's
    numbers that no batch changes (:func:`_layout_part`) so that a second curve of the layout does not count them
    again (:func:`probe`: what a layout holds, without its rounds).  ``prefix_hit``: as :func:`request`'s."""
    return curves(model, hw, precision, [(par, batches, speculative)], prompt, output, accounting, env, serial,
                  memo, prefix_hit)[0]


def curves(model: Model, hw: Hardware, precision: Precision, items, prompt: int, output: int,
           accounting: str = "seed", env=None, serial: bool = True, memo: dict | None = None,
           prefix_hit: float = 0.0) -> list[dict]:
    """:func:`curve` of each (layout, batches, speculative) of ``items``, its formulas evaluated once over all the
    layouts (generator/model/stacked.py: each layout's numbers as its own call gives them)."""
    bs = [np.asarray(batches, dtype=float) for _, batches, _ in items]
    vs = _requests_values(model, hw, precision, [(par, b, sp) for (par, _, sp), b in zip(items, bs, strict=True)],
                          prompt, output, accounting, env, serial, memo, prefix_hit)
    return [_curve_of(v, b, output, par, speculative) for v, b, (par, _, speculative) in zip(vs, bs, items, strict=True)]


def _curve_of(v: dict, b: np.ndarray, output: int, par: Parallelism, speculative) -> dict:
    """:func:`curve`'s dict from a layout's :func:`_requests_values` at its batches ``b``."""
    out = {"batch": b, "ttft_bound": v["ttft_bound"], "ttft_serial": v["ttft_serial"],
           "prefill_bound": v["prefill_bound"], "prefill_serial": v["prefill_serial"],
           "capacity_batch": v["capacity_batch"], "weights_fit": v["weights_fit"]}
    if speculative is not None:
        out["capacity_batch_speculative"] = v["capacity_speculative"]
    for est in ("bound", "serial"):
        tpot = np.asarray(v[f"tpot_{est}"], dtype=float) * np.ones_like(b)
        dec = np.asarray(v[f"decode_{est}"], dtype=float) * np.ones_like(b)
        with np.errstate(divide="ignore", invalid="ignore"):
            user = (output - 1) / dec if output > 1 else 1.0 / tpot
        out[f"tpot_{est}"] = tpot
        out[f"tokens_per_s_user_{est}"] = user
        out[f"tokens_per_s_gpu_{est}"] = b * user / par.replica_gpus
        if speculative is not None:  # speculative_request: TPOT over the last context's speed-up, rates the mean's
            sr = v[f"spec_{est}"]
            nan = np.full(b.shape, math.nan)
            out[f"spec_speedup_{est}"] = sr["last"]["speedup"] if sr else nan
            out[f"spec_speedup_mean_{est}"] = sr["mean"]["speedup"] if sr else nan
            out[f"spec_tpot_{est}"] = sr["tpot"] if sr else nan
            out[f"spec_tokens_per_s_user_{est}"] = sr["tokens_per_s_user"] if sr else nan
            out[f"spec_tokens_per_s_gpu_{est}"] = b * out[f"spec_tokens_per_s_user_{est}"] / par.replica_gpus
    return out


def speculative_at(model: Model, hw: Hardware, precision: Precision, par: Parallelism, batch: float, prompt: int,
                   output: int, accounting: str, speculative: tuple, env=None) -> dict:
    """:func:`speculative_request`, the strict bound, at one ``batch`` per replica, as floats (the serving chapter's
    speculative lever row, generator/model/techniques.py): ``tpot_plain`` and ``decode_plain`` (the request's TPOT
    and decode time without it, :func:`request`'s), ``last`` and ``mean`` (each context's plain round, verify round,
    drafts and speed-up), ``tpot``, ``decode`` and ``tokens_per_s_user`` with it; the numbers :func:`curve` and
    ``plan --speculative`` give at that batch.  ``serial``: the same numbers of the serial estimate, each against
    its own plain round (a round of the estimate pays fixed costs, the kernels' and the collectives' latency, which
    a verify round pays once for all its tokens)."""
    v = _request_values(model, hw, precision, par, np.asarray([float(batch)]), prompt, output, accounting, env, True,
                        speculative)

    def one(x) -> float:
        return float(np.ravel(np.asarray(x, dtype=float))[0])

    def numbers(est: str) -> dict:
        sr = v[f"spec_{est}"]
        return {"tpot_plain": one(v[f"tpot_{est}"]), "decode_plain": one(v[f"decode_{est}"]),
                **{k: {n: one(x) for n, x in sr[k].items()} for k in ("last", "mean")},
                **{k: one(sr[k]) for k in ("tpot", "decode", "tokens_per_s_user")}}

    return {**numbers("bound"), "serial": numbers("serial")}


def prompt_prefill(q, base: dict, lay, prompt: int, prefix_hit: float = 0.0,
                   qids=("prefill_time_bound", "prefill_pass_bound", "prefill_time_serial"),
                   busy=("prefill_pass_bound", "prefill_time_serial")) -> tuple[dict, dict]:
    """(each of ``qids`` for one prompt alone, each of ``busy`` at what the prompt occupies its replica for in a
    steady state: its pass through the stages, every replica of a wider expert group prefilling, layout.occupancy)
    at the layout values ``base`` and ``lay``.  ``prefix_hit``: the share of the prompt a prefix cache holds
    (serving.prefix_hit): the rest, max(T_in (1 - h_p), 1) tokens, is prefilled, attending to the cached positions
    too (layout.at_prompt's ``cached``: (1 + h_p) / (1 - h_p) the attention of a fresh prompt of as many tokens,
    windows counted); the prefix's KV reads are left out, so it stays a bound.  The weights are still read once and
    the collectives still run: a 99% hit does not make the first token 100 times sooner.  The one place a request's
    TTFT and prefill are counted: the serving chapter's rows, plan, the frontier, and the prefix caching row's
    before (``prefix_hit`` 0)."""
    tokens = max(float(prompt) * (1 - prefix_hit), 1.0) if prefix_hit > 0 else float(prompt)
    cached = float(prompt) * prefix_hit
    pre = at_prompt(base, lay, tokens, cached=cached)
    alone = {qid: float(q[qid](pre)) for qid in dict.fromkeys((*qids, *busy))}  # the occupancy's too
    return alone, {k: float(np.ravel(x)[0]) for k, x in occupancy(q, busy, base, lay, tokens, alone, cached).items()}


def _layout_part(q, env, model: Model, hw: Hardware, precision: Precision, par: Parallelism, prompt: int, output: int,
                 accounting: str, memo: dict | None, prefix_hit: float = 0.0) -> dict:
    """A request's numbers at a layout that no batch changes (TTFT, the values at the last context, the capacity, the
    mean context's c and d_h, whether the weights fit), kept in ``memo`` (None: none) by layout and request.
    ``prefix_hit``: the TTFT and the prefill's occupancy are the prompt's uncached part's (:func:`prompt_prefill`)."""
    key = ("layout", par, prompt, output, prefix_hit)
    if memo is not None and key in memo:
        return memo[key]
    links, base, usable = layout_base(env, model, hw, precision, par, accounting)  # C: this layout's own memory
    lay = env.with_layout(par)
    last = float(last_context(prompt, output))
    alone, busy = prompt_prefill(q, base, lay, prompt, prefix_hit)
    ttft_b, ttft_s = alone["prefill_time_bound"], alone["prefill_time_serial"]
    # a prompt's occupancy of its replica in a steady state (Request.prefill_bound): its pass through the stages
    busy_b, busy_s = busy["prefill_pass_bound"], busy["prefill_time_serial"]
    g = env.at(context=last)
    cv = dict(held_at(base, hw, model, precision, par, np.float64(last), np.float64(np.ravel(g["c"])[0])),
              d_h=np.float64(np.ravel(g["d_h"])[0]))
    read = round_reads(env, cv, float(round_context(model, prompt, output)))  # the slowest round reads; cv holds
    cap = float(q["capacity_batch_replica"](cv))
    mkey = ("mean", prompt, output)
    if memo is not None and mkey in memo:
        c_bar, d_bar = memo[mkey]
    else:
        _, c_bar, d_bar = _mean_context_values(env, prompt, output)
        if memo is not None:
            memo[mkey] = (c_bar, d_bar)
    req = dict(base, T=np.float64(prompt), T_o=np.float64(output), c=np.float64(c_bar), d_h=np.float64(d_bar))
    fit = float(q["weight_bytes_per_gpu"](base)) <= usable
    out = {"lay": lay, "ttft_bound": ttft_b, "ttft_serial": ttft_s, "prefill_bound": busy_b, "prefill_serial": busy_s,
           "cv": cv, "read": read, "cap": cap, "req": req,
           "fit": fit}
    if memo is not None:
        memo[key] = out
    return out


def _request_values(model: Model, hw: Hardware, precision: Precision, par: Parallelism, batch, prompt: int,
                    output: int, accounting: str, env, serial: bool, speculative: tuple | None = None,
                    memo: dict | None = None, prefix_hit: float = 0.0) -> dict:
    """The numbers of :func:`request` at ``batch`` (a float or an array of batches per replica); with
    ``speculative``, :func:`curve`'s speed-ups at the last and the mean context and the capacity beside a draft
    ``memo``: see :func:`curve`."""
    return _requests_values(model, hw, precision, [(par, batch, speculative)], prompt, output, accounting, env, serial,
                            memo, prefix_hit)[0]


def _requests_values(model: Model, hw: Hardware, precision: Precision, items, prompt: int, output: int,
                     accounting: str, env, serial: bool, memo: dict | None = None,
                     prefix_hit: float = 0.0) -> list[dict]:
    """:func:`_request_values` of each (layout, batch, speculative) of ``items``, each round formula evaluated once
    over all of them (stacked.over)."""
    q = load()
    env = env or make_env(hw, model, precision, accounting)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        parts = [_layout_part(q, env, model, hw, precision, par, prompt, output, accounting, memo, prefix_hit)
                 for par, _, _ in items]
        vs = [at_batch(part["read"], part["lay"], batch, busiest=serial)  # the step reads; cv holds
              for part, (_, batch, _) in zip(parts, items, strict=True)]
        rvs = [at_batch(part["req"], part["lay"], batch, busiest=serial, bound="request_decode_time_bound")
               for part, (_, batch, _) in zip(parts, items, strict=True)]
        nans = [np.full(np.shape(batch), math.nan) for _, batch, _ in items]
        tpot_b = over(q["decode_time_bound"], vs)
        tpot_s = over(q["decode_time_serial"], vs) if serial else nans
        dec_b = over(q["request_decode_time_bound"], rvs)
        dec_s = over(q["request_decode_time_serial"], rvs) if serial else nans
        specs = _speculative_values(q, env, [
            (part["lay"], part["cv"], rvs[i], batch, prompt + output / 2.0, par, speculative,
             {"bound": (tpot_b[i], dec_b[i]), "serial": (tpot_s[i], dec_s[i]) if serial else None}, part["cap"], part)
            for i, (part, (par, batch, speculative)) in enumerate(zip(parts, items, strict=True))], output, memo)
        out = []
        for i, (part, spec) in enumerate(zip(parts, specs, strict=True)):
            cap = part["cap"]
            out.append({"ttft_bound": part["ttft_bound"], "ttft_serial": part["ttft_serial"],
                        "prefill_bound": part["prefill_bound"], "prefill_serial": part["prefill_serial"],
                        "tpot_bound": tpot_b[i],
                        "tpot_serial": tpot_s[i], "decode_bound": dec_b[i], "decode_serial": dec_s[i],
                        "weights_fit": part["fit"], "capacity_batch": max(cap, 0.0) if math.isfinite(cap) else 0.0,
                        **spec})
    return out


def _speculative_values(q, env, items, output: int, memo: dict | None = None) -> list[dict]:
    """:func:`curve`'s speculative numbers of each (lay, cv, rv, batch, mean, par, speculative, plain, cap, part) of
    ``items`` ({} without ``speculative``): per estimate :func:`speculative_request` (``spec_<est>``) against
    ``plain``'s (TPOT, decode time), None where the estimate is not stated; the capacity beside a draft model.  The
    layouts' requests counted at once (:func:`_requests_many`)."""
    outs = [{} for _ in items]
    for est in ("bound", "serial"):
        todo, where = [], []
        for i, (lay, cv, rv, batch, mean, _, speculative, plain, _, part) in enumerate(items):
            if speculative is None:
                continue
            if plain[est] is None:
                outs[i][f"spec_{est}"] = None
                continue
            b = np.atleast_1d(np.asarray(batch, dtype=float))
            t, dec = (np.asarray(x, dtype=float) * np.ones_like(b) for x in plain[est])
            todo.append((env, lay, cv, rv, mean, b, t, dec, output, speculative,
                         part["read"] if part is not None else None))
            where.append(i)
        for i, sr in zip(where, _requests_many(q, todo, est == "serial"), strict=True):
            outs[i][f"spec_{est}"] = sr
    for out, (_, cv, _, _, _, par, speculative, _, cap, _) in zip(outs, items, strict=True):
        if speculative is not None:
            out["capacity_speculative"] = _draft_capacity(q, speculative, cv, par, cap, memo,
                                                          (env.model, env.precision))
    return outs


def _draft_capacity(q, speculative, cv, par: Parallelism, cap: float, memo: dict | None, target) -> float:
    """Sequences one replica holds beside ``speculative``'s draft model (its weights and KV cache share the replica's
    memory: capacity_batch_draft; ``target`` the target's model and precision, whose last stage holds a head),
    ``cap`` where the draft is a draft_cost; kept in ``memo`` by draft and layout."""
    draft = speculative[2] if hasattr(speculative[2], "capacity") else None
    if draft is not None:  # the draft's weights and KV cache share the replica's memory (capacity_batch_draft)
        key = ("draft", draft, par, float(np.ravel(cv["S"])[0]))  # the draft object itself: its identity
        if memo is not None and key in memo:
            cap = memo[key]
        else:
            cap = draft.capacity(q, cv, par, target)[0]
            if memo is not None:
                memo[key] = cap
    return max(cap, 0.0) if math.isfinite(cap) else 0.0


def probe(model: Model, hw: Hardware, precision: Precision, par: Parallelism, prompt: int, output: int,
          accounting: str, env, speculative: tuple | None = None, memo: dict | None = None,
          prefix_hit: float = 0.0) -> dict:
    """What a layout holds of a request, no batch asked: :func:`curve`'s ``capacity_batch``, ``weights_fit`` and
    ``ttft_bound`` (and ``capacity_batch_speculative`` with ``speculative``), the same numbers, without its rounds
    (the frontier's test of each layout before its curve; ``memo`` as :func:`curve`'s)."""
    q = load()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        part = _layout_part(q, env, model, hw, precision, par, prompt, output, accounting, memo, prefix_hit)
        cap = part["cap"]
        out = {"ttft_bound": part["ttft_bound"], "weights_fit": part["fit"],
               "capacity_batch": max(cap, 0.0) if math.isfinite(cap) else 0.0}
        if speculative is not None:
            out["capacity_batch_speculative"] = _draft_capacity(q, speculative, part["cv"], par, cap, memo,
                                                                (model, precision))
    return out


def _read_c(env, context):
    """c a decode step at ``context`` reads (a chunked layer: the S mod chunk tokens of its chunk), whole model: the
    one place every step time (TPOT, the request's rounds, plan, the frontier, speculative rounds, a draft's passes)
    takes its KV bytes per token from; the capacity takes the cache a sequence holds (``env.at(context=...)``).  A
    float64 for a scalar ``context``, an array for an array."""
    s = np.asarray(context, dtype=float)
    # Env.at takes the read cache where a batch is given; without chunked layers it is the held one, and no batch's
    # experts need counting
    batch = 1.0 if chunked_layers(env.model) else None
    c = np.asarray(env.at(batch=batch, context=s)["c"], dtype=float) * np.ones_like(s)
    return np.float64(c) if c.ndim == 0 else c


def prompt_cache_c(env, prompt) -> float:
    """c of the cache one prompt of ``prompt`` tokens leaves after its prefill, whole model [B per token]: the cache a
    sequence holds at context T_in (``env.at(context=T_in)``; a sliding-window or chunked layer keeps at most its
    window or chunk), so that T_in c is what a prefill replica sends a decode replica (``kv_transfer_time``), not the
    cache held at the request's last context.  The one place ``plan --disaggregate`` and the serving chapter's
    disaggregation row take it from.  ``env``: any Env of the model; a GPU's slice is taken back to the whole model
    (``Env.one_card``), as every GPU of the replica sends its own slice at once (``kv_link``'s rate is the replica's)."""
    return float(np.ravel(np.asarray(env.one_card().at(context=float(prompt))["c"], dtype=float))[0])


def speculative_rounds(q, lay, values, batches, t_plain, spec, serial, output: int | None = None) -> dict[str, np.ndarray]:
    """Speculative decoding at the layout at ``values``' context, per batch: the plain round ``plain`` (``t_plain``),
    the verify round ``verify`` (n B tokens: k + 1 for a chain, a tree's nodes: ``spec``'s fourth entry, k + 1 where
    it has three), the drafts ``draft`` (:func:`draft_time`) and the speed-up ``speedup`` E t_s / (t_v + t_d)
    (``speculative_speedup_layout``), E = (1 - p^(k+1)) / (1 - p); the strict bound or (``serial``) the estimate.
    ``output``: a request's output tokens, its rounds' E capped at the output - 1 tokens it makes after its first
    (``speculative_speedup_request``, E_R = min(E, T_out - 1)); None, or a one-token output (plan --context: one
    decode step there), E uncapped."""
    return _rounds_many(q, [(lay, values, batches, t_plain, spec, output)], serial)[0]


def _rounds_many(q, items, serial) -> list[dict[str, np.ndarray]]:
    """:func:`speculative_rounds` of each (layout, values, batches, t_plain, spec, output) of ``items``, each formula
    evaluated once over all of them (stacked.over)."""
    vs = []
    for lay, values, batches, _, spec, _ in items:
        k = spec[0]
        n = spec[3] if len(spec) > 3 else k + 1
        toks = at_batch(values, lay, batches, busiest=serial, per_sequence=n, bound=None)  # the experts n B tokens touch
        v = dict(toks, B=np.asarray(batches, dtype=float), k_d=np.float64(k), n_v=np.float64(n))
        if not serial:  # the verify round's own fastest schedule (layout.fastest_schedule)
            v["m_b"] = fastest_schedule(v, lay.cut.pp, "verify_time_bound")
        vs.append(v)
    t_vs = [np.asarray(t, dtype=float) * np.ones_like(it[2]) for t, it in
            zip(over(q["verify_time_serial" if serial else "verify_time_bound"], vs), items, strict=True)]
    t_ds = [np.asarray(draft_time(q, spec[2], spec[0], values, batches, t_plain, serial), dtype=float)
            * np.ones_like(batches)
            for _, values, batches, t_plain, spec, _ in items]
    # a request's rounds yield at most the tokens it makes after its first (E_R); a decode step alone, E
    capped = [output is not None and output > 1 for *_, output in items]
    speeds = [None] * len(items)
    for qid, want in (("speculative_speedup_request", True), ("speculative_speedup_layout", False)):
        at = [i for i, c in enumerate(capped) if c == want]
        if not at:
            continue
        got = over(q[qid], [dict({"p_a": items[i][4][1], "k_d": float(items[i][4][0]), "t_s": items[i][3],
                                  "t_v": t_vs[i], "t_d": t_ds[i]}, **({"T_out": float(items[i][5])} if want else {}))
                            for i in at])
        for i, speed in zip(at, got, strict=True):
            speeds[i] = speed
    return [{"plain": np.asarray(t_plain, dtype=float) * np.ones_like(batches), "verify": t_v, "draft": t_d,
             "speedup": np.asarray(speed, dtype=float) * np.ones_like(batches)}
            for (_, _, batches, t_plain, _, _), t_v, t_d, speed in zip(items, t_vs, t_ds, speeds, strict=True)]


# A speed-up pays where it passes 1 by more than rounding: no acceptance at no draft cost computes 1.0000000000000002,
# which called speculation "on" (a tie goes to plain decoding)
PAYS = 1.0 + 1e-9


def speculate(q, lay, values, batches, t_plain, spec, serial, output: int | None = None):
    """Speculative decoding at the layout, per batch: (speed-up, on), :func:`speculative_rounds`' speed-up (of a
    request of ``output`` tokens where given) and where it passes 1 (:data:`PAYS`)."""
    speed = speculative_rounds(q, lay, values, batches, t_plain, spec, serial, output)["speedup"]
    return speed, speed > PAYS


def mean_rounds(q, lay, rv, mean: float, batches, spec, serial, output: int | None = None) -> dict[str, np.ndarray]:
    """:func:`speculative_rounds` of a request's rounds at its mean context ``mean``: at the request's values ``rv``
    (at ``batches``, the mean context's c and d_h, :func:`_mean_context_values`) against the plain round there, the
    strict bound or (``serial``) the estimate; ``output`` as :func:`speculative_rounds`'."""
    return _mean_rounds_many(q, [(lay, rv, mean, batches, spec, output)], serial)[0]


def _mean_rounds_many(q, items, serial) -> list[dict[str, np.ndarray]]:
    """:func:`mean_rounds` of each (layout, rv, mean, batches, spec, output) of ``items``, at once (stacked.over)."""
    mvs = [dict(rv, S=np.float64(mean)) for _, rv, mean, _, _, _ in items]
    ts = over(q["decode_time_serial" if serial else "decode_time_bound"], mvs)
    return _rounds_many(q, [(lay, mv, batches, np.asarray(t, dtype=float) * np.ones_like(batches), spec, output)
                            for (lay, _, _, batches, spec, output), mv, t in zip(items, mvs, ts, strict=True)], serial)


def mean_speedup(q, lay, rv, mean: float, batches, spec, serial, output: int | None = None) -> np.ndarray:
    """The speed-up of a request's rounds at its mean context (:func:`mean_rounds`)."""
    return mean_rounds(q, lay, rv, mean, batches, spec, serial, output)["speedup"]


def speculative_request(q, env, lay, cv, rv, mean: float, batches, t_last, dec, output: int, spec,
                        serial: bool, read: dict | None = None) -> dict:
    """A request with speculative decoding, per batch: the one place ``plan --speculative``, the frontier's curves
    (:func:`curve`) and the serving chapter's lever row (generator/model/techniques.py; its port
    templates/live/techniques.js) take it from.  Two speed-ups, each at its own context:

    - ``last``: :func:`speculative_rounds` at the request's last context (``cv``, the cache a step reads there)
      against ``t_last``, the plain round there; its speed-up divides the TPOT (a time per token at the last token):
      ``tpot`` = t_last / sigma_last;
    - ``mean``: :func:`mean_rounds` at the mean context; its speed-up divides the request's decode time ``dec`` (the
      output - 1 rounds, summed in closed form at the mean context): ``decode`` = dec / sigma_mean, whence
      ``tokens_per_s_user`` = (output - 1) / decode (1 / tpot for a one-token output), and per GPU B / GPUs times it.

    Where a speed-up is under 1 the numbers show what speculating costs (plan then decodes plainly).  ``read``:
    ``cv`` with the cache a step reads (its c :func:`_read_c`), where the caller has it."""
    return _requests_many(q, [(env, lay, cv, rv, mean, batches, t_last, dec, output, spec, read)], serial)[0]


def _requests_many(q, items, serial: bool) -> list[dict]:
    """:func:`speculative_request` of each (env, lay, cv, rv, mean, batches, t_last, dec, output, spec, read) of
    ``items``, each formula evaluated once over all of them (stacked.over)."""
    reads = [read if read is not None else dict(cv, c=_read_c(env, cv["S"]))
             for env, _, cv, _, _, _, _, _, _, _, read in items]
    lasts = _rounds_many(q, [(lay, read, batches, t_last, spec, output)
                             for (_, lay, _, _, _, batches, t_last, _, output, spec, _), read
                             in zip(items, reads, strict=True)], serial)
    avgs = _mean_rounds_many(q, [(lay, rv, mean, batches, spec, output)
                                 for _, lay, _, rv, mean, batches, _, _, output, spec, _ in items], serial)
    out = []
    for (_, _, _, _, _, batches, _, dec, output, _, _), last, avg in zip(items, lasts, avgs, strict=True):
        with np.errstate(divide="ignore", invalid="ignore"):
            tpot = last["plain"] / last["speedup"]
            decode = np.asarray(dec, dtype=float) * np.ones_like(batches) / avg["speedup"]
            user = (output - 1) / decode if output > 1 else 1.0 / tpot
        out.append({"last": last, "mean": avg, "tpot": tpot, "decode": decode, "tokens_per_s_user": user})
    return out


def draft_time(q, cost, k, values, batches, t_plain, serial: bool = False):
    """t_d per batch: a draft model's k passes on the replica's GPUs (``cost`` a :class:`genreport.model.draft.Draft`:
    ``draft_time_bound`` over the layout's n_TP n_St GPUs at context S), else ``cost`` x the plain round (draft_cost).
    ``serial`` (the serial estimate's rounds): an EAGLE/MTP head's passes on the last stage's n_TP GPUs alone, which
    hold it (draft.Draft.stages; vLLM's EAGLE and MTP proposers run on the last pipeline rank), the bound's over all
    the replica's GPUs (a lower bound however the head is placed)."""
    if hasattr(cost, "time"):
        s = float(np.ravel(np.asarray(values["S"], dtype=float))[0])
        stages = 1.0 if serial and cost.head else float(np.ravel(values["n_St"])[0])
        return cost.time(q, k, np.asarray(batches, dtype=float), s, float(np.ravel(values["n_TP"])[0]), stages)
    return cost * t_plain


# a speculative verify round at the layout (speculative_rounds): the whole model's values at n_v B tokens
VERIFY = ("verify_time_bound", "verify_time_serial")
# a request's decode rounds summed (_request_values): the whole model's values at the serving block's request
REQUEST = ("request_decode_time_bound", "request_decode_time_serial")


def round_inputs_at(spec, accounting: str, qid: str, values: dict, keep=frozenset()) -> dict:
    """What a layout round's other inputs are once ``values`` set its own (derive's --at): a request's c and d_h over
    its rounds T + 1 .. T + T_o - 1 (:func:`_mean_context_values`), a verify round's N, N_x and b the experts its n_v B
    tokens touch; those in ``keep`` (set with --at themselves) are left.  {} where the point's are those already."""
    from genreport.model.layout import point_base

    base, at_layout, env = point_base(spec, accounting)
    out: dict = {}
    if qid in REQUEST and all(np.isfinite(float(values.get(k, math.nan))) for k in ("T", "T_o")):
        _, c_bar, d_bar = _mean_context_values(env, int(values["T"]), int(values["T_o"]))
        out = {"c": np.float64(c_bar), "d_h": np.float64(d_bar)}
        if "c" not in keep:  # each stage's attention at that cache, as at_batch takes it (stages.kappas)
            from genreport.model.stages import kappas

            out.update(zip(("kappa_B", "kappa_L", "kappa_F"),
                           kappas(spec.model, at_layout.cut.pp, c_bar, at_layout.card["c"]), strict=True))
    elif (qid in VERIFY and spec.model.moe is not None and np.isfinite(float(values.get("n_v", math.nan)))
          and "B" in values):
        read = dict(base, **{k: values[k] for k in ("S", "c", "d_h") if k in values})
        toks = at_batch(read, at_layout, float(values["B"]), busiest=qid.endswith("_serial"),
                        per_sequence=float(values["n_v"]), bound=None)
        out = {k: toks[k] for k in ("N", "N_x", "b", "u_x") if k in toks}
    return {k: v for k, v in out.items() if k not in keep}


def round_point_values(spec, accounting: str, qid: str, batch, context=None, tokens=None) -> dict | None:
    """The inputs at which the serving chapter evaluates the layout round ``qid`` (:data:`VERIFY`, :data:`REQUEST`)
    at ``batch`` per replica (for ``derive``, one number in one place): the whole model at the layout, which its
    formula divides (one GPU's slice would divide twice; on one GPU, the layout formulas at tp = pp = 1, a verify
    round reading the experts its n_v B tokens touch); without the serving block's request (REQUEST: its output) or
    speculative decoding (VERIFY: k_d, n_v), the layout's values with those left for derive's --at to set (they
    evaluated one GPU's slice in the layout formula, which divided it again: 0.23 ms for a verify round of Gemma 3 1B
    at pp 4 whose whole model gives 0.61); None without a batch."""
    from genreport.model.layout import point_base

    sv = spec.serving
    if qid not in VERIFY + REQUEST or batch is None:
        return None
    base, at_layout, env = point_base(spec, accounting)
    serial = qid.endswith("_serial")
    if sv is None or (qid in VERIFY and sv.speculative is None):
        # no serving block (or no speculation) to say the request or the drafts: the layout's whole-model values at
        # the point (c and d_h at its context, else at --tokens' prompt), T, T_o, n_v and k_d left to --at; m_b is
        # found once they are set (derive._fastest_schedule); a verify round reads the experts of one token a sequence
        # a request's rounds read the cache over its contexts (round_inputs_at, once --at sets T and T_o), not at one
        at = float(tokens if qid in REQUEST and tokens is not None else context if context is not None
                   else tokens if tokens is not None else 1.0)
        g = env.at(context=at)
        read = dict(base, S=np.float64(at), c=_read_c(env, at), d_h=np.float64(np.ravel(g["d_h"])[0]))
        nan = np.float64(math.nan)
        extra = ({"T": np.float64(tokens) if tokens is not None else nan, "T_o": nan} if qid in REQUEST
                 else {"n_v": nan, "k_d": nan})
        return dict(at_batch(read, at_layout, float(batch), busiest=serial, bound=None), **extra)
    if qid in REQUEST:
        prompt = int(tokens) if tokens is not None else sv.prompt
        _, c_bar, d_bar = _mean_context_values(env, prompt, sv.output)  # the rounds' mean c and d_h, what they read
        rv = dict(base, T=np.float64(prompt), T_o=np.float64(sv.output), c=np.float64(c_bar), d_h=np.float64(d_bar))
        return at_batch(rv, at_layout, float(batch), busiest=serial, bound="request_decode_time_bound")
    sp = sv.speculative
    if sp is None:
        return None
    g = env.at(context=float(context))
    read = dict(base, S=np.float64(context), c=_read_c(env, float(context)), d_h=np.float64(np.ravel(g["d_h"])[0]))
    n_v = float(sp.verified)  # the verify round runs n_v tokens of each sequence: the experts n_v B tokens touch
    toks = at_batch(read, at_layout, float(batch), busiest=serial, per_sequence=n_v, bound=None)
    v = dict(toks, B=np.float64(batch), k_d=np.float64(sp.draft_tokens), n_v=np.float64(n_v))
    v["m_b"] = fastest_schedule(v, at_layout.cut.pp, "verify_time_bound")  # the verify round's own schedule
    return v
