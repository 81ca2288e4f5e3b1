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


def test_the_shipped_math_and_figure_sizes_serve_every_committed_report():
    """``python -m genreport.present.mathship --check`` (regen's "math" step) on this session's builds of the committed
    reports, which the test above made: every formula they draw is shipped (and every sixth is what ziamath draws
    here), and the shipped figure sizes are theirs.  tests/test_regen.py runs every other step of the check."""
    from genreport.present import mathship

    code, lines = mathship.check([shared_built(f"{name}.yaml", ("html", "json")) for name in REFERENCE])
    assert code == 0, "\n".join(lines)
    assert all(line.endswith(": current") for line in lines), lines

