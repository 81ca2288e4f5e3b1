"""``genreport calibrate``: measure this machine's attainable bandwidth and matmul FLOP/s, write a hardware spec.

CPU (default): numpy, all cores.

* Bandwidth: a STREAM-style copy (b = a) and add (c = a + b) over float64 arrays
  many times larger than the last-level cache, split across one thread per CPU
  (numpy releases the GIL in these loops).  Bytes are counted as STREAM counts
  them: copy moves 16 B per element (one read, one write), add 24 B (two reads,
  one write); the extra read a write-allocate cache may do is not counted.  Best
  of several repetitions; the faster kernel is written as the bandwidth.
* Compute: dense square matmul through numpy's BLAS, 2 n^3 FLOPs per product,
  best of several repetitions, for fp32 (written as ``peak.dense.fp32``) and fp64
  (printed and kept in ``notes``: the spec schema has no fp64 format).  bf16 is
  skipped because numpy has no bf16 type; fp16 is skipped because numpy
  multiplies float16 matrices without BLAS, so the number would measure numpy's
  fallback loop, not the CPU.

CUDA (``--device cuda``): PyTorch if it is importable and sees a CUDA device;
otherwise the command prints ``no CUDA device/torch: skipped`` and exits with
status 1 (nothing was measured, nothing was written), so scripts notice.  A
device-to-device copy for the bandwidth; torch.matmul of 8192 x 8192 matrices
for bf16, fp16, tf32 and fp32, and torch._scaled_mm for fp8 on GPUs with fp8
tensor cores (compute capability 8.9 and later).  Run on an H200 on 2026-12-04
(torch 2.11, CUDA 13.0): tests/data/h200-calibrated.yaml is what it wrote.

The written spec's peaks are *attainable* numbers measured here, not datasheet
peaks; the spec says so in its source note and in its ``measured`` block.  It is
validated with the loader before it replaces anything.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from genreport.commands.options import Parser, add_verbosity
from genreport.errors import BuildError, SpecError
from genreport.load.units import format_si
from genreport.terminal import NORMAL, safe, verbosity

DEFAULT_SECONDS = 10.0
MIN_SECONDS, MAX_SECONDS = 0.5, 120.0

USAGE = """\
Measure this machine's attainable memory bandwidth and dense matmul FLOP/s and write them as a hardware spec
that reports can use (kind: hardware, with a 'measured' block).  The numbers are attainable, not datasheet peaks.

  genreport calibrate                                  CPU, ~10 s, writes specs/hardware/cpu-calibrated.yaml
  genreport calibrate -o specs/hardware/mybox.yaml --name mybox --seconds 5
  genreport calibrate --device cuda                    needs PyTorch with a CUDA device, else exits 1

Exit status: 0 written; 1 skipped (no CUDA device or torch), the file exists, or a bad -o, --name or --seconds;
2 the file cannot be written; 64 a usage error (an unknown option, a --device outside cpu and cuda).
"""


# ---------------------------------------------------------------------------------------------- measuring (CPU)

def _threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _llc_bytes() -> int:
    """Largest CPU cache in bytes (Linux sysfs), or 32 MiB when unknown."""
    best = 0
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    for index in base.glob("index*"):
        try:
            text = (index / "size").read_text().strip()
        except OSError:
            continue
        scale = {"K": 1024, "M": 1024**2, "G": 1024**3}.get(text[-1:], 1)
        try:
            best = max(best, int(text.rstrip("KMG")) * scale)
        except ValueError:
            continue
    return best or 32 * 1024**2


def total_memory_bytes() -> int:
    """Installed RAM: MemTotal from /proc/meminfo, else the page count times the page size."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024  # the file says kB; the kernel means KiB
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover
        return 0


def cpu_identity() -> dict[str, str]:
    """CPU model name and vendor from /proc/cpuinfo, with platform fallbacks."""
    model, vendor = "", ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key, value = key.strip(), value.strip()
            if key == "model name" and not model:
                model = value
            elif key == "vendor_id" and not vendor:
                vendor = value
    except OSError:
        pass
    vendor = {"GenuineIntel": "Intel", "AuthenticAMD": "AMD"}.get(vendor, vendor)
    model = model or platform.processor() or platform.machine() or "CPU"
    if not vendor:
        vendor = "Apple" if model.startswith("Apple") or platform.system() == "Darwin" else "unknown"
    return {"model": model, "vendor": vendor}


def _blas_name() -> str:
    try:
        deps = np.show_config(mode="dicts")["Build Dependencies"]
        blas = deps.get("blas", {})
        return f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception:  # noqa: BLE001 - informational only
        return "unknown BLAS"


def _best_time(fn, seconds: float, min_reps: int = 3, max_reps: int = 1000, warmup: bool = True) -> tuple[float, int]:
    """Run ``fn`` (after one warm-up) until ``seconds`` have passed and at least ``min_reps`` runs; best time."""
    if warmup:
        fn()
    best, reps, start = float("inf"), 0, time.perf_counter()
    while reps < min_reps or (time.perf_counter() - start < seconds and reps < max_reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
        reps += 1
    return best, reps


def measure_bandwidth(seconds: float = 4.0, array_bytes: int | None = None, threads: int | None = None) -> dict:
    """STREAM-style copy and add bandwidth [B/s] with numpy on ``threads`` threads; best of repetitions.

    Arrays are float64, each at least 8 times the largest cache (4 times for budgets
    under 2 s) and 64 MiB, at most 512 MiB and an eighth of RAM, and at most what the budget
    pays for: 128 MiB a second (a 0.5 s budget took 7.9 s and 1.6 GB on a CPU with a 256 MiB
    cache before).  Copy counts 16 B per element, add 24 B.
    """
    threads = threads or _threads()
    if array_bytes is None:
        ram = total_memory_bytes() or 8 * 1024**3
        times_llc = 8 if seconds >= 2 else 4  # a short budget buys smaller (still cache-busting) arrays
        by_time = int(max(seconds, MIN_SECONDS) * 128 * 1024**2)
        array_bytes = int(min(max(times_llc * _llc_bytes(), 64 * 1024**2), 512 * 1024**2, ram // 8, by_time))
    n = max(array_bytes // 8, threads * 1024)
    a = np.full(n, 1.0)
    b = np.full(n, 2.0)
    c = np.empty(n)
    c.fill(0.0)  # touch every page before timing
    bounds = np.linspace(0, n, threads + 1).astype(int)
    parts = list(zip(bounds[:-1], bounds[1:], strict=True))
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None

    def run(kernel):
        if pool is None:
            kernel(0, n)
            return
        list(pool.map(lambda p: kernel(*p), parts))

    def copy():
        run(lambda i, j: np.copyto(b[i:j], a[i:j]))

    def add():
        run(lambda i, j: np.add(a[i:j], b[i:j], out=c[i:j]))

    try:
        t_copy, reps_copy = _best_time(copy, seconds / 2)
        t_add, reps_add = _best_time(add, seconds / 2)
    finally:
        if pool is not None:
            pool.shutdown()
    copy_bw = 16.0 * n / t_copy
    add_bw = 24.0 * n / t_add
    return {"copy": copy_bw, "add": add_bw, "best": max(copy_bw, add_bw), "array_bytes": 8 * n,
            "threads": threads, "repetitions": reps_copy + reps_add}


def measure_matmul(dtype, seconds: float = 2.0, max_n: int = 4096) -> dict:
    """Dense square matmul throughput [FLOP/s] of numpy's BLAS for ``dtype``: 2 n^3 FLOPs per product.

    n doubles from 512 while the next size still fits the budget (at most ``max_n``);
    the rest of the budget repeats the largest size, at least three times.  The best
    rate seen is returned.
    """
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(0)
    deadline = time.perf_counter() + seconds

    def product(n):
        x = rng.random((n, n), dtype=dtype)
        y = rng.random((n, n), dtype=dtype)
        out = np.empty((n, n), dtype=dtype)
        return lambda: np.matmul(x, y, out=out)

    best_rate, n, reps = 0.0, 512, 0
    while True:
        run = product(n)
        run()  # warm-up: threads, page faults
        t0 = time.perf_counter()
        run()
        t = max(time.perf_counter() - t0, 1e-9)
        best_rate, reps = max(best_rate, 2.0 * n**3 / t), reps + 1
        if n < max_n and time.perf_counter() + 2 * 8 * t < deadline:
            n *= 2
            continue
        remaining = deadline - time.perf_counter()
        if remaining > t or reps < 3:
            t_best, more = _best_time(run, remaining, min_reps=3, warmup=False)
            best_rate, reps = max(best_rate, 2.0 * n**3 / t_best), reps + more
        return {"flops": best_rate, "n": n, "repetitions": reps, "dtype": dtype.name}


def measure_cpu(seconds: float = DEFAULT_SECONDS) -> dict:
    """Everything ``calibrate --device cpu`` measures, in about ``seconds`` (40 % bandwidth, 60 % matmul)."""
    started = time.perf_counter()
    bw = measure_bandwidth(seconds * 0.4)
    fp32 = measure_matmul(np.float32, seconds * 0.35)
    fp64 = measure_matmul(np.float64, seconds * 0.25)
    ident = cpu_identity()
    return {
        "device": "cpu", "model": ident["model"], "vendor": ident["vendor"], "threads": bw["threads"],
        "capacity": total_memory_bytes(), "memory_type": "system RAM",
        "bandwidth": bw["best"], "bandwidth_detail": bw,
        "peaks": {"fp32": fp32["flops"]}, "extra_peaks": {"fp64": fp64["flops"]},
        "matmul_detail": {"fp32": fp32, "fp64": fp64},
        "skipped": {"bf16": "numpy has no bf16 type",
                    "fp16": "numpy multiplies float16 matrices without BLAS; the number would measure numpy"},
        "software": f"numpy {np.__version__}, {_blas_name()}",
        "wall_s": time.perf_counter() - started,
    }


# ---------------------------------------------------------------------------------------------- measuring (CUDA)

def measure_cuda(seconds: float = DEFAULT_SECONDS) -> dict | None:  # pragma: no cover - needs a GPU
    """The same with PyTorch on CUDA device 0; None when torch or a CUDA device is missing."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    started = time.perf_counter()
    dev = torch.device("cuda", 0)
    props = torch.cuda.get_device_properties(0)

    def timed(fn, budget):
        fn()
        torch.cuda.synchronize()
        best, reps, start = float("inf"), 0, time.perf_counter()
        while reps < 3 or (time.perf_counter() - start < budget and reps < 1000):
            begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            begin.record()
            fn()
            end.record()
            end.synchronize()
            best = min(best, begin.elapsed_time(end) / 1e3)
            reps += 1
        return best

    size = int(min(props.total_memory // 8, 4 * 1024**3)) // 4 * 4
    buffers = [torch.empty(size // 4, dtype=torch.float32, device=dev).fill_(1.0)]
    buffers.append(torch.empty_like(buffers[0]))
    t_copy = timed(lambda: buffers[1].copy_(buffers[0]), seconds * 0.4)
    bandwidth = 2.0 * size / t_copy  # one read and one write per byte copied
    buffers.clear()
    peaks = {}
    formats = (("bf16", torch.bfloat16, False), ("fp16", torch.float16, False), ("tf32", torch.float32, True),
               ("fp32", torch.float32, False))
    for fmt, dtype, tf32 in formats:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        n = 8192
        x = torch.randn(n, n, device=dev, dtype=dtype)
        y = torch.randn(n, n, device=dev, dtype=dtype)
        t = timed(lambda x=x, y=y: torch.matmul(x, y), seconds * 0.15)
        peaks[fmt] = 2.0 * n**3 / t
        del x, y
    torch.backends.cuda.matmul.allow_tf32 = False
    skipped = {}
    fp8 = fp8_matmul(torch, dev, seconds * 0.15, timed)
    if isinstance(fp8, str):
        skipped["fp8"] = fp8
    else:
        peaks["fp8"] = fp8
    name = props.name
    vendor = "AMD" if getattr(torch.version, "hip", None) else "NVIDIA"
    return {
        "device": "cuda", "model": name, "vendor": vendor, "threads": None,
        "capacity": int(props.total_memory), "memory_type": "device memory",
        "bandwidth": bandwidth, "bandwidth_detail": {"copy": bandwidth, "array_bytes": size},
        "peaks": peaks, "extra_peaks": {}, "matmul_detail": {f: {"n": 8192} for f in peaks},
        "skipped": skipped, "software": f"torch {torch.__version__}, CUDA {torch.version.cuda}",
        "wall_s": time.perf_counter() - started,
    }


def fp8_matmul(torch, dev, budget: float, timed) -> float | str:  # pragma: no cover - needs a GPU
    """Dense fp8 (E4M3) matmul FLOP/s through torch._scaled_mm (per-tensor scales, bf16 out), as fp8 GEMMs run on
    GPUs with fp8 tensor cores (NVIDIA compute capability 8.9 and later); or why it was not measured."""
    if getattr(torch.version, "hip", None):
        return "ROCm's fp8 format (E4M3 FNUZ) is not measured here"
    if torch.cuda.get_device_capability(dev) < (8, 9) or not hasattr(torch, "_scaled_mm"):
        return "this GPU has no fp8 tensor cores (compute capability below 8.9), or torch has no _scaled_mm"
    n = 8192
    try:
        x = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn)
        y = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn).t()  # column-major, as _scaled_mm requires
        one = torch.ones((), device=dev, dtype=torch.float32)
        t = timed(lambda: torch._scaled_mm(x, y, scale_a=one, scale_b=one, out_dtype=torch.bfloat16), budget)
    except (RuntimeError, TypeError) as exc:
        return f"torch._scaled_mm failed: {str(exc).splitlines()[0][:160]}"
    return 2.0 * n**3 / t


# ---------------------------------------------------------------------------------------------- the spec

def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def method_text(m: dict) -> str:
    if m["device"] == "cpu":
        bw = m["bandwidth_detail"]
        mm = m["matmul_detail"]
        return (f"genreport calibrate --device cpu: {m['software']}, {m['threads']} threads. Bandwidth: best of "
                f"STREAM-style copy ({format_si(bw['copy'], 'B/s', digits=4)}, 16 B/element) and add "
                f"({format_si(bw['add'], 'B/s', digits=4)}, 24 B/element) over {bw['array_bytes'] / 2**20:.0f} MiB "
                f"float64 arrays, write-allocate traffic not counted. Compute: best rate of numpy matmul, "
                f"2 n^3 FLOP, n up to {mm['fp32']['n']} (fp32) and {mm['fp64']['n']} (fp64).")
    return (f"genreport calibrate --device cuda: {m['software']}. Bandwidth: device-to-device copy of "
            f"{m['bandwidth_detail']['array_bytes'] / 2**30:.1f} GiB, counted as one read and one write. "
            "Compute: torch.matmul of 8192 x 8192 matrices, 2 n^3 FLOP, best time (tf32 with allow_tf32; fp8 "
            "through torch._scaled_mm with per-tensor scales and bf16 output).")


def spec_text(m: dict, name: str, date: str, schema_ref: str | None = None) -> str:
    """The hardware spec (YAML text) for a measurement dict of :func:`measure_cpu` or :func:`measure_cuda`."""
    bw = format_si(m["bandwidth"], "B/s", digits=4)
    peaks = {fmt: format_si(v, "FLOP/s", digits=4) for fmt, v in m["peaks"].items()}
    capacity = f"{m['capacity'] / 2**30:.2f} GiB"
    extra = "; ".join(f"{fmt} matmul {format_si(v, 'FLOP/s', digits=4)}" for fmt, v in m["extra_peaks"].items())
    skipped = "; ".join(f"{fmt} skipped ({why})" for fmt, why in m["skipped"].items())
    notes = "Attainable values measured by 'genreport calibrate' on this machine, not datasheet peaks."
    if extra:
        notes += f" Also measured: {extra} (the spec schema has no fp64 format)."
    if skipped:
        notes += f" {skipped[:1].upper()}{skipped[1:]}."
    if m["device"] == "cpu":
        notes += (f" Memory capacity is the installed RAM (MemTotal). The CPU has {m['threads']} usable threads; "
                  "the roofline here is of numpy on this CPU.")
    variant = f"{m['threads']} threads" if m.get("threads") else "device 0"
    lines = []
    if schema_ref:
        lines.append(f"# yaml-language-server: $schema={schema_ref}")
    lines += [
        f"# Written by 'genreport calibrate --device {m['device']}' on {date}; rerun it to refresh.",
        "kind: hardware",
        f"name: {name}",
        f"title: {_q(m['model'] + ' (calibrated)')}",
        f"vendor: {_q(m['vendor'])}",
        f"variant: {_q(variant)}",
        "memory:",
        f"  capacity: {_q(capacity)}",
        f"  bandwidth: {_q(bw)}",
        f"  type: {_q(m['memory_type'])}",
        "peak:",
        "  dense:",
        *(f"    {fmt}: {_q(v)}" for fmt, v in peaks.items()),
        "measured:",
        f"  bandwidth: {_q(bw)}",
        "  peak:",
        *(f"    {fmt}: {_q(v)}" for fmt, v in peaks.items()),
        f"  method: {_q(method_text(m))}",
        f"  date: {_q(date)}",
        "source:",
        "  title: genreport calibrate",
        f"  date: {_q(date)}",
        "  note: " + _q("Measured on this machine: attainable bandwidth and matmul throughput, not datasheet "
                        "peaks. Dense peaks are the measured values."),
        f"notes: {_q(notes)}",
    ]
    return "\n".join(lines) + "\n"


def _schema_ref(out: Path) -> str | None:
    """The editor modeline target when the file lands in a project's specs/hardware/ folder."""
    folder = out.resolve().parent
    schema = folder.parent / "schema" / "hardware.schema.json"
    return "../schema/hardware.schema.json" if folder.name == "hardware" and schema.is_file() else None


def write_spec(text: str, out: Path) -> None:
    """Validate the spec text with the loader, then write it atomically to ``out``."""
    from genreport.load.loader import load_hardware

    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.stem}.", suffix=".yaml", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        load_hardware(Path(tmp))  # raises SpecError if we wrote something the loader refuses
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# ---------------------------------------------------------------------------------------------- CLI

def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="genreport calibrate", description=USAGE, allow_abbrev=False,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="what to measure (default: cpu)")
    p.add_argument("-o", "--output", metavar="PATH",
                   help="hardware spec to write (default: specs/hardware/NAME.yaml under the current folder)")
    p.add_argument("--name", help="catalog name in the spec (default: the -o file's name, else cpu-calibrated "
                   "or cuda-calibrated); the file is named after it")
    p.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, metavar="S",
                   help=f"measuring time budget in seconds, {MIN_SECONDS:g} to {MAX_SECONDS:g} (default: "
                        f"{DEFAULT_SECONDS:g})")
    p.add_argument("--force", action="store_true", help="replace an existing file")
    add_verbosity(p)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    import re

    if args.output is not None and not args.output.strip():  # -o '' wrote specs/hardware/cpu-calibrated.yaml
        print("genreport calibrate: -o '' names no file; name the spec to write, e.g. -o specs/hardware/mybox.yaml",
              file=sys.stderr)
        return 1
    given = Path(args.output) if args.output else None
    if given is not None and given.is_dir() and not given.is_symlink():  # it said "-o x does not match the name 'x'"
        print(safe(f"genreport calibrate: -o {given} is a folder; name the file to write, e.g. "
                   f"{given / 'mybox.yaml'}"), file=sys.stderr)
        return 1
    # The catalog finds hardware by file name ('hardware: mybox' reads specs/hardware/mybox.yaml), so the
    # name written in the spec is the file's name: taken from -o, or -o must agree with --name.
    name = args.name or (given.stem if given is not None else f"{args.device}-calibrated")
    if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", name):
        what = f"--name '{name}'" if args.name else f"the file name '{given.name}'"
        print(safe(f"genreport calibrate: {what} must be lowercase letters, digits, '.', '_' or '-' (it is the "
                   "catalog name)"), file=sys.stderr)
        return 1
    if given is not None and (given.stem != name or given.suffix != ".yaml"):
        print(safe(f"genreport calibrate: -o {given} does not match the name '{name}': the catalog finds hardware "
                   f"by file name, so write it to {given.with_name(name + '.yaml')} (or drop --name)"), file=sys.stderr)
        return 1
    if not MIN_SECONDS <= args.seconds <= MAX_SECONDS:
        print(f"genreport calibrate: --seconds must be between {MIN_SECONDS:g} and {MAX_SECONDS:g}", file=sys.stderr)
        return 1
    out = given if given is not None else Path("specs") / "hardware" / f"{name}.yaml"
    if out.is_symlink():
        print(safe(f"genreport calibrate: {out} is a symbolic link; genreport does not write through links (remove "
              "it, or name another file)"), file=sys.stderr)
        return 1
    from genreport.fileio import folder_blocker

    blocker = folder_blocker(out.parent)
    if blocker is not None:  # found before measuring: it measured ~10 s, then said "cannot write x: File exists"
        print(safe(f"genreport calibrate: cannot write {out}: {blocker[0]} {blocker[1]}; name a file in a folder "
                   f"(one missing is made), e.g. -o {Path('specs') / 'hardware' / out.name}"), file=sys.stderr)
        return 1
    if os.path.lexists(out) and not args.force:
        print(safe(f"genreport calibrate: {out} exists; pass --force to replace it"), file=sys.stderr)
        return 1
    if args.device == "cuda":
        m = measure_cuda(args.seconds)
        if m is None:
            print("genreport calibrate: no CUDA device/torch: skipped (install PyTorch with CUDA support, or use "
                  "--device cpu); nothing was written", file=sys.stderr)
            return 1
    else:
        m = measure_cpu(args.seconds)
    date = _dt.date.today().isoformat()
    text = spec_text(m, name, date, _schema_ref(out))
    try:
        write_spec(text, out)
    except OSError as exc:
        from genreport.fileio import describe

        raise BuildError(f"cannot write {out}: {describe(exc)}") from None
    except SpecError:
        raise
    if verbosity() >= NORMAL:  # what was measured and written; -q prints only errors
        print(summary(m, out))
    return 0


def summary(m: dict, out: Path | None = None) -> str:
    """What was measured, one line per number, for the terminal."""
    lines = [f"{m['model']} ({m['device']}, {m['software']})"]
    detail = m["bandwidth_detail"]
    parts = [f"{k} {format_si(detail[k], 'B/s', digits=4)}" for k in ("copy", "add") if k in detail]
    lines.append(f"  bandwidth  {format_si(m['bandwidth'], 'B/s', digits=4)}  ({', '.join(parts)})")
    for fmt, v in {**m["peaks"], **m["extra_peaks"]}.items():
        lines.append(f"  {fmt:<9}  {format_si(v, 'FLOP/s', digits=4)}  (dense matmul)")
    for fmt, why in m["skipped"].items():
        lines.append(f"  {fmt:<9}  skipped: {why}")
    fmt0 = next(iter(m["peaks"]))
    lines.append(f"  ridge      {m['peaks'][fmt0] / m['bandwidth']:.3g} FLOP/B ({fmt0})")
    lines.append(f"  took {m['wall_s']:.1f} s" + (f"; wrote {out}" if out else ""))
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
