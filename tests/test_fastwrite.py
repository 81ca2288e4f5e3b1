"""The PDF file's streams compressed on two threads give pydyf's own bytes (generator/printing/fastwrite.py)."""

from __future__ import annotations

import pytest

weasyprint = pytest.importorskip("weasyprint")

from genreport.printing import fastwrite, gate  # noqa: E402

pytestmark = pytest.mark.skipif(not fastwrite.install(), reason=f"one core, or the gate is closed: {gate.reason() or 'open'}")


def test_a_report_written_with_threads_is_pydyfs_bytes(monkeypatch):
    """The 8B report as a build prints it, laid out once this session (tests/shared.py), written both ways."""
    import pydyf
    from shared import printed, write

    reference = printed("llama8b-h100")
    used = []
    submit = fastwrite._compress

    def counting(raw):
        used.append(len(raw))
        return submit(raw)

    monkeypatch.setattr(fastwrite, "_compress", counting)
    fast = write(reference.document)
    fastwrite.uninstall()
    try:
        assert not hasattr(pydyf.PDF.write, "stock")
        stock = write(reference.document)
    finally:
        fastwrite.install()
    assert fast == stock == reference.pdf
    assert len(used) >= 19 and min(used) >= fastwrite.MIN_BYTES  # every page's content, at least
