"""Physical checks of loaded specs beyond the schema: consistent shapes, a sane layout, a bounded amount of work."""

from __future__ import annotations

import math

from genreport.errors import Findings
from genreport.load import units
from genreport.load.budget import MAX_POINTS, max_points  # noqa: F401 - where the loader's callers look
from genreport.load.spec import (
    Hardware,
    Model,
    Parallelism,
    Workloads,
)
from genreport.load.yamlread import Document

BYTES_PER_POINT = 3900  # of results.json (the budget: genreport.load.budget)


def check_hardware(doc: Document, hw: Hardware, out: Findings) -> None:
    for fmt, dense in hw.dense.items():
        sparse = hw.sparse.get(fmt)
        if sparse is not None and sparse < dense:
            out.add(doc.finding(("peak", "sparse", fmt), f"sparse peak {format_num(sparse)} is below the dense peak",
                                "dense and sparse may be swapped", severity="warning"))
    if hw.capacity < 2**30:  # '1 B' passed, then an engine step's activations were blamed for filling it
        out.add(doc.finding(("memory", "capacity"), f"memory capacity {hw.texts.get('memory.capacity', hw.capacity)} "
                            "is implausibly small for an accelerator (at least 1 GiB)",
                            "write its memory, e.g. '80 GiB': did you write B or MB for GB?", severity="warning"))
    peak = max(hw.dense.values())
    ridge = peak / hw.bandwidth
    if ridge > 5000:
        out.add(doc.finding(("memory", "bandwidth"),
                            f"ridge point {ridge:,.0f} FLOP/B is implausible for any GPU "
                            f"({hw.texts['memory.bandwidth']} against {units.format_si(peak, 'FLOP/s', digits=4)})",
                            "did you write GB/s for TB/s?", severity="warning"))
    if ridge < 1:
        out.add(doc.finding(("memory", "bandwidth"), f"ridge point {ridge:.3g} FLOP/B is implausibly low",
                            "did you write TB/s for GB/s, or GFLOP/s for TFLOP/s?", severity="warning"))
    links = [(("interconnect",), hw.link)]
    if hw.node is not None and hw.node.scale_out is not None:
        links.append((("node", "scale_out"), hw.node.scale_out))
    for where, link in links:
        if link is None:
            continue
        if link.topology == "mesh" and link.link_bandwidth_per_direction is None:
            out.add(doc.finding((*where, "topology"), "a mesh needs the bandwidth of one peer link",
                                "add link_bandwidth_per_direction (e.g. '64 GB/s' for MI300X)"))
        _check_group_bus_bandwidth(doc, where, link, out)
    lib = hw.collectives
    if lib is not None and lib.all_pairs_call_latency is not None and (hw.link is None or hw.link.topology != "mesh"):
        out.add(doc.finding(("collectives", "all_pairs_call_latency"), "an all-pairs all-reduce needs a link to each "
                            "peer: the scale-up interconnect is not a mesh", "remove all_pairs_call_latency, or set "
                            "interconnect.topology: mesh with link_bandwidth_per_direction"))


def _check_group_bus_bandwidth(doc: Document, where: tuple, link, out: Findings) -> None:
    """interconnect.group_bus_bandwidth: smaller groups of a switched domain that has a bus bandwidth of its own."""
    groups = [g for g, _ in link.group_bus_bandwidth]
    if not groups:
        return
    at = (*where, "group_bus_bandwidth")
    if link.topology == "mesh":
        out.add(doc.finding(at, "a mesh's groups take their share of the peer links, not a measured bus bandwidth",
                            "remove group_bus_bandwidth, or set topology: switch"))
    elif link.bus_bandwidth is None:
        out.add(doc.finding(at, "group_bus_bandwidth without the whole domain's bus_bandwidth",
                            "add bus_bandwidth (nccl-tests busbw over the whole domain, large messages)"))
    elif len(set(groups)) != len(groups) or (link.domain is not None and max(groups) >= link.domain):
        out.add(doc.finding(at, f"group sizes {groups} must be distinct and smaller than the domain ({link.domain})",
                            "list each smaller group once; the whole domain's is bus_bandwidth"))


def check_model(doc: Document, m: Model, out: Findings) -> None:
    from genreport.formulas.architecture import parameter_count  # numeric, no SymPy

    d = doc.data
    if m.heads % m.kv_heads:
        out.add(doc.finding(("kv_heads",), f"kv_heads {m.kv_heads} does not divide heads {m.heads}",
                            f"use a divisor of {m.heads}, e.g. {_divisor_near(m.heads, m.kv_heads)}"))
    if "head_dim" not in d and m.hidden_size % m.heads:
        out.add(doc.finding(("heads",), f"hidden_size {m.hidden_size} is not a multiple of heads {m.heads}",
                            "give head_dim explicitly"))
    elif "head_dim" in d and m.head_dim * m.heads != m.hidden_size and m.attention.kind != "mla":
        ratio = m.head_dim * m.heads / m.hidden_size
        if ratio > 4 or ratio < 0.25:
            out.add(doc.finding(("head_dim",), f"heads x head_dim = {m.heads * m.head_dim} is far from "
                                f"hidden_size {m.hidden_size}", "check head_dim"))
    if m.moe:
        if m.moe.active_experts > m.moe.experts:
            out.add(doc.finding(("moe", "active_experts"), f"{m.moe.active_experts} active experts of "
                                f"{m.moe.experts}", "active_experts must not exceed experts"))
        if m.moe.first_dense_layers >= m.layers:
            out.add(doc.finding(("moe", "first_dense_layers"), "every layer is dense", "lower first_dense_layers"))
        elif (m.layers - m.moe.first_dense_layers) // max(1, m.moe.layer_step) == 0:
            out.add(doc.finding(("moe", "layer_step"), f"layer_step {m.moe.layer_step} leaves no MoE layer among "
                                f"the {m.layers - m.moe.first_dense_layers} after the dense ones",
                                "lower moe.layer_step or moe.first_dense_layers"))
    if m.attention.sliding_window and m.attention.chunk_size:
        out.add(doc.finding(("attention", "chunk_size"), "a sliding window and chunked attention together cannot be "
                            "described: the local layers are either windowed or chunked",
                            "keep attention.sliding_window or attention.chunk_size"))
    if m.attention.kind == "mla" and not m.attention.kv_lora_rank:
        out.add(doc.finding(("attention",), "MLA needs kv_lora_rank", "add attention.kv_lora_rank"))
    if out.errors:
        return
    if m.declared_parameters:
        total = parameter_count(m).total
        diff = total / m.declared_parameters - 1
        if abs(diff) > 0.01:
            out.add(doc.finding(("parameters",), f"declared {format_num(m.declared_parameters)} parameters but "
                                f"the shapes give {format_num(total)} ({diff:+.1%})",
                                "check the shapes or the declared count", severity="warning"))


def _divisor_near(n: int, k: int) -> int:
    # a count may be a whole float (the schema's integers take 32.0, and --set model.heads=1e3 gives one)
    divisors = [x for x in range(1, int(n) + 1) if n % x == 0]
    return min(divisors, key=lambda x: abs(x - k))


def _divisor_near_in(divisors: list[int], k: int) -> int:
    return min(divisors, key=lambda x: (abs(x - k), -x))


def _tp_near(m: Model, tp: int) -> int:
    """The tensor-parallel degree nearest ``tp`` (the lower of two as near) that this model's heads allow: a divisor
    of the query heads that divides the KV heads or is a multiple of them (any divisor with MLA's latent cache), so
    that the hint's tp passes every check below (Llama 4 Scout's 40 heads and 8 KV heads at tp 16: 8, not 20)."""
    def fits(x: int) -> bool:
        return m.attention.kind == "mla" or (m.kv_heads % x == 0 if x <= m.kv_heads else x % m.kv_heads == 0)
    return min((x for x in range(1, int(m.heads) + 1) if m.heads % x == 0 and fits(x)), key=lambda x: abs(x - tp))


def format_num(x: float) -> str:
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if abs(x) >= scale:
            return f"{x / scale:.4g}{suffix}"
    return f"{x:.4g}"


_NOT_SHAPE = ("name", "title", "family", "source", "notes", "parameters", "active_parameters", "max_context")


def _check_budget(doc: Document, workloads: Workloads, findings: Findings) -> None:
    """Refuse a grid that would take minutes and gigabytes, before any of it is computed: the points are
    decode batches x contexts, prefill prompts, GEMMs and measurements (each about as costly)."""
    limit = max_points()
    nb, nc, npre = len(workloads.decode_batch), len(workloads.decode_context), len(workloads.prefill_prompt)
    ngemm = len(doc.data.get("gemms") or ())
    nmeas = len(workloads.measured)
    parts = [(nb * nc, f"{nb:,} batches x {nc:,} contexts", ("workloads", "decode")),
             (npre, f"{npre:,} prompts", ("workloads", "prefill", "prompt")),
             (ngemm, f"{ngemm:,} GEMMs", ("gemms",)),
             (nmeas, f"{nmeas:,} measurements", ("workloads",))]
    points = sum(n for n, _, _ in parts)
    if points <= limit:
        return
    what = " + ".join(text for n, text, _ in parts if n)
    path = max(parts, key=lambda p: p[0])[2]
    findings.add(doc.finding(path, f"{what} = {points:,} points, over the budget of {limit:,} points a report "
                             f"(about {points * BYTES_PER_POINT / 1e6:,.0f} MB of results.json)",
                             "use fewer values (a sweep takes larger grids), or raise the budget "
                             "with --max-points N (GENREPORT_MAX_POINTS)"))


def check_parallelism(doc: Document, par: Parallelism, m: Model, hw: Hardware, out: Findings) -> None:
    """Physics of a parallel layout: how the heads, layers and experts split, and whether the GPUs are linked."""
    where = ("parallelism",)
    if m.heads % par.tp:
        out.add(doc.finding(where + ("tp",), f"tp {par.tp} does not divide the {m.heads} query heads of {m.title}",
                            f"use a divisor of {m.heads}, e.g. {_tp_near(m, par.tp)}"))
    elif m.attention.kind != "mla" and par.tp > m.kv_heads:
        if par.tp % m.kv_heads:
            out.add(doc.finding(where + ("tp",), f"tp {par.tp} is above the {m.kv_heads} KV heads but not a "
                                f"multiple of them: the KV heads cannot be replicated evenly",
                                f"use a multiple of {m.kv_heads} that divides {m.heads}, or at most {m.kv_heads}"))
        else:
            out.add(doc.finding(where + ("tp",), f"tp {par.tp} is above the {m.kv_heads} KV heads: each {hw.noun} holds one "
                                f"KV head per layer, every head replicated on {par.tp // m.kv_heads} {hw.noun}s, so the KV "
                                f"bytes per {hw.noun} fall only {m.kv_heads}-fold, not {par.tp}-fold",
                                f"tp {m.kv_heads} splits the KV cache without copies", severity="warning"))
    elif m.attention.kind != "mla" and m.kv_heads % par.tp:
        out.add(doc.finding(where + ("tp",), f"tp {par.tp} does not divide the {m.kv_heads} KV heads",
                            f"use a divisor of {m.kv_heads}, e.g. {_tp_near(m, par.tp)}"))
    if par.pp > m.layers:
        out.add(doc.finding(where + ("pp",), f"pp {par.pp} is more pipeline stages than the {m.layers} layers",
                            f"use at most {m.layers}"))
    # a pp that does not divide the layers gives stages of ceil(L/pp) and floor(L/pp) layers: the busiest sets each
    # GPU's memory and time (genreport.model.env.pipeline_split), as engines split them
    if par.ep > 1 and m.moe is None:
        out.add(doc.finding(where + ("ep",), f"ep {par.ep} on {m.title}, a dense model: it has no experts to split",
                            "remove ep (or set it to 1); use tp or pp to spread a dense model"))
    elif par.redundant_experts and par.ep <= 1:
        out.add(doc.finding(("engine", "redundant_experts"), f"{par.redundant_experts} redundant experts without "
                            "expert parallelism: a replica of an expert on the GPU that holds it serves nothing",
                            "set parallelism.ep above 1, or remove engine.redundant_experts"))
    elif m.moe is not None and (m.moe.experts + par.redundant_experts) % par.ep:
        # the E + r physical experts spread evenly over the ep GPUs (DeepSeek's EPLB asserts num_physical_experts %
        # num_gpus == 0, SGLang places num_experts + ep_num_redundant_experts): 256 + 32 on 72 GPUs, 4 a GPU
        e, r = m.moe.experts, par.redundant_experts
        fill = (-(e + r)) % par.ep  # the fewest more replicas that make E + r a multiple of ep
        if r:
            fewer = r - (e + r) % par.ep  # and the most fewer (0: none needed)
            counts = ([fewer] if fewer >= 0 else []) + [r + fill]
            out.add(doc.finding(("engine", "redundant_experts"),
                                f"{e} experts + {r} redundant = {e + r} do not spread evenly over ep {par.ep}: each "
                                f"{hw.noun} holds the same number of expert slots (DeepSeek's EPLB, SGLang)",
                                f"use {' or '.join(map(str, counts))} redundant experts "
                                f"({' or '.join(str((e + c) // par.ep) for c in counts)} a {hw.noun})"))
        else:
            out.add(doc.finding(where + ("ep",), f"ep {par.ep} does not divide the {e} experts",
                                f"use a divisor of {e}, e.g. {_divisor_near(e, par.ep)}, or replicate {fill} of "
                                f"them (engine.redundant_experts: {fill}; {(e + fill) // par.ep} a {hw.noun})"))
    elif par.ep > par.tp * par.dp:
        out.add(doc.finding(where + ("ep",), f"ep {par.ep} is more than the tp x dp = {par.tp * par.dp} {hw.noun}s that "
                            "share the experts", f"raise tp or dp, or use ep at most {par.tp * par.dp}"))
    elif (par.tp * par.dp) % par.ep:
        # the tp x dp GPUs of a stage split into whole expert groups of ep, each holding every expert once: 72 GPUs in
        # groups of 64 leave 8 with a part of a group (an engine's ep is tp x dp or divides it)
        n = par.tp * par.dp
        slots = m.moe.experts + par.redundant_experts
        eps = [x for x in range(1, min(n, slots) + 1) if n % x == 0 and slots % x == 0]  # the slots' divisors: few
        dp = par.ep // math.gcd(par.ep, par.tp)  # the fewest replicas whose GPUs are whole groups
        out.add(doc.finding(where + ("ep",), f"ep {par.ep} does not divide the tp x dp = {n} {hw.noun}s that share the "
                            f"experts: groups of {par.ep} leave {n % par.ep} {hw.noun}s with part of a group",
                            f"use an ep that divides {n} and the {slots} expert slots, e.g. "
                            f"{_divisor_near_in(eps, par.ep)}, or a dp that is a multiple of {dp}"))
    if par.gpus > 1 and hw.link is None:
        out.add(doc.finding(where, f"{par.gpus} {hw.noun}s, but {hw.title} has no interconnect in its spec",
                            f"add 'interconnect:' (name, bandwidth, latency, domain) to {hw.file}"))
