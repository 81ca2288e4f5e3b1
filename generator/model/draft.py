"""A draft model of speculative decoding (``serving.speculative.draft_model``, ``plan --speculative K,P,MODEL``):
its ledgers on the target's GPUs, the drafts' time t_d and the memory it takes from the target's KV cache.

Every number comes from formulas/techniques.py and the seeds' decode ledgers at the draft's own shapes and
precision (``decode_flops``, ``decode_bytes``, ``weight_bytes_per_gpu``, ``kv_bytes_per_token_per_gpu`` of the draft
model on one card): ``draft_time_bound`` turns k_d passes into t_d, ``capacity_batch_draft`` the room the draft
leaves into the sequences a replica holds.  Scope: one replica (the draft is split over its n_TP n_PP GPUs as the
engines split it: formulas/techniques.draft_time_bound).  The live page ports this class (templates/live/techniques.js
draftOf, draftLedgers, draftTime, draftMemory) to run the draft's passes at a what-if; tests/test_live_serving.py holds
the two equal."""

from __future__ import annotations

import numpy as np


class Draft:
    """A draft model on the target's hardware at ``precision`` (the target's where the spec names none).  ``head``:
    an EAGLE or MTP head (serving.speculative.draft_layers, generator/load/loader.head_layers): its output head is
    the target's, read by each pass but held once (by the target); its experts, if any, split over the layout's
    ``ep`` GPUs as the target's, the ``tp`` GPUs of a replica holding tp / ep of them where ep > tp."""

    def __init__(self, model, precision, hardware, accounting: str, head: bool = False, ep: int = 1, tp: int = 1):
        from genreport.model.env import make_env

        self.model, self.precision, self.hardware, self.accounting = model, precision, hardware, accounting
        self.head, self.ep, self.tp = head, ep, tp
        self.env = make_env(hardware, model, precision, accounting)
        self._seen: dict = {}  # (what, context) -> the env's numbers there, counted once (they take no batch)

    def _once(self, what: str, context: float, make):
        key = (what, context)
        if key not in self._seen:
            self._seen[key] = make()
        return self._seen[key]

    def at_layout(self, ep: int, tp: int) -> Draft:
        """The same draft with its experts over ``ep`` GPUs of a ``tp`` replica: its env and the numbers counted at
        each context shared (they take no layout), as plan's layouts each take the head."""
        import copy

        out = copy.copy(self)
        out.ep, out.tp = ep, tp
        return out

    @property
    def name(self) -> str:
        return self.model.name

    def _at(self, batches, context: float) -> dict:
        def scalars():
            g = self.env.at(context=float(context))
            return {k: np.float64(np.ravel(np.asarray(x, dtype=float))[0]) for k, x in g.items()}

        v = dict(self._once("at", float(context), scalars))
        v["B"] = np.asarray(batches, dtype=float)
        if self.model.moe:  # an MoE head reads the experts its batch picks (the env's N and b at each batch)
            g = self.env.weights_at(np.atleast_1d(v["B"]))  # Env.at's N and b at the batch (no context moves them)
            for k in ("N", "b"):
                x = np.ravel(np.asarray(g[k], dtype=float))
                v[k] = x.reshape(np.shape(v["B"])) if x.size == np.size(v["B"]) > 1 else np.float64(x[0])
        return v

    def ledgers(self, q, batches, context: float) -> tuple[np.ndarray, np.ndarray]:
        """(F_d, Q_d): one draft pass's FLOPs and bytes over ``batches`` sequences at ``context`` (the seeds' decode
        step at the draft's shapes, the whole model)."""
        v = self._at(batches, context)
        # a pass reads the cache a step reads (a chunked layer: its current chunk), not the one a sequence holds
        from genreport.model.serving import _read_c

        v["c"] = self._once("read_c", float(context), lambda: _read_c(self.env, float(context)))
        one = np.ones_like(v["B"])
        flops, reads = (np.asarray(q["decode_flops"](v), dtype=float) * one,
                        np.asarray(q["decode_bytes"](v), dtype=float) * one)
        if self.model.moe and self.ep > self.tp:
            # a head's MoE layers over the layout's ep GPUs, which gather the tokens of g_x = ep / tp replicas: each
            # GPU reads its own experts, those the tokens of all the group's replicas touch, at least the ones this
            # replica's batch touches; the bound keeps a replica's share of the routed reads, 1 / g_x = tp / ep of
            # them (what draft_time_bound then divides by n_TP n_St).  Where ep <= tp the replica's GPUs hold every
            # expert and read all its batch touches (Qwen3 235B at tp 8 x ep 8 counted 1/8: 0.172 ms, not 0.337)
            held = float(self.env.values["N"]) - self.env.n_routed()  # the weights no router picks
            routed = np.maximum(np.asarray(v["N"], dtype=float) * one - held, 0.0)
            reads = reads - routed * np.asarray(v["b"], dtype=float) * (1.0 - self.tp / self.ep)
        return flops, reads

    def time(self, q, k: int, batches, context: float, n_tp: float, stages: float) -> np.ndarray:
        """t_d: the strict lower bound of the k draft passes at each batch on a replica of n_tp x ``stages`` GPUs
        (``draft_time_bound``) [s].  Counted once for each batches, context and layout (the bound's and the
        estimate's speculative rounds take the same drafts)."""
        bt = np.asarray(batches, dtype=float)

        def make():
            f, b = self.ledgers(q, batches, context)
            v = {"k_d": np.float64(k), "F_d": f, "Q_d": b, "P": self.env.values["P"], "W": self.env.values["W"],
                 "n_TP": np.float64(n_tp), "n_St": np.float64(stages)}
            return np.asarray(q["draft_time_bound"](v), dtype=float) * np.ones_like(f)

        key = (k, bt.shape, bt.tobytes(), float(n_tp), float(stages), self.ep, self.tp)
        return self._once(("time", key), float(context), make).copy()

    def memory(self, q, context: float, tp: int, n_pp: float) -> tuple[float, float]:
        """(M_d, c_d): the draft's weight bytes on one GPU of a tp x pp replica and its KV bytes per token there."""
        v = self._at(1.0, context)
        held = self.env.at(context=float(context))  # the weights held, every expert (not those a batch reads)
        v.update({k: np.float64(np.ravel(held[k])[0]) for k in ("N", "b")})
        s_kv = 1.0 if self.model.attention.kind == "mla" else float(min(tp, self.model.kv_heads))
        dense = {"N_x": np.float64(0.0), "rho_x": np.float64(0.0), "n_EP": np.float64(1.0)}  # a dense draft (loader)
        if self.model.moe:  # a head's MoE layers: their routed experts over the layout's ep GPUs (weight_bytes_per_gpu)
            dense = dict(dense, N_x=np.float64(self.env.n_routed()), n_EP=np.float64(self.ep))
        # the draft's layers split evenly over the stages (n_PP), the target's by the stage that binds (n_PW, n_PK)
        w = float(q["weight_bytes_per_gpu"](dict(v, **dense, n_TP=np.float64(tp), n_PW=np.float64(n_pp),
                                                   N_R=np.float64(0.0))))
        # and what tensor parallelism holds whole on each of the draft's GPUs (N_R: its norms, its K/V past tp =
        # H_kv), each tensor class in its format where the draft's differ (Slice.copies_bytes)
        from genreport.load.spec import Parallelism
        from genreport.model.env import layout_slice

        cut = layout_slice(self.model, Parallelism(tp), self.precision)
        w += (cut.copies_bytes or cut.copies * float(v["b"])) / (tp * n_pp)
        if self.head:  # the output head V d is the target's, held once: the head's own weights are its layers'
            # (the table in its own class's format, bf16 beside gpt-oss's mxfp4 experts: a review of stop 88 found it
            # taken at the head's mean bytes per weight, 0.77, its weights 41% over)
            m = self.model
            b_table = float(self.env.wb.embedding) if self.env.wb is not None else float(v["b"])
            w -= m.vocab_size * m.hidden_size * b_table / (tp * n_pp)
        c = float(q["kv_bytes_per_token_per_gpu"](dict(v, n_PK=np.float64(n_pp), s_kv=np.float64(s_kv))))
        return w, c

    def stages(self, q, cv: dict, par, target=None) -> list[dict]:
        """The stages whose room the draft's bytes may bind, each as the memory formulas' values there (n_PW, n_PK,
        C; M_d and c_d the draft's bytes on one of its GPUs): ``cv``'s own (the layout's binding stage, or its one
        stage) with a draft model's layers split evenly over the stages (n_PP).  An EAGLE/MTP head's layers are the
        last stage's, where the target's last layers hand it their hidden state (vLLM's EAGLE and MTP proposers run
        on the last pipeline rank): with stages and ``target`` (the target's model and precision) two, the stage
        that binds without the head (``cv``'s, holding none of it) and the last with the whole head on each of its
        GPUs (its n_PW, n_PK and C from stages.ledger)."""
        s = float(np.ravel(cv["S"])[0])
        own = {k: cv[k] for k in ("n_PW", "n_PK", "C") if k in cv}
        if not (self.head and par.pp > 1 and target is not None):
            m_d, c_d = self.memory(q, s, par.tp, float(np.ravel(cv["n_PP"])[0]))
            return [dict(own, M_d=np.float64(m_d), c_d=np.float64(c_d))]
        from genreport.formulas.architecture import bounded_layers
        from genreport.model import stages

        model, precision = target
        led = stages.ledger(self.hardware, model, precision, par.tp, par.pp, par.ep, par.redundant_experts)
        m_d, c_d = self.memory(q, s, par.tp, 1.0)
        return [dict(own, M_d=np.float64(0.0), c_d=np.float64(0.0)),
                dict(led.stage(par.pp - 1, s if bounded_layers(model) else None), M_d=np.float64(m_d),
                     c_d=np.float64(c_d))]

    def binding(self, q, cv: dict, par, target=None, options: list[dict] | None = None) -> dict:
        """Of :meth:`stages` (``options`` where the caller has them), the one that holds the fewest sequences beside
        the draft (before the floor: the room over each sequence's bytes), the first of equals: the values the
        replica's capacity and the serving chapter's ceilings take (capacity_batch_draft, goodput_rate_capacity,
        prefix_capacity_batch)."""
        options = options if options is not None else self.stages(q, cv, par, target)
        if len(options) == 1:
            return options[0]

        def held(v):
            w = float(q["weight_bytes_per_gpu"](v))
            c = float(q["kv_bytes_per_token_per_gpu"](v))
            return (float(v["C"]) - w - float(v["M_d"])) / ((c + float(v["c_d"])) * float(np.ravel(v["S"])[0]))

        with np.errstate(divide="ignore", invalid="ignore"):
            return min(options, key=lambda o: held(dict(cv, **o)))

    def capacity(self, q, cv: dict, par, target=None) -> tuple[float, float, float]:
        """(sequences one replica holds beside the draft, M_d, c_d): ``capacity_batch_draft`` at the layout's values
        ``cv`` (its context S and pipeline share n_PP) and its :meth:`binding` stage; the one place plan, the
        frontier figure and the chapter's capacity take the draft's room from.  ``par``: the layout (a
        Parallelism).  M_d and c_d: the draft's bytes on one of its GPUs (a head's on one of the last stage's).
        DeepSeek-V3 fp8 at tp 8 x pp 2 on H100 with one MTP layer: the last stage binds, and the whole head on it,
        not half of it on each stage, takes the room."""
        options = self.stages(q, cv, par, target)
        cap = float(q["capacity_batch_draft"](dict(cv, **self.binding(q, cv, par, target, options))))
        return cap, float(options[-1]["M_d"]), float(options[-1]["c_d"])


def declared_precision(spec):
    """The precision serving.speculative.draft_precision names for a catalog draft model or an EAGLE/MTP head, None
    where the spec names none (the loader then gives the draft the target's precision object itself, loader._draft)
    or drafts with a fraction: what ``plan`` runs the draft at in every row (None: each row's own precision)."""
    sv = spec.serving
    sp_ = sv.speculative if sv is not None else None
    if sp_ is None or sp_.draft is None:
        return None
    return sp_.draft_precision if sp_.draft_precision is not None and sp_.draft_precision is not spec.precision \
        else None


def of_spec(spec, par=None) -> Draft | None:
    """The spec's draft model (None where serving.speculative names none), a head's experts over the ep GPUs of
    ``par`` (None: the spec's layout)."""
    sv = spec.serving
    sp_ = sv.speculative if sv is not None else None
    if sp_ is None or sp_.draft is None:
        return None
    par = par if par is not None else spec.parallelism
    return Draft(sp_.draft, sp_.draft_precision or spec.precision, spec.hardware, spec.accounting,
                 head=getattr(sp_, "draft_layers", None) is not None, ep=par.ep if par is not None else 1,
                 tp=par.tp if par is not None else 1)


def speculative_inputs(spec, par=None) -> tuple | None:
    """serving.speculative as serving.speculate takes it, (k_d, p_a, the draft: a :class:`Draft` or draft_cost, n_v) at
    the layout ``par`` (None: the spec's); None without speculative decoding."""
    sv = spec.serving
    sp_ = sv.speculative if sv is not None else None
    if sp_ is None:
        return None
    draft = of_spec(spec, par)
    return (sp_.draft_tokens, sp_.acceptance, draft if draft is not None else sp_.draft_cost, sp_.verified)


def _replica_cv(spec, context: float) -> tuple[dict, object]:
    """(the memory formulas' values at ``context`` on the spec's layout, its Parallelism): ``held_at``'s, the stage
    that binds (without a draft) with stages."""
    from genreport.load.spec import Parallelism
    from genreport.model.env import make_env
    from genreport.model.layout import choose_links, held_at, layout_values

    hw, model, prec, acc = spec.hardware, spec.model, spec.precision, spec.accounting
    par = spec.parallelism or Parallelism()
    env = make_env(hw, model, prec, acc)
    links, _ = choose_links(hw, par)
    base = layout_values(env.values, model, par, links, prec, acc, env.pc, kernels=hw.kernels, hw=hw)
    g = env.at(context=float(context))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        cv = dict(held_at(base, hw, model, prec, par, np.float64(context), np.float64(np.ravel(g["c"])[0])),
                  d_h=np.float64(np.ravel(g["d_h"])[0]))
    return cv, par


def replica_capacity(spec, context: float) -> tuple[float, float, float, float]:
    """(capacity without the draft, with it, M_d, c_d): sequences of ``context`` one replica of the spec's layout
    holds (``capacity_batch_replica``, ``capacity_batch_draft``) and the draft's bytes on each of its GPUs."""
    from genreport.formulas.compiled import load

    q = load()
    cv, par = _replica_cv(spec, context)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        cap = float(q["capacity_batch_replica"](cv))
        draft = of_spec(spec)
        if draft is None:
            return cap, cap, 0.0, 0.0
        cap_d, m_d, c_d = draft.capacity(q, cv, par, (spec.model, spec.precision))
        return cap, cap_d, m_d, c_d


def replica_binding(spec, context: float) -> dict | None:
    """The memory formulas' values of the stage that binds beside the spec's draft at ``context`` (Draft.binding):
    n_PW, n_PK and C where an EAGLE/MTP head at a layout of stages moves it off the stage that binds without it, with
    M_d and c_d the draft's bytes on that stage's GPUs (none on a stage that does not hold the head); None without a
    draft; ``stage`` that stage's index where it is the last.  What the serving chapter's ceilings and derive take
    beside the draft."""
    from genreport.formulas.compiled import load

    draft = of_spec(spec)
    if draft is None:
        return None
    q = load()
    cv, par = _replica_cv(spec, context)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        options = draft.stages(q, cv, par, (spec.model, spec.precision))
        staged = len(options) > 1
        chosen = draft.binding(q, cv, par, options=options)
    out = {"M_d": float(chosen["M_d"]), "c_d": float(chosen["c_d"])}
    if staged and out["M_d"] > 0:  # the last stage with the head (where the layout's binding one is another)
        out.update({k: float(np.ravel(chosen[k])[0]) for k in ("n_PW", "n_PK", "C")}, stage=par.pp - 1)
    return out
