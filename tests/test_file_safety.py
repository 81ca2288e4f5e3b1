"""The safe file layer (genreport.fileio) as every command uses it: hostile files in, safe files out.

Reproductions from issue 17 (items 1, 3, 6, 9, 10, 13, and 16's calibrate name) and issue 13 (items 4
and 5), each run through the library or the CLI entry point.  Cases that could hang or eat memory before
the fix run in a child process with a time limit and an address-space limit.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import genreport.fileio as fileio
import genreport.write.build as B
import pytest
from genreport.commands.cli import main
from genreport.errors import BuildError
from genreport.paths import specs_dir
from genreport.write.build import Built
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared import ROOT

REPORT = """kind: report
name: probe
title: Probe
hardware: {hardware}
model: llama-3.1-8b
precision: bf16
workloads:
  decode: {{batch: [1, 8], context: [128]}}
"""
H100 = (specs_dir() / "hardware" / "h100-sxm.yaml").read_text()


def run_cli(args: list[str], cwd: Path, timeout: float = 60, memory: int = 2 << 30) -> subprocess.CompletedProcess:
    """The real command in a child process, limited to ``timeout`` seconds and ``memory`` bytes of address space."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "genreport", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, preexec_fn=limit, check=False)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()} \
        if folder.exists() else {}


# ----------------------------------------------------------------------------------------------- reading

def test_read_regular_refuses_fifo_device_folder_and_big_files(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "zero.yaml"
    link.symlink_to("/dev/zero")
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    for path, reason in ((fifo, "special"), (link, "special"), (tmp_path, "folder"), (big, "too_big"),
                         (tmp_path / "nope", "missing")):
        with pytest.raises(fileio.ReadError) as exc:
            fileio.read_regular(path, limit=100)
        assert exc.value.reason == reason, path
    assert fileio.read_regular(big, limit=101) == b"x" * 101
    assert fileio.file_hash(fifo) is None and fileio.file_hash(big) == hashlib.sha256(b"x" * 101).hexdigest()


def test_stamp_check_does_not_hang_on_a_fifo_or_read_dev_zero(tmp_path):
    """Issue 17.3: with an earlier build's stamp, the up-to-date check read inputs without the loader's guards."""
    hw = tmp_path / "hardware" / "gpu.yaml"
    hw.parent.mkdir()
    hw.write_text(H100)
    spec = tmp_path / "probe.yaml"
    spec.write_text(REPORT.format(hardware="hardware/gpu.yaml"))
    args = [str(spec), "--format", "json", "-o", str(tmp_path / "out")]
    assert main(args) == 0
    assert main(args) == 0  # a stamp now exists

    hw.unlink()
    hw.symlink_to("/dev/zero")
    done = run_cli(args, tmp_path)
    assert done.returncode == 1, done.stderr
    assert "'hardware/gpu.yaml' points outside the project" in done.stderr and "Traceback" not in done.stderr

    hw.unlink()
    os.mkfifo(hw)
    done = run_cli(args, tmp_path)  # would block forever opening the FIFO to hash it
    assert done.returncode == 1, done.stderr
    assert "no hardware spec at 'hardware/gpu.yaml'" in done.stderr

    spec.unlink()
    os.mkfifo(spec)
    done = run_cli(args, tmp_path)  # would block forever opening the FIFO
    assert done.returncode == 1, done.stderr
    assert "probe.yaml:1:1: is not a regular file" in done.stderr


# ----------------------------------------------------------------------------------------------- no content shown

SECRET = "hunter2-do-not-print"


@pytest.mark.parametrize("content", [f"API_KEY={SECRET}\nOTHER=1\n", f"password: {SECRET}\nuser: me\n",
                                     f"- {SECRET}\n", f"{SECRET}: [1, 2]\n", f"kind: Secret\ndata: {SECRET}\n"])
@pytest.mark.parametrize("ref", ["./.env", "./secret.yaml"])
def test_a_referenced_file_that_is_not_a_spec_is_never_shown(tmp_path, capsys, content, ref):
    """Issue 17.6: 'hardware: ./.env' printed the first 57 characters of .env in the error."""
    (tmp_path / ".env").write_text(content)
    (tmp_path / "secret.yaml").write_text(content)
    spec = tmp_path / "probe.yaml"
    spec.write_text(REPORT.format(hardware=ref))
    assert main([str(spec), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert SECRET not in err and "hunter2" not in err
    assert ("is not a .yaml file" in err) if ref.endswith(".env") else ("secret.yaml:1:1: " in err)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("content", [f"API_KEY={SECRET}\n", f"password: {SECRET}\n", f"[{SECRET}]\n"])
def test_a_non_spec_given_on_the_command_line_is_never_shown(tmp_path, capsys, content):
    env = tmp_path / ".env"
    env.write_text(content)
    assert main([str(env), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert SECRET not in err
    assert ("not a genreport spec" in err) or ("must be a mapping of keys to values, not" in err)


# ----------------------------------------------------------------------------------------------- writing a report

NEW = Built("small", {"results.json": b'{"new": true}\n', "report.html": b"<p>new</p>\n",
                      "report.pdf": b"%PDF new\n", "figures/roofline.svg": b"<svg>new</svg>\n"})


def test_a_symlink_at_the_output_folder_is_replaced_never_followed(tmp_path):
    """Issue 17.1: a link at out/<name> made the build copy its target into out/ and left .NAME.old behind."""
    target = tmp_path / "private"
    target.mkdir()
    (target / "id_rsa").write_text("PRIVATE KEY")
    (target / "report.html").write_text("not mine")
    before = snapshot(target)
    out = tmp_path / "out"
    out.mkdir()
    (out / "small").symlink_to(target, target_is_directory=True)
    for _ in range(2):  # and later builds do not fail
        B.write(NEW, out, "small")
        assert not (out / "small").is_symlink()
        assert snapshot(out / "small") == NEW.files
        assert sorted(p.name for p in out.iterdir()) == [".stamps", "small"]
    assert snapshot(target) == before


def test_a_symlinked_file_inside_the_output_folder_is_not_copied(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("PRIVATE")
    dest = tmp_path / "out" / "small"
    dest.mkdir(parents=True)
    (dest / "report.pdf").symlink_to(secret)
    (dest / "figures").mkdir()
    (dest / "figures" / "fig1.svg").symlink_to(secret)
    B.write(Built("small", {"results.json": b"{}\n"}), tmp_path / "out", "small")
    assert snapshot(dest) == {"results.json": b"{}\n"}
    assert secret.read_text() == "PRIVATE"


def test_a_leftover_backup_link_does_not_break_the_next_build(tmp_path):
    out = tmp_path / "out"
    (out / "small").mkdir(parents=True)
    (out / ".small.old").symlink_to(tmp_path, target_is_directory=True)
    B.write(NEW, out, "small")
    assert snapshot(out / "small") == NEW.files and not os.path.lexists(out / ".small.old")
    assert tmp_path.is_dir()


def test_an_output_folder_holds_one_build(tmp_path):
    """Issue 13.5: after a build with fewer formats, no file of an earlier build stays beside the new ones."""
    out = tmp_path / "out"
    B.write(NEW, out, "small")
    B.write(Built("small", {"results.json": b'{"json only": true}\n'}), out, "small")
    assert snapshot(out / "small") == {"results.json": b'{"json only": true}\n'}


def _full_disk(monkeypatch, after: int = 0):
    """Make every write to a file fail with ENOSPC after ``after`` successful ones."""
    calls = {"n": 0}
    real_write_bytes = Path.write_bytes
    real_fdopen = os.fdopen

    def check():
        calls["n"] += 1
        if calls["n"] > after:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def write_bytes(self, data):
        check()
        return real_write_bytes(self, data)

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, data):
            check()
            return self.fh.write(data)

    monkeypatch.setattr(Path, "write_bytes", write_bytes)
    monkeypatch.setattr(fileio.os, "fdopen", lambda *a, **k: Full(real_fdopen(*a, **k)))


@pytest.mark.parametrize("after", [0, 2])
def test_a_full_disk_leaves_the_previous_report_and_no_temporary_folder(tmp_path, monkeypatch, after):
    """Issue 17.10: on a full disk a build left its partial temporary folder behind."""
    out = tmp_path / "out"
    B.write(Built("small", {"results.json": b"old\n"}), out, "small")
    _full_disk(monkeypatch, after)
    with pytest.raises(BuildError) as exc:
        B.write(NEW, out, "small")
    assert "No space left on device; free some space" in str(exc.value)
    assert "writable" not in str(exc.value)
    assert snapshot(out / "small") == {"results.json": b"old\n"}
    assert sorted(p.name for p in out.iterdir()) == [".stamps", "small"]


def test_a_full_disk_during_a_sweep_leaves_no_partial_file(tmp_path, monkeypatch, capsys):
    out = tmp_path / "sweep"
    out.mkdir()
    _full_disk(monkeypatch, after=1)
    code = main(["sweep", "--models", "llama-3.1-8b", "--hardware", "h100-sxm", "--precision", "bf16",
                 "--batch", "1,64", "--context", "1k", "--format", "csv", "-o", str(out)])
    assert code == 2
    assert "No space left on device" in capsys.readouterr().err
    assert list(out.iterdir()) == []


def test_a_build_waits_for_the_lock_then_fails_clearly(tmp_path, monkeypatch):
    out = tmp_path / "out"
    monkeypatch.setenv("GENREPORT_LOCK_TIMEOUT", "0.3")
    with fileio.folder_lock(out, "small"):
        pid = os.fork()
        if pid == 0:  # another process: the lock is per process (flock on its own open file)
            try:
                B.write(NEW, out, "small")
                os._exit(0)
            except BuildError as exc:
                os._exit(7 if "another genreport build is writing" in str(exc) else 8)
            except BaseException:
                os._exit(9)
        _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 7
    assert not (out / "small").exists()
    B.write(NEW, out, "small")  # released: the next build writes
    assert snapshot(out / "small") == NEW.files


WRITER = """
import sys
import tempfile
from pathlib import Path
import genreport.write.build as B
out, who, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for i in range(rounds):
    files = {"results.json": f"{who} {i}\\n".encode() * 2000, "report.html": f"{who} {i}\\n".encode() * 5000,
             f"figures/{who}.svg": f"{who} {i}".encode()}
    B.write(B.Built("small", files), out, "small")
"""


def test_concurrent_builds_of_one_folder_all_succeed(tmp_path):
    """Issue 17.13: 163 of 600 concurrent writes failed.  Now every one succeeds and the folder is always one
    writer's whole build."""
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(out), f"w{k}", "25"], env=env,
                              stderr=subprocess.PIPE, text=True) for k in range(4)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    files = snapshot(out / "small")
    who = next(k for k in files if k.startswith("figures/")).split("/")[1][:-4]
    assert files == {"results.json": f"{who} 24\n".encode() * 2000, "report.html": f"{who} 24\n".encode() * 5000,
                     f"figures/{who}.svg": f"{who} 24".encode()}
    assert sorted(p.name for p in out.iterdir()) == [".stamps", "small"]


def test_concurrent_cli_builds_of_one_report_all_succeed(tmp_path):
    """The same through the command: several `genreport SPEC --force` at once, each exits 0."""
    spec = tmp_path / "small.yaml"
    spec.write_text(SMALL)
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-m", "genreport", str(spec), "--format", "json", "--force", "-q",
                               "-o", str(out)], env=env, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    assert sorted(p.name for p in out.iterdir()) == [".stamps", "small"]
    assert sorted(snapshot(out / "small")) == ["results.json"]


# ----------------------------------------------------------------------------------------------- up to date

def _project(tmp_path: Path) -> Path:
    """A project with a specs/ folder and no hardware of its own: 'h100-sxm' is the built-in one."""
    spec = tmp_path / "proj" / "specs" / "probe.yaml"
    spec.parent.mkdir(parents=True)
    spec.write_text(REPORT.format(hardware="h100-sxm"))
    return spec


def test_a_project_file_that_shadows_the_catalog_triggers_a_rebuild(tmp_path, capsys):
    """Issue 13.4: a project-local specs/hardware/h100-sxm.yaml was not in the up-to-date key."""
    spec = _project(tmp_path)
    out = tmp_path / "out"
    args = [str(spec), "--format", "json", "-o", str(out)]
    assert main(args) == 0
    assert main(args) == 0
    assert "up to date" in capsys.readouterr().out
    local = spec.parent / "hardware" / "h100-sxm.yaml"
    local.parent.mkdir()
    local.write_text(H100.replace('bandwidth: "3.35 TB/s"', 'bandwidth: "4.8 TB/s"'))
    assert 'bandwidth: "4.8 TB/s"' in local.read_text()
    assert main(args) == 0
    assert "up to date" not in capsys.readouterr().out
    doc = json.loads((out / "probe" / "results.json").read_text())
    assert doc["inputs"]["hardware"]["bandwidth"] == pytest.approx(4.8e12)


def test_an_edited_or_extra_output_file_triggers_a_rebuild(tmp_path, capsys):
    spec = _project(tmp_path)
    out = tmp_path / "out"
    args = [str(spec), "--format", "json", "-o", str(out)]
    assert main(args) == 0
    good = (out / "probe" / "results.json").read_bytes()
    (out / "probe" / "results.json").write_text("{}")
    capsys.readouterr()
    assert main(args) == 0
    assert "up to date" not in capsys.readouterr().out
    assert (out / "probe" / "results.json").read_bytes() == good
    (out / "probe" / "report.pdf").write_bytes(b"%PDF of another spec")
    assert main(args) == 0
    assert "up to date" not in capsys.readouterr().out
    assert snapshot(out / "probe") == {"results.json": good}


def test_the_code_digest_covers_every_module_that_shapes_validation(tmp_path, monkeypatch):
    """Issue 13.4: the schema-valid markers missed units.py and yamlread.py in their key."""
    import shutil

    from genreport import fingerprint, paths
    from genreport.load import loader
    from genreport.load.yamlread import read

    pkg = tmp_path / "pkg"
    shutil.copytree(paths.PKG, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(paths, "code_folders", lambda: (pkg, paths.formulas_dir(), paths.templates_dir()))
    doc = read(specs_dir() / "hardware" / "h100-sxm.yaml")
    fingerprint.code_digest.cache_clear()
    try:
        before = loader._valid_marker(doc, "hardware", ())
        for module in ("load/units.py", "load/yamlread.py", "load/spec.py", "errors.py"):
            (pkg / module).write_text((pkg / module).read_text() + "\n# edited\n")
            fingerprint.code_digest.cache_clear()
            after = loader._valid_marker(doc, "hardware", ())
            assert after != before, module
            before = after
    finally:
        fingerprint.code_digest.cache_clear()



def test_the_code_digest_is_the_same_before_and_after_the_build_sets_its_date(monkeypatch):
    """The caches' key read SOURCE_DATE_EPOCH as it was at the process's first digest: unset before the build set it
    to "0" (commands.cli, printing.pdf), so a cache made by a library caller's first build (or an xdist worker whose
    tests had not set it yet) missed in the next process (tests/test_figure_store.py failed under -n 3). Unset is "0";
    another date is another key."""
    from genreport import fingerprint

    digests = []
    try:
        for value in (None, "0", "1700000000"):
            if value is None:
                monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
            else:
                monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
            fingerprint.code_digest.cache_clear()
            digests.append(fingerprint.code_digest())
    finally:
        fingerprint.code_digest.cache_clear()
    assert digests[0] == digests[1] != digests[2]


# ----------------------------------------------------------------------------------------------- --check

SMALL = """kind: report
name: small
title: Small
hardware: h100-sxm
model: llama-3.1-8b
precision: bf16
workloads:
  decode: {batch: [1], context: [128]}
"""


def test_check_compares_the_pdf_and_names_each_file(tmp_path, capsys, monkeypatch):
    """Issue 13.5: --check ignored the PDF entirely (deleting it still 'matched').  The first check builds afresh
    (and matches what the build wrote); the two after it compare the folder, changed, with that check's build (a
    build is the same bytes each time: tests/test_golden.py), not with a third and fourth build of the same spec."""
    import genreport.write.build as build_module

    spec = tmp_path / "small.yaml"
    spec.write_text(SMALL)
    out = tmp_path / "out"
    assert main([str(spec), "--format", "pdf,json", "-o", str(out), "-q"]) == 0
    check = [str(spec), "--format", "pdf,json", "-o", str(out), "--check"]
    fresh, made = build_module.build, []

    def once(*args, **kwargs):
        if not made:
            made.append((args, kwargs, fresh(*args, **kwargs)))
        assert made[0][:2] == (args, kwargs)
        return made[0][2]

    monkeypatch.setattr(build_module, "build", once)
    assert main(check) == 0
    assert "matches a fresh build" in capsys.readouterr().out and len(made) == 1
    pdf = out / "small" / "report.pdf"
    good = pdf.read_bytes()
    pdf.write_bytes(good[:1000] + bytes([good[1000] ^ 1]) + good[1001:])
    assert main(check) == 4  # a difference, not bad input (cli.EXIT)
    err = capsys.readouterr().err
    assert "report.pdf differs" in err and "results.json" not in err
    pdf.unlink()
    (out / "small" / "report.html").write_text("<p>another spec</p>")
    assert main(check) == 4
    err = capsys.readouterr().err
    assert "report.pdf is missing" in err and "report.html is not part of this build" in err


# ----------------------------------------------------------------------------------------------- import-hf

CONFIG = ROOT / "tests" / "fixtures" / "hf" / "llama-3.1-8b.json"


def test_import_hf_refuses_devices_and_fifos_quickly(tmp_path):
    """Issue 17.9: import-hf read /dev/zero without bound and hung on a FIFO."""
    fifo = tmp_path / "config.json"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(fifo)):
        done = run_cli(["import-hf", path], tmp_path, timeout=30, memory=1 << 30)
        assert done.returncode == 1, done.stderr
        assert "is not a regular file" in done.stderr and "Traceback" not in done.stderr


def test_import_hf_output_is_not_overwritten_or_written_through_a_link(tmp_path, capsys):
    out = tmp_path / "model.yaml"
    out.write_text("mine\n")
    assert main(["import-hf", str(CONFIG), "-o", str(out)]) == 1
    assert "exists; pass --force" in capsys.readouterr().err
    assert out.read_text() == "mine\n"
    target = tmp_path / "target.yaml"
    target.write_text("target\n")
    link = tmp_path / "link.yaml"
    link.symlink_to(target)
    for extra in ([], ["--force"]):
        assert main(["import-hf", str(CONFIG), "-o", str(link), *extra]) == 2
        assert "symbolic link" in capsys.readouterr().err
    assert target.read_text() == "target\n" and link.is_symlink()
    assert main(["import-hf", str(CONFIG), "-o", str(out), "--force"]) == 0
    assert out.read_text().startswith("# yaml-language-server") or "kind: model" in out.read_text()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_import_hf_errors_name_the_config_not_a_temporary_file(tmp_path, monkeypatch, capsys):
    from genreport.commands import import_hf

    real = import_hf.render
    monkeypatch.setattr(import_hf, "render", lambda *a: real(*a).replace("layers:", "layers: 0\n_was:"))
    assert main(["import-hf", str(CONFIG)]) == 1
    err = capsys.readouterr().err
    assert "imported.yaml" not in err and "/tmp" not in err.replace(str(tmp_path), "")
    assert "llama-3.1-8b.json:1:1:" in err and "the imported model spec would not load" in err


# ----------------------------------------------------------------------------------------------- calibrate

MEASURED = {
    "device": "cpu", "model": "Test CPU", "vendor": "Example", "threads": 4, "capacity": 16 * 2**30,
    "memory_type": "system RAM", "bandwidth": 25.6e9,
    "bandwidth_detail": {"copy": 25.6e9, "add": 24.1e9, "array_bytes": 256 * 2**20, "threads": 4},
    "peaks": {"fp32": 412.5e9}, "extra_peaks": {"fp64": 206.25e9},
    "matmul_detail": {"fp32": {"n": 2048}, "fp64": {"n": 2048}},
    "skipped": {}, "software": "numpy X, some BLAS", "wall_s": 1.0,
}


def test_calibrate_names_the_spec_after_its_file(tmp_path, monkeypatch, capsys):
    """Issue 16.9: 'calibrate -o specs/hardware/this-machine.yaml' wrote 'name: cpu-calibrated', which the
    loader could not find by that name."""
    from genreport.commands import calibrate
    from genreport.load.loader import load_report

    monkeypatch.setattr(calibrate, "measure_cpu", lambda seconds: dict(MEASURED))
    monkeypatch.chdir(tmp_path)
    assert main(["calibrate", "-o", "specs/hardware/this-machine.yaml"]) == 0
    spec = tmp_path / "specs" / "probe.yaml"
    spec.write_text(REPORT.format(hardware="this-machine").replace("bf16", "fp32"))
    assert load_report(spec).hardware.name == "this-machine"
    assert main(["calibrate", "-o", "specs/hardware/other.yaml", "--name", "mybox"]) == 1
    assert "write it to specs/hardware/mybox.yaml" in capsys.readouterr().err
    assert not (tmp_path / "specs" / "hardware" / "other.yaml").exists()


def test_write_file_never_leaves_its_temporary_file(tmp_path):
    def chunks():
        yield b"part"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        fileio.write_chunks(tmp_path / "x.csv", chunks())
    assert list(tmp_path.iterdir()) == []
    fileio.write_file(tmp_path / "x.csv", b"one")
    with pytest.raises(BuildError, match="exists; pass --force"):
        fileio.write_file(tmp_path / "x.csv", b"two", overwrite=False)
    assert (tmp_path / "x.csv").read_bytes() == b"one" and len(list(tmp_path.iterdir())) == 1


# ----------------------------------------------------------------------------------------------- fuzz

ENTRY = st.sampled_from(["file", "dir", "link-out-file", "link-out-dir", "link-dangling", "fifo"])
RELS = st.sampled_from(["report.html", "report.pdf", "results.json", "figures", "figures/roofline.svg",
                        "figures/old.svg", "notes.txt", "sub/deeper"])


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(dest=st.sampled_from(["dir", "link-out-dir", "file", "fifo", "none"]),
       entries=st.lists(st.tuples(RELS, ENTRY), max_size=6),
       leftovers=st.lists(st.sampled_from([".small.old", ".small.tmp-x"]), max_size=2, unique=True))
def test_fuzz_whatever_is_in_the_output_folder_a_build_writes_exactly_itself(dest, entries, leftovers):
    """A hostile or damaged OUT/<name> (links out, FIFOs, files where folders go, dead builds' leftovers):
    the build writes exactly its files, touches nothing outside, and the next build succeeds."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        outside = tmp / "outside"
        (outside / "d").mkdir(parents=True)
        (outside / "f").write_text("outside")
        (outside / "d" / "g").write_text("outside too")
        before = snapshot(outside)
        out = tmp / "out"
        out.mkdir()
        target = out / "small"
        _make(target, dest, outside)
        if dest == "dir":
            for rel, kind in entries:
                with contextlib.suppress(OSError):
                    _make(target / rel, kind, outside)
        for name in leftovers:
            _make(out / name, "link-out-dir" if name.endswith(".old") else "dir", outside)
        # a folder with what a report does not hold (notes.txt, sub/), or a file or FIFO at OUT/<name>, is not a
        # report: the build refuses to replace it (hostile review, stop 75: `-o . --name specs` deleted the specs)
        foreign = dest in ("file", "fifo") or any(
            rel.split("/")[0] not in B.REPORT_FILES or (rel.startswith("figures/") and kind == "dir")
            for rel, kind in entries if os.path.lexists(target / rel) and not (target / rel.split("/")[0]).is_symlink()
            and (rel.split("/")[0] != "figures" or (target / "figures").is_dir()))
        assert bool(B._foreign(target)) == foreign, (dest, entries)
        if foreign:
            kept = {p.name for p in target.iterdir()} if target.is_dir() else None
            with pytest.raises(BuildError, match="cannot write .*small: it (is a file|holds what a report does not)"):
                B.write(NEW, out, "small")
            assert os.path.lexists(target) and (kept is None or {p.name for p in target.iterdir()} == kept)
            assert snapshot(outside) == before
            return
        for _ in range(2):
            B.write(NEW, out, "small")
            assert snapshot(target) == NEW.files and not target.is_symlink()
            assert sorted(p.name for p in out.iterdir()) == [".stamps", "small"]
        assert snapshot(outside) == before


def test_a_folder_that_is_not_a_report_is_never_replaced(tmp_path, capsys):
    """Hostile review, stop 75: ``genreport specs/small.yaml -o . --name specs`` replaced ./specs, the spec itself and
    the notes beside it, with the report, exit 0.  A build replaces only a report folder (report.html, report.pdf,
    results.json, figures/*.svg, or nothing); a folder with anything else, or a file at OUT/NAME, is left as it is:
    exit 2 naming it, nothing written."""
    project = tmp_path / "proj"
    (project / "specs").mkdir(parents=True)
    spec = project / "specs" / "small.yaml"
    spec.write_bytes((specs_dir() / "llama8b-h100.yaml").read_bytes())
    (project / "specs" / "NOTES.md").write_text("notes")
    code = main([str(spec), "-o", str(project), "--name", "specs", "--format", "json", "-q"])
    assert code == 2
    err = capsys.readouterr().err
    assert "holds what a report does not (NOTES.md, small.yaml)" in err and "choose another --name or -o" in err
    assert sorted(p.name for p in (project / "specs").iterdir()) == ["NOTES.md", "small.yaml"]
    (project / "plain").write_text("a file")
    assert main([str(spec), "-o", str(project), "--name", "plain", "--format", "json", "-q"]) == 2
    assert "is a file, not a report folder" in capsys.readouterr().err and (project / "plain").read_text() == "a file"
    # a report folder is replaced, an earlier format's files and old figures with it
    assert main([str(spec), "-o", str(project), "--name", "r", "--format", "json", "-q"]) == 0
    (project / "r" / "figures").mkdir()
    (project / "r" / "figures" / "old.svg").write_text("<svg/>")
    assert main([str(spec), "-o", str(project), "--name", "r", "--format", "json", "-q", "--force"]) == 0
    assert sorted(p.name for p in (project / "r").iterdir()) == ["results.json"]
    # -o '' is the current folder to Path: it wrote ./NAME unasked; now it names no folder
    assert main([str(spec), "-o", "", "--format", "json", "-q"]) == 1
    assert "-o '': names no folder" in capsys.readouterr().err


def _make(path: Path, kind: str, outside: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "file":
        path.write_text("old")
    elif kind == "dir":
        path.mkdir()
    elif kind == "link-out-file":
        path.symlink_to(outside / "f")
    elif kind == "link-out-dir":
        path.symlink_to(outside / "d", target_is_directory=True)
    elif kind == "link-dangling":
        path.symlink_to(outside / "nothing")
    elif kind == "fifo":
        os.mkfifo(path)
