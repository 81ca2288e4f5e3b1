"""Render stage: Results (and figures) in, one self-contained HTML string out.  No disk writes.

Templates come only from the project's templates folder, with autoescape and
StrictUndefined; formatting lives in registered filters (genreport.present.fmt).
"""

from __future__ import annotations

import base64
import math
import re
import shlex
from dataclasses import dataclass, fields
from functools import lru_cache

from genreport import __version__
from genreport.load.spec import (
    DEEPEP_LOW_LATENCY_SHARE,
    DEEPEP_NVLINK_SHARE,
    DEEPEP_RDMA_SHARE,
    DEEPEP_SOURCE,
    DEFAULT_MAX_BATCHED_TOKENS,
    MEMORY_RESERVE_SOURCE,
    MOE_KERNELS_SOURCE,
    NCCL_A2A_SOURCE,
    ONE_SHOT_SOURCE,
    WEIGHT_ONLY_SOURCE,
    WORKSPACE_SOURCE,
)
from genreport.model.env import peak_of
from genreport.model.evaluate import Results
from genreport.model.values import Block
from genreport.paths import command_path, templates_dir
from genreport.present import fmt, jinjaship, live, prose, summary
from genreport.present.figures.fig10_frontier import frontier_text
from genreport.present.mathbreak import fitted
from genreport.present.mathsvg import img
from genreport.texfill import fill

UNIT_TEXT = {"FLOP/B": "FLOP/B", "token/s": "tok/s", "token": "tokens", "1": "", "B": "", "s": "",
             "1/s": "requests/s"}  # every 1/s quantity is a rate of requests (a formula's result read "17 1/s")


@lru_cache(maxsize=1)
def _env():
    import jinja2

    env = jinja2.Environment(
        loader=jinjaship.loader(str(templates_dir())),  # compiled ahead where current (see jinjaship)
        autoescape=jinja2.select_autoescape(("html", "j2", "xml"), default=True),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
    )
    env.filters.update(fmt.FILTERS)
    env.filters.update(fmt.TEXT_FILTERS)
    env.globals.update(GPU="GPU", Gpu="GPU")  # what the report calls one device: the hardware's noun (variables)
    env.globals["q"] = jinja2.pass_context(lambda ctx, qid, f="value", none=None, **params:
                                           live.marked(ctx["r"], qid, f, none, **params))
    return env


def format_value(value, unit: str, integer: str = "") -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "none"
    if integer == "round":
        return f"{round(value):,} {UNIT_TEXT.get(unit, unit)}".strip() + f" ({fmt.exact(value)})"
    if integer == "floor":
        return f"{int(value):,} {UNIT_TEXT.get(unit, unit)}".strip()
    if unit == "s":
        return fmt.time(value)
    if unit == "B":
        return fmt.size(value)
    if unit == "FLOP":
        return fmt.flops(value)
    if unit == "FLOP/s":
        return fmt.rate(value)
    if unit == "B/s":
        return fmt.bandwidth(value)
    if unit == "token":
        return f"{fmt.integer(value)} tokens"
    text = fmt.num(value)
    if unit == "1" and abs(value) < 10 and value != int(value) and text.lstrip("-").isdigit():
        # a ratio that rounds to a whole number is not one: 1.000019 read "= 1" beside inputs that make it more
        text = f"{value:.6g}"
    return f"{text} {UNIT_TEXT.get(unit, unit)}".strip()


class Formulas:
    """Formula blocks (symbolic, substituted, result, source) drawn from the report model's blocks."""

    def __init__(self, r: Results):
        self.r = r
        self.used: list[dict] = []

    def block(self, b: Block) -> dict:
        r = self.r
        e = b.entry
        c = r.q[e.id]
        values = {name: fmt.tex_number(v) for name, v in b.inputs.items()}
        # one GPU of a layout: its slice's symbols (N_g, c_g, ...); a block's own (the weights a step streams)
        names = {**r.symbols_tex, **r.frame.names, **b.symbols}
        # a quantity that is itself a glossary symbol (c, KV bytes per token) is named as its terms are: one GPU's
        # c_g at a layout, as the slice table defines it (its value is the GPU's), not the whole model's c
        own = next((name for name, tex in r.symbols_tex.items() if tex == c.symbol), None)
        symbolic = f"{names.get(own, c.symbol)} = {fill(c.latex[b.variant], c.args, names)}"
        substituted = f"= {fill(c.latex[b.variant], c.args, r.symbols_tex, values)}"
        params = {k: v for k, v in e.params.items()}
        shown_value = (b.closed_form if (e.id == "critical_context" and b.note == "numeric") or b.note == "layout"
                       else e.value)
        block = {
            "id": e.id, "anchor": f"fx-{e.id}-{len(self.used)}", "title": fmt.device(c.title, r.spec.hardware.noun),
            "source": c.source,
            "params": params, "accounting": e.accounting,
            "symbolic": _display(symbolic), "symbolic_tex": symbolic,
            "substituted": _display(substituted, 13),
            "result": live.block_result(r, e, shown_value, format_value(shown_value, c.unit, c.integer)),
            "value": e.value,
            "reason": e.reason if e.value is None else "",
            "steps": _steps(c, b, symbolic, names) if b.steps else [],
        }
        if b.note == "numeric":
            _windowed_note(block, r, e)
        if b.note == "layout":
            _layout_note(block, r, e)
        if b.note == "held":
            _held_note(block, r, b)
        # a result that is not the stated entry's marked number (a point the live page does not recompute) is the
        # spec's as built: dimmed under a what-if, as the substituted line above it is
        block["res_static"] = 'data-q="' not in str(block["result"])
        if not any(u["id"] == e.id and u["params"] == params and u["accounting"] == e.accounting for u in self.used):
            self.used.append(block)
        return block


def _display(tex: str, size: float = 15.0) -> str:
    """A displayed formula's <img>: laid out for the column (:func:`mathbreak.fitted`), then drawn at ``size`` (as
    given: 13 and 13.0 are two keys of the shipped table, genreport.present.mathship)."""
    return img(fitted(tex, size), size=size)


def _steps(c, b: Block, symbolic: str, names: dict[str, str]) -> list[dict]:
    """A block's derivation, ending on the form it is evaluated in (the display form, when it differs)."""
    steps = [{"label": lab, "tex": f"{lhs} = {fill(rhs, c.args, names)}"}
             for lab, lhs, rhs in c.steps.get(b.variant, ())]
    named = "R" in c.args or "I_KV" in c.args  # a display form in the ridge and the attention intensity
    if named and steps and steps[-1]["tex"].split(" = ", 1)[1] != symbolic.split(" = ", 1)[1]:
        names = [text for sym, text in (("R", "the ridge R = P/W"),
                                        ("I_KV", "the attention intensity I_KV = 4 L H_q d_h / c")) if sym in c.args]
        steps.append({"label": "in terms of " + " and ".join(names), "tex": symbolic})
    for st in steps:
        st["math"] = _display(st["tex"])
    return steps


class Equations:
    """Equation numbers in order of appearance, and references for a formula already shown (called while the
    templates render, top to bottom)."""

    def __init__(self):
        self.numbers: dict[str, int] = {}
        # LaTeX -> (anchor of the equation that first showed it, the step of its derivation that did; None: its own
        # formula)
        self.shown: dict[str, tuple[str, int | None]] = {}
        self.figures: dict[str, int] = {}

    def number(self, anchor: str) -> int:
        return self.numbers.setdefault(anchor, len(self.numbers) + 1)

    def figure(self, name: str) -> int:
        """Figures are numbered in the order they appear, like equations."""
        return self.figures.setdefault(name, len(self.figures) + 1)

    def earlier(self, tex: str, anchor: str, step: int | None = None) -> dict | None:
        """``{"number", "anchor", "step"}`` of an earlier equation that showed ``tex`` (``step``: as step ``step`` of
        its derivation, not as its own formula; None where it was its own); None (and remember it) the first time.
        A derivation's step that an earlier equation showed only within its own derivation says which step: Mixtral's
        crossover batch read "decode intensity: as in (11)", the intensity ceiling, whose first step it is, where
        equation (10), the decode intensity at a batch, streams the experts the batch touches (QA)."""
        first, at = self.shown.setdefault(tex, (anchor, step))
        if first == anchor:
            return None
        return {"number": self.number(first), "anchor": first, "step": at}


def _layout_note(block: dict, r: Results, e) -> None:
    """A rate at a layout: the formula's arithmetic is one GPU's ledgers without the links; the number the report
    states is the replica's round (compute, HBM and interconnect overlapped, through the pipeline)."""
    par = r.spec.parallelism
    walk = f", through its {par.pp} pipeline stages" if par is not None and par.pp > 1 else ""
    stated = format_value(e.value, e.unit, r.q[e.id].integer)
    block["note"] = (f"That is one GPU's compute and HBM ledgers alone. The replica's round, with the interconnect "
                     f"ledger and the strict bound of a round{walk}, gives {stated}: the number the table states.")
    # the appendix's index states the replica's number too, the block's arithmetic beside it (it listed 65 tok/s for
    # Llama 3.1 405B at tp 8 x pp 2, where results.json and the table state 32)
    block["stated"] = f"{stated} (one {r.spec.hardware.noun}'s ledgers: {block['result']})"


def _held_note(block: dict, r: Results, b) -> None:
    """A capacity whose cache is what a sequence holds, where a step at the same context reads less (chunked
    layers): the block names it c_h and says so beside the c a step reads."""
    per = f" per {r.spec.hardware.noun}" if r.frame.many else ""
    read = f"c_g = {fmt.kib(b.closed_form)}" if r.frame.many else f"c = {fmt.kib(b.closed_form)}"
    block["note"] = (f"c_h = {fmt.kib(b.inputs['c'])}{per}: the KV cache a sequence at this context holds (a chunked "
                     f"layer holds up to its whole chunk, a windowed one its window), not the {read} a decode step "
                     f"there reads (its current chunk), which the tok/s below takes.")


def _windowed_note(block: dict, r: Results, e) -> None:
    """A sliding-window model whose closed-form S* lies past its window: the block gives the true root."""
    value = e.value
    w = int(r.spec.model.attention.sliding_window)
    closed = block["result"]
    block["value"] = value
    block["result"] = format_value(value, e.unit, r.q[e.id].integer) if value is not None else "none"
    block["note"] = (f"The closed form gives {closed}, past the {w:,}-token sliding window, where it no longer holds: "
                     f"it assumes every layer attends to all S positions. With the windowed layers attending to at "
                     f"most {w:,}, " + (f"the ceiling I∞(S) meets the ridge at S* = {round(value):,} tokens "
                                        "(solved numerically)." if value is not None else
                                        "the ceiling levels off above the ridge, so no context is too long for a "
                                        "large enough batch to be compute-bound."))


def _data_uri(svg: bytes) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode()


def _notation(r: Results) -> list[dict]:
    noun = r.spec.hardware.noun
    return [{"math": img(e.latex, size=14, inline=True), "name": e.name, "unit": e.unit,
             "meaning": fmt.device(e.meaning, noun)} for e in r.notation]


def _slice_value(name: str, x: float) -> str:
    if name in ("N", "N_a", "N_e", "N_p", "N_R"):
        return fmt.params(x)
    if name == "c":
        return fmt.kib(x)
    if name == "a":
        return fmt.size(x)
    return fmt.num(x)


# The figures in the order the chapters show them (figure numbers follow appearance, like equations).
REPORT_ORDER = ("fig1-decode-bounds", "fig6-roofline", "fig2-three-modes", "fig3-intensity-ruler",
                "fig4-decode-intensity", "fig7-serving", "fig5-memory-ledger", "fig8-gpus", "fig9-gpu-rates",
                "fig10-frontier", "fig11-rates")


def _numbered(caps: dict[str, str], r: Results) -> dict[str, str]:
    """Captions with '{figure:NAME}' replaced by the number NAME has in this report."""
    from genreport.present.figures import hidden

    gone = hidden(r)
    shown = [n for n in REPORT_ORDER if n not in gone]
    numbers = {n: str(i + 1) for i, n in enumerate(shown)}

    def fill(m: re.Match) -> str:
        return numbers.get(m.group(1), "?")

    return {name: re.sub(r"\{figure:([a-z0-9-]+)\}", fill, text) for name, text in caps.items()}


def _frame_rows(r: Results) -> list[dict]:
    """The slice of the model one GPU of the layout holds (chapter 1's table)."""
    return [{"math": img(s["definition"], size=13, inline=True), "meaning": fmt.device(s["meaning"], r.spec.hardware.noun),
             "value": _slice_value(s["name"], s["value"]), "card": _slice_value(s["name"], s["card"])}
            for s in r.frame.slices]


def _workspace_value(s) -> str:
    """The activation workspace with the step it is sized for: '0.97 GB (8,192 tokens, 256 sequences, tp 8)'."""
    hw, tp = s.hardware, s.parallelism.tp if s.parallelism else 1
    ep = s.parallelism.ep if s.parallelism else 1
    gathered = (f"; the MoE layer runs on {ep // tp} ranks' tokens, {ep // tp * hw.max_batched_tokens:,} (g_x = ep / tp)"
                if s.model is not None and s.model.moe is not None and ep > tp else "")
    tokens = f"{hw.max_batched_tokens:,} token{'' if hw.max_batched_tokens == 1 else 's'}"
    seqs = f"{hw.max_sequences:,} sequence{'' if hw.max_sequences == 1 else 's'}"
    return (f"{fmt.size(hw.workspace)} ({tokens}, {seqs}, tp {tp}"
            f"{gathered})")


def _workspace_source(s) -> str:
    given = [f"engine.{k}" for k in ("max_batched_tokens", "max_sequences") if k in s.engine_given]
    if (s.serving is not None and "max_batched_tokens" not in s.engine_given
            and s.hardware.max_batched_tokens != DEFAULT_MAX_BATCHED_TOKENS):  # the chunk is the same vLLM setting
        given.insert(0, "serving.chunk: the same max_num_batched_tokens")
    # the defaults' source stays, said to be the defaults' (a review read "0 sequences" beside "max_num_seqs = 256")
    spec = "the spec (" + ", ".join(given) + "), the defaults otherwise: " if given else ""
    if s.model is not None and s.model.moe is not None:
        ffn = ("an MoE layer's k_e (max(2 d_fx / s_x, d) + d_fx / s_x), vLLM's fused-MoE buffers, for the g_x T_w "
               "tokens that reach the GPU (data-parallel attention gathers the ranks' tokens: SGLang's "
               "ScatterMode.FULL; formulas.memory.activation_workspace_moe)")
    else:
        ffn = "3 d_ff / tp (formulas.memory.activation_workspace)"
    staged = s.parallelism is not None and s.parallelism.pp > 1
    return (spec + WORKSPACE_SOURCE + f"; T_w 2 B (2 d + FFN) + n_sq V 4 B, the FFN's {ffn}; the logits on the last "
            "pipeline stage" + ("; the stage that holds the fewest tokens, whose memory C is (stages.binding_workspace)"
                                if staged else ""))


def _capacity_value(hw) -> str:
    """The capacity as the hardware file writes it and in both units, the written text once: "96 GiB" is one of
    fmt.size's two units, so "103.1 GB (96 GiB)" alone; "16e9 B" is neither, so "16e9 B = 16 GB (14.9 GiB)"."""
    text, both = hw.texts.get("memory.capacity", ""), fmt.size(hw.capacity)
    if not text or "".join(text.split()) in ("".join(fmt.gb(hw.capacity).split()), "".join(fmt.gib(hw.capacity).split())):
        return both
    return f"{text} = {both}"


def _kernel_cost(k, given: set, key: str, value: float, how: str, source: str) -> dict:
    """An inputs-table row's value and source for one per-kernel cost: the spec's or the sourced default, or none
    where the hardware's vendor has no sourced value (Kernels.absent) and the spec gives none."""
    if k.absent and key not in given and not value:
        return {"value": "none: no sourced value for this hardware",
                "source": f"{k.absent}; the estimate charges no per-kernel cost (give one as engine.{key})"}
    return {"value": f"{fmt.time(value)} ({how})" if how else fmt.time(value), "source": source}


def _batch1_links(r: Results) -> tuple[int, int] | None:
    """Where the interconnect binds batch-1 decode at the report's layout (decode_binds' first row, batch 1): (the
    contexts it binds at, all of them); None where it binds at none or batch 1 is not in the grid.  Chapters 3 and 6
    state one GPU's two roofs; at such a layout they say the links bind (a review of DeepSeek-V3 on 16 B200)."""
    binds = r.verdicts.get("decode_binds")
    w = r.spec.workloads
    if r.parallel is None or binds is None or not w.decode_batch or w.decode_batch[0] != 1:
        return None
    row = [str(x) for x in list(binds[0])]
    n = row.count("interconnect")
    return (n, len(row)) if n else None


def _library_all_reduce(tp) -> str:
    """The inputs table's words on how the library runs the tensor-parallel all-reduce, from the tp group's link: the
    ring, in the switch where it reduces (NVLS), all pairs at once in a full mesh (RCCL on MI300X: a review read "in-switch
    where faster" for a mesh with no switch)."""
    if tp is not None and tp.all_pairs_call_latency is not None:
        return "the collectives library's (all pairs at once in the full mesh, or the ring where faster)"
    if tp is not None and tp.in_network:
        return "the collectives library's (ring, or in-switch where faster)"
    return "the collectives library's ring"


def _matmul_share(hw, compute: str, peak) -> dict:
    """The inputs-table row of e_m, a large matmul's measured share of the peak (achieved_matmul): the compute
    format's, or for classes computing apart (env.Peak) the share their weight FLOPs reach together."""
    what = "a large matmul's share of the peak, measured (serial estimate)"
    if peak.mixed:
        shares = ", ".join(f"{f} {hw.achieved_matmul[f]:g}" if f in hw.achieved_matmul else f"{f} 1 (none measured)"
                           for _, f, _, _ in peak.parts)
        return {"what": what, "symbol": "e_m", "value": f"{peak.matmul:.4g} ({shares})",
                "source": "e_m = Σ(F_c/P_c) / Σ(F_c/(P_c e_c)) over the classes; "
                          + hw.source_of("achieved_matmul").short()}
    e_m = hw.achieved_matmul.get(compute)
    if e_m is None:
        return {"what": what, "symbol": "e_m",
                "value": f"1: no measurement of {compute} matmuls on this GPU in its file, so the peak",
                "source": "the hardware file (achieved_matmul.dense) gives none for this format"}
    return {"what": what, "symbol": "e_m",
            "value": f"{e_m:g} ({compute}: {fmt.rate(e_m * hw.dense[compute])} of {fmt.rate(hw.dense[compute])})",
            "source": hw.source_of("achieved_matmul").short()}


def _inputs(r: Results) -> list[dict]:
    s, hw, m, p = r.spec, r.spec.hardware, r.spec.model, r.spec.precision
    peak = peak_of(p, hw, m, r.params)
    rows = [
        {"what": "peak compute (dense)", "symbol": "P", "value": f"{fmt.rate(hw.dense[p.compute])} ({p.compute})",
         "source": hw.source_of(f"peak.dense.{p.compute}").short()} if not peak.mixed else
        {"what": "peak compute (dense), the tensor classes' GEMMs each in their own format", "symbol": "P",
         "value": f"{fmt.rate(peak.value)}: " + ", ".join(
             f"{what} {f} ({fmt.rate(pk)}, {share:.1%} of the weight FLOPs)"
             for (what, f), (_, _, pk, share) in zip(peak.names(), peak.parts, strict=True)),
         "source": "P = ΣF_c / Σ(F_c / P_c) over the classes (F_c: the weights a token multiplies by in class c; "
                   + ("the output head left out, as a prompt's tokens run it once: that mix is the faster"
                      if peak.prompt else "the output head in, as a decode token runs it: that mix is the faster")
                   + ", so no workload runs faster); "
                   + "; ".join(dict.fromkeys(hw.source_of(f"peak.dense.{f}").short() for _, f, _, _ in peak.parts))},
        {"what": "memory bandwidth", "symbol": "W", "value": fmt.bandwidth(hw.bandwidth),
         "source": hw.source_of("memory.bandwidth").short()},
        {"what": "memory capacity", "symbol": "", "value": _capacity_value(hw),
         "source": hw.source_of("memory.capacity").short()},
        {"what": "engine memory reserve", "symbol": "", "value": fmt.reserve(hw.memory_reserve, hw.memory_reserve_bytes),
         "source": "the spec (engine.memory_reserve)" if s.engine_reserve_given else MEMORY_RESERVE_SOURCE},
        {"what": "engine activation workspace (per GPU)", "symbol": "", "value": _workspace_value(s),
         "source": _workspace_source(s)},
        {"what": "memory the model may use", "symbol": "C", "value": fmt.size(hw.usable),
         "source": "the capacity less the engine's reserve and activation workspace: every fit decision uses it"},
    ]
    if s.parallelism is not None:  # the serial estimate's fixed costs per kernel (chapter 6)
        k, given = hw.kernels, set(s.engine_given)

        def src(part, *keys):
            return "the spec (" + ", ".join(f"engine.{x}" for x in keys) + ")" if given & set(keys) else k.source(part)
        counted = not (k.absent and not k.decode and not k.launch)  # no per-kernel cost: the count charges nothing
        rows += [
            *([{"what": "kernels per layer (serial estimate)", "symbol": "k_L", "value": f"{k.per_layer:g}",
                "source": src("per_layer", "kernels_per_layer")}] if counted else []),
            *([{"what": "kernels per MoE layer, and per layer on average (serial estimate)", "symbol": "k_L",
                "value": f"{k.moe_layer(m.moe.shared_experts):g}; {r.parallel.kernels_per_layer:.4g}",
                "source": src("per_layer", "kernels_per_layer") if "kernels_per_layer" in given
                else MOE_KERNELS_SOURCE}]
              if m.moe is not None and counted else []),
            {"what": "fixed cost per kernel, decode (serial estimate)", "symbol": "τ_k",
             **_kernel_cost(k, given, "graph_kernel" if k.cuda_graphs else "kernel_launch", k.decode,
                            f"{hw.graph} replay" if k.cuda_graphs else f"a launch, no {hw.graph}s",
                            src("graph" if k.cuda_graphs else "launch", "cuda_graphs",
                                "graph_kernel" if k.cuda_graphs else "kernel_launch"))},
            {"what": "fixed cost per kernel launch, prefill (serial estimate)", "symbol": "τ_l",
             **_kernel_cost(k, given, "kernel_launch", k.launch, "", src("launch", "kernel_launch"))},
            {"what": "tensor-parallel all-reduce (serial estimate)", "symbol": "τ_o" if k.one_shot else "",
             "value": f"the engine's one-shot kernel where faster, {fmt.time(k.one_shot_latency)} a call" if k.one_shot
             else _library_all_reduce(r.parallel.links.get("tp")),
             "source": (src("", "all_reduce", "one_shot_latency") + "; " + ONE_SHOT_SOURCE) if k.one_shot
             else ("the spec (engine.all_reduce)" if "all_reduce" in given
                   else "the default: the collectives library, as the hardware file's collectives block costs it")},
            *([{"what": "experts' all-to-all (serial estimate)", "symbol": "o_EP" if k.all_to_all == "deepep" else "",
                "value": ("DeepEP: FP8 dispatch, BF16 combine, every peer at once; decode its low-latency kernels "
                          f"(e_Dl = {DEEPEP_LOW_LATENCY_SHARE:g} of the NIC), prefill its normal ones (e_Du = "
                          f"{DEEPEP_NVLINK_SHARE:g} of NVLink, e_Do = {DEEPEP_RDMA_SHARE:g} of the NIC)")
                if k.all_to_all == "deepep" else "the collectives library's (NCCL, RCCL): the peers one after another",
                "source": ("the spec (engine.all_to_all); " + DEEPEP_SOURCE) if k.all_to_all == "deepep"
                else ("the spec (engine.all_to_all); " if "all_to_all" in given else "") + NCCL_A2A_SOURCE}]
              # none where the expert group lies inside the tp group: it sends nothing (ep_dispatches)
              if m.moe is not None and s.parallelism.ep > s.parallelism.tp else []),
        ]
        rows.append(_matmul_share(hw, p.compute, peak))
        p_a = float(r.envs[r.lead].card["P_a"])
        rows.append({"what": "the attention's peak, scores and values (serial estimate)", "symbol": "P_a",
                     "value": fmt.rate(p_a) + (" (= P: one format)" if p_a == peak.value else ""),
                     "source": "the slower of the compute format's and the KV cache's (" + p.kv_cache + "; an fp4 "
                               "cache read in fp8): engines run attention kernels in those, not at the weights' "
                               "peak; the bound charges the attention at P"})
        e_g = hw.achieved_bandwidth.get(p.compute)  # a small-M GEMM's measured share of the bandwidth (achieved_bandwidth)
        rows.append({"what": "a small-M GEMM's share of the bandwidth on its weights, measured (serial prefill and decode)",
                     "symbol": "e_g",
                     "value": (f"{e_g:g} ({p.compute}: {fmt.bandwidth(e_g * hw.bandwidth)} of "
                               f"{fmt.bandwidth(hw.bandwidth)})") if e_g is not None
                     else f"1: no measurement of {p.compute} GEMMs with few rows on this GPU in its file, so the bandwidth",
                     "source": hw.source_of("achieved_bandwidth").short() if e_g is not None
                     else "the hardware file (achieved_bandwidth.small_gemm) gives none for this format"})
        if r.parallel.weight_efficiency < 1 or "weight_only_efficiency" in given:  # weight-only GEMMs (int8/int4)
            rows.append({"what": "weights' share of the bandwidth, weight-only GEMMs (serial estimate)", "symbol": "e_w",
                         "value": f"{r.parallel.weight_efficiency:.3g} for these weights ("
                                  + ", ".join(f"{f} {x:g}" for f, x in k.weight_only) + "; 1 for other formats)",
                         "source": src("", "weight_only_efficiency") if "weight_only_efficiency" in given
                         else WEIGHT_ONLY_SOURCE})
    for fmt_name, sparse in sorted(hw.sparse.items()):
        rows.append({"what": f"sparse {fmt_name} peak (not used)", "symbol": "", "value": fmt.rate(sparse),
                     "source": "2:4 structured sparsity; recorded, never used for the roofline"})
    declared = m.declared_parameters
    rows += [
        {"what": "parameters (declared, seed accounting)", "symbol": "N",
         "value": fmt.params(declared) if declared else "not declared", "source": m.source.short()},
        {"what": "parameters (counted from the shapes, exact accounting)", "symbol": "N",
         "value": f"{int(r.params.total):,}", "source": "formulas.architecture"},
        {"what": "layers, hidden size", "symbol": "L, d", "value": f"{m.layers}, {m.hidden_size:,}", "source": m.source.short()},
        {"what": "query heads, KV heads, head dim", "symbol": "H_q, H_kv, d_h",
         "value": f"{m.heads}, {m.kv_heads}, {m.head_dim}", "source": m.source.short()},
        {"what": "FFN", "symbol": "d_ff", "value": f"{m.ffn_size:,} ({m.ffn_kind})", "source": m.source.short()},
        {"what": "vocabulary, embeddings", "symbol": "V", "value": f"{m.vocab_size:,}, {'tied' if m.tied_embeddings else 'untied'}",
         "source": m.source.short()},
        *_weight_rows(p, r.params, m),
        {"what": "bytes per KV element", "symbol": "b_kv", "value": fmt.num(p.kv_bytes) + f" ({p.kv_cache})", "source": "precision"},
        {"what": "activation traffic per sequence", "symbol": "a",
         "value": fmt.size(s.workloads.activation_bytes) if s.workloads.activation_bytes else "0 (excluded: intensities are upper bounds)",
         "source": "assumption, seed 003"},
    ]
    if m.moe:
        rows.append({"what": "experts (routed, active, shared)", "symbol": "",
                     "value": f"{m.moe.experts}, {m.moe.active_experts}, {m.moe.shared_experts}", "source": m.source.short()})
        pc = r.params
        declared = fmt.params(m.declared_active) if m.declared_active else "not declared"
        rows.append({"what": "active parameters per token, embeddings and head included (declared; counted)",
                     "symbol": "N_a", "value": f"{declared}; {int(pc.active):,} "
                     f"({int(pc.active - pc.embedding - pc.lm_head):,} without the embedding and the head)",
                     "source": f"{m.source.short()}; formulas.architecture"})
    if r.parallel is not None:
        par = r.parallel.parallelism
        rows.append({"what": "layout (tensor, pipeline, expert, data parallel)", "symbol": "n_TP, n_PP, n_EP, n_DP",
                     "value": f"{par.tp}, {par.pp}, {par.ep}, {par.dp} ({par.gpus} {r.spec.hardware.noun}"
                     f"{'s' if par.gpus > 1 else ''})", "source": "spec"})
        if par.redundant_experts:
            rows.append({"what": "redundant expert replicas (held r/ep to a GPU; the estimate's busiest GPU hands a "
                                 "replicated expert's tokens to the least-loaded holder)", "symbol": "r; ρ_x = r/E",
                         "value": f"{par.redundant_experts}; {par.redundant_experts / m.moe.experts:.4g}"
                                  if m.moe else f"{par.redundant_experts}",
                         "source": "the spec (engine.redundant_experts)"})
        for g, c in sorted(r.parallel.links.items()):
            if c.tier == "none" or c.span <= 1:
                continue
            if g == "ep" and par.ep <= par.tp:  # an expert group inside the tp group sends nothing (chapter 6 says so)
                continue
            size = getattr(par, g)  # its members; the span, the consecutive GPUs they lie within (a dp group of 2
            # spread over 16: it read "16 GPUs" beside chapter 6's 2)
            held = f"{size} GPUs" + (f" spread over {c.span}" if c.span != size else "")
            rows.append({"what": f"{g} group's link ({c.tier}, {held}), per direction and per step",
                         "symbol": f"W_o{g.upper()}, α_o{g.upper()}" if c.inner is not None else f"W_{g.upper()}, α_{g.upper()}",
                         "value": f"{fmt.bandwidth(c.bandwidth_per_direction)}, "
                                  + (f"{fmt.time(c.latency)}" if c.latency_given else "0 (not in the spec)"),
                         "source": c.name + ("" if c.per_direction_from == "spec" else " (half the datasheet's sum)")})
            if c.inner is not None:  # two tiers: the group's GPUs in one scale-up domain, and that domain's link
                u = c.inner
                rows.append({"what": f"{g} group's scale-up tier ({c.local} GPUs in each domain), per direction and "
                                     "per step", "symbol": f"n_u{g.upper()}; W_{g.upper()}, α_{g.upper()}",
                             "value": f"{c.local}; {fmt.bandwidth(u.bandwidth_per_direction)}, "
                                      + (f"{fmt.time(u.latency)}" if u.latency_given else "0 (not in the spec)"),
                             "source": u.name + ("" if u.per_direction_from == "spec" else " (half the datasheet's sum)")})
    if s.serving is not None:
        sv = s.serving
        targets = ", ".join(x for x in (f"TTFT {fmt.time(sv.ttft)}" if sv.ttft else "",
                                         f"TPOT {fmt.time(sv.tpot)}" if sv.tpot else "",
                                         f"{sv.users:,} user{'s' if sv.users != 1 else ''}" if sv.users else "")
                            if x) or "none"
        rows.append({"what": "request (prompt, generated) and targets", "symbol": "T, T_o",
                     "value": f"{sv.prompt:,}, {sv.output:,}; {targets}", "source": "the spec (serving)"})
        if hw.price_per_hour:
            rows.append({"what": "price of one GPU-hour", "symbol": "", "value": f"${hw.price_per_hour:g}",
                         "source": hw.source_of("price").short()})
        if hw.power_watts:
            rows.append({"what": "board power of one GPU", "symbol": "", "value": f"{hw.power_watts:g} W",
                         "source": hw.source_of("power").short()})
    if s.efficiency:
        rows.append({"what": "achievable fractions of peak (bandwidth, compute)", "symbol": "η_W, η_P",
                     "value": f"{s.efficiency.bandwidth:g}, {s.efficiency.compute:g}", "source": s.efficiency.source.short()})
    return [row | {"what": fmt.device(row["what"], hw.noun), "value": fmt.device(row["value"], hw.noun)} for row in rows]


def _slips_elsewhere(r: Results) -> str:
    """Why a what-if of another GPU, model, precision or layout lists no slips of its spec's seed: they are the
    seed's statements about its own pair (its model's FFN share, its GPU's warps and ridge)."""
    from genreport.load.loader import changed_parts
    from genreport.load.overrides import as_arguments

    spec = r.spec
    if spec.seed is None or not spec.configuration_changed:
        return ""
    sets = as_arguments(spec.configuration_changed)
    return (f"The spec is seed {spec.seed}'s pair (spec {spec.name}, \u201c{spec.title}\u201d); this what-if changes "
            f"{changed_parts(spec.configuration_changed)} ({sets}), so the seed's slips, its statements about its own "
            "pair corrected, are not listed here: the spec's own report lists them.")


def _slips(r: Results) -> list[dict]:
    """The seeds' own slips, with the correct values computed for this pair (none in a what-if of another
    configuration: :func:`_slips_elsewhere`)."""
    seed = r.spec.seed
    if seed is None or r.spec.configuration_changed:
        return []
    pc = r.params
    out = []
    if seed == "003":
        total = r.scalars["seed"]["parameters"]
        ffn = pc.ffn_dense + pc.experts_routed + pc.experts_shared
        streamed = pc.total - pc.embedding if not r.spec.model.tied_embeddings else pc.total
        out += [
            {"claim": "“4 H_q d_h S multiply-adds” for Q Kᵀ plus A V per layer",
             "correct": "4 H_q d_h S are FLOPs (2 H_q d_h S multiply-adds); read as multiply-adds the 1k ceiling would "
                        "be about 128, not 124. This report counts 4 L H_q d_h S FLOPs."},
            {"claim": "“about 80% of the parameters sit in the FFN”",
             "correct": f"{fmt.pct(ffn / pc.blocks)} of the transformer-block parameters; {fmt.pct(ffn / total)} of all "
                        f"N = {fmt.params(total)}."},
            {"claim": "“so also about 80% of the bytes moved” per decode step",
             "correct": f"{fmt.pct(ffn / streamed)}: the output head ({fmt.params(pc.lm_head or pc.embedding)} parameters) "
                        "is streamed every step too; 80% holds only if it is ignored."},
        ]
    if seed == "000":
        arch = r.spec.hardware.architecture
        b = r.spec.precision.weight_bytes
        ridge = r.scalars["seed"]["ridge_point"]
        out += [
            {"claim": "“an SM holds at most 32 warps at once”",
             "correct": f"32 warps is the largest block (1024 threads); an SM holds {int(arch.get('max_warps_per_sm', 64))} "
                        "resident warps from several blocks."},
            {"claim": "“each clock cycle executes only one of them”",
             "correct": f"true per warp scheduler; an SM has {int(arch.get('schedulers_per_sm', 4))} schedulers, each "
                        "issuing one warp instruction per cycle."},
            {"claim": "“elementwise ×2 does about 1 operation per byte”",
             "correct": f"1 operation per element, {fmt.num(1 / (2 * b))} FLOP/B per byte (read and write, "
                        f"{r.spec.precision.weights})."},
            {"claim": "“each weight used tens or a hundred times far exceeds the ridge of 300”",
             "correct": f"in {r.spec.precision.weights} the weight-reuse intensity equals the reuse count, so it takes "
                        f"at least {fmt.num(ridge * b / 2)} reuses ({fmt.integer(round(r.gemm[0]['crossover'] or 0))} for "
                        f"{prose.article(r.gemm[0]['n'])} {r.gemm[0]['n']:,}² GEMM with activations) to pass the ridge."},
        ]
    return out


def render_report(r: Results, baseline: Results | None = None, timer=None, overrides: tuple[str, ...] = (),
                  want_phone: bool = True) -> tuple[str, dict[str, bytes]]:
    """The report's HTML (self-contained) and its figures (SVG bytes by name); a build that also prints the report
    drives the stages itself (:class:`Rendering`)."""
    rendering = Rendering(r, baseline, timer, overrides, for_print=False, want_phone=want_phone)
    try:
        return rendering.finish()
    except BaseException:
        rendering.cancel()
        raise


class Rendering:
    """A report being rendered, in the stages a build that prints it interleaves with the printer.

    The figures are drawn in parallel (:func:`genreport.present.figures.start`) while the HTML is written with a
    placeholder per figure. Then, in order:

    - :attr:`print_marked`, :attr:`print_marks`, :meth:`ready`: the PDF's HTML with ``print_marks[name]`` in place
      of each figure's data URI, and the figures where they are already at hand (else None), for the printer to
      start laying out while the figures are drawn;
    - :meth:`wide`: the PDF's HTML with the figures in place, and the figures, as soon as the wide figures are in
      (print shows no phone layout, whose ``<source>`` elements its HTML leaves out) while the phone-layout
      figures are still drawn;
    - :meth:`finish`: the report's HTML and its figures. ``want_phone=False`` (no HTML is written): the
      phone-layout figures are not drawn, and the HTML returned keeps their placeholders.

    On any failure in between, :meth:`cancel` stops the drawing children (left alone they would block forever on
    their full pipes).
    """

    def __init__(self, r: Results, baseline: Results | None = None, timer=None, overrides: tuple[str, ...] = (),
                 for_print: bool = False, want_phone: bool = True):
        import secrets

        from genreport.present.figures import drawn, start
        from markupsafe import Markup

        self.timer, self.want_phone, self.r = timer, want_phone, r
        self.pending = start(r, baseline, apart=not for_print, phone=want_phone)  # no PDF: both layouts at once
        token = secrets.token_hex(8)
        shown = drawn(r)
        self.marks = {name: f"genreport-figure-{token}-{name}-" for name in shown}  # none a prefix of another
        self.phone = {name: f"genreport-phone-{token}-{name}-" for name in shown}  # the narrow layout's
        # The page's data and scripts come after the live marker, where print cuts the page: they are put in by
        # finish(), off the way to the PDF (0.05-0.1 s of a one-off build: the scripts compacted, the data written).
        self.live = Markup(f"{live.LIVE_MARK}genreport-live-{token}")
        try:
            ctx = context(r, baseline, self.marks, tuple(overrides), narrow=self.phone, live_page=self.live)
            if timer:
                timer.lap("math")
            self.html = _env().get_template("report.html.j2").render(**ctx.variables())
            if timer:
                timer.lap("html")
        except BaseException:
            self.pending.cancel()
            raise
        self.figures: dict[str, bytes] | None = None
        self._marked: str | None = None  # print_marked, once made
        self._print: str | None = None  # the PDF's HTML with the figures in place, once made

    @property
    def print_marked(self) -> str:
        """The PDF's HTML with a placeholder in place of each figure's data URI."""
        if self.figures is not None:  # the figures are in place already
            return _for_print(self.html)
        if self._marked is None:
            self._marked = _for_print(self.html)
        return self._marked

    @property
    def print_marks(self) -> dict[str, str]:
        """name -> the placeholder :attr:`print_marked` has for that figure."""
        return {name: mark for name, mark in self.marks.items() if mark in self.html}

    def ready(self) -> dict[str, bytes] | None:
        """The figures if they are at hand without waiting (kept from an earlier build), else None."""
        return self.pending.ready()

    def wide(self) -> tuple[str, dict[str, bytes]]:
        """The PDF's HTML with the figures in place, and the figures (waits for the wide ones)."""
        if self.figures is None:
            self.figures = self.pending.result()
            uris = {name: _data_uri(self.figures[name]) for name in self.marks}
            for name, mark in self.marks.items():
                self.html = self.html.replace(mark, uris[name])
            self._print = _with_figures(self._marked, self.marks, uris)
            if self.timer:
                self.timer.lap("figures")
        if self._print is None:
            self._print = _for_print(self.html)
        return self._print, self.figures

    def finish_now(self) -> bool:
        """Whether :meth:`finish` would not wait for the phone layout's figures (kept from an earlier build, drawn
        already, or not wanted)."""
        return not self.want_phone or self.pending.at_hand("narrow")

    def finish(self) -> tuple[str, dict[str, bytes]]:
        """The report's HTML (self-contained) and its figures."""
        if self.figures is None:
            self.wide()
        html = self.html
        if self.want_phone:
            narrow = self.pending.narrow()
            for name, mark in self.phone.items():
                html = html.replace(mark, _data_uri(narrow[name]))
        html = html.replace(self.live, live.page_scripts(self.r), 1)
        self.pending.keep()  # for the next build with the same inputs
        return html, self.figures  # without want_phone (only the PDF), the phone layout's marks are left in

    def cancel(self) -> None:
        self.pending.cancel()


def _for_print(html: str) -> str:
    """The HTML the PDF is made from:

    - without the phone layout's ``<source>`` elements and the ``data-*`` attributes the live page reads (print
      shows neither, runs no script, and no print style selects them: WeasyPrint lays out the same pages, byte
      for byte, 0.05 s sooner; a quoted value can only be an attribute's, as text has its quotes escaped);
    - with a number and its unit kept on one line (:func:`keep_units`);
    - with its tables' column widths given (:mod:`genreport.printing.colwidths`: WeasyPrint need not measure every
      cell; measured with the units kept, as WeasyPrint lays them out).
    """
    from genreport.printing.colwidths import fix_tables

    return fix_tables(keep_units(_DATA_ATTR.sub("", _PHONE_SOURCE.sub("", html))))


def keep_units(html: str) -> str:
    r"""``html`` with a no-break space between a number and the unit after it, in text outside tags and outside
    ``<script>``, ``<style>``, ``<svg>``, ``<code>`` and ``<pre>``, so a printed line never ends with "11.5" and
    the next begins with "ms" (nor with "≤" and the next with its number, nor with "tok/" and the next with "s": a
    unit with a slash has a word joiner after its slash, which the PDF's text leaves out).  Only the PDF's HTML: the
    live page rewrites its sentences with plain spaces.

    >>> keep_units('<p title="2 ms">at least 11.5 ms, 4.8 TB/s; 8 GPUs</p>')
    '<p title="2 ms">at least 11.5\xa0ms, 4.8\xa0TB/\u2060s; 8 GPUs</p>'
    """
    out = []
    for part in _MARKUP.split(html):
        if not part or part[0] == "<":
            out.append(part)
        else:
            part = _BOUND_NUMBER.sub("\u00a0", _NUMBER_UNIT.sub("\u00a0", part))
            out.append(_SLASH_UNIT.sub(lambda m: m.group(1).replace("/", "/" + WORD_JOINER), part))
    return "".join(out)


# a tag, or an element whose text is not prose, whole (the split keeps it as one part)
_MARKUP = re.compile(r"(<(?:script|style|svg|code|pre)\b.*?</(?:script|style|svg|code|pre)>|<[^>]*>)", re.S)
# a unit with a slash, which a line may otherwise break after ("65 tok/ | s per chip"): kept whole
# (a word joiner after each slash, which Pango does not break at and the PDF's text leaves out: a span.nowrap, an inline
# box, made WeasyPrint break its enclosing line at the first opportunity, "Decode" alone on page 1's first line)
_SLASH_UNIT = re.compile(r"(?<![\w/.])((?:[kMGTPE]?FLOP|[kMGTPE]i?B|B|tok(?:en)?s?|prompts?|requests?|sequences?|\$)"
                         r"/(?:s|B|param|token|M|h)(?:/seq)?)(?![\w/])")
WORD_JOINER = "\u2060"
# the space after a bound's sign and before its number ("yes, ≤ 1,545" in page 1's fits column broke after the sign)
_BOUND_NUMBER = re.compile(r"(?<=[≤≥≈~]) (?=\d)")
# the space between a digit and a unit the report prints (time, bytes, rates, FLOPs, power); not before a word
# that only begins like one ("8 GPUs", "3 seeds")
_NUMBER_UNIT = re.compile(
    r"(?<=\d) (?=(?:[kMGTPE]?FLOP(?:/s|/B|s)?|[kMGTPE]i?B/s|[kMGTPE]i?B|B/param|B/token|B"
    r"|tok(?:en)?s?/s|prompts/s|requests/s|sequences/s|ms|µs|ns|s|min|h|[kM]?W|J|%)(?![\w/]))")


def _with_figures(marked: str | None, marks: dict[str, str], uris: dict[str, str]) -> str | None:
    """``_for_print`` of the report's HTML with its figures in place, made from ``marked`` (``_for_print`` of it with
    ``marks[name]`` in place of each figure's data URI ``uris[name]``) by putting the figures in: the same string, as
    neither the attributes and ``<source>`` elements it leaves out nor a table it gives widths (or the ``<div>``
    before it) holds a figure (one that did would be measured with it: then None, and the caller makes it anew).
    0.02 s of a warm build."""
    if marked is None:
        return None
    for table in _TABLE_SPAN.finditer(marked):
        near = marked[max(0, table.start() - 200):table.end()]  # with the box colwidths finds before it
        if any(mark in near for mark in marks.values()):
            return None
    for name, mark in marks.items():
        marked = marked.replace(mark, uris[name])
    return marked


_TABLE_SPAN = re.compile(r"<table\b.*?(?:</table>|\Z)", re.S)  # from a table's start to its end (or the text's)
_PHONE_SOURCE = re.compile(r'<source media="[^"]*" srcset="genreport-phone-[^"]*">')
_DATA_ATTR = re.compile(r' data-[a-z][a-z-]*="[^"<>]*"')


@dataclass(frozen=True)
class ReportContext:
    """Everything the templates read, and nothing else (a test checks that every field is used)."""

    r: Results
    spec: object
    hw: object
    model: object
    precision: object
    w: object
    sc: dict
    lead: str
    compute_label: str  # the compute format, or the classes' formats where they compute apart (env.Peak.label)
    batch1_links: tuple | None  # (contexts, of them) where the links bind batch-1 decode at the layout; None: nowhere
    peak_mixed: bool  # the classes compute in different formats: P is their rate on a token's weight FLOPs
    version: str
    facts: dict
    hierarchy: tuple
    states: tuple
    figs: dict
    ctxs: list
    last_ctx: int | None
    decode_table: list
    prefill: dict | None
    gemm_rows: list
    training: tuple
    compare: tuple
    verdicts: dict
    summary: list
    decision: tuple
    context_lines: list
    prefill_lines: list
    training_lines: list
    frontier_text: str
    capacity_fact: str
    bounded_fact: str
    prompt_group_note: str
    critical_fact: str
    attention_text: str
    moe_text: str
    whatifs: list
    compare_text: str
    notation: list
    inputs: list
    slips: list
    slips_elsewhere: str
    measured: list
    measured_not_compared: str
    derated: dict | None
    sensitivities: dict | None
    baseline: Results | None
    baseline_rows: list
    baseline_overrides: tuple
    rebuild_command: str  # genreport, the spec's path and the what-if's --set arguments, each quoted as a shell reads it
    whatif_story: list
    fx: dict
    all_formulas: list
    eq: Equations
    many: object
    frame: object
    frame_rows: list
    ch: dict
    par: object
    par_links: list
    par_ep_inside: bool
    par_table: list
    par_prefill: list
    par_costs: list
    par_kernels: object
    par_overhead: str
    par_left_out: dict  # {"decode": ..., "prefill": ...}: no sourced per-kernel cost, so the estimate leaves it out
    live_page: str
    headline: str  # the h1 and every page's footer: the spec's title, or in a what-if what the report analyses
    configuration: str  # the model on the layout, at its precision ("Llama 3.1 70B on 8 x AMD Instinct MI300X, fp8")
    serving: dict | None = None  # the spec's serving block answered at its layout (chapter 9)
    serving_summary: object = None  # page 1's sentence on it (summary.serving_html, the words ``table`` prints too)

    def variables(self) -> dict:
        """The fields, and what the report calls one device: ``GPU`` ("GPU", "chip"; the plural adds "s") and
        ``Gpu`` (the same at the start of a sentence or a heading), from the hardware spec's ``noun``."""
        return {f.name: getattr(self, f.name) for f in fields(self)} | {"GPU": self.hw.noun, "Gpu": self.hw.Noun}


def context(r: Results, baseline: Results | None, figures: dict[str, str],
            overrides: tuple[str, ...] = (), narrow: dict[str, str] | None = None,
            live_page: str | None = None) -> ReportContext:
    """The template's variables; ``figures`` maps each figure's name to its ``src`` (a data URI or a placeholder),
    ``narrow`` to the ``src`` of its phone layout (shown below 40rem); ``live_page``, a placeholder for the page's
    data and scripts (:func:`genreport.present.live.page_scripts`, which print leaves out: :class:`Rendering` puts
    them in after the PDF's HTML is handed on), else they are made here."""
    from genreport.load.overrides import as_arguments
    from genreport.present.figures import captions

    f = Formulas(r)
    spec, sc, lead = r.spec, r.scalars[r.lead], r.lead
    w = spec.workloads
    ctxs = list(w.decode_context)
    caps = _numbered(captions(r), r)
    figs = {name: {"src": src, "narrow": (narrow or {}).get(name), "caption": caps.get(name, ""), "name": name}
            for name, src in figures.items()}
    # a figure the report does not show keeps its caption for the words that stand in its place (chapter 6's GPUs'
    # rates where no tensor-parallel layout fits); the figure macro draws only those with a picture
    figs.update({name: {"src": None, "narrow": None, "caption": text, "name": name}
                 for name, text in caps.items() if name not in figs})
    gemm_rows = []
    for i, g in enumerate(r.gemm):  # the first matrix's closed forms are shown; the table covers the rest
        shown = {"sat": f.block(r.blocks[f"gemm_sat_{i}"]), "cross": f.block(r.blocks[f"gemm_cross_{i}"])} \
            if f"gemm_sat_{i}" in r.blocks else {}
        gemm_rows.append({**g, **shown})
    decode_table = []
    if lead in r.decode:
        grid = r.decode[lead]
        binds = r.verdicts["decode_binds"]
        for i, b in enumerate(w.decode_batch):
            decode_table.append({"batch": b, "cells": [
                {"tps": grid["decode_tokens_per_s"][i, j] if binds[i, j] != "capacity" else None,
                 "intensity": grid["decode_intensity"][i, j], "binds": binds[i, j]} for j in range(len(ctxs))]})
    prose_parts = dict(
        summary=summary.sentences(r), decision=r.decision, context_lines=prose.context_lines(r),
        prefill_lines=prose.prefill_lines(r), training_lines=prose.training_lines(r),
        capacity_fact=prose.capacity_fact(r), bounded_fact=prose.bounded_fact(r),
        prompt_group_note=prose.prompt_group_note(r), critical_fact=prose.critical_fact(r),
        attention_text=prose.attention_text(r), moe_text=prose.moe_text(r), whatifs=prose.whatif_rows(r),
        compare_text=prose.compare_text(r), frontier_text=frontier_text(r))
    prose_parts = fmt.device(prose_parts, spec.hardware.noun)  # the device's noun where it is not a GPU
    # Formula blocks of the body, computed before the appendix so that it can list them all.
    fx = _formula_blocks(r, f)
    _peak = peak_of(spec.precision, spec.hardware, spec.model, r.params)
    chapters = summary.chapters(r)
    return ReportContext(
        r=r, spec=spec, hw=spec.hardware, model=spec.model, precision=spec.precision, w=w, sc=sc, lead=lead,
        compute_label=_peak.label(spec.precision.compute), peak_mixed=_peak.mixed, batch1_links=_batch1_links(r),
        version=__version__, facts=r.facts, hierarchy=r.hierarchy, states=r.states, figs=figs, ctxs=ctxs,
        last_ctx=ctxs[-1] if ctxs else None, decode_table=decode_table,
        prefill=r.prefill.get(lead), gemm_rows=gemm_rows, training=r.training, compare=r.compare,
        verdicts=r.verdicts, **prose_parts, notation=_notation(r), inputs=_inputs(r), slips=_slips(r), slips_elsewhere=_slips_elsewhere(r),
        measured=list(r.measured), measured_not_compared=r.measured_not_compared, derated=r.derated, sensitivities=_sensitivities(r),
        baseline=baseline, baseline_rows=_baseline_rows(r, baseline) if baseline else [],
        baseline_overrides=overrides,
        # the path quoted too: 'a;touch PWNED;b.yaml' ran its second command when the line was pasted (hostile
        # review, stop 75), a path with a space split in two
        rebuild_command=" ".join(x for x in ("genreport", shlex.quote(command_path(r.spec.file)), as_arguments(overrides))
                                 if x),
        whatif_story=prose.whatif_story(r, baseline, overrides) if baseline else [],
        fx=fx, all_formulas=list(f.used), eq=Equations(), many=r.many, **_parallel_context(r),
        frame=r.frame, frame_rows=_frame_rows(r), ch=chapters,
        live_page=live.page_scripts(r) if live_page is None else live_page, serving=r.serving,
        serving_summary=summary.serving_html(r, chapters["s9"]) if "s9" in chapters else None,
        # a what-if's title is not the spec's: "8 H100 SXM" stood above an analysis of MI300X on every page's footer
        headline=r.what_if_title if baseline else spec.title, configuration=r.configuration,
    )


def _parallel_context(r: Results) -> dict:
    """The many-GPU chapter's rows, from the report model's parallel results (empty without a layout)."""
    p = r.parallel
    if p is None:
        return {"par": None, "par_links": [], "par_ep_inside": False, "par_table": [], "par_prefill": [], "par_costs": [], "par_kernels": None,
                "par_overhead": "", "par_left_out": {}}
    lead, w, k = r.lead, r.spec.workloads, r.spec.hardware.kernels
    # an expert group inside the tp group (ep <= tp) sends nothing (formulas.parallel.ep_dispatches): no link of its
    # own to name ("The ep group (2 GPUs) crosses scale-up" for Mixtral 8x7B at tp 4 x ep 2); the text says so
    inside = p.parallelism.ep > 1 and p.parallelism.ep <= p.parallelism.tp
    links = _link_groups([(g, c) for g, c in sorted(p.links.items()) if c.span > 1 and c.tier != "none"
                          and not (g == "ep" and inside)], p.parallelism, r.spec.hardware.noun)
    table = []
    if lead in p.decode:
        g = p.decode[lead]
        for i, b in enumerate(w.decode_batch):
            for j, s in enumerate(w.decode_context):
                table.append({"batch": b, "context": s, "bound": g["decode_time_bound"][i, j],
                              "serial": g["decode_time_serial"][i, j], "comm": g["decode_time_comm"][i, j],
                              "comm_est": g["decode_time_comm_estimate"][i, j], "overhead": g["decode_time_overhead"][i, j],
                              "estimate_binds": p.estimate_binds[i, j],
                              "binds": p.binds[i, j], "tps_gpu": g["decode_tokens_per_s_gpu"][i, j]})
    prefill = []
    if lead in p.prefill:
        g = p.prefill[lead]
        prefill = [{"tokens": t, "bound": g["prefill_time_bound"][i], "serial": g["prefill_time_serial"][i],
                    "comm_est": g["prefill_time_comm_estimate"][i], "overhead": g["prefill_time_overhead"][i],
                    "estimate_binds": p.prefill_estimate_binds[i],
                    # a prompt whose KV cache does not fit beside the weights: its row is what it would take
                    "fits": bool(r.verdicts["prefill_fits"][i]),
                    # the prompt's pass through the stages, each stage's ledger in turn: what it occupies them for
                    "occupancy": g["prefill_occupancy_bound"][i]} for i, t in enumerate(w.prefill_prompt)]
    return {"par": p, "par_links": links, "par_ep_inside": inside, "par_table": table, "par_prefill": prefill,
            "par_costs": _collective_formulas(p, r.spec.hardware.noun),
            "par_kernels": r.spec.hardware.kernels, "par_overhead": _overhead_formula(r),
            "par_left_out": {"decode": bool(k.absent and not k.decode), "prefill": bool(k.absent and not k.launch)}}


def _link_groups(links: list, par, noun: str) -> list[dict]:
    """The groups of the many-GPU chapter's link sentence, those that cross the same link alike said once ("The dp
    group (16 chips, spread over 64), the ep group (16 chips) and the tp group (4 chips) cross scale-up: ICI ...";
    three sentences alike before), in the order each link first comes: each entry the groups' names in words, whether
    they are several, the link, and whether the switch's reduction is said (the tp group's all-reduces: it stands
    alone, as does a group over two tiers, whose sentence says how)."""
    out: dict[tuple, dict] = {}
    for g, c in links:
        members = getattr(par, g)
        name = f"the {g} group ({members} {noun}s" + (f", spread over {c.span}" if c.span > members else "") + ")"
        switch = bool(c.in_network and g == "tp")
        alone = switch or c.inner is not None
        key = (g,) if alone else (c.tier, c.name, c.bandwidth_per_direction, c.latency, c.bus_bandwidth, c.bus_scope,
                                  c.bus_group_gpus)
        out.setdefault(key, {"names": [], "link": c, "switch": switch})["names"].append(name)
    for x in out.values():
        names = x.pop("names")
        who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        x.update(who=who[:1].upper() + who[1:], several=len(names) > 1)
    return list(out.values())

def _overhead_formula(r: Results) -> str:
    """The kernels' fixed costs of a decode round as SymPy prints the expression the estimate evaluates (the
    report model's compiled metadata; present/ reads no formulas)."""
    c = r.q["decode_time_overhead"]
    return _display(f"{c.symbol} = {fill(c.latex['full'], c.args, {**r.symbols_tex, **r.frame.names})}", 14)


def _collective_formulas(p, noun: str = "GPU") -> list[dict]:
    """The collective formulas this layout's numbers come from (evaluated with the layout: ``collective_formulas``),
    each as SymPy prints it, with its value where it has one: a collective's (ids ``all_*``) for one batch-1 call, which
    chapter 6 prints in µs; a prefill's for its prompt, in ms."""
    return [{"id": qid, "title": fmt.device(title, noun), "math": _display(tex, 14), "value": value}
            for qid, title, tex, value in p.collective_formulas]


def _formula_blocks(r: Results, f: Formulas) -> dict:
    """The formula blocks of the body, in the model's order (the GEMM ones are in the GEMM rows)."""
    return {name: f.block(b) for name, b in r.blocks.items() if not name.startswith("gemm_")}


def _sensitivities(r: Results) -> dict | None:
    """The model's elasticities d ln q / d ln x of the headline quantities, as a table."""
    if not r.sensitivities:
        return None
    rows = [{"label": s["label"], "e": dict(s["e"])} for s in r.sensitivities]
    used = {k for row in rows for k, v in row["e"].items() if v != 0}
    order = [e.name for e in r.notation if e.name in used and e.name not in ("B", "S")] + \
            [x for x in ("B", "S") if x in used]
    latex = {e.name: e.latex for e in r.notation}
    for row in rows:
        row["values"] = [row["e"].get(k) for k in order]

    def top(row):
        items = sorted(((k, v) for k, v in row["e"].items() if v), key=lambda kv: -abs(kv[1]))[:3]
        return ", ".join(f"{k} {v:+.2g}" for k, v in items)

    summary = "; ".join(f"{row['label']}: {top(row)}" for row in rows if row["label"].startswith(("batch-1", "critical")))
    tiny = any(fmt.elasticity(v) == "≈0" for row in rows for v in row["values"])  # a value the table prints ≈0
    return {"symbols": order, "symbols_math": [img(latex[k], size=13, inline=True) for k in order],
            "rows": rows, "tiny": tiny, "summary": summary + " (elasticities: % change per 1% change of the input)."}


def _baseline_rows(r: Results, b: Results) -> list[dict]:
    """Every headline quantity: baseline, new, ratio (what-if reports)."""
    rows = []
    new = {(e.id, tuple(sorted(e.params.items()))): e for e in r.entries if e.accounting == r.lead}
    old = {(e.id, tuple(sorted(e.params.items()))): e for e in b.entries if e.accounting == b.lead}
    headline = ("ridge_point", "weight_bytes", "weight_stream_time", "kv_bytes_per_token", "kv_capacity_tokens",
                "attention_intensity", "critical_context", "decode_intensity_ceiling", "crossover_batch",
                "capacity_batch", "decode_tokens_per_s", "training_state_bytes")
    for key, e in new.items():
        if e.id not in headline or key not in old:
            continue
        if e.id == "decode_tokens_per_s" and e.params.get("batch") not in (1, max(r.spec.workloads.decode_batch)):
            continue
        o = old[key].value
        ratio = (e.value / o) if (o not in (None, 0) and e.value is not None) else None
        # a rate at a batch the cache does not hold is the bound it would have: said so (a review read "7,076 ->
        # 3,538 tok/s at batch 128, 8k" where 61 sequences fit)
        short = {"old": _unheld(b, old[key]), "new": _unheld(r, e)}  # each side's own entry and memory
        rows.append({"id": e.id, "title": fmt.device(r.q[e.id].title, r.spec.hardware.noun) if e.id in r.q else e.id,
                     "params": ", ".join(f"{k} {v:,}" if isinstance(v, (int, float)) else f"{k} {v}"
                                                     for k, v in e.params.items()),
                     "old": format_value(o, e.unit, r.q[e.id].integer if e.id in r.q else "") + short["old"],
                     "new": format_value(e.value, e.unit, r.q[e.id].integer if e.id in r.q else "") + short["new"],
                     "ratio": ratio, "changed": ratio is None or abs(ratio - 1) > 1e-9})
    rows.sort(key=lambda x: (not x["changed"], x["id"]))
    return rows


def _unheld(r: Results, e) -> str:
    """' (N fit)' for a decode rate at a batch past what the results' memory holds at its context (the entry's own
    ``unfit``, results.json's "fits": false), ' (none fits)' where it holds no sequence there (a review read "96 tok/s
    (0 fit)"), else ''."""
    if e.id != "decode_tokens_per_s" or not getattr(e, "unfit", ""):
        return ""
    per = r.per_context.get(r.lead, {})
    ctxs = list(r.spec.workloads.decode_context)
    if "capacity_batch" not in per or e.params["context"] not in ctxs:
        return ""
    cap = per["capacity_batch"][ctxs.index(e.params["context"])]
    if e.params["batch"] <= cap:
        return ""
    return f" ({int(cap):,} fit{'s' if int(cap) == 1 else ''})" if cap >= 1 else " (none fits)"


# What each tensor class holds, for the inputs table (the same split as genreport.model.env.weight_bytes_of).
_CLASS_WHAT = {"experts": "routed experts", "attention": "attention projections",
               "embeddings": "embedding and output head", "default": "the rest (dense FFN, shared experts, router, norms)"}


def _shipped(p, model) -> str:
    """Where the spec's weights are not the checkpoint's as shipped (the model's checkpoint_precision), those, and the
    spec value that takes them ('' otherwise): DeepSeek-V3 at fp8 throughout reads its bf16 embeddings and head at
    half their bytes, which decides 16 against 32 H100s for 2,000 users (deployment review, stop 75)."""
    shipped = dict(getattr(model, "checkpoint_weights", ()) or ())
    if not shipped:
        return ""
    mine = {c: p.format_of(c) for c in shipped} if p.classes else {c: p.weights for c in shipped}
    if all(mine[c] == f for c, f in shipped.items()):
        return ""
    said = ", ".join(f"{_CLASS_WHAT.get(c, c)} {f}" for c, f in shipped.items())
    return f"the checkpoint as shipped: {said} (precision: checkpoint takes them)"


def _weight_rows(p, pc, model=None) -> list[dict]:
    from genreport.load.spec import FORMAT_SOURCES

    """The inputs table's weight bytes: one row for one format; per tensor class, a row each (its format, bytes per
    weight with the block scales, parameters) and the mean the model holds, the b of the weight bytes; where they are
    not the checkpoint's as shipped, its source says what those are (:func:`_shipped`)."""
    shipped = _shipped(p, model) if model is not None else ""
    if not p.classes:
        return [{"what": "bytes per weight", "symbol": "b", "value": fmt.num(p.weight_bytes) + f" ({p.weights})",
                 "source": "; ".join(x for x in ("precision", FORMAT_SOURCES.get(p.weights), shipped) if x)}]
    from genreport.model.env import class_parameters

    params = class_parameters(pc)
    rows = [{"what": f"weights: {_CLASS_WHAT[c]}", "symbol": "",
             "value": f"{p.format_of(c)}, {fmt.num(p.class_bytes(c))} B per weight ({fmt.params(params[c])})",
             "source": "; ".join(x for x in ("precision.weights." + c, FORMAT_SOURCES.get(p.format_of(c))) if x)}
            for c, _ in p.classes if params[c]]
    rows.append({"what": "bytes per weight, mean over the weights held (b at a point: the mean of what it reads)",
                 "symbol": "b", "value": fmt.num(p.weight_bytes) + f" ({p.weights_label()})",
                 "source": "; ".join(x for x in ("precision", shipped) if x)})
    return rows
