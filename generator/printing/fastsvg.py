"""A faster SVG ``<path>`` drawer for WeasyPrint, byte-identical to its own.

WeasyPrint parses every ``d`` attribute one coordinate at a time through regular expressions and unit
handling. A report draws some 40,000 path points (formula glyphs and figure curves), and that parsing is a
third of the PDF stage. This module replaces WeasyPrint's ``svg.path.path`` with a version that tokenizes
the whole attribute at once and writes the same PDF operators with the same number formatting, so that the
PDF bytes do not change (``tests/test_fastsvg.py`` compares them with the stock drawer).

It handles the commands genreport's own SVG uses (M L H V C Q Z in both cases, plain numbers) and gives
every other path to WeasyPrint's drawer unchanged: arcs, smooth curves, lengths with units, malformed data,
and any path whose markers need the vertex list. It installs itself only where the gate
(:mod:`genreport.printing.gate`) is open; ``GENREPORT_PDF_OFF=svg`` turns it off.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"([MmLlHhVvCcQqZz])|([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)|([,\s]+)|(.)", re.S)
_ARITY = {"m": 2, "l": 2, "h": 1, "v": 1, "c": 6, "q": 4, "z": 0}

_installed = False


def _num(x) -> bytes:
    """pydyf's number formatting (``_to_bytes``) for the ints and floats a path produces."""
    if isinstance(x, float):
        if x.is_integer():
            return str(int(x)).encode("ascii")
        return f"{x:f}".rstrip("0").encode("ascii")
    return str(x).encode("ascii")


def _parse(d: str):
    """[(letter, [floats]), ...] with implicit repeats split, or None when the fast path does not apply."""
    out = []
    letter = None
    args: list[float] = []
    for cmd, number, _sep, other in _TOKEN.findall(d):
        if other:
            return None
        if cmd:
            if letter is not None:
                if not _flush(out, letter, args):
                    return None
            letter, args = cmd, []
        elif number:
            if letter is None:
                return None
            args.append(float(number))
    if letter is not None and not _flush(out, letter, args):
        return None
    return out


def _flush(out: list, letter: str, args: list[float]) -> bool:
    n = _ARITY[letter.lower()]
    if n == 0:
        if args:
            return False
        out.append((letter, ()))
        return True
    if not args or len(args) % n:
        return False
    for i in range(0, len(args), n):
        out.append((letter, args[i:i + n]))
        if letter in "mM":  # extra pairs after a move are line-tos
            letter = "l" if letter == "m" else "L"
    return True


def _emit(commands, append) -> None:
    """The operators WeasyPrint's ``path`` would write for these commands (see its source for each branch)."""
    cx, cy = 0, 0
    append(b"0 0 m")
    last = None
    first = None
    for letter, a in commands:
        if last in (None, "m", "M", "z", "Z"):
            first = None
        if letter not in "mMzZ" and first is None:
            first = (cx, cy)
        if letter in "MmLl":  # move and line differ only in the operator
            x, y = a
            if letter in "ml":
                x += cx
                y += cy
            append(b" ".join((_num(x), _num(y), b"m" if letter in "Mm" else b"l")))
            cx, cy = x, y
        elif letter == "H" or letter == "h":
            x = a[0]
            if letter == "h":
                x += cx
            append(b" ".join((_num(x), _num(cy), b"l")))
            cx = x
        elif letter == "V" or letter == "v":
            y = a[0]
            if letter == "v":
                y += cy
            append(b" ".join((_num(cx), _num(y), b"l")))
            cy = y
        elif letter == "C" or letter == "c":
            x1, y1, x2, y2, x3, y3 = a
            if letter == "c":
                x1 += cx
                x2 += cx
                x3 += cx
                y1 += cy
                y2 += cy
                y3 += cy
            append(b" ".join((_num(x1), _num(y1), _num(x2), _num(y2), _num(x3), _num(y3), b"c")))
            cx, cy = x3, y3
        elif letter == "Q" or letter == "q":
            x1, y1 = cx, cy
            x2, y2, x3, y3 = a
            if letter == "q":
                x2 += x1
                y2 += y1
                x3 += x1
                y3 += y1
            xq1 = x2 * 2 / 3 + x1 / 3
            yq1 = y2 * 2 / 3 + y1 / 3
            xq2 = x2 * 2 / 3 + x3 / 3
            yq2 = y2 * 2 / 3 + y3 / 3
            append(b" ".join((_num(xq1), _num(yq1), _num(xq2), _num(yq2), _num(x3), _num(y3), b"c")))
            cx, cy = x3, y3
        elif first:  # z or Z closes only a subpath that has a segment
            append(b"h")
            cx, cy = first
        last = letter


def install() -> bool:
    """Swap in the fast drawer where the gate is open."""
    global _installed
    if _installed:
        return True
    from genreport.printing import gate

    if not gate.is_open():
        return False
    try:
        from weasyprint import svg as wsvg
    except (ImportError, OSError):
        return False
    stock = wsvg.TAGS["path"]

    def path(svg, node, font_size):
        if any(k.startswith("marker") for k in node.attrib):  # markers need the vertex list
            return stock(svg, node, font_size)
        commands = _parse(node.get("d", ""))
        if commands is None:
            return stock(svg, node, font_size)
        _emit(commands, svg.stream.stream.append)

    path.stock = stock
    wsvg.TAGS["path"] = path
    _installed = True
    return True


def uninstall() -> None:
    """Put WeasyPrint's own drawer back (tests compare the two)."""
    global _installed
    from weasyprint import svg as wsvg

    fast = wsvg.TAGS["path"]
    if getattr(fast, "stock", None) is not None:
        wsvg.TAGS["path"] = fast.stock
    _installed = False
