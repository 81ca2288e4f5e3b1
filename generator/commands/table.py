"""``genreport table SPEC``: a report's summary and decision table, to paste or script, without building it.

The same numbers as page 1 of the report (the strict bound at the spec's layout, its scope named), from one
evaluation of the spec: ``--format md`` for a pull request or an issue, ``csv`` and ``json`` with the numbers
in SI units (seconds, token/s, $ per million tokens), ``table`` for a terminal.
"""

from __future__ import annotations

import argparse
import sys

from genreport.commands.options import Parser, add_verbosity
from genreport.commands.tables import FORMATS, emit
from genreport.terminal import safe

RECORD_KEYS = ("workload", "label", "batch", "context", "tokens", "binds", "roof", "time", "serial",
               "tokens_per_s_sequence", "tokens_per_s", "tokens_per_s_gpu", "usd_per_mtok", "capacity_batch", "fits")


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="genreport table", allow_abbrev=False,
               description="A report's summary and decision table (page 1), without building it.")
    p.add_argument("spec", metavar="SPEC", help="report spec, e.g. specs/llama70b-h100-tp8.yaml")
    p.add_argument("--format", choices=FORMATS, default="table",
                   help="table (default), md, csv or json (SI units in csv and json)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="PATH=VALUE",
                   help="a what-if override, as for a build (repeatable)")
    add_verbosity(p)
    return p


def _plain(x):
    if hasattr(x, "item"):  # a NumPy scalar
        x = x.item()
    return x


def _notes(r) -> list[str]:
    """The decision table's notes: with an expert group wider than a replica, a prefill row's time is one prompt
    alone and its rate and price the prompt's share of the group's pass, as page 1 says it (a review read the
    2,048-token row's 35.7 ms beside 26,241 tok/s, 78 ms a prompt, with nothing to say why)."""
    from genreport.present.prose import prompt_group_note

    note = prompt_group_note(r)
    return [f"Prefill rows: the time is one prompt alone, its TTFT. {note}"] if note else []


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    import genreport
    from genreport.commands.cli import _resolve_spec
    from genreport.present.fmt import device
    from genreport.present.summary import chapters, sentences, serving_text

    # a built-in report's name as the build takes it ('genreport table llama8b-h100'; it said "file not found", QA)
    spec = genreport.load_spec(_resolve_spec(args.spec, quiet=False), overrides=args.overrides)
    for w in spec.warnings:  # what a build of the same spec warns of (a prompt past the model's context), on stderr
        print(w, file=sys.stderr)
    r = genreport.evaluate(spec)
    noun = r.spec.hardware.noun  # page 1's words for the device: "chip" on a TPU or a Gaudi, as the report says
    header, rows = device(r.decision_table(), noun)
    records = [{k: _plain(x.get(k)) for k in RECORD_KEYS} for x in r.decision]
    summary = device(sentences(r), noun)
    serving = serving_text(r, chapters(r).get("s9", 0))  # page 1's sentence on the spec's serving block, its words
    if serving is not None:
        summary.append(serving)
    parts = [("summary", ["sentence"], [[safe(x)] for x in summary], set(), [{"sentence": x} for x in summary]),
             ("decision", header, [[safe(c) for c in row] for row in rows], {2, 3, 4, 5}, records)]
    notes = device(_notes(r), noun)
    if notes:  # what a row's columns count where two of them take different scenes (page 1 says it too)
        parts.append(("notes", ["note"], [[safe(x)] for x in notes], set(), [{"note": x} for x in notes]))
    if args.format == "table":
        # a what-if is titled by what it analyses, as its report's heading is (the spec's title names the spec's own)
        print(safe(r.what_if_title if args.overrides else r.spec.title))
        print(safe(device(r.frame_text(), noun)) + "\n")
        print("\n".join(safe(x) for x in summary) + "\n")
        print(emit(parts[1:], "table"))
    else:
        print(emit(parts, args.format))
    return 0
