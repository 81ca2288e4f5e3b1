"""genreport --watch: rebuilds on a change, survives a broken spec, stops cleanly on Ctrl-C."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from genreport.commands.cli import main
from shared import ROOT

SPEC = ROOT / "specs" / "llama8b-h100.yaml"


def _wait(pred, timeout: float = 90.0, what: str = "") -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _title(path: Path) -> str | None:
    try:
        return json.loads(path.read_text())["spec"]["title"]
    except (OSError, ValueError, KeyError):
        return None


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_watch_rebuilds_keeps_going_after_an_error_and_stops_on_ctrl_c(tmp_path):
    spec = tmp_path / "spec.yaml"
    shutil.copy(SPEC, spec)
    out = tmp_path / "out"
    log = tmp_path / "stderr.txt"
    env = dict(os.environ, PYTHONPATH=str(ROOT), GENREPORT_SERIAL="1")
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "genreport.commands.cli", str(spec), "--watch", "--format", "json",
                                 "-o", str(out), "-q"], stderr=err, env=env, cwd=tmp_path)
    result = out / "llama8b-h100" / "results.json"
    try:
        _wait(lambda: "watching" in log.read_text(), what="the first build")
        first = _title(result)
        assert first and "H100" in first

        lines = spec.read_text().splitlines(keepends=True)
        at = next(i for i, line in enumerate(lines) if line.startswith("title:"))
        lines[at] = "title: Edited while watching\n"
        spec.write_text("".join(lines))
        _wait(lambda: _title(result) == "Edited while watching", what="the rebuild after an edit")

        good = spec.read_text()
        spec.write_text(good.replace("precision: bf16", "precision: bf17"))
        _wait(lambda: "not rebuilt" in log.read_text(), what="the error report")
        text = log.read_text()
        assert "spec.yaml:" in text and "bf17" in text  # file:line and the bad value, as without --watch
        assert _title(result) == "Edited while watching"  # the last good report stays

        spec.write_text(good.replace("title: Edited while watching", "title: Fixed"))
        _wait(lambda: _title(result) == "Fixed", what="the rebuild after the fix")
        assert proc.poll() is None
    finally:
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=60)
    assert rc == 0
    assert "stopped watching" in log.read_text()
    assert "Traceback" not in log.read_text()


def test_watch_and_check_are_refused(capsys):
    assert main([str(SPEC), "--watch", "--check"]) == 1
    assert "--watch and --check" in capsys.readouterr().err


def test_watch_polls_the_files_a_spec_reads(tmp_path, monkeypatch):
    """In-process, with a fake build: a change to the model file rebuilds; an untouched spec does not."""
    from genreport.commands import watch as w

    spec, model = tmp_path / "r.yaml", tmp_path / "m.yaml"
    spec.write_text("a")
    model.write_text("b")
    calls = []

    def build_one(path, force):
        calls.append(path)
        if len(calls) == 2:
            model.write_text("b, during the rebuild")  # must be seen on the next poll, not lost
        return True, [path, model]

    monkeypatch.setattr(w, "SETTLE_S", 0)
    ticks = iter(range(100))

    def sleep(_s):
        i = next(ticks)
        if i == 2:
            model.write_text("b, edited")

    monkeypatch.setattr(w.time, "sleep", sleep)
    assert w.watch([spec], build_one, poll_s=0, rounds=8) == 0
    assert calls == [spec, spec, spec]
