"""Schema pass: JSON Schema (Draft 2020-12) plus the ``unit`` keyword, every error at once."""

from __future__ import annotations

import difflib
import json
from functools import lru_cache

from jsonschema import Draft202012Validator, validators
from referencing import Registry, Resource

from . import units
from .errors import Finding
from .paths import schema_dir
from .yamlread import Document

_UNIT_DIMS = {"B/s": units.RATE_BYTES, "B": units.BYTES, "FLOP/s": units.RATE_FLOP, "s": units.SECONDS}


def _unit_keyword(validator, unit, instance, schema):
    if not isinstance(instance, str):
        return
    try:
        q = units.expect(instance, _UNIT_DIMS[unit])
    except units.UnitError as exc:
        yield validators.ValidationError(str(exc))
        return
    if q.value <= 0:
        yield validators.ValidationError(f"'{instance}' must be positive")
    elif q.value > _LIMITS[unit]:
        yield validators.ValidationError(f"'{instance}' is implausibly large (over {_LIMIT_TEXT[unit]})")


_LIMITS = {"B/s": 1e15, "B": 1e15, "FLOP/s": 1e19, "s": 1e6}
_LIMIT_TEXT = {"B/s": "1 PB/s", "B": "1 PB", "FLOP/s": "10 EFLOP/s", "s": "11 days"}

_Validator = validators.extend(Draft202012Validator, {"unit": _unit_keyword})


@lru_cache(maxsize=None)
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


@lru_cache(maxsize=None)
def _validator(kind: str):
    loaded, registry = _schemas()
    return _Validator(loaded[f"{kind}.schema.json"], registry=registry)


def _allowed_keys(error) -> list[str]:
    props = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
    return sorted(props)


def _leaf_errors(error):
    """For anyOf/oneOf, report the branch that got furthest rather than 'is not valid under any'."""
    if error.validator in ("anyOf", "oneOf") and error.context:
        best = max(error.context, key=lambda e: (len(e.absolute_path), e.validator != "type"))
        if best.validator in ("anyOf", "oneOf"):
            yield from _leaf_errors(best)
            return
        siblings = [e for e in error.context if list(e.absolute_path) == list(best.absolute_path)
                    and e.validator != "type"]
        yield from (siblings or [best])
        return
    yield error


def check(doc: Document, kind: str) -> list[Finding]:
    """Every schema finding of ``doc`` against the ``kind`` schema, with positions and hints."""
    out: list[Finding] = []
    for top in _validator(kind).iter_errors(doc.data):
        for err in _leaf_errors(top):
            out.append(_finding(doc, err))
    return out


def _finding(doc: Document, err) -> Finding:
    path = tuple(err.absolute_path)
    if err.validator == "additionalProperties":
        allowed = _allowed_keys(err)
        extra = [k for k in err.instance if k not in allowed] if isinstance(err.instance, dict) else []
        key = extra[0] if extra else ""
        close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'?" if close else f"allowed keys: {', '.join(allowed)}"
        return doc.finding(path + (key,), f"unknown key '{key}'", hint, key=True)
    if err.validator == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        desc = ""
        props = err.schema.get("properties", {})
        if missing in props:
            desc = props[missing].get("description", "")
        return doc.finding(path, f"missing key '{missing}'", f"add '{missing}: ...'" + (f" ({desc})" if desc else ""),
                           key=bool(path))
    if err.validator == "propertyNames":
        return doc.finding(path, f"'{err.instance}' is not a known number format",
                           "use one of fp32, tf32, bf16, fp16, fp8, fp6, fp4, int8, int4")
    if err.validator == "enum":
        allowed = err.validator_value
        close = difflib.get_close_matches(str(err.instance), [str(a) for a in allowed], n=1, cutoff=0.5)
        hint = f"did you mean '{close[0]}'?" if close else f"use one of: {', '.join(map(str, allowed))}"
        return doc.finding(path, f"{err.instance!r} is not allowed here", hint)
    if err.validator == "const":
        return doc.finding(path, f"must be '{err.validator_value}', not {err.instance!r}",
                           "this file is read as a " + str(err.validator_value) + " spec")
    if err.validator == "type":
        want = err.validator_value
        hint = ""
        if want == "string" and isinstance(err.instance, (int, float)) and "unit" in err.schema:
            hint = f"write the unit, quoted: '{err.instance} {err.schema['unit']}'"
        elif want == "integer" and isinstance(err.instance, float):
            hint = "write a whole number"
        elif want == "integer" and isinstance(err.instance, str):
            hint = "write a plain number without quotes or units"
        elif want == "number" and isinstance(err.instance, str):
            hint = "write a plain number such as 8.03e9, without quotes"
        return doc.finding(path, f"{err.instance!r} is not {_article(want)}", hint)
    if err.validator in ("minimum", "exclusiveMinimum"):
        return doc.finding(path, f"{err.instance!r} is too small ({err.message.split(' is ', 1)[-1]})",
                           "must be positive" if err.validator_value in (0, 1) else "")
    if err.validator in ("maximum", "exclusiveMaximum"):
        return doc.finding(path, f"{err.instance!r} is too large (at most {err.validator_value})",
                           "check the order of magnitude")
    if err.validator == "unit":
        hint = ""
        if "needs" in err.message and "e.g." in err.message:
            hint = "give the value in the unit this field measures"
        return doc.finding(path, err.message, hint)
    if err.validator == "pattern":
        return doc.finding(path, f"{err.instance!r} is not in the expected form",
                           "names are lowercase letters, digits, '.', '_' and '-'" if path and path[-1] == "name"
                           else "token counts are integers or '1k'-style strings (k = 1024)")
    return doc.finding(path, err.message)


def _article(t: str) -> str:
    return {"integer": "an integer", "object": "a mapping (key: value)", "array": "a list"}.get(t, f"a {t}")
