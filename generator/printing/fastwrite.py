"""The PDF file written with its streams compressed on two cores: the same bytes, 0.04 s sooner.

pydyf writes each object of the file in turn, and a content stream's ``data`` joins its operators and compresses
them with zlib at level 9: 0.1 s for the 8B report, the last step of every PDF, when the second painter
(``splitpaint``) is done and the other core idle. zlib releases Python's lock while it compresses, so
:func:`install` makes ``PDF.write`` first join the operators of every large compressed stream (in this thread, as
``data`` would) and hand them to two threads that compress them, while the next ones are joined; ``Stream.data``
then takes the compressed bytes a thread made, with the same zlib calls (``compressobj(level=9)``, ``compress``,
``flush``), instead of compressing them itself. The threads live for one ``write`` (a forked process never
inherits them). Installed only where the gate (:mod:`genreport.printing.gate`) is open; ``GENREPORT_PDF_OFF=write``
turns it off (the stock pydyf path).
"""

from __future__ import annotations

import zlib

MIN_BYTES = 4096  # smaller streams are compressed where pydyf compresses them
THREADS = 2
_installed = False


def install() -> bool:
    """Wrap pydyf's ``PDF.write`` and ``Stream.data`` (once); False where it does not apply."""
    global _installed
    if _installed:
        return True
    from genreport.printing import gate
    from genreport.procs import cores

    if not gate.is_open() or cores() < 2:
        return False
    import pydyf

    stock_write, stock_data = pydyf.PDF.write, pydyf.Stream.data.fget

    def data(self):
        compressed = self.__dict__.pop("_genreport_compressed", None)
        if compressed is None or not self.compress:
            return stock_data(self)
        extra = pydyf.Dictionary(self.extra.copy())  # as pydyf's Stream.data, its zlib work done by a thread
        extra["Filter"] = "/FlateDecode"
        stream = compressed.result()
        extra["Length"] = len(stream)
        return b"\n".join((extra.data, b"stream", stream, b"endstream"))

    def write(self, *args, **kwargs):
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(THREADS, thread_name_prefix="genreport-zlib") as pool:
            for obj in self.objects:
                if isinstance(obj, pydyf.Stream) and obj.compress:
                    raw = b"\n".join(pydyf._to_bytes(item) for item in obj.stream)
                    if len(raw) >= MIN_BYTES:
                        obj.__dict__["_genreport_compressed"] = pool.submit(_compress, raw)
            try:
                return stock_write(self, *args, **kwargs)
            finally:
                for obj in self.objects:
                    obj.__dict__.pop("_genreport_compressed", None)

    data.stock = stock_data
    write.stock = stock_write
    pydyf.Stream.data = property(data)
    pydyf.PDF.write = write
    _installed = True
    return True


def uninstall() -> None:
    """pydyf's own back (tests compare the two)."""
    global _installed
    import pydyf

    if getattr(pydyf.PDF.write, "stock", None) is not None:
        pydyf.PDF.write = pydyf.PDF.write.stock
    if getattr(pydyf.Stream.data.fget, "stock", None) is not None:
        pydyf.Stream.data = property(pydyf.Stream.data.fget.stock)
    _installed = False


def _compress(raw: bytes) -> bytes:
    compressor = zlib.compressobj(level=9)  # pydyf's Stream.data, call for call
    return compressor.compress(raw) + compressor.flush()
