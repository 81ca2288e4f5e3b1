"""Schema pass: JSON Schema (Draft 2020-12) plus the ``unit`` keyword, every error at once.

Each error becomes a :class:`Finding` that names the position, the path, what is
wrong and how to fix it.  Values JSON Schema cannot judge (NaN and infinity pass
``minimum`` and ``maximum``) are caught before the schema runs.
"""

from __future__ import annotations

import json
import math
import re
from functools import cache

from genreport.errors import Finding
from genreport.load import units
from genreport.load.schemas import LIMIT_TEXT as _LIMIT_TEXT
from genreport.load.schemas import LIMITS as _LIMITS
from genreport.load.schemas import UNIT_DIMS as _UNIT_DIMS
from genreport.load.schemas import describe as _describe
from genreport.load.suggest import did_you_mean
from genreport.load.yamlread import Document, show
from genreport.paths import schema_dir
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource


def _unit_keyword(validator, unit, instance, schema):
    if not isinstance(instance, str):
        return
    try:
        q = units.expect(instance, _UNIT_DIMS[unit])
    except units.UnitError as exc:
        yield ValidationError(str(exc))
        return
    low, high = _LIMITS[unit]
    if q.value <= 0:
        yield ValidationError(f"'{instance}' must be positive")
    elif q.value < low:
        yield ValidationError(f"'{instance}' is implausibly small (under {_LIMIT_TEXT[unit][0]})")
    elif q.value > high:
        yield ValidationError(f"'{instance}' is implausibly large (over {_LIMIT_TEXT[unit][1]})")


def ecma_pattern(pattern: str) -> re.Pattern:
    r"""A schema ``pattern`` compiled with the meaning JSON Schema gives it (ECMA-262 regular expressions).

    In ECMA-262, ``$`` matches only at the very end of the text; in Python it also matches before a
    final newline, so ``^[a-z0-9][a-z0-9._-]*$`` would accept the report name ``"nl
"`` and make
    a folder whose name ends in a newline.  Every unescaped ``$`` outside a character class
    becomes ``\Z`` here, and ``^`` becomes ``\A``.

    >>> bool(ecma_pattern("^[a-z]+$").search("nl
")), bool(ecma_pattern("^[a-z]+$").search("nl"))
    (False, True)
    """
    return _ecma_compiled(pattern)


@cache
def _ecma_compiled(pattern: str) -> re.Pattern:
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "$":
            c = r"\Z"
        elif c == "^":
            c = r"\A"
        out.append(c)
        i += 1
    return re.compile("".join(out))


def _pattern_keyword(validator, pattern, instance, schema):
    if isinstance(instance, str) and not ecma_pattern(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


_Validator = validators.extend(Draft202012Validator, {"unit": _unit_keyword, "pattern": _pattern_keyword})


@cache
def _schemas() -> tuple[dict, Registry]:
    loaded = {}
    for path in sorted(schema_dir().glob("*.schema.json")):
        loaded[path.name] = json.loads(path.read_text())
    registry = Registry()
    for name, schema in loaded.items():
        resource = Resource.from_contents(schema)
        registry = registry.with_resources([(schema["$id"], resource), (name, resource)])
    return loaded, registry


def schema(kind: str) -> dict:
    return _schemas()[0][f"{kind}.schema.json"]


@cache
def _validator(kind: str):
    loaded, registry = _schemas()
    return _Validator(loaded[f"{kind}.schema.json"], registry=registry)


# JSON Schema counts 128.0 as an integer, so "users: 128.0" passed and went on as a float ("128.0 users",
# "gpus_for_users": 8.0 in results.json); a validator whose integers are ints finds such values to make them ints
_Ints = validators.extend(_Validator, type_checker=_Validator.TYPE_CHECKER.redefine(
    "integer", lambda _, v: isinstance(v, int) and not isinstance(v, bool)))


def _integral_floats(err):
    """The paths of the whole-number floats where an integer goes, in ``err`` and the branches under it."""
    if err.validator == "type" and isinstance(err.instance, float) and err.instance.is_integer() \
            and "integer" in (err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]):
        yield tuple(err.absolute_path)
    for sub in err.context or ():
        yield from _integral_floats(sub)


def _make_ints(data, kind: str) -> None:
    """Whole-number floats where the schema wants an integer made ints, in place (as the live page reads them)."""
    loaded, registry = _schemas()
    paths = {p for err in _Ints(loaded[f"{kind}.schema.json"], registry=registry).iter_errors(data)
             for p in _integral_floats(err)}
    for path in paths:
        if not path:
            continue
        parent = _get(data, path[:-1])
        value = parent[path[-1]]
        if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
            parent[path[-1]] = int(value)


def _allowed_keys(error) -> list[str]:
    props = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
    return sorted(props)


# ----------------------------------------------------------------------------------------------- anyOf / oneOf

_JSON_TYPES = {"string": str, "object": dict, "array": list, "boolean": bool, "null": type(None)}


def _mismatch(err) -> bool:
    """True if this branch error only says the value has the wrong type for the branch."""
    if list(err.relative_path):
        return False
    if err.validator == "type":
        return True
    if err.validator in ("enum", "const"):
        allowed = err.validator_value if err.validator == "enum" else [err.validator_value]
        return not any(type(a) is type(err.instance) for a in allowed)
    return False


def _leaf_errors(error):
    """For anyOf/oneOf, report the branch meant for this kind of value rather than 'not valid under any'."""
    if error.validator not in ("anyOf", "oneOf") or not error.context:
        yield error
        return
    branches: dict[int, list] = {}
    for e in error.context:
        branches.setdefault(e.relative_schema_path[0], []).append(e)
    fitting = {i: errs for i, errs in branches.items() if not any(_mismatch(e) for e in errs)}
    if not fitting:
        yield _NoBranch(error)
        return
    names = [e for errs in fitting.values() for e in errs if e.validator in ("enum", "const") and not e.relative_path]
    if len(fitting) > 1 and len(names) == sum(map(len, fitting.values())):  # one name among several lists of names
        yield _Names(names)  # ('precision': a format, or 'checkpoint'): every allowed name in one hint
        return
    best = max(fitting.values(), key=lambda errs: max(len(e.absolute_path) for e in errs))
    for e in best:
        yield from _leaf_errors(e)


class _Names:
    """Branch errors that each allow a list of names, as one: the value is none of all of them."""

    validator = "enum"

    def __init__(self, errors):
        first = errors[0]
        self.absolute_path, self.instance, self.schema, self.message = (first.absolute_path, first.instance,
                                                                        first.schema, first.message)
        self.validator_value = [a for e in errors
                                for a in (e.validator_value if e.validator == "enum" else [e.validator_value])]


class _NoBranch:
    """The value fits none of the alternatives by type: say what is expected, from the schema's description."""

    validator = "anyOf-type"

    def __init__(self, error):
        self.absolute_path = error.absolute_path
        self.instance = error.instance
        self.schema = error.schema
        self.message = error.message


# ----------------------------------------------------------------------------------------------- findings

def _leaves(data, path=()):
    """(path, value) of every value that is neither a mapping nor a list, walked in the document's order."""
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _leaves(v, path + (i,))
    else:
        yield path, data


def _non_finite(data):
    """Paths of NaN and infinite numbers: JSON Schema's minimum and maximum let them through."""
    return (path for path, v in _leaves(data) if isinstance(v, float) and not math.isfinite(v))


MAX_TEXT = 4000  # characters in any one string of a spec; fields' own limits (maxLength) are lower


def _too_long(data):
    """Paths of strings over MAX_TEXT characters, in any field (a schema's maxLength may be lower)."""
    return (path for path, v in _leaves(data) if isinstance(v, str) and len(v) > MAX_TEXT)


# the prose fields the schema lets take any text (a unit, a reference or a name has a message of its own)
PROSE = frozenset({"title", "notes", "note", "date", "family", "library", "method", "variant", "vendor", "type"})


def _control(data):
    """(path, the first character) of prose strings holding a control or bidirectional-override character (the
    terminal's unsafe set, tabs and line breaks allowed): a title with NUL, ESC or BEL went raw into report.html, and
    U+202E showed its text reversed in the page's title (hostile review, stop 75)."""
    from genreport.terminal import _UNSAFE_KEEP_NL

    for path, v in _leaves(data):
        found = _UNSAFE_KEEP_NL.search(v) if isinstance(v, str) and set(path) & PROSE else None
        if found:
            yield path, found.group(0)


def check(doc: Document, kind: str) -> list[Finding]:
    """Every schema finding of ``doc`` against the ``kind`` schema, with positions and hints (whole-number floats
    where an integer goes made ints first)."""
    out: list[Finding] = []
    bad = set(_non_finite(doc.data))
    if not bad:
        _make_ints(doc.data, kind)
    for path in sorted(bad, key=str):
        out.append(doc.finding(path, f"{_echo(doc, path, _get(doc.data, path))} is not a finite number",
                               "write an ordinary number"))
    long = set(_too_long(doc.data))
    for path in sorted(long, key=str):
        out.append(doc.finding(path, f"text of {len(_get(doc.data, path)):,} characters is too long "
                               f"(at most {MAX_TEXT:,})", "shorten it: specs hold titles and short notes"))
    bad |= long
    control = dict(_control(doc.data))
    for path, ch in sorted(control.items(), key=lambda kv: str(kv[0])):
        out.append(doc.finding(path, f"the text holds a control or direction-override character (U+{ord(ch):04X})",
                               "remove it: titles and notes are plain text"))
    bad |= set(control)
    seen = set()
    for top in _validator(kind).iter_errors(doc.data):
        for err in _leaf_errors(top):
            if tuple(err.absolute_path) in bad:
                continue
            for f in _findings(doc, err):
                if (f.line, f.col, f.message) not in seen:
                    seen.add((f.line, f.col, f.message))
                    out.append(f)
    return out


def _echo(doc: Document, path, v) -> str:
    """``v`` for a message, as :func:`show` has it, but what was written beside what YAML read where the two differ:
    "yes (read as true)", "1e999 (read as .inf)"; a message said "true is not an integer" to a user who wrote yes."""
    shown = show(v)
    if isinstance(v, bool) or (isinstance(v, float) and not math.isfinite(v)):
        written = doc.texts.get(tuple(path))
        if written and written.lower().removeprefix("+") != shown:  # True, .NaN, +.inf: the same words
            return f"{written} (read as {shown})"
    return shown


def _get(data, path):
    for p in path:
        data = data[p]
    return data


def _findings(doc: Document, err) -> list[Finding]:
    path = tuple(err.absolute_path)
    v = err.instance
    desc = _describe(err.schema)
    shown = _echo(doc, path, v)  # yes (read as true): what was written, where YAML read it otherwise
    if err.validator == "anyOf-type":
        return [doc.finding(path, f"{shown} is not a valid value here",
                            f"expected {desc}" if desc else "see the schema")]
    if err.validator == "additionalProperties":
        allowed = _allowed_keys(err)
        extra = [k for k in v if k not in allowed] if isinstance(v, dict) else []
        out = []
        for key in extra:
            hint = did_you_mean(key, allowed, cutoff=0.6) or f"allowed keys: {', '.join(allowed)}"
            out.append(doc.finding(path + (key,), f"unknown key {show(key)}", hint, key=True))
        return out
    if err.validator == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        props = err.schema.get("properties", {})
        what = _describe(props.get(missing, {}))
        return [doc.finding(path, f"missing key '{missing}'", f"add '{missing}: ...'" + (f" ({what})" if what else ""),
                            key=bool(path))]
    if "propertyNames" in getattr(err, "absolute_schema_path", ()):
        # jsonschema checks each key against propertyNames with the mapping's path and the key as instance
        allowed = [str(a) for a in err.validator_value] if err.validator == "enum" else \
            ["fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4", "int8", "int4"]
        hint = did_you_mean(str(v), allowed) or f"use one of {', '.join(allowed)}"
        return [doc.finding(path + (str(v),), f"'{v}' is not a known number format", hint, key=True)]
    if err.validator == "enum":
        allowed = [str(a) for a in err.validator_value]
        quoted = [a for a in allowed if isinstance(v, int) and not isinstance(v, bool) and a.isdigit() and int(a) == v]
        if quoted:
            hint = f"write it quoted: '{quoted[0]}' (YAML reads {quoted[0]} as the number {v})"
        else:
            hint = did_you_mean(str(v), allowed) or f"use one of: {', '.join(allowed)}"
        return [doc.finding(path, f"{shown} is not allowed here", hint)]
    if err.validator == "const":
        return [doc.finding(path, f"must be '{err.validator_value}', not {shown}",
                            f"this file is read as a {err.validator_value} spec")]
    if err.validator == "type":
        want = err.validator_value
        if v is None:
            return [doc.finding(path, "is empty", f"give {_article(want)}" + (f": {desc}" if desc else ""))]
        hint = f"expected {desc}" if desc else f"write {_article(want)}"
        if want == "string" and isinstance(v, (int, float)) and not isinstance(v, bool) and "unit" in err.schema:
            example = units.DIM_NAMES[_UNIT_DIMS[err.schema["unit"]]][2]
            hint = f"write the number with its unit, in quotes, e.g. {example}"
        elif want == "string" and isinstance(v, (int, float, bool)):
            written = doc.texts.get(tuple(path))  # 'no' (YAML 1.1's false), '1e3': quote what was written
            if written and written != show(v):
                return [doc.finding(path, f"{written} reads as {show(v)}, not a string", f"quote it: '{written}'")]
            hint = f"quote it: '{show(v)}'"
        elif want == "integer" and isinstance(v, float):
            hint = "write a whole number"
        elif want == "integer" and isinstance(v, str):
            hint = "write a plain number, without quotes or units"
        elif want == "number" and isinstance(v, str) and v.strip().endswith("%") and err.schema.get("maximum", 2) <= 1:
            # a fraction written as a percentage (--memory-reserve takes '10%', the spec a fraction)
            hint = f"write the fraction, e.g. {_fraction_of(v)}, without quotes"
        elif want == "number" and isinstance(v, str):
            hint = "write a plain number such as 8.03e9, without quotes"
        return [doc.finding(path, f"{shown} is not {_article(want)}", hint)]
    if err.validator == "minimum":
        return [doc.finding(path, f"{shown} is below the minimum {err.validator_value}",
                            "must be positive" if err.validator_value == 1 else f"use at least {err.validator_value}")]
    if err.validator == "exclusiveMinimum":
        return [doc.finding(path, f"{shown} must be greater than {err.validator_value}",
                            "must be positive" if err.validator_value == 0 else "raise it")]
    if err.validator == "exclusiveMaximum":  # a bound it may not reach: "1 is too large (at most 1)" read as a slip
        return [doc.finding(path, f"{shown} must be less than {err.validator_value:g}",
                            "a fraction below 1" if err.validator_value == 1 else "lower it")]
    if err.validator == "maximum":
        return [doc.finding(path, f"{shown} is too large (at most {err.validator_value:g})",
                            "a share is at most 0.9; write a size with its unit, e.g. '6 GiB'"
                            if path and path[-1] == "memory_reserve" else "check the order of magnitude")]
    if err.validator == "unit":
        if isinstance(v, str) and path and path[-1] == "memory_reserve" and _plain_number(v.strip().rstrip("%")):
            # a fraction or a size: a percentage or a quoted number is neither (--memory-reserve takes '10%')
            fraction = _fraction_of(v) if v.strip().endswith("%") else v.strip()
            hint = (f"write the fraction, e.g. {fraction}, without quotes, or a size such as '6 GiB'"
                    if 0.0 <= float(fraction) <= 0.9 else "a share is from 0 to 0.9; write a size with its unit, "
                    "e.g. '6 GiB'")
            return [doc.finding(path, f"{shown} is neither a fraction nor a size", hint)]
        if path and path[-1] == "memory_reserve" and "positive" in err.message:
            return [doc.finding(path, err.message, "write 0, without a unit, for no reserve")]
        if isinstance(v, str) and re.search(r"OPS\s*/", v):
            hint = "FLOPS already means per second: write 'TFLOP/s'"
        elif "needs" in err.message and "e.g." in err.message:
            hint = "give the value in the unit this field measures"
        elif "positive" in err.message:
            hint = "a physical quantity is greater than zero"
        elif "implausibly" in err.message:
            hint = "check the prefix (k, M, G, T, P) and the unit"
        elif "finite" in err.message:
            hint = "write an ordinary number"
        else:
            hint = "write a number, a space and a unit: B, kB, GB, GiB, TB/s, TiB/s, TFLOP/s, ms"
        return [doc.finding(path, err.message, hint)]
    if err.validator == "pattern":
        if path and path[-1] == "name":
            hint = "names are lowercase letters, digits, '.', '_' and '-', starting with a letter or digit"
        elif "url" in path:
            hint = "write a web address starting with https://"
        else:
            hint = "token counts are integers or '1k'-style strings (k = 1024)"
        return [doc.finding(path, f"{shown} is not in the expected form", hint)]
    if err.validator == "minLength":
        return [doc.finding(path, "is empty", f"write {desc}" if desc else "write a value")]
    if err.validator == "maxLength":
        return [doc.finding(path, f"text of {len(v):,} characters is too long (at most {err.validator_value:,})",
                            "shorten it" + (f": {desc}" if desc else ""))]
    if err.validator in ("minItems", "minProperties"):
        what = "at least one value" if err.validator == "minItems" else "at least one key"
        allowed = _allowed_keys(err)
        extra = f" ({', '.join(allowed)})" if allowed and err.validator == "minProperties" else ""
        return [doc.finding(path, f"{shown} needs {what}", f"add {what}{extra}")]
    if err.validator in ("maxItems", "maxProperties"):
        return [doc.finding(path, f"too many entries (at most {err.validator_value})", "split it into several specs")]
    if err.validator == "uniqueItems":
        return [doc.finding(path, "has the same entry twice", "remove the repeated entry")]
    return [doc.finding(path, err.message, f"expected {desc}" if desc else "see the schema in specs/schema/")]


def _plain_number(text: str) -> bool:
    """Whether ``text`` reads as a number alone ('0.1', '10'), with no unit."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _fraction_of(text: str) -> str:
    """'10%' as the fraction 0.1 (a percentage of digits), else '0.1'."""
    try:
        return f"{float(text.strip().rstrip('%')) / 100:g}"
    except ValueError:
        return "0.1"


def _article(t) -> str:
    if isinstance(t, list):
        return " or ".join(_article(x) for x in t)
    return {"integer": "an integer", "object": "a mapping (key: value)", "array": "a list"}.get(t, f"a {t}")
