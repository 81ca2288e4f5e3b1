"""Issue 30: a displayed formula wider than the PDF's column is broken into rows (generator/present/mathbreak.py); the
chunked-prefill step of the DeepSeek-V3 serving chapter printed 929 px wide (1,446 px with its numbers) in a 640 px
column, shrunk to half size over its equation number."""

from __future__ import annotations

import base64
import html
import re

from genreport.present.mathbreak import COLUMN_PX, fitted, stack_max, width_em, wrap_fraction, wrap_sums
from genreport.present.render import Formulas
from shared import evaluated


def _drawn(tag: str) -> tuple[str, float]:
    """(the LaTeX, the drawn width in px) of a formula's <img>."""
    tex = html.unescape(re.search(r'alt="([^"]*)"', tag).group(1))
    body = base64.b64decode(re.search(r'base64,([^"]+)"', tag).group(1)).decode()
    return tex, float(re.search(r'width="([\d.]+)"', body).group(1))


def test_a_maximum_is_stacked_one_argument_a_row():
    tex = r"t = \max\left(\frac{a + \left(b, c\right)}{P}, \frac{d_{x}}{W}\right) + 1"
    assert stack_max(tex) == (r"t = \max\left(\begin{array}{l} \frac{a + \left(b, c\right)}{P}, \\ \frac{d_{x}}{W}"
                              r" \end{array}\right) + 1")
    assert stack_max(r"t = \max\left(a\right)") == r"t = \max\left(a\right)"  # one argument: nothing to stack
    assert stack_max(r"t = \max\left(a, b") == r"t = \max\left(a, b"  # unbalanced: left alone
    assert stack_max("t = a + b") == "t = a + b"
    assert fitted(tex) == tex  # narrow: drawn as written


def test_the_chunked_step_is_stacked_and_narrow_formulas_are_not():
    r = evaluated("deepseek-v3-h200-ep8.yaml")
    f = Formulas(r)
    chunked = f.block(r.blocks["tech_chunked"])
    for part, was in (("symbolic", 929), ("substituted", 1446)):
        tex, px = _drawn(chunked[part])
        assert r"\begin{array}{l}" in tex and tex.count(r", \\ ") == 1, part  # two rows: compute, memory
        assert px < 0.75 * was, part
    assert _drawn(chunked["symbolic"])[1] < 720  # about the column (680 px), not one and a half times it
    # every other formula of the report is drawn as written but the goodput rate's numbers (a long sum in
    # parentheses, tests/test_mathbreak.py's last test); the estimate passes the column only where it is wider
    for name, b in r.blocks.items():
        if name == "tech_chunked":
            continue
        blk = f.block(b)
        for part, size in (("symbolic", 15.0), ("substituted", 13.0)):
            tex, px = _drawn(blk[part])
            if (name, part) == ("tech_goodput", "substituted"):
                continue
            assert r"\begin{array}" not in tex, name
            if width_em(tex) * size > COLUMN_PX:
                assert px > 0.85 * COLUMN_PX, name


def test_only_the_formulas_own_maximum_is_stacked_and_a_thin_space_is_no_row():
    r"""A maximum inside a fraction (the layout's weight ledger divides by max(n_EP, n_TP)) is part of a product, not
    the formula's: stacking it printed two rows "n_EP, / n_TP" in a denominator.  ``\,`` (a thin space) is no comma:
    splitting at it cut "\alpha_o \, \min(...)" in two."""
    inner = r"t = \frac{N b}{n_{PP} \, \max\left(n_{EP}, n_{TP}\right)} + \frac{c}{W}"
    assert stack_max(inner) == inner
    both = r"t = \frac{1}{\max\left(b, c\right)} + \max\left(\alpha_{o} \, \min\left(1, n\right), d\right)"
    assert stack_max(both) == (r"t = \frac{1}{\max\left(b, c\right)} + \max\left(\begin{array}{l} \alpha_{o} \, "
                               r"\min\left(1, n\right), \\ d \end{array}\right)")


def test_the_layouts_collective_formulas_are_fitted_to_the_column():
    """The collectives' and kernels' formulas of the "Many GPUs" chapter were drawn as written: the expert all-to-all
    in its two-tier form (printed wherever the experts are spread over GPUs) was 1,071 px wide, shown at 0.79 of its
    size on a 1280-px screen and smaller in print.  Stacked, each of its two terms is a row narrower than the column."""
    import shared

    tags = re.findall(r'<img class="math" alt="t_\{A2A,x\}[^>]*>', shared.html("deepseek-v3-h200-ep8.yaml"))
    assert tags, "the two-tier all-to-all formula is in the chapter"
    for tag in tags:
        tex, px = _drawn(tag)
        assert tex.count(r", \\ ") == 1 and px < COLUMN_PX, (tex, px)


def test_a_rows_long_numerator_is_set_over_lines():
    r"""A stacked row that is one fraction still wider than the column (the chunked step's FLOPs with numbers in
    them: 857 px by the estimate at 13 px, 907 drawn) has its numerator's terms over lines, each later line starting
    with its "+", none past the limit; a row that is no fraction, a fraction followed by more, or one term, is left."""
    terms = [r"95 \times \left(4 \times 64 + 2 \times 5.7 \times 10^{9}\right)", r"2 \times 2048 \times 35.875",
             r"2 \times 2048 \times 4.55 \times 10^{9}", r"\frac{2 \times 2048 \times 201088}{2048}"]
    row = r"\frac{" + " + ".join(terms) + r"}{9.894 \times 10^{14}}"
    limit = width_em(row) * 0.6
    out = wrap_fraction(row, limit)
    assert out.startswith(r"\frac{\begin{array}{l} ") and out.endswith(r" \end{array}}{9.894 \times 10^{14}}")
    lines = out[len(r"\frac{\begin{array}{l} "):out.index(r" \end{array}")].split(r" \\ ")
    assert len(lines) >= 2 and all(line.startswith("+ ") for line in lines[1:])
    assert " ".join(lines) == " + ".join(terms)  # every term, in order, cut only between terms
    alone = set(terms) | {f"+ {t}" for t in terms}
    assert all(width_em(line) <= limit or line in alone for line in lines)  # only a term alone may pass the limit
    assert wrap_fraction(row, width_em(row) + 1) == row  # narrow enough already
    assert wrap_fraction(row + " + 1", limit) == row + " + 1"  # more than one fraction
    assert wrap_fraction(r"\frac{a \times b}{c}", 0.1) == r"\frac{a \times b}{c}"  # one term
    assert wrap_fraction(r"a + b + c", 0.1) == "a + b + c"  # no fraction


def test_the_chunked_steps_numbers_fit_the_column():
    """Llama 3.1 70B on 8 H100 (the serving chapter's chunked step at batch 256): each row of the substituted maximum
    was one line of 1,048 px, shown at 0.65 of its size in the PDF; with the numerators over lines it is drawn
    within the column."""
    r = evaluated("llama70b-h100-tp8.yaml")
    tex, px = _drawn(Formulas(r).block(r.blocks["tech_chunked"])["substituted"])
    assert tex.count(r"\begin{array}{l}") == 3 and px < COLUMN_PX, (tex, px)


def test_a_long_sum_in_parentheses_is_set_over_lines_and_a_short_one_is_not():
    r"""The goodput rate with its numbers (Llama 3.1 70B on 8 H100: a denominator of seven products in parentheses,
    817 px at 13 px to the em, shown at 0.78 of its size in the PDF; DeepSeek-V3's 842 px) is drawn within the column,
    the sum over lines inside its parentheses; a maximum inside a fraction (DeepSeek-V3's prefill compute bound, 739
    px) has its arguments one to a row.  A short sum is never broken: the weights' ledger with its small (u_x - 1) and
    (1 - n_TP / ...) stays as written (breaking those stood "u_x" over "- 1")."""
    for spec, was in (("llama70b-h100-tp8.yaml", 817), ("deepseek-v3-h200-ep8.yaml", 842)):
        r = evaluated(spec)
        tex, px = _drawn(Formulas(r).block(r.blocks["tech_goodput"])["substituted"])
        assert r"\left(\begin{array}{l} " in tex and px < COLUMN_PX < was, (spec, px)
        inside = tex[tex.index(r"\left(\begin{array}{l} ") + len(r"\left(\begin{array}{l} "):tex.index(r" \end{array}")]
        lines = inside.split(r" \\ ")
        assert len(lines) >= 2 and all(line[0] in "+-" for line in lines[1:]), lines
    import shared

    page = shared.html("deepseek-v3-h200-ep8.yaml")
    tag = re.search(r'<img class="math" alt="t_\{\\mathrm\{comp\},g,\\mathrm\{pre\}\}[^>]*>', page).group()
    tex, px = _drawn(tag)
    assert tex.count(r", \\ ") == 1 and px < COLUMN_PX, (tex, px)
    short = (r"t = \frac{B \, \left(\frac{S \, c}{n \, s} + \frac{a}{n \, m}\right) + \frac{N_{x} \, b \, "
             r"\left(u_{x} - 1\right) + b \, \left(N - N_{e} - N_{x} \, \left(1 - \frac{n}{m}\right)\right)}{e \, w}}{W}")
    assert wrap_sums(short, width_em(short) * 0.8) == short
    long_sum = r"x = \frac{1}{2 \times \left(" + " + ".join([r"4096 \times 4096 \times 512"] * 8) + r"\right)}"
    out = wrap_sums(long_sum, width_em(long_sum) * 0.5)
    assert out.count(r" \\ ") >= 1 and width_em(out) <= width_em(long_sum) * 0.5 + 1
    assert out.replace(r"\begin{array}{l} ", "").replace(r" \end{array}", "").replace(r" \\ ", " ") == long_sum


def test_a_stacked_rows_room_is_the_column_less_what_stands_beside_it():
    r"""Llama 3.1 70B on 8 H100, the serving chapter's mixed step t_mix(B, S) = max(F / P, Q / W): its FLOPs row was
    estimated under the row limit, 85% of the column, and left whole, but "t_mix(B, S) = max(" stands beside it: the
    formula was drawn 739 px wide in the 640-px column (shown at 0.87).  A row's room is the limit less what stands
    beside the rows, so that row is now over two lines; in the derivation's "= max(" rows the room is wider."""
    r = evaluated("llama70b-h100-tp8.yaml")
    tex, px = _drawn(Formulas(r).block(r.blocks["tech_chunked"])["symbolic"])
    assert tex.startswith(r"t_{\mathrm{mix}}(B, S) = \max\left(\begin{array}{l} \frac{\begin{array}{l} "), tex
    assert px < 0.9 * 739, px
    row = r"\frac{" + " + ".join([r"a \, b \, c \, d"] * 6) + "}{P}"
    beside = r"t_{\mathrm{long\,name}}(B, S, T) = \max\left("
    limit = width_em(beside + row) * 0.95  # the row alone is narrower than the limit
    assert width_em(row) < limit
    assert r"\frac{\begin{array}{l}" in stack_max(beside + row + r", x\right)", limit)
    assert stack_max(r"= \max\left(" + row + r", x\right)", limit).count(r"\begin{array}") == 1  # rows only
