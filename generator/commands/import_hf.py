"""``genreport import-hf CONFIG.json``: a model spec from a local Hugging Face config.json.

No network: the file is read as JSON and mapped, architecture by architecture, to the
fields of ``specs/schema/model.schema.json``.  Llama, Mistral, Mixtral, Qwen2/2.5/3
(dense and MoE), Gemma 2/3, Phi-3 and DeepSeek-V2/V3 are understood.  A config.json
carries no parameter count, so ``parameters`` (and ``active_parameters`` for a mixture
of experts) is computed from the shapes with :mod:`formulas.architecture`.

Anything missing or not representable is a finding naming the file, the line and the
key, raised as :class:`~genreport.errors.SpecError`; the CLI prints it, no traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path

from genreport.commands.hf_config import (
    read_config,
)
from genreport.commands.hf_convert import (
    convert,
)
from genreport.errors import Finding, SpecError
from genreport.fileio import write_file
from genreport.paths import display, schema_dir
from genreport.terminal import safe

_NAME_OK = re.compile(r"^[a-z0-9][a-z0-9._-]*$")












# ----------------------------------------------------------------------------------------------- reading







# ----------------------------------------------------------------------------------------------- mapping













# ----------------------------------------------------------------------------------------------- naming

def default_name(path: Path, data: dict) -> str:
    """A catalog name: from _name_or_path, else the file (or its folder, for a file called config.json)."""
    raw = data.get("_name_or_path") if isinstance(data.get("_name_or_path"), str) else ""
    base = raw.rstrip("/").rsplit("/", 1)[-1] if raw else ""
    if not base:
        base = path.parent.name if path.stem == "config" and path.parent.name else path.stem
    return sanitize(base) or "imported-model"


def sanitize(text: str) -> str:
    out = re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-._")
    return out[:100]


def _yaml_str(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid YAML double-quoted scalar


_PLAIN = re.compile(r"^[a-z][a-z0-9_.-]*$")
_YAML_WORDS = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "nan", "inf"}


def _scalar(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    return text if _PLAIN.match(text) and text not in _YAML_WORDS else _yaml_str(text)


def render(spec: dict, comments: dict[str, str], source: dict, schema_ref: str) -> str:
    """The spec as YAML in the catalog's layout, with comments."""
    lines = [f"# yaml-language-server: $schema={schema_ref}"]

    def add(text: str, comment: str = "") -> None:
        lines.append(f"{text}   # {comment}" if comment else text)

    for key, value in spec.items():
        if key == "ffn":
            add(f"ffn: {{size: {value['size']}, kind: {value['kind']}}}", comments.get("ffn", ""))
        elif isinstance(value, dict):
            add(f"{key}:", comments.get(key, ""))
            for k, v in value.items():
                add(f"  {k}: {_scalar(v)}")
        else:
            add(f"{key}: {_scalar(value)}", comments.get(key, ""))
    add("source:")
    for k, v in source.items():
        add(f"  {k}: {_yaml_str(v)}")
    return "\n".join(lines) + "\n"


def _schema_ref(out: Path | None) -> str:
    schema = schema_dir() / "model.schema.json"
    if out is None:
        return "../schema/model.schema.json"  # where catalog entries live: specs/models/
    try:
        return Path(os.path.relpath(schema.resolve(), out.resolve().parent)).as_posix()
    except ValueError:  # another drive on Windows
        return schema.resolve().as_uri()


def import_config(path: Path, name: str | None = None, out: Path | None = None) -> tuple[str, str]:
    """The model spec YAML for the config.json at ``path`` and its name; raises SpecError on bad input."""
    path = Path(path)
    cfg = read_config(path)
    chosen = name or default_name(path, cfg.data)
    if not _NAME_OK.match(chosen) or len(chosen) > 100:
        raise SpecError([Finding("--name", 1, 1, "", f"'{chosen}' is not a catalog name",
                                 "use lowercase letters, digits, '.', '_' and '-', e.g. 'llama-3.1-8b'")])
    spec, comments = convert(cfg, chosen)
    origin = cfg.data.get("_name_or_path") if isinstance(cfg.data.get("_name_or_path"), str) else ""
    if len(origin) > 150 or safe(origin) != origin:
        cfg.error("_name_or_path", f"'_name_or_path' is {safe(origin[:40])!r}{'...' if len(origin) > 40 else ''}, "
                  "not a model name", "write the Hugging Face name, e.g. \"meta-llama/Llama-3.1-8B\", or remove it")
        raise SpecError(cfg.findings)
    spec["title"] = origin.rsplit("/", 1)[-1] if origin else chosen
    source = {"title": f"{origin or path.name} config.json (imported with genreport import-hf)"}
    if re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", origin or ""):
        source["url"] = f"https://huggingface.co/{origin}"
    source["note"] = (f"Shapes read from {path.name}; parameters computed from the shapes. "
                      "Check the published parameter count and add a date.")
    return render(spec, comments, source, _schema_ref(out)), chosen


def _check_loads(text: str, config: Path) -> None:
    """The written spec must load; a failure here is a bug in this module, not in the input.  Findings name
    the config the spec was imported from (the temporary file they were read from is gone by then)."""
    from genreport.load.loader import load_model

    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "imported.yaml"
        p.write_text(text, encoding="utf-8")
        try:
            load_model(p)
        except SpecError as exc:
            raise SpecError([Finding(display(config), 1, 1, f.path, f"the imported model spec would not load: "
                                     f"{f.message}", f.hint, f.severity) for f in exc.findings]) from None


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="genreport import-hf", allow_abbrev=False,
        description="Write a genreport model spec from a local Hugging Face config.json (no network).")
    p.add_argument("config", metavar="CONFIG.json", help="path of a config.json")
    p.add_argument("--name", help="catalog name of the model (default: from _name_or_path or the file name)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the spec here (default: standard output); "
                   "an existing file is kept unless --force")
    p.add_argument("--force", action="store_true", help="replace an existing --output file")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    out = Path(args.output) if args.output else None
    if out is not None and os.path.lexists(out) and not args.force and not out.is_symlink():
        print(safe(f"genreport import-hf: {display(out)} exists; pass --force to replace it (nothing was written)"),
              file=sys.stderr)
        return 1
    text, name = import_config(Path(args.config), args.name, out)
    _check_loads(text, Path(args.config))
    if out is None:
        sys.stdout.write(safe(text, newlines=True))  # a C1 control in a quoted string stays a YAML escape
        return 0
    write_file(out, text.encode("utf-8"), overwrite=args.force)  # atomic; never through a symbolic link
    print(safe(f"{display(out)}: model spec '{name}' written"), file=sys.stderr)
    return 0
