# ChaCha20 on ymm registers, shared by the AVX2 and AVX-512 modules: included
# by _chacha20_avx2.pxi and _chacha20_avx512.pxi, each of which defines the
# four rotates _chacha8_rotl16/12/8/7 for its instruction set (AVX2 has no
# rotate: byte shuffles and shift pairs; AVX-512VL has vprold).
#
# Vertical kernel (8 blocks): x(i) holds word i of the ChaCha state of 8
# consecutive blocks, one block per 32-bit lane, so the twenty rounds run with
# no shuffling of words between lanes.  The blocks then leave the registers
# through a 4x4 32-bit transpose inside each 128-bit lane and a regrouping of
# the 128-bit lanes, and are XORed into the message with unaligned loads and
# stores.
#
# Horizontal kernel (1-6 blocks, short messages and tails): each ymm holds one
# row of two blocks; bound by latency rather than throughput.
#
# The block counter is the 64-bit number in state words 12 (low) and 13 (high):
# lane j of a batch gets ctr + j with the carry out of word 12 into word 13
# computed per lane, so a batch that straddles 2^32 is right.  A final batch of
# 7 blocks runs as a batch of 8 whose block 7 is not stored.  (It used to be
# generated into a stack buffer, XORed from there and the buffer wiped: on
# Zen 4 that cost 7 blocks more than 8, about 10-30 ns.)
#
# The helpers take pointers to the kernels' local variables; once inlined, the
# compiler keeps each word in its own register, exactly as if the rounds were
# written out.  (Locals, not an array: with an array GCC 12 allocates
# registers differently and the 16-block kernel ran about 3 % slower.)  The
# exception is deliberate: AVX2 has 16 ymm registers, so the 8-block kernel
# keeps two of the four c words, and the input words for the feed-forward,
# in volatile stack slots of its own (_chacha8_dround_spill), which is
# cheaper than the spills GCC chooses around the rounds' loop.


cdef inline void _chacha8_out(const uint8_t* src, uint8_t* dst, size_t off,
                              __m256i ks) noexcept nogil:
    # 32 key-stream bytes to dst + off, XORed with src + off unless src is NULL
    # (src may equal dst: each 32 bytes are loaded before they are stored).
    if src != NULL:
        ks = _mm256_xor_si256(ks, _mm256_loadu_si256(<const __m256i*>(src + off)))
    _mm256_storeu_si256(<__m256i*>(dst + off), ks)


cdef inline void _chacha8_qr2(__m256i* a0, __m256i* b0, __m256i* c0, __m256i* d0,
                              __m256i* a1, __m256i* b1, __m256i* c1,
                              __m256i* d1) noexcept nogil:
    # Two quarter-rounds, (a0, b0, c0, d0) and (a1, b1, c1, d1), interleaved so
    # that every step has two independent operations.
    a0[0] = _mm256_add_epi32(a0[0], b0[0])
    a1[0] = _mm256_add_epi32(a1[0], b1[0])
    d0[0] = _chacha8_rotl16(_mm256_xor_si256(d0[0], a0[0]))
    d1[0] = _chacha8_rotl16(_mm256_xor_si256(d1[0], a1[0]))
    c0[0] = _mm256_add_epi32(c0[0], d0[0])
    c1[0] = _mm256_add_epi32(c1[0], d1[0])
    b0[0] = _chacha8_rotl12(_mm256_xor_si256(b0[0], c0[0]))
    b1[0] = _chacha8_rotl12(_mm256_xor_si256(b1[0], c1[0]))
    a0[0] = _mm256_add_epi32(a0[0], b0[0])
    a1[0] = _mm256_add_epi32(a1[0], b1[0])
    d0[0] = _chacha8_rotl8(_mm256_xor_si256(d0[0], a0[0]))
    d1[0] = _chacha8_rotl8(_mm256_xor_si256(d1[0], a1[0]))
    c0[0] = _mm256_add_epi32(c0[0], d0[0])
    c1[0] = _mm256_add_epi32(c1[0], d1[0])
    b0[0] = _chacha8_rotl7(_mm256_xor_si256(b0[0], c0[0]))
    b1[0] = _chacha8_rotl7(_mm256_xor_si256(b1[0], c1[0]))


cdef inline void _chacha8_dround(
        __m256i* x0, __m256i* x1, __m256i* x2, __m256i* x3, __m256i* x4, __m256i* x5,
        __m256i* x6, __m256i* x7, __m256i* x8, __m256i* x9, __m256i* x10, __m256i* x11,
        __m256i* x12, __m256i* x13, __m256i* x14, __m256i* x15) noexcept nogil:
    # Column round, then diagonal round.
    _chacha8_qr2(x0, x4, x8, x12, x1, x5, x9, x13)
    _chacha8_qr2(x2, x6, x10, x14, x3, x7, x11, x15)
    _chacha8_qr2(x0, x5, x10, x15, x1, x6, x11, x12)
    _chacha8_qr2(x2, x7, x8, x13, x3, x4, x9, x14)


cdef inline void _chacha8_swap_c(__m256i* ca, __m256i* cb,
                                 volatile __m256i* mem) noexcept nogil:
    # Trade the two c words in registers for the two kept in memory.
    cdef __m256i n0 = mem[0]
    cdef __m256i n1 = mem[1]
    mem[0] = ca[0]
    mem[1] = cb[0]
    ca[0] = n0
    cb[0] = n1


cdef inline void _chacha8_dround_spill(
        __m256i* x0, __m256i* x1, __m256i* x2, __m256i* x3, __m256i* x4, __m256i* x5,
        __m256i* x6, __m256i* x7, __m256i* ca, __m256i* cb, __m256i* x12, __m256i* x13,
        __m256i* x14, __m256i* x15, volatile __m256i* mem) noexcept nogil:
    # The double round with two of the four c words (8-11) on the stack: AVX2
    # has 16 ymm registers, and 16 words plus the rotates' temporaries do not
    # fit, so rather than leave the spilling to the compiler (which spills
    # around the loop's back edge) two c words at a time live in memory, the
    # ones the next two quarter-rounds do not touch.  On entry and exit ca, cb
    # hold words 8, 9 and mem words 10, 11.
    _chacha8_qr2(x0, x4, ca, x12, x1, x5, cb, x13)
    _chacha8_swap_c(ca, cb, mem)                    # ca, cb = 10, 11
    _chacha8_qr2(x2, x6, ca, x14, x3, x7, cb, x15)
    _chacha8_qr2(x0, x5, ca, x15, x1, x6, cb, x12)
    _chacha8_swap_c(ca, cb, mem)                    # ca, cb = 8, 9
    _chacha8_qr2(x2, x7, ca, x13, x3, x4, cb, x14)


cdef inline void _chacha8_transpose(__m256i* x0, __m256i* x1, __m256i* x2,
                                    __m256i* x3) noexcept nogil:
    # 4x4 transpose of 32-bit words inside each 128-bit lane: afterwards x(m),
    # 128-bit lane k, holds the four words (of a row) of block 4k+m.
    cdef __m256i t0 = _mm256_unpacklo_epi32(x0[0], x1[0])
    cdef __m256i t1 = _mm256_unpackhi_epi32(x0[0], x1[0])
    cdef __m256i t2 = _mm256_unpacklo_epi32(x2[0], x3[0])
    cdef __m256i t3 = _mm256_unpackhi_epi32(x2[0], x3[0])
    x0[0] = _mm256_unpacklo_epi64(t0, t2)
    x1[0] = _mm256_unpackhi_epi64(t0, t2)
    x2[0] = _mm256_unpacklo_epi64(t1, t3)
    x3[0] = _mm256_unpackhi_epi64(t1, t3)


cdef inline void _chacha8_out4(const uint8_t* src, uint8_t* dst, size_t off, __m256i a,
                               __m256i b, __m256i c, __m256i d, bint hi) noexcept nogil:
    # Blocks m and 4+m (off = 64m) from the transposed words 0-3 (a), 4-7 (b),
    # 8-11 (c) and 12-15 (d): block m in the low 128-bit lanes, 4+m in the high
    # (stored only if hi).
    _chacha8_out(src, dst, off, _mm256_permute2x128_si256(a, b, 0x20))
    _chacha8_out(src, dst, off + 32, _mm256_permute2x128_si256(c, d, 0x20))
    if hi:
        _chacha8_out(src, dst, off + 256, _mm256_permute2x128_si256(a, b, 0x31))
        _chacha8_out(src, dst, off + 288, _mm256_permute2x128_si256(c, d, 0x31))


cdef void _chacha8_blocks(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                          uint8_t* dst, size_t nbatches, bint last7) noexcept nogil:
    # nbatches x 8 blocks from the 64-bit counter ctr, less the last block if
    # last7 (that batch's lane 7 is computed, not stored); src NULL: bare key
    # stream.
    cdef __m256i x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15
    cdef __m256i base, lo, carry
    # The input words, broadcast, on the stack (volatile: read back for the
    # feed-forward instead of held in registers through the rounds); mem:
    # the two c words the rounds keep out of registers.  Both are wiped at
    # the end (they hold the key).
    cdef volatile __m256i init[16]
    cdef volatile __m256i mem[2]
    cdef __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
    cdef int i
    for i in range(16):
        init[i] = _mm256_set1_epi32(<int>st[i])
    while nbatches:
        # Counter words of lanes 0..7: ctr + lane as a 64-bit number.  The carry
        # out of the low word is the top bit of (a & b) | ((a | b) & ~(a + b)).
        base = _mm256_set1_epi32(<int><uint32_t>ctr)
        lo = _mm256_add_epi32(base, lane)
        carry = _mm256_or_si256(_mm256_and_si256(base, lane),
                                _mm256_andnot_si256(lo, _mm256_or_si256(base, lane)))
        init[12] = lo
        init[13] = _mm256_add_epi32(_mm256_set1_epi32(<int><uint32_t>(ctr >> 32)),
                                    _mm256_srli_epi32(carry, 31))
        x0 = init[0]
        x1 = init[1]
        x2 = init[2]
        x3 = init[3]
        x4 = init[4]
        x5 = init[5]
        x6 = init[6]
        x7 = init[7]
        x8 = init[8]
        x9 = init[9]
        x12 = init[12]
        x13 = init[13]
        x14 = init[14]
        x15 = init[15]
        mem[0] = init[10]
        mem[1] = init[11]
        for i in range(2):  # ten double rounds, unrolled five-fold
            _chacha8_dround_spill(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7,
                                  &x8, &x9, &x12, &x13, &x14, &x15, mem)
            _chacha8_dround_spill(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7,
                                  &x8, &x9, &x12, &x13, &x14, &x15, mem)
            _chacha8_dround_spill(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7,
                                  &x8, &x9, &x12, &x13, &x14, &x15, mem)
            _chacha8_dround_spill(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7,
                                  &x8, &x9, &x12, &x13, &x14, &x15, mem)
            _chacha8_dround_spill(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7,
                                  &x8, &x9, &x12, &x13, &x14, &x15, mem)
        # feed-forward
        x0 = _mm256_add_epi32(x0, init[0])
        x1 = _mm256_add_epi32(x1, init[1])
        x2 = _mm256_add_epi32(x2, init[2])
        x3 = _mm256_add_epi32(x3, init[3])
        x4 = _mm256_add_epi32(x4, init[4])
        x5 = _mm256_add_epi32(x5, init[5])
        x6 = _mm256_add_epi32(x6, init[6])
        x7 = _mm256_add_epi32(x7, init[7])
        x8 = _mm256_add_epi32(x8, init[8])
        x9 = _mm256_add_epi32(x9, init[9])
        x10 = _mm256_add_epi32(mem[0], init[10])
        x11 = _mm256_add_epi32(mem[1], init[11])
        x12 = _mm256_add_epi32(x12, init[12])
        x13 = _mm256_add_epi32(x13, init[13])
        x14 = _mm256_add_epi32(x14, init[14])
        x15 = _mm256_add_epi32(x15, init[15])
        _chacha8_transpose(&x0, &x1, &x2, &x3)
        _chacha8_transpose(&x4, &x5, &x6, &x7)
        _chacha8_transpose(&x8, &x9, &x10, &x11)
        _chacha8_transpose(&x12, &x13, &x14, &x15)
        _chacha8_out4(src, dst, 0, x0, x4, x8, x12, True)
        _chacha8_out4(src, dst, 64, x1, x5, x9, x13, True)
        _chacha8_out4(src, dst, 128, x2, x6, x10, x14, True)
        _chacha8_out4(src, dst, 192, x3, x7, x11, x15, nbatches > 1 or not last7)
        ctr += 8
        if src != NULL:
            src += 512
        dst += 512
        nbatches -= 1
    wipe(<void*>init, sizeof(init))        # the key words, on the stack
    wipe(<void*>mem, sizeof(mem))


cdef inline void _chacha8_qr1(__m256i* a, __m256i* b, __m256i* c, __m256i* d) noexcept nogil:
    # One quarter-round of one horizontal state: a chain of twelve dependent
    # operations, which ends with row b.
    a[0] = _mm256_add_epi32(a[0], b[0])
    d[0] = _chacha8_rotl16(_mm256_xor_si256(d[0], a[0]))
    c[0] = _mm256_add_epi32(c[0], d[0])
    b[0] = _chacha8_rotl12(_mm256_xor_si256(b[0], c[0]))
    a[0] = _mm256_add_epi32(a[0], b[0])
    d[0] = _chacha8_rotl8(_mm256_xor_si256(d[0], a[0]))
    c[0] = _mm256_add_epi32(c[0], d[0])
    b[0] = _chacha8_rotl7(_mm256_xor_si256(b[0], c[0]))


cdef inline void _chacha8_hdround(__m256i* a, __m256i* b, __m256i* c,
                                  __m256i* d) noexcept nogil:
    # Column round, then diagonal round, of one horizontal state.  Rows a, c
    # and d are rotated, not b: b is the last row a quarter-round writes, so
    # rotating it would add a shuffle to every round's chain, while a, c and
    # d are ready early and rotate while b is still being computed (measured
    # on Zen 4: about 5 % less latency a block).  After the rotation lane j
    # holds the diagonal (a_j-1, b_j, c_j+1, d_j+2).
    _chacha8_qr1(a, b, c, d)
    a[0] = _mm256_shuffle_epi32(a[0], 0x93)
    c[0] = _mm256_shuffle_epi32(c[0], 0x39)
    d[0] = _mm256_shuffle_epi32(d[0], 0x4E)
    _chacha8_qr1(a, b, c, d)
    a[0] = _mm256_shuffle_epi32(a[0], 0x39)
    c[0] = _mm256_shuffle_epi32(c[0], 0x93)
    d[0] = _mm256_shuffle_epi32(d[0], 0x4E)


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


cdef inline void _chacha8_hout(const uint8_t* src, uint8_t* dst, size_t off, __m256i a,
                               __m256i b, __m256i c, __m256i d, __m256i ia, __m256i ib,
                               __m256i ic, __m256i id, size_t nblocks) noexcept nogil:
    # The feed-forward of one horizontal state, then its first nblocks (1 or
    # 2) blocks to dst + off: block 2s is lane 0 of rows a..d, 2s+1 lane 1.
    a = _mm256_add_epi32(a, ia)
    b = _mm256_add_epi32(b, ib)
    c = _mm256_add_epi32(c, ic)
    d = _mm256_add_epi32(d, id)
    _chacha8_out(src, dst, off, _mm256_permute2x128_si256(a, b, 0x20))
    _chacha8_out(src, dst, off + 32, _mm256_permute2x128_si256(c, d, 0x20))
    if nblocks > 1:
        _chacha8_out(src, dst, off + 64, _mm256_permute2x128_si256(a, b, 0x31))
        _chacha8_out(src, dst, off + 96, _mm256_permute2x128_si256(c, d, 0x31))


cdef inline void _chacha8_h6(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                             uint8_t* dst, size_t nblocks) noexcept nogil:
    # 1-6 blocks, horizontal layout: state s (rows a_s, b_s, c_s, d_s) holds
    # blocks 2s (low 128-bit lane) and 2s+1 (high), and only the states that
    # hold a wanted block run.  Each state's rounds are one dependency chain
    # and the states are independent, so up to three finish in about the
    # latency of a single block (Zen 4: 1-2 blocks ~97 ns, 3-4 ~101, 5-6
    # ~122, where the vertical kernel took ~170 for 5 blocks into a buffer).
    # Writes only nblocks blocks, no buffer.
    cdef __m256i a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2
    cdef __m256i ia = _chacha8_row(st)
    cdef __m256i ib = _chacha8_row(st + 4)
    cdef __m256i ic = _chacha8_row(st + 8)
    cdef __m256i id0 = _chacha8_ctr_row(st, ctr, ctr + 1)
    cdef __m256i id1 = _chacha8_ctr_row(st, ctr + 2, ctr + 3)
    cdef __m256i id2 = _chacha8_ctr_row(st, ctr + 4, ctr + 5)
    cdef int i
    a0 = a1 = a2 = ia
    b0 = b1 = b2 = ib
    c0 = c1 = c2 = ic
    d0 = id0
    d1 = id1
    d2 = id2
    if nblocks <= 2:
        for i in range(10):
            _chacha8_hdround(&a0, &b0, &c0, &d0)
    elif nblocks <= 4:
        for i in range(10):
            _chacha8_hdround(&a0, &b0, &c0, &d0)
            _chacha8_hdround(&a1, &b1, &c1, &d1)
    else:
        for i in range(10):
            _chacha8_hdround(&a0, &b0, &c0, &d0)
            _chacha8_hdround(&a1, &b1, &c1, &d1)
            _chacha8_hdround(&a2, &b2, &c2, &d2)
    _chacha8_hout(src, dst, 0, a0, b0, c0, d0, ia, ib, ic, id0, nblocks)
    if nblocks > 2:
        _chacha8_hout(src, dst, 128, a1, b1, c1, d1, ia, ib, ic, id1, nblocks - 2)
    if nblocks > 4:
        _chacha8_hout(src, dst, 256, a2, b2, c2, d2, ia, ib, ic, id2, nblocks - 4)


cdef inline void _chacha8_tail(uint32_t* state16, uint64_t ctr, const uint8_t* src,
                               uint8_t* dst, size_t nblocks) noexcept nogil:
    # The last 0-7 blocks of a call, then the counter stored back.
    if nblocks > 6:
        _chacha8_blocks(state16, ctr, src, dst, 1, True)   # 7 blocks
    elif nblocks:
        _chacha8_h6(state16, ctr, src, dst, nblocks)
    ctr += nblocks
    state16[12] = <uint32_t>ctr
    state16[13] = <uint32_t>(ctr >> 32)
