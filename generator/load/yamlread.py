"""Safe YAML reading that keeps a line and column for every value and key.

Only the safe loader's node composer is used (libyaml's when available): no
tags beyond plain data, no Python objects, no timestamps (dates stay strings).
Duplicate keys, alias bombs, deep nesting, binary and non-UTF-8 files are
reported as findings with a position instead of exceptions.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from genreport.errors import Finding, SpecError
from genreport.fileio import SPEC_LIMIT, ReadError, read_regular

MAX_NODES = 20_000  # a spec has a few hundred; alias bombs have billions
MAX_BYTES = SPEC_LIMIT
MAX_DEPTH = 64  # specs nest about 6 deep

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: 4x faster, nesting limited to 1000 by libyaml


class _Loader(_Base):
    """Safe loader with YAML 1.2 habits: 1e9 and 8.03e9 are floats, 2024-07-01 is a string."""


_Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)

_NUMBER_TAGS = {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}


def _yaml11_number(text: str) -> str:
    """Why a plain number means something else in YAML 1.1 than it looks ('' where it does not): a leading 0 makes an
    octal (010 = 8), a colon base 60 (1:30 = 90), 0b binary; YAML 1.2 and JSON read none of them so."""
    t = text.lstrip("+-").replace("_", "")
    if ":" in t:
        return "YAML 1.1 reads a colon as base 60 (1:30 = 90)"
    if t[:2].lower() == "0b":
        return "YAML 1.1 reads 0b as binary"
    if len(t) > 1 and t[0] == "0" and t[1].isdigit():
        return "YAML 1.1 reads a leading 0 as octal (010 = 8)"
    return ""


# The only tags a spec may carry, explicitly or implicitly: plain JSON-like data.
_PLAIN_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "seq", "map")}



@dataclass
class Document:
    """A spec file's data, with positions of every value (``marks``) and key (``key_marks``)."""

    file: str
    data: object
    marks: dict[tuple, tuple[int, int]] = field(default_factory=dict)
    key_marks: dict[tuple, tuple[int, int]] = field(default_factory=dict)
    overrides: dict[tuple, str] = field(default_factory=dict)  # paths set with --set, and the text given
    raw: bytes = field(default=b"", repr=False)  # the file's bytes, as read (at most MAX_BYTES)
    created: dict[tuple, str] = field(default_factory=dict)  # mappings --set made where the file had none, its text
    texts: dict[tuple, str] = field(default_factory=dict)  # a value YAML read as no string (no, 1:30), as written

    def where(self, path: tuple, key: bool = False) -> tuple[int, int]:
        """Line and column of the value at ``path`` (or of its key); falls back to the nearest parent."""
        table = self.key_marks if key else self.marks
        p = tuple(path)
        while p:
            if p in table:
                return table[p]
            if p in self.marks:
                return self.marks[p]
            p = p[:-1]
        return self.marks.get((), (1, 1))

    def finding(self, path: tuple, message: str, hint: str = "", key: bool = False, severity: str = "error") -> Finding:
        line, col = self.where(path, key)
        return Finding(self.file, line, col, format_path(path), message, hint, severity)


def format_path(path) -> str:
    return ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in path).replace(".[", "[")


def show(value) -> str:
    """A value as the spec author wrote it, for messages: 'text' quoted, numbers and null as YAML."""
    if value is None:
        return "null (empty)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    if isinstance(value, str):
        text = value if len(value) <= 60 else value[:57] + "..."
        return repr(text)
    if isinstance(value, int):
        digits = str(abs(value)) if value.bit_length() < 10_000 else ""
        if not digits or len(digits) > 24:
            return f"a {len(digits) or 'many'}-digit number"
    if isinstance(value, dict):
        return "a mapping" if value else "an empty mapping {}"
    if isinstance(value, list):
        return "a list" if value else "an empty list []"
    return repr(value)


def _mark(node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _short_tag(tag: str) -> str:
    return "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag


class _Builder:
    """Turns the composed node tree into plain data, recording positions and every structural finding."""

    def __init__(self, doc: Document, loader):
        self.doc = doc
        self.loader = loader
        self.count = 0
        self.findings: list[Finding] = []
        self.active: set[int] = set()  # ids of the nodes being built: an alias to one of them is a cycle

    def add(self, node, path: tuple, message: str, hint: str) -> None:
        line, col = _mark(node)
        self.findings.append(Finding(self.doc.file, line, col, format_path(path), message, hint))

    def build(self, node, path: tuple, depth: int = 0):
        self.count += 1
        if self.count > MAX_NODES:
            raise _TooBig(node)
        if depth > MAX_DEPTH:
            raise _TooDeep(node)
        if id(node) in self.active:
            raise _Cycle(node)
        self.doc.marks.setdefault(path, _mark(node))
        if node.tag not in _PLAIN_TAGS:
            self.add(node, path, f"tag '{_short_tag(node.tag)}' is not allowed in specs",
                     "specs hold plain data: remove the tag, and quote the value if it is text")
            return None
        if isinstance(node, yaml.MappingNode):
            self.active.add(id(node))
            try:
                return self._mapping(node, path, depth)
            finally:
                self.active.discard(id(node))
        if isinstance(node, yaml.SequenceNode):
            self.active.add(id(node))
            try:
                return [self.build(item, path + (i,), depth + 1) for i, item in enumerate(node.value)]
            finally:
                self.active.discard(id(node))
        return self._scalar(node, path)

    def _scalar(self, node, path: tuple):
        if not node.style and node.tag in _NUMBER_TAGS:  # plain (libyaml: "", PyYAML: None)
            odd = _yaml11_number(node.value)
            if odd:  # a number YAML 1.1 reads otherwise than it looks (010 is 8, 1:30 is 90)
                try:
                    value = self.loader.construct_object(node)
                except (yaml.YAMLError, ValueError, TypeError, KeyError, OverflowError):
                    value = None
                reads = f"reads as {show(value)}" if value is not None else "cannot be read"
                self.add(node, path, f"{node.value} {reads}: {odd}",
                         f"quote it if it is text ('{node.value}'), or write the number in decimal"
                         + (f" ({show(value)})" if value is not None else ""))
                return None
        try:
            value = self.loader.construct_object(node)
        except (yaml.YAMLError, ValueError, TypeError, KeyError, OverflowError):
            self.add(node, path, f"cannot read {show(node.value)} as {_short_tag(node.tag)}",
                     "remove the tag or fix the value")
            return None
        if not isinstance(value, str) and not node.style:  # 'no' read as false: messages quote what was written
            self.doc.texts[path] = node.value
        return value

    def _mapping(self, node, path: tuple, depth: int) -> dict:
        out: dict = {}
        first: dict = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                self.add(key_node, path, "a key must be a plain name", "write 'name: value'")
                continue
            if key_node.tag == "tag:yaml.org,2002:merge":
                self.add(key_node, path, "merge keys ('<<') are not supported", "write the keys out")
                continue
            if key_node.tag not in _PLAIN_TAGS:
                self.add(key_node, path, f"tag '{_short_tag(key_node.tag)}' is not allowed in specs",
                         "keys are plain names")
                continue
            key = self._scalar(key_node, path)
            key = "null" if key is None else ("true" if key is True else "false" if key is False else str(key))
            if key in first:
                self.add(key_node, path + (key,), f"duplicate key '{key}' (first at line {first[key]})",
                         "keep one of them: YAML would silently use the last")
                continue
            first[key] = _mark(key_node)[0]
            self.doc.key_marks[path + (key,)] = _mark(key_node)
            out[key] = self.build(value_node, path + (key,), depth + 1)
        return out


def _expanded_size(root) -> int:
    """How many values the node graph holds once aliases are expanded, without expanding them.

    Shared (aliased) nodes are sized once, so a billion-laughs bomb is measured in microseconds.
    Raises _Cycle for an alias inside its own anchor and _TooDeep past MAX_DEPTH.
    """
    memo: dict[int, int] = {}
    active: set[int] = set()

    def size(node, depth: int) -> int:
        key = id(node)
        if key in memo:
            return memo[key]
        if key in active:
            raise _Cycle(node)
        if depth > MAX_DEPTH:
            raise _TooDeep(node)
        total = 1
        if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
            active.add(key)
            children = [c for pair in node.value for c in pair] if isinstance(node, yaml.MappingNode) else node.value
            total += sum(size(c, depth + 1) for c in children)
            active.discard(key)
        memo[key] = total
        return total

    return size(root, 0)


def _biggest(root):
    """The top-level value that expands the most (where to point an alias-bomb finding)."""
    if not isinstance(root, (yaml.MappingNode, yaml.SequenceNode)) or not root.value:
        return root
    children = [v for _, v in root.value] if isinstance(root, yaml.MappingNode) else root.value
    return max(children, key=_expanded_size)


class _Stop(Exception):
    def __init__(self, node):
        super().__init__()
        self.node = node


class _TooBig(_Stop):
    pass


class _TooDeep(_Stop):
    pass


class _Cycle(_Stop):
    pass


def _syntax_message(exc: yaml.MarkedYAMLError, text: str) -> tuple[int, int, str, str]:
    """Position, message and hint for a YAML syntax error, the same with libyaml and pure Python."""
    problem = (exc.problem or "").strip()
    context = (exc.context or "").strip()
    mark = exc.problem_mark or exc.context_mark
    if "end of stream" in problem and "quoted scalar" in context and exc.context_mark:
        mark = exc.context_mark  # an unclosed quote: point at where it opens, not at the end of the file
    line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    lines = text.splitlines()
    here = lines[line - 1] if 0 < line <= len(lines) else ""
    if "could not determine a constructor" in problem:  # a tag seen while composing (should not happen)
        tag = problem.split("tag", 1)[-1].strip(" '")
        return line, col, f"tag '{tag}' is not allowed in specs", "specs hold plain data: remove the tag"
    if "\t" in problem or "tab" in problem or "\t" in here[: max(col, len(here) - len(here.lstrip()))]:
        tab = here.find("\t")
        return line, (tab + 1 if tab >= 0 else col), "YAML syntax error: a tab character in the indentation", \
            "indent with spaces, not tabs"
    if "duplicate anchor" in context:
        return line, col, "YAML syntax error: the same anchor ('&name') is defined twice", \
            "give each anchor its own name"
    if "undefined alias" in problem or "undefined alias" in context:
        return line, col, "YAML syntax error: an alias ('*name') refers to no anchor", \
            "define the anchor ('&name') first, or write the value out"
    if "maximum nesting depth" in problem:
        return line, col, f"spec nests too deeply (more than {MAX_DEPTH} levels)", "flatten the structure"
    if "flow sequence" in context or "flow mapping" in context:
        close = "]" if "sequence" in context else "}"
        what = "list" if "sequence" in context else "mapping"
        opened = f" opened at line {exc.context_mark.line + 1}, column {exc.context_mark.column + 1}" \
            if exc.context_mark else ""
        return line, col, f"YAML syntax error: expected ',' or '{close}' in the {what}{opened}", \
            f"close the {what} with '{close}' and separate its items with ','"
    if "another document" in problem:
        return line, col, "a spec is one YAML document, but a second one starts here ('---')", \
            "put each spec in its own file"
    if "quoted scalar" in context:
        return line, col, "YAML syntax error: a quote opened here is never closed", "close the quote, or escape a quote inside the text"
    if "mapping values are not allowed" in problem:
        return line, col, "YAML syntax error: a ':' where no key can start", \
            "check the indentation of this line, or quote a value that contains ': '"
    message = problem or context or "syntax error"
    if context and problem and not context.endswith("occurrence"):
        message = f"{problem} ({context})"
    return line, col, f"YAML syntax error: {message}", "check indentation, colons, brackets and quotes near here"


def _load_text(raw: bytes, fail) -> str:
    if len(raw) > MAX_BYTES:
        raise fail(1, 1, f"file is over {MAX_BYTES:,} bytes; specs are a few kB", "is this the right file?")
    if b"\x00" in raw:
        at = raw.index(b"\x00")
        line = raw[:at].count(b"\n") + 1
        raise fail(line, at - (raw.rfind(b"\n", 0, at) + 1) + 1, "binary file (contains NUL bytes), not YAML",
                   "name a text .yaml spec")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise fail(line, col, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})",
                   "save the file as UTF-8") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


_READ_PROBLEMS = {
    "missing": ("file not found", "check the path"),
    "folder": ("is a folder, not a spec file", "name a .yaml file"),
    "special": ("is not a regular file (a device, pipe or socket)", "name a .yaml file"),
    "too_big": (f"file is over {MAX_BYTES:,} bytes; specs are a few kB", "is this the right file?"),
}


def read(path: Path, display: str | None = None) -> Document:
    """Read one YAML spec file; raise :class:`SpecError` with positioned findings on any problem."""
    name = display or str(path)

    def fail(line: int, col: int, message: str, hint: str = "") -> SpecError:
        return SpecError([Finding(name, line, col, "", message, hint)])

    try:
        raw = read_regular(path, MAX_BYTES)
    except ReadError as exc:
        raise fail(1, 1, *_READ_PROBLEMS.get(exc.reason, (exc.message, "check the path and its permissions"))) \
            from None
    key = (name, raw)
    parsed = _PARSED.get(key)
    if parsed is None:
        parsed = parse(_load_text(raw, fail), name, fail)
        parsed.raw = raw
        if len(_PARSED) >= _PARSED_MAX or sum(len(kept) for _, kept in _PARSED) + len(raw) > _PARSED_BYTES:
            _PARSED.clear()
        _PARSED[key] = parsed
    return _copy(parsed)


# The documents read this process, by file name and bytes: a serving report's search over layouts (plan, run inside
# the evaluation) loads the catalog's files again for every layout it prices (13,000 reads in a test run), and parsing
# is most of a load (0.55 ms for DeepSeek-V3's model file, 0.02 ms to copy).  Each read hands out its own copy:
# overrides change the data in place.  Only what parsed is kept; a file that changed is another key.  At most 256
# documents and 4 MiB of files (the catalog is about 0.14 MiB), so a long `serve` fed large specs does not grow
# without end.
_PARSED: dict[tuple[str, bytes], Document] = {}
_PARSED_MAX = 256
_PARSED_BYTES = 4 << 20


def _copy(doc: Document) -> Document:
    """A document whose data the caller may change: its dicts and lists made anew (the parser shares none between two
    paths, an alias's included), the scalars (str, int, float, bool, None) as they are; the positions' tables copied."""

    def copied(value):
        if isinstance(value, dict):
            return {k: copied(v) for k, v in value.items()}
        if isinstance(value, list):
            return [copied(v) for v in value]
        return value

    return Document(doc.file, copied(doc.data), dict(doc.marks), dict(doc.key_marks), dict(doc.overrides), doc.raw,
                    dict(doc.created), dict(doc.texts))


def parse(text: str, name: str = "<spec>", fail=None) -> Document:
    """Parse spec text (already decoded) into a :class:`Document`; raise :class:`SpecError` on any problem."""
    if fail is None:
        def fail(line: int, col: int, message: str, hint: str = "") -> SpecError:
            return SpecError([Finding(name, line, col, "", message, hint)])

    if not text.strip() or all(ln.strip().startswith("#") or not ln.strip() for ln in text.splitlines()):
        raise fail(1, 1, "empty spec file", "a spec starts with 'kind: hardware', 'kind: model' or 'kind: report'")
    loader = _Loader(text)
    doc = Document(name, None)
    builder = None
    try:
        root = loader.get_single_node()
        if root is None:
            raise fail(1, 1, "empty spec file", "a spec starts with 'kind: ...'")
        total = _expanded_size(root)
        if total > MAX_NODES:
            node = _biggest(root)
            line, col = _mark(node)
            raise fail(line, col, f"spec expands to {total:,} values once its YAML aliases are expanded "
                       f"(at most {MAX_NODES:,})", "write the values out; aliases that multiply are refused")
        builder = _Builder(doc, loader)
        doc.data = builder.build(root, ())
    except yaml.MarkedYAMLError as exc:
        line, col, message, hint = _syntax_message(exc, text)
        raise fail(line, col, message, hint) from None
    except yaml.YAMLError as exc:
        raise fail(1, 1, f"YAML error: {exc}", "check the file's syntax") from None
    except _TooBig as exc:
        line, col = _mark(exc.node)
        raise fail(line, col, f"spec expands to more than {MAX_NODES:,} values (YAML aliases?)",
                   "write the values out; aliases that multiply are refused") from None
    except _TooDeep as exc:
        line, col = _mark(exc.node)
        raise fail(line, col, f"spec nests too deeply (more than {MAX_DEPTH} levels)", "flatten the structure") from None
    except _Cycle as exc:
        line, col = _mark(exc.node)
        raise fail(line, col, "an alias ('*name') refers to the value that contains it", "write the values out") from None
    except RecursionError:
        raise fail(1, 1, "spec nests too deeply", "flatten the structure") from None
    finally:
        loader.dispose()
    if builder.findings:
        raise SpecError(builder.findings)
    if not isinstance(doc.data, dict):
        raise fail(*doc.marks.get((), (1, 1)), f"a spec must be a mapping of keys to values, not {_kind_of(doc.data)}",
                   "start with 'kind: hardware', 'kind: model' or 'kind: report'")
    return doc


def _kind_of(data) -> str:
    """What a document is, without its content: the file may be anything but a spec (never echo it)."""
    if isinstance(data, list):
        return "a list" if data else "an empty list []"
    if isinstance(data, str):
        return "text"
    if isinstance(data, bool) or data is None:
        return "a single value"
    return "a number" if isinstance(data, (int, float)) else "a single value"


def scalar(text: str, limit: int = 4096, written: dict | None = None) -> tuple[bool, object]:
    """Read one --set value the way a spec value is read (same tags, same limits): (True, value), or
    (False, None) when the text is not plain data (then it is used as a string).  ``written``, where given, gets
    what was written for each value YAML read as no string, by its path within the value (``[on]``: (0,) -> 'on'),
    as a spec file's :attr:`Document.texts` holds it."""
    if len(text) > limit:
        return False, None
    loader = _Loader(text)
    doc = Document("--set", None, texts=written if written is not None else {})
    try:
        root = loader.get_single_node()
        if root is None:
            return True, None
        if _expanded_size(root) > MAX_NODES:
            return False, None
        builder = _Builder(doc, loader)
        value = builder.build(root, ())
        odd = [f for f in builder.findings if "YAML 1.1 reads" in f.message or f.message.startswith("duplicate key")
               or f.message.startswith("merge keys") or " is not allowed in specs" in f.message]
        if odd:  # a number that reads otherwise than it looks is refused, not taken as text ([1, 010] was 8); so is a
            # key given twice, which read as text and was refused as "not allowed here" (hostile input, round six), and
            # a merge key or a tag, refused as a spec file refuses them (they read "... is not a mapping": round eight)
            raise SpecError(odd)
        return (False, None) if builder.findings else (True, value)
    except (yaml.YAMLError, _Stop, RecursionError):
        return False, None
    finally:
        loader.dispose()
