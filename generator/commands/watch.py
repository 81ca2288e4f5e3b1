"""``genreport SPEC --watch``: build, then rebuild whenever an input file changes, until Ctrl-C.

The edit loop without the start-up: the process keeps Python, NumPy, Matplotlib and WeasyPrint loaded, so a
rebuild costs only the work the change causes. Inputs are each spec and the hardware and model files it reads
(compared ones included); they are polled by modification time and size, which needs no extra package and
works on every file system. A spec that stops loading prints its errors and leaves the last good report in
place; the watch goes on and rebuilds once the file is fixed.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from genreport.errors import BuildError, SpecError
from genreport.procs import give_back_freed, no_gc
from genreport.terminal import safe

POLL_S = 0.01  # three stat() calls 100 times a second (0.2% of a core), and a save is seen within 10 ms
SETTLE_S = 0.02  # an editor may write a file in more than one step: rebuilt once it is unchanged this long
SETTLE_MAX_S = 1.0  # a file still changing after this is built anyway (the next change rebuilds it again)


def _stat(path: Path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def _settle(files: list[Path]) -> None:
    """Wait until ``files`` have not changed for SETTLE_S (at most SETTLE_MAX_S)."""
    deadline = time.monotonic() + SETTLE_MAX_S
    last = [_stat(f) for f in files]
    while True:
        time.sleep(SETTLE_S)
        now = [_stat(f) for f in files]
        if now == last or time.monotonic() > deadline:
            return
        last = now


def _stop_on_signals() -> None:
    """Ctrl-C and SIGTERM end the watch, even when started where SIGINT is ignored (a shell's ``cmd &``)."""
    import signal

    def stop(_sig, _frame):
        raise KeyboardInterrupt

    for sig in (signal.SIGINT, getattr(signal, "SIGTERM", None)):
        if sig is not None:
            try:
                signal.signal(sig, stop)
            except (ValueError, OSError):  # not the main thread: leave the signals as they are
                pass


def watch(specs: list[Path], build_one: Callable[[Path, bool], tuple[bool, list[Path]]],
          poll_s: float = POLL_S, rounds: int | None = None) -> int:
    """Build every spec, then rebuild each one whose inputs change.  Returns 0 when stopped by Ctrl-C.

    ``build_one(spec, force)`` builds one spec and returns (success, its input files); ``rounds`` bounds the
    number of polls (tests).
    """
    inputs: dict[Path, list[Path]] = {}
    _stop_on_signals()

    def run(spec: Path) -> None:
        t = time.perf_counter()
        try:
            with no_gc():
                ok, files = build_one(spec, False)
            if ok:
                print(safe(f"genreport: {spec} done in {time.perf_counter() - t:.1f} s"), file=sys.stderr)
        except SpecError as exc:
            for f in exc.findings:
                print(f.format(), file=sys.stderr)
            print(safe(f"genreport: {spec} not rebuilt; the last report is unchanged. Watching for a fix."), file=sys.stderr)
            files = inputs.get(spec, [])
        except BuildError as exc:
            print(safe(f"genreport: {exc}"), file=sys.stderr)
            files = inputs.get(spec, [])
        except Exception as exc:  # noqa: BLE001 - keep watching; the message says how to get details
            print(safe(f"genreport: internal error: {type(exc).__name__}: {exc}. The last report is unchanged; "
                  "rerun without --watch and with --debug to see where."), file=sys.stderr)
            files = inputs.get(spec, [])
        inputs[spec] = list(dict.fromkeys([spec, *files]))
        gc.collect()  # the build's objects, freed while waiting for the next edit (not during the next build)
        give_back_freed()  # and the C heap's free pages returned (see procs.give_back_freed)

    try:
        for spec in specs:
            run(spec)
        seen = {f: _stat(f) for files in inputs.values() for f in files}
        n = len(seen)
        # watch's own status lines stay with -q, which quiets each build's summary
        print(f"genreport: watching {n} file{'s' if n != 1 else ''}; Ctrl-C to stop", file=sys.stderr)
        polls = 0
        while rounds is None or polls < rounds:
            polls += 1
            time.sleep(poll_s)
            for spec in specs:
                changed = [f for f in inputs[spec] if _stat(f) != seen.get(f)]
                if not changed:
                    continue
                _settle(inputs[spec])
                print(safe(f"genreport: {changed[0]} changed; rebuilding {spec}"), file=sys.stderr)
                before = {f: _stat(f) for f in inputs[spec]}  # taken first: an edit during the build is not lost
                run(spec)
                for f in inputs[spec]:
                    seen[f] = before[f] if f in before else _stat(f)
    except KeyboardInterrupt:
        print("genreport: stopped watching.", file=sys.stderr)
    return 0
