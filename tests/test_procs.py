"""A forked child of a build dies with it, even when the build is killed with SIGKILL (genreport.procs)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

PARENT = """
import os, sys, time
from genreport.procs import die_with_parent
parent = os.getpid()
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    die_with_parent(parent)
    # the read end stays open here, as a sibling (the PDF worker) holds it in a real build: no EPIPE to end it
    os.write(w, b"x" * 65536)  # fills the pipe
    os.write(w, b"y")  # blocks here for good, as a figure child does when nobody reads
    os._exit(0)
print(pid, flush=True)
time.sleep(60)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_child_dies_when_its_parent_is_killed():
    proc = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    child = int(proc.stdout.readline())
    time.sleep(0.3)
    os.kill(child, 0)  # alive, blocked on the pipe
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    deadline = time.time() + 30  # its death, not its speed: generous for a loaded machine (returns at once)
    while time.time() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        try:  # reap it if it is ours (it is not: its parent was the killed process)
            os.waitpid(child, os.WNOHANG)
        except ChildProcessError:
            pass
        time.sleep(0.05)
        status = open(f"/proc/{child}/stat").read().split()[2] if os.path.exists(f"/proc/{child}/stat") else "X"
        if status == "Z":  # a zombie waiting for init to reap it: dead
            return
    pytest.fail(f"child {child} outlived its killed parent")


def test_no_gc_pauses_the_collector_and_resumes_it_unless_the_process_ends(tmp_path, monkeypatch):
    import gc

    from genreport.commands import cli
    from genreport.procs import no_gc
    from shared import ROOT

    was = gc.isenabled()
    gc.enable()
    try:
        with no_gc():
            with no_gc():
                pass
            assert not gc.isenabled()  # only the outermost block resumes it
        assert gc.isenabled()
        # the command line's last build (cli.entry ends the process then): paused to the exit, never resumed
        monkeypatch.setattr(cli, "_EXITS", True)
        spec = ROOT / "specs" / "llama8b-h100.yaml"
        assert cli.main([str(spec), "--format", "json", "-q", "-o", str(tmp_path)]) == 0
        assert not gc.isenabled()
        gc.enable()
        monkeypatch.setattr(cli, "_EXITS", False)
        assert cli.main([str(spec), "--format", "json", "-q", "--force", "-o", str(tmp_path)]) == 0
        assert gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
