# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Test build only: the NEON Poly1305 kernels of ``portable`` on aarch64 (the
one-message two-lane kernel and the multi-buffer one) compiled against SIMDe's
NEON (POLY1305X_NEON_SIMDE; Debian: libsimde-dev), so that an x86-64 host
runs their very intrinsics code in the normal test flow.  Its ChaCha20 is
``portable``'s (the compiler-vector one).  setup.py builds it only when
POLY1305X_SIMDE=1; it is never chosen by default (see _dispatch)."""
from cpython.pycapsule cimport PyCapsule_New
from libc.stdint cimport uint8_t, uint32_t, uint64_t

from poly1305x._kernels._common cimport wipe
from poly1305x._kernels._kernel cimport P1305X_KERNEL_CAPSULE, kernel_table, poly1305_state
from poly1305x._kernels._portable cimport (
    chacha20_lanes_vec4, chacha20_xor_vec4, poly1305_blocks_portable,
)
from poly1305x._kernels._util cimport load64_le

include "_poly1305_neon.pxi"
include "_poly1305_mb_neon.pxi"

cdef kernel_table TABLE
TABLE.poly1305_blocks = poly1305_blocks_lanes2
TABLE.chacha20_xor = chacha20_xor_vec4
TABLE.chacha20_lanes = chacha20_lanes_vec4
TABLE.poly1305_lanes = poly1305_lanes_neon2
TABLE.lanes_max_blocks = 5          # as portable's

#: "neon-2x26-simde": the NEON code on SIMDe's intrinsics.
POLY_KIND = P1305X_POLY_KIND.decode()


def kernel_tables():
    """{backend name: PyCapsule holding its kernel_table} for this module."""
    return {"neon-emu": PyCapsule_New(<void*>&TABLE, P1305X_KERNEL_CAPSULE, NULL)}
