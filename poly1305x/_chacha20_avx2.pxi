# ChaCha20 AVX2 kernels (included by _x86_avx2.pyx).
#
# Vertical layout: ymm register x(i) holds word i of the ChaCha state of 8
# consecutive blocks, one block per 32-bit lane, so the twenty rounds run
# with no shuffling of words between lanes.  AVX2 has no
# rotate: rotations by 16 and 8 are byte shuffles (vpshufb), by 12 and 7 a
# shift pair and an OR.  The blocks then leave the registers through a 4x4
# 32-bit transpose inside each 128-bit lane and a regrouping of the 128-bit
# lanes, and are XORed into the message with unaligned loads and stores.
#
# The block counter is the 64-bit number in state words 12 (low) and 13 (high):
# lane j of a batch gets ctr + j with the carry out of word 12 into word 13
# computed per lane, so a batch that straddles 2^32 is right.  A final batch
# with fewer blocks than lanes is generated into a stack buffer, XORed, and
# the buffer wiped.  One to four blocks (short messages, and tails) use a
# horizontal kernel instead, which is bound by latency rather than throughput.
from poly1305x._portable cimport wipe


cdef inline __m256i _chacha_avx2_rotl12_8(__m256i v) noexcept nogil:
    return _mm256_or_si256(_mm256_slli_epi32(v, 12), _mm256_srli_epi32(v, 20))


cdef inline __m256i _chacha_avx2_rotl7_8(__m256i v) noexcept nogil:
    return _mm256_or_si256(_mm256_slli_epi32(v, 7), _mm256_srli_epi32(v, 25))


cdef inline void _chacha_avx2_out8(const uint8_t* src, uint8_t* dst, size_t off,
                                   __m256i ks) noexcept nogil:
    """32 key-stream bytes to dst + off, XORed with src + off unless src is NULL.
    (src may equal dst: each 32 bytes are loaded before they are stored.)"""
    if src != NULL:
        ks = _mm256_xor_si256(ks, _mm256_loadu_si256(<const __m256i*>(src + off)))
    _mm256_storeu_si256(<__m256i*>(dst + off), ks)


cdef void _chacha_avx2_xor_buf(const uint8_t* src, uint8_t* dst, const uint8_t* ks,
                               size_t nblocks) noexcept nogil:
    """dst = src XOR ks (or dst = ks when src is NULL) for nblocks 64-byte blocks."""
    cdef size_t off
    for off in range(0, 64 * nblocks, 32):
        _chacha_avx2_out8(src, dst, off, _mm256_loadu_si256(<const __m256i*>(ks + off)))


cdef void _chacha_avx2_x8(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                         uint8_t* dst, size_t nbatches) noexcept nogil:
    """nbatches x 8 blocks (ymm) from 64-bit counter ctr; src NULL: bare key stream.
    """
    cdef __m256i x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15
    cdef __m256i t0, t1, t2, t3, base, lo, hi
    cdef __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
    # byte shuffles (within each 128-bit lane) rotating every word left by 16, 8
    cdef __m256i r16 = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13)
    cdef __m256i r8 = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14)
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
        for i in range(2):
            # column round: quarter-rounds two at a time
            x0 = _mm256_add_epi32(x0, x4)
            x1 = _mm256_add_epi32(x1, x5)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x0), r16)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x1), r16)
            x8 = _mm256_add_epi32(x8, x12)
            x9 = _mm256_add_epi32(x9, x13)
            x4 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x4, x8))
            x5 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x5, x9))
            x0 = _mm256_add_epi32(x0, x4)
            x1 = _mm256_add_epi32(x1, x5)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x0), r8)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x1), r8)
            x8 = _mm256_add_epi32(x8, x12)
            x9 = _mm256_add_epi32(x9, x13)
            x4 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x4, x8))
            x5 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x5, x9))
            x2 = _mm256_add_epi32(x2, x6)
            x3 = _mm256_add_epi32(x3, x7)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x2), r16)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x3), r16)
            x10 = _mm256_add_epi32(x10, x14)
            x11 = _mm256_add_epi32(x11, x15)
            x6 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x6, x10))
            x7 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x7, x11))
            x2 = _mm256_add_epi32(x2, x6)
            x3 = _mm256_add_epi32(x3, x7)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x2), r8)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x3), r8)
            x10 = _mm256_add_epi32(x10, x14)
            x11 = _mm256_add_epi32(x11, x15)
            x6 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x6, x10))
            x7 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x7, x11))
            # diagonal round: quarter-rounds two at a time
            x0 = _mm256_add_epi32(x0, x5)
            x1 = _mm256_add_epi32(x1, x6)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x0), r16)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x1), r16)
            x10 = _mm256_add_epi32(x10, x15)
            x11 = _mm256_add_epi32(x11, x12)
            x5 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x5, x10))
            x6 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x6, x11))
            x0 = _mm256_add_epi32(x0, x5)
            x1 = _mm256_add_epi32(x1, x6)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x0), r8)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x1), r8)
            x10 = _mm256_add_epi32(x10, x15)
            x11 = _mm256_add_epi32(x11, x12)
            x5 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x5, x10))
            x6 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x6, x11))
            x2 = _mm256_add_epi32(x2, x7)
            x3 = _mm256_add_epi32(x3, x4)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x2), r16)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x3), r16)
            x8 = _mm256_add_epi32(x8, x13)
            x9 = _mm256_add_epi32(x9, x14)
            x7 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x7, x8))
            x4 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x4, x9))
            x2 = _mm256_add_epi32(x2, x7)
            x3 = _mm256_add_epi32(x3, x4)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x2), r8)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x3), r8)
            x8 = _mm256_add_epi32(x8, x13)
            x9 = _mm256_add_epi32(x9, x14)
            x7 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x7, x8))
            x4 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x4, x9))
            # column round: quarter-rounds two at a time
            x0 = _mm256_add_epi32(x0, x4)
            x1 = _mm256_add_epi32(x1, x5)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x0), r16)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x1), r16)
            x8 = _mm256_add_epi32(x8, x12)
            x9 = _mm256_add_epi32(x9, x13)
            x4 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x4, x8))
            x5 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x5, x9))
            x0 = _mm256_add_epi32(x0, x4)
            x1 = _mm256_add_epi32(x1, x5)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x0), r8)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x1), r8)
            x8 = _mm256_add_epi32(x8, x12)
            x9 = _mm256_add_epi32(x9, x13)
            x4 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x4, x8))
            x5 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x5, x9))
            x2 = _mm256_add_epi32(x2, x6)
            x3 = _mm256_add_epi32(x3, x7)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x2), r16)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x3), r16)
            x10 = _mm256_add_epi32(x10, x14)
            x11 = _mm256_add_epi32(x11, x15)
            x6 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x6, x10))
            x7 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x7, x11))
            x2 = _mm256_add_epi32(x2, x6)
            x3 = _mm256_add_epi32(x3, x7)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x2), r8)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x3), r8)
            x10 = _mm256_add_epi32(x10, x14)
            x11 = _mm256_add_epi32(x11, x15)
            x6 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x6, x10))
            x7 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x7, x11))
            # diagonal round: quarter-rounds two at a time
            x0 = _mm256_add_epi32(x0, x5)
            x1 = _mm256_add_epi32(x1, x6)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x0), r16)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x1), r16)
            x10 = _mm256_add_epi32(x10, x15)
            x11 = _mm256_add_epi32(x11, x12)
            x5 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x5, x10))
            x6 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x6, x11))
            x0 = _mm256_add_epi32(x0, x5)
            x1 = _mm256_add_epi32(x1, x6)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x0), r8)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x1), r8)
            x10 = _mm256_add_epi32(x10, x15)
            x11 = _mm256_add_epi32(x11, x12)
            x5 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x5, x10))
            x6 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x6, x11))
            x2 = _mm256_add_epi32(x2, x7)
            x3 = _mm256_add_epi32(x3, x4)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x2), r16)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x3), r16)
            x8 = _mm256_add_epi32(x8, x13)
            x9 = _mm256_add_epi32(x9, x14)
            x7 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x7, x8))
            x4 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x4, x9))
            x2 = _mm256_add_epi32(x2, x7)
            x3 = _mm256_add_epi32(x3, x4)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x2), r8)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x3), r8)
            x8 = _mm256_add_epi32(x8, x13)
            x9 = _mm256_add_epi32(x9, x14)
            x7 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x7, x8))
            x4 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x4, x9))
            # column round: quarter-rounds two at a time
            x0 = _mm256_add_epi32(x0, x4)
            x1 = _mm256_add_epi32(x1, x5)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x0), r16)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x1), r16)
            x8 = _mm256_add_epi32(x8, x12)
            x9 = _mm256_add_epi32(x9, x13)
            x4 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x4, x8))
            x5 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x5, x9))
            x0 = _mm256_add_epi32(x0, x4)
            x1 = _mm256_add_epi32(x1, x5)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x0), r8)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x1), r8)
            x8 = _mm256_add_epi32(x8, x12)
            x9 = _mm256_add_epi32(x9, x13)
            x4 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x4, x8))
            x5 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x5, x9))
            x2 = _mm256_add_epi32(x2, x6)
            x3 = _mm256_add_epi32(x3, x7)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x2), r16)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x3), r16)
            x10 = _mm256_add_epi32(x10, x14)
            x11 = _mm256_add_epi32(x11, x15)
            x6 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x6, x10))
            x7 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x7, x11))
            x2 = _mm256_add_epi32(x2, x6)
            x3 = _mm256_add_epi32(x3, x7)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x2), r8)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x3), r8)
            x10 = _mm256_add_epi32(x10, x14)
            x11 = _mm256_add_epi32(x11, x15)
            x6 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x6, x10))
            x7 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x7, x11))
            # diagonal round: quarter-rounds two at a time
            x0 = _mm256_add_epi32(x0, x5)
            x1 = _mm256_add_epi32(x1, x6)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x0), r16)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x1), r16)
            x10 = _mm256_add_epi32(x10, x15)
            x11 = _mm256_add_epi32(x11, x12)
            x5 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x5, x10))
            x6 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x6, x11))
            x0 = _mm256_add_epi32(x0, x5)
            x1 = _mm256_add_epi32(x1, x6)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x0), r8)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x1), r8)
            x10 = _mm256_add_epi32(x10, x15)
            x11 = _mm256_add_epi32(x11, x12)
            x5 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x5, x10))
            x6 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x6, x11))
            x2 = _mm256_add_epi32(x2, x7)
            x3 = _mm256_add_epi32(x3, x4)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x2), r16)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x3), r16)
            x8 = _mm256_add_epi32(x8, x13)
            x9 = _mm256_add_epi32(x9, x14)
            x7 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x7, x8))
            x4 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x4, x9))
            x2 = _mm256_add_epi32(x2, x7)
            x3 = _mm256_add_epi32(x3, x4)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x2), r8)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x3), r8)
            x8 = _mm256_add_epi32(x8, x13)
            x9 = _mm256_add_epi32(x9, x14)
            x7 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x7, x8))
            x4 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x4, x9))
            # column round: quarter-rounds two at a time
            x0 = _mm256_add_epi32(x0, x4)
            x1 = _mm256_add_epi32(x1, x5)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x0), r16)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x1), r16)
            x8 = _mm256_add_epi32(x8, x12)
            x9 = _mm256_add_epi32(x9, x13)
            x4 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x4, x8))
            x5 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x5, x9))
            x0 = _mm256_add_epi32(x0, x4)
            x1 = _mm256_add_epi32(x1, x5)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x0), r8)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x1), r8)
            x8 = _mm256_add_epi32(x8, x12)
            x9 = _mm256_add_epi32(x9, x13)
            x4 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x4, x8))
            x5 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x5, x9))
            x2 = _mm256_add_epi32(x2, x6)
            x3 = _mm256_add_epi32(x3, x7)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x2), r16)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x3), r16)
            x10 = _mm256_add_epi32(x10, x14)
            x11 = _mm256_add_epi32(x11, x15)
            x6 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x6, x10))
            x7 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x7, x11))
            x2 = _mm256_add_epi32(x2, x6)
            x3 = _mm256_add_epi32(x3, x7)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x2), r8)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x3), r8)
            x10 = _mm256_add_epi32(x10, x14)
            x11 = _mm256_add_epi32(x11, x15)
            x6 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x6, x10))
            x7 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x7, x11))
            # diagonal round: quarter-rounds two at a time
            x0 = _mm256_add_epi32(x0, x5)
            x1 = _mm256_add_epi32(x1, x6)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x0), r16)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x1), r16)
            x10 = _mm256_add_epi32(x10, x15)
            x11 = _mm256_add_epi32(x11, x12)
            x5 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x5, x10))
            x6 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x6, x11))
            x0 = _mm256_add_epi32(x0, x5)
            x1 = _mm256_add_epi32(x1, x6)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x0), r8)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x1), r8)
            x10 = _mm256_add_epi32(x10, x15)
            x11 = _mm256_add_epi32(x11, x12)
            x5 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x5, x10))
            x6 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x6, x11))
            x2 = _mm256_add_epi32(x2, x7)
            x3 = _mm256_add_epi32(x3, x4)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x2), r16)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x3), r16)
            x8 = _mm256_add_epi32(x8, x13)
            x9 = _mm256_add_epi32(x9, x14)
            x7 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x7, x8))
            x4 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x4, x9))
            x2 = _mm256_add_epi32(x2, x7)
            x3 = _mm256_add_epi32(x3, x4)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x2), r8)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x3), r8)
            x8 = _mm256_add_epi32(x8, x13)
            x9 = _mm256_add_epi32(x9, x14)
            x7 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x7, x8))
            x4 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x4, x9))
            # column round: quarter-rounds two at a time
            x0 = _mm256_add_epi32(x0, x4)
            x1 = _mm256_add_epi32(x1, x5)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x0), r16)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x1), r16)
            x8 = _mm256_add_epi32(x8, x12)
            x9 = _mm256_add_epi32(x9, x13)
            x4 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x4, x8))
            x5 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x5, x9))
            x0 = _mm256_add_epi32(x0, x4)
            x1 = _mm256_add_epi32(x1, x5)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x0), r8)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x1), r8)
            x8 = _mm256_add_epi32(x8, x12)
            x9 = _mm256_add_epi32(x9, x13)
            x4 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x4, x8))
            x5 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x5, x9))
            x2 = _mm256_add_epi32(x2, x6)
            x3 = _mm256_add_epi32(x3, x7)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x2), r16)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x3), r16)
            x10 = _mm256_add_epi32(x10, x14)
            x11 = _mm256_add_epi32(x11, x15)
            x6 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x6, x10))
            x7 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x7, x11))
            x2 = _mm256_add_epi32(x2, x6)
            x3 = _mm256_add_epi32(x3, x7)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x2), r8)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x3), r8)
            x10 = _mm256_add_epi32(x10, x14)
            x11 = _mm256_add_epi32(x11, x15)
            x6 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x6, x10))
            x7 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x7, x11))
            # diagonal round: quarter-rounds two at a time
            x0 = _mm256_add_epi32(x0, x5)
            x1 = _mm256_add_epi32(x1, x6)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x0), r16)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x1), r16)
            x10 = _mm256_add_epi32(x10, x15)
            x11 = _mm256_add_epi32(x11, x12)
            x5 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x5, x10))
            x6 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x6, x11))
            x0 = _mm256_add_epi32(x0, x5)
            x1 = _mm256_add_epi32(x1, x6)
            x15 = _mm256_shuffle_epi8(_mm256_xor_si256(x15, x0), r8)
            x12 = _mm256_shuffle_epi8(_mm256_xor_si256(x12, x1), r8)
            x10 = _mm256_add_epi32(x10, x15)
            x11 = _mm256_add_epi32(x11, x12)
            x5 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x5, x10))
            x6 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x6, x11))
            x2 = _mm256_add_epi32(x2, x7)
            x3 = _mm256_add_epi32(x3, x4)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x2), r16)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x3), r16)
            x8 = _mm256_add_epi32(x8, x13)
            x9 = _mm256_add_epi32(x9, x14)
            x7 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x7, x8))
            x4 = _chacha_avx2_rotl12_8(_mm256_xor_si256(x4, x9))
            x2 = _mm256_add_epi32(x2, x7)
            x3 = _mm256_add_epi32(x3, x4)
            x13 = _mm256_shuffle_epi8(_mm256_xor_si256(x13, x2), r8)
            x14 = _mm256_shuffle_epi8(_mm256_xor_si256(x14, x3), r8)
            x8 = _mm256_add_epi32(x8, x13)
            x9 = _mm256_add_epi32(x9, x14)
            x7 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x7, x8))
            x4 = _chacha_avx2_rotl7_8(_mm256_xor_si256(x4, x9))
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
        _chacha_avx2_out8(src, dst, 0, _mm256_permute2x128_si256(x0, x4, 0x20))
        _chacha_avx2_out8(src, dst, 256, _mm256_permute2x128_si256(x0, x4, 0x31))
        _chacha_avx2_out8(src, dst, 32, _mm256_permute2x128_si256(x8, x12, 0x20))
        _chacha_avx2_out8(src, dst, 288, _mm256_permute2x128_si256(x8, x12, 0x31))
        _chacha_avx2_out8(src, dst, 64, _mm256_permute2x128_si256(x1, x5, 0x20))
        _chacha_avx2_out8(src, dst, 320, _mm256_permute2x128_si256(x1, x5, 0x31))
        _chacha_avx2_out8(src, dst, 96, _mm256_permute2x128_si256(x9, x13, 0x20))
        _chacha_avx2_out8(src, dst, 352, _mm256_permute2x128_si256(x9, x13, 0x31))
        _chacha_avx2_out8(src, dst, 128, _mm256_permute2x128_si256(x2, x6, 0x20))
        _chacha_avx2_out8(src, dst, 384, _mm256_permute2x128_si256(x2, x6, 0x31))
        _chacha_avx2_out8(src, dst, 160, _mm256_permute2x128_si256(x10, x14, 0x20))
        _chacha_avx2_out8(src, dst, 416, _mm256_permute2x128_si256(x10, x14, 0x31))
        _chacha_avx2_out8(src, dst, 192, _mm256_permute2x128_si256(x3, x7, 0x20))
        _chacha_avx2_out8(src, dst, 448, _mm256_permute2x128_si256(x3, x7, 0x31))
        _chacha_avx2_out8(src, dst, 224, _mm256_permute2x128_si256(x11, x15, 0x20))
        _chacha_avx2_out8(src, dst, 480, _mm256_permute2x128_si256(x11, x15, 0x31))
        ctr += 8
        if src != NULL:
            src += 512
        dst += 512
        nbatches -= 1


cdef void _chacha_avx2_h4(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                          uint8_t* dst, size_t nblocks) noexcept nogil:
    """1-4 blocks for short inputs, horizontal layout: each ymm holds one row
    of two blocks (128-bit lane 0: block k, lane 1: block k+1), two such
    states side by side.  A block's quarter-rounds form one dependency chain,
    so this finishes in about the latency of a single block, where the
    vertical kernels need the throughput of eight.  Writes only nblocks
    blocks, no buffer."""
    cdef __m256i a0, b0, c0, d0, a1, b1, c1, d1, ia, ib, ic, id0, id1
    cdef __m256i r16 = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
                                        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13)
    cdef __m256i r8 = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14,
                                       3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14)
    cdef uint64_t c1_, c2_, c3_
    cdef int i
    ia = _mm256_setr_epi32(<int>st[0], <int>st[1], <int>st[2], <int>st[3],
                           <int>st[0], <int>st[1], <int>st[2], <int>st[3])
    ib = _mm256_setr_epi32(<int>st[4], <int>st[5], <int>st[6], <int>st[7],
                           <int>st[4], <int>st[5], <int>st[6], <int>st[7])
    ic = _mm256_setr_epi32(<int>st[8], <int>st[9], <int>st[10], <int>st[11],
                           <int>st[8], <int>st[9], <int>st[10], <int>st[11])
    # Counter rows of blocks 0..3, 64-bit additions in scalar.
    c1_ = ctr + 1
    c2_ = ctr + 2
    c3_ = ctr + 3
    id0 = _mm256_setr_epi32(<int><uint32_t>ctr, <int><uint32_t>(ctr >> 32), <int>st[14], <int>st[15],
                            <int><uint32_t>c1_, <int><uint32_t>(c1_ >> 32), <int>st[14], <int>st[15])
    id1 = _mm256_setr_epi32(<int><uint32_t>c2_, <int><uint32_t>(c2_ >> 32), <int>st[14], <int>st[15],
                            <int><uint32_t>c3_, <int><uint32_t>(c3_ >> 32), <int>st[14], <int>st[15])
    a0 = ia; b0 = ib; c0 = ic; d0 = id0
    a1 = ia; b1 = ib; c1 = ic; d1 = id1
    for i in range(10):
        # column round (quarter-round on the rows), both states
        a0 = _mm256_add_epi32(a0, b0)
        a1 = _mm256_add_epi32(a1, b1)
        d0 = _mm256_shuffle_epi8(_mm256_xor_si256(d0, a0), r16)
        d1 = _mm256_shuffle_epi8(_mm256_xor_si256(d1, a1), r16)
        c0 = _mm256_add_epi32(c0, d0)
        c1 = _mm256_add_epi32(c1, d1)
        b0 = _chacha_avx2_rotl12_8(_mm256_xor_si256(b0, c0))
        b1 = _chacha_avx2_rotl12_8(_mm256_xor_si256(b1, c1))
        a0 = _mm256_add_epi32(a0, b0)
        a1 = _mm256_add_epi32(a1, b1)
        d0 = _mm256_shuffle_epi8(_mm256_xor_si256(d0, a0), r8)
        d1 = _mm256_shuffle_epi8(_mm256_xor_si256(d1, a1), r8)
        c0 = _mm256_add_epi32(c0, d0)
        c1 = _mm256_add_epi32(c1, d1)
        b0 = _chacha_avx2_rotl7_8(_mm256_xor_si256(b0, c0))
        b1 = _chacha_avx2_rotl7_8(_mm256_xor_si256(b1, c1))
        # diagonalize: column j becomes (a_j, b_j+1, c_j+2, d_j+3)
        b0 = _mm256_shuffle_epi32(b0, 0x39)
        b1 = _mm256_shuffle_epi32(b1, 0x39)
        c0 = _mm256_shuffle_epi32(c0, 0x4E)
        c1 = _mm256_shuffle_epi32(c1, 0x4E)
        d0 = _mm256_shuffle_epi32(d0, 0x93)
        d1 = _mm256_shuffle_epi32(d1, 0x93)
        # diagonal round
        a0 = _mm256_add_epi32(a0, b0)
        a1 = _mm256_add_epi32(a1, b1)
        d0 = _mm256_shuffle_epi8(_mm256_xor_si256(d0, a0), r16)
        d1 = _mm256_shuffle_epi8(_mm256_xor_si256(d1, a1), r16)
        c0 = _mm256_add_epi32(c0, d0)
        c1 = _mm256_add_epi32(c1, d1)
        b0 = _chacha_avx2_rotl12_8(_mm256_xor_si256(b0, c0))
        b1 = _chacha_avx2_rotl12_8(_mm256_xor_si256(b1, c1))
        a0 = _mm256_add_epi32(a0, b0)
        a1 = _mm256_add_epi32(a1, b1)
        d0 = _mm256_shuffle_epi8(_mm256_xor_si256(d0, a0), r8)
        d1 = _mm256_shuffle_epi8(_mm256_xor_si256(d1, a1), r8)
        c0 = _mm256_add_epi32(c0, d0)
        c1 = _mm256_add_epi32(c1, d1)
        b0 = _chacha_avx2_rotl7_8(_mm256_xor_si256(b0, c0))
        b1 = _chacha_avx2_rotl7_8(_mm256_xor_si256(b1, c1))
        # back to columns
        b0 = _mm256_shuffle_epi32(b0, 0x93)
        b1 = _mm256_shuffle_epi32(b1, 0x93)
        c0 = _mm256_shuffle_epi32(c0, 0x4E)
        c1 = _mm256_shuffle_epi32(c1, 0x4E)
        d0 = _mm256_shuffle_epi32(d0, 0x39)
        d1 = _mm256_shuffle_epi32(d1, 0x39)
    a0 = _mm256_add_epi32(a0, ia)
    b0 = _mm256_add_epi32(b0, ib)
    c0 = _mm256_add_epi32(c0, ic)
    d0 = _mm256_add_epi32(d0, id0)
    a1 = _mm256_add_epi32(a1, ia)
    b1 = _mm256_add_epi32(b1, ib)
    c1 = _mm256_add_epi32(c1, ic)
    d1 = _mm256_add_epi32(d1, id1)
    # block 0: rows a, b, c, d of lane 0 of the first state; block 1: lane 1;
    # blocks 2 and 3 likewise from the second state.
    _chacha_avx2_out8(src, dst, 0, _mm256_permute2x128_si256(a0, b0, 0x20))
    _chacha_avx2_out8(src, dst, 32, _mm256_permute2x128_si256(c0, d0, 0x20))
    if nblocks > 1:
        _chacha_avx2_out8(src, dst, 64, _mm256_permute2x128_si256(a0, b0, 0x31))
        _chacha_avx2_out8(src, dst, 96, _mm256_permute2x128_si256(c0, d0, 0x31))
    if nblocks > 2:
        _chacha_avx2_out8(src, dst, 128, _mm256_permute2x128_si256(a1, b1, 0x20))
        _chacha_avx2_out8(src, dst, 160, _mm256_permute2x128_si256(c1, d1, 0x20))
    if nblocks > 3:
        _chacha_avx2_out8(src, dst, 192, _mm256_permute2x128_si256(a1, b1, 0x31))
        _chacha_avx2_out8(src, dst, 224, _mm256_permute2x128_si256(c1, d1, 0x31))

cdef void chacha20_xor_avx2(uint32_t* state16, const uint8_t* src,
                            uint8_t* dst, size_t nblocks) noexcept nogil:
    cdef uint64_t ctr = <uint64_t>state16[12] | (<uint64_t>state16[13] << 32)
    cdef size_t n
    cdef uint8_t buf[512]
    if nblocks >= 8:
        n = nblocks & ~(<size_t>7)
        _chacha_avx2_x8(state16, ctr, src, dst, n >> 3)
        ctr += n
        nblocks -= n
        dst += 64 * n
        if src != NULL:
            src += 64 * n
    if nblocks > 4:
        # 5-7 blocks left: one 8-block batch into the stack buffer.
        _chacha_avx2_x8(state16, ctr, NULL, buf, 1)
        _chacha_avx2_xor_buf(src, dst, buf, nblocks)
        wipe(buf, sizeof(buf))
    elif nblocks:
        _chacha_avx2_h4(state16, ctr, src, dst, nblocks)
    ctr += nblocks
    state16[12] = <uint32_t>ctr
    state16[13] = <uint32_t>(ctr >> 32)
