# ChaCha20 AVX-512 kernels (included by _x86_avx512.pyx, and by the SIMDe test
# build _x86_avx512_emu.pyx).
#
# Vertical layout: zmm register x[i] holds word i of 16 consecutive blocks,
# one block per 32-bit lane; rotations are single vprold (_mm512_rol_epi32).
# The blocks leave the registers through a 4x4 32-bit transpose inside each
# 128-bit lane (unpack epi32/epi64) and a 4x4 transpose of the 128-bit lanes
# (_mm512_shuffle_i32x4), which leaves one whole 64-byte block per register.
# The 1-15 blocks after the last full batch of 16 use the ymm kernels of
# _chacha20_ymm.pxi with AVX-512VL rotates (vprold on ymm).  Only AVX-512F/VL
# intrinsics that SIMDe 0.7.4 also provides are used (no masked loads/stores).
#
# The block counter is the 64-bit number in state words 12 (low) and 13
# (high): lane j of a batch gets ctr + j with the carry out of word 12 into
# word 13 computed per lane.  As in the ymm kernels, the helpers take the
# state as an array and constant word indices.
from poly1305x._portable cimport wipe


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


cdef inline void _chacha16_qr2(__m512i* x, int a0, int b0, int c0, int d0,
                               int a1, int b1, int c1, int d1) noexcept nogil:
    # Two quarter-rounds, (a0, b0, c0, d0) and (a1, b1, c1, d1), interleaved.
    x[a0] = _mm512_add_epi32(x[a0], x[b0])
    x[a1] = _mm512_add_epi32(x[a1], x[b1])
    x[d0] = _mm512_rol_epi32(_mm512_xor_si512(x[d0], x[a0]), 16)
    x[d1] = _mm512_rol_epi32(_mm512_xor_si512(x[d1], x[a1]), 16)
    x[c0] = _mm512_add_epi32(x[c0], x[d0])
    x[c1] = _mm512_add_epi32(x[c1], x[d1])
    x[b0] = _mm512_rol_epi32(_mm512_xor_si512(x[b0], x[c0]), 12)
    x[b1] = _mm512_rol_epi32(_mm512_xor_si512(x[b1], x[c1]), 12)
    x[a0] = _mm512_add_epi32(x[a0], x[b0])
    x[a1] = _mm512_add_epi32(x[a1], x[b1])
    x[d0] = _mm512_rol_epi32(_mm512_xor_si512(x[d0], x[a0]), 8)
    x[d1] = _mm512_rol_epi32(_mm512_xor_si512(x[d1], x[a1]), 8)
    x[c0] = _mm512_add_epi32(x[c0], x[d0])
    x[c1] = _mm512_add_epi32(x[c1], x[d1])
    x[b0] = _mm512_rol_epi32(_mm512_xor_si512(x[b0], x[c0]), 7)
    x[b1] = _mm512_rol_epi32(_mm512_xor_si512(x[b1], x[c1]), 7)


cdef inline void _chacha16_dround(__m512i* x) noexcept nogil:
    # Column round, then diagonal round, on the 16 words x[0..15].
    _chacha16_qr2(x, 0, 4, 8, 12, 1, 5, 9, 13)
    _chacha16_qr2(x, 2, 6, 10, 14, 3, 7, 11, 15)
    _chacha16_qr2(x, 0, 5, 10, 15, 1, 6, 11, 12)
    _chacha16_qr2(x, 2, 7, 8, 13, 3, 4, 9, 14)


cdef inline void _chacha16_input(__m512i* x, const uint32_t* st, __m512i lo,
                                 __m512i hi) noexcept nogil:
    # The input block of every lane: st broadcast, counter words lo and hi.
    cdef int k
    for k in range(16):
        x[k] = _mm512_set1_epi32(<int>st[k])
    x[12] = lo
    x[13] = hi


cdef inline void _chacha16_transpose(__m512i* x) noexcept nogil:
    # 4x4 transpose of 32-bit words inside each 128-bit lane of x[0..3]:
    # afterwards x[m], 128-bit lane k, holds the four words of block 4k+m.
    cdef __m512i t0 = _mm512_unpacklo_epi32(x[0], x[1])
    cdef __m512i t1 = _mm512_unpackhi_epi32(x[0], x[1])
    cdef __m512i t2 = _mm512_unpacklo_epi32(x[2], x[3])
    cdef __m512i t3 = _mm512_unpackhi_epi32(x[2], x[3])
    x[0] = _mm512_unpacklo_epi64(t0, t2)
    x[1] = _mm512_unpackhi_epi64(t0, t2)
    x[2] = _mm512_unpacklo_epi64(t1, t3)
    x[3] = _mm512_unpackhi_epi64(t1, t3)


cdef inline void _chacha16_out4(const uint8_t* src, uint8_t* dst, size_t off, __m512i a,
                                __m512i b, __m512i c, __m512i d) noexcept nogil:
    # Blocks m, 4+m, 8+m, 12+m (off = 64m) from the transposed words 0-3 (a),
    # 4-7 (b), 8-11 (c), 12-15 (d): a 4x4 transpose of the 128-bit lanes puts
    # block 4k+m, lane k of each, into one register.
    cdef __m512i t0 = _mm512_shuffle_i32x4(a, b, 0x44)
    cdef __m512i t1 = _mm512_shuffle_i32x4(a, b, 0xEE)
    cdef __m512i t2 = _mm512_shuffle_i32x4(c, d, 0x44)
    cdef __m512i t3 = _mm512_shuffle_i32x4(c, d, 0xEE)
    _chacha16_out(src, dst, off, _mm512_shuffle_i32x4(t0, t2, 0x88))
    _chacha16_out(src, dst, off + 256, _mm512_shuffle_i32x4(t0, t2, 0xDD))
    _chacha16_out(src, dst, off + 512, _mm512_shuffle_i32x4(t1, t3, 0x88))
    _chacha16_out(src, dst, off + 768, _mm512_shuffle_i32x4(t1, t3, 0xDD))


cdef void _chacha16_blocks(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                           uint8_t* dst, size_t nbatches) noexcept nogil:
    # nbatches x 16 blocks from the 64-bit counter ctr; src NULL: bare key stream.
    cdef __m512i x[16]
    cdef __m512i y[16]
    cdef __m512i base, lo, hi, carry
    cdef __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    cdef int i, k
    while nbatches:
        # Counter words of lanes 0..15: ctr + lane as a 64-bit number.  The carry
        # out of the low word is the top bit of (a & b) | ((a | b) & ~(a + b)).
        base = _mm512_set1_epi32(<int><uint32_t>ctr)
        lo = _mm512_add_epi32(base, lane)
        carry = _mm512_or_si512(_mm512_and_si512(base, lane),
                                _mm512_andnot_si512(lo, _mm512_or_si512(base, lane)))
        hi = _mm512_add_epi32(_mm512_set1_epi32(<int><uint32_t>(ctr >> 32)),
                              _mm512_srli_epi32(carry, 31))
        _chacha16_input(x, st, lo, hi)
        for i in range(2):  # ten double rounds, unrolled five-fold
            _chacha16_dround(x)
            _chacha16_dround(x)
            _chacha16_dround(x)
            _chacha16_dround(x)
            _chacha16_dround(x)
        _chacha16_input(y, st, lo, hi)
        for k in range(16):
            x[k] = _mm512_add_epi32(x[k], y[k])
        for k in range(0, 16, 4):
            _chacha16_transpose(x + k)
        _chacha16_out4(src, dst, 0, x[0], x[4], x[8], x[12])
        _chacha16_out4(src, dst, 64, x[1], x[5], x[9], x[13])
        _chacha16_out4(src, dst, 128, x[2], x[6], x[10], x[14])
        _chacha16_out4(src, dst, 192, x[3], x[7], x[11], x[15])
        ctr += 16
        if src != NULL:
            src += 1024
        dst += 1024
        nbatches -= 1


cdef void chacha20_xor_avx512(uint32_t* state16, const uint8_t* src,
                              uint8_t* dst, size_t nblocks) noexcept nogil:
    cdef uint64_t ctr = <uint64_t>state16[12] | (<uint64_t>state16[13] << 32)
    cdef uint8_t buf[512]
    cdef size_t n = nblocks & ~(<size_t>15)
    if n:
        _chacha16_blocks(state16, ctr, src, dst, n >> 4)
        ctr += n
        nblocks -= n
        dst += 64 * n
        if src != NULL:
            src += 64 * n
    if nblocks >= 8:
        _chacha8_blocks(state16, ctr, src, dst, 1)
        ctr += 8
        nblocks -= 8
        dst += 512
        if src != NULL:
            src += 512
    _chacha8_tail(state16, ctr, src, dst, nblocks, buf)
