"""Pages laid out by two processes (present/splitlayout.py): the same PDF bytes as one process, and every way it
can refuse or fail ends in those bytes too."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2, reason="needs fork and 2 cores")


@pytest.fixture()
def fresh(tmp_path, monkeypatch):
    """A cache folder of its own (no remembered splits), the split on, the statistics reset."""
    from genreport.present import pdf, splitlayout

    monkeypatch.setenv("GENREPORT_CACHE", str(tmp_path / "cache"))
    for name in ("GENREPORT_SPLIT_LAYOUT", "GENREPORT_SERIAL", "GENREPORT_STOCK_LAYOUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("genreport.procs.cores", lambda: 2)
    monkeypatch.setattr(splitlayout, "_memory", None)
    for key in splitlayout.stats:
        splitlayout.stats[key] = "" if key == "reason" else 0
    pdf._import()
    if not splitlayout.enabled():
        pytest.skip("the split does not install on this WeasyPrint")
    yield splitlayout
    splitlayout.close_all()


def _print(html: str, split: bool = True) -> bytes:
    from genreport.present import pdf, splitlayout, splitpaint

    try:
        return splitpaint.write_pdf(splitlayout.render(pdf._html(html), split=split))
    finally:
        splitlayout.close_all()


def _report(name: str) -> str:
    from genreport.present.live import without_scripts
    from genreport.present.render import _for_print

    return without_scripts(_for_print((ROOT / "out" / name / "report.html").read_text()))


def _synthetic(back_reference: bool = False, sections: int = 14, prefix: str = "s") -> str:
    """A document of many pages: a table of contents with page numbers, a running title, 'page N / total'
    footers, headings, long paragraphs, a table, fonts used only on the last pages; with ``back_reference``, the last section cites the page of the
    first (a page-based counter on a late page)."""
    toc = "".join(f'<li><a href="#{prefix}{i}">Section {i}</a></li>' for i in range(sections))
    body = []
    for i in range(sections):
        words = " ".join(f"word{i}x{j}" for j in range(220))
        rows = "".join(f"<tr><td>{i}.{r}</td><td>{r * r}</td></tr>" for r in range(8))
        late = "<p><code>only on the last pages</code></p>" if i >= sections - 2 else ""
        body.append(f'<section id="{prefix}{i}"><h2>Section {i}</h2><p>{words}</p><table>{rows}</table>'
                    f"<p><i>{words[:400]}</i></p>{late}</section>")
    if back_reference:
        body.append(f'<p>See <a class="ref" href="#{prefix}0">the first section</a>.</p>')
    return f"""<!doctype html><html><head><title>t</title><style>
@page {{ size: A5; margin: 15mm; @bottom-right {{ content: counter(page) " / " counter(pages); }}
        @bottom-left {{ content: string(doctitle); }} }}
body {{ font-family: "DejaVu Sans"; font-size: 10pt; }} h1 {{ string-set: doctitle content(); }}
.toc a::after {{ content: leader('.') target-counter(attr(href), page); }}
a.ref::after {{ content: " (page " target-counter(attr(href), page) ")"; }}
</style></head><body><h1>A synthetic document</h1><ul class="toc">{toc}</ul>{''.join(body)}</body></html>"""


def test_a_synthetic_document_split_in_two_is_the_same_pdf(fresh):
    from genreport.present import splitpaint

    html = _synthetic()
    one = _print(html, split=False)  # notes where the next build splits
    assert fresh._records(), "a document of this many pages is remembered"
    made = splitpaint.stats["fonts_made"]
    two = _print(html)
    assert fresh.stats["taken"] == 1 and fresh.stats["merged"] == 1, fresh.stats
    assert splitpaint.stats["fonts_made"] >= made + 1  # the monospace font, first used by the child
    assert two == one
    assert _print(html) == one  # and again, from what the split build remembered
    assert fresh.stats["taken"] == 2, fresh.stats


@pytest.mark.parametrize("name", ["llama8b-h100", "deepseek-v3-h200-ep8"])
def test_a_report_split_in_two_is_the_same_pdf(fresh, name):
    html = _report(name)
    one = _print(html, split=False)
    assert _print(html) == one
    assert fresh.stats["taken"] == 1 and fresh.stats["merged"] == 1, fresh.stats


def test_a_page_based_counter_on_the_childs_pages_keeps_one_process(fresh):
    html = _synthetic(back_reference=True)
    one = _print(html, split=False)
    assert _print(html) == one
    assert fresh.stats["taken"] == 0 and fresh.stats["abandoned"] == 1, fresh.stats
    assert "page-based counter" in fresh.stats["reason"]


def test_a_remembered_entry_that_does_not_match_is_abandoned(fresh):
    html = _synthetic()
    one = _print(html, split=False)
    record = fresh._records()[0]
    resume_at, next_page, right_page, state = record["entry"]
    record["entry"] = (resume_at, next_page, not right_page, state)  # a page side it will not have
    assert _print(html) == one
    assert fresh.stats["taken"] == 0 and "not the remembered one" in fresh.stats["reason"], fresh.stats


def test_a_document_of_another_shape_finds_no_split(fresh):
    _print(_synthetic(), split=False)
    other = _synthetic(prefix="t")  # the remembered break's element path is not in this one
    assert _print(other) == _print(other, split=False)
    assert fresh.stats["split"] == 0, fresh.stats


def test_a_document_of_the_same_shape_but_other_pages_is_checked(fresh):
    _print(_synthetic(), split=False)
    other = _synthetic(sections=11)  # the same element path, on another page
    assert _print(other) == _print(other, split=False)
    assert fresh.stats["split"] == 1 and fresh.stats["abandoned"] == 1, fresh.stats
    assert "not the remembered one" in fresh.stats["reason"]


def test_a_child_that_fails_leaves_the_parent_alone(fresh, monkeypatch):
    html = _synthetic()
    one = _print(html, split=False)

    def broken(*args):
        raise RuntimeError("a child that fails")

    monkeypatch.setattr(fresh, "_child", broken)
    assert _print(html) == one
    assert fresh.stats["taken"] == 0 and fresh.stats["abandoned"] == 1, fresh.stats


def test_child_pages_that_cannot_stand_are_laid_out_again_here(fresh, monkeypatch):
    html = _synthetic()
    one = _print(html, split=False)
    monkeypatch.setattr(fresh._Split, "_check_pages", lambda self, pages, context: "a reason to refuse")
    assert _print(html) == one
    assert fresh.stats["materialized"] == 1 and fresh.stats["reason"] == "a reason to refuse", fresh.stats


def test_a_painting_that_cannot_be_merged_prints_again_in_one_process(fresh, monkeypatch):
    from genreport.present import pdf, splitpaint

    html = _synthetic()
    one = _print(html, split=False)

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
    assert len(fresh._records()) == 1


def test_the_split_point_shares_the_layout():
    from genreport.present.splitlayout import _split_points

    assert _split_points([1.0] * 10, 0.0)[:3] == [5, 4, 6]
    assert _split_points([1.0] * 10, 2.0)[0] == 4  # the parent also lays out again what later passes did
    assert _split_points([5.0] + [1.0] * 9, 0.0)[0] == 3
    assert sorted(_split_points([1.0] * 10, 0.0)) == list(range(1, 9))
