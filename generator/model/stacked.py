"""One compiled formula evaluated once over the values of many layouts, with the numbers each layout's own call gives.

The generated NumPy functions (formulas/_generated.py) work element by element, so the values of several layouts,
stacked, give each layout's numbers in one call instead of one call a layout (the frontier's curves: a hundred
layouts of DeepSeek-V3).  Two things would move a last bit, and are kept as a layout's own call has them:

- A value that is one number per layout (a float64 scalar in its own call: n_TP, n_PP, a link's bandwidth) stays a
  scalar to NumPy's power: ``x ** -1.0`` of a float64 scalar is C's ``pow``, of an array NumPy's reciprocal (and
  ``** 2`` its square), which differ in the last bit for about one value in a thousand.  Such values are stacked as
  :class:`_Each`, whose powers take ``pow`` element by element, and whose results stay :class:`_Each` while no
  batch's array enters them.
- A value the same in every layout is passed as it is (a scalar stays that scalar).

Anything else (a 0-d array, a two-dimensional one, a value that is an array in one layout and a number in another, a
power whose base is a batch's array and whose exponent differs by layout) is evaluated one layout at a time.
"""

from __future__ import annotations

import numpy as np


class _Fallback(Exception):
    """The stacked call cannot promise each layout's own numbers: evaluate them one at a time."""


def _plain(x):
    return x.view(np.ndarray) if isinstance(x, _Each) else x


class _Each(np.ndarray):
    """One number per layout, stacked (each repeated over its layout's batches): a float64 scalar in the layout's
    own call.  Ufuncs keep the kind where every array operand is one; powers take C's pow element by element."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if kwargs.get("out") is not None or method != "__call__":
            raise _Fallback(f"{ufunc.__name__}.{method}")
        each = all(isinstance(x, _Each) or not isinstance(x, np.ndarray) for x in inputs)
        if ufunc is np.power:
            return _power(*inputs)
        if ufunc in (np.reciprocal, np.square, np.float_power):
            raise _Fallback(ufunc.__name__)
        out = ufunc(*(_plain(x) for x in inputs), **kwargs)
        return out.view(_Each) if each and isinstance(out, np.ndarray) else out

    def __pow__(self, other):
        return _power(self, other)

    def __rpow__(self, other):
        return _power(other, self)


def _power(base, exponent):
    """``base ** exponent`` as each layout's scalars take it: a float64 scalar's power of every element (C's pow, the
    same on every machine; NumPy's array power takes x*x or 1/x for an exponent of 2 or -1, and its own vector code
    on a CPU with AVX-512: formulas/portable.py).  A batch's array raised to a power that differs by layout falls back
    (its own call takes NumPy's array power there)."""
    if isinstance(base, np.ndarray) and not isinstance(base, _Each):
        raise _Fallback("a batch's array to a power per layout")
    if isinstance(exponent, np.ndarray) and not isinstance(exponent, _Each):
        raise _Fallback("a number per layout to a batch's power")
    b, e = np.asarray(_plain(base), dtype=float), np.asarray(_plain(exponent), dtype=float)
    shape = np.broadcast_shapes(b.shape, e.shape)
    # a layout's number repeats over its batches: each (base, exponent) pair's power once, the pairs told apart by
    # their bits (0.0 and -0.0 differ under a negative power)
    bits, ebits = (np.ascontiguousarray(np.broadcast_to(x, shape), dtype=np.float64).ravel().view(np.int64)
                   for x in (b, e))
    if bits.size == 0:
        return np.empty(shape).view(_Each)
    # the pairs come in runs (a layout's number repeated over its batches): each run's power once, found in one pass
    change = np.empty(bits.size, dtype=bool)
    change[0] = True
    np.not_equal(bits[1:], bits[:-1], out=change[1:])
    change[1:] |= ebits[1:] != ebits[:-1]
    starts = np.flatnonzero(change)
    if 8 * starts.size <= bits.size:
        runs = zip(bits[starts].view(np.float64), ebits[starts].view(np.float64), strict=True)
        each = np.array([np.float64(x) ** np.float64(y) for x, y in runs], dtype=float)
        return np.repeat(each, np.diff(np.append(starts, bits.size))).reshape(shape).view(_Each)
    out = np.empty(bits.size)
    for ebit in np.unique(ebits):
        at = ebits == ebit
        y = np.array([ebit], dtype=np.int64).view(np.float64)[0]
        bases, back = np.unique(bits[at], return_inverse=True)
        out[at] = np.array([np.float64(x) ** y for x in bases.view(np.float64)], dtype=float)[np.ravel(back)]
    return out.reshape(shape).view(_Each)


_NUMBERS = frozenset({float, int, np.float64, np.float32, np.int64, np.int32})  # a number's types (not bool)


_F64 = np.dtype(np.float64)


def _stack(formula, values: list[dict]) -> list:
    cols = {a: [v[a] for v in values] for a in formula.fn_args}
    lens: list[int] | None = None
    args: dict[str, object] = {}
    for a, col in cols.items():
        first = col[0]
        if isinstance(first, np.ndarray):  # a batch's values: one-dimensional in every layout
            if not all(type(x) is np.ndarray and x.ndim == 1 and x.dtype == _F64 for x in col):
                raise _Fallback(f"{a}: not a one-dimensional float64 array in every layout")
            n = [len(x) for x in col]
            if lens is None:
                lens = n
            elif n != lens:
                raise _Fallback(f"{a}: arrays of different lengths in one layout")
            args[a] = np.concatenate(col)
        elif not all(type(x) in _NUMBERS for x in col):
            raise _Fallback(f"{a}: not a number in every layout")
        elif first == first and all(type(x) is type(first) and x == first for x in col):
            args[a] = first  # the same number in every layout: as each layout's call has it
        else:
            args[a] = None  # one number per layout, stacked below (once the batches' lengths are known)
    batches = lens is not None
    sizes: list[int] = lens if lens is not None else [1] * len(values)
    for a in [a for a, x in args.items() if x is None]:
        args[a] = np.repeat(np.array([float(x) for x in cols[a]]), sizes).view(_Each)
    out = formula.fn(*(args[a] for a in formula.fn_args))
    starts = np.concatenate([[0], np.cumsum(sizes)])
    if isinstance(out, _Each):
        return [np.float64(out.view(np.ndarray)[s]) for s in starts[:-1]]
    if isinstance(out, np.ndarray):
        if out.shape != (starts[-1],) or not batches:
            raise _Fallback("a result not over the stacked batches")
        return [out[s:e] for s, e in zip(starts[:-1], starts[1:], strict=True)]
    return [out] * len(values)  # no value differs by layout: the same number for all


def over(formula, values: list[dict]) -> list:
    """``[formula(v) for v in values]``, each the same to the bit, in one call where the values allow it (see the
    module): a layout's values are float64 scalars or one-dimensional arrays (its batches), the same kinds in every
    layout."""
    if len(values) < 2:
        return [formula(v) for v in values]
    try:
        return _stack(formula, values)
    except _Fallback:
        return [formula(v) for v in values]
