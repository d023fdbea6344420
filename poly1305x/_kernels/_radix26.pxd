# cython: language_level=3
"""Radix 2^26, the one copy: five 26-bit limbs, for the Poly1305 kernels that
compute in it (the AVX2 and NEON vector kernels, the portable26 loop).  The
conversions from and to the base-2^64 state that every kernel shares
(_kernel.pxd: h = h[0] + h[1]*2^64 + h[2]*2^128 with h[2] < 8), and the full
carry.  Inlined where used."""
from libc.stdint cimport uint64_t

cdef enum:
    P26_MASK = 0x3ffffff


cdef inline void p26_from64(uint64_t a0, uint64_t a1, uint64_t a2,
                            uint64_t* l) noexcept nogil:
    """Base 2^64 (a2 < 8) -> limbs: l0..l3 < 2^26, l4 < 2^24 + 7 * 2^24 = 2^27.
    A clamped r (< 2^124, a2 = 0) gives limbs < 2^26."""
    l[0] = a0 & P26_MASK
    l[1] = (a0 >> 26) & P26_MASK
    l[2] = ((a0 >> 52) | (a1 << 12)) & P26_MASK
    l[3] = (a1 >> 14) & P26_MASK
    l[4] = (a1 >> 40) | (a2 << 24)


cdef inline void p26_carry_full(uint64_t* l) noexcept nogil:
    """Full carry of five limbs each < 2^58, the top carry folded back as *5
    (2^130 = 5 mod p): afterwards l0..l3 < 2^26 and l4 < 2^26 + 2 (the value
    unchanged mod p)."""
    cdef uint64_t c
    c = l[0] >> 26; l[0] &= P26_MASK; l[1] += c
    c = l[1] >> 26; l[1] &= P26_MASK; l[2] += c
    c = l[2] >> 26; l[2] &= P26_MASK; l[3] += c
    c = l[3] >> 26; l[3] &= P26_MASK; l[4] += c
    # l4 < 2^58 + 2^33: c < 2^32.1, l0 < 2^26 + 5 * 2^32.1 < 2^34.5
    c = l[4] >> 26; l[4] &= P26_MASK; l[0] += c * 5
    # one more pass: every carry now is < 2^9, then 0 or 1
    c = l[0] >> 26; l[0] &= P26_MASK; l[1] += c
    c = l[1] >> 26; l[1] &= P26_MASK; l[2] += c
    c = l[2] >> 26; l[2] &= P26_MASK; l[3] += c
    c = l[3] >> 26; l[3] &= P26_MASK; l[4] += c


cdef inline void p26_to64(const uint64_t* l, uint64_t* h) noexcept nogil:
    """Limbs with l0..l3 < 2^26 and l4 < 2^27 -> base 2^64 (h[2] = l4 >> 24 < 8)."""
    h[0] = l[0] | (l[1] << 26) | (l[2] << 52)
    h[1] = (l[2] >> 12) | (l[3] << 14) | (l[4] << 40)
    h[2] = l[4] >> 24
