"""Tables out of the command line: one table or several, for a terminal, Markdown, CSV or JSON.

``table`` text is what a terminal shows (the caller escapes user text with :func:`genreport.terminal.safe`);
``md`` pastes into a pull request or an issue; ``csv`` and ``json`` carry each table's records with numbers in SI
units, for a script or a spreadsheet.  A CSV cell that a spreadsheet would read as a formula (``=``, ``+``,
``-``, ``@``, a tab, a line break or their fullwidth forms first) is written behind a single quote, as ``audit``
does (:data:`FORMULA_START`, shared).
"""

from __future__ import annotations

import csv
import io
import json

FORMATS = ("table", "md", "csv", "json")


def text_table(rows: list[list[str]], header: list[str], right: set[int]) -> list[str]:
    """Aligned columns under a ruled header (``right``: the columns aligned right, numbers)."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    out = []
    for i, row in enumerate([header, *rows]):
        cells = [str(x).rjust(w) if j in right else str(x).ljust(w)
                 for j, (x, w) in enumerate(zip(row, widths, strict=True))]
        out.append("  ".join(cells).rstrip())
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    return out


def md_cell(x) -> str:
    """A Markdown table cell: pipes, backticks, markup and newlines neutralised."""
    text = str(x).replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`").replace("\n", " ")
    return text.replace("<", "&lt;").replace(">", "&gt;").replace("*", "\\*").replace("_", "\\_") or " "


def md_table(rows: list[list[str]], header: list[str], right: set[int]) -> list[str]:
    return (["| " + " | ".join(md_cell(h) for h in header) + " |",
             "|" + "|".join("---:" if j in right else "---" for j in range(len(header))) + "|"]
            + ["| " + " | ".join(md_cell(x) for x in row) + " |" for row in rows])


# What a spreadsheet reads as the start of a formula (the fullwidth forms too): such a text cell is written behind
# a single quote (OWASP, "CSV Injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def csv_cell(x):
    """A CSV cell: numbers as they are, None empty, a truth value as JSON writes it (``true``, as sweep's CSV; Python's
    ``True`` is neither), a text that a spreadsheet would evaluate neutralised."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, str) and x.startswith(FORMULA_START):
        return "'" + x
    return "" if x is None else x


def _plain(x):
    """A whole float as an int (42949672960, not 42949672960.0), so that counts read as counts."""
    return int(x) if isinstance(x, float) and x.is_integer() and abs(x) < 2**53 else x


def emit(parts: list[tuple], fmt: str) -> str:
    """``parts``: (title, header, rows as shown, right-aligned columns, records) for each table."""
    parts = [(t, h, r, a, [{k: _plain(v) for k, v in rec.items()} for rec in records]) for t, h, r, a, records in parts]
    if fmt == "json":
        return json.dumps({title: records for title, _h, _r, _a, records in parts}, indent=1, sort_keys=True,
                          ensure_ascii=False)
    if fmt == "csv":  # one table a CSV document; several go one after the other, each under a '# title' line
        out = []
        for title, _h, _r, _a, records in parts:
            buf = io.StringIO()
            if len(parts) > 1:
                buf.write(f"# {title}\n")
            keys = list(records[0]) if records else []
            w = csv.writer(buf, lineterminator="\n")
            w.writerow(keys)
            for r in records:
                w.writerow([csv_cell(r[k]) for k in keys])
            out.append(buf.getvalue().rstrip("\n"))
        return "\n\n".join(out)
    if fmt == "md":
        return "\n\n".join(f"**{md_cell(title)}** ({len(rows)})\n\n" + "\n".join(md_table(rows, header, right))
                            for title, header, rows, right, _rec in parts)
    return "\n\n".join(f"{title} ({len(rows)}):\n" + "\n".join(text_table(rows, header, right))
                        for title, header, rows, right, _rec in parts)
