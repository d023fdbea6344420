# cython: language_level=3
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from poly1305x._kernels._kernel cimport poly1305_state

# Scalar loops: the portable backends, and the short-input/tail path of the
# vector backends.
cdef void poly1305_blocks_portable(poly1305_state* st, const uint8_t* m,
                                   size_t nblocks, uint64_t hibit) noexcept nogil
cdef void poly1305_blocks_portable26(poly1305_state* st, const uint8_t* m,
                                     size_t nblocks, uint64_t hibit) noexcept nogil
cdef void chacha20_xor_portable(uint32_t* state16, const uint8_t* src,
                                uint8_t* dst, size_t nblocks) noexcept nogil

cdef void chacha20_xor_vec4(uint32_t* state16, const uint8_t* src, uint8_t* dst,
                            size_t nblocks) noexcept nogil
cdef void chacha20_lanes_vec4(const uint32_t* states, size_t nlanes, uint8_t* const* out,
                              const uint32_t* nblocks) noexcept nogil
