# ChaCha20 on ymm registers, shared by the AVX2 and AVX-512 modules: included
# by _chacha20_avx2.pxi and _chacha20_avx512.pxi, each of which defines the
# four rotates _chacha8_rotl16/12/8/7 for its instruction set (AVX2 has no
# rotate: byte shuffles and shift pairs; AVX-512VL has vprold).
#
# Vertical kernel (8 blocks): x[i] holds word i of the ChaCha state of 8
# consecutive blocks, one block per 32-bit lane, so the twenty rounds run with
# no shuffling of words between lanes.  The blocks then leave the registers
# through a 4x4 32-bit transpose inside each 128-bit lane and a regrouping of
# the 128-bit lanes, and are XORed into the message with unaligned loads and
# stores.
#
# Horizontal kernel (1-4 blocks, short messages and tails): each ymm holds one
# row of two blocks; bound by latency rather than throughput.
#
# The block counter is the 64-bit number in state words 12 (low) and 13 (high):
# lane j of a batch gets ctr + j with the carry out of word 12 into word 13
# computed per lane, so a batch that straddles 2^32 is right.  A final batch of
# 5-7 blocks is generated into a stack buffer, XORed, and the buffer wiped.
#
# The helpers take the state as an array and word indices; every call passes
# constants, so once inlined the compiler keeps each word in its own register,
# as if the rounds were written out.


cdef inline void _chacha8_out(const uint8_t* src, uint8_t* dst, size_t off,
                              __m256i ks) noexcept nogil:
    # 32 key-stream bytes to dst + off, XORed with src + off unless src is NULL
    # (src may equal dst: each 32 bytes are loaded before they are stored).
    if src != NULL:
        ks = _mm256_xor_si256(ks, _mm256_loadu_si256(<const __m256i*>(src + off)))
    _mm256_storeu_si256(<__m256i*>(dst + off), ks)


cdef inline void _chacha8_qr2(__m256i* x, int a0, int b0, int c0, int d0,
                              int a1, int b1, int c1, int d1) noexcept nogil:
    # Two quarter-rounds, (a0, b0, c0, d0) and (a1, b1, c1, d1), interleaved so
    # that every step has two independent operations.
    x[a0] = _mm256_add_epi32(x[a0], x[b0])
    x[a1] = _mm256_add_epi32(x[a1], x[b1])
    x[d0] = _chacha8_rotl16(_mm256_xor_si256(x[d0], x[a0]))
    x[d1] = _chacha8_rotl16(_mm256_xor_si256(x[d1], x[a1]))
    x[c0] = _mm256_add_epi32(x[c0], x[d0])
    x[c1] = _mm256_add_epi32(x[c1], x[d1])
    x[b0] = _chacha8_rotl12(_mm256_xor_si256(x[b0], x[c0]))
    x[b1] = _chacha8_rotl12(_mm256_xor_si256(x[b1], x[c1]))
    x[a0] = _mm256_add_epi32(x[a0], x[b0])
    x[a1] = _mm256_add_epi32(x[a1], x[b1])
    x[d0] = _chacha8_rotl8(_mm256_xor_si256(x[d0], x[a0]))
    x[d1] = _chacha8_rotl8(_mm256_xor_si256(x[d1], x[a1]))
    x[c0] = _mm256_add_epi32(x[c0], x[d0])
    x[c1] = _mm256_add_epi32(x[c1], x[d1])
    x[b0] = _chacha8_rotl7(_mm256_xor_si256(x[b0], x[c0]))
    x[b1] = _chacha8_rotl7(_mm256_xor_si256(x[b1], x[c1]))


cdef inline void _chacha8_dround(__m256i* x) noexcept nogil:
    # Column round, then diagonal round, on the 16 words x[0..15].
    _chacha8_qr2(x, 0, 4, 8, 12, 1, 5, 9, 13)
    _chacha8_qr2(x, 2, 6, 10, 14, 3, 7, 11, 15)
    _chacha8_qr2(x, 0, 5, 10, 15, 1, 6, 11, 12)
    _chacha8_qr2(x, 2, 7, 8, 13, 3, 4, 9, 14)


cdef inline void _chacha8_input(__m256i* x, const uint32_t* st, __m256i lo,
                                __m256i hi) noexcept nogil:
    # The input block of every lane: st broadcast, counter words lo and hi.
    cdef int k
    for k in range(16):
        x[k] = _mm256_set1_epi32(<int>st[k])
    x[12] = lo
    x[13] = hi


cdef inline void _chacha8_transpose(__m256i* x) noexcept nogil:
    # 4x4 transpose of 32-bit words inside each 128-bit lane of x[0..3]:
    # afterwards x[m], 128-bit lane k, holds the four words of block 4k+m.
    cdef __m256i t0 = _mm256_unpacklo_epi32(x[0], x[1])
    cdef __m256i t1 = _mm256_unpackhi_epi32(x[0], x[1])
    cdef __m256i t2 = _mm256_unpacklo_epi32(x[2], x[3])
    cdef __m256i t3 = _mm256_unpackhi_epi32(x[2], x[3])
    x[0] = _mm256_unpacklo_epi64(t0, t2)
    x[1] = _mm256_unpackhi_epi64(t0, t2)
    x[2] = _mm256_unpacklo_epi64(t1, t3)
    x[3] = _mm256_unpackhi_epi64(t1, t3)


cdef inline void _chacha8_out4(const uint8_t* src, uint8_t* dst, size_t off, __m256i a,
                               __m256i b, __m256i c, __m256i d) noexcept nogil:
    # Blocks m and 4+m (off = 64m) from the transposed words 0-3 (a), 4-7 (b),
    # 8-11 (c) and 12-15 (d): block m in the low 128-bit lanes, 4+m in the high.
    _chacha8_out(src, dst, off, _mm256_permute2x128_si256(a, b, 0x20))
    _chacha8_out(src, dst, off + 256, _mm256_permute2x128_si256(a, b, 0x31))
    _chacha8_out(src, dst, off + 32, _mm256_permute2x128_si256(c, d, 0x20))
    _chacha8_out(src, dst, off + 288, _mm256_permute2x128_si256(c, d, 0x31))


cdef void _chacha8_blocks(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                          uint8_t* dst, size_t nbatches) noexcept nogil:
    # nbatches x 8 blocks from the 64-bit counter ctr; src NULL: bare key stream.
    cdef __m256i x[16]
    cdef __m256i y[16]
    cdef __m256i base, lo, hi, carry
    cdef __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
    cdef int i, k
    while nbatches:
        # Counter words of lanes 0..7: ctr + lane as a 64-bit number.  The carry
        # out of the low word is the top bit of (a & b) | ((a | b) & ~(a + b)).
        base = _mm256_set1_epi32(<int><uint32_t>ctr)
        lo = _mm256_add_epi32(base, lane)
        carry = _mm256_or_si256(_mm256_and_si256(base, lane),
                                _mm256_andnot_si256(lo, _mm256_or_si256(base, lane)))
        hi = _mm256_add_epi32(_mm256_set1_epi32(<int><uint32_t>(ctr >> 32)),
                              _mm256_srli_epi32(carry, 31))
        _chacha8_input(x, st, lo, hi)
        for i in range(2):  # ten double rounds, unrolled five-fold
            _chacha8_dround(x)
            _chacha8_dround(x)
            _chacha8_dround(x)
            _chacha8_dround(x)
            _chacha8_dround(x)
        _chacha8_input(y, st, lo, hi)
        for k in range(16):
            x[k] = _mm256_add_epi32(x[k], y[k])
        for k in range(0, 16, 4):
            _chacha8_transpose(x + k)
        _chacha8_out4(src, dst, 0, x[0], x[4], x[8], x[12])
        _chacha8_out4(src, dst, 64, x[1], x[5], x[9], x[13])
        _chacha8_out4(src, dst, 128, x[2], x[6], x[10], x[14])
        _chacha8_out4(src, dst, 192, x[3], x[7], x[11], x[15])
        ctr += 8
        if src != NULL:
            src += 512
        dst += 512
        nbatches -= 1


cdef inline void _chacha8_diagonalize(__m256i* s) noexcept nogil:
    # Rows b, c, d of both states rotated so that column j of each becomes the
    # diagonal (a_j, b_j+1, c_j+2, d_j+3).
    s[1] = _mm256_shuffle_epi32(s[1], 0x39)
    s[5] = _mm256_shuffle_epi32(s[5], 0x39)
    s[2] = _mm256_shuffle_epi32(s[2], 0x4E)
    s[6] = _mm256_shuffle_epi32(s[6], 0x4E)
    s[3] = _mm256_shuffle_epi32(s[3], 0x93)
    s[7] = _mm256_shuffle_epi32(s[7], 0x93)


cdef inline void _chacha8_undiagonalize(__m256i* s) noexcept nogil:
    s[1] = _mm256_shuffle_epi32(s[1], 0x93)
    s[5] = _mm256_shuffle_epi32(s[5], 0x93)
    s[2] = _mm256_shuffle_epi32(s[2], 0x4E)
    s[6] = _mm256_shuffle_epi32(s[6], 0x4E)
    s[3] = _mm256_shuffle_epi32(s[3], 0x39)
    s[7] = _mm256_shuffle_epi32(s[7], 0x39)


cdef inline __m256i _chacha8_row(const uint32_t* w) noexcept nogil:
    # One row of two blocks: words w[0..3] in both 128-bit lanes.
    return _mm256_setr_epi32(<int>w[0], <int>w[1], <int>w[2], <int>w[3],
                             <int>w[0], <int>w[1], <int>w[2], <int>w[3])


cdef inline __m256i _chacha8_ctr_row(const uint32_t* st, uint64_t c0,
                                     uint64_t c1) noexcept nogil:
    # Row d of two blocks with 64-bit counters c0 (low lane) and c1 (high).
    return _mm256_setr_epi32(<int><uint32_t>c0, <int><uint32_t>(c0 >> 32), <int>st[14],
                             <int>st[15], <int><uint32_t>c1, <int><uint32_t>(c1 >> 32),
                             <int>st[14], <int>st[15])


cdef inline void _chacha8_h4(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                             uint8_t* dst, size_t nblocks) noexcept nogil:
    # 1-4 blocks, horizontal layout: s[0..3] are rows a, b, c, d of blocks 0
    # (low 128-bit lane) and 1 (high), s[4..7] those of blocks 2 and 3.  A
    # block's quarter-rounds form one dependency chain, so this finishes in
    # about the latency of a single block, where the vertical kernel needs the
    # throughput of eight.  Writes only nblocks blocks, no buffer.
    cdef __m256i s[8]
    cdef __m256i init[8]
    cdef int i, k
    for k in range(3):
        init[k] = _chacha8_row(st + 4 * k)
        init[4 + k] = init[k]
    init[3] = _chacha8_ctr_row(st, ctr, ctr + 1)
    init[7] = _chacha8_ctr_row(st, ctr + 2, ctr + 3)
    for k in range(8):
        s[k] = init[k]
    for i in range(10):
        _chacha8_qr2(s, 0, 1, 2, 3, 4, 5, 6, 7)
        _chacha8_diagonalize(s)
        _chacha8_qr2(s, 0, 1, 2, 3, 4, 5, 6, 7)
        _chacha8_undiagonalize(s)
    for k in range(8):
        s[k] = _mm256_add_epi32(s[k], init[k])
    # block 0: rows a, b, c, d of lane 0 of the first state; block 1: lane 1;
    # blocks 2 and 3 likewise from the second state.
    _chacha8_out(src, dst, 0, _mm256_permute2x128_si256(s[0], s[1], 0x20))
    _chacha8_out(src, dst, 32, _mm256_permute2x128_si256(s[2], s[3], 0x20))
    if nblocks > 1:
        _chacha8_out(src, dst, 64, _mm256_permute2x128_si256(s[0], s[1], 0x31))
        _chacha8_out(src, dst, 96, _mm256_permute2x128_si256(s[2], s[3], 0x31))
    if nblocks > 2:
        _chacha8_out(src, dst, 128, _mm256_permute2x128_si256(s[4], s[5], 0x20))
        _chacha8_out(src, dst, 160, _mm256_permute2x128_si256(s[6], s[7], 0x20))
    if nblocks > 3:
        _chacha8_out(src, dst, 192, _mm256_permute2x128_si256(s[4], s[5], 0x31))
        _chacha8_out(src, dst, 224, _mm256_permute2x128_si256(s[6], s[7], 0x31))


cdef inline void _chacha8_tail(uint32_t* state16, uint64_t ctr, const uint8_t* src,
                               uint8_t* dst, size_t nblocks, uint8_t* buf) noexcept nogil:
    # The last 0-7 blocks of a call, then the counter stored back.  buf is 512
    # bytes of the caller's stack: in the caller's frame, not this one's, so
    # that the compiler inlines this tail and the short-message path into it.
    cdef size_t off
    if nblocks > 4:
        # 5-7 blocks: one 8-block batch into the buffer, XORed, then wiped.
        _chacha8_blocks(state16, ctr, NULL, buf, 1)
        for off in range(0, 64 * nblocks, 32):
            _chacha8_out(src, dst, off, _mm256_loadu_si256(<const __m256i*>(buf + off)))
        wipe(buf, 512)
    elif nblocks:
        _chacha8_h4(state16, ctr, src, dst, nblocks)
    ctr += nblocks
    state16[12] = <uint32_t>ctr
    state16[13] = <uint32_t>(ctr >> 32)
