"""The point budget of a report, apart from the loader so that the up-to-date check can read it without
importing the loader (PyYAML, the spec types: 40 ms of a 0.1 s "up to date")."""

from __future__ import annotations

import os

# Budget of a report: decode points (batches x contexts), prefill prompts, GEMMs and measurements.  Each
# costs about 3.9 kB of results.json and 10 ms of layout; 1,024 points build in about 10 s into 4 MB.
MAX_POINTS = 1024


def max_points() -> int:
    """The report budget: GENREPORT_MAX_POINTS (set by ``genreport --max-points N``), else MAX_POINTS."""
    text = os.environ.get("GENREPORT_MAX_POINTS", "")
    return int(text) if text.isdigit() and 0 < len(text) < 12 else MAX_POINTS
