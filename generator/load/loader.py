"""Load specs in passes: YAML, schema, then physics and cross-references.

Every finding of a pass is collected; the pass then raises once with all of
them.  Only this module reads spec files.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import hashlib
import os
import re
import stat
from pathlib import Path

from genreport.errors import Finding, Findings, SpecError
from genreport.load.catalog import catalog_names, resolve_ref  # noqa: F401 - catalog_names: callers import it here
from genreport.load.checks import (  # noqa: F401 - max_points: callers import it here
    _NOT_SHAPE,
    _check_budget,
    check_hardware,
    check_model,
    check_parallelism,
    max_points,
)
from genreport.load.objects import (  # noqa: F401 - tokens: callers import it here
    _parallelism,
    _precision,
    _serving,
    _source,
    _workloads,
    activation_workspace,
    engine_kernels,
    engine_step,
    hardware_from,
    model_from,
    reserve_fields,
    tokens,
)
from genreport.load.overrides import (
    _alias,
    _apply_override,
    parse_override,
)
from genreport.load.spec import (
    DEFAULT_MAX_BATCHED_TOKENS,
    DEFAULT_MAX_SEQUENCES,
    DEFAULT_MEMORY_RESERVE,
    INTEGER_FORMATS,
    WEIGHT_CLASSES,
    Efficiency,
    Hardware,
    Model,
    Parallelism,
    ReportSpec,
    Source,
    on_hardware,
    weight_only_hint,
)
from genreport.load.yamlread import Document, format_path, read
from genreport.paths import display, project_root_for

KINDS = ("hardware", "model", "report")


# ----------------------------------------------------------------------------------------------- references













# ----------------------------------------------------------------------------------------------- overrides









# ----------------------------------------------------------------------------------------------- values







# ----------------------------------------------------------------------------------------------- documents

def _read_kind(path: Path, kind: str, overrides=()) -> Document:
    path = Path(path)
    doc = read(path, display(path))
    doc.overrides = {}
    findings = Findings()
    for opath, value, text in overrides:
        f = _apply_override(doc, opath, value, text)
        if f:
            findings.add(f)
    findings.raise_if_errors()
    got = doc.data.get("kind")
    if "kind" not in doc.data or not (isinstance(got, str) and difflib.get_close_matches(got.lower(), KINDS, 1, 0.6)):
        # not a spec at all (a .env, a config, a Kubernetes manifest): say so once, and show none of its content
        what = "it has no 'kind:' key" if "kind" not in doc.data else "its kind is not hardware, model or report"
        raise SpecError([Finding(doc.file, 1, 1, "", f"not a genreport spec: {what}",
                                 f"name a {kind} spec (a YAML file that starts with 'kind: {kind}')")])
    if got != kind and isinstance(got, str) and got in KINDS:
        raise SpecError(_relocate(doc, [doc.finding(("kind",), f"this is a {got} spec, but a {kind} spec is "
                                                    "needed here", f"name a {kind} spec")]))
    marker = _valid_marker(doc, kind, overrides)
    if marker is not None and _marked(marker):
        return doc  # this exact text (and these overrides) passed the schema before
    from genreport.load import validate  # jsonschema is imported only when something must be validated

    errs = validate.check(doc, kind)
    if errs:
        raise SpecError(_relocate(doc, errs))
    if marker is not None:
        from genreport.errors import BuildError
        from genreport.fileio import private_folder, write_file
        from genreport.paths import cache_dir

        try:  # an empty file, never a link followed or a file touched elsewhere
            write_file(private_folder(cache_dir(), "valid") / marker.name, b"", private=True)
        except (BuildError, OSError):
            pass
    return doc


def _marked(marker: Path) -> bool:
    """Whether the validity marker is there: an empty regular file itself (a link or anything else is not one)."""
    try:
        info = os.lstat(marker)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size == 0


def _valid_marker(doc: Document, kind: str, overrides) -> Path | None:
    """A cache file whose existence says: this spec text, with these overrides, is schema-valid.

    Its key is the file's bytes, the kind, the overrides and the whole package's code digest (schemas,
    validate.py, units.py, yamlread.py and everything else that shapes validation).
    """
    from genreport.fingerprint import code_digest
    from genreport.paths import cache_dir

    if not doc.raw:
        return None
    h = hashlib.sha256(doc.raw)
    h.update(kind.encode())
    h.update(code_digest().encode())
    h.update(repr(sorted((tuple(p), repr(v)) for p, v, _ in overrides)).encode())
    return cache_dir() / "valid" / h.hexdigest()[:32]


def _relocate(doc: Document, findings: list[Finding], checked: bool = False) -> list[Finding]:
    """Findings about values that came from --set point at the command line, not the file; ``checked``: findings of
    the checks across a hardware or model file's values, which name the file's line of one value where --set gave
    another: their hint names the option too."""
    def under(path: str, prefix: str) -> bool:
        return path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "[")

    out = []
    for f in findings:
        hit = next((t for p, t in doc.overrides.items() if under(f.path, format_path(p))), None)
        hint = f.hint
        if hit is None:  # or inside a mapping --set made (a misspelt 'hardware.memroy.bandwidth', a serving block)
            made = next((p for p in doc.created if under(f.path, format_path(p))), None)
            hit = doc.created[made] if made is not None else None
            key = re.fullmatch(r"missing key '([^']+)'", f.message)
            if made is not None and key:  # the key the option's mapping lacks: give it on the command line too
                what = re.fullmatch(r"add '[^']+: \.\.\.' \((.*)\)", f.hint)  # "add 'output: ...' (tokens ...)"
                hint = (f"add --set {format_path(_spec_path(doc, f.path))}.{key.group(1)}=... as well"
                        + (f": {what.group(1)}" if what else f" ({f.hint})"))
        if hit:
            hint = _short_form(doc, f, hint)
        elif checked and doc.overrides:  # a check across values, one of which --set gave (the head_dim line blamed for
            # --set model.hidden_size=1e8: hostile review, stop 75): the file as the option changed it
            given = list(doc.overrides.values())
            said = ", ".join(f"--set {t}" for t in given[:2]) + (f" and {len(given) - 2} more" if len(given) > 2 else "")
            hint = (f"{hint}; " if hint else "") + f"the file's values as {said} changed them"
            f = Finding(f.file, f.line, f.col, f.path, f.message, hint, f.severity)
        out.append(Finding("--set " + hit, 0, 0, f.path, f.message, hint, f.severity) if hit else f)
    return out


def _short_form(doc: Document, f: Finding, hint: str) -> str:
    """A --set key of a hardware file close to a short form the option takes (hardware.bandwidth for
    hardware.memory.bandwidth): named in the hint (``--set hardware.bandwith=...`` suggested 'achieved_bandwidth')."""
    from genreport.load.overrides import ALIASES, EXACT

    key = re.fullmatch(r"unknown key '([^']+)'", f.message)
    kind = doc.data.get("kind") if isinstance(doc.data, dict) else None
    if not key or kind != "hardware" or "." in f.path:
        return hint
    short = {p[1]: ".".join(t) for p, t in {**ALIASES, **EXACT}.items() if p[0] == "hardware"}
    near = difflib.get_close_matches(key.group(1), list(short), n=1, cutoff=0.75)
    return f"did you mean hardware.{near[0]}? (short for {short[near[0]]})" if near else hint


def _spec_path(doc: Document, path: str) -> tuple:
    """A finding's path as --set names it: a hardware or model file's under 'hardware.' or 'model.'."""
    kind = doc.data.get("kind") if isinstance(doc.data, dict) else None
    head = (kind,) if kind in ("hardware", "model") else ()
    return head + tuple(path.split(".")) if path else head










# ----------------------------------------------------------------------------------------------- physics









# ----------------------------------------------------------------------------------------------- entry points

def _load_one(path: Path, kind: str, overrides=()):
    doc = _read_kind(Path(path), kind, overrides)
    obj = hardware_from(doc) if kind == "hardware" else model_from(doc)
    f = Findings()
    (check_hardware if kind == "hardware" else check_model)(doc, obj, f)
    f.raise_if_errors()
    return obj


def load_hardware(path: Path, overrides=()) -> Hardware:
    """One hardware spec, validated and checked."""
    return _load_one(path, "hardware", overrides)


def load_model(path: Path, overrides=()) -> Model:
    """One model spec, validated and checked."""
    return _load_one(path, "model", overrides)








def head_layers(model, n: int):
    """An EAGLE or MTP head of ``n`` decoder layers shaped as ``model``'s (serving.speculative.draft_layers) as a
    model: the target's shapes at ``n`` layers, every one of them an MoE layer where the target has experts
    (DeepSeek-V3's MTP module's block is), its embedding and output head the target's (tied: counted once, the head
    a pass reads; generator/model/draft.Draft.memory takes it off the memory, the target holds it).  EAGLE (Li et al.,
    ICML 2024, section 3): one decoder layer over the target's features and its LM head; DeepSeek-V3 technical
    report, section 2.2: each MTP module one Transformer block sharing the embedding and output head."""
    moe = dataclasses.replace(model.moe, first_dense_layers=0, layer_step=1) if model.moe else None
    return dataclasses.replace(model, name=f"{model.name}-head-{n}", title=f"an EAGLE/MTP head of {n} {model.title} "
                               f"layer{'s' if n > 1 else ''}", layers=n, declared_parameters=None,
                               declared_active=None, tied_embeddings=True, moe=moe)



def is_head(draft, model) -> bool:
    """Whether ``draft`` is :func:`head_layers` of ``model`` (an EAGLE/MTP head, not a catalog draft model)."""
    return draft.name.startswith(f"{model.name}-head-")

# Rows by which a draft's vocabulary may miss the target's and still be one tokenizer's, its embedding padded to
# another multiple: llama.cpp's speculative decoding accepts up to 128 (common/speculative.cpp,
# SPEC_VOCAB_MAX_SIZE_DIFFERENCE); Gemma 3 1B has 262,144 rows and Gemma 3 27B 262,208, Qwen2.5 0.5B 151,936 and 72B
# 152,064 (vllm-project/vllm issue 7252).  vLLM refuses any difference (vllm/config/speculative.py,
# verify_equal_vocab_size_if_draft_model).
VOCAB_PADDING = 128


def draft_vocabulary(draft, model) -> tuple[str, str, str] | None:
    """(severity, message, hint) where a draft model's vocabulary is not its target's, None where it is: a warning
    within :data:`VOCAB_PADDING` rows (one tokenizer, padded: the draft is counted with its own rows), an error
    beyond (the target cannot verify its tokens).  The one rule serving.speculative.draft_model and plan's
    --speculative apply."""
    dv, tv = draft.vocab_size, model.vocab_size
    if dv == tv:
        return None
    if abs(dv - tv) <= VOCAB_PADDING:
        return ("warning",
                f"the draft {draft.title} has {dv:,} vocabulary rows and the target {model.title} {tv:,}: {abs(dv - tv)} "
                f"rows apart, within the {VOCAB_PADDING} llama.cpp accepts as one tokenizer's padding (vLLM refuses "
                f"any difference); the draft's passes are counted with its own {dv:,} rows",
                f"to speculate with it on vLLM, pad its embedding and head to {tv:,} rows (a model file of your own "
                f"with vocab_size: {tv})")
    return ("error", f"the draft {draft.title} has a vocabulary of {dv:,} tokens, the target {model.title} {tv:,}: "
            "the target cannot verify its tokens",
            f"name a draft of {model.title}'s family with the same tokenizer (e.g. llama-3.2-1b for llama-3.1-70b), or "
            "give a draft cost for a head")


def _draft_on_hardware(doc, serving, precision, hw, findings):
    """serving.speculative.draft_precision on ``hw`` as the target's precision is (spec.on_hardware): fp4 weights in
    fp4 where it has the peak, fp8 weights in bf16 where it has none (weight-only, as plan runs a draft there:
    spec.weight_only_fp8), else a finding naming the draft's format (a draft in fp6 on an H100 stopped the build
    with an internal KeyError)."""
    from genreport.load.spec import on_hardware, weight_only_fp8

    sp_ = serving.speculative if serving is not None else None
    own = sp_.draft_precision if sp_ is not None else None
    if own is None or own is precision:
        return serving
    own = on_hardware(own, hw.dense)
    if own.compute not in hw.dense:
        weight_only = weight_only_fp8(own, hw)
        if weight_only is None:
            findings.add(doc.finding(("serving", "speculative", "draft_precision"),
                                     f"{hw.title} has no dense {own.compute} peak for the draft's format "
                                     f"({own.weights})", f"choose a draft_precision computed in one of "
                                     f"{', '.join(sorted(hw.dense))}, or add peak.dense.{own.compute} to {hw.file}"))
            return serving
        own = weight_only
    return dataclasses.replace(serving, speculative=dataclasses.replace(sp_, draft_precision=own))


def _draft(doc, serving, model, precision, sub, findings):
    """serving.speculative.draft_model resolved as a catalog model (``sub``), or draft_layers as a head of the
    target's layers; its precision the target's unless draft_precision names one (a head in bf16 beside nvfp4
    experts, as TensorRT-LLM runs DeepSeek-R1's MTP layer); a draft model's vocabulary the target's, or within one
    tokenizer's padding of it (:func:`draft_vocabulary`)."""
    spec_ = serving.speculative if serving is not None else None
    if spec_ is not None and spec_.draft_layers is not None and model is not None:
        if spec_.draft_layers >= model.layers:  # a head as deep as its target (the hostile review of stop 88: 16 on 1)
            findings.add(doc.finding(("serving", "speculative", "draft_layers"),
                                     f"a head of {spec_.draft_layers} layers beside a target of {model.layers}: each "
                                     "draft pass costs as much as a target step or more, so no speculation pays",
                                     "an EAGLE or MTP head has one layer or a few (DeepSeek-V3's MTP: 1)",
                                     severity="warning"))
        # a head in a format of its own caches in the target's: an engine keeps one KV-cache format (vLLM's
        # kv_cache_dtype, TensorRT-LLM's kv_cache_config) for every attention layer, the drafter's included
        own = spec_.draft_precision
        own = own if own is None or precision is None else dataclasses.replace(own, kv_cache=precision.kv_cache)
        return dataclasses.replace(serving, speculative=dataclasses.replace(
            spec_, draft=head_layers(model, spec_.draft_layers), draft_precision=own or precision))
    if spec_ is None or spec_.draft_model is None:
        return serving
    path = ("serving", "speculative", "draft_model")
    draft, _ = sub("model", path, spec_.draft_model)
    if draft is None:
        return serving
    vocab = draft_vocabulary(draft, model) if model is not None else None
    if vocab is not None:
        findings.add(doc.finding(path, vocab[1], vocab[2], severity=vocab[0]))
    if draft.moe:
        findings.add(doc.finding(path, f"the draft {draft.title} is a mixture of experts: its passes' expert reads "
                                 "are not modelled", "name a dense draft model, or give draft_cost"))
    elif model is not None and _parameters(draft) >= _parameters(model):  # (the hostile review of stop 88: a 70B
        # drafting for an 8B built without a word)
        findings.add(doc.finding(path, f"the draft {draft.title} has as many parameters as the target {model.title} "
                                 "or more: each draft pass costs a target step or more, so no speculation pays",
                                 "name a smaller draft of the same tokenizer (e.g. llama-3.2-1b for Llama 3.1)",
                                 severity="warning"))
    prec = spec_.draft_precision or precision
    return dataclasses.replace(serving, speculative=dataclasses.replace(spec_, draft=draft, draft_precision=prec))


def _parameters(model) -> float:
    """A model's parameters: the published count, else the shapes' (architecture.parameter_count)."""
    from genreport.formulas import architecture as arch

    return float(model.declared_parameters or arch.parameter_count(model).total)


# The spec's configuration: what its measurements ran on and its seed's text is about; a what-if that sets any of
# these (a --set path under it) analyses another configuration
CONFIGURATION = {"hardware": "the GPU", "model": "the model", "precision": "the precision", "parallelism": "the layout"}


def configuration_changed(paths: list[tuple[tuple, str]]) -> tuple[str, ...]:
    """The --set texts (of ``(path, text)``) that change the spec's configuration: the GPU (any path under hardware
    but its price, its board power and the roof ``genreport calibrate`` measured), the model, the precision or the
    layout."""
    return tuple(text for p, text in paths if p[0] in CONFIGURATION and p[:2] not in NOT_RUN_ON)


def measured_elsewhere(paths: list[tuple[tuple, str]]) -> tuple[str, ...]:
    """The --set texts that change what the spec's measurements ran on (:func:`configuration_changed`); none where
    the what-if sets measurements of its own (a path under workloads that reaches them): those ran on the what-if's
    configuration."""
    if any(p[0] == "workloads" and (len(p) < 3 or p[2] == "measured") for p, _ in paths):
        return ()
    return configuration_changed(paths)


def changed_parts(texts: tuple[str, ...]) -> str:
    """What --set ``texts`` of :func:`configuration_changed` change, in words: "the GPU", "the GPU and the model"."""
    from genreport.load.overrides import parse_override

    parts: list[str] = []
    for text in texts:
        part = CONFIGURATION.get(parse_override(text)[0][0], "the configuration")
        if part not in parts:
            parts.append(part)
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _resolved_changes(path: Path, parts: dict) -> set[str]:
    """The configuration parts (keys of CONFIGURATION) a what-if resolves otherwise than the spec does without its
    --set: ``--set hardware=h100-sxm`` on an H100 spec, or a bandwidth set to the file's own, changes nothing, so
    the measurements are still compared and the seed's slips still listed.  The GPU is compared without what the
    engine's step derives from the model and layout (its activation workspace); a spec that does not load
    without its --set counts every part as changed."""
    try:
        base = load_report(path)
    except SpecError:
        return set(parts)

    def plain(hw):
        return dataclasses.replace(hw, workspace=0.0) if hw is not None else hw

    base_parts = {"hardware": base.hardware, "model": base.model, "precision": base.precision,
                  "parallelism": base.parallelism}
    same = {"hardware": lambda a, b: plain(a) == plain(b),
            "parallelism": lambda a, b: (a or Parallelism()) == (b or Parallelism())}  # none written: one GPU
    return {k for k, v in parts.items() if not same.get(k, lambda a, b: a == b)(v, base_parts[k])}


# what a GPU costs and draws, and its roof as calibrated: not what a run's utilisation is measured against
NOT_RUN_ON = {("hardware", "price"), ("hardware", "power"), ("hardware", "measured")}


def _reshaped(sdoc, path: Path, sets) -> bool:
    """Whether the --set overrides ``sets`` of a model spec change its shapes: the model they make against the file's
    own, the published counts aside.  A shape set to what the model already has (``--set model.kv_heads=8`` on a
    model of 8, a head_dim equal to d / H_q) keeps the published parameter count: the model is the same."""
    if not any(p[0] not in _NOT_SHAPE for p, _, _ in sets):
        return False
    counts = {"declared_parameters": None, "declared_active": None}
    own = dataclasses.replace(model_from(_read_kind(path, "model")), **counts)
    return dataclasses.replace(model_from(sdoc), **counts) != own


def workspace_message(step: float, seqs: float, workspace: float, logits: float, kept: float, title: str) -> str:
    """The error of an engine step whose activations take all the memory a card keeps (the live page's is the same):
    its tokens and its sequences' logits, each part's size."""
    return (f"one engine step of {step:,.0f} tokens and {seqs:,.0f} sequences needs {workspace / 2**30:.1f} GiB of "
            f"activations on each GPU ({logits / 2**30:.1f} GiB of them the sequences' logits), at least the "
            f"{kept / 2**30:.1f} GiB the {title} keeps beside its reserve: nothing is left for the weights")


def reserve_message(step: float, seqs: float, workspace: float, reserved: float, capacity: float, title: str) -> str:
    """The error of an engine reserve that, with one step's activations, takes all of a card's memory (the live
    page's is the same)."""
    return (f"the engine's reserve keeps {reserved / 2**30:.1f} GiB of the {title}'s {capacity / 2**30:.1f} GiB and "
            f"one engine step of {step:,.0f} tokens and {seqs:,.0f} sequences needs {workspace / 2**30:.1f} GiB of "
            "activations on each GPU: nothing is left for the weights")


def load_report(path: Path, overrides: list[str] | tuple[str, ...] = (), strict: bool = False) -> ReportSpec:
    """Load a report spec and everything it references; raise SpecError listing every problem."""
    path = Path(path)
    parsed = [(_alias(opath), value, o) for opath, value, o in ((*parse_override(o), o) for o in overrides)]
    by_target: dict[str, list] = {"hardware": [], "model": [], "report": []}
    for opath, value, text in parsed:
        if opath[0] in ("hardware", "model") and len(opath) > 1:
            by_target[opath[0]].append((opath[1:], value, text))
        else:
            by_target["report"].append((opath, value, text))
    doc = _read_kind(path, "report", by_target["report"])
    root = project_root_for(path)
    findings = Findings()
    d = doc.data
    digest = hashlib.sha256(doc.raw)
    for o in overrides:
        digest.update(b"\0--set " + o.encode())

    def sub(kind: str, ref_path: tuple, ref: str, extra=()):
        target, message, hint = resolve_ref(ref, kind, path.parent, root)
        if target is None:
            findings.add(doc.finding(ref_path, message, hint))
            return None, None
        try:
            sdoc = _read_kind(target, kind, extra)
        except SpecError as exc:
            for f in exc.findings:
                findings.add(f)
            return None, None
        digest.update(sdoc.raw)
        if kind == "model" and _reshaped(sdoc, target, extra):
            # a what-if that changes the shapes: the published count no longer applies, count from the shapes
            sdoc.data.pop("parameters", None)
            sdoc.data.pop("active_parameters", None)
        obj = hardware_from(sdoc) if kind == "hardware" else model_from(sdoc)
        local = Findings()
        (check_hardware if kind == "hardware" else check_model)(sdoc, obj, local)
        for f in _relocate(sdoc, local.items, checked=True):
            findings.add(f)
        return obj, sdoc

    hw, _ = sub("hardware", ("hardware",), d["hardware"], by_target["hardware"])
    model, _ = sub("model", ("model",), d["model"], by_target["model"])
    cmp = d.get("compare") or {}
    cmp_hw = [sub("hardware", ("compare", "hardware", i), r)[0] for i, r in enumerate(cmp.get("hardware", []))]
    cmp_models = [sub("model", ("compare", "models", i), r)[0] for i, r in enumerate(cmp.get("models", []))]

    written = d["precision"]
    at = ("precision", "weights")
    if written == "checkpoint":  # short for {weights: checkpoint}: the model's own formats, the rest from them
        written = d["precision"] = {"weights": "checkpoint"}
        at = ("precision",)
    if isinstance(written, dict) and written.get("weights") == "checkpoint" and model is not None:
        if not model.checkpoint_weights:
            findings.add(doc.finding(at, f"{model.title} has no checkpoint_precision in its spec",
                                     "name the formats, e.g. weights: {experts: mxfp4, default: bf16}, or add "
                                     f"checkpoint_precision to {model.file}"))
            written = {**written, "weights": "bf16"}
        else:
            written = {**written, "weights": dict(model.checkpoint_weights)}
    elif isinstance(written, dict) and written.get("weights") == "checkpoint":
        written = {**written, "weights": "bf16"}  # the model did not load: its error is reported
    precision = _precision(written)
    if precision.group_size and not any(precision.format_of(c) in INTEGER_FORMATS for c in WEIGHT_CLASSES):
        # a group's fp16 scale counts for int8/int4 weights only (format_bytes): dropped unsaid beside bf16 or MXFP4,
        # whose blocks are fixed (a hostile-input review)
        findings.add(doc.finding(("precision", "group_size"), f"group_size {precision.group_size} applies to int8 and "
                                 "int4 weights only; no weight here is either, so it changes nothing",
                                 "remove group_size, or quantize a class to int4/int8", severity="warning"))
    if precision.classes and model is not None:  # the mean bytes per weight this model holds at these precisions
        from genreport.formulas.architecture import parameter_count
        from genreport.model.env import CLASS_NAMES, class_parameters, held_weight_bytes

        precision = dataclasses.replace(precision, held_bytes=held_weight_bytes(precision, model))
        held = class_parameters(parameter_count(model))
        for cls, fmt in precision.classes:  # a format for a class the model lacks holds no weight: said, not silent
            # (routed experts named on a dense 8B read "mxfp4+bf16 weights", every weight bf16)
            if not held[cls] and fmt != precision.format_of("default"):
                where = ("precision", "weights", cls) if isinstance(written.get("weights"), dict) else ("precision",)
                findings.add(doc.finding(where, f"{model.title} has no {CLASS_NAMES[cls]}: {cls} {fmt} applies to "
                                         "no weight", f"remove precision.weights.{cls}", severity="warning"))
    workloads = _workloads(doc, findings)
    serving = _serving(doc, findings)
    serving = _draft(doc, serving, model, precision, sub, findings)
    _check_budget(doc, workloads, findings)
    if hw is not None:
        precision = on_hardware(precision, hw.dense)  # NVFP4/MXFP4 weights computed in fp4 where the GPU has it
        # a compute format a --set of the weights or the compute made is the option's doing: the finding names it
        # (it pointed at the file's blameless 'precision: bf16' line)
        made = next((p for p in doc.overrides if p[:1] == ("precision",) and (len(p) == 1 or p[1] in (
            "weights", "compute"))), ("precision",))
        for fmt in {precision.compute}:
            if fmt not in hw.dense:
                findings.add(doc.finding(made, f"{hw.title} has no dense {fmt} peak in its spec",
                                         f"choose one of {', '.join(sorted(hw.dense))}, or add peak.dense.{fmt} "
                                         f"to {hw.file}{weight_only_hint(precision, hw)}"))
        for i, h in enumerate(cmp_hw):
            if h is not None and precision.compute not in h.dense:
                findings.add(doc.finding(("compare", "hardware", i), f"{h.title} has no dense {precision.compute} "
                                         "peak; left out of the comparison",
                                         f"add peak.dense.{precision.compute} to {h.file}", severity="warning"))
        cmp_hw = [h for h in cmp_hw if h is None or precision.compute in h.dense]
        serving = _draft_on_hardware(doc, serving, precision, hw, findings)
    if model is not None and model.max_context:
        for i, s in enumerate(workloads.decode_context):
            if s > model.max_context:
                findings.add(doc.finding(("workloads", "decode", "context", i),
                                         f"context {int(s):,} exceeds the model's maximum {model.max_context:,}",
                                         "the numbers are still computed", severity="warning"))
        # a prompt, and a request's last context, past it too (they passed with no word: hostile review, stop 75)
        for i, s in enumerate(workloads.prefill_prompt):
            if s > model.max_context:
                findings.add(doc.finding(("workloads", "prefill", "prompt", i),
                                         f"prompt {int(s):,} exceeds the model's maximum context {model.max_context:,}",
                                         "the numbers are still computed", severity="warning"))
        if serving is not None and serving.prompt + serving.output - 1 > model.max_context:
            findings.add(doc.finding(("serving", "prompt"),
                                     f"a request's last context, prompt {serving.prompt:,} + output {serving.output:,}"
                                     f" - 1, exceeds the model's maximum context {model.max_context:,}",
                                     "the numbers are still computed", severity="warning"))
    parallelism = _parallelism(d)
    redundant = int((d.get("engine") or {}).get("redundant_experts", 0))
    if parallelism is not None and redundant:
        parallelism = dataclasses.replace(parallelism, redundant_experts=redundant)
    if parallelism is not None and model is not None and hw is not None:
        check_parallelism(doc, parallelism, model, hw, findings)
    elif redundant and model is not None:
        findings.add(doc.finding(("engine", "redundant_experts"), "redundant experts need a layout with expert "
                                 "parallelism (a parallelism block with ep > 1)",
                                 "add parallelism: {ep: ...}, or remove engine.redundant_experts"))
    findings.items = _relocate(doc, findings.items)
    findings.raise_if_errors(strict=strict)
    gemms = tuple((g["name"], g["n"], g["m"]) for g in d.get("gemms", [])) or (
        (("attention projection (d x d)", model.hidden_size, model.hidden_size),
         ("FFN matrix (d x d_ff)", model.hidden_size, model.ffn_size)) if model else ())
    eff = d.get("efficiency")
    engine = d.get("engine") or {}
    reserve = reserve_fields(engine.get("memory_reserve", DEFAULT_MEMORY_RESERVE))
    # one engine step's activations on one GPU of the report's layout (0 without a model: nothing to run)
    step_tokens, seqs = engine_step(engine)
    if serving is not None and "max_batched_tokens" not in engine:
        # serving.chunk is the same vLLM setting (max_num_batched_tokens): the engine profiles a step of that many
        # tokens (a 4k chunk sized the workspace for 8192 while the serving chapter stepped 4096)
        step_tokens = serving.chunk
    lay = parallelism or Parallelism()
    workspace = (activation_workspace(model, lay.tp, step_tokens, seqs, lay.ep, lay.pp) if model is not None
                 else 0.0)
    step = {"workspace": workspace, "max_batched_tokens": step_tokens, "max_sequences": seqs}
    if serving is not None and model is not None and step_tokens < seqs:
        # a step carries every running sequence's decode token: vLLM refuses a budget below max_num_seqs (its
        # SchedulerConfig), and the serving chapter's chunked prefill row admits no prompt beside such a batch
        findings.add(_relocate(doc, [doc.finding(("serving", "chunk") if "max_batched_tokens" not in engine
                                 else ("engine", "max_batched_tokens"),
                                 f"a step budget of {step_tokens:,} token{'' if step_tokens == 1 else 's'} is below the "
                                 f"{seqs:,} sequences the engine runs at once (engine.max_sequences): vLLM refuses a "
                                 "max_num_batched_tokens below max_num_seqs"
                                 + (", and a batch that fills the budget with its decode tokens admits no prompt chunk"
                                    if serving.output > 1 else ""),
                                 f"raise it to at least {seqs:,}, or lower engine.max_sequences", severity="warning")])[0])
    kept = dataclasses.replace(hw, **reserve).kept if hw is not None else 0.0  # the memory beside the reserve
    if hw is not None and not kept > 0:  # a size at least the card's memory
        findings.add(doc.finding(("engine", "memory_reserve"),
                                 f"the engine's reserve of {reserve['memory_reserve_bytes'] / 2**30:.1f} GiB is at least "
                                 f"the {hw.title}'s {hw.capacity / 2**30:.1f} GiB of memory: nothing is left for the "
                                 "model",
                                 "lower it, write a fraction such as 0.1, or take a card with more memory"))
        findings.items = _relocate(doc, findings.items)
        findings.raise_if_errors(strict=strict)
    if hw is not None and model is not None and not kept - workspace > 0:
        # the step's activations alone take the memory the reserve leaves: no weight fits, no memory is usable (a
        # 10M-token chunk once printed "16.06 GB of weights > -883.6 GiB usable")
        # the larger of its two parts is what to lower: the logits of max_sequences rows, or the step's tokens
        logits = activation_workspace(model, lay.tp, 0.0, seqs, lay.ep, lay.pp)
        # what to lower is what departs further from the engine's defaults (vLLM's): the reserve (a tenth of the
        # card) or the step (8,192 tokens, 256 sequences)
        usual = activation_workspace(model, lay.tp, DEFAULT_MAX_BATCHED_TOKENS, DEFAULT_MAX_SEQUENCES, lay.ep, lay.pp)
        reserve_share = (hw.capacity - kept) / (DEFAULT_MEMORY_RESERVE * hw.capacity)
        if reserve_share <= 1.0 + 1e-9 and workspace <= usual * (1.0 + 1e-9):
            # neither the reserve nor the step departs from the engine's defaults: the card's memory is what is
            # short (a hardware file of 0.5 GiB, or --set hardware.memory.capacity; the hostile review of stop 88
            # found "serving.chunk" blamed at a line the spec does not have, "lower it" of a default)
            findings.add(doc.finding(("hardware",),
                                     workspace_message(step_tokens, seqs, workspace, logits, kept, hw.title),
                                     f"the {hw.title}'s {hw.capacity / 2**30:.3g} GiB is too small for the engine's "
                                     "default step: take a card with more memory, or lower engine.max_batched_tokens "
                                     "and engine.max_sequences below vLLM's 8,192 tokens and 256 sequences"))
        elif reserve_share > workspace / usual:
            findings.add(doc.finding(("engine", "memory_reserve"),
                                     reserve_message(step_tokens, seqs, workspace, hw.capacity - kept, hw.capacity,
                                                     hw.title), "lower it, or take a card with more memory"))
        else:
            if logits >= workspace - logits:
                where, hint = ("engine", "max_sequences"), "lower it (vLLM's default is 256 sequences)"
            else:
                where = (("serving", "chunk") if serving is not None and "max_batched_tokens" not in engine
                         else ("engine", "max_batched_tokens"))
                hint = "lower it (vLLM's default is 8,192 tokens)"
            findings.add(doc.finding(where, workspace_message(step_tokens, seqs, workspace, logits, kept, hw.title),
                                     hint + ", or take a card with more memory"))
        findings.items = _relocate(doc, findings.items)
        findings.raise_if_errors(strict=strict)
    hw = (dataclasses.replace(hw, **reserve, kernels=engine_kernels(engine, hw.vendor), **step)
          if hw is not None else hw)
    if hw is not None and model is not None and precision is not None and lay.pp > 1:
        from genreport.model.stages import binding_workspace  # the binding stage's: its logits where it is the last

        hw = dataclasses.replace(hw, workspace=binding_workspace(hw, model, precision, lay)[0])
    if hw is not None and serving is not None and serving.price:  # the service's price of a GPU-hour wins
        hw = dataclasses.replace(hw, price_per_hour=serving.price, sources=hw.sources | {
            "price": Source("the report spec's serving.price", "", "", "")})
    cmp_hw = [dataclasses.replace(h, **reserve, kernels=engine_kernels(engine, h.vendor), **step)
              if h is not None else h
              for h in cmp_hw]
    # what the report analyses is not compared with itself (a what-if's --set hardware=h200 beside compare: [h200])
    cmp_hw = [h for h in cmp_hw if h is None or hw is None or h.name != hw.name]
    cmp_models = [m for m in cmp_models if m is None or model is None or m.name != model.name]
    sets = [(p, text) for p, _, text in parsed]
    if configuration_changed(sets):  # what each part resolves to, not the --set paths alone, decides a change
        kept = _resolved_changes(path, {"hardware": hw, "model": model, "precision": precision,
                                        "parallelism": parallelism})
        sets = [(p, text) for p, text in sets if p[0] not in CONFIGURATION or p[0] in kept]
    return ReportSpec(
        name=d["name"], title=d["title"], hardware=hw, model=model, precision=precision, workloads=workloads,
        gemms=gemms, compare_hardware=tuple(cmp_hw), compare_models=tuple(cmp_models),
        efficiency=Efficiency(eff["bandwidth"], eff["compute"], _source(eff["source"])) if eff else None,
        accounting=d.get("accounting", "seed"), seed=d.get("seed"), notes=d.get("notes", ""), file=doc.file,
        digest=digest.hexdigest(), warnings=tuple(f.format() for f in findings.warnings),
        overrides=tuple(overrides), parallelism=parallelism,
        configuration_changed=configuration_changed(sets),
        measured_elsewhere=measured_elsewhere(sets) if workloads.measured else (),
        precision_spec=copy.deepcopy(d["precision"]),
        engine_reserve_given="memory_reserve" in engine, engine_given=tuple(k for k in engine if k != "source"),
        serving=serving,
    )









