"""Validated spec documents turned into typed objects: Hardware, Model, Precision, Workloads, Parallelism."""

from __future__ import annotations

import math
import re

from genreport.errors import Findings
from genreport.load import units
from genreport.load.spec import (
    DEFAULT_MAX_BATCHED_TOKENS,
    DEFAULT_MAX_SEQUENCES,
    NATIVE_FP4,
    PRECISION_BYTES,
    WEIGHT_CLASSES,
    WEIGHT_COMPUTE,
    Attention,
    Collectives,
    Hardware,
    Kernels,
    Link,
    MeasuredProtocol,
    Measurement,
    Model,
    MoE,
    Node,
    Parallelism,
    Precision,
    Protocol,
    Protocols,
    Serving,
    Source,
    Speculative,
    Workloads,
)
from genreport.load.yamlread import Document, format_path

MAX_TOKENS = 100_000_000  # the schema's maximum for integer token counts


# 2048, '2k', '1.5k', '0.5k' (a leading 0 only before a fraction that is not zero: '0k' and '00.5k' are no count)
_TOKENS = re.compile(r"^((?:[1-9][0-9]*|0(?=\.[0-9]*[1-9]))(?:\.[0-9]+)?)([kKmM]?)$")


def tokens(value, noun: str = "tokens") -> int:
    """A token count from 2048 or '2k' (k = 1024, M = 1024^2); ``noun``: what the count counts, in its errors."""
    if isinstance(value, bool):
        raise ValueError("not a count")
    if isinstance(value, int):
        return value
    m = _TOKENS.match(str(value).strip())
    if not m:
        raise ValueError(f"'{value}' is not " + ("a token count" if noun == "tokens" else f"a count of {noun}"))
    scale = {"": 1, "k": 1024, "K": 1024, "m": 1024**2, "M": 1024**2}[m.group(2)]
    out = float(m.group(1)) * scale
    if not out <= MAX_TOKENS:
        raise ValueError(f"'{value}' is more than {MAX_TOKENS:,} {noun}")
    if out != int(out):
        raise ValueError(f"'{value}' is not a whole number of {noun}")
    return int(out)


def _source(obj) -> Source:
    obj = obj or {}
    return Source(obj.get("title", ""), obj.get("url", ""), str(obj.get("date", "")), obj.get("note", ""))


def _q(text: str) -> float:
    return units.parse(text).value


def hardware_from(doc: Document) -> Hardware:
    d = doc.data
    mem, peak = d["memory"], d["peak"]
    sources: dict[str, Source] = {}
    for key in ("memory", "peak", "interconnect", "node", "architecture", "price", "power", "collectives",
                "achieved_matmul", "achieved_bandwidth"):
        if isinstance(d.get(key), dict) and "source" in d[key]:
            sources[key] = _source(d[key]["source"])
    arch = {}
    for k, v in (d.get("architecture") or {}).items():
        if k != "source":
            arch[k] = _q(v) if isinstance(v, str) else float(v)
    measured = d.get("measured") or {}
    texts = {"memory.capacity": mem["capacity"], "memory.bandwidth": mem["bandwidth"]}
    texts.update({f"peak.dense.{k}": v for k, v in peak["dense"].items()})
    return Hardware(
        name=d["name"], title=d["title"], vendor=d["vendor"], variant=d.get("variant", ""),
        capacity=_q(mem["capacity"]), bandwidth=_q(mem["bandwidth"]),
        dense={k: _q(v) for k, v in peak["dense"].items()},
        sparse={k: _q(v) for k, v in (peak.get("sparse") or {}).items()},
        source=_source(d["source"]), sources=sources, texts=texts, memory_type=mem.get("type", ""),
        interconnect=(d["interconnect"]["name"], _q(d["interconnect"]["bandwidth"])) if d.get("interconnect") else None,
        link=_link(d["interconnect"], scale_up=True) if d.get("interconnect") else None,
        node=_node(d["node"]) if d.get("node") else None,
        collectives=_collectives(d["collectives"]) if d.get("collectives") else None,
        architecture=arch,
        price_per_hour=(d.get("price") or {}).get("usd_per_hour"),
        power_watts=(d.get("power") or {}).get("board_watts"),
        measured_bandwidth=_q(measured["bandwidth"]) if measured.get("bandwidth") else None,
        measured_peaks={k: _q(v) for k, v in (measured.get("peak") or {}).items()},
        measured_method=measured.get("method", ""),
        achieved_matmul={k: float(v) for k, v in ((d.get("achieved_matmul") or {}).get("dense") or {}).items()},
        achieved_bandwidth={k: float(v)
                            for k, v in ((d.get("achieved_bandwidth") or {}).get("small_gemm") or {}).items()},
        notes=d.get("notes", ""), file=doc.file, kernels=Kernels.for_vendor(d["vendor"]), noun=d.get("noun", "GPU"),
    )


def _link(d: dict, scale_up: bool) -> Link:
    """A link; the per-direction rate is the spec's, or half the bidirectional total (datasheets print both ways)."""
    total = _q(d["bandwidth"]) if d.get("bandwidth") else None
    per = _q(d["bandwidth_per_direction"]) if d.get("bandwidth_per_direction") else None
    def opt(key):
        return _q(d[key]) if d.get(key) else None

    return Link(name=d["name"], bandwidth_per_direction=per if per is not None else total / 2.0,
                per_direction_from="spec" if per is not None else "bandwidth/2", bandwidth=total,
                latency=_q(d["latency"]) if d.get("latency") else None,
                domain=d.get("domain") if scale_up else None,
                topology=d.get("topology", "switch"), link_bandwidth_per_direction=opt("link_bandwidth_per_direction"),
                in_network_reduction=bool(d.get("in_network_reduction", False)), bus_bandwidth=opt("bus_bandwidth"),
                in_network_bus_bandwidth=opt("in_network_bus_bandwidth"),
                group_bus_bandwidth=tuple(sorted((int(g["gpus"]), _q(g["bus_bandwidth"]))
                                                 for g in d.get("group_bus_bandwidth") or ())))


def _collectives(d: dict) -> Collectives:
    return Collectives(library=d["library"], call_latency=_q(d["call_latency"]),
                       in_network_call_latency=_q(d["in_network_call_latency"]) if d.get("in_network_call_latency")
                       else None, source=_source(d["source"]),
                       protocols=_protocols(d["protocols"]) if d.get("protocols") else None,
                       all_pairs_call_latency=_q(d["all_pairs_call_latency"]) if d.get("all_pairs_call_latency")
                       else None)


def _protocols(d: dict) -> Protocols:
    def one(p: dict) -> Protocol:
        m = p.get("measured")
        return Protocol(call_latency=_q(p["call_latency"]), step_latency=_q(p["step_latency"]),
                        scale_out_step_latency=_q(p["scale_out_step_latency"]) if p.get("scale_out_step_latency")
                        else None,
                        measured=MeasuredProtocol(call_latency=_q(m["call_latency"]), step_latency=_q(m["step_latency"]),
                                                  source=_source(m["source"])) if m else None)

    return Protocols(ll_bus_bandwidth=_q(d["ll_bus_bandwidth"]), ll128=one(d["ll128"]), simple=one(d["simple"]),
                     source=_source(d["source"]),
                     ll_scale_out_bus_bandwidth=_q(d["ll_scale_out_bus_bandwidth"])
                     if d.get("ll_scale_out_bus_bandwidth") else None)


def _node(d: dict) -> Node:
    return Node(gpus_per_node=d.get("gpus_per_node"),
                scale_out=_link(d["scale_out"], scale_up=False) if d.get("scale_out") else None)


def model_from(doc: Document) -> Model:
    d = doc.data
    att = d.get("attention") or {}
    heads, kv = d["heads"], d["kv_heads"]
    kind = att.get("kind") or ("mha" if kv == heads else "mqa" if kv == 1 else "gqa")
    moe = d.get("moe")
    return Model(
        name=d["name"], title=d["title"], family=d.get("family", ""), layers=d["layers"],
        hidden_size=d["hidden_size"], heads=heads, kv_heads=kv,
        head_dim=d.get("head_dim") or d["hidden_size"] // heads,
        ffn_size=d["ffn"]["size"], ffn_kind=d["ffn"]["kind"], vocab_size=d["vocab_size"],
        tied_embeddings=bool(d.get("tied_embeddings", False)), norm=d.get("norm", "rmsnorm"),
        qkv_bias=bool(d.get("qkv_bias", False)),
        declared_parameters=float(d["parameters"]) if "parameters" in d else None,
        declared_active=float(d["active_parameters"]) if "active_parameters" in d else None,
        moe=moe_from(moe) if moe else None,
        attention=Attention(kind=kind, **{k: v for k, v in att.items() if k != "kind"}),
        source=_source(d["source"]), max_context=d.get("max_context"), notes=d.get("notes", ""), file=doc.file,
        given=tuple(k for k, present in (("head_dim", "head_dim" in d), ("attention.kind", "kind" in att)) if present),
        checkpoint_weights=checkpoint_weights(d.get("checkpoint_precision")),
        norms_per_layer=int(d.get("norms_per_layer", 2)), o_bias=bool(d.get("o_bias", False)),
        ffn_bias=bool(d.get("ffn_bias", False)),
    )


def moe_from(moe: dict) -> MoE:
    """The moe block of a model spec (or of import-hf's spec dict)."""
    return MoE(moe["experts"], moe["active_experts"], moe["expert_ffn_size"], moe.get("shared_experts", 0),
               moe.get("first_dense_layers", 0), layer_step=moe.get("layer_step", 1),
               shared_expert_ffn_size=moe.get("shared_expert_ffn_size", 0))


def reserve_fields(written) -> dict[str, float]:
    """Hardware's ``memory_reserve`` and ``memory_reserve_bytes`` of an engine reserve as a report spec
    (engine.memory_reserve), a config file or ``--memory-reserve`` writes it: a fraction of each GPU's memory (0.1,
    vLLM's gpu_memory_utilization 0.9), or a size each GPU keeps ('6 GiB': CUDA graphs and buffers measured once)."""
    if isinstance(written, str):
        return {"memory_reserve": 0.0, "memory_reserve_bytes": _q(written)}
    return {"memory_reserve": float(written), "memory_reserve_bytes": 0.0}


def engine_kernels(engine: dict, vendor: str = "NVIDIA") -> Kernels:
    """The engine block's fixed costs per kernel, the defaults of ``vendor``'s hardware where the spec is silent
    (spec.VENDOR_KERNELS; none elsewhere, spec.no_kernel_cost)."""
    k = Kernels.for_vendor(vendor)
    # nothing absent once both costs are given or sourced (AMD's graph replay is; a spec may give its launch)
    both = ("kernel_launch" in engine or k.launch > 0) and ("graph_kernel" in engine or k.graph > 0)
    return Kernels(per_layer=float(engine.get("kernels_per_layer", k.per_layer)),
                   launch=_q(engine["kernel_launch"]) if "kernel_launch" in engine else k.launch,
                   graph=_q(engine["graph_kernel"]) if "graph_kernel" in engine else k.graph,
                   absent="" if both else k.absent, sources=k.sources,
                   cuda_graphs=bool(engine.get("cuda_graphs", k.cuda_graphs)),
                   one_shot=engine.get("all_reduce", "library") == "one-shot",
                   all_to_all=str(engine.get("all_to_all", k.all_to_all)),
                   one_shot_latency=_q(engine["one_shot_latency"]) if "one_shot_latency" in engine else k.one_shot_latency,
                   # the spec's count is every layer's, MoE layers' too
                   moe_per_layer=float(engine["kernels_per_layer"]) if "kernels_per_layer" in engine else None,
                   weight_only=tuple(sorted({**dict(k.weight_only),
                                             **{f: float(x) for f, x in (engine.get("weight_only_efficiency") or {}).items()}
                                             }.items())))


def engine_step(engine: dict) -> tuple[int, int]:
    """The engine step the activation workspace is sized for: (max_batched_tokens, max_sequences), defaults sourced."""
    return (int(engine.get("max_batched_tokens", DEFAULT_MAX_BATCHED_TOKENS)),
            int(engine.get("max_sequences", DEFAULT_MAX_SEQUENCES)))


def activation_workspace(model, tp: int, tokens: float, seqs: float, ep: int = 1, pp: int = 1) -> float:
    """One engine step's activations on one GPU [B] (formulas.memory.activation_workspace and
    activation_workspace_moe, numeric; a test checks it against the SymPy expressions, the live page mirrors it):
    2 (2 d T_w + f) + n_sq V 4, f the FFN's peak on the GPU: T_w 3 d_ff / tp in a dense layer; in an MoE layer
    d (g_x - 1) T_w + M k_e (max(2 d_fx / s_x, d) + d_fx / s_x), vLLM's fused-MoE buffers for M = min(g_x T_w, 32768)
    tokens beside the gathered hidden state, s_x = max(tp / ep, 1) and g_x = max(ep / tp, 1) the replicas whose
    tokens a GPU's MoE layer runs on (data-parallel attention gathers them: SGLang's ScatterMode.FULL); the larger
    where the model has both.  The logits (n_sq V 4) sit on the last pipeline stage; they are counted where that
    stage is one of the busiest (pp divides the layers: the GPU whose fit decides), not where an earlier stage holds
    a layer more (61 layers over 2 stages: 31 and 30, the first decides and computes no logits)."""
    from genreport.formulas.architecture import FUSED_MOE_CHUNK_TOKENS, moe_layer_count  # numeric, no SymPy

    tokens = float(tokens)
    ffn = 0.0
    moe = getattr(model, "moe", None)
    if moe is None or moe_layer_count(model) < model.layers:
        ffn = tokens * 3.0 * model.ffn_size / tp
    if moe is not None:
        s_x = max(tp / max(ep, 1), 1.0)
        g_x = max(max(ep, 1) / tp, 1.0)
        ffn = max(ffn, model.hidden_size * (g_x - 1.0) * tokens
                  + min(g_x * tokens, FUSED_MOE_CHUNK_TOKENS) * moe.active_experts
                  * (max(2.0 * moe.expert_ffn_size / s_x, float(model.hidden_size)) + moe.expert_ffn_size / s_x))
    logits = float(seqs) * model.vocab_size * 4.0 if pp <= 1 or model.layers % pp == 0 else 0.0
    return 2.0 * (2.0 * model.hidden_size * tokens + ffn) + logits


def _parallelism(d: dict) -> Parallelism | None:
    block = d.get("parallelism")
    if block is None:
        return None
    return Parallelism(**{k: int(block.get(k, 1)) for k in ("tp", "pp", "ep", "dp")})


def checkpoint_weights(given) -> tuple[tuple[str, str], ...]:
    """A model spec's checkpoint_precision as (class, format) for every tensor class: () when not given."""
    if not given:
        return ()
    if isinstance(given, str):
        return tuple((c, given) for c in WEIGHT_CLASSES)
    rest = given.get("default", "bf16")
    return tuple((c, given.get(c, rest)) for c in WEIGHT_CLASSES)


def _precision(p) -> Precision:
    """A report spec's precision: one format, or weights / kv_cache / compute / group_size, the weights one format
    or one per tensor class ({experts: mxfp4, default: bf16}; an unnamed class is the default's, bf16 unless given).

    compute defaults to the weights' own format, or for a weight-only format (int8, int4, mxfp4, nvfp4; fp8_block
    is computed in fp8) to WEIGHT_COMPUTE's: per class, the default class's."""
    if isinstance(p, str):
        compute = WEIGHT_COMPUTE.get(p, p)
        return Precision(p, compute if p in WEIGHT_COMPUTE else p, compute, native=p in NATIVE_FP4)
    w = p["weights"]
    classes, apart = (), False
    if isinstance(w, dict):
        rest = w.get("default", "bf16")
        classes = tuple((c, w.get(c, rest)) for c in WEIGHT_CLASSES)
        forms = list(dict.fromkeys(f for _, f in classes))
        apart = len(forms) > 1  # the classes hold different formats
        w = forms[0] if not apart else "+".join(forms)
        base = rest
    else:
        base = w
    compute = p.get("compute") or WEIGHT_COMPUTE.get(base, base)
    return Precision(w, p.get("kv_cache") or ("bf16" if compute not in PRECISION_BYTES else compute), compute,
                     p.get("group_size"), classes,
                     native=not p.get("compute") and w in NATIVE_FP4,  # (spec.on_hardware; one format for all)
                     own_compute=apart and not p.get("compute"))  # (Precision.class_compute)


def _serving(doc: Document, findings: Findings) -> Serving | None:
    """The ``serving`` block: token counts as in workloads ('4k'), times with their units ('50 ms')."""
    block = doc.data.get("serving")
    if block is None:
        return None
    counts = {}
    for key in ("prompt", "output"):
        try:
            counts[key] = tokens(block[key])
        except ValueError as exc:
            findings.add(doc.finding(("serving", key), str(exc), "write an integer or '4k' (k = 1024)"))
            counts[key] = 1
    times = {}
    for key in ("ttft", "tpot"):
        if block.get(key) is not None:
            times[key] = _q(block[key])
            if not times[key] > 0:
                findings.add(doc.finding(("serving", key), f"{block[key]} is not a positive time", "write e.g. '50 ms'"))
    chunk = _step_budget(doc, block, findings)
    spec = block.get("speculative")
    speculative = None
    if spec is not None:
        acceptance = _acceptance(doc, spec, findings)
        verify = spec.get("verify_tokens")
        if verify is not None and verify < spec["draft_tokens"] + 1:
            findings.add(doc.finding(("serving", "speculative", "verify_tokens"), f"verify_tokens {verify} is fewer "
                                     f"than draft_tokens + 1 = {spec['draft_tokens'] + 1}",
                                     "a tree's nodes with its root; leave it out for a chain"))
            verify = None
        if spec.get("draft_model") is not None and spec.get("draft_cost") is not None:
            findings.add(doc.finding(("serving", "speculative", "draft_cost"), "serving.speculative gives both "
                                     "draft_model and draft_cost: the draft model's passes give the drafts' time",
                                     "keep draft_model (a catalog model: its time is derived) or draft_cost (a "
                                     "fraction of a decode step, for an MTP or EAGLE head), not both"))
        if spec.get("draft_layers") is not None:
            for other, what in (("draft_model", "a draft model"), ("draft_cost", "a typed fraction")):
                if spec.get(other) is not None:
                    findings.add(doc.finding(("serving", "speculative", "draft_layers"), "serving.speculative gives "
                                             f"both draft_layers and {other}: the head's layers give the drafts' "
                                             "time", f"keep draft_layers (an EAGLE or MTP head of the target's "
                                             f"layers) or {other} ({what}), not both"))
        if spec.get("draft_precision") is not None and spec.get("draft_model") is None \
                and spec.get("draft_layers") is None:
            findings.add(doc.finding(("serving", "speculative", "draft_precision"), "draft_precision without "
                                     "draft_model or draft_layers", "name the draft: draft_model: llama-3.2-1b, or "
                                     "an EAGLE or MTP head: draft_layers: 1"))
        speculative = Speculative(spec["draft_tokens"], acceptance, spec.get("draft_cost", 0.05),
                                  _source(spec["source"]) if spec.get("source") else None, verify,
                                  spec.get("accepted_length"), spec.get("acceptance") is not None,
                                  spec.get("draft_model"), None,
                                  _precision(spec["draft_precision"]) if spec.get("draft_precision") else None,
                                  spec.get("draft_layers"))
    left_out = None  # a one-token request's speculative block: the page keeps it for a what-if to more tokens
    if speculative is not None and counts["output"] < 2:
        # a request of one output token has its token from the prefill and no decode round to speculate: the hostile
        # review of stop 89 read "E_R = min(E, T_out - 1) = 2.95" and a 2.6x speed-up of a request that decodes nothing
        findings.add(doc.finding(("serving", "speculative"), "a request of one output token has no decode round to "
                                 "speculate: the chapter leaves speculative decoding out",
                                 "remove serving.speculative, or ask for more output tokens (serving.output)",
                                 key=True, severity="warning"))
        left_out, speculative = speculative, None
    if times.get("tpot") is not None and counts["output"] < 2:
        # no token follows the first: the target judges one decode step at the last context, as plan --context takes
        # it (the chapter's rows, the TPOT batch and the cheapest layout), and sets no rate (a review of stop 90 read
        # "the TPOT target is missed even by one request alone" and a 64-GPU layout picked for a 1 ms target)
        findings.add(doc.finding(("serving", "tpot"), "a request of one output token has no decode round: its TPOT "
                                 "target judges one decode step at the last context (as plan --context takes it), "
                                 "which picks the layouts and batches, while the request itself waits no time "
                                 "between tokens", "remove serving.tpot for a prefill-only service, or ask for more "
                                 "output tokens (serving.output)", key=True, severity="warning"))
    hit, why = prefix_hit_taken(counts["prompt"], block.get("prefix_hit", 0.0))
    if why:
        findings.add(doc.finding(("serving", "prefix_hit"), f"prefix_hit {block['prefix_hit']} {why}",
                                 f"write serving.prefix_hit: {math.floor(hit * 1e6) / 1e6:g} or less", key=True,
                                 severity="warning"))
    return Serving(counts["prompt"], counts["output"], times.get("ttft"), times.get("tpot"), block.get("users"),
                   block.get("price"), chunk, block.get("rate"), hit, speculative,
                   block.get("prompt_spread", "none"), speculative_left_out=left_out)


def prefix_hit_taken(prompt: int, hit: float) -> tuple[float, str]:
    """(the prefix hit a report takes for ``prompt``-token prompts, why it is not ``hit`` or ""): a prompt prefills at
    least its last token, whose logits are the first output token (vLLM recomputes it on a whole-prompt hit), so a hit
    past 1 - 1/T_in is taken there (0.99999 of 4,096 tokens left 0.041 of a token to prefill, and the chapter's
    goodput read 19,957 requests/s beside a 5.27 ms prefill: a review of stop 94); one token left in floating point
    (0.9 of 10: 0.99999...) is one token.  The loader's serving block and ``plan --prefix-hit`` take it."""
    if not (hit > 0 and prompt * (1 - hit) < 1 - 1e-9):
        return hit, ""
    most = 1 - 1 / prompt
    return most, (f"leaves {prompt * (1 - hit):.3g} of each {prompt:,}-token prompt to prefill, less than one token: "
                  f"a prompt prefills at least its last, so the report takes 1 - 1/{prompt:,} = {most:.6g}")


def acceptance_for_length(draft_tokens: int, length: float) -> float:
    """The acceptance p_a whose expected tokens per verify step E(p_a, k_d) = (1 - p_a^(k_d+1)) / (1 - p_a) is
    ``length`` (formulas/techniques.py ``expected_tokens``, the compiled quantity), 1 < length < k_d + 1: E rises
    from 1 to k_d + 1 as p_a goes from 0 to 1, so the root is one and bisection finds it (to 1e-12; no closed form
    for k_d > 3)."""
    from genreport.formulas.compiled import load

    expected = load()["speculative_expected_tokens"]
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if float(expected({"k_d": float(draft_tokens), "p_a": mid})) < length else (lo, mid)
    return (lo + hi) / 2


def _acceptance(doc: Document, spec: dict, findings: Findings) -> float:
    """serving.speculative's acceptance p_a: given, or derived from the mean accepted length tau (papers and engines
    report tau: EAGLE's and Spec-Bench's tables, vLLM's and SGLang's logs).  Both given must agree (E(p_a, k_d)
    within 1% of tau); tau must lie between 1 (nothing accepted) and k_d + 1 (every draft accepted)."""
    k, given, length = spec["draft_tokens"], spec.get("acceptance"), spec.get("accepted_length")
    path = ("serving", "speculative")
    if length is None:
        if given is None:
            findings.add(doc.finding(path, "serving.speculative gives neither acceptance nor accepted_length",
                                     "write acceptance: 0.8 (per draft token) or accepted_length: 3.2 (tokens per "
                                     "verify step)", key=True))
            return 0.5
        return given
    if not length < k + 1:
        findings.add(doc.finding(path + ("accepted_length",), f"accepted_length {length:g} is not below draft_tokens"
                                 f" + 1 = {k + 1}", "raise draft_tokens to the tree's depth"))
        return 0.5
    derived = acceptance_for_length(k, length)
    if given is not None:
        implied = (1 - given ** (k + 1)) / (1 - given)
        if abs(implied - length) > 0.01 * length:
            findings.add(doc.finding(path + ("accepted_length",), f"acceptance {given:g} with {k} draft tokens gives "
                                     f"{implied:.3g} tokens per verify step, not accepted_length {length:g} "
                                     f"(that is acceptance {derived:.4f})",
                                     "give one of the two, or make them agree"))
        return given
    return derived


def _step_budget(doc: Document, block: dict, findings: Findings) -> int:
    """serving.chunk, the prompt tokens one engine step may batch: vLLM's one max_num_batched_tokens, which
    engine.max_batched_tokens also states (it sizes the activation workspace).  The engine's number is the source:
    chunk defaults to it (to its default, 8192, where the engine block is silent or sets 0 for no workspace); both
    given and different is an error naming both."""
    engine = doc.data.get("engine")
    step = engine.get("max_batched_tokens") if isinstance(engine, dict) else None
    step = step if isinstance(step, int) and not isinstance(step, bool) and step > 0 else None
    if block.get("chunk") is None:
        return step or DEFAULT_MAX_BATCHED_TOKENS
    try:
        chunk = tokens(block["chunk"])
    except ValueError as exc:
        findings.add(doc.finding(("serving", "chunk"), str(exc), "write an integer or '2k' (k = 1024)"))
        return step or DEFAULT_MAX_BATCHED_TOKENS
    if step is not None and chunk != step:
        # where the engine's number was given: its line, or the --set that gave it (which has no line: the hostile
        # review of stop 88 read "(line 1)" for a --set)
        path = ("engine", "max_batched_tokens")
        given = doc.overrides.get(path) or next((t for p, t in doc.created.items() if path[:len(p)] == p), None)
        where = f"--set {given}" if given else f"line {doc.where(path)[0]}"
        findings.add(doc.finding(("serving", "chunk"), f"serving.chunk {chunk:,} differs from engine.max_batched_tokens "
                                 f"{step:,} ({where}): both are vLLM's max_num_batched_tokens, the tokens one step "
                                 "may batch",
                                 "remove serving.chunk (it takes engine.max_batched_tokens), or write the same number "
                                 "in both"))
    return chunk


def _workloads(doc: Document, findings: Findings) -> Workloads:
    w = doc.data["workloads"]

    def toks(path, values):
        out = []
        for i, v in enumerate(values):
            try:
                out.append(tokens(v))
            except ValueError as exc:
                findings.add(doc.finding(path + (i,), str(exc), "write an integer or '8k' (k = 1024)"))
        return tuple(sorted(set(out)))

    def one(path, value):
        if value is None:
            return None
        try:
            return tokens(value)
        except ValueError as exc:
            findings.add(doc.finding(path, str(exc), "write an integer or '8k' (k = 1024)"))
            return None

    dec, pre, tr = w.get("decode") or {}, w.get("prefill") or {}, w.get("training") or {}
    measured = []
    for wl, block in (("decode", dec), ("prefill", pre)):
        for i, m in enumerate(block.get("measured", [])):
            path = ("workloads", wl, "measured", i)
            line, col = doc.where(path)
            measured.append(Measurement(
                workload=wl, source=_source(m["source"]), tokens_per_s=m.get("tokens_per_s"),
                step_time=_q(m["step_time"]) if m.get("step_time") else None,
                achieved_flops=_q(m["achieved_flops"]) if m.get("achieved_flops") else None,
                achieved_bandwidth=_q(m["achieved_bandwidth"]) if m.get("achieved_bandwidth") else None,
                utilization=m.get("utilization"),
                batch=one(path + ("batch",), m.get("batch")),
                context=one(path + ("context",), m.get("context")),
                prompt=one(path + ("prompt",), m.get("prompt")), path=format_path(path), line=line, col=col))
    act = dec.get("activation_bytes")
    training_tokens = None
    if "micro_batch_tokens" in tr:
        got = toks(("workloads", "training", "micro_batch_tokens"), [tr["micro_batch_tokens"]])
        training_tokens = got[0] if got else None
    return Workloads(
        decode_batch=toks(("workloads", "decode", "batch"), dec.get("batch", [])),
        decode_context=toks(("workloads", "decode", "context"), dec.get("context", [])),
        activation_bytes=_q(act) if act else 0.0,
        prefill_prompt=toks(("workloads", "prefill", "prompt"), pre.get("prompt", [])),
        training_tokens=training_tokens, optimizer=tr.get("optimizer", "adamw"),
        recipes=tuple(tr.get("recipes", ["bf16-grads", "fp32-grads"])) if tr else (),
        measured=tuple(measured),
    )
