"""Command line: parse arguments, call the library, map its errors to exit codes.

Exit status (:data:`EXIT`, documented in the README): 0 success, 1 bad input (specs, overrides, claims),
2 build problem (output folder, renderer), 3 internal error, 4 a difference was asked for and found
(``--check``, ``diff --exit-code``), 5 a search found no answer (``plan``: no layout fits or meets the targets),
64 a usage error (an unknown command or option, a missing argument:
``EX_USAGE`` of sysexits.h), 130 interrupted, 141 the reader of the output went away (``genreport diff ... |
head``: quietly, as a command killed by SIGPIPE).  No traceback unless ``--debug``.  Messages that can hold
user text go through :func:`genreport.terminal.safe`.
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import os
import re
import sys
import time
from pathlib import Path

from genreport import __version__
from genreport.commands.options import Parser, add_verbosity, level_of
from genreport.errors import BuildError, SpecError
from genreport.procs import no_gc
from genreport.terminal import detail, note, progress_done, safe, set_verbosity

EXIT = {"ok": 0, "input": 1, "build": 2, "internal": 3, "differs": 4, "none": 5, "usage": 64, "interrupted": 130,
        "pipe": 141}

SUBCOMMANDS = {
    "derive": "genreport.commands.derive",
    "sweep": "genreport.commands.sweep",
    "diff": "genreport.commands.diff",
    "import-hf": "genreport.commands.import_hf",
    "calibrate": "genreport.commands.calibrate",
    "list": "genreport.commands.listing",
    "audit": "genreport.commands.audit",
    "plan": "genreport.commands.plan",
    "serve": "genreport.commands.serve",
    "table": "genreport.commands.table",
    "completion": "genreport.commands.completion",
    "__complete": "genreport.commands.completion",  # what the completion scripts call
}

DESCRIPTION = """\
Roofline reports for LLM workloads: what limits this model on this GPU, and what would change it.

  genreport specs/llama8b-h100.yaml            build out/llama8b-h100/ (HTML, PDF, results.json, figures)
  genreport SPEC --set hardware.bandwidth="4.8 TB/s"   a what-if report beside the baseline
                                               (short for hardware.memory.bandwidth)
  genreport derive critical_context --for W    closed forms, solved for any symbol
  genreport audit CLAIMS.csv                   published measurements against the physical bound
  genreport plan llama-3.1-70b --hardware h100-sxm   the multi-GPU layouts that fit, cheapest first (or best tok/s per GPU)
  genreport plan SPEC --hardware h200,b200    a report spec's request and targets on other GPUs
  genreport serve                              a warm process: builds on request, one per input line
  genreport table SPEC --format md             page 1's summary and decision table, to paste or script
  genreport completion bash|zsh|fish           shell completion: commands, options, catalog names, spec paths
  genreport sweep | diff | import-hf | calibrate | list | audit | plan | table | completion
                                               (see 'genreport COMMAND --help')
"""


def _build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="genreport", description=DESCRIPTION, allow_abbrev=False,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("specs", nargs="+", metavar="SPEC", help="report spec(s), e.g. specs/llama8b-h100.yaml")
    p.add_argument("-o", "--out", default=None, metavar="DIR",
                   help="output folder (default: the 'out' of .genreport.yaml or the user's config, else out)")
    p.add_argument("--format", default="html,pdf,json", metavar="LIST",
                   help="comma-separated subset of html,pdf,json (default: all three)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="PATH=VALUE",
                   help="override a spec value for a what-if report, e.g. model.kv_heads=1 (repeatable)")
    p.add_argument("--name", help="output folder name, OUT/NAME/ (default: the spec's name, or <name>-whatif with "
                                  "--set); one spec only")
    p.add_argument("--strict", action="store_true", help="treat warnings as errors")
    p.add_argument("--max-points", type=int, metavar="N",
                   help="budget of a report: decode batches x contexts + prompts + GEMMs + measurements "
                        "(default 1024; also GENREPORT_MAX_POINTS)")
    p.add_argument("--check", action="store_true",
                   help="build in memory and fail if the output folder differs from it (no writing): every "
                        "file of every format built, the PDF included, must match byte for byte, and a file "
                        "a build would remove (another format's) counts as a difference; names each file")
    p.add_argument("--force", action="store_true", help="rebuild even if nothing changed")
    p.add_argument("--watch", action="store_true",
                   help="stay running and rebuild whenever a spec or a hardware/model file it uses changes")
    add_verbosity(p)
    p.add_argument("--timings", action="store_true", help="print the time each stage took and which PDF paths ran (also with --verbose)")
    p.add_argument("--open", action="store_true", help="open the HTML report in a browser after the build")
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    p.add_argument("--version", action="version", version=f"genreport {__version__}")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    set_verbosity(level_of(argv))
    try:
        if argv and argv[0] in SUBCOMMANDS:
            import importlib

            from genreport.fileio import recording

            t = time.perf_counter()
            module = importlib.import_module(SUBCOMMANDS[argv[0]])
            with recording() as read:
                code = module.main([a for a in argv[(argv[0] != "__complete"):] if a != "--debug"])
            _verbose_footer(argv[0], read, time.perf_counter() - t)
        else:
            unknown = _unknown_command(argv[0]) if argv else None
            if unknown:
                print(safe(unknown), file=sys.stderr)
                return EXIT["usage"]
            code = _build_main(argv)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return code
    except SystemExit as exc:  # argparse: --help and --version (0), a usage error (2; its message is on stderr)
        if exc.code == 2:
            return EXIT["usage"]
        if exc.code == EXIT["input"]:  # options.Parser: an option's value (--max-points nan), on stderr too
            return EXIT["input"]
        raise
    except BrokenPipeError:
        _silence_stdout()
        return 141
    except SpecError as exc:
        for f in exc.findings:
            print(f.format(), file=sys.stderr)
        n = len(exc.findings)
        print(f"genreport: {n} problem{'s' if n != 1 else ''} in the input; nothing was written.", file=sys.stderr)
        return 1
    except BuildError as exc:
        print(safe(f"genreport: {exc}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("genreport: interrupted; the previous report is unchanged.", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI promises no traceback
        if debug:
            raise
        if isinstance(exc, OSError) and exc.errno == errno.ENAMETOOLONG:  # a name given longer than the system allows
            name = str(exc.filename or "")
            shown = name if len(name) <= 80 else name[:40] + "..." + name[-30:]
            print(safe(f"genreport: {shown}: the name is longer than the file system allows ({len(name):,} "
                       "characters); nothing was written (hint: give a shorter file name)"), file=sys.stderr)
            return 1
        print(safe(f"genreport: internal error: {type(exc).__name__}: {exc}. "
                   "Nothing was written. Rerun with --debug and report it."), file=sys.stderr)
        return 3
    finally:
        if "genreport.printing" in sys.modules:  # a PDF worker a failed build did not use
            sys.modules["genreport.printing"].stop_worker()


def _verbose_footer(command: str, read: dict, seconds: float) -> None:
    """--verbose: the files a command read (and looked for) and how long it took."""
    files = sorted(read)
    found = [f for f in files if read[f] is not None]
    detail(f"genreport {command}: {seconds:.2f} s; read {len(found)} file{'s' if len(found) != 1 else ''}"
           + (f", looked for {len(files) - len(found)} more" if len(files) > len(found) else ""))
    for f in files:
        detail(f"  {'read' if read[f] is not None else 'absent'}  {f}")


def _unknown_command(word: str) -> str | None:
    """The message for a first word that is neither a command nor a spec (``genreport frobnicate``), or None.

    A word is taken for a spec when it names a file or folder, has a path separator or a YAML suffix, or is a
    built-in spec's name; anything else was meant as a command."""
    if word.startswith("-") or "/" in word or os.sep in word or "\0" in word:
        return None
    if word.lower().endswith((".yaml", ".yml", ".json")):
        return None
    try:
        if os.path.lexists(word):
            return None
    except (OSError, ValueError):
        return None
    from genreport.paths import specs_dir

    if (specs_dir() / f"{word}.yaml").is_file():
        return None
    import difflib

    public = [c for c in SUBCOMMANDS if not c.startswith("_")]
    close = difflib.get_close_matches(word, public, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
    shown = word if len(word) <= 60 else word[:57] + "..."
    return (f"genreport: unknown command '{shown}' (and no spec file of that name); {hint}commands: "
            f"{', '.join(public)}; a report is built with 'genreport SPEC.yaml' (see 'genreport --help')")


def _silence_stdout() -> None:
    """After EPIPE: point stdout at /dev/null so that flushing it at exit cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _build_main(argv: list[str]) -> int:
    args = _build_parser().parse_args(argv)
    formats = tuple(f.strip() for f in args.format.split(",") if f.strip())
    bad = [f for f in formats if f not in ("html", "pdf", "json")]
    if bad or not formats:
        raise SpecError([_cli_finding(f"--format {args.format}", f"unknown format {', '.join(bad) or '(none)'}",
                                      "use a comma-separated subset of html,pdf,json")])
    if args.name is not None and not re.fullmatch(r"[a-z0-9][a-z0-9._-]*", args.name):
        raise SpecError([_cli_finding(f"--name {args.name}", f"'{args.name}' is not a report name",
                                      "use lowercase letters, digits, '.', '_' and '-', starting with a letter "
                                      "or digit (the report is written to OUT/NAME/)")])
    if args.name is not None and len(args.name) > 100:  # a spec's name's limit (its schema): 245 characters and more
        # passed and failed to write (the temporary folder's name past the file system's 255), exit 2, no hint
        raise SpecError([_cli_finding(f"--name {args.name[:40]}...", f"the name is {len(args.name):,} characters long",
                                      "use at most 100, as a spec's name")])
    if args.name is not None and len(args.specs) > 1:
        raise SpecError([_cli_finding(f"--name {args.name}", f"--name names one report, but {len(args.specs)} specs "
                                      "are given", "build one spec at a time with --name, or leave --name out")])
    if args.watch and args.check:
        raise SpecError([_cli_finding("--watch", "--watch and --check do not go together",
                                      "use --check once, or --watch to rebuild on every change")])
    if args.max_points is None:
        env = os.environ.get("GENREPORT_MAX_POINTS")
        if env is not None and not (env.strip().isdigit() and 0 < int(env) < 10**11):
            # ignored, it built at the default; 0 blamed the spec's line for a budget of 0 points (review, stop 82)
            raise SpecError([_cli_finding(f"GENREPORT_MAX_POINTS={env[:40]}", "must be a whole number of points from 1 "
                                          "to 99,999,999,999", "e.g. GENREPORT_MAX_POINTS=4096, or unset it for "
                                          "the default 1,024")])
        return _build_all(args, formats)
    if not 0 < args.max_points < 10**11:
        raise SpecError([_cli_finding(f"--max-points {args.max_points}", "must be a number of points from 1 to "
                                      "99,999,999,999", "e.g. --max-points 4096")])
    old = os.environ.get("GENREPORT_MAX_POINTS")
    os.environ["GENREPORT_MAX_POINTS"] = str(args.max_points)  # read by the loader, in every build path
    try:
        return _build_all(args, formats)
    finally:
        if old is None:
            os.environ.pop("GENREPORT_MAX_POINTS", None)
        else:
            os.environ["GENREPORT_MAX_POINTS"] = old


def _build_all(args, formats) -> int:
    if args.out is None:  # the user's or the project's default (genreport.config), else out/
        from genreport import config

        args.out = str(config.load().out or "out")
    if not args.out.strip():  # Path("") is the current folder: -o '' wrote ./NAME unasked (hostile review, stop 75)
        raise SpecError([_cli_finding(f"-o {args.out!r}", "names no folder", "e.g. -o out, or -o . for this folder")])
    out_root = Path(args.out)
    specs = [_resolve_spec(s, args.quiet) for s in args.specs]
    if args.watch:
        from genreport.commands.serve import warm_up
        from genreport.commands.watch import watch

        warm_up(pdf="pdf" in formats)  # the warm path of 'genreport serve': every rebuild is only its own work
        return watch(specs, lambda spec_path, force: _build_one(spec_path, args, formats, out_root, force))
    if len(specs) > 1:
        _preflight(specs, args, formats, out_root)
    failures = bad = 0
    progress = len(specs) > 1 and not args.quiet and sys.stderr.isatty()
    for i, spec_path in enumerate(specs, 1):
        if progress:
            print(safe(f"[{i}/{len(specs)}] {spec_path}"), file=sys.stderr)
        if i == 2 and set(formats) != {"json"}:  # the figure children of the builds after the first start warm
            from genreport.present import figures

            figures.preload()
        try:
            # the figure child, forked inside, inherits it; after the command line's last build it stays paused to
            # the exit (entry(): nothing is freed), where its first pass over the build's objects took 0.04 s
            with no_gc(resume=not (_EXITS and i == len(specs))):
                ok, _inputs = _build_one(spec_path, args, formats, out_root)
            failures += not ok
        except SpecError:
            if len(specs) == 1:
                raise
            bad += 1
            exc = sys.exc_info()[1]
            for f in exc.findings:
                print(f.format(), file=sys.stderr)
    if bad:
        return EXIT["input"]
    return EXIT["differs"] if failures else EXIT["ok"]  # only --check (or --watch --check) fails without raising


def _preflight(specs: list[Path], args, formats, out_root: Path) -> None:
    """Several specs on one command line: each one that is not up to date is loaded before any is built, and two
    that would write one folder are refused, so that a bad spec leaves the output folder as it was (the good ones
    before it were written, and of two specs named alike the second replaced the first, exit 0)."""
    import genreport
    from genreport.write.build import quick_up_to_date

    findings, writers = [], {}
    for spec_path in specs:
        name = None
        if not (args.force or args.check or args.strict):
            name = quick_up_to_date(out_root, spec_path, formats, args.overrides, args.name)
        if not name:
            try:
                spec = genreport.load_spec(spec_path, overrides=args.overrides, strict=args.strict)
            except SpecError as exc:
                findings.extend(exc.findings)
                continue
            name = args.name or (f"{spec.name}-whatif" if args.overrides else spec.name)
        writers.setdefault(name, []).append(spec_path)
    for name, paths in writers.items():
        if len(paths) > 1:
            both = "both" if len(paths) == 2 else "all"
            findings.append(_cli_finding(
                str(paths[1]), f"{' and '.join(map(str, paths))} {both} write {out_root / name}/ (their name)",
                "give each spec a name of its own ('name:' in the spec), or build them one at a time"))
    if findings:
        raise SpecError(findings)


def _build_one(spec_path: Path, args, formats, out_root: Path, force: bool = False) -> tuple[bool, list[Path]]:
    """Build (or check) one spec; (success, the files it was read from).  SpecError propagates."""
    import genreport
    from genreport.fileio import recording
    from genreport.write.build import input_files, quick_up_to_date, stamp_files, write_quick_stamp

    if not (args.force or force or args.check or args.strict):
        current = quick_up_to_date(out_root, spec_path, formats, args.overrides, args.name)
        if current:
            if not args.quiet:
                print(safe(f"{out_root / current}: up to date"))
            return True, stamp_files(out_root, spec_path, formats, args.overrides, args.name) or [spec_path]
    if "pdf" in formats:  # WeasyPrint loads in a forked worker while this process loads, evaluates and renders
        from genreport import printing

        printing.start_worker()
    with recording() as read_log:
        spec = genreport.load_spec(spec_path, overrides=args.overrides, strict=args.strict)
    inputs = list(dict.fromkeys([*input_files(spec_path, spec), *map(Path, read_log)]))
    name = args.name or (f"{spec.name}-whatif" if args.overrides else spec.name)
    if args.check:
        return _check(spec_path, out_root, name, formats, args) == 0, inputs
    try:
        built = genreport.build_report(spec_path, formats, args.overrides, args.strict, spec=spec)
    finally:
        progress_done()
    t_write = time.perf_counter()
    for w in built.warnings:
        print(w, file=sys.stderr)
    dest = genreport.write_report(built, out_root, name)
    if args.timings or args.verbose:
        built.timings["write"] = time.perf_counter() - t_write
        print("  ".join(f"{k} {v * 1e3:.0f} ms" for k, v in built.timings.items()), file=sys.stderr)
        if "report.pdf" in built.files:  # which PDF paths ran, and every fallback with its reason
            from genreport import printing

            for line in printing.paths():
                print(f"  {line}", file=sys.stderr)
    write_quick_stamp(out_root, spec_path, formats, args.overrides, args.name, read_log, built, name)
    for f in inputs:  # --verbose: what the report was built from
        detail(f"  read  {f}")
    if not args.quiet:
        listed = ", ".join(sorted(k for k in built.files if "/" not in k))
        nfig = sum(1 for k in built.files if k.startswith("figures/"))
        print(safe(f"{dest}/: {listed}" + (f", {nfig} figures" if nfig else "")))
        for line in built.summary:
            print(safe(line))
    if getattr(args, "open", False) and "report.html" in built.files:
        _open(dest / "report.html")
    return True, inputs


def _open(path: Path) -> None:
    """Open a built report in the user's browser (nothing happens where there is none)."""
    import webbrowser

    if not webbrowser.open(path.resolve().as_uri()):
        print(f"genreport: no browser to open {path}", file=sys.stderr)


def _resolve_spec(text: str, quiet: bool) -> Path:
    """A spec path as given, or a built-in report spec by file or report name (e.g. 'llama8b-h100')."""
    path = Path(text)
    try:
        if "\0" in text or path.exists():
            return path
    except OSError:  # a name too long for the file system: the loader says so, with the name
        return path
    from genreport.paths import specs_dir

    for candidate in (specs_dir() / path.name, specs_dir() / f"{path.name}.yaml"):
        if candidate.is_file() and candidate.parent == specs_dir():
            if not quiet:
                note(f"genreport: no {text} here; using the built-in spec {candidate}")
            return candidate
    return path


def _rebuild(spec_path: Path, out_root: Path, formats, args) -> str:
    """The command that rebuilds what --check compared: its output folder, formats, what-if and name (the hint once
    dropped -o and --set, and so named a command that rebuilt the baseline into ./out)."""
    import shlex

    from genreport import config

    words = ["genreport", str(spec_path)]
    if str(out_root) != str(config.load().out or "out"):
        words += ["-o", str(out_root)]
    if set(formats) != {"html", "pdf", "json"}:
        words += ["--format", ",".join(formats)]
    for item in args.overrides or ():
        words += ["--set", item]
    if args.name:
        words += ["--name", args.name]
    return " ".join(shlex.quote(w) for w in words)


def _check(spec_path: Path, out_root: Path, name: str, formats, args) -> int:
    """Compare a fresh in-memory build with the folder, every file of every format (the PDF too); 1 if a
    file differs, is missing, or is one that a build with these formats would remove.

    Nothing is written or locked (a read-only output folder can be checked): the folder is read as a whole
    even while a build swaps a new one in (:func:`genreport.write.build.folder_digests`)."""
    from genreport.write.build import build, folder_digests

    built = build(spec_path, formats, args.overrides, args.strict)
    dest = out_root / name
    want = {rel: hashlib.sha256(data).hexdigest() for rel, data in built.files.items()}
    aside = out_root / f".{name}.old"
    if not os.path.lexists(dest) and os.path.lexists(aside):  # only where the system has no one-step swap
        print(safe(f"{dest}: missing: a build killed while swapping folders left the previous report in {aside}; "
                   f"run '{_rebuild(spec_path, out_root, formats, args)}' (it puts that back first)"), file=sys.stderr)
        return EXIT["differs"]
    have = folder_digests(dest) if os.path.lexists(dest) else {}
    if have is None:
        print(safe(f"{dest}: not a folder of regular files (a link or a special file is in the way); "
                   f"run '{_rebuild(spec_path, out_root, formats, args)}'"), file=sys.stderr)
        return EXIT["differs"]
    problems = [f"{rel} differs" for rel in sorted(want) if rel in have and have[rel] != want[rel]]
    problems += [f"{rel} is missing" for rel in sorted(want) if rel not in have]
    problems += [f"{rel} is not part of this build (a build would remove it)" for rel in sorted(have)
                 if rel not in want]
    if problems:
        print(safe(f"{dest}: out of date: {'; '.join(problems)}; run '{_rebuild(spec_path, out_root, formats, args)}'"),
              file=sys.stderr)
        return EXIT["differs"]
    if not args.quiet:
        print(safe(f"{dest}: matches a fresh build"))
    return 0


def _cli_finding(where: str, message: str, hint: str):
    from genreport.errors import Finding

    return Finding(where, 0, 0, "", message, hint)  # an argument: no line


_EXITS = False  # set by entry(): this process ends (os._exit) when main() returns


def entry() -> None:  # pragma: no cover - the console script; tests call main()
    """``genreport`` on the command line: main(), then exit without tearing down the interpreter.

    Freeing a built report's objects (WeasyPrint's boxes, fonts, Matplotlib) at exit takes about 0.4 s and
    gains nothing: every file is written and closed (atomically) by then, and any figure process has been
    joined. Standard streams are flushed first.
    """
    global _EXITS
    _EXITS = True
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()
