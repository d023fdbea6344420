# cython: language_level=3, embedsignature=True
"""The one dispatch point: CPU probe, the backend table, POLY1305X_BACKEND.

Instruction-set modules are imported only after the probe says the CPU and the
OS support them: their module init is compiled with their ISA flags and may
itself contain those instructions."""
import importlib
import importlib.util
import os
import threading

from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.string cimport memcpy, memset

from poly1305x._kernels._common cimport (
    chacha20_init_state, poly1305_finish, poly1305_init,
)
from poly1305x._kernels._kernel cimport P1305X_KERNEL_CAPSULE, kernel_table, poly1305_state
from poly1305x._kernels._portable import HAVE_INT128
from poly1305x._kernels import _portable, _vectors
from poly1305x._kernels._registry import BACKENDS as _REGISTRY
from poly1305x._kernels._registry import FEATURES as _FEATURE_TABLE

# The CPU queries (generic: which feature sits where is the registry's FEATURES).
cdef extern from "_cpu.h":
    void p1305x_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
    uint64_t p1305x_xcr0()
    uint64_t p1305x_hwcap(int n)
    int P1305X_X86, P1305X_AARCH64


def _cpuid(uint32_t leaf, uint32_t subleaf):
    """CPUID(leaf, subleaf) as (eax, ebx, ecx, edx); zeros off x86."""
    cdef uint32_t r[4]
    p1305x_cpuid(leaf, subleaf, r)
    return (r[0], r[1], r[2], r[3])


def _xcr0():
    """XCR0 (the OS-enabled register state); 0 where the OS has no XSAVE."""
    return p1305x_xcr0()


def _hwcap(int word):
    """aarch64 Linux's AT_HWCAP (1) or AT_HWCAP2 (2); 0 elsewhere."""
    return p1305x_hwcap(word)


_REGISTERS = {"eax": 0, "ebx": 1, "ecx": 2, "edx": 3}


def _features_from(table, arch, cpuid, xcr0, hwcap):
    """The names of ``table`` (the registry's FEATURES) whose entry for
    ``arch`` the queries report: ``cpuid(leaf, subleaf)`` -> 4 registers,
    ``xcr0()``, ``hwcap(word)``.  Pure: the tests feed it other CPUs."""
    names = set()
    for name, spec in table.items():
        if spec["arch"] != arch:
            continue
        if arch == "x86":
            leaf, sub, reg, bit = spec["cpuid"]
            if leaf > cpuid(leaf & 0x80000000, 0)[0]:       # beyond the CPU's range
                continue
            if not (cpuid(leaf, sub)[_REGISTERS[reg]] >> bit) & 1:
                continue
            need = spec["xcr0"]
            if need and (xcr0() & need) != need:             # state the OS does not save
                continue
        elif arch == "aarch64":
            word, bit = spec["hwcap"]
            if not (hwcap(word) >> bit) & 1:
                continue
        else:
            continue
        names.add(name)
    return frozenset(names)


def _probe():
    arch = "x86" if P1305X_X86 else "aarch64" if P1305X_AARCH64 else None
    return _features_from(_FEATURE_TABLE, arch, _cpuid, _xcr0, _hwcap)


_FEATURES = _probe()

# The portable backends' tuning for this CPU is theirs (_portable._tune); the
# probe is read here only.
_portable._tune(_FEATURES)


def _ranked(entries, bint have_int128):
    """Registry entries in rank order; without a 64x64->128 multiply, an entry
    that names an int128_twin ranks just after that twin."""
    out = list(entries)
    if not have_int128:
        for b in [e for e in out if e["int128_twin"]]:
            twin = next(e for e in out if e["name"] == b["int128_twin"])
            out.remove(twin)
            out.insert(out.index(b), twin)
    return out


# Backends, best first, from the registry (poly1305x/_kernels/_registry.py):
# name, CPU features it needs, module that holds it, the name of its table
# there.  `scalar` (no vector code at all) is last: the reference the others
# are checked against, never the default.
BACKENDS = tuple((b["name"], tuple(b["features"]), b["module"], b["table"])
                 for b in _ranked(_REGISTRY, HAVE_INT128) if not b["emulated"])

# Test-only backends (the AVX-512 kernels and the NEON Poly1305 built against
# SIMDe, setup.py's POLY1305X_SIMDE=1): never chosen by default and not in
# backends(); selectable by name.
EMULATED = tuple((b["name"], tuple(b["features"]), b["module"], b["table"])
                 for b in _REGISTRY if b["emulated"])

# The selected table: written by set_backend() under _lock, read by
# active_kernels() without it (from any thread, GIL or no GIL), so both sides
# use an atomic pointer access (CPython's own on 3.13+, where a free-threaded
# build exists; before that the GIL orders them).
cdef extern from *:
    """
    #if PY_VERSION_HEX >= 0x030D0000 && !defined(Py_LIMITED_API)
    #define p1305x_load_table(p) ((const void *)_Py_atomic_load_ptr_acquire((const void *)(p)))
    #define p1305x_store_table(p, v) _Py_atomic_store_ptr_release((void *)(p), (void *)(v))
    #else
    #define p1305x_load_table(p) ((const void *)*(p))
    #define p1305x_store_table(p, v) (*(p) = (v))
    #endif
    """
    const void* p1305x_load_table(const kernel_table** p) noexcept nogil
    void p1305x_store_table(const kernel_table** p, const kernel_table* v) noexcept nogil

cdef const kernel_table* _active = NULL
_active_name = None
_tables = {}          # name -> capsule (keeps the module alive)
_labels = {}          # name -> its bytes, which the loaded table's name points into
# Serialises loading a backend (import, self-test, _tables entry) and
# selecting one.  Re-entrant: a backend's self-test loads "portable" through
# kernels_named() while set_backend() holds it.
_lock = threading.RLock()


def _new_lock_in_child():
    # A child forked while another thread held the lock (inside set_backend)
    # would wait for it forever: that thread does not exist in the child.
    # Re-entrant like the original: a backend's self-test loads another
    # backend under it.
    global _lock
    _lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)


def cpu_features():
    """The CPU features that the probe found and the OS enables."""
    return _FEATURES


def backends():
    """Names of the backends usable on this CPU and built into this install,
    best first.

    ``avx512``: AVX-512 IFMA Poly1305, 16-block ChaCha20 (x86-64);
    ``avx512f``: AVX-512F Poly1305 in 26-bit limbs (no IFMA), 16-block
    ChaCha20 (x86-64);
    ``avx2``: 4-lane Poly1305, 8-block ChaCha20 (x86-64);
    ``portable``: base-2^64 scalar Poly1305, ChaCha20 8/4 blocks per step on
    the baseline vector unit (SSE2, NEON, VSX; what every other CPU gets);
    ``portable26``: the same with 26-bit Poly1305 limbs; ``scalar``: no
    vector code at all (the self-test's reference).  See docs/backends.md."""
    out = []
    for name, needs, modname, _ in BACKENDS:
        if all(f in _FEATURES for f in needs) and importlib.util.find_spec(modname):
            out.append(name)
    return out


def all_backends():
    """Every backend name this package knows, usable here or not."""
    return [b[0] for b in BACKENDS + EMULATED]


def emulated_backends():
    """Test-only backends built into this install (the AVX-512 kernels and
    aarch64's NEON Poly1305 under SIMDe): they check the vector arithmetic on
    CPUs that lack it, slowly."""
    return [name for name, needs, modname, _ in EMULATED
            if all(f in _FEATURES for f in needs) and importlib.util.find_spec(modname)]


def backend():
    """The name of the backend that new objects use."""
    return _active_name


cdef const kernel_table* kernels_named(str name) except NULL:
    cap = _tables.get(name)
    if cap is None:
        with _lock:       # one import and self-test per backend, whatever the threads
            cap = _tables.get(name)
            if cap is None:
                cap = _load(name)
    return <const kernel_table*>PyCapsule_GetPointer(cap, P1305X_KERNEL_CAPSULE)


cdef const kernel_table* active_kernels() noexcept nogil:
    return <const kernel_table*>p1305x_load_table(&_active)


def _shown(str name):
    """A backend name as a message quotes it (from the environment: any length)."""
    return repr(name) if len(name) <= 40 else f"{name[:40]!r}... ({len(name)} characters)"


def _load(str name):
    for bname, needs, modname, key in BACKENDS + EMULATED:
        if bname == name:
            break
    else:
        raise ImportError(f"unknown poly1305x backend {_shown(name)}; usable here: "
                          f"{', '.join(backends() + emulated_backends())}")
    missing = [f for f in needs if f not in _FEATURES]
    if missing:
        raise ImportError(
            f"poly1305x backend {name!r} needs CPU features {', '.join(missing)}, which "
            f"this CPU or OS lacks; usable here: {', '.join(backends())}")
    if importlib.util.find_spec(modname) is None:
        raise ImportError(
            f"poly1305x backend {name!r} was not built into this install "
            f"(no {modname}); usable here: {', '.join(backends())}")
    # Only now, after the probe, is the ISA module imported.
    mod = importlib.import_module(modname)
    cap = mod.kernel_tables()[key]
    if not PyCapsule_IsValid(cap, P1305X_KERNEL_CAPSULE):
        raise ImportError(f"{modname} returned no kernel table for {name!r}")
    # The name objects report (their .backend) is the registry's, written
    # here: a kernel module need not spell it (one (module, table) pair per
    # entry, tests/packaging/test_registry_readers.py).
    label = _labels.setdefault(name, name.encode())
    (<kernel_table*>PyCapsule_GetPointer(cap, P1305X_KERNEL_CAPSULE)).name = label
    _self_test(name, _maybe_broken(name, <const kernel_table*>PyCapsule_GetPointer(
        cap, P1305X_KERNEL_CAPSULE)))
    _tables[name] = cap
    return cap


def set_backend(str name):
    """Make ``name`` the backend of every object created from now on.

    Objects that exist keep the backend they were created with; a call from
    another thread at the same time gets the table before or after the switch,
    never a mix (backend() can lag that by the switch itself).  Raises
    ImportError for a name that is unknown or not usable on this CPU."""
    global _active, _active_name
    with _lock:
        cap = _tables.get(name) or _load(name)
        p1305x_store_table(&_active, <const kernel_table*>PyCapsule_GetPointer(cap, P1305X_KERNEL_CAPSULE))
        _active_name = name


# --- Known-answer self-test, run once per backend when it is first selected --
# RFC 8439 section 2.5.2 (Poly1305) and 2.3.2 (ChaCha20 block function).  Long
# inputs, which reach the vector loops, are compared against the portable loop.
# (poly1305x/_kernels/_vectors.py: the one copy, shared with the tests.)
_POLY_KEY = _vectors.POLY1305_2_5_2["key"]
_POLY_MSG = _vectors.POLY1305_2_5_2["msg"]
_POLY_TAG = _vectors.POLY1305_2_5_2["tag"]
_CHACHA_KEY = _vectors.CHACHA20_BLOCK_2_3_2["key"]
_CHACHA_NONCE = _vectors.CHACHA20_BLOCK_2_3_2["nonce"]
_CHACHA_BLOCK1 = _vectors.CHACHA20_BLOCK_2_3_2["block"]


cdef bytes _mac_with(const kernel_table* k, bytes key, bytes msg):
    cdef poly1305_state st
    cdef uint8_t block[16]
    cdef uint8_t tag[16]
    cdef const uint8_t* m = msg
    cdef size_t n = len(msg)
    poly1305_init(&st, key, (<const uint8_t*>key) + 16)
    k.poly1305_blocks(&st, m, n // 16, 1)
    if n % 16:
        memset(block, 0, 16)
        memcpy(block, m + n - n % 16, n % 16)
        block[n % 16] = 1
        k.poly1305_blocks(&st, block, 1, 0)
    poly1305_finish(&st, tag)
    return PyBytes_FromStringAndSize(<char*>tag, 16)


cdef bytes _chacha_with(const kernel_table* k, bytes key, bytes nonce, size_t nblocks, uint32_t ctr):
    cdef uint32_t state[16]
    out = bytearray(64 * nblocks)
    cdef uint8_t* o = out
    chacha20_init_state(state, key, nonce, 12, ctr)
    k.chacha20_xor(state, NULL, o, nblocks)
    return bytes(out)


include "_selftest.pxi"


def _select_at_import():
    name = os.environ.get("POLY1305X_BACKEND", "").strip()
    if name:
        try:
            set_backend(name)
        except ImportError as exc:
            # poly1305x/__init__.py shows this one line without the frames.
            shown = name if len(name) <= 40 else name[:40] + "..."
            raise ImportError(f"POLY1305X_BACKEND={shown}: {exc}") from None
    else:
        set_backend(backends()[0])


_select_at_import()
