# Multi-buffer Poly1305 on AVX-512 IFMA, one message per 64-bit lane (two
# sets of 8 lanes): the tags of a batch of short AEAD messages (_core/_batch.pxi).
# Included by _x86_avx512.pyx after _poly1305_avx512.pxi, whose radix-2^44
# arithmetic (_p44v_mac, _p44v_finish, _p44v_times20) it uses with a
# different r in every lane.
#
# Each lane runs Horner's rule on its own message, one block per step:
#     h <- (h + m) * r       (t = h + m < 2^45.01: within _p44v_mac's bounds)
# A lane whose message has fewer blocks than the longest of the group keeps
# its h (a blend on a mask made from the public block counts).  The blocks of
# a step are read lane by lane into a staging row, then converted to limbs in
# vectors; a lane past its end reads a block of zeros.  No branch and no
# lookup depends on keys, messages or accumulators.
from poly1305x._kernels._common cimport poly1305_finish, poly1305_init


cdef inline const uint8_t* _mb44_at(const uint8_t* const* msgs, const uint32_t* nblocks,
                                   uint32_t blk, size_t g, size_t j,
                                   const uint8_t* zero16) noexcept nogil:
    # Where block blk of lane j is (a block of zeros past its end).
    if j < g and blk < nblocks[j]:
        return msgs[j] + 16 * <size_t>blk
    return zero16


cdef inline void _mb44_row(const uint8_t* const* msgs, const uint32_t* nblocks,
                           uint32_t blk, size_t g, const uint8_t* zero16,
                           __m512i* x, __m512i* y) noexcept nogil:
    # The 16-byte block blk of lanes 0..7: low halves in x, high halves in y,
    # built in registers (a row of scalar stores read back as one vector
    # would wait for the stores, in order, behind the multiply chain).
    cdef const uint8_t* p0 = _mb44_at(msgs, nblocks, blk, g, 0, zero16)
    cdef const uint8_t* p1 = _mb44_at(msgs, nblocks, blk, g, 1, zero16)
    cdef const uint8_t* p2 = _mb44_at(msgs, nblocks, blk, g, 2, zero16)
    cdef const uint8_t* p3 = _mb44_at(msgs, nblocks, blk, g, 3, zero16)
    cdef const uint8_t* p4 = _mb44_at(msgs, nblocks, blk, g, 4, zero16)
    cdef const uint8_t* p5 = _mb44_at(msgs, nblocks, blk, g, 5, zero16)
    cdef const uint8_t* p6 = _mb44_at(msgs, nblocks, blk, g, 6, zero16)
    cdef const uint8_t* p7 = _mb44_at(msgs, nblocks, blk, g, 7, zero16)
    x[0] = _mm512_set_epi64(<long long>load64_le(p7), <long long>load64_le(p6),
                            <long long>load64_le(p5), <long long>load64_le(p4),
                            <long long>load64_le(p3), <long long>load64_le(p2),
                            <long long>load64_le(p1), <long long>load64_le(p0))
    y[0] = _mm512_set_epi64(<long long>load64_le(p7 + 8), <long long>load64_le(p6 + 8),
                            <long long>load64_le(p5 + 8), <long long>load64_le(p4 + 8),
                            <long long>load64_le(p3 + 8), <long long>load64_le(p2 + 8),
                            <long long>load64_le(p1 + 8), <long long>load64_le(p0 + 8))


cdef inline __mmask8 _mb44_live(const uint32_t* nblocks, uint32_t blk, size_t g) noexcept nogil:
    # The lanes (of g) whose messages have a block blk.
    cdef __mmask8 live = 0
    cdef size_t j
    for j in range(g):
        if blk < nblocks[j]:
            live |= <__mmask8>(1 << j)
    return live


cdef inline const uint8_t* _mb44_key(const uint8_t* const* keys, size_t g, size_t j,
                                    const uint8_t* zero16) noexcept nogil:
    return keys[j] if j < g else zero16


cdef inline uint32_t _mb44_setup(const uint8_t* const* keys, const uint32_t* nblocks,
                                 size_t g, const uint8_t* zero16, __m512i* r0, __m512i* r1,
                                 __m512i* r2) noexcept nogil:
    # r of lanes 0..g-1, clamped, as limb vectors (0 in the lanes past g),
    # built in registers; returns the largest block count.
    cdef const uint8_t* k0 = _mb44_key(keys, g, 0, zero16)
    cdef const uint8_t* k1 = _mb44_key(keys, g, 1, zero16)
    cdef const uint8_t* k2 = _mb44_key(keys, g, 2, zero16)
    cdef const uint8_t* k3 = _mb44_key(keys, g, 3, zero16)
    cdef const uint8_t* k4 = _mb44_key(keys, g, 4, zero16)
    cdef const uint8_t* k5 = _mb44_key(keys, g, 5, zero16)
    cdef const uint8_t* k6 = _mb44_key(keys, g, 6, zero16)
    cdef const uint8_t* k7 = _mb44_key(keys, g, 7, zero16)
    cdef __m512i m44 = _mm512_set1_epi64(<long long>_p44_mask44())
    cdef __m512i lo = _mm512_and_epi64(
        _mm512_set_epi64(<long long>load64_le(k7), <long long>load64_le(k6),
                         <long long>load64_le(k5), <long long>load64_le(k4),
                         <long long>load64_le(k3), <long long>load64_le(k2),
                         <long long>load64_le(k1), <long long>load64_le(k0)),
        _mm512_set1_epi64(<long long>0x0ffffffc0fffffff))
    cdef __m512i hi = _mm512_and_epi64(
        _mm512_set_epi64(<long long>load64_le(k7 + 8), <long long>load64_le(k6 + 8),
                         <long long>load64_le(k5 + 8), <long long>load64_le(k4 + 8),
                         <long long>load64_le(k3 + 8), <long long>load64_le(k2 + 8),
                         <long long>load64_le(k1 + 8), <long long>load64_le(k0 + 8)),
        _mm512_set1_epi64(<long long>0x0ffffffc0ffffffc))
    cdef uint32_t steps = 0
    cdef size_t j
    # the clamp, then base 2^64 -> limbs as _p44_from64 (r < 2^124: r2 < 2^36)
    r0[0] = _mm512_and_epi64(lo, m44)
    r1[0] = _mm512_and_epi64(_mm512_or_epi64(_mm512_srli_epi64(lo, 44),
                                             _mm512_slli_epi64(hi, 20)), m44)
    r2[0] = _mm512_srli_epi64(hi, 24)
    for j in range(g):
        if nblocks[j] > steps:
            steps = nblocks[j]
    return steps


cdef inline void _mb44_step(const uint8_t* const* msgs, const uint32_t* nblocks,
                            uint32_t blk, size_t g,
                            const uint8_t* zero16, __m512i* h0, __m512i* h1, __m512i* h2,
                            __m512i r0, __m512i r1, __m512i r2, __m512i s1,
                            __m512i s2) noexcept nogil:
    # h <- (h + m) * r in the lanes that have a block blk.
    cdef __m512i z = _mm512_setzero_si512()
    cdef __m512i m44 = _mm512_set1_epi64(<long long>_p44_mask44())
    cdef __m512i t0, t1, t2, n0, n1, n2, x, y
    cdef __m512i lo0 = z, lo1 = z, lo2 = z, hi0 = z, hi1 = z, hi2 = z
    cdef __mmask8 live = _mb44_live(nblocks, blk, g)
    _mb44_row(msgs, nblocks, blk, g, zero16, &x, &y)
    t0 = _mm512_add_epi64(h0[0], _mm512_and_epi64(x, m44))
    t1 = _mm512_add_epi64(h1[0], _mm512_and_epi64(
        _mm512_or_epi64(_mm512_srli_epi64(x, 44), _mm512_slli_epi64(y, 20)), m44))
    t2 = _mm512_add_epi64(h2[0], _mm512_or_epi64(_mm512_srli_epi64(y, 24),
                                                 _mm512_set1_epi64(<long long>1 << 40)))
    _p44v_mac(&lo0, &lo1, &lo2, &hi0, &hi1, &hi2, t0, t1, t2, r0, r1, r2, s1, s2)
    _p44v_finish(&n0, &n1, &n2, lo0, lo1, lo2, hi0, hi1, hi2)
    h0[0] = _mm512_mask_blend_epi64(live, h0[0], n0)
    h1[0] = _mm512_mask_blend_epi64(live, h1[0], n1)
    h2[0] = _mm512_mask_blend_epi64(live, h2[0], n2)


cdef inline void _mb44_tags(const uint8_t* const* keys, uint8_t* const* tags, size_t g,
                            const uint8_t* zero32, uint64_t* out, __m512i h0, __m512i h1,
                            __m512i h2) noexcept nogil:
    # The lanes' tags, in vectors: (h mod p + s) mod 2^128.  In: h0 < 2^44,
    # h1 <= 2^44, h2 < 2^42 (_p44v_finish), so h < 2^130 + 2^89 < 2p and
    # h mod p = h - b p with b = (h + 5) >> 130 (0 or 1): the carries of
    # h + 5 give b exactly.  Mod 2^128 the 2^130 of b p vanishes, so the tag
    # is h + 5 b + s mod 2^128: adds, shifts and masks, no branch and no
    # select on h.
    cdef const uint8_t* k0 = _mb44_key(keys, g, 0, zero32)
    cdef const uint8_t* k1 = _mb44_key(keys, g, 1, zero32)
    cdef const uint8_t* k2 = _mb44_key(keys, g, 2, zero32)
    cdef const uint8_t* k3 = _mb44_key(keys, g, 3, zero32)
    cdef const uint8_t* k4 = _mb44_key(keys, g, 4, zero32)
    cdef const uint8_t* k5 = _mb44_key(keys, g, 5, zero32)
    cdef const uint8_t* k6 = _mb44_key(keys, g, 6, zero32)
    cdef const uint8_t* k7 = _mb44_key(keys, g, 7, zero32)
    cdef __m512i m44 = _mm512_set1_epi64(<long long>_p44_mask44())
    cdef __m512i slo = _mm512_set_epi64(
        <long long>load64_le(k7 + 16), <long long>load64_le(k6 + 16),
        <long long>load64_le(k5 + 16), <long long>load64_le(k4 + 16),
        <long long>load64_le(k3 + 16), <long long>load64_le(k2 + 16),
        <long long>load64_le(k1 + 16), <long long>load64_le(k0 + 16))
    cdef __m512i shi = _mm512_set_epi64(
        <long long>load64_le(k7 + 24), <long long>load64_le(k6 + 24),
        <long long>load64_le(k5 + 24), <long long>load64_le(k4 + 24),
        <long long>load64_le(k3 + 24), <long long>load64_le(k2 + 24),
        <long long>load64_le(k1 + 24), <long long>load64_le(k0 + 24))
    cdef __m512i c, b, u0, u1, u2
    cdef size_t j
    # b = (h + 5) >> 130
    c = _mm512_srli_epi64(_mm512_add_epi64(h0, _mm512_set1_epi64(5)), 44)
    c = _mm512_srli_epi64(_mm512_add_epi64(h1, c), 44)
    b = _mm512_srli_epi64(_mm512_add_epi64(h2, c), 42)
    # u = h + 5 b + s, s as limbs (s0, s1 < 2^44, s2 < 2^40): u0 < 2^45 + 5,
    # u1 < 2^45 + 2, u2 < 2^43
    u0 = _mm512_add_epi64(_mm512_add_epi64(h0, _mm512_and_epi64(slo, m44)),
                          _mm512_add_epi64(b, _mm512_slli_epi64(b, 2)))
    u1 = _mm512_add_epi64(h1, _mm512_and_epi64(
        _mm512_or_epi64(_mm512_srli_epi64(slo, 44), _mm512_slli_epi64(shi, 20)), m44))
    u2 = _mm512_add_epi64(h2, _mm512_srli_epi64(shi, 24))
    c = _mm512_srli_epi64(u0, 44)
    u0 = _mm512_and_epi64(u0, m44)
    u1 = _mm512_add_epi64(u1, c)
    c = _mm512_srli_epi64(u1, 44)
    u1 = _mm512_and_epi64(u1, m44)
    u2 = _mm512_add_epi64(u2, c)
    # limbs -> two 64-bit words (bits past 2^128 shifted out)
    _mm512_storeu_si512(out, _mm512_or_epi64(u0, _mm512_slli_epi64(u1, 44)))
    _mm512_storeu_si512(out + 8, _mm512_or_epi64(_mm512_srli_epi64(u1, 20),
                                                 _mm512_slli_epi64(u2, 24)))
    for j in range(g):
        store64_le(tags[j], out[j])
        store64_le(tags[j] + 8, out[8 + j])


cdef void _poly1305_lanes16(const uint8_t* const* keys, const uint8_t* const* msgs,
                            const uint32_t* nblocks, uint8_t* const* tags,
                            size_t g) noexcept nogil:
    # g <= 16 lanes: two independent sets of eight (a: lanes 0-7, b: 8-15)
    # step by step, so that one set's multiply chain runs while the other's
    # waits.
    cdef uint64_t rl[16]
    cdef uint8_t zero16[32]            # 32: _mb44_tags reads s past the end lanes
    cdef size_t ga = g if g < 8 else 8
    cdef size_t gb = g - ga
    cdef __m512i ra0, ra1, ra2, sa1, sa2, ha0, ha1, ha2
    cdef __m512i rb0, rb1, rb2, sb1, sb2, hb0, hb1, hb2
    cdef __m512i z = _mm512_setzero_si512()
    cdef uint32_t steps, steps_b, blk
    memset(zero16, 0, 32)
    steps = _mb44_setup(keys, nblocks, ga, zero16, &ra0, &ra1, &ra2)
    steps_b = _mb44_setup(keys + ga, nblocks + ga, gb, zero16, &rb0, &rb1, &rb2)
    if steps_b > steps:
        steps = steps_b
    sa1 = _p44v_times20(ra1)
    sa2 = _p44v_times20(ra2)
    sb1 = _p44v_times20(rb1)
    sb2 = _p44v_times20(rb2)
    ha0 = ha1 = ha2 = hb0 = hb1 = hb2 = z
    for blk in range(steps):
        _mb44_step(msgs, nblocks, blk, ga, zero16, &ha0, &ha1, &ha2,
                   ra0, ra1, ra2, sa1, sa2)
        if gb:
            _mb44_step(msgs + ga, nblocks + ga, blk, gb, zero16, &hb0, &hb1, &hb2,
                       rb0, rb1, rb2, sb1, sb2)
    _mb44_tags(keys, tags, ga, zero16, rl, ha0, ha1, ha2)
    if gb:
        _mb44_tags(keys + ga, tags + ga, gb, zero16, rl, hb0, hb1, hb2)
    wipe(rl, sizeof(rl))


cdef void poly1305_lanes_avx512(const uint8_t* const* keys, const uint8_t* const* msgs,
                                const uint32_t* nblocks, uint8_t* const* tags,
                                size_t nlanes) noexcept nogil:
    """The kernel_table entry poly1305_lanes (see _kernel.pxd): 16 lanes a
    step, in two sets of eight."""
    cdef size_t g
    while nlanes:
        g = nlanes if nlanes < 16 else 16
        _poly1305_lanes16(keys, msgs, nblocks, tags, g)
        keys += g
        msgs += g
        nblocks += g
        tags += g
        nlanes -= g
