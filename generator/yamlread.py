"""Safe YAML reading that keeps a line and column for every value and key.

Only the safe loader's node composer is used: no tags beyond the core schema, no
Python objects.  Duplicate keys, alias bombs, binary and non-UTF-8 files are
reported as findings with a position instead of exceptions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .errors import Finding, SpecError

MAX_NODES = 20_000  # a spec has a few hundred; alias bombs have billions
MAX_BYTES = 1_000_000


class _Loader(yaml.SafeLoader):
    """SafeLoader that reads 1e9 and 8.03e9 as floats (YAML 1.2), not strings."""


_Loader.yaml_implicit_resolvers = {k: list(v) for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)

Path_ = tuple  # a path into the data: keys and indices


@dataclass
class Document:
    """A spec file's data, with positions of every value (``marks``) and key (``key_marks``)."""

    file: str
    data: object
    marks: dict[tuple, tuple[int, int]] = field(default_factory=dict)
    key_marks: dict[tuple, tuple[int, int]] = field(default_factory=dict)
    overrides: dict[tuple, str] = field(default_factory=dict)  # paths set with --set, and the text given

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


def _mark(node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


class _Builder:
    def __init__(self, doc: Document, loader: _Loader):
        self.doc = doc
        self.loader = loader
        self.count = 0
        self.findings: list[Finding] = []

    def build(self, node, path: tuple):
        self.count += 1
        if self.count > MAX_NODES:
            raise _TooBig()
        self.doc.marks.setdefault(path, _mark(node))
        if isinstance(node, yaml.MappingNode):
            out: dict = {}
            first: dict = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    line, col = _mark(key_node)
                    self.findings.append(Finding(self.doc.file, line, col, format_path(path),
                                                 "a key must be a plain name", "write 'name: value'"))
                    continue
                key = self.loader.construct_object(key_node)
                if not isinstance(key, str):
                    key = str(key)
                if key == "<<":
                    line, col = _mark(key_node)
                    self.findings.append(Finding(self.doc.file, line, col, format_path(path),
                                                 "merge keys ('<<') are not supported", "write the keys out"))
                    continue
                if key in first:
                    line, col = _mark(key_node)
                    self.findings.append(Finding(
                        self.doc.file, line, col, format_path(path + (key,)),
                        f"duplicate key '{key}' (first at line {first[key]})",
                        "keep one of them: YAML would silently use the last"))
                    continue
                first[key] = _mark(key_node)[0]
                self.doc.key_marks[path + (key,)] = _mark(key_node)
                out[key] = self.build(value_node, path + (key,))
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
        return self.loader.construct_object(node)


class _TooBig(Exception):
    pass


def read(path: Path, display: str | None = None) -> Document:
    """Read one YAML spec file; raise :class:`SpecError` with positioned findings on any problem."""
    name = display or str(path)

    def fail(line: int, col: int, message: str, hint: str = "") -> SpecError:
        return SpecError([Finding(name, line, col, "", message, hint)])

    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise fail(1, 1, "file not found", "check the path") from None
    except IsADirectoryError:
        raise fail(1, 1, "is a folder, not a spec file", "name a .yaml file") from None
    except OSError as exc:
        raise fail(1, 1, f"cannot read the file: {exc.strerror}") from None
    if len(raw) > MAX_BYTES:
        raise fail(1, 1, f"file is {len(raw)} bytes; specs are at most {MAX_BYTES}", "is this the right file?")
    if b"\x00" in raw:
        raise fail(1, 1, "binary file (contains NUL bytes), not YAML", "name a text .yaml spec")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise fail(line, col, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})", "save the file as UTF-8") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip() or all(ln.strip().startswith("#") or not ln.strip() for ln in text.splitlines()):
        raise fail(1, 1, "empty spec file", "a spec starts with 'kind: hardware', 'kind: model' or 'kind: report'")

    loader = _Loader(text)
    doc = Document(name, None)
    try:
        root = loader.get_single_node()
        if root is None:
            raise fail(1, 1, "empty spec file", "a spec starts with 'kind: ...'")
        builder = _Builder(doc, loader)
        doc.data = builder.build(root, ())
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = exc.problem or exc.context or "syntax error"
        hint = "indent with spaces, not tabs" if "\t" in problem or "tab" in problem.lower() else \
            "check indentation, colons and quotes near here"
        if "could not determine a constructor" in str(exc):
            problem = f"tag {str(exc.problem).split('tag ')[-1].strip()} is not allowed in specs"
            hint = "specs hold plain data: remove the '!!' tag"
        raise fail(line, col, f"YAML syntax error: {problem}", hint) from None
    except yaml.YAMLError as exc:
        raise fail(1, 1, f"YAML error: {exc}") from None
    except _TooBig:
        raise fail(1, 1, f"spec expands to more than {MAX_NODES} values (YAML aliases?)",
                   "write the values out; aliases that multiply are refused") from None
    except RecursionError:
        raise fail(1, 1, "spec nests too deeply", "flatten the structure") from None
    finally:
        loader.dispose()
    if builder.findings:
        raise SpecError(builder.findings)
    if not isinstance(doc.data, dict):
        raise fail(1, 1, "a spec must be a mapping of keys to values",
                   "start with 'kind: hardware', 'kind: model' or 'kind: report'")
    return doc
