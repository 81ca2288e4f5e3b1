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
import subprocess
from dataclasses import dataclass
from pathlib import Path

from genreport.errors import Finding, SpecError
from genreport.fileio import ReadError, read_regular


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="genreport diff",
        description="Compare the quantities of two reports (folders, results.json files or REV:PATH git revisions).",
        epilog="example: genreport diff HEAD~3:out/llama8b-h100 out/llama8b-h100")
    p.add_argument("old", metavar="OLD", help="report folder, results.json, or REV:PATH")
    p.add_argument("new", metavar="NEW", help="report folder, results.json, or REV:PATH")
    p.add_argument("--threshold", type=float, default=1e-9, metavar="REL",
                   help="report a change only above this relative size |new/old - 1| (default 1e-9)")
    p.add_argument("--limit", type=int, default=0, metavar="N", help="show at most N changed rows (0: all)")
    p.add_argument("--exit-code", action="store_true", help="exit 1 when anything changed")
    return p


def _err(where: str, message: str, hint: str = "") -> SpecError:
    return SpecError([Finding(where, 1, 1, "", message, hint)])


RESULTS_LIMIT = 1 << 30  # bytes; a results.json of a large decode grid is a few hundred MB


def read_results(ref: str, cwd: Path | None = None) -> dict:
    """The parsed results.json of a folder, a file, or ``REV:PATH`` (git, run without a shell)."""
    path = Path(cwd or Path.cwd()) / ref
    if path.is_dir():
        path = path / "results.json"
    if path.is_file():
        try:
            return json.loads(read_regular(path, RESULTS_LIMIT).decode("utf-8"))
        except (ReadError, ValueError) as exc:
            raise _err(ref, f"cannot read {path}: {exc}", "is it a results.json written by genreport?") from None
    if ":" in ref:
        rev, _, rel = ref.partition(":")
        if not rev:
            raise _err(ref, "no revision before ':'", "write e.g. HEAD~1:out/llama8b-h100")
        rel = rel.strip("/") or "."
        candidates = [rel] if rel.endswith(".json") else [f"{rel}/results.json", rel]
        last = ""
        for cand in candidates:
            try:
                proc = subprocess.run(["git", "show", f"{rev}:{cand}"], capture_output=True, cwd=cwd or Path.cwd(),
                                      check=False)
            except OSError as exc:
                raise _err(ref, f"cannot run git: {exc}", "install git, or compare folders") from None
            if proc.returncode == 0:
                try:
                    return json.loads(proc.stdout.decode("utf-8"))
                except ValueError:
                    last = f"{rev}:{cand} is not JSON"
                    continue
            last = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["git show failed"]
            last = last[0]
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
    lines = [f"--- {old_name}", f"+++ {new_name}"]
    shown = d.changed[:limit] if limit else d.changed
    if d.changed:
        rows = [[c.id, _params(c.params), _num(c.old), _num(c.new), _ratio(c), c.unit] for c in shown]
        lines.append(f"{len(d.changed)} changed ({d.same} unchanged), largest |log ratio| first:")
        lines += table(rows, ["quantity", "params", "old", "new", "new/old", "unit"], {2, 3, 4})
        if len(shown) < len(d.changed):
            lines.append(f"... {len(d.changed) - len(shown)} more (raise --limit)")
    else:
        lines.append(f"no quantity changed ({d.same} compared)")
    for title, items in (("added", d.added), ("removed", d.removed)):
        if items:
            lines.append(f"{len(items)} {title}:")
            rows = [[q["id"], _params(q.get("params") or {}), _num(q.get("value")), q.get("unit", "")] for q in items]
            lines += ["  " + r for r in table(rows, ["quantity", "params", "value", "unit"], {2})]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.threshold < 0:
        raise _err(f"--threshold {args.threshold}", "must be 0 or more", "e.g. --threshold 0.01 for 1 %")
    old, new = read_results(args.old), read_results(args.new)
    d = compare(old, new, args.threshold)
    print(render(d, args.old, args.new, args.limit))
    if args.exit_code and (d.changed or d.added or d.removed):
        return 1
    return 0
