# cython: language_level=3
"""Inline helpers shared by the kernels and the layers above them (the engine,
the dispatcher's self-test, the SSH framing): Poly1305 state set-up and
finish, the ChaCha20 input block and HChaCha20, the constant-time tag compare
and the wipe.  No loop over data and no vector code: each module that cimports
this file compiles its own copy, with its own flags, so the engine needs no
kernel module to use them."""
from libc.stdint cimport uint8_t, uint32_t, uint64_t

from poly1305x._kernels._kernel cimport poly1305_state
from poly1305x._kernels._util cimport load32_le, load64_le, store32_le, store64_le

cdef extern from "_wide.h" nogil:
    void p1305x_wipe(void* p, size_t n)
    uint32_t p1305x_opaque32(uint32_t v)


cdef inline void poly1305_init(poly1305_state* st, const uint8_t* r16,
                               const uint8_t* s16) noexcept nogil:
    st.h[0] = 0
    st.h[1] = 0
    st.h[2] = 0
    # clamp: r &= 0x0ffffffc0ffffffc0ffffffc0fffffff
    st.r[0] = load64_le(r16) & <uint64_t>0x0ffffffc0fffffff
    st.r[1] = load64_le(r16 + 8) & <uint64_t>0x0ffffffc0ffffffc
    st.s[0] = load64_le(s16)
    st.s[1] = load64_le(s16 + 8)
    st.powers_ready = 0


cdef inline void poly1305_finish(poly1305_state* st, uint8_t* tag16) noexcept nogil:
    """tag = (h mod p + s) mod 2^128, without branches on h."""
    cdef uint64_t h0 = st.h[0], h1 = st.h[1], h2 = st.h[2]
    cdef uint64_t g0, g1, g2, c, mask
    # fold bits >= 2^130 once: now h < 2^130 + 5*2 < 2p
    c = (h2 >> 2) * 5
    h2 &= 3
    h0 += c
    c = h0 < c
    h1 += c
    h2 += h1 < c
    # g = h + 5 - 2^130; if it does not borrow (bit 130 set in h + 5), h >= p
    g0 = h0 + 5
    c = g0 < 5
    g1 = h1 + c
    c = g1 < c
    g2 = h2 + c
    mask = <uint64_t>0 - (g2 >> 2)       # all ones when h >= p
    h0 = (h0 & ~mask) | (g0 & mask)
    h1 = (h1 & ~mask) | (g1 & mask)
    # + s mod 2^128
    h0 += st.s[0]
    c = h0 < st.s[0]
    h1 += st.s[1] + c
    store64_le(tag16, h0)
    store64_le(tag16 + 8, h1)


cdef inline int tags_equal(const uint8_t* a, const uint8_t* b, size_t n) noexcept nogil:
    """1 when equal; the time depends only on n."""
    cdef uint32_t d = 0
    cdef size_t i
    for i in range(n):
        d |= a[i] ^ b[i]
    # Inlined into its callers: hide d from the optimiser, so that it cannot
    # turn the compare into a branch on d.
    d = p1305x_opaque32(d)
    return <int>(1 & ((d - 1) >> 8))


cdef inline void wipe(void* p, size_t n) noexcept nogil:
    """Zero secrets so that the compiler cannot drop the stores."""
    p1305x_wipe(p, n)


# ---------------------------------------------------------------------------
# ChaCha20 (RFC 8439 section 2.3): the permutation, the input block, HChaCha20
# ---------------------------------------------------------------------------
cdef inline uint32_t rotl(uint32_t v, int c) noexcept nogil:
    return (v << c) | (v >> (32 - c))


cdef inline void chacha20_rounds(uint32_t* x) noexcept nogil:
    """Twenty rounds over x[16] in place (no feed-forward)."""
    cdef uint32_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3]
    cdef uint32_t x4 = x[4], x5 = x[5], x6 = x[6], x7 = x[7]
    cdef uint32_t x8 = x[8], x9 = x[9], x10 = x[10], x11 = x[11]
    cdef uint32_t x12 = x[12], x13 = x[13], x14 = x[14], x15 = x[15]
    cdef int i
    for i in range(10):
        # column round
        x0 += x4; x12 = rotl(x12 ^ x0, 16); x8 += x12; x4 = rotl(x4 ^ x8, 12)
        x0 += x4; x12 = rotl(x12 ^ x0, 8); x8 += x12; x4 = rotl(x4 ^ x8, 7)
        x1 += x5; x13 = rotl(x13 ^ x1, 16); x9 += x13; x5 = rotl(x5 ^ x9, 12)
        x1 += x5; x13 = rotl(x13 ^ x1, 8); x9 += x13; x5 = rotl(x5 ^ x9, 7)
        x2 += x6; x14 = rotl(x14 ^ x2, 16); x10 += x14; x6 = rotl(x6 ^ x10, 12)
        x2 += x6; x14 = rotl(x14 ^ x2, 8); x10 += x14; x6 = rotl(x6 ^ x10, 7)
        x3 += x7; x15 = rotl(x15 ^ x3, 16); x11 += x15; x7 = rotl(x7 ^ x11, 12)
        x3 += x7; x15 = rotl(x15 ^ x3, 8); x11 += x15; x7 = rotl(x7 ^ x11, 7)
        # diagonal round
        x0 += x5; x15 = rotl(x15 ^ x0, 16); x10 += x15; x5 = rotl(x5 ^ x10, 12)
        x0 += x5; x15 = rotl(x15 ^ x0, 8); x10 += x15; x5 = rotl(x5 ^ x10, 7)
        x1 += x6; x12 = rotl(x12 ^ x1, 16); x11 += x12; x6 = rotl(x6 ^ x11, 12)
        x1 += x6; x12 = rotl(x12 ^ x1, 8); x11 += x12; x6 = rotl(x6 ^ x11, 7)
        x2 += x7; x13 = rotl(x13 ^ x2, 16); x8 += x13; x7 = rotl(x7 ^ x8, 12)
        x2 += x7; x13 = rotl(x13 ^ x2, 8); x8 += x13; x7 = rotl(x7 ^ x8, 7)
        x3 += x4; x14 = rotl(x14 ^ x3, 16); x9 += x14; x4 = rotl(x4 ^ x9, 12)
        x3 += x4; x14 = rotl(x14 ^ x3, 8); x9 += x14; x4 = rotl(x4 ^ x9, 7)
    x[0] = x0; x[1] = x1; x[2] = x2; x[3] = x3
    x[4] = x4; x[5] = x5; x[6] = x6; x[7] = x7
    x[8] = x8; x[9] = x9; x[10] = x10; x[11] = x11
    x[12] = x12; x[13] = x13; x[14] = x14; x[15] = x15


cdef inline void chacha20_init_state(uint32_t* state16, const uint8_t* key32,
                                     const uint8_t* nonce, size_t nonce_len,
                                     uint64_t counter) noexcept nogil:
    """nonce_len 8: 64-bit counter in words 12-13; 12: 32-bit counter in word 12."""
    cdef int i
    state16[0] = 0x61707865   # "expand 32-byte k"
    state16[1] = 0x3320646e
    state16[2] = 0x79622d32
    state16[3] = 0x6b206574
    for i in range(8):
        state16[4 + i] = load32_le(key32 + 4 * i)
    state16[12] = <uint32_t>counter
    if nonce_len == 8:
        state16[13] = <uint32_t>(counter >> 32)
        state16[14] = load32_le(nonce)
        state16[15] = load32_le(nonce + 4)
    else:
        state16[13] = load32_le(nonce)
        state16[14] = load32_le(nonce + 4)
        state16[15] = load32_le(nonce + 8)


cdef inline void hchacha20(const uint8_t* key32, const uint8_t* nonce16,
                           uint8_t* out32) noexcept nogil:
    """HChaCha20 (draft-irtf-cfrg-xchacha section 2.2): words 0-3 and 12-15 of
    the permuted state, without the feed-forward."""
    cdef uint32_t x[16]
    cdef int i
    chacha20_init_state(x, key32, nonce16 + 4, 12, load32_le(nonce16))
    chacha20_rounds(x)
    for i in range(4):
        store32_le(out32 + 4 * i, x[i])
        store32_le(out32 + 16 + 4 * i, x[12 + i])
    wipe(x, sizeof(x))
