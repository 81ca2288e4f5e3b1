"""Number formatting for the report, registered as Jinja filters.  The seeds' conventions:
intensities and counts at or above 10 as integers, sizes to 4 significant digits in GB and GiB,
times to 3 significant digits (trailing zeros kept, see ``time``)."""

from __future__ import annotations

import math
import re

from genreport.load.spec import short_link
from markupsafe import Markup, escape

GB, GiB = 1e9, 2.0**30


def num(x, sig: int = 3) -> str:
    """295.34 -> '295'; 18.96 -> '19'; 4.79 -> '4.79'; 0.9995 -> '0.9995'; 1e-3 -> '0.001'."""
    if x is None:
        return "n/a"
    x = float(x)
    if not math.isfinite(x):
        return "∞" if x > 0 else "n/a"
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,}"
    if abs(x) >= 10:
        return f"{round(x):,}"
    if abs(x) >= 1:
        return f"{x:.{sig - 1}f}".rstrip("0").rstrip(".")
    return f"{x:.{sig}g}" if abs(x) >= 1e-4 else f"{x:.2e}"


def exact(x, digits: int = 2) -> str:
    """A value with fixed decimals, for '295.34' beside the rounded '295'."""
    return "n/a" if x is None else f"{float(x):,.{digits}f}"


def integer(x) -> str:
    return "n/a" if x is None or not math.isfinite(float(x)) else f"{int(x):,}"


def sig4(x: float) -> str:
    """Four significant digits: 16.06, 119.7, 1,043, 140."""
    if abs(x) >= 1e4:
        return f"{round(x):,}"
    s = f"{x:.4g}"
    if "e" in s:
        return s
    v = float(s)
    return f"{int(v):,}" if v == int(v) else f"{v:,}"


def gb(x) -> str:
    return f"{sig4(float(x) / GB)} GB"


def gib(x) -> str:
    return f"{sig4(float(x) / GiB)} GiB"


def size(x) -> str:
    """Both units, as the seeds give them: '16.06 GB (14.96 GiB)'."""
    x = float(x)
    if x < 1e6:
        return f"{x:,.0f} B" if x >= 1024 * 10 or x == int(x) else f"{x:.3g} B"
    return f"{gb(x)} ({gib(x)})"


def kib(x) -> str:
    return f"{sig4(float(x) / 1024)} KiB"


def time(t) -> str:
    """Seconds to '4.79 ms', '0.0162 ms', '1.23 s': three significant digits, a trailing zero written ('1.00 s',
    '25.0 ms') unless the value is exactly the shorter number (a stated 50 ms target, a 2 µs launch: '50 ms', '2 µs'),
    so a before -> after pair reads '24.8 ms → 25.0 ms'.  The unit is chosen after rounding: 999.96 ms is '1.00 s'."""
    if t is None:
        return "n/a"
    t = float(t)
    ms = t * 1e3
    if t >= 1 or (ms >= 0.01 and float(f"{ms:.3g}") >= 1e3):
        return f"{sig3(t)} s"
    return f"{sig3(ms)} ms" if ms >= 0.01 else f"{sig3(ms * 1e3)} µs"


def micro(t) -> str:
    """Seconds in microseconds, three significant digits: a collective's fixed costs, which :func:`time` writes in
    ms from 10 us up ('0.0241 ms'), read in the unit they are measured and priced in: 2.41e-05 -> '24.1 µs'."""
    return "n/a" if t is None else f"{sig3(float(t) * 1e6)} µs"


def sig3(x) -> str:
    """Three significant digits, their trailing zeros kept ('25.0', '1.00', '28.3') unless x is that shorter number
    ('50'); from 1,000 up the whole number ('1,234'), never '1.23e+03'.

    >>> sig3(28.3), sig3(28.0), sig3(27.996), sig3(1234.5), sig3(0.1234)
    ('28.3', '28', '28.0', '1,234', '0.123')
    """
    if x is None:
        return "n/a"
    x = float(x)
    s = f"{x:.3g}"
    if "e" in s and abs(x) >= 1 and math.isfinite(x):
        return f"{round(x):,}"
    if "e" in s or abs(float(s) - x) <= 1e-9 * abs(x):
        return s
    return f"{x:#.3g}".rstrip(".")


def dollars(x) -> str:
    """An amount of dollars in three significant digits, as :func:`sig3` writes it, but never in scientific notation:
    a request of Llama 3.1 8B on one H100 costs '0.0000123', which sig3 wrote '1.23e-05'.

    >>> dollars(1.234e-05), dollars(1.2e-05), dollars(0.000909), dollars(0.717), dollars(1234.5)
    ('0.0000123', '0.000012', '0.000909', '0.717', '1,234')
    """
    if x is None:
        return "n/a"
    x = float(x)
    rounded = float(f"{x:.3g}") if math.isfinite(x) else x
    if not math.isfinite(x) or x == 0 or abs(rounded) >= 1e-4:
        return sig3(x)
    full = f"{x:.{2 - math.floor(math.log10(abs(rounded)))}f}"
    short = full.rstrip("0")
    return short if abs(float(short) - x) <= 1e-9 * abs(x) else full


def rate(x, unit: str = "FLOP/s") -> str:
    x = float(x)
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:,.4g} {prefix}{unit}"
    return f"{x:.4g} {unit}"


def bandwidth(x) -> str:
    return rate(x, "B/s")


def flops(x) -> str:
    return rate(x, "FLOP")


def params(x) -> str:
    x = float(x)
    if x >= 1e9:
        return f"{x / 1e9:.4g}B"
    if x >= 1e6:
        return f"{x / 1e6:.4g}M"
    return f"{x:,.0f}"


def pct(x, digits: int = 1) -> str:
    return f"{100 * float(x):.{digits}f}%"


def share(x) -> str:
    """A share in percent (a pool's of the GPUs, an acceptance, a prefix hit, a draft's cost): whole percents, but two
    significant digits under 10% and four past 99%, so a share strictly between 0 and 1 never reads "0%" or "100%" (a
    review read "100% of the GPUs prefill, 0% decode" for a 2-token output; the hostile review of stop 88 "accepted
    100%" for 0.9999999999999999): "under 0.01%" and "over 99.99%" where even those digits round to the end.  The
    page's techniques.js poolShare is the same."""
    x = float(x)
    if 0 < x < 0.1:
        return "under 0.01%" if 100 * x < 0.01 else f"{100 * x:.2g}%"
    if 0.99 < x < 1:
        return "over 99.99%" if f"{100 * x:.4g}" == "100" else f"{100 * x:.4g}%"
    return f"{x:.0%}"


def times(x) -> str:
    """A ratio as '3.17×'."""
    x = float(x)
    return f"{x:.3g}×" if x < 100 else f"{round(x):,}×"


def tex_number(x) -> str:
    """A value for a substituted formula: 8.03e9 -> '8.03 \\times 10^{9}', 131072 -> '131072'."""
    x = float(x)
    if x == int(x) and abs(x) < 1e7:
        return f"{int(x)}"
    if abs(x) >= 1e5 or abs(x) < 1e-3:
        mant, exp = f"{x:.6e}".split("e")
        mant = mant.rstrip("0").rstrip(".")
        return rf"{mant} \times 10^{{{int(exp)}}}"
    return f"{x:.6g}"


_BINARY = (1024.0, ("B", "KiB", "MiB", "GiB", "TiB"))
_DECIMAL = (1000.0, ("B", "KB", "MB", "GB", "TB"))


def _scaled(b: float, base: float, units: tuple) -> tuple[str, str, bool]:
    """``b`` bytes in the largest of ``units`` it reaches, four significant digits: (digits, unit, whether exact)."""
    v, k = b, 0
    while v >= base and k < len(units) - 1:
        v /= base
        k += 1
    text = f"{v:.4g}"
    return text, units[k], float(text) * base**k == b


def memsize(b) -> str:
    """A memory size in the unit family it was given in: 262144 -> '256 KiB', 228000 -> '228 KB', 50e6 -> '50 MB';
    a size 1024 divides that only the decimal units give exactly is decimal (6e9 -> '6 GB', not '5.588 GiB').

    >>> memsize(132 * 262144), memsize(151397597184), memsize(6e9), memsize(1.5 * 2**30)
    ('33 MiB', '141 GiB', '6 GB', '1.5 GiB')
    """
    if b is None:
        return "n/a"
    b = float(b)
    binary = _scaled(b, *_BINARY) if b == int(b) and int(b) % 1024 == 0 else None
    decimal = _scaled(b, *_DECIMAL)
    text, unit, _ = binary if binary is not None and (binary[2] or not decimal[2]) else decimal
    return f"{text} {unit}"


def reserve(memory_reserve: float, memory_reserve_bytes: float = 0.0) -> str:
    """An engine's memory reserve as a spec writes it (Hardware's two fields): a share of each GPU's memory, or the
    size each GPU keeps (:func:`memsize`: 6 GB is 6e9 bytes, which 1024 divides too).

    >>> reserve(0.1), reserve(0.125), reserve(0.004), reserve(0.0), reserve(1e-7)
    ('10%', '12.5%', '0.4%', '0%', '0.00001%')
    >>> reserve(0.0, 6 * 2**30), reserve(0.0, 6e9), reserve(0.0, 1.5 * 2**30), reserve(0.0, 6_123_456_789)
    ('6 GiB', '6 GB', '1.5 GiB', '6.123 GB')
    """
    if not memory_reserve_bytes:  # three significant digits, never in exponent form ('1e-05%')
        return f"{float(f'{100 * memory_reserve:.3g}'):.12f}".rstrip("0").rstrip(".") + "%"
    return memsize(memory_reserve_bytes)


def nearest(x) -> str:
    """A root rounded to the nearest integer, with separators: 420.56 -> '421'."""
    return "n/a" if x is None or not math.isfinite(float(x)) else f"{round(float(x)):,}"


def elasticity(v) -> str:
    """An elasticity d ln q / d ln x: '0' where x does not enter, '≈0' where it enters by less than 0.0005 (a cached
    window's 5.42e-05 once), else three significant digits ('-0.688', '2.5')."""
    if v is None:
        return ""
    v = float(v)
    if v == 0:
        return "0"
    return "≈0" if abs(v) < 5e-4 else f"{v:.3g}"


FILTERS = {
    "elasticity": elasticity, "memsize": memsize, "nearest": nearest, "num": num, "exact": exact, "integer": integer, "gb": gb, "gib": gib, "size": size, "kib": kib, "time": time, "micro": micro, "sig3": sig3, "dollars": dollars,
    "rate": rate, "bandwidth": bandwidth, "flops": flops, "params": params, "pct": pct, "times": times, "share": share,
}

_GREEK = {"tau": "τ", "alpha": "α", "rho": "ρ", "lambda": "λ", "theta": "θ", "sigma": "σ"}
# a glossary name written in ASCII inside a sentence: a Greek letter's name or one letter (Greek too: α_EP), an
# underscore, a subscript of letters and digits (tau_c8, alpha_S, e_m, n_TP, W_l); a word with an underscore inside it
# (all_to_all) is none
_ASCII_SYMBOL = re.compile(
    r"(?<![A-Za-z0-9_.])(tau|alpha|rho|lambda|theta|sigma|[A-Za-z\u0391-\u03c9])(?:_([A-Za-z0-9]+))?(?![A-Za-z0-9_])")


def symbols(text: str) -> Markup:
    """``text`` (plain, escaped here) with its ASCII glossary names set as the report sets its symbols: the Greek
    letter for its name, alone too ("alpha" -> α), the subscript lowered ("e_m = 0.709" -> e<sub>m</sub> = 0.709,
    "tau_c8" -> τ<sub>c8</sub>). Chapter 6's formula labels, written once in the model stage, and the inputs table's
    symbol column read as the prose around them does."""
    out, last = [], 0
    for m in _ASCII_SYMBOL.finditer(text):
        if m[2] is None and m[1] not in _GREEK:  # a one-letter word ("a", "T", "α"): as written
            continue
        out.append(str(escape(text[last:m.start()])))
        out.append(_GREEK.get(m[1], m[1]) + (f"<sub>{escape(m[2])}</sub>" if m[2] else ""))
        last = m.end()
    out.append(str(escape(text[last:])))
    return Markup("".join(out))


# Filters of words, not numbers: the live page never formats these (it reads a link's short_name from its data), so
# they stay out of FILTERS, which tests/test_fmtjs.py holds to GR_FMT's.
_SET_ARGUMENT = re.compile(r"--set (?:'[^']*'|[^\s),;]+)")


def commands(text: str):
    """``text`` escaped for HTML, each ``--set ARG`` in it kept on one line (printed, a line broke after "--" and
    split "--set" from its argument: "(--" / "set hardware=l4)")."""
    out, at = [], 0
    for m in _SET_ARGUMENT.finditer(text):
        out += [escape(text[at:m.start()]), Markup('<span class="nowrap">'), escape(m.group(0)), Markup("</span>")]
        at = m.end()
    return Markup("").join([*out, escape(text[at:])])


TEXT_FILTERS = {
    "commands": commands,
    "short_link": short_link,
    "symbols": symbols,
    "device": lambda text, noun: device(text, noun),  # {{ words | device(GPU) }}: a model-stage string in the device's noun
}


_GPU_WORD = _CARD_WORD = None


def device(text, noun: str = "GPU"):
    """``text`` with the project's word for one device, "GPU" ("GPUs", "GPU's", "per-GPU", "GPU-hour"), as the
    hardware spec's ``noun`` ("chip"): the report's own sentences, captions, labels and table entries are written
    for GPUs and say the device's noun where it is another (a TPU, a Gaudi).  A deliberate reference stays:
    "NVIDIA GPUs", "GPU utilisation" (nvidia-smi's name).  "card" ("cards", "card's", "one-card") is a GPU's word
    too (a PCIe or SXM board) and says the noun likewise; "model card" stays.  Lists, tuples and dicts are mapped
    through; anything else is returned as it is.  ``noun`` "GPU": ``text`` itself."""
    global _GPU_WORD, _CARD_WORD
    if noun == "GPU":
        return text
    if isinstance(text, str):
        if "GPU" not in text and "card" not in text and "Card" not in text:
            return text
        if _GPU_WORD is None:
            import re

            _GPU_WORD = re.compile(r"(?<![A-Za-z0-9_])(?<!NVIDIA )(?<!AMD )GPU(?=s?(?![A-Za-z0-9_]))(?! utilisation)")
            _CARD_WORD = re.compile(r"(?<![A-Za-z0-9_])(?<![Mm]odel )[Cc]ard(?=s?(?![A-Za-z0-9_]))")

        def sub(pattern, s: str) -> str:
            def one(m):  # capitalized where it starts a sentence (or where the word was)
                before = s[:m.start()].rstrip()
                start = not before or before.endswith((".", "!", "?")) or m.group(0) == "Card"
                return noun[:1].upper() + noun[1:] if start else noun

            return pattern.sub(one, s)

        return sub(_CARD_WORD, sub(_GPU_WORD, text))
    if isinstance(text, list):
        return [device(x, noun) for x in text]
    if isinstance(text, tuple):
        return tuple(device(x, noun) for x in text)
    if isinstance(text, dict):
        return {k: device(v, noun) for k, v in text.items()}
    return text
