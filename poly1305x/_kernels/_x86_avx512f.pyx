# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""AVX-512F kernels for CPUs without IFMA (Skylake-SP, Cascade Lake).  Compiled
with AVX-512F/VL flags and without -mavx512ifma, so the compiler cannot emit
an IFMA instruction: import only after the CPU check (poly1305x._core._dispatch
does that).  Each algorithm's kernel lives in its own include file; this module
assembles the backend table."""
from cpython.pycapsule cimport PyCapsule_New
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from poly1305x._kernels._kernel cimport (
    P1305X_KERNEL_CAPSULE, P1305X_POWERS_WORDS, kernel_table, poly1305_state,
)
from poly1305x._kernels._portable cimport chacha20_xor_portable, poly1305_blocks_portable
from poly1305x._kernels._simd cimport *
from poly1305x._kernels._util cimport load32_le, load64_le, store32_le, store64_le

# radix 2^26: the AVX2 kernel's powers of r and helpers, then the zmm kernel
# and the zmm lanes
include "_poly1305_avx2.pxi"
include "_poly1305_avx512f.pxi"
include "_poly1305_mb_avx512f.pxi"
# the AVX-512 ChaCha20 (AVX-512F/VL only: no IFMA in it)
include "_chacha20_avx512.pxi"
include "_chacha20_mb_common.pxi"
include "_chacha20_mb_ymm.pxi"
include "_chacha20_mb_avx512.pxi"

cdef kernel_table TABLE
TABLE.poly1305_blocks = poly1305_blocks_avx512f
TABLE.chacha20_xor = chacha20_xor_avx512
TABLE.chacha20_lanes = chacha20_lanes_avx512
TABLE.poly1305_lanes = poly1305_lanes_avx512f
TABLE.lanes_max_blocks = 17          # 1 KiB


def kernel_tables():
    """{backend name: PyCapsule holding its kernel_table} for this module."""
    return {"avx512f": PyCapsule_New(<void*>&TABLE, P1305X_KERNEL_CAPSULE, NULL)}
