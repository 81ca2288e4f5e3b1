"""The bad-spec corpus: one file per case in tests/bad_specs/, its expectation inside it.

Each case file starts with comment lines:

    # Bad spec: what is wrong
    # args: --strict --set 'model.kv_heads=7'    (optional: extra command-line arguments, shell-quoted)
    # exit: 0                                   (optional: the exit status; 1 if absent)
    # json: verdicts.weights_fit = false        (optional: a value results.json must hold; exit 0 cases)
    # subprocess: yes                           (optional: also run the real CLI in a child process)
    # expect: FILE:LINE:COL: TEXT               (one or more)

An ``expect`` line is met when a line on stderr starts with ``FILE:LINE:COL: TEXT``; FILE is
relative to tests/bad_specs/ (the tests run there).  Helper specs that cases refer to live in
tests/bad_specs/hardware/ and tests/bad_specs/models/ and are not cases themselves.

Every case must also: print a hint on every finding, exit with the stated status and no
traceback, and (when it fails) leave the output folder exactly as it was.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from genreport.commands.cli import main
from shared import ROOT

BAD = ROOT / "tests" / "bad_specs"
# a finding names a file's line and column, or the argument at fault (--set PATH=VALUE has no line: stop 82)
FINDING = re.compile(r"^(?P<where>--set .+?|\S.*?:\d+:\d+): (?P<text>.*)$")


@dataclass
class Case:
    path: Path
    description: str = ""
    args: list[str] = field(default_factory=list)
    exit: int = 1
    expect: list[tuple[str, str]] = field(default_factory=list)  # (FILE:LINE:COL, TEXT)
    json: list[tuple[str, object]] = field(default_factory=list)
    subprocess: bool = False

    @property
    def name(self) -> str:
        return self.path.stem


def parse_case(path: Path) -> Case:
    """Read the header comments; the file itself may be binary or not UTF-8."""
    case = Case(path)
    raw = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
    for line in raw.split(b"\n"):
        if not line.startswith(b"# "):
            break
        key, _, value = line[2:].decode("utf-8").partition(": ")
        if key == "Bad spec":
            case.description = value
        elif key == "args":
            case.args = shlex.split(value)
        elif key == "exit":
            case.exit = int(value)
        elif key == "subprocess":
            case.subprocess = value == "yes"
        elif key == "json":
            dotted, _, literal = value.partition(" = ")
            case.json.append((dotted, json.loads(literal)))
        elif key == "expect":
            m = re.match(r"^(?P<where>--set .+?|.+?:\d+:\d+): (?P<text>.*)$", value)
            assert m, f"{path.name}: bad expect line {value!r}"
            case.expect.append((m["where"], m["text"]))
        else:
            raise AssertionError(f"{path.name}: unknown header '{key}'")
    return case


CASES = [parse_case(p) for p in sorted(BAD.glob("*.yaml"))]


def test_corpus_is_complete():
    assert len(CASES) >= 40
    for case in CASES:
        assert case.description, f"{case.name}: no '# Bad spec:' line"
        assert case.expect or case.exit == 0, f"{case.name}: a failing case needs '# expect:' lines"
    assert sum(c.subprocess for c in CASES) >= 5


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) under ``folder``, hidden ones included."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


def previous_report(out: Path) -> dict[str, bytes | None]:
    """An out/ folder holding an earlier report of the same name, to prove a failed build leaves it alone."""
    for name in ("case", "case-whatif"):
        (out / name / "figures").mkdir(parents=True)
        (out / name / "results.json").write_text('{"previous": true}\n')
        (out / name / "report.html").write_text("<p>previous</p>\n")
        (out / name / "figures" / "roofline.svg").write_text("<svg/>\n")
    return snapshot(out)


def check_output(case: Case, rc: int, stderr: str, out: Path, before: dict) -> None:
    assert "Traceback" not in stderr, stderr
    assert "internal error" not in stderr, stderr
    assert rc == case.exit, f"{case.name}: exit {rc}, expected {case.exit}\n{stderr}"
    lines = stderr.splitlines()
    for where, text in case.expect:
        wanted = f"{where}: {text}"
        assert any(line.startswith(wanted) for line in lines), \
            f"{case.name}: no line starts with\n  {wanted}\nstderr was:\n{stderr}"
    findings = [line for line in lines if FINDING.match(line) and not line.startswith("genreport:")]
    for line in findings:
        hint = re.search(r" \(hint: (.+)\)$", line)
        assert hint and hint.group(1).strip(), f"{case.name}: a finding without a hint: {line}"
    if case.exit != 0:
        assert findings, f"{case.name}: failed without a positioned finding:\n{stderr}"
        assert lines[-1].endswith("nothing was written."), stderr
        assert snapshot(out) == before, f"{case.name}: the output folder changed"
    for dotted, want in case.json:
        name = "case-whatif" if any(a == "--set" for a in case.args) else "case"
        data = json.loads((out / name / "results.json").read_text())
        for key in dotted.split("."):
            data = data[key]
        assert data == want, f"{case.name}: results.json {dotted} is {data!r}, expected {want!r}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_spec(case: Case, tmp_path, monkeypatch, capsys):
    """In process (fast): the message, the exit status, no traceback, out/ untouched."""
    monkeypatch.chdir(BAD)
    out = tmp_path / "out"
    before = previous_report(out)
    rc = main([case.path.name, "-o", str(out), "--format", "json", "--force", *case.args])
    captured = capsys.readouterr()
    check_output(case, rc, captured.err, out, before)


def _cli() -> list[str]:
    script = Path(sys.executable).parent / "genreport"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "genreport.commands.cli"]


SUBPROCESS_CASES = [c for c in CASES if c.subprocess]


@pytest.mark.parametrize("case", SUBPROCESS_CASES, ids=[c.name for c in SUBPROCESS_CASES])
def test_bad_spec_cli(case: Case, tmp_path):
    """The real command in a child process, with the default formats (html, pdf, json)."""
    out = tmp_path / "out"
    before = previous_report(out)
    env = {**os.environ, "PYTHONPATH": str(BAD.parent.parent)}
    proc = subprocess.run([*_cli(), case.path.name, "-o", str(out), *case.args], cwd=BAD, env=env,
                          capture_output=True, text=True, timeout=120)
    check_output(case, proc.returncode, proc.stderr, out, before)
    assert proc.stdout == ""
