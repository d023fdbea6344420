# Multi-buffer Poly1305 on AVX2, one message per 64-bit lane (two sets of 4
# lanes): the tags of a batch of short AEAD messages (_core/_batch.pxi).
# Included by _x86_avx2.pyx after _poly1305_avx2.pxi, whose radix-2^26
# arithmetic (_p26v_split, _p26v_mac, _p26v_carry) it uses with a different
# r in every lane.  From the setup to the final reduction the keys, r, h
# and the tags are vector variables (spilled to the stack where the
# compiler chooses, as in every vector kernel); the one row of scalar
# scratch, the tags on their way out, is wiped.
#
# Each lane runs Horner's rule on its own message, one block per step:
#     h <- (h + m) * r     (t = h + m < 2^27.01 < 2^32: within vpmuludq's
#                           reach; ten products of t and r or 5 r < 2^57.7)
# A lane whose message has fewer blocks than the longest of its group keeps
# its h (an AND/ANDNOT select on a mask made from the public block counts);
# past its end it reads a block of zeros.  Messages longer than MB26_MAX
# blocks go to the one-message kernel (poly1305_blocks_avx2), whose
# four-way powers of r beat one block a step there.  No branch and no lookup
# depends on keys, messages or accumulators.
from poly1305x._kernels._common cimport poly1305_finish, poly1305_init, wipe

cdef enum:
    MB26_MAX = 24            # longest message (in blocks) for the lanes


cdef inline const uint8_t* _mb26_at(const uint8_t* const* msgs, const uint32_t* nblocks,
                                    uint32_t blk, size_t g, size_t j,
                                    const uint8_t* zero16) noexcept nogil:
    if j < g and blk < nblocks[j]:
        return msgs[j] + 16 * <size_t>blk
    return zero16


cdef inline __m256i _mb26_pair(const uint8_t* a, const uint8_t* b) noexcept nogil:
    # The 16-byte blocks at a (low half) and b (high half) of one vector.
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(<const __m128i*>a)),
                                   _mm_loadu_si128(<const __m128i*>b), 1)


cdef inline void _mb26_step(const uint8_t* const* msgs, const uint32_t* nblocks,
                            uint32_t blk, size_t g, const uint8_t* zero16, __m256i nb,
                            __m256i* h, const __m256i* r, const __m256i* s) noexcept nogil:
    # h[0..4] <- (h + m) * r in the lanes (of g <= 4) that have a block blk;
    # nb: the lanes' block counts (0 past g).  The four blocks are loaded
    # whole and transposed (two 16-byte loads a vector, then the low and the
    # high words apart), not gathered word by word.
    cdef __m256i x02 = _mb26_pair(_mb26_at(msgs, nblocks, blk, g, 0, zero16),
                                  _mb26_at(msgs, nblocks, blk, g, 2, zero16))
    cdef __m256i x13 = _mb26_pair(_mb26_at(msgs, nblocks, blk, g, 1, zero16),
                                  _mb26_at(msgs, nblocks, blk, g, 3, zero16))
    cdef __m256i lo = _mm256_unpacklo_epi64(x02, x13)   # b0.lo b1.lo | b2.lo b3.lo
    cdef __m256i hi = _mm256_unpackhi_epi64(x02, x13)   # b0.hi b1.hi | b2.hi b3.hi
    # all ones in the lanes with a block blk
    cdef __m256i live = _mm256_cmpgt_epi64(nb, _mm256_set1_epi64x(<long long>blk))
    cdef __m256i z = _mm256_setzero_si256()
    cdef __m256i d0 = z, d1 = z, d2 = z, d3 = z, d4 = z
    cdef __m256i n0, n1, n2, n3, n4, t0, t1, t2, t3, t4
    _p26v_split(lo, hi, &t0, &t1, &t2, &t3, &t4)
    t0 = _mm256_add_epi64(h[0], t0)
    t1 = _mm256_add_epi64(h[1], t1)
    t2 = _mm256_add_epi64(h[2], t2)
    t3 = _mm256_add_epi64(h[3], t3)
    t4 = _mm256_add_epi64(h[4], _mm256_or_si256(t4, _mm256_set1_epi64x(1 << 24)))
    _p26v_mac(&d0, &d1, &d2, &d3, &d4, t0, t1, t2, t3, t4,
              r[0], r[1], r[2], r[3], r[4], s[1], s[2], s[3], s[4])
    _p26v_carry(&n0, &n1, &n2, &n3, &n4, d0, d1, d2, d3, d4)
    h[0] = _mm256_or_si256(_mm256_and_si256(live, n0), _mm256_andnot_si256(live, h[0]))
    h[1] = _mm256_or_si256(_mm256_and_si256(live, n1), _mm256_andnot_si256(live, h[1]))
    h[2] = _mm256_or_si256(_mm256_and_si256(live, n2), _mm256_andnot_si256(live, h[2]))
    h[3] = _mm256_or_si256(_mm256_and_si256(live, n3), _mm256_andnot_si256(live, h[3]))
    h[4] = _mm256_or_si256(_mm256_and_si256(live, n4), _mm256_andnot_si256(live, h[4]))


cdef inline long long _mb26_word(const uint8_t* const* keys, size_t g, size_t j,
                                 size_t at) noexcept nogil:
    # The 64-bit word at byte `at` of lane j's key (0 past the g lanes).
    return <long long>load64_le(keys[j] + at) if j < g else 0


cdef inline long long _mb26_count(const uint32_t* nblocks, size_t g, size_t j) noexcept nogil:
    return nblocks[j] if j < g else 0


cdef inline uint32_t _mb26_setup(const uint8_t* const* keys, const uint32_t* nblocks,
                                 size_t g, __m256i* nb, __m256i* r, __m256i* s,
                                 __m256i* h) noexcept nogil:
    # r of lanes 0..g-1, clamped, (and 5 r) as limb vectors (0 in the lanes
    # past g), built in registers; h = 0; nb: the block counts (0 past g);
    # returns the largest.
    cdef uint32_t steps = 0
    cdef size_t j
    _p26v_split(_mm256_and_si256(
                    _mm256_set_epi64x(_mb26_word(keys, g, 3, 0), _mb26_word(keys, g, 2, 0),
                                      _mb26_word(keys, g, 1, 0), _mb26_word(keys, g, 0, 0)),
                    _mm256_set1_epi64x(<long long>0x0ffffffc0fffffff)),
                _mm256_and_si256(
                    _mm256_set_epi64x(_mb26_word(keys, g, 3, 8), _mb26_word(keys, g, 2, 8),
                                      _mb26_word(keys, g, 1, 8), _mb26_word(keys, g, 0, 8)),
                    _mm256_set1_epi64x(<long long>0x0ffffffc0ffffffc)),
                &r[0], &r[1], &r[2], &r[3], &r[4])
    for j in range(5):
        s[j] = _p26v_times5(r[j])
        h[j] = _mm256_setzero_si256()
    nb[0] = _mm256_set_epi64x(_mb26_count(nblocks, g, 3), _mb26_count(nblocks, g, 2),
                              _mb26_count(nblocks, g, 1), _mb26_count(nblocks, g, 0))
    for j in range(g):
        if nblocks[j] > steps:
            steps = nblocks[j]
    return steps


cdef inline void _mb26_tags(const uint8_t* const* keys, uint8_t* const* tags, size_t g,
                            uint64_t* out, const __m256i* h) noexcept nogil:
    # The lanes' tags, in vectors: (h mod p + s) mod 2^128.  In: h0, h2, h3
    # < 2^26, h1 < 2^26 + 2^10, h4 < 2^26 + 2^8 (_p26v_carry; 0 in a lane
    # without blocks), so h < 2^130 + 2^113 < 2p and h mod p = h - b p with
    # b = (h + 5) >> 130 (0 or 1): the carries of h + 5 give b exactly.  Mod
    # 2^128 the 2^130 of b p vanishes, so the tag is h + 5 b + s mod 2^128:
    # adds, shifts and masks, no branch and no select on h.  out: 8 words.
    cdef __m256i mask = _mm256_set1_epi64x(0x3ffffff)
    cdef __m256i s0, s1, s2, s3, s4, c, b, u0, u1, u2, u3, u4
    cdef size_t j
    _p26v_split(_mm256_set_epi64x(_mb26_word(keys, g, 3, 16), _mb26_word(keys, g, 2, 16),
                                  _mb26_word(keys, g, 1, 16), _mb26_word(keys, g, 0, 16)),
                _mm256_set_epi64x(_mb26_word(keys, g, 3, 24), _mb26_word(keys, g, 2, 24),
                                  _mb26_word(keys, g, 1, 24), _mb26_word(keys, g, 0, 24)),
                &s0, &s1, &s2, &s3, &s4)
    # b = (h + 5) >> 130
    c = _mm256_srli_epi64(_mm256_add_epi64(h[0], _mm256_set1_epi64x(5)), 26)
    c = _mm256_srli_epi64(_mm256_add_epi64(h[1], c), 26)
    c = _mm256_srli_epi64(_mm256_add_epi64(h[2], c), 26)
    c = _mm256_srli_epi64(_mm256_add_epi64(h[3], c), 26)
    b = _mm256_srli_epi64(_mm256_add_epi64(h[4], c), 26)
    # u = h + 5 b + s (s0..s3 < 2^26, s4 < 2^24: every sum < 2^28), carried
    # up to limb 4
    u0 = _mm256_add_epi64(_mm256_add_epi64(h[0], s0), _p26v_times5(b))
    c = _mm256_srli_epi64(u0, 26)
    u0 = _mm256_and_si256(u0, mask)
    u1 = _mm256_add_epi64(_mm256_add_epi64(h[1], s1), c)
    c = _mm256_srli_epi64(u1, 26)
    u1 = _mm256_and_si256(u1, mask)
    u2 = _mm256_add_epi64(_mm256_add_epi64(h[2], s2), c)
    c = _mm256_srli_epi64(u2, 26)
    u2 = _mm256_and_si256(u2, mask)
    u3 = _mm256_add_epi64(_mm256_add_epi64(h[3], s3), c)
    c = _mm256_srli_epi64(u3, 26)
    u3 = _mm256_and_si256(u3, mask)
    u4 = _mm256_add_epi64(_mm256_add_epi64(h[4], s4), c)
    # limbs -> two 64-bit words as p26_to64 (bits past 2^128 shifted out)
    _mm256_storeu_si256(<__m256i*>out, _mm256_or_si256(
        _mm256_or_si256(u0, _mm256_slli_epi64(u1, 26)), _mm256_slli_epi64(u2, 52)))
    _mm256_storeu_si256(<__m256i*>(out + 4), _mm256_or_si256(
        _mm256_or_si256(_mm256_srli_epi64(u2, 12), _mm256_slli_epi64(u3, 14)),
        _mm256_slli_epi64(u4, 40)))
    for j in range(g):
        store64_le(tags[j], out[j])
        store64_le(tags[j] + 8, out[4 + j])


cdef void _poly1305_lanes8_avx2(const uint8_t* const* keys, const uint8_t* const* msgs,
                                const uint32_t* nblocks, uint8_t* const* tags,
                                size_t g) noexcept nogil:
    # g <= 8 lanes: two independent sets of four, step by step.
    cdef uint64_t rl[8]                # the tags' staging row
    cdef uint8_t zero16[16]
    cdef __m256i ra[5]
    cdef __m256i sa[5]
    cdef __m256i ha[5]
    cdef __m256i rb[5]
    cdef __m256i sb[5]
    cdef __m256i hb[5]
    cdef size_t ga = g if g < 4 else 4
    cdef size_t gb = g - ga
    cdef __m256i na, nb
    cdef uint32_t steps, steps_b, blk
    memset(zero16, 0, 16)
    steps = _mb26_setup(keys, nblocks, ga, &na, ra, sa, ha)
    steps_b = _mb26_setup(keys + ga, nblocks + ga, gb, &nb, rb, sb, hb)
    if steps_b > steps:
        steps = steps_b
    for blk in range(steps):
        _mb26_step(msgs, nblocks, blk, ga, zero16, na, ha, ra, sa)
        if gb:
            _mb26_step(msgs + ga, nblocks + ga, blk, gb, zero16, nb, hb, rb, sb)
    _mb26_tags(keys, tags, ga, rl, ha)
    if gb:
        _mb26_tags(keys + ga, tags + ga, gb, rl, hb)
    wipe(rl, sizeof(rl))


cdef void poly1305_lanes_avx2(const uint8_t* const* keys, const uint8_t* const* msgs,
                              const uint32_t* nblocks, uint8_t* const* tags,
                              size_t nlanes) noexcept nogil:
    """The kernel_table entry poly1305_lanes (see _kernel.pxd): 8 lanes a
    step in two sets of four; a message of more than MB26_MAX blocks on the
    one-message kernel."""
    cdef const uint8_t* k8[8]
    cdef const uint8_t* m8[8]
    cdef uint32_t n8[8]
    cdef uint8_t* t8[8]
    cdef poly1305_state st
    cdef size_t g = 0, j
    for j in range(nlanes):
        if nblocks[j] > MB26_MAX:
            poly1305_init(&st, keys[j], keys[j] + 16)
            poly1305_blocks_avx2(&st, msgs[j], nblocks[j], 1)
            poly1305_finish(&st, tags[j])
            continue
        k8[g] = keys[j]
        m8[g] = msgs[j]
        n8[g] = nblocks[j]
        t8[g] = tags[j]
        g += 1
        if g == 8:
            _poly1305_lanes8_avx2(k8, m8, n8, t8, g)
            g = 0
    if g:
        _poly1305_lanes8_avx2(k8, m8, n8, t8, g)
    wipe(&st, sizeof(st))
