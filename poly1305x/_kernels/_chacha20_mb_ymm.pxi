# Multi-buffer ChaCha20 on ymm registers, one message per 32-bit lane (8
# lanes): the key streams of a batch of short messages (_core/_batch.pxi).
# Included by _x86_avx2.pyx and _x86_avx512.pyx after their _chacha20_*.pxi,
# whose _chacha8_dround (with that instruction set's rotates) and
# _chacha8_transpose it uses.
#
# Unlike _chacha8_blocks, where the 8 lanes are 8 consecutive blocks of one
# message, here lane j is message j: its own key and nonce, so the input
# words are per lane (transposed once, on entry, into mb_in[word][lane]), and
# step i computes block i of every lane (counter word 12 + i).  Block 0 (the
# Poly1305 key) and the data blocks are thus computed together.  A lane that
# needs fewer blocks than the longest in its group stores nothing for the
# later steps; the block counts are public (message lengths), so branching on
# them leaks nothing.


cdef inline void _mb8_store(uint8_t* const* out, const uint32_t* nblocks, size_t lane,
                            uint32_t blk, __m256i lo, __m256i hi) noexcept nogil:
    # Block blk of one lane: its first 32 bytes in lo, the last 32 in hi.
    if blk < nblocks[lane]:
        _mm256_storeu_si256(<__m256i*>(out[lane] + 64 * <size_t>blk), lo)
        _mm256_storeu_si256(<__m256i*>(out[lane] + 64 * <size_t>blk + 32), hi)


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


cdef inline uint32_t mb_gather(const uint32_t* states, size_t nlanes, size_t width,
                               uint32_t* mb_in, uint8_t** out, uint32_t* nblocks,
                               uint8_t* const* out_in,
                               const uint32_t* nblocks_in) noexcept nogil:
    # Transpose nlanes (<= width) input blocks into mb_in[word * width + lane]
    # and pad the lanes past nlanes (no blocks, no output); returns the
    # largest block count.
    cdef size_t j, w
    cdef uint32_t steps = 0
    for j in range(width):
        if j < nlanes:
            for w in range(16):
                mb_in[w * width + j] = states[16 * j + w]
            out[j] = out_in[j]
            nblocks[j] = nblocks_in[j]
            if nblocks[j] > steps:
                steps = nblocks[j]
        else:
            for w in range(16):
                mb_in[w * width + j] = 0
            out[j] = NULL
            nblocks[j] = 0
    return steps


cdef void chacha20_lanes_ymm(const uint32_t* states, size_t nlanes, uint8_t* const* out,
                             const uint32_t* nblocks) noexcept nogil:
    """The kernel_table entry chacha20_lanes (see _kernel.pxd), 8 lanes a step."""
    cdef uint32_t mb_in[128]
    cdef uint8_t* o[8]
    cdef uint32_t nb[8]
    cdef size_t g
    cdef uint32_t steps
    while nlanes:
        g = nlanes if nlanes < 8 else 8
        steps = mb_gather(states, g, 8, mb_in, o, nb, out, nblocks)
        _chacha8_lanes(mb_in, steps, o, nb)
        states += 16 * g
        out += g
        nblocks += g
        nlanes -= g
    wipe(mb_in, sizeof(mb_in))
