"""No built report has an internal link without its anchor (issue 16 item 9: a decode-only spec linked
``#fx-gemm_saturation-0`` from the formula appendix, a block made but never printed).

The PDF is printed from the same HTML, so an anchor missing here is a dead link in the PDF too
(WeasyPrint's "No anchor #..." warning).
"""

from __future__ import annotations

import re

import pytest
from shared import ROOT
from shared import page as page_of

HEAD = """\
kind: report
name: {name}
title: {name}
hardware: h100-sxm
model: {model}
precision: bf16
workloads:
"""
WORKLOADS = {
    "decode-only": ("llama-3.1-8b", "  decode: {batch: [1, 64], context: [1k, 8k]}\n"),
    "prefill-only": ("llama-3.1-8b", "  prefill: {prompt: [512, 2k]}\n"),
    "training-only": ("llama-3.1-8b", "  training: {micro_batch_tokens: 8k}\n"),
    "moe-decode-prefill": ("mixtral-8x7b", "  decode: {batch: [1, 8], context: [4k]}\n  prefill: {prompt: [1k]}\n"),
}


def dead_links(html: str) -> list[str]:
    anchors = set(re.findall(r'\bid="([^"]+)"', html)) | set(re.findall(r'\bname="([^"]+)"', html))
    return sorted({h for h in re.findall(r'href="#([^"]*)"', html) if h not in anchors})


def test_the_check_finds_a_dead_link():
    assert dead_links('<a href="#x">x</a><p id="y"></p>') == ["x"]
    assert dead_links('<a href="#y">y</a><p id="y"></p>') == []


@pytest.mark.parametrize("kind", sorted(WORKLOADS))
def test_no_dead_internal_links(tmp_path, kind):
    """The page a build writes (``shared.page``: its figures, which hold no link, not drawn)."""
    model, workloads = WORKLOADS[kind]
    spec = tmp_path / "specs" / f"{kind}.yaml"
    spec.parent.mkdir()
    spec.write_text(HEAD.format(name=kind, model=model) + workloads)
    html = page_of(spec)
    assert "href=\"#fx-" in html  # the appendix links the formulas
    assert dead_links(html) == []
    if model == "mixtral-8x7b":  # issue 16 item 5: the active count says whether it includes the embeddings
        assert "embeddings and head included" in html and "without the embedding and the head" in html


@pytest.mark.parametrize("name", sorted(p.parent.name for p in (ROOT / "out").glob("*/report.html")))
def test_committed_reports_have_no_dead_internal_links(name):
    assert dead_links((ROOT / "out" / name / "report.html").read_text()) == []
