# Multi-buffer Poly1305 on AVX-512F without IFMA, one message per 64-bit lane
# (two sets of 8 lanes): the tags of a batch of short AEAD messages
# (_core/_batch.pxi).  Included by _x86_avx512f.pyx after
# _poly1305_avx512f.pxi, whose radix-2^26 zmm arithmetic (_p26z_split,
# _p26z_mac, _p26z_carry) it uses with a different r in every lane; the shape
# is the AVX2 lanes' (_poly1305_mb_avx2.pxi) on eight lanes a vector.  From
# the setup to the final reduction the keys, r, h and the tags are vector
# variables (spilled where the compiler chooses); the one row of scalar
# scratch, the tags on their way out, is wiped.
#
# Each lane runs Horner's rule on its own message, one block per step:
#     h <- (h + m) * r     (t = h + m < 2^27.01 < 2^32: within vpmuludq's
#                           reach; ten products of t and r or 5 r < 2^57.7)
# A lane whose message has fewer blocks than the longest of its set keeps its
# h (a blend on a mask made from the public block counts); past its end it
# reads a block of zeros.  No branch and no lookup depends on keys, messages
# or accumulators.
from poly1305x._kernels._common cimport poly1305_finish, poly1305_init, wipe

cdef enum:
    MBZ_MAX = 24             # longest message (in blocks) for the lanes


cdef inline const uint8_t* _mbz_at(const uint8_t* const* msgs, const uint32_t* nblocks,
                                   uint32_t blk, size_t g, size_t j,
                                   const uint8_t* zero32) noexcept nogil:
    # Where block blk of lane j is (a block of zeros past its end).
    if j < g and blk < nblocks[j]:
        return msgs[j] + 16 * <size_t>blk
    return zero32


cdef inline __m512i _mbz_words(const uint8_t* p0, const uint8_t* p1, const uint8_t* p2,
                               const uint8_t* p3, const uint8_t* p4, const uint8_t* p5,
                               const uint8_t* p6, const uint8_t* p7, size_t at) noexcept nogil:
    # The 64-bit word at byte `at` of each of the eight places, lane j = pj.
    return _mm512_set_epi64(<long long>load64_le(p7 + at), <long long>load64_le(p6 + at),
                            <long long>load64_le(p5 + at), <long long>load64_le(p4 + at),
                            <long long>load64_le(p3 + at), <long long>load64_le(p2 + at),
                            <long long>load64_le(p1 + at), <long long>load64_le(p0 + at))


cdef inline const uint8_t* _mbz_key(const uint8_t* const* keys, size_t g, size_t j,
                                    const uint8_t* zero32) noexcept nogil:
    return keys[j] if j < g else zero32


cdef inline void _mbz_keywords(const uint8_t* const* keys, size_t g, const uint8_t* zero32,
                               size_t at, __m512i* lo, __m512i* hi) noexcept nogil:
    # Bytes at..at+15 of the eight lanes' keys (zeros past g): r at 0, s at 16.
    cdef const uint8_t* k0 = _mbz_key(keys, g, 0, zero32)
    cdef const uint8_t* k1 = _mbz_key(keys, g, 1, zero32)
    cdef const uint8_t* k2 = _mbz_key(keys, g, 2, zero32)
    cdef const uint8_t* k3 = _mbz_key(keys, g, 3, zero32)
    cdef const uint8_t* k4 = _mbz_key(keys, g, 4, zero32)
    cdef const uint8_t* k5 = _mbz_key(keys, g, 5, zero32)
    cdef const uint8_t* k6 = _mbz_key(keys, g, 6, zero32)
    cdef const uint8_t* k7 = _mbz_key(keys, g, 7, zero32)
    lo[0] = _mbz_words(k0, k1, k2, k3, k4, k5, k6, k7, at)
    hi[0] = _mbz_words(k0, k1, k2, k3, k4, k5, k6, k7, at + 8)


cdef inline __mmask8 _mbz_live(const uint32_t* nblocks, uint32_t blk, size_t g) noexcept nogil:
    # The lanes (of g) whose messages have a block blk (public lengths).
    cdef __mmask8 live = 0
    cdef size_t j
    for j in range(g):
        if blk < nblocks[j]:
            live |= <__mmask8>(1 << j)
    return live


cdef inline uint32_t _mbz_setup(const uint8_t* const* keys, const uint32_t* nblocks,
                                size_t g, const uint8_t* zero32, __m512i* r,
                                __m512i* s, __m512i* h) noexcept nogil:
    # r of lanes 0..g-1, clamped, and 5 r as limb vectors (0 in the lanes past
    # g): limbs < 2^26, 5 r < 2^28.4; h = 0; returns the largest block count.
    cdef __m512i lo, hi
    cdef uint32_t steps = 0
    cdef size_t j
    _mbz_keywords(keys, g, zero32, 0, &lo, &hi)
    _p26z_split(_mm512_and_epi64(lo, _mm512_set1_epi64(<long long>0x0ffffffc0fffffff)),
                _mm512_and_epi64(hi, _mm512_set1_epi64(<long long>0x0ffffffc0ffffffc)),
                &r[0], &r[1], &r[2], &r[3], &r[4])
    for j in range(5):
        s[j] = _p26z_times5(r[j])
        h[j] = _mm512_setzero_si512()
    for j in range(g):
        if nblocks[j] > steps:
            steps = nblocks[j]
    return steps


cdef inline void _mbz_step(const uint8_t* const* msgs, const uint32_t* nblocks,
                           uint32_t blk, size_t g, const uint8_t* zero32,
                           __m512i* h, const __m512i* r, const __m512i* s) noexcept nogil:
    # h[0..4] <- (h + m) * r in the lanes (of g <= 8) that have a block blk.
    cdef const uint8_t* p0 = _mbz_at(msgs, nblocks, blk, g, 0, zero32)
    cdef const uint8_t* p1 = _mbz_at(msgs, nblocks, blk, g, 1, zero32)
    cdef const uint8_t* p2 = _mbz_at(msgs, nblocks, blk, g, 2, zero32)
    cdef const uint8_t* p3 = _mbz_at(msgs, nblocks, blk, g, 3, zero32)
    cdef const uint8_t* p4 = _mbz_at(msgs, nblocks, blk, g, 4, zero32)
    cdef const uint8_t* p5 = _mbz_at(msgs, nblocks, blk, g, 5, zero32)
    cdef const uint8_t* p6 = _mbz_at(msgs, nblocks, blk, g, 6, zero32)
    cdef const uint8_t* p7 = _mbz_at(msgs, nblocks, blk, g, 7, zero32)
    cdef __mmask8 live = _mbz_live(nblocks, blk, g)
    cdef __m512i z = _mm512_setzero_si512()
    cdef __m512i d0 = z, d1 = z, d2 = z, d3 = z, d4 = z
    cdef __m512i n0, n1, n2, n3, n4, t0, t1, t2, t3, t4
    # block limbs: t0..t3 < 2^26, t4 < 2^25 with the 2^128 bit; h from
    # _p26z_carry (< 2^26 + 2^10): sums < 2^27.01
    _p26z_split(_mbz_words(p0, p1, p2, p3, p4, p5, p6, p7, 0),
                _mbz_words(p0, p1, p2, p3, p4, p5, p6, p7, 8),
                &t0, &t1, &t2, &t3, &t4)
    t0 = _mm512_add_epi64(h[0], t0)
    t1 = _mm512_add_epi64(h[1], t1)
    t2 = _mm512_add_epi64(h[2], t2)
    t3 = _mm512_add_epi64(h[3], t3)
    t4 = _mm512_add_epi64(h[4], _mm512_or_epi64(t4, _mm512_set1_epi64(1 << 24)))
    _p26z_mac(&d0, &d1, &d2, &d3, &d4, t0, t1, t2, t3, t4,
              r[0], r[1], r[2], r[3], r[4], s[1], s[2], s[3], s[4])
    _p26z_carry(&n0, &n1, &n2, &n3, &n4, d0, d1, d2, d3, d4)
    h[0] = _mm512_mask_blend_epi64(live, h[0], n0)
    h[1] = _mm512_mask_blend_epi64(live, h[1], n1)
    h[2] = _mm512_mask_blend_epi64(live, h[2], n2)
    h[3] = _mm512_mask_blend_epi64(live, h[3], n3)
    h[4] = _mm512_mask_blend_epi64(live, h[4], n4)


cdef inline void _mbz_tags(const uint8_t* const* keys, uint8_t* const* tags, size_t g,
                           const uint8_t* zero32, uint64_t* out,
                           const __m512i* h) noexcept nogil:
    # The lanes' tags, in vectors, as _mb26_tags: in h0, h2, h3 < 2^26,
    # h1 < 2^26 + 2^10, h4 < 2^26 + 2^8 (_p26z_carry; 0 in a lane without
    # blocks), so h < 2^130 + 2^113 < 2p and h mod p = h - b p with
    # b = (h + 5) >> 130 (0 or 1); mod 2^128 the tag is h + 5 b + s.  Adds,
    # shifts and masks: no branch and no select on h.  out: 16 words.
    cdef __m512i mask = _mm512_set1_epi64(P26_MASK)
    cdef __m512i lo, hi, s0, s1, s2, s3, s4, c, b, u0, u1, u2, u3, u4
    cdef size_t j
    _mbz_keywords(keys, g, zero32, 16, &lo, &hi)
    _p26z_split(lo, hi, &s0, &s1, &s2, &s3, &s4)
    # b = (h + 5) >> 130
    c = _mm512_srli_epi64(_mm512_add_epi64(h[0], _mm512_set1_epi64(5)), 26)
    c = _mm512_srli_epi64(_mm512_add_epi64(h[1], c), 26)
    c = _mm512_srli_epi64(_mm512_add_epi64(h[2], c), 26)
    c = _mm512_srli_epi64(_mm512_add_epi64(h[3], c), 26)
    b = _mm512_srli_epi64(_mm512_add_epi64(h[4], c), 26)
    # u = h + 5 b + s (s0..s3 < 2^26, s4 < 2^24: every sum < 2^28), carried
    # up to limb 4
    u0 = _mm512_add_epi64(_mm512_add_epi64(h[0], s0), _p26z_times5(b))
    c = _mm512_srli_epi64(u0, 26)
    u0 = _mm512_and_epi64(u0, mask)
    u1 = _mm512_add_epi64(_mm512_add_epi64(h[1], s1), c)
    c = _mm512_srli_epi64(u1, 26)
    u1 = _mm512_and_epi64(u1, mask)
    u2 = _mm512_add_epi64(_mm512_add_epi64(h[2], s2), c)
    c = _mm512_srli_epi64(u2, 26)
    u2 = _mm512_and_epi64(u2, mask)
    u3 = _mm512_add_epi64(_mm512_add_epi64(h[3], s3), c)
    c = _mm512_srli_epi64(u3, 26)
    u3 = _mm512_and_epi64(u3, mask)
    u4 = _mm512_add_epi64(_mm512_add_epi64(h[4], s4), c)
    # limbs -> two 64-bit words as p26_to64 (bits past 2^128 shifted out)
    _mm512_storeu_si512(<void*>out, _mm512_or_epi64(
        _mm512_or_epi64(u0, _mm512_slli_epi64(u1, 26)), _mm512_slli_epi64(u2, 52)))
    _mm512_storeu_si512(<void*>(out + 8), _mm512_or_epi64(
        _mm512_or_epi64(_mm512_srli_epi64(u2, 12), _mm512_slli_epi64(u3, 14)),
        _mm512_slli_epi64(u4, 40)))
    for j in range(g):
        store64_le(tags[j], out[j])
        store64_le(tags[j] + 8, out[8 + j])


cdef void _poly1305_lanes16_avx512f(const uint8_t* const* keys, const uint8_t* const* msgs,
                                    const uint32_t* nblocks, uint8_t* const* tags,
                                    size_t g) noexcept nogil:
    # g <= 16 lanes: two independent sets of eight (a: lanes 0-7, b: 8-15)
    # step by step, so that one set's multiply chain runs while the other's
    # waits.
    cdef uint64_t rl[16]               # the tags' staging row
    cdef uint8_t zero32[32]            # a block of zeros; the key of a lane past g
    cdef __m512i ra[5]
    cdef __m512i sa[5]
    cdef __m512i ha[5]
    cdef __m512i rb[5]
    cdef __m512i sb[5]
    cdef __m512i hb[5]
    cdef size_t ga = g if g < 8 else 8
    cdef size_t gb = g - ga
    cdef uint32_t steps, steps_b, blk
    memset(zero32, 0, 32)
    steps = _mbz_setup(keys, nblocks, ga, zero32, ra, sa, ha)
    steps_b = _mbz_setup(keys + ga, nblocks + ga, gb, zero32, rb, sb, hb)
    if steps_b > steps:
        steps = steps_b
    for blk in range(steps):
        _mbz_step(msgs, nblocks, blk, ga, zero32, ha, ra, sa)
        if gb:
            _mbz_step(msgs + ga, nblocks + ga, blk, gb, zero32, hb, rb, sb)
    _mbz_tags(keys, tags, ga, zero32, rl, ha)
    if gb:
        _mbz_tags(keys + ga, tags + ga, gb, zero32, rl, hb)
    wipe(rl, sizeof(rl))


cdef void poly1305_lanes_avx512f(const uint8_t* const* keys, const uint8_t* const* msgs,
                                 const uint32_t* nblocks, uint8_t* const* tags,
                                 size_t nlanes) noexcept nogil:
    """The kernel_table entry poly1305_lanes (see _kernel.pxd): 16 lanes a
    step in two sets of eight; a message of more than MBZ_MAX blocks on the
    one-message kernel (its 16-block steps beat one block a step there)."""
    cdef const uint8_t* k16[16]
    cdef const uint8_t* m16[16]
    cdef uint32_t n16[16]
    cdef uint8_t* t16[16]
    cdef poly1305_state st
    cdef size_t g = 0, j
    for j in range(nlanes):
        if nblocks[j] > MBZ_MAX:
            poly1305_init(&st, keys[j], keys[j] + 16)
            poly1305_blocks_avx512f(&st, msgs[j], nblocks[j], 1)
            poly1305_finish(&st, tags[j])
            continue
        k16[g] = keys[j]
        m16[g] = msgs[j]
        n16[g] = nblocks[j]
        t16[g] = tags[j]
        g += 1
        if g == 16:
            _poly1305_lanes16_avx512f(k16, m16, n16, t16, g)
            g = 0
    if g:
        _poly1305_lanes16_avx512f(k16, m16, n16, t16, g)
    wipe(&st, sizeof(st))
