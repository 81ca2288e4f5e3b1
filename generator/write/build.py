"""The pipeline: load -> evaluate -> draw -> render -> write.  Only :func:`write` touches ``out/``.

A report is built completely in memory, then written into a temporary folder
beside its destination and swapped in, so a build that fails or is killed
leaves the previous report as it was.
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

from genreport.errors import BuildError
from genreport.fileio import (
    SPEC_LIMIT,
    ReadError,
    describe,
    file_hash,
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


class Timer:
    def __init__(self):
        self.t = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.t[name] = self.t.get(name, 0.0) + now - self._last
        self._last = now


def build(spec_path: Path, formats=FORMATS, overrides=(), strict: bool = False, spec=None) -> Built:
    """Build one report in memory.  Raises SpecError for bad input and BuildError for the rest.

    ``spec`` is the already loaded spec of ``spec_path`` (with ``overrides``), when the caller has it.
    """
    timer = Timer()
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

    def json_file():
        if "json" in formats and "results.json" not in files:
            files["results.json"] = results_json(results, base_results).encode()

    if "html" in formats or "pdf" in formats:
        from genreport.present.live import without_scripts  # print runs no scripts: the PDF is made without them
        from genreport.present.render import render_report

        meanwhile = None
        if "pdf" in formats:
            from genreport.present.pdf import prepare

            def meanwhile(h, marks, figures=None):
                # while the PDF worker lays the pages out, or while this process waits for the other half of them
                prepared = prepare(without_scripts(h), marks, figures, idle=json_file)
                json_file()
                return prepared
        printed: dict[str, bytes] = {}

        def print_first(print_html, figures):  # while the phone-layout figures are drawn
            from genreport.present.pdf import html_to_pdf

            printed["report.pdf"] = html_to_pdf(without_scripts(print_html), figures, timer)

        html, figures = render_report(results, base_results, timer, tuple(overrides), meanwhile,
                                      print_first if "pdf" in formats else None, want_phone="html" in formats)
        for name, svg in figures.items():
            files[f"figures/{name}.svg"] = svg
        if "html" in formats:
            files["report.html"] = html.encode()
        files.update(printed)
    json_file()
    from genreport.present.summary import terminal_lines

    return Built(spec.name, files, spec.warnings, timer.t, tuple(terminal_lines(results)))


def write(built: Built, out_root: Path, name: str | None = None) -> Path:
    """Write a built report to ``out_root/<name>/`` atomically; returns the folder.

    The folder then holds this build and nothing else: files of formats not built this time (and figures
    no longer made) are gone, so no report.pdf of another spec sits beside a new report.html.  Whatever was
    at ``out_root/<name>`` (a folder, a file, a symbolic link) is moved aside, never read or followed, and
    removed (a link itself, not what it points to).  One build writes a folder at a time (a lock in
    ``OUT/.stamps``); a failure at any point (a full disk, Ctrl-C) removes the temporary folder and leaves
    the previous report as it was.
    """
    name = name or built.name
    out_root = Path(out_root)
    dest = out_root / name
    try:
        out_root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BuildError(f"cannot write {dest}: {describe(exc)}") from None
    with folder_lock(out_root, name):
        tmp = None
        try:
            _recover(dest)
            tmp = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=out_root))
            tmp.chmod(0o755)
            for rel, data in sorted(built.files.items()):
                path = tmp / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            if os.path.lexists(dest):
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


def _recover(dest: Path) -> None:
    """A build killed between its two renames left ``.<name>.old``: put it back.  Called under the lock,
    so every ``.<name>.tmp-*`` left is a dead build's."""
    backup = dest.parent / f".{dest.name}.old"
    if os.path.lexists(backup) and not os.path.lexists(dest):
        os.replace(backup, dest)
    for stale in dest.parent.glob(f".{dest.name}.tmp-*"):
        with contextlib.suppress(OSError):
            remove_tree(stale)


# A stamp per (spec file, formats, overrides, output name) lists every file the loader read or looked for
# (absolute path -> SHA-256, or null where no file was), the files the build wrote, and the code digest.
# When no input changed or appeared, the folder holds exactly what was written, and neither did the code,
# the rebuild is skipped without parsing anything.  Inputs are re-read with the loader's guards.

OUTPUT_LIMIT = 1 << 30  # bytes; a report's files are a few MB


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
    stamp = _read_stamp(_stamp_path(out_root, spec_path, formats, overrides, name))
    inputs, outputs, out = stamp.get("inputs"), stamp.get("outputs"), stamp.get("out")
    if stamp.get("code") != code_digest() or not isinstance(inputs, dict) or not isinstance(outputs, dict):
        return None
    if not isinstance(out, str) or not out or "/" in out or out.startswith("."):
        return None
    if any(file_hash(f) != digest for f, digest in inputs.items()):
        return None
    return out if folder_digests(Path(out_root) / out) == outputs else None


def folder_digests(folder: Path) -> dict[str, str] | None:
    """Relative path -> SHA-256 of every file in ``folder``; None if it or anything in it is not a plain
    folder or regular file (a symbolic link, a FIFO), or a file is too large."""
    out: dict[str, str] = {}
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return None
        for here, dirs, files in os.walk(folder):
            for d in dirs:
                if not stat.S_ISDIR(os.lstat(os.path.join(here, d)).st_mode):
                    return None  # a link to a folder
            for f in files:
                path = os.path.join(here, f)
                if not stat.S_ISREG(os.lstat(path).st_mode):
                    return None
                rel = os.path.relpath(path, folder).replace(os.sep, "/")
                out[rel] = hashlib.sha256(read_regular(path, OUTPUT_LIMIT)).hexdigest()
    except (OSError, ReadError):
        return None
    return out


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
    """Record what this build read (``inputs``, from :func:`genreport.fileio.recording`) and wrote."""
    outputs = {rel: hashlib.sha256(data).hexdigest() for rel, data in built.files.items()}
    stamp = {"code": code_digest(), "out": out, "inputs": inputs, "outputs": outputs}
    try:
        private_dir(Path(out_root))
        write_file(_stamp_path(out_root, spec_path, formats, overrides, name),
                   json.dumps(stamp, sort_keys=True).encode())
    except BuildError:
        pass  # no stamp: the next build is not skipped, nothing else
