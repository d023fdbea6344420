# ChaCha20 AVX-512 kernels (included by _x86_avx512.pyx, and by the SIMDe test
# build _x86_avx512_emu.pyx).
#
# Vertical layout: zmm register x(i) holds word i of 16 consecutive blocks,
# one block per 32-bit lane; rotations are single vprold (_mm512_rol_epi32).
# The blocks leave the registers through a 4x4 32-bit transpose inside each
# 128-bit lane (unpack epi32/epi64) and a 4x4 transpose of the 128-bit lanes
# (_mm512_shuffle_i32x4), which leaves one whole 64-byte block per register.
# One or two blocks after the last full batch of 16 ride along inside it
# (_chacha16_core), 9-15 run as a batch of 16 that stores only them; other
# 1-8 block tails use the ymm kernels of
# _chacha20_ymm.pxi with AVX-512VL rotates (vprold on ymm).  Only AVX-512F/VL
# intrinsics that SIMDe 0.7.4 also provides are used (no masked loads/stores).
#
# The block counter is the 64-bit number in state words 12 (low) and 13
# (high): lane j of a batch gets ctr + j with the carry out of word 12 into
# word 13 computed per lane.  As in the ymm kernels, the helpers take pointers
# to the kernel's locals.
from poly1305x._kernels._common cimport wipe


cdef inline __m256i _chacha8_rotl16(__m256i v) noexcept nogil:
    return _mm256_rol_epi32(v, 16)


cdef inline __m256i _chacha8_rotl12(__m256i v) noexcept nogil:
    return _mm256_rol_epi32(v, 12)


cdef inline __m256i _chacha8_rotl8(__m256i v) noexcept nogil:
    return _mm256_rol_epi32(v, 8)


cdef inline __m256i _chacha8_rotl7(__m256i v) noexcept nogil:
    return _mm256_rol_epi32(v, 7)


include "_chacha20_ymm.pxi"


cdef inline void _chacha16_out(const uint8_t* src, uint8_t* dst, size_t off,
                               __m512i ks) noexcept nogil:
    # 64 key-stream bytes to dst + off, XORed with src + off unless src is NULL
    # (src may equal dst: each 64 bytes are loaded before they are stored).
    if src != NULL:
        ks = _mm512_xor_si512(ks, _mm512_loadu_si512(src + off))
    _mm512_storeu_si512(dst + off, ks)


cdef inline void _chacha16_qr(__m512i* a, __m512i* b, __m512i* c,
                              __m512i* d) noexcept nogil:
    a[0] = _mm512_add_epi32(a[0], b[0])
    d[0] = _mm512_rol_epi32(_mm512_xor_si512(d[0], a[0]), 16)
    c[0] = _mm512_add_epi32(c[0], d[0])
    b[0] = _mm512_rol_epi32(_mm512_xor_si512(b[0], c[0]), 12)
    a[0] = _mm512_add_epi32(a[0], b[0])
    d[0] = _mm512_rol_epi32(_mm512_xor_si512(d[0], a[0]), 8)
    c[0] = _mm512_add_epi32(c[0], d[0])
    b[0] = _mm512_rol_epi32(_mm512_xor_si512(b[0], c[0]), 7)


cdef inline void _chacha16_dround(
        __m512i* x0, __m512i* x1, __m512i* x2, __m512i* x3, __m512i* x4, __m512i* x5,
        __m512i* x6, __m512i* x7, __m512i* x8, __m512i* x9, __m512i* x10, __m512i* x11,
        __m512i* x12, __m512i* x13, __m512i* x14, __m512i* x15) noexcept nogil:
    # Column round, then diagonal round, one quarter-round after the other:
    # the compiler interleaves them better than two hand-interleaved pairs
    # (on Zen 4, where vprold has a latency of 2 and runs on two of the four
    # vector pipes, ~0.65 instead of ~0.70 cycles per byte).
    _chacha16_qr(x0, x4, x8, x12)
    _chacha16_qr(x1, x5, x9, x13)
    _chacha16_qr(x2, x6, x10, x14)
    _chacha16_qr(x3, x7, x11, x15)
    _chacha16_qr(x0, x5, x10, x15)
    _chacha16_qr(x1, x6, x11, x12)
    _chacha16_qr(x2, x7, x8, x13)
    _chacha16_qr(x3, x4, x9, x14)


cdef inline void _chacha16_transpose(__m512i* x0, __m512i* x1, __m512i* x2,
                                     __m512i* x3) noexcept nogil:
    # 4x4 transpose of 32-bit words inside each 128-bit lane: afterwards x(m),
    # 128-bit lane k, holds the four words (of a row) of block 4k+m.
    cdef __m512i t0 = _mm512_unpacklo_epi32(x0[0], x1[0])
    cdef __m512i t1 = _mm512_unpackhi_epi32(x0[0], x1[0])
    cdef __m512i t2 = _mm512_unpacklo_epi32(x2[0], x3[0])
    cdef __m512i t3 = _mm512_unpackhi_epi32(x2[0], x3[0])
    x0[0] = _mm512_unpacklo_epi64(t0, t2)
    x1[0] = _mm512_unpackhi_epi64(t0, t2)
    x2[0] = _mm512_unpacklo_epi64(t1, t3)
    x3[0] = _mm512_unpackhi_epi64(t1, t3)


cdef inline void _chacha16_out4(const uint8_t* src, uint8_t* dst, size_t off, __m512i a,
                                __m512i b, __m512i c, __m512i d, size_t keep) noexcept nogil:
    # Blocks m, 4+m, 8+m, 12+m (off = 64m) from the transposed words 0-3 (a),
    # 4-7 (b), 8-11 (c), 12-15 (d): a 4x4 transpose of the 128-bit lanes puts
    # block 4k+m, lane k of each, into one register.  Only the blocks below
    # keep are stored (16: all, and the compares fold away).
    cdef __m512i t0 = _mm512_shuffle_i32x4(a, b, 0x44)
    cdef __m512i t1 = _mm512_shuffle_i32x4(a, b, 0xEE)
    cdef __m512i t2 = _mm512_shuffle_i32x4(c, d, 0x44)
    cdef __m512i t3 = _mm512_shuffle_i32x4(c, d, 0xEE)
    if 64 * keep > off:
        _chacha16_out(src, dst, off, _mm512_shuffle_i32x4(t0, t2, 0x88))
    if 64 * keep > off + 256:
        _chacha16_out(src, dst, off + 256, _mm512_shuffle_i32x4(t0, t2, 0xDD))
    if 64 * keep > off + 512:
        _chacha16_out(src, dst, off + 512, _mm512_shuffle_i32x4(t1, t3, 0x88))
    if 64 * keep > off + 768:
        _chacha16_out(src, dst, off + 768, _mm512_shuffle_i32x4(t1, t3, 0xDD))


cdef inline void _chacha16_core(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                               uint8_t* dst, size_t nbatches, size_t tail,
                               size_t keep) noexcept nogil:
    # nbatches x 16 blocks from the 64-bit counter ctr, of which the last
    # batch stores only its first keep (9-16; tail must then be 0); src NULL:
    # bare key stream.  tail (0-2, a constant at each call site) more blocks after the
    # last batch come from one horizontal ymm state whose rounds run inside
    # that batch's: the state's chain is bound by latency and the batch by
    # throughput, so the tail costs the batch little more than its operations
    # (Zen 4: 17 blocks in 221 ns, 16 in 194, where the tail in a call of
    # its own took 297; the tail ahead of the batch in program order did not
    # overlap it either, the reorder window being full of the tail's chain).
    cdef __m512i x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15
    cdef __m512i base, lo, hi, carry
    cdef __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    cdef __m256i ta, tb, tc, td, ia, ib, ic, id
    cdef bint with_tail
    cdef size_t k = 16
    cdef int i
    while nbatches:
        if nbatches == 1:
            k = keep
        with_tail = tail != 0 and nbatches == 1
        if with_tail:
            ia = _chacha8_row(st)
            ib = _chacha8_row(st + 4)
            ic = _chacha8_row(st + 8)
            id = _chacha8_ctr_row(st, ctr + 16, ctr + 17)
            ta = ia
            tb = ib
            tc = ic
            td = id
        # Counter words of lanes 0..15: ctr + lane as a 64-bit number.  The carry
        # out of the low word is the top bit of (a & b) | ((a | b) & ~(a + b)).
        base = _mm512_set1_epi32(<int><uint32_t>ctr)
        lo = _mm512_add_epi32(base, lane)
        carry = _mm512_or_si512(_mm512_and_si512(base, lane),
                                _mm512_andnot_si512(lo, _mm512_or_si512(base, lane)))
        hi = _mm512_add_epi32(_mm512_set1_epi32(<int><uint32_t>(ctr >> 32)),
                              _mm512_srli_epi32(carry, 31))
        x0 = _mm512_set1_epi32(<int>st[0])
        x1 = _mm512_set1_epi32(<int>st[1])
        x2 = _mm512_set1_epi32(<int>st[2])
        x3 = _mm512_set1_epi32(<int>st[3])
        x4 = _mm512_set1_epi32(<int>st[4])
        x5 = _mm512_set1_epi32(<int>st[5])
        x6 = _mm512_set1_epi32(<int>st[6])
        x7 = _mm512_set1_epi32(<int>st[7])
        x8 = _mm512_set1_epi32(<int>st[8])
        x9 = _mm512_set1_epi32(<int>st[9])
        x10 = _mm512_set1_epi32(<int>st[10])
        x11 = _mm512_set1_epi32(<int>st[11])
        x12 = lo
        x13 = hi
        x14 = _mm512_set1_epi32(<int>st[14])
        x15 = _mm512_set1_epi32(<int>st[15])
        if with_tail:
            for i in range(10):
                _chacha16_dround(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7,
                                 &x8, &x9, &x10, &x11, &x12, &x13, &x14, &x15)
                _chacha8_hdround(&ta, &tb, &tc, &td)
        else:
            for i in range(2):  # ten double rounds, unrolled five-fold (a full
                # unroll is no faster, and too large for the compiler to inline)
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
        # feed-forward (the broadcasts again: the compiler keeps them from above)
        x0 = _mm512_add_epi32(x0, _mm512_set1_epi32(<int>st[0]))
        x1 = _mm512_add_epi32(x1, _mm512_set1_epi32(<int>st[1]))
        x2 = _mm512_add_epi32(x2, _mm512_set1_epi32(<int>st[2]))
        x3 = _mm512_add_epi32(x3, _mm512_set1_epi32(<int>st[3]))
        x4 = _mm512_add_epi32(x4, _mm512_set1_epi32(<int>st[4]))
        x5 = _mm512_add_epi32(x5, _mm512_set1_epi32(<int>st[5]))
        x6 = _mm512_add_epi32(x6, _mm512_set1_epi32(<int>st[6]))
        x7 = _mm512_add_epi32(x7, _mm512_set1_epi32(<int>st[7]))
        x8 = _mm512_add_epi32(x8, _mm512_set1_epi32(<int>st[8]))
        x9 = _mm512_add_epi32(x9, _mm512_set1_epi32(<int>st[9]))
        x10 = _mm512_add_epi32(x10, _mm512_set1_epi32(<int>st[10]))
        x11 = _mm512_add_epi32(x11, _mm512_set1_epi32(<int>st[11]))
        x12 = _mm512_add_epi32(x12, lo)
        x13 = _mm512_add_epi32(x13, hi)
        x14 = _mm512_add_epi32(x14, _mm512_set1_epi32(<int>st[14]))
        x15 = _mm512_add_epi32(x15, _mm512_set1_epi32(<int>st[15]))
        _chacha16_transpose(&x0, &x1, &x2, &x3)
        _chacha16_transpose(&x4, &x5, &x6, &x7)
        _chacha16_transpose(&x8, &x9, &x10, &x11)
        _chacha16_transpose(&x12, &x13, &x14, &x15)
        _chacha16_out4(src, dst, 0, x0, x4, x8, x12, k)
        _chacha16_out4(src, dst, 64, x1, x5, x9, x13, k)
        _chacha16_out4(src, dst, 128, x2, x6, x10, x14, k)
        _chacha16_out4(src, dst, 192, x3, x7, x11, x15, k)
        if with_tail:
            _chacha8_hout(src, dst, 1024, ta, tb, tc, td, ia, ib, ic, id, tail)
        ctr += 16
        if src != NULL:
            src += 1024
        dst += 1024
        nbatches -= 1


cdef void _chacha16_blocks(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                           uint8_t* dst, size_t nbatches) noexcept nogil:
    _chacha16_core(st, ctr, src, dst, nbatches, 0, 16)


cdef void _chacha16_blocks_part(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                                uint8_t* dst, size_t nbatches, size_t keep) noexcept nogil:
    # nbatches x 16 blocks less the last 16 - keep (keep 9-15): above 8 blocks
    # past the whole batches, a batch of 16 costs less than 8 plus a tail
    # (Zen 4: 16 blocks ~195 ns, 9 as 8 + 1 ~245, 15 as 8 + 7 ~275)
    _chacha16_core(st, ctr, src, dst, nbatches, 0, keep)


cdef void _chacha16_blocks_t1(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                              uint8_t* dst, size_t nbatches) noexcept nogil:
    # nbatches x 16 blocks and one more
    _chacha16_core(st, ctr, src, dst, nbatches, 1, 16)


cdef void _chacha16_blocks_t2(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                              uint8_t* dst, size_t nbatches) noexcept nogil:
    # nbatches x 16 blocks and two more
    _chacha16_core(st, ctr, src, dst, nbatches, 2, 16)


cdef void chacha20_xor_avx512(uint32_t* state16, const uint8_t* src,
                              uint8_t* dst, size_t nblocks) noexcept nogil:
    cdef uint64_t ctr = <uint64_t>state16[12] | (<uint64_t>state16[13] << 32)
    cdef size_t n = nblocks & ~(<size_t>15)
    cdef size_t rest = nblocks - n
    if (n and 1 <= rest <= 2) or rest > 8:
        if rest > 8:
            # 9-15 blocks past the batches: as one more batch, cut short
            _chacha16_blocks_part(state16, ctr, src, dst, (n >> 4) + 1, rest)
        elif rest == 1:
            # one or two blocks past the batches: inside the last batch
            _chacha16_blocks_t1(state16, ctr, src, dst, n >> 4)
        else:
            _chacha16_blocks_t2(state16, ctr, src, dst, n >> 4)
        ctr += nblocks
        state16[12] = <uint32_t>ctr
        state16[13] = <uint32_t>(ctr >> 32)
        return
    if n:
        _chacha16_blocks(state16, ctr, src, dst, n >> 4)
        ctr += n
        nblocks -= n
        dst += 64 * n
        if src != NULL:
            src += 64 * n
    if nblocks >= 8:
        _chacha8_blocks(state16, ctr, src, dst, 1, False)
        ctr += 8
        nblocks -= 8
        dst += 512
        if src != NULL:
            src += 512
    _chacha8_tail(state16, ctr, src, dst, nblocks)
