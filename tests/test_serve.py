"""``genreport serve``: a warm process answering build requests, one JSON line per request line."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time

from genreport.commands import serve
from shared import ROOT

SPEC = ROOT / "specs" / "llama8b-h100.yaml"


def test_requests_are_answered_in_order_and_the_loop_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setenv("GENREPORT_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "out"
    lines = [f"{SPEC} -o {out} --format json --force", f"{SPEC} -o {out} --format json",
             f"{tmp_path / 'missing.yaml'} -o {out}", "derive critical_context", f"{SPEC} --watch",
             "'unclosed", f"{SPEC} -o {out} --format json --force"]
    replies, paused = [], []

    def reply(text):
        replies.append(text)
        paused.append(not gc.isenabled())

    assert serve.serve(iter(lines), reply, max_requests=6) == 0
    # the collector's pass over a build's objects comes after its answer, never before it; it is on again after
    assert paused == [True] * 6 and gc.isenabled()
    answers = [json.loads(r) for r in replies]
    # the seventh request is past the bound; a request that is no build is a usage error (64), as the command line's
    assert [a["status"] for a in answers] == [0, 0, 1, 64, 64, 64]
    assert answers[0]["messages"][0] == f"{out / 'llama8b-h100'}/: results.json"
    assert answers[1]["messages"] == [f"{out / 'llama8b-h100'}: up to date"]
    assert "missing.yaml" in answers[2]["messages"][0]
    assert "not a build request" in answers[3]["messages"][0] and "--watch" in answers[4]["messages"][0]
    assert (out / "llama8b-h100" / "results.json").read_bytes() == \
        (ROOT / "out" / "llama8b-h100" / "results.json").read_bytes()


def test_a_request_line_past_its_limit_is_refused_at_once():
    """Hostile review, stop 75: a 4 MB request line kept the server from answering for minutes (shlex.split is
    superlinear); a line past serve.MAX_LINE is a usage error, answered before it is split."""
    start = time.perf_counter()
    answer = serve.handle("a" * 4_000_000)
    assert time.perf_counter() - start < 0.5
    assert answer["status"] == 64 and "4,000,000 characters long, past the 65,536" in answer["messages"][0]
    assert serve.handle("'unclosed " + "a" * 1000)["status"] == 64  # under it, read as before


def test_a_blank_line_or_quit_stops_it():
    replies = []
    serve.serve(iter(["", f"{SPEC} --format json"]), replies.append)
    serve.serve(iter(["quit", f"{SPEC} --format json"]), replies.append)
    assert replies == []


def test_the_server_builds_the_same_report_and_stops_by_itself_when_idle(tmp_path):
    """A real process on a pipe: ready line, one full build (PDF too), then it exits after the idle time."""
    env = dict(os.environ, GENREPORT_CACHE=str(tmp_path / "cache"), SOURCE_DATE_EPOCH="0")
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "genreport", "serve", "--idle-exit", "2"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        assert json.loads(p.stdout.readline())["ready"] is True
        p.stdin.write(f"specs/{SPEC.name} -o {out} -q\n")
        p.stdin.flush()
        answer = json.loads(p.stdout.readline())
        assert answer["status"] == 0, answer
        t = time.monotonic()
        assert p.wait(timeout=60) == 0  # stdin still open: it stopped because no request came
        assert time.monotonic() - t < 30
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    committed = ROOT / "out" / "llama8b-h100"
    names = sorted(str(f.relative_to(committed)) for f in committed.rglob("*") if f.is_file())
    assert names == sorted(str(f.relative_to(out / "llama8b-h100")) for f in (out / "llama8b-h100").rglob("*")
                           if f.is_file())
    for name in names:
        if name != "report.pdf":  # the PDF's bytes depend on the fonts installed (tests/test_golden.py)
            assert (out / "llama8b-h100" / name).read_bytes() == (committed / name).read_bytes(), name
    assert (out / "llama8b-h100" / "report.pdf").read_bytes().startswith(b"%PDF-")
