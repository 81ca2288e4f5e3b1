"""Issue 30: a displayed formula wider than the PDF's column is broken into rows (generator/present/mathbreak.py); the
chunked-prefill step of the DeepSeek-V3 serving chapter printed 929 px wide (1,446 px with its numbers) in a 640 px
column, shrunk to half size over its equation number."""

from __future__ import annotations

import base64
import html
import re

from genreport.present.mathbreak import COLUMN_PX, fitted, stack_max, width_em
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
    # every other formula of the report is drawn as written; the estimate passes the column only where it is wider
    for name, b in r.blocks.items():
        if name == "tech_chunked":
            continue
        blk = f.block(b)
        for part, size in (("symbolic", 15.0), ("substituted", 13.0)):
            tex, px = _drawn(blk[part])
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
