"""--set PATH=VALUE: parsed safely (never eval), with short aliases, applied to a spec document."""

from __future__ import annotations

import contextlib
import re

from genreport.errors import Finding, SpecError
from genreport.load.objects import (
    _precision,
)
from genreport.load.yamlread import MAX_DEPTH, Document, scalar, show

# serving.speculative: a what-if draft model replaces the written fraction or head, a what-if fraction the written draft
# model or head, a what-if head a written draft model (and its precision) or fraction (the keys each --set removes
# beside it)
REPLACES = {("serving", "speculative", "draft_model"): ("draft_cost", "draft_layers"),
            ("serving", "speculative", "draft_cost"): ("draft_model", "draft_precision", "draft_layers"),
            ("serving", "speculative", "draft_layers"): ("draft_model", "draft_precision", "draft_cost")}


def as_arguments(overrides) -> str:
    """``--set 'a=1 b' --set c=2``: what-if ``overrides`` as the command line that makes them, each quoted as a
    shell reads it (the one form the report, its results and ``genreport diff`` print)."""
    import shlex

    return " ".join(f"--set {shlex.quote(o)}" for o in overrides)


def parse_override(text: str) -> tuple[tuple[str, ...], object]:
    """``model.kv_heads=1`` -> (('model', 'kv_heads'), 1); values are read as spec values are, safely."""
    if "=" not in text:
        raise SpecError([Finding("--set " + text, 0, 0, "", f"'{text}' is not PATH=VALUE",
                                 "write e.g. --set hardware.memory.bandwidth='4.8 TB/s'")])
    key, _, raw = text.partition("=")
    if key.count(".") >= MAX_DEPTH:
        raise SpecError([Finding("--set " + text[:80] + ("..." if len(text) > 80 else ""), 0, 0, "",
                                 f"the path has {key.count('.') + 1:,} levels; specs nest at most {MAX_DEPTH}",
                                 "write a path of the spec, e.g. --set model.kv_heads=1")])
    parts = tuple(p for p in key.strip().split("."))
    if not key.strip() or any(not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", p) for p in parts):
        raise SpecError([Finding("--set " + text, 0, 0, "", f"'{key}' is not a dotted path of keys",
                                 "write e.g. --set model.kv_heads=1")])
    try:
        ok, value = scalar(raw) if raw.strip() else (True, "")
    except SpecError as exc:  # what the value's YAML may not hold: named by the option, as its other findings are
        raise SpecError([Finding("--set " + text, 0, 0, ".".join(parts) + _within(f.path), f.message, f.hint,
                                 f.severity) for f in exc.findings]) from None
    if not ok or value is None:
        value = raw
    return parts, value


def _within(path: str) -> str:
    """A path inside a --set value appended to the option's: '.prompt', '[1]', or nothing."""
    return "" if not path else path if path.startswith("[") else "." + path


# Short override paths, as people write them, and where they live in the spec.
ALIASES = {
    ("hardware", "bandwidth"): ("hardware", "memory", "bandwidth"),
    ("hardware", "capacity"): ("hardware", "memory", "capacity"),
}
# Whole short paths: hardware.price=5.5 (USD per GPU-hour), hardware.power=1000 (W).
EXACT = {("hardware", "price"): ("hardware", "price", "usd_per_hour"),
         ("hardware", "power"): ("hardware", "power", "board_watts")}


def _alias(path: tuple[str, ...]) -> tuple[str, ...]:
    if path in EXACT:
        return EXACT[path]
    if path[:2] in ALIASES:
        return ALIASES[path[:2]] + path[2:]
    if len(path) == 3 and path[:2] == ("hardware", "peak") and path[2] not in ("dense", "sparse", "source"):
        return ("hardware", "peak", "dense", path[2])  # hardware.peak.bf16 -> the dense peak
    return path


def _apply_override(doc: Document, path: tuple[str, ...], value, text: str) -> Finding | None:
    node = doc.data
    if path[0] == "precision" and len(path) > 1 and node.get("precision") == "checkpoint":
        node["precision"] = {"weights": "checkpoint"}  # the shorthand's explicit form, so one part can change
    elif path[0] == "precision" and len(path) > 1 and isinstance(node.get("precision"), str):
        p = _precision(node["precision"])  # 'bf16' -> its explicit form, so one part can change
        # its compute left out, as the string leaves it: the loader derives the same one, the GPU chooses NVFP4's
        # (spec.on_hardware: fp4 on a B200), and a class set next computes in its own format (class_compute)
        node["precision"] = {"weights": p.weights, "kv_cache": p.kv_cache}
    if (path[:2] == ("precision", "weights") and len(path) > 2 and isinstance(node.get("precision"), dict)
            and isinstance(node["precision"].get("weights"), str)):  # (precision not a mapping: the loop below says so)
        if node["precision"]["weights"] == "checkpoint":
            return Finding("--set " + text, 0, 0, ".".join(path), f"precision.weights in {doc.file} is 'checkpoint', "
                           "the model's formats", "set precision.weights itself, or name the formats per class in "
                           "the spec")
        node["precision"]["weights"] = {"default": node["precision"]["weights"]}  # one format: the default class's
    for i, key in enumerate(path[:-1]):
        if key not in node:  # a mapping the file does not have: what is wrong inside it is the option's doing
            doc.created.setdefault(path[:i + 1], text)
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            return Finding("--set " + text, 0, 0, ".".join(path),
                           f"'{'.'.join(path[:i + 1])}' in {doc.file} is {show(node)}, not a mapping",
                           f"set '{'.'.join(path[:i + 1])}' itself, or check the path")
    if not isinstance(value, list) and (isinstance(node.get(path[-1]), list) or _wants_list(doc.data.get("kind"), path)):
        value = [value]  # one value where the spec takes a list: a one-element list (batch=64 -> [64])
    node[path[-1]] = value
    # one way of drafting replaces the others; a head keeps the format written for a head (draft_precision beside
    # draft_layers), not a draft model's
    own = path[-1] == "draft_layers" and "draft_model" not in node
    for key in REPLACES.get(path, ()):
        if not (own and key == "draft_precision"):
            node.pop(key, None)
    if path[-2:] in (("price", "usd_per_hour"), ("power", "board_watts")) and "source" not in node:
        node["source"] = {"title": f"--set {text}"}  # a price or power the user gives: its source is the option
    doc.overrides[path] = text
    if not isinstance(value, str):  # as written, for a message about what it was read as (no -> false)
        raw = text.partition("=")[2]
        doc.texts[path] = raw.strip()
        items: dict = {}
        with contextlib.suppress(SpecError):  # (refused where it was parsed)
            scalar(raw, written=items)
        # a list's values, and one value made a list of one (batch=on -> [true]: its [0])
        for rel, written in items.items():
            doc.texts[path + rel] = written
        if isinstance(value, list) and () in items:
            doc.texts[path + (0,)] = items[()]
    return None


def _wants_list(kind: str | None, path: tuple[str, ...]) -> bool:
    """Whether the schema of a ``kind`` spec declares ``path`` an array (for a path the spec does not have yet)."""
    import json

    from genreport.paths import schema_dir

    if kind not in ("report", "hardware", "model"):
        return False
    try:
        schema = json.loads((schema_dir() / f"{kind}.schema.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        return False
    node = schema
    for key in path:
        while isinstance(node, dict) and "$ref" in node and node["$ref"].startswith("#/$defs/"):
            node = schema.get("$defs", {}).get(node["$ref"][len("#/$defs/"):], {})
        node = (node.get("properties") or {}).get(key) if isinstance(node, dict) else None
        if node is None:
            return False
    while isinstance(node, dict) and "$ref" in node and node["$ref"].startswith("#/$defs/"):
        node = schema.get("$defs", {}).get(node["$ref"][len("#/$defs/"):], {})
    return isinstance(node, dict) and node.get("type") == "array"
