"""Load specs in passes: YAML, schema, then physics and cross-references.

Every finding of a pass is collected; the pass then raises once with all of
them.  Only this module reads spec files.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from pathlib import Path

from genreport.errors import Finding, Findings, SpecError
from genreport.fileio import looked_at
from genreport.load import units
from genreport.load.spec import (
    PRECISION_BYTES,
    Attention,
    Efficiency,
    Hardware,
    Link,
    Measurement,
    Model,
    MoE,
    Node,
    Parallelism,
    Precision,
    ReportSpec,
    Source,
    Workloads,
)
from genreport.load.suggest import did_you_mean
from genreport.load.yamlread import MAX_DEPTH, Document, format_path, read, scalar, show
from genreport.paths import display, project_root_for, specs_dir

KINDS = ("hardware", "model", "report")
# Budget of a report: decode points (batches x contexts), prefill prompts, GEMMs and measurements.  Each
# costs about 3.9 kB of results.json and 10 ms of layout; 1,024 points build in about 10 s into 4 MB.
MAX_POINTS = 1024
BYTES_PER_POINT = 3900
MAX_TOKENS = 100_000_000  # the schema's maximum for integer token counts
_TOKENS = re.compile(r"^([1-9][0-9]*(?:\.[0-9]+)?)([kKmM]?)$")


# ----------------------------------------------------------------------------------------------- references

def catalog_names(kind: str, root: Path | None = None) -> list[str]:
    """Names available for ``kind`` in the project at ``root`` and in the built-in catalog."""
    names = set()
    for base in _catalog_dirs(kind, root):
        names.update(p.stem for p in base.glob("*.yaml"))
    return sorted(names)


def _catalog_dirs(kind: str, root: Path | None, existing: bool = True) -> list[Path]:
    """The project's catalog folder, then the built-in one (only folders that exist, unless ``existing`` is
    false: then the project's is listed even before it is made)."""
    sub = {"hardware": "hardware", "model": "models"}[kind]
    dirs = []
    if root is not None and (not existing or (root / "specs" / sub).is_dir()):
        dirs.append(root / "specs" / sub)
    builtin = specs_dir() / sub
    if builtin.is_dir() and builtin.resolve() not in [d.resolve() for d in dirs]:
        dirs.append(builtin)
    return dirs


def _within(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
        return True
    except ValueError:
        return False


def resolve_ref(ref: str, kind: str, base: Path, root: Path) -> tuple[Path | None, str, str]:
    """Path of a referenced spec, or (None, message, hint).

    Only files inside the project (``root``) or the built-in catalog are read: a path that
    escapes with '..', an absolute path elsewhere and a symlink pointing out are refused.
    """
    if not ref.strip() or any(ord(c) < 32 or ord(c) == 127 for c in ref) or len(ref) > 1024:
        return None, f"{ref[:60]!r} is not a {kind} name or path", \
            f"write a catalog name such as '{_example(kind)}' or a path such as '{_sub(kind)}/x.yaml'"
    allowed = [root, specs_dir()]
    looks_like_path = "/" in ref or "\\" in ref or ref.endswith((".yaml", ".yml"))
    try:
        if looks_like_path:
            candidate = (base / ref) if not Path(ref).is_absolute() else Path(ref)
            if not any(_within(candidate, a) for a in allowed):
                return None, f"'{ref}' points outside the project folder {root.resolve()}", \
                    "reference specs inside the project, or by catalog name"
            if candidate.suffix.lower() not in (".yaml", ".yml"):
                return None, f"'{ref}' is not a .yaml file", \
                    f"reference a {kind} spec file (.yaml), or a catalog name such as '{_example(kind)}'"
            if not candidate.is_file():
                return None, f"no {kind} spec at '{ref}'", "check the path (relative to this file)"
            return candidate, "", ""
        for folder in _catalog_dirs(kind, root, existing=False):
            path = folder / f"{ref}.yaml"
            if not path.is_file():
                looked_at(path)  # a file here would shadow the one found below: the up-to-date key notes it
            else:
                if not any(_within(path, a) for a in allowed):
                    return None, f"catalog entry '{ref}' links outside the project", \
                        f"replace the link {display(path)} with the spec file itself"
                return path, "", ""
    except (OSError, ValueError):
        return None, f"no {kind} spec at '{ref[:60]}'", "check the name or path"
    names = catalog_names(kind, root)
    hint = did_you_mean(ref, names) or f"available: {', '.join(names[:12])}{' ...' if len(names) > 12 else ''}"
    return None, f"no {kind} named '{ref}'", hint


def _sub(kind: str) -> str:
    return {"hardware": "hardware", "model": "models"}[kind]


def _example(kind: str) -> str:
    return {"hardware": "h100-sxm", "model": "llama-3.1-8b"}[kind]


# ----------------------------------------------------------------------------------------------- overrides

def parse_override(text: str) -> tuple[tuple[str, ...], object]:
    """``model.kv_heads=1`` -> (('model', 'kv_heads'), 1); values are read as spec values are, safely."""
    if "=" not in text:
        raise SpecError([Finding("--set " + text, 1, 1, "", f"'{text}' is not PATH=VALUE",
                                 "write e.g. --set hardware.memory.bandwidth='4.8 TB/s'")])
    key, _, raw = text.partition("=")
    if key.count(".") >= MAX_DEPTH:
        raise SpecError([Finding("--set " + text[:80] + ("..." if len(text) > 80 else ""), 1, 1, "",
                                 f"the path has {key.count('.') + 1:,} levels; specs nest at most {MAX_DEPTH}",
                                 "write a path of the spec, e.g. --set model.kv_heads=1")])
    parts = tuple(p for p in key.strip().split("."))
    if not key.strip() or any(not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", p) for p in parts):
        raise SpecError([Finding("--set " + text, 1, 1, "", f"'{key}' is not a dotted path of keys",
                                 "write e.g. --set model.kv_heads=1")])
    ok, value = scalar(raw) if raw.strip() else (True, "")
    if not ok or value is None:
        value = raw
    return parts, value


# Short override paths, as people write them, and where they live in the spec.
ALIASES = {
    ("hardware", "bandwidth"): ("hardware", "memory", "bandwidth"),
    ("hardware", "capacity"): ("hardware", "memory", "capacity"),
}


def _alias(path: tuple[str, ...]) -> tuple[str, ...]:
    if path[:2] in ALIASES:
        return ALIASES[path[:2]] + path[2:]
    if len(path) == 3 and path[:2] == ("hardware", "peak") and path[2] not in ("dense", "sparse", "source"):
        return ("hardware", "peak", "dense", path[2])  # hardware.peak.bf16 -> the dense peak
    return path


def _apply_override(doc: Document, path: tuple[str, ...], value, text: str) -> Finding | None:
    node = doc.data
    if path[0] == "precision" and len(path) > 1 and isinstance(node.get("precision"), str):
        p = _precision(node["precision"])  # 'bf16' -> its explicit form, so one part can change
        node["precision"] = {"weights": p.weights, "kv_cache": p.kv_cache, "compute": p.compute}
    for i, key in enumerate(path[:-1]):
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            return Finding("--set " + text, 1, 1, ".".join(path),
                           f"'{'.'.join(path[:i + 1])}' in {doc.file} is {show(node)}, not a mapping",
                           f"set '{'.'.join(path[:i + 1])}' itself, or check the path")
    node[path[-1]] = value
    doc.overrides[path] = text
    return None


# ----------------------------------------------------------------------------------------------- values

def tokens(value) -> int:
    """A token count from 2048 or '2k' (k = 1024, M = 1024^2)."""
    if isinstance(value, bool):
        raise ValueError("not a count")
    if isinstance(value, int):
        return value
    m = _TOKENS.match(str(value).strip())
    if not m:
        raise ValueError(f"'{value}' is not a token count")
    scale = {"": 1, "k": 1024, "K": 1024, "m": 1024**2, "M": 1024**2}[m.group(2)]
    out = float(m.group(1)) * scale
    if not out <= MAX_TOKENS:
        raise ValueError(f"'{value}' is more than {MAX_TOKENS:,} tokens")
    if out != int(out):
        raise ValueError(f"'{value}' is not a whole number of tokens")
    return int(out)


def _source(obj) -> Source:
    obj = obj or {}
    return Source(obj.get("title", ""), obj.get("url", ""), str(obj.get("date", "")), obj.get("note", ""))


def _q(text: str) -> float:
    return units.parse(text).value


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
    if marker is not None and marker.is_file():
        return doc  # this exact text (and these overrides) passed the schema before
    from genreport.load import validate  # jsonschema is imported only when something must be validated

    errs = validate.check(doc, kind)
    if errs:
        raise SpecError(_relocate(doc, errs))
    if marker is not None:
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:
            pass
    return doc


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


def _relocate(doc: Document, findings: list[Finding]) -> list[Finding]:
    """Findings about values that came from --set point at the command line, not the file."""
    def under(path: str, prefix: str) -> bool:
        return path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "[")

    out = []
    for f in findings:
        hit = next((t for p, t in doc.overrides.items() if under(f.path, format_path(p))), None)
        out.append(Finding("--set " + hit, 1, 1, f.path, f.message, f.hint, f.severity) if hit else f)
    return out


def hardware_from(doc: Document) -> Hardware:
    d = doc.data
    mem, peak = d["memory"], d["peak"]
    sources: dict[str, Source] = {}
    for key in ("memory", "peak", "interconnect", "node", "architecture", "price"):
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
        architecture=arch,
        price_per_hour=(d.get("price") or {}).get("usd_per_hour"),
        measured_bandwidth=_q(measured["bandwidth"]) if measured.get("bandwidth") else None,
        measured_peaks={k: _q(v) for k, v in (measured.get("peak") or {}).items()},
        measured_method=measured.get("method", ""),
        notes=d.get("notes", ""), file=doc.file,
    )


def _link(d: dict, scale_up: bool) -> Link:
    """A link; the per-direction rate is the spec's, or half the bidirectional total (datasheets print both ways)."""
    total = _q(d["bandwidth"]) if d.get("bandwidth") else None
    per = _q(d["bandwidth_per_direction"]) if d.get("bandwidth_per_direction") else None
    return Link(name=d["name"], bandwidth_per_direction=per if per is not None else total / 2.0,
                per_direction_from="spec" if per is not None else "bandwidth/2", bandwidth=total,
                latency=_q(d["latency"]) if d.get("latency") else None,
                domain=d.get("domain") if scale_up else None)


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
        moe=MoE(moe["experts"], moe["active_experts"], moe["expert_ffn_size"], moe.get("shared_experts", 0),
                moe.get("first_dense_layers", 0)) if moe else None,
        attention=Attention(kind=kind, **{k: v for k, v in att.items() if k != "kind"}),
        source=_source(d["source"]), max_context=d.get("max_context"), notes=d.get("notes", ""), file=doc.file,
    )


# ----------------------------------------------------------------------------------------------- physics

def check_hardware(doc: Document, hw: Hardware, out: Findings) -> None:
    for fmt, dense in hw.dense.items():
        sparse = hw.sparse.get(fmt)
        if sparse is not None and sparse < dense:
            out.add(doc.finding(("peak", "sparse", fmt), f"sparse peak {format_num(sparse)} is below the dense peak",
                                "dense and sparse may be swapped", severity="warning"))
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
    divisors = [x for x in range(1, n + 1) if n % x == 0]
    return min(divisors, key=lambda x: abs(x - k))


def format_num(x: float) -> str:
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if abs(x) >= scale:
            return f"{x / scale:.4g}{suffix}"
    return f"{x:.4g}"


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


_NOT_SHAPE = ("name", "title", "family", "source", "notes", "parameters", "active_parameters", "max_context")


def max_points() -> int:
    """The report budget: GENREPORT_MAX_POINTS (set by ``genreport --max-points N``), else MAX_POINTS."""
    import os

    text = os.environ.get("GENREPORT_MAX_POINTS", "")
    return int(text) if text.isdigit() and 0 < len(text) < 12 else MAX_POINTS


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
        if kind == "model" and any(p[0] not in _NOT_SHAPE for p, _, _ in extra):
            # a what-if that changes the shapes: the published count no longer applies, count from the shapes
            sdoc.data.pop("parameters", None)
            sdoc.data.pop("active_parameters", None)
        obj = hardware_from(sdoc) if kind == "hardware" else model_from(sdoc)
        local = Findings()
        (check_hardware if kind == "hardware" else check_model)(sdoc, obj, local)
        for f in _relocate(sdoc, local.items):
            findings.add(f)
        return obj, sdoc

    hw, _ = sub("hardware", ("hardware",), d["hardware"], by_target["hardware"])
    model, _ = sub("model", ("model",), d["model"], by_target["model"])
    cmp = d.get("compare") or {}
    cmp_hw = [sub("hardware", ("compare", "hardware", i), r)[0] for i, r in enumerate(cmp.get("hardware", []))]
    cmp_models = [sub("model", ("compare", "models", i), r)[0] for i, r in enumerate(cmp.get("models", []))]

    precision = _precision(d["precision"])
    workloads = _workloads(doc, findings)
    _check_budget(doc, workloads, findings)
    if hw is not None:
        for fmt in {precision.compute}:
            if fmt not in hw.dense:
                findings.add(doc.finding(("precision",), f"{hw.title} has no dense {fmt} peak in its spec",
                                         f"choose one of {', '.join(sorted(hw.dense))}, or add peak.dense.{fmt} "
                                         f"to {hw.file}"))
        for i, h in enumerate(cmp_hw):
            if h is not None and precision.compute not in h.dense:
                findings.add(doc.finding(("compare", "hardware", i), f"{h.title} has no dense {precision.compute} "
                                         "peak; left out of the comparison",
                                         f"add peak.dense.{precision.compute} to {h.file}", severity="warning"))
        cmp_hw = [h for h in cmp_hw if h is None or precision.compute in h.dense]
    if model is not None and model.max_context:
        for i, s in enumerate(workloads.decode_context):
            if s > model.max_context:
                findings.add(doc.finding(("workloads", "decode", "context", i),
                                         f"context {s} exceeds the model's maximum {model.max_context}",
                                         "the numbers are still computed", severity="warning"))
    parallelism = _parallelism(d)
    if parallelism is not None and model is not None and hw is not None:
        check_parallelism(doc, parallelism, model, hw, findings)
    findings.items = _relocate(doc, findings.items)
    findings.raise_if_errors(strict=strict)
    gemms = tuple((g["name"], g["n"], g["m"]) for g in d.get("gemms", [])) or (
        (("attention projection (d x d)", model.hidden_size, model.hidden_size),
         ("FFN matrix (d x d_ff)", model.hidden_size, model.ffn_size)) if model else ())
    eff = d.get("efficiency")
    return ReportSpec(
        name=d["name"], title=d["title"], hardware=hw, model=model, precision=precision, workloads=workloads,
        gemms=gemms, compare_hardware=tuple(cmp_hw), compare_models=tuple(cmp_models),
        efficiency=Efficiency(eff["bandwidth"], eff["compute"], _source(eff["source"])) if eff else None,
        accounting=d.get("accounting", "seed"), seed=d.get("seed"), notes=d.get("notes", ""), file=doc.file,
        digest=digest.hexdigest(), warnings=tuple(f.format() for f in findings.warnings),
        overrides=tuple(overrides), parallelism=parallelism,
    )


def _parallelism(d: dict) -> Parallelism | None:
    block = d.get("parallelism")
    if block is None:
        return None
    return Parallelism(**{k: int(block.get(k, 1)) for k in ("tp", "pp", "ep", "dp")})


def check_parallelism(doc: Document, par: Parallelism, m: Model, hw: Hardware, out: Findings) -> None:
    """Physics of a parallel layout: how the heads, layers and experts split, and whether the GPUs are linked."""
    where = ("parallelism",)
    if m.heads % par.tp:
        out.add(doc.finding(where + ("tp",), f"tp {par.tp} does not divide the {m.heads} query heads of {m.title}",
                            f"use a divisor of {m.heads}, e.g. {_divisor_near(m.heads, par.tp)}"))
    elif m.attention.kind != "mla" and par.tp > m.kv_heads:
        if par.tp % m.kv_heads:
            out.add(doc.finding(where + ("tp",), f"tp {par.tp} is above the {m.kv_heads} KV heads but not a "
                                f"multiple of them: the KV heads cannot be replicated evenly",
                                f"use a multiple of {m.kv_heads} that divides {m.heads}, or at most {m.kv_heads}"))
        else:
            out.add(doc.finding(where + ("tp",), f"tp {par.tp} is above the {m.kv_heads} KV heads: each GPU holds one "
                                f"KV head per layer, every head replicated on {par.tp // m.kv_heads} GPUs, so the KV "
                                f"bytes per GPU fall only {m.kv_heads}-fold, not {par.tp}-fold",
                                f"tp {m.kv_heads} splits the KV cache without copies", severity="warning"))
    elif m.attention.kind != "mla" and m.kv_heads % par.tp:
        out.add(doc.finding(where + ("tp",), f"tp {par.tp} does not divide the {m.kv_heads} KV heads",
                            f"use a divisor of {m.kv_heads}, e.g. {_divisor_near(m.kv_heads, par.tp)}"))
    if par.pp > m.layers:
        out.add(doc.finding(where + ("pp",), f"pp {par.pp} is more pipeline stages than the {m.layers} layers",
                            f"use at most {m.layers}"))
    elif m.layers % par.pp:
        out.add(doc.finding(where + ("pp",), f"pp {par.pp} does not divide the {m.layers} layers: the stages are "
                            "uneven and the slowest one sets the pace; the bounds use L/pp layers per stage",
                            f"use a divisor of {m.layers}, e.g. {_divisor_near(m.layers, par.pp)}",
                            severity="warning"))
    if par.ep > 1 and m.moe is None:
        out.add(doc.finding(where + ("ep",), f"ep {par.ep} on {m.title}, a dense model: it has no experts to split",
                            "remove ep (or set it to 1); use tp or pp to spread a dense model"))
    elif m.moe is not None and m.moe.experts % par.ep:
        out.add(doc.finding(where + ("ep",), f"ep {par.ep} does not divide the {m.moe.experts} experts",
                            f"use a divisor of {m.moe.experts}, e.g. {_divisor_near(m.moe.experts, par.ep)}"))
    elif par.ep > par.tp * par.dp:
        out.add(doc.finding(where + ("ep",), f"ep {par.ep} is more than the tp x dp = {par.tp * par.dp} GPUs that "
                            "share the experts", f"raise tp or dp, or use ep at most {par.tp * par.dp}"))
    if par.gpus > 1 and hw.link is None:
        out.add(doc.finding(where, f"{par.gpus} GPUs, but {hw.title} has no interconnect in its spec",
                            f"add 'interconnect:' (name, bandwidth, latency, domain) to {hw.file}"))


def _precision(p) -> Precision:
    if isinstance(p, str):
        compute = "bf16" if p in ("int8", "int4") else p
        return Precision(p, compute if p in ("int8", "int4") else p, compute)
    w = p["weights"]
    compute = p.get("compute") or ("bf16" if w in ("int8", "int4") else w)
    return Precision(w, p.get("kv_cache") or ("bf16" if compute not in PRECISION_BYTES else compute), compute,
                     p.get("group_size"))


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

