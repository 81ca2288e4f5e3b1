"""LaTeX to SVG without JavaScript (ziamath), cached by content; WeasyPrint has no MathML."""

from __future__ import annotations

import base64
import hashlib
import os
import re
from functools import lru_cache
from importlib import metadata

from genreport.paths import cache_dir

# DejaVu Math TeX Gyre (Debian: fonts-dejavu-extra, installed by scripts/setup) matches the report's DejaVu text and
# its glyph outlines are about half as many path points as ziamath's STIX Two: the PDF draws its math twice as fast.
# Without it, ziamath's bundled STIX Two Math is used.
MATH_FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuMathTeXGyre.ttf",)


_GLYPH = re.compile(r'<path d="(M [^"]*)" fill="black" />')
_DUP_MOVE = re.compile(r"M (-?[\d.]+ -?[\d.]+) L \1 ")


def merge_glyphs(body: str) -> str:
    """One <path> for all of a formula's glyphs instead of one per glyph.

    ziamath writes each glyph as its own absolute-coordinate path, all filled black. A renderer pays per
    element (WeasyPrint cascades styles and sets the graphics state for each), so one path draws the same
    picture at about a third of the cost. Glyph outlines of one font share their winding, so the nonzero fill
    of the union is the same as filling each. ziamath's leading zero-length segment (``M x y L x y``) goes too.
    """
    glyphs = _GLYPH.findall(body)
    if len(glyphs) < 2:
        return body
    d = " ".join(_DUP_MOVE.sub(r"M \1 ", g).strip() for g in glyphs)
    first = body.index("<path ")
    rest = _GLYPH.sub("", body[first:])
    return f'{body[:first]}<path d="{d}" fill="black" />{rest}'


def _font() -> str | None:
    import os

    return next((f for f in MATH_FONTS if os.path.isfile(f)), None)


@lru_cache(maxsize=1)
def _ziamath_version() -> str:
    """Read once: importlib.metadata parses the package's METADATA each call (0.5 ms, 50 ms for a report)."""
    try:
        return metadata.version("ziamath")
    except metadata.PackageNotFoundError:  # pragma: no cover
        return "?"


@lru_cache(maxsize=4096)
def svg(tex: str, size: float = 15.0, inline: bool = False) -> tuple[str, float]:
    """(SVG text, baseline offset in px) of ``tex``; rendered once per content and ziamath version."""
    version = _ziamath_version()
    font = _font()
    key = hashlib.sha256(f"{version}\0svg1-merged\0{font}\0{size}\0{inline}\0{tex}".encode()).hexdigest()[:24]
    folder = cache_dir() / "math"
    path = folder / f"{key}.svg"
    try:
        text = path.read_text()
        body, _, offset = text.rpartition("\n<!--y:")
        return body, float(offset.rstrip("->\n"))
    except (OSError, ValueError):
        pass
    from genreport.present import mathship

    shipped = mathship.lookup(version, font, size, inline, tex)
    if shipped is not None:
        body, offset = shipped
    else:
        body, offset = render(tex, size, inline, font)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp")  # two builds sharing a cache never collide
        tmp.write_text(f"{body}\n<!--y:{offset}-->")
        tmp.replace(path)
    except OSError:
        pass
    return body, offset


def render(tex: str, size: float, inline: bool, font: str | None) -> tuple[str, float]:
    """(SVG text, baseline offset) of ``tex`` from ziamath itself (about 25 ms a formula), no cache."""
    import ziamath

    # Plain paths instead of <symbol>/<use>: WeasyPrint draws them about 40% faster, browsers alike.
    ziamath.config.svg2 = False
    m = ziamath.Latex(tex, size=size, inline=inline, font=font)
    body = merge_glyphs(m.svg())
    offset = float(m.getyofst()) if inline else 0.0
    return body, offset


def warm_up() -> None:
    """Load ziamath and the math font (warm processes: the first new formula then costs only its own drawing)."""
    render("x", 15.0, False, _font())


def img(tex: str, size: float = 15.0, inline: bool = False, alt: str | None = None) -> str:
    """An <img> tag with the formula as a data URI; alt text is the LaTeX (escaped)."""
    from markupsafe import escape

    body, offset = svg(tex, size, inline)
    data = base64.b64encode(body.encode()).decode()
    style = f' style="vertical-align:{offset:.2f}px"' if inline else ""
    cls = "math-inline" if inline else "math"
    return f'<img class="{cls}" alt="{escape(alt if alt is not None else tex)}"{style} src="data:image/svg+xml;base64,{data}">'
