"""The gate: every fast path is installed and removed here, and only on the upstream code it was checked against.

genreport's fast PDF path replaces, wraps or copies some 25 functions of WeasyPrint and pydyf (:data:`UPSTREAM`
lists them, with the module of this package that depends on each) and hands WeasyPrint prebuilt cffi bindings
and deferred fontTools modules. Each gives the bytes stock WeasyPrint gives, on the code it was checked against.
So the gate records, in ``_upstream.py``, the versions of WeasyPrint, pydyf and cffi and a SHA-256 digest of the
source of each of those functions (its lines, from its first decorator to its end, as ``inspect.getsource``
gives them, read from the installed file without importing it). The gate is open when the versions are those and
every digest matches; then :func:`install` installs the patches (:data:`PATCHES`, in order), and
:func:`uninstall` removes them (tests compare the two paths).

Otherwise it is closed: nothing is installed, WeasyPrint is imported and used as it is (the stock path:
``genreport.printing.pdf`` prints with ``weasyprint.HTML(...).write_pdf()``, no early layout, no second process),
and one warning line names what changed. ``GENREPORT_PDF=stock`` closes it on purpose (no warning).
``GENREPORT_PDF_OFF`` (debugging) turns off single fast paths while the gate is open: a comma list of
:data:`PARTS`.

After an upgrade: ``python -m genreport.printing.gate`` says what changed, ``--write`` records the new
versions and digests once each changed function has been compared with what genreport copies or replaces
(docs/upgrading-weasyprint.md).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

# distribution -> ((file in its package, "Class.function", or None for the whole file, which depends on it), ...)
UPSTREAM = {
    "weasyprint": (
        ("__init__.py", "CSS.__init__", "fastlayout: parsed style sheets kept per text"),
        ("css/__init__.py", "ComputedStyle.__missing__", "fastlayout: inherited and initial values"),
        ("formatting_structure/boxes.py", "Box.is_in_normal_flow", "fastlayout: a box's flow"),
        ("layout/page.py", "make_all_pages", "fastlayout wraps it; splitlayout's first pass copies it"),
        ("layout/page.py", "remake_page", "splitlayout wraps it"),
        ("layout/page.py", "make_margin_boxes", "splitlayout's end of layout calls it"),
        ("layout/__init__.py", "initialize_page_maker", "splitlayout calls it"),
        ("layout/__init__.py", "layout_fixed_boxes", "splitlayout's end of layout calls it"),
        ("layout/__init__.py", "layout_document", "splitlayout copies its passes and its end"),
        ("layout/percent.py", "resolve_percentages", "fastlayout copies it"),
        ("layout/background.py", "layout_box_backgrounds", "fastlayout copies it"),
        ("layout/background.py", "layout_backgrounds", "splitlayout's end of layout calls it"),
        ("document.py", "Page.__init__", "splitlayout: stand-in pages, Page._page_box"),
        ("document.py", "Page.paint", "splitpaint wraps it"),
        ("document.py", "Document._render", "splitlayout wraps layout_document while it runs"),
        ("document.py", "Document.write_pdf", "splitpaint paints as it does"),
        ("pdf/__init__.py", "generate_pdf", "splitpaint and splitlayout paint as it does"),
        ("pdf/stream.py", None, "splitpaint wraps add_font, merges what the others add; opcache reads the resources"),
        ("text/fonts.py", "FontConfiguration.__init__", "common: one font configuration per process"),
        ("text/fonts.py", "get_pango_font_key", "splitpaint matches the fonts two processes made"),
        ("draw/text.py", "draw_first_line", "splitpaint wraps it"),
        ("images.py", "SVGImage.__init__", "opcache and early layout read its private fields"),
        ("images.py", "SVGImage.draw", "opcache replaces it"),
        ("svg/__init__.py", "SVG.draw", "opcache replays what it writes"),
        ("svg/path.py", "path", "fastsvg replaces it"),
        ("svg/text.py", "text", "splitpaint makes an SVG text's style as it does (svg_text_style)"),
        ("text/line_break.py", "Layout.setup", "common: each layout owns its font-feature list"),
        ("urls.py", "URLFetcher.fetch", "pdf: the token fetcher"),
        ("urls.py", "URLFetcherResponse.__init__", "pdf: the token fetcher's answers"),
        ("text/ffi.py", None, "pangoffi: the prebuilt bindings"),
        ("pdf/fonts.py", None, "lazyimports: fontTools' subsetter and instancer deferred"),
    ),
    "pydyf": (
        ("__init__.py", "_to_bytes", "fastsvg and opcache write numbers as it does"),
        ("__init__.py", "Stream.data", "fastwrite wraps it"),
        ("__init__.py", "PDF.write", "fastwrite wraps it"),
    ),
}
DISTRIBUTIONS = ("weasyprint", "pydyf", "cffi")  # whose versions are recorded

# the patches, in the order they are installed: (name, module of this package, before WeasyPrint is imported)
PATCHES = (
    ("lazyimports", "lazyimports", True),
    ("pango", "pangoffi", True),
    ("svg", "fastsvg", False),
    ("write", "fastwrite", False),
    ("opcache", "opcache", False),
    ("layout", "fastlayout", False),
    ("features", "common", False),
)
# what GENREPORT_PDF_OFF may name: the patches above, and the ways of printing that need the gate open
PARTS = tuple(name for name, _module, _before in PATCHES) + (
    "split-layout", "split-paint", "seed-pages", "early-layout", "worker")

_state: dict = {}  # "open", "reason", "warned", "installed" (names), "before" (done)


def switch() -> str:
    """``GENREPORT_PDF``: "fast" (the default) or "stock"."""
    value = os.environ.get("GENREPORT_PDF", "fast").strip().lower() or "fast"
    return value if value in ("fast", "stock") else "fast"


def off(part: str) -> bool:
    """Whether ``GENREPORT_PDF_OFF`` turns off ``part`` (one of :data:`PARTS`)."""
    return part in {p.strip() for p in os.environ.get("GENREPORT_PDF_OFF", "").split(",")}


def is_open() -> bool:
    """Whether the fast paths may be used: GENREPORT_PDF is not "stock", and the installed WeasyPrint, pydyf and
    cffi are those recorded, every function the fast paths depend on unchanged. Decided once per process (a
    closed gate warns once, on standard error)."""
    if "open" not in _state:
        reason = "GENREPORT_PDF=stock" if switch() == "stock" else _changed()
        _state["open"], _state["reason"] = not reason, reason
        if reason and switch() != "stock" and not _state.get("warned"):
            _state["warned"] = True
            print(f"genreport: warning: {reason}; printing the PDF with stock WeasyPrint (the same pages, slower)",
                  file=sys.stderr)
    return _state["open"]


def reason() -> str:
    """Why the gate is closed ('' when open)."""
    is_open()
    return _state["reason"]


def reset() -> None:
    """Decide again at the next :func:`is_open` (tests)."""
    _state.pop("open", None)
    _state.pop("reason", None)
    _state.pop("warned", None)


def _changed() -> str:
    """'' when the installed versions and sources are the recorded ones, else what differs (the first of it)."""
    from genreport.printing import _upstream

    found = versions()
    for dist in DISTRIBUTIONS:
        if found.get(dist) != _upstream.VERSIONS.get(dist):
            return (f"{dist} {found.get(dist) or '(not installed)'} is not the version genreport's fast PDF path "
                    f"was checked against ({_upstream.VERSIONS.get(dist)})")
    changed = diff()
    if changed:
        more = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
        return f"{changed[0]} is not the source genreport's fast PDF path was checked against{more}"
    return ""


def versions() -> dict[str, str | None]:
    """The installed version of each of :data:`DISTRIBUTIONS`, as its ``__init__.py`` states it (read, not
    imported: the prebuilt bindings and deferred modules must be in place before WeasyPrint is imported; reading
    the distributions' metadata took 0.1 s)."""
    import re

    out: dict[str, str | None] = {}
    for dist in DISTRIBUTIONS:
        root = _package_dir(dist)
        try:
            text = (root / "__init__.py").read_text(encoding="utf-8") if root is not None else ""
        except (OSError, UnicodeDecodeError):
            text = ""
        m = re.search(r"^(?:VERSION = )?__version__ = ['\"]([^'\"]+)['\"]", text, re.M)
        out[dist] = m.group(1) if m else None
    return out


def _package_dir(dist: str) -> Path | None:
    from importlib import util

    spec = util.find_spec(dist)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def digests(full: bool = False) -> dict[str, str]:
    """"dist/file" -> the file's digest and "dist/file:Class.function" -> its source's digest, for everything in
    :data:`UPSTREAM` (functions only where their file's digest is not the recorded one, unless ``full``)."""
    from genreport.printing import _upstream

    out: dict[str, str] = {}
    for dist, entries in UPSTREAM.items():
        root = _package_dir(dist)
        trees: dict[str, tuple] = {}
        for file, qualname, _why in entries:
            key = f"{dist}/{file}"
            path = root / file if root is not None else None
            if key not in out:
                try:
                    text = path.read_bytes() if path is not None else b""
                except OSError:
                    text = b""
                out[key] = hashlib.sha256(text).hexdigest() if text else "missing"
                if full or out[key] != _upstream.FILES.get(key):
                    trees[file] = _parse(text)
            if qualname is not None and file in trees:
                out[f"{key}:{qualname}"] = _function_digest(trees[file], qualname)
    return out


def _parse(text: bytes) -> tuple:
    import ast

    try:
        source = text.decode("utf-8")
        return source.splitlines(keepends=True), ast.parse(source)
    except (UnicodeDecodeError, SyntaxError, ValueError):
        return [], None


def _function_digest(tree: tuple, qualname: str) -> str:
    import ast

    lines, module = tree
    node = module
    for name in qualname.split("."):
        body = getattr(node, "body", None) or []
        found = [n for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                 and n.name == name]
        if not found:
            return "missing"
        node = found[-1]  # the definition that stands, as Python binds it
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return hashlib.sha256("".join(lines[first - 1:node.end_lineno]).encode()).hexdigest()


def diff() -> list[str]:
    """Each upstream file or function whose digest is not the recorded one, named as "weasyprint/file.py's
    function" (a function is checked only where its whole file differs)."""
    from genreport.printing import _upstream

    found = digests()
    out = []
    for dist, entries in UPSTREAM.items():
        for file, qualname, _why in entries:
            key = f"{dist}/{file}"
            if found[key] == _upstream.FILES.get(key):
                continue
            if qualname is None:
                out.append(f"{key}" + (" (missing)" if found[key] == "missing" else ""))
            elif found[f"{key}:{qualname}"] != _upstream.FUNCTIONS.get(f"{key}:{qualname}"):
                out.append(f"{key}'s {qualname}" + (" (missing)" if found[f"{key}:{qualname}"] == "missing" else ""))
    return list(dict.fromkeys(out))


# ----------------------------------------------------------------------------------------------- the registry

def install(before_import: bool) -> list[str]:
    """Install the patches of :data:`PATCHES` that go ``before_import`` of WeasyPrint (or after it), if the gate
    is open and ``GENREPORT_PDF_OFF`` does not name them; returns the names of those installed (now or before)."""
    import importlib

    installed = _state.setdefault("installed", [])
    if not is_open():
        return []
    for name, module, before in PATCHES:
        if before != before_import or name in installed or off(name):
            continue
        mod = importlib.import_module(f"genreport.printing.{module}")
        if mod.install():
            installed.append(name)
    return list(installed)


def uninstall() -> None:
    """Put back everything :func:`install` changed that can be put back (tests compare the two paths; the
    prebuilt bindings and deferred modules stay with the WeasyPrint they were imported with)."""
    import importlib

    installed = _state.setdefault("installed", [])
    for name, module, _before in reversed(PATCHES):
        mod = importlib.import_module(f"genreport.printing.{module}")
        if hasattr(mod, "uninstall") and name in installed:
            mod.uninstall()
            installed.remove(name)


def installed() -> list[str]:
    """The patches installed in this process."""
    return list(_state.get("installed", []))


# ---------------------------------------------------------------------------------------- the recorded digests

def module_text() -> str:
    """``_upstream.py`` for the installed versions."""
    found = versions()
    every = digests(full=True)
    files = {k: v for k, v in every.items() if ":" not in k}
    functions = {k: v for k, v in every.items() if ":" in k}
    lines = ['"""Generated by ``python -m genreport.printing.gate --write``: the upstream code the fast PDF path was',
             'checked against (see genreport.printing.gate and docs/upgrading-weasyprint.md). Do not edit."""', "",
             "VERSIONS = {"]
    lines += [f"    {k!r}: {found[k]!r}," for k in DISTRIBUTIONS]
    lines += ["}", "FILES = {"]
    lines += [f"    {k!r}: {v!r}," for k, v in sorted(files.items())]
    lines += ["}", "FUNCTIONS = {"]
    lines += [f"    {k!r}: {v!r}," for k, v in sorted(functions.items())]
    lines += ["}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(allow_abbrev=False, prog="python -m genreport.printing.gate",
                                 description=__doc__.split("\n")[0])
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help="record the installed versions and digests")
    group.add_argument("--check", action="store_true", help="exit 1 if _upstream.py is not the installed code's")
    args = ap.parse_args(argv)
    path = Path(__file__).resolve().parent / "_upstream.py"
    text = module_text()
    if args.write:
        from genreport.fileio import write_file

        write_file(path, text.encode())
        print(f"wrote {path}")
        return 0
    changed = _changed()
    if args.check:
        current = path.is_file() and path.read_text(encoding="utf-8") == text
        print(f"{path}: " + ("current" if current else f"stale ({changed or 'digests differ'}); run "
                             "python -m genreport.printing.gate --write after reviewing the changes"))
        return 0 if current else 1
    print(f"open: {not changed}" + (f" ({changed})" if changed else ""))
    for name in diff():
        print(f"changed: {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
