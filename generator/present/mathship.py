"""Rendered math shipped in the package, so a new machine's first build does not render every formula again.

ziamath takes about 25 ms a formula, and a report has some 90: without help, the first build on a machine (or
with an empty ``GENREPORT_CACHE``) spends 3 s on math that every other machine has already drawn. ``math.json.gz``
beside this module holds the formulas of the built-in reports (``specs/*.yaml``), rendered by ziamath with the
DejaVu Math TeX Gyre font: data only (SVG text and a baseline offset), read through the safe file layer. An
entry is used only when ziamath's version and the SHA-256 of the math font file on this machine are the ones it
was rendered with, so it is the very SVG this machine would draw; anything else (another report's formulas,
another font or ziamath) is rendered as before. ``python -m genreport.present.mathship`` regenerates it after
a change of formulas or templates (and ``figure_sizes.json``, the built-in figures' sizes for a first build's
early layout, see :mod:`genreport.printing.pdf`) (``--check`` exits 1 when it lacks a formula of a built-in report or the sizes differ).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
from functools import cache
from pathlib import Path

SHIPPED = Path(__file__).resolve().parent / "math.json.gz"
LIMIT = 8 << 20  # bytes, compressed


def _key(size: float, inline: bool, tex: str) -> str:
    """Keyed as the cache is: ``13`` and ``13.0`` are kept apart, as ziamath may write them apart."""
    return hashlib.sha256(f"{size!r}\0{inline}\0{tex}".encode()).hexdigest()[:32]


@cache
def _font_sha256(font: str | None) -> str | None:
    from genreport.fileio import ReadError, read_regular

    if font is None:
        return None
    try:
        return hashlib.sha256(read_regular(font, 64 << 20)).hexdigest()
    except ReadError:
        return None


@cache
def _table() -> dict:
    from genreport.fileio import ReadError, read_regular

    try:
        data = json.loads(gzip.decompress(read_regular(SHIPPED, LIMIT)))
    except (ReadError, OSError, ValueError, EOFError):
        return {}
    return data if isinstance(data, dict) and isinstance(data.get("math"), dict) else {}


def lookup(version: str, font: str | None, size: float, inline: bool, tex: str) -> tuple[str, float] | None:
    """The shipped (SVG text, offset) of a formula, if rendered with this ziamath and this very font file."""
    table = _table()
    if not table or table.get("ziamath") != version or font is None:
        return None
    if table.get("font_sha256") != _font_sha256(font):
        return None
    entry = table["math"].get(_key(size, inline, tex))
    if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
            and isinstance(entry[1], (int, float))):
        return None
    return entry[0], float(entry[1])


def builds() -> list:
    """The built-in reports (``specs/*.yaml``) built in memory as HTML: the formulas and figures they draw."""
    from genreport.paths import specs_dir
    from genreport.write.build import build

    return [build(spec, formats=("html",)) for spec in sorted(specs_dir().glob("*.yaml"))]


def used_formulas(built: list | None = None) -> list[tuple[str, float, bool]]:
    """Every (tex, size, inline) the built-in reports draw (``Built.formulas``), from ``built`` (their HTML builds;
    made here when not given: tests/test_golden.py passes the session's)."""
    seen: dict[tuple[str, float, bool], None] = {}
    figures: dict[str, bytes] = {}
    for one in builds() if built is None else built:
        seen.update(dict.fromkeys(one.formulas))
        figures.update({k[len("figures/"):-len(".svg")]: v for k, v in one.files.items()
                        if k.startswith("figures/") and k.endswith(".svg")})
    _FIGURES.clear()
    _FIGURES.update(figures)
    return sorted(seen)


_FIGURES: dict[str, bytes] = {}  # the built-in reports' figures, from the last used_formulas()


def table_text() -> bytes:
    """The shipped table for the built-in reports, each formula rendered afresh by ziamath."""
    from importlib import metadata

    from genreport.present import mathsvg

    font = mathsvg._font()
    if font is None:
        raise SystemExit("the DejaVu Math TeX Gyre font is not installed (scripts/setup installs it)")
    math = {}
    for tex, size, inline in used_formulas():
        body, offset = mathsvg.render(tex, size, inline, font)
        math[_key(size, inline, tex)] = [body, offset]
    data = {"ziamath": metadata.version("ziamath"), "font_sha256": _font_sha256(font), "math": math}
    text = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    return gzip.compress(text, compresslevel=9, mtime=0)


def check(built: list | None = None) -> tuple[int, list[str]]:
    """``--check``: (exit code, lines to print): every formula of the built-in reports (``built``, their HTML builds,
    made here when not given) is shipped, every sixth is what ziamath draws here, and the figure sizes are current."""
    from importlib import metadata

    from genreport import printing
    from genreport.present import mathsvg

    version, font = metadata.version("ziamath"), mathsvg._font()
    used = used_formulas(built)
    missing = [tex for tex, size, inline in used if lookup(version, font, size, inline, tex) is None]
    # and what is shipped is what ziamath draws here: every sixth formula drawn again (all of them: 30 s more)
    drawn = [tex for tex, size, inline in used[::6] if tex not in missing
             and lookup(version, font, size, inline, tex) != mathsvg.render(tex, size, inline, font)]
    lines = [f"{SHIPPED}: " + (f"{len(missing)} formulas missing, e.g. {missing[0]!r}; run "
                               "python -m genreport.present.mathship" if missing else
                               f"{len(drawn)} formulas drawn otherwise here, e.g. {drawn[0]!r}; run "
                               "python -m genreport.present.mathship" if drawn else "current")]
    path, same = printing.sizes_current(_FIGURES)
    lines.append(f"{path}: " + ("current" if same else "stale; run python -m genreport.present.mathship"))
    return (1 if missing or drawn or not same else 0), lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, prog="python -m genreport.present.mathship", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if a built-in report's formula is not shipped")
    args = ap.parse_args(argv)
    if args.check:
        code, lines = check()
        print("\n".join(lines))
        return code
    from genreport import printing
    from genreport.fileio import write_file

    write_file(SHIPPED, table_text())
    print(f"wrote {SHIPPED}")
    print(f"wrote {printing.ship_sizes(_FIGURES)} (the figures' sizes, for a first build's early layout)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
