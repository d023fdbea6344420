"""The avx512f backend (AVX-512F/VL without IFMA: Skylake-SP, Cascade Lake,
Cooper Lake): where the dispatcher ranks it, and that its module holds no
IFMA instruction, so it runs on those CPUs.  Its arithmetic is tested with
every other backend's (the `backend` fixture and the kernel tests)."""
import glob
import os
import runpy
import shutil
from pathlib import Path

import pytest

import poly1305x
from poly1305x._core import _dispatch
from poly1305x._kernels import _registry

NO_IFMA = {"avx2", "avx512f", "avx512vl"}              # Skylake-SP's relevant features
IFMA = NO_IFMA | {"avx512ifma"}                        # Ice Lake, Zen 4, Zen 5
ROOT = Path(__file__).resolve().parents[2]


def _default_for(features):
    """The first backend of the dispatcher's order whose features the CPU has."""
    return next(name for name, needs, _, _ in _dispatch.BACKENDS
                if all(f in features for f in needs))


def test_rank_between_avx512_and_avx2():
    names = [name for name, *_ in _dispatch.BACKENDS]
    assert names.index("avx512") < names.index("avx512f") < names.index("avx2")
    assert _default_for(NO_IFMA) == "avx512f"
    assert _default_for(IFMA) == "avx512"
    assert _default_for({"avx2"}) == "avx2"


def test_registry_entry_builds_without_ifma():
    (entry,) = [b for b in _registry.BACKENDS if b["name"] == "avx512f"]
    assert "avx512ifma" not in entry["features"]
    assert not any("ifma" in f for f in entry["cflags"])
    assert "madd52" not in entry["probe"]
    assert entry["isa"] == "avx512"


def test_listed_exactly_where_the_cpu_has_avx512f():
    # Offered on a CPU with AVX-512F and VL, and not offered on one without
    # (an AVX2-only Zen 3 or Haswell), where its module would fault.
    has = {"avx512f", "avx512vl"} <= set(poly1305x.cpu_features())
    assert ("avx512f" in poly1305x.backends()) == has


def _audit():
    """The one instruction-set audit (.ci/wheel_audit.py, which CI runs on every
    wheel), and what the registry expects of each module."""
    audit = runpy.run_path(str(ROOT / ".ci" / "wheel_audit.py"))
    return audit, audit["expectations"](runpy.run_path(_registry.__file__))


def _built(stem):
    here = os.path.dirname(_registry.__file__)
    (path,) = glob.glob(os.path.join(here, stem + ".*.so")) or [None]
    if path is None:
        pytest.skip(f"{stem} is not built here")
    return path


def test_module_holds_no_ifma_instruction():
    """The audit finds nothing in avx512f's built module, and the IFMA module
    fails it when the registry is made to say its CPUs lack IFMA (the check
    can fail)."""
    # binutils comes with the C compiler the build needs; CI's sid wheel runs,
    # whose root has none, leave this test out by name
    assert shutil.which("objdump"), "objdump (binutils) is needed to read the module's code"
    audit, expect = _audit()
    assert "_x86_avx512f" not in expect["ifma"] and "_x86_avx512" in expect["ifma"]
    assert audit["isa_audit"](_built("_x86_avx512f"), expect)[2] == []
    path = _built("_x86_avx512")
    assert audit["isa_audit"](path, expect)[2] == []
    lied = dict(expect, ifma=expect["ifma"] - {"_x86_avx512"})
    assert any("IFMA" in f for f in audit["isa_audit"](path, lied)[2])
