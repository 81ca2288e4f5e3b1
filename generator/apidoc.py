"""Write ``docs/api.md``, the Python API's reference, from the docstrings themselves.

``python -m genreport.apidoc`` rewrites it; ``--check`` exits 1 when the committed file differs (the suite runs
that, and every example in it as a doctest, from the repository root).
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

HEADER = """# The Python API

Generated from the docstrings by `python -m genreport.apidoc` (do not edit; the suite checks it is current and runs
every example as a doctest from the repository root). The command line is built on these calls.

"""

# What the reference documents: the package's functions, then the report model's public methods.
RESULTS_METHODS = ("s", "entry", "value", "at", "what_if", "decision_table", "frame_text")


def _section(title: str, obj, name: str) -> str:
    sig = str(inspect.signature(obj)).replace("'", "")
    doc = inspect.cleandoc(obj.__doc__ or "(no docstring)")
    return f"### `{title}{name}{sig}`\n\n{_fence_examples(doc)}\n\n"


def _fence_examples(doc: str) -> str:
    """Docstring text with its doctest blocks in ```pycon fences (Markdown that still doctests)."""
    out, inside = [], False
    for line in doc.splitlines():
        example = line.startswith(">>>") or (inside and line.strip() != "")
        if example and not inside:
            out.append("```pycon")
            inside = True
        elif not example and inside:
            out += ["", "```"]  # the blank line ends the example's expected output for doctest
            inside = False
        out.append(line)
    if inside:
        out += ["", "```"]
    return "\n".join(out)


def text() -> str:
    import genreport
    from genreport.model.results import Results

    parts = [HEADER, "## `genreport`\n\n", inspect.cleandoc(genreport.__doc__ or "") + "\n\n"]
    for name in genreport.__all__:
        obj = getattr(genreport, name)
        if callable(obj):
            parts.append(_section("genreport.", obj, name))
    parts.append("## The report model: `genreport.model.results.Results`\n\n")
    parts.append(inspect.cleandoc(Results.__doc__ or "") + "\n\n")
    for name in RESULTS_METHODS:
        parts.append(_section("Results.", getattr(Results, name), name))
    return "".join(parts).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m genreport.apidoc", allow_abbrev=False, description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 if docs/api.md differs from the docstrings")
    ap.add_argument("--out", default="docs/api.md", help="where to write (default docs/api.md)")
    args = ap.parse_args(argv)
    want = text()
    path = Path(args.out)
    if args.check:
        have = path.read_text(encoding="utf-8") if path.is_file() else ""
        if have != want:
            print(f"{path}: out of date; run python -m genreport.apidoc", file=sys.stderr)
            return 1
        return 0
    path.write_text(want, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
