"""``genreport serve``: a warm process that builds reports on request, for editors, notebooks and scripts.

    genreport serve [--max-requests N] [--idle-exit SECONDS]

Reads one request per line on standard input and answers each with one line of JSON on standard output. A
request is the arguments of a ``genreport`` build, as typed on the command line (shell quoting)::

    specs/llama8b-h100.yaml --force
    specs/llama8b-h100.yaml --set model.kv_heads=1 -o /tmp/out --format html,json

and its answer::

    {"status": 0, "seconds": 1.52, "messages": ["out/llama8b-h100/: report.html, report.pdf, ..."]}

``status`` is the exit status ``genreport`` would give (0 built or up to date, 1 bad input, 2 build problem,
3 internal error, 4 a ``--check`` that differs, 64 a usage error: the README's "Exit status") and
``messages`` what it would print. A build request gets the same bytes a one-off
``genreport`` run writes, without the start-up: Python, NumPy, Matplotlib, SymPy's generated formulas, the
math font and WeasyPrint (with its fonts) are loaded once, before the first request. An empty line, ``quit``
or the end of input stops the server; so do ``--max-requests`` answered requests and ``--idle-exit`` seconds
without one. Nothing listens on a network: the pipe is the only way in.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import shlex
import sys
import time
import traceback

from genreport.commands import cli
from genreport.commands.options import VALUE_ERROR, Parser
from genreport.procs import give_back_freed, no_gc
from genreport.terminal import safe

REFUSED = ("--watch", "--help", "--version")


def warm_up(pdf: bool = True) -> None:
    """Load everything a build needs (the same as a first build would), so the next build is only its own work."""
    import genreport.formulas.compiled as compiled
    import genreport.model.evaluate  # noqa: F401
    import genreport.present.figures  # noqa: F401 - NumPy, Matplotlib
    import genreport.present.render  # noqa: F401
    import genreport.write.build  # noqa: F401
    from genreport import printing
    from genreport.present import figures, mathsvg

    printing.keep_in_process()
    compiled.load()
    mathsvg.warm_up()
    figures.preload()  # each rebuild's figure children start with Matplotlib and the fonts loaded
    if pdf:
        printing.warm_up()


# The longest request line read (characters): a build's arguments are a spec and a few options; shlex.split is
# superlinear in its input (11.5 s for 1 MB, a 4 MB line kept the server from answering for minutes: hostile review,
# stop 75), and the command line itself caps an argument at 128 KiB.
MAX_LINE = 64 * 1024


def handle(line: str) -> dict:
    """Run one request line; its answer (exit status, messages, seconds)."""
    t = time.perf_counter()
    if len(line) > MAX_LINE:
        return {"status": 64, "seconds": 0.0,
                "messages": [f"genreport serve: the request is {len(line):,} characters long, past the "
                             f"{MAX_LINE:,} a request line may have; send a spec and its options"]}
    try:
        argv = shlex.split(line)
    except ValueError as exc:  # a usage error of the protocol, 64 as the command line's (it answered 1, bad input)
        return {"status": 64, "seconds": 0.0, "messages": [f"genreport serve: cannot read the request: {exc}"]}
    bad = [a for a in argv if _refused(a)]
    bad += [a for a in argv[:1] if a in cli.SUBCOMMANDS]
    if bad:
        return {"status": 64, "seconds": 0.0,
                "messages": [f"genreport serve: {bad[0]} is not a build request; send a build's arguments "
                             "(a spec and options), e.g. specs/llama8b-h100.yaml --force"]}
    out, err = io.StringIO(), io.StringIO()

    # the collector stays paused until the answer is sent (serve() collects after it): a full collection
    # started as the build ends took 0.07 s of each request
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), no_gc():
        try:
            status = cli.main(argv)
        except SystemExit as exc:  # argparse: a bad option (its message is on stderr)
            status = exc.code if isinstance(exc.code, int) else 1
        except Exception as exc:  # noqa: BLE001 - with --debug, cli.main raises instead of answering 3
            status = 3  # and this server goes on with the next request
            print(traceback.format_exc(), file=sys.stderr)
            print(safe(f"genreport: internal error: {type(exc).__name__}: {exc}. Nothing was written; report it "
                       "with the traceback above."), file=sys.stderr)
    messages = [m for m in (out.getvalue() + err.getvalue()).splitlines() if m.strip()]
    return {"status": status, "seconds": round(time.perf_counter() - t, 3), "messages": messages}


def _refused(arg: str) -> bool:
    """A request that would not end in one build: ``--watch`` (it would never answer), ``--help``, ``--version``,
    and any beginning of them (``--wat``, ``--w``), refused the same way although no parser takes them either."""
    if arg == "-h":
        return True
    name = arg.split("=", 1)[0]
    return len(name) > 2 and name.startswith("--") and any(o.startswith(name) for o in REFUSED)


def serve(lines, reply, max_requests: int | None = None, idle_exit: float | None = None) -> int:
    """Answer request ``lines`` (an iterator of str) through ``reply(str)``; returns 0."""
    answered = 0
    for line in _with_idle_limit(lines, idle_exit):
        text = line.strip()
        if not text or text == "quit":
            break
        # The collector stays paused until the answer is sent: resumed inside handle(), its first pass over the
        # build's objects ran before the answer (0.04-0.2 s of each request), not after it as intended.
        with no_gc():
            reply(json.dumps(handle(text), sort_keys=True))
        gc.collect()  # the build's objects, freed while waiting for the next request (builds pause the collector)
        give_back_freed()  # and the C heap's free pages returned: the RSS stays flat over thousands of builds
        answered += 1
        if max_requests is not None and answered >= max_requests:
            break
    return 0


def _with_idle_limit(lines, idle_exit: float | None):
    """``lines``, ending early when no new one comes within ``idle_exit`` seconds (standard input only)."""
    if idle_exit is None or lines is not sys.stdin:
        yield from lines
        return
    import select

    while True:
        ready, _, _ = select.select([sys.stdin], [], [], idle_exit)
        if not ready:
            return
        line = sys.stdin.readline()
        if not line:
            return
        yield line


MAX_IDLE = 86_400  # --idle-exit's largest: a day (select() takes no infinite timeout; none: wait for ever)


def main(argv: list[str]) -> int:
    ap = Parser(prog="genreport serve", description=__doc__, allow_abbrev=False,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-requests", type=int, metavar="N", help="stop after answering N requests")
    ap.add_argument("--idle-exit", type=float, metavar="SECONDS", help="stop after SECONDS without a request")
    ap.add_argument("--no-pdf", action="store_true", help="do not load WeasyPrint ahead (HTML and JSON only)")
    args = ap.parse_args(argv)
    # refused before "ready": a negative or NaN idle limit was select()'s ValueError, inf an OverflowError, after it
    if args.max_requests is not None and args.max_requests < 1:
        ap.error(f"{VALUE_ERROR}--max-requests {args.max_requests}: write a whole number of requests of at least 1")
    if args.idle_exit is not None and not 0 < args.idle_exit <= MAX_IDLE:
        ap.error(f"{VALUE_ERROR}--idle-exit {args.idle_exit:g}: write seconds above 0 and at most {MAX_IDLE:,} "
                 "(a day), e.g. 60")
    warm_up(pdf=not args.no_pdf)
    stdout = sys.stdout

    def reply(text: str) -> None:
        stdout.write(text + "\n")
        stdout.flush()

    reply(json.dumps({"status": 0, "ready": True, "messages": ["genreport serve: ready"]}, sort_keys=True))
    return serve(sys.stdin, reply, args.max_requests, args.idle_exit)
