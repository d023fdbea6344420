# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Portable kernels: scalar Poly1305 (base 2^64, and 26-bit limbs for targets
without a 64x64->128 multiply), a 2-lane Poly1305 on NEON (aarch64 only), and
ChaCha20 one block at a time or four/eight blocks on compiler vectors (on
x86-64 four plus one in scalar registers).  Built with no ISA flags (only the
target's baseline ISA), so this module is safe to import on any CPU."""
from cpython.pycapsule cimport PyCapsule_New
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

from poly1305x._kernels._common cimport chacha20_rounds, rotl, wipe
from poly1305x._kernels._kernel cimport (
    P1305X_KERNEL_CAPSULE, kernel_table, poly1305_state,
)
from poly1305x._kernels._util cimport load32_le, load64_le, store32_le, store64_le


include "_poly1305_portable.pxi"
include "_poly1305_neon.pxi"
include "_poly1305_mb_neon.pxi"
include "_chacha20_portable.pxi"


include "_chacha20_mb_common.pxi"
include "_chacha20_mb_vec4.pxi"
include "_poly1305_mb_portable.pxi"


# ---------------------------------------------------------------------------
# Backend tables
# ---------------------------------------------------------------------------
# portable: what a CPU without our x86 SIMD modules gets; its Poly1305 is the
# 2-lane NEON kernel on aarch64 (a batch's tags: two messages at once, one a
# lane) and the scalar base-2^64 loop elsewhere.
# portable26: the same ChaCha20 with the 26-bit Poly1305 (compilers without a
# 64x64->128 multiply).  scalar: no vector code at all (ChaCha20 in scalar
# lanes, as MSVC builds it; the scalar base-2^64 Poly1305 everywhere).
cdef kernel_table TABLE_PORTABLE
if P1305X_USE_LANES2:
    TABLE_PORTABLE.poly1305_blocks = poly1305_blocks_lanes2
else:
    TABLE_PORTABLE.poly1305_blocks = poly1305_blocks_portable
TABLE_PORTABLE.chacha20_xor = chacha20_xor_vec4
TABLE_PORTABLE.chacha20_lanes = chacha20_lanes_vec4
if P1305X_USE_LANES2:
    TABLE_PORTABLE.poly1305_lanes = poly1305_lanes_neon2
else:
    TABLE_PORTABLE.poly1305_lanes = poly1305_lanes_portable
TABLE_PORTABLE.lanes_max_blocks = 5     # 256 B: longer, the 4 + 1 block steps win

cdef kernel_table TABLE_PORTABLE26
TABLE_PORTABLE26.poly1305_blocks = poly1305_blocks_portable26
TABLE_PORTABLE26.chacha20_xor = chacha20_xor_vec4
TABLE_PORTABLE26.chacha20_lanes = chacha20_lanes_vec4
TABLE_PORTABLE26.poly1305_lanes = poly1305_lanes_portable26
TABLE_PORTABLE26.lanes_max_blocks = 5

cdef kernel_table TABLE_SCALAR
TABLE_SCALAR.poly1305_blocks = poly1305_blocks_portable
TABLE_SCALAR.chacha20_xor = chacha20_xor_scalar4
TABLE_SCALAR.chacha20_lanes = chacha20_lanes_scalar4
TABLE_SCALAR.poly1305_lanes = poly1305_lanes_portable
TABLE_SCALAR.lanes_max_blocks = 17      # 1 KiB

# The vector ChaCha20's big step: the build's (P1305X_VEC_STEP_BLOCKS), until
# _tune lowers the x86-64 4 + 1 step to 4 for this CPU.
cdef int vec_step = P1305X_VEC_STEP_BLOCKS


def vec_step_blocks():
    """Blocks per big step of the portable backends' vector ChaCha20 on this
    CPU: 8 (aarch64, POWER, scalar lanes), 5 (x86-64 with AVX2: 4 in vectors
    and 1 in scalar registers) or 4 (other x86)."""
    return vec_step


def _set_vec_step_blocks(int n):
    """4-block steps (4) or the build's own (5 on x86-64): set by _tune for
    this CPU, and by the tests, so that both shapes are tested on any CPU."""
    global vec_step
    if n != 4 and n != P1305X_VEC_STEP_BLOCKS:
        raise ValueError(f"step must be 4 or {P1305X_VEC_STEP_BLOCKS}")
    vec_step = n


def _tune(features):
    """This CPU's step, from the dispatcher's CPU probe (``features``: the
    names it found, the one place the CPU is read).  On x86-64 the 4 + 1 step
    is taken only where the scalar block runs beside the vector code: on CPUs
    with AVX2 (Haswell and later, Zen), which have integer ports of their own
    and dispatch width to spare.  Older and smaller cores (Nehalem to Ivy
    Bridge, Atom, Jaguar) issue integer and vector work through the same few
    ports, and keep 4-block steps (docs/backends.md)."""
    if vec_step == 5 and "avx2" not in features:
        _set_vec_step_blocks(4)


#: True when the base-2^64 loop has a native 64x64->128 multiply.
HAVE_INT128 = bool(P1305X_HAVE_INT128)
#: True when ChaCha20 of the portable backends runs on vector registers.
HAVE_VEC = bool(P1305X_HAVE_VEC)
#: How: "gnu-vector" (GCC/Clang generic vectors), "sse2-intrinsics" (MSVC x64)
#: or "scalar-lanes" (no vector code).
VEC_KIND = P1305X_VEC_KIND.decode()
#: True on aarch64 builds, whose ``portable`` Poly1305 is the 2-lane NEON kernel.
HAVE_NEON_POLY = bool(P1305X_HAVE_NEON_POLY)
#: The ``portable`` backend's Poly1305: "neon-2x26" (two NEON lanes of 26-bit
#: limbs, aarch64) or "scalar-64" (the scalar base-2^64 loop, everywhere else);
#: "lanes2-emulated" only in development builds with POLY1305X_LANES2_EMULATE.
POLY_KIND = P1305X_POLY_KIND.decode()
#: The ``portable`` backend's Poly1305 of a batch (its poly1305_lanes entry):
#: "neon-2x26-lanes" (two messages at once, one a NEON lane: aarch64, and
#: development builds with POLY1305X_LANES2_EMULATE) or "one-by-one" (each
#: message on the one-message loop).
POLY_LANES_KIND = ("neon-2x26-lanes" if TABLE_PORTABLE.poly1305_lanes == poly1305_lanes_neon2
                   else "one-by-one")


def kernel_tables():
    """{backend name: PyCapsule holding its kernel_table} for this module."""
    return {
        "portable": PyCapsule_New(<void*>&TABLE_PORTABLE, P1305X_KERNEL_CAPSULE, NULL),
        "portable26": PyCapsule_New(<void*>&TABLE_PORTABLE26, P1305X_KERNEL_CAPSULE, NULL),
        "scalar": PyCapsule_New(<void*>&TABLE_SCALAR, P1305X_KERNEL_CAPSULE, NULL),
    }
