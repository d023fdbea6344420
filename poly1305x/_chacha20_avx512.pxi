# ChaCha20 AVX512 kernel (included by _x86_avx512.pyx).
# PLACEHOLDER until the vector loop lands: hands every block to the scalar loop.
cdef void chacha20_xor_avx512(uint32_t* state16, const uint8_t* src,
                             uint8_t* dst, size_t nblocks) noexcept nogil:
    chacha20_xor_portable(state16, src, dst, nblocks)
