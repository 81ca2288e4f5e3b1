"""Speed and memory of genreport on this machine, against the targets of issue 9.

    .venv/bin/python bench/run.py [--runs 5] [--quick]

Prints, each as the median of several runs in fresh processes:
  * cold full report (HTML + PDF + JSON + figures), with a cold and with a warm formula/math cache;
  * JSON only;
  * a rebuild when nothing changed;
  * peak RSS of each;
  * the per-stage breakdown of a full build (genreport --timings);
  * sweep throughput in configurations per second (bench/sweep_bench.py, if present).
Uses only the standard library and the project itself.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "specs" / "llama8b-h100.yaml"
GENREPORT = [sys.executable, "-m", "genreport.commands.cli"]

TARGETS = {  # issue 9, on a 2-core machine
    "full": 2.5, "json": 0.6, "rebuild": 0.5, "rss_mb": 300, "sweep": 10e6,
}


def _run(args: list[str], env: dict) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB) and stderr of one command in a fresh child process."""
    probe = (
        "import resource, subprocess, sys, time;"
        "t = time.perf_counter();"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True);"
        "w = time.perf_counter() - t;"
        "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024;"
        "sys.stdout.write(f'{w} {rss} {p.returncode}\\n'); sys.stderr.write(p.stderr)"
    )
    p = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, env=env, cwd=ROOT)
    wall, rss, rc = p.stdout.split()
    if rc != "0":
        raise SystemExit(f"failed: {' '.join(args)}\n{p.stderr}")
    return float(wall), float(rss), p.stderr


def _median(values):
    return statistics.median(values) if values else float("nan")


def measure(label: str, args: list[str], runs: int, env: dict, fresh_cache: bool = False, prepare=None):
    walls, rsss, errs = [], [], []
    for _ in range(runs):
        e = dict(env)
        if fresh_cache:
            e["GENREPORT_CACHE"] = tempfile.mkdtemp(prefix="genreport-bench-cache-")
        if prepare:
            prepare()
        w, r, err = _run(args, e)
        walls.append(w)
        rsss.append(r)
        errs.append(err)
    return {"label": label, "wall": _median(walls), "rss": max(rsss), "runs": runs, "stderr": errs[-1]}


def measure_watch(label: str, formats: str, runs: int, env: dict, out: Path) -> dict:
    """`genreport --watch`: seconds from saving an edited spec to the rebuilt report, as a user would wait."""
    work = Path(tempfile.mkdtemp(prefix="genreport-bench-watch-"))
    spec = work / SPEC.name
    spec.write_text(SPEC.read_text())
    log = work / "stderr.txt"
    with log.open("w") as err:
        proc = subprocess.Popen([*GENREPORT, str(spec), "--watch", "--format", formats, "-o", str(out), "-q"],
                                stderr=err, env=env, cwd=ROOT)
    walls = []
    try:
        _wait_for(lambda: "watching" in log.read_text())
        for i in range(runs):
            lines = spec.read_text().splitlines(keepends=True)
            at = next(k for k, line in enumerate(lines) if line.startswith("title:"))
            lines[at] = f"title: benchmark edit {i}\n"
            done = log.read_text().count(" done in ")
            t = time.perf_counter()
            spec.write_text("".join(lines))
            _wait_for(lambda n=done: log.read_text().count(" done in ") > n, step=0.01)
            walls.append(time.perf_counter() - t)
        rss = _peak_rss_mb(proc.pid)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    return {"label": label, "wall": _median(walls), "rss": rss, "runs": runs, "stderr": ""}


def _peak_rss_mb(pid: int) -> float:
    """VmHWM of a running process (Linux), in MB; NaN elsewhere."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def _wait_for(pred, timeout: float = 120.0, step: float = 0.05) -> None:
    end = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > end:
            raise SystemExit("benchmark: timed out waiting for genreport --watch")
        time.sleep(step)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="3 runs, no cold-cache full build")
    args = ap.parse_args(argv)
    runs = 3 if args.quick else args.runs
    out = Path(tempfile.mkdtemp(prefix="genreport-bench-out-"))
    env = dict(os.environ, PYTHONPATH=str(ROOT), SOURCE_DATE_EPOCH="0")
    env.setdefault("GENREPORT_CACHE", tempfile.mkdtemp(prefix="genreport-bench-warm-"))
    base = [*GENREPORT, str(SPEC), "-o", str(out), "-q"]

    print(f"genreport benchmark: {os.cpu_count()} cores, Python {sys.version.split()[0]}, median of {runs} runs")
    _run([*base, "--force"], env)  # warm the formula and math caches once
    rows = []
    if not args.quick:
        rows.append(measure("full report, cold caches (HTML+PDF+JSON)", [*base, "--force"], max(1, runs // 2), env,
                            fresh_cache=True))
    rows.append(measure("full report, warm caches (HTML+PDF+JSON)", [*base, "--force", "--timings"], runs, env))
    rows.append(measure("JSON only", [*base, "--force", "--format", "json"], runs, env))
    rows.append(measure("rebuild, nothing changed", base, runs, env))
    _run([*base, "--format", "json"], env)  # its own stamp: JSON-only builds are keyed apart from full ones
    rows.append(measure("rebuild, nothing changed (JSON only)", [*base, "--format", "json"], runs, env))
    rows.append(measure_watch("--watch: edit saved -> full report", "html,pdf,json", runs, env, out))
    rows.append(measure_watch("--watch: edit saved -> HTML+JSON", "html,json", runs, env, out))
    targets = {"full report, warm caches (HTML+PDF+JSON)": TARGETS["full"], "JSON only": TARGETS["json"],
               "rebuild, nothing changed": TARGETS["rebuild"],
               "rebuild, nothing changed (JSON only)": TARGETS["rebuild"]}
    print(f"{'what':46s} {'wall':>8s} {'target':>8s} {'peak RSS':>10s}")
    for row in rows:
        target = targets.get(row["label"])
        verdict = "" if target is None else ("  ok" if row["wall"] <= target else "  MISSES")
        tgt = f"{target:.1f} s" if target else ""
        rss_flag = "" if row["rss"] <= TARGETS["rss_mb"] else " (over 300 MB)"
        print(f"{row['label']:46s} {row['wall']:7.2f}s {tgt:>8s} {row['rss']:8.0f} MB{verdict}{rss_flag}")
    stages = [r for r in rows if "--timings" in r["label"] or "warm" in r["label"]]
    for row in stages:
        m = re.findall(r"([\w-]+) (\d+) ms", row["stderr"])
        if m:
            print("stages of the last warm full build: " + ", ".join(f"{k} {v} ms" for k, v in m))
    sweep = ROOT / "bench" / "sweep_bench.py"
    if sweep.exists():
        print("--- sweep ---")
        t = time.perf_counter()
        p = subprocess.run([sys.executable, str(sweep)], capture_output=True, text=True, env=env, cwd=ROOT)
        sys.stdout.write(p.stdout)
        if p.returncode:
            sys.stdout.write(p.stderr)
        print(f"(sweep benchmark took {time.perf_counter() - t:.1f} s; target >= {TARGETS['sweep']:.0e} configurations/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
