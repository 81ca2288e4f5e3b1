"""A warm process (``genreport serve``, ``--watch``) holds bounded tables however many builds it answers (issue 32,
item 11: 0.75 MB more a build). The operator cache's tables are capped whenever an entry is added, with the cap of
the file each is saved to, the least recently used dropped first. ``bench/run.py --only-serve-memory`` measures the
process itself over hundreds of full builds; these check the tables over thousands of recordings, in memory.
"""

from __future__ import annotations

import base64
import hashlib
import json
import types

import pytest
from genreport.printing import opcache


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """Empty tables, as a new process has them, over an empty cache folder; a 6 kB cap on the anywhere-images."""
    monkeypatch.setenv("GENREPORT_CACHE", str(tmp_path))
    for name, value in (("_entries", None), ("_unchecked", {}), ("_placed", {}), ("_placed_new", []),
                        ("_recorded", []), ("_recorded_before", 0), ("_sources", {}), ("_dirty", False)):
        monkeypatch.setattr(opcache, name, value)
    monkeypatch.setattr(opcache, "MAX_BYTES", 6_000)
    return tmp_path


def _key(i: int) -> str:
    return hashlib.sha256(f"image {i}".encode()).hexdigest()


def _anywhere(lines: int) -> tuple:
    return (b"\n".join([b"0 0 m"] * lines), ())  # 6 bytes a line, less the last newline


def _placed(i: int) -> tuple:
    return (f"{i} 0 m".encode(), (), (), (), (), "unchanged")


def test_the_formula_table_never_holds_more_than_its_file(fresh):
    """Thousands of recordings (as painters send them back), one image replayed between each: the operators held
    never pass MAX_BYTES, the least recently used go first, and the one replayed stays."""
    opcache.merge([(_key(0), _anywhere(100))])
    for i in range(1, 3000):
        opcache.merge([(_key(i), _anywhere(50 + i % 100))])
        opcache._use(_key(0))  # replayed in every build
        held = opcache._cache()
        assert opcache._entries_size == sum(len(ops) for ops, _states in held.values()) <= opcache.MAX_BYTES
        assert _key(0) in held and _key(i) in held
    assert list(held)[-2:] == [_key(2999), _key(0)]  # the least recently used first
    assert len(held) < 30


def test_an_image_larger_than_the_cap_is_not_held_and_pushes_out_nothing(fresh):
    opcache.merge([(_key(1), _anywhere(100)), (_key(2), _anywhere(100))])
    opcache.merge([(_key(3), _anywhere(2000))])
    assert list(opcache._cache()) == [_key(1), _key(2)]
    assert opcache.recorded_since(0) == [(_key(1), _anywhere(100)), (_key(2), _anywhere(100))]


def test_what_is_held_is_what_is_saved_and_read_back(fresh):
    """save() writes the table as it is, the most recently used first; a new process reads the same table."""
    pytest.importorskip("weasyprint")
    for i in range(200):
        opcache.merge([(_key(i), _anywhere(40 + i % 30))])
        if i % 10 == 0:
            opcache._use(_key(5))
    held = list(opcache._cache())
    opcache.save()
    saved = json.loads((fresh / opcache.FILE).read_text())["entries"]
    assert [item[0] for item in saved] == held[::-1]
    opcache._entries = None  # the next process
    assert list(opcache._cache()) == held and opcache._entries_size <= opcache.MAX_BYTES


def test_a_file_over_the_cap_is_read_up_to_it(fresh):
    """A file written with a larger cap (or by hand) gives a table within this one, its most recent entries."""
    pytest.importorskip("weasyprint")
    entries = [[_key(i), (b"\n".join([b"0 0 m"] * 200)).decode(), [], "0" * 64] for i in range(10)]
    (fresh / opcache.FILE).write_text(json.dumps({"versions": opcache._versions(), "entries": entries}))
    assert list(opcache._cache()) == [_key(i) for i in (4, 3, 2, 1, 0)]  # 1,199 bytes each, the first most recent
    assert set(opcache._unchecked) == set(opcache._cache())


def test_the_placed_table_never_holds_more_than_its_folder(fresh, monkeypatch):
    """Even within one build (nothing written yet): at most PLACED_KEEP, the least recently used first; one dropped
    before it was written is not written."""
    monkeypatch.setattr(opcache, "PLACED_KEEP", 8)
    opcache.merge([(_key(0), _placed(0))])
    for i in range(1, 2000):
        opcache.merge([(_key(i), _placed(i))])
        opcache._use(_key(0))
        assert len(opcache._placed) <= opcache.PLACED_KEEP and _key(0) in opcache._placed
        assert set(opcache._placed_new) <= set(opcache._placed)
    assert list(opcache._placed)[-2:] == [_key(1999), _key(0)]


def test_what_a_painter_recorded_is_found_after_thousands_of_recordings(fresh, monkeypatch):
    """The list of recorded keys is trimmed, and a mark taken before a painting still finds what it recorded."""
    monkeypatch.setattr(opcache, "_RECORDED_KEPT", 64)
    for i in range(5000):
        opcache.merge([(_key(i), _anywhere(1))])
        assert len(opcache._recorded) <= 64
    point = opcache.mark()
    assert point == 5000
    opcache.merge([(_key(-1), _anywhere(2)), (_key(-2), _placed(-2))])
    assert opcache.recorded_since(point) == [(_key(-1), _anywhere(2)), (_key(-2), _placed(-2))]


def test_the_sources_read_once_per_process_are_bounded(fresh, monkeypatch):
    """The PDF stage names each data URI by a token; a warm process sees new ones with every what-if."""
    monkeypatch.setattr(opcache, "_SOURCES_KEPT", 16)
    uri = "data:image/svg+xml;base64," + base64.b64encode(b'<svg xmlns="http://www.w3.org/2000/svg"/>').decode()

    def image(i):
        return types.SimpleNamespace(_base_url=f"genreport-data:{i:040x}", _genreport_source="")

    for i in range(1000):
        assert opcache._source(image(i), uri) is not None
        opcache._source(image(0), uri)  # used again in every build
        assert len(opcache._sources) <= 16 and image(0)._base_url in opcache._sources


# The C heap after a build. A build frees some 100 MB that glibc keeps in its heaps: the next build's kept entries
# land among those free pages, and the RSS crept up although the memory in use did not. give_back_freed() hands
# the free pages back (malloc_trim) after every answer of serve and every rebuild of --watch.

FRAGMENTED = r"""
import ctypes, sys
from genreport.procs import give_back_freed

def rss_mb():
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:")) / 1024

libc = ctypes.CDLL(None)
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
libc.mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD: 64 kB blocks from the heap, as the builds' strings are
libc.mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: free() itself never trims (as after a build: a kept block on top)
before = rss_mb()
blocks = [libc.malloc(64 << 10) for _ in range(1200)]  # 75 MB
for b in blocks:
    ctypes.memset(b, 1, 64 << 10)
for b in blocks[:-1]:  # all freed but the last (what the next build keeps sits above the freed pages)
    libc.free(b)
held = rss_mb()
give_back_freed()
print(before, held, rss_mb())
"""


def test_a_warm_process_gives_the_heap_s_free_pages_back(tmp_path):
    """75 MB freed in a fresh process, one block kept above them: glibc keeps the RSS; give_back_freed() returns
    at least 60 MB of it (the process's own figures, from /proc/self/status)."""
    import os
    import subprocess
    import sys

    if not os.path.exists("/proc/self/status"):
        pytest.skip("Linux /proc")
    from genreport import procs

    procs.give_back_freed()
    if not procs._trim:
        pytest.skip("no malloc_trim in this C library")
    p = subprocess.run([sys.executable, "-c", FRAGMENTED], capture_output=True, text=True, check=True)
    before, held, trimmed = map(float, p.stdout.split())
    assert held - before > 70  # the freed blocks are still resident
    assert held - trimmed > 60


def test_serve_gives_the_freed_memory_back_after_each_answer(tmp_path, monkeypatch):
    """After each answer is sent (not before: the collector and the trim run while the next request is awaited)."""
    from genreport.commands import serve

    events = []
    monkeypatch.setattr(serve, "give_back_freed", lambda: events.append("trim"))
    monkeypatch.setattr(serve, "handle", lambda line: {"status": 0, "seconds": 0.0, "messages": [line]})
    serve.serve(iter(["a", "b", "quit", "c"]), lambda text: events.append(json.loads(text)["messages"][0]))
    assert events == ["a", "trim", "b", "trim"]


# What WeasyPrint leaves in the C heap per document. Measured in a fresh process with glibc's mallinfo2 (bytes in
# use by malloc, after the collector): WeasyPrint 70 makes a FontConfiguration per document, and each one made and
# dropped leaves 226 kB behind; a table of 480 cells with `font-variant-numeric: tabular-nums` (the report's
# numeric cells) leaves 300 kB more, one attribute list per cell laid out. A serve build of the 8B report grew
# the heap in use by 266 kB; with pdf.font_config() (one configuration per process, each layout owning its list),
# by 5 kB.

PER_DOCUMENT = r"""
import ctypes, gc, sys
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                "fsmblks", "uordblks", "fordblks", "keepcost")]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
from genreport.printing import pdf
weasyprint = pdf._import()
cells = "".join("<tr>" + "".join(f"<td class=n>{i * 7 + j}.{j}5</td>" for j in range(8)) + "</tr>" for i in range(60))
html = "<style>td.n { font-variant-numeric: tabular-nums }</style><table>" + cells + "</table>"
shared = sys.argv[1] == "shared"
used, pdfs = [], set()
for _ in range(6):
    document = weasyprint.HTML(string=html).render(font_config=pdf.font_config() if shared else None)
    pdfs.add(document.write_pdf(pdf_identifier=False))
    del document
    gc.collect()
    used.append(libc.mallinfo2().uordblks)
print((used[-1] - used[1]) / 4 / 1024, pdfs.pop().hex() if len(pdfs) == 1 else "differ")
"""


def _per_document(mode: str) -> tuple[float, str]:
    import os
    import subprocess
    import sys

    env = dict(os.environ, SOURCE_DATE_EPOCH="0")
    p = subprocess.run([sys.executable, "-c", PER_DOCUMENT, mode], capture_output=True, text=True, check=True,
                       env=env)
    kb, pdf_hex = p.stdout.split()
    return float(kb), pdf_hex


def test_printing_a_document_again_leaves_nothing_in_the_c_heap():
    """WeasyPrint's own way (a configuration per document) leaves over 400 kB per document of this table; the
    process's one configuration leaves under 100 kB, and prints the same bytes."""
    pytest.importorskip("weasyprint")
    import ctypes

    if not hasattr(ctypes.CDLL(None), "mallinfo2"):
        pytest.skip("glibc's mallinfo2")
    from genreport.printing import gate

    if not gate.is_open():
        pytest.skip(f"the gate is closed ({gate.reason()}): WeasyPrint's own way is kept")
    stock_kb, stock_pdf = _per_document("stock")
    shared_kb, shared_pdf = _per_document("shared")
    assert stock_kb > 400 and shared_kb < 100, (stock_kb, shared_kb)
    assert shared_pdf == stock_pdf != "differ"


def test_one_font_configuration_per_process():
    pytest.importorskip("weasyprint")
    from genreport.printing import pdf

    pdf._import()
    assert pdf.font_config() is pdf.font_config()


def test_the_figure_marks_are_found_as_re_split_finds_them_without_a_pattern_per_build():
    """pdf._extract split the HTML with a pattern of the build's marks (a new random token each build), and re's
    module cache kept every one: one more per build of a warm process. _split_at gives re.split's pieces."""
    import random
    import re

    from genreport.printing import pdf

    rng = random.Random(32)
    for _ in range(400):
        token = "".join(rng.choice("0123456789abcdef") for _ in range(4))
        marks = [f"genreport-figure-{token}-{name}-" for name in rng.sample(["fig1", "fig2", "fig10", "a", "ab"], 3)]
        if rng.random() < 0.1:
            marks = ["xy", "z"]  # no shared prefix: re.split itself
        parts = [*marks, f"genreport-figure-{token}-", "genreport-figure-", "fig1-", "-", "<p>", "x", "é"]
        text = "".join(rng.choice(parts) for _ in range(rng.randrange(0, 30)))
        assert pdf._split_at(text, marks) == re.split("(" + "|".join(re.escape(m) for m in marks) + ")", text)
    before = len(re._cache)
    for i in range(20):
        marks = [f"genreport-figure-{i:016x}-fig{k}-" for k in range(9)]
        pdf._split_at(f"<p>{marks[3]}</p>{marks[0]}", marks)
    assert len(re._cache) <= before
