"""Options every command takes: -q/--quiet and -v/--verbose (genreport.terminal's level, set by the CLI)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from genreport.terminal import NORMAL, QUIET, VERBOSE

FLAGS = {"-q": QUIET, "--quiet": QUIET, "-v": VERBOSE, "--verbose": VERBOSE}


VALUE_ERROR = "value: "  # Parser.error(VALUE_ERROR + message): an option's value is wrong (exit 1, not 64)


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose error for an option it does not know names the closest it does ("--kv fp8": did you
    mean --kv-cache?), as the commands and the spec keys do for their words.  Every command's parser is one.

    A value that starts with a minus and a digit ("--tpot -5ms", "--at x=-1" aside) is a value, a negative one its
    option refuses with its own message: argparse took "-5ms" for an unknown option and answered "expected one
    argument", exit 64 (hostile input, round six).  No option of genreport's looks like a negative number."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\.?\d")

    def error(self, message: str):  # noqa: D401 - argparse's hook; exits as argparse does
        choice = re.match(r"argument ([^:]+): invalid choice: '(.*)' \(choose from (.*)\)$", message)
        if choice:  # a value not among an option's choices (--format yaml): bad input, 1, as --format of a build says
            import difflib

            choices = [c.strip().strip("'") for c in choice[3].split(",")]
            near = difflib.get_close_matches(choice[2], choices, n=1, cutoff=0.5)
            message = (VALUE_ERROR + f"argument {choice[1]}: '{choice[2]}' is not one of {', '.join(choices)}"
                       + (f" (did you mean '{near[0]}'?)" if near else ""))
        kind = re.match(r"argument [^:]+: invalid (int|float) value: ", message)
        if kind:  # argparse's own words, and what to write
            message += " (write a whole number in digits, e.g. 8192)" if kind[1] == "int" else " (write a number, e.g. 0.5)"
        if re.match(r"argument [^:]+: invalid (\S+ )?value: ", message) or message.startswith(VALUE_ERROR):
            # an option's value (--max-points nan): bad input, 1, as the README's exit table says, not a usage error
            self.print_usage(sys.stderr)
            print(f"{self.prog}: error: {message.removeprefix(VALUE_ERROR)}", file=sys.stderr)
            raise SystemExit(1)
        if message.startswith("unrecognized arguments:"):
            import difflib

            known = [o for o in self._option_string_actions if o.startswith("--")]
            hints = []
            for word in message.split(":", 1)[1].split():
                option = word.split("=", 1)[0]
                if not option.startswith("--"):
                    continue
                # a prefix of a longer option (abbreviations are refused) is the likeliest slip, else a near spelling
                prefixed = [o for o in known if o.startswith(option)]
                pick = prefixed if len(prefixed) == 1 else difflib.get_close_matches(option, known, n=1, cutoff=0.6)
                if pick:
                    hints.append(f"{option}: did you mean {pick[0]}?")
            if hints:
                message = f"{message} ({'; '.join(hints)})"
        super().error(message)


def add_verbosity(p: argparse.ArgumentParser) -> None:
    """-q/--quiet (errors only) and -v/--verbose (also what was read and how long it took), one or the other."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("-q", "--quiet", action="store_true", help="print only errors (and the data asked for)")
    g.add_argument("-v", "--verbose", action="store_true",
                   help="also print what was read and how long each step took")


def level_of(argv: list[str]) -> int:
    """The verbosity the words ask for (the last of -q / -v wins; nothing after '--' counts)."""
    level = NORMAL
    for a in argv:
        if a == "--":
            break
        level = FLAGS.get(a, level)
    return level


def add_engine_memory(p: argparse.ArgumentParser) -> None:
    """--memory-reserve, --max-batched-tokens and --max-sequences: what an engine keeps of each device's memory (``plan``, ``sweep``);
    :func:`engine_memory` reads them."""
    p.add_argument("--memory-reserve", default=None, metavar="FRACTION|SIZE",
                   help="what the engine keeps of each device's memory: a share (default 0.1, vLLM's "
                        "gpu_memory_utilization 0.9; or 10%%) or a size each device keeps ('6 GiB'); 0 (with "
                        "--max-batched-tokens 0) gives the KV cache everything beside the weights")
    p.add_argument("--max-batched-tokens", default=None, metavar="N",
                   help="tokens of the engine step whose activations each device sets aside beside the reserve (default "
                        "8192, vLLM V1's max_num_batched_tokens; logits for 256 sampled sequences); 0: none")
    p.add_argument("--max-sequences", default=None, metavar="N",
                   help="sequences a replica's engine runs at once (default 256, vLLM's max_num_seqs); 0: no limit but "
                        "what fits. plan stops a replica's batch there; sweep keeps its grid's batches (its fits column "
                        "is the memory's) and sizes the logits' workspace by it")


def engine_memory(args, reserve: dict | None = None, step: dict | None = None) -> dict:
    """The engine fields of a device (Hardware's memory_reserve, memory_reserve_bytes, max_batched_tokens,
    max_sequences) that the command line's --memory-reserve, --max-batched-tokens and --max-sequences give, over
    ``reserve`` (the two reserve fields: load.objects.reserve_fields) and ``step`` (a report spec's or the user's
    config; None: genreport's defaults, vLLM's).  A value out of range is an error naming the option and its fix."""
    from genreport.errors import Finding, SpecError
    from genreport.load import units
    from genreport.load.objects import reserve_fields
    from genreport.load.spec import DEFAULT_MAX_BATCHED_TOKENS, DEFAULT_MAX_SEQUENCES, DEFAULT_MEMORY_RESERVE

    def err(where: str, message: str, hint: str) -> SpecError:
        return SpecError([Finding(where, 0, 0, "", message, hint)])

    reserve = reserve_fields(DEFAULT_MEMORY_RESERVE) if reserve is None else reserve
    step = step or {"max_batched_tokens": DEFAULT_MAX_BATCHED_TOKENS, "max_sequences": DEFAULT_MAX_SEQUENCES}
    if args.memory_reserve is not None:
        text = args.memory_reserve.strip()
        share = None
        try:
            share = float(text.rstrip("%")) / (100.0 if text.endswith("%") else 1.0)
        except ValueError:
            pass
        if share is None and not text.endswith("%"):  # a size each device keeps ('6 GiB', '6GiB')
            try:
                size = units.expect(text, units.BYTES).value
            except units.UnitError as exc:  # a quantity of another kind says which ('6 GB/s' is a bandwidth)
                message = str(exc) if "needs" in str(exc) or "finite" in str(exc) else "is neither a fraction nor a size"
                raise err(f"--memory-reserve {args.memory_reserve}", message, "write e.g. 0.1, 10% or 6GiB") from None
            if not size > 0:
                raise err(f"--memory-reserve {args.memory_reserve}", "must be positive",
                          "write e.g. 6GiB, or 0 for no reserve")
            reserve = {"memory_reserve": 0.0, "memory_reserve_bytes": size}
        elif share is None or not 0.0 <= share <= 0.9:
            raise err(f"--memory-reserve {args.memory_reserve}", "must be a fraction from 0 to 0.9 (or 0% to 90%), "
                      "or a size", "write e.g. 0.1, 10% or 6GiB")
        else:
            reserve = reserve_fields(share)
    def whole(option: str, text) -> int:
        """A count as --context and --batch write it (load.objects.tokens: digits, or with k / m), or digits alone for
        0 and the negative ones the range check below refuses; a word is bad input (these took argparse's int alone:
        '8k' was an "invalid int value", review, stop 82)."""
        from genreport.load.objects import tokens

        written = str(text).strip()
        if re.fullmatch(r"-?[0-9]+", written):
            return int(written)
        try:
            return tokens(written)
        except ValueError:
            raise err(f"{option} {text}", "is not a whole number", "write e.g. 8192 or 8k (k = 1024)") from None

    if args.max_batched_tokens is not None:
        n = whole("--max-batched-tokens", args.max_batched_tokens)
        if not 0 <= n <= 10_000_000:
            raise err(f"--max-batched-tokens {n}", "must be from 0 to 10,000,000",
                      "write e.g. 8192, or 0 for no activation workspace")
        step = {"max_batched_tokens": n, "max_sequences": DEFAULT_MAX_SEQUENCES if n else 0}
    if getattr(args, "max_sequences", None) is not None:  # over what --max-batched-tokens implied (deployment review,
        # stop 75: the engine's 256 doubled DeepSeek-V3's GPUs for 2,000 users, and only a spec could change it)
        n = whole("--max-sequences", args.max_sequences)
        if not 0 <= n <= 10_000_000:
            raise err(f"--max-sequences {n}", "must be from 0 to 10,000,000",
                      "write e.g. 256 (vLLM's max_num_seqs), or 0 for no limit but what fits")
        step = {**step, "max_sequences": n}
    return {**reserve, **step}


def check_reserve(args, gpus, spec=None, config=None) -> None:
    """A reserve written as a size that leaves no memory on any of ``gpus``: an error where it was written (the
    command line's --memory-reserve, else the report ``spec``'s engine.memory_reserve, else the user's ``config``
    file's memory_reserve), not a plan of no layout or a sweep of nothing that fits."""
    from genreport.errors import Finding, SpecError

    if not gpus or any(g.kept > 0 for g in gpus):
        return
    largest = max(gpus, key=lambda g: g.capacity)
    message = (f"a reserve of {largest.memory_reserve_bytes / 2**30:.1f} GiB keeps all the memory of every GPU asked "
               f"(the largest, {largest.title}, has {largest.capacity / 2**30:.1f} GiB)")
    hint = "lower it, or write a fraction such as 0.1"
    if args.memory_reserve is not None:
        raise SpecError([Finding(f"--memory-reserve {args.memory_reserve}", 0, 0, "", message, hint)])
    if spec is not None:
        from genreport.load.yamlread import read

        line, col = read(Path(spec.file)).where(("engine", "memory_reserve"))
        raise SpecError([Finding(spec.file, line, col, "engine.memory_reserve", message,
                                 hint + ", or give --memory-reserve")])
    file, line, col = config.memory_reserve_at if config is not None and config.memory_reserve_at else ("", 0, 0)
    raise SpecError([Finding(file or "memory_reserve", line, col, "memory_reserve" if file else "", message,
                             hint + ", or give --memory-reserve")])
