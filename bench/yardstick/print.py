"""The yardstick of bench/run.py: stock WeasyPrint printing a frozen report, in a fresh process, nothing else.

    python bench/yardstick/print.py [OUT.pdf]

``report.html`` beside this file is genreport's Llama 3.1 8B on H100 report as committed on 2026-11-30
(out/llama8b-h100/report.html at commit 01a656b, WeasyPrint 70.0): self-contained (figures and formulas are
data URIs; fonts are the system's DejaVu). It is never regenerated, so its printing time measures the machine,
not genreport: bench/run.py divides every figure by it. Nothing of genreport is imported here, and none of
its fast paths (prebuilt Pango bindings, fast SVG paths, cached drawings) is used.
"""

import os
import sys
from pathlib import Path

os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
import weasyprint  # noqa: E402

html = (Path(__file__).resolve().parent / "report.html").read_text(encoding="utf-8")
pdf = weasyprint.HTML(string=html, base_url=None).render().write_pdf(pdf_identifier=False)
if len(sys.argv) > 1:
    Path(sys.argv[1]).write_bytes(pdf)
sys.stdout.flush()
os._exit(0)  # as genreport's CLI does: no teardown of WeasyPrint's objects
