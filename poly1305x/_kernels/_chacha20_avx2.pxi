# ChaCha20 AVX2 kernels (included by _x86_avx2.pyx): the shared ymm kernels of
# _chacha20_ymm.pxi with AVX2 rotates.  AVX2 has no rotate instruction:
# rotations by 16 and 8 are byte shuffles (vpshufb), by 12 and 7 a shift pair
# and an OR.  Whole batches of 8 blocks, and a final 7, use the vertical
# kernel, the rest the tail of _chacha20_ymm.pxi.
from poly1305x._kernels._common cimport wipe


cdef inline __m256i _chacha8_rotl16(__m256i v) noexcept nogil:
    return _mm256_shuffle_epi8(v, _mm256_setr_epi8(
        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13))


cdef inline __m256i _chacha8_rotl12(__m256i v) noexcept nogil:
    return _mm256_or_si256(_mm256_slli_epi32(v, 12), _mm256_srli_epi32(v, 20))


cdef inline __m256i _chacha8_rotl8(__m256i v) noexcept nogil:
    return _mm256_shuffle_epi8(v, _mm256_setr_epi8(
        3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14,
        3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14))


cdef inline __m256i _chacha8_rotl7(__m256i v) noexcept nogil:
    return _mm256_or_si256(_mm256_slli_epi32(v, 7), _mm256_srli_epi32(v, 25))


include "_chacha20_ymm.pxi"


cdef void chacha20_xor_avx2(uint32_t* state16, const uint8_t* src,
                            uint8_t* dst, size_t nblocks) noexcept nogil:
    cdef uint64_t ctr = <uint64_t>state16[12] | (<uint64_t>state16[13] << 32)
    # The blocks of the vertical kernel: the whole batches, and a final 7
    # blocks as one more batch (n is then odd); the 1-6 past them go to the tail.
    cdef size_t n = (nblocks + 1) & ~(<size_t>7)
    if n > nblocks:
        n = nblocks
    if n:
        _chacha8_blocks(state16, ctr, src, dst, (n + 1) >> 3, n & 1)
        ctr += n
        dst += 64 * n
        if src != NULL:
            src += 64 * n
    _chacha8_tail(state16, ctr, src, dst, nblocks - n)
