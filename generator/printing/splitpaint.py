"""Pages painted by two processes, the PDF the same bytes as one process paints.

WeasyPrint paints a laid-out document page by page into content streams (0.75 s of the 8B report's 2.3 s PDF
stage), and that is what a second core can share: the layout is done and in memory, so a process forked when the
first page starts painting has every page as the parent has it. The child paints the last pages (about half the
painting, estimated from what each page holds) while the parent paints the first ones; when the parent comes to
the child's first page, it takes what the child painted instead of painting it.

Painting a page writes its content stream and adds to what the pages share: fonts (with the glyphs used and their
widths), opacity states, form groups and patterns. Those the child adds are merged in the order one process would
have added them, since the child's pages all come after the parent's:

* fonts: a font first used on the child's pages is made by the parent from the same Pango font (found through the
  text box that first used it, which the fork shares), and every font's new glyphs, widths and text mappings are
  added after the parent's own;
* opacity states are named by their value and added when missing;
* groups and patterns are named by counting (``x12``, ``p0``): the child's are renamed to follow the parent's, in
  its pages' ``Do`` and ``scn`` operators, which are the only places a page names them.

Anything else the child's painting did (an image, a shading, a counted graphics state, a glyph missing from its
font, a font first used by SVG text, an operator naming a resource in another way) makes the parent paint those
pages itself, as it does when the child fails or cannot be forked: the merge is all or nothing, so the bytes are
those of one process either way (``tests/test_splitpaint.py`` and ``tests/test_fastpdf.py`` compare them).

On only where it pays: two or more cores, fork available, eight pages or more, not ``GENREPORT_SERIAL``;
``GENREPORT_PDF_OFF=split-paint`` turns it off. It runs only where the gate (:mod:`genreport.printing.gate`) is open.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import re

MIN_PAGES = 8
CHILD_SHARE = 0.47  # of the estimated painting: the child also packs what it painted, the parent merges it
TIMEOUT = 300.0  # seconds the parent waits for the child before painting its pages itself
_VALUE_STATE = re.compile(r"[aA](?:0|1|0\.[0-9]+|[0-9.e+-]+)")  # set_alpha's names: a<alpha>, A<alpha>
_COUNTED = re.compile(rb"/([xp])([0-9]+)\b")
_DO = re.compile(rb"/(x[0-9]+) Do")
_SCN = re.compile(rb"/(p[0-9]+) (scn|SCN)")

stats = {"split": 0, "merged": 0, "fell_back": 0, "fonts_made": 0, "renamed": 0, "reason": ""}


class _Fallback(Exception):
    """The child's pages cannot be merged exactly: the parent paints them."""


def enabled(n_pages: int) -> bool:
    from genreport.printing import gate

    if gate.off("split-paint") or os.environ.get("GENREPORT_SERIAL") or not gate.is_open():
        return False
    if n_pages < MIN_PAGES:
        return False
    from genreport.procs import cores

    if not hasattr(os, "fork") or cores() < 2:
        return False
    return True


def write_pdf(document) -> bytes:
    """``document.write_pdf(pdf_identifier=False)``, its pages painted by two processes where that pays."""
    split = getattr(document, "_genreport_split", None)
    if split is not None:  # laid out by two processes: each paints its own pages (splitlayout)
        return split.write_pdf(document)
    pages = list(document.pages)
    if not enabled(len(pages)) or any(any(fields) for p in pages for fields in (getattr(p, "forms", None) or {}).values()):
        return document.write_pdf(pdf_identifier=False)
    k = _split_at(pages)
    if not 0 < k < len(pages):
        return document.write_pdf(pdf_identifier=False)
    split = _Split(pages, k)
    return write_painting(document, split.paint, split.close)


def write_painting(document, paint, close) -> bytes:
    """``document.write_pdf(pdf_identifier=False)`` with each page painted by ``paint(stock, page, stream,
    scale)`` (``stock`` is WeasyPrint's ``Page.paint``); ``close()`` after, whatever happens."""
    import weasyprint.document as wdoc

    stock = wdoc.Page.paint

    def painted(page, stream, scale=1):
        return paint(stock, page, stream, scale)

    wdoc.Page.paint = painted
    try:
        return document.write_pdf(pdf_identifier=False)
    finally:
        wdoc.Page.paint = stock
        close()


# ------------------------------------------------------------------------------------------- where to split

def _split_at(pages) -> int:
    """The first page the child paints: the estimated painting after it is about CHILD_SHARE of the whole."""
    costs = [_cost(p) for p in pages]
    total, acc = sum(costs), 0.0
    for i in range(len(costs) - 1, 0, -1):
        acc += costs[i]
        if acc >= CHILD_SHARE * total:
            return i if acc - costs[i] / 2 < CHILD_SHARE * total else i + 1
    return 0


def _cost(page) -> float:
    """Microseconds of painting, roughly (fitted on the built-in reports' pages: within 2x a page, closer summed)."""
    from weasyprint.formatting_structure import boxes
    from weasyprint.images import SVGImage

    cost = 25_000.0
    for box in page._page_box.descendants():
        if isinstance(box, boxes.TextBox):
            cost += 60 + 1.2 * len(box.text)
        elif isinstance(box, boxes.ReplacedBox) and isinstance(box.replacement, SVGImage):
            cost += _svg_cost(box.replacement)
    return cost


def _svg_cost(image) -> float:
    cached = getattr(image, "_genreport_paint_cost", None)
    if cached is None:
        nodes = chars = 0
        stack = [image._svg.tree._etree_node]
        while stack:
            node = stack.pop()
            nodes += 1
            if isinstance(node.tag, str) and node.tag.endswith("text"):
                chars += len(node.text or "")
            stack.extend(node)
        cached = 136.0 * nodes + 34.0 * chars
        with contextlib.suppress(AttributeError):
            image._genreport_paint_cost = cached
    return cached


# ------------------------------------------------------------------------------------------------ the split

class _Split:
    def __init__(self, pages, k: int):
        self.pages, self.k = pages, k
        self.index = {id(p): i for i, p in enumerate(pages)}
        self.pid = self.fd = None
        self.merged: dict[int, list] | None = None
        self.fallback = False

    def paint(self, stock, page, stream, scale):
        i = self.index.get(id(page))
        if i is None or self.fallback:
            return stock(page, stream, scale)
        if i == 0 and self.pid is None:
            self._fork(stock, stream, scale)
        if i < self.k or self.pid is None and self.merged is None:
            return stock(page, stream, scale)
        if self.merged is None:
            try:
                self.merged = self._merge(stream)
                stats["merged"] += 1
            except _Fallback as why:
                stats["fell_back"] += 1
                stats["reason"] = str(why)
                self.fallback = True
                return stock(page, stream, scale)
        items = self.merged.pop(i, None)
        if items is None or not stream.stream or items[0] != stream.stream[0]:
            raise RuntimeError("genreport: the second painting process's pages do not match")  # not reached
        stream.stream[:] = items
        return None

    # the child ---------------------------------------------------------------------------------------------

    def _fork(self, stock, first_stream, scale) -> None:
        r, w = os.pipe()
        parent = os.getpid()
        try:
            pid = os.fork()
        except OSError:
            os.close(r)
            os.close(w)
            return
        if pid == 0:  # the child: paint, send, leave without running anything of the parent's
            status = 0
            try:
                os.close(r)
                from genreport.procs import die_with_parent

                die_with_parent(parent)
                try:
                    data = pickle.dumps(("ok", _paint_child(self.pages, self.k, stock, first_stream, scale)),
                                        protocol=pickle.HIGHEST_PROTOCOL)
                except BaseException as exc:  # noqa: BLE001 - the parent paints these pages itself
                    data = pickle.dumps(("error", f"{type(exc).__name__}: {exc}"))
                view = memoryview(data)
                while view:
                    view = view[os.write(w, view):]
            except BaseException:  # noqa: BLE001
                status = 1
            finally:
                os._exit(status)
        os.close(w)
        self.pid, self.fd = pid, r
        stats["split"] += 1

    def _receive(self):
        from genreport.procs import Watch

        chunks = []
        watch = Watch(self.pid, TIMEOUT)  # a child stopped, deadlocked or past TIMEOUT is killed
        while True:
            if not watch.readable(self.fd):
                raise _Fallback(f"the second painting process: {watch.why}")
            chunk = os.read(self.fd, 1 << 20)
            watch.heard()
            if not chunk:
                break
            chunks.append(chunk)
        self.close()
        try:
            status, payload = pickle.loads(b"".join(chunks))  # noqa: S301 - from our own forked child
        except Exception as exc:  # noqa: BLE001
            raise _Fallback(f"the second painting process sent nothing usable ({type(exc).__name__})") from None
        if status != "ok":
            raise _Fallback(f"the second painting process failed: {payload}")
        return payload

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.pid is not None:
            from genreport.procs import end

            end(self.pid)
            self.pid = None

    # the merge ---------------------------------------------------------------------------------------------

    def _merge(self, stream) -> dict[int, list]:
        """Check everything the child did, then apply it; the child's pages' content by page index."""
        return merge(self._receive(), stream, self._find_fonts)

    def _find_fonts(self, new: list, fonts: dict) -> list:
        """The Pango fonts of the fonts first used on the child's pages, from the text boxes that used them."""
        new = [(key, box_id, text, described) for key, box_id, _style, text, described, _facts in new
               if key not in fonts]  # the others the parent made first
        if not new:
            return []
        from weasyprint.formatting_structure import boxes
        from weasyprint.text.line_break import create_layout

        wanted = {box_id for _key, box_id, _text, _described in new}
        found = {}
        for page in self.pages[self.k:]:
            for box in page._page_box.descendants():
                if id(box) in wanted and isinstance(box, boxes.TextBox):
                    found[id(box)] = box
        out = []
        for key, box_id, text, described in new:
            box = found.get(box_id)
            if box is not None:
                layout = box.pango_layout  # as draw_text and draw_first_line set it up
                layout.reactivate(box.style)
            elif described and described[0] and text:  # an SVG text's, made while the child painted
                layout = create_layout(text, svg_text_style(described[1], self.pages[0]._page_box.style), None, None, 0)
            else:
                raise _Fallback("a font first used outside the laid-out text")
            out.append((layout, font_of(layout, key)))
        return out


def font_of(layout, key):
    """The Pango font with ``key`` that the first line of ``layout`` uses; _Fallback where none does."""
    from weasyprint.text.ffi import ffi, pango
    from weasyprint.text.fonts import get_pango_font_key

    pango.pango_layout_set_single_paragraph_mode(layout.layout, True)
    line, _index = layout.get_first_line()
    run = line.runs[0]
    while run != ffi.NULL:
        candidate = run.data.item.analysis.font
        run = run.next
        if get_pango_font_key(candidate)[0] == key:
            return candidate
    layout.deactivate()
    raise _Fallback("the text of a new font does not use it")


FONT_PROPERTIES = ("font_family", "font_feature_settings", "font_kerning", "font_language_override", "font_size",
                   "font_stretch", "font_style", "font_variant_alternates", "font_variant_caps",
                   "font_variant_east_asian", "font_variant_ligatures", "font_variant_numeric", "font_variant_position",
                   "font_weight", "font_variation_settings", "lang", "direction", "text_decoration_line")


def font_style(box) -> tuple[bool, tuple]:
    """(whether ``box`` is an SVG text's, what of its style chooses and shapes the font: WeasyPrint's
    text.line_break.Layout.setup). An SVG text's style is made while its page is painted, so the parent's box tree
    lacks it; the parent makes one with the same font properties (svg_text_style). Checked after: the font it gives
    must be the one the child used (font_of, font_facts)."""
    from weasyprint.formatting_structure import boxes

    return not isinstance(box, boxes.TextBox), tuple(box.style[name] for name in FONT_PROPERTIES)


def svg_text_style(values: tuple, like):
    """The style WeasyPrint's svg.text gives a text with these font properties (FONT_PROPERTIES), its fonts
    configured as the computed style ``like``'s."""
    from weasyprint.css.properties import INITIAL_VALUES
    from weasyprint.svg.text import Style

    style = Style()
    style.update(INITIAL_VALUES)
    style.update(zip(FONT_PROPERTIES, values, strict=True))
    style.font_config = like.font_config
    return style


def font_facts(font) -> tuple:
    """What tells a PDF font apart: its name hash, face, size and metrics, and a digest of its file."""
    import hashlib

    return (font.hash, font.index, font.font_size, font.ascent, font.descent,
            hashlib.sha256(bytes(font.file_content)).hexdigest())


def merge(got: dict, stream, find_fonts) -> dict[int, list]:
    """Check everything a painting child did, then apply it to ``stream``'s document; its pages' content by page
    index. ``find_fonts(new, fonts)`` gives [(layout, Pango font)] for the fonts it made that ``fonts`` lacks."""
    try:
        checked = _check(got, stream, find_fonts)
    except _Fallback:
        raise
    except Exception as exc:  # noqa: BLE001 - anything unexpected in what the child sent: nothing applied yet
        raise _Fallback(f"the child's pages could not be checked ({type(exc).__name__}: {exc})") from None
    return _apply(got, stream, *checked)


def _check(got: dict, stream, find_fonts) -> tuple:
    """(states, renames, pages, new fonts) once everything the child did is known to merge exactly."""
    resources, fonts = stream._resources, stream._fonts
    base = got["base"]
    now = {"XObject": len(resources["XObject"]), "Pattern": len(resources["Pattern"]),
           "Shading": len(resources["Shading"]), "ExtGState": len(resources["ExtGState"]), "fonts": len(fonts),
           "images": len(stream._images)}
    if any(now[k] < base[k] for k in base):
        raise _Fallback("shared resources shrank")  # never: they only grow
    if got["images"] or got["shading"]:
        raise _Fallback("the child's pages add images or shadings")
    states = []
    for name, values in got["states"]:
        if not _VALUE_STATE.fullmatch(name) or not all(k in ("ca", "CA") for k in values):
            raise _Fallback(f"graphics state {name} is not an opacity named by value")
        states.append((name, values))
    renames = {}
    for kind, items in (("x", got["xobject"]), ("p", got["pattern"])):
        start = len(resources["XObject" if kind == "x" else "Pattern"])
        for j, (name, _packed) in enumerate(items):
            if name != f"{kind}{base['XObject' if kind == 'x' else 'Pattern'] + j}":
                raise _Fallback(f"{name} was not named by counting")
            renames[name.encode()] = f"{kind}{start + j}".encode()
    pages = {}
    for i, packed in got["pages"].items():
        pages[i] = [_rename(_unpack(item), renames, base) for item in packed]
    return states, renames, pages, _made_fonts(got["fonts"], fonts, find_fonts)


def _made_fonts(new: list, fonts: dict, find_fonts) -> list:
    """[(key, Font)] of the fonts the child made that ``fonts`` lacks, made here from the same Pango fonts and
    checked to be the child's (name, face, size, metrics, file)."""
    from weasyprint.pdf.fonts import Font
    from weasyprint.text.fonts import get_pango_font_key

    facts = {entry[0]: entry[-1] for entry in new}
    out = []
    for layout, pango_font in find_fonts(new, fonts):
        key, description, size = get_pango_font_key(pango_font)
        font = Font(pango_font, description, size)
        layout.deactivate()
        if key not in facts or font_facts(font) != tuple(facts[key]):
            raise _Fallback("a font made here is not the one the child made")
        out.append((key, font))
    return out


def _apply(got: dict, stream, states, renames, pages, new_fonts) -> dict[int, list]:
    """Add what the child's pages added, in the order one process would have added it."""
    import pydyf

    resources, fonts = stream._resources, stream._fonts

    for key, font in new_fonts:
        fonts.setdefault(key, font)  # as Stream.add_font does
        stats["fonts_made"] += 1
    for key, widths, to_unicode in got["glyphs"]:
        font = fonts.get(key)
        if font is None:
            raise RuntimeError("genreport: a font the merge made is missing")  # not reached: made above
        for g, width in widths:
            font.widths.setdefault(g, width)
        for g, text in to_unicode:
            font.to_unicode.setdefault(g, text)
    for name, values in states:
        if name not in resources["ExtGState"]:
            resources["ExtGState"][name] = pydyf.Dictionary(values)
    for kind, items in (("XObject", got["xobject"]), ("Pattern", got["pattern"])):
        for name, packed in items:
            obj = _unpack(packed)
            new = renames[name.encode()].decode()
            obj.id = new
            resources[kind][new] = obj
    from genreport.printing import opcache

    opcache.merge(got["opcache"])
    return pages


def _paint_child(pages, k: int, stock, first_stream, scale) -> dict:
    """In the child: paint pages k.. as generate_pdf would, and pack what changed."""
    return paint_packed([(i, pages[i]) for i in range(k, len(pages))], stock, first_stream, scale)


def paint_packed(indexed_pages, stock, first_stream, scale) -> dict:
    """Paint ``indexed_pages`` ([(index, page)]) as generate_pdf would, into streams sharing ``first_stream``'s
    fonts and resources, and pack what they added: what :func:`merge` takes. Each font first used here is noted
    with the text box that used it (its id, its style's id and its text) and the facts of the font it made."""
    from genreport.printing import opcache
    from weasyprint.draw import text as wtext
    from weasyprint.pdf.stream import Stream
    from weasyprint.text.fonts import get_pango_font_key

    fonts, resources, images = first_stream._fonts, first_stream._resources, first_stream._images
    base = {"XObject": len(resources["XObject"]), "Pattern": len(resources["Pattern"]),
            "Shading": len(resources["Shading"]), "ExtGState": len(resources["ExtGState"]), "fonts": len(fonts),
            "images": len(images)}
    before = {key: (len(f.widths), len(f.to_unicode), len(f.missing)) for key, f in fonts.items()}
    current = [None]
    new_fonts = []
    draw_first_line = wtext.draw_first_line

    def tracked_first_line(stream, textbox, *args, **kwargs):
        current[0] = textbox
        try:
            return draw_first_line(stream, textbox, *args, **kwargs)
        finally:
            current[0] = None

    add_font = Stream.add_font

    def tracked_add_font(self, pango_font):
        key = get_pango_font_key(pango_font)[0]
        if key not in self._fonts:
            box = current[0]
            new_fonts.append([key, id(box) if box is not None else 0, id(box.style) if box is not None else 0,
                              box.text if box is not None else "", font_style(box) if box is not None else None])
        return add_font(self, pango_font)

    wtext.draw_first_line = tracked_first_line
    Stream.add_font = tracked_add_font
    recorded = opcache.mark()
    out_pages = {}
    for i, page in indexed_pages:
        s = scale
        width = s * (page.width + page.bleed["left"] + page.bleed["right"])
        height = s * (page.height + page.bleed["top"] + page.bleed["bottom"])
        left, top = -s * page.bleed["left"], -s * page.bleed["top"]
        right, bottom = left + width, top + height
        rectangle = (left / s, top / s, (right - left) / s, (bottom - top) / s)
        stream = Stream(fonts, rectangle, resources, images, first_stream._tags, first_stream._color_profiles,
                        first_stream._output_intent, compress=first_stream.compress)
        stream.transform(d=-1, f=(page.height * s))
        stock(page, stream, s)
        out_pages[i] = _compact(stream.stream)
    glyphs = []
    for key, font in fonts.items():
        w0, u0, m0 = before.get(key, (0, 0, 0))
        if len(font.missing) != m0:
            raise _Fallback("a glyph missing from its font")  # numbered by counting: not mergeable
        widths, to_unicode = list(font.widths.items())[w0:], list(font.to_unicode.items())[u0:]
        if widths or to_unicode or key not in before:
            glyphs.append((key, widths, to_unicode))

    for entry in new_fonts:
        entry.append(font_facts(fonts[entry[0]]))

    def tail(d, n):
        return list(d.items())[n:]

    return {
        "base": base,
        "pages": out_pages,
        "fonts": new_fonts,
        "glyphs": glyphs,
        "states": [(name, dict(v)) for name, v in tail(resources["ExtGState"], base["ExtGState"])],
        "xobject": [(name, _pack(v)) for name, v in tail(resources["XObject"], base["XObject"])],
        "pattern": [(name, _pack(v)) for name, v in tail(resources["Pattern"], base["Pattern"])],
        "shading": len(resources["Shading"]) - base["Shading"],
        "images": len(images) - base["images"],
        "opcache": opcache.recorded_since(recorded),
    }


# ------------------------------------------------------------------------------- pydyf objects across a pipe

def _pack(obj):
    """pydyf objects as plain tuples (WeasyPrint's streams hold C handles that do not pickle)."""
    import pydyf

    if obj is None or isinstance(obj, (bytes, str, bool, int, float)):
        return obj
    if isinstance(obj, pydyf.Stream):
        if getattr(obj, "number", None) is not None:
            raise _Fallback("a stream already numbered")
        return ("S", [_pack(i) for i in obj.stream], _pack(obj.extra), bool(obj.compress))
    if isinstance(obj, pydyf.Dictionary):
        return ("D", [(k, _pack(v)) for k, v in obj.items()])
    if isinstance(obj, pydyf.Array):
        return ("A", [_pack(v) for v in obj])
    if isinstance(obj, pydyf.String):
        return ("T", obj.string)
    if isinstance(obj, dict):
        return ("d", [(k, _pack(v)) for k, v in obj.items()])
    if isinstance(obj, list):
        return ("L", [_pack(v) for v in obj])
    if isinstance(obj, tuple):
        return ("U", [_pack(v) for v in obj])
    raise _Fallback(f"cannot carry a {type(obj).__name__} across processes")


def _compact(items: list) -> list:
    """A page's content items, packed, with each run of operators that name nothing counted joined into one
    (pydyf joins a stream's items with newlines when it writes it, so the file is the same): a few hundred items
    to carry and rename instead of some 20,000. The first item, which the merge compares, stays as it is."""
    out, run = [_pack(items[0])] if items else [], []
    for item in items[1:]:
        raw = item
        if isinstance(item, str):  # as pydyf writes it; one it cannot write stays as it is, to fail there
            try:
                raw = item.encode("ascii")
            except UnicodeEncodeError:
                raw = None
        if isinstance(raw, bytes) and not _COUNTED.search(raw):
            run.append(raw)
            continue
        if run:
            out.append(b"\n".join(run))
            run = []
        out.append(_pack(item))
    if run:
        out.append(b"\n".join(run))
    return out


def _unpack(packed):
    import pydyf

    if not isinstance(packed, tuple):
        return packed
    tag, *rest = packed
    if tag == "S":
        items, extra, compress = rest
        return pydyf.Stream([_unpack(i) for i in items], _unpack(extra), compress)
    if tag == "D":
        return pydyf.Dictionary({k: _unpack(v) for k, v in rest[0]})
    if tag == "A":
        return pydyf.Array([_unpack(v) for v in rest[0]])
    if tag == "T":
        return pydyf.String(rest[0])
    if tag == "d":
        return {k: _unpack(v) for k, v in rest[0]}
    if tag == "L":
        return [_unpack(v) for v in rest[0]]
    if tag == "U":
        return tuple(_unpack(v) for v in rest[0])
    raise _Fallback(f"unknown packed object {tag!r}")


def _rename(item, renames: dict[bytes, bytes], base: dict):
    """A page's content item with the child's counted names renamed; _Fallback where a name is used otherwise."""
    if not isinstance(item, bytes):
        if isinstance(item, str) and _COUNTED.search(item.encode()):
            raise _Fallback("a counted name in a text item")
        return item
    if not _COUNTED.search(item):
        return item
    m = _DO.fullmatch(item) or _SCN.fullmatch(item)
    if m is not None:
        return item.replace(m.group(1), _new_name(m.group(1), renames, base), 1)
    # several operators in one item (an image replayed by opcache): each counted name must be a Do's or an scn's
    uses = [u.start() for u in _COUNTED.finditer(item)]
    ops = sorted((*_DO.finditer(item), *_SCN.finditer(item)), key=lambda o: o.start())
    if uses != [o.start() for o in ops]:
        raise _Fallback(f"a counted name used outside Do and scn: {item[:40]!r}")
    out, at = [], 0
    for o in ops:
        out += [item[at:o.start(1)], _new_name(o.group(1), renames, base)]
        at = o.end(1)
    return b"".join([*out, item[at:]])


def _new_name(name: bytes, renames: dict[bytes, bytes], base: dict) -> bytes:
    """What the child's counted ``name`` is called in the parent's document; _Fallback for one it did not make."""
    if name in renames:
        if renames[name] != name:
            stats["renamed"] += 1
        return renames[name]
    kind, number = name[:1], int(name[1:])
    if number < base["XObject" if kind == b"x" else "Pattern"]:
        return name  # made before the fork: the same in both processes
    raise _Fallback(f"a name the child did not make: {name!r}")
