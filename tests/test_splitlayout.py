"""Pages laid out by two processes (printing/splitlayout.py): the same PDF bytes as one process, and every way it
can refuse or fail ends in those bytes too."""

from __future__ import annotations

import os

import pytest
from shared import ROOT

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2, reason="needs fork and 2 cores")


@pytest.fixture()
def fresh(tmp_path, monkeypatch):
    """A cache folder of its own (no remembered splits), the split on, the statistics reset."""
    from genreport.printing import pdf, splitlayout

    monkeypatch.setenv("GENREPORT_CACHE", str(tmp_path / "cache"))
    for name in ("GENREPORT_PDF", "GENREPORT_PDF_OFF", "GENREPORT_SERIAL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("genreport.procs.cores", lambda: 2)
    monkeypatch.setattr(splitlayout, "_memory", None)
    _reset(splitlayout)
    pdf._import()
    if not splitlayout.enabled():
        from genreport.printing import gate

        pytest.skip(f"no split: the gate is closed ({gate.reason()})")
    yield splitlayout
    splitlayout.close_all()


def _reset(splitlayout) -> None:
    for key in splitlayout.stats:
        splitlayout.stats[key] = "" if key == "reason" else 0


def _print(html: str, split: bool = True, seed: bool = True) -> bytes:
    from genreport.printing import pdf, splitlayout, splitpaint

    was = os.environ.pop("GENREPORT_PDF_OFF", None)
    if not seed:
        os.environ["GENREPORT_PDF_OFF"] = "seed-pages"
    try:
        return splitpaint.write_pdf(splitlayout.render(pdf._html(html), split=split))
    finally:
        splitlayout.close_all()
        os.environ.pop("GENREPORT_PDF_OFF", None)
        if was is not None:
            os.environ["GENREPORT_PDF_OFF"] = was


def _first_print(splitlayout, html: str) -> bytes:
    """``_print(html, split=False)`` in a fresh cache folder: the one-process PDF, and what it leaves remembered (where
    the next print splits, its page numbers) and counted. Printed once per run (tests/shared.py, which
    tests/test_hostile_cache.py's damaged records start from too); later tests get its bytes, its records file
    written into their own cache folder (read back as a new process reads it) and its counts."""
    from genreport.fileio import write_file
    from shared import split_first_print

    assert splitlayout._memory in (None, []) and not splitlayout._records_path().exists()
    made = []

    def make():
        before = {k: v for k, v in splitlayout.stats.items() if isinstance(v, int)}
        one = _print(html, split=False)
        made.append(True)
        return (one, splitlayout._records_path().read_bytes(),
                {k: splitlayout.stats[k] - v for k, v in before.items()})

    one, records, counts = split_first_print(html, make)
    if made:
        return one
    write_file(splitlayout._records_path(), records, private=True)
    splitlayout._memory = None
    for key, n in counts.items():
        splitlayout.stats[key] += n
    return one


def _report(name: str) -> str:
    from genreport.present.live import without_scripts
    from genreport.present.render import _for_print

    return without_scripts(_for_print((ROOT / "out" / name / "report.html").read_text()))


def _synthetic(back_reference: bool = False, sections: int = 10, prefix: str = "s", words: int = 160,
               word: str = "word", head: str = "") -> str:
    """A document of many pages: a table of contents with page numbers, a running title, 'page N / total'
    footers, headings, long paragraphs, a table, fonts used only on the last pages; with ``back_reference``, the
    last section cites the page of the first (a page-based counter on a late page); ``head``: HTML put first in
    the body (``.running``: a running header element; ``.fixed``: a box drawn on every page)."""
    toc = "".join(f'<li><a href="#{prefix}{i}">Section {i}</a></li>' for i in range(sections))
    body = []
    for i in range(sections):
        text = " ".join(f"{word}{i}x{j}" for j in range(words))
        rows = "".join(f"<tr><td>{i}.{r}</td><td>{r * r}</td></tr>" for r in range(8))
        late = "<p><code>only on the last pages</code></p>" if i >= sections - 2 else ""
        body.append(f'<section id="{prefix}{i}"><h2>Section {i}</h2><p>{text}</p><table>{rows}</table>'
                    f"<p><i>{text[:400]}</i></p>{late}</section>")
    if back_reference:
        body.append(f'<p>See <a class="ref" href="#{prefix}0">the first section</a>.</p>')
    return f"""<!doctype html><html><head><title>t</title><style>
@page {{ size: A5; margin: 15mm; @bottom-right {{ content: counter(page) " / " counter(pages); }}
        @bottom-left {{ content: string(doctitle); }} }}
body {{ font-family: "DejaVu Sans"; font-size: 10pt; }} h1 {{ string-set: doctitle content(); }}
.toc a::after {{ content: leader('.') target-counter(attr(href), page); }}
a.ref::after {{ content: " (page " target-counter(attr(href), page) ")"; }}
.running {{ position: running(header); }} @page {{ @top-center {{ content: element(header); }} }}
.fixed {{ position: fixed; top: 0; right: 0; }}
</style></head><body>{head}<h1>A synthetic document</h1><ul class="toc">{toc}</ul>{''.join(body)}</body></html>"""


def test_a_synthetic_document_split_in_two_is_the_same_pdf(fresh):
    from genreport.printing import splitpaint

    html = _synthetic()
    one = _first_print(fresh, html)  # notes where the next build splits
    assert fresh._records(), "a document of this many pages is remembered"
    made = splitpaint.stats["fonts_made"]
    two = _print(html)
    assert fresh.stats["taken"] == 1 and fresh.stats["merged"] == 1, fresh.stats
    assert splitpaint.stats["fonts_made"] >= made + 1  # the monospace font, first used by the child
    assert two == one
    assert _print(html) == one  # and again, from what the split build remembered
    assert fresh.stats["taken"] == 2, fresh.stats


def test_a_report_split_in_two_is_the_same_pdf(fresh):
    """DeepSeek V3 on eight H200s (MoE, MLA, 16 pages); tests/test_fastpdf.py builds the 8B report split too."""
    html = _report("deepseek-v3-h200-ep8")
    one = _print(html, split=False)
    assert _print(html) == one
    assert fresh.stats["taken"] == 1 and fresh.stats["merged"] == 1, fresh.stats


def test_fonts_first_used_by_the_childs_svg_text_are_merged(fresh, monkeypatch):
    """A font first used on the child's pages by a style the parent's box tree lacks (an SVG text's, made while
    painting; WeasyPrint draws SVG <text> through the same first-line code as HTML text) is made again in the parent
    from the SVG text's font properties, not a reason to print again in one process. It was one for DeepSeek V3's
    report split before page 5 (the split point depends on measured page times: a flaky fallback under load)."""
    from genreport.printing import splitpaint

    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="60" height="20"><text x="2" y="14" font-family="DejaVu Sans"'
           ' font-style="italic" font-size="7">S</text><text x="20" y="14" font-family="DejaVu Serif"'
           ' font-weight="bold" font-size="9">Tx</text></svg>')
    html = _synthetic(prefix="v").replace("<p><code>only on the last pages</code></p>",
                                          f"<p><code>only on the last pages</code></p>{svg}")
    one = _print(html, split=False)
    k = fresh._records()[0]["k"]
    monkeypatch.setattr(fresh, "_split_points", lambda costs, later: [k])
    made = splitpaint.stats["fonts_made"]
    assert _print(html) == one
    assert fresh.stats["taken"] == 1 and fresh.stats["merged"] == 1, fresh.stats
    assert splitpaint.stats["fonts_made"] >= made + 2, splitpaint.stats  # the monospace font, the SVG texts' fonts


def test_a_page_based_counter_on_the_childs_pages_keeps_one_process(fresh):
    html = _synthetic(back_reference=True)
    one = _print(html, split=False)
    assert _print(html) == one
    assert fresh.stats["taken"] == 0 and fresh.stats["abandoned"] == 1, fresh.stats
    assert "page-based counter" in fresh.stats["reason"]


@pytest.mark.parametrize(("head", "reason"), [('<div class="running">A running header</div>', "running element"),
                                             ('<div class="fixed">Fixed</div>', "fixed box")])
def test_what_the_parents_pages_show_on_every_page_keeps_one_process(fresh, head, reason):
    """A running element or a fixed box on the first pages is drawn on the pages after them too, which the
    child finished without it: its pages are laid out and finished here instead."""
    html = _synthetic(head=head)
    one = _print(html, split=False)
    assert _print(html) == one
    assert fresh.stats["materialized"] == 1 and reason in fresh.stats["reason"], fresh.stats


def test_a_remembered_entry_that_does_not_match_is_abandoned(fresh):
    html = _synthetic()
    one = _first_print(fresh, html)
    record = fresh._records()[0]
    resume_at, next_page, right_page, state = record["entry"]
    record["entry"] = (resume_at, next_page, not right_page, state)  # a page side it will not have
    assert _print(html) == one
    assert fresh.stats["taken"] == 0 and "not the remembered one" in fresh.stats["reason"], fresh.stats


def test_a_document_of_another_shape_finds_nothing_remembered(fresh):
    _first_print(fresh, _synthetic())
    other = _synthetic(prefix="t")  # the element the remembered break is before is not in this one
    _reset(fresh)
    assert _print(other) == _print(other, split=False, seed=False)
    assert fresh.stats["split"] == 0 and fresh.stats["seeded"] == 0, fresh.stats


def test_a_document_of_the_same_shape_but_other_pages_is_checked(fresh, monkeypatch):
    """Another document with the remembered break's elements (a shorter contents): the split's entry is the first
    one's, checked against its own at the break; taken where they agree, abandoned where not, the same bytes as one
    process either way.  The first print remembers the earliest break it can keep (page 4), in a section the shorter
    document has too: where it splits is chosen from the pages' measured layout times, and on a busy machine (the
    suite's two workers) that was once a page of a section the other document lacks, so nothing was split."""
    split_points = fresh._split_points
    monkeypatch.setattr(fresh, "_split_points", lambda costs, later: sorted(split_points(costs, later)))
    _print(_synthetic(), split=False)
    assert fresh._records()[0]["k"] == 4
    monkeypatch.setattr(fresh, "_split_points", split_points)
    other = _synthetic(sections=8)
    _reset(fresh)
    assert _print(other) == _print(other, split=False, seed=False)
    assert fresh.stats["split"] == 1 and fresh.stats["taken"] + fresh.stats["abandoned"] == 1, fresh.stats


def test_page_numbers_remembered_for_other_pages_are_corrected(fresh):
    """The same contents, the sections longer: the numbers given are wrong, found so at the end of the first
    pass, and the contents is laid out again with its own, as without them."""
    _first_print(fresh, _synthetic())
    other = _synthetic(words=220)
    _reset(fresh)
    assert _print(other, split=False) == _print(other, split=False, seed=False)
    assert fresh.stats["seeded"] == 1 and fresh.stats["corrected"] >= 1, fresh.stats


def test_two_documents_built_in_turn_each_keep_their_split(fresh):
    """A warm process building two reports of the same template in turn (the same elements, other text): each
    finds its own remembered split and page numbers, not the other's."""
    first, second = _synthetic(), _synthetic(word="term", words=180)
    expected = {first: _first_print(fresh, first)}
    expected[second] = _print(second, split=False)
    _reset(fresh)
    for html in (first, second, first, second):
        assert _print(html) == expected[html]
    assert fresh.stats["taken"] == 4 and fresh.stats["seeded"] == 4 and fresh.stats["corrected"] == 0, fresh.stats
    assert fresh.stats["laid_out_again"] == 0, fresh.stats


def test_a_child_that_fails_leaves_the_parent_alone(fresh, monkeypatch):
    html = _synthetic()
    one = _first_print(fresh, html)

    def broken(*args):
        raise RuntimeError("a child that fails")

    monkeypatch.setattr(fresh, "_child", broken)
    assert _print(html) == one
    assert fresh.stats["taken"] == 0 and fresh.stats["abandoned"] == 1, fresh.stats


def test_child_pages_that_cannot_stand_are_laid_out_again_here(fresh, monkeypatch):
    html = _synthetic()
    one = _first_print(fresh, html)
    monkeypatch.setattr(fresh._Split, "_check_pages", lambda self, pages, context: "a reason to refuse")
    assert _print(html) == one
    assert fresh.stats["materialized"] == 1 and fresh.stats["reason"] == "a reason to refuse", fresh.stats


def test_child_pages_that_cannot_be_finished_are_laid_out_here(fresh, monkeypatch):
    """The child's pages laid out, but its finished pages (margin boxes, links) never come: this process lays
    them out and finishes them after its own."""
    html = _synthetic()
    one = _first_print(fresh, html)
    receive = fresh._Split._receive
    calls = []

    def second_fails(self):
        calls.append(1)
        return receive(self) if len(calls) == 1 else None

    monkeypatch.setattr(fresh._Split, "_receive", second_fails)
    assert _print(html) == one
    assert fresh.stats["taken"] == 1 and fresh.stats["materialized"] == 1, fresh.stats


def test_a_painting_that_cannot_be_merged_prints_again_in_one_process(fresh, monkeypatch):
    from genreport.printing import pdf, splitpaint

    html = _synthetic()
    one = _first_print(fresh, html)

    def refuse(*args):
        raise splitpaint._Fallback("a merge refused")

    monkeypatch.setattr(splitpaint, "merge", refuse)
    with pytest.raises(fresh.Fallback):
        _print(html)
    monkeypatch.setattr(pdf, "_early", None)
    assert pdf.html_to_pdf(html) == one  # the PDF stage prints it again, split off


def test_the_remembered_splits_are_data_only(fresh, tmp_path):
    """The records file is read as Python literals: code in it is not run, and junk is ignored."""
    from genreport.paths import cache_dir

    cache_dir().mkdir(parents=True, exist_ok=True)
    flag = tmp_path / "ran"
    (cache_dir() / fresh.RECORDS_FILE).write_text(f"[__import__('pathlib').Path({str(flag)!r}).touch()]")
    assert fresh._records() == []
    assert not flag.exists()
    fresh._memory = None
    (cache_dir() / fresh.RECORDS_FILE).write_text("[{'k': 'x'}, 3, {'k': 2, 'sig': (), 'entry': (1, 2, 3, 4)}]")
    assert fresh._records() == []  # tests/test_hostile_cache.py damages real records field by field


def test_remembered_page_numbers_make_one_pass_and_the_same_pdf(fresh):
    """The table of contents given its numbers before the first pass: no second pass, the same bytes."""
    html = _synthetic()
    one = _first_print(fresh, html)
    assert fresh.stats["laid_out_again"] >= 1 and fresh.stats["seeded"] == 0, fresh.stats  # the contents' page
    _reset(fresh)
    assert _print(html, split=False) == one
    assert fresh.stats["seeded"] == 1 and fresh.stats["laid_out_again"] == 0, fresh.stats
    _reset(fresh)
    assert _print(html) == one  # with the split too
    assert fresh.stats["seeded"] == 1 and fresh.stats["taken"] == 1 and fresh.stats["laid_out_again"] == 0


def test_a_remembered_page_number_that_is_wrong_is_laid_out_again(fresh):
    html = _synthetic()
    one = _first_print(fresh, html)
    record = fresh._records()[0]
    name = sorted(record["anchors"])[3]
    record["anchors"][name] = dict(record["anchors"][name], page=[record["anchors"][name]["page"][0] + 1])
    assert _print(html) == one
    assert fresh.stats["corrected"] >= 1 and fresh.stats["laid_out_again"] >= 1, fresh.stats


def test_content_remembered_on_another_page_is_set_again(fresh):
    html = _synthetic()
    one = _first_print(fresh, html)
    record = fresh._records()[0]
    missing, values = record["lookups"][0]
    record["lookups"][0] = (missing, dict(values, page=[values["page"][0] + 1]))  # as if the contents moved
    assert _print(html, split=False) == one
    assert fresh.stats["laid_out_again"] >= 1, fresh.stats


def test_the_split_point_shares_the_layout():
    from genreport.printing.splitlayout import _split_points

    assert _split_points([1.0] * 10, 0.0)[:3] == [5, 4, 6]
    assert _split_points([1.0] * 10, 2.0)[0] == 4  # the parent also lays out again what later passes did
    assert _split_points([5.0] + [1.0] * 9, 0.0)[0] == 3
    assert sorted(_split_points([1.0] * 10, 0.0)) == list(range(1, 9))
