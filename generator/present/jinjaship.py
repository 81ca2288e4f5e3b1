"""The report's templates compiled ahead and shipped with the package, as the formulas are.

Jinja compiles a template to Python the first time a process renders it: the report's sixteen templates (the
sections, the macros, the stylesheet and the live scripts it includes) took 0.10 s of every build's "html" stage,
on the path to the PDF. ``python -m genreport.present.jinjaship`` compiles them once into ``present/_jinja/``
(one module per template, as Jinja's own ``compile_templates`` writes them) with a manifest of each template's
SHA-256 and the Jinja version. A build loads a template from its module only under that Jinja version and when the
template's source still has the manifest's digest; a template edited since is compiled from source as before, so an outdated module costs time, never a
wrong page. ``--check`` exits 1 when a module is missing or outdated (a test runs it).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

FOLDER = Path(__file__).resolve().parent / "_jinja"
MANIFEST = FOLDER / "manifest.json"


def module_name(name: str) -> str:
    """The module a template compiles to (Jinja's ``ModuleLoader`` naming)."""
    return "tmpl_" + hashlib.sha1(name.encode("utf-8")).hexdigest()  # noqa: S324 - a name, not a secret


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def shipped() -> dict[str, str]:
    """Template name -> the SHA-256 of the source its shipped module was compiled from ({} when none ship, or
    when they were compiled by another Jinja version: its generated code calls Jinja's runtime)."""
    import jinja2

    try:
        data = json.loads(MANIFEST.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("jinja2") != jinja2.__version__:
        return {}
    templates = data.get("templates")
    if not isinstance(templates, dict):
        return {}
    return {k: v for k, v in templates.items() if isinstance(k, str) and isinstance(v, str)}


def loader(folder: str):
    """A ``FileSystemLoader`` over ``folder`` that takes a template from its shipped module when that is current."""
    import jinja2

    manifest = shipped()

    class Loader(jinja2.FileSystemLoader):
        def load(self, environment, name, globals=None):  # noqa: A002 - Jinja's signature
            template = self._from_module(environment, name, globals)
            return template if template is not None else super().load(environment, name, globals)

        def _from_module(self, environment, name, globals):  # noqa: A002
            want = manifest.get(name)
            path = os.path.join(folder, *name.split("/"))
            if want is None or ".." in name.split("/"):
                return None
            try:
                with open(path, "rb") as fh:
                    source = fh.read()
                mtime = os.path.getmtime(path)
            except OSError:
                return None
            if _digest(source) != want:
                return None
            module = _import(module_name(name))
            if module is None:
                return None
            template = environment.template_class.from_module_dict(environment, module.__dict__, globals)

            def uptodate() -> bool:  # as FileSystemLoader's: a warm process sees an edited template
                try:
                    return os.path.getmtime(path) == mtime
                except OSError:
                    return False

            template._uptodate = uptodate
            return template

    return Loader(folder)


def _import(name: str):
    path = FOLDER / f"{name}.py"
    if not path.is_file():
        return None
    full = f"genreport.present._jinja.{name}"
    if full in sys.modules:
        return sys.modules[full]
    spec = importlib.util.spec_from_file_location(full, path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception:  # noqa: BLE001 - compiled from source instead
        return None
    sys.modules[full] = module
    return module


def _sources(env) -> dict[str, bytes]:
    from genreport.paths import templates_dir

    root = templates_dir()
    return {name: (root / name).read_bytes() for name in env.loader.list_templates()}


def compile_all(folder: Path = FOLDER) -> dict[str, str]:
    """Compile every template into ``folder`` (replacing it); the manifest written."""
    from genreport.present.render import _env

    env = _env()
    sources = _sources(env)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    manifest = {}
    for name, source in sorted(sources.items()):
        code = env.compile(source.decode("utf-8"), name, None, raw=True, defer_init=True)  # as compile_templates
        (folder / f"{module_name(name)}.py").write_text(code, encoding="utf-8")
        manifest[name] = _digest(source)
    import jinja2

    data = {"jinja2": jinja2.__version__, "templates": manifest}
    (folder / "manifest.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def check() -> list[str]:
    """What is missing or outdated among the shipped modules (empty when all are current)."""
    from genreport.present.render import _env

    manifest = shipped()
    problems = []
    for name, source in sorted(_sources(_env()).items()):
        if manifest.get(name) != _digest(source):
            problems.append(f"{name}: {'outdated' if name in manifest else 'not compiled'}")
        elif not (FOLDER / f"{module_name(name)}.py").is_file():
            problems.append(f"{name}: its module is missing")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, prog="python -m genreport.present.jinjaship", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if a template's shipped module is missing or outdated")
    args = ap.parse_args(argv)
    if args.check:
        problems = check()
        for p in problems:
            print(p)
        if problems:
            print("run: python -m genreport.present.jinjaship")
        return 1 if problems else 0
    manifest = compile_all()
    print(f"compiled {len(manifest)} templates into {FOLDER}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
