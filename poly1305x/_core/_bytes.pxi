# Included by _engine.pyx (before _aead.pxi): the byte steps that the AEAD
# cores share (_aead.pxi, _short.pxi, _batch.pxi): the key stream's block
# count, 16-byte XOR and copy steps, a MAC row's zero-padded segments and
# lengths block, and the one bad-tag rule.

cdef extern from *:
    """
    #include <string.h>
    /* RFC 8439's lengths block (two little-endian 64-bit numbers) as two
     * 8-byte stores: the MAC kernels read it as 8-byte words, which the
     * stores then forward to (byte stores merged by the compiler into one
     * 16-byte write through the stack did not). */
    static inline void p1305x_put_lengths(unsigned char *p, unsigned long long a,
                                          unsigned long long b) {
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(p, &a, 8);
        memcpy(p + 8, &b, 8);
    #else
        int i;
        for (i = 0; i < 8; i++) {
            p[i] = (unsigned char)(a >> (8 * i));
            p[8 + i] = (unsigned char)(b >> (8 * i));
        }
    #endif
    }
    /* 16 bytes: row = dst = a ^ b (xor2_16), row = a (copy16); one vector
     * where the compiler has vector extensions (SSE2, NEON, VSX), two
     * words else. */
    #if defined(__GNUC__) || defined(__clang__)
    typedef unsigned char p1305x_v16 __attribute__((vector_size(16)));
    static inline void p1305x_xor2_16(unsigned char *row, unsigned char *dst,
                                      const unsigned char *a, const unsigned char *b) {
        p1305x_v16 x, y;
        memcpy(&x, a, 16);
        memcpy(&y, b, 16);
        x ^= y;
        memcpy(dst, &x, 16);
        memcpy(row, &x, 16);
    }
    static inline void p1305x_copy16(unsigned char *row, const unsigned char *a) {
        p1305x_v16 x;
        memcpy(&x, a, 16);
        memcpy(row, &x, 16);
    }
    #else
    static inline void p1305x_xor2_16(unsigned char *row, unsigned char *dst,
                                      const unsigned char *a, const unsigned char *b) {
        unsigned long long x0, x1, y0, y1;
        memcpy(&x0, a, 8); memcpy(&x1, a + 8, 8);
        memcpy(&y0, b, 8); memcpy(&y1, b + 8, 8);
        x0 ^= y0; x1 ^= y1;
        memcpy(dst, &x0, 8); memcpy(dst + 8, &x1, 8);
        memcpy(row, &x0, 8); memcpy(row + 8, &x1, 8);
    }
    static inline void p1305x_copy16(unsigned char *row, const unsigned char *a) {
        memcpy(row, a, 16);
    }
    #endif
    """
    void p1305x_put_lengths(uint8_t* p, uint64_t a, uint64_t b) noexcept nogil
    void p1305x_xor2_16(uint8_t* row, uint8_t* dst, const uint8_t* a,
                        const uint8_t* b) noexcept nogil
    void p1305x_copy16(uint8_t* row, const uint8_t* a) noexcept nogil


cdef inline void xor_bytes(uint8_t* dst, const uint8_t* a, const uint8_t* b,
                           size_t n) noexcept nogil:
    """dst = a ^ b, 16 bytes a step (dst may equal a)."""
    cdef uint64_t x0, x1, y0, y1
    cdef size_t i = 0
    while i + 16 <= n:
        memcpy(&x0, a + i, 8)
        memcpy(&x1, a + i + 8, 8)
        memcpy(&y0, b + i, 8)
        memcpy(&y1, b + i + 8, 8)
        x0 ^= y0
        x1 ^= y1
        memcpy(dst + i, &x0, 8)
        memcpy(dst + i + 8, &x1, 8)
        i += 16
    while i < n:
        dst[i] = a[i] ^ b[i]
        i += 1


cdef inline void copy_pad16(uint8_t* dst, const uint8_t* src, size_t n) noexcept nogil:
    """dst = src (n bytes), then zeros up to the next multiple of 16: a MAC
    row's segment, 16 bytes a step without a libc call (the lengths here
    are a few dozen bytes; src is never read past n)."""
    cdef uint64_t x0
    cdef size_t i = 0
    while i + 16 <= n:
        p1305x_copy16(dst + i, src + i)
        i += 16
    if i < n:
        x0 = 0
        memcpy(dst + i, &x0, 8)
        memcpy(dst + i + 8, &x0, 8)
        while i < n:
            dst[i] = src[i]
            i += 1


cdef inline void xor_pad16(uint8_t* row, uint8_t* dst, const uint8_t* a, const uint8_t* b,
                           size_t n) noexcept nogil:
    """row = dst = a ^ b (n bytes), and row zero-padded up to the next
    multiple of 16: the ciphertext into the output and the MAC row in one
    pass."""
    cdef uint64_t x0
    cdef size_t i = 0
    while i + 16 <= n:
        p1305x_xor2_16(row + i, dst + i, a + i, b + i)
        i += 16
    if i < n:
        x0 = 0
        memcpy(row + i, &x0, 8)
        memcpy(row + i + 8, &x0, 8)
        while i < n:
            dst[i] = a[i] ^ b[i]
            row[i] = dst[i]
            i += 1


cdef inline size_t pad16(size_t n) noexcept nogil:
    return (n + 15) & ~(<size_t>15)


cdef inline size_t ks_blocks(size_t n) noexcept nogil:
    """The key-stream blocks of an n-byte message: block 0 (the Poly1305 key)
    and the message's."""
    return 1 + ((n + 63) >> 6)


cdef inline bint tag_verdict(uint8_t* mine, const uint8_t* want, uint8_t* out,
                             const uint8_t* ct, const uint8_t* ks, size_t n) noexcept nogil:
    """The bad-tag rule of every opening (_aead.pxi): the computed tag mine
    against want, compared in constant time, then mine wiped.  A good tag:
    out = ct ^ ks (n bytes; with ks NULL out is left as it is, for a caller
    that decrypts it itself); a bad one: out zeroed."""
    cdef bint ok = tags_equal(mine, want, 16)
    wipe(mine, 16)
    if not ok:
        wipe(out, n)
    elif ks != NULL:
        xor_bytes(out, ct, ks, n)
    return ok
