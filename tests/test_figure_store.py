"""Figures kept by what they are drawn from (generator/present/figures/store.py): a build whose figures' inputs did
not change takes them from the cache folder, with the same bytes; any change of numbers draws them again."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from genreport.present import figures
from genreport.present.figures import store
from genreport.write.build import build
from shared import ROOT

SPEC = ROOT / "specs" / "llama8b-a100.yaml"
FORMATS = ("html", "json")  # the figures are the same with a PDF; this keeps the test quick


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GENREPORT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("GENREPORT_FIGURE_CACHE", raising=False)
    return tmp_path / "cache" / store.FOLDER


def _first_build(cache: Path):
    """``build(SPEC, FORMATS)`` with ``cache``'s cache folder empty, as it leaves that folder: the session's first
    build of SPEC into an empty cache folder (tests/shared.py, which tests/test_hostile_cache.py starts from too), its
    cache folder written into this test's. Three tests start from it, not each from a build of its own that draws the
    same figures again."""
    from shared import built_into_empty_cache

    return built_into_empty_cache(SPEC.name, cache.parent, FORMATS)


def _no_drawing(monkeypatch):
    """From now on a figure drawn in this process or a child fails the build."""
    def refuse(*_a, **_k):
        raise AssertionError("a figure was drawn")

    monkeypatch.setattr(figures, "draw_all", refuse)


def _respec(tmp_path: Path, old: str, new: str) -> Path:
    text = SPEC.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / SPEC.name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_a_second_build_takes_the_figures_kept_by_the_first_with_the_same_bytes(cache, monkeypatch):
    first = _first_build(cache)
    assert len(list(cache.glob("*.json"))) == 2  # the wide and the phone layout
    _no_drawing(monkeypatch)
    second = build(SPEC, FORMATS)
    assert second.files == first.files


def test_a_new_title_keeps_the_figures_and_a_new_number_draws_them(cache, tmp_path, monkeypatch):
    first = _first_build(cache)
    retitled = _respec(tmp_path, '\ntitle: ', '\ntitle: Retitled, ')
    with monkeypatch.context() as m:
        _no_drawing(m)
        again = build(retitled, FORMATS)  # its figures were drawn from results without a title
    assert {k: v for k, v in again.files.items() if k.startswith("figures/")} == \
        {k: v for k, v in first.files.items() if k.startswith("figures/")}
    assert again.files["report.html"] != first.files["report.html"]
    (tmp_path / "b").mkdir()
    batch = _respec(tmp_path / "b", "batch: [", "batch: [3, ")
    _no_drawing(monkeypatch)
    with pytest.raises(AssertionError, match="a figure was drawn"):
        build(batch, FORMATS)


def test_kept_figures_that_fail_a_check_are_drawn_again(cache, monkeypatch):
    first = _first_build(cache)
    kept = {path: path.read_bytes() for path in cache.glob("*.json")}
    for path in kept:
        data = json.loads(path.read_text())
        data["figures"][next(iter(data["figures"]))] = "<script>alert(1)</script>"
        path.write_text(json.dumps(data))
    again = build(SPEC, FORMATS)
    assert again.files == first.files
    assert {path: path.read_bytes() for path in cache.glob("*.json")} == kept  # drawn again, kept again


def test_turned_off_it_neither_reads_nor_writes(cache, monkeypatch):
    monkeypatch.setenv("GENREPORT_FIGURE_CACHE", "0")
    build(SPEC, FORMATS)
    assert not cache.exists()


def test_at_most_keep_files_the_least_recently_used_go(cache, monkeypatch):
    monkeypatch.setattr(store, "KEEP", 3)
    svg = {"a": b'<svg xmlns="http://www.w3.org/2000/svg"/>'}
    for i in range(3):
        store.put(f"{i:040x}", svg)
        os.utime(cache / f"{i:040x}.json", (1000 + i, 1000 + i))
    assert store.get(f"{0:040x}", ["a"]) == svg  # used: now the most recent
    store.put(f"{9:040x}", svg)
    assert sorted(p.stem[-1] for p in cache.glob("*.json")) == ["0", "2", "9"]


def test_a_key_is_hex_and_a_name_set_must_match():
    assert store.get("../../etc/passwd", ["a"]) is None
    assert store.get("0" * 40, ["a"]) is None  # nothing kept
