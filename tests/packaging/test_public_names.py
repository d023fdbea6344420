"""Every name the documentation lists can be imported from where it says.

docs/api.rst is the reference: each ``auto*`` and ``data``/``class``
directive names a dotted path, and each ``automodule`` with ``:members:``
stands for the module's ``__all__``.  The package's public import paths and
its two command lines are checked too, so a restructuring that moves code
cannot drop a name users import.
"""
import importlib
import os
import re
import subprocess
import sys

import pytest

DOCS = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "docs")
DIRECTIVE = re.compile(
    r"^\.\. (auto(?:function|class|exception|module|data)|data|class|module)::\s+"
    r"([\w.]+)(\(.*\))?\s*$")


def documented():
    """(directive, dotted name, members option or None) from docs/api.rst."""
    with open(os.path.join(DOCS, "api.rst")) as fh:
        lines = fh.read().splitlines()
    found = []
    for i, line in enumerate(lines):
        m = DIRECTIVE.match(line)
        if not m:
            continue
        members = None
        for opt in lines[i + 1:i + 4]:
            o = re.match(r"^\s+:members:\s*(.*)$", opt)
            if o:
                members = o.group(1).strip()
        found.append((m.group(1), m.group(2), members))
    return found


def resolve(dotted):
    """Import the longest module prefix of ``dotted``, then walk attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


NAMES = documented()


def test_the_reference_lists_names():
    # a parser that found nothing would make the tests below vacuous
    assert len(NAMES) > 30
    assert ("automodule", "poly1305x.openssh", "") in NAMES


@pytest.mark.parametrize("directive,dotted,members", NAMES, ids=[n[1] for n in NAMES])
def test_documented_name_imports(directive, dotted, members):
    if directive == "data" and "." not in dotted:
        dotted = "poly1305x." + dotted          # `.. data:: __version__` under `.. module:: poly1305x`
    obj = resolve(dotted)
    if directive == "automodule" and members is not None:
        names = members.replace(",", " ").split() or list(obj.__all__)
        for name in names:
            assert hasattr(obj, name), f"{dotted}.{name} is documented but missing"


@pytest.mark.parametrize("path", [
    "poly1305x.Poly1305", "poly1305x.ChaCha20", "poly1305x.ChaCha20_Poly1305",
    "poly1305x.mac", "poly1305x.aead", "poly1305x.hpke", "poly1305x.openssh",
    "poly1305x.mls", "poly1305x.noise",
])
def test_public_module_paths(path):
    module = importlib.import_module(path)
    parent, _, name = path.rpartition(".")
    assert getattr(importlib.import_module(parent), name) is module


@pytest.mark.parametrize("argv", [
    ["-m", "poly1305x", "--help"],
    ["-m", "poly1305x.openssh", "--help"],
])
def test_command_lines(argv):
    r = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "usage" in r.stdout.lower()
