"""LaTeX to SVG without JavaScript (ziamath), cached by content; WeasyPrint has no MathML."""

from __future__ import annotations

import base64
import hashlib
import math
import re
from contextlib import contextmanager
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


LIMIT = 1 << 20  # bytes a kept formula may have (the reports' largest is about 60 kB)
_TAIL = re.compile(r"\n<!--y:([-+0-9.e]{1,32}) ([0-9a-f]{64})-->")


# A report has about 120 formulas of some 20 kB each, and every what-if a warm process builds a few new ones (those
# with the numbers in them): 4096 held 80 MB. 512 hold the formulas of four reports; one found in the cache folder
# instead costs a read and a check.
@lru_cache(maxsize=512)
def svg(tex: str, size: float = 15.0, inline: bool = False) -> tuple[str, float]:
    """(SVG text, baseline offset in px) of ``tex``; rendered once per content and ziamath version."""
    version = _ziamath_version()
    font = _font()
    key = _key(tex, size, inline)
    kept = _kept(key)
    if kept is not None:
        return kept
    from genreport.present import mathship

    shipped = mathship.lookup(version, font, size, inline, tex)
    if shipped is not None:
        body, offset = shipped
    else:
        body, offset = render(tex, size, inline, font)
    _keep(key, body, offset)
    return body, offset


def _key(tex: str, size: float, inline: bool) -> str:
    """The name of a formula's file in the cache folder: what it is drawn from (content, ziamath, font)."""
    text = f"{_ziamath_version()}\0svg1-merged\0{_font()}\0{size}\0{inline}\0{tex}"
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _entry(key: str, body: str, offset: float) -> str:
    """A kept formula's file: its SVG, its offset and a digest of both with its key (a hand edit is not taken)."""
    digest = hashlib.sha256(f"math 1 {key}\0{body}\0{offset!r}".encode()).hexdigest()
    return f"{body}\n<!--y:{offset!r} {digest}-->"


def _kept(key: str) -> tuple[str, float] | None:
    """The formula kept under ``key`` in the cache folder, checked (see :func:`_entry`, and the SVG is one
    ziamath writes: :mod:`genreport.present.svgcheck`); None when there is none or it fails a check."""
    from genreport.fileio import ReadError, read_private
    from genreport.present.svgcheck import ours

    try:
        text = read_private(cache_dir() / "math" / f"{key}.svg", LIMIT).decode("utf-8")
    except (ReadError, UnicodeError):
        return None
    cut = text.rfind("\n<!--y:")
    m = _TAIL.fullmatch(text, cut) if cut >= 0 else None
    try:
        offset = float(m.group(1)) if m else math.nan
    except ValueError:
        return None
    body = text[:cut]
    if not math.isfinite(offset) or _entry(key, body, offset) != text or not ours(body.encode()):
        return None
    return body, offset


_swept = False  # whether this process has removed the temporary files that killed ones left in cache/math


def _keep(key: str, body: str, offset: float) -> None:
    """Write the formula to the cache folder (privately, atomically); a failure costs only the next build's time."""
    global _swept
    from genreport.errors import BuildError
    from genreport.fileio import private_folder, sweep_temporaries, write_file

    try:
        folder = private_folder(cache_dir(), "math")
        if not _swept:  # once a process: those of a build killed mid-write, and an earlier genreport's <key>.<pid>.tmp
            _swept = True
            sweep_temporaries(folder)
        write_file(folder / f"{key}.svg", _entry(key, body, offset).encode(), private=True)
    except (BuildError, OSError):
        pass


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


_RECORDERS: list[dict] = []  # the open recordings (:func:`recording`)


@contextmanager
def recording():
    """The (tex, size, inline) of every formula :func:`img` draws in the block, once each, in the order drawn: what a
    build records in ``Built.formulas`` (the shipped table's check reads them, genreport.present.mathship)."""
    seen: dict[tuple, None] = {}
    _RECORDERS.append(seen)
    try:
        yield seen
    finally:
        _RECORDERS.remove(seen)


def img(tex: str, size: float = 15.0, inline: bool = False, alt: str | None = None) -> str:
    """An <img> tag with the formula as a data URI; alt text is the LaTeX (escaped)."""
    from markupsafe import escape

    for seen in _RECORDERS:
        seen.setdefault((tex, size, inline), None)
    body, offset = svg(tex, size, inline)
    data = base64.b64encode(body.encode()).decode()
    style = f' style="vertical-align:{offset:.2f}px"' if inline else ""
    cls = "math-inline" if inline else "math"
    return f'<img class="{cls}" alt="{escape(alt if alt is not None else tex)}"{style} src="data:image/svg+xml;base64,{data}">'
