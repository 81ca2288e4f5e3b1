"""Print stage: the same HTML, paginated to PDF by WeasyPrint (no MathML: formulas are SVG images)."""

from __future__ import annotations

import logging
import os

from genreport.errors import BuildError


def prepare():
    """Import WeasyPrint (about a second: it parses Pango's C declarations) and set it up; returns the module."""
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")  # fontTools subsetting stamps the time otherwise
    for name in ("weasyprint", "fontTools"):
        logging.getLogger(name).setLevel(logging.ERROR)
    try:
        from genreport.present import pangoffi

        pangoffi.install()  # the same bindings without parsing their C declarations (see its docstring)
        import weasyprint
    except (ImportError, OSError) as exc:  # missing Pango/HarfBuzz shows up as OSError
        raise BuildError(f"PDF output needs WeasyPrint and its system libraries ({exc}); "
                         "install them as the README says, or use --format html,json") from None
    from genreport.present import fastsvg

    fastsvg.install()  # same bytes, a third less time (see its docstring)
    return weasyprint


def html_to_pdf(html: str, figures=None, timer=None) -> bytes:
    """PDF bytes of a self-contained HTML string; deterministic given the same fonts and versions.

    With a ``timer``, its laps are ``pdf-layout`` (WeasyPrint's cascade and pagination) and ``pdf-draw``
    (painting pages, images and fonts into the file).
    """
    weasyprint = prepare()
    document = weasyprint.HTML(string=html, base_url=None).render()
    if timer:
        timer.lap("pdf-layout")
    pdf = document.write_pdf(pdf_identifier=False)
    if timer:
        timer.lap("pdf-draw")
    return pdf


def warm_up() -> None:
    """Import WeasyPrint and print a small page, so fontconfig, Pango and the fonts are loaded (warm processes)."""
    weasyprint = prepare()
    html = ('<p style="font-family: DejaVu Sans">warm <b>bold</b> <i>italic</i> <code>mono</code></p>'
            '<img src="data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSIx'
            'MCIgaGVpZ2h0PSIxMCI+PHBhdGggZD0iTSAwIDAgTCAxMCAxMCIvPjwvc3ZnPg==">')
    weasyprint.HTML(string=html, base_url=None).render().write_pdf(pdf_identifier=False)
