"""Images drawn once: WeasyPrint's PDF operators for a self-contained SVG image, kept and replayed.

A report draws some ninety formula images and nine figures. The formulas are mostly the same from one build to the
next and from one what-if to another (the symbols and the layout of a formula do not change with the numbers); the
figures are the same when the numbers are (``figures/store.py`` keeps them). Drawing them means walking their SVG
trees, cascading their styles, shaping their text and writing their paths: 0.15 s of the 8B report's painting for
the formulas, 0.4 s for the figures. This module keeps, for each image, what WeasyPrint did to draw it, and does it
again, byte for byte, the next time the same image is drawn in the same state.

What makes that exact: an SVG image is drawn between a ``q`` and its ``Q``, so what it writes depends only on its
own source, its size, and the stream's state when it starts (the current colours and opacities, which WeasyPrint
does not write again when they do not change, and the last operator, which a ``q`` or ``BT`` may cancel). All of
that is the key.

- **Anywhere-images** (the formulas: paths only). Kept when the drawing touched nothing else: no font, group,
  pattern, shading or image, no marked content, the transformation stack as it was, and every "current" value reset
  as WeasyPrint's own ``Q`` leaves it. The opacity states it names (``/a1 gs``, named by value) are kept with it and
  added to the page's resources when missing, in the order the drawing would have added them.
- **Placed images** (the figures: text, clip paths, opacity; see :func:`_record_placed`). A clip path is written
  through the page's current matrix, so the matrix is part of the key: the image is replayed where it was drawn.
  Its text adds glyphs to the document's fonts; the glyphs it used are recorded in the order it first used them,
  with their text and widths, and added again where missing. A width the drawing read rather than computed sets
  the kerning it wrote, so the image is drawn again where a font holds another one. Anchored text and opacity are
  drawn in transparency groups, named by counting: the groups it made are recorded (box, operators, states, own
  groups) and made again, under the names the page gives them then. An image whose drawing made a font, a pattern,
  a shading or an image, or changed a font any other way, is drawn every time.

Masks, patterns, gradients, markers and embedded images are never kept. ``tests/test_opcache.py`` prints images
and reports with and without it and compares the bytes, and ``tests/test_fastpdf.py`` compares the committed
reports, replayed, with stock WeasyPrint.

The operators live in memory for a warm process (``genreport serve``, ``--watch``) and in the cache folder between
runs, as data: ``svg-ops-1.json`` for the anywhere-images, at most 4 MB, read at once; ``svg-ops-placed-1/<key>.json``
for each placed image, read when it is drawn, at most 64 files (the least recently used removed). The tables in
memory hold no more than the files do, at all times: each entry added drops the least recently used past the cap
(every what-if a warm process builds draws new formulas and figures, so a cap applied only when saving let it grow
by 0.75 MB a build). What is read is
checked before it is replayed, and dropped (the image drawn and recorded again) when anything in it is
unexpected: each record's shape, types and value ranges; a digest of the record with its key, so a record edited
or damaged by hand is not taken; and its operators, parsed (:func:`_sound`): only the operators this module keeps,
each with its operands, the states and groups it names its own, ``q``/``Q`` and ``BT``/``ET`` balanced.
``GENREPORT_PDF_OFF=opcache`` turns it off. It installs itself only where the gate (:mod:`genreport.printing.gate`) is open.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re

FILE = "svg-ops-1.json"
MAX_BYTES = 4_000_000  # of operators kept on disk (read in 20 ms): the nine built-in reports' formulas take 3.5 MB
# Operators that name a counted resource, start text or marked content: an image that writes one is not kept.
_NOT_KEPT = re.compile(rb"(?:^|[\s\]>)])(?:Do|sh|Tf|BT|ET|BI|BDC|BMC|EMC|scn|SCN|cs|CS|ri|d0|d1)(?=\s|$)")
_STATE = re.compile(rb"/([A-Za-z][A-Za-z0-9.+-]{0,40}) gs(?=\s|$)")
# Tags and attributes whose drawing adds resources this module does not replay (patterns, shadings, images).
_NOT_KEPT_SOURCE = re.compile(
    r"<(?:textPath|image|pattern|linearGradient|radialGradient|mask|marker|foreignObject)\b"
    r"|(?<![\w-])(?:mask|filter|marker-start|marker-mid|marker-end)\s*[=:]", re.I)
# Text (drawn with the document's fonts, adding their glyphs, and in a transparency group when anchored), clip
# paths (written through the current transformation matrix) and opacity (a transparency group): an image with any
# of them is "placed" (see _record_placed): kept with the matrix it was drawn at in its key, the glyphs its text
# added to each font, and the groups it made.
_PLACED_SOURCE = re.compile(r"<(?:text|tspan|clipPath)\b|(?<![\w-])(?:clip-path|opacity)\s*[=:]", re.I)
# In a placed image's operators: anything but its own groups' Do, text and paths is not kept.
_NOT_KEPT_PLACED = re.compile(rb"(?:^|[\s\]>)])(?:sh|BI|BDC|BMC|EMC|scn|SCN|cs|CS|ri|d0|d1)(?=\s|$)")
_DO = re.compile(rb"/([A-Za-z][A-Za-z0-9]{0,40}) Do(?=\s|$)")
PLACED_FOLDER = "svg-ops-placed-1"
PLACED_KEEP = 64  # files (a figure at a place on a page each; the nine figures of a report take about 1 MB)
_CURRENT = ("_current_color", "_current_color_stroke", "_current_alpha", "_current_alpha_stroke", "_current_font")

# key -> (operators, ((state name, {key: value}), ...)), the least recently used first; at most MAX_BYTES of operators
_entries: dict[str, tuple[bytes, tuple]] | None = None
_entries_size = 0  # bytes of operators in _entries
_unchecked: dict[str, str] = {}  # key -> stated digest of each entry read from the file and not yet checked
# key -> a placed image's entry (see _record_placed), read from its file when used; the least recently used first,
# at most PLACED_KEEP
_placed: dict[str, tuple] = {}
_placed_new: list[str] = []  # placed entries recorded by this process (or merged from a painter), to be written
_recorded: list[str] = []  # the latest keys this process recorded, in order (at most _RECORDED_KEPT)
_recorded_before = 0  # keys recorded before _recorded[0] (dropped from it)
_RECORDED_KEPT = 4096  # a forked painter records a report's images (about 100) between mark() and recorded_since()
_dirty = False
_installed = False
stats = {"replayed": 0, "recorded": 0, "drawn": 0}


def install() -> bool:
    """Wrap WeasyPrint's SVG image drawing (once); False where it does not apply (see the module docstring)."""
    global _installed
    if _installed:
        return True
    from genreport.printing import gate

    if not gate.is_open():
        return False
    try:
        from weasyprint import images
    except (ImportError, OSError):
        return False
    stock = images.SVGImage.draw

    def draw(self, stream, concrete_width, concrete_height, style):
        key = _key(self, stream, concrete_width, concrete_height)
        if key is None:
            stats["drawn"] += 1
            return stock(self, stream, concrete_width, concrete_height, style)
        placed = self._genreport_source.startswith("placed:")
        entry = _placed_entry(key) if placed else _anywhere_entry(key)
        if entry is not None and (_replay_placed(stream, entry) if placed else _replay(stream, entry)):
            _use(key)
            stats["replayed"] += 1
            return None
        (_record_placed if placed else _record)(key, self, stream, concrete_width, concrete_height)
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
        from genreport.printing.common import data_uri

        url = data_uri(url)
    if not isinstance(url, str) or not url.startswith("data:image/svg+xml"):
        return None
    source = _source(image, url)
    if source is None:
        return None
    last = stream.stream[-1] if stream.stream else b""
    state = (repr(float(width)), repr(float(height)), *(repr(getattr(stream, a, None)) for a in _CURRENT),
             repr(last if last in (b"q", b"ET") else b""))
    if source.startswith("placed:"):  # drawn at this very matrix (see _PLACED_SOURCE)
        state = (*state, repr(tuple(stream.ctm.values)), repr(stream._default_color_space))
    return hashlib.sha256("\0".join((source, *state)).encode()).hexdigest()


_sources: dict[str, str | None] = {}  # an image URL (a data URI's token, a digest of it) -> its _source
_SOURCES_KEPT = 4096


def _source(image, url: str) -> str | None:
    """A digest of the image's SVG, checked once per image object (and, for the PDF stage's tokens, which
    name a data URI by its digest, once per process: a warm process's next document has the same images in new
    objects); None when it is never kept."""
    digest = getattr(image, "_genreport_source", "")
    if digest == "":
        token = getattr(image, "_base_url", None)
        if isinstance(token, str) and token.startswith("genreport-data:") and token in _sources:
            digest = _sources.pop(token)
            _sources[token] = digest  # the most recently used last
        else:
            digest = _scan(url)
            if isinstance(token, str) and token.startswith("genreport-data:"):
                while len(_sources) >= _SOURCES_KEPT:
                    del _sources[next(iter(_sources))]
                _sources[token] = digest
        try:
            image._genreport_source = digest
        except AttributeError:
            return None
    return digest


# Words without which the patterns above cannot match (lower case): most images have none, and a search for
# each is quicker than the patterns over a large figure.
_NOT_KEPT_WORDS = ("textpath", "image", "pattern", "gradient", "mask", "marker", "foreignobject", "filter")
_PLACED_WORDS = ("text", "tspan", "clip", "opacity")


def _scan(url: str) -> str | None:
    import base64
    import binascii

    head, _, data = url.partition(",")
    try:
        svg = base64.b64decode(data, validate=True) if head.endswith(";base64") else data.encode()
        text = svg.decode("utf-8")
    except (binascii.Error, UnicodeError, ValueError):
        return None
    lower = text.lower()
    if any(word in lower for word in _NOT_KEPT_WORDS) and _NOT_KEPT_SOURCE.search(text):
        return None
    placed = any(word in lower for word in _PLACED_WORDS) and _PLACED_SOURCE.search(text)
    return ("placed:" if placed else "") + hashlib.sha256(svg).hexdigest()


def _replay(stream, entry) -> bool:
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
    return True


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
    _keep(key, (ops, tuple(states)))
    _note_recorded(key)
    _dirty = True
    stats["recorded"] += 1


# ------------------------------------------------------------------------------------------ placed images

def _record_placed(key: str, image, stream, width, height) -> None:
    """Draw an image with text, clip paths or opacity as WeasyPrint does, and keep what it did if it can be done
    again exactly: its operators, the opacity states they name, the glyphs its text added to each font (in their
    order), and the transparency groups it made (each with its box, operators, states and own groups). Kept only
    when the drawing added nothing else: no font, pattern, shading, image or colour space, the matrix stack and the
    stream's "current" values as they were."""
    from weasyprint.images import LOGGER

    resources = stream._resources
    n, ctm = len(stream.stream), [tuple(m.values) for m in stream._ctm_stack]
    counts, old_font, groups_before = _placed_counts(stream), stream._old_font, set(resources["XObject"])
    swapped = _swap_glyphs(stream)
    try:
        image._svg.draw(stream, width, height, image._base_url, image._context)
    except BaseException as exception:  # as WeasyPrint's SVGImage.draw: logged, the page goes on
        LOGGER.error("Failed to render SVG image %s", image._base_url)
        LOGGER.debug("Error while rendering SVG image:", exc_info=exception)
        return
    finally:
        glyphs = _unswap_glyphs(swapped)
        stats["drawn"] += 1
    last_font = stream._old_font  # the font of the image's last text (what a BT right after its ET would reuse)
    if (glyphs is None or [tuple(m.values) for m in stream._ctm_stack] != ctm or _placed_counts(stream) != counts
            or any(getattr(stream, a) is not None for a in _CURRENT) or len(stream.stream) < n
            or not (last_font is old_font or _font_state(last_font))):
        return
    new_ids = [name for name in resources["XObject"] if name not in groups_before]
    groups = [_group_record(resources["XObject"][name], stream._default_color_space) for name in new_ids]
    ops = _joined(stream.stream[n:])
    if ops is None or any(g is None for g in groups) or not _placed_ops(ops, new_ids):
        return
    states = _states_of(ops, resources)
    if states is None:
        return
    _placed_new.append(key)
    _keep_placed(key, (ops, states, glyphs, tuple(new_ids), tuple(groups),
                       "unchanged" if last_font is old_font else list(last_font)))
    _note_recorded(key)
    stats["recorded"] += 1


def _font_state(value) -> bool:
    """A stream's font state as text leaves it: (font name, size)."""
    return (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str)
            and re.fullmatch(r"[A-Z]{1,40}", value[0]) is not None and _number(value[1]))


def _keep_placed(key: str, entry) -> None:
    """Hold a placed entry in memory, as the most recently used; at most PLACED_KEEP of them, as on disk: the
    least recently used go first, even one not written yet (the folder would keep no more than PLACED_KEEP of a
    document that drew more)."""
    _placed.pop(key, None)
    _placed[key] = entry
    if len(_placed) > PLACED_KEEP:
        for old in list(_placed)[: len(_placed) - PLACED_KEEP]:
            del _placed[old]
        if _placed_new:
            _placed_new[:] = [k for k in _placed_new if k in _placed]


def _placed_counts(stream) -> tuple:
    r = stream._resources
    return (len(r.get("Pattern", ())), len(r.get("Shading", ())), len(r.get("ColorSpace", ())), len(stream._fonts),
            len(stream._images))


def _joined(items):
    from pydyf import _to_bytes

    try:
        return b"\n".join(_to_bytes(item) for item in items)
    except Exception:  # noqa: BLE001 - an operand pydyf would write differently later: not kept
        return None


def _placed_ops(ops: bytes, groups) -> bool:
    """Only text, paths, states and the image's own groups (``groups``: their names) in ``ops``."""
    return not _NOT_KEPT_PLACED.search(ops) and {m.decode() for m in _DO.findall(ops)} <= set(groups)


def _states_of(ops: bytes, resources):
    """((name, values), ...) of the opacity states ``ops`` name, from ``resources``; None for any other state."""
    states = []
    for name in dict.fromkeys(m.decode() for m in _STATE.findall(ops)):
        values = resources["ExtGState"].get(name)
        if not isinstance(values, dict) or not _plain_state(values):
            return None
        states.append((name, dict(values)))
    return tuple(states)


def _group_record(group, color_space):
    """(box, operators, states, own groups) of a transparency group an image made, or None where it holds anything
    else (a pattern, a shading, an image, a dictionary other than the one ``add_group`` writes)."""
    extra = getattr(group, "extra", None)
    resources = getattr(group, "_resources", None)
    if not isinstance(extra, dict) or resources is None or extra.get("Resources") is not resources:
        return None
    if (set(extra) != {"Type", "Subtype", "BBox", "Resources", "Group"} or extra["Type"] != "/XObject"
            or extra["Subtype"] != "/Form"
            or dict(extra["Group"]) != {"Type": "/Group", "S": "/Transparency", "I": "true", "CS": color_space}):
        return None
    if set(resources) != {"ExtGState", "XObject", "Pattern", "Shading", "ColorSpace", "Font"} \
            or resources["Pattern"] or resources["Shading"] or resources["Font"] is not None:
        return None
    ids = list(resources["XObject"])
    if ids != [f"x{i}" for i in range(len(ids))]:
        return None
    nested = [_group_record(resources["XObject"][name], color_space) for name in ids]
    ops = _joined(group.stream)
    if ops is None or any(g is None for g in nested) or not _placed_ops(ops, ids):
        return None
    states = []
    for name, values in resources["ExtGState"].items():
        if not isinstance(values, dict) or not _plain_state(values):
            return None
        states.append((name, dict(values)))
    box = tuple(extra["BBox"])
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in box):
        return None
    return (box, ops, tuple(states), tuple(nested))


def _replay_placed(stream, entry) -> bool:
    """Do what drawing a placed image did: its glyphs, groups, states and operators, in that order. False (nothing
    done) when a font its text used is missing or holds another width for a glyph (the kerning would differ)."""
    ops, states, glyphs, ids, groups, last_font = entry
    fonts = stream._fonts
    for key, _to_unicode, widths in glyphs:
        font = fonts.get(key)
        if font is None or any(font.widths[g] != w if g in font.widths else not computed for g, w, computed in widths):
            return False
    for key, to_unicode, widths in glyphs:  # what the text adds to each font, in the order it adds it
        font = fonts[key]
        for glyph, text in to_unicode:
            font.to_unicode.setdefault(glyph, text)
        for glyph, width, _computed in widths:
            font.widths.setdefault(glyph, width)
    names = {old.encode(): _replay_group(stream, group).encode() for old, group in zip(ids, groups, strict=True)}
    if names and any(old != new for old, new in names.items()):
        ops = _DO.sub(lambda m: b"/" + names[m.group(1)] + b" Do", ops)
    _replay(stream, (ops, states))
    if last_font != "unchanged":
        stream._old_font = tuple(last_font)
    return True


def _replay_group(parent, record) -> str:
    import pydyf

    box, ops, states, nested = record
    group = parent.add_group(0, 0, 0, 0)
    group.extra["BBox"][:] = box
    for child in nested:
        _replay_group(group, child)
    for name, values in states:
        group._resources["ExtGState"][name] = pydyf.Dictionary(values)
    if ops:
        group.stream.append(ops)
    return group.id


def _swap_glyphs(stream) -> list:
    """Before a placed image is drawn: every font of the document gets an empty map from glyphs to text, which the
    drawing then fills with every glyph it uses, in the order it first uses them (see :func:`_unswap_glyphs`). The
    widths stay: the drawing reads those it finds (they set the kerning it writes) and adds the others."""
    swapped = []
    for key, font in stream._fonts.items():
        swapped.append((key, font, font.to_unicode, set(font.widths), len(font.missing)))
        font.to_unicode = {}
    return swapped


def _unswap_glyphs(swapped: list):
    """After the drawing: each font's own map back, with the glyphs the drawing used added where missing, in their
    order (what the drawing would have done to it). Returns, for each font the drawing used, (font key, (glyph,
    text) pairs, (glyph, width, whether this drawing computed it) triples) in the order of first use; None where
    the drawing changed a font any other way (a glyph the font lacks)."""
    glyphs, ok = [], True
    for key, font, to_unicode, widths_before, missing in swapped:
        used = font.to_unicode
        for glyph, text in used.items():
            to_unicode.setdefault(glyph, text)
        font.to_unicode = to_unicode
        if len(font.missing) != missing or any(glyph not in font.widths for glyph in used):
            ok = False
        elif used:
            glyphs.append((key, tuple(used.items()),
                           tuple((glyph, font.widths[glyph], glyph not in widths_before) for glyph in used)))
    return tuple(glyphs) if ok else None


def _counts(stream) -> tuple:
    r = stream._resources
    return (len(r.get("XObject", ())), len(r.get("Pattern", ())), len(r.get("Shading", ())), len(stream._fonts),
            len(stream._images))


def _plain_state(values: dict) -> bool:
    return all(k in ("ca", "CA") and _number(v) and 0 <= v <= 1 for k, v in values.items())


def _use(key: str) -> None:
    """``key`` drawn or replayed: its entry becomes the most recently used (the last evicted, the first saved)."""
    for table in (_placed, _entries):
        if table and key in table:
            table[key] = table.pop(key)


def _keep(key: str, entry) -> None:
    """Hold an anywhere-image's entry, as the most recently used, then drop the least recently used while the
    operators held pass MAX_BYTES: what save() would leave out of the file. An entry larger than that alone is not
    held (it would push out all the others, and no file could hold it)."""
    global _entries_size
    entries = _cache()
    _drop(key)
    if len(entry[0]) > MAX_BYTES:
        return
    entries[key] = entry
    _entries_size += len(entry[0])
    while _entries_size > MAX_BYTES:
        _drop(next(iter(entries)))


def _drop(key: str) -> None:
    global _entries_size
    entry = _cache().pop(key, None)
    if entry is not None:
        _entries_size -= len(entry[0])
    _unchecked.pop(key, None)


def _note_recorded(key: str) -> None:
    global _recorded_before
    _recorded.append(key)
    _use(key)
    if len(_recorded) > _RECORDED_KEPT:
        drop = len(_recorded) - _RECORDED_KEPT // 2
        del _recorded[:drop]
        _recorded_before += drop


def mark() -> int:
    """A point in this process's recording, for :func:`recorded_since` (a forked painter sends its own back)."""
    return _recorded_before + len(_recorded)


def recorded_since(point: int) -> list:
    """[(key, entry), ...] recorded by this process after ``point`` and still held."""
    out = []
    for key in _recorded[max(0, point - _recorded_before):]:
        entry = _placed.get(key) if key in _placed else (_entries or {}).get(key)
        if entry is not None:
            out.append((key, entry))
    return out


def merge(items: list) -> None:
    """Keep what a forked painter recorded, as if drawn here."""
    global _dirty
    for key, entry in items:
        if len(entry) == 6:  # a placed image's
            if key not in _placed:
                _placed_new.append(key)
                _keep_placed(key, entry)
                _note_recorded(key)
        elif key not in _cache() or key in _unchecked:  # recorded there: taken in place of one not checked here
            _keep(key, entry)
            _note_recorded(key)
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
    global _entries, _entries_size
    if _entries is None:
        _entries = _read()
        _entries_size = sum(len(ops) for ops, _states in _entries.values())
    return _entries


def _read() -> dict:
    """The kept operators of earlier runs, each to be checked when it is first used (:func:`_anywhere_entry`);
    empty when the file is missing or anything in its shape is unexpected. The file lists the most recently used
    first; the table holds them the other way round, and no more than MAX_BYTES (as save() writes them)."""
    from genreport.fileio import ReadError, read_private

    _unchecked.clear()
    try:
        data = json.loads(read_private(_path(), 4 * MAX_BYTES))
    except (ReadError, ValueError, RecursionError):
        return {}
    if not (isinstance(data, dict) and set(data) == {"versions", "entries"} and data["versions"] == _versions()
            and isinstance(data["entries"], list)):
        return {}
    out, digests = {}, {}
    for item in data["entries"]:
        if not (isinstance(item, list) and len(item) == 4 and isinstance(item[0], str) and _HEX64.fullmatch(item[0])
                and isinstance(item[1], str) and isinstance(item[2], list) and isinstance(item[3], str)
                and item[0] not in out):
            return {}
        try:
            states = _states_from(item[2])
            ops = item[1].encode("latin-1")
        except (ValueError, TypeError, UnicodeError):
            return {}
        out[item[0]] = (ops, states)
        digests[item[0]] = item[3]
    size, kept = 0, []
    for key, (ops, _states) in out.items():
        size += len(ops)
        if size > MAX_BYTES:
            break
        kept.append(key)
    _unchecked.update((key, digests[key]) for key in reversed(kept))
    return {key: out[key] for key in reversed(kept)}


_HEX64 = re.compile(r"[0-9a-f]{64}")


def _digest(key: str, record) -> str:
    """The digest a kept record (its JSON form, without the digest) states with its key."""
    text = json.dumps([f"svg-ops 1 {key}", record], separators=(",", ":"), sort_keys=True, allow_nan=False)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _anywhere_json(entry) -> list:
    ops, states = entry
    return [ops.decode("latin-1"), [[name, values] for name, values in states]]


def _anywhere_entry(key: str):
    """The kept entry of an anywhere-image, checked the first time it is used (its digest and its operators,
    see the module); one that fails is dropped, and the image is drawn and recorded again."""
    entries = _cache()
    entry = entries.get(key)
    if entry is None or key not in _unchecked:
        return entry
    stated = _unchecked.pop(key)
    ops, states = entry
    try:
        sound = stated == _digest(key, _anywhere_json(entry)) and _sound(ops, {name for name, _ in states})
    except ValueError:  # a number JSON cannot hold
        sound = False
    if not sound:
        _drop(key)
        return None
    return entry


# Operators as WeasyPrint writes them for the images kept here (pydyf's numbers: no exponent, no sign but '-'), one
# a line with its operands, the most frequent first (matching them takes about 3 ms per 100 kB): paths, painting,
# graphics state, the opacity states (gs); for a placed image also text state (Tf, Tr, ...), its groups (Do), and
# text shown (Tm, TJ, ...) only between BT and ET.
_N = rb"-?[0-9]{1,30}(?:\.[0-9]{0,12})?+(?![0-9.])"  # one number, never two run together
_NAME = rb"/[A-Za-z0-9.+_-]{1,64}"
_PAINT_LINE = (rb"(?:" + _N + rb" ){6}c|(?:" + _N + rb" ){2}[ml]|q|Q|h|f\*?|F|B\*?|b\*?|S|s|n|W\*?"
               + rb"|(?:" + _N + rb" ){6}cm|(?:" + _N + rb" ){4}(?:re|v|y|k|K)|(?:" + _N + rb" ){3}(?:rg|RG)"
               + rb"|" + _N + rb" [wJjMgG]|\[(?:" + _N + rb"(?: " + _N + rb")*)?\] " + _N + rb" d|" + _NAME + rb" gs")
_TEXT_STATE = _NAME + rb" " + _N + rb" Tf|" + _N + rb" T[rcwzLs]"
_TEXT_LINE = (rb"\[(?:<[0-9A-Fa-f]{0,8192}>|" + _N + rb"| )*\] TJ|(?:" + _N + rb" ){6}Tm|" + _TEXT_STATE
              + rb"|(?:" + _N + rb" ){2}T[dD]|T\*|<[0-9A-Fa-f]{0,8192}> Tj")
_PAINT_OPS = re.compile(rb"(?:(?:" + _PAINT_LINE + rb")\n)*")
_PLACED_OPS = re.compile(rb"(?:(?:" + _PAINT_LINE + rb"|" + _NAME + rb" Do|" + _TEXT_STATE + rb")\n"
                         + rb"|BT\n(?:(?:" + _TEXT_LINE + rb"|" + _PAINT_LINE + rb")\n)*ET\n)*")
_NAMED = re.compile(rb"^/(\S+) (?:\S+ )?(gs|Do|Tf)$", re.M)
_Q = re.compile(rb"^[qQ]$", re.M)
_FONT_NAME = re.compile(rb"[A-Z]{1,40}")


def _sound(ops: bytes, states, groups=(), text: bool = False) -> bool:
    """Whether ``ops`` are operators this module keeps, as WeasyPrint writes them (see the patterns above;
    ``text``: a placed image's, with text and its groups), naming only the opacity states ``states`` and the
    groups ``groups``, with ``q``/``Q`` balanced."""
    if not (_PLACED_OPS if text else _PAINT_OPS).fullmatch(ops + b"\n" if ops else ops):
        return False
    for name, op in _NAMED.findall(ops):
        if not (name.decode() in states if op == b"gs" else name.decode() in groups if op == b"Do"
                else _FONT_NAME.fullmatch(name)):
            return False
    depth = 0
    for op in _Q.findall(ops):
        depth += 1 if op == b"q" else -1
        if depth < 0:
            return False
    return depth == 0


def save() -> None:
    """Write the kept operators to the cache folder if this process added any: the most recently used first (those
    it used, then older ones), up to ``MAX_BYTES`` (what the table holds); and each placed image recorded since the
    last save in its own file. A failure to write costs only the next run's time."""
    global _dirty
    _save_placed()
    if not _dirty or _entries is None:
        return
    _dirty = False
    kept, size = [], 0
    for key in reversed(_entries):  # the most recently used first
        ops, states = _entries[key]
        size += len(ops)
        if size > MAX_BYTES:
            break
        record = _anywhere_json(_entries[key])
        # an entry never checked here keeps the digest it came with: writing it again vouches for nothing
        kept.append([key, *record, _unchecked.get(key) or _digest(key, record)])
    data = json.dumps({"versions": _versions(), "entries": kept}, separators=(",", ":"), sort_keys=True)
    from genreport.errors import BuildError
    from genreport.fileio import write_file

    try:
        write_file(_path(), data.encode("latin-1"), private=True)
    except BuildError:
        pass


# ------------------------------------------------------------------------------------ placed images on disk

def _placed_folder():
    from genreport.paths import cache_dir

    return cache_dir() / PLACED_FOLDER


def _placed_entry(key: str):
    """A placed image's entry: in memory, or read from its file (checked; None if absent or unexpected)."""
    entry = _placed.get(key)
    if entry is not None or not _HEX64.fullmatch(key):
        return entry
    from genreport.fileio import ReadError, read_private

    path = _placed_folder() / f"{key}.json"
    try:
        data = json.loads(read_private(path, 8 * MAX_BYTES))
        entry = _placed_from_json(key, data)
    except (ReadError, ValueError, RecursionError, TypeError, KeyError, UnicodeError):
        entry = None
    if entry is not None:
        _keep_placed(key, entry)
        with contextlib.suppress(OSError):
            os.utime(path, follow_symlinks=False)  # recently used: kept longer
    return entry


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


_STATE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9.+-]{0,40}")


def _states_from(items) -> tuple:
    if not isinstance(items, list):
        raise ValueError("states")
    out = []
    for item in items:
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
                and _STATE_NAME.fullmatch(item[0]) and isinstance(item[1], dict) and _plain_state(item[1])):
            raise ValueError("state")
        out.append((item[0], item[1]))
    return tuple(out)


def _group_from(item, depth: int = 0) -> tuple:
    if not (isinstance(item, list) and len(item) == 4 and depth < 32):
        raise ValueError("group")
    box, ops, states, nested = item
    if not (isinstance(box, list) and len(box) == 4 and all(_number(v) for v in box) and isinstance(ops, str)
            and isinstance(nested, list)):
        raise ValueError("group")
    ops = ops.encode("latin-1")
    states = _states_from(states)
    ids = [f"x{i}" for i in range(len(nested))]
    if not _sound(ops, {name for name, _ in states}, ids, text=True):
        raise ValueError("group operators")
    return (tuple(box), ops, states, tuple(_group_from(g, depth + 1) for g in nested))


_PLACED_KEYS = {"versions", "key", "digest", "ops", "states", "font", "glyphs", "ids", "groups"}


def _placed_from_json(key: str, data) -> tuple:
    """A placed image's entry from its file's JSON: every field's shape, type and range checked, its digest
    the record's with ``key``, its operators and its groups' sound (:func:`_sound`); ValueError for any other."""
    if not (isinstance(data, dict) and set(data) == _PLACED_KEYS and data["versions"] == _versions()
            and data["key"] == key and isinstance(data["digest"], str)):
        raise ValueError("file")
    if data["digest"] != _digest(key, {k: v for k, v in data.items() if k != "digest"}):
        raise ValueError("digest")
    ids = data["ids"]
    if not (isinstance(ids, list) and all(isinstance(i, str) and re.fullmatch(r"x[0-9]{1,6}", i) for i in ids)
            and len(set(ids)) == len(ids) and isinstance(data["ops"], str) and isinstance(data["glyphs"], list)
            and isinstance(data["groups"], list)):
        raise ValueError("fields")
    ops = data["ops"].encode("latin-1")
    states = _states_from(data["states"])
    if not _sound(ops, {name for name, _ in states}, ids, text=True):
        raise ValueError("operators")
    glyphs = []
    for item in data["glyphs"]:
        if not (isinstance(item, list) and len(item) == 3 and _int(item[0]) and isinstance(item[1], list)
                and isinstance(item[2], list)):
            raise ValueError("font")
        font_key, to_unicode, widths = item
        if not all(isinstance(p, list) and len(p) == 2 and _int(p[0]) and p[0] >= 0 and isinstance(p[1], str)
                   and len(p[1]) <= 64 for p in to_unicode):
            raise ValueError("glyph text")
        if not all(isinstance(t, list) and len(t) == 3 and _int(t[0]) and t[0] >= 0 and _int(t[1])
                   and isinstance(t[2], bool) for t in widths):
            raise ValueError("glyph widths")
        glyphs.append((font_key, tuple((g, t) for g, t in to_unicode), tuple((g, v, c) for g, v, c in widths)))
    groups = tuple(_group_from(g) for g in data["groups"])
    if len(groups) != len(ids):
        raise ValueError("groups")
    font = data["font"]
    if not (font == "unchanged" or isinstance(font, list) and _font_state(tuple(font))):
        raise ValueError("font state")
    return (ops, states, tuple(glyphs), tuple(ids), groups, font)


def _group_to_json(record) -> list:
    box, ops, states, nested = record
    return [list(box), ops.decode("latin-1"), [[n, v] for n, v in states], [_group_to_json(g) for g in nested]]


def _save_placed() -> None:
    global _placed_new
    new, _placed_new = _placed_new, []
    if not new:
        return
    from genreport.errors import BuildError
    from genreport.fileio import private_folder, write_file
    from genreport.paths import cache_dir

    try:
        folder = private_folder(cache_dir(), PLACED_FOLDER)
        for key in dict.fromkeys(new):
            if key not in _placed:
                continue
            ops, states, glyphs, ids, groups, last_font = _placed[key]
            data = {"versions": _versions(), "key": key, "ops": ops.decode("latin-1"),
                    "states": [[n, v] for n, v in states], "font": last_font,
                    "glyphs": [[k, [list(p) for p in tu], [list(t) for t in w]] for k, tu, w in glyphs],
                    "ids": list(ids), "groups": [_group_to_json(g) for g in groups]}
            data["digest"] = _digest(key, data)
            write_file(folder / f"{key}.json", json.dumps(data, separators=(",", ":")).encode("ascii"), private=True)
        kept = []
        for p in folder.iterdir():
            if p.suffix == ".json":
                with contextlib.suppress(OSError):
                    kept.append((p.lstat().st_mtime, p))
        for _mtime, old in sorted(kept, reverse=True)[PLACED_KEEP:]:
            old.unlink()
    except (BuildError, OSError, ValueError):
        pass
