"""Every command on hostile input, in a child process under 2 GiB of address space and a time limit
(issue 17: "a clean error within 20 s and 2 GB, no traceback, nothing written outside the output folder").

The child runs the installed CLI with ``resource.setrlimit(RLIMIT_AS, 2 GiB)``; a MemoryError or a
runaway loop would show as a traceback, an internal error, or a timeout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from shared import ROOT

resource = pytest.importorskip("resource")

BAD = ROOT / "tests" / "bad_specs"
LIMIT_BYTES = 2 * 2**30
SECONDS = 20


def _limit():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))


CHILD = """
import contextlib, io, json, sys, time
from genreport.commands.cli import main

out = []
for args in json.loads(sys.stdin.read()):
    err, t0 = io.StringIO(), time.monotonic()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(args)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    out.append([code, err.getvalue(), time.monotonic() - t0])
sys.stdout.write(json.dumps(out))
"""


def run_all(cases: list[list[str]], cwd: Path) -> tuple[list[tuple[int, str, float]], str]:
    """Each command's (exit status, stderr, seconds), run one after the other by ``genreport``'s ``main`` in one child
    process under the 2 GiB limit (one interpreter's start, not one a command: its memory is the sum of theirs, a
    stricter limit), and the child's own stderr."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "GENREPORT_SERIAL": "1"}
    proc = subprocess.run([sys.executable, "-c", CHILD], cwd=cwd, env=env, input=json.dumps(cases),
                          capture_output=True, text=True, timeout=SECONDS * len(cases), preexec_fn=_limit)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [tuple(x) for x in json.loads(proc.stdout)], proc.stderr


def _report(tmp: Path, name: str = "case", **fields) -> Path:
    fields = {"title": "A case", **fields}
    text = ("kind: report\nname: case\nhardware: h100-sxm\nmodel: llama-3.1-8b\nprecision: bf16\n"
            "workloads:\n  decode: {batch: [1, 8], context: [128]}\n")
    for k, v in fields.items():
        text += f"{k}: {json.dumps(v)}\n"
    path = tmp / f"{name}.yaml"
    path.write_text(text)
    return path


def _cases(tmp: Path) -> list[tuple[str, list[str], int, str]]:
    """(name, arguments, exit status, text stderr must hold)."""
    out = str(tmp / "out")
    words = " ".join(["word"] * 150_000)  # a 750 KB spec; stalled the PDF stage past 500 s
    (tmp / "results-deep").mkdir()
    (tmp / "results-deep" / "results.json").write_text("[" * 200_000 + "]" * 200_000)
    (tmp / "config.json").write_text('{"architectures": ["LlamaForCausalLM"], "hidden_size": NaN, '
                                     '"num_hidden_layers": 1e400, "num_attention_heads": ' + "9" * 5000 + "}")
    product = "*".join(["critical_context"] * 60)
    return [
        ("decode grid 4096 x 4096", [str(BAD / "decode-grid-too-large.yaml"), "-o", out], 1, "over the budget"),
        ("150,000-word title", [str(_report(tmp, "title", title=words)), "-o", out], 1, "too long"),
        ("--set 20,000 levels", [str(_report(tmp)), "--set", ".".join(["a"] * 20_000) + "=1", "-o", out], 1,
         "specs nest at most 64"),
        ("mathtext title", [str(_report(tmp)), "--set", r"hardware.title=H100 $\frac{1}$", "--format", "html",
                            "-o", out], 0, ""),
        ("sweep 12 G points", ["sweep", "--batch", "1:8192:8192", "--context", "128:128k:2000", "-o", out], 1,
         "over the budget"),
        ("derive 1e999999999", ["derive", "critical_context", "--for", "W", "--at", "critical_context=1e999999999"],
         1, "too large"),
        ("derive 60 factors", ["derive", "critical_context", "--for", "W", "--at", f"critical_context={product}",
                               "--spec", str(ROOT / "specs" / "llama8b-h100.yaml")], 1, "at most 16"),
        ("diff nested 200,000 deep", ["diff", str(tmp / "results-deep"), str(tmp / "results-deep")], 1,
         "not a results.json"),
        ("diff option injection", ["diff", "--", "--output=x:results.json", str(tmp / "results-deep")], 1,
         "not a git revision"),
        ("import-hf NaN, 1e400, 5000 digits", ["import-hf", str(tmp / "config.json")], 1, "hidden_size"),
        ("audit, a name too long", ["audit", "a" * 5000], 1, "nothing was written"),
        ("spec name too long for the file system", ["a" * 5000 + ".yaml", "-o", out], 1, "nothing was written"),
        ("sweep -o too long for the file system", ["sweep", "--models", "llama-3.1-8b", "--hardware", "h100-sxm",
                                                   "--precision", "bf16", "--batch", "1", "--context", "1k",
                                                   "-o", "a" * 5000], 2, "cannot write"),
    ]


def test_every_command_on_hostile_input_stays_in_bounds(tmp_path):
    failures = []
    cases = _cases(tmp_path)
    ran, child_err = run_all([args for _, args, _, _ in cases], tmp_path)
    assert len(ran) == len(cases)
    assert "Traceback" not in child_err and "MemoryError" not in child_err, child_err[-3000:]
    for (name, _args, code, needle), (got, err, seconds) in zip(cases, ran, strict=True):
        problems = []
        if got != code:
            problems.append(f"exit {got}, not {code}")
        if "Traceback" in err or "internal error" in err or "MemoryError" in err:
            problems.append("a traceback or an internal error")
        if needle not in err:
            problems.append(f"no {needle!r} in stderr")
        if seconds > SECONDS:
            problems.append(f"took {seconds:.1f} s")
        if problems:
            failures.append(f"{name}: {', '.join(problems)}\n{err[-600:]}")
    assert not failures, "\n\n".join(failures)
    assert not (tmp_path / "x").exists()  # the option injection wrote nothing
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == ["case-whatif"]
