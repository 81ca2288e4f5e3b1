"""A Hugging Face config.json read as untrusted input: bounded size, finite numbers only, each key pointed at by its line."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from genreport.errors import Finding, SpecError
from genreport.fileio import ReadError, read_regular
from genreport.paths import display

MAX_COUNT = 100_000_000  # the model schema's largest count (layers, widths, vocabulary)


MAX_DIGITS = 30  # a longer integer in a config.json is not a shape


class _Odd:
    """A JSON number a config.json should not hold (NaN, Infinity, 1e400, a 5000-digit integer), kept as
    its text so that the key it sits under gets a finding instead of the parser a crash."""

    def __init__(self, text: str):
        self.text = text if len(text) <= 40 else f"a {len(text):,}-digit number"

    def __repr__(self) -> str:
        return self.text


def _json_float(text: str):
    value = float(text)
    return value if math.isfinite(value) else _Odd(text)


def _json_int(text: str):
    return int(text) if len(text.lstrip("-")) <= MAX_DIGITS else _Odd(text)


class _Twice(ValueError):
    """A key an object of config.json gives twice (json keeps the last silently)."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise _Twice(k)
        seen[k] = v
    return seen


JSON_HOOKS = {"parse_constant": _Odd, "parse_float": _json_float, "parse_int": _json_int,
              "object_pairs_hook": _no_duplicates}


@dataclass
class _Config:
    """The JSON of one config.json, with a way to point at any key's line."""

    file: str
    text: str
    data: dict
    prefix: tuple[str, ...] = ()  # e.g. ('text_config',) for a multimodal Gemma 3
    findings: list[Finding] = field(default_factory=list)
    notes: list[Finding] = field(default_factory=list)  # warnings: what the spec cannot say, what was assumed

    def sub(self, key: str) -> _Config:
        """The config object under ``key`` (a multimodal config's 'text_config'), sharing findings and notes."""
        return _Config(self.file, self.text, self.data[key], (*self.prefix, key), self.findings, self.notes)

    def note(self, key: str, message: str, assumed: str = "") -> None:
        """Something the config holds that the spec cannot describe, or a default taken: a warning with its line."""
        if key and key in self.data:
            line, col = self.where(key)
        else:  # an absent key: point at the object it is missing from (text_config), or the top
            line, col = self.where(self.prefix[-1]) if self.prefix else (1, 1)
        finding = Finding(self.file, line, col, self.path(key) if key else "", message, assumed, "warning")
        if finding not in self.notes:
            self.notes.append(finding)

    def where(self, key: str) -> tuple[int, int]:
        m = re.search(r'"' + re.escape(key) + r'"\s*:', self.text)
        if not m:
            return 1, 1
        line = self.text.count("\n", 0, m.start()) + 1
        col = m.start() - (self.text.rfind("\n", 0, m.start()) + 1) + 1
        return line, col

    def path(self, key: str) -> str:
        return ".".join((*self.prefix, key))

    def error(self, key: str, message: str, hint: str = "") -> None:
        line, col = self.where(key) if key else (1, 1)
        finding = Finding(self.file, line, col, self.path(key) if key else "", message, hint)
        if finding not in self.findings:  # a key read twice (head_dim and the MLA block) is reported once
            self.findings.append(finding)

    def has(self, key: str) -> bool:
        return self.data.get(key) is not None

    def get(self, key: str, default=None):
        value = self.data.get(key)
        return default if value is None else value

    def int(self, key: str, default: int | None = None, minimum: int = 1) -> int:
        """A required (or defaulted) whole number; a finding if it is absent or not a count."""
        value = self.data.get(key)
        if value is None:
            if default is not None:
                return default
            self.error(key, f"config.json lacks '{self.path(key)}', needed for the model spec",
                       "use the model's full config.json from its Hugging Face repository")
            return 1
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                (isinstance(value, float) and not value.is_integer()) or not minimum <= value <= MAX_COUNT:
            shown = repr(value) if not isinstance(value, (dict, list)) else "a " + type(value).__name__
            self.error(key, f"'{self.path(key)}' is {shown[:60]}, not a whole number from {minimum} to {MAX_COUNT:,}",
                       f"fix '{self.path(key)}' in config.json: a whole number, as in the model's published config")
            return max(minimum, 1)
        return int(value)

    def bool(self, key: str, default: bool) -> bool:
        value = self.data.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            shown = repr(value) if not isinstance(value, (dict, list)) else "a " + type(value).__name__
            self.error(key, f"'{self.path(key)}' is {shown[:60]}, not true or false",
                       f"write \"{self.path(key)}\": true or false in config.json")
            return default
        return value


CONFIG_LIMIT = 5_000_000  # bytes; a config.json is a few kB


def read_config(path: Path) -> _Config:
    """Parse the file; a missing file or bad JSON is a finding with the position."""
    shown = display(path)
    try:
        raw = read_regular(path, CONFIG_LIMIT)
    except ReadError as exc:
        message, hint = {
            "too_big": (f"file is over {CONFIG_LIMIT:,} bytes, far too large for a config.json",
                        "give the model's config.json, not its weights"),
            "special": ("is not a regular file (a device, pipe or socket)", "give the path of a config.json file"),
            "folder": ("is a folder, not a file", "give the path of the config.json inside it"),
        }.get(exc.reason, (exc.message, "give the path of a local config.json (nothing is downloaded)"))
        raise SpecError([Finding(shown, 1, 1, "", message, hint)]) from None
    try:
        text = raw.decode("utf-8-sig")
        data = json.loads(text, **JSON_HOOKS)
    except UnicodeDecodeError:
        raise SpecError([Finding(shown, 1, 1, "", "the file is not UTF-8 text", "give a config.json")]) from None
    except json.JSONDecodeError as exc:
        raise SpecError([Finding(shown, exc.lineno, exc.colno, "", f"not valid JSON: {exc.msg}",
                                 "config.json must be plain JSON")]) from None
    except _Twice as exc:  # its second place: the line of the key's last occurrence
        at = text.rfind(json.dumps(exc.key))
        line = text.count("\n", 0, at) + 1 if at >= 0 else 1
        col = at - text.rfind("\n", 0, at) if at >= 0 else 1
        raise SpecError([Finding(shown, line, col, exc.key, f"'{exc.key}' is given twice (JSON keeps the last "
                                 "silently)", "keep one: the model's config.json gives each key once")]) from None
    except RecursionError:
        raise SpecError([Finding(shown, 1, 1, "", "the JSON nests too deeply for a config.json",
                                 "give a Hugging Face config.json")]) from None
    if not isinstance(data, dict):
        raise SpecError([Finding(shown, 1, 1, "", "the JSON is not an object of keys",
                                 "give a Hugging Face config.json")])
    return _Config(shown, text, data)
