# Multi-buffer ChaCha20 on zmm registers, one message per 32-bit lane (16
# lanes); included by _x86_avx512.pyx after _chacha20_avx512.pxi (whose
# _chacha16_dround and _chacha16_transpose it uses) and _chacha20_mb_ymm.pxi
# (the 8-lane kernel, for groups of at most 8 messages).  Layout, store rule
# and group driver: _chacha20_mb_common.pxi; here the 16-lane group step and
# its gather in registers.


cdef inline void _mb16_store(uint8_t* const* out, const uint32_t* nblocks, size_t lane,
                             uint32_t blk, __m512i ks) noexcept nogil:
    cdef uint8_t* p = mb_block_out(out, nblocks, lane, blk)
    if p != NULL:
        _mm512_storeu_si512(p, ks)


cdef inline void _mb16_out4(uint8_t* const* out, const uint32_t* nblocks, size_t m,
                            uint32_t blk, __m512i a, __m512i b, __m512i c,
                            __m512i d) noexcept nogil:
    # Lanes m, 4 + m, 8 + m and 12 + m from the transposed words 0-3 (a), 4-7
    # (b), 8-11 (c) and 12-15 (d): a 4x4 transpose of the 128-bit lanes, as
    # in _chacha16_out4.
    cdef __m512i t0 = _mm512_shuffle_i32x4(a, b, 0x44)
    cdef __m512i t1 = _mm512_shuffle_i32x4(a, b, 0xEE)
    cdef __m512i t2 = _mm512_shuffle_i32x4(c, d, 0x44)
    cdef __m512i t3 = _mm512_shuffle_i32x4(c, d, 0xEE)
    _mb16_store(out, nblocks, m, blk, _mm512_shuffle_i32x4(t0, t2, 0x88))
    _mb16_store(out, nblocks, m + 4, blk, _mm512_shuffle_i32x4(t0, t2, 0xDD))
    _mb16_store(out, nblocks, m + 8, blk, _mm512_shuffle_i32x4(t1, t3, 0x88))
    _mb16_store(out, nblocks, m + 12, blk, _mm512_shuffle_i32x4(t1, t3, 0xDD))


cdef inline __m512i _mb16_in(const uint32_t* w) noexcept nogil:
    return _mm512_loadu_si512(w)


cdef void _chacha16_lanes(const uint32_t* mb_in, uint32_t steps, uint8_t* const* out,
                          const uint32_t* nblocks) noexcept nogil:
    # mb_in: 16 rows of 16 words (row w = word w of lanes 0-15).
    cdef __m512i x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15
    cdef __m512i ctr
    cdef uint32_t blk
    cdef int i
    for blk in range(steps):
        ctr = _mm512_add_epi32(_mb16_in(mb_in + 192), _mm512_set1_epi32(<int>blk))
        x0 = _mb16_in(mb_in)
        x1 = _mb16_in(mb_in + 16)
        x2 = _mb16_in(mb_in + 32)
        x3 = _mb16_in(mb_in + 48)
        x4 = _mb16_in(mb_in + 64)
        x5 = _mb16_in(mb_in + 80)
        x6 = _mb16_in(mb_in + 96)
        x7 = _mb16_in(mb_in + 112)
        x8 = _mb16_in(mb_in + 128)
        x9 = _mb16_in(mb_in + 144)
        x10 = _mb16_in(mb_in + 160)
        x11 = _mb16_in(mb_in + 176)
        x12 = ctr
        x13 = _mb16_in(mb_in + 208)
        x14 = _mb16_in(mb_in + 224)
        x15 = _mb16_in(mb_in + 240)
        for i in range(2):
            _chacha16_dround(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7,
                             &x8, &x9, &x10, &x11, &x12, &x13, &x14, &x15)
            _chacha16_dround(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7,
                             &x8, &x9, &x10, &x11, &x12, &x13, &x14, &x15)
            _chacha16_dround(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7,
                             &x8, &x9, &x10, &x11, &x12, &x13, &x14, &x15)
            _chacha16_dround(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7,
                             &x8, &x9, &x10, &x11, &x12, &x13, &x14, &x15)
            _chacha16_dround(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7,
                             &x8, &x9, &x10, &x11, &x12, &x13, &x14, &x15)
        x0 = _mm512_add_epi32(x0, _mb16_in(mb_in))
        x1 = _mm512_add_epi32(x1, _mb16_in(mb_in + 16))
        x2 = _mm512_add_epi32(x2, _mb16_in(mb_in + 32))
        x3 = _mm512_add_epi32(x3, _mb16_in(mb_in + 48))
        x4 = _mm512_add_epi32(x4, _mb16_in(mb_in + 64))
        x5 = _mm512_add_epi32(x5, _mb16_in(mb_in + 80))
        x6 = _mm512_add_epi32(x6, _mb16_in(mb_in + 96))
        x7 = _mm512_add_epi32(x7, _mb16_in(mb_in + 112))
        x8 = _mm512_add_epi32(x8, _mb16_in(mb_in + 128))
        x9 = _mm512_add_epi32(x9, _mb16_in(mb_in + 144))
        x10 = _mm512_add_epi32(x10, _mb16_in(mb_in + 160))
        x11 = _mm512_add_epi32(x11, _mb16_in(mb_in + 176))
        x12 = _mm512_add_epi32(x12, ctr)
        x13 = _mm512_add_epi32(x13, _mb16_in(mb_in + 208))
        x14 = _mm512_add_epi32(x14, _mb16_in(mb_in + 224))
        x15 = _mm512_add_epi32(x15, _mb16_in(mb_in + 240))
        _chacha16_transpose(&x0, &x1, &x2, &x3)
        _chacha16_transpose(&x4, &x5, &x6, &x7)
        _chacha16_transpose(&x8, &x9, &x10, &x11)
        _chacha16_transpose(&x12, &x13, &x14, &x15)
        _mb16_out4(out, nblocks, 0, blk, x0, x4, x8, x12)
        _mb16_out4(out, nblocks, 1, blk, x1, x5, x9, x13)
        _mb16_out4(out, nblocks, 2, blk, x2, x6, x10, x14)
        _mb16_out4(out, nblocks, 3, blk, x3, x7, x11, x15)


cdef inline void _mb16_rows4(uint32_t* mb_in, size_t m, __m512i a, __m512i b, __m512i c,
                             __m512i d) noexcept nogil:
    # The second half of the 16x16 transpose, as _mb16_out4: rows m, 4 + m,
    # 8 + m and 12 + m of mb_in.
    cdef __m512i t0 = _mm512_shuffle_i32x4(a, b, 0x44)
    cdef __m512i t1 = _mm512_shuffle_i32x4(a, b, 0xEE)
    cdef __m512i t2 = _mm512_shuffle_i32x4(c, d, 0x44)
    cdef __m512i t3 = _mm512_shuffle_i32x4(c, d, 0xEE)
    _mm512_storeu_si512(mb_in + 16 * m, _mm512_shuffle_i32x4(t0, t2, 0x88))
    _mm512_storeu_si512(mb_in + 16 * (m + 4), _mm512_shuffle_i32x4(t0, t2, 0xDD))
    _mm512_storeu_si512(mb_in + 16 * (m + 8), _mm512_shuffle_i32x4(t1, t3, 0x88))
    _mm512_storeu_si512(mb_in + 16 * (m + 12), _mm512_shuffle_i32x4(t1, t3, 0xDD))


cdef inline __m512i _mb16_state(const uint32_t* const* src, size_t lane) noexcept nogil:
    if src[lane] != NULL:
        return _mm512_loadu_si512(src[lane])
    return _mm512_setzero_si512()


cdef inline void _mb16_gather(const uint32_t* const* src, uint32_t* mb_in) noexcept nogil:
    # The gather for 16 lanes in registers: a lane's input block is one zmm,
    # and the transpose of the output side (the same network: a transpose
    # is its own inverse) turns lane-major into word-major rows.
    cdef __m512i v0 = _mb16_state(src, 0), v1 = _mb16_state(src, 1)
    cdef __m512i v2 = _mb16_state(src, 2), v3 = _mb16_state(src, 3)
    cdef __m512i v4 = _mb16_state(src, 4), v5 = _mb16_state(src, 5)
    cdef __m512i v6 = _mb16_state(src, 6), v7 = _mb16_state(src, 7)
    cdef __m512i v8 = _mb16_state(src, 8), v9 = _mb16_state(src, 9)
    cdef __m512i v10 = _mb16_state(src, 10), v11 = _mb16_state(src, 11)
    cdef __m512i v12 = _mb16_state(src, 12), v13 = _mb16_state(src, 13)
    cdef __m512i v14 = _mb16_state(src, 14), v15 = _mb16_state(src, 15)
    _chacha16_transpose(&v0, &v1, &v2, &v3)
    _chacha16_transpose(&v4, &v5, &v6, &v7)
    _chacha16_transpose(&v8, &v9, &v10, &v11)
    _chacha16_transpose(&v12, &v13, &v14, &v15)
    _mb16_rows4(mb_in, 0, v0, v4, v8, v12)
    _mb16_rows4(mb_in, 1, v1, v5, v9, v13)
    _mb16_rows4(mb_in, 2, v2, v6, v10, v14)
    _mb16_rows4(mb_in, 3, v3, v7, v11, v15)


cdef void chacha20_lanes_avx512(const uint32_t* states, size_t nlanes, uint8_t* const* out,
                                const uint32_t* nblocks) noexcept nogil:
    """The kernel_table entry chacha20_lanes (see _kernel.pxd): 16 lanes a
    step, a last group of at most 8 on ymm."""
    mb_lanes(states, nlanes, out, nblocks, 16, _chacha16_lanes, _mb16_gather, <uint32_t>-1,
             NULL, 8, chacha20_lanes_ymm)
