"""Print stage: the same HTML, paginated to PDF by WeasyPrint (no MathML: formulas are SVG images)."""

from __future__ import annotations

import logging
import os

from .errors import BuildError


def html_to_pdf(html: str, figures=None) -> bytes:
    """PDF bytes of a self-contained HTML string; deterministic given the same fonts and versions."""
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")  # fontTools subsetting stamps the time otherwise
    for name in ("weasyprint", "fontTools"):
        logging.getLogger(name).setLevel(logging.ERROR)
    try:
        import weasyprint
    except (ImportError, OSError) as exc:  # missing Pango/HarfBuzz shows up as OSError
        raise BuildError(f"PDF output needs WeasyPrint and its system libraries ({exc}); "
                         "install them as the README says, or use --format html,json") from None
    return weasyprint.HTML(string=html, base_url=None).write_pdf(pdf_identifier=False)
