"""The roofline theory of seeds 000 and 003 as SymPy expressions.

Each formula is a pure function returning a SymPy expression over the symbols of
:mod:`formulas.glossary`; closed forms (limits, solved crossovers) are derived
by SymPy in :mod:`formulas.derive`, never typed by hand.  Numeric evaluation goes
through :mod:`formulas.compiled` (lambdify once, cache, vectorise).
"""

SEED_000 = "seed 000 (arithmetic is cheap, moving data is expensive)"
SEED_003 = "seed 003 (training lacks compute, decode lacks bandwidth)"
