# Poly1305 AVX-512 IFMA kernel (included by _x86_avx512.pyx, and by the SIMDe
# test build _x86_avx512_emu.pyx, where _simd.h emulates madd52 lane by lane).
#
# Radix 2^44: a number is three limbs x0 + x1*2^44 + x2*2^88 (44, 44, 42 bits)
# in the 64-bit lanes of a zmm register; eight lanes = eight accumulators.
# The multiply is vpmadd52luq / vpmadd52huq: a + low (resp. high) 52 bits of
# the 104-bit product of the LOW 52 BITS of b and c.  Bits of an input above
# 52 are silently ignored, so every limb that enters a multiply must be
# < 2^52: the bounds below keep them < 2^46.
#
# h * r with 2^130 = 5 (mod p), hence 2^132 = 20:
#     d0 = h0 r0 + h1 (20 r2) + h2 (20 r1)        (weight 2^0)
#     d1 = h0 r1 + h1 r0      + h2 (20 r2)        (weight 2^44)
#     d2 = h0 r2 + h1 r1      + h2 r0             (weight 2^88)
# Each product splits into lo (bits 0..51, stays in its limb) and hi (bits
# 52..103, weight 2^52 = 2^44 * 2^8 relative to its limb): hi of limb 0 goes
# into limb 1 shifted left by 8, hi of limb 1 into limb 2 by 8, and hi of
# limb 2 (weight 2^140 = 2^130 * 2^10) into limb 0 times 5 * 2^10.
#
# Lanes.  Eight lanes, lane j takes blocks j, j+8, j+16, ... (position p = j
# in each group of eight; permutex2var keeps the natural order).  Per 16
# blocks (two groups a, b) every lane does
#     H <- (H + a) * r^16 + b * r^8                     (one carry pass)
# and the last step uses r^(16-p) and r^(8-p) (lane p), or, when only one
# group of eight is left, H <- (H + a) * r^(8-p).  The incoming h is added into
# lane 0 of the first group; at the end the lanes are summed and brought back
# to base 2^64.  Leftovers (< 8 blocks) go to the scalar loop, ahead of the
# vector part.
#
# Powers (per key, computed lazily on the first long input), limb-major:
#     st.powers[40 + 16*i + (k-1)] = limb i of r^k,  i = 0..2, k = 1..16
# (words 40..87; limb 0 < 2^44, limb 1 <= 2^44, limb 2 < 2^42), flagged by bit
# 1 of st.powers_ready.  Words 0..39 and bit 0 belong to the AVX2 kernel, so a
# state never reads the other kernel's layout.
#
# Everything is branch-free on key, message and accumulator values; the only
# branches are on lengths and powers_ready.

# This kernel's words of st.powers and its bit in st.powers_ready (_powers.h).
from poly1305x._kernels._kernel cimport P1305X_IFMA_POWERS, P1305X_IFMA_READY

# Thresholds in blocks (not measured: this was written on a CPU without
# AVX-512; estimated from the scalar loop's ~29 cycles per block and ~150
# cycles for the four-level power computation): below 16 blocks with the
# powers still to compute, below 8 once they are cached, the scalar loop runs.
cdef enum:
    P1305X_IFMA_MIN_BLOCKS_FRESH = 16
    P1305X_IFMA_MIN_BLOCKS = 8


cdef inline uint64_t _p44_mask44() noexcept nogil:
    return (<uint64_t>1 << 44) - 1


cdef inline uint64_t _p44_mask42() noexcept nogil:
    return (<uint64_t>1 << 42) - 1


cdef inline void _p44_from64(uint64_t a0, uint64_t a1, uint64_t a2,
                             uint64_t* l) noexcept nogil:
    """Base 2^64 (a2 < 8) -> limbs: l0, l1 < 2^44, l2 < 2^40 + 2^43 < 2^43.2."""
    l[0] = a0 & _p44_mask44()
    l[1] = ((a0 >> 44) | (a1 << 20)) & _p44_mask44()
    l[2] = (a1 >> 24) | (a2 << 40)


cdef inline __m512i _p44v_times20(__m512i x) noexcept nogil:
    # 20 x = 16 x + 4 x; used on limbs <= 2^44: result < 2^48.33
    return _mm512_add_epi64(_mm512_slli_epi64(x, 4), _mm512_slli_epi64(x, 2))


cdef inline void _p44v_load8(const uint8_t* m, __m512i* a0, __m512i* a1,
                             __m512i* a2) noexcept nogil:
    """Eight blocks (128 bytes, unaligned) -> limbs, lane j = block j.
    a0, a1 < 2^44; a2 < 2^41 (bits 88..127 plus the 2^128 bit at bit 40)."""
    cdef __m512i x = _mm512_loadu_si512(<const void*>m)          # b0.lo b0.hi .. b3.hi
    cdef __m512i y = _mm512_loadu_si512(<const void*>(m + 64))   # b4.lo b4.hi .. b7.hi
    cdef __m512i lo = _mm512_permutex2var_epi64(x, _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), y)
    cdef __m512i hi = _mm512_permutex2var_epi64(x, _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1), y)
    cdef __m512i mask = _mm512_set1_epi64(<long long>_p44_mask44())
    a0[0] = _mm512_and_epi64(lo, mask)
    a1[0] = _mm512_and_epi64(_mm512_or_epi64(_mm512_srli_epi64(lo, 44),
                                             _mm512_slli_epi64(hi, 20)), mask)
    a2[0] = _mm512_or_epi64(_mm512_srli_epi64(hi, 24),
                            _mm512_set1_epi64(<long long>1 << 40))


cdef inline void _p44v_mac(__m512i* lo0, __m512i* lo1, __m512i* lo2,
                           __m512i* hi0, __m512i* hi1, __m512i* hi2,
                           __m512i t0, __m512i t1, __m512i t2,
                           __m512i r0, __m512i r1, __m512i r2,
                           __m512i s1, __m512i s2) noexcept nogil:
    """lo/hi += t * r (18 madd52), s_i = 20 r_i.  Row by row (one limb of t
    at a time), so the six accumulator chains advance together.
    With t < 2^45.01, r < 2^44.01 and s < 2^48.33, each product < 2^93.34:
    each hi term < 2^41.34, each lo term < 2^52."""
    lo0[0] = _mm512_madd52lo_epu64(lo0[0], t0, r0)
    hi0[0] = _mm512_madd52hi_epu64(hi0[0], t0, r0)
    lo1[0] = _mm512_madd52lo_epu64(lo1[0], t0, r1)
    hi1[0] = _mm512_madd52hi_epu64(hi1[0], t0, r1)
    lo2[0] = _mm512_madd52lo_epu64(lo2[0], t0, r2)
    hi2[0] = _mm512_madd52hi_epu64(hi2[0], t0, r2)
    lo0[0] = _mm512_madd52lo_epu64(lo0[0], t1, s2)
    hi0[0] = _mm512_madd52hi_epu64(hi0[0], t1, s2)
    lo1[0] = _mm512_madd52lo_epu64(lo1[0], t1, r0)
    hi1[0] = _mm512_madd52hi_epu64(hi1[0], t1, r0)
    lo2[0] = _mm512_madd52lo_epu64(lo2[0], t1, r1)
    hi2[0] = _mm512_madd52hi_epu64(hi2[0], t1, r1)
    lo0[0] = _mm512_madd52lo_epu64(lo0[0], t2, s1)
    hi0[0] = _mm512_madd52hi_epu64(hi0[0], t2, s1)
    lo1[0] = _mm512_madd52lo_epu64(lo1[0], t2, s2)
    hi1[0] = _mm512_madd52hi_epu64(hi1[0], t2, s2)
    lo2[0] = _mm512_madd52lo_epu64(lo2[0], t2, r0)
    hi2[0] = _mm512_madd52hi_epu64(hi2[0], t2, r0)


cdef inline void _p44v_finish(__m512i* h0, __m512i* h1, __m512i* h2,
                              __m512i lo0, __m512i lo1, __m512i lo2,
                              __m512i hi0, __m512i hi1, __m512i hi2) noexcept nogil:
    """Fold the hi halves and carry once.  In: at most six terms per
    accumulator (two _p44v_mac), so lo_k < 6 * 2^52 < 2^54.6 and
    hi_k < 6 * 2^41.34 < 2^43.93.  Out: h0 < 2^44, h1 <= 2^44, h2 < 2^42."""
    cdef __m512i m44 = _mm512_set1_epi64(<long long>_p44_mask44())
    cdef __m512i m42 = _mm512_set1_epi64(<long long>_p44_mask42())
    cdef __m512i d0, d1, d2, c
    # d0 = lo0 + 5 * 2^10 * hi2 < 2^54.6 + 2^56.25 < 2^56.7
    d0 = _mm512_add_epi64(lo0, _mm512_add_epi64(_mm512_slli_epi64(hi2, 10),
                                                _mm512_slli_epi64(hi2, 12)))
    # d1 = lo1 + 2^8 hi0, d2 = lo2 + 2^8 hi1: < 2^54.6 + 2^51.93 < 2^54.9
    d1 = _mm512_add_epi64(lo1, _mm512_slli_epi64(hi0, 8))
    d2 = _mm512_add_epi64(lo2, _mm512_slli_epi64(hi1, 8))
    # d0 -> d1: d0 < 2^44, carry < 2^12.7, d1 < 2^54.9 + 2^12.7
    c = _mm512_srli_epi64(d0, 44); d0 = _mm512_and_epi64(d0, m44); d1 = _mm512_add_epi64(d1, c)
    # d1 -> d2: d1 < 2^44, carry < 2^11, d2 < 2^54.9 + 2^11
    c = _mm512_srli_epi64(d1, 44); d1 = _mm512_and_epi64(d1, m44); d2 = _mm512_add_epi64(d2, c)
    # d2 -> d0 (bits >= 2^130, times 5): d2 < 2^42, carry < 2^12.9,
    # d0 < 2^44 + 5 * 2^12.9 < 2^44 + 2^15.3
    c = _mm512_srli_epi64(d2, 42); d2 = _mm512_and_epi64(d2, m42)
    d0 = _mm512_add_epi64(d0, _mm512_add_epi64(c, _mm512_slli_epi64(c, 2)))
    # d0 -> d1: d0 < 2^44, carry <= 1, d1 <= 2^44
    c = _mm512_srli_epi64(d0, 44); d0 = _mm512_and_epi64(d0, m44); d1 = _mm512_add_epi64(d1, c)
    h0[0] = d0; h1[0] = d1; h2[0] = d2


cdef inline void _p44v_mul(__m512i* o0, __m512i* o1, __m512i* o2,
                           __m512i t0, __m512i t1, __m512i t2,
                           __m512i r0, __m512i r1, __m512i r2) noexcept nogil:
    """o = t * r (lane by lane), carried: limbs as _p44v_finish returns them.
    t and r limbs <= 2^44 (r2 < 2^42): within _p44v_mac's bounds."""
    cdef __m512i z = _mm512_setzero_si512()
    cdef __m512i lo0 = z, lo1 = z, lo2 = z, hi0 = z, hi1 = z, hi2 = z
    _p44v_mac(&lo0, &lo1, &lo2, &hi0, &hi1, &hi2, t0, t1, t2, r0, r1, r2,
              _p44v_times20(r1), _p44v_times20(r2))
    _p44v_finish(o0, o1, o2, lo0, lo1, lo2, hi0, hi1, hi2)


cdef void _p44_ifma_powers(poly1305_state* st) noexcept nogil:
    """r^1..r^16 into st.powers (layout above) in vector lanes, log-depth:
    r^2; [r^3, r^4] = r^2 * [r, r^2]; [r^5..r^8] = r^4 * [r..r^4];
    [r^9..r^16] = r^8 * [r..r^8]: four dependent vector multiplies."""
    cdef uint64_t l[3]
    cdef uint64_t* pw = st.powers + P1305X_IFMA_POWERS
    cdef __m512i q0, q1, q2                  # multiplier lanes
    cdef __m512i t0, t1, t2                  # products
    cdef __m512i b0, b1, b2                  # broadcast multiplicand
    _p44_from64(st.r[0], st.r[1], 0, l)      # r: l0, l1 < 2^44, l2 < 2^36
    q0 = _mm512_set1_epi64(<long long>l[0])
    q1 = _mm512_set1_epi64(<long long>l[1])
    q2 = _mm512_set1_epi64(<long long>l[2])
    # level 1: r^2 in every lane
    _p44v_mul(&t0, &t1, &t2, q0, q1, q2, q0, q1, q2)
    # level 2: r^2 * [r, r^2, r, r^2, ...] = [r^3, r^4, r^3, r^4, ...]
    q0 = _mm512_mask_blend_epi64(0xAA, q0, t0)
    q1 = _mm512_mask_blend_epi64(0xAA, q1, t1)
    q2 = _mm512_mask_blend_epi64(0xAA, q2, t2)
    _p44v_mul(&t0, &t1, &t2, t0, t1, t2, q0, q1, q2)
    # level 3: r^4 (lane 1) * [r, r^2, r^3, r^4, r, r^2, r^3, r^4]
    q0 = _mm512_mask_blend_epi64(0xCC, q0, t0)
    q1 = _mm512_mask_blend_epi64(0xCC, q1, t1)
    q2 = _mm512_mask_blend_epi64(0xCC, q2, t2)
    b0 = _mm512_permutexvar_epi64(_mm512_set1_epi64(1), t0)
    b1 = _mm512_permutexvar_epi64(_mm512_set1_epi64(1), t1)
    b2 = _mm512_permutexvar_epi64(_mm512_set1_epi64(1), t2)
    _p44v_mul(&t0, &t1, &t2, b0, b1, b2, q0, q1, q2)
    # level 4: r^8 (lane 3) * [r .. r^8]
    q0 = _mm512_mask_blend_epi64(0xF0, q0, t0)
    q1 = _mm512_mask_blend_epi64(0xF0, q1, t1)
    q2 = _mm512_mask_blend_epi64(0xF0, q2, t2)
    b0 = _mm512_permutexvar_epi64(_mm512_set1_epi64(3), t0)
    b1 = _mm512_permutexvar_epi64(_mm512_set1_epi64(3), t1)
    b2 = _mm512_permutexvar_epi64(_mm512_set1_epi64(3), t2)
    _p44v_mul(&t0, &t1, &t2, b0, b1, b2, q0, q1, q2)
    _mm512_storeu_si512(<void*>(pw + 0), q0)
    _mm512_storeu_si512(<void*>(pw + 16), q1)
    _mm512_storeu_si512(<void*>(pw + 32), q2)
    _mm512_storeu_si512(<void*>(pw + 8), t0)
    _mm512_storeu_si512(<void*>(pw + 24), t1)
    _mm512_storeu_si512(<void*>(pw + 40), t2)
    st.powers_ready |= P1305X_IFMA_READY


cdef inline __m512i _p44v_final(const uint64_t* pw, int i, int hi) noexcept nogil:
    """Limb i of the last-step powers, lane p = r^(8 - p) (hi = 0) or
    r^(16 - p) (hi = 1): loads [r^(8hi+1) .. r^(8hi+8)] and reverses the lanes."""
    return _mm512_permutexvar_epi64(_mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7),
                                    _mm512_loadu_si512(<const void*>(pw + 16 * i + 8 * hi)))


cdef inline uint64_t _p44v_hsum(__m512i v) noexcept nogil:
    cdef uint64_t t[8]
    _mm512_storeu_si512(<void*>t, v)
    return t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7]


# ---------------------------------------------------------------------------
# The kernel
# ---------------------------------------------------------------------------
cdef void poly1305_blocks_avx512(poly1305_state* st, const uint8_t* m,
                                 size_t nblocks, uint64_t hibit) noexcept nogil:
    cdef size_t nvec, rem
    cdef const uint64_t* pw
    cdef uint64_t l[3]
    cdef uint64_t c
    cdef __m512i z, h0, h1, h2                 # accumulator lanes
    cdef __m512i a0, a1, a2, b0, b1, b2        # groups a and b of eight blocks
    cdef __m512i lo0, lo1, lo2, hi0, hi1, hi2  # product halves
    cdef __m512i u0, u1, u2, v1, v2            # r^16-type limbs and 20x
    cdef __m512i w0, w1, w2, x1, x2            # r^8-type limbs and 20x

    if hibit == 0 or nblocks < P1305X_IFMA_MIN_BLOCKS:
        poly1305_blocks_portable(st, m, nblocks, hibit)
        return
    if not (st.powers_ready & P1305X_IFMA_READY):
        if nblocks < P1305X_IFMA_MIN_BLOCKS_FRESH:
            poly1305_blocks_portable(st, m, nblocks, hibit)
            return
        _p44_ifma_powers(st)
    nvec = nblocks & ~(<size_t>7)            # >= 8, a multiple of 8
    pw = st.powers + P1305X_IFMA_POWERS
    if nblocks > nvec:
        # The blocks past a multiple of 8 go to the scalar loop first, not
        # last: with a fresh key their chain then overlaps the powers' (which
        # it does not depend on) instead of following the vector part.
        poly1305_blocks_portable(st, m, nblocks - nvec, hibit)
        m += 16 * (nblocks - nvec)

    # h (base 2^64, h2 < 8) into lane 0: h0, h1 < 2^44, h2 < 2^43.2
    _p44_from64(st.h[0], st.h[1], st.h[2], l)
    z = _mm512_setzero_si512()
    h0 = _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, <long long>l[0])
    h1 = _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, <long long>l[1])
    h2 = _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, <long long>l[2])

    # steady state: r^16 and r^8 in every lane (limbs <= 2^44, 20x < 2^48.33)
    u0 = _mm512_set1_epi64(<long long>pw[15])
    u1 = _mm512_set1_epi64(<long long>pw[31])
    u2 = _mm512_set1_epi64(<long long>pw[47])
    v1 = _p44v_times20(u1); v2 = _p44v_times20(u2)
    w0 = _mm512_set1_epi64(<long long>pw[7])
    w1 = _mm512_set1_epi64(<long long>pw[23])
    w2 = _mm512_set1_epi64(<long long>pw[39])
    x1 = _p44v_times20(w1); x2 = _p44v_times20(w2)

    rem = nvec
    while rem > 16:
        # b * r^8 + (H + a) * r^16.  H + a: limbs 0, 1 <= 2^44 + 2^44 < 2^45.01,
        # limb 2 < 2^42 + 2^41 (first step: < 2^43.2 + 2^41 < 2^43.5); all
        # < 2^52 as madd52 needs.  Bounds of the sums: _p44v_finish.
        _p44v_load8(m + 128, &b0, &b1, &b2)
        lo0 = z; lo1 = z; lo2 = z; hi0 = z; hi1 = z; hi2 = z
        _p44v_mac(&lo0, &lo1, &lo2, &hi0, &hi1, &hi2, b0, b1, b2, w0, w1, w2, x1, x2)
        _p44v_load8(m, &a0, &a1, &a2)
        _p44v_mac(&lo0, &lo1, &lo2, &hi0, &hi1, &hi2,
                  _mm512_add_epi64(h0, a0), _mm512_add_epi64(h1, a1),
                  _mm512_add_epi64(h2, a2), u0, u1, u2, v1, v2)
        _p44v_finish(&h0, &h1, &h2, lo0, lo1, lo2, hi0, hi1, hi2)
        m += 256
        rem -= 16

    # Last step (rem is 16 or 8): lane p multiplies by r^(8-p), and for 16
    # blocks the first group by r^(16-p).  Same bounds as above.
    w0 = _p44v_final(pw, 0, 0); w1 = _p44v_final(pw, 1, 0); w2 = _p44v_final(pw, 2, 0)
    x1 = _p44v_times20(w1); x2 = _p44v_times20(w2)
    lo0 = z; lo1 = z; lo2 = z; hi0 = z; hi1 = z; hi2 = z
    if rem == 16:
        u0 = _p44v_final(pw, 0, 1); u1 = _p44v_final(pw, 1, 1); u2 = _p44v_final(pw, 2, 1)
        v1 = _p44v_times20(u1); v2 = _p44v_times20(u2)
        _p44v_load8(m + 128, &b0, &b1, &b2)
        _p44v_mac(&lo0, &lo1, &lo2, &hi0, &hi1, &hi2, b0, b1, b2, w0, w1, w2, x1, x2)
        _p44v_load8(m, &a0, &a1, &a2)
        _p44v_mac(&lo0, &lo1, &lo2, &hi0, &hi1, &hi2,
                  _mm512_add_epi64(h0, a0), _mm512_add_epi64(h1, a1),
                  _mm512_add_epi64(h2, a2), u0, u1, u2, v1, v2)
        m += 256
    else:
        _p44v_load8(m, &a0, &a1, &a2)
        _p44v_mac(&lo0, &lo1, &lo2, &hi0, &hi1, &hi2,
                  _mm512_add_epi64(h0, a0), _mm512_add_epi64(h1, a1),
                  _mm512_add_epi64(h2, a2), w0, w1, w2, x1, x2)
        m += 128
    _p44v_finish(&h0, &h1, &h2, lo0, lo1, lo2, hi0, hi1, hi2)

    # Sum the lanes: l0, l1 <= 8 * 2^44 = 2^47, l2 < 8 * 2^42 = 2^45.  Full
    # carry: afterwards l0, l1 < 2^44 and l2 < 2^42 + 1, so h2 = l2 >> 40 < 8.
    l[0] = _p44v_hsum(h0)
    l[1] = _p44v_hsum(h1)
    l[2] = _p44v_hsum(h2)
    c = l[0] >> 44; l[0] &= _p44_mask44(); l[1] += c
    c = l[1] >> 44; l[1] &= _p44_mask44(); l[2] += c
    # l2 < 2^45 + 2^3: carry < 2^3.1, times 5 < 2^5.5
    c = l[2] >> 42; l[2] &= _p44_mask42(); l[0] += c * 5
    c = l[0] >> 44; l[0] &= _p44_mask44(); l[1] += c
    c = l[1] >> 44; l[1] &= _p44_mask44(); l[2] += c
    st.h[0] = l[0] | (l[1] << 44)
    st.h[1] = (l[1] >> 20) | (l[2] << 24)
    st.h[2] = l[2] >> 40
