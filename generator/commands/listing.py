"""``genreport list [hardware|models]``: the catalog with its key numbers."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from genreport.terminal import safe


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="genreport list", description="The catalog of GPUs and models, with key numbers.",
                                allow_abbrev=False)
    p.add_argument("what", nargs="?", choices=("hardware", "models"), help="only GPUs or only models (default: both)")
    return p


def _tflops(hw, fmt: str) -> str:
    v = hw.dense.get(fmt)
    return f"{v / 1e12:,.0f}" if v else "-"


def hardware_rows(gpus) -> tuple[list[str], list[list[str]]]:
    from genreport.model.catalog import hardware_facts

    header = ["name", "title", "HBM GiB", "TB/s", "bf16 TFLOP/s", "fp8 TFLOP/s", "ridge bf16", "$/h", "W"]
    rows = []
    for hw in gpus:
        ridge = hardware_facts(hw)["ridge_bf16"]
        rows.append([hw.name, hw.title, f"{hw.capacity / 2**30:,.0f}", f"{hw.bandwidth / 1e12:.3g}",
                     _tflops(hw, "bf16"), _tflops(hw, "fp8"), f"{ridge:,.0f}" if ridge else "-",
                     f"{hw.price_per_hour:.2f}" if hw.price_per_hour else "-",
                     f"{hw.power_watts:,.0f}" if hw.power_watts else "-"])
    return header, rows


def model_rows(models) -> tuple[list[str], list[list[str]]]:
    from genreport.model.catalog import model_facts

    # KV: what every token of context costs in the layers that attend to all of it, and what a sequence holds in
    # its windowed or chunked layers once its context passes the window (the whole c for a model without them)
    header = ["name", "title", "params", "active", "layers", "d", "heads/kv", "KV KiB/token bf16",
              "+ MiB/seq windows", "context", "kind"]
    rows = []
    for m in models:
        f = model_facts(m)
        windows = f["kv_bytes_per_sequence_windowed_bf16"]
        rows.append([m.name, m.title, f"{f['parameters'] / 1e9:,.3g}B", f"{f['active'] / 1e9:,.3g}B", str(m.layers),
                     str(m.hidden_size), f"{m.heads}/{m.kv_heads}", f"{f['kv_bytes_per_token_global_bf16'] / 1024:,.4g}",
                     f"{windows / 2**20:,.4g}" if windows else "-",
                     f"{m.max_context:,}" if m.max_context else "-", f["kind"]])
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
        parts.append(f"models ({len(rows)}):\n" + "\n".join(table(rows, header, {2, 3, 4, 5, 6, 7, 8, 9})))
    print("\n\n".join(parts))
    return 0
