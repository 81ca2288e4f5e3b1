"""Catalog references: a hardware or model named in a spec, resolved to a file (project-local first, then built in)."""

from __future__ import annotations

from pathlib import Path

from genreport.fileio import looked_at
from genreport.load.suggest import did_you_mean
from genreport.paths import display, specs_dir


def catalog_names(kind: str, root: Path | None = None) -> list[str]:
    """Names available for ``kind`` in the project at ``root`` and in the built-in catalog."""
    names = set()
    for base in _catalog_dirs(kind, root):
        names.update(p.stem for p in base.glob("*.yaml"))
    return sorted(names)


def _catalog_dirs(kind: str, root: Path | None, existing: bool = True) -> list[Path]:
    """The project's catalog folder, then the built-in one (only folders that exist, unless ``existing`` is
    false: then the project's is listed even before it is made)."""
    sub = {"hardware": "hardware", "model": "models"}[kind]
    dirs = []
    if root is not None and (not existing or (root / "specs" / sub).is_dir()):
        dirs.append(root / "specs" / sub)
    builtin = specs_dir() / sub
    if builtin.is_dir() and builtin.resolve() not in [d.resolve() for d in dirs]:
        dirs.append(builtin)
    return dirs


def _within(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
        return True
    except ValueError:
        return False


def resolve_ref(ref: str, kind: str, base: Path, root: Path) -> tuple[Path | None, str, str]:
    """Path of a referenced spec, or (None, message, hint).

    Only files inside the project (``root``) or the built-in catalog are read: a path that
    escapes with '..', an absolute path elsewhere and a symlink pointing out are refused.
    """
    if not ref.strip() or any(ord(c) < 32 or ord(c) == 127 for c in ref) or len(ref) > 1024:
        return None, f"{ref[:60]!r} is not a {kind} name or path", \
            f"write a catalog name such as '{_example(kind)}' or a path such as '{_sub(kind)}/x.yaml'"
    allowed = [root, specs_dir()]
    looks_like_path = "/" in ref or "\\" in ref or ref.endswith((".yaml", ".yml"))
    try:
        if looks_like_path:
            candidate = (base / ref) if not Path(ref).is_absolute() else Path(ref)
            if not any(_within(candidate, a) for a in allowed):
                return None, f"'{ref}' points outside the project folder {root.resolve()}", \
                    "reference specs inside the project, or by catalog name"
            if candidate.suffix.lower() not in (".yaml", ".yml"):
                return None, f"'{ref}' is not a .yaml file", \
                    f"reference a {kind} spec file (.yaml), or a catalog name such as '{_example(kind)}'"
            if not candidate.is_file():
                return None, f"no {kind} spec at '{ref}'", "check the path (relative to this file)"
            return candidate, "", ""
        for folder in _catalog_dirs(kind, root, existing=False):
            path = folder / f"{ref}.yaml"
            if not path.is_file():
                looked_at(path)  # a file here would shadow the one found below: the up-to-date key notes it
            else:
                if not any(_within(path, a) for a in allowed):
                    return None, f"catalog entry '{ref}' links outside the project", \
                        f"replace the link {display(path)} with the spec file itself"
                return path, "", ""
    except (OSError, ValueError):
        return None, f"no {kind} spec at '{ref[:60]}'", "check the name or path"
    names = catalog_names(kind, root)
    hint = did_you_mean(ref, names) or f"available: {', '.join(names[:12])}{' ...' if len(names) > 12 else ''}"
    return None, f"no {kind} named '{ref}'", hint


def resolve_argument(ref: str, kind: str, base: Path) -> tuple[Path | None, str, str]:
    """:func:`resolve_ref` of a name or path typed on the command line (``plan --hardware``, ``sweep --models``): a
    path is the user's own and is read where it is, as ``audit`` reads its claims file; the project-folder fence is for
    the paths a spec names, which may come from anyone.  A catalog name resolves as in a spec."""
    looks_like_path = "/" in ref or "\\" in ref or ref.endswith((".yaml", ".yml"))
    if not looks_like_path or "\0" in ref or len(ref) > 1024:
        return resolve_ref(ref, kind, base, base)
    candidate = Path(ref) if Path(ref).is_absolute() else base / ref
    try:  # a link is followed to the file it names: that file's folder is the one read (the user typed the link)
        own = candidate.resolve().parent
    except (OSError, RuntimeError, ValueError):
        own = candidate.parent
    path, message, hint = resolve_ref(ref, kind, base, own)
    return path, message, hint.replace("relative to this file", "relative to the current folder")


def _sub(kind: str) -> str:
    return {"hardware": "hardware", "model": "models"}[kind]


def _example(kind: str) -> str:
    return {"hardware": "h100-sxm", "model": "llama-3.1-8b"}[kind]
