"""``genreport diff OLD NEW``: which quantities of two reports changed, and by how much.

OLD and NEW are each a report folder (holding ``results.json``), a ``results.json`` file, or a
git revision and path, ``REV:PATH`` (``HEAD~3:out/llama8b-h100``), read with ``git show``.
Quantities are matched by id and parameters; the table is sorted by |log(new/old)|, largest
first; added and removed quantities are listed after it.  The exit status is 0 whatever
changed, unless ``--exit-code`` asks for 1 on a difference.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from genreport.errors import Finding, SpecError
from genreport.fileio import ReadError, read_regular
from genreport.terminal import safe


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="genreport diff", allow_abbrev=False,
        description="Compare the quantities of two reports (folders, results.json files or REV:PATH git revisions).",
        epilog="example: genreport diff HEAD~3:out/llama8b-h100 out/llama8b-h100")
    p.add_argument("old", metavar="OLD", help="report folder, results.json, or REV:PATH")
    p.add_argument("new", metavar="NEW", help="report folder, results.json, or REV:PATH")
    p.add_argument("--threshold", type=float, default=1e-9, metavar="REL",
                   help="report a change only above this relative size |new/old - 1| (default 1e-9)")
    p.add_argument("--limit", type=int, default=0, metavar="N",
                   help="show at most N changed rows (0, the default: all)")
    p.add_argument("--exit-code", action="store_true", help="exit 1 when anything changed")
    return p


MAX_BYTES = 64 * 2**20  # a results.json is a few MB even for a large decode grid
MAX_DIGITS = 300  # longer integers are not genreport's (and do not fit a float)
_REV = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./@{}~^+-]*")  # HEAD~3, main@{1}, v1.0^, a1b2c3d, origin/main


def _err(where: str, message: str, hint: str = "") -> SpecError:
    where = where if len(where) <= 120 else where[:100] + "..."
    return SpecError([Finding(where, 1, 1, "", message, hint)])


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
    problems = []
    for i, q in enumerate(qs):
        bad = _bad_quantity(q)
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


def compare(old: dict, new: dict, threshold: float = 1e-9) -> Diff:
    """Quantities of two results.json documents, matched by id and params."""
    a = {_key(q): q for q in old.get("quantities", [])}
    b = {_key(q): q for q in new.get("quantities", [])}
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
        changed.append(Change(qa["id"], qa.get("params") or {}, va, vb, qb.get("unit") or qa.get("unit") or ""))
    changed.sort(key=lambda c: (-round(c.size, 9), c.id, _params_key(c.params)))
    added = [b[k] for k in sorted(b.keys() - a.keys())]
    removed = [a[k] for k in sorted(a.keys() - b.keys())]
    return Diff(changed, added, removed, same)


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


def table(rows: list[list[str]], header: list[str], right: set[int]) -> list[str]:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    out = []
    for i, row in enumerate([header, *rows]):
        cells = [str(x).rjust(w) if j in right else str(x).ljust(w) for j, (x, w) in enumerate(zip(row, widths,
                                                                                                    strict=True))]
        out.append("  ".join(cells).rstrip())
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    return out


def render(d: Diff, old_name: str, new_name: str, limit: int = 0) -> str:
    lines = [f"--- {safe(old_name)}", f"+++ {safe(new_name)}"]
    shown = d.changed[:limit] if limit else d.changed
    if d.changed:
        rows = [[safe(c.id), safe(_params(c.params)), _num(c.old), _num(c.new), _ratio(c), safe(c.unit)] for c in shown]
        lines.append(f"{len(d.changed)} changed ({d.same} unchanged), largest |log ratio| first:")
        lines += table(rows, ["quantity", "params", "old", "new", "new/old", "unit"], {2, 3, 4})
        if len(shown) < len(d.changed):
            lines.append(f"... {len(d.changed) - len(shown)} more (raise --limit)")
    else:
        lines.append(f"no quantity changed ({d.same} compared)")
    for title, items in (("added", d.added), ("removed", d.removed)):
        if items:
            lines.append(f"{len(items)} {title}:")
            rows = [[safe(q["id"]), safe(_params(q.get("params") or {})), _num(q.get("value")), safe(q.get("unit", ""))]
                    for q in items]
            lines += ["  " + r for r in table(rows, ["quantity", "params", "value", "unit"], {2})]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if not (math.isfinite(args.threshold) and args.threshold >= 0):
        raise _err(f"--threshold {args.threshold}", "must be a number, 0 or more", "e.g. --threshold 0.01 for 1 %")
    if args.limit < 0:
        raise _err(f"--limit {args.limit}", "must be 0 (all rows) or more", "e.g. --limit 20")
    old, new = read_results(args.old), read_results(args.new)
    d = compare(old, new, args.threshold)
    print(render(d, args.old, args.new, args.limit))
    if args.exit_code and (d.changed or d.added or d.removed):
        return 1
    return 0
