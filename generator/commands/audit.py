"""``genreport audit CLAIMS.csv``: published measurements in, one verdict per row out.

Each row is checked against the physical bound of :mod:`genreport.model.audit`: ``ok``, ``impossible``
(it beats the bound: by how much, and the likely mislabel), ``unknown model`` or ``unknown hardware``.
Exit status 0 even when rows are impossible (an audit, not a check); 1 on malformed input, with every
problem as file:line.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

from genreport.commands.options import Parser, add_verbosity
from genreport.commands.tables import FORMULA_START
from genreport.errors import Finding, Findings, SpecError
from genreport.paths import display, project_root_for
from genreport.terminal import safe

COLUMNS = ("id", "model", "hardware", "gpus", "tp", "pp", "precision", "batch", "input_tokens", "output_tokens",
           "metric", "value", "source")
REQUIRED = ("id", "model", "hardware", "metric", "value")
# column -> minimum: a request reads at least one prompt token and generates at least one (0 was read as 1 unsaid)
INTEGERS = {"gpus": 1, "tp": 1, "pp": 1, "batch": 1, "input_tokens": 1, "output_tokens": 1}
FORMATS = ("table", "csv", "json")
UNKNOWN = ("nan", "na", "n/a", "none", "null", "-", "?", "unknown")  # written for "not stated"; read as an empty cell
OUT_COLUMNS = ("id", "verdict", "metric", "value", "bound", "unit", "mbu", "mfu", "why")
MAX_BYTES = 10_000_000  # a claims file is a few kB a hundred rows
MAX_ROWS = 10_000  # about 1 ms a row: 10 s
# The largest whole numbers a claim may state (column -> most): the report schema's bounds (4,096-way tensor and
# pipeline parallelism, 10^8 tokens or sequences) and a million GPUs. Past them the bound overflows a float
# (a batch of 1e300 divided by zero; 1e308 everywhere gave "nanx the bound"), and no system is that large.
MOST = {"gpus": 1_000_000, "tp": 4096, "pp": 4096, "batch": 100_000_000, "input_tokens": 100_000_000,
        "output_tokens": 100_000_000}
VALUES = (1e-12, 1e15)  # a claimed value's range in any metric's unit: ratios to the bound stay finite
# A spreadsheet evaluates a cell that starts with one of these as a formula (=HYPERLINK(...) opens a link,
# +, - and @ start one too, and a tab or carriage return is skipped before the check); the full-width forms
# are taken as the same by some. OWASP's "CSV injection" advice: prefix such a cell with a single quote.


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="genreport audit", allow_abbrev=False,
        description="Check published measurements against the physical bound. Columns: " + ", ".join(COLUMNS)
        + "; an empty cell means unknown (the loosest bound is used). metric: tokens_per_s (total), "
          "tokens_per_s_per_gpu, ms_per_token, ttft_ms, e2e_ms, mbu, mfu. Exit 0 even when rows are impossible.")
    p.add_argument("claims", metavar="CLAIMS.csv", help="a CSV of published measurements")
    p.add_argument("--format", default="table", metavar="FORMAT",
                   help="table (default), csv or json, on standard output")
    add_verbosity(p)
    return p


@dataclass
class Row:
    line: int
    cells: dict[str, str]


def read_rows(path: Path) -> list[Row]:
    """The CSV's data rows with their line numbers; SpecError with every malformed cell."""
    from genreport.fileio import ReadError, read_regular

    shown = display(path)
    try:
        text = read_regular(path, MAX_BYTES).decode("utf-8-sig")
    except (ReadError, UnicodeDecodeError) as exc:
        raise SpecError([Finding(shown, 1, 1, "", f"cannot read the claims file: {exc}",
                                 "give a UTF-8 CSV file")]) from None
    reader = csv.reader(io.StringIO(text))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise SpecError([Finding(shown, 1, 1, "", "the file is empty", "start with the header line: "
                                 + ",".join(COLUMNS))]) from None
    except csv.Error as exc:
        raise SpecError([Finding(shown, 1, 1, "", f"not CSV: {exc}", "check the quoting")]) from None
    import difflib

    seen: set[str] = set()
    for h in header:  # a column named twice: the last cell won, unsaid
        if h in seen:
            raise SpecError([Finding(shown, 1, 1, "", f"column '{h}' is named twice in the header",
                                     "name each column once")])
        seen.add(h)
    for h in header:  # other columns are the reader's notes (published.csv's expect, why), but not a column misspelt:
        # 'gpu' for gpus left the GPUs unknown, the loosest, and a claim on too few GPUs passed
        close = difflib.get_close_matches(h.lower(), [c for c in COLUMNS if c not in header], n=1, cutoff=0.75)
        if h not in COLUMNS and close:
            raise SpecError([Finding(shown, 1, 1, "", f"column '{h}' is not one the audit reads",
                                     f"did you mean '{close[0]}'? (columns: {','.join(COLUMNS)})")])
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise SpecError([Finding(shown, 1, 1, "", f"the header lacks {', '.join(missing)}",
                                 "the header line names the columns: " + ",".join(COLUMNS))])
    rows = []
    start = reader.line_num + 1
    try:
        for cells in reader:
            line, start = start, reader.line_num + 1
            if not any(c.strip() for c in cells):
                continue
            spread = next((h for h, c in zip(header, cells, strict=False) if "\n" in c or "\r" in c), None)
            if spread is not None:  # a quote left open swallowed the rows below into this cell, unsaid
                raise SpecError([Finding(shown, line, 1, "", f"the '{spread}' cell runs over lines {line}-{start - 1}: "
                                         "a quote opened in it is not closed",
                                         "close the quote on the same line (a claim is one line)")])
            if len(cells) != len(header):
                raise SpecError([Finding(shown, line, 1, "", f"{len(cells)} cells, the header has {len(header)}",
                                         "quote cells that contain commas")])
            row = {h: ("" if c.strip().lower() in UNKNOWN and h not in REQUIRED else c.strip())
                   for h, c in zip(header, cells, strict=True)}
            for col in ("metric", "precision"):  # "FP8", "Tokens_per_s": the meaning is plain
                if col in row:
                    row[col] = row[col].lower()
            rows.append(Row(line, row))
            if len(rows) > MAX_ROWS:
                raise SpecError([Finding(shown, line, 1, "", f"more than {MAX_ROWS:,} claims",
                                         "split the file: an audit takes about 1 ms a row")])
    except csv.Error as exc:
        raise SpecError([Finding(shown, start, 1, "", f"not CSV: {exc}", "check the quoting")]) from None
    if not rows:  # a header alone printed "0 rows:" and exited 0, as if every claim had passed
        raise SpecError([Finding(shown, 1, 1, "", "no claim below the header",
                                 "add a row for each published measurement, one per line")])
    return rows


def _plain_number(text: str) -> str:
    """'1,846' and '22_300' as published -> '1846', '22300'; anything else unchanged (and then refused).  ASCII digits
    only: Python's float reads '١٠٠' (Arabic-Indic) as 100 where a spec refuses it (hostile review, stop 75), so any
    other character is a ValueError here."""
    import re

    if not text.isascii():
        raise ValueError(text)
    return text.replace(",", "").replace("_", "") if re.fullmatch(r"\d{1,3}([,_]\d{3})+(\.\d+)?", text, re.ASCII) \
        else text


def _claims(path: Path, rows: list[Row]):
    """(row, Claim or None, unknown verdict, why) per row; SpecError with every malformed cell at once."""
    from genreport.load.loader import load_hardware, load_model, resolve_ref
    from genreport.model.audit import METRICS, PRECISIONS, Claim

    shown = display(path)
    root = project_root_for(path)
    findings = Findings()
    cache: dict[tuple[str, str], object] = {}
    seen: dict[str, int] = {}

    def bad(row: Row, column: str, message: str, hint: str) -> None:
        findings.add(Finding(shown, row.line, 1, column, message, hint))

    def ref(row: Row, kind: str):
        text = row.cells[kind]
        key = (kind, text)
        if key not in cache:
            target, message, hint = resolve_ref(text, kind, path.parent, root) if text else \
                (None, f"no {kind} given", f"name a catalog {kind} (genreport list)")
            if target is None and text and text.lower() != text:  # "H100-SXM" is the catalog's h100-sxm
                target = resolve_ref(text.lower(), kind, path.parent, root)[0]
            if target is None:
                cache[key] = (None, f"{message}; {hint}" if hint else message)
            else:
                try:
                    cache[key] = ((load_hardware if kind == "hardware" else load_model)(target), "")
                except SpecError as exc:
                    for f in exc.findings:
                        findings.add(f)
                    cache[key] = (None, f"the {kind} spec is invalid")
        return cache[key]

    out = []
    for row in rows:
        c = row.cells
        ok = True
        if not c["id"]:
            bad(row, "id", "the id is empty", "give every row a unique id")
            ok = False
        elif c["id"] in seen:
            bad(row, "id", f"id '{c['id']}' repeats line {seen[c['id']]}", "give every row a unique id")
            ok = False
        else:
            seen[c["id"]] = row.line
        if c["metric"] not in METRICS:
            import difflib

            close = difflib.get_close_matches(c["metric"], METRICS, n=1)
            bad(row, "metric", f"'{c['metric']}' is not a metric",
                f"did you mean '{close[0]}'?" if close else "one of " + ", ".join(METRICS))
            ok = False
        try:
            value = float(_plain_number(c["value"]))
            if not math.isfinite(value) or value <= 0:
                raise ValueError
        except ValueError:
            bad(row, "value", f"'{c['value']}' is not a positive number", "write the number alone, e.g. 126.9")
            ok = False
            value = 0.0
        else:
            if not VALUES[0] <= value <= VALUES[1]:
                bad(row, "value", f"'{c['value']}' is out of range: a claimed value is between {VALUES[0]:g} and "
                    f"{VALUES[1]:g} in the metric's unit", "check the number and its unit: ms, token/s, or a "
                    "fraction for mbu and mfu")
                ok = False
        ints: dict[str, int | None] = {}
        for col, least in INTEGERS.items():
            text = c.get(col, "")
            if not text:
                ints[col] = None
                continue
            zero = False
            try:
                x = float(_plain_number(text))  # "128.0", as a table tool writes a column with gaps, is 128
                zero = x == 0
                if not x.is_integer() or x < least:
                    raise ValueError
                n = int(x)
            except ValueError:
                bad(row, col, f"'{text}' is not a whole number{' >= 1' if least else ''}",
                    ("a request reads at least one prompt token and generates at least one: write the count, or "
                     "leave the cell empty if unknown") if col.endswith("_tokens") and zero
                    else "write an integer, or leave the cell empty if unknown")
                ok = False
                continue
            if n > MOST[col]:
                bad(row, col, f"'{text}' is more than {MOST[col]:,}", "check the number, or leave the cell empty if "
                    "unknown: the loosest bound is then used")
                ok = False
                continue
            ints[col] = n
        tp, pp = ints.get("tp") or 1, ints.get("pp") or 1
        if ok and ints.get("gpus") and tp * pp > ints["gpus"]:  # a layout wider than the row's GPUs (gpus 1, tp 8
            # was audited as one GPU)
            bad(row, "tp" if ints.get("tp") else "pp", f"tp {tp} x pp {pp} needs {tp * pp} GPUs, the row gives "
                f"{ints['gpus']}", "check gpus, tp and pp (gpus counts every GPU), or leave tp and pp empty")
            ok = False
        precision = c.get("precision", "") or None
        if precision is not None and precision not in PRECISIONS:
            import difflib

            close = difflib.get_close_matches(precision.lower(), PRECISIONS, n=1)
            bad(row, "precision", f"'{precision}' is not a precision",
                f"did you mean '{close[0]}'?" if close else "one of " + ", ".join(PRECISIONS))
            ok = False
        if not ok:
            out.append((row, None, "", ""))
            continue
        model, why_m = ref(row, "model")
        hw, why_h = ref(row, "hardware")
        if model is None:
            out.append((row, None, "unknown model", why_m))
            continue
        if hw is None:
            out.append((row, None, "unknown hardware", why_h))
            continue
        out.append((row, Claim(c["id"], model, hw, c["metric"], value, ints["gpus"], ints["tp"], ints["pp"],
                               precision, ints["batch"], ints["input_tokens"], ints["output_tokens"]), "", ""))
    findings.raise_if_errors()
    return out


def audit(path: Path) -> list[dict]:
    """One result dict per row of the claims file at ``path`` (no printing)."""
    from genreport.load.loader import catalog_names, load_hardware, resolve_ref
    from genreport.model.audit import METRICS, finite, variants_of, verdict

    path = Path(path)
    rows = read_rows(path)
    claims = _claims(path, rows)
    root = project_root_for(path)
    catalog = {}
    for name in catalog_names("hardware", root):
        target, _, _ = resolve_ref(name, "hardware", path.parent, root)
        if target is not None:
            try:
                catalog[name] = load_hardware(target)
            except SpecError:
                continue
    results = []
    for row, claim, unknown, why in claims:
        cells = row.cells
        base = {"id": cells["id"], "line": row.line, "metric": cells["metric"],
                "value": float(_plain_number(cells["value"])),
                "unit": METRICS.get(cells["metric"], ""), "model": cells["model"], "hardware": cells["hardware"],
                "source": cells.get("source", "")}
        if claim is None:
            results.append({**base, "verdict": unknown, "bound": None, "mbu": None, "mfu": None, "why": why,
                            "binds": "", "layout": "", "assumed": {}})
            continue
        v, b, why = verdict(claim, variants_of(claim.hardware, catalog))
        if v == "ok" and b.value is None:
            why = "no bound: " + "; ".join(str(x) for x in b.assumed.values())
        results.append({**base, "verdict": v, "bound": finite(b.value), "mbu": finite(b.mbu), "mfu": finite(b.mfu),
                        "why": why, "binds": b.binds, "layout": b.layout, "assumed": dict(b.assumed)})
    return results


def _num(x) -> str:
    if x is None:
        return "-"
    from genreport.present import fmt

    return fmt.sig4(x) if abs(x) >= 1 else f"{x:.3g}"  # 123,456 token/s, never '1.235e+05'


def table(results: list[dict]) -> str:
    head = ["id", "verdict", "metric", "value", "bound", "MBU", "MFU", "why"]
    body = [[r["id"], r["verdict"], r["metric"], _num(r["value"]), _num(r["bound"]), _num(r["mbu"]),
             _num(r["mfu"]), r["why"]] for r in results]
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head) - 1)]
    lines = []
    for x in [head, *body]:
        cells = [x[i].ljust(widths[i]) if i < 3 else x[i].rjust(widths[i]) for i in range(len(widths))]
        lines.append("  ".join(cells) + "  " + x[-1])
    counts = {}
    for r in results:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    lines.append("")
    lines.append(f"{len(results)} rows: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    return "\n".join(line.rstrip() for line in lines) + "\n"


def as_csv(results: list[dict]) -> str:
    """The rows as CSV for a spreadsheet or a script: numbers as Python writes floats, and every text cell that a
    spreadsheet would take as a formula (an id ``=HYPERLINK(...)`` or ``-2+3`` from a claims file, a ``why`` that
    quotes one) behind a single quote, so it is shown as text and never evaluated."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(OUT_COLUMNS)
    for r in results:
        w.writerow([_cell(r[k]) for k in OUT_COLUMNS])
    return buf.getvalue()


def _cell(x) -> str:
    if x is None:
        return ""
    if isinstance(x, float):  # a number genreport computed or read as one (a negative one too) stays a number
        return repr(x)
    text = str(x)
    return "'" + text if text.startswith(FORMULA_START) else text


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.format not in FORMATS:
        raise SpecError([Finding(f"--format {args.format}", 0, 0, "", f"unknown format '{args.format}'",
                                 "use table, csv or json")])
    path = Path(args.claims)
    try:
        found = "\0" not in args.claims and path.is_file()
    except OSError:  # a name too long for the file system
        found = False
    if not found:  # a folder, a FIFO or a device is there but no file to read (they read "no such file")
        what = "no such file"
        try:
            if "\0" not in args.claims and path.is_dir():
                what = "is a folder"
            elif "\0" not in args.claims and path.exists():
                what = "is not a regular file"
        except OSError:
            pass
        raise SpecError([Finding(args.claims, 0, 0, "", what, "give the path of a CSV of claims")])
    results = audit(path)
    if args.format == "json":
        text = json.dumps({"rows": results}, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    elif args.format == "csv":
        text = as_csv(results)
    else:
        text = table(results)
    sys.stdout.write(safe(text, newlines=True) if args.format == "table" else text)  # the table is for a terminal
    return 0
