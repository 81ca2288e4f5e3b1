"""Printed tables get their column widths from genreport (generator/printing/colwidths.py), not from WeasyPrint's
measurement of every cell: never narrower than a column's longest word, close to what the automatic layout gives,
and left to the automatic layout when anything in them is not understood."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from genreport.printing import colwidths as cw
from shared import ROOT

SPECS = sorted(p.stem for p in (ROOT / "specs").glob("*.yaml"))


def _print_html(name: str) -> str:
    """A committed report's printed HTML, before its tables are given widths."""
    from genreport.present.live import without_scripts

    html = (ROOT / "out" / name / "report.html").read_text(encoding="utf-8")
    return without_scripts(re.sub(r'<source media="[^"]*" srcset="genreport-phone-[^"]*">', "", html))


def _table(rows: list[list[str]], cls: str = "", box: str = "scroll") -> str:
    head = "".join(f"<th>{c}</th>" for c in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows[1:])
    attr = f' class="{cls}"' if cls else ""
    return f'<div class="{box}"><table{attr}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _shares(html: str) -> list[float]:
    return [float(x) for x in re.findall(r'<col style="width:([0-9.]+)%">', html)]


@pytest.mark.parametrize("name", SPECS)
def test_every_table_of_the_reports_gets_widths_that_fill_the_page(name):
    html = _print_html(name)
    fixed = cw.fix_tables(html)
    tables = re.findall(r"<table\b[^>]*>", fixed)
    assert tables and all('style="table-layout:fixed"' in t for t in tables), name
    for colgroup in re.findall(r"<colgroup>.*?</colgroup>", fixed):
        shares = _shares(colgroup)
        assert all(s > 0 for s in shares)
        assert sum(shares) == pytest.approx(100, abs=0.01)
    # the screen's HTML is not touched: only the print's
    assert "<colgroup>" not in html


def test_a_word_after_a_space_that_may_not_start_a_line_stays_with_the_one_before():
    """UAX #14 LB13: no break before '/' even after a space ("bandwidth / compute" breaks only after '/')."""
    size = cw.TABLE_FONT[""]
    pad = 2 * cw.CELL_PAD[""]
    (lo, hi), = cw._columns('class="scroll"', "", "<tr><td>bandwidth / compute</td></tr>")
    together = cw._text_width("bandwidth /", "sans", size)
    assert lo == pytest.approx(together * cw.SLACK + pad)
    assert hi == pytest.approx(cw._text_width("bandwidth / compute", "sans", size) * cw.SLACK + pad)
    (lo2, _), = cw._columns('class="scroll"', "", "<tr><td>bandwidth or compute</td></tr>")
    assert lo2 == pytest.approx(cw._text_width("bandwidth", "sans", size) * cw.SLACK + pad)


def test_fonts_and_boxes_are_measured_as_the_stylesheet_sets_them():
    size = cw.TABLE_FONT[""]
    pad = 2 * cw.CELL_PAD[""]
    header = cw._columns('class="scroll"', "", "<tr><th>workload</th></tr>")[0][1]
    assert header == pytest.approx(cw._text_width("workload", "bold", size * cw.TH_SCALE) * cw.SLACK + pad)
    pill = cw._columns('class="scroll"', "", '<tr><td><span class="pill compute">compute</span></td></tr>')[0][1]
    inner = cw._text_width("compute", "sans", 0.75 * cw.REM) + 2 * 0.45 * cw.REM
    assert pill == pytest.approx(inner * cw.SLACK + pad)
    small = cw._columns('class="scroll"', ' class="decision"', "<tr><td>x</td></tr>")[0][1]
    assert small == pytest.approx(cw._text_width("x", "sans", cw.TABLE_FONT["decision"]) * cw.SLACK
                                  + 2 * cw.CELL_PAD["decision"])
    lines = cw._columns('class="scroll"', "", "<tr><td>a long first line<br>b</td></tr>")[0][1]
    assert lines == pytest.approx(cw._text_width("a long first line", "sans", size) * cw.SLACK + pad)


@pytest.mark.parametrize("odd", [
    '<span class="big">x</span>',  # a class the stylesheet may size
    "<em><b>x</b></em>",  # an element not listed
    "<table><tr><td>x</td></tr></table>",  # a table in a table
])
def test_a_table_with_anything_not_understood_keeps_the_automatic_layout(odd):
    html = _table([["a", "b"], ["1", odd]])
    assert cw.fix_tables(html) == html
    spanning = html.replace("<td>1</td>", '<td colspan="2">1</td>')
    assert cw.fix_tables(spanning) == spanning
    unknown_box = _table([["a"], ["1"]], box="scroll wide")
    assert cw.fix_tables(unknown_box) == unknown_box
    bare = "<p>x</p><table><tr><td>1</td></tr></table>"  # not in a box whose width is known
    assert cw.fix_tables(bare) == bare
    unclosed = '<div class="scroll"><table><tr><td>a long first cell<td>b</tr></table></div>'  # HTML allows it
    assert cw.fix_tables(unclosed) == unclosed


def test_words_too_wide_for_the_page_side_by_side_keep_the_automatic_layout():
    word = "W" * 40
    html = _table([["a", "b", "c"], [word, word, word]])
    assert cw.fix_tables(html) == html
    fits = _table([["a", "b", "c"], ["W" * 10, "W" * 10, "W" * 10]])
    assert _shares(cw.fix_tables(fits))


def test_width_is_shared_as_css_automatic_layout_shares_it():
    # all max-content widths fit: the excess goes in proportion to max-content
    assert cw.distribute([(10, 100), (10, 300)], 800) == pytest.approx([200, 600])
    # between min- and max-content: each column gets the same share of its (max - min) range
    assert cw.distribute([(100, 300), (100, 500)], 400) == pytest.approx([100 + 200 / 3, 100 + 400 / 3])
    # the longest words do not fit side by side
    assert cw.distribute([(300, 400), (300, 400)], 500) is None


def test_the_shipped_widths_are_this_machines_fonts_where_the_font_files_are_the_same():
    """font_widths.json.gz is written by ``python -m genreport.printing.colwidths``; where this machine's DejaVu
    files are the ones it was read from (same SHA-256), reading them again gives the same table."""
    if shutil.which("fc-match") is None:
        pytest.skip("no fontconfig")
    pytest.importorskip("fontTools")
    shipped = json.loads(gzip.decompress(cw.SHIPPED.read_bytes()))["fonts"]
    import hashlib

    for name, pattern in cw.FONTS.items():
        path = subprocess.run(["fc-match", "-f", "%{file}", pattern], capture_output=True, text=True).stdout
        if not path or hashlib.sha256(Path(path).read_bytes()).hexdigest() != shipped[name]["sha256"]:
            pytest.skip(f"this machine's {pattern} is not the shipped one")
    assert json.loads(gzip.decompress(cw.table_text()))["fonts"] == shipped


def _weasyprint_widths(html: str) -> list[tuple[list[float], list[float], list[float]]]:
    """Each table's (column min-content, column max-content, used widths) as WeasyPrint's automatic layout
    computes them, in document order."""
    import weasyprint.layout.preferred as preferred
    import weasyprint.layout.table as table
    from genreport.printing import pdf as pdfstage

    pdfstage._import()
    stock = preferred.table_and_columns_preferred_widths
    seen: dict = {}

    def recording(context, box, outer=True):
        got = stock(context, box, outer)
        wrapped = box.get_wrapped_table()
        if not outer and id(wrapped) not in seen:
            seen[id(wrapped)] = (wrapped, list(got[2]), list(got[3]))
        return got

    table.table_and_columns_preferred_widths = recording
    try:
        pdfstage._html(html).render()
    finally:
        table.table_and_columns_preferred_widths = stock
    return [(mins, maxs, list(t.column_widths)) for t, mins, maxs in seen.values()]


def _tables_only(html: str) -> str:
    """``html`` with each table alone in a copy of the elements it sits in (its section, its box), in document
    order, and nothing else of the body: WeasyPrint gives its columns the widths it gives them in the whole report
    (they depend on the cells and on the width the ancestors leave), in a third of the time of laying the report
    out.  (Checked on the nine committed reports: the same widths, table by table.)"""
    from html.parser import HTMLParser

    void = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
    found: list[tuple[tuple[int, int], list[tuple[str, str]]]] = []

    class Ancestors(HTMLParser):
        stack: list[tuple[str, str]] = []

        def handle_starttag(self, tag, attrs):
            if tag == "table":
                found.append((self.getpos(), [a for a in self.stack if a[0] not in ("html", "body")]))
            if tag not in void:
                self.stack = [*self.stack, (tag, self.get_starttag_text())]

        def handle_endtag(self, tag):
            at = max((i for i, (t, _) in enumerate(self.stack) if t == tag), default=None)
            if at is not None:
                self.stack = self.stack[:at]

    Ancestors(convert_charrefs=False).feed(html)
    starts = [0]
    for line in html.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    body = html.index("<body")
    parts = [html[:html.index(">", body) + 1]]
    for (line, column), chain in found:
        at = starts[line - 1] + column
        parts += [*(text for _, text in chain), html[at:html.index("</table>", at) + 8],
                  *(f"</{tag}>" for tag, _ in reversed(chain))]
    return "".join(parts) + "</body></html>"


def _compare(name: str) -> None:
    html = _print_html(name)
    ours = [cw._columns(m.group(1), *cw._TABLE.match(html, m.end()).groups())
            for m in re.finditer(r'<div\b([^>]*)>\s*(?=<table\b)', html)]
    theirs = _weasyprint_widths(_tables_only(html))
    assert len(ours) == len(theirs)
    for cols, (mins, maxs, used) in zip(ours, theirs, strict=True):
        for (lo, hi), mn, mx in zip(cols, mins, maxs, strict=True):
            assert lo >= mn, (name, lo, mn)  # never narrower than WeasyPrint's longest word
            assert hi == pytest.approx(mx, rel=0.05), (name, hi, mx)  # no kerning, SLACK: a little wider
        widths = cw.distribute(cols)
        assert widths is not None
        assert sum(abs(a - b) for a, b in zip(widths, used, strict=True)) <= 0.15 * sum(used), (name, widths, used)


@pytest.mark.parametrize("name", ["llama8b-h100", "mixtral8x22b-h100-tp8-ep8"])
def test_measures_are_never_below_weasyprints_and_close_to_its_layout(name):
    pytest.importorskip("weasyprint")
    _compare(name)


# The reports compared besides the two above: with them, every shape of table the nine committed reports print (the
# box, the table's class, the number of columns, the header row; the test below checks it).  DeepSeek-V3 (MoE, MLA,
# expert parallelism over 8 GPUs) and the 70B seed (a model that does not fit one GPU; the only reports with the
# achieved-rates, memory-levels and training-state tables).  The other five print the same tables with other numbers:
# llama8b-a100 as llama8b-h100, llama70b-h100-tp2/-tp8 and llama405b-h200-fp8-tp8 as these, seed000-70b-h200 as
# seed000-70b-h100.
COMPARED = ("llama8b-h100", "mixtral8x22b-h100-tp8-ep8", "deepseek-v3-h200-ep8", "seed000-70b-h100")


def _shapes(name: str) -> set[tuple]:
    """The shapes of table a report prints: (box, table attributes, columns, header cells with digits as N)."""
    html = _print_html(name)
    found = set()
    for m in re.finditer(r'<div\b([^>]*)>\s*(?=<table\b)', html):
        table = cw._TABLE.match(html, m.end())
        head = tuple(re.sub(r"\d+", "N", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table.group(2))[:12])
        found.add((m.group(1), table.group(1), len(cw._columns(m.group(1), *table.groups())), head))
    return found


def test_the_reports_compared_print_every_shape_of_table_the_committed_reports_print():
    compared = set().union(*(_shapes(n) for n in COMPARED))
    for name in SPECS:
        assert _shapes(name) <= compared, (name, sorted(_shapes(name) - compared)[:2])


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in COMPARED if n not in ("llama8b-h100", "mixtral8x22b-h100-tp8-ep8")])
def test_measures_are_never_below_weasyprints_on_the_other_shapes_of_table(name):
    pytest.importorskip("weasyprint")
    _compare(name)


def test_the_print_html_leaves_out_the_live_pages_data_attributes_with_the_same_pdf():
    """render._for_print drops ``data-*="..."`` (the live page's marks): no print style selects them, so the
    pages are the same bytes, laid out sooner. A quoted value in text is escaped, so only attributes go. (The
    print without them is the session's print of the report, tests/shared.py.)"""
    pytest.importorskip("weasyprint")
    from genreport.present import render
    from genreport.present.live import without_scripts
    from genreport.printing import pdf as pdfstage
    from shared import printed, write

    reference = printed("llama8b-h100")
    html = (ROOT / "out" / "llama8b-h100" / "report.html").read_text(encoding="utf-8")
    assert reference.html == without_scripts(render._for_print(html))
    assert ' data-q="' in html and ' data-q="' not in reference.html
    assert 'data-q=&#34;' in render._for_print('<p>data-q=&#34;x&#34;</p>')  # text is left alone
    kept = without_scripts(cw.fix_tables(render.keep_units(render._PHONE_SOURCE.sub("", html))))
    assert kept != reference.html
    assert write(pdfstage._html(kept).render()) == reference.pdf


def test_the_print_html_with_figures_is_made_from_the_marked_one_where_no_table_holds_a_figure():
    """render._with_figures puts the figures into the marked print HTML (made before they are drawn) instead of
    making the print HTML again: the same string where no table (nor the box before it) holds a figure's mark, and
    None (made anew) where one does, as that table is measured with its image."""
    import base64

    from genreport.present import render

    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="120" height="10"><path d="M 0 0"/></svg>'
    uri = "data:image/svg+xml;base64," + base64.b64encode(svg).decode()
    mark = "genreport-figure-0123456789abcdef-fig1-"
    table = _table([["what", "value"], ["ridge", "295 FLOP/B"]])
    text = "<p>" + "words " * 40 + "</p>"  # colwidths reads the 200 characters before a table for its box
    for html in (f'<p data-q="x"><img src="{mark}"></p>{text}{table}', f'{table}<figure><img src="{mark}"></figure>'):
        marked = render._for_print(html)
        assert "table-layout:fixed" in marked  # the table is measured
        assert render._with_figures(marked, {"fig1": mark}, {"fig1": uri}) == render._for_print(html.replace(mark, uri))
    inside = _table([["what", "figure"], ["ridge", f'<img src="{mark}">']])
    assert render._for_print(inside) != render._for_print(inside.replace(mark, uri))  # measured with the image
    assert render._with_figures(render._for_print(inside), {"fig1": mark}, {"fig1": uri}) is None
    near = f'<p><img src="{mark}"></p>{table}'  # a figure right before a table: made anew too
    assert render._with_figures(render._for_print(near), {"fig1": mark}, {"fig1": uri}) is None
    assert render._with_figures(None, {"fig1": mark}, {"fig1": uri}) is None  # no marked HTML was made


def test_page_ones_other_roof_stays_on_one_line():
    """Page 1's "other roof" cell of DeepSeek-V3 on 8 H200 wrapped "52x | interconnect" over two lines of the PDF: the
    ratio and its roof are joined by a no-break space (the template and the live page's page.js alike), so the
    column's narrowest width is the whole "93x interconnect" and the print's widths keep it on one line."""
    from shared import html

    page = html("deepseek-v3-h200-ep8.yaml")
    table = page[page.index('<table class="decision'):page.index("</table>", page.index('<table class="decision'))]
    cells = re.findall(r'<td class="n">([^<]*×[^<]*)</td>', table)
    assert cells and all("×&nbsp;" in c or "×\u00a0" in c for c in cells), cells
    size = cw.TABLE_FONT["decision"]
    (lo, hi), = cw._columns('class="scroll"', 'class="decision"', "<tr><td>93×\u00a0interconnect</td></tr>")
    assert lo == hi == pytest.approx(cw._text_width("93× interconnect", "sans", size) * cw.SLACK + 2 * cw.CELL_PAD[
        "decision"])
    assert 'n(x.other_roof) + "×\\u00a0" + x.other' in (ROOT / "templates" / "live" / "page.js").read_text()
