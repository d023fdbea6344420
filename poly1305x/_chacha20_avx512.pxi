# ChaCha20 AVX-512 kernels (included by _x86_avx512.pyx, and by the SIMDe test
# build _x86_avx512_emu.pyx).
#
# Vertical layout: zmm register x(i) holds word i of 16 consecutive blocks,
# one block per 32-bit lane; rotations are single vprold (_mm512_rol_epi32).
# The blocks leave the registers through a 4x4 32-bit transpose inside each
# 128-bit lane (unpack epi32/epi64) and a 4x4 transpose of the 128-bit lanes
# (_mm512_shuffle_i32x4), which leaves one whole 64-byte block per register.
# The 1-15 blocks after the last full batch of 16 use the 8-block ymm loop
# (AVX-512VL rotates); a short final batch is generated into a stack buffer,
# XORed, and the buffer wiped.  Only AVX-512F/VL intrinsics that SIMDe 0.7.4
# also provides are used (no masked loads/stores).
#
# The block counter is the 64-bit number in state words 12 (low) and 13
# (high): lane j of a batch gets ctr + j with the carry out of word 12 into
# word 13 computed per lane.
from poly1305x._portable cimport wipe


cdef inline void _chacha_avx512_out16(const uint8_t* src, uint8_t* dst, size_t off,
                                      __m512i ks) noexcept nogil:
    """64 key-stream bytes to dst + off, XORed with src + off unless src is NULL.
    (src may equal dst: each 64 bytes are loaded before they are stored.)"""
    if src != NULL:
        ks = _mm512_xor_si512(ks, _mm512_loadu_si512(src + off))
    _mm512_storeu_si512(dst + off, ks)


cdef inline void _chacha_avx512_out8(const uint8_t* src, uint8_t* dst, size_t off,
                                     __m256i ks) noexcept nogil:
    if src != NULL:
        ks = _mm256_xor_si256(ks, _mm256_loadu_si256(<const __m256i*>(src + off)))
    _mm256_storeu_si256(<__m256i*>(dst + off), ks)


cdef void _chacha_avx512_x16(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                            uint8_t* dst, size_t nbatches) noexcept nogil:
    """nbatches x 16 blocks (zmm) from 64-bit counter ctr; src NULL: bare key stream."""
    cdef __m512i x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15
    cdef __m512i t0, t1, t2, t3, base, lo, hi
    cdef __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    cdef int i
    while nbatches:
        # Counter words of lanes 0..15: ctr + lane as a 64-bit number.  The carry
        # out of the low word is the top bit of (a & b) | ((a | b) & ~(a + b)).
        base = _mm512_set1_epi32(<int><uint32_t>ctr)
        lo = _mm512_add_epi32(base, lane)
        hi = _mm512_add_epi32(_mm512_set1_epi32(<int><uint32_t>(ctr >> 32)), _mm512_srli_epi32(
            _mm512_or_si512(_mm512_and_si512(base, lane),
                _mm512_andnot_si512(lo, _mm512_or_si512(base, lane))), 31))
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
        for i in range(10):
            # column round
            x0 = _mm512_add_epi32(x0, x4)
            x1 = _mm512_add_epi32(x1, x5)
            x2 = _mm512_add_epi32(x2, x6)
            x3 = _mm512_add_epi32(x3, x7)
            x12 = _mm512_rol_epi32(_mm512_xor_si512(x12, x0), 16)
            x13 = _mm512_rol_epi32(_mm512_xor_si512(x13, x1), 16)
            x14 = _mm512_rol_epi32(_mm512_xor_si512(x14, x2), 16)
            x15 = _mm512_rol_epi32(_mm512_xor_si512(x15, x3), 16)
            x8 = _mm512_add_epi32(x8, x12)
            x9 = _mm512_add_epi32(x9, x13)
            x10 = _mm512_add_epi32(x10, x14)
            x11 = _mm512_add_epi32(x11, x15)
            x4 = _mm512_rol_epi32(_mm512_xor_si512(x4, x8), 12)
            x5 = _mm512_rol_epi32(_mm512_xor_si512(x5, x9), 12)
            x6 = _mm512_rol_epi32(_mm512_xor_si512(x6, x10), 12)
            x7 = _mm512_rol_epi32(_mm512_xor_si512(x7, x11), 12)
            x0 = _mm512_add_epi32(x0, x4)
            x1 = _mm512_add_epi32(x1, x5)
            x2 = _mm512_add_epi32(x2, x6)
            x3 = _mm512_add_epi32(x3, x7)
            x12 = _mm512_rol_epi32(_mm512_xor_si512(x12, x0), 8)
            x13 = _mm512_rol_epi32(_mm512_xor_si512(x13, x1), 8)
            x14 = _mm512_rol_epi32(_mm512_xor_si512(x14, x2), 8)
            x15 = _mm512_rol_epi32(_mm512_xor_si512(x15, x3), 8)
            x8 = _mm512_add_epi32(x8, x12)
            x9 = _mm512_add_epi32(x9, x13)
            x10 = _mm512_add_epi32(x10, x14)
            x11 = _mm512_add_epi32(x11, x15)
            x4 = _mm512_rol_epi32(_mm512_xor_si512(x4, x8), 7)
            x5 = _mm512_rol_epi32(_mm512_xor_si512(x5, x9), 7)
            x6 = _mm512_rol_epi32(_mm512_xor_si512(x6, x10), 7)
            x7 = _mm512_rol_epi32(_mm512_xor_si512(x7, x11), 7)
            # diagonal round
            x0 = _mm512_add_epi32(x0, x5)
            x1 = _mm512_add_epi32(x1, x6)
            x2 = _mm512_add_epi32(x2, x7)
            x3 = _mm512_add_epi32(x3, x4)
            x15 = _mm512_rol_epi32(_mm512_xor_si512(x15, x0), 16)
            x12 = _mm512_rol_epi32(_mm512_xor_si512(x12, x1), 16)
            x13 = _mm512_rol_epi32(_mm512_xor_si512(x13, x2), 16)
            x14 = _mm512_rol_epi32(_mm512_xor_si512(x14, x3), 16)
            x10 = _mm512_add_epi32(x10, x15)
            x11 = _mm512_add_epi32(x11, x12)
            x8 = _mm512_add_epi32(x8, x13)
            x9 = _mm512_add_epi32(x9, x14)
            x5 = _mm512_rol_epi32(_mm512_xor_si512(x5, x10), 12)
            x6 = _mm512_rol_epi32(_mm512_xor_si512(x6, x11), 12)
            x7 = _mm512_rol_epi32(_mm512_xor_si512(x7, x8), 12)
            x4 = _mm512_rol_epi32(_mm512_xor_si512(x4, x9), 12)
            x0 = _mm512_add_epi32(x0, x5)
            x1 = _mm512_add_epi32(x1, x6)
            x2 = _mm512_add_epi32(x2, x7)
            x3 = _mm512_add_epi32(x3, x4)
            x15 = _mm512_rol_epi32(_mm512_xor_si512(x15, x0), 8)
            x12 = _mm512_rol_epi32(_mm512_xor_si512(x12, x1), 8)
            x13 = _mm512_rol_epi32(_mm512_xor_si512(x13, x2), 8)
            x14 = _mm512_rol_epi32(_mm512_xor_si512(x14, x3), 8)
            x10 = _mm512_add_epi32(x10, x15)
            x11 = _mm512_add_epi32(x11, x12)
            x8 = _mm512_add_epi32(x8, x13)
            x9 = _mm512_add_epi32(x9, x14)
            x5 = _mm512_rol_epi32(_mm512_xor_si512(x5, x10), 7)
            x6 = _mm512_rol_epi32(_mm512_xor_si512(x6, x11), 7)
            x7 = _mm512_rol_epi32(_mm512_xor_si512(x7, x8), 7)
            x4 = _mm512_rol_epi32(_mm512_xor_si512(x4, x9), 7)
        # feed-forward
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
        # 4x4 transposes inside each 128-bit lane: afterwards x(4g+m), 128-bit
        # lane k, holds words 4g..4g+3 of block 4k+m.
        t0 = _mm512_unpacklo_epi32(x0, x1)
        t1 = _mm512_unpackhi_epi32(x0, x1)
        t2 = _mm512_unpacklo_epi32(x2, x3)
        t3 = _mm512_unpackhi_epi32(x2, x3)
        x0 = _mm512_unpacklo_epi64(t0, t2)
        x1 = _mm512_unpackhi_epi64(t0, t2)
        x2 = _mm512_unpacklo_epi64(t1, t3)
        x3 = _mm512_unpackhi_epi64(t1, t3)
        t0 = _mm512_unpacklo_epi32(x4, x5)
        t1 = _mm512_unpackhi_epi32(x4, x5)
        t2 = _mm512_unpacklo_epi32(x6, x7)
        t3 = _mm512_unpackhi_epi32(x6, x7)
        x4 = _mm512_unpacklo_epi64(t0, t2)
        x5 = _mm512_unpackhi_epi64(t0, t2)
        x6 = _mm512_unpacklo_epi64(t1, t3)
        x7 = _mm512_unpackhi_epi64(t1, t3)
        t0 = _mm512_unpacklo_epi32(x8, x9)
        t1 = _mm512_unpackhi_epi32(x8, x9)
        t2 = _mm512_unpacklo_epi32(x10, x11)
        t3 = _mm512_unpackhi_epi32(x10, x11)
        x8 = _mm512_unpacklo_epi64(t0, t2)
        x9 = _mm512_unpackhi_epi64(t0, t2)
        x10 = _mm512_unpacklo_epi64(t1, t3)
        x11 = _mm512_unpackhi_epi64(t1, t3)
        t0 = _mm512_unpacklo_epi32(x12, x13)
        t1 = _mm512_unpackhi_epi32(x12, x13)
        t2 = _mm512_unpacklo_epi32(x14, x15)
        t3 = _mm512_unpackhi_epi32(x14, x15)
        x12 = _mm512_unpacklo_epi64(t0, t2)
        x13 = _mm512_unpackhi_epi64(t0, t2)
        x14 = _mm512_unpacklo_epi64(t1, t3)
        x15 = _mm512_unpackhi_epi64(t1, t3)
        # 4x4 transpose of 128-bit lanes: block 4k+m is lane k of x(m), x(4+m),
        # x(8+m), x(12+m).
        t0 = _mm512_shuffle_i32x4(x0, x4, 0x44)
        t1 = _mm512_shuffle_i32x4(x0, x4, 0xEE)
        t2 = _mm512_shuffle_i32x4(x8, x12, 0x44)
        t3 = _mm512_shuffle_i32x4(x8, x12, 0xEE)
        _chacha_avx512_out16(src, dst, 0, _mm512_shuffle_i32x4(t0, t2, 0x88))
        _chacha_avx512_out16(src, dst, 256, _mm512_shuffle_i32x4(t0, t2, 0xDD))
        _chacha_avx512_out16(src, dst, 512, _mm512_shuffle_i32x4(t1, t3, 0x88))
        _chacha_avx512_out16(src, dst, 768, _mm512_shuffle_i32x4(t1, t3, 0xDD))
        t0 = _mm512_shuffle_i32x4(x1, x5, 0x44)
        t1 = _mm512_shuffle_i32x4(x1, x5, 0xEE)
        t2 = _mm512_shuffle_i32x4(x9, x13, 0x44)
        t3 = _mm512_shuffle_i32x4(x9, x13, 0xEE)
        _chacha_avx512_out16(src, dst, 64, _mm512_shuffle_i32x4(t0, t2, 0x88))
        _chacha_avx512_out16(src, dst, 320, _mm512_shuffle_i32x4(t0, t2, 0xDD))
        _chacha_avx512_out16(src, dst, 576, _mm512_shuffle_i32x4(t1, t3, 0x88))
        _chacha_avx512_out16(src, dst, 832, _mm512_shuffle_i32x4(t1, t3, 0xDD))
        t0 = _mm512_shuffle_i32x4(x2, x6, 0x44)
        t1 = _mm512_shuffle_i32x4(x2, x6, 0xEE)
        t2 = _mm512_shuffle_i32x4(x10, x14, 0x44)
        t3 = _mm512_shuffle_i32x4(x10, x14, 0xEE)
        _chacha_avx512_out16(src, dst, 128, _mm512_shuffle_i32x4(t0, t2, 0x88))
        _chacha_avx512_out16(src, dst, 384, _mm512_shuffle_i32x4(t0, t2, 0xDD))
        _chacha_avx512_out16(src, dst, 640, _mm512_shuffle_i32x4(t1, t3, 0x88))
        _chacha_avx512_out16(src, dst, 896, _mm512_shuffle_i32x4(t1, t3, 0xDD))
        t0 = _mm512_shuffle_i32x4(x3, x7, 0x44)
        t1 = _mm512_shuffle_i32x4(x3, x7, 0xEE)
        t2 = _mm512_shuffle_i32x4(x11, x15, 0x44)
        t3 = _mm512_shuffle_i32x4(x11, x15, 0xEE)
        _chacha_avx512_out16(src, dst, 192, _mm512_shuffle_i32x4(t0, t2, 0x88))
        _chacha_avx512_out16(src, dst, 448, _mm512_shuffle_i32x4(t0, t2, 0xDD))
        _chacha_avx512_out16(src, dst, 704, _mm512_shuffle_i32x4(t1, t3, 0x88))
        _chacha_avx512_out16(src, dst, 960, _mm512_shuffle_i32x4(t1, t3, 0xDD))
        ctr += 16
        if src != NULL:
            src += 1024
        dst += 1024
        nbatches -= 1

cdef void _chacha_avx512_x8(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                           uint8_t* dst, size_t nbatches) noexcept nogil:
    """nbatches x 8 blocks (ymm, AVX-512VL rotates) from 64-bit counter ctr; src NULL: bare key stream."""
    cdef __m256i x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15
    cdef __m256i t0, t1, t2, t3, base, lo, hi
    cdef __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
    cdef int i
    while nbatches:
        # Counter words of lanes 0..7: ctr + lane as a 64-bit number.  The carry
        # out of the low word is the top bit of (a & b) | ((a | b) & ~(a + b)).
        base = _mm256_set1_epi32(<int><uint32_t>ctr)
        lo = _mm256_add_epi32(base, lane)
        hi = _mm256_add_epi32(_mm256_set1_epi32(<int><uint32_t>(ctr >> 32)), _mm256_srli_epi32(
            _mm256_or_si256(_mm256_and_si256(base, lane),
                _mm256_andnot_si256(lo, _mm256_or_si256(base, lane))), 31))
        x0 = _mm256_set1_epi32(<int>st[0])
        x1 = _mm256_set1_epi32(<int>st[1])
        x2 = _mm256_set1_epi32(<int>st[2])
        x3 = _mm256_set1_epi32(<int>st[3])
        x4 = _mm256_set1_epi32(<int>st[4])
        x5 = _mm256_set1_epi32(<int>st[5])
        x6 = _mm256_set1_epi32(<int>st[6])
        x7 = _mm256_set1_epi32(<int>st[7])
        x8 = _mm256_set1_epi32(<int>st[8])
        x9 = _mm256_set1_epi32(<int>st[9])
        x10 = _mm256_set1_epi32(<int>st[10])
        x11 = _mm256_set1_epi32(<int>st[11])
        x12 = lo
        x13 = hi
        x14 = _mm256_set1_epi32(<int>st[14])
        x15 = _mm256_set1_epi32(<int>st[15])
        for i in range(10):
            # column round
            x0 = _mm256_add_epi32(x0, x4)
            x1 = _mm256_add_epi32(x1, x5)
            x2 = _mm256_add_epi32(x2, x6)
            x3 = _mm256_add_epi32(x3, x7)
            x12 = _mm256_rol_epi32(_mm256_xor_si256(x12, x0), 16)
            x13 = _mm256_rol_epi32(_mm256_xor_si256(x13, x1), 16)
            x14 = _mm256_rol_epi32(_mm256_xor_si256(x14, x2), 16)
            x15 = _mm256_rol_epi32(_mm256_xor_si256(x15, x3), 16)
            x8 = _mm256_add_epi32(x8, x12)
            x9 = _mm256_add_epi32(x9, x13)
            x10 = _mm256_add_epi32(x10, x14)
            x11 = _mm256_add_epi32(x11, x15)
            x4 = _mm256_rol_epi32(_mm256_xor_si256(x4, x8), 12)
            x5 = _mm256_rol_epi32(_mm256_xor_si256(x5, x9), 12)
            x6 = _mm256_rol_epi32(_mm256_xor_si256(x6, x10), 12)
            x7 = _mm256_rol_epi32(_mm256_xor_si256(x7, x11), 12)
            x0 = _mm256_add_epi32(x0, x4)
            x1 = _mm256_add_epi32(x1, x5)
            x2 = _mm256_add_epi32(x2, x6)
            x3 = _mm256_add_epi32(x3, x7)
            x12 = _mm256_rol_epi32(_mm256_xor_si256(x12, x0), 8)
            x13 = _mm256_rol_epi32(_mm256_xor_si256(x13, x1), 8)
            x14 = _mm256_rol_epi32(_mm256_xor_si256(x14, x2), 8)
            x15 = _mm256_rol_epi32(_mm256_xor_si256(x15, x3), 8)
            x8 = _mm256_add_epi32(x8, x12)
            x9 = _mm256_add_epi32(x9, x13)
            x10 = _mm256_add_epi32(x10, x14)
            x11 = _mm256_add_epi32(x11, x15)
            x4 = _mm256_rol_epi32(_mm256_xor_si256(x4, x8), 7)
            x5 = _mm256_rol_epi32(_mm256_xor_si256(x5, x9), 7)
            x6 = _mm256_rol_epi32(_mm256_xor_si256(x6, x10), 7)
            x7 = _mm256_rol_epi32(_mm256_xor_si256(x7, x11), 7)
            # diagonal round
            x0 = _mm256_add_epi32(x0, x5)
            x1 = _mm256_add_epi32(x1, x6)
            x2 = _mm256_add_epi32(x2, x7)
            x3 = _mm256_add_epi32(x3, x4)
            x15 = _mm256_rol_epi32(_mm256_xor_si256(x15, x0), 16)
            x12 = _mm256_rol_epi32(_mm256_xor_si256(x12, x1), 16)
            x13 = _mm256_rol_epi32(_mm256_xor_si256(x13, x2), 16)
            x14 = _mm256_rol_epi32(_mm256_xor_si256(x14, x3), 16)
            x10 = _mm256_add_epi32(x10, x15)
            x11 = _mm256_add_epi32(x11, x12)
            x8 = _mm256_add_epi32(x8, x13)
            x9 = _mm256_add_epi32(x9, x14)
            x5 = _mm256_rol_epi32(_mm256_xor_si256(x5, x10), 12)
            x6 = _mm256_rol_epi32(_mm256_xor_si256(x6, x11), 12)
            x7 = _mm256_rol_epi32(_mm256_xor_si256(x7, x8), 12)
            x4 = _mm256_rol_epi32(_mm256_xor_si256(x4, x9), 12)
            x0 = _mm256_add_epi32(x0, x5)
            x1 = _mm256_add_epi32(x1, x6)
            x2 = _mm256_add_epi32(x2, x7)
            x3 = _mm256_add_epi32(x3, x4)
            x15 = _mm256_rol_epi32(_mm256_xor_si256(x15, x0), 8)
            x12 = _mm256_rol_epi32(_mm256_xor_si256(x12, x1), 8)
            x13 = _mm256_rol_epi32(_mm256_xor_si256(x13, x2), 8)
            x14 = _mm256_rol_epi32(_mm256_xor_si256(x14, x3), 8)
            x10 = _mm256_add_epi32(x10, x15)
            x11 = _mm256_add_epi32(x11, x12)
            x8 = _mm256_add_epi32(x8, x13)
            x9 = _mm256_add_epi32(x9, x14)
            x5 = _mm256_rol_epi32(_mm256_xor_si256(x5, x10), 7)
            x6 = _mm256_rol_epi32(_mm256_xor_si256(x6, x11), 7)
            x7 = _mm256_rol_epi32(_mm256_xor_si256(x7, x8), 7)
            x4 = _mm256_rol_epi32(_mm256_xor_si256(x4, x9), 7)
        # feed-forward
        x0 = _mm256_add_epi32(x0, _mm256_set1_epi32(<int>st[0]))
        x1 = _mm256_add_epi32(x1, _mm256_set1_epi32(<int>st[1]))
        x2 = _mm256_add_epi32(x2, _mm256_set1_epi32(<int>st[2]))
        x3 = _mm256_add_epi32(x3, _mm256_set1_epi32(<int>st[3]))
        x4 = _mm256_add_epi32(x4, _mm256_set1_epi32(<int>st[4]))
        x5 = _mm256_add_epi32(x5, _mm256_set1_epi32(<int>st[5]))
        x6 = _mm256_add_epi32(x6, _mm256_set1_epi32(<int>st[6]))
        x7 = _mm256_add_epi32(x7, _mm256_set1_epi32(<int>st[7]))
        x8 = _mm256_add_epi32(x8, _mm256_set1_epi32(<int>st[8]))
        x9 = _mm256_add_epi32(x9, _mm256_set1_epi32(<int>st[9]))
        x10 = _mm256_add_epi32(x10, _mm256_set1_epi32(<int>st[10]))
        x11 = _mm256_add_epi32(x11, _mm256_set1_epi32(<int>st[11]))
        x12 = _mm256_add_epi32(x12, lo)
        x13 = _mm256_add_epi32(x13, hi)
        x14 = _mm256_add_epi32(x14, _mm256_set1_epi32(<int>st[14]))
        x15 = _mm256_add_epi32(x15, _mm256_set1_epi32(<int>st[15]))
        # 4x4 transposes inside each 128-bit lane: afterwards x(4g+m), 128-bit
        # lane k, holds words 4g..4g+3 of block 4k+m.
        t0 = _mm256_unpacklo_epi32(x0, x1)
        t1 = _mm256_unpackhi_epi32(x0, x1)
        t2 = _mm256_unpacklo_epi32(x2, x3)
        t3 = _mm256_unpackhi_epi32(x2, x3)
        x0 = _mm256_unpacklo_epi64(t0, t2)
        x1 = _mm256_unpackhi_epi64(t0, t2)
        x2 = _mm256_unpacklo_epi64(t1, t3)
        x3 = _mm256_unpackhi_epi64(t1, t3)
        t0 = _mm256_unpacklo_epi32(x4, x5)
        t1 = _mm256_unpackhi_epi32(x4, x5)
        t2 = _mm256_unpacklo_epi32(x6, x7)
        t3 = _mm256_unpackhi_epi32(x6, x7)
        x4 = _mm256_unpacklo_epi64(t0, t2)
        x5 = _mm256_unpackhi_epi64(t0, t2)
        x6 = _mm256_unpacklo_epi64(t1, t3)
        x7 = _mm256_unpackhi_epi64(t1, t3)
        t0 = _mm256_unpacklo_epi32(x8, x9)
        t1 = _mm256_unpackhi_epi32(x8, x9)
        t2 = _mm256_unpacklo_epi32(x10, x11)
        t3 = _mm256_unpackhi_epi32(x10, x11)
        x8 = _mm256_unpacklo_epi64(t0, t2)
        x9 = _mm256_unpackhi_epi64(t0, t2)
        x10 = _mm256_unpacklo_epi64(t1, t3)
        x11 = _mm256_unpackhi_epi64(t1, t3)
        t0 = _mm256_unpacklo_epi32(x12, x13)
        t1 = _mm256_unpackhi_epi32(x12, x13)
        t2 = _mm256_unpacklo_epi32(x14, x15)
        t3 = _mm256_unpackhi_epi32(x14, x15)
        x12 = _mm256_unpacklo_epi64(t0, t2)
        x13 = _mm256_unpackhi_epi64(t0, t2)
        x14 = _mm256_unpacklo_epi64(t1, t3)
        x15 = _mm256_unpackhi_epi64(t1, t3)
        # block m: words 0-7 from the low 128-bit lanes of x(m), x(4+m), words
        # 8-15 from x(8+m), x(12+m); block 4+m from the high lanes.
        _chacha_avx512_out8(src, dst, 0, _mm256_permute2x128_si256(x0, x4, 0x20))
        _chacha_avx512_out8(src, dst, 256, _mm256_permute2x128_si256(x0, x4, 0x31))
        _chacha_avx512_out8(src, dst, 32, _mm256_permute2x128_si256(x8, x12, 0x20))
        _chacha_avx512_out8(src, dst, 288, _mm256_permute2x128_si256(x8, x12, 0x31))
        _chacha_avx512_out8(src, dst, 64, _mm256_permute2x128_si256(x1, x5, 0x20))
        _chacha_avx512_out8(src, dst, 320, _mm256_permute2x128_si256(x1, x5, 0x31))
        _chacha_avx512_out8(src, dst, 96, _mm256_permute2x128_si256(x9, x13, 0x20))
        _chacha_avx512_out8(src, dst, 352, _mm256_permute2x128_si256(x9, x13, 0x31))
        _chacha_avx512_out8(src, dst, 128, _mm256_permute2x128_si256(x2, x6, 0x20))
        _chacha_avx512_out8(src, dst, 384, _mm256_permute2x128_si256(x2, x6, 0x31))
        _chacha_avx512_out8(src, dst, 160, _mm256_permute2x128_si256(x10, x14, 0x20))
        _chacha_avx512_out8(src, dst, 416, _mm256_permute2x128_si256(x10, x14, 0x31))
        _chacha_avx512_out8(src, dst, 192, _mm256_permute2x128_si256(x3, x7, 0x20))
        _chacha_avx512_out8(src, dst, 448, _mm256_permute2x128_si256(x3, x7, 0x31))
        _chacha_avx512_out8(src, dst, 224, _mm256_permute2x128_si256(x11, x15, 0x20))
        _chacha_avx512_out8(src, dst, 480, _mm256_permute2x128_si256(x11, x15, 0x31))
        ctr += 8
        if src != NULL:
            src += 512
        dst += 512
        nbatches -= 1


cdef void chacha20_xor_avx512(uint32_t* state16, const uint8_t* src,
                              uint8_t* dst, size_t nblocks) noexcept nogil:
    cdef uint64_t ctr = <uint64_t>state16[12] | (<uint64_t>state16[13] << 32)
    cdef size_t n, off
    cdef uint8_t buf[512]
    if nblocks >= 16:
        n = nblocks & ~(<size_t>15)
        _chacha_avx512_x16(state16, ctr, src, dst, n >> 4)
        ctr += n
        nblocks -= n
        dst += 64 * n
        if src != NULL:
            src += 64 * n
    if nblocks >= 8:
        _chacha_avx512_x8(state16, ctr, src, dst, 1)
        ctr += 8
        nblocks -= 8
        dst += 512
        if src != NULL:
            src += 512
    if nblocks:
        _chacha_avx512_x8(state16, ctr, NULL, buf, 1)
        for off in range(0, 64 * nblocks, 32):
            _chacha_avx512_out8(src, dst, off, _mm256_loadu_si256(<const __m256i*>(buf + off)))
        wipe(buf, sizeof(buf))
        ctr += nblocks
    state16[12] = <uint32_t>ctr
    state16[13] = <uint32_t>(ctr >> 32)
