"""A spec file read again is parsed once a process (generator/load/yamlread.py ``read``): each read hands out its own
data, positions and file name; another file's bytes or name are another document."""

from __future__ import annotations

from genreport.load import yamlread
from genreport.load.loader import load_report
from shared import SPECS

TEXT = """kind: model
name: probe
shared: &s {a: 1, b: [2, 3]}
again: *s
"""


def test_a_second_read_is_the_same_document_and_its_own(tmp_path):
    path = tmp_path / "probe.yaml"
    path.write_text(TEXT)
    first = yamlread.read(path)
    first.data["shared"]["b"].append(4)
    first.marks[("kind",)] = (99, 99)
    first.overrides[("name",)] = "x"
    second = yamlread.read(path)
    assert second.data == {"kind": "model", "name": "probe", "shared": {"a": 1, "b": [2, 3]},
                           "again": {"a": 1, "b": [2, 3]}}
    assert second.marks[("kind",)] == (1, 7) and second.overrides == {} and second.raw == TEXT.encode()
    assert second.data["shared"] is not second.data["again"]  # an alias is built apart at each path, as parsed
    assert second.data is not yamlread.read(path).data


def test_a_changed_file_or_another_name_is_read_afresh(tmp_path):
    path = tmp_path / "probe.yaml"
    path.write_text(TEXT)
    assert yamlread.read(path).data["name"] == "probe"
    path.write_text(TEXT.replace("name: probe", "name: other"))
    assert yamlread.read(path).data["name"] == "other"
    assert yamlread.read(path, "shown.yaml").file == "shown.yaml"
    assert yamlread.read(path).file == str(path)


def test_an_override_does_not_reach_the_next_load():
    """A what-if changes the data in place; the next load of the same files gets the files' values."""
    spec = SPECS / "llama70b-h100-tp8.yaml"
    changed = load_report(spec, ["hardware.memory.bandwidth=1 TB/s", "model.layers=4", "parallelism.tp=2"])
    plain = load_report(spec)
    assert changed.hardware.bandwidth == 1e12 and changed.model.layers == 4 and changed.parallelism.tp == 2
    assert plain.hardware.bandwidth == 3.35e12 and plain.model.layers == 80 and plain.parallelism.tp == 8


def test_what_is_kept_is_bounded(tmp_path, monkeypatch):
    """At most _PARSED_MAX documents and _PARSED_BYTES of their files (a long ``serve`` fed many large specs)."""
    monkeypatch.setattr(yamlread, "_PARSED", {})
    monkeypatch.setattr(yamlread, "_PARSED_BYTES", 3 * len(TEXT) + 10)
    for i in range(7):
        path = tmp_path / f"p{i}.yaml"
        path.write_text(TEXT)
        assert yamlread.read(path).data["name"] == "probe"
        assert sum(len(raw) for _, raw in yamlread._PARSED) <= yamlread._PARSED_BYTES
    monkeypatch.setattr(yamlread, "_PARSED_MAX", 2)
    for i in range(5):
        yamlread.read(tmp_path / f"p{i}.yaml")
        assert len(yamlread._PARSED) <= 2
