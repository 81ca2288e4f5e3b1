"""The pipeline: load -> evaluate -> draw -> render -> write.  Only :func:`write` touches ``out/``.

A report is built completely in memory, then written into a temporary folder
beside its destination and swapped in, in one step where the system can, so a
build that fails or is killed at any instant leaves the previous report or the
new one at its name.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from genreport import printing
from genreport.errors import BuildError
from genreport.fileio import (
    SPEC_LIMIT,
    ReadError,
    describe,
    file_hash,
    folder_blocker,
    folder_lock,
    private_dir,
    read_regular,
    remove_tree,
    write_file,
)
from genreport.fingerprint import code_digest

FORMATS = ("html", "pdf", "json")


@dataclass
class Built:
    name: str
    files: dict[str, bytes]  # relative path -> bytes
    warnings: tuple[str, ...] = ()
    timings: dict[str, float] = field(default_factory=dict)
    summary: tuple[str, ...] = ()  # three lines for the terminal: what binds, tokens/s, fits
    formulas: tuple[tuple[str, float, bool], ...] = ()  # (tex, size, inline) of each formula drawn, in order


class Timer:
    """Each stage's time; past a second, a progress line on a terminal names the stage just done."""

    PROGRESS_AFTER = 1.0  # seconds

    def __init__(self, label: str = ""):
        self.t = {}
        self._start = self._last = time.perf_counter()
        self.label = label

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.t[name] = self.t.get(name, 0.0) + now - self._last
        self._last = now
        if self.label and now - self._start >= self.PROGRESS_AFTER:
            from genreport.terminal import progress

            progress(f"genreport: {self.label}: {name} done, {now - self._start:.1f} s")


def build(spec_path: Path, formats=FORMATS, overrides=(), strict: bool = False, spec=None) -> Built:
    """Build one report in memory.  Raises SpecError for bad input and BuildError for the rest.

    ``spec`` is the already loaded spec of ``spec_path`` (with ``overrides``), when the caller has it.
    """
    timer = Timer(f"building {Path(spec_path).stem}")
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate
    from genreport.write.results import results_json

    timer.lap("imports")
    if spec is None:
        spec = load_report(spec_path, overrides=overrides, strict=strict)
    timer.lap("load")
    results = evaluate(spec)
    base_results = None
    if overrides:
        base_results = evaluate(load_report(spec_path, strict=False))
    timer.lap("evaluate")
    files: dict[str, bytes] = {}
    formulas: tuple[tuple[str, float, bool], ...] = ()

    def json_file():
        if "json" in formats and "results.json" not in files:
            files["results.json"] = results_json(results, base_results, overrides).encode()

    if "html" in formats or "pdf" in formats:
        from genreport.present import mathsvg
        from genreport.present.live import without_scripts  # print runs no scripts: the PDF is made without them
        from genreport.present.render import Rendering

        pdf = "pdf" in formats
        with mathsvg.recording() as drawn:
            rendering = Rendering(results, base_results, timer, tuple(overrides), for_print=pdf,
                                  want_phone="html" in formats)
            printed, finished = None, {}
            try:
                if pdf:  # the printer imports WeasyPrint and lays the pages out while the figures are drawn
                    printing.prepare(without_scripts(rendering.print_marked), rendering.print_marks, rendering.ready(),
                                     idle=json_file)
                    json_file()
                    if timer:
                        timer.lap("pdf-import")
                    print_html, figures = rendering.wide()  # printed while the phone-layout figures are drawn

                    def finish():  # the page's own HTML, made while the PDF worker works (else after the PDF)
                        if finished:
                            return
                        try:
                            finished["html"] = rendering.finish()
                        except Exception as exc:  # noqa: BLE001 - raised below, once the printer has answered
                            finished["error"] = exc

                    if rendering.finish_now():  # now, while the worker builds the pages' boxes on one core: not
                        finish()  # beside its two processes painting; else once the PDF's HTML is sent
                    printed = printing.print_pdf(without_scripts(print_html), figures, timer, idle=finish)
                    if "error" in finished:
                        raise finished["error"]
                html, figures = finished["html"] if "html" in finished else rendering.finish()
            except BaseException:
                rendering.cancel()
                raise
        formulas = tuple(drawn)
        for name, svg in figures.items():
            files[f"figures/{name}.svg"] = svg
        if "html" in formats:
            files["report.html"] = html.encode()
        if printed is not None:
            files["report.pdf"] = printed
    json_file()
    from genreport.present.summary import terminal_lines

    return Built(spec.name, files, spec.warnings, timer.t, tuple(terminal_lines(results)), formulas)


# What a report folder holds (:func:`write`): these names at its top, figures' SVGs under figures/.  A folder with
# anything else is not a report (a user's notes, the specs themselves: ``-o . --name specs``) and is never replaced.
REPORT_FILES = frozenset({"report.html", "report.pdf", "results.json", "figures"})


def _foreign(dest: Path) -> list[str]:
    """What at ``dest`` a build did not write and would delete by replacing it: [] where it is absent, a link (the
    link goes, never what it names), or a folder of REPORT_FILES and figures/*.svg (links, damaged files and FIFOs
    under those names included: a hostile or broken report is still replaced); else the names that are not a
    report's ("the file itself" where ``dest`` is not a folder)."""
    if not os.path.lexists(dest) or dest.is_symlink():
        return []
    if not dest.is_dir():
        return ["the file itself"]
    found = []
    with os.scandir(dest) as entries:
        for entry in entries:
            if entry.name not in REPORT_FILES:
                found.append(entry.name)
            elif entry.name == "figures" and entry.is_dir(follow_symlinks=False):
                with os.scandir(entry.path) as figures:
                    found += [f"figures/{f.name}" for f in figures
                              if not f.name.endswith(".svg") or f.is_dir(follow_symlinks=False)]
    return sorted(found)


def write(built: Built, out_root: Path, name: str | None = None) -> Path:
    """Write a built report to ``out_root/<name>/`` atomically; returns the folder.

    The folder then holds this build and nothing else: files of formats not built this time (and figures
    no longer made) are gone, so no report.pdf of another spec sits beside a new report.html.  Whatever was
    at ``out_root/<name>`` (a report folder, a symbolic link: not a folder with anything a build does not write, nor a
    file, which are left as they are, the build failing with their names, :func:`_foreign`) is swapped out, never read or followed, and
    removed (a link itself, not what it points to).  The swap is one step (:func:`_exchange`), so a kill at
    any instant leaves the previous report or this one at ``out_root/<name>``; where the system has no such
    step it is two renames, and a build killed between them leaves the previous report in ``.<name>.old``,
    put back by the next write (:func:`_recover`).  One build writes a folder at a time (a lock in
    ``OUT/.stamps``); a failure at any point (a full disk, Ctrl-C) removes the temporary folder and leaves
    the previous report as it was.
    """
    name = name or built.name
    out_root = Path(out_root)
    dest = out_root / name
    try:
        out_root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        # -o names a file (it said "cannot write OUT/NAME: File exists" with no fix), a file's folder ("Not a
        # directory") or a dangling link ("is a file"; hostile input, round eight): which, and what to do
        blocker = folder_blocker(out_root)
        if blocker and os.path.islink(blocker[0]):
            raise BuildError(f"cannot write {dest}: {blocker[0]} {blocker[1]}; genreport does not make folders "
                             "through a link (make the folder it names, or name another folder with -o)") from None
        if blocker or isinstance(exc, FileExistsError):
            raise BuildError(f"cannot write {dest}: {blocker[0] if blocker else out_root} is a file, not a folder; "
                             "name a folder with -o (it is made if missing)") from None
        raise BuildError(f"cannot write {dest}: {describe(exc)}") from None
    with folder_lock(out_root, name):
        tmp = None
        try:
            _recover(dest)
            foreign = _foreign(dest)
            if foreign:
                shown = ", ".join(foreign[:4]) + (f" and {len(foreign) - 4} more" if len(foreign) > 4 else "")
                what = "is a file, not a report folder" if foreign == ["the file itself"] else \
                    f"holds what a report does not ({shown})"
                raise BuildError(f"cannot write {dest}: it {what}, and a build replaces the folder whole; move "
                                 "that away, or choose another --name or -o")
            tmp = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=out_root))
            tmp.chmod(0o755)
            for rel, data in sorted(built.files.items()):
                path = tmp / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            if os.path.lexists(dest) and _exchange(tmp, dest):
                previous, tmp = tmp, None  # the temporary name now holds the previous report
                with contextlib.suppress(OSError):  # else removed by the next write, as a dead build's
                    remove_tree(previous)
            elif os.path.lexists(dest):
                backup = out_root / f".{name}.old"
                if os.path.lexists(backup):
                    remove_tree(backup)
                os.replace(dest, backup)
                os.replace(tmp, dest)
                tmp = None
                with contextlib.suppress(OSError):
                    remove_tree(backup)
            else:
                os.replace(tmp, dest)
                tmp = None
        except OSError as exc:
            raise BuildError(f"cannot write {dest}: {describe(exc)}") from None
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    remove_tree(tmp)
    return dest


_RENAME_EXCHANGE = 2  # linux/fs.h
_AT_FDCWD = -100
_renameat2 = None  # libc's renameat2 once looked up; False where there is none


def _exchange(a: Path, b: Path) -> bool:
    """Swap the entries at ``a`` and ``b`` in one step (Linux's ``renameat2(RENAME_EXCHANGE)``, glibc 2.28+):
    at no instant is either name missing.  False, with nothing changed, where the C library or the file system
    cannot (the caller then renames twice); any other failure raises OSError as a rename would."""
    global _renameat2
    if _renameat2 is None:
        try:
            import ctypes

            _renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
            _renameat2.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
        except (OSError, AttributeError, ImportError):
            _renameat2 = False
    if _renameat2 is False:
        return False
    import ctypes
    import errno

    if _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):  # an old kernel, a file system
        return False  # (some network and FUSE ones) without the flag
    raise OSError(code, os.strerror(code), str(b))


def _recover(dest: Path) -> None:
    """A build killed between its two renames (where there is no one-step swap) left ``.<name>.old``: put it
    back (or remove it, when the new report did get in).  Called under the lock, so every ``.<name>.tmp-*``
    left is a dead build's (its new files, or the previous report it swapped out)."""
    backup = dest.parent / f".{dest.name}.old"
    if os.path.lexists(backup) and not os.path.lexists(dest):
        os.replace(backup, dest)
    elif os.path.lexists(backup):  # the report a build killed after its second rename had moved aside
        with contextlib.suppress(OSError):
            remove_tree(backup)
    for stale in dest.parent.glob(f".{dest.name}.tmp-*"):
        with contextlib.suppress(OSError):
            remove_tree(stale)


# A stamp per (spec file, formats, overrides, output name) lists every file the loader read or looked for
# (absolute path -> SHA-256, or null where no file was), the files the build wrote, the code digest and the
# point budget it was built under.  When no input changed or appeared, the folder holds exactly what was
# written, neither did the code, and the budget now is no smaller (so the spec still fits it), the rebuild is
# skipped without parsing anything.  Inputs are re-read with the loader's guards.  A stamp whose folder has
# since been written by another build can never match again and is removed then, and at most MAX_STAMPS are
# kept (the newest), so a server answering thousands of what-ifs keeps a bounded folder.

OUTPUT_LIMIT = 1 << 30  # bytes; a report's files are a few MB
MAX_STAMPS = 256  # stamps kept in OUT/.stamps: one a live (spec, formats, overrides, name); about 2 kB each


def _stamp_path(out_root: Path, spec_path: Path, formats, overrides, name: str | None) -> Path:
    h = hashlib.sha256(str(Path(spec_path).resolve()).encode())
    for part in (",".join(sorted(formats)), "\0".join(overrides), name or ""):
        h.update(b"\0" + part.encode())
    return Path(out_root) / ".stamps" / f"q-{h.hexdigest()[:24]}.json"


def _read_stamp(path: Path) -> dict:
    try:
        stamp = json.loads(read_regular(path, SPEC_LIMIT))
    except (ReadError, ValueError):
        return {}
    return stamp if isinstance(stamp, dict) else {}


def quick_up_to_date(out_root: Path, spec_path: Path, formats, overrides, name: str | None) -> str | None:
    """The output folder name if the last build from these inputs is still current, else None."""
    from genreport.load.budget import max_points

    stamp = _read_stamp(_stamp_path(out_root, spec_path, formats, overrides, name))
    inputs, outputs, out = stamp.get("inputs"), stamp.get("outputs"), stamp.get("out")
    if stamp.get("code") != code_digest() or not isinstance(inputs, dict) or not isinstance(outputs, dict):
        return None
    budget = stamp.get("budget")
    if type(budget) is not int or budget > max_points():  # built under --max-points: the loader checks again
        return None
    if not isinstance(out, str) or not out or "/" in out or out.startswith("."):
        return None
    if any(file_hash(f) != digest for f, digest in inputs.items()):
        return None
    return out if folder_digests(Path(out_root) / out) == outputs else None


# opened without following a link, and never blocking (a FIFO in the folder is refused, not waited on)
_FILE_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = _FILE_FLAGS | getattr(os, "O_DIRECTORY", 0)


def folder_digests(folder: Path) -> dict[str, str] | None:
    """Relative path -> SHA-256 of every file in ``folder``; None if it or anything in it is not a plain
    folder or regular file (a symbolic link, a FIFO), or a file is too large.

    It takes no lock (``--check`` writes and locks nothing): the folder is read through one open handle, each
    entry opened relative to its parent without following a link, so a build swapping in a new folder meanwhile
    cannot mix two reports; when the name no longer holds the folder read, it is read again.
    """
    for _attempt in range(5):
        try:
            top = os.open(folder, _DIR_FLAGS)
        except OSError:  # missing, a symbolic link, not a folder
            return None
        try:
            try:
                out = _digests(top)
            except OSError:  # a file gone: a build removing the folder it swapped out, or a real error
                out = None
            here = os.fstat(top)
        finally:
            os.close(top)
        try:
            now = os.lstat(folder)
        except OSError:
            return None
        if (now.st_dev, now.st_ino) == (here.st_dev, here.st_ino):
            return out
    return None


def _digests(top: int) -> dict[str, str] | None:
    """The digests of the folder open as ``top`` (see :func:`folder_digests`); subfolders one at a time, no
    recursion (a folder nested 10,000 deep is read as any other)."""
    out: dict[str, str] = {}
    stack = [(top, "")]
    try:
        while stack:
            fd, prefix = stack.pop()
            try:
                with os.scandir(fd) as entries:
                    names = sorted(e.name for e in entries)
                for name in names:
                    info = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    if stat.S_ISDIR(info.st_mode):
                        stack.append((os.open(name, _DIR_FLAGS, dir_fd=fd), f"{prefix}{name}/"))
                    elif not stat.S_ISREG(info.st_mode):
                        return None
                    elif (digest := _file_digest(fd, name)) is None:
                        return None
                    else:
                        out[prefix + name] = digest
            finally:
                if fd != top:
                    os.close(fd)
    finally:
        for fd, _ in stack:
            os.close(fd)
    return out


def _file_digest(dir_fd: int, name: str) -> str | None:
    """SHA-256 of a regular file (checked on the open file: a FIFO swapped in never blocks), or None."""
    fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > OUTPUT_LIMIT:
            return None
        h, size = hashlib.sha256(), 0
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > OUTPUT_LIMIT:
                return None
            h.update(chunk)
        return h.hexdigest()
    finally:
        os.close(fd)


def input_files(spec_path: Path, spec) -> list[Path]:
    """Every file a loaded report spec was read from: itself, its hardware and model, those it compares with."""
    files = [Path(spec_path), Path(spec.hardware.file), Path(spec.model.file),
             *(Path(h.file) for h in spec.compare_hardware if h is not None),
             *(Path(m.file) for m in spec.compare_models if m is not None)]
    return list(dict.fromkeys(files))


def stamp_files(out_root: Path, spec_path: Path, formats, overrides, name: str | None) -> list[Path]:
    """The input files the last build's stamp lists, those looked for but missing included (empty without one)."""
    inputs = _read_stamp(_stamp_path(out_root, spec_path, formats, overrides, name)).get("inputs")
    return [Path(f) for f in inputs] if isinstance(inputs, dict) else []


def write_quick_stamp(out_root: Path, spec_path: Path, formats, overrides, name: str | None,
                      inputs: dict[str, str | None], built: Built, out: str) -> None:
    """Record what this build read (``inputs``, from :func:`genreport.fileio.recording`) and wrote, and drop
    the stamps that can no longer match (see above)."""
    from genreport.load.budget import max_points

    outputs = {rel: hashlib.sha256(data).hexdigest() for rel, data in built.files.items()}
    stamp = {"code": code_digest(), "out": out, "inputs": inputs, "outputs": outputs, "budget": max_points()}
    path = _stamp_path(out_root, spec_path, formats, overrides, name)
    try:
        private_dir(Path(out_root))
        write_file(path, json.dumps(stamp, sort_keys=True).encode())
    except BuildError:
        return  # no stamp: the next build is not skipped, nothing else
    with contextlib.suppress(OSError):
        prune_stamps(path.parent, path.name, out, outputs)


def prune_stamps(folder: Path, kept: str, out: str, outputs: dict[str, str]) -> None:
    """Remove, in ``OUT/.stamps``, every stamp but ``kept`` that records another build of folder ``out`` (whose
    files that folder no longer holds: it can never match again), every damaged one, and the oldest past
    MAX_STAMPS.  A stamp is only a hint: one removed by a build racing another costs a rebuild, nothing else."""
    alive = []
    with os.scandir(folder) as entries:
        stamps = [e for e in entries if e.name.startswith("q-") and e.name.endswith(".json") and e.name != kept]
    for entry in stamps:
        stamp = _read_stamp(Path(entry.path))
        try:
            if not stamp or (stamp.get("out") == out and stamp.get("outputs") != outputs):
                os.unlink(entry.path)  # a link planted under the name: the link goes, not what it names
            else:
                alive.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.name))
        except OSError:
            continue
    for _mtime, name in sorted(alive)[:max(0, len(alive) + 1 - MAX_STAMPS)]:
        with contextlib.suppress(OSError):
            os.unlink(folder / name)
