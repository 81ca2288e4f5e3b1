"""The PDF file's streams compressed on two threads give pydyf's own bytes (generator/printing/fastwrite.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

weasyprint = pytest.importorskip("weasyprint")

from genreport.present.live import without_scripts  # noqa: E402
from genreport.present.render import _for_print  # noqa: E402
from genreport.printing import fastwrite, gate  # noqa: E402
from genreport.printing import pdf as pdfstage  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not fastwrite.install(), reason=f"one core, or the gate is closed: {gate.reason() or 'open'}")


def test_a_report_written_with_threads_is_pydyfs_bytes(monkeypatch):
    import pydyf

    pdfstage._import()
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    html = without_scripts(_for_print((ROOT / "out" / "llama8b-h100" / "report.html").read_text(encoding="utf-8")))
    document = pdfstage._html(html).render()
    used = []
    submit = fastwrite._compress

    def counting(raw):
        used.append(len(raw))
        return submit(raw)

    monkeypatch.setattr(fastwrite, "_compress", counting)
    fast = document.write_pdf(pdf_identifier=False)
    fastwrite.uninstall()
    try:
        assert not hasattr(pydyf.PDF.write, "stock")
        stock = document.write_pdf(pdf_identifier=False)
    finally:
        fastwrite.install()
    assert fast == stock
    assert len(used) >= 19 and min(used) >= fastwrite.MIN_BYTES  # every page's content, at least
