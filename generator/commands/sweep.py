"""``genreport sweep``: catalog models x GPUs x precisions x batches x contexts -> CSV, JSON, heatmap.

    genreport sweep                                   the whole catalog, default grid, into out/sweep/
    genreport sweep --models llama-3.1-8b,llama-3.1-70b --hardware h100-sxm,h200 --precision bf16,fp8
    genreport sweep --batch 1,8,64,512 --context 1k,8k,32k -o /tmp/sweep --format csv

Files: ``sweep.csv`` and ``sweep.json`` (one row a point), ``heatmap.svg`` (best decode tokens/s
per model x GPU at one context).  The evaluation is :mod:`genreport.model.sweep`; this module parses,
loads the catalog, shows progress and writes.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

from genreport.commands.options import Parser, add_engine_memory, add_verbosity, check_reserve, engine_memory
from genreport.errors import Finding, SpecError
from genreport.terminal import safe

FORMATS = ("csv", "json", "svg")
# Budget: about 95 bytes of memory, 85 of CSV and 100 of JSON a point; 5 M points take about 0.5 GB and 7 s.
MAX_POINTS = 5_000_000
BYTES_PER_POINT = 95


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="genreport sweep", allow_abbrev=False,
        description="Evaluate the decode roofline for catalog models x GPUs x precisions over a batch x context "
                    "grid; write one row a point (CSV, JSON) and a heatmap of the best decode tokens/s.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="lists are comma-separated; a grid may also be LO:HI:COUNT (COUNT log-spaced integers), "
               "token counts may be written 8k (k = 1024)")
    p.add_argument("--models", metavar="LIST", help="model names (default: every model in the catalog)")
    p.add_argument("--hardware", metavar="LIST", help="GPU names (default: every GPU in the catalog)")
    p.add_argument("--precision", default="bf16,fp8,int4", metavar="LIST",
                   help="weight precisions (default: bf16,fp8,int4; int8/int4 weights compute in bf16, and fp8 "
                        "weights on an NVIDIA GPU without an fp8 peak (W8A16); a GPU without the compute format is "
                        "skipped)")
    p.add_argument("--batch", default="1:8192:64", metavar="LIST", help="batches (default: 1:8192:64)")
    p.add_argument("--context", default="128:128k:16", metavar="LIST", help="contexts (default: 128:128k:16)")
    p.add_argument("--accounting", choices=("seed", "exact"), default="seed", help="parameter accounting (seed)")
    p.add_argument("--figure-context", default="8k", metavar="TOKENS",
                   help="context of the heatmap (nearest grid value; default 8k)")
    p.add_argument("-o", "--out", default="out/sweep", metavar="DIR", help="output folder (default: out/sweep)")
    p.add_argument("--format", default="csv,json,svg", metavar="LIST", help="subset of csv,json,svg (default: all)")
    p.add_argument("--max-points", type=int, default=MAX_POINTS, metavar="N",
                   help=f"refuse a sweep of more points than this (default {MAX_POINTS:,}; about "
                        f"{BYTES_PER_POINT} bytes of memory a point)")
    p.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")
    add_engine_memory(p)
    add_verbosity(p)
    return p


def _err(where: str, message: str, hint: str = "") -> SpecError:
    return SpecError([Finding(where, 0, 0, "", message, hint)])  # an argument or a whole file: no line


def parse_grid(text: str, option: str, limit: int = MAX_POINTS):
    """``1,8,64`` or ``8k,32k`` or ``1:8192:64`` (64 log-spaced integers) -> sorted unique integers.

    COUNT is refused above ``limit`` before anything is allocated."""
    import numpy as np
    from genreport.load.loader import tokens
    from genreport.model.sweep import log_integers

    noun = "sequences" if option == "--batch" else "tokens"  # what the values count, in an error

    text = text.strip()
    try:
        if ":" in text:
            if text.count(":") != 2:
                raise ValueError(f"'{text[:40]}' is not LO:HI:COUNT")
            lo, hi, count = (p.strip() for p in text.split(":"))
            if len(count) > 12:
                raise ValueError(f"COUNT '{count[:20]}...' is not a count")
            lo_i, hi_i, n = tokens(lo, noun), tokens(hi, noun), int(count)
            if lo_i < 1 or hi_i < lo_i or n < 1:
                raise ValueError("need 1 <= LO <= HI and COUNT >= 1")
            if n > limit:
                raise ValueError(f"COUNT {n:,} is over the budget of {limit:,} points (raise it with --max-points)")
            return log_integers(lo_i, hi_i, n)
        values = sorted({tokens(v.strip(), noun) for v in text.split(",") if v.strip()})
    except ValueError as exc:
        raise _err(f"{option} {text}", str(exc), "write e.g. 1,8,64 or 8k,32k or 1:8192:64") from None
    if not values or values[0] < 1:
        raise _err(f"{option} {text}", "need at least one positive integer", "write e.g. 1,8,64")
    return np.asarray(values, dtype=np.int64)


def _names(text: str | None) -> list[str] | None:
    # each once: --models a,a swept a twice ("2 configurations", every row doubled)
    return None if text is None else list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))


def load_catalog(kind: str, names: list[str] | None, root: Path | None, warn) -> list:
    """Load the named specs (errors are fatal) or the whole catalog (a broken file is skipped, with a warning)."""
    from genreport.load.catalog import resolve_argument
    from genreport.load.loader import catalog_names, load_hardware, load_model

    loader = load_model if kind == "model" else load_hardware
    explicit = names is not None
    names = names if explicit else catalog_names(kind, root)
    base = root or Path.cwd()
    out, findings = [], []
    for name in names:
        path, message, hint = resolve_argument(name, kind, base)  # typed on the command line: read where it is
        if path is None:
            findings.append(Finding(f"--{'models' if kind == 'model' else 'hardware'}", 0, 0, "", message, hint))
            continue
        try:
            out.append(loader(path))
        except SpecError as exc:
            if explicit:
                findings += exc.findings
            else:
                warn(f"genreport: skipping {kind} '{name}': {exc.findings[0].format()}")
    if findings:
        raise SpecError(findings)
    return out


class Progress:
    """A one-line bar on stderr, drawn only when asked (a terminal, or --progress)."""

    def __init__(self, enabled: bool, label: str):
        self.enabled, self.label, self.last = enabled, label, -1.0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        frac = done / total
        if frac < 1 and frac - self.last < 0.02:
            return
        self.last = frac
        bar = "#" * int(30 * frac)
        sys.stderr.write(f"\r{self.label:<10} [{bar:<30}] {100 * frac:5.1f}%")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    from genreport.load.loader import tokens
    from genreport.model import sweep as sw
    from genreport.paths import project_root_for

    if not args.out.strip():  # -o '' wrote into the current folder, where a build's -o '' is refused
        raise _err("-o ''", "names no folder", "e.g. -o out/sweep, or -o . for this folder")
    formats = [f.strip() for f in args.format.split(",") if f.strip()]
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        raise _err(f"--format {args.format}", f"unknown format {', '.join(bad) or '(none)'}",
                   "use a comma-separated subset of csv,json,svg")
    precisions = _names(args.precision) or []
    from genreport.load.spec import WEIGHT_FORMAT_BYTES

    unknown = [p for p in precisions if p not in WEIGHT_FORMAT_BYTES and p != "checkpoint"]  # plan's --weights
    if unknown or not precisions:
        raise _err(f"--precision {args.precision}", f"unknown precision {', '.join(unknown) or '(none)'}",
                   f"one of {', '.join(WEIGHT_FORMAT_BYTES)}, or checkpoint (each model's weights as its checkpoint "
                   "stores them)")
    if args.max_points < 1:
        raise _err(f"--max-points {args.max_points}", "must be a positive number of points", "e.g. --max-points 10000000")
    batch = parse_grid(args.batch, "--batch", args.max_points)
    context = parse_grid(args.context, "--context", args.max_points)
    try:
        fig_context = tokens(args.figure_context)
    except ValueError as exc:
        raise _err(f"--figure-context {args.figure_context}", str(exc), "write e.g. 8k") from None
    from genreport import config
    from genreport.load.objects import reserve_fields

    defaults = config.load()  # what each GPU's engine keeps, as plan keeps it
    given = defaults.memory_reserve
    engine = engine_memory(args, None if given is None else reserve_fields(given))
    show = (sys.stderr.isatty() or args.progress) and not args.quiet

    def warn(msg: str) -> None:
        print(safe(msg), file=sys.stderr)

    t0 = time.perf_counter()
    root = project_root_for(Path.cwd() / "x.yaml") if (Path.cwd() / "specs").is_dir() else None
    models = load_catalog("model", _names(args.models), root, warn)
    gpus = [dataclasses.replace(g, **engine) for g in load_catalog("hardware", _names(args.hardware), root, warn)]
    check_reserve(args, gpus, config=defaults)
    configs, skipped = sw.configurations(models, gpus, precisions)
    if not configs:
        # every one skipped: say why (a review read only "no configuration to evaluate" for fp4 on an H100)
        why = sorted({f"{hw} has {reason}" for _, hw, _, reason in skipped})
        raise _err("sweep", "no configuration to evaluate" + (f": {'; '.join(why[:4])}" if why else ""),
                   "check --models, --hardware and --precision")
    points = len(configs) * len(batch) * len(context)
    if points > args.max_points:
        raise _err(f"--batch {args.batch} --context {args.context}",
                   f"{len(configs):,} configurations x {len(batch):,} batches x {len(context):,} contexts = "
                   f"{points:,} points, over the budget of {args.max_points:,} "
                   f"(about {points * BYTES_PER_POINT / 1e9:,.1f} GB of memory)",
                   "narrow --batch, --context, --models, --hardware or --precision, or raise --max-points")
    t1 = time.perf_counter()
    result = sw.evaluate_sweep(configs, batch, context, args.accounting, progress=Progress(show, "evaluate"),
                               skipped=skipped)
    t2 = time.perf_counter()
    best = sw.best_per_pair(result, fig_context)
    out = Path(args.out)
    written = []
    kept = kept_note(engine)
    extra = {"memory_reserve": engine["memory_reserve"], "memory_reserve_bytes": engine["memory_reserve_bytes"],
             "max_batched_tokens": engine["max_batched_tokens"],
             "memory": kept, "figure": {"context": best["context"], "models": best["models"], "hardware": best["hardware"],
                        "best_decode_tokens_per_s": [[None if v != v else float(v) for v in row]
                                                     for row in best["value"].tolist()]}}
    if "csv" in formats:
        written.append(_write(out / "sweep.csv", sw.csv_chunks(result, progress=Progress(show, "csv"))))
    if "json" in formats:
        written.append(_write(out / "sweep.json", sw.json_chunks(result, extra, progress=Progress(show, "json"))))
    if "svg" in formats:
        from genreport.present.sweepfig import heatmap_svg

        written.append(_write(out / "heatmap.svg", [heatmap_svg(best, args.accounting, kept)]))
    t3 = time.perf_counter()
    if not args.quiet:
        n = result.points
        print(f"{_count(len(configs), 'configuration')} ({_count(len(models), 'model')} x "
              f"{_count(len(gpus), 'GPU')} x {_count(len(precisions), 'precision')}"
              f"{f', {len(skipped)} skipped: no compute format' if skipped else ''}"
              f"{f', {wo} with fp8 weights computed in bf16 (W8A16)' if (wo := sum(c.weight_only for c in configs)) else ''}"
              f") x {_count(len(batch), 'batch', 'es')} x "
              f"{_count(len(context), 'context')} = {_count(n, 'point')}")
        print(f"capacity: {kept}")
        ev = result.timings.get("evaluate", 0.0)
        print(f"load {t1 - t0:.2f} s, evaluate {t2 - t1:.3f} s ({n / max(ev, 1e-9) / 1e6:.1f} M points/s in the "
              f"formulas), write {t3 - t2:.2f} s; {n / (t3 - t0) / 1e6:.2f} M points/s end to end")
        for path in written:
            print(safe(f"{path} ({path.stat().st_size / 1e6:.1f} MB)"))
    return 0


def _count(n: int, noun: str, plural: str = "s") -> str:
    """``n`` and its noun, singular for one ("1 models x 17 GPUs x 1 precisions" read as a slip)."""
    return f"{n:,} {noun}{plural if n != 1 else ''}"


def kept_note(engine: dict) -> str:
    """What the capacity leaves out of each GPU's memory, in words: the engine's reserve and its step's activations
    (``engine``: options.engine_memory's fields)."""
    from genreport.present import fmt

    kept = fmt.reserve(engine["memory_reserve"], engine["memory_reserve_bytes"])
    parts = [f"{kept} of each GPU kept by the engine"] if engine["memory_reserve"] or engine["memory_reserve_bytes"] else []
    if engine["max_batched_tokens"]:
        parts.append(f"one {engine['max_batched_tokens']:,}-token step's activations")
    if not parts:
        return "all of each GPU's memory beside the weights for the KV cache (no engine reserve, no activations)"
    return " and ".join(parts) + " left out (--memory-reserve, --max-batched-tokens)"


def _write(path: Path, chunks) -> Path:
    """Write chunks to ``path`` atomically (a temporary file beside it, then rename; removed on any failure)."""
    from genreport.fileio import write_chunks

    return write_chunks(path, chunks)
