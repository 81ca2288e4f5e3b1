"""What the printing modules share: the pipe messages between processes, the one font configuration, the
tokens standing for images' data URIs, and putting figures in place of their stand-ins. It imports no other module
of the package (they import it), so that none of them imports another in a circle."""

from __future__ import annotations

import hashlib
import os
import re
import struct

from genreport.procs import Watch, read_some, write_all


def put_figures(page_boxes, wanted: dict[str, tuple[str, bytes]]) -> bool:
    """Put each figure's drawing in place of its stand-in (``wanted``: stand-in token -> data URI, SVG bytes) in
    ``page_boxes``; False where a drawing's size is not its stand-in's or it cannot be read."""
    from weasyprint.formatting_structure.boxes import ReplacedBox
    from weasyprint.images import ElementTree, SVGImage

    real = {}
    for page_box in page_boxes:
        for box in page_box.descendants():
            if not isinstance(box, ReplacedBox) or not isinstance(box.replacement, SVGImage):
                continue
            stand_in = box.replacement._base_url
            if stand_in not in wanted:
                continue
            if stand_in not in real:
                old, (uri, svg) = box.replacement, wanted[stand_in]
                try:
                    _URIS[token(uri)] = uri
                    image = SVGImage(ElementTree.fromstring(svg), token(uri), old._url_fetcher, old._context)
                except Exception:  # noqa: BLE001
                    return False
                if _size_of(image) != _size_of(old):
                    return False
                real[stand_in] = image
            box.replacement = real[stand_in]
    return True


TOKEN = "genreport-data:"
_URIS: dict[str, str] = {}  # token -> the data URI it stands for, for the document being printed


def token(uri: str) -> str:
    """What the printed HTML has in place of an image's data URI: its digest (see :func:`_html`)."""
    return TOKEN + hashlib.sha256(uri.encode()).hexdigest()[:40]


def data_uri(url: str) -> str | None:
    """The data URI a token stands for (None for any other URL)."""
    return _URIS.get(url)


def _size_of(image) -> tuple:
    tree = image._svg.tree
    return tree.get("width"), tree.get("height"), image._svg.get_viewbox()


_fonts = None  # the FontConfiguration of every document this process lays out (see font_config)


def font_config():
    """One WeasyPrint ``FontConfiguration`` for every document this process lays out, made on first use.

    Left to itself WeasyPrint makes one per document, and each leaves about 230 kB of fontconfig and Pango memory
    behind that nothing frees (226 kB per ``FontConfiguration()`` made and dropped, 2 kB per document printed with
    one kept): a warm process (``serve``, ``--watch``) grew by that much with every build. The fonts, their
    metrics and the PDF's bytes are the same; what it caches (line struts, font-feature attributes) depends only
    on the styles. A forked child (the second layout process, the painter) uses its parent's, as it uses the
    parent's styles."""
    global _fonts
    if _fonts is None:
        from weasyprint.text import line_break
        from weasyprint.text.fonts import FontConfiguration

        _fonts = FontConfiguration()
        if getattr(line_break.Layout.setup, "stock", None) is not None:  # install() below
            _fonts.font_features = _Fresh()
        import atexit

        atexit.register(_drop_fonts)
    return _fonts


_KEPT_OPEN: list = []  # the ctypes handles of keep_libraries_open(), never closed
_LIBRARIES = re.compile(r"lib(?:gobject-2\.0|glib-2\.0|pango-1\.0|pangoft2-1\.0|harfbuzz|harfbuzz-subset|harfbuzz-vector"
                        r"|fontconfig)\.so[.0-9]*")


def keep_libraries_open() -> None:
    """Open the C libraries WeasyPrint's bindings opened (GLib's objects, Pango, HarfBuzz, fontconfig) once more,
    and never close them.

    cffi closes a library when the object holding it is freed. At the interpreter's exit that can happen before an
    object made with it is freed (a font map kept by a laid-out document), whose ``g_object_unref`` then calls code
    no longer mapped: a process that had kept laid-out documents (the test suite's) passed every test and ended
    with a segmentation fault. ctypes never closes what it opens, so the libraries stay mapped until the process
    ends. Read from /proc/self/maps (Linux); elsewhere nothing is done."""
    if _KEPT_OPEN:
        return
    _KEPT_OPEN.append(None)
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            rows = [line.split(None, 5) for line in maps]  # address, perms, offset, dev, inode[, path]
    except OSError:
        return
    paths = sorted({row[5].strip() for row in rows if len(row) == 6})
    import ctypes

    for path in paths:
        if _LIBRARIES.fullmatch(os.path.basename(path)):
            try:
                _KEPT_OPEN.append(ctypes.CDLL(path))
            except OSError:
                pass


def _drop_fonts() -> None:
    """Free the font configuration while Pango and fontconfig are still loaded: left to the interpreter's last
    clean-up, it could be freed after the libraries' bindings and crash the process on its way out."""
    global _fonts
    _fonts = None
    import gc

    gc.collect()


class _Fresh(dict):
    """A ``FontConfiguration.font_features`` that keeps nothing: each text layout makes its own attribute."""

    def setdefault(self, key, default=None):
        return default


def install() -> bool:
    """Let each text layout own the attribute list it is given for its font features, so that it is freed with it.

    WeasyPrint 70's ``Layout.setup`` gives a layout with font features (the report's numeric cells:
    ``font-variant-numeric: tabular-nums``) a new ``PangoAttrList`` and never drops its own reference to it, and
    it puts the same attribute, kept in ``font_config.font_features``, in every such list (which the list would
    free with itself): some 600 bytes stayed behind for every numeric cell laid out, 300 kB for a table of 480.
    Here each layout gets its own attribute (:class:`_Fresh`) and the reference is dropped after ``setup``: the
    same attribute values, the same PDF, nothing left. Only where the gate is open; False (nothing changed)
    elsewhere."""
    from genreport.printing import gate

    if not gate.is_open():
        return False
    from weasyprint.text import line_break

    if getattr(line_break.Layout.setup, "stock", None) is not None:
        return True
    from weasyprint.text.ffi import ffi, pango

    stock = line_break.Layout.setup

    def setup(self, style):
        stock(self, style)
        if isinstance(style.font_config.font_features, _Fresh):  # setup's only list: the features'
            attrs = pango.pango_layout_get_attributes(self.layout)
            if attrs != ffi.NULL:
                pango.pango_attr_list_unref(attrs)  # the layout keeps its own reference

    setup.stock = stock
    line_break.Layout.setup = setup
    return True


def uninstall() -> None:
    """WeasyPrint's own ``Layout.setup`` back (the font configuration made meanwhile keeps its features)."""
    from weasyprint.text import line_break

    stock = getattr(line_break.Layout.setup, "stock", None)
    if stock is not None:
        line_break.Layout.setup = stock


def _send(fd: int, data: bytes, watch: Watch | None = None) -> None:
    view = memoryview(struct.pack("<Q", len(data)) + data)
    if watch is not None:  # to a child that may be stopped: bounded
        return write_all(fd, view, watch)
    while view:
        view = view[os.write(fd, view):]


def _receive(fd: int, watch: Watch | None = None) -> bytes | None:
    """One message, or None at the end of the pipe (from a child: as long as ``watch`` allows, else ChildStuck)."""
    head = _read_exactly(fd, 8, watch)
    if head is None:
        return None
    return _read_exactly(fd, struct.unpack("<Q", head)[0], watch)


def _read_exactly(fd: int, n: int, watch: Watch | None = None) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, min(n - got, 1 << 20)) if watch is None else read_some(fd, min(n - got, 1 << 20), watch)
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)
