"""Issue 32, the command line's items: each reproduction of the red team's third round, run again.

3 audit's CSV neutralises formula cells; 6 no abbreviated options; 7 serve survives an internal error with
--debug; 8 the folder swap leaves OUT/NAME in place at every instant; 10 huge numbers in a claims file are
findings; 12 --check writes and locks nothing; 14 OUT/.stamps stays bounded; 15 plan --limit; 16 a stopped or
deadlocked child costs a bounded wait and the same bytes; 17 the point budget is checked before "up to date".

Whatever could hang runs in a child process with a timeout, so a regression fails instead of hanging.
"""

from __future__ import annotations

import csv
import errno
import hashlib
import importlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import genreport.procs as procs
import genreport.write.build as B
import pytest
from genreport.commands import audit, cli, serve
from genreport.commands.cli import main
from genreport.fileio import folder_lock
from genreport.model.audit import METRICS
from shared import ROOT

DATA = ROOT / "tests" / "data"
HEADER = "id,model,hardware,gpus,tp,pp,precision,batch,input_tokens,output_tokens,metric,value,source\n"
GOOD_ROW = "llama-2-7b,a100-sxm-80gb,1,1,1,bf16,1,5,200,tokens_per_s,{value},src\n"  # gpt-fast's, 104.9 tok/s
SMALL = """kind: report
name: small
title: Small report for the third round
hardware: h100-sxm
model: llama-3.1-8b
precision: bf16
workloads:
  decode: {batch: [1, 64], context: [128]}
"""


@pytest.fixture
def small(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("GENREPORT_CACHE", str(tmp_path / "cache"))
    spec = tmp_path / "small.yaml"
    spec.write_text(SMALL)
    return spec


def tree(folder: Path) -> dict[str, tuple]:
    """Every entry under ``folder``: kind, bytes, modification time (what a write would change)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        info = p.lstat()
        out[str(p.relative_to(folder))] = (p.is_dir(), None if p.is_dir() else p.read_bytes(), info.st_mtime_ns)
    return out


def _run(script: str, *args: str, timeout: float = 90, stdin: str | None = None, **env) -> subprocess.CompletedProcess:
    """A Python child running ``script``: a hang fails the test after ``timeout`` seconds."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env={**os.environ, "SOURCE_DATE_EPOCH": "0", **env})


def _forking() -> bool:
    """Whether builds fork children here (two or more cores, not GENREPORT_SERIAL)."""
    return procs.cores() >= 2 and not os.environ.get("GENREPORT_SERIAL")


# ----------------------------------------------------------------------------------------------- 3, 10: audit

def test_audit_csv_neutralises_formula_cells(tmp_path, capsys, monkeypatch):
    """Item 3: ids a spreadsheet would evaluate come out behind a single quote; numbers stay numbers."""
    ids = ['=HYPERLINK("http://x.invalid","click")', "+SUM(1+1)", "-2+3", "@x", "\uff1d1+1", "plain-id"]
    rows = "".join(f'"{i.replace(chr(34), chr(34) * 2)}",' + GOOD_ROW.format(value=100 + n) for n, i in enumerate(ids))
    (tmp_path / "claims.csv").write_text(HEADER + rows + '"=cmd|x",nosuch-model,a100-sxm-80gb,1,1,1,bf16,1,5,200,'
                                         "tokens_per_s,5,src\n")
    monkeypatch.chdir(DATA)
    assert main(["audit", str(tmp_path / "claims.csv"), "--format", "csv"]) == 0
    out = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["id"] for r in out] == ["'" + i for i in ids[:5]] + ["plain-id", "'=cmd|x"]
    for r in out:
        for k, cell in r.items():
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r", "\uff1d")), (k, cell)
    assert [float(r["value"]) for r in out] == [100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 5.0]
    assert all(float(r["bound"]) > 0 for r in out[:6]) and out[6]["verdict"] == "unknown model"
    assert audit._cell(-2.5) == "-2.5" and audit._cell("-2.5") == "'-2.5"  # a number of ours vs claims text


@pytest.mark.parametrize("cells, expected", [
    ("1,1,1,bf16,1e300,5,200,tokens_per_s,104.9", ["batch: '1e300' is more than 100,000,000"]),
    ("1e308,1e308,1e308,bf16,1e308,1e308,1e308,tokens_per_s,1e308",
     ["gpus: '1e308' is more than 1,000,000", "tp: '1e308' is more than 4,096", "pp: '1e308' is more than 4,096",
      "batch: '1e308'", "input_tokens: '1e308'", "output_tokens: '1e308'", "value: '1e308' is out of range"]),
    ("1,1,1,bf16,1,5,200,tokens_per_s,1e308", ["value: '1e308' is out of range"]),
    ("1,1,1,bf16,1,5,200,ms_per_token,5e-324", ["value: '5e-324' is out of range"]),
    ("1,1,1,bf16,1,5,200,tokens_per_s,inf", ["value: 'inf' is not a positive number"]),
    ("1,1,1,bf16,1,5,200,tokens_per_s,NaN", ["value: 'NaN' is not a positive number"]),
    ("1,1,1,bf16,1,1e400,200,tokens_per_s,104.9", ["input_tokens: '1e400' is not a whole number"]),
])
def test_audit_huge_numbers_are_findings(tmp_path, capsys, monkeypatch, cells, expected):
    """Item 10: a batch of 1e300 ended in ZeroDivisionError (exit 3), a row of 1e308 in "nanx the bound"."""
    (tmp_path / "claims.csv").write_text(HEADER + f"x,llama-2-7b,a100-sxm-80gb,{cells},src\n")
    monkeypatch.chdir(DATA)
    assert main(["audit", str(tmp_path / "claims.csv")]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "internal error" not in captured.err and "nanx" not in captured.err
    for text in expected:
        assert f"claims.csv:2:1: {text}" in captured.err


def test_audit_largest_allowed_numbers_give_finite_verdicts(tmp_path, capsys, monkeypatch):
    # tp x pp within the row's GPUs (a wider layout is refused: stop 71)
    rows = [f"r{i},llama-2-7b,a100-sxm-80gb,{g},{tp},{tp},,100000000,100000000,100000000,{m},{v},src\n"
            for i, (g, tp, m, v) in enumerate((g, tp, m, v) for g, tp in (("1", "1"), ("1000000", "1000"))
                                              for m in METRICS for v in ("1e-12", "1e15"))]
    (tmp_path / "claims.csv").write_text(HEADER + "".join(rows))
    monkeypatch.chdir(DATA)
    assert main(["audit", str(tmp_path / "claims.csv"), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["rows"]) == len(rows)
    assert not any(re.search(r"\b(nan|inf)\b", r["why"]) for r in doc["rows"])


# ----------------------------------------------------------------------------------------------- 6, 7: options, serve

def _parsers():
    yield "genreport", cli._build_parser()
    for name, module in cli.SUBCOMMANDS.items():
        mod = importlib.import_module(module)
        if name != "serve":
            yield name, (mod._parser if hasattr(mod, "_parser") else mod.parser)()


def test_no_parser_takes_an_abbreviation(capsys):
    """Item 6: argparse took '--wat' for '--watch' (and '--forc' for '--force' ...) in every parser."""
    for name, parser in _parsers():
        assert parser.allow_abbrev is False, name
    calls = [(p.name, text[m.start():m.start() + 200]) for p in sorted((ROOT / "generator" / "commands").glob("*.py"))
             for text in [p.read_text()] for m in re.finditer(r"= (?:argparse\.ArgumentParser|Parser)\(", text)]
    assert len(calls) >= 10 and all("allow_abbrev=False" in call for _name, call in calls), calls  # serve's too
    assert main(["specs/llama8b-h100.yaml", "--forc"]) == 64  # a usage error (cli.EXIT), not a build problem
    assert "unrecognized arguments: --forc" in capsys.readouterr().err


SERVER = """
    import sys
    from genreport.commands import cli, serve

    real = cli._build_one

    def build_one(spec_path, args, *rest, **kw):  # an internal error, only for requests with --debug
        if args.debug:
            raise RuntimeError("boom from the test")
        return real(spec_path, args, *rest, **kw)

    cli._build_one = build_one
    sys.exit(serve.main(["--no-pdf"]))
"""


def test_serve_refuses_abbreviations_and_outlives_an_internal_error(small, tmp_path):
    """Items 6 and 7: '--wat' and '--w' sat in watch mode and answered nothing more; an internal error with
    --debug ended the server (exit 3, no answer, a broken pipe for the next request)."""
    out = tmp_path / "out"
    requests = [f"{small} --wat", f"{small} --w", f"{small} --watch=1", f"{small} --he",
                f"{small} -o {out} --format json --debug", f"{small} -o {out} --format json --forc",
                f"{small} -o {out} --format json -q", "quit"]
    proc = _run(SERVER, timeout=120, stdin="\n".join(requests) + "\n", GENREPORT_CACHE=str(tmp_path / "cache"))
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()][1:]  # after the ready line
    assert [a["status"] for a in answers] == [64, 64, 64, 64, 3, 64, 0], answers  # 64: a usage error (cli.EXIT)
    for a, option in zip(answers[:4], ("--wat", "--w", "--watch=1", "--he"), strict=True):
        assert a["messages"] == [f"genreport serve: {option} is not a build request; send a build's arguments "
                                 "(a spec and options), e.g. specs/llama8b-h100.yaml --force"]
    crash = "\n".join(answers[4]["messages"])
    assert "Traceback (most recent call last)" in crash and "RuntimeError: boom from the test" in crash
    assert "genreport: internal error: RuntimeError: boom from the test" in crash
    assert "unrecognized arguments: --forc" in answers[5]["messages"][-1]
    assert (out / "small" / "results.json").is_file()


def test_serve_answers_an_internal_error_in_process(small, tmp_path, monkeypatch):
    monkeypatch.setattr(cli, "_build_one", lambda *a, **k: 1 / 0)
    replies = []
    serve.serve(iter([f"{small} --debug", f"{small}"]), replies.append)
    assert [json.loads(r)["status"] for r in replies] == [3, 3]
    assert "ZeroDivisionError" in "\n".join(json.loads(replies[0])["messages"])


# ----------------------------------------------------------------------------------------------- 8, 12: the folder

NEW = B.Built("small", {"results.json": b'{"new": true}\n', "figures/a.svg": b"<svg>new</svg>\n"})


def _previous(out: Path) -> dict:
    (out / "small" / "figures").mkdir(parents=True)
    (out / "small" / "results.json").write_text('{"previous": true}\n')
    (out / "small" / "figures" / "b.svg").write_text("<svg>previous</svg>\n")
    return {str(p.relative_to(out / "small")): p.read_bytes() for p in (out / "small").rglob("*") if p.is_file()}


def _files(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_kill_at_the_swap_leaves_a_report_at_its_name(tmp_path, when):
    """Item 8: SIGKILL between 'old folder aside' and 'new folder in' left OUT/NAME missing."""
    out = tmp_path / "out"
    out.mkdir()
    if not _probe(out):
        pytest.skip("no renameat2(RENAME_EXCHANGE) here")
    old = _previous(out)
    pid = os.fork()
    if pid == 0:
        real = B._exchange

        def killed(a, b):
            if when == "before":
                os.kill(os.getpid(), signal.SIGKILL)
            real(a, b)
            os.kill(os.getpid(), signal.SIGKILL)

        B._exchange = killed
        try:
            B.write(NEW, out, "small")
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    assert _files(out / "small") == (old if when == "before" else NEW.files)
    assert [p.name for p in out.iterdir() if p.name.startswith(".small.")]  # what the dead build left aside
    B.write(NEW, out, "small")
    assert _files(out / "small") == NEW.files
    assert not [p.name for p in out.iterdir() if p.name.startswith(".small.")]


def _probe(folder: Path) -> bool:
    (folder / ".a").mkdir()
    (folder / ".b").mkdir()
    try:
        return B._exchange(folder / ".a", folder / ".b")
    finally:
        (folder / ".a").rmdir()
        (folder / ".b").rmdir()


def test_a_half_done_swap_without_the_one_step(small, tmp_path, capsys, monkeypatch):
    """The two-rename fallback: --check names where the previous report waits (and moves nothing); the next
    build puts it back before swapping."""
    monkeypatch.setattr(B, "_exchange", lambda a, b: False)
    out = tmp_path / "out"
    assert main([str(small), "-o", str(out), "--format", "json", "-q"]) == 0
    built = _files(out / "small")
    os.replace(out / "small", out / ".small.old")  # as a build killed between its two renames leaves it
    before = tree(out)
    assert main([str(small), "-o", str(out), "--format", "json", "--check"]) == 4
    assert f"{out / 'small'}: missing: a build killed while swapping folders left the previous report in " \
           f"{out / '.small.old'}" in capsys.readouterr().err
    assert tree(out) == before
    B._recover(out / "small")
    assert _files(out / "small") == built and not os.path.lexists(out / ".small.old")


def test_check_writes_and_locks_nothing(small, tmp_path, capsys, monkeypatch):
    """Item 12: --check on a read-only output folder exited 2 ("Read-only file system"): it took the lock."""
    out = tmp_path / "out"
    assert main([str(small), "-o", str(out), "--format", "json", "-q"]) == 0
    capsys.readouterr()
    shutil.rmtree(out / ".stamps")
    before = tree(out)
    real_open, real_mkdir = os.open, os.mkdir

    def refused(path) -> None:  # the output folder on a read-only file system (root ignores chmod)
        if os.path.abspath(os.fsdecode(path)).startswith(str(out)):
            raise OSError(errno.EROFS, "Read-only file system", os.fsdecode(path))

    def ro_open(path, flags, *args, **kw):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) and "dir_fd" not in kw:
            refused(path)
        return real_open(path, flags, *args, **kw)

    def ro_mkdir(path, *args, **kw):
        refused(path)
        return real_mkdir(path, *args, **kw)

    with monkeypatch.context() as m:
        m.setattr(os, "open", ro_open)
        m.setattr(os, "mkdir", ro_mkdir)
        assert main([str(small), "-o", str(out), "--format", "json", "--check"]) == 0
    assert capsys.readouterr().out.strip() == f"{out / 'small'}: matches a fresh build"
    assert tree(out) == before and not (out / ".stamps").exists()

    monkeypatch.setenv("GENREPORT_LOCK_TIMEOUT", "0.2")
    with folder_lock(out, "small"):  # another build is writing: --check neither waits nor fails for it
        t = time.monotonic()
        assert main([str(small), "-o", str(out), "--format", "json", "--check"]) == 0
        assert time.monotonic() - t < 30


def test_folder_digests_read_one_folder_while_a_build_swaps(tmp_path, monkeypatch):
    """Lock-free --check: a swap in the middle of the reading is seen, and the folder read again as a whole."""
    out = tmp_path / "out"
    old = _previous(out)
    B.write(NEW, tmp_path / "next", "small")
    real, swapped = B._file_digest, []

    def swap_once(dir_fd, name):
        if not swapped:
            swapped.append(name)
            assert B._exchange(out / "small", tmp_path / "next" / "small") or pytest.skip("no one-step swap")
        return real(dir_fd, name)

    monkeypatch.setattr(B, "_file_digest", swap_once)
    digests = B.folder_digests(out / "small")
    assert digests == {rel: hashlib.sha256(data).hexdigest() for rel, data in NEW.files.items()}
    assert old != NEW.files


# ----------------------------------------------------------------------------------------------- 14, 17: stamps

def _stamps(out: Path) -> list[str]:
    return sorted(p.name for p in (out / ".stamps").iterdir() if p.name.startswith("q-"))


def test_stamps_stay_bounded_over_many_what_ifs(small, tmp_path, monkeypatch):
    """Item 14: 200 what-ifs through serve left 200 stamps. Now a what-if replaces its folder's earlier stamps,
    and past MAX_STAMPS the oldest go (three what-ifs and MAX_STAMPS 2 show both: each what-if a build)."""
    out = tmp_path / "out"
    lines = [f"{small} -o {out} --format json -q --set workloads.decode.batch=[1,{b}]" for b in range(2, 5)]
    replies = []
    serve.serve(iter(lines), replies.append)
    assert [json.loads(r)["status"] for r in replies] == [0] * len(lines)
    print(f"\n{len(lines)} what-ifs of one folder: {len(_stamps(out))} stamp(s) in {out / '.stamps'}")
    assert len(_stamps(out)) == 1
    assert main(lines[-1].split()) == 0  # the last one is current: up to date, its stamp kept
    assert len(_stamps(out)) == 1

    monkeypatch.setattr(B, "MAX_STAMPS", 2)
    for n in range(4):  # four folders: only the newest two stamps stay
        assert main([str(small), "-o", str(out), "--format", "json", "-q", "--name", f"n{n}"]) == 0
    names = _stamps(out)
    print(f"4 more folders with MAX_STAMPS 2: {len(names)} stamps")
    assert len(names) == 2
    for n in range(2, 4):
        assert B._stamp_path(out, small, ("json",), (), f"n{n}").name in names
    (out / ".stamps" / "q-damaged.json").write_text("{not json")
    os.symlink("/etc/passwd", out / ".stamps" / "q-link.json")
    assert main([str(small), "-o", str(out), "--format", "json", "-q", "--name", "n4"]) == 0
    assert "q-damaged.json" not in _stamps(out) and not os.path.lexists(out / ".stamps" / "q-link.json")
    assert Path("/etc/passwd").exists()


def test_point_budget_is_checked_before_up_to_date(tmp_path, capsys, monkeypatch):
    """Item 17: over the budget failed once, but after one build with --max-points the same command without it
    reported "up to date" and exited 0."""
    monkeypatch.setenv("GENREPORT_CACHE", str(tmp_path / "cache"))
    spec = tmp_path / "big.yaml"
    batches = ", ".join(str(b) for b in range(1, 42))
    contexts = ", ".join(str(128 * c) for c in range(1, 26))  # 41 x 25 = 1,025 points, one over the budget
    spec.write_text(SMALL.replace("name: small", "name: big").replace(
        "{batch: [1, 64], context: [128]}", f"{{batch: [{batches}], context: [{contexts}]}}"))
    command = [str(spec), "-o", str(tmp_path / "out"), "--format", "json"]
    assert main([*command, "--max-points", "2000"]) == 0
    capsys.readouterr()
    assert main(command) == 1
    assert "1,025 points, over the budget of 1,024 points" in capsys.readouterr().err
    assert main([*command, "--max-points", "2000"]) == 0  # under the budget it was built with: up to date
    assert capsys.readouterr().out.strip() == f"{tmp_path / 'out' / 'big'}: up to date"
    assert main([*command, "--max-points", "5000"]) == 0  # a larger budget: still fits
    assert capsys.readouterr().out.strip().endswith(": up to date")
    monkeypatch.setenv("GENREPORT_MAX_POINTS", "1025")
    assert main(command) == 0
    assert f"{tmp_path / 'out' / 'big'}/: results.json" in capsys.readouterr().out  # built again: 1025 < 2000


# ----------------------------------------------------------------------------------------------- 15: plan --limit

def test_plan_limit(capsys):
    """Item 15: --limit 0 printed "no layout fits ... 91 more" when 91 fit; --limit -1 showed all but one."""
    args = ["plan", "llama-3.1-70b", "--hardware", "h100-sxm"]
    assert main([*args, "--format", "json"]) == 0
    total = len(json.loads(capsys.readouterr().out)["rows"])
    assert total > 30

    def rows(text: str) -> int:
        return sum(1 for line in text.splitlines() if re.match(r"(bf16|fp8|int8|int4) ", line))

    assert main([*args, "--limit", "0"]) == 0
    text = capsys.readouterr().out
    assert rows(text) == total and "more" not in text and "no layout fits" not in text
    assert main([*args, "--limit", "5"]) == 0
    text = capsys.readouterr().out
    assert rows(text) == 5 and f"... {total - 5} more (--limit 0 for all rows, or --format json/csv)" in text
    assert main([*args, "--limit", str(10 * total)]) == 0
    assert rows(capsys.readouterr().out) == total
    assert main([*args, "--limit", "-1"]) == 1
    assert "--limit -1: must be 0 (all rows) or more" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------- 16: children

def _child(behaviour: str) -> tuple[int, int]:
    """A forked child that behaves as asked, with a pipe to it and one from it: (pid, read end)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            if behaviour == "stop":
                os.kill(os.getpid(), signal.SIGSTOP)
            elif behaviour == "deadlock":
                import threading

                lock = threading.Lock()
                lock.acquire()
                lock.acquire()
            elif behaviour == "slow sender":  # asleep most of the time, but sends a byte every 0.2 s
                for _ in range(6):
                    time.sleep(0.2)
                    os.write(w, b"x")
            elif behaviour == "busy":  # sends nothing for twice the stall time, but computes
                t = time.monotonic()
                while time.monotonic() - t < 1.0:
                    pass
                os.write(w, b"done")
            elif behaviour == "busy grandchild":  # waits for its own child, which computes
                inner = os.fork()
                if inner == 0:
                    t = time.monotonic()
                    while time.monotonic() - t < 1.0:
                        pass
                    os._exit(0)
                os.waitpid(inner, 0)
                os.write(w, b"done")
            elif behaviour == "spin":
                while True:
                    pass
        finally:
            os._exit(0)
    os.close(w)
    return pid, r


@pytest.fixture
def quick_watch(monkeypatch):
    monkeypatch.setattr(procs, "STALL", 0.5)
    monkeypatch.setattr(procs, "_SAMPLE", 0.1)


@pytest.mark.parametrize("behaviour", ["stop", "deadlock"])
def test_a_stuck_child_is_given_up_and_killed(quick_watch, behaviour):
    """Item 16: a stopped (SIGSTOP) or deadlocked child made the build wait without limit."""
    pid, r = _child(behaviour)
    t = time.monotonic()
    with pytest.raises(procs.ChildStuck, match="has not run for 0.5 s"):
        procs.read_some(r, 100, procs.Watch(pid))
    assert time.monotonic() - t < 10
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    os.close(r)


@pytest.mark.parametrize("behaviour, data", [("slow sender", b"x" * 6), ("busy", b"done"),
                                             ("busy grandchild", b"done")])
def test_a_working_child_is_waited_for(quick_watch, behaviour, data):
    pid, r = _child(behaviour)
    watch, got = procs.Watch(pid), b""
    while chunk := procs.read_some(r, 100, watch):
        got += chunk
    assert got == data and not watch.why
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status)
    os.close(r)


def test_a_spinning_child_meets_the_deadline(quick_watch):
    pid, r = _child("spin")
    with pytest.raises(procs.ChildStuck, match="no answer within 0.6 s"):
        procs.read_some(r, 100, procs.Watch(pid, timeout=0.6))
    os.waitpid(pid, 0)
    os.close(r)


def test_writing_to_a_stopped_child_is_bounded(quick_watch):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        os.kill(os.getpid(), signal.SIGSTOP)
        os._exit(0)
    os.close(r)
    with pytest.raises(procs.ChildStuck):
        procs.write_all(w, b"x" * (1 << 20), procs.Watch(pid))  # a pipe holds 64 kB: a plain write blocks
    os.waitpid(pid, 0)
    os.close(w)
    procs.collect(pid)  # gone already: nothing to wait for


STOPPED_BUILD = """
    import os, signal, sys, time
    import genreport.procs as procs

    procs.STALL = 1.0
    real = procs.die_with_parent
    killed = []

    def stopped(parent):  # every child of the build stops itself as soon as it starts
        real(parent)
        os.kill(os.getpid(), signal.SIGSTOP)

    procs.die_with_parent = stopped
    kill = procs.Watch._kill
    procs.Watch._kill = lambda self, why: killed.append(why) or kill(self, why)
    from genreport.commands.cli import main

    t = time.monotonic()
    code = main([sys.argv[1], "-o", sys.argv[2], "--format", sys.argv[3], "--force", "-q"])
    print(code, round(time.monotonic() - t, 1), len(killed), flush=True)
    procs.die_with_parent = real
    os.environ["GENREPORT_CACHE"] += "-reference"  # figures drawn again, by children that run
    sys.exit(main([sys.argv[1], "-o", sys.argv[2] + "-reference", "--format", sys.argv[3], "--force", "-q"]))
"""


def test_a_build_whose_children_stop_finishes_with_the_same_bytes(small, tmp_path):
    """Item 16, the whole build: its figure children stop at once; the build gives them up after the stall
    time, draws the figures itself and writes the same bytes as a build whose children ran."""
    if not _forking():
        pytest.skip("builds fork no children here")
    out = tmp_path / "out"
    proc = _run(STOPPED_BUILD, str(small), str(out), "html,json", timeout=120,
                GENREPORT_CACHE=str(tmp_path / "cache"))
    assert proc.returncode == 0, proc.stderr
    code, seconds, killed = proc.stdout.split()
    print(f"\nchildren stopped: build {seconds} s, {killed} children given up")
    assert code == "0" and int(killed) >= 1
    assert _files(out / "small") == _files(Path(str(out) + "-reference") / "small")
    # the figures the report shows (figures.drawn): its eight, the memory ledger hidden without a training workload
    assert len([f for f in _files(out / "small") if f.startswith("figures/")]) >= 8


PDF_WORKER = """
    import os, signal, time
    import genreport.procs as procs
    from genreport.printing import pdf

    procs.STALL = 1.0
    real = procs.die_with_parent
    procs.die_with_parent = lambda parent: (real(parent), os.kill(os.getpid(), signal.SIGSTOP))
    os.environ.pop("GENREPORT_PDF_OFF", None)
    assert pdf.start_worker()
    worker, t = pdf._worker, time.monotonic()
    worker.layout("<p>" + "x" * 200000 + "</p>", {})  # more than a pipe holds: a plain write would block
    answer = worker.render("<p>hello</p>")
    print(answer is None, round(time.monotonic() - t, 1))
    pdf._worker = None
    pdf._reap(block=True)
    print(not pdf._finished)
"""


def test_a_stopped_pdf_worker_is_given_up(tmp_path):
    """Item 16, the PDF worker: the build then prints the pages itself (as for a worker that died)."""
    if not _forking():
        pytest.skip("builds fork no children here")
    proc = _run(PDF_WORKER, timeout=60, GENREPORT_CACHE=str(tmp_path / "cache"))
    assert proc.returncode == 0, proc.stderr
    gave_up, seconds, reaped = proc.stdout.split()
    assert gave_up == "True" and float(seconds) < 30 and reaped == "True"  # given up (1 s stall), not waited on
