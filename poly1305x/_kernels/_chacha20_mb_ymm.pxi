# Multi-buffer ChaCha20 on ymm registers, one message per 32-bit lane (8
# lanes): the key streams of a batch of short messages (_core/_batch.pxi).
# Included by _x86_avx2.pyx and _x86_avx512.pyx after their _chacha20_*.pxi,
# whose _chacha8_dround (with that instruction set's rotates) and
# _chacha8_transpose it uses, and after _chacha20_mb_common.pxi (the layout,
# the store rule and the group driver; here only the 8-lane group step).
#
# Unlike _chacha8_blocks, where the 8 lanes are 8 consecutive blocks of one
# message, here lane j is message j: its own key and nonce, so the input
# words are per lane, and block 0 (the Poly1305 key) and the data blocks are
# computed together.


cdef inline void _mb8_store(uint8_t* const* out, const uint32_t* nblocks, size_t lane,
                            uint32_t blk, __m256i lo, __m256i hi) noexcept nogil:
    # Block blk of one lane: its first 32 bytes in lo, the last 32 in hi.
    cdef uint8_t* p = mb_block_out(out, nblocks, lane, blk)
    if p != NULL:
        _mm256_storeu_si256(<__m256i*>p, lo)
        _mm256_storeu_si256(<__m256i*>(p + 32), hi)


cdef inline void _mb8_out4(uint8_t* const* out, const uint32_t* nblocks, size_t m,
                           uint32_t blk, __m256i a, __m256i b, __m256i c,
                           __m256i d) noexcept nogil:
    # Lanes m (low 128-bit halves) and 4 + m (high halves) from the transposed
    # words 0-3 (a), 4-7 (b), 8-11 (c) and 12-15 (d).
    _mb8_store(out, nblocks, m, blk, _mm256_permute2x128_si256(a, b, 0x20),
               _mm256_permute2x128_si256(c, d, 0x20))
    _mb8_store(out, nblocks, m + 4, blk, _mm256_permute2x128_si256(a, b, 0x31),
               _mm256_permute2x128_si256(c, d, 0x31))


cdef inline __m256i _mb8_in(const uint32_t* w) noexcept nogil:
    return _mm256_loadu_si256(<const __m256i*>w)


cdef void _chacha8_lanes(const uint32_t* mb_in, uint32_t steps, uint8_t* const* out,
                         const uint32_t* nblocks) noexcept nogil:
    # mb_in: 16 rows of 8 words (row w = word w of lanes 0-7); steps: the
    # largest block count of the group.
    cdef __m256i x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15
    cdef __m256i ctr
    cdef uint32_t blk
    cdef int i
    for blk in range(steps):
        ctr = _mm256_add_epi32(_mb8_in(mb_in + 96), _mm256_set1_epi32(<int>blk))
        x0 = _mb8_in(mb_in)
        x1 = _mb8_in(mb_in + 8)
        x2 = _mb8_in(mb_in + 16)
        x3 = _mb8_in(mb_in + 24)
        x4 = _mb8_in(mb_in + 32)
        x5 = _mb8_in(mb_in + 40)
        x6 = _mb8_in(mb_in + 48)
        x7 = _mb8_in(mb_in + 56)
        x8 = _mb8_in(mb_in + 64)
        x9 = _mb8_in(mb_in + 72)
        x10 = _mb8_in(mb_in + 80)
        x11 = _mb8_in(mb_in + 88)
        x12 = ctr
        x13 = _mb8_in(mb_in + 104)
        x14 = _mb8_in(mb_in + 112)
        x15 = _mb8_in(mb_in + 120)
        for i in range(2):
            _chacha8_dround(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7,
                            &x8, &x9, &x10, &x11, &x12, &x13, &x14, &x15)
            _chacha8_dround(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7,
                            &x8, &x9, &x10, &x11, &x12, &x13, &x14, &x15)
            _chacha8_dround(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7,
                            &x8, &x9, &x10, &x11, &x12, &x13, &x14, &x15)
            _chacha8_dround(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7,
                            &x8, &x9, &x10, &x11, &x12, &x13, &x14, &x15)
            _chacha8_dround(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7,
                            &x8, &x9, &x10, &x11, &x12, &x13, &x14, &x15)
        x0 = _mm256_add_epi32(x0, _mb8_in(mb_in))
        x1 = _mm256_add_epi32(x1, _mb8_in(mb_in + 8))
        x2 = _mm256_add_epi32(x2, _mb8_in(mb_in + 16))
        x3 = _mm256_add_epi32(x3, _mb8_in(mb_in + 24))
        x4 = _mm256_add_epi32(x4, _mb8_in(mb_in + 32))
        x5 = _mm256_add_epi32(x5, _mb8_in(mb_in + 40))
        x6 = _mm256_add_epi32(x6, _mb8_in(mb_in + 48))
        x7 = _mm256_add_epi32(x7, _mb8_in(mb_in + 56))
        x8 = _mm256_add_epi32(x8, _mb8_in(mb_in + 64))
        x9 = _mm256_add_epi32(x9, _mb8_in(mb_in + 72))
        x10 = _mm256_add_epi32(x10, _mb8_in(mb_in + 80))
        x11 = _mm256_add_epi32(x11, _mb8_in(mb_in + 88))
        x12 = _mm256_add_epi32(x12, ctr)
        x13 = _mm256_add_epi32(x13, _mb8_in(mb_in + 104))
        x14 = _mm256_add_epi32(x14, _mb8_in(mb_in + 112))
        x15 = _mm256_add_epi32(x15, _mb8_in(mb_in + 120))
        _chacha8_transpose(&x0, &x1, &x2, &x3)
        _chacha8_transpose(&x4, &x5, &x6, &x7)
        _chacha8_transpose(&x8, &x9, &x10, &x11)
        _chacha8_transpose(&x12, &x13, &x14, &x15)
        _mb8_out4(out, nblocks, 0, blk, x0, x4, x8, x12)
        _mb8_out4(out, nblocks, 1, blk, x1, x5, x9, x13)
        _mb8_out4(out, nblocks, 2, blk, x2, x6, x10, x14)
        _mb8_out4(out, nblocks, 3, blk, x3, x7, x11, x15)


cdef void chacha20_lanes_ymm(const uint32_t* states, size_t nlanes, uint8_t* const* out,
                             const uint32_t* nblocks) noexcept nogil:
    """The kernel_table entry chacha20_lanes (see _kernel.pxd), 8 lanes a step."""
    mb_lanes(states, nlanes, out, nblocks, 8, _chacha8_lanes, NULL, <uint32_t>-1, NULL,
             0, NULL)
