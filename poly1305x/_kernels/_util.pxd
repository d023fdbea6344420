# cython: language_level=3
"""Little-endian loads and stores shared by every module: the one copy is
_le.h (single unaligned accesses through memcpy, byte-swapped on big-endian
targets), inlined where used."""
from libc.stdint cimport uint8_t, uint32_t, uint64_t

cdef extern from "_le.h" nogil:
    uint32_t load32_le "p1305x_le32_load"(const uint8_t* p) noexcept
    uint64_t load64_le "p1305x_le64_load"(const uint8_t* p) noexcept
    void store32_le "p1305x_le32_store"(uint8_t* p, uint32_t v) noexcept
    void store64_le "p1305x_le64_store"(uint8_t* p, uint64_t v) noexcept
