"""The value rules of ``--set PATH=VALUE`` as data, read from the schemas and the limits the loader applies, for
the live page (``templates/live/whatif.js``), which must refuse exactly what the command line refuses. No
jsonschema here: a build writes the page without validating a spec whose validity is cached.

A page that judged values by rules of its own drifted from the loader: it recomputed a report with -5 parameters
and a context of 1e20 tokens that ``genreport --set`` refused (issue 32). Here every bound comes from the schema
the loader validates with, and the loader's own limits beside it (each unit's plausible range); a schema rule the
page cannot apply raises, so a new keyword in a schema fails the build instead of being skipped in the browser.

>>> table = rules(("report", "parallelism.tp"), ("model", "layers"), ("model", "ffn.size"))
>>> table["paths"], table["rules"]
({'parallelism': {'tp': 0}, 'model': {'layers': 1, 'ffn': {'size': 1}}}, [['i', 1, 4096], ['i', 1, 100000000]])
"""

from __future__ import annotations

from genreport.load import schemas, units
from genreport.load.overrides import ALIASES


def rules(*paths: tuple[str, str]) -> dict:
    """The rules of ``paths``: (spec kind, dotted path in that kind's schema, '*' for any key its propertyNames
    allow). Compact, for the page's data: ``paths`` is a tree of the --set path's parts (a report spec's paths as
    they are, a hardware or model spec's under 'hardware' or 'model'), each leaf an index into ``rules``, a '*'
    leaf the pair [value rule, key rule], a node's '' the rule of its own value (``precision`` is a format, or a
    mapping of formats), and its '?' a mark that it holds every key its mapping allows. A rule is
    ``["i" | "n", minimum, maximum]``: an integer or a number (``["n", minimum, maximum, 1, 0]``: the minimum is
    exclusive, ``.., 0, 1]`` the maximum); ``["q", unit, low, high, low text, high text,
    example]``: a quantity in ``unit`` within the loader's plausible range (schemas.LIMITS); ``["e", names]``: one
    of the names; ``["t", minimum, maximum, pattern, what]``: a token count, a whole number or text matching the
    pattern; ``["l", fewest, most, item rule]``: a list. ``aliases``: the short paths (overrides.ALIASES)."""
    table: list[list] = []
    tree: dict = {}

    def index(rule: list) -> int:
        if rule[0] == "l":
            rule = [*rule[:3], index(rule[3])]
        rule = [_short(x) for x in rule]
        if rule not in table:
            table.append(rule)
        return table.index(rule)

    for kind, dotted in paths:
        where, parts = f"{kind} {dotted}", dotted.split(".")
        parent = (schemas.schema(kind), schemas.schema(kind))
        for part in parts[:-1]:
            parent = _child(parent, part, where)
        leaf = index(_rule(_child(parent, parts[-1], where), where))
        if parts[-1] == "*":
            mapping, root = _mapping(parent, where)
            leaf = [leaf, index(_rule((mapping["propertyNames"], root), where))]
        at = tree if kind == "report" else tree.setdefault(kind, {})
        for part in parts[:-1]:
            below = at.get(part)
            if not isinstance(below, dict):  # a node of its own value too ('precision') keeps it under ''
                below = at[part] = {} if below is None else {"": below}
            at = below
        if isinstance(at.get(parts[-1]), dict):
            at[parts[-1]][""] = leaf
        else:
            at[parts[-1]] = leaf
        mapping = _mapping(parent, where)[0]
        if mapping.get("additionalProperties") is False and set(mapping.get("properties", ())) <= set(at):
            at["?"] = 1  # every key of this mapping is here: any other is an unknown key, as the loader says
    return {"paths": tree, "rules": table, "aliases": {".".join(k): ".".join(v) for k, v in ALIASES.items()}}


def _short(x):
    """A whole float as an int where that is shorter in JSON (1000000.0 -> 1000000, but 1e+19 stays)."""
    return int(x) if isinstance(x, float) and x.is_integer() and len(str(int(x))) < len(repr(x)) else x


def _resolve(at: tuple[dict, dict]) -> tuple[dict, dict]:
    """(node, the schema it is in), its ``$ref`` followed into another schema file or the $defs of its own."""
    node, root = at
    while "$ref" in node:
        if set(node) - {"$ref", "description"}:
            raise ValueError(f"a rule beside $ref, which the page would not see: {node}")
        file, _, pointer = node["$ref"].partition("#")
        if file:
            root = schemas.schema(file.removesuffix(".schema.json"))
        node = root
        for key in pointer.strip("/").split("/"):
            node = node[key]
    return node, root


def _mapping(at: tuple[dict, dict], where: str) -> tuple[dict, dict]:
    """The mapping among a node's alternatives (``precision``: a format, or a mapping of formats)."""
    node, root = _resolve(at)
    if "anyOf" not in node:
        return node, root
    maps = [b for b in (_resolve((b, root)) for b in node["anyOf"]) if b[0].get("type") == "object"]
    if len(maps) != 1:
        raise ValueError(f"{where}: not one mapping among the alternatives {node}")
    return maps[0]


def _child(at: tuple[dict, dict], part: str, where: str) -> tuple[dict, dict]:
    node, root = _mapping(at, where)
    got = node.get("additionalProperties") if part == "*" else (node.get("properties") or {}).get(part)
    if not isinstance(got, dict):
        raise ValueError(f"{where}: no '{part}' in the schema")
    return got, root


def _rule(at: tuple[dict, dict], where: str) -> list:
    node, root = _resolve(at)
    keys = set(node) - {"description"}
    if keys == {"type", "minimum", "maximum"} and node["type"] in ("integer", "number"):
        return ["i" if node["type"] == "integer" else "n", node["minimum"], node["maximum"]]
    low = keys & {"minimum", "exclusiveMinimum"}
    high = keys & {"maximum", "exclusiveMaximum"}
    if node.get("type") == "number" and len(low) == 1 and len(high) == 1 and keys == {"type"} | low | high:
        # a bound the value may not reach: its flag 1 (validate.check's words for exclusiveMinimum, 'must be greater')
        (lo,), (hi,) = low, high
        return ["n", node[lo], node[hi], int(lo == "exclusiveMinimum"), int(hi == "exclusiveMaximum")]
    if keys == {"type", "unit"} and node["type"] == "string":
        unit = node["unit"]
        return ["q", unit, *schemas.LIMITS[unit], *schemas.LIMIT_TEXT[unit],
                units.DIM_NAMES[schemas.UNIT_DIMS[unit]][2]]
    if keys == {"enum"} and all(isinstance(v, str) for v in node["enum"]):
        return ["e", list(node["enum"])]
    if keys == {"type", "minItems", "maxItems", "items"} and node["type"] == "array":
        return ["l", node["minItems"], node["maxItems"], _rule((node["items"], root), where)]
    if keys == {"anyOf"}:
        # a mapping is no --set value the page reads (it refuses one): the other alternatives are the rule
        branches = [b for b in (_resolve((b, root)) for b in node["anyOf"]) if b[0].get("type") != "object"]
        if len(branches) == 1:
            return _rule(branches[0], where)
        names = [b.get("enum", [b.get("const")]) for b, _ in branches if set(b) - {"description"} in ({"enum"}, {"const"})]
        if len(names) == len(branches) and all(isinstance(v, str) for n in names for v in n):
            return ["e", [v for n in names for v in n]]  # a format or a name ('precision': bf16, ..., 'checkpoint')
        whole = [b for b, _ in branches if set(b) == {"type", "minimum", "maximum"} and b["type"] == "integer"]
        text = [b for b, _ in branches if set(b) == {"type", "pattern"} and b["type"] == "string"]
        if len(branches) == 2 and len(whole) == 1 and len(text) == 1:
            return ["t", whole[0]["minimum"], whole[0]["maximum"], text[0]["pattern"], schemas.describe(node)]
    raise ValueError(f"{where}: the live page cannot apply the schema rule {node}")
