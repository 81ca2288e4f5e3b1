"""``genreport audit`` on hostile input: a bounded file, a bounded number of rows, a name too long for the
file system, and claims text shown escaped on the terminal."""

from __future__ import annotations

from genreport.commands import audit
from genreport.commands.cli import main
from shared import ROOT

PUBLISHED = ROOT / "tests" / "data" / "published.csv"


def test_too_many_rows_are_refused_before_any_work(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(audit, "MAX_ROWS", 5)
    lines = PUBLISHED.read_text().splitlines()
    (tmp_path / "claims.csv").write_text("\n".join(lines[:8]) + "\n")
    assert main(["audit", str(tmp_path / "claims.csv")]) == 1
    assert "more than 5 claims" in capsys.readouterr().err


def test_oversized_file_is_refused_without_reading_it(tmp_path, capsys):
    with open(tmp_path / "claims.csv", "wb") as fh:
        fh.truncate(audit.MAX_BYTES + 1)  # sparse
    assert main(["audit", str(tmp_path / "claims.csv")]) == 1
    assert "file is over 10,000,000 bytes" in capsys.readouterr().err


def test_name_too_long(capsys):
    assert main(["audit", "a" * 5000]) == 1
    assert "internal error" not in capsys.readouterr().err


def test_table_shows_escapes(tmp_path, capsys, monkeypatch):
    lines = PUBLISHED.read_text().splitlines()
    row = lines[1].split(",", 1)
    (tmp_path / "claims.csv").write_text(lines[0] + "\n" + "evil\x1b[2J" + "," + row[1] + "\n")
    monkeypatch.chdir(PUBLISHED.parent)  # the claims name catalog models and GPUs
    main(["audit", str(tmp_path / "claims.csv")])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "evil\\x1b[2J" in out
