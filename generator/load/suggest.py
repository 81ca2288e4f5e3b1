"""'Did you mean ...?': the names close to a word the user wrote, best first.

>>> close("h100", ["a100-sxm-80gb", "h100-nvl", "h100-pcie", "h100-sxm", "h20", "h200"])
['h100-nvl', 'h100-pcie', 'h100-sxm']
>>> close("FP8", ["bf16", "fp16", "fp8", "int8"])
['fp8']
>>> did_you_mean("llama-3-8b", ["llama-3.1-8b", "llama-3.1-70b", "mistral-7b"])
"did you mean 'llama-3.1-8b'?"
"""

from __future__ import annotations

import difflib

MAX = 4  # suggestions shown at most


def close(word: str, names, cutoff: float = 0.5) -> list[str]:
    """Names matching ``word`` ignoring case; else every name it is a prefix of (all three H100s for
    'h100', where difflib alone offered 'h200'); else difflib's nearest name, compared in lower case."""
    names = sorted({str(n) for n in names})
    w = str(word).strip().lower()
    if not w or len(w) > 200:
        return []
    lower = {n: n.lower() for n in names}
    same = [n for n in names if lower[n] == w]
    if same:
        return same[:MAX]
    prefixed = [n for n in names if lower[n].startswith(w)]
    if prefixed:
        return prefixed[:MAX]
    by_lower: dict[str, list[str]] = {}
    for n in names:
        by_lower.setdefault(lower[n], []).append(n)
    best = difflib.get_close_matches(w, list(by_lower), n=1, cutoff=cutoff)
    return by_lower[best[0]][:MAX] if best else []


def did_you_mean(word: str, names, cutoff: float = 0.5) -> str:
    """``"did you mean 'a', 'b' or 'c'?"``, or '' when nothing is close."""
    found = close(word, names, cutoff)
    if not found:
        return ""
    quoted = [f"'{n}'" for n in found]
    return "did you mean " + (quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]) + "?"
