"""A build killed at any moment leaves the previous report byte for byte, and the next build recovers.

Two ways in:

* deterministic: :func:`genreport.write.build.write` runs in a forked
  child that SIGKILLs itself before its k-th executed line, for every k, with the one-step swap
  (renameat2's RENAME_EXCHANGE: OUT/NAME always holds the old or the new report) and with the two
  renames used where there is none.  Every state the folder can be left in is checked, then the
  next write must recover it;
* the real command: ``genreport SPEC -o OUT --force`` in a child process, SIGKILLed at random
  moments and the moment its temporary folder appears.  JSON-only by default (quick); the same
  with html,pdf,json is marked ``slow`` (``pytest -m slow``): a full build takes 10-15 s here.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import genreport.fileio as fileio
import genreport.write.build as B
import pytest
from genreport.write.build import Built
from shared import ROOT

SPEC = """kind: report
name: small
title: Small report for kill tests
hardware: h100-sxm
model: llama-3.1-8b
precision: bf16
workloads:
  decode: {batch: [1, 64], context: [128]}
"""


def snapshot(folder: Path) -> dict[str, bytes | None]:
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


def leftovers(out: Path, name: str) -> list[str]:
    return sorted(p.name for p in out.iterdir() if p.name.startswith(f".{name}."))


def make_previous(out: Path, name: str) -> dict:
    """A previous report, every file different from what the next build writes."""
    dest = out / name
    (dest / "figures").mkdir(parents=True)
    (dest / "results.json").write_text('{"previous": true}\n')
    (dest / "report.html").write_text("<p>previous report</p>\n")
    (dest / "report.pdf").write_bytes(b"%PDF-1.7 previous\n")
    (dest / "figures" / "roofline.svg").write_text("<svg>previous</svg>\n")
    (dest / "figures" / "dropped.svg").write_text("<svg>a figure the new build no longer makes</svg>\n")
    return snapshot(dest)


# ----------------------------------------------------------------------------------------------- every line

NEW = Built("small", {
    "results.json": b'{"new": true}\n' * 1000,
    "report.html": b"<p>new report</p>\n" * 50_000,
    "report.pdf": b"%PDF-1.7 new\n" * 20_000,
    "figures/roofline.svg": b"<svg>new</svg>\n",
    "figures/decode.svg": b"<svg>new decode</svg>\n",
})
TRACED = {B.write.__code__, B._recover.__code__, B._exchange.__code__, fileio.remove_tree.__code__}


def _write_and_stamp(out: Path, kill_at: int | None) -> int:
    """Write NEW as the CLI does, counting executed lines; SIGKILL before line ``kill_at``."""
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
            if count == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
        return local

    def calls(frame, event, arg):
        return local if frame.f_code in TRACED else None

    sys.settrace(calls)
    try:
        B.write(NEW, out, "small")
    finally:
        sys.settrace(None)
    return count


def _can_exchange(folder: Path) -> bool:
    (folder / "a").mkdir(parents=True)
    (folder / "b").mkdir()
    try:
        return B._exchange(folder / "a", folder / "b")
    finally:
        shutil.rmtree(folder)


# The body runs in a small process of its own: it forks once for every line, and a fork copies the forking process's
# page tables, 25-30 ms for a test worker of 1-1.5 GB (a second of system time per test) against about 1 ms here.
EVERY_LINE = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import test_atomic_write
test_atomic_write._every_line(Path(sys.argv[2]), sys.argv[3] == "exchange")
"""


@pytest.mark.parametrize("one_step", [True, False], ids=["exchange", "two-renames"])
def test_write_killed_before_every_line_leaves_old_or_new(tmp_path, one_step):
    if one_step and not _can_exchange(tmp_path / "probe"):
        pytest.skip("no renameat2(RENAME_EXCHANGE) here")
    p = subprocess.run([sys.executable, "-c", EVERY_LINE, str(ROOT / "tests"), str(tmp_path),
                        "exchange" if one_step else "two-renames"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]


def _every_line(folder: Path, one_step: bool) -> None:
    """:func:`write` killed before each of its lines in a forked child, for every line; each state the folder is left
    in is the old or the new report (or, with two renames, the old one moved aside), and the next write recovers."""
    if not one_step:
        B._exchange = lambda a, b: False  # a system without the one-step swap (this process only)
    else:
        assert _can_exchange(folder / "probe")  # its first call finds renameat2: the reference counts later calls' lines
    reference = folder / "reference"
    make_previous(reference, "small")
    lines = _write_and_stamp(reference, None)
    new = snapshot(reference / "small")
    assert lines > 10 and new != {}

    out = folder / "out"
    states = set()
    for k in range(1, lines + 1):
        if out.exists():
            shutil.rmtree(out)
        old = make_previous(out, "small")
        pid = os.fork()
        if pid == 0:  # child: write until killed
            try:
                _write_and_stamp(out, k)
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, f"line {k}: not killed"

        dest, backup = out / "small", out / ".small.old"
        if dest.exists():
            now = snapshot(dest)
            assert now in (old, new), f"killed before line {k}: a mixed report"
            states.add("old" if now == old else "new")
        else:  # killed between the two renames: the previous report waits in .small.old
            assert not one_step, f"killed before line {k}: {dest} missing although the swap is one step"
            assert snapshot(backup) == old, f"killed before line {k}: previous report lost"
            states.add("moved")

        B.write(NEW, out, "small")  # the next build recovers
        assert snapshot(dest) == new
        assert leftovers(out, "small") == []
    assert states == ({"old", "new"} if one_step else {"old", "moved", "new"})


def test_recover_puts_back_a_report_moved_aside(tmp_path):
    out = tmp_path / "out"
    old = make_previous(out, "small")
    os.replace(out / "small", out / ".small.old")
    (out / ".small.tmp-dead").mkdir()
    B._recover(out / "small")
    assert snapshot(out / "small") == old
    assert leftovers(out, "small") == []


# ----------------------------------------------------------------------------------------------- the real command

def _cli() -> list[str]:
    script = Path(sys.executable).parent / "genreport"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "genreport.commands.cli"]


def _assert_no_orphans(spec: Path, wait: float = 5.0) -> None:
    """No process forked by a killed build (figures, PDF worker) outlives it: they die with their parent."""
    deadline = time.perf_counter() + wait
    while True:
        left = []
        for proc_dir in Path("/proc").glob("[0-9]*"):
            try:
                cmd = (proc_dir / "cmdline").read_bytes()
            except OSError:
                continue
            if str(spec).encode() in cmd:
                left.append(proc_dir.name)
        if not left or time.perf_counter() > deadline:
            break
        time.sleep(0.05)
    assert not left, f"processes of a killed build are still running: {left}"


def _kill_runs(tmp_path: Path, formats: str, delays: list[float], watch_tmp: int) -> None:
    spec = tmp_path / "small.yaml"
    spec.write_text(SPEC)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SOURCE_DATE_EPOCH": "0"}
    command = [*_cli(), str(spec), "--format", formats, "--force", "-q", "-o"]

    reference = tmp_path / "reference"
    make_previous(reference, "small")
    t = time.perf_counter()
    subprocess.run([*command, str(reference)], env=env, check=True, timeout=600)
    full = time.perf_counter() - t
    new = snapshot(reference / "small")

    out = tmp_path / "out"
    old = make_previous(out, "small")
    plan = [("delay", d * full) for d in delays] + [("tmp", 0.0)] * watch_tmp
    seen: list[str] = []
    for how, delay in plan:
        if how == "tmp":
            B._recover(out / "small")  # what the command does first; clears leftovers of earlier kills
        proc = subprocess.Popen([*command, str(out)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if how == "delay":
            time.sleep(delay)
        else:  # kill the moment the temporary folder appears (inside write)
            deadline = time.perf_counter() + full * 3
            while proc.poll() is None and time.perf_counter() < deadline:
                if leftovers(out, "small"):
                    break
                time.sleep(0.0005)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        _assert_no_orphans(spec)
        dest = out / "small"
        now = snapshot(dest) if dest.exists() else snapshot(out / ".small.old")
        assert now in (old, new), f"{how} {delay:.2f} s: the report folder is neither the old nor the new one"
        seen.append(f"{how}:{'new' if now == new else 'moved' if not dest.exists() else 'old'}"
                    f"{'+tmp' if any('.tmp-' in n for n in leftovers(out, 'small')) else ''}")
        if now == new:  # the build finished before the kill: start again from the previous report
            shutil.rmtree(dest)
            old = make_previous(out, "small")
    subprocess.run([*command, str(out)], env=env, check=True, timeout=600)
    assert snapshot(out / "small") == new
    assert leftovers(out, "small") == []
    print(f"\nkills ({formats}, a full build takes {full:.1f} s): {' '.join(seen)}")


def test_cli_killed_during_json_build(tmp_path):
    random.seed(8)
    _kill_runs(tmp_path, "json", [0.3, 0.6, 0.8, 0.9, 0.95] + [random.uniform(0.5, 1.05) for _ in range(3)],
               watch_tmp=3)


@pytest.mark.slow
def test_cli_killed_during_full_build(tmp_path):
    random.seed(9)
    _kill_runs(tmp_path, "html,pdf,json", [random.uniform(0.1, 1.0) for _ in range(3)], watch_tmp=1)
