"""Which printed variant of the formulas belongs to an accounting (plain data, no SymPy)."""

from __future__ import annotations


def variant_for(accounting: str, moe: bool = False, activation: bool = False) -> str:
    """Which variant of the formulas belongs to an accounting.

    The report's variants (``compiled.VARIANTS``) plus ``moe``: the seed accounting of a mixture
    of experts, where N_e = 0 and a = 0 but the active parameters N_a stay apart from N.
    """
    plus_a = "+a" if activation else ""
    if accounting == "seed":
        return ("moe" if moe else "seed") + plus_a
    if accounting == "exact":
        return "exact" + plus_a
    return "full"
