"""A displayed formula too wide for the PDF's text column, broken into rows before it is drawn.

The report's formulas are drawn to SVG by ziamath (:mod:`.mathsvg`) and shrunk to the column when wider
(``max-width: 100%``): a formula twice the column's width prints at half size, over its equation number.  The
widest are a maximum of two long ledgers (the chunked-prefill step of the serving chapter,
``max(F_mix / P, Q_mix / W)``, 60-100 ems wide).  :func:`fitted` estimates the width from the LaTeX itself (no
drawing: a first build must draw only what the package ships, see :mod:`.mathship`) and, past the column, stacks
the arguments of the top-level ``\\max`` one to a row, as a textbook prints a long maximum.

The estimate counts a character's advance in ems of the formula's size (italic letters 0.7, digits 0.5, a binary
operator with its spaces 1.25, a fraction as wide as the wider of its numerator and denominator, scripts at 70%):
for the built-in reports' formulas it is 0.67-1.07 of the width ziamath draws, and 0.88-0.94 for those wider than
the column, so only those are broken (tests/test_mathbreak.py checks it against the drawn widths).
"""

from __future__ import annotations

import re

# A stacked row's fraction is broken over lines where its estimate passes this share of the column: the estimate is
# 0.88-0.94 of the drawn width for the widest formulas, so a row estimated at the whole column can be drawn wider.
ROW_SHARE = 0.85
COLUMN_PX = 640.0  # the PDF's text column (A4 less 15 mm margins, 680 px at 96 px/in) less the equation number
_TOKEN = re.compile(r"\\[a-zA-Z]+|\\.|[{}_^]|[^\s]")
_SPACE = {r"\,": 0.17, r"\:": 0.22, r"\;": 0.28, r"\ ": 0.25, r"\quad": 1.0, r"\qquad": 2.0, r"\!": -0.17}
_NAMED = {r"\max": 2.0, r"\min": 1.9, r"\log": 1.6, r"\ln": 1.2, r"\times": 1.2, r"\cdot": 0.8, r"\approx": 1.3,
          r"\le": 1.3, r"\ge": 1.3, r"\leq": 1.3, r"\geq": 1.3}
_WORD = (r"\mathrm", r"\mathit", r"\mathbf", r"\text", r"\operatorname")


def _width(tokens: list[str], i: int, scale: float) -> tuple[float, int]:
    """(ems, the index after) of the group or single item at ``tokens[i]``."""
    if i >= len(tokens):
        return 0.0, i
    tok = tokens[i]
    if tok == "{":
        return _sequence(tokens, i + 1, scale)
    return _item(tokens, i, scale)


def _sequence(tokens: list[str], i: int, scale: float) -> tuple[float, int]:
    """(ems, the index after the closing brace or the end) of a run of items."""
    total = 0.0
    while i < len(tokens) and tokens[i] != "}":
        w, i = _width(tokens, i, scale) if tokens[i] == "{" else _item(tokens, i, scale)
        total += w
    return total, i + 1


def _item(tokens: list[str], i: int, scale: float) -> tuple[float, int]:
    tok = tokens[i]
    if tok in ("_", "^"):
        w, j = _width(tokens, i + 1, scale * 0.7)
        return w, j
    if tok == r"\frac":
        num, j = _width(tokens, i + 1, scale)
        den, k = _width(tokens, j, scale)
        return max(num, den) + 0.3 * scale, k
    if tok in (r"\left", r"\right"):
        return 0.45 * scale, i + 2
    if tok == r"\begin":  # an array: as wide as its widest row
        return _array(tokens, i, scale)
    if tok in _WORD:
        inner, j = _width(tokens, i + 1, scale)
        return inner, j
    if tok in _SPACE:
        return _SPACE[tok] * scale, i + 1
    if tok in _NAMED:
        return _NAMED[tok] * scale, i + 1
    if tok.startswith("\\"):  # a Greek letter or another symbol
        return 0.6 * scale, i + 1
    if tok in "+-=<>":
        return 1.25 * scale, i + 1
    if tok in ",;":
        return 0.45 * scale, i + 1
    if tok in "().|[]":
        return 0.4 * scale, i + 1
    return (0.5 if tok.isdigit() else 0.7) * scale, i + 1


def _array(tokens: list[str], i: int, scale: float) -> tuple[float, int]:
    r"""(ems, the index after ``\end{...}``) of the ``\begin{array}{cols} row \\ row \end{array}`` at ``tokens[i]``:
    its widest row."""
    _, i = _width(tokens, i + 1, scale)  # {array}
    _, i = _width(tokens, i, scale)  # {l}
    rows, row = [], 0.0
    while i < len(tokens) and tokens[i] != r"\end":
        if tokens[i] == "\\\\":
            rows.append(row)
            row, i = 0.0, i + 1
            continue
        w, i = _width(tokens, i, scale)
        row += w
    rows.append(row)
    _, i = _width(tokens, i + 1, scale)  # {array}
    return max(rows), i


def width_em(tex: str) -> float:
    """Estimated width of ``tex`` drawn as a display formula [em of its size]."""
    tokens = _TOKEN.findall(tex)
    total, i = 0.0, 0
    while i < len(tokens):
        if tokens[i] == "}":  # an unbalanced brace: skip it
            i += 1
            continue
        w, i = _width(tokens, i, 1.0)
        total += w
    return total


def _close(tex: str, start: int) -> int | None:
    r"""Index of the ``\right)`` closing the ``\left(`` that ends just before ``start``; None if unbalanced."""
    depth = 1
    for m in re.finditer(r"\\left\b|\\right\b", tex[start:]):
        depth += 1 if m.group() == r"\left" else -1
        if depth == 0:
            return start + m.start()
    return None


def _top_level(tex: str, mark: str) -> list[re.Match]:
    r"""The matches of the pattern ``mark`` outside every brace and ``\left``/``\right`` pair of ``tex``.  A thin
    space ``\,`` is never one (a comma inside it is no separator); a ``\max\left(`` found counts as the pair it
    opens."""
    found, depth = [], 0
    for m in re.finditer(rf"\\,|\\left\b|\\right\b|[{{}}]|{mark}", tex):
        t = m.group()
        if t == r"\,":
            continue
        if re.fullmatch(mark, t):
            if depth == 0:
                found.append(m)
            depth += t.endswith(r"\left(")
        elif t in ("{", r"\left"):
            depth += 1
        else:
            depth -= 1
    return found


def _split(body: str) -> list[str]:
    r"""``body`` cut at its top-level commas, the commas dropped."""
    cuts = _top_level(body, ",")
    return [body[a:b].strip() for a, b in zip([0, *(m.end() for m in cuts)], [*(m.start() for m in cuts), len(body)],
                                              strict=True)]


def _terms(tex: str, signs: str = r"\+") -> list[str]:
    r"""``tex`` cut before each top-level `` + `` (``signs``: the operators cut at, ``r"[+\-]"`` for `` - `` too), each
    later piece starting with its sign."""
    cuts = [m.start() + 1 for m in _top_level(tex, rf" {signs} ")]
    return [tex[a:b].strip() for a, b in zip([0, *cuts], [*cuts, len(tex)], strict=True)]


def _pack(terms: list[str], limit_em: float) -> list[str]:
    """``terms`` joined into as few lines as keep each under ``limit_em``, in order (a term alone may pass it)."""
    lines = [terms[0]]
    for term in terms[1:]:
        joined = f"{lines[-1]} {term}"
        if width_em(joined) <= limit_em:
            lines[-1] = joined
        else:
            lines.append(term)
    return lines


def _top_level_max(tex: str) -> int:
    r"""Index of the first ``\max\left(`` outside every brace and pair (the formula's own maximum, not one inside a
    fraction or a product); -1 where there is none."""
    found = _top_level(tex, r"\\max\\left\(")
    return found[0].start() if found else -1


def _group_end(tex: str, i: int) -> int | None:
    """Index just after the brace group opening at ``tex[i] == "{"``; None if it does not close."""
    depth = 0
    for j in range(i, len(tex)):
        if tex[j] in "{}" and tex[j - 1:j] != "\\":  # \{ and \} are braces drawn, not groups
            depth += 1 if tex[j] == "{" else -1
            if depth == 0:
                return j + 1
    return None


def wrap_fraction(row: str, limit_em: float) -> str:
    r"""A row that is one fraction ``\frac{a + b + ...}{d}`` wider than ``limit_em``: its numerator's terms set over
    as many lines as keep each under the limit, each line after the first starting with its ``+`` (an array in the
    numerator, as a textbook breaks a long sum); ``row`` itself when it is no such fraction or has one term."""
    if not row.startswith(r"\frac{") or width_em(row) <= limit_em:
        return row
    num_end = _group_end(row, len(r"\frac"))
    den_end = _group_end(row, num_end) if num_end is not None and row[num_end:num_end + 1] == "{" else None
    if den_end is None or row[den_end:].strip():
        return row
    terms = _terms(row[len(r"\frac{"):num_end - 1])
    if len(terms) < 2:
        return row
    lines = _pack(terms, limit_em)
    if len(lines) < 2:
        return row
    return r"\frac{\begin{array}{l} " + r" \\ ".join(lines) + r" \end{array}}" + row[num_end:den_end]


def stack_max(tex: str, limit_em: float | None = None) -> str:
    r"""``tex`` with the arguments of its top-level ``\max\left( ... \right)`` one to a row (a one-column array in
    the same parentheses); ``tex`` itself where it has none (a maximum inside a fraction stays as it is), or one
    argument."""
    head = _top_level_max(tex)
    if head < 0:
        return tex
    start = head + len(r"\max\left(")
    end = _close(tex, start)
    if end is None:
        return tex
    parts = _split(tex[start:end])
    if len(parts) < 2:
        return tex
    rest = tex[end + len(r"\right)"):]
    if limit_em is not None:  # a row still wider than its room (the column less what stands beside the rows): a
        beside = width_em(tex[:start]) + width_em(r"\right)" + rest)  # fraction's long sum over lines
        parts = [wrap_fraction(p, limit_em - beside) for p in parts]
    rows = r", \\ ".join(parts)
    return tex[:start] + r"\begin{array}{l} " + rows + r" \end{array}" + r"\right)" + rest


def wrap_sums(tex: str, limit_em: float) -> str:
    r"""``tex`` wider than ``limit_em`` with a long group in ``\left( ... \right)``, at least half the limit wide: the
    widest such group set over lines inside its parentheses (a one-column array), as :func:`stack_max` sets a
    maximum: a list of arguments (a maximum inside a fraction) one to a row (an argument that is itself a sum wider than
    the room over lines of its own), a sum (a numbers-substituted denominator,
    written out by SymPy) over as few lines as bring the formula under the limit, each later line starting with its
    sign; again for the next while it is still wider.  ``tex`` itself where no such group is left to break."""
    for _ in range(4):
        whole = width_em(tex)
        if whole <= limit_em:
            break
        best = None
        for m in re.finditer(r"\\left\(", tex):
            end = _close(tex, m.end())
            body = tex[m.end():end] if end is not None else ""
            w = width_em(body)
            if w < limit_em / 2 or r"\begin{array}" in body:
                continue  # a short group broken would stand its terms one over another, a column of two
            if len(_split(body)) < 2 and len(_terms(body, r"[+\-]")) < 2:
                continue
            if best is None or w > best[0]:
                best = (w, m.end(), end)
        if best is None:
            break
        w, start, end = best
        body = tex[start:end]
        room = max(limit_em - (whole - w), w / 4)  # what the lines may take beside the rest of the formula
        if len(_split(body)) > 1:  # arguments: one to a row, an argument that is a long sum over lines of its own
            # (the estimate runs up to a tenth under the drawn width of such a row: DeepSeek-V3's prefill compute
            # bound, 580.8 px estimated, 647.8 px drawn, once each GPU's whole down-projections were in its sum)
            fit = room * 0.9
            rows = r", \\ ".join(r" \\ ".join(_pack(_terms(a, r"[+\-]"), fit)) if width_em(a) > fit else a
                                  for a in _split(body))
        else:
            lines = _pack(_terms(body, r"[+\-]"), room)
            if len(lines) < 2:
                break
            rows = r" \\ ".join(lines)
        tex = tex[:start] + r"\begin{array}{l} " + rows + r" \end{array}" + tex[end:]
    return tex


def fitted(tex: str, size: float = 15.0) -> str:
    """``tex`` laid out for the PDF's column at ``size`` px to the em where the estimate says it is wider: its
    top-level maximum stacked (:func:`stack_max`), then a long sum in parentheses over lines (:func:`wrap_sums`)."""
    if width_em(tex) * size <= COLUMN_PX:
        return tex
    limit = ROW_SHARE * COLUMN_PX / size
    out = stack_max(tex, limit)
    return wrap_sums(out, limit) if width_em(out) * size > COLUMN_PX else out
