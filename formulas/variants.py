"""The printed variants of the formulas: which optional symbols each accounting drops (plain data, no SymPy).

One table, used by the compiled formulas, the report, ``derive`` and the sensitivities alike.

* ``full``: every symbol kept (N, N_a, N_e, a);
* ``dense``: N_a = N (every parameter does arithmetic for every token);
* ``seed``: seed 003's accounting of a dense model: N_a = N and N_e = 0 (all weights streamed);
* ``moe``: seed 003's accounting of a mixture of experts: N_e = 0, N_a stays apart from N;
* ``exact``: per matrix: N_a = N - N_e (the input embedding is a row lookup, not a GEMM);
* a ``+a`` suffix keeps the activation traffic a; without it a = 0.
"""

from __future__ import annotations

BASES = ("full", "dense", "seed", "moe", "exact")
VARIANTS = BASES + tuple(f"{b}+a" for b in BASES if b != "full")

# base -> {symbol: replacement}; a replacement is "0", another symbol, or "N - N_e"
_SUBSTITUTIONS = {
    "full": {},
    "dense": {"N_a": "N"},
    "seed": {"N_a": "N", "N_e": "0"},
    "moe": {"N_e": "0"},
    "exact": {"N_a": "N - N_e"},
}


def substitutions(variant: str) -> dict[str, str]:
    """What ``variant`` substitutes, symbol name -> replacement text.

    >>> substitutions("seed")
    {'N_a': 'N', 'N_e': '0', 'a': '0'}
    >>> substitutions("exact+a")
    {'N_a': 'N - N_e'}
    """
    base = variant.removesuffix("+a")
    if base not in _SUBSTITUTIONS or (variant.endswith("+a") and base == "full"):
        raise KeyError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    out = dict(_SUBSTITUTIONS[base])
    if base != "full" and not variant.endswith("+a"):
        out["a"] = "0"
    return out


def variant_for(accounting: str, moe: bool = False, activation: bool = False) -> str:
    """Which variant of the formulas belongs to an accounting.

    >>> variant_for("seed", moe=True, activation=True)
    'moe+a'
    >>> variant_for("exact")
    'exact'
    """
    plus_a = "+a" if activation else ""
    if accounting == "seed":
        return ("moe" if moe else "seed") + plus_a
    if accounting == "exact":
        return "exact" + plus_a
    return "full"


def accounting_note(variant: str) -> str:
    """What a variant substitutes, in words.

    >>> accounting_note("moe")
    'N_e = 0, a = 0'
    """
    bits = [f"{k} = {v}" for k, v in substitutions(variant).items()]
    return ", ".join(bits) if bits else "no substitution"
