# cython: language_level=3
"""Little-endian loads and stores shared by every module (inlined where used).
Written byte by byte so that they are right on any host; GCC and Clang turn each
into one unaligned load or store on little-endian targets."""
from libc.stdint cimport uint8_t, uint32_t, uint64_t


cdef inline uint32_t load32_le(const uint8_t* p) noexcept nogil:
    return (<uint32_t>p[0] | (<uint32_t>p[1] << 8) | (<uint32_t>p[2] << 16)
            | (<uint32_t>p[3] << 24))


cdef inline uint64_t load64_le(const uint8_t* p) noexcept nogil:
    return <uint64_t>load32_le(p) | (<uint64_t>load32_le(p + 4) << 32)


cdef inline void store32_le(uint8_t* p, uint32_t v) noexcept nogil:
    p[0] = <uint8_t>v
    p[1] = <uint8_t>(v >> 8)
    p[2] = <uint8_t>(v >> 16)
    p[3] = <uint8_t>(v >> 24)


cdef inline void store64_le(uint8_t* p, uint64_t v) noexcept nogil:
    store32_le(p, <uint32_t>v)
    store32_le(p + 4, <uint32_t>(v >> 32))
