"""Column widths for the printed tables, computed here so WeasyPrint need not measure every cell.

WeasyPrint's automatic table layout measures each cell's widest line and longest word with Pango before it lays a
table out: 0.2 s of the 8B report's 1.2 s layout (some 700 cells). The report's tables are simple (text, numbers,
pills, inline formula images; no spans, no nested tables), its fonts fixed (DejaVu Sans), and every table is as
wide as the page's text. So :func:`fix_tables` measures the cells itself, with the fonts' advance widths
(``font_widths.json.gz`` beside this module, written by ``python -m genreport.printing.colwidths`` from the DejaVu
fonts that ``scripts/setup`` installs), distributes the width as CSS's automatic layout does (between the columns'
min-content and max-content widths, or the excess in proportion to max-content), and writes the result into the
printed HTML as a ``<colgroup>`` under ``table-layout: fixed``. The screen HTML keeps the browser's layout.

The measures err wide: no kerning, and a word breaks only at a space (Pango may also break after a hyphen), so a
column is never narrower than its longest word. A table with anything this module does not know how to measure
(an element or class not listed in ``_STYLES``, a ``colspan``, a table inside a table), or whose longest words do
not fit the page side by side, keeps the automatic layout. The printed HTML is a function of the report alone: the
widths come from shipped data, never from this machine's fonts.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import html as htmllib
import json
import re
import sys
from functools import cache, lru_cache
from pathlib import Path

SHIPPED = Path(__file__).resolve().parent / "font_widths.json.gz"

# Print geometry (templates/report.css, @page and @media print): A4 with 15 mm side margins, 10 pt root font.
PX_PER_MM = 96 / 25.4
TEXT_WIDTH = (210 - 2 * 15) * PX_PER_MM  # px: every table is 100% of it (in a .scroll box with no padding)
REM = 10 * 96 / 72  # px
TABLE_FONT = {"": 0.82 * REM, "decision": 0.74 * REM, "inputs": 0.74 * REM}
CELL_PAD = {"": 0.4 * REM, "decision": 0.3 * REM, "inputs": 0.4 * REM}  # left and right, each
TH_SCALE = 0.95
SMALLER = 1 / 1.2  # WeasyPrint's 'font-size: smaller' (sub, sup, small)
SLACK = 1.02  # every measure a little wider than measured: hinting and rounding never make a word not fit

# What each element inside a cell does to its text (the stylesheet's rules for it): None, nothing; ("bold",);
# ("rem", size): a size in rem; ("scale", factor) of the size; ("mono", factor): DejaVu Sans Mono at factor x the
# size; ("pill", size in rem, padding in rem each side): an inline block that does not break. An element or class
# not listed makes the table keep the automatic layout.
_STYLES = {
    ("span", ""): None, ("span", "ok"): ("bold",), ("span", "bad"): ("bold",),
    ("span", "meta"): ("rem", 0.85), ("span", "nowrap"): None,  # render.keep_units' units with a slash: one word
    ("span", "pill"): ("pill", 0.75, 0.45),
    ("a", ""): None, ("strong", ""): ("bold",), ("b", ""): ("bold",),
    ("sub", ""): ("scale", SMALLER), ("sup", ""): ("scale", SMALLER), ("small", ""): ("scale", SMALLER),
    ("code", ""): ("mono", 0.85),
}
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>|([^<]+)")
_CLASS = re.compile(r'\bclass="([^"]*)"')
_SRC = re.compile(r'\bsrc="data:image/svg\+xml;base64,([A-Za-z0-9+/=]{0,400})')
_WIDTH = re.compile(rb'<svg\b[^>]*?\swidth="([0-9.]+)(px)?"')
_TABLE = re.compile(r"<table\b([^>]*)>(.*?)</table>", re.S)
_BOX = re.compile(r"<div\b([^>]*)>\s*\Z")
_CELL_CLASSES = {"", "n"}  # td.n, th.n: right-aligned numbers, the same font
_VOID = {"wbr"}  # (br and img are measured)
# UAX #14 (LB13, LB14, LB16, LB17): no line break before a closing bracket, an infix separator (, . : ;), a
# symbol that allows a break only after it (/), ! or ?, even after spaces; none after an opening bracket. A word
# starting with one stays with the word before, its space included.
_NO_BREAK_BEFORE = frozenset(")]},.:;/!?}\u2019\u201d%\u2030")
_NO_BREAK_AFTER = frozenset("([{\u2018\u201c")


class _Unknown(Exception):
    """Something in a table this module does not measure."""


@cache
def _widths() -> dict | None:
    """Font name -> (advance by character, advance of the font's widest glyph, 1 / units per em); advances in
    font units. None when the shipped table cannot be read."""
    from genreport.fileio import ReadError, read_regular

    try:
        data = json.loads(gzip.decompress(read_regular(SHIPPED, 1 << 20)))
        fonts = {name: (font["advances"], font["fallback"], 1.0 / font["upem"])
                 for name, font in data["fonts"].items()}
    except (ReadError, OSError, ValueError, KeyError, TypeError, ZeroDivisionError):
        return None
    return fonts if {"sans", "bold", "mono"} <= set(fonts) else None


def _text_width(text: str, font: str, size: float) -> float:
    """Width in px of ``text`` set in ``font`` at ``size`` px. A character the font lacks is drawn from another
    font: a CJK one one em wide (full width), any other as wide as the font's widest glyph (erring wide)."""
    return size * _em(text, font)


@lru_cache(maxsize=4096)
def _em(text: str, font: str) -> float:
    """Width of ``text`` in ``font`` in em (words recur: numbers, units, "yes")."""
    advances, fallback, per_unit = _widths()[font]
    get = advances.get
    units = 0.0
    for ch in text:
        adv = get(ch)
        if adv is None:
            adv = 1.0 / per_unit if _FULL_WIDTH.match(ch) else fallback
        units += adv
    return per_unit * units


_FULL_WIDTH = re.compile("[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff01-\uff60\uffe0-\uffe6]")


class _Cell:
    """A cell's lines, each a list of words: [width, width of the space after it (0: no break there)]. A word
    never breaks inside (Pango may break "ms/token" after its slash, or a word after a hyphen: a column is then
    a little wider than the automatic layout would make it, never too narrow)."""

    def __init__(self):
        self.lines: list[list[list[float]]] = [[]]
        self.opener = False  # the last word ends with an opening bracket: no break after it

    def word(self, width: float) -> None:
        self.lines[-1].append([width, 0.0])

    def glue(self, width: float) -> None:
        """Width joined to the last word with no break between (text right after a tag, an inline-block)."""
        line = self.lines[-1]
        if line and line[-1][1] == 0.0:
            line[-1][0] += width
        else:
            self.word(width)

    def join(self, width: float) -> None:
        """A word that may not go to the next line: joined to the last one, the space between included."""
        last = self.lines[-1][-1]
        last[0] += last[1] + width
        last[1] = 0.0

    def space(self, width: float) -> None:
        if self.lines[-1]:
            self.lines[-1][-1][1] = width

    def max_min(self) -> tuple[float, float]:
        widest = max((sum(w + s for w, s in line) - (line[-1][1] if line else 0.0)) for line in self.lines)
        longest = max((w for line in self.lines for w, _ in line), default=0.0)
        return widest, longest


def _classes(attrs: str) -> set[str]:
    m = _CLASS.search(attrs)
    return set(m.group(1).split()) if m else set()


def _columns(box: str, attrs: str, body: str) -> list[tuple[float, float]]:
    """(min, max) content width of each column, padding included, of a table in a ``<div>`` with ``box``'s
    attributes; raises _Unknown where the table or its box has anything this module does not know."""
    classes, around = _classes(attrs), _classes(box)
    if classes - {"decision", "priced", "slice"} or around - {"scroll", "inputs-box"} or "scroll" not in around:
        raise _Unknown(attrs + box)
    base = TABLE_FONT["decision" if "decision" in classes else "inputs" if "inputs-box" in around else ""]
    pad = 2 * CELL_PAD["decision" if "decision" in classes else ""]
    cols: list[list[float]] = []
    cell: _Cell | None = None
    col = 0
    stack: list[tuple[str, str, float]] = []  # (tag, font, size) of the open elements inside a cell
    for m in _TAG.finditer(body):
        close, tag, rest, text = m.groups()
        if text is not None:
            if cell is None:
                if text.strip():
                    raise _Unknown("text outside a cell")
                continue
            font, size = stack[-1][1], stack[-1][2]
            _add_text(cell, htmllib.unescape(text), font, size)
            continue
        tag = tag.lower()
        if tag in ("thead", "tbody", "tfoot"):
            continue
        if tag == "tr":
            if cell is not None:
                raise _Unknown("a row ends inside a cell")
            col = 0
            continue
        if tag in ("td", "th"):
            if close:
                if cell is not None:
                    widest, longest = cell.max_min()
                    while len(cols) <= col:
                        cols.append([0.0, 0.0])
                    cols[col][0] = max(cols[col][0], longest * SLACK + pad)
                    cols[col][1] = max(cols[col][1], widest * SLACK + pad)
                    col += 1
                cell, stack = None, []
                continue
            if cell is not None or "colspan" in rest or "rowspan" in rest \
                    or " ".join(sorted(_classes(rest))) not in _CELL_CLASSES:  # an unclosed cell, a span, a class
                raise _Unknown(f"<{tag}{rest}>")
            cell = _Cell()
            stack = [(tag, "bold" if tag == "th" else "sans", base * (TH_SCALE if tag == "th" else 1.0))]
            continue
        if cell is None:
            raise _Unknown(tag)
        if tag == "br":
            cell.lines.append([])
            continue
        if tag == "img":
            cell.glue(_image_width(rest))
            continue
        if close:
            if not stack or stack[-1][0] != tag or len(stack) == 1:
                raise _Unknown(f"</{tag}>")
            opened = stack.pop()
            if len(opened) > 3:  # an inline-block: its padding after its text
                cell.glue(opened[3])
            continue
        if tag in _VOID:
            continue
        cls = _CLASS.search(rest)
        names = cls.group(1).split() if cls else []
        key = (tag, "pill" if "pill" in names else (names[0] if len(names) == 1 else ""))
        if key not in _STYLES or (key[1] != "pill" and len(names) > 1):  # a pill's other class: its colour
            raise _Unknown(f"<{tag} class={names}>")
        font, size = stack[-1][1], stack[-1][2]
        style = _STYLES[key]
        entry: tuple = (tag, font, size)
        if style is not None:
            if style[0] == "bold":
                entry = (tag, "bold" if font == "sans" else font, size)
            elif style[0] == "rem":
                entry = (tag, font, style[1] * REM)
            elif style[0] == "scale":
                entry = (tag, font, size * style[1])
            elif style[0] == "mono":
                entry = (tag, "mono", size * style[1])
            elif style[0] == "pill":  # inline-block: its text does not break, its padding on both sides
                entry = (tag, font, style[1] * REM, style[2] * REM)
                cell.glue(style[2] * REM)
        stack.append(entry)
    if cell is not None or not cols:
        raise _Unknown("an unclosed cell")
    return [(lo, hi) for lo, hi in cols]


def _add_text(cell: _Cell, text: str, font: str, size: float) -> None:
    """Words of ``text`` (white space collapsed), the first glued to what came before when not after a space."""
    if not text:
        return
    space = _text_width(" ", font, size)
    for i, part in enumerate(re.split(r"[ \t\n\r\f]+", text)):
        if i > 0:  # a space before this part: a break opportunity, unless Unicode's rules forbid one there
            cell.space(space)
        if not part:
            continue
        width = _text_width(part.replace("\u00a0", " "), font, size)
        line = cell.lines[-1]
        if i == 0 and line and line[-1][1] == 0.0:
            cell.glue(width)
        elif i > 0 and line and (part[0] in _NO_BREAK_BEFORE or cell.opener):
            cell.join(width)
        else:
            cell.word(width)
        cell.opener = part[-1] in _NO_BREAK_AFTER


def _image_width(attrs: str) -> float:
    m = _SRC.search(attrs)
    if m is None:
        raise _Unknown("an image without an SVG data URI")
    head = m.group(1)
    head = head[: len(head) - len(head) % 4]
    w = _WIDTH.search(base64.b64decode(head))
    if w is None:
        raise _Unknown("an SVG image without a width")
    return float(w.group(1))


def distribute(cols: list[tuple[float, float]], width: float = TEXT_WIDTH) -> list[float] | None:
    """Column widths filling ``width`` as CSS's automatic layout does; None when the min-content widths do not fit."""
    lo = sum(c[0] for c in cols)
    hi = sum(c[1] for c in cols)
    if lo > width or hi <= 0:
        return None
    if hi >= width:  # between the min-content and the max-content guess
        ratio = (width - lo) / (hi - lo) if hi > lo else 0.0
        return [a + (b - a) * ratio for a, b in cols]
    return [b + (width - hi) * b / hi for _, b in cols]  # the excess in proportion to max-content


@lru_cache(maxsize=256)  # the early and the final print HTML share their tables; a warm process holds a few reports
def _fixed_table(box: str, attrs: str, body: str) -> str | None:
    if "<table" in body or "<colgroup" in body or "style=" in attrs:
        return None
    try:
        cols = _columns(box, attrs, body)
    except (_Unknown, ValueError):
        return None
    widths = distribute(cols) if cols else None
    if widths is None:
        return None
    total = sum(widths)
    shares = [f"{100 * w / total:.3f}%" for w in widths]
    colgroup = "<colgroup>" + "".join(f'<col style="width:{s}">' for s in shares) + "</colgroup>"
    return f'<table{attrs} style="table-layout:fixed">{colgroup}{body}</table>'


def fix_tables(html: str) -> str:
    """``html`` (the printed report) with each table it can measure given fixed column widths (see the module)."""
    if _widths() is None:
        return html
    out, pos = [], 0
    while (start := html.find("<table", pos)) >= 0:
        m = _TABLE.match(html, start)
        if m is None:
            break
        box = _BOX.search(html, max(0, start - 200), start)  # the <div> the table sits in, right before it
        fixed = _fixed_table(box.group(1), m.group(1), m.group(2)) if box else None
        out.append(html[pos:start] + fixed if fixed is not None else html[pos:m.end()])
        pos = m.end()
    out.append(html[pos:])
    return "".join(out)


# ------------------------------------------------------------------------------------------------ generation

FONTS = {"sans": "DejaVu Sans", "bold": "DejaVu Sans:bold", "mono": "DejaVu Sans Mono"}


def table_text() -> bytes:
    """The shipped advance widths: every character of each font's Unicode map in the Basic Multilingual Plane."""
    import subprocess

    from fontTools.ttLib import TTFont

    fonts = {}
    for name, pattern in FONTS.items():
        path = subprocess.run(["fc-match", "-f", "%{file}", pattern], check=True, capture_output=True,
                              text=True).stdout
        font = TTFont(path, lazy=True)
        cmap, hmtx = font.getBestCmap(), font["hmtx"]
        advances = {chr(cp): hmtx[glyph][0] for cp, glyph in sorted(cmap.items())
                    if cp < 0x10000 and not 0xD800 <= cp < 0xE000}
        widest = max(advances.values())
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        fonts[name] = {"file": Path(path).name, "sha256": digest, "upem": font["head"].unitsPerEm,
                       "fallback": widest, "advances": advances}
    return gzip.compress(json.dumps({"fonts": fonts}, sort_keys=True, separators=(",", ":")).encode(), mtime=0)


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(allow_abbrev=False, prog="python -m genreport.printing.colwidths", description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the shipped widths differ from this machine's fonts")
    args = ap.parse_args(argv)
    data = table_text()
    if args.check:
        same = SHIPPED.exists() and gzip.decompress(SHIPPED.read_bytes()) == gzip.decompress(data)
        print("font widths: " + ("current" if same else "differ from this machine's fonts"))
        return 0 if same else 1
    SHIPPED.write_bytes(data)
    print(f"wrote {SHIPPED} ({len(data):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
