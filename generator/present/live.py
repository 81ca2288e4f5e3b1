"""The live what-if of the HTML report: the spec's inputs as data, and the scripts that recompute the report model.

The browser evaluates the same formulas (``templates/live/formulas.js``, printed by SymPy from ``formulas/``)
with a port of the evaluation stage (``model.js``), applies ``--set`` overrides from the panel or the URL
fragment (``page.js``), and updates every element the templates mark with ``data-q`` (a quantity of
``results.json``, with its parameters as ``data-batch``, ``data-context``, ...). Without scripts the page is
the report as built.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from functools import lru_cache

from genreport.load.spec import (
    DEEPEP_LOW_LATENCY_SHARE,
    DEEPEP_NVLINK_SHARE,
    DEEPEP_RDMA_SHARE,
    MOE_EXTRA_KERNELS,
    SHARED_EXPERT_KERNELS,
)
from genreport.model.browser import tables  # noqa: F401 - the browser's constants, re-exported
from genreport.paths import MANY_GPUS_MARKER, command_path, templates_dir

SCRIPTS = ("formulas.js", "fmt.js", "model.js", "parallel.js", "techniques.js", "whatif.js", "prose.js", "figs.js",
           "page.js")  # order: each uses the ones before
MANY_ONLY = ("parallel.js", "techniques.js")  # the layout's code: only a report with a parallelism block carries it
DEFAULT_GEMMS = ("attention projection (d x d)", "FFN matrix (d x d_ff)")
# The --set paths the page recomputes (whatif.js applies each), as paths of a spec kind's schema ('*': any key its
# propertyNames allow), and the block a spec must have for them: without it the loader refuses the path (a link's
# latency needs the link's name, a decode batch its contexts), and so does the page.
LIVE_PATHS = (
    (None, "hardware", "memory.bandwidth memory.capacity peak.dense.*"),
    ("link", "hardware", "interconnect.bandwidth interconnect.bandwidth_per_direction interconnect.latency"),
    # the scale-out network between nodes: where a layout's group leaves the node (two nodes of B200 at ep 16, whose
    # links hold batch-1 decode: a review could try only the scale-up link on the page)
    ("scale_out", "hardware", "node.scale_out.bandwidth_per_direction node.scale_out.latency"),
    # the serial estimate's measured matmul share: where the file gives one (the block needs its source)
    ("matmul", "hardware", "achieved_matmul.dense.*"),
    # the serial prefill's measured small-GEMM share of the bandwidth: likewise
    ("small_gemm", "hardware", "achieved_bandwidth.small_gemm.*"),
    (None, "model", "layers hidden_size heads kv_heads head_dim vocab_size ffn.size parameters active_parameters "
                    "attention.sliding_window attention.local_layers_per_global attention.kv_lora_rank "
                    "attention.q_lora_rank attention.qk_rope_head_dim attention.qk_nope_head_dim attention.v_head_dim"),
    ("moe", "model", "moe.experts moe.active_experts moe.expert_ffn_size moe.shared_experts moe.first_dense_layers "
                     "moe.layer_step moe.shared_expert_ffn_size"),
    (None, "report", "precision precision.weights precision.weights.experts precision.weights.attention "
                     "precision.weights.embeddings precision.weights.default "
                     "precision.kv_cache precision.compute precision.group_size "
                     "parallelism.tp parallelism.pp parallelism.ep parallelism.dp "
                     "workloads.prefill.prompt workloads.training.micro_batch_tokens "
                     # the engine's max_sequences: the batch a replica runs, the goodput's fifth ceiling, the logits
                     # the activation workspace holds (a review could not try it on the page)
                     "engine.max_sequences"),
    ("decode", "report", "workloads.decode.batch workloads.decode.context workloads.decode.activation_bytes"),
    ("serving", "report", "serving.prompt serving.output serving.ttft serving.tpot serving.users serving.price "
                          "serving.chunk serving.rate serving.prefix_hit"),
    ("speculative", "report", "serving.speculative.draft_tokens serving.speculative.acceptance "
                              "serving.speculative.draft_cost serving.speculative.verify_tokens "
                              "serving.speculative.draft_layers"),
)


MODEL_LEFT_OUT = ("source", "notes", "file", "name", "family", "given")  # a model's fields the page does not read


def _model(m) -> dict:
    """A model as the browser's evaluation reads it (model.js makeEnv): its fields, less what it does not read."""
    return {k: v for k, v in asdict(m).items() if k not in MODEL_LEFT_OUT}


def _precision(p) -> dict:
    """A precision as the browser's evaluation reads it (model.js makeEnv)."""
    return {"weights": p.weights, "kv_cache": p.kv_cache, "compute": p.compute, "group_size": p.group_size,
            **({"classes": dict(p.classes)} if p.classes else {}), **({"native": True} if p.native else {}),
            **({"own_compute": True} if p.own_compute else {})}


def inputs(spec) -> dict:
    """What the browser's evaluation reads of a loaded spec (the fields of ``make_env`` and the workloads)."""
    hw, m, w, p = spec.hardware, spec.model, spec.workloads, spec.precision
    model = _model(m)
    default = (tuple(g[0] for g in spec.gemms) == DEFAULT_GEMMS
               and tuple(g[1:] for g in spec.gemms) == ((m.hidden_size, m.hidden_size), (m.hidden_size, m.ffn_size)))
    return {
        "hardware": {"dense": dict(sorted(hw.dense.items())), "bandwidth": hw.bandwidth, "capacity": hw.capacity,
                     "memory_reserve": hw.memory_reserve, "memory_reserve_bytes": hw.memory_reserve_bytes,
                     "vendor": hw.vendor,  # fp8 weights without an fp8 peak: W8A16 on NVIDIA's (spec.weight_only_fp8)
                     # e_m per compute format: a large matmul's measured share of the peak (env.card_values)
                     "achieved_matmul": dict(sorted(hw.achieved_matmul.items())),
                     # e_g per compute format: a small-M GEMM's measured share of the bandwidth (env.card_values)
                     "achieved_bandwidth": dict(sorted(hw.achieved_bandwidth.items())),
                     # the engine step the activation workspace is sized for (model.js workspace)
                     "max_batched_tokens": hw.max_batched_tokens, "max_sequences": hw.max_sequences,
                     # serving.chunk sizes that step where the engine block does not (loader: one vLLM setting)
                     "step_is_chunk": spec.serving is not None and "max_batched_tokens" not in spec.engine_given,
                     "kernels": {"per_layer": hw.kernels.per_layer, "decode": hw.kernels.decode,
                                 "launch": hw.kernels.launch, "one_shot": hw.kernels.one_shot,
                                 "one_shot_latency": hw.kernels.one_shot_latency,
                                 # DeepEP's shares of the line rate where the engine runs it (layout: o_EP, e_D*)
                                 "deepep": [DEEPEP_NVLINK_SHARE, DEEPEP_RDMA_SHARE, DEEPEP_LOW_LATENCY_SHARE]
                                 if hw.kernels.all_to_all == "deepep" else None,
                                 # an MoE layer's kernels: the spec's count, else the dense one plus these (layout)
                                 "moe_per_layer": hw.kernels.moe_per_layer, "moe_extra": MOE_EXTRA_KERNELS,
                                 "shared_extra": SHARED_EXPERT_KERNELS,
                                 # e_w of each weight-only format (env.weight_efficiency)
                                 "weight_only": dict(hw.kernels.weight_only),
                                 # why no per-kernel cost is sourced (spec.no_kernel_cost), where none is
                                 **({"absent": hw.kernels.absent} if hw.kernels.absent else {})},
                     "title": hw.title, "price_per_hour": hw.price_per_hour, "power_watts": hw.power_watts,
                     **({"noun": hw.noun} if hw.noun != "GPU" else {}),  # what the report calls one device
                     "link": _link(hw.link),
                     "node": None if hw.node is None else {"gpus_per_node": hw.node.gpus_per_node,
                                                          "scale_out": _link(hw.node.scale_out)},
                     "collectives": None if hw.collectives is None else {
                         "call_latency": hw.collectives.call_latency,
                         "in_network_call_latency": hw.collectives.in_network_call_latency,
                         "protocols": _protocols(hw.collectives.protocols),
                         **({"all_pairs_call_latency": hw.collectives.all_pairs_call_latency}
                            if hw.collectives.all_pairs_call_latency is not None else {})}},
        # the memory each keeps beside the spec's engine reserve and step (model.js usable: decision.fit_options)
        "compare_hardware": [{"title": h.title, "capacity": h.capacity, "formats": sorted(h.dense),
                              "memory_reserve": h.memory_reserve, "memory_reserve_bytes": h.memory_reserve_bytes,
                              "max_batched_tokens": h.max_batched_tokens, "max_sequences": h.max_sequences}
                             for h in spec.compare_hardware],
        "model": model,
        "precision": _precision(p),
        "workloads": {"decode_batch": list(w.decode_batch), "decode_context": list(w.decode_context),
                      "activation_bytes": w.activation_bytes, "prefill_prompt": list(w.prefill_prompt),
                      "training_tokens": w.training_tokens, "recipes": list(w.recipes)},
        "gemms": [] if default else [list(g) for g in spec.gemms],
        "accounting": spec.accounting,
        "parallelism": None if spec.parallelism is None else dict(asdict(spec.parallelism)),
        "serving": _serving(spec),
    }


def _serving(spec) -> dict | None:
    """The serving block as the page's serving chapter reads it (techniques.js; None without one).  A draft goes as
    what the page needs to run its passes and hold its memory at any what-if (techniques.js draftOf, a port of
    generator/model/draft.Draft): a catalog draft model as ``draft_model`` (its fields, as ``model``) with
    ``draft_precision`` where the spec wrote one (else it takes the target's precision, what-ifs included, as the
    loader gives it); an EAGLE/MTP head as ``draft_layers``, which the page shapes from the target's model as
    loader.head_layers does, so a what-if of the model's shapes moves the head too."""
    sv = spec.serving
    if sv is None:
        return None
    sp = sv.declared_speculative  # (techniques.js leaves it out again while the output is 1 token)
    from genreport.model.draft import declared_precision

    draft = {}
    if sp is not None and sp.draft_layers is not None:
        draft = {"draft_layers": sp.draft_layers}
    elif sp is not None and sp.draft is not None:
        draft = {"draft_model": _model(sp.draft)}
    own = declared_precision(spec) if draft else None  # None where the spec wrote none: the target's, what-ifs included
    if own is not None:
        draft["draft_precision"] = _precision(own)
    return {"prompt": sv.prompt, "output": sv.output, "ttft": sv.ttft, "tpot": sv.tpot, "users": sv.users,
            "price": sv.price, "chunk": sv.chunk, "rate": sv.rate, "prefix_hit": sv.prefix_hit,
            "speculative": None if sp is None else {"draft_tokens": sp.draft_tokens, "acceptance": sp.acceptance,
                                                    # a draft's passes give its time: no fraction then
                                                    "draft_cost": None if draft else sp.draft_cost,
                                                    "verify_tokens": sp.verify_tokens,
                                                    "accepted_length": sp.accepted_length, **draft}}


def _protocols(pr) -> dict | None:
    """The library's protocols for the live page's layout (layout.protocol_costs), or None."""
    if pr is None:
        return None

    def one(p):
        paid = p.measured
        return {"call_latency": p.call_latency, "step_latency": p.step_latency,
                "scale_out_step_latency": p.scale_out_step_latency,
                "measured": None if paid is None else {"call_latency": paid.call_latency,
                                                       "step_latency": paid.step_latency}}

    return {"ll_bus_bandwidth": pr.ll_bus_bandwidth, "ll_scale_out_bus_bandwidth": pr.ll_scale_out_bus_bandwidth,
            "ll128": one(pr.ll128), "simple": one(pr.simple)}


def _link(link) -> dict | None:
    """A scale-up or scale-out link as the parallel evaluation reads it (genreport.model.layout.choose_links)."""
    if link is None:
        return None
    return {"name": link.name, "short_name": link.short_name, "bandwidth_per_direction": link.bandwidth_per_direction, "bandwidth": link.bandwidth,
            "per_direction_from": link.per_direction_from, "latency": link.latency, "domain": link.domain,
            "topology": link.topology, "link_bandwidth_per_direction": link.link_bandwidth_per_direction,
            "in_network_reduction": link.in_network_reduction, "bus_bandwidth": link.bus_bandwidth,
            "in_network_bus_bandwidth": link.in_network_bus_bandwidth,
            "group_bus_bandwidth": [list(g) for g in link.group_bus_bandwidth]}


def _budget(spec, explicit: list) -> dict:
    """What the loader's budget of points counts besides the workload lists (checks._check_budget); ``explicit``:
    the spec's own GEMMs (the default pair is not in its text)."""
    from genreport.load.checks import BYTES_PER_POINT, max_points

    return {"limit": max_points(), "bytes_per_point": BYTES_PER_POINT, "gemms": len(explicit),
            "measured": len(spec.workloads.measured)}


def page_data(spec, figs: dict | None = None) -> dict:
    """The data of the live what-if: the spec's inputs, how they were written, and the constants (``figs``:
    what figure 6 draws that the page does not recompute: other GPUs' roofs, measurements)."""
    own = inputs(spec)
    return {
        "figs": figs or {},
        "inputs": own, "tables": compact_tables(), "precision_spec": spec.precision_spec,
        "given": {"head_dim": "head_dim" in spec.model.given, "attention_kind": "attention.kind" in spec.model.given,
                  # whether serving.speculative wrote its acceptance (whatif.js: else it follows accepted_length)
                  "acceptance": spec.serving is None or spec.serving.declared_speculative is None
                  or spec.serving.declared_speculative.acceptance_given},
        "hardware_title": spec.hardware.title, "hardware_file": spec.hardware.file,
        "model_file": spec.model.file, "spec_file": command_path(spec.file),
        "overrides": list(spec.overrides), "texts": dict(sorted(spec.hardware.texts.items())),
        "budget": _budget(spec, own["gemms"]), "rules": set_rules(spec),
    }


def set_rules(spec) -> dict:
    """The value rules of the --set paths the page recomputes for ``spec`` (genreport.load.setrules)."""
    from genreport.load.setrules import rules

    node = getattr(spec.hardware, "node", None)
    has = {None: True, "link": spec.hardware.link is not None, "moe": spec.model.moe is not None,
           "scale_out": spec.hardware.link is not None and node is not None and node.scale_out is not None,
           "matmul": bool(spec.hardware.achieved_matmul), "small_gemm": bool(spec.hardware.achieved_bandwidth),
           "decode": bool(spec.workloads.decode_batch), "serving": spec.serving is not None,
           "speculative": spec.serving is not None and spec.serving.declared_speculative is not None}
    return rules(*((kind, path) for block, kind, paths in LIVE_PATHS if has[block] for path in paths.split()))


def compact_tables() -> dict:
    """:func:`tables` with each quantity's unit and rounding grouped by value (page.js expands them back)."""
    t = dict(tables())
    groups: dict[str, dict[str, list[str]]] = {"units": {}, "integer": {}}
    for qid, (unit, integer) in t.pop("meta").items():
        groups["units"].setdefault(unit, []).append(qid)
        if integer:
            groups["integer"].setdefault(integer, []).append(qid)
    return {**t, **groups}


@lru_cache(maxsize=2)
def scripts(many: bool = True) -> str:
    """The live scripts, concatenated in load order, without their comment lines and indentation (the
    readable sources are in templates/live/; a report carries about 20% fewer bytes). ``many``: with the
    many-GPU layout (parallel.js), which a report carries when its spec has a ``parallelism`` block."""
    folder = templates_dir() / "live"
    names = [n for n in SCRIPTS if many or n not in MANY_ONLY]
    texts = {name: (folder / name).read_text(encoding="utf-8") for name in names}
    if not many:  # the many-GPU formulas follow a marker line in formulas.js (formulas/jsgen.py)
        texts["formulas.js"] = texts["formulas.js"].split("\n" + MANY_GPUS_MARKER + "\n")[0] + "\n"
    texts = {name: compact(text) for name, text in texts.items()}
    if any(MATH in text for text in texts.values()):
        raise ValueError(f"a live script names {MATH}, the page's short name of Math in the formulas")
    texts["formulas.js"] = lean_formulas(texts["formulas.js"])
    texts = {name: merge_lets(text) for name, text in texts.items()}
    return join_lines("\n".join(texts[name] for name in names))


MATH = "$M"  # Math in the page's formulas (no SymPy symbol prints as this name, and no script uses it)
# a compacted formulas.js entry: "id":{a:"x y",f:(x,y)=>
_ENTRY = re.compile(r'^"([A-Za-z_][A-Za-z0-9_]*)":\{a:"([^"]*)",f:\(([^()]*)\)=>', re.M)


def lean_formulas(code: str) -> str:
    """The compacted formulas.js with each entry's key unquoted, its argument names left out where they are its
    arrow function's parameters, in order (model.js ``call`` reads them off the function then), and ``Math``
    called by a two-letter name.

    >>> lean_formulas('"ridge":{a:"P W",f:(P,W)=>P/W},')
    'let $M=Math;\\nridge:{f:(P,W)=>P/W},'
    >>> lean_formulas('"odd":{a:"W P",f:(P,W)=>Math.max(P,W)},')
    'let $M=Math;\\nodd:{a:"W P",f:(P,W)=>$M.max(P,W)},'
    """
    def lean(m: re.Match) -> str:
        qid, names, params = m.groups()
        same = names.split() == [p for p in params.split(",") if p]
        return f"{qid}:{{f:({params})=>" if same else f'{qid}:{{a:"{names}",f:({params})=>'

    return f"let {MATH}=Math;\n" + re.sub(r"(?<![\w$.])Math\.", MATH + ".", _ENTRY.sub(lean, code))


def merge_lets(code: str) -> str:
    """``code`` (compacted) with each run of one-statement lines ``let a=...;`` written as one declaration
    ``let a=...,b=...;`` (the same bindings, in the same order). A line is one statement when its only ';' ends it.

    >>> merge_lets('let a=1;\\nlet[b,c]=f(a);\\nlet d=";";\\nlet e=2;')
    'let a=1,[b,c]=f(a);\\nlet d=";";\\nlet e=2;'
    """
    out: list[str] = []
    for line in code.split("\n"):
        prev = out[-1] if out else ""
        if _one_let(prev) and _one_let(line):
            out[-1] = prev[:-1] + "," + line[3:].lstrip()
        else:
            out.append(line)
    return "\n".join(out)


def _one_let(line: str) -> bool:
    return line.startswith(("let ", "let[", "let{")) and line.endswith(";") and line.count(";") == 1


_JOIN_AFTER = ("{", ";", ",", "(", "[", "=", ":", "?", "&&", "||")  # a line ending so goes on on the next line
_JOIN_BEFORE = ("}", ")", "]", ",", "?", ":", "&&", "||")  # a line beginning so goes on from the one before


def join_lines(code: str) -> str:
    r"""``code`` (compacted) with a line break left out wherever JavaScript reads the two lines as one anyway: after
    a line that ends in an opening bracket, ';', ',' or an operator that needs a right side, and before one that
    begins with a closing bracket, a '.' member access or such an operator ('+' only where no '++' or '--' could
    form or end the line). A line with '//' (a URL in a string, or a comment) or an open template literal keeps
    its break.

    >>> join_lines('if(a){\nb=1;\nc=x\n.y;\n}\nd++\n+e\nf="g"\n+"h"+\n"i"\ng++\nh')
    'if(a){b=1;c=x.y;}\nd++\n+e\nf="g"+"h"+"i"\ng++\nh'
    """
    out: list[str] = []
    for line in code.split("\n"):
        prev = out[-1] if out else ""
        if out and "//" not in prev and prev.count("`") % 2 == 0 and (
                prev.endswith(_JOIN_AFTER) or line.startswith(_JOIN_BEFORE)
                or (line.startswith(".") and line[1:2].isalpha())
                # a '+' that adds: not 'a++' ending a line, nor one beside another '+' or '-'
                or (prev.endswith("+") and not prev.endswith("++") and not line.startswith(("+", "-")))
                or (line.startswith("+") and not line.startswith("++") and not prev.endswith(("+", "-")))):
            out[-1] = prev + line
        else:
            out.append(line)
    return "\n".join(out)


def compact(code: str) -> str:
    """``code`` without blank lines, comment lines, trailing comments and leading whitespace.

    Whole comment lines are dropped, and a trailing comment only after two spaces with no string open before it,
    so a '//' inside a string (a URL) stays; the scripts have no multi-line strings (the tests run the compacted
    bundle in a browser).
    """
    out, in_block = [], False
    for line in code.splitlines():
        text = line.strip()
        if in_block:
            in_block = "*/" not in text
            continue
        if text.startswith("/*"):
            in_block = "*/" not in text
            continue
        at = text.find("  // ")  # a trailing comment (after two spaces), when no string is open before it
        if at > 0 and all(text[:at].count(q) % 2 == 0 for q in "'\"`"):
            text = text[:at]
        if text and not text.startswith("//"):
            out.append(_squeeze(text))
    return "\n".join(out)


_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")


def _squeeze(line: str) -> str:
    """``line`` without the spaces JavaScript does not need: those outside strings, template literals and regular
    expressions that do not stand between two word characters, between two of '+' and '-' (``a - -b``) or beside
    a '/' that may begin a regular expression or a comment; and each declaration ``const`` written ``let`` (two
    bytes less, 1,200 times a page).

    >>> _squeeze('if (a === "x , y") { return b - -c / 2; }')
    'if(a==="x , y"){return b- -c/2;}'
    >>> _squeeze('for (const [k, v] of o.const) { const s = "const x"; }')
    'for(let[k,v]of o.const){let s="const x";}'
    >>> _squeeze('s.replace(/"/g, "&quot;").split(", ")')
    's.replace(/"/g,"&quot;").split(", ")'
    >>> _squeeze('x = `${n > 1 ? `On ${n} GPUs (${s})` : "one"}, at ${f(a, b)}`;')
    'x=`${n > 1 ? `On ${n} GPUs (${s})` : "one"}, at ${f(a, b)}`;'
    """
    out: list[str] = []
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if ch in "'\"`":
            j = _string_end(line, i)
            out.append(line[i:j])
            i = j
            continue
        if ch == "/":
            before = "".join(out).rstrip()
            if not before or before[-1] in "(,=:[!&|?{};" or before.endswith("return"):  # a regular expression
                j, klass = i + 1, False
                while j < n and (line[j] != "/" or klass):
                    klass = (klass or line[j] == "[") and line[j] != "]"
                    j += 2 if line[j] == "\\" else 1
                out.append(line[i:j + 1])
                i = j + 1
                continue
        if ch == "c" and line.startswith("const ", i) and (i == 0 or line[i - 1] not in _WORD | {"."}):
            out.append("let")  # the same binding for a program that never assigns a const again (the tests run it)
            i += 5
            continue
        if ch == " ":
            p, q = (out[-1][-1] if out and out[-1] else ""), (line[i + 1] if i + 1 < n else "")
            if not ((p in _WORD and q in _WORD) or (p in "+-" and q in "+-")
                    or ("/" in (p, q) and not _division(out, line, i))):
                i += 1
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def _string_end(line: str, i: int) -> int:
    """The index just past the string that opens at ``line[i]`` (a quote or a backtick), kept whole: a template
    literal's ``${...}`` substitutions with the strings and template literals nested in them included (squeezed
    one literal at a time, `${a ? `x ${b}` : "y"}` lost the spaces of its inner literal: "On 4GPUs(tp 4)")."""
    quote, j, n = line[i], i + 1, len(line)
    while j < n and line[j] != quote:
        if line[j] == "\\":
            j += 2
        elif quote == "`" and line.startswith("${", j):
            j, depth = j + 2, 1
            while j < n and depth:
                if line[j] in "'\"`":
                    j = _string_end(line, j)
                    continue
                depth += {"{": 1, "}": -1}.get(line[j], 0)
                j += 1
        else:
            j += 1
    return j + 1


_BEFORE_EXPRESSION = frozenset("return typeof case in of void delete instanceof new throw yield await else do".split())


def _division(out: list[str], line: str, i: int) -> bool:
    """Whether the space at ``line[i]`` stands beside a division sign, ``a / b`` (not a regular expression or a
    comment), so that leaving it out changes nothing: after the '/' that ``_squeeze`` wrote as an operator, or
    before a '/' that follows a name, a number or a closing bracket and is followed by neither '/' nor '*'."""
    if out and out[-1] == "/":  # after a '/' written alone (a regular expression is written as one piece)
        return line[i + 1:i + 2] not in ("/", "*", "") and _operand_ends("".join(out[-13:-1]))
    return line[i + 1:i + 2] == "/" and line[i + 2:i + 3] not in ("/", "*") and _operand_ends("".join(out[-12:]))


def _operand_ends(before: str) -> bool:
    """Whether ``before`` ends with an operand (a name, a number, a closing bracket), so a '/' after it divides."""
    before = before.rstrip()
    word = re.search(r"[\w$]+$", before)
    return before[-1:] in (")", "]") or (word is not None and word.group() not in _BEFORE_EXPRESSION)


LIVE_MARK = "<!-- genreport live what-if -->"


def page_scripts(r):
    """The page's data and scripts, after a marker the PDF stage cuts at (print runs no scripts)."""
    from genreport.present.figures.live_data import roofline_data
    from markupsafe import Markup

    roof = roofline_data(r)
    figs = {"roofline": {k: roof[k] for k in ("compare", "measured", "measured_roof")}}
    code = scripts(many=r.spec.parallelism is not None)
    if "</script" in code.lower():
        raise ValueError("a live script contains '</script'")
    return Markup(f'{LIVE_MARK}\n<script type="application/json" id="genreport-live">{data_json(page_data(r.spec, figs))}'
                  f'</script>\n<script>\n{code}</script>')


def without_scripts(html: str) -> str:
    """The report's HTML for print: what follows the live marker (data and scripts) left out."""
    at = html.find(LIVE_MARK)
    return html if at < 0 else html[:at] + "</body>\n</html>\n"


def data_json(payload: dict) -> str:
    """JSON for a ``<script type="application/json">`` element: stable bytes, and no '<' to end the element."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    # no '<' at all: spec text inside the element can neither end it nor open a script-data escape ('<!--')
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# ----------------------------------------------------------------------------------------------- marked numbers

PARAM_ATTRS = ("batch", "context", "tokens", "n", "m", "b", "recipe")  # b: a matrix of another's shape (tables.gemms)


def _entry(r, qid: str, params: dict):
    """The stated entry of ``qid`` in the report's lead accounting (the hardware scalars have only one)."""
    from genreport.model.values import key

    if r.lead == "exact":
        found = r.index.get(key(qid + "_exact", params, "exact"))
        if found is not None:
            return found
    found = r.index.get(key(qid, params, "seed"))
    if found is None:
        raise KeyError(f"the report states no {qid} at {params}")
    return found


def marked(r, qid: str, fmt_name: str = "value", none: str | None = None, **params):
    """A number of the report as a ``data-q`` element the live what-if updates: the entry ``qid`` (lead
    accounting) at ``params``, formatted by the filter ``fmt_name`` ('value': by its unit), or ``none`` when it
    has no value."""
    from genreport.present import fmt
    from genreport.present.render import format_value

    e = _entry(r, qid, params)
    if e.value is None and none is not None:
        text = none
    elif fmt_name == "value":
        text = format_value(e.value, e.unit, r.q[qid].integer)
    else:
        text = fmt.FILTERS[fmt_name](e.value)
    return _span(e, fmt_name, text, params, none)


def _span(e, fmt_name: str, text: str, params: dict, none: str | None = None):
    from markupsafe import Markup, escape

    def show(v):
        return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)

    attrs = "".join(f' data-{k}="{escape(show(params[k]))}"' for k in PARAM_ATTRS if k in params)
    extra = f' data-none="{escape(none)}"' if none is not None else ""
    how = "" if fmt_name == "value" else f' data-f="{fmt_name}"'  # by the quantity's unit when absent
    return Markup(f'<span data-q="{escape(e.id)}"{attrs}{how}{extra}>{escape(text)}</span>')


def block_result(r, e, shown_value, text: str):
    """A formula block's result as a marked number when it is the stated entry (not, e.g., a closed form shown
    beside a numeric root)."""
    from genreport.model.values import key

    qid = e.id + ("_exact" if e.accounting == "exact" else "")
    stated = r.index.get(key(qid, e.params, e.accounting)) or r.index.get(key(e.id, e.params, "seed"))
    if stated is None or shown_value is None or stated.value != shown_value:
        return text
    return _span(stated, "value", text, e.params)
