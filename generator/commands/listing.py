"""``genreport list [hardware|models]``: the catalog with its key numbers."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from genreport.terminal import safe


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="genreport list", description="The catalog of GPUs and models, with key numbers.")
    p.add_argument("what", nargs="?", choices=("hardware", "models"), help="only GPUs or only models (default: both)")
    return p


def _tflops(hw, fmt: str) -> str:
    v = hw.dense.get(fmt)
    return f"{v / 1e12:,.0f}" if v else "-"


def hardware_rows(gpus) -> tuple[list[str], list[list[str]]]:
    header = ["name", "title", "HBM GiB", "TB/s", "bf16 TFLOP/s", "fp8 TFLOP/s", "ridge bf16", "$/h"]
    rows = []
    for hw in gpus:
        ridge = hw.dense.get("bf16", 0.0) / hw.bandwidth
        rows.append([hw.name, hw.title, f"{hw.capacity / 2**30:,.0f}", f"{hw.bandwidth / 1e12:.3g}",
                     _tflops(hw, "bf16"), _tflops(hw, "fp8"), f"{ridge:,.0f}" if ridge else "-",
                     f"{hw.price_per_hour:.2f}" if hw.price_per_hour else "-"])
    return header, rows


def model_rows(models) -> tuple[list[str], list[list[str]]]:
    from genreport.formulas import architecture as arch

    header = ["name", "title", "params", "active", "layers", "d", "heads/kv", "KV KiB/token bf16", "context", "kind"]
    rows = []
    for m in models:
        pc = arch.parameter_count(m)
        total = m.declared_parameters or pc.total
        active = (m.declared_active or pc.active) if m.moe else total
        kind = [m.attention.kind]
        if m.moe:
            kind.append(f"MoE {m.moe.active_experts}/{m.moe.experts}")
        if arch.local_layers(m):
            kind.append(f"window {m.attention.sliding_window}")
        rows.append([m.name, m.title, f"{total / 1e9:,.3g}B", f"{active / 1e9:,.3g}B", str(m.layers),
                     str(m.hidden_size), f"{m.heads}/{m.kv_heads}", f"{arch.kv_bytes_per_token(m, 2.0) / 1024:,.4g}",
                     f"{m.max_context:,}" if m.max_context else "-", ", ".join(kind)])
    return header, rows


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    from genreport.commands.diff import table
    from genreport.commands.sweep import load_catalog

    root = Path.cwd() if (Path.cwd() / "specs").is_dir() else None

    def warn(msg: str) -> None:
        print(safe(msg), file=sys.stderr)

    def cells(rows):  # titles are spec text: show control characters escaped
        return [[safe(c) for c in row] for row in rows]

    parts = []
    if args.what in (None, "hardware"):
        header, rows = hardware_rows(load_catalog("hardware", None, root, warn))
        rows = cells(rows)
        parts.append(f"hardware ({len(rows)}):\n" + "\n".join(table(rows, header, {2, 3, 4, 5, 6, 7})))
    if args.what in (None, "models"):
        header, rows = model_rows(load_catalog("model", None, root, warn))
        rows = cells(rows)
        parts.append(f"models ({len(rows)}):\n" + "\n".join(table(rows, header, {2, 3, 4, 5, 6, 7, 8})))
    print("\n\n".join(parts))
    return 0
