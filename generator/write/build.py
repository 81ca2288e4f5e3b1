"""The pipeline: load -> evaluate -> draw -> render -> write.  Only :func:`write` touches ``out/``.

A report is built completely in memory, then written into a temporary folder
beside its destination and swapped in, so a build that fails or is killed
leaves the previous report as it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from genreport import __version__
from genreport.errors import BuildError

FORMATS = ("html", "pdf", "json")


@dataclass
class Built:
    name: str
    files: dict[str, bytes]  # relative path -> bytes
    warnings: tuple[str, ...] = ()
    timings: dict[str, float] = field(default_factory=dict)


def code_digest() -> str:
    """Hash of everything that shapes a report besides the spec: code, templates, versions."""
    from genreport.paths import code_folders

    h = hashlib.sha256(__version__.encode())
    for folder in code_folders():
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in (".py", ".j2", ".css", ".json") and "__pycache__" not in path.parts:
                h.update(str(path.relative_to(folder)).encode())
                h.update(path.read_bytes())
    return h.hexdigest()


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
    if "json" in formats:
        files["results.json"] = results_json(results, base_results).encode()
    if "html" in formats or "pdf" in formats:
        from genreport.present.render import render_report

        meanwhile = None
        if "pdf" in formats:
            from genreport.present.pdf import prepare as meanwhile
        html, figures = render_report(results, base_results, timer, tuple(overrides), meanwhile)
        for name, svg in figures.items():
            files[f"figures/{name}.svg"] = svg
        if "html" in formats:
            files["report.html"] = html.encode()
        if "pdf" in formats:
            from genreport.present.pdf import html_to_pdf

            files["report.pdf"] = html_to_pdf(html, figures, timer)
    return Built(spec.name, files, spec.warnings, timer.t)


def write(built: Built, out_root: Path, name: str | None = None) -> Path:
    """Write a built report to ``out_root/<name>/`` atomically; returns the folder."""
    name = name or built.name
    out_root = Path(out_root)
    dest = out_root / name
    try:
        out_root.mkdir(parents=True, exist_ok=True)
        _recover(dest)
        tmp = Path(tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=out_root))
        tmp.chmod(0o755)
        for rel, data in sorted(built.files.items()):
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        if dest.exists():
            # keep files of formats not rebuilt this time (e.g. --format json keeps report.pdf)
            for old in dest.rglob("*"):
                rel = old.relative_to(dest)
                if old.is_file() and not (tmp / rel).exists() and not _is_generated_figure(rel, built):
                    (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(old, tmp / rel)
            backup = out_root / f".{name}.old"
            if backup.exists():
                shutil.rmtree(backup)
            os.replace(dest, backup)
            os.replace(tmp, dest)
            shutil.rmtree(backup, ignore_errors=True)
        else:
            os.replace(tmp, dest)
    except OSError as exc:
        raise BuildError(f"cannot write {dest}: {exc.strerror or exc}; check that the folder is writable") from None
    return dest


def _is_generated_figure(rel: Path, built: Built) -> bool:
    """Old figures are dropped when this build made figures (a renamed figure must not linger)."""
    return rel.parts[:1] == ("figures",) and any(k.startswith("figures/") for k in built.files)


def _recover(dest: Path) -> None:
    """A build killed between its two renames left ``.<name>.old``: put it back."""
    backup = dest.parent / f".{dest.name}.old"
    if backup.exists() and not dest.exists():
        os.replace(backup, dest)
    for stale in dest.parent.glob(f".{dest.name}.tmp-*"):
        shutil.rmtree(stale, ignore_errors=True)


# A stamp per (spec file, formats, overrides, output name) lists the files the build read with their
# hashes; when none changed and neither did the code, the rebuild is skipped without parsing anything.

def _quick_key(spec_path: Path, formats, overrides, name: str | None) -> str:
    h = hashlib.sha256(str(Path(spec_path).resolve()).encode())
    for part in (",".join(sorted(formats)), "\0".join(overrides), name or ""):
        h.update(b"\0" + part.encode())
    return h.hexdigest()[:24]


def _file_hash(path: Path) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def quick_up_to_date(out_root: Path, spec_path: Path, formats, overrides, name: str | None) -> str | None:
    """The output folder name if the last build from these inputs is still current, else None."""
    path = Path(out_root) / ".stamps" / f"q-{_quick_key(spec_path, formats, overrides, name)}.json"
    try:
        stamp = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if stamp.get("code") != code_digest():
        return None
    if any(_file_hash(Path(f)) != digest for f, digest in stamp.get("files", {}).items()):
        return None
    dest = Path(out_root) / stamp["out"]
    want = {"html": "report.html", "pdf": "report.pdf", "json": "results.json"}
    return stamp["out"] if all((dest / want[f]).is_file() for f in formats) else None


def input_files(spec_path: Path, spec) -> list[Path]:
    """Every file a loaded report spec was read from: itself, its hardware and model, those it compares with."""
    files = [Path(spec_path), Path(spec.hardware.file), Path(spec.model.file),
             *(Path(h.file) for h in spec.compare_hardware if h is not None),
             *(Path(m.file) for m in spec.compare_models if m is not None)]
    return list(dict.fromkeys(files))


def stamp_files(out_root: Path, spec_path: Path, formats, overrides, name: str | None) -> list[Path]:
    """The input files the last build's stamp lists (empty without a stamp)."""
    path = Path(out_root) / ".stamps" / f"q-{_quick_key(spec_path, formats, overrides, name)}.json"
    try:
        return [Path(f) for f in json.loads(path.read_text()).get("files", {})]
    except (OSError, ValueError, AttributeError):
        return []


def write_quick_stamp(out_root: Path, spec_path: Path, formats, overrides, name: str | None, spec, out: str) -> None:
    files = input_files(spec_path, spec)
    stamp = {"code": code_digest(), "out": out,
             "files": {str(f.resolve()): _file_hash(f) for f in files}}
    path = Path(out_root) / ".stamps" / f"q-{_quick_key(spec_path, formats, overrides, name)}.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(stamp, sort_keys=True))
        gitignore = path.parent / ".gitignore"
        if not gitignore.exists():
            gitignore.write_text("*\n")
    except OSError:
        pass
