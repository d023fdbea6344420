"""Backend registry and run-time dispatch: POLY1305X_BACKEND, unknown and
unsupported names, and that no SIMD module is imported before the CPU check."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

import poly1305x
from poly1305x._core import _dispatch


def run_py(code, **env):
    e = dict(os.environ)
    e.pop("POLY1305X_BACKEND", None)
    e.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e,
                          timeout=120)


def test_registry_shape():
    names = poly1305x.backends()
    assert names, "at least the portable kernels"
    assert set(names) >= {"portable", "portable26"}
    assert poly1305x.backend() in names + _dispatch.emulated_backends()
    known = _dispatch.all_backends()
    assert names == [n for n in known if n in names]          # best first, table order
    assert not set(_dispatch.emulated_backends()) & set(names)


@pytest.mark.parametrize("name", poly1305x.backends())
def test_env_var_selects_backend(name):
    r = run_py("import poly1305x; print(poly1305x.backend())", POLY1305X_BACKEND=name)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == name


def test_env_var_unknown_name_is_clear_import_error():
    r = run_py("import poly1305x", POLY1305X_BACKEND="sse9000")
    assert r.returncode != 0
    assert "ImportError" in r.stderr and "unknown poly1305x backend 'sse9000'" in r.stderr
    assert "portable" in r.stderr                      # lists the valid names
    assert "Segmentation" not in r.stderr


def test_unsupported_backend_refused_without_importing_it():
    """With the probe's answer emptied, SIMD backends are refused by name and
    their modules are never imported (importing them would risk SIGILL)."""
    code = (
        "import sys, poly1305x\n"
        "from poly1305x._core import _dispatch\n"
        "_dispatch._FEATURES = frozenset()\n"
        "for name in ('avx2', 'avx512'):\n"
        "    try:\n"
        "        _dispatch._tables.pop(name, None)\n"
        "        sys.modules.pop('poly1305x._kernels._x86_' + name, None)\n"
        "        poly1305x.set_backend(name)\n"
        "    except ImportError as e:\n"
        "        print('refused', name, 'needs CPU features' in str(e))\n"
        "    print('imported', name, 'poly1305x._kernels._x86_' + name in sys.modules)\n"
        "print(poly1305x.backends())\n"
    )
    r = run_py(code, POLY1305X_BACKEND="portable")
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert "refused avx2 True" in out and "refused avx512 True" in out
    assert "imported avx2 False" in out and "imported avx512 False" in out
    assert out[-1] in ("['portable', 'portable26', 'scalar']", "['portable26', 'portable', 'scalar']")


def test_portable_choice_imports_no_simd_module():
    r = run_py("import sys, poly1305x; print(sorted(m for m in sys.modules if '_x86_' in m))",
               POLY1305X_BACKEND="portable")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_set_backend_and_objects_keep_theirs():
    from poly1305x.mac import Poly1305
    before = poly1305x.backend()
    try:
        poly1305x.set_backend("portable26")
        a = Poly1305(bytes(32))
        poly1305x.set_backend("portable")
        b = Poly1305(bytes(32))
        assert (a.backend, b.backend) == ("portable26", "portable")
        with pytest.raises(ImportError, match="unknown"):
            poly1305x.set_backend("nope")
        assert poly1305x.backend() == "portable"
    finally:
        poly1305x.set_backend(before)


def test_kernel_hooks_validate_lengths():
    with pytest.raises(ValueError):
        _dispatch.kernel_poly1305("portable", bytes(31), b"")
    with pytest.raises(ValueError):
        _dispatch.kernel_chacha20("portable", bytes(32), bytes(8), 1, 0)


def test_engine_uses_no_kernel_module():
    """The layers above the kernels (engine, SSH framing, dispatcher's state
    type) reach them only through the table (_kernels/_kernel.pxd) and the
    inline helpers (_kernels/_common.pxd, _kernels/_util.pxd), never by cimporting a
    kernel module."""
    # The checkout's sources: a wheel ships no .pyx/.pxd (CI also runs this
    # file against the installed wheels, .ci/wheel-tests.sh).
    pkg = pathlib.Path(__file__).resolve().parents[2] / "poly1305x"
    for name in ("_core/_engine.pyx", "_core/_engine.pxd", "openssh/_ssh.pyx",
                 "_core/_dispatch.pxd"):
        src = (pkg / name).read_text(encoding="utf-8")
        used = set(re.findall(r"from poly1305x\._kernels\.(\w+) cimport", src))
        assert used <= {"_kernel", "_common", "_util"}, (name, used)
        assert not re.search(r"poly1305x\._(kernels\._)?(portable|x86_\w+)\b", src), name
