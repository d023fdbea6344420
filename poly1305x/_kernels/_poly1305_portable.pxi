# Included by _portable.pyx: the scalar Poly1305 loops of the portable
# backends, base 2^64 (64x64->128 products through _wide.h) and 26-bit limbs
# (32x32->64 products, for compilers without a wide multiply).  The vector
# kernels hand their short inputs and leftovers to the base-2^64 loop.

# Radix 2^26: conversions (the one copy).
from poly1305x._kernels._radix26 cimport P26_MASK, p26_from64, p26_to64

cdef extern from "_wide.h" nogil:
    ctypedef struct p1305x_u128:
        uint64_t lo
        uint64_t hi
    p1305x_u128 p1305x_mul(uint64_t a, uint64_t b)
    p1305x_u128 p1305x_add(p1305x_u128 a, p1305x_u128 b)
    p1305x_u128 p1305x_mac(p1305x_u128 acc, uint64_t a, uint64_t b)
    int P1305X_HAVE_INT128
    void p1305x_wipe(void* p, size_t n)


# ---------------------------------------------------------------------------
# Poly1305, base 2^64 (64x64->128 products)
# h = h0 + h1*2^64 + h2*2^128; r = r0 + r1*2^64 with r0, r1 < 2^60 and 4 | r1.
# Since 2^130 = 5 (mod p) and 4 | r1, the 2^128 and 2^192 terms of h*r fold back
# through sr1 = 5*(r1/4) = r1 + (r1 >> 2) < 2^61.
# ---------------------------------------------------------------------------
cdef void poly1305_blocks_portable(poly1305_state* st, const uint8_t* m,
                                   size_t nblocks, uint64_t hibit) noexcept nogil:
    cdef uint64_t r0 = st.r[0], r1 = st.r[1]
    cdef uint64_t sr1 = r1 + (r1 >> 2)
    cdef uint64_t h0 = st.h[0], h1 = st.h[1], h2 = st.h[2]
    cdef uint64_t t0, t1, c, d2
    cdef p1305x_u128 d0, d1
    while nblocks:
        # h += m (+ 2^128 for a full block); h2 < 8 before, < 10 after
        t0 = load64_le(m)
        t1 = load64_le(m + 8)
        h0 += t0
        c = h0 < t0
        t1 += c
        c = t1 < c
        h1 += t1
        c += h1 < t1
        h2 += c + hibit
        # d = h * r, folded: d0 < 2^125, d1 < 2^126.1, d2 = h2*r0 < 2^64
        d0 = p1305x_mac(p1305x_mul(h0, r0), h1, sr1)
        d1 = p1305x_mac(p1305x_mac(p1305x_mul(h0, r1), h1, r0), h2, sr1)
        d2 = h2 * r0
        # carry: h0 | h1 | d2 * 2^128, then fold d2's bits >= 2 (i.e. >= 2^130) as *5
        h0 = d0.lo
        d1.lo += d0.hi
        d1.hi += d1.lo < d0.hi
        h1 = d1.lo
        d2 += d1.hi
        c = (d2 & ~(<uint64_t>3)) + (d2 >> 2)
        h2 = d2 & 3
        h0 += c
        c = h0 < c
        h1 += c
        h2 += h1 < c        # h2 <= 4
        m += 16
        nblocks -= 1
    st.h[0] = h0
    st.h[1] = h1
    st.h[2] = h2


# ---------------------------------------------------------------------------
# Poly1305, 26-bit limbs (32x32->64 products), for targets without a wide
# multiply.  Limbs l0..l4 of h and r; s_i = 5*r_i folds the 2^130 wrap.
# Converts from/to the shared base-2^64 form once per call.
# ---------------------------------------------------------------------------
cdef void poly1305_blocks_portable26(poly1305_state* st, const uint8_t* m,
                                     size_t nblocks, uint64_t hibit) noexcept nogil:
    cdef uint32_t M = P26_MASK
    cdef uint64_t t[5]
    # r limbs < 2^26 each (clamped r < 2^124)
    p26_from64(st.r[0], st.r[1], 0, t)
    cdef uint32_t r0 = <uint32_t>t[0], r1 = <uint32_t>t[1], r2 = <uint32_t>t[2]
    cdef uint32_t r3 = <uint32_t>t[3], r4 = <uint32_t>t[4]
    cdef uint32_t s1 = r1 * 5, s2 = r2 * 5, s3 = r3 * 5, s4 = r4 * 5
    # h limbs: l0..l3 < 2^26, l4 < 2^27 (h2 < 8)
    p26_from64(st.h[0], st.h[1], st.h[2], t)
    cdef uint32_t l0 = <uint32_t>t[0], l1 = <uint32_t>t[1], l2 = <uint32_t>t[2]
    cdef uint32_t l3 = <uint32_t>t[3], l4 = <uint32_t>t[4]
    cdef uint32_t hb = <uint32_t>hibit << 24
    cdef uint64_t d0, d1, d2, d3, d4, c
    while nblocks:
        # limbs < 2^26 + 2^26 after the add (l4 < 2^27 + 2^24)
        l0 += load32_le(m) & M
        l1 += (load32_le(m + 3) >> 2) & M
        l2 += (load32_le(m + 6) >> 4) & M
        l3 += (load32_le(m + 9) >> 6)
        l4 += (load32_le(m + 12) >> 8) | hb
        # limbs < 2^27.3, r_i < 2^26, s_i < 2^28.4: each product < 2^55.7, sums < 2^58
        d0 = (<uint64_t>l0 * r0 + <uint64_t>l1 * s4 + <uint64_t>l2 * s3
              + <uint64_t>l3 * s2 + <uint64_t>l4 * s1)
        d1 = (<uint64_t>l0 * r1 + <uint64_t>l1 * r0 + <uint64_t>l2 * s4
              + <uint64_t>l3 * s3 + <uint64_t>l4 * s2)
        d2 = (<uint64_t>l0 * r2 + <uint64_t>l1 * r1 + <uint64_t>l2 * r0
              + <uint64_t>l3 * s4 + <uint64_t>l4 * s3)
        d3 = (<uint64_t>l0 * r3 + <uint64_t>l1 * r2 + <uint64_t>l2 * r1
              + <uint64_t>l3 * r0 + <uint64_t>l4 * s4)
        d4 = (<uint64_t>l0 * r4 + <uint64_t>l1 * r3 + <uint64_t>l2 * r2
              + <uint64_t>l3 * r1 + <uint64_t>l4 * r0)
        # one carry pass in 64 bits (d0 < 2^58, so carries reach 2^32); after
        # it l0..l4 < 2^26 except l1 < 2^26 + 2^11
        c = d0 >> 26; l0 = <uint32_t>d0 & M
        d1 += c; c = d1 >> 26; l1 = <uint32_t>d1 & M
        d2 += c; c = d2 >> 26; l2 = <uint32_t>d2 & M
        d3 += c; c = d3 >> 26; l3 = <uint32_t>d3 & M
        d4 += c; c = d4 >> 26; l4 = <uint32_t>d4 & M
        c = l0 + c * 5
        l0 = <uint32_t>c & M
        l1 += <uint32_t>(c >> 26)
        m += 16
        nblocks -= 1
    # full carry so that l0..l3 < 2^26, then repack (l4 < 2^27, so h2 < 8)
    l2 += l1 >> 26; l1 &= M
    l3 += l2 >> 26; l2 &= M
    l4 += l3 >> 26; l3 &= M
    t[0] = l0; t[1] = l1; t[2] = l2; t[3] = l3; t[4] = l4
    p26_to64(t, st.h)
