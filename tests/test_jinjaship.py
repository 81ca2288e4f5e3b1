"""The templates compiled ahead (generator/present/jinjaship.py) are current and render what the sources render."""

from __future__ import annotations

import jinja2
from genreport.paths import templates_dir
from genreport.present import jinjaship


def test_the_shipped_templates_are_current():
    """Fails after a template (or templates/live/*.js) changes: run python -m genreport.present.jinjaship."""
    assert jinjaship.check() == []


def _env(loader):
    from genreport.present import render

    env = render._env()
    fresh = jinja2.Environment(loader=loader, autoescape=env.autoescape, undefined=env.undefined,
                               trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    fresh.filters.update(env.filters)
    fresh.globals.update(env.globals)
    return fresh


def test_a_shipped_module_renders_what_its_source_renders():
    shipped = _env(jinjaship.loader(str(templates_dir())))
    source = _env(jinja2.FileSystemLoader(str(templates_dir())))
    names = sorted(jinjaship.shipped())
    assert "report.html.j2" in names and len(names) >= 20
    for name in names:
        a, b = shipped.get_template(name), source.get_template(name)
        assert "_jinja" in a.filename and "_jinja" not in b.filename  # one from its module, one compiled here
    js = "live/fmt.js"
    assert shipped.get_template(js).render() == source.get_template(js).render()


def test_an_edited_template_is_compiled_from_its_source(tmp_path, monkeypatch):
    (tmp_path / "t.html.j2").write_text("{{ 1 + 1 }} new")
    monkeypatch.setattr(jinjaship, "shipped", lambda: {"t.html.j2": "0" * 64})  # compiled from another source
    env = _env(jinjaship.loader(str(tmp_path)))
    assert env.get_template("t.html.j2").render() == "2 new"
