"""``genreport plan MODEL --hardware GPU``: the multi-GPU layouts that fit, best tokens/s per GPU first.

    genreport plan llama-3.1-70b --hardware h100-sxm
    genreport plan llama-3.1-405b --hardware h200 --context 32k --batch 128 --latency 50ms --precision fp8
    genreport plan deepseek-v3 --hardware h200 --format json

Every tensor x pipeline (x expert) layout and weight precision is tried; a layout is listed when its
replica holds the weights and at least one sequence of the context.  For each, the batch is the largest
up to --batch that fits the KV capacity and whose decode round meets --latency; the table says what
stopped it (the batch asked, capacity, latency) and which roof binds (compute, HBM, interconnect, or
capacity).  The evaluation is :func:`genreport.model.plan.plan`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from pathlib import Path

from genreport.commands.options import add_verbosity
from genreport.errors import Finding, SpecError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="genreport plan", allow_abbrev=False,
        description="List the tensor/pipeline/expert-parallel layouts and weight precisions on which MODEL fits "
                    "GPU at the batch and context asked, sorted by decode tokens/s per GPU under the latency "
                    "target, with the roof that binds each.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="times are decode rounds (every sequence advances one token); 'bound' is the strict lower bound "
               "(compute, HBM and interconnect perfectly overlapped), 'serial' the estimate with the all-reduces "
               "on the critical path. Data-parallel replicas multiply tokens/s at the same rate per GPU.")
    p.add_argument("model", metavar="MODEL", help="catalog name or path of a model spec, e.g. llama-3.1-70b")
    p.add_argument("--hardware", required=True, metavar="GPU", help="catalog name or path of a GPU, e.g. h100-sxm")
    p.add_argument("--context", default="8k", metavar="TOKENS", help="context per sequence (default 8k; k = 1024)")
    p.add_argument("--batch", default="64", metavar="N", help="sequences per replica wanted (default 64)")
    p.add_argument("--latency", metavar="TIME", help="longest decode round allowed, e.g. 50ms (default: none)")
    p.add_argument("--precision", default="bf16,fp8,int8,int4", metavar="LIST",
                   help="weight precisions to try (default bf16,fp8,int8,int4; int8/int4, mxfp4 and nvfp4 compute "
                        "in bf16, fp8_block in fp8; 'checkpoint': the model spec's checkpoint_precision; a format the "
                        "GPU has no peak for is skipped)")
    p.add_argument("--max-gpus", default=64, type=int, metavar="N", help="largest replica tried (default 64)")
    p.add_argument("--estimate", choices=("bound", "serial"), default="bound",
                   help="what the latency target and the ranking use: the strict bound (default) or the serial "
                        "estimate")
    p.add_argument("--accounting", choices=("seed", "exact"), default="seed", help="parameter accounting (seed)")
    p.add_argument("--limit", default=30, type=int, metavar="N",
                   help="rows of the table (default 30; 0: all rows; json: always all)")
    p.add_argument("--memory-reserve", default=None, metavar="FRACTION",
                   help="share of each GPU the engine keeps for itself (default 0.1, vLLM's gpu_memory_utilization "
                        "0.9); 0 gives the KV cache everything beside the weights")
    p.add_argument("--format", choices=("table", "json"), default="table", help="output (default table)")
    add_verbosity(p)
    return p


def _err(where: str, message: str, hint: str) -> SpecError:
    return SpecError([Finding(where, 1, 1, "", message, hint)])


def _load(kind: str, ref: str, option: str):
    from genreport.load.loader import load_hardware, load_model, resolve_ref

    base = Path.cwd()
    path, message, hint = resolve_ref(ref, kind, base, base)
    if path is None:
        raise _err(f"{option} {ref}", message, hint)
    return (load_model if kind == "model" else load_hardware)(path)


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    from genreport.load import units
    from genreport.load.loader import tokens
    from genreport.load.spec import WEIGHT_FORMAT_BYTES
    from genreport.model.plan import plan

    try:
        context = tokens(args.context)
    except ValueError as exc:
        raise _err(f"--context {args.context}", str(exc), "write an integer or '8k' (k = 1024)") from None
    try:
        batch = tokens(args.batch)
    except ValueError as exc:
        raise _err(f"--batch {args.batch}", str(exc), "write a positive integer, e.g. 64") from None
    if batch > 65536:
        raise _err(f"--batch {args.batch}", "more than 65,536 sequences per replica", "use a smaller batch")
    latency = None
    if args.latency is not None:
        try:
            latency = units.expect(args.latency, units.SECONDS).value
        except units.UnitError as exc:
            raise _err(f"--latency {args.latency}", str(exc), "write a time with its unit, e.g. 50ms") from None
        if not latency > 0:
            raise _err(f"--latency {args.latency}", "must be positive", "write e.g. 50ms")
    precisions = [p.strip() for p in args.precision.split(",") if p.strip()]
    known = [*WEIGHT_FORMAT_BYTES, "checkpoint"]
    bad = [p for p in precisions if p not in known]
    if bad or not precisions:
        raise _err(f"--precision {args.precision}", f"unknown format {', '.join(bad) or '(none)'}",
                   f"use a comma-separated subset of {', '.join(known)}")
    if args.limit < 0:
        raise _err(f"--limit {args.limit}", "must be 0 (all rows) or more", "e.g. --limit 30")
    if not 1 <= args.max_gpus <= 4096:
        raise _err(f"--max-gpus {args.max_gpus}", "must be between 1 and 4096", "write e.g. 64")
    from genreport.load.spec import DEFAULT_MEMORY_RESERVE

    reserve = DEFAULT_MEMORY_RESERVE
    if args.memory_reserve is not None:
        try:
            reserve = float(args.memory_reserve.rstrip("%")) / (100.0 if args.memory_reserve.endswith("%") else 1.0)
        except ValueError:
            reserve = math.nan
        if not 0.0 <= reserve <= 0.9:
            raise _err(f"--memory-reserve {args.memory_reserve}", "must be a fraction from 0 to 0.9 (or 0% to 90%)",
                       "write e.g. 0.1 or 10%")
    model = _load("model", args.model, "model")
    if "checkpoint" in precisions and not model.checkpoint_weights:
        raise _err(f"--precision {args.precision}", f"{model.title} has no checkpoint_precision in its spec",
                   f"name the formats instead, or add checkpoint_precision to {model.file}")
    hw = dataclasses.replace(_load("hardware", args.hardware, "--hardware"), memory_reserve=reserve)
    result = plan(model, hw, batch, context, latency, tuple(precisions), args.max_gpus, args.accounting,
                  args.estimate)
    if args.format == "json":
        doc = {"model": model.name, "hardware": hw.name, "context": context, "batch": batch, "latency": latency,
               "memory_reserve": reserve,
               "estimate": args.estimate, "accounting": args.accounting, "max_gpus": args.max_gpus,
               "rows": [r.as_json() for r in result.rows], "rejected": result.rejected,
               "skipped_precisions": [{"precision": p, "why": w} for p, w in result.skipped_precisions]}
        print(json.dumps(doc, indent=1, sort_keys=True))
        return 0
    print(render_table(result, model, hw, batch, context, latency, args.limit))
    return 0


def render_table(result, model, hw, batch: int, context: int, latency: float | None, limit: int) -> str:
    """The table of the first ``limit`` layouts (0: all of them), and how many more there are."""
    from genreport.commands.diff import table

    if limit <= 0:
        limit = len(result.rows)

    target = f", decode round <= {latency * 1e3:g} ms ({result.estimate})" if latency else ""
    reserve = f", {hw.memory_reserve:.0%} of each GPU kept by the engine" if hw.memory_reserve else ""
    lines = [f"{model.title} on {hw.title}: {batch} sequences x {context:,} tokens per replica{target}{reserve}"]
    header = ["precision", "tp", "pp", "ep", "dp", "GPUs", "weights/GPU GiB", "batch", "limit", "binds",
              "bound ms", "serial ms", "comm ms", "tok/s replica", "tok/s/GPU"]
    rows = [[r.precision, str(r.tp), str(r.pp), str(r.ep), str(r.dp), str(r.gpus), f"{r.weight_bytes_per_gpu / 2**30:,.1f}",
             str(r.batch), r.limit, r.binds, f"{r.time_bound * 1e3:,.2f}", f"{r.time_serial * 1e3:,.2f}",
             f"{r.time_comm * 1e3:,.3f}", f"{r.tokens_per_s_replica:,.0f}", f"{r.tokens_per_s_gpu:,.1f}"]
            for r in result.rows[:limit]]
    if rows:
        lines += table(rows, header, set(range(1, 8)) | set(range(9, 14)))
    else:
        lines.append("no layout fits")
    if len(result.rows) > limit:
        lines.append(f"... {len(result.rows) - limit} more (--limit 0 for all rows, or --format json)")
    rejected = ", ".join(f"{n} {why}" for why, n in result.rejected.items() if n)
    if rejected:
        lines.append(f"not listed: {rejected}")
    for p, why in result.skipped_precisions:
        lines.append(f"skipped {p}: {why}")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
