"""Two of fontTools' modules imported when first used, not when WeasyPrint is imported: 0.06 s off every PDF.

WeasyPrint's ``pdf/fonts.py`` imports ``fontTools.subset`` (with its CFF and OpenType table modules) and
``fontTools.varLib.instancer`` at the top, but calls them only to subset a font where HarfBuzz's subsetter is
missing, and to make a variable font static. A report set in DejaVu (static fonts) with HarfBuzz 4.1 or newer (as
``scripts/setup`` installs) never does either, and the imports were a third of WeasyPrint's (0.06 s of 0.2 s), on
the path of every PDF: the PDF worker lays nothing out before WeasyPrint is imported.

:func:`install`, before WeasyPrint is imported, puts a stand-in module under each name. The first attribute read
from a stand-in imports the real module and hands the attribute over; ``instantiateVariableFont``, which WeasyPrint
imports by name, is a function that does the same when called. Whatever WeasyPrint does with them, it does with the
real modules. A closed gate (WeasyPrint's stock import) or
``GENREPORT_PDF_OFF=lazyimports`` leaves them alone.
"""

from __future__ import annotations

import importlib
import sys
import types

LAZY = {"fontTools.subset": (), "fontTools.varLib.instancer": ("instantiateVariableFont",)}


class _Deferred(types.ModuleType):
    """A module imported at its first use (see the module's docstring)."""

    def __init__(self, name: str, functions: tuple[str, ...]):
        super().__init__(name)
        self.__dict__["_genreport_functions"] = functions

    def __getattr__(self, attr: str):
        if attr[:2] == "__" == attr[-2:]:  # what the import system asks (__path__, __spec__): not the module's own
            raise AttributeError(attr)
        if attr in self.__dict__["_genreport_functions"] and sys.modules.get(self.__name__) is self:
            name = self.__name__

            def deferred(*args, **kwargs):
                return getattr(load(name), attr)(*args, **kwargs)

            deferred.__name__ = deferred.__qualname__ = attr
            return deferred
        return getattr(load(self.__name__), attr)


def load(name: str) -> types.ModuleType:
    """The real module ``name`` (imported now if only its stand-in was)."""
    module = sys.modules.get(name)
    if isinstance(module, _Deferred):
        del sys.modules[name]
        parent, _, child = name.rpartition(".")
        if parent in sys.modules and getattr(sys.modules[parent], child, None) is module:
            delattr(sys.modules[parent], child)
        module = importlib.import_module(name)
    return module


def install() -> list[str]:
    """Stand-ins for the modules of ``LAZY`` not imported yet; returns their names."""
    from genreport.printing import gate

    if not gate.is_open() or "weasyprint.pdf.fonts" in sys.modules:
        return []
    put = []
    for name, functions in LAZY.items():
        if name not in sys.modules:
            sys.modules[name] = _Deferred(name, functions)
            put.append(name)
    return put
