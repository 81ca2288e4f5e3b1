"""The figures drawn in child processes (one for both layouts, or one per layout) are the bytes drawn here."""

from __future__ import annotations

import multiprocessing
import os

import pytest
from genreport.present import figures
from shared import evaluated

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork here")


@pytest.fixture(scope="module")
def results():
    return evaluated("llama8b-a100.yaml")


@pytest.fixture(scope="module")
def here(results):
    return figures.draw_all(results), figures.draw_all(results, narrow=True)


@pytest.mark.parametrize("apart", [False, True])
def test_children_draw_what_this_process_draws(results, here, apart, monkeypatch):
    monkeypatch.delenv("GENREPORT_SERIAL", raising=False)
    monkeypatch.setenv("GENREPORT_FIGURE_CACHE", "0")  # drawn, not taken from figures kept by other tests
    if not figures._parallel():
        pytest.skip("one core")
    pending = figures.start(results, apart=apart)
    assert len(pending._children) == (2 if apart else 1)
    assert (pending.result(), pending.narrow()) == here
    assert not pending._children and not multiprocessing.active_children()


def test_a_child_that_fails_leaves_its_layout_to_this_process(results, here, monkeypatch):
    """The phone child fails (as an error in a figure would): the wide ones still come from the other child,
    the phone ones are drawn here."""
    monkeypatch.delenv("GENREPORT_SERIAL", raising=False)
    monkeypatch.setenv("GENREPORT_FIGURE_CACHE", "0")  # drawn, not taken from figures kept by other tests
    if not figures._parallel():
        pytest.skip("one core")
    parent, draw_all = os.getpid(), figures.draw_all

    def failing_in_a_child(results, baseline=None, narrow=False):
        if narrow and os.getpid() != parent:
            raise RuntimeError("a figure failed")
        return draw_all(results, baseline, narrow=narrow)

    monkeypatch.setattr(figures, "draw_all", failing_in_a_child)
    pending = figures.start(results, apart=True)
    assert pending.result() == here[0]
    assert pending.narrow() == here[1]
    assert pending._failed == {"narrow"}


def test_a_build_without_html_draws_no_phone_figures(results, here, monkeypatch):
    """--format pdf: the PDF never shows the phone layout, and no HTML is written, so no child draws it."""
    monkeypatch.delenv("GENREPORT_SERIAL", raising=False)
    monkeypatch.setenv("GENREPORT_FIGURE_CACHE", "0")  # drawn, not taken from figures kept by other tests
    if not figures._parallel():
        pytest.skip("one core")
    pending = figures.start(results, phone=False)
    assert pending._covered == {"wide"}
    assert pending.result() == here[0]
    assert not pending._children and not multiprocessing.active_children()
