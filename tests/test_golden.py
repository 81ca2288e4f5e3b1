"""Golden reports: the committed out/ of each reference spec equals a fresh build.

HTML, SVG and results.json are compared byte for byte (the PDF's bytes depend on the font stack, so
tests/test_report.py checks its text, pages and ink instead).  To refresh after an intended change:
    genreport specs/*.yaml
"""

from __future__ import annotations

import pytest
from shared import ROOT
from shared import built as shared_built

REFERENCE = sorted(p.stem for p in (ROOT / "specs").glob("*.yaml"))


def test_every_reference_spec_has_a_committed_report():
    assert REFERENCE, "no reference specs"
    for name in REFERENCE:
        assert (ROOT / "out" / name / "results.json").is_file(), name


@pytest.mark.parametrize("name", REFERENCE)
def test_committed_report_matches_a_fresh_build(name):
    built = shared_built(f"{name}.yaml", ("html", "json"))  # the session's build, which other files read too
    dest = ROOT / "out" / name
    stale = [rel for rel, data in sorted(built.files.items())
             if not (dest / rel).is_file() or (dest / rel).read_bytes() != data]
    assert not stale, f"out/{name} is out of date ({', '.join(stale)}): run 'genreport specs/{name}.yaml'"
