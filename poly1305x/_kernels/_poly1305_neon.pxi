# Poly1305 in two lanes of radix-2^26 limbs: the portable backend's Poly1305
# on aarch64, where the lanes are NEON registers (included by _portable.pyx;
# primitives in _neon.h).
#
# Why: on aarch64 the 32x32->64 vector multiply-accumulate (UMLAL, two lanes)
# beats the scalar base-2^64 loop (MUL + UMULH per 64x64 product) on most
# cores.  Published cycles per byte, scalar vs NEON, from the CRYPTOGAMS
# poly1305-armv8 module as shipped in OpenSSL: Apple A7 1.86 vs 0.72,
# Cortex-A53 2.69 vs 1.47, Cortex-A57 2.70 vs 1.14, Mongoose 1.77 vs 1.12,
# Kryo 2.70 vs 1.13 (NEON is behind only on X-Gene, 2.13 vs 2.27, and
# ThunderX2, 1.17 vs 1.36).  Nothing here can time aarch64.
#
# Radix 2^26: a number is five limbs x0 + x1*2^26 + ... + x4*2^104.  A limb
# that enters a multiply is one 32-bit lane (must be < 2^32); products and
# their sums are 64-bit lanes (must stay < 2^64).  2^130 = 5 (mod p) folds the
# wrap-around products through s_i = 5*r_i.
#
# Lanes.  Two lanes, lane j takes blocks j, j+2, j+4, ...  Per 4 blocks (pair
# a = blocks 0, 1 and pair b = blocks 2, 3 of the step) every lane does
#     H <- (H + a) * r^4 + b * r^2                      (one carry pass)
# and the last step of a call uses [r^4, r^3] and [r^2, r^1] instead (lane 0,
# lane 1), or, when one pair is left, H <- (H + a) * [r^2, r^1].  The incoming
# h is added into lane 0 of the first pair; at the end the two lanes are
# summed and brought back to the base-2^64 state that every kernel shares.
# An odd last block goes to the scalar loop, as do short inputs and the padded
# final block (hibit 0).
#
# Powers (per key, filled on the first long input; layout owned here): two
# 32-bit limbs per 64-bit word, so one word loads as one [lane 0, lane 1] pair,
#     st.powers[88 + i] = limb i of r^2 | limb i of r^1 << 32    (i = 0..4)
#     st.powers[93 + i] = limb i of r^4 | limb i of r^3 << 32
# each limb < 2^26 + 2, flagged by bit 2 of st.powers_ready.  Words 0..87 and
# bits 0, 1 belong to the x86 kernels, so no state mixes layouts.  The steady
# loop multiplies both lanes by the same power, so it takes its multipliers
# by element (UMLAL Vd.2D, Vn.2S, Vm.S[k]) from five four-lane registers
# [r^2, r^4, 5 r^2, 5 r^4] (one per limb): that leaves enough of the 32
# vector registers for h, the products and two pairs of blocks (the loop has
# no spills: 123 instructions per 4 blocks with GCC 12 -O3).
#
# Everything is branch-free on key, message and accumulator values: the only
# branches are on lengths and on powers_ready.

cdef extern from "_neon.h" nogil:
    ctypedef struct p1305x_n32:
        pass
    ctypedef struct p1305x_n64:
        pass
    ctypedef struct p1305x_n128:
        pass
    int P1305X_HAVE_NEON_POLY
    int P1305X_USE_LANES2
    const char* P1305X_POLY_KIND
    p1305x_n32 p1305x_n32_set(uint32_t lane0, uint32_t lane1)
    p1305x_n32 p1305x_n32_load(const uint64_t* p)
    p1305x_n128 p1305x_n128_set(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
    p1305x_n32 p1305x_n32_add(p1305x_n32 a, p1305x_n32 b)
    p1305x_n32 p1305x_n32_times5(p1305x_n32 a)
    p1305x_n32 p1305x_n32_narrow(p1305x_n64 a)
    uint64_t p1305x_n32_hsum(p1305x_n32 a)
    void p1305x_n32_load_blocks2(const uint8_t* m, uint32_t hb, p1305x_n32* l0,
                                 p1305x_n32* l1, p1305x_n32* l2, p1305x_n32* l3,
                                 p1305x_n32* l4)
    p1305x_n64 p1305x_n64_mul(p1305x_n32 a, p1305x_n32 b)
    p1305x_n64 p1305x_n64_mac(p1305x_n64 acc, p1305x_n32 a, p1305x_n32 b)
    p1305x_n64 p1305x_n64_mul_lane0(p1305x_n32 a, p1305x_n128 c)
    p1305x_n64 p1305x_n64_mul_lane1(p1305x_n32 a, p1305x_n128 c)
    p1305x_n64 p1305x_n64_mac_lane0(p1305x_n64 acc, p1305x_n32 a, p1305x_n128 c)
    p1305x_n64 p1305x_n64_mac_lane1(p1305x_n64 acc, p1305x_n32 a, p1305x_n128 c)
    p1305x_n64 p1305x_n64_mac_lane2(p1305x_n64 acc, p1305x_n32 a, p1305x_n128 c)
    p1305x_n64 p1305x_n64_mac_lane3(p1305x_n64 acc, p1305x_n32 a, p1305x_n128 c)
    p1305x_n64 p1305x_n64_add(p1305x_n64 a, p1305x_n64 b)
    p1305x_n64 p1305x_n64_shr26(p1305x_n64 a)
    p1305x_n64 p1305x_n64_mask26(p1305x_n64 a)
    p1305x_n64 p1305x_n64_times5(p1305x_n64 a)


# This kernel's words of st.powers and its bit in st.powers_ready (_powers.h).
from poly1305x._kernels._kernel cimport P1305X_N2_POWERS, P1305X_N2_READY
# Radix 2^26: conversions and the full carry (the one copy).
from poly1305x._kernels._radix26 cimport p26_carry_full, p26_from64, p26_to64

# Below this many blocks (256 bytes) the scalar loop runs.  Not measured
# (nothing here runs aarch64 natively): the powers cost three scalar 26-bit
# multiplies once per key, and the lane setup, final multiply and lane sum
# cost a few blocks' worth of scalar work per call.
cdef enum:
    P1305X_N2_MIN_BLOCKS = 16
    N2_MASK = 0x3ffffff


# ---------------------------------------------------------------------------
# Scalar radix-2^26 helpers (powers of r; conversions: _radix26.pxd)
# ---------------------------------------------------------------------------
cdef inline void _n2_mulmod(const uint64_t* a, const uint64_t* b, uint64_t* out) noexcept nogil:
    """out = a * b mod p in limbs (a, b limbs < 2^26 + 2, so 5 b_j < 2^28.4,
    products < 2^54.4, five per limb < 2^56.8); out as p26_carry_full."""
    cdef int i, j
    for i in range(5):
        out[i] = 0
    for i in range(5):
        for j in range(5 - i):
            out[i + j] += a[i] * b[j]
        for j in range(5 - i, 5):
            out[i + j - 5] += a[i] * (5 * b[j])
    p26_carry_full(out)


cdef void _n2_powers(poly1305_state* st) noexcept nogil:
    """r^1..r^4 into st.powers (layout above)."""
    cdef uint64_t r1[5]
    cdef uint64_t r2[5]
    cdef uint64_t r3[5]
    cdef uint64_t r4[5]
    cdef uint64_t* pw = st.powers + P1305X_N2_POWERS
    cdef int i
    p26_from64(st.r[0], st.r[1], 0, r1)      # clamped r < 2^124: limbs < 2^26
    _n2_mulmod(r1, r1, r2)
    _n2_mulmod(r2, r1, r3)
    _n2_mulmod(r2, r2, r4)
    for i in range(5):
        pw[i] = r2[i] | (r1[i] << 32)
        pw[5 + i] = r4[i] | (r3[i] << 32)
    wipe(r1, sizeof(r1)); wipe(r2, sizeof(r2)); wipe(r3, sizeof(r3)); wipe(r4, sizeof(r4))
    st.powers_ready |= P1305X_N2_READY


# ---------------------------------------------------------------------------
# Lane helpers
# ---------------------------------------------------------------------------
cdef inline void _n2_mac(p1305x_n64* d0, p1305x_n64* d1, p1305x_n64* d2, p1305x_n64* d3,
                         p1305x_n64* d4,
                         p1305x_n32 t0, p1305x_n32 t1, p1305x_n32 t2, p1305x_n32 t3,
                         p1305x_n32 t4,
                         p1305x_n32 r0, p1305x_n32 r1, p1305x_n32 r2, p1305x_n32 r3,
                         p1305x_n32 r4,
                         p1305x_n32 s1, p1305x_n32 s2, p1305x_n32 s3,
                         p1305x_n32 s4, bint first) noexcept nogil:
    """d += t * r per lane (25 multiplies): d_k += sum_{i+j=k} t_i r_j +
    sum_{i+j=k+5} t_i s_j, one limb of t at a time into the five sums.  With
    first (a constant after inlining) d = t * r: the first row sets d."""
    if first:
        d0[0] = p1305x_n64_mul(t0, r0); d1[0] = p1305x_n64_mul(t0, r1)
        d2[0] = p1305x_n64_mul(t0, r2); d3[0] = p1305x_n64_mul(t0, r3)
        d4[0] = p1305x_n64_mul(t0, r4)
    else:
        d0[0] = p1305x_n64_mac(d0[0], t0, r0); d1[0] = p1305x_n64_mac(d1[0], t0, r1)
        d2[0] = p1305x_n64_mac(d2[0], t0, r2); d3[0] = p1305x_n64_mac(d3[0], t0, r3)
        d4[0] = p1305x_n64_mac(d4[0], t0, r4)
    d0[0] = p1305x_n64_mac(d0[0], t1, s4); d1[0] = p1305x_n64_mac(d1[0], t1, r0)
    d2[0] = p1305x_n64_mac(d2[0], t1, r1); d3[0] = p1305x_n64_mac(d3[0], t1, r2)
    d4[0] = p1305x_n64_mac(d4[0], t1, r3)
    d0[0] = p1305x_n64_mac(d0[0], t2, s3); d1[0] = p1305x_n64_mac(d1[0], t2, s4)
    d2[0] = p1305x_n64_mac(d2[0], t2, r0); d3[0] = p1305x_n64_mac(d3[0], t2, r1)
    d4[0] = p1305x_n64_mac(d4[0], t2, r2)
    d0[0] = p1305x_n64_mac(d0[0], t3, s2); d1[0] = p1305x_n64_mac(d1[0], t3, s3)
    d2[0] = p1305x_n64_mac(d2[0], t3, s4); d3[0] = p1305x_n64_mac(d3[0], t3, r0)
    d4[0] = p1305x_n64_mac(d4[0], t3, r1)
    d0[0] = p1305x_n64_mac(d0[0], t4, s1); d1[0] = p1305x_n64_mac(d1[0], t4, s2)
    d2[0] = p1305x_n64_mac(d2[0], t4, s3); d3[0] = p1305x_n64_mac(d3[0], t4, s4)
    d4[0] = p1305x_n64_mac(d4[0], t4, r0)


cdef inline p1305x_n64 _n2_emac(p1305x_n64 acc, p1305x_n32 a, p1305x_n128 c,
                               int k) noexcept nogil:
    """acc + a * (lane k of c), k a constant after inlining."""
    if k == 0:
        return p1305x_n64_mac_lane0(acc, a, c)
    if k == 1:
        return p1305x_n64_mac_lane1(acc, a, c)
    if k == 2:
        return p1305x_n64_mac_lane2(acc, a, c)
    return p1305x_n64_mac_lane3(acc, a, c)


cdef inline p1305x_n64 _n2_emul(p1305x_n32 a, p1305x_n128 c, int k) noexcept nogil:
    """a * (lane k of c), k 0 or 1."""
    if k == 0:
        return p1305x_n64_mul_lane0(a, c)
    return p1305x_n64_mul_lane1(a, c)


cdef inline void _n2_mac_elem(p1305x_n64* d0, p1305x_n64* d1, p1305x_n64* d2,
                              p1305x_n64* d3, p1305x_n64* d4,
                              p1305x_n32 t0, p1305x_n32 t1, p1305x_n32 t2, p1305x_n32 t3,
                              p1305x_n32 t4,
                              p1305x_n128 c0, p1305x_n128 c1, p1305x_n128 c2, p1305x_n128 c3,
                              p1305x_n128 c4, int k, bint first) noexcept nogil:
    """_n2_mac with one multiplier for both lanes: r_j is lane k of c_j and
    s_j = 5 r_j lane k + 2 (k = 0 or 1, a constant after inlining), so the
    ten limbs of r and 5r of two powers sit in five registers."""
    cdef int s = k + 2
    if first:
        d0[0] = _n2_emul(t0, c0, k); d1[0] = _n2_emul(t0, c1, k)
        d2[0] = _n2_emul(t0, c2, k); d3[0] = _n2_emul(t0, c3, k)
        d4[0] = _n2_emul(t0, c4, k)
    else:
        d0[0] = _n2_emac(d0[0], t0, c0, k); d1[0] = _n2_emac(d1[0], t0, c1, k)
        d2[0] = _n2_emac(d2[0], t0, c2, k); d3[0] = _n2_emac(d3[0], t0, c3, k)
        d4[0] = _n2_emac(d4[0], t0, c4, k)
    d0[0] = _n2_emac(d0[0], t1, c4, s); d1[0] = _n2_emac(d1[0], t1, c0, k)
    d2[0] = _n2_emac(d2[0], t1, c1, k); d3[0] = _n2_emac(d3[0], t1, c2, k)
    d4[0] = _n2_emac(d4[0], t1, c3, k)
    d0[0] = _n2_emac(d0[0], t2, c3, s); d1[0] = _n2_emac(d1[0], t2, c4, s)
    d2[0] = _n2_emac(d2[0], t2, c0, k); d3[0] = _n2_emac(d3[0], t2, c1, k)
    d4[0] = _n2_emac(d4[0], t2, c2, k)
    d0[0] = _n2_emac(d0[0], t3, c2, s); d1[0] = _n2_emac(d1[0], t3, c3, s)
    d2[0] = _n2_emac(d2[0], t3, c4, s); d3[0] = _n2_emac(d3[0], t3, c0, k)
    d4[0] = _n2_emac(d4[0], t3, c1, k)
    d0[0] = _n2_emac(d0[0], t4, c1, s); d1[0] = _n2_emac(d1[0], t4, c2, s)
    d2[0] = _n2_emac(d2[0], t4, c3, s); d3[0] = _n2_emac(d3[0], t4, c4, s)
    d4[0] = _n2_emac(d4[0], t4, c0, k)


cdef inline p1305x_n128 _n2_steady(const uint64_t* pw, int i) noexcept nogil:
    """[r^2, r^4, 5 r^2, 5 r^4] limb i (limbs < 2^26 + 2, 5x < 2^28.4)."""
    cdef uint32_t a = <uint32_t>pw[i], b = <uint32_t>pw[5 + i]
    return p1305x_n128_set(a, b, 5 * a, 5 * b)


cdef inline void _n2_carry(p1305x_n32* h0, p1305x_n32* h1, p1305x_n32* h2, p1305x_n32* h3,
                           p1305x_n32* h4, p1305x_n64 d0, p1305x_n64 d1, p1305x_n64 d2,
                           p1305x_n64 d3, p1305x_n64 d4) noexcept nogil:
    """One carry pass over d (each lane limb < 2^59), two chains interleaved,
    narrowed to 32-bit lanes.  Out: h0, h2, h3 < 2^26; h1 < 2^26 + 2^10;
    h4 < 2^26 + 2^8."""
    cdef p1305x_n64 c0, c3
    # d0 -> d1 and d3 -> d4: d0, d3 < 2^26; d1, d4 < 2^59 + 2^33
    c0 = p1305x_n64_shr26(d0); d0 = p1305x_n64_mask26(d0); d1 = p1305x_n64_add(d1, c0)
    c3 = p1305x_n64_shr26(d3); d3 = p1305x_n64_mask26(d3); d4 = p1305x_n64_add(d4, c3)
    # d1 -> d2 and d4 -> d0 (x5): d1, d4 < 2^26; d2 < 2^59 + 2^34;
    # d0 < 2^26 + 5 * 2^33.1 < 2^35.5
    c0 = p1305x_n64_shr26(d1); d1 = p1305x_n64_mask26(d1); d2 = p1305x_n64_add(d2, c0)
    c3 = p1305x_n64_shr26(d4); d4 = p1305x_n64_mask26(d4)
    d0 = p1305x_n64_add(d0, p1305x_n64_times5(c3))
    # d2 -> d3 and d0 -> d1: d2, d0 < 2^26; d3 < 2^26 + 2^33.1; d1 < 2^26 + 2^9.5
    c0 = p1305x_n64_shr26(d2); d2 = p1305x_n64_mask26(d2); d3 = p1305x_n64_add(d3, c0)
    c3 = p1305x_n64_shr26(d0); d0 = p1305x_n64_mask26(d0); d1 = p1305x_n64_add(d1, c3)
    # d3 -> d4: d3 < 2^26; d4 < 2^26 + 2^7.2
    c0 = p1305x_n64_shr26(d3); d3 = p1305x_n64_mask26(d3); d4 = p1305x_n64_add(d4, c0)
    h0[0] = p1305x_n32_narrow(d0); h1[0] = p1305x_n32_narrow(d1)
    h2[0] = p1305x_n32_narrow(d2); h3[0] = p1305x_n32_narrow(d3)
    h4[0] = p1305x_n32_narrow(d4)


# ---------------------------------------------------------------------------
# The kernel
# ---------------------------------------------------------------------------
cdef void poly1305_blocks_lanes2(poly1305_state* st, const uint8_t* m,
                                 size_t nblocks, uint64_t hibit) noexcept nogil:
    cdef size_t npair, rem
    cdef const uint64_t* pw
    cdef uint64_t l[5]
    cdef uint32_t hb = 1 << 24                         # 2^128 in limb 4
    cdef p1305x_n32 h0, h1, h2, h3, h4                 # accumulator lanes
    cdef p1305x_n32 a0, a1, a2, a3, a4                 # pair a (blocks 0, 1 of a step)
    cdef p1305x_n32 b0, b1, b2, b3, b4                 # pair b (blocks 2, 3)
    cdef p1305x_n64 d0, d1, d2, d3, d4                 # products
    cdef p1305x_n32 u0, u1, u2, u3, u4, v1, v2, v3, v4     # r^4-type limbs and 5x
    cdef p1305x_n32 w0, w1, w2, w3, w4, x1, x2, x3, x4     # r^2-type limbs and 5x
    cdef p1305x_n128 c0, c1, c2, c3, c4                     # steady state: r^2, r^4 (and 5x)

    if hibit == 0 or nblocks < P1305X_N2_MIN_BLOCKS:
        poly1305_blocks_portable(st, m, nblocks, hibit)
        return
    if not (st.powers_ready & P1305X_N2_READY):
        _n2_powers(st)
    npair = nblocks & ~(<size_t>1)                     # >= 16, even
    pw = st.powers + P1305X_N2_POWERS

    # h (base 2^64, h[2] < 8) into lane 0: h0..h3 < 2^26, h4 < 2^27
    p26_from64(st.h[0], st.h[1], st.h[2], l)
    h0 = p1305x_n32_set(<uint32_t>l[0], 0); h1 = p1305x_n32_set(<uint32_t>l[1], 0)
    h2 = p1305x_n32_set(<uint32_t>l[2], 0); h3 = p1305x_n32_set(<uint32_t>l[3], 0)
    h4 = p1305x_n32_set(<uint32_t>l[4], 0)

    rem = npair
    if rem > 4:
        c0 = _n2_steady(pw, 0); c1 = _n2_steady(pw, 1); c2 = _n2_steady(pw, 2)
        c3 = _n2_steady(pw, 3); c4 = _n2_steady(pw, 4)
        while rem > 4:
            # d = b * r^2 + (H + a) * r^4, r^2 and r^4 by element (k = 0, 1).
            # a, b: limbs < 2^26, limb 4 < 2^25; H + a < 2^26 + 2^10 + 2^26 <
            # 2^27.01 (first step: limb 4 < 2^27 + 2^25 < 2^27.33).  Products <
            # 2^27.33 * 2^28.4 = 2^55.7, ten of them < 2^59.
            p1305x_n32_load_blocks2(m + 32, hb, &b0, &b1, &b2, &b3, &b4)
            _n2_mac_elem(&d0, &d1, &d2, &d3, &d4, b0, b1, b2, b3, b4,
                         c0, c1, c2, c3, c4, 0, True)
            p1305x_n32_load_blocks2(m, hb, &a0, &a1, &a2, &a3, &a4)
            _n2_mac_elem(&d0, &d1, &d2, &d3, &d4,
                         p1305x_n32_add(h0, a0), p1305x_n32_add(h1, a1),
                         p1305x_n32_add(h2, a2), p1305x_n32_add(h3, a3),
                         p1305x_n32_add(h4, a4), c0, c1, c2, c3, c4, 1, False)
            _n2_carry(&h0, &h1, &h2, &h3, &h4, d0, d1, d2, d3, d4)
            m += 64
            rem -= 4

    # the last step's multipliers: w = [r^2, r^1], u = [r^4, r^3]; limbs
    # < 2^26 + 2, 5x < 2^28.4
    w0 = p1305x_n32_load(pw + 0); w1 = p1305x_n32_load(pw + 1)
    w2 = p1305x_n32_load(pw + 2); w3 = p1305x_n32_load(pw + 3)
    w4 = p1305x_n32_load(pw + 4)
    u0 = p1305x_n32_load(pw + 5); u1 = p1305x_n32_load(pw + 6)
    u2 = p1305x_n32_load(pw + 7); u3 = p1305x_n32_load(pw + 8)
    u4 = p1305x_n32_load(pw + 9)

    # Last step (rem is 4 or 2): lane j multiplies by r^(rem-j) for its block
    # of pair a and r^(2-j) for its block of pair b.  Same bounds as above.
    x1 = p1305x_n32_times5(w1); x2 = p1305x_n32_times5(w2)
    x3 = p1305x_n32_times5(w3); x4 = p1305x_n32_times5(w4)
    p1305x_n32_load_blocks2(m, hb, &a0, &a1, &a2, &a3, &a4)
    a0 = p1305x_n32_add(h0, a0); a1 = p1305x_n32_add(h1, a1); a2 = p1305x_n32_add(h2, a2)
    a3 = p1305x_n32_add(h3, a3); a4 = p1305x_n32_add(h4, a4)
    if rem == 4:
        v1 = p1305x_n32_times5(u1); v2 = p1305x_n32_times5(u2)
        v3 = p1305x_n32_times5(u3); v4 = p1305x_n32_times5(u4)
        p1305x_n32_load_blocks2(m + 32, hb, &b0, &b1, &b2, &b3, &b4)
        _n2_mac(&d0, &d1, &d2, &d3, &d4, b0, b1, b2, b3, b4,
                w0, w1, w2, w3, w4, x1, x2, x3, x4, True)
        _n2_mac(&d0, &d1, &d2, &d3, &d4, a0, a1, a2, a3, a4,
                u0, u1, u2, u3, u4, v1, v2, v3, v4, False)
        m += 64
    else:
        _n2_mac(&d0, &d1, &d2, &d3, &d4, a0, a1, a2, a3, a4,
                w0, w1, w2, w3, w4, x1, x2, x3, x4, True)
        m += 32
    _n2_carry(&h0, &h1, &h2, &h3, &h4, d0, d1, d2, d3, d4)

    # Sum the lanes: each limb < 2 * (2^26 + 2^10) < 2^27.01; full carry, then
    # l0..l3 < 2^26, l4 < 2^26 + 2, so base 2^64 with h[2] = l4 >> 24 <= 4.
    l[0] = p1305x_n32_hsum(h0); l[1] = p1305x_n32_hsum(h1); l[2] = p1305x_n32_hsum(h2)
    l[3] = p1305x_n32_hsum(h3); l[4] = p1305x_n32_hsum(h4)
    p26_carry_full(l)
    p26_to64(l, st.h)

    if nblocks > npair:
        poly1305_blocks_portable(st, m, nblocks - npair, hibit)
