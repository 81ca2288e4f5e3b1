"""Running the live what-if scripts under node: one subprocess per call, inputs and outputs as JSON."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from genreport.paths import templates_dir

NODE = shutil.which("node")

needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed (scripts/setup --test installs nodejs)")


def run(scripts: tuple[str, ...], driver: str, payload) -> object:
    """Load ``scripts`` (names in templates/live/), then run ``driver`` (JS reading ``INPUT`` and calling
    ``output(x)``); returns what it output."""
    folder = templates_dir() / "live"
    source = "\n".join((folder / name).read_text(encoding="utf-8") for name in scripts)
    program = (source + "\nconst INPUT = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
               "function output(x) { process.stdout.write(JSON.stringify(x)); }\n" + driver)
    proc = run_program(program, json.dumps(payload), timeout=60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def run_program(program: str, stdin: str, timeout: float = 60, args=()) -> subprocess.CompletedProcess:
    """Run a JavaScript program under node from a file (the live scripts passed with -e would pass the 128 KiB
    a command-line argument may hold)."""
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".js", encoding="utf-8") as f:
        f.write(program)
        f.flush()
        return subprocess.run([NODE, f.name, *map(str, args)], input=stdin, capture_output=True, text=True,
                              timeout=timeout, check=False)


def js_key(qid: str, params: dict) -> str:
    """The key model.js gives an entry: id|k=v,... with numbers as JavaScript prints them."""
    def show(v):
        if isinstance(v, float) and v.is_integer():
            return str(int(v))
        return str(v)

    return qid + "|" + ",".join(f"{k}={show(params[k])}" for k in sorted(params))


def close(a, b) -> bool:
    """Equal to 1e-9 relative, or both None."""
    import math

    if a is None or b is None:
        return a is None and b is None
    return a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300)


def entry_differences(want: dict, got: dict) -> list[str]:
    """Each entry (key -> (value, reason)) that the browser's ``got`` (key -> [value, reason]) states otherwise."""
    bad = []
    for k, (value, reason) in sorted(want.items()):
        if k not in got:
            continue
        jv, jr = got[k]
        if not close(value, jv):
            bad.append(f"{k}: python {value!r}, js {jv!r}")
        elif value is None and reason != jr:
            bad.append(f"{k}: reason python {reason!r}, js {jr!r}")
    return bad


def load_cases(folder, cases) -> list:
    """The specs of (name, overrides) cases, where a name may end in ' --set PATH=VALUE' (one more override); a
    case the loader refuses (kv_heads not dividing heads, a layout the model cannot take) is not a case."""
    from genreport import load_spec
    from genreport.errors import SpecError

    specs = []
    for name, overrides in cases:
        name, _, extra = name.partition(" --set ")
        try:
            specs.append(load_spec(folder / name, ([extra] if extra else []) + list(overrides)))
        except SpecError:
            continue
    return specs
