"""Regenerate every committed generated file, or (``--check``) say which one is stale.

``python -m genreport.regen`` runs, in order, the commands that write the checkout's generated files:

    formulas   formulas/_generated.py, templates/live/formulas.js    python -m genreport.formulas.generate
    templates  generator/present/_jinja/                              python -m genreport.present.jinjaship
    math       generator/present/math.json.gz,                        python -m genreport.present.mathship
               generator/printing/figure_sizes.json
    widths     generator/printing/font_widths.json.gz                 python -m genreport.printing.colwidths
    pango      generator/printing/_pango_ffi.py                       python -m genreport.printing.pangoffi
    upstream   generator/printing/_upstream.py                        python -m genreport.printing.gate --write
    api        docs/api.md                                            python -m genreport.apidoc

``--check`` writes nothing: each file is made afresh in memory and compared with the committed bytes (the
formulas by regenerating every one, not by the digest in the file's header, so a hand edit or another SymPy
fails); it exits 1 naming each stale file and the command that refreshes it. ``--only NAME`` (repeatable) limits
either to those steps.  The formulas step is most of the check's time (every formula regenerated, by two
processes; SymPy's factoring of the display forms is 70% of it); math builds the nine built-in reports' HTML; the
rest take a second or so each.  Font widths are data of this machine's DejaVu files: where those are not the files the table was
made from, the check says so and passes (another machine's fonts are not a stale file).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Step:
    name: str
    files: tuple[str, ...]  # relative to the checkout
    module: str  # the command that writes them: python -m <module>
    run: Callable[[bool], int]  # check -> exit status (0 current / written, 1 stale)


def _main(module: str, *extra: str) -> Callable[[bool], int]:
    def run(check: bool) -> int:
        import importlib

        return importlib.import_module(module).main([*(["--check"] if check else []), *extra])

    return run


def _widths(check: bool) -> int:
    from genreport.printing import colwidths

    if check:
        import gzip
        import json

        fresh = json.loads(gzip.decompress(colwidths.table_text()))["fonts"]
        shipped = json.loads(gzip.decompress(colwidths.SHIPPED.read_bytes()))["fonts"] \
            if colwidths.SHIPPED.is_file() else {}
        other = [name for name, font in fresh.items()
                 if name in shipped and shipped[name].get("sha256") != font["sha256"]]
        if other:
            print(f"font widths: not comparable here (this machine's {', '.join(sorted(other))} font files are not "
                  "the ones the table was made from)")
            return 0
    return colwidths.main(["--check"] if check else [])


def _gate(check: bool) -> int:
    from genreport.printing import gate

    return gate.main(["--check" if check else "--write"])


STEPS = (
    Step("formulas", ("formulas/_generated.py", "templates/live/formulas.js"), "genreport.formulas.generate",
         _main("genreport.formulas.generate")),
    Step("templates", ("generator/present/_jinja/",), "genreport.present.jinjaship", _main("genreport.present.jinjaship")),
    Step("math", ("generator/present/math.json.gz", "generator/printing/figure_sizes.json"),
         "genreport.present.mathship", _main("genreport.present.mathship")),
    Step("widths", ("generator/printing/font_widths.json.gz",), "genreport.printing.colwidths", _widths),
    Step("pango", ("generator/printing/_pango_ffi.py",), "genreport.printing.pangoffi", _main("genreport.printing.pangoffi")),
    # the digests of the upstream code the fast PDF path replaces: written only after reviewing an upgrade
    # (docs/upgrading-weasyprint.md); --check fails when the installed WeasyPrint is not the recorded one
    Step("upstream", ("generator/printing/_upstream.py",), "genreport.printing.gate", _gate),
    Step("api", ("docs/api.md",), "genreport.apidoc", _main("genreport.apidoc", "--out", str(CHECKOUT / "docs" / "api.md"))),
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, prog="python -m genreport.regen", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 naming each stale file")
    ap.add_argument("--only", action="append", choices=[s.name for s in STEPS], metavar="STEP",
                    help="only this step (repeatable): " + ", ".join(s.name for s in STEPS))
    args = ap.parse_args(argv)
    if not (CHECKOUT / "formulas").is_dir() or not (CHECKOUT / "templates").is_dir():
        print(f"genreport.regen: {CHECKOUT} is not a checkout of genreport (run it from a clone, installed with "
              "scripts/setup)", file=sys.stderr)
        return 2
    stale = []
    for step in STEPS:
        if args.only and step.name not in args.only:
            continue
        start = time.perf_counter()
        said = io.StringIO()
        with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
            code = step.run(args.check)
        took = time.perf_counter() - start
        if code:
            stale.append(step)
        state = ("stale" if code else "current") if args.check else ("failed" if code else "written")
        print(f"{step.name:<10} {state:<8} {took:5.1f} s  {', '.join(step.files)}")
        if code:
            for line in said.getvalue().splitlines():
                print(f"           {line}")
    if not args.check:
        _compile_written(args.only)
    if stale and args.check:
        print("stale: " + "; ".join(f"{', '.join(s.files)} (python -m {s.module})" for s in stale), file=sys.stderr)
        print("run: python -m genreport.regen", file=sys.stderr)
    return 1 if stale else 0


def _compile_written(only) -> None:
    """Byte-compile the Python files just written, as scripts/setup compiles the checkout: where
    PYTHONDONTWRITEBYTECODE is set, Python would otherwise compile the 2 MB formulas/_generated.py again on every run
    (60 ms and 23 MB a JSON-only build) until the next set-up."""
    import compileall

    for step in STEPS:
        if only and step.name not in only:
            continue
        for rel in step.files:
            path = CHECKOUT / rel
            if path.is_dir():
                compileall.compile_dir(str(path), quiet=1)
            elif path.suffix == ".py":
                compileall.compile_file(str(path), quiet=1)


if __name__ == "__main__":
    sys.exit(main())
