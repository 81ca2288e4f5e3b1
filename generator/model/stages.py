"""The memory of each pipeline stage, and the stage that runs out of it first.

A pipeline of pp stages gives L mod pp of its stages ceil(L/pp) layers and the others floor(L/pp), as vLLM
splits them (:func:`stage_layers`).  The stages do not hold the same bytes: the first holds the input
embedding, the last the output head (a copy of a tied embedding: vLLM's last rank builds its own ``lm_head`` and
loads the embedding's weights into it) and the final norm, the layers differ (DeepSeek-V3's first three are dense,
Llama 4's MoE layers alternate) and so does their cache (Gemma 3's global layers, one in six, fall unevenly on the stages); the last
stage alone computes the logits (its activation workspace holds them).  Dividing the whole model by n_PP, as the
time formulas do, over-claims the memory: Llama 3.1 70B at pp 4 puts 18.17e9 parameters on the first stage, not
17.64e9; Gemma 3 27B at pp 4 and 128k holds 18 sequences on the stage with three global layers where an even split
claims 21.

:class:`StageLedger` counts each stage's bytes from the model's shapes and finds the stage that holds the fewest
tokens (at a context, or within every window).  The memory formulas take that stage through two divisors and its
room (formulas.parallel.weight_bytes_per_gpu, kv_bytes_per_token_per_gpu):

- n_PW: the bytes one GPU would hold at the same tp and ep with every layer, over those of the binding stage;
- n_PK: the cache positions a token holds over all layers, over those on the binding stage;
- C: the memory the binding stage's GPU may use (the capacity less the engine's reserve and its own step's
  activations: the logits on the last stage only).

The training state takes the stage that holds the most parameters (:func:`training_split`, n_PT).  One stage
(pp = 1): n_PW = n_PK = n_PT = 1 and C the card's, exactly.  Numbers only (numpy); the formulas are SymPy's.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
from genreport.formulas import architecture as arch
from genreport.load.objects import activation_workspace

# Held positions per token of a stage, by layer kind: a global layer holds S, a windowed one min(S, w), a chunked
# one min(S, c) (architecture.kv_positions_held).
KINDS = ("global", "windowed", "chunked")


def stage_layers(layers: int, pp: int) -> tuple[int, ...]:
    """Layers of each pipeline stage [1]: floor(L/pp) each, and one more on each of the L mod pp stages before the
    last, from the second-to-last back, as vLLM splits them (vllm/distributed/utils.py, get_pp_indices: the last stage
    runs the final norm, the head and the sampling, the first the embedding; 61 layers over 2 stages: 31 and 30; over
    4: 15, 15, 16, 15; 62 over 4: 15, 16, 16, 15).

    >>> stage_layers(61, 4), stage_layers(80, 9)
    ((15, 15, 16, 15), (9, 9, 9, 9, 9, 9, 9, 9, 8))
    """
    low, extra = divmod(layers, pp)
    return tuple(low + 1 if pp - 1 - extra <= i < pp - 1 else low for i in range(pp))


def layer_kinds(model) -> tuple[str, ...]:
    """The cache kind of each layer, from 0: with ``local_layers_per_global`` p every (p+1)-th layer is global
    (layers p, 2p+1, ...: Gemma 2's odd layers, Gemma 3's 5, 11, ...), the others windowed or chunked; without it
    every layer is windowed (chunked) where the model has a window (chunks), global otherwise
    (architecture.local_layers, chunked_layers)."""
    a = model.attention
    local = "windowed" if a.sliding_window else "chunked" if a.chunk_size else None
    if local is None:
        return ("global",) * model.layers
    period = (a.local_layers_per_global or 0) + 1
    if period == 1:
        return (local,) * model.layers
    return tuple("global" if (i + 1) % period == 0 else local for i in range(model.layers))


def moe_layers(model) -> tuple[bool, ...]:
    """Whether each layer's FFN is routed (architecture.moe_layer_count: after ``first_dense_layers``, every
    ``layer_step``-th)."""
    if model.moe is None:
        return (False,) * model.layers
    f, k = model.moe.first_dense_layers, max(1, model.moe.layer_step)
    return tuple(i >= f and (i - f + 1) % k == 0 for i in range(model.layers))


def kinds_before(model, i: int) -> tuple[int, int, int]:
    """The global, windowed and chunked layers among layers 0 .. i - 1 (:func:`layer_kinds` counted without
    walking the layers: a stage's counts in O(1), where a hostile spec's 10^5 layers at pp 8 took 37 ms a
    call layer by layer)."""
    a = model.attention
    local = "windowed" if a.sliding_window else "chunked" if a.chunk_size else None
    period = (a.local_layers_per_global or 0) + 1
    glob = i if local is None else 0 if period == 1 else i // period  # layer j global where (j + 1) % period == 0
    return (glob, i - glob, 0) if local == "windowed" else (glob, 0, i - glob)


def routed_before(model, i: int) -> int:
    """The routed (MoE) layers among layers 0 .. i - 1 (:func:`moe_layers` counted without walking the layers)."""
    if model.moe is None:
        return 0
    f, k = model.moe.first_dense_layers, max(1, model.moe.layer_step)
    return max(i - f, 0) // k  # layer j routed where j >= f and (j - f + 1) % k == 0


@lru_cache(maxsize=256)
def stage_shares(model, pp: int) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """(f_B, f_L) as (global layers, layers): the busiest stage before the last's (the most global of those with
    ceil(L/pp) layers) and the last stage's, or None where both are the whole model's share, G / L (one stage; layers
    of one kind; global layers that fall evenly).  Counts as they are (3 of 15, not 1 in 5: the words beside them
    count layers; compared as fractions).

    The time formulas take a stage as mean layers.  Where the global (whole-context) layers fall unevenly that is no
    bound: Gemma 3 1B at pp 4 puts one global layer on each stage of (6, 7, 7, 6), and 7 mean layers read 1.08 global
    layers' cache at a long context, more than any stage reads.  The round's two stage ledgers take these shares
    (kappa_B, kappa_L: formulas.parallel.at_stage), its walk the last stage's and the stages' before it together
    (kappa_F: :func:`kappas`)."""
    if pp <= 1:
        return None
    kinds = layer_kinds(model)
    whole = Fraction(kinds.count("global"), model.layers)
    if whole in (0, 1):
        return None
    sizes, parts = stage_layers(model.layers, pp), stage_parts(model, pp)
    own = [(parts.kinds[i][0], sizes[i]) for i in range(pp)]
    # the busiest before the last (X leaves the head to the last stage, which holds floor(L/pp) layers, or as many)
    busiest = max((own[i] for i in range(pp - 1) if sizes[i] == max(sizes)), key=lambda x: Fraction(*x))
    if Fraction(*busiest) == whole and Fraction(*own[-1]) == whole:
        return None
    return busiest, own[-1]


def share_words(share: tuple[int, int]) -> str:
    """'1 in 7', 'none of 2' (a stage without a global layer): a stage's global layers and its layers."""
    return f"{share[0]} in {share[1]}" if share[0] else f"none of {share[1]}"


def time_share(model, pp: int) -> float | None:
    """f_B of :func:`stage_shares` (a GPU of the busiest stage, the one the single-GPU formulas of a layout take), or
    None where it is the model's own."""
    shares = stage_shares(model, pp)
    if shares is None or Fraction(*shares[0]) == Fraction(layer_kinds(model).count("global"), model.layers):
        return None
    return shares[0][0] / shares[0][1]


def kappas(model, pp: int, x, full) -> tuple[object, object, object]:
    """(kappa_B, kappa_L, kappa_F) at a point whose mean-layer quantity (c, d_h or their attended fraction) is ``x``,
    ``full`` its value were every layer global: the busiest stage's, the last stage's and the stages' before the last
    together (G - g_L global layers in L - n_L) over the mean, :func:`at_share` / x (1 where x is 0 or full).  Linear
    in the share, so a mean over contexts (a request's rounds) gives the mean's ratio."""
    shares = stage_shares(model, pp)
    if shares is None:
        return 1.0, 1.0, 1.0
    (g_l, n_l) = shares[1]
    before = (layer_kinds(model).count("global") - g_l, model.layers - n_l)
    x = np.asarray(x, dtype=float)
    safe = np.where(x > 0, x, 1.0)
    out = tuple(np.where(x > 0, at_share(model, g / n, x, full) / safe, 1.0) for g, n in (*shares, before))
    return tuple(np.float64(k) if np.ndim(k) == 0 else k for k in out)


def at_share(model, share: float | None, x, full):
    """A quantity of a mean layer's attention (c, d_h, or their fraction) at the share ``share`` of global layers
    (a stage's: :func:`stage_shares`) instead of the model's own f = G / L: x - (f - share) (full - x) / (1 - f), ``full`` its value
    were every layer global.  A global layer reads S positions, a windowed or chunked one its own part of S; x is
    linear in the share, so a mean over contexts (a request's rounds) moves the same way.  ``x`` where ``share`` is
    None, and ``full`` itself stays full."""
    if share is None:
        return x
    f = arch.global_layers(model) / model.layers
    return x - (f - share) * (full - x) / (1.0 - f)


@dataclass(frozen=True)
class StageLedger:
    """Each stage's bytes on one of its GPUs and its cache positions per token, and what each GPU may use."""

    held: tuple[float, ...]  # weight bytes one GPU of each stage holds (the shapes, each tensor class in its format)
    flat: float  # the bytes one GPU would hold at the same tp and ep with every layer (the formulas' at n_PW = 1)
    kinds: tuple[tuple[int, int, int], ...]  # global, windowed and chunked layers of each stage
    room: tuple[float, ...]  # memory each stage's GPU may use for weights and cache [B]
    window: float
    chunk: float

    def positions(self, context=None) -> np.ndarray:
        """Cache positions one token holds on each stage (axis 0) at ``context`` (axis 1 where an array): the
        layers themselves within every window (context None, or 0: the c of a token within the windows)."""
        k = np.asarray(self.kinds, dtype=float)
        if context is None:
            return k.sum(axis=1)
        s = np.atleast_1d(np.asarray(context, dtype=float))
        held = (k[:, 0:1] * s + k[:, 1:2] * np.minimum(s, self.window or np.inf)
                + k[:, 2:3] * np.minimum(s, self.chunk or np.inf))
        return np.where(s > 0, held / np.where(s > 0, s, 1.0), k.sum(axis=1)[:, None])

    def binding(self, context=None) -> np.ndarray:
        """The stage whose GPUs hold the fewest tokens (the first of equals), at each context."""
        pos = self.positions(context)
        free = np.asarray(self.room) - np.asarray(self.held)
        free = free if pos.ndim == 1 else free[:, None]
        return np.argmin(free / pos, axis=0)

    def stage(self, i: int, context=None) -> dict[str, np.float64]:
        """n_PW, n_PK and C of stage ``i`` at the scalar ``context`` (None: within every window): what the memory
        formulas take for a GPU of that stage (an EAGLE/MTP head's stage, the last: draft.Draft.capacity)."""
        pos = self.positions(context)
        col = pos[:, 0] if pos.ndim == 2 else pos
        return {"n_PW": np.float64(self.flat / self.held[i]), "n_PK": np.float64(col.sum() / col[i]),
                "C": np.float64(self.room[i])}

    def values(self, context=None) -> dict[str, object]:
        """n_PW, n_PK and C of the binding stage (arrays over ``context`` where it is one)."""
        pos = self.positions(context)
        s = self.binding(context)
        total = pos.sum(axis=0)
        if pos.ndim == 1:
            return {"n_PW": np.float64(self.flat / self.held[s]), "n_PK": np.float64(total / pos[s]),
                    "C": np.float64(self.room[s])}
        cols = np.arange(pos.shape[1])
        shape = np.shape(context)
        return {"n_PW": np.reshape(self.flat / np.asarray(self.held)[s], shape),
                "n_PK": np.reshape(total / pos[s, cols], shape),
                "C": np.reshape(np.asarray(self.room)[s], shape)}

    def held_positions(self, context: float) -> np.ndarray:
        """Cache positions one sequence at ``context`` holds on each stage: S in a global layer, min(S, w) in a
        windowed one, min(S, c) in a chunked one (formulas.architecture.kv_positions_held, stage by stage)."""
        k = np.asarray(self.kinds, dtype=float)
        s = float(context)
        return k[:, 0] * s + k[:, 1] * min(s, self.window or math.inf) + k[:, 2] * min(s, self.chunk or math.inf)

    def sequences(self, per_position: float, context: float) -> int:
        """Whole sequences at ``context`` every stage holds beside its weights, ``per_position`` the bytes one cached
        position takes on one GPU (a layer's K and V of one token over s_kv): the least of the stages' counts."""
        free = np.asarray(self.room) - np.asarray(self.held)
        if not (free > 0).all():
            return 0
        return int(np.floor(free / (self.held_positions(context) * per_position)).min())

    def reach(self, per_position: float) -> tuple[int | None, int]:
        """(the longest context one sequence can hold on every stage, the stage that sets it): on each stage every
        token costs its layers' positions up to the first window, then only its global layers' (and its chunked
        layers' up to the chunk); None where no stage has a global layer and every stage holds full windows."""
        free = np.asarray(self.room) - np.asarray(self.held)
        edges = [float(x) for x in (self.window, self.chunk) if x]
        best, which = None, 0
        for i, room in enumerate(free):
            own = arch.reach_of(lambda x, i=i: float(self.held_positions(x)[i]), per_position, float(room), edges)
            if own is not None and (best is None or own < best):  # None: this stage holds any context
                best, which = own, i
        return best, which


def kv_room(hw, model, precision, par, contexts=(), weight_bytes: float | None = None) -> dict | None:
    """What the memory beside the weights holds at a layout with pipeline stages, stage by stage, for a model with
    windowed or chunked layers (whose stages hold unlike mixes of global and windowed layers, so that no share of the
    whole model's cache is any one GPU's): the longest context of one sequence and the stage that sets it, the
    sequences at each of ``contexts`` (the same counts as the capacity at those contexts, formulas.parallel
    capacity_batch_replica at the stage that binds there), and one GPU's global bytes per token and windowed bytes per
    sequence on that stage.  None at one stage or for a model without windowed or chunked layers (the whole model's
    share is then every GPU's: prose.kv_room_facts).  ``weight_bytes``: the weights one GPU of the stage that holds
    the fewest tokens within every window holds as the report counts them (its accounting: the declared parameters
    of the seed's), each stage's scaled alike; None: the shapes' (:func:`ledger`)."""
    if par is None or par.pp <= 1 or not arch.bounded_layers(model):
        return None
    s_kv = 1.0 if model.attention.kind == "mla" else float(min(par.tp, model.kv_heads))
    per_position = arch.kv_elements_per_token_layer(model) * precision.kv_bytes / s_kv
    led = ledger(hw, model, precision, par.tp, par.pp, par.ep, par.redundant_experts)
    if weight_bytes is not None:
        scale = weight_bytes / led.held[int(led.binding())]
        led = dataclasses.replace(led, held=tuple(h * scale for h in led.held))
    reach, stage = led.reach(per_position)
    g, w, c = led.kinds[stage]
    a = model.attention
    return {"tokens_one_sequence": reach, "stage": stage, "stages": par.pp, "kinds": (g, w, c),
            "uneven": len(set(led.kinds)) > 1,  # the stages hold unlike mixes of layers: the stage is named
            "sequences": {int(x): led.sequences(per_position, float(x)) for x in contexts},
            "bytes_per_token_global": g * per_position,
            "bytes_per_sequence_windowed": (w * (a.sliding_window or 0) + c * (a.chunk_size or 0)) * per_position}


def stage_words(room: dict) -> str:
    """' of stage 4 of 4, the first to fill: 3 global and 12 windowed layers': the stage of :func:`kv_room` whose
    GPUs a per-GPU KV figure is of; '' where every stage holds the same mix of layers (each GPU's is then the same)."""
    if not room.get("uneven", True):
        return ""
    named = [f"{n} {what}" for n, what in zip(room["kinds"], ("global", "windowed", "chunked"), strict=True) if n]
    layers = (", ".join(named[:-1]) + " and " + named[-1] if len(named) > 1 else named[0]) + " layers"
    return f" of stage {room['stage'] + 1} of {room['stages']}, the first to fill: {layers}"


def usable_at(hw, model, tp: int, ep: int = 1, pp: int = 1) -> float:
    """Memory the model may use on one GPU of a layout with tensor-, expert- and pipeline-parallel degrees ``tp``,
    ``ep``, ``pp`` [B]: the capacity less the engine's reserve and one step's activations there
    (formulas.memory.activation_workspace / activation_workspace_moe: the FFN's share split tp ways, an expert's
    intermediate max(tp / ep, 1) ways; the logits where pp divides the layers, as ``hw.usable`` counts them at the
    spec's layout).  With stages the memory formulas take each stage's own room instead (:func:`ledger`)."""
    return hw.kept - activation_workspace(model, tp, hw.max_batched_tokens, hw.max_sequences, ep, pp)


def binding_workspace(hw, model, precision, par) -> tuple[float, int]:
    """(the activation workspace of the binding stage's GPU [B], that stage's index) at the layout ``par`` with
    pipeline stages: the capacity the engine keeps less that stage's room (:func:`ledger`: every stage one step's
    activations, the last the logits too), the stage that holds the fewest tokens (:meth:`StageLedger.binding`, no
    context), the one whose memory ``Env.held`` states.  ``hw.workspace`` at such a layout (the loader), so that the
    inputs table's workspace and C, page 1's usable memory and the capacity formulas state one number: DeepSeek-V3's
    61 layers at tp 8 x pp 2 on H100 bind on the last stage (30 MoE layers and the head), whose logits a rule of
    "the logits where pp divides the layers" left out."""
    led = ledger(hw, model, precision, par.tp, par.pp, par.ep, par.redundant_experts)
    s = int(np.ravel(led.binding(None))[0])
    return float(hw.kept - led.room[s]), s


@dataclass(frozen=True)
class StageParts:
    """Each stage's layers and parameters by tensor class (whole tensors, before tp and ep split them)."""

    kinds: tuple[tuple[int, int, int], ...]  # global, windowed and chunked layers of each stage
    attention: tuple[float, ...]
    default: tuple[float, ...]  # norms (the last stage's final norm too), dense FFNs, shared experts and routers
    experts: tuple[float, ...]  # routed experts' parameters
    embedding: tuple[float, ...]  # the input embedding: the first stage's, looked up, not streamed
    head: tuple[float, ...]  # the output head: the last stage's (a tied embedding's own copy where pp > 1)
    # of attention and default, what tensor parallelism holds whole on every GPU (ParameterCount.replicated), and the
    # K and V projections (ParameterCount.kv_projections: one whole KV head a GPU past tp = H_kv)
    replicated_attention: tuple[float, ...] = ()
    replicated_default: tuple[float, ...] = ()
    kv_projections: tuple[float, ...] = ()

    def copies_bytes(self, i: int, tp: int, s_kv: float, b_t: float, b_d: float) -> float:
        """The bytes tensor parallelism over ``tp`` GPUs adds to stage ``i`` by holding its replicated parameters whole
        on each GPU (ParameterCount.tp_copies, the attention class in b_t, the default in b_d)."""
        return arch.tp_copies_of(self.replicated_attention[i], self.replicated_default[i], self.kv_projections[i], tp,
                                 s_kv, b_t, b_d)


@lru_cache(maxsize=256)
def stage_parts(model, pp: int) -> StageParts:
    """The parameters of each of ``pp`` stages of ``model`` by tensor class, one layer's share of each class divided
    from the whole model's (parameter_count), the layers as :func:`stage_layers` splits them.  Remembered per (model,
    pp) (a frozen Model; the serving chapter's layout searches asked for the same stages some 13,000 times a report).
    """
    pc = arch.parameter_count(model)
    d = model.hidden_size
    per_norm = 2 * d if model.norm == "layernorm" else d
    n_layers, n_moe_all = model.layers, pc.moe_layers
    layer_norms = (pc.norms - per_norm) / n_layers  # the final norm is the last stage's
    attention = pc.attention / n_layers
    dense_ffn = pc.ffn_dense / (n_layers - n_moe_all) if n_layers > n_moe_all else 0.0
    moe_rest = (pc.experts_shared + pc.router) / n_moe_all if n_moe_all else 0.0
    experts = pc.experts_routed / n_moe_all if n_moe_all else 0.0
    sizes = stage_layers(model.layers, pp)
    head = pc.lm_head or (pc.embedding if pp > 1 else 0)  # a tied embedding: the last stage's own copy
    rep_norms = pc.norms - per_norm  # the layers' norms (the final norm is the last stage's)
    rep_other = pc.replicated - pc.replicated_attention - pc.norms - pc.router  # row-parallel FFN biases, a layer's
    counts, att, default, exp, emb, hd, first = [], [], [], [], [], [], 0
    rep_att, rep_def, kvp = [], [], []
    for i, n in enumerate(sizes):  # a stage's counts: those before its end less those before its start
        n_moe = routed_before(model, first + n) - routed_before(model, first)
        counts.append(tuple(b - a for a, b in zip(kinds_before(model, first), kinds_before(model, first + n),
                                                  strict=True)))
        att.append(attention * n)
        default.append(layer_norms * n + dense_ffn * (n - n_moe) + moe_rest * n_moe + (per_norm if i == pp - 1 else 0))
        exp.append(experts * n_moe)
        emb.append(float(pc.embedding) if i == 0 else 0.0)
        hd.append(float(head) if i == pp - 1 else 0.0)
        rep_att.append(pc.replicated_attention / n_layers * n)
        kvp.append(pc.kv_projections / n_layers * n)
        rep_def.append((rep_norms + rep_other) / n_layers * n + (pc.router / n_moe_all * n_moe if n_moe_all else 0.0)
                       + (per_norm if i == pp - 1 else 0))
        first += n
    return StageParts(tuple(counts), tuple(att), tuple(default), tuple(exp), tuple(emb), tuple(hd), tuple(rep_att),
                      tuple(rep_def), tuple(kvp))


def _class_bytes(precision, pc) -> tuple[float, float, float, float]:
    """Bytes per weight of the embeddings (and head), attention, default and routed-expert classes."""
    uniform = precision.uniform
    b_e, b_t, b_d = (precision.class_bytes(c) for c in ("embeddings", "attention", "default"))
    if uniform:
        b_e = b_t = b_d = precision.class_bytes("default")
    b_x = precision.class_bytes("experts") if not uniform else b_d
    if pc.experts_bias and pc.experts_routed and not uniform:  # the experts' biases in the default format (env)
        b_x = ((pc.experts_routed - pc.experts_bias) * b_x + pc.experts_bias * b_d) / pc.experts_routed
    return b_e, b_t, b_d, b_x


def ledger(hw, model, precision, tp: int, pp: int, ep: int = 1, redundant: int = 0) -> StageLedger:
    """The stages of ``model`` at tp x pp (ep, ``redundant`` expert replicas) on ``hw`` in ``precision``."""
    pc = arch.parameter_count(model)
    b_e, b_t, b_d, b_x = _class_bytes(precision, pc)
    held_x = (1.0 + (redundant / model.moe.experts if model.moe else 0.0)) / max(tp, ep)  # a GPU's share of experts
    parts = stage_parts(model, pp)
    s_kv = 1.0 if model.attention.kind == "mla" else float(min(tp, model.kv_heads))
    # each GPU holds its 1/tp of a stage's copy and of the copies tensor parallelism adds (N_R: tp_copies)
    held = tuple((parts.attention[i] * b_t + parts.default[i] * b_d + (parts.embedding[i] + parts.head[i]) * b_e
                  + parts.copies_bytes(i, tp, s_kv, b_t, b_d)) / tp
                 + parts.experts[i] * b_x * held_x for i in range(pp))
    # the same GPU with every layer: each class in its format (the formulas' b, the mean of the slice a GPU holds)
    rest = ((pc.embedding + pc.lm_head) * b_e + pc.attention * b_t
            + (pc.ffn_dense + pc.experts_shared + pc.router + pc.norms) * b_d)
    copies = sum(parts.copies_bytes(i, tp, s_kv, b_t, b_d) for i in range(pp))
    flat = (rest + copies) / tp + pc.experts_routed * b_x * held_x
    seqs = getattr(hw, "max_sequences", 0) or 0
    base = hw.kept - activation_workspace(model, tp, hw.max_batched_tokens, 0, ep, 1)
    logits = float(seqs) * model.vocab_size * 4.0
    room = tuple(base - (logits if i == pp - 1 else 0.0) for i in range(pp))
    a = model.attention
    return StageLedger(held, float(flat), parts.kinds, room, float(a.sliding_window or 0), float(a.chunk_size or 0))


@lru_cache(maxsize=256)
def training_split(model, pp: int) -> float:
    """n_PT [1]: the pipeline split of the training state, the parameters one GPU would hold with every layer over
    those of the stage that holds the most, the dense parameters (the first stage's embedding, the last stage's head:
    a tied embedding's own copy) and the routed experts each at their heaviest stage, the smaller of the two splits
    (the state of the heaviest stage, never less: which stage that is depends on the ZeRO stage where the experts
    shard over their own group).  The split of each is the same at every tp and ep.

    Llama 3.1 70B at pp 4: the last stage's 20 layers, head and final norm, 18,163,769,344 of 70,553,706,496
    (3.8843, where 80 / 20 layers gives 4); 1 for one stage.
    """
    if pp <= 1:
        return 1.0
    pc = arch.parameter_count(model)
    parts = stage_parts(model, pp)
    dense = [parts.attention[i] + parts.default[i] + parts.embedding[i] + parts.head[i] for i in range(pp)]
    split = (pc.total - pc.experts_routed) / max(dense)
    if pc.experts_routed:
        split = min(split, pc.experts_routed / max(parts.experts))
    return float(split)


def stage_values(hw, model, precision, par, context=None) -> dict[str, object]:
    """n_PW, n_PK and C at the layout ``par`` (a Parallelism; None: one GPU): exactly 1, 1 and the GPU's usable
    memory for one stage, else the binding stage's (:class:`StageLedger`), at ``context`` where given."""
    tp, pp, ep = (par.tp, par.pp, par.ep) if par is not None else (1, 1, 1)
    if pp <= 1:
        one = {"n_PW": np.float64(1.0), "n_PK": np.float64(1.0), "C": np.float64(usable_at(hw, model, tp, ep, 1))}
        if context is not None and np.ndim(context):
            return {k: np.full(np.shape(context), v) for k, v in one.items()}
        return one
    return ledger(hw, model, precision, tp, pp, ep, par.redundant_experts).values(context)
