"""The frame of a report: whose numbers it states (one card, or one GPU of the spec's layout) and their scopes.

Part of the evaluation stage: the slice each GPU holds, the symbols the printed formulas use for it, and the
whole model on one card (stated once, labelled).  Presentation chooses the words from these fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from genreport.formulas import architecture as arch
from genreport.formulas.slices import (
    SLICE_COPIES,
    SLICE_DEFINITION,
    SLICE_HELD,
    SLICE_LATEX,
    SLICE_MEANING,
    SLICE_STAGED,
)
from genreport.model import stages
from genreport.model.env import pipeline_split

# The order in which the report lists the slice (the symbols the seeds' formulas use most first).
ORDER = ("N", "N_a", "N_e", "N_p", "V", "a", "L", "H_q", "H_kv", "c")
PLAIN = {"N": "N_g", "N_a": "N_a,g", "N_e": "N_e,g", "N_p": "N_p,g", "V": "V_g", "a": "a_g", "L": "L_g",
         "H_q": "H_q,g", "H_kv": "H_kv,g", "c": "c_g"}


@dataclass(frozen=True)
class Frame:
    """Scope of the report's numbers.

    ``many``: the numbers are one GPU's of a layout of several (else one card's).  ``names``/``plain``: glossary
    name -> the per-GPU symbol, LaTeX and plain text, for each seed symbol whose value the layout changes.
    ``slices``: rows (name, definition LaTeX, value, meaning).  ``one_card``: the whole model on one card.
    """

    many: bool = False
    gpus: int = 1
    replica_gpus: int = 1
    dp: int = 1
    pp: int = 1  # pipeline stages: a round passes min(n_PP, B) micro-batches through each GPU
    label: str = "1 GPU"
    names: dict[str, str] = field(default_factory=dict)
    plain: dict[str, str] = field(default_factory=dict)
    slices: tuple[dict, ...] = ()
    one_card: dict = field(default_factory=dict)
    kv_card: float = 0.0  # KV bytes per token of the whole model (c), beside each GPU's c_g
    collectives: tuple[str, ...] = ()  # what a decode round of the layout sends between GPUs, in words
    prompt_group: float = 1.0  # m_P of a steady state: replicas an expert group wider than one serves (layout.prompt_group)
    # pipeline stages of different sizes (layers that pp does not divide): each stage's layers, how many stages hold
    # the busiest's ceil(L/pp) layers and how many the others' floor(L/pp), and n_PP in the formulas, L / ceil(L/pp);
    # empty where the stages are even
    stage_layers: tuple[int, ...] = ()
    stages_busiest: int = 0
    stages_other: int = 0
    pp_split: float = 0.0
    # the memory of the stages (genreport.model.stages): the stage that holds the fewest tokens within every window
    # (1-based), its n_PW and n_PK, whether the head is a tied embedding's copy, whether the binding stage moves with
    # the context (windowed or chunked layers); empty for one stage
    stage_memory: dict = field(default_factory=dict)

    def sym(self, name: str) -> str:
        """Plain-text symbol of ``name`` at this frame (N -> N_g at a layout)."""
        return self.plain.get(name, name)


def copies_meaning(model, tp: int) -> str:
    """The slice table's words for N_R at ``tp``: the copies beyond the first, over the replica, of what each GPU
    holds whole, and which of the model's parts those are."""
    a = model.attention
    whole = ["norms"] + (["router"] if model.moe else []) + (["MLA's down-projections"] if a.kind == "mla" else [])
    dense_or_shared = model.moe is None or model.moe.first_dense_layers or model.moe.shared_experts
    if model.o_bias or (model.ffn_bias and dense_or_shared):
        whole.append("row-parallel biases")
    words = ", ".join(whole[:-1]) + " and " + whole[-1] if len(whole) > 1 else whole[0]
    text = (f"copies beyond the first, over the replica, of what each GPU keeps whole: the {words} (N_u, on all "
            f"{tp} GPUs)")
    if a.kind != "mla" and tp > model.kv_heads:
        text += f", and the K and V projections of a whole KV head (N_k, each head on {tp // model.kv_heads} GPUs)"
    return text + f"; each GPU holds N_R / {tp} more than an even share"


def frame(r) -> Frame:
    from genreport.model.layout import prompt_group_of

    par = r.spec.parallelism
    if par is None:
        return Frame()
    lead = r.envs[r.lead]
    changed = [k for k in ORDER if any(e.values[k] != e.card[k] for e in r.envs.values())
               and any(e.card[k] for e in r.envs.values())]
    moe = r.spec.model.moe is not None
    # with stages a GPU of the busiest stage before the last: the output head is the last stage's (SLICE_STAGED)
    staged = {k: v for k, v in SLICE_STAGED.items() if par.pp > 1}
    slices = tuple({"name": k, "definition": (staged[k][0] if k in staged else SLICE_DEFINITION[k])[1 if moe else 0],
                    "value": float(lead.values[k]), "card": float(lead.card[k]),
                    "meaning": (staged[k][1] if k in staged else SLICE_MEANING[k])
                    # windowed or chunked layers keep less of a long context (the held rows below, chapter 4)
                    + (" (every layer caching every token)" if k == "c" and arch.bounded_layers(r.spec.model) else "")}
                   for k in changed if lead.card[k])
    if lead.cut.copies:  # what tensor parallelism holds whole on each GPU, in N_g, N_a,g and N_p,g above
        slices += ({"name": "N_R", "definition": SLICE_COPIES, "value": float(lead.cut.copies), "card": 0.0,
                    "meaning": copies_meaning(r.spec.model, par.tp)},)
    stage_memory: dict = {}
    if par.pp > 1:  # the memory held: the stage that holds the fewest tokens (Env.held), beside the even split
        held = lead.held()
        bounded = arch.bounded_layers(r.spec.model) > 0
        slices += tuple({"name": k, "definition": SLICE_HELD[k][1][1 if moe else 0], "value": float(held[k]),
                         "card": float(lead.card[k]),
                         "meaning": SLICE_HELD[k][2] + (" (within every window)" if bounded else "")}
                        for k in ("N", "c"))
        led = stages.ledger(r.spec.hardware, r.spec.model, r.spec.precision, par.tp, par.pp, par.ep,
                            par.redundant_experts)
        values = led.values()
        m = r.spec.model
        sizes = stages.stage_layers(m.layers, par.pp)
        stage_memory = {"stage": int(led.binding()) + 1, "n_pp": pipeline_split(m.layers, par.pp),
                        "n_pw": float(values["n_PW"]), "n_pk": float(values["n_PK"]), "tied": bool(m.tied_embeddings),
                        "bounded": bounded, "dense_first": bool(m.moe and m.moe.first_dense_layers),
                        # the time formulas' two stages: the busiest before the last, and the last with the head
                        "busiest_layers": max(sizes), "last_layers": sizes[-1],
                        # each stage's global layers, and each stage's own the time formulas take (stages.stage_shares)
                        "globals": [int(k[0]) for k in stages.stage_parts(m, par.pp).kinds],
                        # whether the global layers' share differs from stage to stage (Llama 4 Maverick's 6 of 24 on
                        # each of two stages does not; Gemma 3 1B's one on each of 6, 7, 7 and 6 layers at pp 4 does)
                        "uneven_globals": bounded and len({Fraction(int(k[0]), n) for k, n in zip(
                            stages.stage_parts(m, par.pp).kinds, sizes, strict=True)}) > 1,
                        "share": _share(m, par.pp)}
    one = r.one_card.get(r.lead, {})
    one_card = {}
    if one:
        one_card = {**one, "fits": one["weight_bytes"] <= one["capacity"]}
    label = par.words() if par.gpus > 1 else "one GPU"
    return Frame(many=par.gpus > 1, gpus=par.gpus, replica_gpus=par.replica_gpus, dp=par.dp, pp=par.pp, label=label,
                 names={k: SLICE_LATEX[k] for k in changed}, plain={k: PLAIN[k] for k in changed},
                 slices=slices, one_card=one_card, kv_card=float(lead.card["c"]),
                 prompt_group=prompt_group_of(par) if moe else 1.0,
                 **_uneven_stages(r.parallel), stage_memory=stage_memory,
                 collectives=tuple(words for degree, words in ((par.tp, "tensor-parallel all-reduces"),
                                                             # none where ep <= tp: each GPU of a replica then
                                                             # holds its tp share of every expert (the ledgers'
                                                             # max(0, min(1, n_EP - n_TP)))
                                                             (par.ep if par.ep > par.tp else 1, "expert all-to-alls"),
                                                             (par.pp, "stage-to-stage sends")) if degree > 1))


def _share(model, pp: int) -> dict:
    """Where the global layers fall unevenly on the stages: the busiest and the last stage's share of them, which the
    round's two stage ledgers take (stages.stage_shares: kappa_B, kappa_L), in words, those of the stages before the
    last together (the walk's kappa_F: "before"), and the global layers a stage of mean layers would hold; else {}."""
    shares = stages.stage_shares(model, pp)
    if shares is None:
        return {}
    g = arch.global_layers(model)
    sizes = stages.stage_layers(model.layers, pp)
    whole = Fraction(g, model.layers)
    return {"busiest": stages.share_words(shares[0]), "last": stages.share_words(shares[1]),
            "model": f"{g} in {model.layers}",
            # the walk's stages before the last, together (kappa_F)
            "before": f"{g - shares[1][0]} in {model.layers - shares[1][1]}",
            # which stage's mix differs from the mean's (gpt-oss at pp 5: the last stage's 2 in 4 is the mean's)
            "busiest_differs": Fraction(*shares[0]) != whole, "last_differs": Fraction(*shares[1]) != whole,
            "busiest_mean": max(sizes) * g / model.layers, "last_mean": sizes[-1] * g / model.layers}


def _uneven_stages(p) -> dict:
    """Frame fields of pipeline stages of different sizes (none where the stages are even or there is no layout)."""
    if p is None or not p.uneven:
        return {}
    busiest = max(p.stage_layers)
    n = sum(1 for x in p.stage_layers if x == busiest)
    return {"stage_layers": tuple(p.stage_layers), "stages_busiest": n, "stages_other": len(p.stage_layers) - n,
            "pp_split": p.pp_split}
