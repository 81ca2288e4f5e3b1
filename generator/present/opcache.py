"""Formulas drawn once: WeasyPrint's PDF operators for a self-contained SVG image, kept and replayed.

A report draws some ninety formula images, and most of them are the same from one build to the next and from
one what-if to another (the symbols and the layout of a formula do not change with the numbers). Drawing one
means walking its SVG tree, cascading its styles and writing its paths: 0.15 s of the 8B report's PDF stage.
This module keeps, for each image, the operators WeasyPrint wrote for it, and writes them again, byte for byte,
the next time the same image is drawn at the same size from the same graphics state.

What makes that exact: an SVG image is drawn between a ``q`` and its ``Q``, so what it writes depends only on
its own source, its size, and the stream's state when it starts (the current colours and opacities, which
WeasyPrint does not write again when they do not change, and the last operator, which a ``q`` or ``BT`` may
cancel). All of that is the key. An image is kept only when its drawing touched nothing else: no font, no
group, pattern, shading or image (all named by counting, so not replayable), no marked content, the
transformation stack as it was, and every "current" value reset as WeasyPrint's own ``Q`` leaves it. The
opacity states it names (``/a1 gs``, named by value) are kept with it and added to the page's resources when
missing, in the order the drawing would have added them. Images with text, clip paths, masks, patterns or
opacity are drawn by WeasyPrint every time (the figures are). ``tests/test_opcache.py`` prints reports with
and without it and compares the bytes.

The operators live in memory for a warm process (``genreport serve``, ``--watch``) and in the cache folder
between runs (``svg-ops-1.json``: data only, checked on reading, ignored when anything in it is unexpected).
``GENREPORT_OPCACHE=0`` turns it off. It installs itself only on the WeasyPrint and pydyf versions that
``fastsvg`` was checked against.
"""

from __future__ import annotations

import hashlib
import json
import os
import re

FILE = "svg-ops-1.json"
MAX_BYTES = 4_000_000  # of operators kept on disk (read in 20 ms): the nine built-in reports' formulas take 3.5 MB
# Operators that name a counted resource, start text or marked content: an image that writes one is not kept.
_NOT_KEPT = re.compile(rb"(?:^|[\s\]>)])(?:Do|sh|Tf|BT|ET|BI|BDC|BMC|EMC|scn|SCN|cs|CS|ri|d0|d1)(?=\s|$)")
_STATE = re.compile(rb"/([A-Za-z][A-Za-z0-9.+-]{0,40}) gs(?=\s|$)")
# Tags and attributes whose drawing adds counted resources or reads the transformation matrix.
_NOT_KEPT_SOURCE = re.compile(
    r"<(?:text|tspan|textPath|image|pattern|linearGradient|radialGradient|mask|clipPath|marker|foreignObject)\b"
    r"|(?<![\w-])(?:opacity|clip-path|mask|filter|marker-start|marker-mid|marker-end)\s*[=:]", re.I)
_CURRENT = ("_current_color", "_current_color_stroke", "_current_alpha", "_current_alpha_stroke", "_current_font")

_entries: dict[str, tuple[bytes, tuple]] | None = None  # key -> (operators, ((state name, {key: value}), ...))
_used: dict[str, None] = {}  # keys drawn or replayed by this process, the most recent last
_recorded: list[str] = []  # keys this process recorded, in order
_dirty = False
_installed = False
stats = {"replayed": 0, "recorded": 0, "drawn": 0}


def install() -> bool:
    """Wrap WeasyPrint's SVG image drawing (once); False where it does not apply (see the module docstring)."""
    global _installed
    if _installed:
        return True
    if os.environ.get("GENREPORT_OPCACHE") == "0":
        return False
    try:
        from weasyprint import images
    except (ImportError, OSError):
        return False
    from genreport.present.fastsvg import checked_versions

    if not checked_versions():
        return False
    stock = images.SVGImage.draw

    def draw(self, stream, concrete_width, concrete_height, style):
        key = _key(self, stream, concrete_width, concrete_height)
        if key is None:
            stats["drawn"] += 1
            return stock(self, stream, concrete_width, concrete_height, style)
        entry = _cache().get(key)
        if entry is not None:
            _replay(stream, entry)
            _use(key)
            stats["replayed"] += 1
            return None
        _record(key, self, stream, concrete_width, concrete_height)
        return None

    draw.stock = stock
    images.SVGImage.draw = draw
    _installed = True
    return True


def uninstall() -> None:
    """WeasyPrint's own drawing back (tests compare the two)."""
    global _installed
    from weasyprint import images

    if getattr(images.SVGImage.draw, "stock", None) is not None:
        images.SVGImage.draw = images.SVGImage.draw.stock
    _installed = False


def _key(image, stream, width, height) -> str | None:
    """The image's key given the stream's state, or None for an image that is always drawn."""
    url = getattr(image, "_base_url", None)
    if isinstance(url, str) and url.startswith("genreport-data:"):  # the PDF stage's stand-in for a data URI
        from genreport.present.pdf import data_uri

        url = data_uri(url)
    if not isinstance(url, str) or not url.startswith("data:image/svg+xml"):
        return None
    source = _source(image, url)
    if source is None:
        return None
    last = stream.stream[-1] if stream.stream else b""
    state = (repr(float(width)), repr(float(height)), *(repr(getattr(stream, a, None)) for a in _CURRENT),
             repr(last if last in (b"q", b"ET") else b""))
    return hashlib.sha256("\0".join((source, *state)).encode()).hexdigest()


def _source(image, url: str) -> str | None:
    """A digest of the image's SVG, checked once per image object; None when it is never kept."""
    digest = getattr(image, "_genreport_source", "")
    if digest == "":
        import base64
        import binascii

        digest = None
        head, _, data = url.partition(",")
        try:
            svg = base64.b64decode(data, validate=True) if head.endswith(";base64") else data.encode()
            text = svg.decode("utf-8")
        except (binascii.Error, UnicodeError, ValueError):
            text = None
        if text is not None and not _NOT_KEPT_SOURCE.search(text):
            digest = hashlib.sha256(svg).hexdigest()
        try:
            image._genreport_source = digest
        except AttributeError:
            return None
    return digest


def _replay(stream, entry) -> None:
    ops, states = entry
    import pydyf

    resources = stream._resources["ExtGState"]
    for name, values in states:
        if name not in resources:
            resources[name] = pydyf.Dictionary(values)
    if ops:
        stream.stream.append(ops)
    for attr in _CURRENT:
        setattr(stream, attr, None)


def _record(key: str, image, stream, width, height) -> None:
    """Draw as WeasyPrint does (its error handling included) and keep the operators if they can be replayed."""
    global _dirty
    from weasyprint.images import LOGGER

    resources = stream._resources
    before = (len(stream.stream), [tuple(m.values) for m in stream._ctm_stack], _counts(stream), stream._old_font)
    try:
        image._svg.draw(stream, width, height, image._base_url, image._context)
    except BaseException as exception:  # as WeasyPrint's SVGImage.draw: logged, the page goes on
        LOGGER.error("Failed to render SVG image %s", image._base_url)
        LOGGER.debug("Error while rendering SVG image:", exc_info=exception)
        stats["drawn"] += 1
        return
    stats["drawn"] += 1
    n, ctm, counts, old_font = before
    if ([tuple(m.values) for m in stream._ctm_stack] != ctm or _counts(stream) != counts
            or stream._old_font is not old_font or any(getattr(stream, a) is not None for a in _CURRENT)
            or len(stream.stream) < n):
        return
    from pydyf import _to_bytes

    try:
        ops = b"\n".join(_to_bytes(item) for item in stream.stream[n:])
    except Exception:  # noqa: BLE001 - an operand pydyf would write differently later: not kept
        return
    if _NOT_KEPT.search(ops):
        return
    states = []
    for name in dict.fromkeys(m.decode() for m in _STATE.findall(ops)):
        values = resources["ExtGState"].get(name)
        if not isinstance(values, dict) or not _plain_state(values):
            return
        states.append((name, dict(values)))
    _cache()[key] = (ops, tuple(states))
    _recorded.append(key)
    _use(key)
    _dirty = True
    stats["recorded"] += 1


def _counts(stream) -> tuple:
    r = stream._resources
    return (len(r.get("XObject", ())), len(r.get("Pattern", ())), len(r.get("Shading", ())), len(stream._fonts),
            len(stream._images))


def _plain_state(values: dict) -> bool:
    return all(k in ("ca", "CA") and isinstance(v, (int, float)) and not isinstance(v, bool)
               for k, v in values.items())


def _use(key: str) -> None:
    _used.pop(key, None)
    _used[key] = None


def mark() -> int:
    """A point in this process's recording, for :func:`recorded_since` (a forked painter sends its own back)."""
    return len(_recorded)


def recorded_since(point: int) -> list:
    """[(key, entry), ...] recorded by this process after ``point``."""
    return [(key, _entries[key]) for key in _recorded[point:] if _entries and key in _entries]


def merge(items: list) -> None:
    """Keep what a forked painter recorded, as if drawn here."""
    global _dirty
    for key, entry in items:
        if key not in _cache():
            _cache()[key] = entry
            _recorded.append(key)
            _dirty = True
        _use(key)


# ------------------------------------------------------------------------------------------- the cache file

def _path():
    from genreport.paths import cache_dir

    return cache_dir() / FILE


def _versions() -> dict:
    import pydyf
    import weasyprint

    return {"weasyprint": weasyprint.__version__, "pydyf": pydyf.__version__}


def _cache() -> dict:
    global _entries
    if _entries is None:
        _entries = _read()
    return _entries


def _read() -> dict:
    """The kept operators of earlier runs; empty when the file is missing or anything in it is unexpected."""
    from genreport.fileio import ReadError, read_regular

    try:
        data = json.loads(read_regular(_path(), 4 * MAX_BYTES))
    except (ReadError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict) or data.get("versions") != _versions() or not isinstance(data.get("entries"), list):
        return {}
    out = {}
    for item in data["entries"]:
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str) and len(item[0]) == 64
                and isinstance(item[1], str) and isinstance(item[2], list)):
            return {}
        states = []
        for state in item[2]:
            if not (isinstance(state, list) and len(state) == 2 and isinstance(state[0], str)
                    and re.fullmatch(r"[A-Za-z][A-Za-z0-9.+-]{0,40}", state[0]) and isinstance(state[1], dict)
                    and _plain_state(state[1])):
                return {}
            states.append((state[0], state[1]))
        try:  # what was kept passed the checks of _record; scanning 4 MB again would cost 0.07 s
            ops = item[1].encode("latin-1")
        except UnicodeError:
            return {}
        out[item[0]] = (ops, tuple(states))
    return out


def save() -> None:
    """Write the kept operators to the cache folder if this process added any: those it used, newest first,
    then older ones, up to ``MAX_BYTES``. A failure to write costs only the next run's time."""
    global _dirty
    if not _dirty or _entries is None:
        return
    _dirty = False
    order = [k for k in reversed(_used) if k in _entries]
    order += [k for k in _entries if k not in _used]
    kept, size = [], 0
    for key in order:
        ops, states = _entries[key]
        size += len(ops)
        if size > MAX_BYTES:
            break
        kept.append([key, ops.decode("latin-1"), [[name, values] for name, values in states]])
    data = json.dumps({"versions": _versions(), "entries": kept}, separators=(",", ":"), sort_keys=True)
    from genreport.errors import BuildError
    from genreport.fileio import write_file

    try:
        write_file(_path(), data.encode("latin-1"))
    except BuildError:
        pass
