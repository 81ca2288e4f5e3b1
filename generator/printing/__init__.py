"""Printing: the report's HTML to PDF bytes, and everything that makes WeasyPrint do it faster with the same bytes.

The rest of genreport uses only these functions; nothing outside this package imports WeasyPrint, pydyf, cffi or
fontTools. Importing this package imports none of them either: each function loads what it needs.

- :func:`start_worker` forks a process that imports WeasyPrint while the build loads and evaluates (one-off
  builds); :func:`stop_worker` ends one a build did not use; :func:`keep_in_process` and :func:`warm_up` are for
  warm processes (``serve``, ``--watch``), which print in their own process with WeasyPrint already loaded.
- :func:`prepare` starts laying the pages out from the HTML with a placeholder for each figure, while the
  figures are drawn; :func:`print_pdf` prints the final HTML (with its figures) to PDF bytes.
- :func:`paths` says which of the fast paths ran for the last document and every fallback with its reason
  (``genreport SPEC --timings``).

The fast paths replace or copy functions of WeasyPrint, pydyf and cffi; each is installed through one registry
(:mod:`genreport.printing.gate`) that checks a digest of the upstream source it replaces. When any differs, or
``GENREPORT_PDF=stock``, none is installed and the report is printed by stock WeasyPrint: the same bytes, slower.
"""

from __future__ import annotations


def prepare(html: str | None = None, marks: dict[str, str] | None = None, figures: dict[str, bytes] | None = None,
            idle=None) -> None:
    """Import WeasyPrint (or let the worker do it) and start laying ``html`` out, ``marks[name]`` standing where
    each figure's data URI goes (see :mod:`genreport.printing.pdf`); ``idle()`` runs where this process would wait."""
    from genreport.printing import pdf

    pdf.prepare(html, marks, figures, idle)


def print_pdf(html: str, figures: dict[str, bytes] | None = None, timer=None, idle=None) -> bytes:
    """PDF bytes of a self-contained HTML string; deterministic given the same fonts and versions. ``idle()``, if
    given, runs once: while the PDF worker prints (this process would wait), else after printing here."""
    from genreport.printing import pdf

    return pdf.html_to_pdf(html, figures, timer, idle)


def start_worker() -> bool:
    """Fork the PDF worker now (one-off builds that will print); True if one is running."""
    from genreport.printing import pdf

    return pdf.start_worker()


def stop_worker() -> None:
    """End a worker a build did not use, if one was started."""
    import sys

    pdf = sys.modules.get("genreport.printing.pdf")
    if pdf is not None:
        pdf.stop_worker()


def keep_in_process() -> None:
    """No worker from now on: this process keeps WeasyPrint loaded and prints itself (serve, --watch)."""
    from genreport.printing import pdf

    pdf.keep_in_process()


def warm_up() -> None:
    """Import WeasyPrint and print a small page, so fontconfig, Pango and the fonts are loaded (warm processes)."""
    from genreport.printing import pdf

    pdf.warm_up()


def ship_sizes(figures: dict[str, bytes]):
    """Write the built-in figures' sizes shipped for a first build's early layout (``figure_sizes.json``, by
    ``python -m genreport.present.mathship``); returns its path."""
    import json

    from genreport.fileio import write_file
    from genreport.printing import pdf

    write_file(pdf.SHIPPED_SIZES, json.dumps(pdf.sizes_of(figures), sort_keys=True, indent=0).encode() + b"\n")
    return pdf.SHIPPED_SIZES


def sizes_current(figures: dict[str, bytes]) -> tuple[str, bool]:
    """The path of the shipped figure sizes and whether it holds ``figures``' sizes (what
    ``python -m genreport.present.mathship --check`` reports)."""
    import json
    from pathlib import Path

    from genreport.printing import pdf

    sizes = json.dumps(pdf.sizes_of(figures), sort_keys=True, indent=0).encode() + b"\n"
    shipped = Path(pdf.SHIPPED_SIZES)
    return str(shipped), shipped.is_file() and shipped.read_bytes() == sizes


def paths() -> list[str]:
    """Lines saying which paths printed this process's last PDF (the stock path or the fast one, and why; the
    worker, the early layout, the second layout and painting processes, the formula images replayed) and every
    fallback with its reason; none before a PDF was printed."""
    import sys

    pdf = sys.modules.get("genreport.printing.pdf")
    return pdf.describe() if pdf is not None else []
