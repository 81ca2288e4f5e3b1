"""Benchmark of ``genreport sweep``: configurations (points) per second, pure evaluation and end to end.

    .venv/bin/python bench/sweep_bench.py [--repeat 5]

Prints, for the whole catalog (every model x every GPU x bf16/fp8/int4 x 64 batches x 16 contexts):

* evaluate: the compiled formulas called on the stacked (configurations, batch, context) grid,
  plus fits/binds -- the number the >= 10 M points/s target is about;
* setup: make_env per configuration and stacking the inputs (per configuration, not per point);
* csv / json / svg: formatting the outputs in memory;
* end to end: ``genreport sweep`` in-process, loading the catalog and writing every file.

Best of ``--repeat`` runs; the machine's load is printed, since other processes skew the numbers.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def best(fn, repeat: int) -> tuple[float, object]:
    out, times = None, []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    os.chdir(ROOT)
    from genreport.commands.cli import main as cli
    from genreport.commands.sweep import load_catalog
    from genreport.model import sweep as sw
    from genreport.present.sweepfig import heatmap_svg

    t_load, (models, gpus) = best(lambda: (load_catalog("model", None, ROOT, print),
                                           load_catalog("hardware", None, ROOT, print)), 1)
    configs, skipped = sw.configurations(models, gpus)
    sw.evaluate_sweep(configs[:2])  # warm the compiled-formula cache
    runs = [sw.evaluate_sweep(configs, skipped=skipped) for _ in range(args.repeat)]
    r = runs[-1]
    ev = min(x.timings["evaluate"] for x in runs)
    setup = min(x.timings["setup"] for x in runs)
    n = r.points
    t_csv, size_csv = best(lambda: sum(len(c) for c in sw.csv_chunks(r)), max(1, args.repeat // 2))
    t_json, size_json = best(lambda: sum(len(c) for c in sw.json_chunks(r)), max(1, args.repeat // 2))
    t_svg, _ = best(lambda: heatmap_svg(sw.best_per_pair(r)), 1)
    sample = r.columns["decode_tokens_per_s"].ravel()[:200_000].tolist()
    t_py, _ = best(lambda: "".join(map("%.6g\n".__mod__, sample)), 1)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        rc = cli(["sweep", "-o", tmp, "-q"])
        t_e2e = time.perf_counter() - t0
        t0 = time.perf_counter()
        cli(["sweep", "-o", tmp, "-q", "--format", "svg"])
        t_e2e_svg = time.perf_counter() - t0
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"catalog: {len(models)} models x {len(gpus)} GPUs x 3 precisions = {len(configs)} configurations "
          f"({len(skipped)} skipped) x {len(r.batch)} batches x {len(r.context)} contexts = {n:,} points")
    print(f"machine: {os.cpu_count()} CPUs, load average {load:.2f} (other processes slow every number below)")
    print(f"evaluate (formulas on the grid):   {ev * 1e3:8.1f} ms  {n / ev / 1e6:8.1f} M points/s   <- target >= 10 M/s")
    print(f"setup (make_env per configuration): {setup * 1e3:7.1f} ms  {len(configs) / setup:8.0f} configurations/s")
    print(f"evaluate + setup:                  {(ev + setup) * 1e3:8.1f} ms  {n / (ev + setup) / 1e6:8.1f} M points/s")
    print(f"load catalog ({len(models) + len(gpus)} spec files):      {t_load * 1e3:8.1f} ms")
    print(f"CSV text ({size_csv / 1e6:.0f} MB):                  {t_csv * 1e3:8.1f} ms  {n / t_csv / 1e6:8.2f} M rows/s "
          f"(Python '%.6g' alone: {len(sample) / t_py / 1e6:.2f} M values/s, i.e. "
          f"~{n * 4 / (len(sample) / t_py):.1f} s for the 4 float columns)")
    print(f"JSON text ({size_json / 1e6:.0f} MB):                 {t_json * 1e3:8.1f} ms  {n / t_json / 1e6:8.2f} M rows/s")
    print(f"heatmap SVG:                       {t_svg * 1e3:8.1f} ms")
    print(f"end to end, 'genreport sweep' (CSV+JSON+SVG written): {t_e2e:.2f} s = {n / t_e2e / 1e6:.2f} M points/s (rc {rc})")
    print(f"end to end, heatmap only (--format svg):              {t_e2e_svg:.2f} s = {n / t_e2e_svg / 1e6:.2f} M points/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
