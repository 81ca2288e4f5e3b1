"""Security and robustness of spec loading: no file outside the project, no code, no bombs, escaped HTML.

Cases that need a file system layout the corpus cannot hold (symlinks, pipes, huge files) are built
in a temporary project here.  Every check goes through the library or the CLI entry point.
"""

from __future__ import annotations

import importlib.util
import os
import re
import time
from pathlib import Path

import pytest
from genreport.commands.cli import main
from genreport.errors import SpecError
from genreport.load.loader import load_report
from genreport.load.yamlread import MAX_BYTES, read
from genreport.paths import specs_dir

REPORT = """kind: report
name: probe
title: Probe
hardware: {hardware}
model: {model}
precision: bf16
workloads:
  decode: {{batch: [1, 8], context: [128]}}
"""


def project(tmp_path: Path, hardware: str = "h100-sxm", model: str = "llama-3.1-8b") -> Path:
    """A project folder (no specs/ inside: its root is the spec's own folder) with one report spec."""
    root = tmp_path / "project"
    root.mkdir()
    spec = root / "probe.yaml"
    spec.write_text(REPORT.format(hardware=hardware, model=model))
    return spec


def messages(exc: SpecError) -> str:
    return "\n".join(f.format() for f in exc.findings)


# ----------------------------------------------------------------------------------------------- files outside

@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A valid hardware spec outside the project: readable, but never to be read through a reference."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    target = folder / "secret.yaml"
    target.write_text((specs_dir() / "hardware" / "h100-sxm.yaml").read_text())
    return target


def test_reference_with_dotdot_is_refused(tmp_path, outside):
    spec = project(tmp_path, hardware="../elsewhere/secret.yaml")
    with pytest.raises(SpecError) as exc:
        load_report(spec)
    assert "points outside the project folder" in messages(exc.value)


def test_absolute_reference_is_refused(tmp_path, outside):
    spec = project(tmp_path, hardware=str(outside))
    with pytest.raises(SpecError) as exc:
        load_report(spec)
    assert "points outside the project folder" in messages(exc.value)


def test_symlinked_file_pointing_out_is_refused(tmp_path, outside):
    spec = project(tmp_path, hardware="hardware/link.yaml")
    (spec.parent / "hardware").mkdir()
    (spec.parent / "hardware" / "link.yaml").symlink_to(outside)
    with pytest.raises(SpecError) as exc:
        load_report(spec)
    assert "points outside the project folder" in messages(exc.value)


def test_symlinked_folder_pointing_out_is_refused(tmp_path, outside):
    spec = project(tmp_path, hardware="hardware/secret.yaml")
    (spec.parent / "hardware").symlink_to(outside.parent, target_is_directory=True)
    with pytest.raises(SpecError) as exc:
        load_report(spec)
    assert "points outside the project folder" in messages(exc.value)


def test_symlinked_catalog_entry_pointing_out_is_refused(tmp_path, outside):
    """A project's own catalog (specs/hardware/NAME.yaml) may not link out either."""
    root = tmp_path / "proj"
    (root / "specs" / "hardware").mkdir(parents=True)
    (root / "specs" / "hardware" / "sneaky.yaml").symlink_to(outside)
    spec = root / "specs" / "probe.yaml"
    spec.write_text(REPORT.format(hardware="sneaky", model="llama-3.1-8b"))
    with pytest.raises(SpecError) as exc:
        load_report(spec)
    assert "links outside the project" in messages(exc.value)


def test_symlink_inside_the_project_is_fine(tmp_path):
    spec = project(tmp_path, hardware="hardware/link.yaml")
    (spec.parent / "hardware").mkdir()
    real = spec.parent / "hardware" / "real.yaml"
    real.write_text((specs_dir() / "hardware" / "h100-sxm.yaml").read_text())
    (spec.parent / "hardware" / "link.yaml").symlink_to(real)
    assert load_report(spec).hardware.name == "h100-sxm"


def test_override_cannot_point_outside(tmp_path, outside):
    spec = project(tmp_path)
    with pytest.raises(SpecError) as exc:
        load_report(spec, overrides=[f"hardware={outside}"])
    text = messages(exc.value)
    assert text.startswith(f"--set hardware={outside}: hardware:")
    assert "points outside the project folder" in text


# ----------------------------------------------------------------------------------------------- odd files

def test_named_pipe_is_not_opened(tmp_path):
    """Opening a FIFO for reading would block forever: it must be refused before it is opened."""
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    with pytest.raises(SpecError) as exc:
        read(fifo)
    assert "not a regular file" in messages(exc.value)


def test_device_is_not_read(capsys):
    assert main(["/dev/zero", "-o", "/nonexistent-out", "--format", "json"]) == 1
    assert "/dev/zero:1:1: is not a regular file" in capsys.readouterr().err


def test_folder_is_not_a_spec(tmp_path):
    with pytest.raises(SpecError) as exc:
        read(tmp_path)
    assert "is a folder" in messages(exc.value)


def test_zero_byte_file(tmp_path):
    empty = tmp_path / "empty.yaml"
    empty.write_bytes(b"")
    with pytest.raises(SpecError) as exc:
        read(empty, "empty.yaml")
    assert messages(exc.value) == ("empty.yaml:1:1: empty spec file (hint: a spec starts with 'kind: hardware', "
                                   "'kind: model' or 'kind: report')")


def test_huge_file_is_refused_without_reading_it_all(tmp_path):
    big = tmp_path / "big.yaml"
    with open(big, "wb") as fh:
        fh.write(b"notes: '")
        fh.seek(50 * MAX_BYTES)
        fh.write(b"'\n")
    t = time.perf_counter()
    with pytest.raises(SpecError) as exc:
        read(big, "big.yaml")
    assert time.perf_counter() - t < 10.0  # reading 50 MB would take far longer; generous for a loaded CI
    assert "big.yaml:1:1: file is over 1,000,000 bytes" in messages(exc.value)


def test_missing_spec_file(tmp_path, capsys):
    assert main([str(tmp_path / "nope.yaml"), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "nope.yaml:1:1: file not found (hint: check the path)" in err
    assert not (tmp_path / "out").exists()


# ----------------------------------------------------------------------------------------------- no code, no bombs

TAGS = [
    "!!python/object/apply:os.system ['touch {marker}']",
    "!!python/object/apply:pathlib.Path.touch ['{marker}']",
    "!!python/object/new:pathlib.Path ['{marker}']",
    "!!python/name:os.system",
    "!!python/module:os",
]


@pytest.mark.parametrize("tag", TAGS)
def test_yaml_tags_never_run_code(tmp_path, tag):
    marker = tmp_path / "pwned"
    spec = project(tmp_path)
    spec.write_text(spec.read_text() + f"notes: {tag.format(marker=marker)}\n")
    with pytest.raises(SpecError) as exc:
        load_report(spec)
    assert "is not allowed in specs" in messages(exc.value)
    assert not marker.exists()


def test_override_tags_never_run_code(tmp_path):
    marker = tmp_path / "pwned"
    spec = project(tmp_path)
    with pytest.raises(SpecError):
        load_report(spec, overrides=[f"notes=!!python/object/apply:os.system ['touch {marker}']",
                                     "model.layers=!!python/object/apply:os.system ['true']"])
    assert not marker.exists()


def test_alias_bomb_is_refused_quickly(tmp_path):
    levels = ["a0: &a0 [" + ", ".join(["lol"] * 10) + "]"]
    for i in range(1, 20):  # 10^20 values once expanded
        levels.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(levels) + "\n")
    t = time.perf_counter()
    with pytest.raises(SpecError) as exc:
        read(bomb, "bomb.yaml")
    assert time.perf_counter() - t < 10.0  # expanding 10^20 values would never finish
    assert "values once its YAML aliases are expanded" in messages(exc.value)


def test_alias_bomb_in_override_is_plain_text(tmp_path):
    spec = project(tmp_path)
    bomb = "[&a [1,1,1,1,1,1,1,1,1,1], &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a], &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b], " \
           "&d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c], &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]]"
    t = time.perf_counter()
    spec_loaded = load_report(spec, overrides=[f"notes={bomb}"])
    assert time.perf_counter() - t < 10.0
    assert spec_loaded.notes == bomb


# ----------------------------------------------------------------------------------------------- output names

@pytest.mark.parametrize("name", ["../escaped", "/tmp/abs", "UPPER", ".hidden", "a/b"])
def test_output_name_cannot_escape(tmp_path, capsys, name):
    spec = project(tmp_path)
    out = tmp_path / "out"
    rc = main([str(spec), "-o", str(out), "--format", "json", "--set", "notes=x", "--name", name])
    assert rc == 1
    assert f"--name {name}: '{name}' is not a report name" in capsys.readouterr().err
    assert not out.exists()
    assert not (tmp_path / "escaped").exists()


# ----------------------------------------------------------------------------------------------- --strict

def test_strict_turns_warnings_into_errors(tmp_path, capsys):
    gb = ["hardware.memory.bandwidth=3.35 GB/s"]
    spec = project(tmp_path)
    loaded = load_report(spec, overrides=gb)
    assert any("ridge point" in w and "warning:" in w for w in loaded.warnings)
    with pytest.raises(SpecError) as exc:
        load_report(spec, overrides=gb, strict=True)
    assert [f.severity for f in exc.value.findings] == ["error"]
    assert "did you write GB/s for TB/s?" in messages(exc.value)

    out = tmp_path / "out"
    assert main([str(spec), "-o", str(out), "--format", "json", "--set", gb[0]]) == 0
    assert "warning: ridge point" in capsys.readouterr().err
    assert main([str(spec), "-o", str(tmp_path / "out2"), "--format", "json", "--strict", "--set", gb[0]]) == 1
    err = capsys.readouterr().err
    assert "memory.bandwidth: ridge point" in err and "warning:" not in err
    assert not (tmp_path / "out2").exists()


# ----------------------------------------------------------------------------------------------- HTML

HOSTILE = "<script>alert(1)</script>"


@pytest.mark.skipif(importlib.util.find_spec("genreport.present.render") is None,
                    reason="generator/render.py (the HTML renderer) is not written yet")
def test_spec_text_is_escaped_in_html_and_nothing_is_fetched(tmp_path):
    from genreport.write.build import build

    root = tmp_path / "project"
    (root / "models").mkdir(parents=True)
    model = (specs_dir() / "models" / "llama-3.1-8b.yaml").read_text()
    model = model.replace("title: Llama 3.1 8B", f'title: "{HOSTILE}"')
    model = model.replace("  title: meta-llama/Llama-3.1-8B config.json and model card",
                          f"  title: '<img src=x onerror=alert(2)> {HOSTILE}'")
    (root / "models" / "evil.yaml").write_text(model)
    spec = root / "evil.yaml"
    spec.write_text(REPORT.format(hardware="h100-sxm", model="models/evil.yaml")
                    .replace("title: Probe", f'title: "Evil {HOSTILE}"')
                    + f'notes: "<iframe src=https://evil.example/></iframe> {HOSTILE}"\n')
    built = build(spec, formats=("html",))
    page = built.files["report.html"].decode()
    html, _, tail = page.partition("<!-- genreport live what-if -->")
    # the live what-if's data carries spec text only as JSON with every '<', '>' and '&' escaped; its code is ours
    from genreport.present.live import scripts

    data, _, code = tail.partition("</script>\n<script>\n")
    assert "<" not in data.split('id="genreport-live">', 1)[1] and "\\u003cscript\\u003ealert(1)" in data
    assert code.startswith(scripts(many=False) + "</script>\n</body>\n</html>")
    lowered = html.lower()
    assert "<script" not in lowered
    assert "<iframe" not in lowered
    assert "onerror=" not in lowered.replace("onerror=alert(2)&gt;", "")  # only as escaped text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    # nothing is fetched from the network when the report is opened or printed
    fetch = re.compile(r"""(?:\bsrc|\bhref|\bsrcset|\bdata|\baction|\bposter)\s*=\s*["']?\s*(?:https?:)?//"""
                       r"""|url\(\s*["']?\s*(?:https?:)?//|@import""", re.IGNORECASE)
    assert not fetch.findall(html)
    for name, data in built.files.items():
        if name.endswith(".svg"):
            assert not fetch.findall(data.decode()), name


def test_hostile_text_survives_into_results_json_as_data(tmp_path):
    """JSON carries the title as data (escaped by json.dumps), with no HTML processing."""
    import json

    from genreport.write.build import build

    root = tmp_path / "project"
    root.mkdir()
    spec = root / "evil.yaml"
    spec.write_text(REPORT.format(hardware="h100-sxm", model="llama-3.1-8b")
                    .replace("title: Probe", f'title: "{HOSTILE}"'))
    doc = json.loads(build(spec, formats=("json",)).files["results.json"])
    assert doc["spec"]["title"] == HOSTILE

