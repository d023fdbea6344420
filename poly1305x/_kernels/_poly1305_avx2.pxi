# Poly1305 AVX2 kernel (included by _x86_avx2.pyx).
#
# Radix 2^26: a number is five limbs x0 + x1*2^26 + ... + x4*2^104 held in the
# 64-bit lanes of a ymm register, four lanes = four independent accumulators.
# The multiply is vpmuludq (_mm256_mul_epu32): low 32 bits of each 64-bit lane
# times low 32 bits -> 64-bit product.  So every limb that enters a multiply
# must be < 2^32, and a sum of ten products must stay < 2^64.  2^130 = 5 (mod p)
# folds the wrap-around products through s_i = 5*r_i.
#
# Lanes.  Four lanes, lane j takes blocks j, j+4, j+8, ... (position p = j in
# each group of four).  Because the message is split with unpacklo/hi_epi64
# over two 32-byte loads, the vector lanes 0,1,2,3 hold positions 0,2,1,3; only
# the powers of the final step depend on that, and they are built to match.
#
# Per 8 blocks (two groups a, b of four) every lane does
#     H <- (H + a) * r^8 + b * r^4                          (one carry pass)
# and the last step of a call uses r^(8-p) and r^(4-p) instead (lane p), or,
# when only four blocks are left, H <- (H + a) * r^(4-p).  The incoming h is
# added into lane 0 (position 0) of the first group; at the end the four lanes
# are summed and brought back to base 2^64.
#
# Powers (per key, filled lazily on the first long input; layout owned here),
# limb-major so that four consecutive powers load as one vector:
#     st.powers[8*i + (k-1)] = limb i (< 2^26 + 2^10) of r^k,  i = 0..4, k = 1..8
# (words 0..39),
# with bit 0 of st.powers_ready saying they are there (the AVX-512 kernel keeps
# its own powers at words 40.. and flag bit 1, so the two never clash).
#
# Everything here is branch-free on key, message and accumulator values: the
# only branches are on lengths and on powers_ready.

# This kernel's words of st.powers and its bit in st.powers_ready (_powers.h).
from poly1305x._kernels._kernel cimport P1305X_AVX2_POWERS, P1305X_AVX2_READY
# Radix 2^26: conversions and the full carry (the one copy).
from poly1305x._kernels._radix26 cimport P26_MASK, p26_carry_full, p26_from64, p26_to64

# Below these many blocks the scalar base-2^64 loop is faster (measured on the
# Zen 3 dev machine, in-C loop of init + blocks + finish): 12 when the powers
# still have to be computed (~33 ns), 8 once they are cached for this key.
cdef enum:
    P1305X_AVX2_MIN_BLOCKS_FRESH = 12
    P1305X_AVX2_MIN_BLOCKS = 8


# ---------------------------------------------------------------------------
# Vector helpers
# ---------------------------------------------------------------------------
# An empty asm statement that "may change" v: the optimiser cannot
# re-associate sums across it.  Without it GCC's re-association turns the
# row-by-row accumulation below into ten-term sums evaluated at the end, which
# keeps 50 products live and spills half of them (measured at 1 MiB on Zen 3:
# 6.5 GB/s without the barrier, 7.9 GB/s with it).
cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define P1305X_OPAQUE256(v) __asm__("" : "+x"(v))
    #else
    #define P1305X_OPAQUE256(v) ((void)0)
    #endif
    """
    void P1305X_OPAQUE256(__m256i v) noexcept nogil


cdef inline __m256i _p26v_times5(__m256i x) noexcept nogil:
    return _mm256_add_epi64(x, _mm256_slli_epi64(x, 2))


cdef inline __m256i _p26v_final(const uint64_t* pw, int i, int hi) noexcept nogil:
    """Limb i of the last-step powers in vector-lane order (positions 0, 2, 1,
    3): hi = 0 gives r^4, r^2, r^3, r^1; hi = 1 gives r^8, r^6, r^7, r^5.
    Loads [r^(4hi+1) .. r^(4hi+4)] and permutes lanes (3, 1, 2, 0)."""
    return _mm256_permute4x64_epi64(
        _mm256_loadu_si256(<const __m256i*>(pw + 8 * i + 4 * hi)), 0x27)


cdef inline void _p26v_split(__m256i lo, __m256i hi, __m256i* a0, __m256i* a1,
                             __m256i* a2, __m256i* a3, __m256i* a4) noexcept nogil:
    """Four 128-bit numbers (low words in lo, high words in hi) -> limbs, as
    p26_from64 lane by lane: a0..a3 < 2^26, a4 < 2^24."""
    cdef __m256i mask = _mm256_set1_epi64x(0x3ffffff)
    a0[0] = _mm256_and_si256(lo, mask)
    a1[0] = _mm256_and_si256(_mm256_srli_epi64(lo, 26), mask)
    a2[0] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(lo, 52),
                                             _mm256_slli_epi64(hi, 12)), mask)
    a3[0] = _mm256_and_si256(_mm256_srli_epi64(hi, 14), mask)
    a4[0] = _mm256_srli_epi64(hi, 40)


cdef inline void _p26v_load4(const uint8_t* m, __m256i* a0, __m256i* a1,
                             __m256i* a2, __m256i* a3, __m256i* a4) noexcept nogil:
    """Four blocks (64 bytes, unaligned) -> limbs, lanes = blocks 0, 2, 1, 3.
    a0..a3 < 2^26, a4 < 2^25 (including the 2^128 bit, 2^24 in limb 4)."""
    cdef __m256i x = _mm256_loadu_si256(<const __m256i*>m)          # b0.lo b0.hi | b1.lo b1.hi
    cdef __m256i y = _mm256_loadu_si256(<const __m256i*>(m + 32))   # b2.lo b2.hi | b3.lo b3.hi
    _p26v_split(_mm256_unpacklo_epi64(x, y),    # b0.lo b2.lo | b1.lo b3.lo
                _mm256_unpackhi_epi64(x, y),    # b0.hi b2.hi | b1.hi b3.hi
                a0, a1, a2, a3, a4)
    a4[0] = _mm256_or_si256(a4[0], _mm256_set1_epi64x(1 << 24))


cdef inline void _p26v_mac(__m256i* d0, __m256i* d1, __m256i* d2, __m256i* d3, __m256i* d4,
                           __m256i t0, __m256i t1, __m256i t2, __m256i t3, __m256i t4,
                           __m256i r0, __m256i r1, __m256i r2, __m256i r3, __m256i r4,
                           __m256i s1, __m256i s2, __m256i s3, __m256i s4) noexcept nogil:
    """d += t * r (25 vpmuludq), d_k += sum_{i+j=k} t_i r_j + sum_{i+j=k+5} t_i s_j.
    Row by row (one limb of t at a time into five accumulators), which keeps few
    vectors live: the compiler then needs no spills in the loop."""
    d0[0] = _mm256_add_epi64(d0[0], _mm256_mul_epu32(t0, r0))
    d1[0] = _mm256_add_epi64(d1[0], _mm256_mul_epu32(t0, r1))
    d2[0] = _mm256_add_epi64(d2[0], _mm256_mul_epu32(t0, r2))
    d3[0] = _mm256_add_epi64(d3[0], _mm256_mul_epu32(t0, r3))
    d4[0] = _mm256_add_epi64(d4[0], _mm256_mul_epu32(t0, r4))
    P1305X_OPAQUE256(d0[0]); P1305X_OPAQUE256(d1[0]); P1305X_OPAQUE256(d2[0])
    P1305X_OPAQUE256(d3[0]); P1305X_OPAQUE256(d4[0])
    d0[0] = _mm256_add_epi64(d0[0], _mm256_mul_epu32(t1, s4))
    d1[0] = _mm256_add_epi64(d1[0], _mm256_mul_epu32(t1, r0))
    d2[0] = _mm256_add_epi64(d2[0], _mm256_mul_epu32(t1, r1))
    d3[0] = _mm256_add_epi64(d3[0], _mm256_mul_epu32(t1, r2))
    d4[0] = _mm256_add_epi64(d4[0], _mm256_mul_epu32(t1, r3))
    P1305X_OPAQUE256(d0[0]); P1305X_OPAQUE256(d1[0]); P1305X_OPAQUE256(d2[0])
    P1305X_OPAQUE256(d3[0]); P1305X_OPAQUE256(d4[0])
    d0[0] = _mm256_add_epi64(d0[0], _mm256_mul_epu32(t2, s3))
    d1[0] = _mm256_add_epi64(d1[0], _mm256_mul_epu32(t2, s4))
    d2[0] = _mm256_add_epi64(d2[0], _mm256_mul_epu32(t2, r0))
    d3[0] = _mm256_add_epi64(d3[0], _mm256_mul_epu32(t2, r1))
    d4[0] = _mm256_add_epi64(d4[0], _mm256_mul_epu32(t2, r2))
    P1305X_OPAQUE256(d0[0]); P1305X_OPAQUE256(d1[0]); P1305X_OPAQUE256(d2[0])
    P1305X_OPAQUE256(d3[0]); P1305X_OPAQUE256(d4[0])
    d0[0] = _mm256_add_epi64(d0[0], _mm256_mul_epu32(t3, s2))
    d1[0] = _mm256_add_epi64(d1[0], _mm256_mul_epu32(t3, s3))
    d2[0] = _mm256_add_epi64(d2[0], _mm256_mul_epu32(t3, s4))
    d3[0] = _mm256_add_epi64(d3[0], _mm256_mul_epu32(t3, r0))
    d4[0] = _mm256_add_epi64(d4[0], _mm256_mul_epu32(t3, r1))
    P1305X_OPAQUE256(d0[0]); P1305X_OPAQUE256(d1[0]); P1305X_OPAQUE256(d2[0])
    P1305X_OPAQUE256(d3[0]); P1305X_OPAQUE256(d4[0])
    d0[0] = _mm256_add_epi64(d0[0], _mm256_mul_epu32(t4, s1))
    d1[0] = _mm256_add_epi64(d1[0], _mm256_mul_epu32(t4, s2))
    d2[0] = _mm256_add_epi64(d2[0], _mm256_mul_epu32(t4, s3))
    d3[0] = _mm256_add_epi64(d3[0], _mm256_mul_epu32(t4, s4))
    d4[0] = _mm256_add_epi64(d4[0], _mm256_mul_epu32(t4, r0))
    P1305X_OPAQUE256(d0[0]); P1305X_OPAQUE256(d1[0]); P1305X_OPAQUE256(d2[0])
    P1305X_OPAQUE256(d3[0]); P1305X_OPAQUE256(d4[0])


cdef inline void _p26v_carry(__m256i* h0, __m256i* h1, __m256i* h2, __m256i* h3,
                             __m256i* h4, __m256i d0, __m256i d1, __m256i d2,
                             __m256i d3, __m256i d4) noexcept nogil:
    """One interleaved carry pass over d (each lane limb < 2^59).
    Out: h0, h2, h3 < 2^26; h1 < 2^26 + 2^10; h4 < 2^26 + 2^8."""
    cdef __m256i mask = _mm256_set1_epi64x(0x3ffffff)
    cdef __m256i c0, c3
    # d0 -> d1 and d3 -> d4: d0, d3 < 2^26; d1, d4 < 2^59 + 2^33
    c0 = _mm256_srli_epi64(d0, 26); d0 = _mm256_and_si256(d0, mask); d1 = _mm256_add_epi64(d1, c0)
    c3 = _mm256_srli_epi64(d3, 26); d3 = _mm256_and_si256(d3, mask); d4 = _mm256_add_epi64(d4, c3)
    # d1 -> d2 and d4 -> d0 (x5): d1, d4 < 2^26; d2 < 2^59 + 2^34; d0 < 2^26 + 5*2^33.1 < 2^35.5
    c0 = _mm256_srli_epi64(d1, 26); d1 = _mm256_and_si256(d1, mask); d2 = _mm256_add_epi64(d2, c0)
    c3 = _mm256_srli_epi64(d4, 26); d4 = _mm256_and_si256(d4, mask)
    d0 = _mm256_add_epi64(d0, _p26v_times5(c3))
    # d2 -> d3 and d0 -> d1: d2, d0 < 2^26; d3 < 2^26 + 2^33.1; d1 < 2^26 + 2^9.5
    c0 = _mm256_srli_epi64(d2, 26); d2 = _mm256_and_si256(d2, mask); d3 = _mm256_add_epi64(d3, c0)
    c3 = _mm256_srli_epi64(d0, 26); d0 = _mm256_and_si256(d0, mask); d1 = _mm256_add_epi64(d1, c3)
    # d3 -> d4: d3 < 2^26; d4 < 2^26 + 2^7.2
    c0 = _mm256_srli_epi64(d3, 26); d3 = _mm256_and_si256(d3, mask); d4 = _mm256_add_epi64(d4, c0)
    h0[0] = d0; h1[0] = d1; h2[0] = d2; h3[0] = d3; h4[0] = d4


cdef inline uint64_t _p26v_hsum(__m256i v) noexcept nogil:
    cdef uint64_t t[4]
    _mm256_storeu_si256(<__m256i*>t, v)
    return t[0] + t[1] + t[2] + t[3]


cdef void _p26_avx2_powers(poly1305_state* st) noexcept nogil:
    """r^1..r^8 into st.powers (layout above), computed in vector lanes with a
    log-depth schedule: r^2 = r*r; then [r^3, r^4] = r^2 * [r, r^2]; then
    [r^5..r^8] = r^4 * [r, r^2, r^3, r^4]: three dependent vector multiplies.
    Inputs of each multiply have limbs < 2^26 + 2^10 (5x < 2^28.4), products
    < 2^54.4, sums of five < 2^56.8; one carry pass keeps the outputs
    < 2^26 + 2^10 (see _p26v_carry)."""
    cdef uint64_t l[5]
    cdef uint64_t* pw = st.powers + P1305X_AVX2_POWERS
    cdef __m256i q0, q1, q2, q3, q4          # multiplier
    cdef __m256i t0, t1, t2, t3, t4          # multiplicand
    cdef __m256i d0, d1, d2, d3, d4
    p26_from64(st.r[0], st.r[1], 0, l)      # r: limbs < 2^26
    q0 = _mm256_set1_epi64x(<long long>l[0]); q1 = _mm256_set1_epi64x(<long long>l[1])
    q2 = _mm256_set1_epi64x(<long long>l[2]); q3 = _mm256_set1_epi64x(<long long>l[3])
    q4 = _mm256_set1_epi64x(<long long>l[4])
    # level 1: every lane r^2
    d0 = _mm256_setzero_si256()
    d1 = d0; d2 = d0; d3 = d0; d4 = d0
    _p26v_mac(&d0, &d1, &d2, &d3, &d4, q0, q1, q2, q3, q4, q0, q1, q2, q3, q4,
              _p26v_times5(q1), _p26v_times5(q2), _p26v_times5(q3), _p26v_times5(q4))
    _p26v_carry(&t0, &t1, &t2, &t3, &t4, d0, d1, d2, d3, d4)
    # level 2: lanes r^2 * [r, r^2, r, r^2] = [r^3, r^4, r^3, r^4]
    q0 = _mm256_blend_epi32(q0, t0, 0xCC); q1 = _mm256_blend_epi32(q1, t1, 0xCC)
    q2 = _mm256_blend_epi32(q2, t2, 0xCC); q3 = _mm256_blend_epi32(q3, t3, 0xCC)
    q4 = _mm256_blend_epi32(q4, t4, 0xCC)
    d0 = _mm256_setzero_si256()
    d1 = d0; d2 = d0; d3 = d0; d4 = d0
    _p26v_mac(&d0, &d1, &d2, &d3, &d4, t0, t1, t2, t3, t4, q0, q1, q2, q3, q4,
              _p26v_times5(q1), _p26v_times5(q2), _p26v_times5(q3), _p26v_times5(q4))
    _p26v_carry(&t0, &t1, &t2, &t3, &t4, d0, d1, d2, d3, d4)
    # level 3: multiplier [r, r^2, r^3, r^4] (lanes 2, 3 from level 2), times
    # r^4 (lane 1 of level 2) in every lane
    q0 = _mm256_blend_epi32(q0, t0, 0xF0); q1 = _mm256_blend_epi32(q1, t1, 0xF0)
    q2 = _mm256_blend_epi32(q2, t2, 0xF0); q3 = _mm256_blend_epi32(q3, t3, 0xF0)
    q4 = _mm256_blend_epi32(q4, t4, 0xF0)
    _mm256_storeu_si256(<__m256i*>(pw + 0), q0)
    _mm256_storeu_si256(<__m256i*>(pw + 8), q1)
    _mm256_storeu_si256(<__m256i*>(pw + 16), q2)
    _mm256_storeu_si256(<__m256i*>(pw + 24), q3)
    _mm256_storeu_si256(<__m256i*>(pw + 32), q4)
    t0 = _mm256_permute4x64_epi64(t0, 0x55); t1 = _mm256_permute4x64_epi64(t1, 0x55)
    t2 = _mm256_permute4x64_epi64(t2, 0x55); t3 = _mm256_permute4x64_epi64(t3, 0x55)
    t4 = _mm256_permute4x64_epi64(t4, 0x55)
    d0 = _mm256_setzero_si256()
    d1 = d0; d2 = d0; d3 = d0; d4 = d0
    _p26v_mac(&d0, &d1, &d2, &d3, &d4, t0, t1, t2, t3, t4, q0, q1, q2, q3, q4,
              _p26v_times5(q1), _p26v_times5(q2), _p26v_times5(q3), _p26v_times5(q4))
    _p26v_carry(&t0, &t1, &t2, &t3, &t4, d0, d1, d2, d3, d4)
    _mm256_storeu_si256(<__m256i*>(pw + 4), t0)
    _mm256_storeu_si256(<__m256i*>(pw + 12), t1)
    _mm256_storeu_si256(<__m256i*>(pw + 20), t2)
    _mm256_storeu_si256(<__m256i*>(pw + 28), t3)
    _mm256_storeu_si256(<__m256i*>(pw + 36), t4)
    st.powers_ready |= P1305X_AVX2_READY


# ---------------------------------------------------------------------------
# The kernel
# ---------------------------------------------------------------------------
cdef void poly1305_blocks_avx2(poly1305_state* st, const uint8_t* m,
                                size_t nblocks, uint64_t hibit) noexcept nogil:
    cdef size_t nvec, rem
    cdef const uint64_t* pw
    cdef uint64_t l[5]
    cdef __m256i h0, h1, h2, h3, h4          # accumulator lanes
    cdef __m256i a0, a1, a2, a3, a4          # group a of four blocks
    cdef __m256i b0, b1, b2, b3, b4          # group b of four blocks
    cdef __m256i d0, d1, d2, d3, d4           # products, then carried
    cdef __m256i u0, u1, u2, u3, u4, v1, v2, v3, v4     # r^8-type limbs and 5x
    cdef __m256i w0, w1, w2, w3, w4, x1, x2, x3, x4     # r^4-type limbs and 5x

    if hibit == 0 or nblocks < P1305X_AVX2_MIN_BLOCKS:
        poly1305_blocks_portable(st, m, nblocks, hibit)
        return
    if not (st.powers_ready & P1305X_AVX2_READY):
        if nblocks < P1305X_AVX2_MIN_BLOCKS_FRESH:
            poly1305_blocks_portable(st, m, nblocks, hibit)
            return
        _p26_avx2_powers(st)
    nvec = nblocks & ~(<size_t>3)            # >= 8, a multiple of 4
    pw = st.powers + P1305X_AVX2_POWERS
    if nblocks > nvec:
        # The blocks past the vector part's multiple go to the scalar loop
        # first, not last: with a fresh key their chain then overlaps the
        # computation of the powers (as in the IFMA kernel).
        poly1305_blocks_portable(st, m, nblocks - nvec, hibit)
        m += 16 * (nblocks - nvec)

    # h (base 2^64, h2 < 8) into lane 0: h0..h3 < 2^26, h4 < 2^27.2
    p26_from64(st.h[0], st.h[1], st.h[2], l)
    h0 = _mm256_set_epi64x(0, 0, 0, <long long>l[0])
    h1 = _mm256_set_epi64x(0, 0, 0, <long long>l[1])
    h2 = _mm256_set_epi64x(0, 0, 0, <long long>l[2])
    h3 = _mm256_set_epi64x(0, 0, 0, <long long>l[3])
    h4 = _mm256_set_epi64x(0, 0, 0, <long long>l[4])

    # steady-state multipliers: r^8 and r^4 in every lane (limbs < 2^26 + 2^10,
    # 5x < 2^28.4)
    u0 = _mm256_set1_epi64x(<long long>pw[7]); u1 = _mm256_set1_epi64x(<long long>pw[15])
    u2 = _mm256_set1_epi64x(<long long>pw[23]); u3 = _mm256_set1_epi64x(<long long>pw[31])
    u4 = _mm256_set1_epi64x(<long long>pw[39])
    v1 = _p26v_times5(u1); v2 = _p26v_times5(u2); v3 = _p26v_times5(u3); v4 = _p26v_times5(u4)
    w0 = _mm256_set1_epi64x(<long long>pw[3]); w1 = _mm256_set1_epi64x(<long long>pw[11])
    w2 = _mm256_set1_epi64x(<long long>pw[19]); w3 = _mm256_set1_epi64x(<long long>pw[27])
    w4 = _mm256_set1_epi64x(<long long>pw[35])
    x1 = _p26v_times5(w1); x2 = _p26v_times5(w2); x3 = _p26v_times5(w3); x4 = _p26v_times5(w4)

    rem = nvec
    while rem > 8:
        # d = b * r^4 + (H + a) * r^8.  H + a < 2^26 + 2^10 + 2^26 < 2^27.01
        # (first step: limb 4 < 2^27.2 + 2^25 < 2^27.4).  Products < 2^27.4 *
        # 2^28.4 = 2^55.8 and 2^26 * 2^28.4 = 2^54.4: ten of them < 2^59.
        _p26v_load4(m + 64, &b0, &b1, &b2, &b3, &b4)
        d0 = _mm256_setzero_si256()
        d1 = d0; d2 = d0; d3 = d0; d4 = d0
        _p26v_mac(&d0, &d1, &d2, &d3, &d4, b0, b1, b2, b3, b4,
                  w0, w1, w2, w3, w4, x1, x2, x3, x4)
        _p26v_load4(m, &a0, &a1, &a2, &a3, &a4)
        _p26v_mac(&d0, &d1, &d2, &d3, &d4,
                  _mm256_add_epi64(h0, a0), _mm256_add_epi64(h1, a1),
                  _mm256_add_epi64(h2, a2), _mm256_add_epi64(h3, a3),
                  _mm256_add_epi64(h4, a4),
                  u0, u1, u2, u3, u4, v1, v2, v3, v4)
        _p26v_carry(&h0, &h1, &h2, &h3, &h4, d0, d1, d2, d3, d4)
        m += 128
        rem -= 8

    # Last step.  Vector lanes 0..3 hold positions 0, 2, 1, 3 of each group:
    # (H + a) * r^(4-p) for a last group of four, or for the last eight
    # (H + a) * r^(8-p) + b * r^(4-p).  Same bounds as above.
    w0 = _p26v_final(pw, 0, 0); w1 = _p26v_final(pw, 1, 0); w2 = _p26v_final(pw, 2, 0)
    w3 = _p26v_final(pw, 3, 0); w4 = _p26v_final(pw, 4, 0)
    x1 = _p26v_times5(w1); x2 = _p26v_times5(w2); x3 = _p26v_times5(w3); x4 = _p26v_times5(w4)
    d0 = _mm256_setzero_si256()
    d1 = d0; d2 = d0; d3 = d0; d4 = d0
    if rem == 8:
        # lanes r^8, r^6, r^7, r^5 for group a
        u0 = _p26v_final(pw, 0, 1); u1 = _p26v_final(pw, 1, 1); u2 = _p26v_final(pw, 2, 1)
        u3 = _p26v_final(pw, 3, 1); u4 = _p26v_final(pw, 4, 1)
        v1 = _p26v_times5(u1); v2 = _p26v_times5(u2); v3 = _p26v_times5(u3); v4 = _p26v_times5(u4)
        _p26v_load4(m + 64, &b0, &b1, &b2, &b3, &b4)
        _p26v_mac(&d0, &d1, &d2, &d3, &d4, b0, b1, b2, b3, b4,
                  w0, w1, w2, w3, w4, x1, x2, x3, x4)
        _p26v_load4(m, &a0, &a1, &a2, &a3, &a4)
        _p26v_mac(&d0, &d1, &d2, &d3, &d4,
                  _mm256_add_epi64(h0, a0), _mm256_add_epi64(h1, a1),
                  _mm256_add_epi64(h2, a2), _mm256_add_epi64(h3, a3),
                  _mm256_add_epi64(h4, a4),
                  u0, u1, u2, u3, u4, v1, v2, v3, v4)
        m += 128
    else:
        # rem == 4
        _p26v_load4(m, &a0, &a1, &a2, &a3, &a4)
        _p26v_mac(&d0, &d1, &d2, &d3, &d4,
                  _mm256_add_epi64(h0, a0), _mm256_add_epi64(h1, a1),
                  _mm256_add_epi64(h2, a2), _mm256_add_epi64(h3, a3),
                  _mm256_add_epi64(h4, a4),
                  w0, w1, w2, w3, w4, x1, x2, x3, x4)
        m += 64
    _p26v_carry(&h0, &h1, &h2, &h3, &h4, d0, d1, d2, d3, d4)

    # Sum the lanes: each limb < 4 * (2^26 + 2^10) < 2^28.01; full carry, then
    # l0..l3 < 2^26, l4 < 2^26 + 2, so base 2^64 with h2 = l4 >> 24 < 8.
    l[0] = _p26v_hsum(h0)
    l[1] = _p26v_hsum(h1)
    l[2] = _p26v_hsum(h2)
    l[3] = _p26v_hsum(h3)
    l[4] = _p26v_hsum(h4)
    p26_carry_full(l)
    p26_to64(l, st.h)
