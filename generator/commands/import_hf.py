"""``genreport import-hf CONFIG.json``: a model spec from a local Hugging Face config.json.

No network: the file is read as JSON and mapped, architecture by architecture, to the
fields of ``specs/schema/model.schema.json``.  Llama (3.x and the DeepSeek-R1 distills),
Mistral, Mixtral, Qwen2/2.5/3 (dense and MoE, the R1 distills), Gemma 2/3, Phi-3/Phi-4,
DeepSeek-V2/V3, gpt-oss and Llama 4 (the text model of a multimodal config) are understood.
A config.json carries no parameter count, so ``parameters`` (and ``active_parameters`` for a
mixture of experts) is computed from the shapes with :mod:`formulas.architecture`.

What the config holds that the spec cannot describe (a quantized checkpoint, a clamped
activation, a weightless q/k norm) and every transformers default taken for a key the config
leaves out are notes: printed with the key's line and written into the YAML as comments.

The name comes from ``_name_or_path``, else from a Hugging Face cache folder
(``models--org--name/snapshots/<hash>/config.json`` -> ``name``), else from the file
(``x.config.json`` -> ``x``; ``folder/config.json`` -> ``folder``).  The ``$schema`` line is
``../schema/model.schema.json`` for a spec written into the installed catalog folder and the
absolute path of the installed package's schema otherwise, standard output included, so an
editor finds the schema wherever the file is saved.

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
from genreport.commands.options import Parser, add_verbosity
from genreport.errors import Finding, SpecError
from genreport.fileio import write_file
from genreport.paths import display, schema_dir
from genreport.terminal import note, safe

_NAME_OK = re.compile(r"^[a-z0-9][a-z0-9._-]*$")












# ----------------------------------------------------------------------------------------------- reading







# ----------------------------------------------------------------------------------------------- mapping













# ----------------------------------------------------------------------------------------------- naming

_HASH = re.compile(r"^[0-9a-f]{16,64}$")


def cache_origin(path: Path | str) -> str:
    """The repository ('org/name', or a bare name) of a file inside a Hugging Face cache,
    ``.../models--org--name/snapshots/<hash>/config.json``; '' elsewhere."""
    parts = Path(path).parts  # as given, not resolved: the cache's files are links into blobs/
    for i in range(len(parts) - 2, 0, -1):
        if parts[i] == "snapshots" and parts[i - 1].startswith("models--") and i + 1 < len(parts):
            repo = parts[i - 1][len("models--"):]
            return repo.replace("--", "/", 1) if repo else ""
    return ""


def model_origin(path: Path, data: dict) -> str:
    """Where the config says it comes from: ``_name_or_path`` (a cache path in it read as its repository), else
    the Hugging Face cache folder the file sits in; '' when neither says."""
    raw = data.get("_name_or_path") if isinstance(data.get("_name_or_path"), str) else ""
    raw = raw.strip().rstrip("/")
    if raw:
        return cache_origin(Path(raw) / "config.json") or raw
    return cache_origin(path)


def default_name(path: Path, data: dict) -> str:
    """A catalog name: the last part of the config's origin (``_name_or_path``, the cache folder's model name),
    else the file's stem (``phi-4.config.json`` -> ``phi-4``), or its folder's name for a file called
    config.json."""
    origin = model_origin(path, data)
    base = origin.rsplit("/", 1)[-1] if origin else ""
    if not base:
        stem = path.stem[:-len(".config")] if path.stem.lower().endswith(".config") else path.stem
        folder = path.parent.name
        base = folder if stem == "config" and folder and not _HASH.match(folder) else stem
        if base == "config":  # config.json in a folder named by a hash: the model type says more than 'config'
            kind = data.get("model_type")
            base = kind if isinstance(kind, str) else ""
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


def render(spec: dict, comments: dict[str, str], source: dict, schema_ref: str, notes=()) -> str:
    """The spec as YAML in the catalog's layout, with comments; ``notes`` (findings of severity warning: what
    the config holds that the spec cannot describe, what was assumed) as comment lines under the first."""
    lines = [f"# yaml-language-server: $schema={schema_ref}"]
    if notes:
        lines.append("# import-hf notes (config.json keys the spec does not describe, and what was assumed):")
        lines.extend(f"#   {safe(note_text(n))}" for n in notes)

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
    """The ``$schema`` of the written spec: relative inside the installed catalog folder (``specs/models/``, as
    the catalog's own files), else the absolute path of the installed package's schema, which an editor
    resolves wherever the spec is saved (standard output included)."""
    schema = (schema_dir() / "model.schema.json").resolve()
    if out is not None and out.resolve().parent == (schema_dir().parent / "models").resolve():
        return "../schema/model.schema.json"
    return schema.as_posix()


def note_text(note: Finding) -> str:
    """A note in words: the key, what the config holds, what was assumed."""
    return f"{note.path + ': ' if note.path else ''}{note.message}" + (f"; {note.hint}" if note.hint else "")


def import_config(path: Path, name: str | None = None, out: Path | None = None,
                  notes: list | None = None) -> tuple[str, str]:
    """The model spec YAML for the config.json at ``path`` and its name; raises SpecError on bad input.
    ``notes``, a list, receives the warnings (Finding) about keys the spec cannot describe and defaults taken."""
    path = Path(path)
    cfg = read_config(path)
    raw = cfg.data.get("_name_or_path") if isinstance(cfg.data.get("_name_or_path"), str) else ""
    if len(raw) > 150 or safe(raw) != raw:
        cfg.error("_name_or_path", f"'_name_or_path' is {safe(raw[:40])!r}{'...' if len(raw) > 40 else ''}, "
                  "not a model name", "write the Hugging Face name, e.g. \"meta-llama/Llama-3.1-8B\", or remove it")
        raise SpecError(cfg.findings)
    origin = model_origin(path, cfg.data)
    if len(origin) > 150 or safe(origin) != origin:
        origin = ""  # a cache folder's name that is no model name: name the spec after the file
    chosen = name or default_name(path, cfg.data)
    if not _NAME_OK.match(chosen) or len(chosen) > 100:
        raise SpecError([Finding("--name", 0, 0, "", f"'{chosen}' is not a catalog name",
                                 "use lowercase letters, digits, '.', '_' and '-', e.g. 'llama-3.1-8b'")])
    spec, comments = convert(cfg, chosen)
    if notes is not None:
        notes.extend(cfg.notes)
    spec["title"] = origin.rsplit("/", 1)[-1] if origin else chosen
    source = {"title": f"{origin or path.name} config.json (imported with genreport import-hf)"}
    if re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", origin or ""):
        source["url"] = f"https://huggingface.co/{origin}"
    source["note"] = (f"Shapes read from {path.name}; parameters computed from the shapes. "
                      "Check the published parameter count and add a date.")
    return render(spec, comments, source, _schema_ref(out), cfg.notes), chosen


# The model spec's fields and the config.json keys they are read from (hf_convert.convert), for a finding of the
# written spec to point at the config's line: a review read "config.json:1:1: kv_heads ..." for a
# num_key_value_heads of 5 beside 32 heads
_FROM_CONFIG = {"layers": ("num_hidden_layers", "n_layer", "num_layers"), "hidden_size": ("hidden_size", "n_embd"),
                "heads": ("num_attention_heads", "n_head"), "kv_heads": ("num_key_value_heads", "num_attention_heads"),
                "head_dim": ("head_dim",), "vocab_size": ("vocab_size",),
                "ffn.size": ("intermediate_size", "ffn_dim", "n_inner"), "max_context": ("max_position_embeddings",),
                "moe.experts": ("num_local_experts", "num_experts", "n_routed_experts"),
                "moe.active_experts": ("num_experts_per_tok", "experts_per_token"),
                "moe.expert_ffn_size": ("moe_intermediate_size", "intermediate_size"),
                "moe.shared_experts": ("n_shared_experts",)}


def _config_place(config_text: str, spec_path: str) -> tuple[int, int, str]:
    """(line, column, key) of the config.json key a spec field was read from; (1, 1, '') where none is found."""
    for key in _FROM_CONFIG.get(spec_path, ()):
        m = re.search(r'"' + re.escape(key) + r'"\s*:', config_text)
        if m:
            line = config_text.count("\n", 0, m.start()) + 1
            return line, m.start() - (config_text.rfind("\n", 0, m.start()) + 1) + 1, key
    return 1, 1, ""


def _check_loads(text: str, config: Path) -> None:
    """The written spec must load; a failure here is a bug in this module, not in the input.  Findings name
    the config the spec was imported from (the temporary file they were read from is gone by then), at the line of
    the key the field was read from where there is one."""
    from genreport.load.loader import load_model

    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "imported.yaml"
        p.write_text(text, encoding="utf-8")
        try:
            load_model(p)
        except SpecError as exc:
            try:
                config_text = config.read_text(encoding="utf-8", errors="replace")
            except OSError:
                config_text = ""
            out = []
            for f in exc.findings:
                line, col, key = _config_place(config_text, f.path)
                out.append(Finding(display(config), line, col, key or f.path, "the imported model spec would not load: "
                                   + (f"{f.message} ({f.path}, read from {key})" if key else f.message), f.hint,
                                   f.severity))
            raise SpecError(out) from None


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="genreport import-hf", allow_abbrev=False,
        description="Write a genreport model spec from a local Hugging Face config.json (no network).")
    p.add_argument("config", metavar="CONFIG.json", help="path of a config.json")
    p.add_argument("--name", help="catalog name of the model (default: from _name_or_path or the file name)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the spec here (default: standard output); "
                   "an existing file is kept unless --force")
    p.add_argument("--force", action="store_true", help="replace an existing --output file")
    add_verbosity(p)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.output is not None and not args.output.strip():  # -o '' printed the spec, as no -o does
        print("genreport import-hf: -o '' names no file; name the spec to write, e.g. -o specs/models/my-model.yaml, "
              "or leave -o out to print it (nothing was written)", file=sys.stderr)
        return 1
    out = Path(args.output) if args.output else None
    if out is not None and out.is_dir() and not out.is_symlink():  # --force would not help (it said to pass it)
        print(safe(f"genreport import-hf: {display(out)} is a folder; name the file to write, e.g. "
                   f"{display(out / 'my-model.yaml')} (nothing was written)"), file=sys.stderr)
        return 1
    if out is not None and os.path.lexists(out) and not args.force and not out.is_symlink():
        print(safe(f"genreport import-hf: {display(out)} exists; pass --force to replace it (nothing was written)"),
              file=sys.stderr)
        return 1
    notes: list[Finding] = []
    text, name = import_config(Path(args.config), args.name, out, notes)
    _check_loads(text, Path(args.config))
    for n in notes:  # what the spec cannot say and what was assumed, with the key's line; the YAML has them too
        note(f"{n.file}:{n.line}:{n.col}: note: {note_text(n)}")
    if out is None:
        sys.stdout.write(safe(text, newlines=True))  # a C1 control in a quoted string stays a YAML escape
        return 0
    write_file(out, text.encode("utf-8"), overwrite=args.force)  # atomic; never through a symbolic link
    note(f"{display(out)}: model spec '{name}' written")
    return 0
