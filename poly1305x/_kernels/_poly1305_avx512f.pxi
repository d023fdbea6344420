# Poly1305 AVX-512F kernel, no IFMA (included by _x86_avx512f.pyx after
# _poly1305_avx2.pxi, whose radix-2^26 powers of r it shares).
#
# Radix 2^26 as the AVX2 kernel, widened to zmm: a number is five limbs
# x0 + x1*2^26 + ... + x4*2^104 in the 64-bit lanes of a zmm register, eight
# lanes = eight independent accumulators.  The multiply is vpmuludq
# (_mm512_mul_epu32): the low 32 bits of each 64-bit lane times the low 32
# bits, a 64-bit product.  So every limb that enters a multiply is < 2^32 and
# a sum of ten products stays < 2^64.  2^130 = 5 (mod p) folds the wrap-around
# products through s_i = 5 r_i.
#
# Lanes.  Lane j takes blocks j, j+8, j+16, ... (position p = j in each group
# of eight; the loads keep the natural order).  Per 16 blocks (two groups a,
# b of eight) every lane does
#     H <- (H + a) * r^16 + b * r^8                       (one carry pass)
# When 16 blocks are left, H <- (H + a) * r^8 and the last group is added in
# the final step, H <- (H + a) * r^(8-p) in lane p.  The incoming h is added
# into lane 0 of the first group; at the end the eight lanes are summed and
# brought back to base 2^64.  Leftovers (< 8 blocks) go to the scalar loop,
# ahead of the vector part.
#
# Powers.  r^1..r^8 are the AVX2 kernel's (words P1305X_AVX2_POWERS.., bit
# P1305X_AVX2_READY, filled by _p26_avx2_powers: limb-major, limbs
# < 2^26 + 2^10), so the same code fills the same layout whichever of the two
# kernels meets a key first.  r^16 = r^8 * r^8 has its own five words
# (P1305X_F16_POWERS, bit P1305X_F16_READY), limbs < 2^26 + 2^10, computed
# the first time a call has more than 16 blocks for the vector loop.
#
# Everything is branch-free on key, message and accumulator values: the only
# branches are on lengths and on powers_ready.

# This kernel's words of st.powers and its bit in st.powers_ready (_powers.h).
from poly1305x._kernels._kernel cimport P1305X_F16_POWERS, P1305X_F16_READY

# Below these many blocks the scalar base-2^64 loop is as fast or faster
# (measured on Zen 4 with timeit, the scalar, avx2 and this kernel in turn:
# one-shot MACs, where the powers are computed on every call, cross over
# between 256 and 384 bytes; updates of one MAC object, powers cached,
# between 128 and 256 bytes): 24 blocks while the powers are still to be
# computed, 8 once they are cached for this key.
cdef enum:
    P1305X_F16_MIN_BLOCKS_FRESH = 24
    P1305X_F16_MIN_BLOCKS = 8


# An empty asm statement that "may change" v (any of the 32 zmm registers):
# the optimiser cannot re-associate the row-by-row sums across it (see
# P1305X_OPAQUE256 in _poly1305_avx2.pxi for why; measured here on Zen 4,
# MAC updates of 1 MiB: 7.3 GB/s without it, 10.6 GB/s with it).  Not in the
# SIMDe build, where a __m512i is no register.
cdef extern from *:
    """
    #if (defined(__GNUC__) || defined(__clang__)) && !defined(POLY1305X_SIMDE)
    #define P1305X_OPAQUE512(v) __asm__("" : "+v"(v))
    #else
    #define P1305X_OPAQUE512(v) ((void)0)
    #endif
    """
    void P1305X_OPAQUE512(__m512i v) noexcept nogil


cdef inline __m512i _p26z_times5(__m512i x) noexcept nogil:
    return _mm512_add_epi64(x, _mm512_slli_epi64(x, 2))


cdef inline void _p26z_split(__m512i lo, __m512i hi, __m512i* a0, __m512i* a1,
                             __m512i* a2, __m512i* a3, __m512i* a4) noexcept nogil:
    """Eight 128-bit numbers (low words in lo, high words in hi) -> limbs, as
    p26_from64 lane by lane: a0..a3 < 2^26, a4 < 2^24."""
    cdef __m512i mask = _mm512_set1_epi64(P26_MASK)
    a0[0] = _mm512_and_epi64(lo, mask)
    a1[0] = _mm512_and_epi64(_mm512_srli_epi64(lo, 26), mask)
    a2[0] = _mm512_and_epi64(_mm512_or_epi64(_mm512_srli_epi64(lo, 52),
                                             _mm512_slli_epi64(hi, 12)), mask)
    a3[0] = _mm512_and_epi64(_mm512_srli_epi64(hi, 14), mask)
    a4[0] = _mm512_srli_epi64(hi, 40)


cdef inline void _p26z_load8(const uint8_t* m, __m512i* a0, __m512i* a1, __m512i* a2,
                             __m512i* a3, __m512i* a4) noexcept nogil:
    """Eight blocks (128 bytes, unaligned) -> limbs, lane j = block j.
    a0..a3 < 2^26, a4 < 2^25 (the 2^128 bit is 2^24 in limb 4)."""
    cdef __m512i x = _mm512_loadu_si512(<const void*>m)          # b0.lo b0.hi .. b3.hi
    cdef __m512i y = _mm512_loadu_si512(<const void*>(m + 64))   # b4.lo b4.hi .. b7.hi
    _p26z_split(_mm512_permutex2var_epi64(x, _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), y),
                _mm512_permutex2var_epi64(x, _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1), y),
                a0, a1, a2, a3, a4)
    a4[0] = _mm512_or_epi64(a4[0], _mm512_set1_epi64(1 << 24))


cdef inline void _p26z_row(__m512i* d0, __m512i* d1, __m512i* d2, __m512i* d3, __m512i* d4,
                           __m512i t, __m512i q0, __m512i q1, __m512i q2, __m512i q3,
                           __m512i q4) noexcept nogil:
    """d_k += t * q_k: one limb of the multiplicand against five limbs (the
    caller passes r or 5 r rotated to the row), then the barrier."""
    d0[0] = _mm512_add_epi64(d0[0], _mm512_mul_epu32(t, q0))
    d1[0] = _mm512_add_epi64(d1[0], _mm512_mul_epu32(t, q1))
    d2[0] = _mm512_add_epi64(d2[0], _mm512_mul_epu32(t, q2))
    d3[0] = _mm512_add_epi64(d3[0], _mm512_mul_epu32(t, q3))
    d4[0] = _mm512_add_epi64(d4[0], _mm512_mul_epu32(t, q4))
    P1305X_OPAQUE512(d0[0]); P1305X_OPAQUE512(d1[0]); P1305X_OPAQUE512(d2[0])
    P1305X_OPAQUE512(d3[0]); P1305X_OPAQUE512(d4[0])


cdef inline void _p26z_mac(__m512i* d0, __m512i* d1, __m512i* d2, __m512i* d3, __m512i* d4,
                           __m512i t0, __m512i t1, __m512i t2, __m512i t3, __m512i t4,
                           __m512i r0, __m512i r1, __m512i r2, __m512i r3, __m512i r4,
                           __m512i s1, __m512i s2, __m512i s3, __m512i s4) noexcept nogil:
    """d += t * r (25 vpmuludq): d_k += sum_{i+j=k} t_i r_j + sum_{i+j=k+5}
    t_i s_j, row by row as _p26v_mac."""
    _p26z_row(d0, d1, d2, d3, d4, t0, r0, r1, r2, r3, r4)
    _p26z_row(d0, d1, d2, d3, d4, t1, s4, r0, r1, r2, r3)
    _p26z_row(d0, d1, d2, d3, d4, t2, s3, s4, r0, r1, r2)
    _p26z_row(d0, d1, d2, d3, d4, t3, s2, s3, s4, r0, r1)
    _p26z_row(d0, d1, d2, d3, d4, t4, s1, s2, s3, s4, r0)


cdef inline void _p26z_carry(__m512i* h0, __m512i* h1, __m512i* h2, __m512i* h3,
                             __m512i* h4, __m512i d0, __m512i d1, __m512i d2,
                             __m512i d3, __m512i d4) noexcept nogil:
    """One interleaved carry pass over d (each lane limb < 2^59), as
    _p26v_carry.  Out: h0, h2, h3 < 2^26; h1 < 2^26 + 2^10; h4 < 2^26 + 2^8."""
    cdef __m512i mask = _mm512_set1_epi64(P26_MASK)
    cdef __m512i c0, c3
    # d0 -> d1 and d3 -> d4: d0, d3 < 2^26; d1, d4 < 2^59 + 2^33
    c0 = _mm512_srli_epi64(d0, 26); d0 = _mm512_and_epi64(d0, mask); d1 = _mm512_add_epi64(d1, c0)
    c3 = _mm512_srli_epi64(d3, 26); d3 = _mm512_and_epi64(d3, mask); d4 = _mm512_add_epi64(d4, c3)
    # d1 -> d2 and d4 -> d0 (x5): d1, d4 < 2^26; d2 < 2^59 + 2^34;
    # d0 < 2^26 + 5 * 2^33.1 < 2^35.5
    c0 = _mm512_srli_epi64(d1, 26); d1 = _mm512_and_epi64(d1, mask); d2 = _mm512_add_epi64(d2, c0)
    c3 = _mm512_srli_epi64(d4, 26); d4 = _mm512_and_epi64(d4, mask)
    d0 = _mm512_add_epi64(d0, _p26z_times5(c3))
    # d2 -> d3 and d0 -> d1: d2, d0 < 2^26; d3 < 2^26 + 2^33.1; d1 < 2^26 + 2^9.5
    c0 = _mm512_srli_epi64(d2, 26); d2 = _mm512_and_epi64(d2, mask); d3 = _mm512_add_epi64(d3, c0)
    c3 = _mm512_srli_epi64(d0, 26); d0 = _mm512_and_epi64(d0, mask); d1 = _mm512_add_epi64(d1, c3)
    # d3 -> d4: d3 < 2^26; d4 < 2^26 + 2^7.2
    c0 = _mm512_srli_epi64(d3, 26); d3 = _mm512_and_epi64(d3, mask); d4 = _mm512_add_epi64(d4, c0)
    h0[0] = d0; h1[0] = d1; h2[0] = d2; h3[0] = d3; h4[0] = d4


cdef inline __m512i _p26z_final(const uint64_t* pw, int i) noexcept nogil:
    """Limb i of the last-step powers, lane p = r^(8-p): loads the AVX2
    layout's [r^1 .. r^8] of that limb and reverses the lanes."""
    return _mm512_permutexvar_epi64(_mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7),
                                    _mm512_loadu_si512(<const void*>(pw + 8 * i)))


cdef inline uint64_t _p26z_hsum(__m512i v) noexcept nogil:
    cdef uint64_t t[8]
    _mm512_storeu_si512(<void*>t, v)
    return t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7]


cdef inline __m512i _p26z_bcast(const uint64_t* p) noexcept nogil:
    return _mm512_set1_epi64(<long long>p[0])


cdef void _p26z_power16(poly1305_state* st) noexcept nogil:
    """r^16 = r^8 * r^8 from the AVX2 layout's r^8 (there already): one
    multiply after the AVX2 kernel's three (log depth).  Limbs of r^8
    < 2^26 + 2^10 (5x < 2^28.4): products < 2^54.4, sums of five < 2^56.8;
    one carry pass keeps r^16's limbs < 2^26 + 2^10."""
    cdef const uint64_t* pw = st.powers + P1305X_AVX2_POWERS
    cdef uint64_t* p16 = st.powers + P1305X_F16_POWERS
    cdef uint64_t t[8]
    cdef __m512i q0, q1, q2, q3, q4
    cdef __m512i d0, d1, d2, d3, d4
    q0 = _p26z_bcast(pw + 7); q1 = _p26z_bcast(pw + 15); q2 = _p26z_bcast(pw + 23)
    q3 = _p26z_bcast(pw + 31); q4 = _p26z_bcast(pw + 39)
    d0 = _mm512_setzero_si512()
    d1 = d0; d2 = d0; d3 = d0; d4 = d0
    _p26z_mac(&d0, &d1, &d2, &d3, &d4, q0, q1, q2, q3, q4, q0, q1, q2, q3, q4,
              _p26z_times5(q1), _p26z_times5(q2), _p26z_times5(q3), _p26z_times5(q4))
    _p26z_carry(&q0, &q1, &q2, &q3, &q4, d0, d1, d2, d3, d4)
    _mm512_storeu_si512(<void*>t, q0); p16[0] = t[0]
    _mm512_storeu_si512(<void*>t, q1); p16[1] = t[0]
    _mm512_storeu_si512(<void*>t, q2); p16[2] = t[0]
    _mm512_storeu_si512(<void*>t, q3); p16[3] = t[0]
    _mm512_storeu_si512(<void*>t, q4); p16[4] = t[0]
    st.powers_ready |= P1305X_F16_READY


# ---------------------------------------------------------------------------
# The kernel
# ---------------------------------------------------------------------------
cdef void poly1305_blocks_avx512f(poly1305_state* st, const uint8_t* m,
                                  size_t nblocks, uint64_t hibit) noexcept nogil:
    cdef size_t nvec, rem
    cdef const uint64_t* pw
    cdef const uint64_t* p16
    cdef uint64_t l[5]
    cdef __m512i h0, h1, h2, h3, h4          # accumulator lanes
    cdef __m512i a0, a1, a2, a3, a4          # group a of eight blocks
    cdef __m512i b0, b1, b2, b3, b4          # group b of eight blocks
    cdef __m512i d0, d1, d2, d3, d4          # products, then carried
    cdef __m512i u0, u1, u2, u3, u4, v1, v2, v3, v4     # r^16 limbs and 5x
    cdef __m512i w0, w1, w2, w3, w4, x1, x2, x3, x4     # r^8-type limbs and 5x

    if hibit == 0 or nblocks < P1305X_F16_MIN_BLOCKS:
        poly1305_blocks_portable(st, m, nblocks, hibit)
        return
    if not (st.powers_ready & P1305X_AVX2_READY):
        if nblocks < P1305X_F16_MIN_BLOCKS_FRESH:
            poly1305_blocks_portable(st, m, nblocks, hibit)
            return
        _p26_avx2_powers(st)
    nvec = nblocks & ~(<size_t>7)            # >= 8, a multiple of 8
    # r^16 only for the loop below (more than 16 blocks)
    if nvec > 16 and not (st.powers_ready & P1305X_F16_READY):
        _p26z_power16(st)
    pw = st.powers + P1305X_AVX2_POWERS
    p16 = st.powers + P1305X_F16_POWERS
    if nblocks > nvec:
        # The blocks past the vector part's multiple go to the scalar loop
        # first, not last: with a fresh key their chain then overlaps the
        # computation of the powers (as in the IFMA kernel).
        poly1305_blocks_portable(st, m, nblocks - nvec, hibit)
        m += 16 * (nblocks - nvec)

    # h (base 2^64, h2 < 8) into lane 0: h0..h3 < 2^26, h4 < 2^27
    p26_from64(st.h[0], st.h[1], st.h[2], l)
    h0 = _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, <long long>l[0])
    h1 = _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, <long long>l[1])
    h2 = _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, <long long>l[2])
    h3 = _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, <long long>l[3])
    h4 = _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, <long long>l[4])

    # steady-state multipliers: r^16 (only when the loop runs: its words may
    # not be filled otherwise) and r^8 in every lane (limbs < 2^26 + 2^10,
    # 5x < 2^28.4)
    u0 = _mm512_setzero_si512()
    u1 = u0; u2 = u0; u3 = u0; u4 = u0; v1 = u0; v2 = u0; v3 = u0; v4 = u0
    if nvec > 16:
        u0 = _p26z_bcast(p16 + 0); u1 = _p26z_bcast(p16 + 1); u2 = _p26z_bcast(p16 + 2)
        u3 = _p26z_bcast(p16 + 3); u4 = _p26z_bcast(p16 + 4)
        v1 = _p26z_times5(u1); v2 = _p26z_times5(u2); v3 = _p26z_times5(u3)
        v4 = _p26z_times5(u4)
    w0 = _p26z_bcast(pw + 7); w1 = _p26z_bcast(pw + 15); w2 = _p26z_bcast(pw + 23)
    w3 = _p26z_bcast(pw + 31); w4 = _p26z_bcast(pw + 39)
    x1 = _p26z_times5(w1); x2 = _p26z_times5(w2); x3 = _p26z_times5(w3); x4 = _p26z_times5(w4)

    rem = nvec
    while rem > 16:
        # d = b * r^8 + (H + a) * r^16.  H + a < 2^26 + 2^10 + 2^26 < 2^27.01
        # (first step: limb 4 < 2^27 + 2^25 < 2^27.4).  Products < 2^27.4 *
        # 2^28.4 = 2^55.8 and 2^26 * 2^28.4 = 2^54.4: ten of them < 2^59.
        _p26z_load8(m + 128, &b0, &b1, &b2, &b3, &b4)
        d0 = _mm512_setzero_si512()
        d1 = d0; d2 = d0; d3 = d0; d4 = d0
        _p26z_mac(&d0, &d1, &d2, &d3, &d4, b0, b1, b2, b3, b4,
                  w0, w1, w2, w3, w4, x1, x2, x3, x4)
        _p26z_load8(m, &a0, &a1, &a2, &a3, &a4)
        _p26z_mac(&d0, &d1, &d2, &d3, &d4,
                  _mm512_add_epi64(h0, a0), _mm512_add_epi64(h1, a1),
                  _mm512_add_epi64(h2, a2), _mm512_add_epi64(h3, a3),
                  _mm512_add_epi64(h4, a4),
                  u0, u1, u2, u3, u4, v1, v2, v3, v4)
        _p26z_carry(&h0, &h1, &h2, &h3, &h4, d0, d1, d2, d3, d4)
        m += 256
        rem -= 16

    if rem == 16:
        # H <- (H + a) * r^8: five products < 2^55.8 each, < 2^58.2; carried
        # as in the loop (same output bounds).
        _p26z_load8(m, &a0, &a1, &a2, &a3, &a4)
        d0 = _mm512_setzero_si512()
        d1 = d0; d2 = d0; d3 = d0; d4 = d0
        _p26z_mac(&d0, &d1, &d2, &d3, &d4,
                  _mm512_add_epi64(h0, a0), _mm512_add_epi64(h1, a1),
                  _mm512_add_epi64(h2, a2), _mm512_add_epi64(h3, a3),
                  _mm512_add_epi64(h4, a4),
                  w0, w1, w2, w3, w4, x1, x2, x3, x4)
        _p26z_carry(&h0, &h1, &h2, &h3, &h4, d0, d1, d2, d3, d4)
        m += 128

    # Last group of eight: lane p multiplies H + a by r^(8-p).  Same bounds.
    w0 = _p26z_final(pw, 0); w1 = _p26z_final(pw, 1); w2 = _p26z_final(pw, 2)
    w3 = _p26z_final(pw, 3); w4 = _p26z_final(pw, 4)
    x1 = _p26z_times5(w1); x2 = _p26z_times5(w2); x3 = _p26z_times5(w3); x4 = _p26z_times5(w4)
    _p26z_load8(m, &a0, &a1, &a2, &a3, &a4)
    d0 = _mm512_setzero_si512()
    d1 = d0; d2 = d0; d3 = d0; d4 = d0
    _p26z_mac(&d0, &d1, &d2, &d3, &d4,
              _mm512_add_epi64(h0, a0), _mm512_add_epi64(h1, a1),
              _mm512_add_epi64(h2, a2), _mm512_add_epi64(h3, a3),
              _mm512_add_epi64(h4, a4),
              w0, w1, w2, w3, w4, x1, x2, x3, x4)
    _p26z_carry(&h0, &h1, &h2, &h3, &h4, d0, d1, d2, d3, d4)
    m += 128

    # Sum the lanes: each limb < 8 * (2^26 + 2^10) < 2^29.01; full carry, then
    # l0..l3 < 2^26, l4 < 2^26 + 2, so base 2^64 with h2 = l4 >> 24 < 8.
    l[0] = _p26z_hsum(h0)
    l[1] = _p26z_hsum(h1)
    l[2] = _p26z_hsum(h2)
    l[3] = _p26z_hsum(h3)
    l[4] = _p26z_hsum(h4)
    p26_carry_full(l)
    p26_to64(l, st.h)
