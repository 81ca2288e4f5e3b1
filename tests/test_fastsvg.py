"""The fast SVG path drawer writes the same PDF bytes as WeasyPrint's own (generator/fastsvg.py)."""

from __future__ import annotations

import os

import pytest

weasyprint = pytest.importorskip("weasyprint")

from genreport.printing import fastsvg, gate  # noqa: E402

pytestmark = pytest.mark.skipif(not fastsvg.install(), reason=f"the gate is closed: {gate.reason()}")

# Path data that exercises each branch: absolute and relative forms, implicit repeats after a move and after
# other commands, exponents, commas and signs as separators, "1.5.5" (two numbers), a close without a segment,
# and a subpath closed twice. The second list goes to WeasyPrint's own drawer (arcs, smooth curves, units,
# malformed data).
FAST = [
    "M 10 10 L 20 20 L 30 10 Z",
    "m10,10 l10,10 10-10 z m 5 5 h 10 v 10 H 2 V 3 z",
    "M1e1 1E1L2.5e+1-3.0e-1 C 1 2 3 4 5 6 c1 2 3 4 5 6 7 8 9 10 11 12",
    "M 0 0 Q 5 10 10 0 q 5 -10 10 0 5 10 10 0",
    "M1.5.5L.5-.5l-1.25.75",
    "M 3 3 Z Z L 4 4",
    "M 12.18 -0.78 L 12.18 -0.78 L 12.03 0 Q 8.13 -4.47 7.77 -4.785 Z M 9.96 -8.01 L 9.96 -8.01 Z ",
    "M 5 5 10 10 15 5",
    "L 1 2",
    "",
]
STOCK = [
    "M 10 10 A 5 5 0 0 1 20 20",
    "M 0 0 S 5 5 10 0 T 20 0",
    "M 1mm 2mm L 3cm 4cm",
    "M 1 2 L 3",
    "M 1 2 L 3 4 Z M",
]
# Not tested: numbers after a close ("M 1 2 Z 3") make WeasyPrint 70's own drawer loop forever. genreport never
# writes such data, and the fast drawer passes it on unchanged rather than guess what it should mean.


def _pdf(paths: list[str], markers: str = "") -> bytes:
    defs = ('<defs><marker id="m" markerWidth="4" markerHeight="4" refX="2" refY="2">'
            '<circle cx="2" cy="2" r="2"/></marker></defs>') if markers else ""
    mark = {"": "", "attribute": ' marker-mid="url(#m)"', "style": ' style="marker-end: url(#m)"'}[markers]
    body = "".join(f'<path d="{d}" fill="black" stroke="red"{mark}/>' for d in paths)
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200" viewBox="0 0 40 40">{defs}{body}</svg>'
    html = f"<html><body>{svg}<p>text</p>{svg}</body></html>"
    return weasyprint.HTML(string=html).write_pdf(uncompressed_pdf=True)


def _both(paths: list[str], markers: str = "") -> tuple[bytes, bytes]:
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    fastsvg.install()
    try:
        fast = _pdf(paths, markers)
    finally:
        fastsvg.uninstall()
    try:
        stock = _pdf(paths, markers)
    finally:
        fastsvg.install()
    return fast, stock


@pytest.mark.parametrize("d", FAST + STOCK)
def test_each_path_draws_the_same_bytes(d):
    fast, stock = _both([d])
    assert fast == stock


def test_parse_takes_the_fast_path_only_where_it_is_exact():
    for d in FAST:
        assert fastsvg._parse(d) is not None, d
    for d in STOCK:
        assert fastsvg._parse(d) is None, d


@pytest.mark.parametrize("markers", ["attribute", "style"])
def test_paths_with_markers_are_left_to_weasyprint(markers):
    fast, stock = _both(FAST[:3], markers=markers)
    assert fast == stock
    assert fast != _both(FAST[:3])[0]  # the markers were drawn


def test_a_report_pdf_is_byte_identical():
    """The committed reference report as a build prints it, laid out once (tests/shared.py): some 40,000 glyph and
    curve points written by both drawers, with opcache off so that every image is drawn, none replayed; both give
    the bytes of the session's fast print."""
    from genreport.printing import opcache
    from shared import printed, write

    reference = printed("llama8b-h100")
    replaying = opcache._installed
    opcache.uninstall()
    try:
        fastsvg.install()
        fast = write(reference.document)
        fastsvg.uninstall()
        stock = write(reference.document)
    finally:
        fastsvg.install()
        if replaying:
            opcache.install()
    assert fast == stock
    assert fast == reference.pdf
