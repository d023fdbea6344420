# Poly1305 AVX512 kernel (included by _x86_avx512.pyx).
# PLACEHOLDER until the vector loop lands: hands every block to the scalar loop.
cdef void poly1305_blocks_avx512(poly1305_state* st, const uint8_t* m,
                                size_t nblocks, uint64_t hibit) noexcept nogil:
    poly1305_blocks_portable(st, m, nblocks, hibit)
