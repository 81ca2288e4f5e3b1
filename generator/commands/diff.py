"""``genreport diff OLD NEW``: what a change to a spec did to its report, read as a reviewer reads it.

OLD and NEW are each a report folder (holding ``results.json``), a ``results.json`` file, or a
git revision and path, ``REV:PATH`` (``HEAD~3:out/llama8b-h100``), read with ``git show``.
The review lists the inputs that changed first (precisions, bandwidth, layout, the spec's digest), then
the workload grid's points that came or went (not the quantities at them, one by one), the verdicts
that moved, and the quantities that moved, once each (the lead accounting unless ``--accounting`` says
otherwise), grouped: bounds and rates, capacity and memory, intensities and crossovers, the rest; each
group sorted by |log(new/old)|, largest first.  ``--format md`` writes it for a pull-request comment,
``--format json`` for a script.  The exit status is 0 whatever
changed, unless ``--exit-code`` asks for 4 on a difference (``cli.EXIT['differs']``, as ``--check``).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from genreport.commands.options import Parser, add_verbosity
from genreport.commands.tables import md_cell, md_table, text_table
from genreport.errors import Finding, SpecError
from genreport.fileio import ReadError, read_regular
from genreport.terminal import safe


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="genreport diff", allow_abbrev=False,
        description="Compare the quantities of two reports (folders, results.json files or REV:PATH git revisions).",
        epilog="example: genreport diff HEAD~3:out/llama8b-h100 out/llama8b-h100")
    p.add_argument("old", metavar="OLD", help="report folder, results.json, or REV:PATH")
    p.add_argument("new", metavar="NEW", help="report folder, results.json, or REV:PATH")
    p.add_argument("--threshold", type=float, default=1e-9, metavar="REL",
                   help="report a change only above this relative size |new/old - 1| (default 1e-9)")
    p.add_argument("--limit", type=int, default=0, metavar="N",
                   help="show at most N rows in each group: the largest moved quantities, the first serving answers "
                        "and other GPUs' rows (0, the default: all)")
    p.add_argument("--exit-code", action="store_true", help="exit 4 when anything changed (as --check does)")
    p.add_argument("--format", choices=("text", "md", "json"), default="text",
                   help="text for a terminal (default), md for a pull-request comment, json for a script")
    p.add_argument("--accounting", choices=("lead", "seed", "exact", "all"), default="lead",
                   help="which accounting's quantities to compare: the reports' lead one (default: each number "
                        "once), seed, exact, or all")
    add_verbosity(p)
    return p


MAX_BYTES = 64 * 2**20  # a results.json is a few MB even for a large decode grid
MAX_DIGITS = 300  # longer integers are not genreport's (and do not fit a float)
_REV = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./@{}~^+-]*")  # HEAD~3, main@{1}, v1.0^, a1b2c3d, origin/main


def _err(where: str, message: str, hint: str = "") -> SpecError:
    where = where if len(where) <= 120 else where[:100] + "..."
    return SpecError([Finding(where, 0, 0, "", message, hint)])  # an argument or a whole file: no line


class _BadNumber(ValueError):
    pass


def _constant(name: str):
    raise _BadNumber(f"{name} is not a number JSON allows")


def _int(text: str) -> int:
    if len(text) > MAX_DIGITS:
        raise _BadNumber(f"a {len(text)}-digit number")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _BadNumber(f"{text[:40]} is out of range")
    return value


def parse_results(data: bytes, where: str) -> dict:
    """A results.json document from its bytes, checked for the shape ``diff`` reads; SpecError otherwise."""
    hint = "is it a results.json written by genreport?"
    if len(data) > MAX_BYTES:
        raise _err(where, f"over {MAX_BYTES // 2**20} MB, too large for a results.json", hint)
    try:
        doc = json.loads(data.decode("utf-8-sig"), parse_constant=_constant, parse_int=_int, parse_float=_float)
    except UnicodeDecodeError:
        raise _err(where, "not UTF-8 text", hint) from None
    except json.JSONDecodeError as exc:
        raise SpecError([Finding(where, exc.lineno, exc.colno, "", f"not valid JSON: {exc.msg}", hint)]) from None
    except _BadNumber as exc:
        raise _err(where, f"not a results.json: {exc}", hint) from None
    except (ValueError, RecursionError):
        raise _err(where, "not a results.json: nested too deeply or not readable as JSON", hint) from None
    if not isinstance(doc, dict):
        raise _err(where, f"not a results.json: the JSON is {_kind(doc)}, not an object", hint)
    qs = doc.get("quantities")
    if not isinstance(qs, list):
        raise _err(where, "not a results.json: no list 'quantities'" if qs is None
                   else f"not a results.json: 'quantities' is {_kind(qs)}, not a list", hint)
    problems, seen = [], {}
    for i, q in enumerate(qs):
        bad = _bad_quantity(q)
        if not bad:  # one entry per quantity and point: a second one left the diff to their order
            key = (q["id"], json.dumps(q.get("params") or {}, sort_keys=True), str(q.get("accounting", "")))
            if key in seen:
                bad = f"'{q['id']}' at {key[1]} is given twice (also quantities[{seen[key]}])"
            seen.setdefault(key, i)
        if bad:
            problems.append(Finding(where, 1, 1, f"quantities[{i}]", f"not a results.json quantity: {bad}", hint))
            if len(problems) == 10:
                break
    if problems:
        raise SpecError(problems)
    return doc


def _kind(x) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true or false", type(None): "null"}.get(
        type(x), "a number")


def _bad_quantity(q) -> str:
    """What is wrong with one entry of 'quantities', or ''."""
    if not isinstance(q, dict):
        return f"{_kind(q)}, not an object"
    if not isinstance(q.get("id"), str):
        return "no 'id' string" if "id" not in q else f"'id' is {_kind(q['id'])}, not a string"
    params = q.get("params")
    if params is not None and not (isinstance(params, dict) and all(
            isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in params.values())):
        return "'params' is not an object of numbers and strings"
    value = q.get("value")
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
        return f"'value' is {_kind(value)}, not a number or null"
    if not isinstance(q.get("unit", ""), str):
        return "'unit' is not a string"
    if not isinstance(q.get("scope", ""), str):
        return "'scope' is not a string"
    return ""


def _read_file(path: Path, ref: str) -> bytes:
    try:
        return read_regular(path, MAX_BYTES)
    except ReadError as exc:
        if exc.reason == "too_big":
            raise _err(ref, f"over {MAX_BYTES // 2**20} MB, too large for a results.json",
                       "is it a results.json written by genreport?") from None
        raise _err(ref, f"cannot read it: {exc}", "give a report folder or a results.json") from None


def _git_show(rev: str, path: str, cwd: Path, ref: str) -> tuple[bytes | None, str]:
    """The blob ``rev:path`` (at most MAX_BYTES + 1 bytes), or (None, git's complaint)."""
    cmd = ["git", "show", "--no-textconv", "--end-of-options", f"{rev}:{path}"]
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                cwd=cwd)
    except OSError as exc:
        raise _err(ref, f"cannot run git: {exc.strerror or exc}", "install git, or compare folders") from None
    try:
        data = proc.stdout.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            proc.kill()
        err = proc.stderr.read(4096)
    finally:
        proc.stdout.close()
        proc.stderr.close()
        code = proc.wait()
    if len(data) > MAX_BYTES:
        return data, ""
    if code != 0:
        lines = err.decode("utf-8", "replace").strip().splitlines()
        return None, lines[-1][:200] if lines else "git show failed"
    return data, ""


def read_results(ref: str, cwd: Path | None = None) -> dict:
    """The parsed results.json of a folder, a file, or ``REV:PATH`` (git, run without a shell)."""
    base = Path(cwd or Path.cwd())
    path = base / ref
    try:
        if "\0" not in ref and path.is_dir():
            path = path / "results.json"
        here = "\0" not in ref and path.exists()
    except OSError:  # a name too long for the file system: not a file here, perhaps REV:PATH
        here = False
    if here:
        return parse_results(_read_file(path, ref), ref)
    if ":" in ref:
        rev, _, rel = ref.partition(":")
        if not rev:
            raise _err(ref, "no revision before ':'", "write e.g. HEAD~1:out/llama8b-h100")
        if not _REV.fullmatch(rev) or ".." in rev:
            raise _err(ref, f"'{rev}' is not a git revision genreport reads",
                       "write a branch, tag, commit or HEAD~N before ':', e.g. HEAD~1:out/llama8b-h100 "
                       "(a revision cannot start with '-')")
        if any(ord(c) < 32 for c in rel):
            raise _err(ref, "the path after ':' holds control characters", "write e.g. HEAD~1:out/llama8b-h100")
        rel = rel.strip("/") or "."
        candidates = [rel] if rel.endswith(".json") else [f"{rel}/results.json", rel]
        last = ""
        for cand in candidates:
            data, last = _git_show(rev, cand, base, ref)
            if data is not None:
                return parse_results(data, f"{rev}:{cand}")
        raise _err(ref, f"git: {last}", "REV:PATH takes PATH from the repository root, e.g. HEAD~1:out/llama8b-h100")
    raise _err(ref, "no report here", "give a folder holding results.json, a results.json, or REV:PATH")


def _key(q: dict) -> tuple[str, str]:
    return q["id"], json.dumps(q.get("params") or {}, sort_keys=True)


@dataclass
class Change:
    id: str
    params: dict
    old: float | None
    new: float | None
    unit: str
    scope: str = ""  # whose number (results.json's ``scope``, values.SCOPES): "gpu", "replica", ...

    @property
    def ratio(self) -> float | None:
        if self.old is None or self.new is None or self.old == 0:
            return None
        return self.new / self.old

    @property
    def size(self) -> float:
        """|log ratio|; infinite when the ratio has no logarithm (a zero, a sign change, a missing value)."""
        r = self.ratio
        if r is None or r <= 0:
            return math.inf
        return abs(math.log(r))


@dataclass
class Diff:
    changed: list[Change]
    added: list[dict]
    removed: list[dict]
    same: int
    inputs: list[tuple[str, object, object]] = field(default_factory=list)  # (path, old, new): what the spec changed
    grid: list[tuple[str, list, list]] = field(default_factory=list)  # (axis, values added, values removed)
    on_grid: tuple[int, int] = (0, 0)  # quantities added and removed only because a grid point came or went
    verdicts: list[tuple[str, object, object]] = field(default_factory=list)  # (which, old, new)
    serving: list[tuple[str, object, object]] = field(default_factory=list)  # the serving chapter's (which, old, new)
    compared: list[tuple[str, object, object]] = field(default_factory=list)  # the other GPUs' and models' rows
    accounting: str = ""  # the accounting compared ('' : every accounting)
    what_if: tuple = (None, None)  # each side's --set arguments where it is a what-if build (what_if_of), else None
    laid_out: bool = False  # either side is a layout of many GPUs: the tables say whose each number is


# The reader's groups, in the order a review reads them.
GROUPS = (("Bounds and rates", ""), ("Capacity and memory", ""), ("Intensities and crossovers", ""),
          ("FLOPs and bytes", ""), ("Other quantities", ""))


def group_of(qid: str) -> str:
    """The group a quantity id belongs to (an intensity at capacity is an intensity; a step's bytes a ledger)."""
    if any(w in qid for w in ("intensity", "crossover", "critical", "ridge", "saturation", "degree")):
        return "Intensities and crossovers"
    if "time" in qid or "occupancy" in qid or "tokens_per_s" in qid or qid in ("mfu", "mbu"):
        return "Bounds and rates"
    if any(w in qid for w in ("capacity", "kv_", "memory", "weight_bytes", "gpus", "fit", "state", "parameters")):
        return "Capacity and memory"
    if qid.endswith(("_flops", "_bytes", "_flops_exact", "_bytes_exact")) or "interconnect_bytes" in qid:
        return "FLOPs and bytes"
    return "Other quantities"


MAX_INPUT_LEAVES = 2000  # a results.json's inputs are a few dozen values; a hostile one is cut short


def _flatten(x, prefix: str = "", out: dict | None = None, depth: int = 0) -> dict:
    """{'precision.kv_cache': 'fp8', ...}: the leaves of a JSON object, at most MAX_INPUT_LEAVES of them."""
    out = {} if out is None else out
    if isinstance(x, dict) and depth < 8:
        for k in sorted(x, key=str):
            if len(out) >= MAX_INPUT_LEAVES:
                break
            _flatten(x[k], f"{prefix}.{k}" if prefix else str(k), out, depth + 1)
    elif isinstance(x, list) and prefix and depth < 8:  # a verdict grid: decode_binds[batch index][context index]
        for i, v in enumerate(x[:MAX_INPUT_LEAVES]):
            if len(out) >= MAX_INPUT_LEAVES:
                break
            _flatten(v, f"{prefix}[{i}]", out, depth + 1)
    elif prefix and len(out) < MAX_INPUT_LEAVES:
        out[prefix] = x if isinstance(x, (str, int, float, bool, type(None))) else json.dumps(x, sort_keys=True)[:200]
    return out


def _section(doc: dict, name: str) -> dict:
    x = doc.get(name)
    return x if isinstance(x, dict) else {}


def input_changes(old: dict, new: dict) -> list[tuple[str, object, object]]:
    """The inputs that differ (results.json 'inputs', the spec's accounting and title, the layout), by path."""
    def inputs(doc):
        flat = _flatten({k: v for k, v in _section(doc, "inputs").items() if k != "workloads"})  # the grid's
        spec = _section(doc, "spec")
        for k in ("accounting", "title", "sha256"):
            if k in spec:
                flat[f"spec.{k}"] = spec[k] if isinstance(spec[k], (str, int, float)) else str(spec[k])[:200]
        # the layout's degrees and GPUs, as results.json's 'parallel' section states them (none for one card)
        par = _section(doc, "parallel")
        flat.update({f"layout.{k}": par[k] for k in ("tp", "pp", "ep", "dp", "gpus", "redundant_experts") if k in par})
        return flat
    a, b = inputs(old), inputs(new)
    out = [(k, a.get(k), b.get(k)) for k in sorted(a.keys() | b.keys()) if a.get(k) != b.get(k)]
    out = [(k, a_, b_) if k != "spec.sha256" else (k, str(a_)[:12], str(b_)[:12]) for k, a_, b_ in out]
    digest = [x for x in out if x[0] == "spec.sha256"]
    rest = [x for x in out if x[0] != "spec.sha256"]
    return rest + digest if rest else digest  # the spec's digest last: it says the spec text changed at all


def _axes(quantities) -> dict[str, set]:
    axes: dict[str, set] = {}
    for q in quantities:
        for k, v in (q.get("params") or {}).items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                axes.setdefault(k, set()).add(v)
    return axes


def grid_changes(a_qs, b_qs) -> list[tuple[str, list, list]]:
    """Workload axes (batch, context, prompt, ...) whose points came or went: (axis, added, removed)."""
    a, b = _axes(a_qs), _axes(b_qs)
    out = []
    for axis in sorted(a.keys() | b.keys()):
        added, removed = sorted(b.get(axis, set()) - a.get(axis, set())), sorted(a.get(axis, set()) - b.get(axis, set()))
        if added or removed:
            out.append((axis, added, removed))
    return out


def _on_changed_grid(q: dict, grid: list[tuple[str, list, list]]) -> bool:
    params = q.get("params") or {}
    return any(params.get(axis) in set(added) | set(removed) for axis, added, removed in grid if axis in params)


def _axis(doc: dict, name: str) -> list:
    xs = _section(_section(doc, "inputs"), "workloads").get(name)
    return xs if isinstance(xs, list) else []


def _verdicts(doc: dict) -> dict:
    """The verdicts by what they are about: 'decode_binds at batch=64, context=8192', 'prefill_binds at
    prompt=2048', 'prefill_fits at prompt=102400' (results.json's inputs.workloads give the axes; without them, the
    indices)."""
    flat = {}
    batch, context, prompt = _axis(doc, "decode_batch"), _axis(doc, "decode_context"), _axis(doc, "prefill_prompt")
    for k, v in _section(doc, "verdicts").items():
        if k == "decode_binds" and isinstance(v, list) and batch and context and len(v) == len(batch) and all(
                isinstance(row, list) and len(row) == len(context) for row in v):
            for b_, row in zip(batch, v, strict=True):
                for s_, x in zip(context, row, strict=True):
                    flat[f"decode_binds at batch={b_}, context={s_}"] = x
        elif k in ("prefill_binds", "prefill_fits") and isinstance(v, list) and prompt and len(v) == len(prompt):
            for t_, x in zip(prompt, v, strict=True):
                flat[f"{k} at prompt={t_}"] = x
        else:
            flat.update(_flatten({k: v}))
    return {k: x if isinstance(x, (str, int, float, bool, type(None))) else str(x)[:200] for k, x in flat.items()}


def verdict_changes(old: dict, new: dict) -> list[tuple[str, object, object]]:
    """Verdicts that moved at the points both reports have (a grid point added or removed is the grid's)."""
    a, b = _verdicts(old), _verdicts(new)
    return [(k, a[k], b[k]) for k in sorted(a.keys() & b.keys()) if a[k] != b[k]]


def _serving(doc: dict) -> dict:
    """The serving chapter's answers by name (results.json's 'serving'): its own numbers ('users_batch',
    'gpus_for_users', 'tpot_batch', ...), the cheapest layout's ('cheapest.gpus', 'cheapest.usd_per_mtok_out',
    ...) and each row's at the titled layout, the bound's and the estimate's ('rows.2.serial.ttft',
    'rows.2.bound.usd_per_mtok_out', ...); not the frontier's curves, the technique rows or the table of points,
    which the quantities and the chapter give in full."""
    sv = _section(doc, "serving")
    flat = {k: v for k, v in sv.items() if isinstance(v, (str, int, float, bool, type(None)))}
    flat.update({f"cheapest.{k}": v for k, v in _section(sv, "cheapest").items()
                 if isinstance(v, (str, int, float, bool, type(None)))})
    rows = sv.get("rows")
    for i, row in enumerate(rows if isinstance(rows, list) else [], 1):  # the chapter's rows at the titled layout
        if not isinstance(row, dict):
            continue
        flat.update({f"rows.{i}.{k}": row.get(k) for k in ("label", "batch")})
        for side in ("bound", "serial"):  # its TTFT, TPOT, tok/s per GPU, $/M tokens: the bound's and the estimate's
            flat.update({f"rows.{i}.{side}.{k}": v for k, v in _section(row, side).items()
                         if isinstance(v, (str, int, float, bool, type(None)))})
    return flat


def _compared(doc: dict) -> dict:
    """The rows of chapter 7's other GPUs and other models (results.json's 'compare', 'compare_models') by name:
    'compare.h200.decode_tokens_per_s', 'compare_models.llama-3.2-3b.capacity_batch', ..."""
    flat = {}
    for section in ("compare", "compare_models"):
        rows = doc.get(section)
        for row in rows if isinstance(rows, list) else []:
            if isinstance(row, dict) and isinstance(row.get("name"), str):
                flat.update({f"{section}.{row['name']}.{k}": v for k, v in row.items()
                             if k not in ("name", "title") and isinstance(v, (str, int, float, bool, type(None)))})
    return flat


def compared_changes(old: dict, new: dict) -> list[tuple[str, object, object]]:
    """The comparison rows' numbers that moved (a what-if of the KV heads moves every other GPU's capacity)."""
    a, b = _compared(old), _compared(new)
    return [(k, a.get(k), b.get(k)) for k in sorted(a.keys() | b.keys()) if not _same(a.get(k), b.get(k))]


def _same(x, y) -> bool:
    """Equal, numbers to 1e-9 (a ratio recomputed from moved parts may differ in its last bit)."""
    if isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool) and \
            not isinstance(y, bool):
        return math.isclose(x, y, rel_tol=1e-9, abs_tol=0.0)
    return x == y


def serving_changes(old: dict, new: dict) -> list[tuple[str, object, object]]:
    """The serving chapter's answers that moved (a name on one side only reads "(none)" on the other): which GPUs,
    how many, at what cost, under the targets."""
    a, b = _serving(old), _serving(new)
    return [(k, a.get(k), b.get(k)) for k in sorted(a.keys() | b.keys()) if not _same(a.get(k), b.get(k))]


def _lead(doc: dict) -> str:
    acc = _section(doc, "spec").get("accounting")
    return acc if isinstance(acc, str) else ""


def compare(old: dict, new: dict, threshold: float = 1e-9, accounting: str | None = None) -> Diff:
    """Quantities of two results.json documents, matched by id and params.

    ``accounting``: compare only the quantities of that accounting ('seed', 'exact'); None, the new report's
    lead accounting where both documents name one (each number once), '' every accounting.
    """
    if accounting is None:
        accounting = _lead(new) if _lead(new) and _lead(new) == _lead(old) else ""
    keep = (lambda q: q.get("accounting", accounting) == accounting) if accounting else (lambda q: True)
    a_qs = [q for q in old.get("quantities", []) if keep(q)]
    b_qs = [q for q in new.get("quantities", []) if keep(q)]
    a = {_key(q): q for q in a_qs}
    b = {_key(q): q for q in b_qs}
    changed, same = [], 0
    for key in sorted(a.keys() & b.keys()):
        qa, qb = a[key], b[key]
        va, vb = qa.get("value"), qb.get("value")
        if va == vb:
            same += 1
            continue
        if va is not None and vb is not None and va != 0:
            if abs(vb / va - 1) <= threshold:
                same += 1
                continue
        elif va is not None and vb is not None and va == 0 and abs(vb) <= threshold:
            same += 1
            continue
        changed.append(Change(qa["id"], qa.get("params") or {}, va, vb, qb.get("unit") or qa.get("unit") or "",
                              _scope(qb) or _scope(qa)))
    changed.sort(key=lambda c: (-round(c.size, 9), c.id, _params_key(c.params)))
    grid = grid_changes(a_qs, b_qs)
    added = [b[k] for k in sorted(b.keys() - a.keys())]
    removed = [a[k] for k in sorted(a.keys() - b.keys())]
    on_grid = (sum(_on_changed_grid(q, grid) for q in added), sum(_on_changed_grid(q, grid) for q in removed))
    added = [q for q in added if not _on_changed_grid(q, grid)]
    removed = [q for q in removed if not _on_changed_grid(q, grid)]
    return Diff(changed, added, removed, same, input_changes(old, new), grid, on_grid, verdict_changes(old, new),
                serving_changes(old, new), compared_changes(old, new), accounting, (what_if_of(old), what_if_of(new)),
                any(isinstance(doc.get("parallel"), dict) and doc["parallel"].get("gpus", 1) != 1 for doc in (old, new)))


# How a table names a scope (results.json's ``scope``; docs/results.md, "Scope").
SCOPE_WORDS = {"gpu": "per GPU", "replica": "per replica", "deployment": "all GPUs", "model": "the model",
               "one_card": "one card"}


def _scope(q: dict) -> str:
    """Whose number an entry is: its ``scope``, or for a results.json written before entries carried one (a git
    revision), the scope its id has now (values.scope)."""
    from genreport.model.values import scope

    return q.get("scope") or scope(q["id"])


MAX_OVERRIDES = 64  # a what-if's --set arguments read from a results.json (each of at most MAX_OVERRIDE characters)
MAX_OVERRIDE = 1000


def what_if_of(doc: dict) -> tuple[str, ...] | None:
    """The ``--set`` arguments that made a what-if's results.json (its ``what_if.overrides``); None for a spec's own
    report, or where the block is not the list of strings genreport writes (the file is input: anything else is
    left unread, not trusted)."""
    block = doc.get("what_if")
    overrides = block.get("overrides") if isinstance(block, dict) else None
    if not isinstance(overrides, list) or not 0 < len(overrides) <= MAX_OVERRIDES \
            or not all(isinstance(o, str) and 0 < len(o) <= MAX_OVERRIDE for o in overrides):
        return None
    return tuple(overrides)


def _as_command(overrides: tuple[str, ...]) -> str:
    """``--set 'a=1' --set b=2``, each argument quoted as a shell reads it (control characters escaped by the caller)."""
    from genreport.load.overrides import as_arguments

    return as_arguments(overrides)


def _named(name: str, overrides: tuple[str, ...] | None) -> str:
    """A side's name, and the --set arguments that made it where it is a what-if."""
    return safe(name) + (f" (a what-if: {safe(_as_command(overrides))})" if overrides else "")


def _params_key(p: dict) -> tuple:
    """Sort parameters by value, numbers numerically: batch=2 before batch=16."""
    return tuple((k, (0, v, "") if isinstance(v, (int, float)) else (1, 0, str(v))) for k, v in sorted(p.items()))


def _params(p: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in p.items()) if p else ""


def _num(v) -> str:
    if v is None:
        return "none"
    v = float(v)
    if v == int(v) and abs(v) < 1e6:
        return f"{int(v):,}"
    return f"{v:.6g}"


def _ratio(c: Change) -> str:
    r = c.ratio
    if r is None:
        return "-"
    return f"{r:.4g}x"


def _value(v) -> str:
    if isinstance(v, bool) or v is None:
        return {True: "yes", False: "no", None: "(none)"}[v]
    if isinstance(v, (int, float)):
        return _num(v)
    return str(v)


def _short(text: str, width: int = 72) -> str:
    """``text`` cut to ``width`` characters (a layout's links run to 300): the JSON output keeps it whole."""
    return text if len(text) <= width else text[:width - 1] + "…"


def _axis_values(xs: list) -> str:
    return ", ".join(_num(x) for x in xs[:12]) + (f", ... ({len(xs)} in all)" if len(xs) > 12 else "")


def sections(d: Diff, limit: int = 0) -> list[tuple[str, list[str], list[list[str]], set[int], int]]:
    """What a review reads, in order: (title, header, rows, right-aligned columns, rows left out by ``limit``)
    for each non-empty part; ``limit`` caps each group of moved quantities, the verdicts, the serving answers and the
    other GPUs' rows."""
    out = []
    if d.inputs:
        out.append(("Inputs changed", ["input", "old", "new"],
                    [[k, _value(a), _value(b)] for k, a, b in d.inputs], set(), 0))
    if d.grid:
        rows = [[axis, _axis_values(added) or "-", _axis_values(removed) or "-"] for axis, added, removed in d.grid]
        out.append(("Workload grid changed", ["axis", "points added", "points removed"], rows, set(), 0))
    # the verdicts, the serving answers and the other GPUs' rows are capped by ``limit`` too, in their order (a review
    # found a what-if's 76 serving lines under --limit 5, and 8 verdicts under --limit 3)
    for title, header, items in (("Verdicts changed", "verdict", d.verdicts), ("Serving changed", "answer", d.serving),
                                 ("Other GPUs and models changed", "row.value", d.compared)):
        if items:
            kept = items[:limit] if limit else items
            out.append((title, [header, "old", "new"], [[k, _short(_value(a)), _short(_value(b))] for k, a, b in kept],
                        set(), len(items) - len(kept)))
    for title, _test in GROUPS:
        moved = [c for c in d.changed if group_of(c.id) == title]
        whose = (lambda c: [SCOPE_WORDS.get(c.scope, c.scope)]) if d.laid_out else (lambda c: [])
        rows = [[c.id, _params(c.params), _num(c.old), _num(c.new), _ratio(c), c.unit, *whose(c)]
                for c in (moved[:limit] if limit else moved)]
        if rows:
            more = len(moved) - len(rows)
            out.append((title + (f", the {len(rows)} largest" if more else ""),
                        ["quantity", "params", "old", "new", "new/old", "unit", *(["scope"] if d.laid_out else [])],
                        rows, {2, 3, 4}, more))
    for title, items in (("Added", d.added), ("Removed", d.removed)):
        if items:
            rows = [[q["id"], _params(q.get("params") or {}), _num(q.get("value")), q.get("unit", ""),
                     *([SCOPE_WORDS.get(_scope(q), _scope(q))] if d.laid_out else [])] for q in items]
            out.append((title, ["quantity", "params", "value", "unit", *(["scope"] if d.laid_out else [])], rows,
                        {2}, 0))
    return out


def _summary(d: Diff, limit: int) -> list[str]:
    scope = f"{d.accounting} accounting" if d.accounting else "every accounting"
    lines = []
    if d.changed:
        lines.append(f"{len(d.changed)} changed ({d.same} unchanged; {scope}), largest |log ratio| first in each group")
    else:
        lines.append(f"no quantity changed ({d.same} compared; {scope})")
    if any(d.on_grid):
        lines.append(f"{d.on_grid[0]} quantities at grid points added and {d.on_grid[1]} at grid points removed "
                     "are not listed one by one")
    return lines


def render(d: Diff, old_name: str, new_name: str, limit: int = 0) -> str:
    """The review as plain text for a terminal (user text escaped)."""
    lines = [f"--- {_named(old_name, d.what_if[0])}", f"+++ {_named(new_name, d.what_if[1])}"]
    summary = _summary(d, limit)
    lines.append(summary[0])
    for title, header, rows, right, more in sections(d, limit):
        lines.append("")
        lines.append(f"{title} ({len(rows) + more}):")
        lines += text_table([[safe(str(x)) for x in row] for row in rows], header, right)
        if more:
            lines.append(f"... {more} more (raise --limit)")
    if len(summary) > 1:
        lines.append("")
        lines += summary[1:]
    return "\n".join(lines)


def _md_cell(x) -> str:
    """A Markdown table cell of user text: control characters escaped, then markup neutralised."""
    return md_cell(safe(str(x)))


def render_markdown(d: Diff, old_name: str, new_name: str, limit: int = 0) -> str:
    """The review as GitHub-flavoured Markdown, for a pull-request comment."""
    summary = _summary(d, limit)
    lines = [f"### genreport diff: {_md_cell(old_name)} → {_md_cell(new_name)}", ""]
    for name, overrides in zip((old_name, new_name), d.what_if, strict=True):
        if overrides:
            lines += [f"{_md_cell(name)} is a what-if: {_md_cell(_as_command(overrides))}", ""]
    lines.append(summary[0])
    for title, header, rows, right, more in sections(d, limit):
        lines += ["", f"**{title}** ({len(rows) + more})", ""]
        lines += md_table([[safe(str(x)) for x in row] for row in rows], header, right)
        if more:
            lines += ["", f"_... {more} more (raise --limit)_"]
    if len(summary) > 1:
        lines += [""] + [f"_{_md_cell(x)}_" for x in summary[1:]]
    return "\n".join(lines)


def as_json(d: Diff) -> dict:
    """The review as data (``--format json``)."""
    return {"accounting": d.accounting or None, "unchanged": d.same,
            "what_if": {"old": list(d.what_if[0]) if d.what_if[0] else None,
                        "new": list(d.what_if[1]) if d.what_if[1] else None},
            "inputs": [{"input": k, "old": a, "new": b} for k, a, b in d.inputs],
            "grid": [{"axis": k, "added": a, "removed": r} for k, a, r in d.grid],
            "verdicts": [{"verdict": k, "old": a, "new": b} for k, a, b in d.verdicts],
            "serving": [{"answer": k, "old": a, "new": b} for k, a, b in d.serving],
            "compared": [{"row": k, "old": a, "new": b} for k, a, b in d.compared],
            "changed": [{"id": c.id, "params": c.params, "old": c.old, "new": c.new, "ratio": c.ratio, "unit": c.unit,
                         "scope": c.scope, "group": group_of(c.id)} for c in d.changed],
            "added": [{"id": q["id"], "params": q.get("params") or {}, "value": q.get("value"), "scope": _scope(q)}
                      for q in d.added],
            "removed": [{"id": q["id"], "params": q.get("params") or {}, "value": q.get("value"), "scope": _scope(q)}
                        for q in d.removed],
            "on_grid": {"added": d.on_grid[0], "removed": d.on_grid[1]}}


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if not (math.isfinite(args.threshold) and args.threshold >= 0):
        raise _err(f"--threshold {args.threshold}", "must be a number, 0 or more", "e.g. --threshold 0.01 for 1 %")
    if args.limit < 0:
        raise _err(f"--limit {args.limit}", "must be 0 (all rows) or more", "e.g. --limit 20")
    old, new = read_results(args.old), read_results(args.new)
    accounting = {"lead": None, "all": ""}.get(args.accounting, args.accounting)
    d = compare(old, new, args.threshold, accounting)
    if args.format == "json":
        print(json.dumps(as_json(d), indent=1, sort_keys=True, ensure_ascii=True))
    elif args.format == "md":
        print(render_markdown(d, args.old, args.new, args.limit))
    else:
        print(render(d, args.old, args.new, args.limit))
    if args.exit_code and (d.changed or d.added or d.removed or d.inputs or d.grid or d.verdicts or d.serving
                           or d.compared):
        return 4
    return 0
