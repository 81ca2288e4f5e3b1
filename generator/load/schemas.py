"""The spec schemas as data, without jsonschema: the documents in specs/schema/, a field's description as the
loader's messages quote it, and the plausible range of each ``unit`` the schemas name.

``validate`` judges specs by them; ``setrules`` hands them to the live page, which a build writes without
importing jsonschema (a spec whose validity is cached is never validated again).
"""

from __future__ import annotations

import json
import re
from functools import cache

from genreport.load import units
from genreport.paths import schema_dir

UNIT_DIMS = {"B/s": units.RATE_BYTES, "B": units.BYTES, "FLOP/s": units.RATE_FLOP, "s": units.SECONDS}
# Plausible range of a quantity: outside it the value is a typo (a wrong prefix), not a device.
LIMITS = {"B/s": (1.0, 1e15), "B": (1.0, 1e15), "FLOP/s": (1.0, 1e19), "s": (1e-15, 1e6)}
LIMIT_TEXT = {"B/s": ("1 B/s", "1 PB/s"), "B": ("1 B", "1 PB"), "FLOP/s": ("1 FLOP/s", "10 EFLOP/s"),
              "s": ("1 fs", "11 days")}


@cache
def schema(kind: str) -> dict:
    """The ``kind`` schema (hardware, model, report or common) as written."""
    return json.loads((schema_dir() / f"{kind}.schema.json").read_text(encoding="utf-8"))


def describe(node) -> str:
    """A field's description as a message quotes it: without its unit in brackets and its full stop, lowercase.

    >>> describe({"description": "A positive whole number [count]."})
    'a positive whole number'
    """
    text = node.get("description", "") if isinstance(node, dict) else ""
    text = re.sub(r"\s*\[[^\]]*\]\.?$", "", text).strip().rstrip(".")
    return text[:1].lower() + text[1:] if text else ""
