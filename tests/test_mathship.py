"""Rendered math shipped in the package (generator/present/mathship.py): what this machine would draw, and enough.

A first build with an empty cache must not render the built-in reports' formulas again, and every shipped
formula is the SVG ziamath draws here (same version, same font file).
"""

from __future__ import annotations

import functools
from importlib import metadata
from pathlib import Path

import pytest
from genreport.present import mathship, mathsvg

FONT = mathsvg._font()
SPEC = "llama8b-a100.yaml"  # a small built-in report (9 figures, about 90 formulas)
pytestmark = pytest.mark.skipif(FONT is None or mathship._table().get("font_sha256") != mathship._font_sha256(FONT),
                                reason="the shipped math was rendered with a math font this machine lacks")


@functools.cache
def _first_build() -> tuple[list, list, int]:
    """One built-in report's HTML built in memory with a cache folder that holds no formula: (the formulas it draws,
    each call of ``mathsvg.svg`` seen and the same as the build's own record of them; the formulas ziamath rendered;
    the formula files it left in the cache folder).  The folder holds the report's kept figures (those of the
    session's first build of it, tests/shared.py, which tests/test_figure_store.py and tests/test_hostile_cache.py
    start from), so that the build draws no figure either: only formulas are made.  Every built-in report's formulas
    are checked by ``python -m genreport.present.mathship --check`` (tests/test_golden.py, on the session's builds):
    each shipped, and every sixth drawn again and compared."""
    import tempfile
    from unittest import mock

    from genreport.paths import specs_dir
    from genreport.write.build import build

    seen: dict[tuple[str, float, bool], None] = {}
    rendered = []
    real_svg, real_render = mathsvg.svg, mathsvg.render

    def record(tex, size=15.0, inline=False):
        seen.setdefault((tex, size, inline), None)
        return real_svg(tex, size, inline)

    import shutil

    from genreport.present.figures import store
    from shared import built_into_empty_cache

    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as m:
        built_into_empty_cache(SPEC, Path(folder) / "first", ("html", "json"))
        shutil.copytree(Path(folder) / "first" / store.FOLDER, Path(folder) / "empty-cache" / store.FOLDER)
        assert not (Path(folder) / "empty-cache" / "math").exists()
        m.setenv("GENREPORT_CACHE", str(Path(folder) / "empty-cache"))
        m.setattr(store, "_checked", {})
        m.setattr(mathsvg, "_swept", False)
        mathsvg.svg.cache_clear()
        m.setattr(mathsvg, "render", lambda *a: rendered.append(a) or real_render(*a))
        try:
            with mock.patch.object(mathsvg, "svg", record):
                built = build(specs_dir() / SPEC, formats=("html",))
        finally:
            mathsvg.svg.cache_clear()
        kept = len(list((Path(folder) / "empty-cache" / "math").glob("*.svg")))
    # what the build records (Built.formulas, which the shipped table's check reads) is every formula drawn
    assert sorted(built.formulas) == sorted(seen) and len(built.formulas) == len(seen)
    return sorted(seen), rendered, kept


def used_formulas():
    """The formulas one built-in report draws (``_first_build``)."""
    return _first_build()[0]


def test_shipped_math_is_what_ziamath_draws_here():
    table = mathship._table()
    assert table["ziamath"] == metadata.version("ziamath")
    formulas = used_formulas()
    assert len(formulas) > 40
    for tex, size, inline in formulas[::8]:
        assert mathship.lookup(table["ziamath"], FONT, size, inline, tex) == mathsvg.render(tex, size, inline, FONT), tex


def test_a_first_build_renders_no_formula_of_a_built_in_report():
    """The build above, made with an empty cache folder: no formula rendered, the cache filled from the shipped
    table."""
    _formulas, rendered, kept = _first_build()
    assert rendered == []
    assert kept > 80  # the cache was filled from it


def test_other_versions_or_fonts_are_not_served(tmp_path):
    table = mathship._table()
    tex, size, inline = used_formulas()[0]
    assert mathship.lookup(table["ziamath"], FONT, size, inline, tex) is not None
    assert mathship.lookup("0.0.1", FONT, size, inline, tex) is None
    other = tmp_path / "font.ttf"
    other.write_bytes(b"not the font")
    assert mathship.lookup(table["ziamath"], str(other), size, inline, tex) is None
    assert mathship.lookup(table["ziamath"], FONT, size, inline, tex + " ") is None
