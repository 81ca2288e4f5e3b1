"""What serving engines do, for the spec's ``serving`` block at its layout (formulas/techniques.py).

Each technique is a lever row of the serving chapter: its setting, its effect on the time to first token (TTFT),
the time per output token (TPOT), the output tokens/s per GPU and the $/M output tokens, and where its benefit
ends; with the formula it comes from, printed as evaluated.  Speculative decoding is evaluated through the layout
(the verify round ``verify_time_bound`` against the plain round ``decode_time_bound``, both with the collectives
and the pipeline), and so is the KV transfer of disaggregation (over the link between two replicas,
plan.kv_link); chunked prefill, continuous batching and prefix caching take one GPU's ledgers (the layout's slice
of the model, formulas.layout.sliced of the single-card formulas, with the GPU's peak, bandwidth and memory; no
interconnect, so still a bound), and the ratios they give are applied to the chapter's own TTFT and TPOT (the
strict bound at the layout, its communication included).  Their rates and sequence counts are one replica's: each
of its tp x pp GPUs carries its slice of every request, so the rate per GPU is the replica's over those GPUs.

Inputs and their defaults (``serving``): ``chunk`` the tokens one step may batch, vLLM's max_num_batched_tokens,
the one number ``engine.max_batched_tokens`` also states (it sizes the activation workspace): 8192 by default
(vLLM V1's chunked prefill on the OpenAI server, docs.vllm.ai config/scheduler; V0's chunked prefill took 512, vLLM
pull request 4580), a spec writes it in either place, not two different numbers, ``prefix_hit`` 0, ``rate`` none (the chapter then
gives the highest rate the TPOT target allows), ``speculative`` none (``draft_cost`` 0.05 of a decode step where
the spec names no cost: an MTP head of one layer over a 61-layer model, DeepSeek-V3 section 5.4.3, reads about 4%;
``draft_model`` instead derives the drafts' time from a catalog model's k_d passes, generator/model/draft.py, and its
weights and cache shrink the replica's capacity),
``prompt_spread`` none (every prompt ``prompt`` tokens; ``sharegpt``: the chat trace's ten lengths around it, which
the tails of :func:`rate_curves` take: :data:`PROMPT_SPREADS`).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from genreport.formulas import portable
from genreport.model.stated import point_variant
from genreport.model.values import Block, Entry, physical

CHUNK_SOURCE = ("vLLM's max_num_batched_tokens (engine.max_batched_tokens, 8192 by default: V1 chunked prefill, "
                "docs.vllm.ai config/scheduler; V0 took 512, pull request 4580); Sarathi-Serve, OSDI 2024")

# The prompts' lengths a spec may name for the tails (``serving.prompt_spread``), each as equally likely lengths over
# their mean, so that the mean prompt is the spec's ``serving.prompt`` whatever the spread (one number, one place):
# - none: every prompt ``serving.prompt`` tokens (the one-length laws: generalized Poisson stalls, M/D/1 TTFT);
# - sharegpt: the ShareGPT chat trace as Sarathi-Serve's artifact ships it (github.com/microsoft/sarathi-serve,
#   data/processed_traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv, 30,731 requests): the mean prompt of each
#   tenth of the prompts sorted by length, 33 to 6,609 tokens around a mean of 2,340 (median 1,730), as
#   tests/test_techniques_published.py counts them for Sarathi-Serve's and DistServe's chat workloads.
SHAREGPT_TENTHS = (33, 198, 580, 979, 1457, 2060, 2805, 3737, 4941, 6609)
PROMPT_SPREADS = {"none": (1.0,), "sharegpt": tuple(x * len(SHAREGPT_TENTHS) / sum(SHAREGPT_TENTHS)
                                                     for x in SHAREGPT_TENTHS)}
PROMPT_SPREAD_SOURCE = {"none": "every prompt serving.prompt tokens",
                        "sharegpt": "ShareGPT chat trace, Sarathi-Serve's sharegpt_8k_filtered_stats_llama2_tokenizer.csv "
                                    "(30,731 requests): the ten tenths' mean prompts over their mean"}


def prompt_classes(sv) -> tuple[float, ...]:
    """The prompt lengths of the serving block's spread, equally likely, their mean ``serving.prompt`` [tokens]."""
    return tuple(float(sv.prompt) * x for x in PROMPT_SPREADS[getattr(sv, "prompt_spread", "none")])


# The ceilings the chapter's goodput takes the least of (formulas/techniques.py), each with the words that say it binds;
# all rates of one replica, from one GPU's slice of the layout (every GPU of a replica carries its share of each
# request).
CEILINGS = {"goodput_rate_tpot": "TPOT target", "goodput_rate_compute": "compute roof",
            "goodput_rate_capacity": "KV cache room", "chunk_budget_rate": "chunk budget",
            "goodput_rate_engine": "engine's max_sequences"}
# ... of a one-token request, which leaves with its prefill: no decode round, so no sequence holds a cache, counts
# against max_sequences or waits a TPOT
PREFILL_CEILINGS = ("goodput_rate_compute", "chunk_budget_rate")


def ceilings(hw) -> dict[str, str]:
    """The CEILINGS a replica of ``hw``'s engine has: the engine's max_sequences only where it sets one (0: none, as
    the seeds assume)."""
    return {k: v for k, v in CEILINGS.items()
            if k != "goodput_rate_engine" or int(getattr(hw, "max_sequences", 0) or 0) > 0}


def _replica_gpus(r) -> int:
    """GPUs of one replica of the spec's layout (tp x pp; 1 without a layout): a replica's rate over these is the
    rate per GPU."""
    par = r.spec.parallelism
    return int(par.replica_gpus) if par is not None else 1


def _inputs(r, batch: float, context: float) -> dict:
    """One GPU's glossary values at (batch, context) with the serving block's technique inputs; c the cache a step
    at ``context`` reads, c_h the cache a sequence of the request holds at its mean context (serving.held_mean_c).
    At the request's last context the round is its slowest (serving.round_context): S, c and d_h are that round's
    where it is another (the end of a chunk, Llama 4); the draft's memory stays the last context's."""
    from genreport.model.serving import last_context, round_context, round_values

    sv = r.spec.serving
    env = r.envs[r.lead].at(batch=float(batch), context=float(context))
    env = {k: float(np.ravel(np.asarray(v, dtype=float))[0]) for k, v in env.items()}
    tc = float(round_context(r.spec.model, sv.prompt, sv.output))
    if float(context) == float(last_context(sv.prompt, sv.output)) and tc != float(context):
        env.update({k: float(np.ravel(np.asarray(v, dtype=float))[0])
                    for k, v in round_values(r.envs[r.lead], float(context), tc).items()})
    spec_ = sv.speculative
    # n_St: the stages a round steps through, each step with its own budget (chunk_budget_rate)
    env.update({**request_inputs(sv), "n_S": 1.0, "n_St": float(r.spec.parallelism.pp if r.spec.parallelism else 1),
                "p_a": spec_.acceptance if spec_ else 0.5, "k_d": float(spec_.draft_tokens) if spec_ else 1.0,
                "n_v": float(spec_.verified) if spec_ else 2.0})
    env["M_d"], env["c_d"] = draft_memory(r.spec, context)
    env["M_s"] = float(getattr(r.spec.hardware, "max_sequences", 0) or 0)  # the engine's limit; 0: none
    from genreport.model.serving import held_mean_c, prefix_held_mean_c

    env["c_h"] = held_mean_c(r.envs[r.lead], sv.prompt, sv.output)  # what a sequence holds, the KV cache room's
    # ... and of that, what its cached prefix still holds (c_h where every layer is global)
    env["c_s"] = prefix_held_mean_c(r.envs[r.lead], sv.prompt, sv.output, float(sv.prompt) * sv.prefix_hit)
    env["d_hp"] = prompt_head_dim(r, float(sv.prompt) * (1 - sv.prefix_hit), float(sv.prompt) * sv.prefix_hit)
    return env


def _past_target(step: float, target: float | None) -> str:
    """Words for a round with a chunk that takes longer than the TPOT target (a review found the row's 47.9 ms beside
    a 40 ms target without a word); none where it meets it or there is no target."""
    if target is None or not step > target:
        return ""
    from genreport.present import fmt

    return f"; a round with a chunk takes {fmt.time(step)}, past the {fmt.time(target)} TPOT target"


def prompt_head_dim(r, tokens: float, cached: float = 0.0) -> float:
    """d_hp: the head dim of a prompt's attention (a chunk, a prefill alone) over its ``tokens`` uncached tokens after
    the ``cached`` a prefix cache holds (env.prefill_head_dim): MLA in its decompressed form, where the decode tokens
    take the absorbed form's d_h; other attention the unwindowed d_h times the share of the uncached tokens' causal
    attention its windowed and chunked layers compute (architecture.prefill_attended_fraction_after), not the decode
    context's window share (Gemma 3 27B at a 32k prompt: 2 L H_q d_hp T_in^2 with the prefill's g(T), as the
    layout's prefill counts it)."""
    from genreport.model.env import prefill_head_dim

    return float(prefill_head_dim(r.spec.model, float(r.envs[r.lead].values["d_h"]), float(tokens), cached=cached))


# The quantities of one mixed step at a batch: their chunk C_p is what the budget leaves beside that batch's decode
# tokens (request_inputs at the batch), where the steady state's is the budget's whole width.
MIXED_STEP = frozenset({"prompt_chunk", "chunked_step_time", "chunked_step_intensity", "chunked_ttft", "chunked_steps",
                        "chunked_life_cost"})

# The quantities the serving chapter states at its point (its last row's batch, a request's last context: _inputs),
# where ``derive`` evaluates them too unless given a batch or context.
AT_CHAPTER_POINT = frozenset(CEILINGS) | {"steady_step_time"} | MIXED_STEP

# Of those, the steady state's: its formulas read each sequence's cache at a request's mean decode context
# (request_bytes, request_flops), so the chapter evaluates them with c and d_h there (report: env_s), and derive too.
STEADY_STATE = frozenset(CEILINGS) | {"steady_step_time"}


def held_room(lead, env: dict, last: float, stage: int | None = None) -> dict:
    """``env`` with C lowered so that C - N b is the room beside the weights a GPU holds, while N stays the weights a
    step reads: ``goodput_rate_capacity`` counts both through N, and they differ for a mixture of experts (a step
    reads the experts its batch touches) and a pipeline (a round streams each GPU's slice once per micro-batch: Llama
    3.1 405B in bf16 at tp 8 x pp 2 reads 2 x 50.7 GB a round from the 50.7 GB a GPU holds, which left no room).
    With stages the room is that stage's (``stage``: the last, where an EAGLE/MTP head binds there,
    draft.replica_binding; else the one that holds the fewest tokens), and c_h the cache a sequence holds on it: the
    time slice's c_h over its n_PK share, not n_PP (DeepSeek-V3 at pp 2: the last stage's 30 layers, not the busiest
    stage's 31).  ``lead``: the report's Env (its ``at`` without a batch gives what a GPU holds)."""
    held = lead.held(context=last, stage=stage)  # with stages: that stage's weights, cache and memory
    n_h, b_h = float(np.ravel(held["N"])[0]), float(np.ravel(held["b"])[0])
    n_r, b_r = float(np.ravel(env["N"])[0]), float(np.ravel(env["b"])[0])
    c_room = float(np.ravel(held["C"])[0])
    out = env if n_h * b_h == n_r * b_r and c_room == float(np.ravel(env["C"])[0]) else \
        dict(env, C=c_room - n_h * b_h + n_r * b_r)  # (one stage, dense: the same digits)
    if "c_h" in env and lead.cut.pp > 1:
        ratio = float(np.ravel(held["c"])[0]) / float(np.ravel(lead.at(context=last)["c"])[0])
        if ratio != 1.0:
            out = dict(out, c_h=float(env["c_h"]) * ratio, **({"c_s": float(env["c_s"]) * ratio} if "c_s" in env else {}))
    return out


def draft_memory(spec, context: float) -> tuple[float, float]:
    """(M_d, c_d): a draft model's weight bytes and KV bytes per token on one GPU of the spec's layout
    (generator/model/draft.Draft.memory, split at the target's tp and pp; an EAGLE/MTP head whole on a GPU of the
    last stage, below), (0, 0) without a draft: what the
    chapter's ceilings (``goodput_rate_capacity``), the prefix cache (``prefix_capacity_batch``), the rate figure
    and derive take (the live page its port, templates/live/techniques.js draftMemory); the batch limit
    (``capacity_batch_draft``, draft.replica_capacity) calls the same Draft.memory at the same layout."""
    from genreport.model.draft import of_spec

    draft = of_spec(spec)
    if draft is None:
        return 0.0, 0.0
    from genreport.formulas.compiled import load
    from genreport.model.layout import pipeline_split

    par = spec.parallelism
    if draft.head and par is not None and par.pp > 1:
        # an EAGLE/MTP head at a layout of stages is the last stage's whole: its bytes on a GPU of the stage that binds
        # beside it (draft.replica_binding), none where that is another stage (held_room then takes its room)
        from genreport.model.draft import replica_binding

        at = replica_binding(spec, float(context))
        return at["M_d"], at["c_d"]
    tp, n_pp = (par.tp, float(pipeline_split(spec.model.layers, par.pp))) if par is not None else (1, 1.0)
    return draft.memory(load(), float(context), tp, n_pp)


def _draft_format(spec) -> str:
    """' in bf16' where serving.speculative.draft_precision gives the draft weights of its own format (a head in bf16
    beside nvfp4 experts), else '' (the target's)."""
    from genreport.model.draft import declared_precision

    own = declared_precision(spec)
    return "" if own is None or own.weights_label() == spec.precision.weights_label() else f" in {own.weights_label()}"


def prefix_stages(spec, lead, env: dict, last: float) -> list[dict]:
    """The inputs of ``prefix_capacity_batch`` at ``last`` on each stage that may bind: the weights a GPU holds (an
    MoE's every expert of its slice), the cache a sequence holds there (a chunked layer: its whole chunk) and, of it,
    the bytes a shared prefix still takes (a windowed layer holds none past its window), ``env`` the point's values
    with M_d, c_d the draft's (draft_memory).  One option without stages; with an EAGLE/MTP head on the last stage that
    binds beside it (draft_stage), that stage with the head's bytes and the one that holds the fewest tokens
    without them: the replica holds what the tighter of the two holds.  ``lead``: the spec's Env."""
    from genreport.model.serving import prefix_held_c

    sv = spec.serving
    head = draft_stage(spec, last)  # the last, where the head beside it binds (env's M_d, c_d are its bytes)
    out = []
    for stage in ([head, None] if head is not None else [None]):
        held = lead.held(context=last, stage=stage)
        env_h = dict(env, N=float(np.ravel(held["N"])[0]), b=float(np.ravel(held["b"])[0]),
                     c=float(np.ravel(held["c"])[0]), C=float(np.ravel(held["C"])[0]))
        if stage is None and head is not None:  # a stage without the head holds none of its bytes
            env_h.update(M_d=0.0, c_d=0.0)
        env_h["c_s"] = prefix_held_c(lead, last, float(sv.prompt) * sv.prefix_hit, env_h["c"])
        out.append(env_h)
    return out


def _prefix_capacities(r, env: dict, last: float) -> tuple[dict, float | None, float | None]:
    """(the first of :func:`prefix_stages`, the sequences one replica holds at ``last`` without and with the shared
    prefix held once): the least over the stages, so that the first count is the chapter's capacity beside the draft
    (draft.Draft.capacity).  DeepSeek-V3 fp8 at tp 8 x pp 2 with one MTP layer on H200 read 1,092 here, the head
    charged to the stage that binds without it, beside the chapter's 1,093."""
    options = prefix_stages(r.spec, r.envs[r.lead], env, last)
    counts = [[_eval(r, "prefix_capacity_batch", {**o, **h}) for o in options] for h in ({"h_p": 0.0}, {})]
    cap0, cap1 = (_sequences(physical("prefix_capacity_batch", min(c), "floor")[0]) for c in counts)
    return options[0], cap0, cap1


def draft_stage(spec, context: float) -> int | None:
    """The stage whose room the serving chapter's ceilings take (held_room): the last where an EAGLE/MTP head binds
    there at ``context`` and another stage binds without it (draft.replica_binding), else None (the stage that holds
    the fewest tokens, Env.held's)."""
    from genreport.model.draft import replica_binding

    par = spec.parallelism
    if par is None or par.pp <= 1:
        return None
    at = replica_binding(spec, float(context))
    return None if at is None else at.get("stage")


def request_inputs(sv, batch: float = 0.0, stages: int = 1) -> dict[str, float]:
    """The request's technique symbols of a ``serving`` block: T_in, T_out, h_p, s_c (the step's token budget) and
    C_p, the prompt tokens a mixed round carries beside ``batch`` decode tokens, min(max(n_st s_c - B, 0),
    T_in (1 - h_p)) over its ``stages`` steps (formulas.techniques.prompt_chunk), computed here once for the
    chapter, ``derive`` and ``plan``: at the chapter's batch and the layout's stages for its mixed step
    (``MIXED_STEP``), at B = 0 and one step, the budget's whole width, for the steady state."""
    from genreport.formulas.compiled import load

    out = {"T_in": float(sv.prompt), "T_out": float(sv.output), "h_p": float(sv.prefix_hit), "s_c": float(sv.chunk)}
    chunk = load()["prompt_chunk"]
    out["C_p"] = float(chunk.fn(*({**out, "B": float(batch), "n_St": float(stages)}[a] for a in chunk.fn_args)))
    return out


def _eval(r, qid: str, env: dict) -> float:
    """``qid`` at ``env``, in IEEE arithmetic: a division by zero (one generated token: T_out - 1 = 0) is an
    infinity that :func:`genreport.model.values.physical` then states as absent, not an exception."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return float(np.asarray(r.q[qid]({k: np.float64(v) if isinstance(v, float) else v for k, v in env.items()}),
                                dtype=float))


def _step(r, env: dict) -> float:
    """One plain decode step of the GPU's ledgers, at least: the larger of its memory and compute times [s]."""
    return max(_eval(r, "decode_time_memory", env), _eval(r, "decode_time_compute", env))


def _step_links(r, tokens: float) -> float:
    """The interconnect ledger of a step whose ``tokens`` tokens pass one GPU's layers at the spec's layout, at least:
    their all-reduces, all-to-alls and stage sends (prefill_time_comm at T = tokens, as the layout's prefill counts
    them); 0 on one GPU.  The technique rows take one GPU's ledgers, which leave the links out: a chunk's 4,096
    prompt tokens of Qwen3-235B on 8 MI300X all-reduce over the mesh for 26 ms, where its ledgers read 11.5 ms."""
    if r.parallel is None or tokens <= 0:
        return 0.0
    from genreport.model.layout import point_values

    v = point_values(r.spec, r.lead, "prefill_time_comm", tokens=float(tokens))
    return _eval(r, "prefill_time_comm", v)


def _sequences(x: float | None) -> int | None:
    """A count of sequences that fit: whole ones (floor), 0 where the weights leave no room, None where unknown."""
    return None if x is None else max(0, math.floor(x))


def _block(r, name: str, qid: str, env: dict, params: dict) -> Block:
    c = r.q[qid]
    value, reason = physical(qid, _eval(r, qid, env), c.integer)
    inputs = {a: env[a] for a in c.args if a in env}
    entry = Entry(qid, dict(params), value, c.unit, c.symbol, None, r.lead, reason)
    # N_a printed apart where the point streams other weights than it computes with (a pipeline's micro-batches)
    return Block(name, entry, inputs, False, point_variant(r, r.lead, inputs, c.args),
                 symbols=streamed_symbols(r, inputs))


def _streamed_plain(r, inputs: dict | None) -> str | None:
    """The plain-text symbol (N_s,g, N_r,g ...) of ``inputs``' N where :func:`streamed_symbols` gives it one."""
    from genreport.model.shown import streamed_symbol

    if inputs is None or not streamed_symbols(r, inputs):
        return None
    return streamed_symbol(r, float(inputs["N"]))[0]


def streamed_symbols(r, inputs: dict) -> dict[str, str]:
    """A block's own symbol for N where the weights it substitutes are not those a GPU holds (shown.blocks does
    the same): the experts a step touches (N_s,g ...) or a pipeline round's micro-batches (N_r,g), never N_g, which
    the glossary and the slice table define as the slice a GPU holds."""
    from genreport.model.shown import streamed_symbol

    if "N" not in inputs:
        return {}
    held = float(np.ravel(r.envs[r.lead].values["N"])[0])
    if np.isclose(float(inputs["N"]), held, rtol=1e-9):
        return {}
    tex = streamed_symbol(r, float(inputs["N"]))[1]
    return {"N": tex} if tex else {}


def layout_inputs(spec, context: float, round_at: float | None = None):
    """What a round at the spec's layout is evaluated from (generator/model/plan's inputs): the layout, the compiled
    formulas, the one-card environment, the layout's, the values at ``context`` per GPU (``cv``) and the same with
    the cache each step reads (``read``), at ``round_at`` where given (serving.round_context: the slowest round)."""
    from genreport.formulas.compiled import load
    from genreport.load.spec import Parallelism
    from genreport.model.env import make_env
    from genreport.model.layout import choose_links, held_at, layout_values
    from genreport.model.serving import round_values

    hw, model, prec, acc = spec.hardware, spec.model, spec.precision, spec.accounting
    par = spec.parallelism or Parallelism()
    q = load()
    env = make_env(hw, model, prec, acc)
    links, _ = choose_links(hw, par)
    base = layout_values(env.values, model, par, links, prec, acc, env.pc, kernels=hw.kernels, hw=hw)
    lay = env.with_layout(par)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        g = env.at(context=float(context))
        cv = dict(held_at(base, hw, model, prec, par, np.float64(context), np.float64(np.ravel(g["c"])[0])),
                  d_h=np.float64(np.ravel(g["d_h"])[0]))
        read = dict(cv, **round_values(env, float(context), float(context if round_at is None else round_at)))
    return par, q, env, lay, cv, read


def _layout_round(r, batch: float) -> dict:
    """Speculative decoding through the spec's layout at ``batch`` per replica (generator/model/serving.speculative_at,
    the numbers plan --speculative and the frontier's curves give there): each context's plain round
    (``decode_time_bound``), verify round (``verify_time_bound``, its n_v tokens per sequence (k + 1 for a chain)
    through the weights and the collectives), drafts and speed-up E t / (t_v + t_d), at the request's last context
    (``last``: it divides the TPOT) and its mean context (``mean``: it divides the decode time, whence tok/s); the
    first batch up to what a replica holds at the last context (4,096 at most) and the engine runs at once
    (serving.engine_limit: ``engine_binds`` where its max_sequences stops the scan) where the last context's speed-up
    falls to 1 (plan's ``spec_breakeven_batch``: where plan stops speculating)."""
    from genreport.model.draft import speculative_inputs
    from genreport.model.layout import at_batch
    from genreport.model.serving import engine_limit, last_context, round_context, speculate, speculative_at

    spec, sv = r.spec, r.spec.serving
    last, mean = float(last_context(sv.prompt, sv.output)), float(sv.prompt) + float(sv.output) / 2
    par, q, env, lay, cv, read = layout_inputs(spec, last, float(round_context(spec.model, sv.prompt, sv.output)))
    k = speculative_inputs(spec)
    draft = k[2] if not isinstance(k[2], (int, float)) else None
    out = speculative_at(spec.model, spec.hardware, spec.precision, par, batch, sv.prompt, sv.output, spec.accounting,
                         k, env)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        cap = float(q["capacity_batch_replica"](cv))
        if draft is not None:  # the draft's weights and KV cache take the target's room (capacity_batch_draft)
            cap_d, m_d, c_d = draft.capacity(q, cv, par, (spec.model, spec.precision))
            f_d, q_d = draft.ledgers(q, np.asarray([float(batch)]), mean)  # one pass at the mean context (tech_draft)
            out.update({"draft_model": draft.model.title, "draft_weights_gpu": m_d, "draft_kv_token_gpu": c_d,
                        "capacity_plain": cap, "capacity_with_draft": cap_d, "draft_flops_pass": float(f_d[0]),
                        "draft_bytes_pass": float(q_d[0]), "draft_gpus": par.tp * par.pp, "draft_P": draft.env.values["P"],
                        "draft_W": draft.env.values["W"]})
            cap = cap_d
        held = int(min(max(cap, 1.0), 4096))
        n = int(engine_limit(spec.hardware, held))  # no more than the engine runs at once (its max_sequences)
        batches = np.arange(1, n + 1, dtype=float)
        t = np.asarray(q["decode_time_bound"](at_batch(read, lay, batches, busiest=False)), dtype=float) * np.ones(n)
        sig, on = speculate(q, lay, read, batches, t, k, False, sv.output)
        # the serial estimate's own rounds: each pays the kernels' and the collectives' fixed costs once, a verify
        # round once for its n_v tokens a sequence, so speculation can pay there where the bound's ratio does not
        t_s = np.asarray(q["decode_time_serial"](at_batch(read, lay, batches, busiest=True)), dtype=float) * np.ones(n)
        _, on_s = speculate(q, lay, read, batches, t_s, k, True, sv.output)
    return {**out, "scanned": n, "engine_binds": n < held, **_pays(on), "speedup_far": float(sig[-1]),
            "serial_pays": _pays(on_s)}


def _pays(on: np.ndarray) -> dict:
    """Where a speed-up over batches 1 .. n (``on``: it passes 1 at each) stops paying: ``breakeven``, the first batch
    where it does not; ``resumes``, the first past it where it pays again; ``stops_again``, the first past that where
    it stops once more (None where there is none)."""
    off = np.flatnonzero(~on)
    # a mixture of experts can pay again past the break-even: once every expert is read by the plain step too, the
    # verify step's extra tokens cost little more (Llama 4 Maverick at tp 8 x pp 2 x ep 8: from batch 15 to 50)
    again = np.flatnonzero(on[off[0]:]) if off.size else off
    # ... and stop paying again further on, once the verify round's extra tokens cost more than the drafts save (a
    # draft model whose passes read its own cache of every sequence: Mixtral 8x7B drafted by Mistral 7B)
    resumes = int(off[0] + again[0]) if again.size else None
    stops = np.flatnonzero(~on[resumes:]) if resumes is not None else np.array([], dtype=int)
    return {"breakeven": int(off[0]) + 1 if off.size else None, "resumes": resumes + 1 if resumes is not None else None,
            "stops_again": int(resumes + stops[0]) + 1 if stops.size else None}


def steady_weights(weigh, decode, prompt, room) -> dict:
    """N, N_e and b of the weights a steady step streams on average, beside ``decode`` decode tokens with ``prompt``
    prompt tokens a step on average (Little's law) and ``room`` the most a step's budget leaves them (s_c - B): the
    least mean over every law of the prompt tokens over the steps with that mean on [0, room], each law a schedule an
    engine may run.  A step's weights grow with its tokens by a concave law (the experts they touch; a dense model's
    are constant) above one token (a step reads at least one token's), so the least is the lower convex envelope's:
    the two-point law, a share p of the steps carrying a full budget (decode + room tokens) and the others none,
    p = prompt / room; where fewer than one decode token runs, the two points are one token and the full budget.
    Spreading the prompt tokens evenly over every step, as this did before, reads more: not a bound (a mixture of
    experts at a low rate: every step read nearly every expert; Qwen3-30B-A3B on one H100 with 8k prompts and 64-token
    outputs at a 20 ms TPOT: 30.5B parameters a step spread, 25.2B on the chord).  A budget of several prompts where
    one prompt's uncached part is shorter (the tail, ``chunk_step_share``, takes one prompt's chunk a step, the
    engine the chapter's rows model).  ``room`` NaN (pipeline stages, :func:`_steady_room`): the spread; at or below
    0 (the decode tokens fill the budget) the full share's limit, the decode tokens' weights, so N has no jump there.
    ``weigh(tokens)``: N, N_e and b of a step of that many tokens.  Mixed, N and N_e are the law's means (the
    parameters a step streams on average) and b the bytes of a streamed parameter, (N - N_e) b the law's mean bytes
    (formats of their own per class, gpt-oss's MXFP4 experts beside bf16: b differs at the two points).  Only
    (N - N_e) b enters the steady step; the KV cache room is the held weights' (``held_room``).  Elementwise."""
    decode, prompt, room = (np.asarray(x, dtype=float) for x in (decode, prompt, room))
    fine = np.isfinite(room) & np.isfinite(prompt) & (prompt > 0)
    if not np.any(fine):
        return weigh(decode + prompt)
    room = np.where(fine, np.maximum(room, 0.0), 0.0)
    below = np.maximum(1.0 - decode, 0.0)  # the flat stretch under one token: the envelope's left point is there
    over, width = np.where(fine, prompt, 0.0) - below, room - below
    share = np.where(width > 0, np.clip(over / np.where(width > 0, width, 1.0), 0.0, 1.0), 1.0)
    alone, full = weigh(decode + below), weigh(decode + np.maximum(room, below))
    n = (1 - share) * alone["N"] + share * full["N"]  # the parameters a step streams, on average
    n_e = (1 - share) * alone["N_e"] + share * full["N_e"]
    streamed = (1 - share) * (alone["N"] - alone["N_e"]) * alone["b"] + share * (full["N"] - full["N_e"]) * full["b"]
    mixed = {"N": n, "N_e": n_e, "b": streamed / np.where(n > n_e, n - n_e, 1.0)}
    if np.all(fine):
        return {k: v * np.ones(np.shape(fine)) for k, v in mixed.items()}
    spread = weigh(decode + prompt)
    return {k: np.where(fine, mixed[k], spread[k]) * np.ones(np.shape(fine)) for k in mixed}


def _weigh_lead(lead, context) -> callable:
    """``weigh`` of :func:`steady_weights` for scalars: N, N_e and b of ``lead.at`` a batch of that many tokens (at
    least one) and ``context``."""

    def weigh(tokens):
        g = lead.at(batch=max(float(tokens), 1.0), context=context)
        return {k: np.float64(np.ravel(g[k])[0]) for k in ("N", "N_e", "b")}

    return weigh


def _steady_room(lead, sv, decode):
    """What a step's budget leaves a steady state's prompt tokens beside ``decode`` decode tokens, for
    :func:`steady_weights`' two-point law: s_c - B, serving.chunk less the decode tokens (formulas.techniques.
    prompt_chunk without its one-prompt cap: an engine may batch several prompts in a step).  NaN (the even spread
    taken) with pipeline stages: there a round's weights follow its micro-batches (min(n_PP, B), or the bound's
    schedule at a context), which are not concave in its tokens, so the chord bounds nothing."""
    if lead.cut.pp > 1:
        return np.full(np.shape(decode), np.nan) if np.ndim(decode) else math.nan
    return float(sv.chunk) - decode


def steady_tpot_rate(q, lead, env: dict, sv) -> tuple[float, dict]:
    """(goodput_rate_tpot, the inputs it is evaluated at): the rate whose steady step meets the TPOT target, its N,
    N_e and b the weights that step streams at its own tokens, not at the chapter's batch.  At the rate lam a step
    of theta carries lam theta (T_out - 1) decode tokens and lam theta T_in (1 - h_p) prompt tokens (Little's law,
    formulas.techniques.steady_step_time), and those touch the experts (a mixture of experts) and fill the
    micro-batches (a pipeline's round streams each GPU's slice once per micro-batch) that make N: the rate is the
    fixed point lam = lambda_theta(N(lam)), one crossing (N grows with lam, lambda_theta falls with N), bisected;
    a dense model on one stage has one N, no search.  The same steady state the rate figure's chunked curve runs
    (rate_curves: its TPOT-target rate is this one); ``lead`` the report's Env, ``env`` one GPU's values at the
    chapter's point with theta."""
    decode = float(sv.tpot) * (sv.output - 1)  # decode and prompt tokens a step carries per 1/s
    prompt = float(sv.tpot) * sv.prompt * (1 - sv.prefix_hit)
    weigh = _weigh_lead(lead, float(np.ravel(env["S"])[0]) if "S" in env else None)

    def inputs(lam: float) -> dict:
        g = steady_weights(weigh, lam * decode, lam * prompt, _steady_room(lead, sv, lam * decode))
        return dict(env, **{k: float(np.ravel(g[k])[0]) for k in ("N", "N_e", "b")})

    def rate(values: dict) -> float:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return float(np.asarray(q["goodput_rate_tpot"]({k: np.float64(v) if isinstance(v, float) else v
                                                            for k, v in values.items()}), dtype=float))

    lo_in = inputs(0.0)  # one token's weights: the highest rate any steady state reaches
    hi = rate(lo_in)
    if not (math.isfinite(hi) and hi > 0):
        return hi, lo_in
    if rate(inputs(hi)) >= hi * (1 - 1e-12):  # the weights do not grow with the rate: no search
        top = inputs(hi)
        return rate(top), top
    lo = 0.0
    for _ in range(64):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if rate(inputs(mid)) >= mid else (lo, mid)
    at = inputs(lo)
    return rate(at), at


def capacity_weights(lead, env: dict, sv, running: float) -> dict:
    """``env`` with N, N_e and b the weights the steady step streams at the KV cache room's ceiling
    (``goodput_rate_capacity``), found with its rate as :func:`steady_tpot_rate` finds (22)'s: at that rate the
    running sequences fill the room, ``running`` = B_h at the mean context (prefix_capacity_batch with c_h, which
    takes the weights a GPU holds, whatever a step streams), and beside their decode tokens a step carries
    lam t_s T_in (1 - h_p) = B_h T_in (1 - h_p) / (T_out - 1) prompt tokens (Little's law): those tokens touch the
    experts (a mixture of experts) and fill the micro-batches (a pipeline) that make N, so rate and weights are one
    fixed point, here in closed form (the count of running sequences does not depend on N).  A one-token output
    holds no sequence: the chapter's own weights.  The same steady state as the rate figure's and the live page's."""
    if sv.output <= 1 or not running > 0:
        return env
    prompt = running * sv.prompt * (1 - sv.prefix_hit) / (sv.output - 1)
    g = steady_weights(_weigh_lead(lead, float(np.ravel(env["S"])[0]) if "S" in env else None), float(running),
                       prompt, _steady_room(lead, sv, float(running)))
    return dict(env, **{k: float(np.ravel(g[k])[0]) for k in ("N", "N_e", "b")})


def _rate_or_none(x: float | None) -> float | None:
    """A ceiling's rate, None where there is none (absent, or at or below 0: no rate at all)."""
    return x if x is not None and x > 0 else None


def _speculative_compute_words(serving: dict, sp, tokens: float, batch: int) -> str:
    """The speculative lever row's words on its compute (serving_report's ``compute_batch_speculative``, B_P,spec):
    the most sequences a replica keeps speculating at the TPOT target with their prompts' prefills, beside the plain
    B_P, each kept token's n_v / E verified tokens and k_d / E draft passes (the drafts' FLOPs unknown from a
    draft_cost, which gives their time), and where the row's batch passes it; "" without a TPOT target."""
    spec_b, plain_b = serving.get("compute_batch_speculative"), serving.get("compute_batch")
    if spec_b is None:
        return ""
    cost = (f"{sp.verified} / {tokens:.2f} verified tokens and {sp.draft_tokens} / {tokens:.2f} draft passes"
            if sp.draft is not None else
            f"{sp.verified} / {tokens:.2f} verified tokens; the drafts' FLOPs are left out, a draft_cost giving their "
            "time alone")
    # never "at most 0 sequences", "0 decoding plainly" (a review: a 2-token output, whose prompts take the compute)
    keeps = ("no sequence at the TPOT target with its prompt's prefill" if spec_b == 0 else
             f"at most {spec_b:,} sequence{'s' if spec_b != 1 else ''} at the TPOT target with their prompts' prefills")
    plain = "" if plain_b is None else ", nor decoding plainly" if plain_b == 0 else f", {plain_b:,} decoding plainly"
    return (f"; speculating, a replica's compute keeps {keeps}{plain}"
            + f" (each kept token costs {cost})" + (f": fewer than this row's {batch:,}" if batch > spec_b else ""))


def _stops_paying(p: dict, where: str = "", why: str = "") -> str | None:
    """Where a speed-up stops paying, in words (``p``: :func:`_pays`'s; ``where`` follows each batch range, ``why``
    the range where it does not pay): "ends at batch 157", "does not pay from batch 1 to 12, and pays from batch 13",
    or with a third turn "..., pays again from batch 15 to 49 and stops paying again at batch 50"; None where it pays
    at every batch scanned."""
    b, back, stop = p["breakeven"], p["resumes"], p["stops_again"]
    if b is None:
        return None
    if back is None:
        return f"ends at batch {b:,}{where}"
    again = " again" if b > 1 else ""  # it paid below the break-even (else it never paid before)
    return (f"does not pay from batch {b:,} to {back - 1:,}{where}{why}"
            + (f", and pays{again} from batch {back:,}" if stop is None else
               f", pays{again} from batch {back:,} to {stop - 1:,} and stops paying again at batch {stop:,}"))


def _serial_pays_words(lay: dict) -> str:
    """Where the serial estimate's speed-up at the last token stops paying (``lay``: :func:`_layout_round`'s): its
    rounds pay the kernels' and the collectives' fixed costs, a verify round once for all its tokens, so it can pay
    where the bound's ratio does not (a ratio of two bounds is not a bound: the measured speed-up may pass it)."""
    return ("by the serial estimate (each round's fixed costs, the kernels' and the collectives', paid once for all of "
            "a verify round's tokens) it " + (_stops_paying(lay["serial_pays"])
                                              or f"pays at every batch up to {lay['scanned']:,}"))


def chunked_life_cost(r, mix: dict, cost: float) -> tuple[float, float]:
    """(n_c, the mean cost of a round over a batch's life): formulas.techniques ``chunked_steps`` and
    ``chunked_life_cost`` at the chunked row's values ``mix`` (its batch B, chunk C_p, the request's T_in, T_out,
    h_p) with kappa_c = ``cost`` (the row's t_mix / t_dec).  The row's tok/s per GPU and $/M take this mean, its TPOT
    the mixed step itself.  (0, cost) where no chunk rides along or the request has no decode round: no mixed step,
    the quantities have no value there."""
    if not mix["C_p"] > 0 or not mix["T_out"] > 1:
        return 0.0, cost
    steps = _eval(r, "chunked_steps", mix)
    return steps, _eval(r, "chunked_life_cost", {**mix, "kappa_c": cost, "n_c": steps})


def _life_words(steps: float, output: int, batch: int, noun: str) -> str:
    """The chunked row's note on its tok/s and $/M: the mixed steps of a batch's life (:func:`chunked_life_cost`)."""
    from genreport.present import fmt

    if not steps > 0 or output <= 1:
        return ""
    rounds = f"{output - 1:,} round{'s' if output - 1 != 1 else ''}"
    head = f"; tok/s per {noun} and $/M over a batch's life: "
    if steps <= output - 1:
        whose = "its prompt's" if batch == 1 else f"its {batch:,} prompts'"
        return head + f"{whose} chunks ride along {fmt.sig3(steps)} of its {rounds}"
    whose = "its prompt takes" if batch == 1 else f"its {batch:,} prompts take"
    return head + f"{whose} {fmt.sig3(steps)} mixed steps for its {rounds}, and its output waits on them"


def _faster(x: float) -> str:
    """A speed-up of the TPOT in words: "1.79× faster", or past the break-even batch "1.10× slower" (never "0.91×
    faster")."""
    return f"{x:.2f}× faster" if x >= 1 else f"{1 / x:.2f}× slower"


def whole_group_pools(share: float, replicas: int, group: int) -> tuple[int, int, int]:
    """Prefill and decode pools in whole expert-parallel groups of ``group`` replicas, where the ep group is wider
    than a replica (ep > tp: no replica runs its MoE layers alone; serving_report.ep_group_replicas): (p, d, the
    replicas deployed) for a deployment of ``replicas`` (a whole number of groups: the users' replicas), p =
    round(share n / G) prefill groups, clamped to 1 .. n / G - 1, d = n / G - p decode groups.  A deployment of one
    group cannot be split: the smallest that can, 2 groups, is taken.  A half rounds up (as the live page's
    Math.round does)."""
    groups = max(replicas // group, 2)
    p = min(max(math.floor(share * groups + 0.5), 1), groups - 1)
    return p, groups - p, groups * group


def one_pool(r, batch: int, t_prefill: float) -> dict | None:
    """One pool of the spec's replicas that prefills whole prompts between its decode rounds (``aggregated_tpot``,
    the pools' comparison, as ``plan --disaggregate`` takes it): at the largest batch up to ``batch`` whose TPOT
    (the round at the last context plus the prompts prefilled while the users wait, ``t_prefill`` each) meets the
    TPOT target, or at ``batch`` without a target; its tok/s per GPU at the mean round (the chapter's).  ``batch``
    0 where even one sequence misses the target (the numbers then batch 1's); None for a request of one token (no
    decode rounds)."""
    from genreport.load.spec import Parallelism
    from genreport.model.env import make_env
    from genreport.model.serving import request

    spec, sv = r.spec, r.spec.serving
    if sv.output < 2:
        return None
    par = spec.parallelism or Parallelism()
    env = make_env(spec.hardware, spec.model, spec.precision, spec.accounting)

    def at(b: int) -> tuple[float, float, float]:
        """(its TPOT and its mean round, both with the prefills between rounds; the round alone at the last context)"""
        q = request(spec.model, spec.hardware, spec.precision, par, b, sv.prompt, sv.output, spec.accounting, env,
                    serial=False)
        ask = {"B": float(b), "T_out": float(sv.output), "t_pr": t_prefill}
        return (_eval(r, "aggregated_tpot", {**ask, "t_s": q.tpot_bound}),
                _eval(r, "aggregated_tpot", {**ask, "t_s": q.decode_bound / (sv.output - 1)}), q.tpot_bound)

    lo, hi = (0, int(batch)) if sv.tpot is not None else (int(batch), int(batch))
    while lo < hi:  # the TPOT only grows with the batch (its round and the prefills the users wait for)
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if at(mid)[0] <= sv.tpot else (lo, mid - 1)
    b = max(lo, 1)
    tpot, t_rate, t_round = at(b)
    return {"batch": lo, "tpot": tpot, "round": t_round, "tokens_per_s_gpu": b / (_replica_gpus(r) * t_rate)}


def _share(x: float) -> str:
    """A share of a step in percent: two significant digits under 10% (a one-layer draft's 0.39%, never "0%"),
    whole percents above."""
    return f"{100 * x:.2g}%" if 0 < x < 0.1 else f"{x:.0%}"


def _pool_share(x: float) -> str:
    """A share in percent that never reads "0%" or "100%" strictly between them (genreport.present.fmt.share)."""
    from genreport.present.fmt import share

    return share(x)


def _retire(rate: float, unit: str = "") -> str:
    """A batch's or a decode pool's rate of finished requests (three significant digits, then ``unit``); a request of
    one output token has no decode round, so its rate has no bound: said in words, never 'inf'."""
    from genreport.present import fmt

    return fmt.sig3(rate) + unit if math.isfinite(rate) else "without limit (a one-token output has no decode round)"


def whole_prefill(r) -> tuple[float, float]:
    """(TTFT, occupancy), strict bounds, of the whole prompt prefilled alone at the spec's layout, as without a prefix
    cache: the prefix caching row's before.  The chapter's rows take the prompt's uncached part
    (serving.prompt_prefill with serving.prefix_hit), which is the row's after."""
    from genreport.load.spec import Parallelism
    from genreport.model.env import make_env
    from genreport.model.layout import layout_base
    from genreport.model.serving import prompt_prefill

    spec, sv = r.spec, r.spec.serving
    par = spec.parallelism or Parallelism()
    env = make_env(spec.hardware, spec.model, spec.precision, spec.accounting)
    _, base, _ = layout_base(env, spec.model, spec.hardware, spec.precision, par, spec.accounting)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        alone, busy = prompt_prefill(r.q, base, env.with_layout(par), sv.prompt, 0.0, ("prefill_time_bound",),
                                     ("prefill_pass_bound",))
    return alone["prefill_time_bound"], busy["prefill_pass_bound"]


def _chunked_prefill(r, env: dict, batch: float, last: float, t_dec: float, b: dict, ttft_h: float,
                     stages: int) -> tuple[dict, dict[str, Block], dict]:
    """The chunked-prefill lever row of a request with decode rounds, its formula blocks and its numbers: one chunk
    rides along each decode step while a prompt is prefilled, in what the step's budget leaves beside the batch's
    decode tokens (vLLM and Sarathi-Serve schedule the decode tokens first).  ``b``: the chapter's busiest row's
    bound, ``ttft_h`` its prompt's uncached part alone at the layout."""
    from genreport.present import fmt

    sv, noun = r.spec.serving, r.spec.hardware.noun
    tpot, per_gpu, usd = b["tpot"], b["tokens_per_s_gpu"], b["usd_per_mtok_out"]
    blocks, numbers = {}, {}
    mix = {**env, "C_p": request_inputs(sv, batch, stages)["C_p"]}
    t_mix = _eval(r, "chunked_step_time", mix)
    i_plain = _eval(r, "decode_intensity", mix)
    i_mix = _eval(r, "chunked_step_intensity", mix)
    # at a layout the step's links too: the chunk's prompt tokens pass the collectives with the decode tokens
    links_mix, links_dec = _step_links(r, batch + mix["C_p"]), _step_links(r, batch)
    cost = max(t_mix, links_mix) / max(t_dec, links_dec)
    ttft_chunk = _eval(r, "chunked_ttft", mix) if mix["C_p"] > 0 else None  # none: the decode tokens fill the budget
    # the same prompt in one step alone, the same accounting (one GPU's ledgers, its uncached tokens): the row's TTFT
    # is the chapter's times chunked over alone, like with like, as its TPOT is the chapter's times the step's cost
    uncached = sv.prompt * (1 - sv.prefix_hit)
    ttft_alone = _eval(r, "chunked_ttft", {**mix, "B": 0.0, "C_p": uncached}) if uncached > 0 else None
    ttft_ratio = ttft_chunk / ttft_alone if ttft_chunk is not None and ttft_alone is not None and ttft_alone > 0 else None
    # a mixed step at least its GPU's ledgers and, at a layout, its links (the row's cost)
    t_step = max(t_mix, links_mix)
    chunk_rate = mix["C_p"] / (sv.prompt * (1 - sv.prefix_hit) * t_step)  # prompts a step's chunk admits per second
    decode_rate = batch / ((sv.output - 1) * t_step)  # requests the batch finishes (it decodes: T_out >= 2)
    chunk_steps, life = chunked_life_cost(r, mix, cost)
    row = {"technique": "chunked prefill",
           "setting": f"a step budget of {sv.chunk:,} token{'' if sv.chunk == 1 else 's'}"
                      + (f", {stages} steps a round (one per micro-batch)" if stages > 1 else "")
                      + f": {int(batch):,} decode token{'' if int(batch) == 1 else 's'}"
                      # a round's chunk over its steps' budgets (3,840 beside "a step budget of 2,048")
                      + (f" and a prompt chunk of {mix['C_p']:,.0f}" + (" a round" if stages > 1 else "")
                         if mix["C_p"] > 0
                         else ", no room for a prompt chunk")
                      # the chunks carry the prompt's uncached part: its TTFT takes the prefix cache's hit too
                      + (f", of the {_pool_share(1 - sv.prefix_hit)} of the prompt the prefix cache leaves (its TTFT, "
                         "before and after, is that part's, as the rows')" if sv.prefix_hit > 0 and mix["C_p"] > 0 else ""),
           # the TTFT of the prompt's uncached part (the rows'), the part the chunks carry, times
           # chunked over alone (a 70% hit's chunked row once read the whole prompt's 3.57 s), and at least the
           # steps its chunks ride in, each the row's TPOT (a 99.9% hit's once read 0.03 ms beside 26.8 ms steps);
           # before, that uncached part alone: the row is chunking's alone (a review found it the whole prompt's,
           # the prefix cache's gain counted in the chunks')
           "ttft": (ttft_h, max(ttft_h * ttft_ratio, uncached / mix["C_p"] * tpot * cost)
                    if ttft_ratio is not None else None),
           "tpot": (tpot, tpot * cost),
           "per_gpu": (per_gpu, per_gpu / life), "usd": (usd, usd * life if usd is not None else None),
           "gain": 1 / life,
           "ends": (f"a step's intensity {i_plain:,.0f} → {i_mix:,.0f} FLOP/B"
                    + (f"; its collectives over the links take at least {fmt.time(links_mix)}, more than its "
                       f"ledgers on a GPU ({fmt.time(t_mix)})" if links_mix > t_mix else "")
                    + f"; the decode users pay {cost:.2f}× per "
                    f"token while a prompt is prefilled and no step stalls for a whole prompt; at this batch one "
                    f"chunk a step admits {fmt.sig3(chunk_rate)} requests/s per replica and the batch retires "
                    f"{_retire(decode_rate, ' requests/s')}, each round a mixed step at the last token (admission at the "
                    "chapter's batch, not the chunk budget's steady-state ceiling the goodput takes)"
                    + _past_target(tpot * cost, sv.tpot))
           if mix["C_p"] > 0 else
           (f"{_filled(int(batch), sv.chunk)}: no prompt is admitted while the "
            f"batch runs; the batch retires {_retire(decode_rate, ' requests/s')} per replica"),
           "note": "TPOT while a chunk rides along; TTFT the prompt in chunks beside the batch against the "
                   "prompt in one step alone" + _life_words(chunk_steps, sv.output, int(batch), noun)}
    blocks["tech_chunked"] = _block(r, "tech_chunked", "chunked_step_time", mix,
                                    {"batch": int(batch), "context": int(last)})
    if chunk_steps > 0:  # the mixed steps of a batch's life: the row's tok/s per GPU and $/M
        blocks["tech_chunked_life"] = _block(r, "tech_chunked_life", "chunked_life_cost",
                                             {**mix, "kappa_c": cost, "n_c": chunk_steps}, {})
    numbers.update({"chunked_step_time": t_mix, "chunked_cost": cost, "chunked_step_links": links_mix, "chunked_intensity": i_mix,
                    "chunk_admits_rate": chunk_rate, "batch_retires_rate": decode_rate,
                    "decode_intensity": i_plain, "chunked_ttft": ttft_chunk, "chunked_ttft_alone": ttft_alone,
                    "chunked_ttft_ratio": ttft_ratio, "chunk_tokens": mix["C_p"], "chunked_steps": chunk_steps,
                    "chunked_life_cost": life})
    return row, blocks, numbers


def report(r) -> tuple[dict | None, dict[str, Block]]:
    """(the technique rows and numbers of the serving chapter, their formula blocks); (None, {}) without
    ``serving`` or where the layout holds no sequence of the request (nothing to serve, no technique to apply)."""
    from genreport.present import fmt

    sv, noun = r.spec.serving, r.spec.hardware.noun
    if sv is None or r.serving is None or not r.serving["holds"]:
        return None, {}
    base = r.serving["rows"][-1]  # the chapter's busiest point (the users' batch, or the TPOT target's)
    batch = float(base["batch"])
    from genreport.model.serving import last_context

    last = float(last_context(sv.prompt, sv.output))
    mean = float(sv.prompt) + float(sv.output) / 2
    b = base["bound"]
    ttft, tpot, per_gpu, usd = b["ttft"], b["tpot"], b["tokens_per_s_gpu"], b["usd_per_mtok_out"]
    # the chapter's rates and sequence counts are one replica's, with or without a target: its GPUs stated once
    rows, blocks, numbers = [], {}, {"replica_gpus": _replica_gpus(r)}
    env = _inputs(r, batch, last)
    t_dec = _step(r, env)
    one_token = sv.output <= 1  # no decode round after the prompt's first token (plan --context S)

    # speculative decoding at the chapter's batch through the layout (serving.speculative_request, as plan and the
    # frontier take it): the TPOT over the speed-up at the last context, tok/s and $/M with the mean context's
    if sv.speculative is not None:
        sp = sv.speculative
        # the tokens a round yields, at most the output - 1 the request makes after its first (E_R)
        spec_qid = "speculative_speedup_request" if sv.output > 1 else "speculative_speedup_layout"
        with_out = {**env, "T_out": float(sv.output)} if sv.output > 1 else env
        tokens = _eval(r, "speculative_request_tokens" if sv.output > 1 else "speculative_expected_tokens", with_out)
        lay = _layout_round(r, batch)
        from genreport.model.serving import usd_per_mtok

        at_last, at_mean = lay["last"], lay["mean"]
        gpus = _replica_gpus(r)
        per_gpu_s = batch * lay["tokens_per_s_user"] / gpus
        verify_x = physical("verify_crossover_batch", _eval(r, "verify_crossover_batch", env), "round")[0]
        breakeven = lay["breakeven"]
        resumes, stops_again = lay["resumes"], lay["stops_again"]
        ends = _stops_paying({k: lay[k] for k in ("breakeven", "resumes", "stops_again")},
                             " per replica at this layout, at the last token",
                             " (the verify step's tokens touch more experts than a plain step's)"
                             if r.spec.model.moe is not None else "")
        if ends is not None and resumes is None and verify_x is not None:
            ends += f" (one GPU's verify step turns compute-bound at {verify_x:,.0f})"
        if ends is None:
            far = lay["speedup_far"]
            upto = (f"pays at every batch up to the {lay['scanned']:,} sequence{'' if lay['scanned'] == 1 else 's'} "
                    + ("the engine runs at once (its max_sequences)" if lay["engine_binds"] else "a replica holds"))
            # where the verify step turns compute-bound only past the batches scanned, it stays memory-bound to the
            # last (QA of stop 71: "past batch 765 ... falls, to 3.36x at batch 256")
            ends = (upto + (f": past batch {verify_x:,.0f} the speed-up at the last token falls, to {far:.2f}× at batch "
                            f"{lay['scanned']:,}" if verify_x < lay["scanned"] else
                            f", {far:.2f}× at batch {lay['scanned']:,} (one GPU's verify step turns compute-bound only "
                            f"at {verify_x:,.0f})")
                    if verify_x is not None else upto)
        t_d = at_mean["draft"]
        drafts = (f"drafts {_pool_share(sp.draft_cost)} of a step" if sp.draft is None else
                  f"drafted by {sp.draft.title}{_draft_format(r.spec)} ({sp.draft_tokens} pass{'es' if sp.draft_tokens > 1 else ''}, at least {fmt.time(t_d)}: "
                  f"{_share(t_d / at_mean['plain'])} of a step)")
        if sp.draft is not None:
            ends += (f"; the draft's weights and KV cache leave room for {lay['capacity_with_draft']:,.0f} sequences "
                     f"of {int(last):,} tokens per replica, {lay['capacity_plain']:,.0f} without it")
        ends += "; " + _serial_pays_words(lay)
        ends += _speculative_compute_words(r.serving, sp, tokens, int(batch))
        rows.append({"technique": "speculative decoding",
                     "setting": f"{sp.draft_tokens} draft token{'s' if sp.draft_tokens > 1 else ''}, accepted "
                                f"{_pool_share(sp.acceptance)} each, {drafts}"
                                + (f", a tree of {sp.verified} tokens verified" if sp.verify_tokens is not None else ""),
                     "ttft": (ttft, ttft), "tpot": (tpot, lay["tpot"]), "per_gpu": (per_gpu, per_gpu_s),
                     "usd": (usd, usd_per_mtok(r.spec.hardware.price_per_hour, per_gpu_s) if usd is not None else None),
                     "gain": at_mean["speedup"], "ends": ends,
                     "note": f"{tokens:.2f} tokens per verify step; TPOT {_faster(at_last['speedup'])} at the last "
                             f"token, tok/s {at_mean['speedup']:.2f}× at the mean context; the serial estimate: TPOT "
                             f"{_faster(lay['serial']['last']['speedup'])}, tok/s "
                             f"{lay['serial']['mean']['speedup']:.2f}×"})
        for name, ctx, x in (("tech_speculative", last, at_last), ("tech_speculative_mean", mean, at_mean)):
            blocks[name] = _block(r, name, spec_qid,
                                  {"p_a": sp.acceptance, "k_d": float(sp.draft_tokens), "t_s": x["plain"],
                                   "t_v": x["verify"], "t_d": x["draft"], "T_out": float(sv.output)},
                                  {"batch": int(batch), "context": int(ctx)})
        numbers.update({"expected_tokens": tokens, "breakeven_batch": breakeven, "resumes_batch": resumes,
                        "stops_again_batch": stops_again,
                        **{f"{n}_batch_serial": lay["serial_pays"][n] for n in ("breakeven", "resumes", "stops_again")},
                        **{f"speedup_{c}_serial": lay["serial"][c]["speedup"] for c in ("last", "mean")},
                        "verify_crossover_batch": verify_x,
                        **{f"{n}_{c}": x[k] for c, x in (("last", at_last), ("mean", at_mean))
                           for n, k in (("speedup", "speedup"), ("plain_round", "plain"), ("verify_round", "verify"),
                                        ("draft_time", "draft"))}})
        if sp.draft is not None:
            blocks["tech_draft"] = _block(r, "tech_draft", "draft_time_bound",
                                          {"k_d": float(sp.draft_tokens), "F_d": lay["draft_flops_pass"],
                                           "Q_d": lay["draft_bytes_pass"], "P": lay["draft_P"], "W": lay["draft_W"],
                                           "n_TP": float(r.spec.parallelism.tp if r.spec.parallelism else 1),
                                           "n_St": lay["draft_gpus"] / (r.spec.parallelism.tp if r.spec.parallelism else 1)},
                                          {"batch": int(batch), "context": int(mean)})
            numbers.update({k: lay[k] for k in ("draft_model", "draft_weights_gpu", "draft_kv_token_gpu",
                                                "capacity_plain", "capacity_with_draft", "draft_flops_pass",
                                                "draft_bytes_pass")})

    # chunked prefill; a one-token request has no decode round: no decode token rides beside a chunk and no user waits
    # on one, so the table has no chunked-prefill row (its TPOT and tok/s would be a decode step no request takes);
    # the step budget still caps a step's prompt tokens: the chunk budget's ceiling below (a review read "the
    # decode users pay 4.34x" beside "256 decode tokens" for a request that decodes nothing)
    stages = r.spec.parallelism.pp if r.spec.parallelism is not None else 1
    if not one_token:
        row, row_blocks, row_numbers = _chunked_prefill(r, env, batch, last, t_dec, b, ttft, stages)
        rows.append(row)
        blocks.update(row_blocks)
        numbers.update(row_numbers)

    # continuous batching in steady state: the rate the TPOT target allows, the rate the spec names; the chunk
    # budget's rate once, here, for the ceilings and the rate figure's chunked curve alike (it does not take theta)
    # the steady state's formulas read each sequence's cache at the mean decode context, T_in + T_out / 2 (request_bytes
    # and request_flops): c and d_h there, not at the last context the chapter's rows read (a windowed layer reads
    # min(S, w) of S: c at the last context times the mean context undercounted phi-3-mini's reads, and (22) stated a
    # TPOT ceiling of 33.4 requests/s past the 32.5 where the rate figure's steady step, at the mean, has no end)
    at_mean = _inputs(r, batch, mean)
    env_s = {**env, "c": at_mean["c"], "d_h": at_mean["d_h"]}
    budget = _rate_or_none(physical("chunk_budget_rate", _eval(r, "chunk_budget_rate", env_s), "")[0])
    # the rate the KV caches allow, once too (nor does it take theta): the running sequences at the mean context,
    # holding c_h a token, beside the weights a GPU holds, a shared prefix held once; and the sequences its balance
    # counts, B_h at the mean context with the same c_h (the rate figure's unchunked curve stops where its own running
    # sequences reach them)
    stage = draft_stage(r.spec, last)  # the last, where an EAGLE/MTP head beside it binds there
    room = held_room(r.envs[r.lead], env_s, last, stage)
    held_mean = max(0.0, _eval(r, "prefix_capacity_batch", {**room, "S": mean, "c": room["c_h"]}))
    # ... at the weights its own steady state streams (capacity_weights), not the chapter's batch's
    kv_in = capacity_weights(r.envs[r.lead], env_s, sv, held_mean)
    room = held_room(r.envs[r.lead], kv_in, last, stage)
    kv_rate = _rate_or_none(physical("goodput_rate_capacity", _eval(r, "goodput_rate_capacity", room), "")[0])
    # the rate the engine's max_sequences allows, likewise at the weights its own steady state streams: M_s
    # sequences running and their prompt tokens (none where the engine sets no limit)
    own = ceilings(r.spec.hardware)
    if one_token:  # a request that leaves with its prefill: no sequence decodes, so neither the TPOT target, the
        # caches nor the engine's max_sequences sets a rate (each reduced to W / Q_r, the memory's own limit, under
        # the words of the caches and the engine); the compute roof and the chunk budget do
        own = {k: v for k, v in own.items() if k in PREFILL_CEILINGS}
    engine_in = capacity_weights(r.envs[r.lead], env_s, sv, env_s["M_s"]) if "goodput_rate_engine" in own else None
    engine_rate = (_rate_or_none(physical("goodput_rate_engine", _eval(r, "goodput_rate_engine", engine_in), "")[0])
                   if engine_in is not None else None)
    tpot_in = None
    if one_token or sv.tpot is not None:  # the goodput: the least of the ceilings (a one-token request's two)
        tpot_rate = None
        if not one_token:
            env_s["theta"] = sv.tpot
            # the TPOT ceiling at the weights its own steady state streams (steady_tpot_rate), once: (22), the
            # goodput, the rate figure's chunked TPOT-target rate and derive all state this one
            tpot_rate, tpot_in = steady_tpot_rate(r.q, r.envs[r.lead], env_s, sv)
        # the ceilings evaluated once above (the chunk budget, the caches', the engine's) or here (the TPOT target's);
        # the others at the steady state's inputs
        given = {"chunk_budget_rate": budget, "goodput_rate_capacity": kv_rate, "goodput_rate_engine": engine_rate,
                 "goodput_rate_tpot": physical("goodput_rate_tpot", tpot_rate, "")[0] if tpot_rate is not None else None}
        rates = {k: given[k] if k in given else physical(k, _eval(r, k, env_s), "")[0] for k in own}
        rates = {k: v if v is not None and v > 0 else None for k, v in rates.items()}  # none: no rate at all
        found = [v for v in rates.values() if v is not None]
        goodput = min(found) if len(found) == len(own) else None
        binding = min(rates, key=lambda k: rates[k] if rates[k] is not None else -math.inf)
        if "goodput_rate_engine" in own:
            numbers["max_sequences"] = int(env_s["M_s"])  # a count, as serving.max_sequences
        numbers.update({"goodput_rate": goodput, "goodput_binds": CEILINGS[binding], **rates,
                        "goodput_rate_per_gpu": goodput / _replica_gpus(r) if goodput is not None else None,
                        **({"prefill_only": True} if one_token else {})})
        # the formula printed: the TPOT target's ceiling, or a one-token request's compute roof
        blocks["tech_goodput"] = (_block(r, "tech_goodput", "goodput_rate_compute", env_s, {}) if one_token
                                  else _block(r, "tech_goodput", "goodput_rate_tpot", tpot_in, {}))
    if sv.rate is not None:
        env_s["lam"] = sv.rate
        t_s = physical("steady_step_time", _eval(r, "steady_step_time", env_s), "")[0]
        if one_token:  # the share of the compute its prompts take; no step a user waits on, no sequence decoding
            numbers["rate"] = sv.rate
            if numbers.get("goodput_rate_compute"):
                numbers["rate_compute_share"] = sv.rate / numbers["goodput_rate_compute"]
        else:
            numbers.update({"rate": sv.rate, "steady_step_time": t_s if t_s is not None and t_s > 0 else None,
                            "steady_concurrency": sv.rate * (sv.output - 1) * t_s if t_s and t_s > 0 else None})

    # prefix caching
    if sv.prefix_hit > 0:
        env_h, cap0, cap1 = _prefix_capacities(r, env, last)
        # the sequences a replica's compute keeps at the TPOT target with their prompts' prefills (serving_report.
        # prompts_batch): whole prompts before, the uncached parts after (the chapter's compute_batch)
        b_p0 = b_p1 = None
        if sv.tpot is not None and r.serving.get("compute_batch") is not None:
            from genreport.model.serving_report import prompts_batch

            b_p0, b_p1 = prompts_batch(r.spec, cached=False), int(r.serving["compute_batch"])
        ends = (f"sequences that fit per replica at the last context ({int(last):,} tokens): {cap0 or 0:,.0f} "
                f"→ {cap1 or 0:,.0f} ({_held_once(env_h['c_s'])})")
        if b_p0 is not None:
            ends += (f"; a replica's compute keeps {b_p0:,} → {b_p1:,} sequences at the TPOT target with their "
                     "prompts' prefills (the rows above count the hit)")
        roof0 = None
        if one_token and numbers.get("goodput_rate_compute"):  # a prefill-only service: the cache lifts its roof
            roof0 = physical("goodput_rate_compute", _eval(r, "goodput_rate_compute", {
                **env_s, "h_p": 0.0, "d_hp": prompt_head_dim(r, float(sv.prompt), 0.0)}), "")[0]
            roof0 = roof0 if roof0 is not None and roof0 > 0 else None
            if roof0 is not None:
                ends += (f"; the compute roof {fmt.num(roof0)} → {fmt.num(numbers['goodput_rate_compute'])} "
                         "requests/s per replica (a prompt's uncached part prefilled, the goodput's ceiling below)")
        # before: the chapter without the cache, after: the rows' (the prompt's uncached part, serving.prompt_prefill):
        # the whole prompt's TTFT, and the last row the chapter would have without it (serving_report.last_row_batch:
        # its TPOT target's batch is then the decode round's, no more than whole prompts' prefills keep, b_p0), its
        # rounds, tok/s and $/M where that is another batch (a review of stop 94 found the cache's 1.3x there shown as
        # none, then a batch of 1 taken where the chapter without it ends on its users' row)
        ttft_w, busy_w = whole_prefill(r)  # w: without the cache
        tpot_w, per_gpu_w, usd_w, batch_w = tpot, per_gpu, usd, int(batch)
        if b_p0 is not None:
            from genreport.model.serving_report import last_row_batch

            decode_b = r.serving.get("decode_tpot_batch")
            batch_w = last_row_batch(r.serving.get("users_batch"), min(decode_b, b_p0) if decode_b is not None else None)
        if batch_w != int(batch):
            from genreport.load.spec import Parallelism
            from genreport.model.serving import request
            from genreport.model.serving_report import _row

            spec, hw = r.spec, r.spec.hardware
            plain = _row(request(spec.model, hw, spec.precision, spec.parallelism or Parallelism(), batch_w, sv.prompt,
                                  sv.output, spec.accounting, serial=False), hw.price_per_hour, hw.power_watts, "")
            tpot_w, per_gpu_w, usd_w = (plain["bound"][k] for k in ("tpot", "tokens_per_s_gpu", "usd_per_mtok_out"))
        keep = "none" if not b_p0 else f"{b_p0:,} sequence{'s' if b_p0 != 1 else ''}"
        rows.append({"technique": "prefix caching", "setting": f"{_pool_share(sv.prefix_hit)} of each prompt cached",
                     "ttft": (ttft_w, ttft), "tpot": (tpot_w, tpot), "per_gpu": (per_gpu_w, per_gpu),
                     "usd": (usd_w, usd), "gain": ttft_w / ttft, "ends": ends,
                     "note": "TTFT: the whole prompt against its uncached part alone at the layout (the rows'), "
                             "its weights still read once" + (
                                 f"; before, the chapter's last row without the cache, batch {batch_w:,} (whole "
                                 f"prompts' prefills keep {keep} at the TPOT target)" if batch_w != int(batch) else "")})
        numbers.update({"prefix_capacity_before": cap0, "prefix_capacity_after": cap1, "prefix_ttft": ttft,
                        "prefix_prefill": b["prefill"], "prefix_ttft_before": ttft_w, "prefix_prefill_before": busy_w,
                        "prefix_compute_batch_before": b_p0,
                        **({"prefix_compute_roof_before": roof0} if roof0 is not None else {})})

    # prefill/decode disaggregation (none where a request generates one token: its first token is the prefill's, no
    # decode pool has work, as plan --disaggregate refuses --output 1; a review found "min(48, ∞) requests/s" and
    # "100% prefill, 0% decode" there)
    from genreport.load.spec import Parallelism

    stages = (r.spec.parallelism or Parallelism()).pp
    if sv.output >= 2:
        # prefill/decode disaggregation: pools of the same layout, balanced for the request shape; where the layout has
        # pipeline stages each prefill replica is a pipeline admitting a prompt every pass / pp (DistServe, section 3.1; the
        # pass: prefill_pass_bound, each stage's ledger in turn, what the stages are occupied for),
        # which admits pp times the prompts of a whole replica and so always needs fewer prefill GPUs (plan's search
        # takes it there too)
        from genreport.model.plan import kv_link

        # the pools' rates are steady-state rates: a decode replica's batch holds sequences at every point of their
        # output, so a round reads the cache of the mean context, and a request's T_o - 1 rounds take its decode time,
        # (T_o - 1) / tok/s per user: t_s is that mean round, as the row's tok/s per GPU takes it (and plan
        # --disaggregate); the TPOT round, at the last context, bounds each sequence's slowest round, not the rate
        # a decode replica prefills nothing: its batch is the TPOT target's for the decode round alone
        # (the serving block's decode_tpot_batch, serving_report.batches), where the chapter's, the prompts' prefills counted, may be smaller
        d_batch, d_tpot, d_gpu, d_user, env_p = int(batch), tpot, per_gpu, b["tokens_per_s_user"], env
        if r.serving.get("decode_tpot_batch") and r.serving["decode_tpot_batch"] > int(batch):
            from genreport.model.serving import request

            d_batch = int(r.serving["decode_tpot_batch"])
            spec = r.spec
            req = request(spec.model, spec.hardware, spec.precision, spec.parallelism or Parallelism(), d_batch,
                          sv.prompt, sv.output, spec.accounting, serial=False)
            d_tpot, d_gpu, d_user = req.tpot_bound, req.per_gpu("bound"), req.per_user("bound")
            env_p = _inputs(r, float(d_batch), last)
        t_round = 1.0 / d_user if d_user else d_tpot
        # a prefill replica prefills the prompt's uncached part (the rows', serving.prompt_prefill), as the
        # chunked row's chunks carry only that part. A busy pool's replica is occupied by a prompt for its steady-state
        # prefill (Request.prefill_bound): its pass through the stages, with an expert group wider than a replica every
        # replica of the group prefilling at once (m_P = n_EP / n_TP); a prompt's own TTFT stays its alone
        t_prefill = b["prefill"]
        env_d = dict(env_p, t_pr=t_prefill, t_s=t_round, k_pp=float(stages))
        share = _eval(r, "balanced_prefill_gpus", env_d)
        # what one decode replica retires in the pools: its plain mean round t_s, no chunk riding along (the chunked
        # row's batch_retires_rate takes the step with a chunk)
        pool_rate = _eval(r, "decode_pool_rate", {**env_d, "n_D": 1.0})
        piped = (f", each prefill replica a pipeline of {stages} stages" if stages > 1 else "") + (
            ", each prompt's uncached part prefilled (as the rows' TTFT)" if sv.prefix_hit > 0
            else "")
        from genreport.model.serving_report import pool_unit_gpus

        par_kv = r.spec.parallelism or Parallelism()
        link, link_name = kv_link(r.spec.hardware, par_kv, pool_unit_gpus(par_kv))  # the pools: replicas or whole groups
        t_kv = None
        if link:  # every GPU of the replica sends its own slice of the prompt's cache at once
            from genreport.model.serving import prompt_cache_c

            c_card = prompt_cache_c(r.envs[r.lead], sv.prompt)  # the cache the prompt leaves: held at T_in
            t_kv = sv.prompt * c_card / link
            numbers["kv_transfer_time"] = t_kv
            numbers["kv_link"] = link_name
            # c is the whole model's (every GPU sends its slice at once over W_kv, the replica's links): printed c, as
            # the glossary defines it, not the c_g ("KV bytes per token on one GPU") a layout's other formulas print
            blocks["tech_kv"] = replace(_block(r, "tech_kv", "kv_transfer_time", {**env, "W_kv": link, "c": c_card}, {}),
                                        symbols={"c": r.symbols_tex["c"]})
        # where the expert-parallel group is wider than a replica (ep > tp) no replica serves alone: each pool is a whole
        # number of groups, of the deployment the chapter sizes for its users (gpus_for_users: whole groups already;
        # without users the layout's dp replicas), the pools' rate the lesser of the two (whole_group_pools)
        par = r.spec.parallelism or Parallelism()
        from genreport.model.serving_report import ep_group_replicas

        group = ep_group_replicas(par)
        # the shares are the balanced pools'; in whole replicas of the deployment (the users', else the layout's dp), the
        # nearest split (a review read 66% / 34% of one tp 8 replica, which no deployment of one replica can build)
        users = r.serving.get("replicas_for_users")
        deployed = users if users else par.dp
        pre, dec, replicas = whole_group_pools(share, deployed, 1)
        whose = "the users'" if users else "the layout's"
        split = (f" ({whose} {deployed:,} replica{'s' if deployed > 1 else ''} cannot be split: at least 2, {pre:,} "
                 f"prefill and {dec:,} decode)" if replicas > deployed else
                 f" (of {whose} {replicas:,} replicas, {pre:,} prefill and {dec:,} decode)")
        setting = (f"{_pool_share(share)} of the {noun}s prefill, {_pool_share(1 - share)} decode, in replicas of this "
                   "layout" + split + piped)
        gain = 1 - share
        balanced = (f"balanced: a prefill replica serves {fmt.sig3(stages / t_prefill)} prompts/s"
                    + (f" (a prompt every {fmt.time(t_prefill)} / {stages}, its pass through the {stages} stages, each "
                       "stage's ledger in turn)" if stages > 1 else "")
                    + (f" (a prompt occupying its replica {fmt.time(t_prefill)} while the group's "
                       f"{group:,} replicas all prefill)" if group > 1 else "")
                    + ", a decode replica retires ")
        whole = ""
        if group > 1:  # the layout's dp replicas in whole groups where no users are asked
            deployed = users if users else -(-par.dp // group) * group
            pre, dec, replicas = whole_group_pools(share, deployed, group)
            g_gpus = group * par.replica_gpus
            rate_p, rate_d = pre * group * stages / t_prefill, dec * group * pool_rate  # requests/s of each pool
            gain = min(rate_p, rate_d) / (replicas * pool_rate)
            setting = (f"{pre:,} of {pre + dec:,} expert-parallel groups of {g_gpus:,} {noun}s prefill, {dec:,} decode"
                       + (f" ({whose} {deployed * par.replica_gpus:,} {noun}s are one group: disaggregation needs at least "
                          f"2, {replicas * par.replica_gpus:,} {noun}s)" if replicas > deployed
                          else f" ({whose} {replicas * par.replica_gpus:,} {noun}s)") + piped)
            whole = (f"; in whole groups the lesser of the pools: {pre:,} prefill group{'s serve' if pre > 1 else ' serves'} "
                     f"{fmt.sig3(rate_p)} prompts/s, {dec:,} decode group{'s retire' if dec > 1 else ' retires'} "
                     f"{_retire(rate_d, ' requests/s')}")
            numbers.update({"pool_group_gpus": g_gpus, "pool_prefill_groups": pre, "pool_decode_groups": dec,
                            "pool_gpus": replicas * par.replica_gpus, "pool_users_gpus": deployed * par.replica_gpus,
                            "pool_prefill_rate": rate_p, "pool_decode_rate": rate_d, "pool_gain": gain})
        # against one pool of the same replicas that prefills whole prompts between its rounds (aggregated_tpot), at the
        # largest batch whose TPOT meets the target (plan --disaggregate's one pool): the same work per request, so the
        # pools gain only where the target holds the one pool to a smaller batch (DistServe, section 2)
        pools_gpu = d_gpu * gain  # the pools' tok/s per GPU, the prefill pool's GPUs counted
        one = one_pool(r, d_batch, t_prefill)
        before, tpot0, against = per_gpu, tpot, ""
        if one is not None:
            before, tpot0 = one["tokens_per_s_gpu"], one["tpot"]
            gain = pools_gpu / before if before > 0 else math.inf
            at = (f"meets the {fmt.time(sv.tpot)} TPOT target up to batch {one['batch']:,}" if one["batch"]
                  else f"misses the {fmt.time(sv.tpot)} TPOT target even at batch 1") if sv.tpot is not None \
                else f"at batch {d_batch:,} (no TPOT target)"
            # where the pools' own TPOT misses the target too, neither meets it: no gain to claim (QA of stop 71: "the
            # pools 4.21x" beside their 16.8 ms TPOT and a 1 ms target)
            both_miss = sv.tpot is not None and not one["batch"] and d_tpot > sv.tpot
            against = (f"; one pool of these replicas that prefills between its rounds {at}: "
                       f"{fmt.num(before)} tok/s per {noun}, "  # a rate of tokens: page 1's digits
                       + (f"and the pools' {fmt.time(d_tpot)} TPOT misses it too: neither meets the target" if both_miss
                          else f"the pools {gain:.2f}×"))
            numbers.update({"one_pool_batch": one["batch"], "one_pool_tpot": one["tpot"], "one_pool_round": one["round"],
                            "one_pool_tokens_per_s_gpu": before, "pool_tokens_per_s_gpu": pools_gpu})
            blocks["tech_one_pool"] = _block(r, "tech_one_pool", "aggregated_tpot",
                                             {"B": float(max(one["batch"], 1)), "T_out": float(sv.output),
                                              "t_pr": t_prefill, "t_s": one["round"]},
                                             {"batch": max(one["batch"], 1), "context": int(last)})
        rows.append({"technique": "prefill/decode disaggregation",
                     "setting": setting,
                     "ttft": (ttft, ttft + (t_kv or 0.0)), "tpot": (tpot0, d_tpot),
                     "per_gpu": (before, pools_gpu),
                     "usd": (usd * per_gpu / before if usd is not None and before > 0 else None,
                             usd * per_gpu / pools_gpu if usd is not None and pools_gpu > 0 else None),
                     "gain": gain,
                     "ends": balanced +
                             f"{_retire(pool_rate, ' requests/s')} at batch {d_batch:,}, its plain rounds at a "
                             "request's mean context" + whole
                             + (f"; one prompt's KV cache crosses the {link_name} link in {fmt.time(t_kv)}"
                                + (f", each of the replica's {par_kv.replica_gpus} {noun}s sending its slice over its own"
                                   if par_kv.replica_gpus > 1 else "") if t_kv
                                else f"; one prompt's KV cache transfer is not counted in the TTFT: {link_name}") + against,
                     "note": "no chunk rides along a decode step and the pools decode plainly (each row one technique; plan "
                             "--speculative --disaggregate takes both); the pools balanced at the mean round, the steady "
                             f"state's; tok/s per {noun} counts the prefill pool's {noun}s too; before: one pool that "
                             "prefills whole prompts between its rounds"})
        blocks["tech_pools"] = _block(r, "tech_pools", "balanced_prefill_gpus", env_d, {"batch": int(batch)})
        numbers.update({"prefill_share": share, "prefill_stages": stages, "pool_round": t_round, "pool_rate": pool_rate,
                        "pool_prefill_time": t_prefill})
    from genreport.formulas.architecture import bounded_layers

    # the KV cache room's bytes per token (one GPU's): c_h what a sequence holds, averaged over the request's
    # contexts, beside c what a step of the slowest round reads; they differ where layers are windowed or chunked
    out = {"batch": int(batch), "context": int(last), "mean_context": mean, "chunk": sv.chunk, "chunk_steps": stages,
           "kv_held_per_token": env["c_h"], "kv_read_per_token": env["c"],
           "kv_held_apart": bool(bounded_layers(r.spec.model)),
           # the attention forms of a mixed step: d_h the decode tokens' (MLA: absorbed), d_hp the chunk's (MLA: the
           # prefill's decompressed form; windowed or chunked layers: the prompt's attended share, where d_h is the
           # last context's); the same for other attention. head_form says which (the chapter's words)
           "head_dim_decode": env["d_h"], "head_dim_chunk": env["d_hp"],
           "head_form": ("mla" if r.spec.model.attention.kind == "mla"
                         else "bounded" if bounded_layers(r.spec.model) else None),
           "chunk_source": CHUNK_SOURCE, "rows": rows, "numbers": numbers,
           # the weights the TPOT ceiling's steady state streams (steady_tpot_rate): derive's point for it
           "tpot_weights": {k: tpot_in[k] for k in ("N", "N_e", "b")} if tpot_in is not None else None,
           # the weights the KV cache room's ceiling streams at its own rate (capacity_weights): derive's point for it
           "capacity_weights": {k: kv_in[k] for k in ("N", "N_e", "b")},
           # ... and the engine's max_sequences' (capacity_weights at M_s running): derive's point for it
           "engine_weights": {k: engine_in[k] for k in ("N", "N_e", "b")} if engine_in is not None else None,
           # (22)'s own symbol for them where they are not the slice a GPU holds (streamed_symbols): plain text
           "tpot_streamed": _streamed_plain(r, tpot_in),
           "rates": rate_curves(r, budget, kv_rate, held_mean, numbers.get("goodput_rate_tpot"), engine_rate)}
    return out, blocks


def _close(x, y, rtol: float, atol: float = 1e-8):
    """``np.isclose(x, y, rtol, atol)``, element by element: its formula, without its argument checks (the steady
    states' fixed point asks it many times)."""
    with np.errstate(invalid="ignore"):
        return (np.less_equal(np.abs(x - y), atol + rtol * np.abs(y)) & np.isfinite(y)) | (x == y)


RATE_POINTS = 64  # rates per curve, evenly spaced from 0 to where the curve stops

# The tail the serving chapter's capacity is judged at: the P99 time between tokens (TBT), as Sarathi-Serve measures
# capacity (its artifact, sarathi/benchmark/capacity_search/main.py: tbt_slo_quantile 0.99), the spec's TPOT target
# read as the TBT target.
TAIL = 0.99
STALL_MOST = 4096  # prompts one stall is followed to; past it (lam t_p near 1) the tail is taken as unbounded


def stall_pmf(k: int, a: float, rho: float) -> float:
    """P(K = k) of formulas.techniques.stall_prompts_pmf, the generalized Poisson law of a = lam t_r and rho = lam t_p,
    a (a + rho k)^(k - 1) e^(-a - rho k) / k!, in logarithms (k! overflows a float past k = 170)."""
    if k == 0:
        return math.exp(-a)
    return math.exp(math.log(a) + (k - 1) * math.log(a + rho * k) - a - rho * k - math.lgamma(k + 1))


def stall_share_mixed(lam: float, t_r: float, prefills, shares, within: float, grid: float = 2.5e-4) -> float:
    """P(stall <= ``within``) without chunked prefill when the prompts' lengths vary [1]: the prefills are of
    ``prefills`` seconds with probabilities ``shares`` (one class per length), arrivals Poisson at ``lam``, a round of
    ``t_r``.  The gap between two tokens is the first passage to 0 of t_r + A(u) - u, A(u) the prefill work arriving by
    u (a compound Poisson process), so Kendall's identity (Takacs, "Introduction to the Theory of Queues", 1962,
    chapter 1) gives P(stall = y) = t_r / (t_r + y) P(A(t_r + y) = y); with one length it is the generalized Poisson
    law of :func:`stall_pmf`.  The law of A(u) is computed on a grid of ``grid`` seconds by Panjer's recursion
    (Panjer, ASTIN Bulletin 12, 1981), every prefill rounded down to the grid (a stall is then still at least as
    long as counted), for all u = t_r + y at once."""
    steps = int(math.floor(within / grid + 1e-9))
    return float(np.sum(_stall_law(lam, t_r, prefills, shares, steps, grid)))


def _stall_law(lam: float, t_r: float, prefills, shares, steps: int, grid: float) -> np.ndarray:
    """P(stall = y grid) for y = 0 .. ``steps`` (Kendall's identity over Panjer's recursion, as
    :func:`stall_share_mixed` says), every prefill rounded down to the grid and at least one step."""
    jumps = [max(1, int(math.floor(t / grid))) for t in prefills]
    y = np.arange(steps + 1)
    mean = lam * (t_r + y * grid)  # arrivals expected by u = t_r + y, one per candidate stall y
    f = np.zeros((steps + 1, steps + 1))  # f[j, i]: P(A(u_i) = j grid)
    f[0] = portable.exp(-mean)  # the same bits on every CPU
    for j in range(1, steps + 1):
        acc = np.zeros(steps + 1)
        for size, share in zip(jumps, shares, strict=True):
            if size <= j:
                acc += share * size * f[j - size]
        f[j] = mean / j * acc
    return t_r / (t_r + y * grid) * f[y, y]  # f[y, y] = P(A(t_r + y) = y)


def stall_quantile(a: float, rho: float, q: float = TAIL) -> float:
    """The fewest prompts k with P(K <= k) >= q: the prompts prefilled in the q-th percentile gap between tokens
    without chunked prefill (formulas.techniques.stall_tail_share); infinite where lam t_p >= 1 (the prefills alone
    take all the time) or past STALL_MOST."""
    if a <= 0:
        return 0.0
    if rho >= 1:
        return math.inf
    total = 0.0
    for k in range(STALL_MOST + 1):
        total += stall_pmf(k, a, rho)
        if total >= q:
            return float(k)
    return math.inf


STALL_POINTS = 1024  # grid points of one stall law over the prompt-length classes (``stall_quantile_mixed``)


def stall_quantile_mixed(lam: float, t_r: float, prefills, shares, q: float = TAIL) -> float:
    """The ``q``-th percentile stall [s] without chunked prefill when the prompts' prefills are ``prefills`` seconds
    with probabilities ``shares``: the least y with P(stall <= y) >= q, the law of :func:`stall_share_mixed`
    (Kendall's identity, Panjer's recursion, every prefill rounded down to the grid, at least one grid step) over
    STALL_POINTS grid points reaching the busy period's mean and 8 standard deviations past it (mean
    lam t_r E[t] / (1 - rho), variance lam t_r E[t^2] / (1 - rho)^3, formulas.techniques.stall_gap_variance).  With
    one length it is :func:`stall_quantile`'s k t_p up to the grid; infinite where rho = lam E[t] >= 1 or the
    quantile lies past the grid."""
    s = np.asarray(prefills, dtype=float)
    p = np.asarray(shares, dtype=float)
    p = p / p.sum()
    a = lam * t_r
    if a <= 0:
        return 0.0
    rho = lam * float(p @ s)
    if rho >= 1:
        return math.inf
    mean = a * float(p @ s) / (1 - rho)
    spread = math.sqrt(a * float(p @ s**2) / (1 - rho) ** 3)
    grid = max(float(p @ s) / 32, (mean + 8 * spread + float(s.max())) / STALL_POINTS)
    steps = int(math.ceil((mean + 8 * spread + float(s.max())) / grid))
    cdf = np.cumsum(_stall_law(lam, t_r, s, p, steps, grid))
    k = int(np.searchsorted(cdf, q - 1e-12))
    return k * grid if k <= steps else math.inf


# The TTFT tail the serving chapter's TTFT capacity is judged at: DistServe's SLO attainment, 90% of the requests
# (Zhong et al., OSDI 2024, section 2.2).
TTFT_TAIL = 0.90
TTFT_GRID = (64, 16)  # grid points per prefill in ``ttft_law``: as many as TTFT_POINTS allow, at least the second
TTFT_POINTS = (2**15, 2**17)  # grid points of one law: the grid is coarsened past the first, no law past the second


def _floor_uniform(length: float, grid: float) -> np.ndarray:
    """The law of floor(U / grid), U uniform on (0, ``length``), on the grid: 1 / m at 0 .. floor(m) - 1 and the rest
    at floor(m), m = length / grid."""
    m = length / grid
    whole = int(math.floor(m))
    out = np.full(whole + 1, 1.0 / m)
    out[whole] = (m - whole) / m
    return out


def ttft_law(lam: float, service: float, vacation: float) -> tuple[float, np.ndarray] | None:
    """(grid step g, P(TTFT - service <= j g) for j = 0, 1, ...): the law of the time to first token of a prompt queued
    for its prefill (formulas.techniques, "the tail: P90 TTFT"): the M/D/1 wait of Poisson arrivals at ``lam`` for a
    prefill of ``service`` seconds plus the residual of a ``vacation`` in progress (uniform, Fuhrmann and Cooper),
    ``vacation`` 0 for a pool that does only prefills.  The wait is the Pollaczek-Khinchine sum of a geometric number
    (P(n) = (1 - rho) rho^n) of residual prefills, each uniform on (0, service): its transform
    (1 - rho) / (1 - rho R(z)) (formulas.techniques.queued_ttft_transform) inverted by the discrete Fourier transform on
    a grid that reaches far enough for the aliased tail to be below e^-24 (the wait's tail falls like
    e^(-2 (1 - rho) x / (rho t_p)) or faster), every length rounded down to the grid (so a quantile read from it is at
    most the true one), 64 grid points a prefill (16 at least where rho nears 1).  None where lam service >= 1 (the
    queue grows without end) or within about 0.15% of it (the P90 wait past 500 prefills; taken as unbounded)."""
    rho = lam * service
    if not (math.isfinite(rho) and rho < 1 and service > 0):
        return None
    reach = service * (4 + 12 / max(1 - rho, 1e-12)) + vacation
    grid = max(service / TTFT_GRID[0], reach / TTFT_POINTS[0])
    if grid > service / TTFT_GRID[1] * (1 + 1e-12):  # rho within about 0.1% of 1
        grid = service / TTFT_GRID[1]
        if reach / grid > TTFT_POINTS[1]:
            return None
    n = 1 << max(10, math.ceil(math.log2(reach / grid)))
    spectrum = np.fft.rfft(_floor_uniform(service, grid), n)
    law = (1 - rho) / (1 - rho * spectrum)
    if vacation > 0:
        law = law * np.fft.rfft(_floor_uniform(vacation, grid), n)
    pmf = np.clip(np.fft.irfft(law, n), 0.0, None)
    return grid, np.cumsum(pmf)


def ttft_quantile(lam: float, service: float, vacation: float, q: float = TTFT_TAIL) -> float:
    """The ``q``-th percentile time to first token of a prompt queued for its prefill (:func:`ttft_law`): the prompt's
    own ``service`` plus the least grid wait whose share reaches ``q``; infinite where lam service >= 1."""
    law = ttft_law(lam, service, vacation)
    if law is None:
        return math.inf
    grid, cdf = law
    j = int(np.searchsorted(cdf, q - 1e-12))
    return service + j * grid if j < len(cdf) else math.inf


def ttft_law_mixed(lam: float, services, shares, vacation: float, stages: int = 1):
    """(grid step g, offset o, P(TTFT - o <= j g) for j = 0, 1, ...): the law of the time to first token when the
    prompts' prefills differ in length (an M/G/1 queue; :func:`ttft_law` is its one-length case).  ``services`` are the
    prefill times of the prompt-length classes, ``shares`` their probabilities (normalized here), ``vacation`` the
    round the server leaves for whenever no prompt waits (0 for a disaggregated prefill pool), ``stages`` the
    pipeline stages of the prefill instance (DistServe, Zhong et al., OSDI 2024, section 3.1: a pipeline of ``stages``
    equal stages admits the next prompt after t_p / stages, and each prompt still takes its whole t_p).

    The wait is Pollaczek-Khinchine's: a geometric number (P(n) = (1 - rho) rho^n, rho = lam E[t_p] / stages) of
    residual services, each drawn from the equilibrium law of the service, here a mixture of uniforms on
    (0, t_i / stages) weighted by p_i t_i (its mean: formulas.techniques.queued_ttft_mean_spread); the vacation's residual
    is uniform (Fuhrmann and Cooper 1985); the prompt's own prefill is its class's t_i, independent of the wait (Poisson
    arrivals, first come first served).  The sum is inverted by the discrete Fourier transform as in :func:`ttft_law`,
    every length rounded down to the grid (a quantile read from it is at most the true one); the offset o is the
    shortest prefill, added exactly, so one class with one stage gives :func:`ttft_law`'s law.  None where
    lam E[t_p] / stages >= 1 or the grid would need more than TTFT_POINTS[1] points."""
    s = np.asarray(services, dtype=float)
    p = np.asarray(shares, dtype=float)
    p = p / p.sum()
    q = s / stages
    mean_q = float(p @ q)
    rho = lam * mean_q
    if not (math.isfinite(rho) and rho < 1 and mean_q > 0):
        return None
    shortest = float(s.min())
    reach = float(q.max()) * (4 + 12 / max(1 - rho, 1e-12)) + vacation + float(s.max()) - shortest
    grid = max(mean_q / TTFT_GRID[0], reach / TTFT_POINTS[0])
    if grid > mean_q / TTFT_GRID[1] * (1 + 1e-12):
        grid = mean_q / TTFT_GRID[1]
        if reach / grid > TTFT_POINTS[1]:
            return None
    n = 1 << max(10, math.ceil(math.log2(reach / grid)))
    residual = sum(pi * qi / mean_q * np.fft.rfft(_floor_uniform(qi, grid), n) for pi, qi in zip(p, q, strict=True))
    law = (1 - rho) / (1 - rho * residual)
    if vacation > 0:
        law = law * np.fft.rfft(_floor_uniform(vacation, grid), n)
    own = np.zeros(n)
    for pi, si in zip(p, s, strict=True):
        own[int(math.floor((si - shortest) / grid + 1e-9))] += pi
    law = law * np.fft.rfft(own, n)
    pmf = np.clip(np.fft.irfft(law, n), 0.0, None)
    return grid, shortest, np.cumsum(pmf)


def ttft_quantile_mixed(lam: float, services, shares, vacation: float, stages: int = 1, q: float = TTFT_TAIL) -> float:
    """The ``q``-th percentile time to first token over the prompt-length classes (:func:`ttft_law_mixed`); infinite
    where the queue grows without end."""
    law = ttft_law_mixed(lam, services, shares, vacation, stages)
    if law is None:
        return math.inf
    grid, offset, cdf = law
    j = int(np.searchsorted(cdf, q - 1e-12))
    return offset + j * grid if j < len(cdf) else math.inf


def ttft_share_mixed(lam: float, services, shares, vacation: float, target: float, stages: int = 1) -> float:
    """P(TTFT <= ``target``) over the prompt-length classes (:func:`ttft_law_mixed`, every length rounded down, so the
    share is at least the true one); 0 where the queue grows without end."""
    law = ttft_law_mixed(lam, services, shares, vacation, stages)
    if law is None:
        return 0.0
    grid, offset, cdf = law
    if target < offset:
        return 0.0
    j = int(math.floor((target - offset) / grid + 1e-9))
    return float(cdf[min(j, len(cdf) - 1)])


def tpot_share(lam: float, t_r: float, services, shares, gaps: float, target: float) -> float:
    """P(a request's time per output token <= ``target``) without chunked prefill, prefills first (vLLM v0), when the
    prompts' prefills are ``services`` with probabilities ``shares``: a request's TPOT is the mean of its ``gaps``
    gaps, each the round t_r and the busy period of the prefills that arrive during it and during each other (an M/G/1
    busy period started by the work arriving in t_r: mean t_r / (1 - rho), variance lam t_r E[t_p^2] / (1 - rho)^3,
    rho = lam E[t_p]; formulas.techniques.stall_gap_variance), taken as independent, so the mean
    of ``gaps`` of them is normal by the central limit theorem.  0 where rho >= 1."""
    from statistics import NormalDist

    s = np.asarray(services, dtype=float)
    p = np.asarray(shares, dtype=float)
    p = p / p.sum()
    rho = lam * float(p @ s)
    if not (rho < 1 and t_r > 0):
        return 0.0 if rho >= 1 else 1.0
    mean = t_r / (1 - rho)
    spread = math.sqrt(lam * t_r * float(p @ s**2) / (1 - rho) ** 3 / gaps)
    return NormalDist(mean, spread).cdf(target) if spread > 0 else float(mean <= target)


def _highest(ok, hi: float, steps: int = 60, ok_many=None) -> float:
    """The highest rate in [0, ``hi``] where ``ok`` (true at 0, false past some rate) holds, by bisection;
    ``ok_many``: ``ok`` at an array of rates at once (:func:`_bisect`)."""
    if ok(hi):
        return hi
    if ok_many is not None:
        return _bisect(ok_many, 0.0, hi, steps)[0]
    lo = 0.0
    for _ in range(steps):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo


BISECT_LEVELS = 5  # levels of a bisection's tree whose midpoints _bisect asks at once: 31 rates a call


def _bisect(ok_many, lo: float, hi: float, steps: int) -> tuple[float, float]:
    """(lo, hi) after ``steps`` halvings of [lo, hi], each keeping the upper half where ``ok`` holds at its midpoint
    (lo, hi = mid, hi) and the lower one where not: the loop ``mid = (lo + hi) / 2`` gives, with ``ok_many`` (``ok``
    at an array of rates, each as alone) asked at every midpoint of the next BISECT_LEVELS levels at once, a tree
    of the same midpoints from which the halvings' path is read.  The same bounds, bit for bit, in a fifth of the
    calls.  ``ok_many`` may return a function of a midpoint's index instead of the array: it is then asked only at
    the midpoints on the path (what is costly at each rate, a quantile, counted for those alone)."""
    done = 0
    while done < steps:
        levels = min(BISECT_LEVELS, steps - done)
        mids, level = [], [(lo, hi)]
        for _ in range(levels):  # the midpoints in heap order: node i's halves are 2i + 1 (lower), 2i + 2 (upper)
            nxt = []
            for a, b in level:
                m = (a + b) / 2
                mids.append(m)
                nxt += [(a, m), (m, b)]
            level = nxt
        ok = ok_many(np.asarray(mids, dtype=float))
        if not callable(ok):
            ok = np.asarray(ok, dtype=bool).__getitem__
        i = 0
        for _ in range(levels):
            if ok(i):
                lo, i = mids[i], 2 * i + 2
            else:
                hi, i = mids[i], 2 * i + 1
        done += levels
    return lo, hi


def _held_once(c_s: float) -> str:
    """The prefix caching row's words for its capacity: the shared prefix held once, or none of it held at all where
    every layer's window has passed it at the last context (Mistral-7B: "115 → 115 (the shared prefix held once)", a
    review of stop 89)."""
    return "the shared prefix held once" if c_s > 0 else "no layer still holds the prefix at that context: its " \
        "windows have passed it"


def _filled(batch: int, budget: int) -> str:
    """The words of a step whose ``batch`` decode tokens leave no room in its token ``budget``: they fill it, or
    pass it, which an engine does not run (vLLM refuses max_num_batched_tokens below max_num_seqs: a step schedules
    no more tokens than its budget)."""
    if batch <= budget:
        return f"the {batch:,} decode token{' fills' if batch == 1 else 's fill'} the budget of {budget:,}"
    return (f"the {batch:,} decode tokens alone pass the budget of {budget:,} (an engine schedules no more tokens a "
            "step than its budget: vLLM refuses a max_num_batched_tokens below max_num_seqs)")


def rate_curves(r, budget: float | None, kv_rate: float | None, held_mean: float,
                tpot_rate: float | None = None, engine_rate: float | None = None) -> dict:
    """TTFT and TPOT against the arrival rate of one replica, with chunked prefill and without (the serving
    chapter's figure), from formulas/techniques.py's steady states at the spec's request shape: one GPU's ledgers at
    the layout (its slice of the model), no collectives counted; the steady state has no queueing, and the P99 time
    between tokens and the queued TTFT (the dotted curves) take the prefill stalls' queue (``stall_pmf``, ``stall_quantile``).

    With chunked prefill every step carries its share of prompt tokens (``steady_step_time``) and a prompt takes
    T_in (1 - h_p) / s_c steps with a full chunk beside the running sequences (``chunked_ttft`` at the steady
    concurrency); without, each prompt is prefilled alone (``prefill_alone_time``, the TTFT) and the decode steps
    wait for it (``unchunked_step_time``; ``unchunked_stall_time`` the round that waits for a whole prefill).
    Each curve stops at the first limit it meets: compute, memory, the chunk budget (chunked: ``budget``, the
    chapter's ``chunk_budget_rate`` as :func:`report` evaluated it, None where no rate fits) or the KV cache room:
    with chunks the chapter's ``goodput_rate_capacity`` (``kv_rate``), without them the rate where the curve's own
    running sequences reach ``held_mean``, the sequences the caches hold at a request's mean context with a shared
    prefix held once (``prefix_capacity_batch`` there: the same balance, Little's law's time average); or the
    engine's max_sequences M_s, where the engine sets one: with chunks the chapter's ``goodput_rate_engine``
    (``engine_rate``), without them the rate where the curve's own running sequences reach M_s; the goodput point is
    the highest rate whose TPOT and TTFT meet the targets below that.

    The tail (formulas/techniques.py, "the tail"): each curve's P99 time between tokens, with chunks the law of the
    steps over the prompt lengths (:func:`chunk_tail`: a length's step with its chunk, where that step and the
    longer ones are more than 1 - TAIL of the steps, ``chunk_step_share``, else the steady step), without the round alone
    (``unchunked_round_time``) plus the whole prefills of the TAIL-th percentile stall (prefills first, Poisson
    arrivals: :func:`stall_quantile`); the P99 capacity, the highest rate whose tail meets the TPOT target (read as
    the TBT target); and without chunks the mean TTFT with the prompts queued for their prefills
    (``unchunked_ttft``).  The TTFT tail: each curve's TTFT_TAIL-th percentile TTFT with the prompts queued first come
    first served for their prefills (:func:`ttft_quantile`: without chunks a prefill of t_p and a round of t_r while
    none waits, with chunks the chunked prefill at the steady concurrency and a steady step), and the TTFT tail
    capacity, the highest rate whose P90 TTFT meets the TTFT target."""
    sv = r.spec.serving
    # a one-token request decodes nothing: no TPOT target, cache or max_sequences limits its rate (report's
    # PREFILL_CEILINGS); the TPOT panel still shows the step the prompts take
    one_token = sv.output <= 1
    tpot_target = sv.tpot if not one_token else None
    mean = float(sv.prompt) + float(sv.output) / 2
    env = _inputs(r, 1.0, mean)
    env["S"] = mean
    lead = r.envs[r.lead]
    uncached = float(sv.prompt) * (1 - sv.prefix_hit)

    pp = float(lead.cut.pp)

    def weights(tokens) -> dict:
        """N, N_e and b of a step of ``tokens`` tokens: an MoE reads the experts they touch, a pipeline stage its
        slice once per micro-batch (as the report's decode grid counts them).  Over stages a round is n_St steps
        whatever its micro-batches: with fewer than n_St tokens in flight (vLLM's min(n_St, B) micro-batches) the
        stages wait for each other and the round takes n_St slices' time, not one per micro-batch (a review read a
        lone sequence's time per token at one stage's 0.48 ms on DeepSeek-V3 at tp 8 x pp 2, where it passes both
        stages: 0.96 ms)."""
        t = np.maximum(np.nan_to_num(np.asarray(tokens, dtype=float), nan=1e9, posinf=1e9), 1.0)
        g = lead.weights_at(t)
        out = {k: np.asarray(g[k], dtype=float) * np.ones(np.shape(tokens)) for k in ("N", "N_e", "b")}
        if pp > 1:
            idle = pp / np.minimum(pp, t) * np.ones(np.shape(tokens))  # the round's n_St steps over its micro-batches
            out["N"], out["N_e"] = out["N"] * idle, out["N_e"] * idle
        return out

    # a prompt prefilled alone is a pass over a whole prompt (prompt_head_dim): MLA in its decompressed form, as the
    # layout's prefill and the TTFT take it, not the absorbed head of a decode step (DeepSeek-V3: d_h 160, not 544,
    # 3.4x fewer attention FLOPs); a windowed model the prefill's attended share at its length
    t_p = _eval(r, "prefill_alone_time", {**env, **{k: float(v) for k, v in weights(uncached).items()}})
    env["t_p"] = t_p
    classes = prompt_classes(sv)  # the prompts' lengths (serving.prompt_spread), equally likely, their mean T_in
    spread = len(classes) > 1
    shares = [1.0 / len(classes)] * len(classes)
    prefills = [t_p]
    if spread:  # each length's prefill alone; the queue's t_p is their mean (the mean prompt's is shorter: T_in^2)
        prefills = [_eval(r, "prefill_alone_time",
                          {**env, "T_in": x, "d_hp": prompt_head_dim(r, x * (1 - sv.prefix_hit), x * sv.prefix_hit),
                           **{k: float(v) for k, v in weights(x * (1 - sv.prefix_hit)).items()}})
                    for x in classes]
        t_p = sum(prefills) / len(prefills)
        env["t_p"] = t_p

    def at(qid: str, lam, **more) -> np.ndarray:
        return np.asarray(r.q[qid]({**env, "lam": np.asarray(lam, dtype=float), **more}), dtype=float)

    def streamed(busy, prompt) -> dict:
        """The weights a chunked steady step streams on average beside ``busy`` decode tokens with ``prompt`` prompt
        tokens a step (:func:`steady_weights`: the two-point law, the least mean; the spread over stages)."""
        busy = np.asarray(busy, dtype=float)
        return steady_weights(weights, busy, prompt, _steady_room(lead, sv, busy))

    def steady(qid: str, lam, prompts: bool, each: bool = False):
        """The steady step at ``lam`` with the weights its own tokens read: N depends on the sequences running,
        which depend on the step, so the two are iterated to their fixed point (once for a dense model).  Over an
        array of rates the iteration stops when every rate's has converged; ``each``: each rate's stops where its own
        has (the numbers a call at that rate alone gives, counted for all the rates at once)."""
        lam = np.asarray(lam, dtype=float)
        w = weights(np.ones_like(lam))
        if each and lam.ndim == 1:
            return _steady_each(qid, lam, prompts, w)
        for _ in range(50):
            t = at(qid, lam, **w)
            ok = np.isfinite(t) & (t > 0)
            busy = np.where(ok, lam * (sv.output - 1) * t, np.inf)  # Little's law: sequences decoding
            again = streamed(busy, np.where(ok, lam * uncached * t, 0.0)) if prompts else weights(busy)
            if np.all(_close(again["N"], w["N"], 1e-13, 0.0)) and np.all(_close(again["b"], w["b"], 1e-13)):
                break
            w = again
        return np.where(ok, t, np.inf), busy, w

    def _steady_each(qid: str, lam: np.ndarray, prompts: bool, w: dict):
        """:func:`steady` at each rate of ``lam`` as if alone: the rates whose fixed point is reached leave the
        iteration (their step, sequences and weights kept), the others iterate on."""
        w = {k: np.array(np.broadcast_to(v, lam.shape), dtype=float) for k, v in w.items()}
        t_out, busy_out = np.full(lam.shape, np.inf), np.full(lam.shape, np.inf)
        live = np.arange(lam.size)
        for _ in range(50):
            lv = lam[live]
            wl = {k: v[live] for k, v in w.items()}
            t = at(qid, lv, **wl) * np.ones(lv.shape)
            ok = np.isfinite(t) & (t > 0)
            busy = np.where(ok, lv * (sv.output - 1) * t, np.inf)
            again = streamed(busy, np.where(ok, lv * uncached * t, 0.0)) if prompts else weights(busy)
            t_out[live], busy_out[live] = np.where(ok, t, np.inf), busy
            done = _close(again["N"], wl["N"], 1e-13, 0.0) & _close(again["b"], wl["b"], 1e-13)
            for k in w:
                w[k][live[~done]] = again[k][~done]
            live = live[~done]
            if not live.size:
                break
        return t_out, busy_out, w

    stages = float(r.spec.parallelism.pp if r.spec.parallelism is not None else 1)

    def part_of(busy, prompt=float(sv.prompt)):
        """A ``prompt``-token prompt's chunk beside ``busy`` decode tokens: what the round's budgets leave
        (prompt_chunk, the formula the chapter's row takes), 0 where they fill them (its chunked TTFT an infinity)."""
        busy = np.asarray(busy, dtype=float)
        return np.asarray(r.q["prompt_chunk"]({**env, "B": busy, "n_St": stages, "T_in": float(prompt)}),
                          dtype=float) * np.ones_like(busy)

    def chunked(lam, each: bool = False):
        t, busy, _w = steady("steady_step_time", lam, True, each)
        part = part_of(busy)
        with np.errstate(divide="ignore", invalid="ignore"):
            ttft = at("chunked_ttft", lam, B=busy, C_p=part, **weights(busy + part))
        return t, busy, np.where(part > 0, ttft, np.inf)

    def unchunked(lam, each: bool = False):
        return steady("unchunked_step_time", lam, False, each)

    def positive(qid: str) -> float:
        x = _eval(r, qid, env)
        return x if math.isfinite(x) and x > 0 else 0.0

    def chunk_steps(lam, t, busy) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The steps that carry a prompt's chunk with chunked prefill at the rates ``lam`` (steady step ``t`` beside
        ``busy`` decode tokens), one kind for each prompt length (one without a spread): (its time, the share of the
        steps that are of that kind, its chunk).  A length-x prompt's chunk is what the budget leaves beside the
        running sequences (``prompt_chunk``), its step a mixed step with that chunk (``chunked_step_time``), its share
        ``chunk_step_share`` at that length and chunk times the length's share of the prompts (the prompt tokens of
        that length arriving per step over the chunk a step carries).  A budget that holds whole prompts makes a long
        prompt's step longer than the mean prompt's: the tail is over the lengths, as it is without chunks."""
        lam, t, busy = (np.asarray(x, dtype=float) for x in (lam, t, busy))
        steps = []
        for x, s in zip(classes, shares, strict=True):
            part = part_of(busy, x)
            fine = (part > 0) & np.isfinite(t)
            with np.errstate(divide="ignore", invalid="ignore"):
                step = at("chunked_step_time", lam, B=busy, T_in=x, C_p=np.where(fine, part, 1.0),
                          **weights(busy + part))
                share = s * at("chunk_step_share", lam, T_in=x, C_p=np.where(fine, part, 1.0),
                               t_s=np.where(fine, t, 0.0))
            steps.append((np.where(fine, step, np.inf) * np.ones(lam.shape),
                          np.where(fine, share, 0.0) * np.ones(lam.shape), part * np.ones(lam.shape)))
        return steps

    def chunk_tail(lam, t, busy) -> tuple[np.ndarray, np.ndarray]:
        """The P99 time between tokens with chunks at the rates ``lam`` (steady step ``t`` beside ``busy`` decode
        tokens), and the prompt length whose chunk's step it is (-1: the steady step).  Each step gives every running
        sequence a token, so the law of the time between tokens is the steps': the kinds of :func:`chunk_steps`,
        longest first, with their shares (scaled to 1 where every step carries a chunk), then the steady step; the
        P99 is the first whose shares so far pass 1 - TAIL."""
        t = np.asarray(t, dtype=float) * np.ones(np.shape(lam))
        steps = chunk_steps(lam, t, busy)
        tail, setter = np.where(np.isfinite(t), t, np.inf), np.full(t.shape, -1)
        for i in range(t.size):
            if not math.isfinite(t.flat[i]):
                continue
            kinds = sorted(((float(step.flat[i]), float(share.flat[i]), k) for k, (step, share, _p) in enumerate(steps)),
                           key=lambda kind: -kind[0])
            scale = max(sum(kind[1] for kind in kinds), 1.0)
            seen = 0.0
            for step, share, k in kinds:
                seen += share / scale
                if seen > 1 - TAIL:
                    tail.flat[i], setter.flat[i] = step, k
                    break
        return tail, setter

    def tail_chunked(lam: float, steady_at=None) -> float:
        """The P99 time between tokens with chunked prefill at ``lam`` (:func:`chunk_tail`).  ``steady_at``: chunked's
        (t, busy, ttft) at ``lam`` where the caller has them."""
        t, busy, _ttft = steady_at if steady_at is not None else chunked(lam)
        t, busy = float(np.ravel(t)[0]), float(np.ravel(busy)[0])
        if not math.isfinite(t):
            return math.inf
        return float(chunk_tail(np.array([float(lam)]), np.array([t]), np.array([busy]))[0][0])

    def ttft_tail(kind: str, lam: float, steady_at=None) -> float:
        """The TTFT_TAIL-th percentile time to first token at ``lam`` with the prompts queued for their prefills
        (:func:`ttft_quantile`): without chunks a prefill of t_p and a round of t_r between (``unchunked_round_time``),
        with chunks the chunked prefill at the steady concurrency and a steady step between.  ``steady_at``: the
        steady state at ``lam`` where the caller has it (``ttft_tails``: chunked's (t, busy, ttft), else t_r)."""
        if kind == "chunked":
            t, busy, ttft = steady_at if steady_at is not None else (float(np.ravel(x)[0]) for x in chunked(lam))
            if not (math.isfinite(t) and math.isfinite(ttft)):
                return math.inf
            if one_token:  # no decode round: no step runs while no prompt waits (the server idles)
                t = 0.0
            if spread:  # each length's chunked prefill beside the running sequences, the queue over the lengths
                services = []
                for x in classes:
                    part = float(part_of(busy, x))
                    if part <= 0:
                        return math.inf
                    services.append(float(np.ravel(at("chunked_ttft", lam, B=busy, T_in=x, C_p=part,
                                                      **weights(busy + part)))[0]))
                return ttft_quantile_mixed(lam, services, shares, t)
            return ttft_quantile(lam, ttft, t)
        if one_token:  # no decode round: the server idles while no prompt waits (a queue with no vacation)
            t_r = 0.0
        elif steady_at is not None:
            t_r = steady_at
        else:
            w = unchunked(lam)[2]
            t_r = float(np.ravel(at("unchunked_round_time", lam, **w))[0])
        if not (math.isfinite(t_r) and (t_r > 0 or one_token)):
            return math.inf
        return ttft_quantile_mixed(lam, prefills, shares, t_r) if spread else ttft_quantile(lam, t_p, t_r)

    def each_rate(one, kind: str, lam: np.ndarray):
        """``one(kind, rate, steady)`` (:func:`ttft_tail` or :func:`tail_of`) at each rate of ``lam`` from the steady
        states of all the rates counted at once, each at its own fixed point (``each``): a function of the rate's
        index, which counts that rate's quantile when asked (a bisection asks a few of a tree's rates)."""
        if kind == "chunked":
            t, busy, ttft = chunked(lam, each=True)
            return lambda i: one(kind, float(lam[i]), (float(t[i]), float(busy[i]), float(ttft[i])))
        w = unchunked(lam, each=True)[2]
        t_r = np.broadcast_to(np.asarray(at("unchunked_round_time", lam, **w), dtype=float), lam.shape)
        return lambda i: one(kind, float(lam[i]), float(t_r[i]))

    def ttft_tails(kind: str, lam: np.ndarray) -> list[float]:
        """:func:`ttft_tail` at every rate of ``lam`` (:func:`each_rate`)."""
        at_rate = each_rate(ttft_tail, kind, lam)
        return [at_rate(i) for i in range(lam.size)]

    def highest_under(values, lam, one, kind: str, target) -> float:
        """The highest rate of the curve whose ``one(kind, rate)`` (rising with the rate; :func:`ttft_tail` or
        :func:`tail_of`) meets ``target``: bisected between the last grid rate that meets it and the next."""
        over = [i for i, x in enumerate(values) if not x <= target]
        if not over:
            return float(lam[-1])
        if over[0] == 0:
            return 0.0
        lo, hi = float(lam[over[0] - 1]), float(lam[over[0]])

        def meets(xs: np.ndarray):
            at_rate = each_rate(one, kind, xs)
            return lambda i: at_rate(i) <= target

        return _bisect(meets, lo, hi, 24)[0]  # a 64th of the curve's span over 2^24

    def tail_of(kind: str, lam: float, steady_at=None) -> float:
        """:func:`tail_chunked` or :func:`tail_unchunked` by ``kind``."""
        return tail_chunked(lam, steady_at) if kind == "chunked" else tail_unchunked(lam, steady_at)

    def tail_unchunked(lam: float, t_r=None) -> float:
        """The P99 time between tokens without chunked prefill at ``lam``: t_r + k t_p, the round alone
        (``unchunked_round_time``) and k the prompts of the TAIL-th percentile stall (:func:`stall_quantile`)."""
        if t_r is None:
            w = unchunked(lam)[2]  # the weights the round's sequences read (an MoE's touched experts)
            t_r = float(np.ravel(at("unchunked_round_time", lam, **w))[0])
        if not (math.isfinite(t_r) and t_r > 0):
            return math.inf
        return t_r + stall_of(lam, t_r)

    def stall_of(lam: float, t_r: float) -> float:
        """The TAIL-th percentile stall after a round of ``t_r`` at ``lam`` [s]: k t_p with one prompt length
        (:func:`stall_quantile`), the law over the lengths otherwise (:func:`stall_quantile_mixed`)."""
        if spread:
            return stall_quantile_mixed(lam, t_r, prefills, shares)
        return stall_quantile(lam * t_r, lam * t_p) * t_p

    def stall_free() -> dict:
        """lambda_q,u (``stall_free_rate``) where the unchunked rounds read the weights their own sequences touch:
        the formula solves lam t_r(lam) = -ln q_p at a fixed N, while the sequences running at lam (the unchunked
        steady state, as the P99 capacity's rounds take them) touch the experts that make N; the rate where the two
        agree is bisected (N grows with the rate, so the formula's rate falls: one crossing; a pipeline's round streams
        each slice once per micro-batch in flight, min(n_PP, B) N_g = N_r,g, which grows with the rate too; a dense
        model on one stage reads a fixed N, no search).  Its inputs, one GPU's, with the rate: what ``derive
        stall_free_rate`` evaluates, and its N the symbol the report gives it (N_s,g, N_r,g: streamed_symbols)."""
        qfn = r.q["stall_free_rate"]

        def inputs(w: dict) -> dict:
            given = {**env, "q_p": TAIL, **{k: float(np.ravel(v)[0]) for k, v in w.items()}}
            return {a: float(given[a]) for a in qfn.fn_args}

        def rate(w: dict) -> float:
            return float(np.ravel(qfn(inputs(w)))[0])

        w = weights(1.0)  # one sequence's experts: the highest rate the formula gives
        hi = rate(w)
        if (r.spec.model.moe is not None or stages > 1) and math.isfinite(hi) and hi > 0:
            lo = 0.0
            def agree(mids: np.ndarray) -> np.ndarray:  # rate(unchunked(mid)[2]) >= mid at each mid, as alone
                w = unchunked(mids, each=True)[2]
                return np.array([rate({k: v[j] for k, v in w.items()}) >= float(mids[j]) for j in range(mids.size)])

            lo, hi = _bisect(agree, lo, hi, 48)
            w = unchunked(lo)[2]
        x = inputs(w)
        return {"rate": rate(w), "inputs": x}

    def at_spec_rate() -> dict | None:
        """The unchunked rounds' inputs at the spec's rate, one GPU's: N, N_e and b the sequences running there read
        (the steady state's fixed point: an MoE's touched experts, a pipeline's slices a round) and t_p, a prompt's
        prefill alone (through every stage) and t_r, the round alone at that rate, what ``derive unchunked_step_time``
        and its kin evaluate, as the rate
        figure takes them (a review read derive's 9.52 ms from one GPU's whole slice beside the figure's 1.2 ms on
        DeepSeek-V3 at tp 8 x pp 2); None without a rate."""
        if sv.rate is None or not sv.rate > 0:
            return None
        lam = np.array([float(sv.rate)])
        w = unchunked(lam)[2]
        t_r = float(np.ravel(at("unchunked_round_time", lam, **w))[0])  # the round alone there (unchunked_ttft's)
        return {"rate": float(sv.rate),
                "inputs": {**{k: float(np.ravel(v)[0]) for k, v in w.items()}, "t_p": t_p, "t_r": t_r}}

    curves = {}
    for kind in ("chunked", "unchunked"):
        if kind == "chunked":
            limits = {"compute": positive("goodput_rate_compute"), "memory": positive("steady_rate_memory")}
            # the chapter's chunk budget (``budget``: chunk_budget_rate, its decode tokens and prompt chunks
            # together within s_c, evaluated once in :func:`report`), the one number the text, results.json, derive
            # and the live page state; none: the decode tokens leave no room for a chunk
            limits["chunk budget"] = budget if budget is not None else 0.0
            if limits["chunk budget"] >= min(limits["compute"], limits["memory"]) * (1 - 1e-9):
                limits["chunk budget"] = math.inf
        elif one_token:  # no decode round: the server prefills one prompt after another, at most 1 / t_p (the
            # compute's and the bandwidth's limits both, which differ only in the arithmetic's last bits)
            limits = {"prefills": 1.0 / t_p if t_p > 0 else 0.0}
        else:
            limits = {"compute": positive("unchunked_rate_compute"), "memory": positive("unchunked_rate_memory")}
        edge = min(limits.values())
        fn = chunked if kind == "chunked" else unchunked
        if one_token:  # no sequence holds a cache past its prefill
            limits["capacity"] = math.inf
        elif kind == "chunked":
            limits["capacity"] = kv_rate if kv_rate is not None else 0.0
        else:
            limits["capacity"] = _highest(lambda x: bool(unchunked(x)[1] <= held_mean), edge * (1 - 1e-9),
                                          ok_many=lambda xs: unchunked(xs, each=True)[1] <= held_mean) \
                if held_mean > 0 else 0.0
        if limits["capacity"] >= edge * (1 - 1e-9):
            limits["capacity"] = math.inf  # the caches fit up to the other limits
        m_s = env["M_s"]
        if m_s > 0 and not one_token:  # the engine holds back the arrivals past M_s running sequences (vLLM's max_num_seqs)
            if kind == "chunked":
                limits["engine"] = engine_rate if engine_rate is not None else 0.0
            else:
                limits["engine"] = _highest(lambda x, m_s=m_s: bool(unchunked(x)[1] <= m_s), edge * (1 - 1e-9),
                                            ok_many=lambda xs, m_s=m_s: unchunked(xs, each=True)[1] <= m_s)
            if limits["engine"] >= min(edge, limits["capacity"]) * (1 - 1e-9):
                limits["engine"] = math.inf  # the caches or the roofs stop the curve first
        stop_by = min(limits, key=lambda k: limits[k])
        stop = limits[stop_by]
        lam = np.linspace(0.0, stop, RATE_POINTS)
        lam[-1] = stop * (1 - 1e-6) if stop_by == "memory" else stop  # the step time is infinite at the limit
        if kind == "chunked":
            tpot, busy, ttft = chunked(lam)
            stall = tpot
        else:
            tpot, busy, w = unchunked(lam)
            ttft = np.full(lam.shape, t_p)
            stall = at("unchunked_stall_time", lam, **w)
        if kind == "chunked":  # the same numbers as tail_chunked, over the whole grid at once
            p99 = chunk_tail(lam, tpot, busy)[0]
        else:  # tail_unchunked over the grid: the rounds at once, each one's stall quantile
            rounds = np.broadcast_to(at("unchunked_round_time", lam, **w), lam.shape)
            p99 = np.array([t + stall_of(float(x), float(t)) if math.isfinite(t) and t > 0 else math.inf
                            for x, t in zip(lam, rounds, strict=True)])
            good = np.isfinite(rounds) & (rounds > 0)
            queued = np.where(good, at("unchunked_ttft", lam, t_r=np.where(good, rounds, 0.0)), np.inf)
        ttft_p90 = ttft_tails(kind, lam)
        if sv.ttft is not None:  # the TTFT tail capacity: the highest rate whose P90 TTFT meets the TTFT target
            ttft_rate = highest_under(ttft_p90, lam, ttft_tail, kind, sv.ttft)
            ttft_rate = stop if ttft_rate >= float(lam[-1]) else ttft_rate
            ttft_binds = "P90 TTFT target" if ttft_rate < stop else stop_by
        else:
            ttft_rate, ttft_binds = None, None
        goodput, binds = stop, stop_by
        found = {}
        if tpot_target is not None and kind == "chunked":  # the chapter's TPOT ceiling, (22): the same steady state
            found["TPOT target"] = min(tpot_rate, stop) if tpot_rate is not None else 0.0
        elif tpot_target is not None:
            found["TPOT target"] = _highest(lambda x, fn=fn: bool(fn(x)[0] <= tpot_target), stop,
                                            ok_many=lambda xs, fn=fn: fn(xs, each=True)[0] <= tpot_target) \
                if fn(0.0)[0] <= tpot_target \
                else 0.0
        if sv.ttft is not None:
            found["TTFT target"] = (_highest(lambda x: bool(chunked(x)[2] <= sv.ttft), stop,
                                             ok_many=lambda xs: chunked(xs, each=True)[2] <= sv.ttft)
                                    if kind == "chunked"
                                    and chunked(0.0)[2] <= sv.ttft else (stop if kind == "unchunked" and t_p <= sv.ttft
                                                                          else 0.0))
        for why, x in found.items():
            if x < goodput:
                goodput, binds = x, why
        at_goodput = fn(min(goodput, float(lam[-1])))  # the memory limit itself has no finite step
        good_tpot = float(at_goodput[0])
        good_ttft = float(at_goodput[2]) if kind == "chunked" else t_p
        if tpot_target is not None:  # the P99 capacity: the highest rate, up to where the curve stops, whose tail meets it
            # the tail grows with the rate: bisect between the last grid rate that meets the target and the next
            p99_rate = highest_under(p99, lam, tail_of, kind, tpot_target)
            p99_rate = stop if p99_rate >= float(lam[-1]) else p99_rate
            p99_binds = "P99 TBT target" if p99_rate < stop else stop_by
        else:
            p99_rate, p99_binds = None, None
        # without chunks, also the mean TTFT with the prompts queued for their prefills (``unchunked_ttft``); with
        # chunks, whether the chunk beside the running sequences at the P99 capacity holds the whole uncached prompt
        extra = ({"ttft_queued": [float(x) for x in queued], "stall_free": stall_free(), "at_rate": at_spec_rate()}
                 if kind == "unchunked" else {})
        if kind == "chunked":
            running = float(np.ravel(chunked(min(p99_rate, float(lam[-1])))[1])[0]) if p99_rate is not None \
                else math.inf
            # the step that sets the tail: a chunk of one prompt length (with a spread, which), or a plain step; where
            # the tail target binds, the step whose share passes 1 - TAIL just past the capacity (at it, the tail still
            # meets the target)
            extra.update(p99_chunk=None, p99_whole_prompt=False, p99_plain=False)
            if math.isfinite(running):
                past = 1 + 1e-6 if p99_binds == "P99 TBT target" else 1.0
                rate = np.array([min(p99_rate * past, float(lam[-1]))])
                t_run, busy_run, _ttft = (np.ravel(x) for x in chunked(rate))
                k = int(chunk_tail(rate, t_run, busy_run)[1][0])
                x = classes[k] if k >= 0 else float(sv.prompt)
                extra["p99_plain"] = k < 0
                extra["p99_chunk"] = float(part_of(running, x))
                extra["p99_whole_prompt"] = extra["p99_chunk"] >= x * (1 - sv.prefix_hit)
                if spread:
                    extra["p99_prompt"] = x if k >= 0 else None
        if one_token:  # no decode round: no time per output token, between tokens or in a stall (the steps the
            # prompts' tokens are spread over in the steady state are no step a user waits on)
            tpot, p99, stall, good_tpot = np.array([]), np.array([]), np.array([]), None
            extra.pop("ttft_queued", None)
            extra.pop("stall_free", None)
            extra.pop("at_rate", None)
        curves[kind] = {**extra, "p99": [float(x) for x in p99], "p99_rate": p99_rate, "p99_binds": p99_binds,
                        "ttft_p90": [float(x) for x in ttft_p90], "ttft_tail_rate": ttft_rate,
                        "ttft_tail_binds": ttft_binds,
                        "rate": [float(x) for x in lam], "tpot": [float(x) for x in tpot],
                        "ttft": [float(x) for x in ttft], "stall": [float(x) for x in stall],
                        "running": [float(x) for x in busy], "stop": float(stop), "stops_at": stop_by,
                        "limits": {k: (float(v) if math.isfinite(v) else None) for k, v in limits.items()},
                        "goodput": float(goodput), "goodput_binds": binds,
                        "goodput_tpot": float(good_tpot) if good_tpot is not None else None,
                        "goodput_ttft": good_ttft}
    lengths = {"prompt_spread": sv.prompt_spread, "prompt_classes": [float(x) for x in classes],
               "prefill_classes": [float(x) for x in prefills],
               "prompt_spread_source": PROMPT_SPREAD_SOURCE[sv.prompt_spread]} if spread else {}
    return {**lengths, "prefill_alone_time": t_p, "held_sequences_mean": float(held_mean), "chunk": sv.chunk, "mean_context": mean,
            "tail": TAIL, "ttft_tail": TTFT_TAIL,
            "tpot_target": tpot_target, "ttft_target": sv.ttft, "one_token": one_token, "chunked": curves["chunked"],
            "unchunked": curves["unchunked"]}
