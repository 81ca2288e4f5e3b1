"""exp, log and powers of arrays that give the same bits on every machine.

numpy evaluates float64 ``exp``, ``log`` and ``power`` of an array with its own vector code where the CPU has
AVX-512 and with the C library's functions where it has not; the two differ in the last bit for some inputs. A
report built on two machines then differs in results.json (seen: DeepSeek-V3's frontier, through the experts a
batch touches, E (1 - (1 - k/E)^B)). These functions take each element through Python's ``math`` module, the C
library's functions on every machine, so the same spec gives the same bytes wherever it is built.

>>> power(0.5, [1.0, 2.0, 3.0]).tolist()
[0.5, 0.25, 0.125]
>>> logspace(0.0, 2.0, 3).tolist()
[1.0, 10.0, 100.0]
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np


def _each(fn, x) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    return np.fromiter((fn(v) for v in a.ravel().tolist()), dtype=float, count=a.size).reshape(a.shape)


def _pow(base: float, e: float) -> float:
    try:
        return math.pow(base, e)
    except OverflowError:
        return math.inf
    except ValueError:
        return math.nan


def _exp(v: float) -> float:
    try:
        return math.exp(v)
    except OverflowError:
        return math.inf


def _log(v: float) -> float:
    if v > 0 or v != v:
        return math.log(v) if v == v else v
    return -math.inf if v == 0 else math.nan


def power(base: float, exponents) -> np.ndarray:
    """``base ** x`` for each x of ``exponents`` (a new array each call; the same call twice is computed once)."""
    a = np.asarray(exponents, dtype=float)
    return _power(float(base), a.tobytes(), a.shape).copy()


@functools.lru_cache(maxsize=4096)
def _power(base: float, data: bytes, shape: tuple[int, ...]) -> np.ndarray:
    # plan and the frontier ask the same powers for every layout (the experts a batch touches)
    a = np.frombuffer(data, dtype=float)
    try:  # math.pow itself over the values (a quarter of the time of one call each): the same bits
        return np.fromiter(map(math.pow, itertools.repeat(base, a.size), a.tolist()), dtype=float,
                           count=a.size).reshape(shape)
    except (OverflowError, ValueError):  # an infinite or undefined power somewhere: each value on its own
        return _each(lambda e: _pow(base, e), a.reshape(shape))


def exp(x) -> np.ndarray:
    return _each(_exp, x)


def log(x) -> np.ndarray:
    return _each(_log, x)


def logspace(start: float, stop: float, num: int, base: float = 10.0) -> np.ndarray:
    """``np.logspace``: ``base ** y`` over ``num`` evenly spaced y from ``start`` to ``stop``."""
    return power(base, np.linspace(start, stop, num))


def geomspace(start: float, stop: float, num: int) -> np.ndarray:
    """``np.geomspace`` for positive ends: ``num`` values evenly spaced in log, the two ends exact."""
    out = logspace(math.log10(start), math.log10(stop), num)
    if num:
        out[0] = start
    if num > 1:
        out[-1] = stop
    return out
