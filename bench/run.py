"""Speed and memory of genreport on this machine, each figure also as a ratio to a yardstick measured in the same run.

    .venv/bin/python bench/run.py [--runs 5] [--quick] [--no-sweep] [--serve-builds 200] [--only-serve-memory]

The yardstick is stock WeasyPrint printing a frozen copy of the Llama 3.1 8B on H100 report
(bench/yardstick/, never regenerated) in a fresh process: about 3.9 s on the 2-core development machine. Since
the same machine does both, the ratio ``figure / yardstick`` compares across machines and across loads; the
targets of issue 19 are ratios. The measurements are interleaved (one of each per round, ``--runs`` rounds)
and the medians printed:

  * yardstick;
  * full report (HTML + PDF + JSON + figures) in a fresh process, caches warm (math, formula operators, and the
    figures kept by the last build of the same spec), and the same with its figures drawn;
  * first run on a fresh clone: ``git clone`` of this checkout's HEAD and the byte-compilation ``scripts/setup``
    does after installing (neither timed), its code run from the clone, an empty ``GENREPORT_CACHE`` and a new
    output folder;
  * JSON only; a rebuild when nothing changed;
  * warm rebuilds: a ``genreport serve`` request, and a ``--watch`` edit saved -> report rebuilt;
  * peak RSS of each (the largest single process: the build, its figure process or its PDF worker), and once,
    untimed, the peak of all a full build's processes together (RSS and PSS);
  * CPU seconds of each (all its processes), also as a ratio: steadier than wall time on a busy machine, but
    blind to what runs in parallel;
  * the per-stage breakdown of the last full build (genreport --timings);
  * ``genreport serve``'s memory over a long run (``--serve-builds``, 200; none with ``--quick`` unless given): one
    server, each request a full report of a what-if no earlier request asked for, its RSS read once it waits for
    the next request; its RSS when ready, after the first 10 builds and after the last, the growth per build
    after the first 10, over the second half and fitted over the last 100, and the RSS after every 25th build (a
    warm process must not grow with the number of builds: issue 32);
  * sweep throughput (bench/sweep_bench.py).
Uses only the standard library, git and the project itself.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
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
YARDSTICK = [sys.executable, str(ROOT / "bench" / "yardstick" / "print.py")]

TARGETS = {  # issue 19: at most this many yardsticks, on a 2-core machine
    "full": 0.55, "fresh": 1.2, "json": 0.08, "noop": 0.08, "serve": 0.40, "watch": 0.40,
}
RSS_MB = 300

# Runs genreport from a fresh clone: its generator/ is the genreport package, its formulas/ genreport.formulas
# (the mapping pyproject.toml gives), ahead of any installed copy.
FROM_CLONE = """
import importlib.util, sys
root = sys.argv.pop(1)
FOLDERS = {"genreport": root + "/generator", "genreport.formulas": root + "/formulas"}
class Clone:
    @staticmethod
    def find_spec(name, path=None, target=None):
        folder = FOLDERS.get(name)
        if folder is None:
            return None
        return importlib.util.spec_from_file_location(name, folder + "/__init__.py",
                                                      submodule_search_locations=[folder])
sys.meta_path.insert(0, Clone)
sys.argv[0] = "genreport"
from genreport.commands.cli import entry
import genreport
assert genreport.__file__.startswith(root), genreport.__file__
entry()
"""


def _run(args: list[str], env: dict, cwd: Path = ROOT) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB) and stderr of one command in a fresh child process."""
    probe = (
        "import resource, subprocess, sys, time;"
        "t = time.perf_counter();"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True);"
        "w = time.perf_counter() - t;"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN);"
        "rss = u.ru_maxrss / 1024;"
        "sys.stdout.write(f'{w} {rss} {p.returncode} {u.ru_utime + u.ru_stime}\\n'); sys.stderr.write(p.stderr)"
    )
    p = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, env=env, cwd=cwd)
    wall, rss, rc, cpu = p.stdout.split()
    if rc != "0":
        raise SystemExit(f"failed: {' '.join(args)}\n{p.stderr}")
    return float(wall), float(rss), p.stderr, float(cpu)


def _cpu_s(pid: int) -> float:
    """CPU seconds of a running process and its collected children (Linux), NaN elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def _memory_together(args: list[str], env: dict) -> tuple[float, float, int] | None:
    """(peak RSS, peak PSS, most processes at once) of a command and its descendants, summed at each sample; None
    where /proc has no smaps_rollup. A separate, untimed run: the sampling costs CPU."""
    if not Path(f"/proc/{os.getpid()}/smaps_rollup").exists():
        return None

    def tree(pid: int) -> list[int]:
        out = [pid]
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as fh:
                    out += [q for c in fh.read().split() for q in tree(int(c))]
        except OSError:
            pass
        return out

    proc = subprocess.Popen(args, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    best = [0, 0, 0]
    while proc.poll() is None:
        rss = pss = n = 0
        for pid in tree(proc.pid):
            try:
                with open(f"/proc/{pid}/smaps_rollup") as fh:
                    for line in fh:
                        if line.startswith("Rss:"):
                            rss += int(line.split()[1])
                        elif line.startswith("Pss:"):
                            pss += int(line.split()[1])
                n += 1
            except OSError:
                pass
        best = [max(best[0], rss), max(best[1], pss), max(best[2], n)]
        time.sleep(0.005)
    return best[0] / 1024, best[1] / 1024, best[2]


def _status_mb(pid: int, field: str) -> float:
    """A memory field of a running process's /proc status (Linux: VmHWM, VmRSS), in MB; NaN elsewhere."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def _peak_rss_mb(pid: int) -> float:
    """VmHWM of a running process, in MB."""
    return _status_mb(pid, "VmHWM")


def _wait_for(pred, timeout: float = 180.0, step: float = 0.05) -> None:
    end = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > end:
            raise SystemExit("benchmark: timed out waiting for genreport")
        time.sleep(step)


class Server:
    """``genreport serve`` kept open for the whole run; each measurement is one forced rebuild request."""

    def __init__(self, env: dict, out: Path):
        self.out = out
        self.proc = subprocess.Popen([*GENREPORT, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT)
        assert json.loads(self.proc.stdout.readline())["ready"]

    def __call__(self) -> tuple[float, float, str, float]:
        t, cpu = time.perf_counter(), _cpu_s(self.proc.pid)
        self.proc.stdin.write(f"{SPEC} -o {self.out} -q --force\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        wall = time.perf_counter() - t
        if answer["status"]:
            raise SystemExit(f"genreport serve: {answer}")
        return wall, _peak_rss_mb(self.proc.pid), "", _cpu_s(self.proc.pid) - cpu

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


class Watcher:
    """``genreport --watch`` kept open; each measurement saves an edited spec and waits for the rebuilt report."""

    def __init__(self, env: dict, out: Path):
        self.work = Path(tempfile.mkdtemp(prefix="genreport-bench-watch-"))
        self.spec = self.work / SPEC.name
        self.spec.write_text(SPEC.read_text())
        self.log = self.work / "stderr.txt"
        self.edits = 0
        with self.log.open("w") as err:
            self.proc = subprocess.Popen([*GENREPORT, str(self.spec), "--watch", "-o", str(out), "-q"],
                                         stderr=err, env=env, cwd=ROOT)
        _wait_for(lambda: "watching" in self.log.read_text())

    def __call__(self) -> tuple[float, float, str, float]:
        self.edits += 1
        lines = self.spec.read_text().splitlines(keepends=True)
        at = next(k for k, line in enumerate(lines) if line.startswith("title:"))
        lines[at] = f"title: benchmark edit {self.edits}\n"
        done = self.log.read_text().count(" done in ")
        t, cpu = time.perf_counter(), _cpu_s(self.proc.pid)
        self.spec.write_text("".join(lines))
        _wait_for(lambda: self.log.read_text().count(" done in ") > done, step=0.01)
        return time.perf_counter() - t, _peak_rss_mb(self.proc.pid), "", _cpu_s(self.proc.pid) - cpu

    def close(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=60)


def _rss_mb(pid: int) -> float:
    """VmRSS of a running process, in MB."""
    return _status_mb(pid, "VmRSS")


def _idle(pid: int, timeout: float = 10.0) -> None:
    """Wait until a server that has answered is back to waiting for its next request (sleeping on its pipe): its
    collector and its C heap's trim run after the answer is sent (``serve.serve``). Linux; elsewhere no wait."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return
        if state == "S":
            return
        time.sleep(0.002)


def _descendants(pid: int) -> list[int]:
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                for child in fh.read().split():
                    out += [int(child), *_descendants(int(child))]
    except OSError:
        pass
    return out


def _what_if(i: int) -> str:
    """The ``--set`` options of the i-th distinct what-if: memory bandwidth and BF16 peak both move, so no two
    requests of a run ask for the same report (and none is the spec as written)."""
    return (f"--set 'hardware.memory.bandwidth={2.0 + 0.005 * i:.3f} TB/s' "
            f"--set 'hardware.peak.dense.bf16={700 + (i % 7) * 40:.0f} TFLOP/s'")


def serve_memory(env: dict, builds: int, command: list[str] | None = None) -> dict:
    """RSS of one ``genreport serve`` (``command``: how to start it) answering ``builds`` full-report requests,
    each a distinct what-if (:func:`_what_if`), measured after each answer once the server waits again (its
    collector and its trim have run: see ``serve.serve``): {"start" (ready), "after10" (after the first ``first``
    builds, 10 or fewer), "end", "peak" (MB), "per_build" (MB per build after the first 10: end minus after10),
    "slope" (least squares over the same builds), "slope_last" (least squares over the "last" 100 builds, or all
    after the first 10 where fewer), "last_half" (MB per build over the second half of the run: the caches are
    full by then), "every25" (RSS after every 25th build), "children" (the most MB its descendants held at an answer), "seconds" (per build, median), "builds"}."""
    out = Path(tempfile.mkdtemp(prefix="genreport-bench-serve-memory-"))
    proc = subprocess.Popen([*(command or GENREPORT), "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT)
    try:
        assert json.loads(proc.stdout.readline())["ready"]
        start, rss, children, seconds = _rss_mb(proc.pid), [], 0.0, []
        for i in range(builds):
            proc.stdin.write(f"{SPEC} {_what_if(i)} -o {out} -q\n")
            proc.stdin.flush()
            answer = json.loads(proc.stdout.readline())
            if answer["status"]:
                raise SystemExit(f"genreport serve: {answer}")
            _idle(proc.pid)
            rss.append(_rss_mb(proc.pid))
            children = max(children, sum(_rss_mb(c) for c in _descendants(proc.pid)))
            seconds.append(answer["seconds"])
        peak = _peak_rss_mb(proc.pid)
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
        shutil.rmtree(out, ignore_errors=True)
    first = min(10, builds)
    half = builds // 2
    last = min(100, builds - first)
    return {"start": start, "first": first, "after10": rss[first - 1], "end": rss[-1], "peak": peak,
            "per_build": (rss[-1] - rss[first - 1]) / (builds - first) if builds > first else float("nan"),
            "slope": _slope(rss[first - 1:]), "last": last, "slope_last": _slope(rss[builds - last - 1:]),
            "last_half": (rss[-1] - rss[half - 1]) / (builds - half) if half else float("nan"),
            "every25": [round(rss[i], 1) for i in range(24, builds, 25)],
            "children": children, "seconds": statistics.median(seconds), "builds": builds}


def _slope(ys: list[float]) -> float:
    """Least-squares slope of ``ys`` against 0, 1, 2, ... (nan for fewer than two)."""
    n = len(ys)
    if n < 2:
        return float("nan")
    mean_x, mean_y = (n - 1) / 2, statistics.fmean(ys)
    return (sum((x - mean_x) * (y - mean_y) for x, y in enumerate(ys))
            / sum((x - mean_x) ** 2 for x in range(n)))


def _print_serve_memory(m: dict) -> None:
    print(f"serve memory, {m['builds']} full builds of distinct what-ifs (one server, {m['seconds']:.2f} s a build): "
          f"RSS {m['start']:.0f} MB ready, {m['after10']:.0f} MB after {m['first']}, {m['end']:.0f} MB after "
          f"{m['builds']} (peak {m['peak']:.0f} MB); growth after the first {m['first']}: "
          f"{m['per_build'] * 1024:+.0f} kB per build "
          f"(fitted {m['slope'] * 1024:+.0f} kB), over the last {m['builds'] - m['builds'] // 2}: "
          f"{m['last_half'] * 1024:+.0f} kB per build, fitted over the last {m['last']}: "
          f"{m['slope_last'] * 1024:+.0f} kB per build; its children at an answer: {m['children']:.0f} MB"
          f"{' (over 300 MB)' if m['peak'] > RSS_MB else ''}")
    if m["every25"]:
        print("  RSS after every 25th build (MB): " + ", ".join(f"{v:.0f}" for v in m["every25"]))


def _fresh_clone(env: dict):
    """A measurement of the first run on a fresh clone: clone (untimed), then time one full build from it."""
    def once() -> tuple[float, float, str, float]:
        work = Path(tempfile.mkdtemp(prefix="genreport-bench-clone-"))
        try:
            subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(work / "clone")], check=True)
            e = dict(env, GENREPORT_CACHE=str(work / "cache"))
            clone = work / "clone"
            subprocess.run([sys.executable, "-m", "compileall", "-q", "generator", "formulas"], check=True,
                           cwd=clone, stdout=subprocess.DEVNULL)  # as scripts/setup does after installing
            return _run([sys.executable, "-c", FROM_CLONE, str(clone), "specs/llama8b-h100.yaml", "-o",
                         str(work / "out"), "-q", "--timings"], e, cwd=clone)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return once


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="rounds; each measures everything once (default 5)")
    ap.add_argument("--quick", action="store_true", help="3 rounds, no fresh clone, no watch loop")
    ap.add_argument("--no-sweep", action="store_true", help="skip the sweep benchmark")
    ap.add_argument("--ablation", action="store_true",
                    help="also a full report with each fast path turned off in turn (what each one gains)")
    ap.add_argument("--serve-builds", type=int, metavar="N",
                    help="full builds in the serve memory run (default 200; 0 with --quick; 0: no run)")
    ap.add_argument("--only-serve-memory", action="store_true", help="only the serve memory run")
    args = ap.parse_args(argv)
    runs = min(3, args.runs) if args.quick else args.runs
    serve_builds = args.serve_builds
    if serve_builds is None:
        serve_builds = 0 if args.quick and not args.only_serve_memory else 200
    out = Path(tempfile.mkdtemp(prefix="genreport-bench-out-"))
    env = dict(os.environ, PYTHONPATH=str(ROOT), SOURCE_DATE_EPOCH="0")
    env.setdefault("GENREPORT_CACHE", tempfile.mkdtemp(prefix="genreport-bench-warm-"))
    if args.only_serve_memory:
        if serve_builds < 1:
            ap.error("--only-serve-memory needs --serve-builds of 1 or more")
        _print_serve_memory(serve_memory(env, serve_builds))
        return 0
    base = [*GENREPORT, str(SPEC), "-o", str(out), "-q"]
    out_json = Path(tempfile.mkdtemp(prefix="genreport-bench-json-"))  # beside, so the full report stays current

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"genreport benchmark: {os.cpu_count()} cores, load {load:.1f}, Python {sys.version.split()[0]}, "
          f"median of {runs} interleaved rounds")
    _run([*base, "--force"], env)  # the math cache, once
    measures = [
        ("yardstick", "yardstick: stock WeasyPrint, frozen 8B/H100 report", lambda: _run(YARDSTICK, env)),
        ("full", "full report, cold process (HTML+PDF+JSON)", lambda: _run([*base, "--force", "--timings"], env)),
        ("drawn", "  same, figures drawn (not kept from the last build)",
         lambda e=dict(env, GENREPORT_FIGURE_CACHE="0"): _run([*base, "--force"], e)),
    ]
    if args.ablation:
        for key, label, extra in (
                ("no-a", "  same, stock Pango import (prebuilt bindings off)", {"GENREPORT_PDF_OFF": "pango,lazyimports"}),
                ("no-svg", "  same, stock SVG paths and file writing (fastsvg, fastwrite off)", {"GENREPORT_PDF_OFF": "svg,write"}),
                ("no-c", "  same, PDF worker off", {"GENREPORT_PDF_OFF": "worker"}),
                ("no-early", "  same, early layout off", {"GENREPORT_PDF_OFF": "early-layout"}),
                ("no-halves", "  same, pages laid out by one process (splitlayout off)", {"GENREPORT_PDF_OFF": "split-layout"}),
                ("no-seed", "  same, page numbers not given ahead (two layout passes)", {"GENREPORT_PDF_OFF": "seed-pages"}),
                ("no-split", "  same, splitlayout and splitpaint off (one painter)",
                 {"GENREPORT_PDF_OFF": "split-layout,split-paint"}),
                ("no-ops", "  same, formulas and figures drawn every time (operator cache off)", {"GENREPORT_PDF_OFF": "opcache"}),
                ("stock", "  same, the stock path (GENREPORT_PDF=stock: no fast path, as when the gate is closed)",
                 {"GENREPORT_PDF": "stock"}),
                ("no-layout", "  same, WeasyPrint's own layout passes (fastlayout off)", {"GENREPORT_PDF_OFF": "layout"})):
            measures.append((key, label, lambda e=dict(env, **extra): _run([*base, "--force"], e)))
    if not args.quick:
        measures.append(("fresh", "first run on a fresh clone, empty cache", _fresh_clone(env)))
    catalog = ",".join(sorted(p.stem for p in (ROOT / "specs" / "hardware").glob("*.yaml")))
    measures.append(("plan", "plan: a 70B over every GPU of the catalog (JSON)",
                     lambda: _run([*GENREPORT, "plan", "llama-3.1-70b", "--hardware", catalog, "--prompt", "4k",
                                   "--output", "512", "--users", "64", "--format", "json"], env)))
    measures.append(("plan-techniques", "plan: DeepSeek-V3 fp8 on H200, --speculative 1,0.85 --disaggregate (JSON)",
                     lambda: _run([*GENREPORT, "plan", "deepseek-v3", "--hardware", "h200", "--weights", "fp8",
                                   "--prompt", "3k", "--output", "1k", "--users", "128", "--speculative", "1,0.85",
                                   "--disaggregate", "--format", "json"], env)))
    measures += [
        ("json", "JSON only", lambda: _run([*GENREPORT, str(SPEC), "-o", str(out_json), "-q", "--force", "--format", "json"],
                                         env)),
        ("noop", "rebuild, nothing changed", lambda: _run(base, env)),
    ]
    server = Server(env, Path(tempfile.mkdtemp(prefix="genreport-bench-serve-")))
    closers = [server.close]
    measures.append(("serve", "warm: genreport serve request (full report)", server))
    if not args.quick:
        watcher = Watcher(env, Path(tempfile.mkdtemp(prefix="genreport-bench-watch-out-")))
        closers.append(watcher.close)
        measures.append(("watch", "warm: --watch, edit saved -> full report", watcher))
    results: dict[str, list[tuple[float, float, str, float]]] = {key: [] for key, _label, _fn in measures}
    try:
        for _ in range(runs):
            for key, _label, fn in measures:
                results[key].append(fn())
    finally:
        for close in closers:
            close()

    yard = statistics.median(w for w, _r, _e, _c in results["yardstick"])
    yard_cpu = statistics.median(c for _w, _r, _e, c in results["yardstick"])
    print(f"{'what':52s} {'median':>8s} {'x yard':>7s} {'target':>7s} {'peak RSS':>9s} {'CPU':>7s} {'x yard':>7s}")
    for key, label, _fn in measures:
        walls = [w for w, _r, _e, _c in results[key]]
        wall, rss = statistics.median(walls), max(r for _w, r, _e, _c in results[key])
        cpu = statistics.median(c for _w, _r, _e, c in results[key])
        ratio = wall / yard
        target = TARGETS.get(key)
        verdict = "" if target is None else ("  ok" if ratio <= target else "  misses")
        tgt = f"{target:.2f}x" if target else ""
        flag = " (over 300 MB)" if rss > RSS_MB else ""
        print(f"{label:52s} {wall:7.2f}s {ratio:6.2f}x {tgt:>7s} {rss:6.0f} MB {cpu:6.2f}s {cpu / yard_cpu:6.2f}x"
              f"{verdict}{flag}")
        if key == "full":
            print(f"{'':52s} (each: {', '.join(f'{w:.2f}' for w in walls)})")
    for key in ("full", "fresh"):
        if results.get(key):
            m = re.findall(r"([\w-]+) (\d+) ms", results[key][-1][2])
            if m:
                print(f"stages of the last {key} build: " + ", ".join(f"{k} {v} ms" for k, v in m))
    together = _memory_together([*base, "--force"], env)
    if together:
        rss, pss, n = together
        print(f"memory of one full build, all its processes together (sampled every 5 ms, not timed): peak RSS "
              f"{rss:.0f} MB, peak PSS {pss:.0f} MB (shared pages counted once), up to {n} processes"
              f"{' (over 300 MB)' if rss > RSS_MB else ''}")
    if serve_builds > 0:
        _print_serve_memory(serve_memory(env, serve_builds))
    sweep = ROOT / "bench" / "sweep_bench.py"
    if sweep.exists() and not args.no_sweep:
        print("--- sweep ---")
        t = time.perf_counter()
        p = subprocess.run([sys.executable, str(sweep)], capture_output=True, text=True, env=env, cwd=ROOT)
        sys.stdout.write(p.stdout)
        if p.returncode:
            sys.stdout.write(p.stderr)
        print(f"(sweep benchmark took {time.perf_counter() - t:.1f} s; target >= 1e7 configurations/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
