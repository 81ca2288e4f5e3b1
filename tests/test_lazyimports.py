"""fontTools' subsetter and instancer are imported when first used, not with WeasyPrint (printing/lazyimports.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("weasyprint")
from shared import ROOT

PROBE = """
import os, sys
os.environ.pop("GENREPORT_PDF", None)
os.environ.pop("GENREPORT_PDF_OFF", None)
from genreport.printing import lazyimports, pdf
weasyprint = pdf._import()
weasyprint.HTML(string="<p>x <b>y</b></p>").render().write_pdf()  # DejaVu, HarfBuzz subsetting: neither is used
assert all(isinstance(sys.modules[n], lazyimports._Deferred) for n in lazyimports.LAZY), sys.modules
from weasyprint.pdf import fonts
deferred = fonts.instantiateVariableFont
assert deferred.__name__ == "instantiateVariableFont"
from fontTools.subset import Subsetter  # first use: the real module
import fontTools.subset as real
assert not isinstance(real, lazyimports._Deferred) and real.Subsetter is Subsetter
assert fonts.subset.Options is real.Options  # WeasyPrint's name for it reads through to the real module
try:
    deferred(None, {})  # reaches the real function, which fails on its arguments
except Exception as exc:
    assert "Deferred" not in type(exc).__name__
from fontTools.varLib import instancer
assert not isinstance(instancer, lazyimports._Deferred) and hasattr(instancer, "instantiateVariableFont")
print("ok")
"""


def test_the_two_modules_load_on_first_use_and_are_the_real_ones_after():
    p = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr


def test_stock_import_leaves_them_alone():
    code = ("import os, sys; os.environ['GENREPORT_PDF'] = 'stock'\n"
            "from genreport.printing import lazyimports, pdf; pdf._import()\n"
            "assert not any(isinstance(sys.modules.get(n), lazyimports._Deferred) for n in lazyimports.LAZY)\n"
            "print('ok')")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr
