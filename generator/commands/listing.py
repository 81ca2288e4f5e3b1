"""``genreport list [hardware|models]``: the catalog with its key numbers."""

from __future__ import annotations

import argparse
from pathlib import Path

from genreport.commands.options import Parser, add_verbosity
from genreport.commands.tables import FORMATS, emit
from genreport.terminal import note, safe


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="genreport list", description="The catalog of GPUs and models, with key numbers.",
               allow_abbrev=False)
    p.add_argument("what", nargs="?", choices=("hardware", "models"), help="only GPUs or only models (default: both)")
    p.add_argument("--format", choices=FORMATS, default="table",
                   help="table for a terminal (default); md (Markdown), csv or json to paste or script, with "
                        "numbers in SI units in csv and json (bytes, B/s, FLOP/s)")
    add_verbosity(p)
    return p


def _tflops(v) -> str:
    return f"{v / 1e12:,.0f}" if v else "-"


def hardware_records(gpus) -> list[dict]:
    """One record a GPU, numbers in SI units (what ``--format json|csv`` writes)."""
    from genreport.model.catalog import hardware_facts

    return [{"name": hw.name, "title": hw.title, "capacity_bytes": hw.capacity, "bandwidth_bytes_per_s": hw.bandwidth,
             "peak_bf16_flops": hw.dense.get("bf16"), "peak_fp8_flops": hw.dense.get("fp8"),
             "ridge_bf16_flop_per_byte": hardware_facts(hw)["ridge_bf16"] or None,
             "price_per_hour_usd": hw.price_per_hour or None, "board_power_watts": hw.power_watts or None}
            for hw in gpus]


def hardware_rows(gpus) -> tuple[list[str], list[list[str]]]:
    header = ["name", "title", "HBM GiB", "TB/s", "bf16 TFLOP/s", "fp8 TFLOP/s", "ridge bf16", "$/h", "W"]
    rows = []
    for r in hardware_records(gpus):
        ridge = r["ridge_bf16_flop_per_byte"]
        rows.append([r["name"], r["title"], f"{r['capacity_bytes'] / 2**30:,.0f}",
                     f"{r['bandwidth_bytes_per_s'] / 1e12:.3g}", _tflops(r["peak_bf16_flops"]),
                     _tflops(r["peak_fp8_flops"]), f"{ridge:,.0f}" if ridge else "-",
                     f"{r['price_per_hour_usd']:.2f}" if r["price_per_hour_usd"] else "-",
                     f"{r['board_power_watts']:,.0f}" if r["board_power_watts"] else "-"])
    return header, rows


def model_records(models) -> list[dict]:
    """One record a model, numbers in SI units: the KV cache of the layers that attend to all of the context per
    token, and what a sequence holds in its windowed or chunked layers once past the window (bf16)."""
    from genreport.model.catalog import model_facts

    out = []
    for m in models:
        f = model_facts(m)
        out.append({"name": m.name, "title": m.title, "parameters": f["parameters"], "active_parameters": f["active"],
                    "layers": m.layers, "hidden_size": m.hidden_size, "heads": m.heads, "kv_heads": m.kv_heads,
                    "kv_bytes_per_token_bf16": f["kv_bytes_per_token_global_bf16"],
                    "kv_bytes_per_sequence_windowed_bf16": f["kv_bytes_per_sequence_windowed_bf16"] or None,
                    "max_context": m.max_context, "kind": f["kind"]})
    return out


def model_rows(models) -> tuple[list[str], list[list[str]]]:
    header = ["name", "title", "params", "active", "layers", "d", "heads/kv", "KV KiB/token bf16",
              "+ MiB/seq windows", "context", "kind"]
    rows = []
    for r in model_records(models):
        windows = r["kv_bytes_per_sequence_windowed_bf16"]
        rows.append([r["name"], r["title"], f"{r['parameters'] / 1e9:,.3g}B", f"{r['active_parameters'] / 1e9:,.3g}B",
                     str(r["layers"]), str(r["hidden_size"]), f"{r['heads']}/{r['kv_heads']}",
                     f"{r['kv_bytes_per_token_bf16'] / 1024:,.4g}", f"{windows / 2**20:,.4g}" if windows else "-",
                     f"{r['max_context']:,}" if r["max_context"] else "-", r["kind"]])
    return header, rows


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    from genreport.commands.sweep import load_catalog

    root = Path.cwd() if (Path.cwd() / "specs").is_dir() else None

    def warn(msg: str) -> None:
        note(msg)

    def cells(rows):  # titles are spec text: show control characters escaped
        return [[safe(c) for c in row] for row in rows]

    parts = []
    if args.what in (None, "hardware"):
        import dataclasses

        from genreport import config

        prices = config.load().prices  # your prices, where your config gives them
        gpus = [dataclasses.replace(hw, price_per_hour=prices[hw.name]) if hw.name in prices else hw
                for hw in load_catalog("hardware", None, root, warn)]
        header, rows = hardware_rows(gpus)
        parts.append(("hardware", header, cells(rows), {2, 3, 4, 5, 6, 7}, hardware_records(gpus)))
    if args.what in (None, "models"):
        models = load_catalog("model", None, root, warn)
        header, rows = model_rows(models)
        parts.append(("models", header, cells(rows), {2, 3, 4, 5, 6, 7, 8, 9}, model_records(models)))
    print(emit(parts, args.format))
    return 0
