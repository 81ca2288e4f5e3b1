"""What the report shows beyond the tables: its formula blocks, figure samples, levers and sensitivities.

Each is computed here, in the evaluation stage, from the same compiled formulas and the same
physical-value rules as every other number; presentation only formats them.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from genreport.formulas import architecture as arch
from genreport.formulas import portable
from genreport.formulas.glossary import PARAM_SYMBOL
from genreport.formulas.recipes import TRAINING_WEIGHT_BYTES, recipe_bytes_per_param
from genreport.formulas.slices import SLICE_HELD
from genreport.model.env import READ_AT_CONTEXT, make_env
from genreport.model.layout import round_bound
from genreport.model.stated import critical_reason, latex_of, point_variant
from genreport.model.tables import gemm_class_bytes
from genreport.model.values import Block, Entry, physical, sorted_unique

# ----------------------------------------------------------------------------------------------- formula blocks

def block_points(r) -> list[tuple[str, str, dict, str | None, bool]]:
    """(name, quantity, params, accounting or None for the lead, with steps) of every formula the report shows."""
    w = r.spec.workloads
    moe = r.spec.model.moe is not None  # one token streams only the experts it touches: evaluate at batch 1
    one = {"batch": 1.0} if moe else {}
    mla = r.spec.model.attention.kind == "mla"
    pts = [("ridge", "ridge_point", {}, None, False), ("t_mem", "weight_stream_time", one, None, False),
           ("t_comp", "weight_flops_time", one, None, False), ("ikv", "attention_intensity", {}, None, not mla)]
    if not mla:  # MLA caches a latent per layer; its c is stated in the text
        pts.append(("kv", "kv_bytes_per_token", {}, None, False))
    if w.prefill_prompt:
        t = float(w.prefill_prompt[-1])
        pts.append(("iw", "weight_reuse_intensity", {"tokens": t}, None, False))
        if r.gemm:
            g = r.gemm[0]
            pts.append(("gemm", "gemm_intensity", {"n": float(g["n"]), "m": float(g["m"]), "tokens": t}, None, False))
    # the GEMM closed forms are printed in the weight-reuse part, which only a spec with a prefill has, and the
    # KV-token capacity in the decode part: a block made but never printed would be linked from the appendix
    # to a missing anchor
    for i, g in enumerate(r.gemm[:1] if w.prefill_prompt else []):
        nm = {"n": float(g["n"]), "m": float(g["m"])}
        pts += [(f"gemm_sat_{i}", "gemm_saturation", nm, None, True),
                (f"gemm_cross_{i}", "gemm_crossover_tokens", nm, None, True)]
    if w.decode_context:
        s0, s1 = float(w.decode_context[0]), float(w.decode_context[-1])
        pts += [("intensity", "decode_intensity", {"batch": 1.0, "context": s1}, None, False),
                ("ceiling", "decode_intensity_ceiling", {"context": s1}, None, True),
                ("critical", "critical_context", {}, None, True),
                ("cap_tokens", "kv_capacity_tokens", {}, None, False),
                ("crossover", "crossover_batch", {"context": s0}, None, True),
                ("cap_batch", "capacity_batch", {"context": s1}, None, False),
                ("tps", "decode_tokens_per_s", {"batch": 1.0, "context": s1}, None, False),
                ("exact_tmem", "decode_time_memory", {"batch": 1.0, "context": s1}, "exact", False),
                ("seed_tmem", "decode_time_memory", {"batch": 1.0, "context": s1}, "seed", False)]
    if w.training_tokens:
        pts.append(("train_iw", "training_weight_reuse_intensity", {"tokens": float(w.training_tokens)}, None, False))
        for tr in r.training:
            pts.append((f"train_{tr['recipe']}", "training_state_bytes", {"recipe": tr["recipe"]}, None, False))
    return pts


# The quantities of the memory a GPU holds: with pipeline stages, evaluated on the stage that holds the fewest tokens
# (Env.held) and printed with its N_b,g and c_b,g (formulas.slices.SLICE_HELD)
HELD_BLOCKS = frozenset({"kv_capacity_tokens", "capacity_batch", "weight_bytes"})


def point_env(r, acc: str, params: dict, qid: str = "") -> dict:
    numeric = {k: (float(recipe_bytes_per_param(v)) if k == "recipe" else v) for k, v in params.items()}
    if qid in HELD_BLOCKS:
        return r.envs[acc].held(context=numeric.get("context"))
    if qid == "crossover_batch":  # as the evaluation states it: a full pipeline's streams (Env.crossover_at)
        return r.envs[acc].crossover_at(numeric["context"])
    return r.envs[acc].at(batch=numeric.get("batch"), context=numeric.get("context"), reads=qid in READ_AT_CONTEXT,
                          **{PARAM_SYMBOL.get(k, k): v for k, v in numeric.items() if k not in ("batch", "context")})


def blocks(r) -> dict[str, Block]:

    out = {}
    for name, qid, params, acc, steps in block_points(r):
        acc = acc or r.lead
        c = r.q[qid]
        env = point_env(r, acc, params, qid)
        if qid == "training_state_bytes":  # the whole model's state, as the recipe table and figure 7 count it
            env = r.envs[acc].one_card().at(k=float(recipe_bytes_per_param(params["recipe"])))
        if qid == "training_weight_reuse_intensity":  # the recipes' bf16 weights, not the served format's
            env = {**env, "b": np.float64(TRAINING_WEIGHT_BYTES)}
        if name in ("gemm", "gemm_sat_0", "gemm_cross_0"):  # the first matrix at its own class's bytes, as its row
            env = {**env, **{k: np.float64(v) for k, v in gemm_class_bytes(r.spec, r.gemm[0]["name"]).items()}}
        inputs = {}
        for a in c.args:
            if a in env:
                v = np.asarray(env[a], dtype=float)
                if v.ndim == 0:
                    inputs[a] = float(v)
        if "R" in c.args:  # display forms name the ridge and the attention intensity: their values at this point
            inputs["R"] = float(env["P"] / env["W"])
        if "I_KV" in c.args:
            inputs["I_KV"] = float(np.asarray(4 * env["H_q"] * env["L"] * env["d_h"] / env["c"], dtype=float))
        raw = float(np.asarray(c(env), dtype=float))
        value, reason = physical(qid, raw, c.integer)
        note, closed = "", None
        if qid == "critical_context":
            closed = value
            value = r.scalars[acc]["critical_context"]
            reason = "" if value is not None else critical_reason(r, acc)
            if acc in r.numeric_critical_context:
                note = "numeric"
        stated = r.entry(qid, acc, **params)
        if stated is not None and qid != "critical_context":
            value, reason = stated.value, stated.reason  # one number, one place
        if (qid == "decode_tokens_per_s" and r.parallel is not None and value is not None
                and not np.isclose(raw, value, rtol=1e-9)):
            # at a layout the table states a replica's round (links and pipeline included); the formula, one GPU's
            # ledgers, is shown with its own value and the stated one beside it (render.block)
            note, closed = "layout", raw
        variant = point_variant(r, acc, env, c.args)  # N_a printed apart where the point streams other weights
        entry = Entry(qid, dict(params), value, c.unit, c.symbol, latex_of(r, qid, acc, variant), acc, reason)
        symbols = {}
        held = float(np.ravel(r.envs[acc].values["N"])[0])
        if qid == "training_state_bytes" and r.frame.many:
            symbols = {"N": "N"}  # the whole model's N, not one GPU's N_g (the chapter's table, on one card)
        elif qid in HELD_BLOCKS and r.frame.pp > 1:  # the stage that holds the fewest tokens (SLICE_HELD)
            symbols = {k: SLICE_HELD[k][0] for k in ("N", "c") if k in inputs}
        elif "N" in inputs and not np.isclose(inputs["N"], held, rtol=1e-9):
            # a step that streams other weights than those the GPU holds (an MoE's touched experts): every formula
            # that substitutes them names them so, not N (N_g), which the glossary and slice table define as held
            symbols = {"N": streamed_symbol(r, inputs["N"], acc)[1]}
        if qid == "capacity_batch" and "c" in inputs and arch.chunked_layers(r.spec.model) and r.frame.pp <= 1:
            # what a sequence at S holds (a chunked layer up to its whole chunk), where a step at S reads less (its
            # current chunk, formula tok/s): named c_h, as the serving chapter names the held cache, with the read c
            # beside it in the block's note (Llama 4 Scout at 131,072 tokens, tp 4: 14,592 B held, 12,288 B read)
            read_c = float(np.ravel(r.envs[acc].at(batch=1.0, context=params["context"])["c"])[0])
            if not np.isclose(read_c, inputs["c"], rtol=1e-12):
                symbols["c"] = "c_{h}"
                note, closed = "held", read_c
        out[name] = Block(name, entry, inputs, steps, variant, note, closed, {k: v for k, v in
                                                                                        symbols.items() if v})
    return out


def training_weights(r) -> float | None:
    """The bytes of one GPU's slice as training streams it, the recipes' bf16 copy (N_g 2 B: the served bytes over
    b, times 2), where the served weights are not 16-bit and the spec trains; None otherwise (figure 3's block)."""
    if not r.spec.workloads.training_tokens or r.spec.precision.weight_bytes == TRAINING_WEIGHT_BYTES:
        return None
    b = float(r.envs[r.lead].values["b"])
    return float(r.scalars[r.lead]["weight_bytes"]) / b * TRAINING_WEIGHT_BYTES


def streamed_symbol(r, streamed: float, acc: str | None = None) -> tuple[str, str]:
    """(plain, LaTeX) symbol of the parameters one GPU streams in a batch-1 decode step, where that is not what
    the glossary's N (N_g at a layout) means: a mixture of experts streams the experts its batch touches.  Where
    they are its active parameters (one card, or tensor and expert parallel with one token) the symbol is N_a
    (N_a,g), the one the compute bound uses; where the GPU's share differs (data-parallel attention: the experts
    one GPU holds that the replicas' tokens touch, or a pipeline round's micro-batches' experts) it is N_s (N_s,g);
    a dense model's pipeline round, its slice once per micro-batch, is N_r,g.  Empty strings: N itself.  ``acc``: the
    accounting whose N_a it is compared with (the lead's by default)."""
    values = r.envs[acc or r.lead].values
    if r.spec.model.moe is None:
        # a dense model streams other weights than a GPU holds only in a pipeline's round: its slice once per
        # micro-batch, min(n_PP, B) N_g (the frame's sentence defines N_r,g so)
        held = float(np.ravel(values["N"])[0])
        return ("", "") if abs(streamed - held) <= 1e-9 * held else ("N_r,g", r"N_{r,g}")
    n_a, n_e = float(values["N_a"]), float(values["N_e"])
    many = r.frame.many
    if abs(streamed - n_a) <= 1e-9 * n_a:
        return ("N_a,g", r"N_{a,g}") if many else ("N_a", r"N_{a}")
    if n_e and abs(streamed - n_a - n_e) <= 1e-9 * n_a:  # the exact accounting: the rows looked up subtracted after
        return (("(N_a,g + N_e,g)", r"\left(N_{a,g} + N_{e,g}\right)") if many
                else ("(N_a + N_e)", r"\left(N_{a} + N_{e}\right)"))
    return ("N_s,g", r"N_{s,g}") if many else ("N_s", r"N_{s}")


# ----------------------------------------------------------------------------------------------- facts

def facts(r) -> dict[str, float | str | None]:
    """Derived numbers the prose states beside the formulas (ratios, reuse counts, effective shapes)."""
    sc = r.scalars[r.lead]
    m = r.spec.model
    t_mem, t_comp = sc["weight_stream_time"], sc["weight_flops_time"]
    out = {
        "bound_ratio": t_mem / t_comp if t_comp else None,  # the larger batch-1 bound over the smaller
        "compute_idle_share": 1 - t_comp / t_mem if t_mem else None,  # NOT an idle fraction: the text says why
        # tokens per weight load at the ridge: the ridge over batch-1 decode's weight-reuse intensity, 2 / b of the
        # weights it reads (the table's value beside it; per-class weights: the active mix's b, not the held mean)
        "ridge_reuses": sc["ridge_point"] / r.value("weight_reuse_intensity", "seed", tokens=1),  # (stated in seed's)
        "effective_head_dim": float(r.envs[r.lead].values["d_h"]),
    }
    if m.attention.kind == "mla":
        out["mla_cache_width"] = float(m.attention.kv_lora_rank + m.attention.qk_rope_head_dim)
    n_local = arch.local_layers(m)
    out["local_layers"] = float(n_local)
    if arch.bounded_layers(m):  # the KV headline: per token in the global layers, per sequence in the bounded ones
        head = arch.kv_headline(m, r.spec.precision.kv_bytes)
        out["kv_global_per_token"] = float(head["bytes_per_token_global"])
        out["kv_windowed_per_sequence"] = float(head["bytes_per_sequence_windowed"])
        out["kv_global_layers"] = float(head["global_layers"])
        out["kv_bounded_layers"] = float(head["windowed_layers"] + head["chunked_layers"])
        # what the bounded layers are (Llama 4's are chunked, Gemma's and gpt-oss's windowed): page 1 names them so
        out["kv_bounded_kind"] = " or ".join(w for w, n in (("windowed", head["windowed_layers"]),
                                                          ("chunked", head["chunked_layers"])) if n)
        cut = r.envs[r.lead].cut
        share = cut.pp * cut.s_kv  # a GPU of a layout holds 1 / (n_PP s_kv) of every sequence's cache
        if share > 1:  # page 1 states both scopes, as it does the per-token c beside c_g
            out["kv_global_per_token_gpu"] = out["kv_global_per_token"] / share
            out["kv_windowed_per_sequence_gpu"] = out["kv_windowed_per_sequence"] / share
        from genreport.model import stages

        # the stage the summary's "fits" line names (prose.kv_room_facts: the weights as the report counts them)
        own = stages.kv_room(r.spec.hardware, m, r.spec.precision, r.spec.parallelism, (),
                             r.scalars[r.lead]["weight_bytes"])
        if own is not None:  # stages of unlike layers: a GPU of the stage that fills first (the summary's)
            out["kv_global_per_token_gpu"] = float(own["bytes_per_token_global"])
            out["kv_windowed_per_sequence_gpu"] = float(own["bytes_per_sequence_windowed"])
            out["kv_stage_words"] = stages.stage_words(own)
    t_train = r.spec.workloads.training_tokens
    if t_train and r.gemm and t_train in r.gemm[0]["tokens"] and "training_intensity" in r.verdicts:
        # training streams the recipes' bf16 weights: the first GEMM with its activations at that b, both
        # intensities 1/b (a served mxfp4 or fp8 model trains bf16 weights)
        # (2T/b at b = 2: the step's intensity, verdicts' training_intensity, also carries N_a / N for an MoE)
        g, i = r.gemm[0], r.gemm[0]["tokens"].index(t_train)
        out["training_weight_reuse"] = float(r.q["weight_reuse_intensity"](
            r.envs[r.lead].at(T=float(t_train), b=TRAINING_WEIGHT_BYTES)))
        out["training_gemm_intensity"] = float(g["intensity"][i]) * out["training_weight_reuse"] / float(
            g["weight_reuse_own"][i])
    if m.moe is not None and m.moe.active_experts < m.moe.experts and (r.lead in r.prefill or t_train):
        # one load of a routed expert's weights serves only the tokens routed to it, T k / E in expectation
        # (uniform routing): its intensity is 2 T k / (E b_x), b_x the routed experts' bytes per weight (mxfp4 for
        # gpt-oss at its checkpoint's formats, not the whole model's mean)
        share = m.moe.active_experts / m.moe.experts
        env = r.envs[r.lead]
        b_x = env.wb.experts if env.per_class else None
        out["routed_share"] = share
        if r.lead in r.prefill:
            out["routed_weight_reuse"] = [
                share * float(r.q["weight_reuse_intensity"](env.at(T=float(t), **({} if b_x is None else {"b": b_x}))))
                for t in r.spec.workloads.prefill_prompt]
        if t_train:
            out["training_routed_weight_reuse"] = share * float(r.q["weight_reuse_intensity"](
                r.envs[r.lead].at(T=float(t_train), b=TRAINING_WEIGHT_BYTES)))
    longer = [s for s in r.spec.workloads.decode_context if n_local and s > m.attention.sliding_window]
    if longer:  # the windows' share of S at the longest context: what c and d_h carry there
        f = float(arch.attended_fraction(m, max(longer)))
        out["window_fraction"] = f
        out["window_head_dim"] = f * arch.attention_head_dim_for_flops(m)
    return out


def _read_bytes_per_weight(env, batch) -> float:
    """Bytes per weight of what one GPU reads at ``batch``, the input embedding included (the table counts it):
    the precision's one value, or with weights per tensor class the mean of the experts touched and the rest."""
    if not env.per_class:
        return env.values["b"]
    n, n_x = env.read(np.float64(batch))
    return float(env.wb.mean(n - n_x, n_x * (1.0 - env.cut.expert_keep), 0.0, env.cut.copies, env.cut.copies_bytes))


def moe_reads(r, batches=(1, 4, 16, 64, 256)) -> tuple[dict, ...]:
    """A mixture of experts at a few batches: experts touched per layer and the weight bytes streamed (the whole
    model's on one card; one GPU's per round at a layout), as the report's accounting counts them (its formulas' N at
    each batch: DeepSeek-V3 on 8 H20 at seed accounting streamed "98.86 GB per GPU" from the shapes beside the 98.35 GB
    a GPU holds); then at each of the spec's prompts, the experts its tokens touch per layer (rows with "prompt" in
    place of "batch")."""
    m = r.spec.model
    if m.moe is None:
        return ()
    env = r.envs[r.lead]
    stages = r.spec.parallelism.pp if r.spec.parallelism is not None else 1
    rows = []
    for batch in batches:
        # a pipeline's round passes min(stages, B) micro-batches, each streaming what its own tokens touch (the
        # round's bytes, formulas.parallel.microbatches): the experts touched are one micro-batch's
        micro = min(stages, batch)
        tokens = batch / micro
        touched = float(env.touched(tokens))  # those of all the replicas one GPU's experts serve
        read = float(np.ravel(env.at(batch=batch)["N"])[0])
        rows.append({"batch": batch, "touched": touched, "bytes": read * _read_bytes_per_weight(env, batch),
                     "microbatches": micro})
    for prompt in r.spec.workloads.prefill_prompt:  # a prompt is one micro-batch: its T tokens pick as a batch of T
        rows.append({"prompt": prompt, "touched": float(env.touched(prompt))})
    return tuple(rows)


# ----------------------------------------------------------------------------------------------- figure samples

def batch_range(r) -> float:
    """Right end of figure 4's batch axis: the spec's batches, room past the capacity and the crossovers."""
    hi = 64.0
    if r.lead in r.per_context:
        pc = r.per_context[r.lead]
        hi = max(hi, max(r.spec.workloads.decode_batch or (1,)), float(np.max(pc["capacity_batch"])) * 3.0)
        for x in pc["crossover_batch"]:
            c = physical("crossover_batch", x)[0]
            if c is not None:
                hi = max(hi, c * 3.0)
        hi = max(hi, r.envs[r.lead].values["G"] * 8)
    return min(2.0 ** math.ceil(math.log2(hi)), 2.0**20)


def curves(r) -> dict[str, object]:
    out: dict[str, object] = {}
    w = r.spec.workloads
    if r.lead not in r.per_context:
        return out
    ctx = np.asarray(w.decode_context, dtype=float)
    env = r.envs[r.lead]
    q = r.q
    bmax = batch_range(r)
    batch = sorted_unique(np.concatenate([portable.logspace(0, math.log10(bmax), 200), np.asarray(w.decode_batch, dtype=float)]))
    g = env.at(batch=batch[:, None], context=ctx[None, :])
    out["decode_batch"] = batch
    out["decode_batch_max"] = bmax
    out["decode_intensity"] = np.broadcast_to(np.asarray(q["decode_intensity"](g), dtype=float),
                                              (len(batch), len(ctx))).copy()
    # the serving view: total tokens/s against the time per token, along the same batch samples
    if r.parallel is not None:  # a replica's token/s at the strict bound of a round, as the decode table states it
        tps = batch[:, None] / round_bound(r, r.lead, batch, ctx)
    else:
        tps = np.broadcast_to(np.asarray(q["decode_tokens_per_s"](g), dtype=float), (len(batch), len(ctx))).copy()
    out["serving_tokens_per_s"] = tps
    # the capacity limit's point on each curve, at the capacity batch itself (figure 6 states its tok/s; the
    # nearest sample below it was once printed as the capacity batch's: 7,044 tok/s for Mistral 7B on an A100 40 GB
    # at batch 167.4, labelled batch 173)
    caps = np.asarray(r.per_context[r.lead]["capacity_batch"], dtype=float)
    at = np.where(caps >= 1, caps, 1.0)
    if r.parallel is not None:
        cap_tps = np.diagonal(at[:, None] / round_bound(r, r.lead, at, ctx)).copy()
    else:
        cap_tps = np.diagonal(np.broadcast_to(np.asarray(q["decode_tokens_per_s"](
            env.at(batch=at[:, None], context=ctx[None, :])), dtype=float), (len(at), len(ctx)))).copy()
    out["serving_tokens_per_s_at_capacity"] = np.where(caps >= 1, cap_tps, np.nan)
    # the most of them the engine runs at once (serving.engine_limit: its max_sequences) and tok/s there, where that
    # stops the batch first (figure 6's caption: gpt-oss-120b on 8 H200 stated batch 5,473 where the engine runs 256)
    from genreport.model.serving import engine_limit

    runs = np.asarray([engine_limit(r.spec.hardware, float(c)) for c in caps], dtype=float)
    if np.any((runs < caps) & (caps >= 1)):
        at = np.where(runs >= 1, runs, 1.0)
        if r.parallel is not None:
            run_tps = np.diagonal(at[:, None] / round_bound(r, r.lead, at, ctx)).copy()
        else:
            run_tps = np.diagonal(np.broadcast_to(np.asarray(q["decode_tokens_per_s"](
                env.at(batch=at[:, None], context=ctx[None, :])), dtype=float), (len(at), len(ctx)))).copy()
        out["serving_engine_batch"] = np.where(caps >= 1, runs, np.nan)
        out["serving_tokens_per_s_at_engine"] = np.where(caps >= 1, run_tps, np.nan)
        # the roofline's caption: where decode sits at the batch the engine runs (its intensity there), per context
        run_i = np.diagonal(np.broadcast_to(np.asarray(q["decode_intensity"](
            env.at(batch=at[:, None], context=ctx[None, :])), dtype=float), (len(at), len(ctx)))).copy()
        out["decode_intensity_at_engine"] = np.where((caps >= 1) & (runs < caps), run_i, np.nan)
    price = r.spec.hardware.price_per_hour
    if price:  # what the serving figure's dollar axis prices: one replica's GPUs for an hour
        out["serving_usd_per_hour"] = price * (r.spec.parallelism.replica_gpus if r.spec.parallelism else 1)
    out["serving_ms_per_token"] = batch[:, None] / tps * 1e3
    # the point every context's curve passes through: where the weights' intensity 2 N_a B / (N b) equals the
    # attention intensity I_KV, the step's is I_KV whatever the context; B = I_KV b / 2 (G, G only at b = b_kv = 2:
    # Gemma 3 27B in fp8 passes through (2, 4)); stated only where the curves do pass through it (a pipeline's rounds
    # stream the slice min(n_PP, B) times, and no single point is common then)
    i_kv = float(r.scalars[r.lead]["attention_intensity"])
    b_pinch = i_kv * float(np.asarray(env.values["b"], dtype=float)) / 2
    at_pinch = np.asarray(q["decode_intensity"](env.at(batch=b_pinch, context=ctx)), dtype=float)
    if b_pinch >= 1 and np.all(np.abs(at_pinch / i_kv - 1) < 1e-9):
        out["decode_intensity_common_point"] = (b_pinch, i_kv)
    out["decode_intensity_batch1"] = np.asarray(
        [float(q["decode_intensity"](env.at(batch=1.0, context=float(s)))) for s in ctx])
    return out


# ----------------------------------------------------------------------------------------------- levers

def _bound_at_batch1(r, hw=None, model=None, precision=None, scale_w: float = 1.0, scale_p: float = 1.0) -> float:
    """The batch-1 step bound, weights only: max(weight streaming, weight FLOPs), with the experts one token reads."""
    spec = r.spec
    env = make_env(hw or spec.hardware, model or spec.model, precision or spec.precision, r.lead,
                   layout=spec.parallelism)  # one GPU of the spec's layout
    e = env.at(batch=1.0)
    e["W"] = e["W"] * scale_w
    e["P"] = e["P"] * scale_p
    return max(float(r.q["weight_stream_time"](e)), float(r.q["weight_flops_time"](e)))


# A GQA/MQA lever at a tensor-parallel degree past the new KV-head count: each GPU keeps a whole head anyway.
KV_REPLICATED = "each tensor-parallel GPU keeps a whole KV head: none holds or reads less (accuracy cost not modelled)"


def _round_at_batch1(r, precision=None, scale_w: float = 1.0, scale_p: float = 1.0) -> dict[str, float]:
    """A replica's batch-1 decode round at the spec's layout with no KV cache (context 0): its strict bound and one
    GPU's three ledgers (layout.decode_ledgers_at), so that the levers' times at a layout are the round page 1 and
    chapter 7 state, the links and the pipeline in, not one GPU's weights alone."""
    from genreport.model.layout import decode_ledgers_at

    return decode_ledgers_at(r.spec, r.lead, 1.0, 0.0, precision, scale_w, scale_p)


def _held_by(ledgers: dict[str, float]) -> str:
    """The ledger that binds a round (layout.BINDS' name), compute before HBM before the links at a tie."""
    return max(("compute", "bandwidth", "interconnect"), key=ledgers.__getitem__)  # max keeps the first of a tie


def levers(r) -> list[dict]:
    """What would change it: each lever's before and after, at batch 1 (weights only) or at the last context.

    At a layout the time levers are the replica's batch-1 round with no KV cache (:func:`_round_at_batch1`): the
    GPUs' slices of the weights, the links and the pipeline, chapter 7's bound at context 0; where the links hold
    that round, a lever of the GPU's own gains only until they do, and its note says so."""
    from genreport.load.spec import PRECISION_BYTES, Precision

    spec = r.spec
    hw, model = spec.hardware, spec.model
    ridge = r.scalars[r.lead]["ridge_point"]
    rows = []
    at_layout = r.parallel is not None

    def timed(precision=None, scale_w: float = 1.0, scale_p: float = 1.0) -> tuple[float, str]:
        """(the batch-1 bound with a lever's change, the ledger that holds it)."""
        if at_layout:
            led = _round_at_batch1(r, precision, scale_w, scale_p)
            return led["bound"], _held_by(led)
        return _bound_at_batch1(r, precision=precision, scale_w=scale_w, scale_p=scale_p), ""  # one card: no links

    def links_note(note: str, gain: float, held: str) -> str:
        """A lever's caveat where the links hold the batch-1 round after it: they stop its gain there."""
        if held != "interconnect":
            return note
        if gain <= 1 + 1e-9:
            return "no gain while the links hold the batch-1 round"
        return "the links hold the batch-1 round after it: the gain stops there"

    b0, held0 = timed()
    for fmt_name in ("int8", "int4"):
        if PRECISION_BYTES[fmt_name] >= spec.precision.weight_bytes:
            continue
        prec = Precision(fmt_name, spec.precision.kv_cache, spec.precision.compute, 128 if fmt_name == "int4" else None)
        t, held = timed(precision=prec)
        rows.append({"lever": f"weights-{fmt_name}", "change": f"weights {fmt_name}" +
                     (" (group 128)" if fmt_name == "int4" else ""), "what": "fewer bytes per step",
                     "kind": "time", "before": b0, "after": t, "gain": b0 / t,
                     "note": links_note("ideal: KV and activation traffic are unchanged and dequantization costs "
                                        "time, so the real gain is smaller", b0 / t, held)})
    # only where fp8 raises the roof: Gaudi 3's MME runs fp8 at its bf16 rate (1,835 TFLOP/s both), no lever; nor
    # beside per-class weights whose fp4 experts already run faster (env.peak_of: P above fp8's)
    if ("fp8" in hw.dense and spec.precision.compute != "fp8"
            and hw.dense["fp8"] > r.scalars[r.lead]["peak_flops"]):
        r8 = hw.dense["fp8"] / hw.bandwidth
        rows.append({"lever": "compute-fp8", "change": "FP8 compute", "what": "higher compute roof", "kind": "ridge",
                     "before": ridge, "after": r8, "gain": r8 / ridge,
                     "note": "operand bytes halve too, so the weight-reuse intensity 2B/b doubles with the ridge: "
                             "the relative position barely moves"})
    if model.attention.kind in ("gqa", "mha") and model.kv_heads > 1 and spec.workloads.decode_context:
        s = spec.workloads.decode_context[-1]
        for kv in sorted({1, max(1, model.kv_heads // 2)}):
            if kv >= model.kv_heads:
                continue
            m2 = replace(model, kv_heads=kv, attention=replace(model.attention, kind="mqa" if kv == 1 else "gqa"))
            c1 = float(r.q["decode_intensity_ceiling"](
                make_env(hw, model, spec.precision, r.lead, layout=spec.parallelism).at(context=s, reads=True)))
            c2 = float(r.q["decode_intensity_ceiling"](
                make_env(hw, m2, spec.precision, r.lead, layout=spec.parallelism).at(context=s, reads=True)))
            fits = r.scalars[r.lead]["kv_capacity_tokens"] is not None
            rows.append({"lever": f"kv-heads-{kv}",
                         "change": f"{'MQA' if kv == 1 else f'GQA-{kv}'} instead of {model.kv_heads} KV heads",
                         "what": "fewer KV bytes per token", "kind": "ceiling", "context": s,
                         "before": c1, "after": c2, "gain": c2 / c1,
                         "note": (KV_REPLICATED if abs(c2 - c1) <= 1e-12 * abs(c1) else
                                  "also frees capacity: more sequences fit (accuracy cost not modelled)" if fits else
                                  "the KV cache does not fit beside the weights in either case "
                                  "(accuracy cost not modelled)")})
    t, held = timed(scale_w=1.5)
    rows.append({"lever": "bandwidth-1.5", "change": "bandwidth ×1.5", "what": "faster memory", "kind": "time",
                 "before": b0, "after": t, "gain": b0 / t,
                 "note": links_note("the batch-1 bound follows bandwidth one for one", b0 / t, held)})
    t, held = timed(scale_p=2.0)
    rows.append({"lever": "peak-2", "change": "peak compute ×2", "what": "faster arithmetic", "kind": "time",
                 "before": b0, "after": t, "gain": b0 / t,
                 "note": ("" if t < b0 else "no gain while the links hold the batch-1 round"
                          if held0 == "interconnect" else "no gain while decode is bandwidth-bound")})
    return rows


# ----------------------------------------------------------------------------------------------- sensitivities

def sensitivities(r) -> list[dict]:
    """Elasticities d ln q / d ln x of the headline quantities, derived symbolically (formulas.sensitivity)."""
    from genreport.formulas import sensitivity

    w = r.spec.workloads
    if not w.decode_context:
        return []
    s_last, s_first = w.decode_context[-1], w.decode_context[0]
    fits = r.scalars[r.lead]["kv_capacity_tokens"] is not None
    asks = [
        ("ridge point", "ridge_point", {}),
        ("batch-1 decode token/s (weights only)", "weight_stream_time", {}),
        (f"decode token/s, batch 1, context {s_last:,}", "decode_tokens_per_s", {"batch": 1, "context": s_last}),
        (f"decode ceiling at context {s_last:,}", "decode_intensity_ceiling", {"context": s_last}),
        ("critical context", "critical_context", {}),
        (f"batch that crosses the ridge at {s_first:,}", "crossover_batch", {"context": s_first}),
        ("KV tokens that fit", "kv_capacity_tokens", {}),
        (f"sequences that fit at {s_last:,}", "capacity_batch", {"context": s_last}),
    ]
    rows = []
    for label, qid, params in asks:
        if qid == "critical_context" and (r.lead in r.numeric_critical_context
                                          or r.scalars[r.lead]["critical_context"] is None):
            continue  # a numeric root past a sliding window, or no root: the closed form's elasticities do not apply
        if qid in ("kv_capacity_tokens", "capacity_batch") and not fits:
            continue  # no physical value: an elasticity of a negative capacity means nothing
        if qid == "capacity_batch" and not r.per_context[r.lead]["capacity_batch"][-1] >= 1:
            continue  # no sequence of that context fits: the count is 0, and a share of its change is no number
        if qid == "crossover_batch":
            j = list(w.decode_context).index(s_first)
            if physical(qid, r.per_context[r.lead]["crossover_batch"][j])[0] is None:
                continue
        try:
            e = sensitivity.elasticities(r, ids=(qid,), params=params).get(qid)
        except (KeyError, ValueError):
            e = None
        if not e:
            continue
        if qid == "weight_stream_time":  # tokens/s = 1/t: the elasticities change sign
            e = {k: -v for k, v in e.items()}
        vals = {k: (float(v) if np.ndim(v) == 0 else float(np.ravel(v)[0])) for k, v in e.items()}
        vals = {k: (0.0 if abs(v) < 1e-12 else v) for k, v in vals.items() if math.isfinite(v)}
        if r.spec.model.moe is not None:
            # a mixture of experts reads the experts its tokens touch: N grows with the batch, which the symbolic
            # elasticity holds fixed (a review: B +0.779 at batch 1 beside a measured +0.25 going to batch 2)
            vals.pop("B", None)
        rows.append({"label": label, "id": qid, "params": params, "e": vals})
    return rows
