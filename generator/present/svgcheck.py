"""Whether SVG text read back from the cache folder is SVG as genreport writes it.

Figures (Matplotlib) and formulas (ziamath) kept in the cache go into a report as they are: into the HTML as
images, into ``figures/*.svg`` (opened on its own, a browser runs a script in it) and into the PDF (WeasyPrint
draws it). So a kept image is parsed, not matched by a prefix, and taken only when it holds nothing those two
writers do not write: their elements (shapes, text, clip paths, hatching patterns, Matplotlib's metadata), no
script, ``foreignObject``, ``image`` or link element, no event handler (``on...``) or ``xml:base``, references only
within the image itself (``href="#id"``, ``url(#id)``), no ``@import``, no CSS escapes, no processing instruction
(``<?xml-stylesheet?>``) and no document type but Matplotlib's own (no internal subset, so no entities).
"""

from __future__ import annotations

import re
from xml.parsers import expat

_SVG = "http://www.w3.org/2000/svg"
_XLINK = "http://www.w3.org/1999/xlink"
_XML = "http://www.w3.org/XML/1998/namespace"
_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_ELEMENTS = frozenset(f"{_SVG} {name}" for name in (
    "svg", "g", "defs", "style", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "tspan",
    "use", "clipPath", "pattern", "metadata", "title", "desc"))
# Matplotlib's <metadata>: a Dublin Core record of the image's format and the program that wrote it.
_METADATA = frozenset((f"{_RDF} RDF", "http://creativecommons.org/ns# Work", "http://creativecommons.org/ns# Agent",
                       *(f"http://purl.org/dc/elements/1.1/ {name}" for name in
                         ("type", "format", "creator", "title", "date", "description"))))
_STILL_IMAGE = "http://purl.org/dc/dcmitype/StillImage"
_DOCTYPE = ("svg", "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd", "-//W3C//DTD SVG 1.1//EN")
_LOCAL_REF = re.compile(r"#[A-Za-z_][\w.-]*")
_URL = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.I | re.S)
# a reference to an entity that is not one of XML's own (expat skips those it cannot see declared)
_ENTITY = re.compile(rb"&(?!(?:lt|gt|amp|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});)")
_CSS_BAD = re.compile(r"\\|@import|expression\s*\(|javascript:|-moz-binding|behavior\s*:", re.I)


class _Refused(Exception):
    pass


def ours(svg: bytes) -> bool:
    """Whether ``svg`` is a well-formed SVG document holding only what genreport's figures and formulas hold."""
    if _ENTITY.search(svg):
        return False
    parser = expat.ParserCreate(namespace_separator=" ")
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.buffer_text = True
    stack: list[str] = []
    style: list[str] = []

    def refuse(*_args):
        raise _Refused

    def doctype(name, system_id, public_id, has_internal_subset):
        if stack or has_internal_subset or (name, system_id, public_id) != _DOCTYPE:
            raise _Refused

    def start(name, attrs):
        inside = stack[-1] if stack else None
        if inside is None and name != f"{_SVG} svg":
            raise _Refused
        in_metadata = f"{_SVG} metadata" in stack
        if name in _METADATA:
            if not in_metadata:
                raise _Refused
        elif name not in _ELEMENTS or in_metadata:
            raise _Refused
        for attr, value in attrs.items():
            _check_attribute(attr, value, name)
        stack.append(name)

    def end(_name):
        if stack.pop() == f"{_SVG} style":
            _check_css("".join(style))
            style.clear()

    def text(data):
        if stack and stack[-1] == f"{_SVG} style":
            style.append(data)

    parser.StartDoctypeDeclHandler = doctype
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    # an entity of any kind, a reference to one, or a processing instruction: never in what genreport writes
    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.NotationDeclHandler = refuse
    parser.SkippedEntityHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    parser.ProcessingInstructionHandler = refuse
    try:
        parser.Parse(svg, True)
    except (_Refused, expat.ExpatError, ValueError, UnicodeError):
        return False
    return not stack


def _check_attribute(attr: str, value: str, element: str) -> None:
    namespace, _, local = attr.rpartition(" ")
    if local.lower().startswith("on"):
        raise _Refused
    if namespace == _XLINK or (not namespace and local == "href"):
        if local != "href" or not _LOCAL_REF.fullmatch(value):
            raise _Refused
        return
    if namespace == _RDF:  # Matplotlib's <dc:type rdf:resource="...StillImage"/>, a name, never fetched
        if local != "resource" or value != _STILL_IMAGE or not element.endswith(" type"):
            raise _Refused
        return
    if namespace == _XML:
        if local != "space":
            raise _Refused
        return
    if namespace:
        raise _Refused
    if any(c in value for c in "(:\\@"):  # only these can start a reference (path data, ids, numbers have none)
        _check_css(value)


def _check_css(text: str) -> None:
    """Style text (a ``style`` attribute, a ``<style>`` element) that names nothing outside the image."""
    if _CSS_BAD.search(text):
        raise _Refused
    found = _URL.findall(text)
    if len(found) != text.lower().count("url("):
        raise _Refused  # a url( this pattern did not take apart
    if any(not _LOCAL_REF.fullmatch(target.strip()) for _quote, target in found):
        raise _Refused
