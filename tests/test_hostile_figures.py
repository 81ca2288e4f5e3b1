"""Spec text in figures is plain text, never Matplotlib mathtext (issue 17 item 12)."""

from __future__ import annotations

import html
import re

import pytest
from genreport.load.loader import load_report
from genreport.model.evaluate import evaluate
from genreport.present import figures
from shared import ROOT

SPEC = ROOT / "specs" / "llama8b-h100.yaml"


@pytest.mark.parametrize("title, shown", [
    (r"H100 $\frac{1}$", r"H100 $\frac{1}$"),  # crashed the HTML and PDF build (exit 3): a TeX parse error
    ("H100 spot $2, reserved $1", "H100 spot $2, reserved $1"),  # came out as maths, in italics, without '$'
    (r"H100 \$ x $", r"H100 \$ x $"),
])
def test_dollars_in_a_hardware_title_are_plain_text(title, shown):
    r = evaluate(load_report(SPEC, overrides=[f"hardware.title={title}"]))
    svg = re.sub(r"<!--.*?-->", "", figures.draw("fig6-roofline", r).decode(), flags=re.S)  # Matplotlib's comments
    texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    assert f"{shown}, ridge 295" in texts
