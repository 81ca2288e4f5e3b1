"""Vectorised text for millions of table rows: numbers formatted by numpy, rows joined in C.

Python's ``"%.6g" % x`` costs about a microsecond a value, which makes a million-row CSV take
seconds.  Here each column is formatted as a fixed-width byte array (shorter values padded
with NUL bytes), the columns are laid side by side in one structured array, and the NULs are
stripped from its bytes: the rows come out joined, with no Python loop over them.

>>> text(format_g6(np.array([20.7028, 0.000244150, 1234567.0, 1e-7, 295.0])))
['20.7028', '0.00024415', '1.23457e+06', '1e-07', '295']
>>> join_rows([np.array([b"a", b"bb"]), b",", format_int(np.array([5, 1234])), b"\\n"])
b'a,5\\nbb,1234\\n'
"""

from __future__ import annotations

import numpy as np

_DIGITS = np.frombuffer(b"0123456789", dtype=np.uint8)


def format_int(x: np.ndarray, width: int = 20) -> np.ndarray:
    """Integers (non-negative or negative) as ``S<width>`` strings, exactly like ``str(int(x))``."""
    v = np.asarray(x, dtype=np.int64).ravel()
    neg = v < 0
    a = np.abs(v)
    out = np.zeros((v.size, width), dtype=np.uint8)
    ndig = np.ones(v.size, dtype=np.int64)
    t = a // 10
    while np.any(t > 0):
        ndig += t > 0
        t //= 10
    start = neg.astype(np.int64)
    rows = np.arange(v.size)
    out[neg, 0] = ord("-")
    rem = a.copy()
    for k in range(int(ndig.max()) - 1, -1, -1):
        has = ndig > k  # the digit at position (ndig-1-k) from the left is rem // 10^k
        pos = start + (ndig - 1 - k)
        d = (rem // 10**k) % 10
        out[rows[has], pos[has]] = _DIGITS[d[has]]
    return out.view(f"S{width}").ravel()


def format_g6(x: np.ndarray, nonfinite: bytes | None = None) -> np.ndarray:
    """Floats as ``S14`` fields that read as ``"%.6g" % x`` once their NUL bytes are removed.

    NULs may sit inside a field (a dropped trailing zero before an exponent), so use the fields
    through :func:`join_rows` or :func:`text`.  ``nan``, ``inf`` and ``-inf`` are spelt so.  The
    sixth digit is rounded in binary floating point: a value within an ulp of a decimal half-way
    point may differ from Python's correctly rounded digit; subnormals are not handled.
    ``nonfinite`` replaces nan and inf (``b"null"`` for JSON).
    """
    x = np.asarray(x, dtype=float).ravel()
    n = x.size
    finite = np.isfinite(x)
    neg = finite & np.signbit(x)
    a = np.abs(np.where(finite, x, 1.0))
    zero = a == 0
    a = np.where(zero, 1.0, a)
    with np.errstate(all="ignore"):
        e = np.floor(np.log10(a)).astype(np.int64)
        m = np.rint(_scale(a, 5 - e))
        for _ in range(2):  # log10 may be an ulp off at powers of ten; rounding may carry to 10^6
            fix = np.nonzero((m >= 999999.5) | (m < 99999.5))[0]
            if not fix.size:
                break
            e[fix] += np.where(m[fix] >= 999999.5, 1, -1)
            m[fix] = np.rint(_scale(a[fix], 5 - e[fix]))
        up = m >= 999999.5
        e, m = e + up, np.where(up, 1e5, m)
    m = m.astype(np.int64)
    digits = np.stack([_DIGITS[(m // 10 ** (5 - i)) % 10] for i in range(6)], axis=1)  # (n, 6) chars d0..d5
    keep = np.full(n, 6, dtype=np.int64)  # significant digits printed: trailing zeros dropped
    for i in range(1, 6):
        keep = np.where(m % 10**i == 0, 6 - i, keep)
    # digits not printed: trailing zeros of the fraction (an integer part keeps its zeros)
    shown = np.maximum(keep, np.where((e >= 0) & (e < 6), e + 1, 1))
    digits = np.where(np.arange(6)[None, :] >= shown[:, None], 0, digits).astype(np.uint8)
    out = np.zeros((n, 14), dtype=np.uint8)
    out[:, 0] = np.where(neg, ord("-"), 0)
    dot, zero_c = ord("."), ord("0")
    for k in range(-4, 6):
        rows = np.nonzero(e == k)[0]
        if not rows.size:
            continue
        d = digits[rows]
        if k >= 0:  # d0..dk . d(k+1)..d5
            point = np.where(keep[rows] > k + 1, dot, 0).astype(np.uint8)[:, None]
            block = np.hstack([d[:, :k + 1], point, d[:, k + 1:]])
        else:  # 0.000d0..d5
            block = np.hstack([np.full((rows.size, 2 - k - 1), zero_c, dtype=np.uint8), d])
            block[:, 1] = dot
        out[rows, 1:1 + block.shape[1]] = block
    rows = np.nonzero((e < -4) | (e >= 6))[0]
    if rows.size:
        d = digits[rows]
        ek = e[rows]
        ae = np.abs(ek)
        point = np.where(keep[rows] > 1, dot, 0).astype(np.uint8)[:, None]
        sign = np.where(ek < 0, ord("-"), ord("+")).astype(np.uint8)[:, None]
        hundreds = np.where(ae >= 100, _DIGITS[(ae // 100) % 10], 0).astype(np.uint8)[:, None]
        tail = np.stack([_DIGITS[(ae // 10) % 10], _DIGITS[ae % 10]], axis=1)
        block = np.hstack([d[:, :1], point, d[:, 1:], np.full((rows.size, 1), ord("e"), dtype=np.uint8), sign,
                           hundreds, tail])
        out[rows, 1:1 + block.shape[1]] = block
    res = out.view("S14").ravel()
    res[zero & finite & ~neg] = b"0"
    res[zero & finite & neg] = b"-0"
    if nonfinite is not None:
        res[~finite] = nonfinite
    else:
        res[np.isnan(x)] = b"nan"
        res[np.isposinf(x)] = b"inf"
        res[np.isneginf(x)] = b"-inf"
    return res


def text(fields: np.ndarray) -> list[str]:
    """The strings of NUL-padded fields (for tests and small tables)."""
    return [f.translate(None, b"\0").decode() for f in fields.tolist()]


_POW10 = 10.0 ** np.arange(0, 309)  # exact up to 1e22, correctly rounded beyond


def _scale(a: np.ndarray, k: np.ndarray) -> np.ndarray:
    """a * 10**k: multiply by 10**k for k >= 0, divide by 10**-k for k < 0 (one rounding either way)."""
    p = _POW10[np.minimum(np.abs(k), 308)]
    return np.where(k >= 0, a * p, a / p)


def join_rows(fields: list) -> bytes:
    """Concatenate per-row fields (``S`` arrays of one length, or constant ``bytes``) row by row."""
    n = max((len(f) for f in fields if isinstance(f, np.ndarray)), default=0)
    dtype = []
    for i, f in enumerate(fields):
        width = f.dtype.itemsize if isinstance(f, np.ndarray) else max(len(f), 1)
        dtype.append((f"f{i}", f"S{width}"))
    rec = np.zeros(n, dtype=dtype)
    for i, f in enumerate(fields):
        rec[f"f{i}"] = f
    return rec.tobytes().translate(None, b"\0")
