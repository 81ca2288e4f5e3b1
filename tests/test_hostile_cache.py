"""Hostile and careless cache entries (issue 32, items 1, 2, 4, 5 and 13), each attack of the issue run again.

Links planted at a formula's temporary and entry names, a FIFO at a cache entry, kept figures carrying a script, a
local image or added text, operator records with strokes or text added, damaged page splits, a full disk, the
cache's permissions. Every case ends in the report a fresh cache gives (the same bytes), nothing outside the output
folder touched, nothing waiting for ever: a case that could hang runs under a time limit and fails on it.
"""

from __future__ import annotations

import ast
import base64
import contextlib
import errno
import json
import os
import shutil
import signal
import stat
import time
import urllib.request
from pathlib import Path

import genreport.fileio as fileio
import pytest
from genreport.commands.cli import main
from shared import ROOT

SPEC = ROOT / "specs" / "llama8b-a100.yaml"  # a small report: 9 figures, about 90 formulas, 8 pages or more
TEX = r"\frac{a}{b} + x^{2}"
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5E"
                       "rkJggg==")  # one pixel


# ------------------------------------------------------------------------------------------------ helpers

def _forget(monkeypatch) -> None:
    """Drop what this process holds of the cache folder in memory: the next read is from the files, as in a new
    process."""
    from genreport.present import mathsvg
    from genreport.present.figures import store
    from genreport.printing import opcache, pdf, splitlayout

    mathsvg.svg.cache_clear()
    monkeypatch.setattr(mathsvg, "_swept", False)
    for name, value in (("_entries", None), ("_unchecked", {}), ("_placed", {}), ("_placed_new", []),
                        ("_dirty", False)):
        monkeypatch.setattr(opcache, name, value)
    monkeypatch.setattr(splitlayout, "_memory", None)
    monkeypatch.setattr(pdf, "_sizes", None)
    monkeypatch.setattr(store, "_checked", {})


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("GENREPORT_CACHE", str(folder))
    for name in ("GENREPORT_FIGURE_CACHE", "GENREPORT_PDF", "GENREPORT_PDF_OFF", "GENREPORT_SERIAL"):
        monkeypatch.delenv(name, raising=False)
    _forget(monkeypatch)
    yield folder
    from genreport.present import mathsvg

    mathsvg.svg.cache_clear()


@pytest.fixture
def outside(tmp_path) -> Path:
    """Files outside the output folder and the cache that a planted link points at: never to be read or written."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "victim.txt").write_bytes(b"someone else's file\n")
    (folder / "local.png").write_bytes(PNG)
    return folder


def _state(folder: Path) -> dict:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


@contextlib.contextmanager
def deadline(seconds: float):
    """Interrupt whatever blocks for more than ``seconds`` (a FIFO opened for reading); yields a list that holds
    True once the time ran out, since code under test may swallow the interrupt's exception."""
    expired: list[bool] = []

    def expire(*_args):
        expired.append(True)
        raise TimeoutError(f"still waiting after {seconds} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield expired
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _modes(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): stat.S_IMODE(p.lstat().st_mode) for p in [folder, *folder.rglob("*")]}


# ----------------------------------------------------------------------------------- formula images (item 1)

def test_links_at_a_formulas_temporary_and_entry_names_are_never_followed(cache, outside):
    """Issue 32.1: a link at ``math/<key>.<pid>.tmp`` (the name the cache wrote and renamed) was written through;
    a link at ``math/<key>.svg`` was read. Here the entry link points at a file holding a well-formed entry with
    a valid digest: only not following the link keeps it out."""
    from genreport.present import mathsvg
    from genreport.present.svgcheck import ours

    key = mathsvg._key(TEX, 15.0, False)
    folder = cache / "math"
    folder.mkdir(parents=True)
    (folder / f"{key}.{os.getpid()}.tmp").symlink_to(outside / "victim.txt")
    evil = '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><text>SECRET</text></svg>'
    (outside / "entry.svg").write_text(mathsvg._entry(key, evil, 0.0))
    (folder / f"{key}.svg").symlink_to(outside / "entry.svg")
    before = _state(outside)
    body, offset = mathsvg.svg(TEX)
    assert "SECRET" not in body and ours(body.encode())
    assert _state(outside) == before
    entry = folder / f"{key}.svg"
    assert not entry.is_symlink() and stat.S_IMODE(entry.stat().st_mode) == 0o600  # the link replaced, privately
    assert (folder / f"{key}.{os.getpid()}.tmp").resolve() == outside / "victim.txt"  # left alone, never opened
    mathsvg.svg.cache_clear()
    assert mathsvg.svg(TEX) == (body, offset)  # read back from its own file


def test_a_fifo_at_a_formulas_entry_is_refused_without_waiting(cache):
    """Issue 32.1: ``read_text`` of a FIFO at an entry's name blocked the build for ever."""
    from genreport.present import mathsvg

    folder = cache / "math"
    folder.mkdir(parents=True)
    os.mkfifo(folder / f"{mathsvg._key(TEX, 15.0, False)}.svg")
    with deadline(10) as expired:
        body, _offset = mathsvg.svg(TEX)
    assert not expired and body.startswith("<svg")
    assert (folder / f"{mathsvg._key(TEX, 15.0, False)}.svg").is_file()  # the FIFO replaced by the formula


def test_a_full_disk_leaves_no_temporary_file_in_the_formula_cache(cache, monkeypatch):
    """Issue 32.13: on a full disk ``<key>.<pid>.tmp`` files stayed in ``cache/math``."""
    from genreport.present import mathsvg

    real_fdopen = os.fdopen

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, _data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(fileio.os, "fdopen", lambda *a, **k: Full(real_fdopen(*a, **k)))
    body, _offset = mathsvg.svg(TEX)
    assert body.startswith("<svg")
    assert list((cache / "math").iterdir()) == []


def test_temporary_files_that_killed_builds_left_are_removed(cache):
    """Issue 32.13: nothing removed them. Those older than an hour go when a process first writes a formula; a
    young one (another build writing it now) stays."""
    from genreport.present import mathsvg

    folder = cache / "math"
    folder.mkdir(parents=True)
    old = [folder / f"{mathsvg._key(TEX, 15.0, False)}.4242.tmp", folder / ".abc.svg.k3j2h1.tmp"]
    for path in old:
        path.write_text("<svg")
        os.utime(path, (time.time() - 7200, time.time() - 7200))
    young = folder / ".def.svg.a8b7c6.tmp"
    young.write_text("<svg")
    mathsvg.svg(TEX)
    assert not any(path.exists() for path in old) and young.exists()


@pytest.mark.parametrize("damage", ["added text", "old format", "no digest", "nan offset", "not utf-8", "huge",
                                    "script, digest forged"])
def test_a_damaged_formula_entry_is_drawn_again(cache, damage):
    from genreport.present import mathsvg

    good = mathsvg.svg(TEX)
    key = mathsvg._key(TEX, 15.0, False)
    path = cache / "math" / f"{key}.svg"
    text = path.read_text()
    body, offset = good
    path.write_bytes({
        "added text": text.replace("</svg>", "<text>x</text></svg>", 1).encode(),
        "old format": f"{body}\n<!--y:{offset}-->".encode(),
        "no digest": text[:text.rindex(" ")].encode() + b"-->",
        "nan offset": mathsvg._entry(key, body, float("nan")).encode(),
        "not utf-8": b"\xff\xfe" + text.encode(),
        "huge": b" " * (mathsvg.LIMIT + 1),
        "script, digest forged": mathsvg._entry(key, body.replace("</svg>", "<script>alert(1)</script></svg>"),
                                                offset).encode(),
    }[damage])
    mathsvg.svg.cache_clear()
    assert mathsvg.svg(TEX) == good
    assert path.read_text() == text  # kept again as it should be


def test_a_cache_made_by_an_earlier_genreport_is_made_private(cache):
    """Issue 32.4: folders 0755 and files 0644; a folder genreport writes into and a file it reads are narrowed."""
    from genreport.present import mathsvg

    mathsvg.svg(TEX)
    folder = cache / "math"
    entry = folder / f"{mathsvg._key(TEX, 15.0, False)}.svg"
    os.chmod(folder, 0o755)
    os.chmod(entry, 0o644)
    mathsvg.svg.cache_clear()
    mathsvg.svg(TEX)  # read
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    mathsvg.svg.cache_clear()
    mathsvg.svg(r"y^{3}")  # written
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


# --------------------------------------------------------------------------------- kept figures (item 2)

FIGURE_ATTACKS = {
    "script": lambda svg: svg.replace("</svg>", "<script>alert(1)</script></svg>"),
    "local image": lambda svg: svg.replace("</svg>", '<image href="file:///etc/hostname" width="9" height="9"/></svg>'),
    "xlink image": lambda svg: svg.replace("</svg>", '<image xlink:href="file:///etc/hostname"/></svg>'),
    "event handler": lambda svg: svg.replace("<svg ", '<svg onload="alert(1)" ', 1),
    "foreignObject": lambda svg: svg.replace("</svg>", "<foreignObject><p>x</p></foreignObject></svg>"),
    "external use": lambda svg: svg.replace("</svg>", '<use xlink:href="file:///x.svg#a"/></svg>'),
    "external style": lambda svg: svg.replace("*{stroke", "*{background: url(file:///x.png)}*{stroke", 1),
    "import": lambda svg: svg.replace("*{stroke", "@import 'http://example.com/a.css';*{stroke", 1),
    "entity": lambda svg: '<!DOCTYPE svg [<!ENTITY e SYSTEM "file:///etc/hostname">]>' + svg[svg.index("<svg "):]
    .replace("</svg>", "<text>&e;</text></svg>"),
    "stylesheet": lambda svg: svg.replace("<svg ", '<?xml-stylesheet href="http://example.com/a.css"?><svg ', 1),
    "link": lambda svg: svg.replace("</svg>", '<a href="https://example.com/"><text>x</text></a></svg>'),
    "not svg": lambda _svg: "<html><script>alert(1)</script></html>",
}


@pytest.fixture(scope="module")
def kept_figures(tmp_path_factory):
    """Figures kept by one build (html, json) into an empty cache folder: the cache folder (the session's first
    build of SPEC, tests/shared.py, which tests/test_figure_store.py starts from too)."""
    from shared import built_into_empty_cache

    folder = tmp_path_factory.mktemp("kept") / "cache"
    built_into_empty_cache(SPEC.name, folder, ("html", "json"))
    return folder


@pytest.mark.parametrize("attack", sorted(FIGURE_ATTACKS))
@pytest.mark.parametrize("forged", [False, True], ids=["digest stale", "digest forged"])
def test_a_kept_figure_that_is_not_genreports_svg_is_not_taken(kept_figures, tmp_path, monkeypatch, attack, forged):
    """Issue 32.2: an entry only had to start with ``<svg``. A forger who states the right digest still meets the
    SVG check; a stale digest alone is enough to refuse an edit."""
    from genreport.present.figures import store

    folder = tmp_path / "cache"
    shutil.copytree(kept_figures, folder)
    monkeypatch.setenv("GENREPORT_CACHE", str(folder))
    monkeypatch.setattr(store, "_checked", {})
    path = sorted((folder / store.FOLDER).glob("*.json"))[0]
    data = json.loads(path.read_text())
    names = list(data["figures"])
    assert store.get(path.stem, names) is not None  # as kept
    name = names[len(names) // 2]
    changed = FIGURE_ATTACKS[attack](data["figures"][name])
    assert changed != data["figures"][name], attack
    data["figures"][name] = changed
    if forged:
        data["digest"] = store._digest(data["key"], data["figures"])
    path.write_text(json.dumps(data))
    assert store.get(path.stem, names) is None


def test_a_figure_with_text_added_and_a_stale_digest_is_not_taken(kept_figures, tmp_path, monkeypatch):
    from genreport.present.figures import store

    folder = tmp_path / "cache"
    shutil.copytree(kept_figures, folder)
    monkeypatch.setenv("GENREPORT_CACHE", str(folder))
    path = sorted((folder / store.FOLDER).glob("*.json"))[0]
    data = json.loads(path.read_text())
    for name, svg in data["figures"].items():
        data["figures"][name] = svg.replace("</svg>", '<text x="9" y="9">added</text></svg>')
    path.write_text(json.dumps(data))
    assert store.get(path.stem, list(data["figures"])) is None
    path.unlink()
    path.symlink_to(folder / store.FOLDER / sorted((folder / store.FOLDER).glob("*.json"))[0].name)
    assert not store.exists(path.stem) and store.get(path.stem, list(data["figures"])) is None  # a link: not read


# --------------------------------------------------------------------------------- the PDF's URLs (item 2)

def test_the_pdf_stage_fetches_nothing_but_its_own_tokens(outside, monkeypatch):
    """Issue 32.2: the URL fetcher fell back to WeasyPrint's own for any other URL, which reads local files."""
    pytest.importorskip("weasyprint")
    from genreport.printing import pdf

    pdf._import()
    local = (outside / "local.png").as_uri()
    inner = (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" '
             f'height="20"><image href="{local}" width="20" height="20"/><image xlink:href="{local}" width="20" '
             f'height="20"/><path d="M 0 0 L 9 9 Z"/></svg>')
    uri = "data:image/svg+xml;base64," + base64.b64encode(inner.encode()).decode()
    html = (f'<html><head><link rel="stylesheet" href="{(outside / "victim.txt").as_uri()}"></head><body>'
            f'<p>x</p><img src="{local}"><img src="{uri}"><p style="background: url({local})">y</p></body></html>')
    opened = []

    def record(self, url, *args, **kwargs):
        opened.append(url)
        raise OSError("not in a test")

    monkeypatch.setattr(urllib.request.OpenerDirector, "open", record)
    document = pdf._html(html)
    with pytest.raises(ValueError, match="fetches no URL"):
        document.url_fetcher(local)
    with pytest.raises(ValueError, match="fetches no URL"):
        document.url_fetcher("https://example.com/")
    out = document.render().write_pdf(pdf_identifier=False, uncompressed_pdf=True)
    assert opened == []  # nothing asked of urllib, whose handlers read files and the network
    assert b"/Subtype /Image" not in out  # the local PNG is embedded nowhere
    token = next(iter(pdf._URIS))
    assert document.url_fetcher(token).read().startswith(b"<svg")  # its own tokens are answered


# ---------------------------------------------------------------------------------- PDF operators (item 2)

PATHS = ('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><path d="M 0 0 L 20 20 L 0 20 Z"/>'
         '<rect x="2" y="2" width="5" height="3"/></svg>')
TEXT = ('<svg xmlns="http://www.w3.org/2000/svg" width="60" height="20"><text x="2" y="14" '
        'font-family="DejaVu Sans">a b</text></svg>')
GROUP = ('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><g opacity="0.5">'
         '<path d="M 0 0 L 20 20 L 0 20 Z" fill="red"/></g></svg>')
STROKES = "\n0 0 m\n900 900 l\nS"
OPERATOR_ATTACKS = {  # (file, what is done to each record's operators, whether the digest is stated again)
    "strokes added": ("anywhere", lambda ops: ops + STROKES, False),
    "text, digest forged": ("anywhere", lambda ops: ops + "\nBT\n/F1 12 Tf\n<0041> Tj\nET", True),
    "image, digest forged": ("anywhere", lambda ops: ops + "\n/Im0 Do", True),
    "unbalanced Q, digest forged": ("anywhere", lambda ops: ops + "\nQ", True),
    "literal string, digest forged": ("anywhere", lambda ops: ops + "\n(x) Tj", True),
    "two operators a line, digest forged": ("anywhere", lambda ops: ops + "\n0 0 m 9 9 l", True),
    "placed: text added": ("placed", lambda ops: ops + "\nBT\n/XKQQSR 8 Tf\n1 0 0 -1 0 0 Tm\n[<0014>] TJ\nET", False),
    "placed: strokes added": ("placed", lambda ops: ops + STROKES, False),
    "placed: inline image, digest forged": ("placed", lambda ops: ops + "\nBI\n/W 1 /H 1\nID\nx\nEI", True),
    "placed: unknown group, digest forged": ("placed", lambda ops: ops + "\n/x999 Do", True),
    "placed: text outside BT, digest forged": ("placed", lambda ops: ops + "\n<0014> Tj", True),
}


def _print(html: str) -> bytes:
    import weasyprint

    return weasyprint.HTML(string=html, base_url=None).render().write_pdf(pdf_identifier=False)


def _tamper_operators(cache: Path, where: str, change, forge: bool) -> int:
    """Change every record of the operator cache's file (``anywhere``) or folder (``placed``); how many."""
    from genreport.printing import opcache

    if where == "anywhere":
        path = cache / opcache.FILE
        data = json.loads(path.read_text())
        for item in data["entries"]:
            item[1] = change(item[1])
            if forge:
                item[3] = opcache._digest(item[0], item[1:3])
        path.write_text(json.dumps(data))
        return len(data["entries"])
    paths = sorted((cache / opcache.PLACED_FOLDER).glob("*.json"))
    for path in paths:
        data = json.loads(path.read_text())
        data["ops"] = change(data["ops"])
        if forge:
            data["digest"] = opcache._digest(data["key"], {k: v for k, v in data.items() if k != "digest"})
        path.write_text(json.dumps(data))
    return len(paths)


@pytest.mark.parametrize("attack", list(OPERATOR_ATTACKS))
def test_an_operator_record_that_is_not_as_recorded_is_drawn_again(cache, monkeypatch, attack):
    """Issue 32.2: strokes added to ``svg-ops-1.json`` were drawn over every formula of the PDF. A record edited
    (its digest stale) or forged (its digest stated again) with what genreport never records is dropped: the
    image is drawn and recorded again, the bytes are stock WeasyPrint's."""
    pytest.importorskip("weasyprint")
    from genreport.printing import opcache

    if not opcache.install():
        pytest.skip("operator cache not checked for this WeasyPrint")
    imgs = "".join(f'<img src="data:image/svg+xml;base64,{base64.b64encode(s.encode()).decode()}">'
                   for s in (PATHS, TEXT, TEXT, GROUP, GROUP))
    html = f'<html><body><p style="font-family: DejaVu Sans">a b {imgs}</p><p>{imgs}</p></body></html>'
    opcache.uninstall()
    try:
        stock = _print(html)
    finally:
        opcache.install()
    assert _print(html) == stock
    opcache.save()
    _forget(monkeypatch)
    before = dict(opcache.stats)
    assert _print(html) == stock
    assert opcache.stats["replayed"] - before["replayed"] >= 6  # both files were read and replayed as recorded
    where, change, forge = OPERATOR_ATTACKS[attack]
    assert _tamper_operators(cache, where, change, forge) >= 1
    _forget(monkeypatch)
    before = dict(opcache.stats)
    assert _print(html) == stock
    assert opcache.stats["recorded"] > before["recorded"], opcache.stats  # drawn again, not replayed
    opcache.save()
    _forget(monkeypatch)
    before = dict(opcache.stats)
    assert _print(html) == stock  # what was recorded again is replayed again
    assert opcache.stats["recorded"] == before["recorded"], opcache.stats


@pytest.mark.parametrize("content", [b'{"versions": 1, "entries": []}', b"[1, 2]", b'{"entries": [[1, 2, 3, 4]]}',
                                     b"NaN", b"\x00" * 64])
def test_an_operator_file_of_another_shape_is_ignored(cache, content):
    from genreport.printing import opcache

    cache.mkdir()
    (cache / opcache.FILE).write_bytes(content)
    assert opcache._cache() == {}
    key = "2" * 64
    (cache / opcache.PLACED_FOLDER).mkdir()
    (cache / opcache.PLACED_FOLDER / f"{key}.json").write_bytes(content)
    assert opcache._placed_entry(key) is None


# ------------------------------------------------------------------------------------ page splits (item 5)

def _damaged(records: list, how: str):
    """``records`` (as read back) with the first damaged one way; bytes for the ways no list of records holds."""
    if how.startswith("page="):
        first = sorted(records[0]["anchors"])[0]
        records[0]["anchors"][first] = dict(records[0]["anchors"][first], page=ast.literal_eval(how[5:]))
    elif how == "lookup page=None":
        missing, values = records[0]["lookups"][0]
        records[0]["lookups"][0] = (missing, dict(values, page=None))
    elif how == "lookup without its counter":
        missing, _values = records[0]["lookups"][0]
        records[0]["lookups"][0] = (missing, {"pages": [3]})
    elif how == "k=0":
        records[0]["k"] = 0
    elif how == "k='3'":
        records[0]["k"] = "3"
    elif how == "entry of three":
        records[0]["entry"] = records[0]["entry"][:3]
    elif how == "counters=None":
        resume_at, next_page, right_page, state = records[0]["entry"]
        records[0]["entry"] = (resume_at, next_page, right_page, (state[0], None, state[2], state[3]))
    elif how == "resume_at='x'":
        records[0]["entry"] = ("x", *records[0]["entry"][1:])
    elif how == "sig=[]":
        records[0]["sig"] = []
    elif how == "extra key":
        records[0]["extra"] = 1
    else:
        return {"garbage": b"\x00\xff garbage [[{(", "truncated": repr(records)[:200].encode(),
                "code": b"[__import__('os').system('false')]"}[how]
    return records


SPLIT_DAMAGE = ["page=None", "page=3", "page=2.5", "page=[[1]]", "page=[]", "page=['x']", "page=[True]",
                "lookup page=None", "lookup without its counter", "k=0", "k='3'", "entry of three",
                "counters=None", "resume_at='x'", "sig=[]", "extra key", "garbage", "truncated", "code"]


@pytest.fixture(scope="module")
def split_file(tmp_path_factory):
    """A synthetic document (test_splitlayout's), its PDF and the page-splits file its layout remembered (the run's
    first print of it, shared with tests/test_splitlayout.py)."""
    if not hasattr(os, "fork") or (os.cpu_count() or 1) < 2:
        pytest.skip("needs fork and 2 cores")
    from genreport.printing import pdf, splitlayout
    from test_splitlayout import _first_print, _synthetic

    with pytest.MonkeyPatch.context() as m:
        m.setenv("GENREPORT_CACHE", str(tmp_path_factory.mktemp("splits") / "cache"))
        for name in ("GENREPORT_PDF", "GENREPORT_PDF_OFF", "GENREPORT_SERIAL"):
            m.delenv(name, raising=False)
        m.setattr("genreport.procs.cores", lambda: 2)
        m.setattr(splitlayout, "_memory", None)
        pdf._import()
        if not splitlayout.enabled():
            pytest.skip("the split does not install on this WeasyPrint")
        html = _synthetic()
        one = _first_print(splitlayout, html)  # the run's first print of it (tests/shared.py)
        text = splitlayout._records_path().read_text()
    return html, one, text


@pytest.mark.parametrize("how", SPLIT_DAMAGE)
def test_a_damaged_page_splits_record_is_ignored(split_file, cache, how):
    """Issue 32.5: a record whose anchor's page is None, an int, a float or a list broke every PDF build until the
    cache was deleted ("internal error: TypeError ... not subscriptable")."""
    from genreport.printing import splitlayout

    _html, _one, text = split_file
    records = ast.literal_eval(text)
    assert [splitlayout._valid(r) for r in records] == [True] * len(records)
    damaged = _damaged(records, how)
    cache.mkdir()
    path = cache / splitlayout.RECORDS_FILE
    path.write_bytes(damaged if isinstance(damaged, bytes) else repr(damaged).encode())
    assert len(splitlayout._records()) == (0 if isinstance(damaged, bytes) else len(records) - 1)


def test_a_layout_given_every_damaged_record_prints_the_same_pdf(split_file, cache, monkeypatch):
    """Each damage of the test above, in one file: the document is printed as without a record, then remembered
    again (the next layout splits and seeds from it)."""
    from genreport.printing import splitlayout
    from test_splitlayout import _print as print_split

    monkeypatch.setattr("genreport.procs.cores", lambda: 2)
    monkeypatch.delenv("GENREPORT_PDF_OFF", raising=False)
    html, one, text = split_file
    damaged = []
    for how in SPLIT_DAMAGE:
        result = _damaged(ast.literal_eval(text), how)
        if not isinstance(result, bytes):
            damaged.extend(r for r in result if not splitlayout._valid(r))
    cache.mkdir()
    path = cache / splitlayout.RECORDS_FILE
    path.write_text(repr(damaged))
    assert splitlayout._records() == []
    assert print_split(html) == one
    monkeypatch.setattr(splitlayout, "_memory", None)
    assert len(splitlayout._records()) == 1  # remembered again, and taken:
    before = dict(splitlayout.stats)
    assert print_split(html) == one
    assert splitlayout.stats["taken"] > before["taken"] and splitlayout.stats["seeded"] > before["seeded"]


# ------------------------------------------------------------ a whole build with a hostile cache (all items)

def _build(out: Path, capsys) -> tuple[dict[str, bytes], str]:
    with deadline(300) as expired:
        code = main([str(SPEC), "-o", str(out), "--format", "html,pdf,json", "--force"])
    err = capsys.readouterr().err
    assert not expired and code == 0, err
    folder = out / SPEC.stem
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}, err


def test_a_build_with_every_cache_entry_hostile_gives_the_report_of_a_fresh_cache(cache, tmp_path, outside,
                                                                                  monkeypatch, capsys):
    """Every attack of the issue at once, on the cache one build made: the next build succeeds, its files are the
    bytes of the first (the PDF included), nothing outside the output folder is touched, and the cache is private
    (folders 0700, files 0600; issue 32.4).  The first build starts from the cache of the session's first html,json
    build of SPEC (``kept_figures``'s, tests/shared.py): its figures and formulas kept, its PDF stage's records
    made here."""
    from genreport.present import mathsvg
    from genreport.present.figures import store
    from genreport.printing import opcache, splitlayout
    from shared import built_into_empty_cache

    built_into_empty_cache(SPEC.name, cache, ("html", "json"))
    _forget(monkeypatch)
    reference, _err = _build(tmp_path / "out-1", capsys)
    modes = _modes(cache)
    assert {m for name, m in modes.items() if (cache / name).is_dir() or name == "."} == {0o700}, modes
    assert {m for name, m in modes.items() if (cache / name).is_file()} == {0o600}, modes
    assert {p.name for p in cache.iterdir()} >= {"math", "valid", store.FOLDER, opcache.FILE, opcache.PLACED_FOLDER}

    secret = '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><text>SECRET</text></svg>'
    math = sorted((cache / "math").glob("*.svg"))
    assert len(math) >= 20
    for i, path in enumerate(math):
        (cache / "math" / f"{path.stem}.{os.getpid()}.tmp").symlink_to(outside / "victim.txt")
        if i % 3 == 0:  # a link to a well-formed entry elsewhere
            (outside / f"{path.stem}.svg").write_text(mathsvg._entry(path.stem, secret, 0.0))
            path.unlink()
            path.symlink_to(outside / f"{path.stem}.svg")
        elif i % 3 == 1:
            path.unlink()
            os.mkfifo(path)
    for path in (cache / store.FOLDER).glob("*.json"):
        data = json.loads(path.read_text())
        for name, svg in data["figures"].items():
            data["figures"][name] = svg.replace("</svg>", f'<script>alert(1)</script><image href="'
                                                f'{(outside / "local.png").as_uri()}"/><text>SECRET</text></svg>')
        data["digest"] = store._digest(data["key"], data["figures"])  # forged: only the SVG check refuses it
        path.write_text(json.dumps(data))
    assert _tamper_operators(cache, "anywhere", lambda ops: ops + STROKES, False) >= 20
    assert _tamper_operators(cache, "placed", lambda ops: ops + "\nBT\n/A 8 Tf\n<0014> Tj\nET", False) >= 1
    if (cache / splitlayout.RECORDS_FILE).exists():  # a machine with two cores or more
        records = ast.literal_eval((cache / splitlayout.RECORDS_FILE).read_text())
        (cache / splitlayout.RECORDS_FILE).write_text(repr([_damaged([r], "page=None")[0] for r in records]))
    (cache / "figure-sizes.json").unlink(missing_ok=True)  # written only when the sizes differ from those shipped
    os.mkfifo(cache / "figure-sizes.json")  # read by the PDF stage's early layout
    for path in (cache / "valid").iterdir():
        path.unlink()
        path.symlink_to(outside / "victim.txt")
    os.chmod(cache / "math", 0o755)
    before = _state(outside)

    _forget(monkeypatch)
    again, err = _build(tmp_path / "out-2", capsys)
    assert "internal error" not in err and "Traceback" not in err, err
    assert again == reference
    assert _state(outside) == before
    assert not any(b"SECRET" in data for data in again.values())
    figures = {name: data for name, data in again.items() if name.startswith("figures/")}
    assert len(figures) == 9 and not any(b"<script" in d or b"<image" in d or b"file:" in d for d in figures.values())
    assert stat.S_IMODE((cache / "math").stat().st_mode) == 0o700
    for path in [*math, *(cache / "valid").iterdir()]:
        assert stat.S_ISREG(path.lstat().st_mode), path  # each link and FIFO replaced by genreport's own file
