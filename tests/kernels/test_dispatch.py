"""Backend registry and run-time dispatch: POLY1305X_BACKEND, unknown and
unsupported names, and that no SIMD module is imported before the CPU check."""
import pathlib
import re
import subprocess
import sys

import pytest

import poly1305x
from poly1305x._core import _dispatch, _testing
from tests.support.helpers import child_env


def run_py(code, **env):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=child_env(**env), timeout=120)


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
        _testing.kernel_poly1305("portable", bytes(31), b"")
    with pytest.raises(ValueError):
        _testing.kernel_chacha20("portable", bytes(32), bytes(8), 1, 0)


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



def test_bad_env_value_is_echoed_cut():
    """A 5,000-character POLY1305X_BACKEND is quoted in at most a few dozen
    characters (the old message carried it whole, twice), with its length."""
    value = "x" * 4991 + "TAIL-mark"                 # 5,000 characters
    r = run_py("import poly1305x", POLY1305X_BACKEND=value)
    assert r.returncode != 0
    line = [ln for ln in r.stderr.splitlines() if "POLY1305X_BACKEND=" in ln][-1]
    assert "ImportError" in line and "unknown poly1305x backend" in line
    assert "TAIL-mark" not in r.stderr and "x" * 41 not in r.stderr
    assert "(5000 characters)" in line
    assert len(line) < 400, len(line)
    with pytest.raises(ImportError) as info:
        poly1305x.set_backend(value)
    assert "x" * 41 not in str(info.value) and len(str(info.value)) < 300


# --- the selection self-test covers the lane kernels ----------------------------

_EVERY = poly1305x.backends() + _dispatch.emulated_backends()


@pytest.mark.parametrize("name", _EVERY)
@pytest.mark.parametrize("entry", ["chacha20_lanes", "poly1305_lanes"])
@pytest.mark.parametrize("lane", [0, 3, 8, 15, 18])
def test_broken_lane_kernel_fails_selection(name, entry, lane):
    """One lane of a lane kernel damaged on purpose (the test hook: one byte
    of that lane's key stream, or of its tag; lane 3 has no ChaCha20 block,
    so its damage is a write past the lane's end): set_backend refuses the
    backend with the lanes self-test's ImportError and the active backend
    stays; the next selection, undamaged, passes."""
    before = poly1305x.backend()
    _dispatch._break_lane_at_next_load(name, entry, lane)
    what = "ChaCha20" if entry == "chacha20_lanes" else "Poly1305"
    try:
        with pytest.raises(ImportError, match=f"{name!r} failed its {what} lanes self-test"):
            poly1305x.set_backend(name)
        assert poly1305x.backend() == before
        assert name not in _dispatch._tables
    finally:
        _dispatch._break_next.pop(name, None)
        poly1305x.set_backend(name)
        poly1305x.set_backend(before)
    assert name in _dispatch._tables


def test_break_hook_refuses_other_entries():
    with pytest.raises(ValueError):
        _dispatch._break_lane_at_next_load("portable", "poly1305_blocks", 0)


# --- CPU features as data: the registry's FEATURES and the probe ------------

def test_every_backend_feature_is_described_in_the_registry():
    """A backend's features are FEATURES keys, each entry says where the probe
    reads it, and the probe reports only such names."""
    from poly1305x._kernels._registry import BACKENDS, FEATURES
    named = {f for b in BACKENDS for f in b["features"]}
    assert named and named <= set(FEATURES), named - set(FEATURES)
    for name, spec in FEATURES.items():
        assert spec["arch"] in ("x86", "aarch64"), name
        if spec["arch"] == "x86":
            leaf, sub, reg, bit = spec["cpuid"]
            assert reg in ("eax", "ebx", "ecx", "edx") and 0 <= bit < 32, name
            assert isinstance(leaf, int) and isinstance(sub, int), name
            assert spec["xcr0"] & 0x6 in (0, 0x6), name        # YMM state implies XMM's
        else:
            word, bit = spec["hwcap"]
            assert word in (1, 2) and 0 <= bit < 64, name
    assert poly1305x.cpu_features() <= set(FEATURES)
    assert _dispatch._probe() == poly1305x.cpu_features()


def _cpuinfo_flags():
    try:
        text = pathlib.Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    m = re.search(r"^flags\s*:(.*)$", text, re.M)      # x86 Linux only
    return set(m.group(1).split()) if m else None


def test_probe_agrees_with_the_kernel_on_this_cpu():
    """Each x86 feature of the registry is reported exactly when Linux lists
    it in /proc/cpuinfo (which, like the probe, drops what XCR0 leaves off);
    elsewhere no x86 feature is reported.  (Not for qemu-user's emulated CPUs,
    whose /proc/cpuinfo is the host's: nox -s oldcpu leaves this file out.)"""
    from poly1305x._kernels._registry import FEATURES
    x86 = [name for name, spec in FEATURES.items() if spec["arch"] == "x86"]
    flags = _cpuinfo_flags()
    if flags is None:
        assert not poly1305x.cpu_features() & set(x86)
        return
    assert {n: n in poly1305x.cpu_features() for n in x86} == {n: n in flags for n in x86}


def _cpu(max_leaf=7, ebx7=0, osxsave=True, xcr0=0xe7):
    """Queries of a made-up x86 CPU for _dispatch._features_from."""
    def cpuid(leaf, sub):
        if leaf == 0:
            return (max_leaf, 0, 0, 0)
        if leaf == 0x80000000:
            return (0x80000008, 0, 0, 0)
        if leaf == 1:
            return (0, 0, (1 << 27) if osxsave else 0, 0)
        if leaf == 7 and sub == 0 and max_leaf >= 7:
            return (0, ebx7, 0, 0)
        return (0, 0, 0, 0)
    return cpuid, (lambda: xcr0 if osxsave else 0), (lambda word: 0)


_ZEN5_EBX7 = (1 << 5) | (1 << 16) | (1 << 21) | (1 << 31)     # AVX2, AVX-512 F, IFMA, VL


def test_probe_counts_a_feature_only_where_the_os_saves_its_state():
    from poly1305x._kernels._registry import FEATURES
    probe = _dispatch._features_from
    avx512 = {"avx512f", "avx512vl", "avx512ifma"}
    assert probe(FEATURES, "x86", *_cpu(ebx7=_ZEN5_EBX7)) == {"avx2"} | avx512
    assert probe(FEATURES, "x86", *_cpu(ebx7=_ZEN5_EBX7, xcr0=0x7)) == {"avx2"}   # no ZMM state
    assert probe(FEATURES, "x86", *_cpu(ebx7=_ZEN5_EBX7, xcr0=0x3)) == set()      # no YMM state
    assert probe(FEATURES, "x86", *_cpu(ebx7=_ZEN5_EBX7, osxsave=False)) == set()
    assert probe(FEATURES, "x86", *_cpu(ebx7=_ZEN5_EBX7, max_leaf=6)) == set()
    assert probe(FEATURES, "x86", *_cpu(ebx7=1 << 5)) == {"avx2"}
    assert probe(FEATURES, "aarch64", *_cpu(ebx7=_ZEN5_EBX7)) == set()       # other arch
    # an aarch64 entry is read from the hwcap words
    table = {"sha3": {"arch": "aarch64", "hwcap": (1, 17)},
             "sve2": {"arch": "aarch64", "hwcap": (2, 1)}}
    hwcaps = {1: 1 << 17, 2: 0}
    assert probe(table, "aarch64", None, None, hwcaps.get) == {"sha3"}
    assert probe(table, "x86", *_cpu(ebx7=_ZEN5_EBX7)) == set()


def test_portable_tuning_is_the_portable_modules():
    """The 4 + 1 step rule lives in _portable (_tune); the dispatcher only
    hands it the probed features."""
    from poly1305x._kernels import _portable
    before = _portable.vec_step_blocks()
    try:
        _portable._tune(frozenset({"avx2"}))
        assert _portable.vec_step_blocks() == before
        _portable._tune(frozenset())
        assert _portable.vec_step_blocks() == (4 if before == 5 else before)
    finally:
        _portable._set_vec_step_blocks(before)
    source = pathlib.Path(__file__).resolve().parents[2] / "poly1305x" / "_core" / "_dispatch.pyx"
    assert "_set_vec_step_blocks" not in source.read_text(encoding="utf-8")
