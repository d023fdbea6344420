# Included by _portable.pyx: the portable ChaCha20, one block at a time and
# 4, 5 or 8 blocks per step on the 4-lane primitives of _vec4.h (compiler
# vectors) or on four scalar words.

cdef extern from "_vec4.h" nogil:
    ctypedef struct p1305x_v4:
        pass
    ctypedef struct p1305x_s4:
        pass
    int P1305X_HAVE_VEC
    const char* P1305X_VEC_KIND
    int P1305X_VEC_STEP_BLOCKS
    p1305x_v4 p1305x_v4_set(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
    p1305x_v4 p1305x_v4_set1(uint32_t a)
    p1305x_v4 p1305x_v4_add(p1305x_v4 a, p1305x_v4 b)
    p1305x_v4 p1305x_v4_xor(p1305x_v4 a, p1305x_v4 b)
    p1305x_v4 p1305x_v4_rotl16(p1305x_v4 a)
    p1305x_v4 p1305x_v4_rotl12(p1305x_v4 a)
    p1305x_v4 p1305x_v4_rotl8(p1305x_v4 a)
    p1305x_v4 p1305x_v4_rotl7(p1305x_v4 a)
    p1305x_v4 p1305x_v4_load(const uint8_t* p)
    void p1305x_v4_store(uint8_t* p, p1305x_v4 a)
    void p1305x_v4_transpose(p1305x_v4* a, p1305x_v4* b, p1305x_v4* c, p1305x_v4* d)
    p1305x_s4 p1305x_s4_set(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
    p1305x_s4 p1305x_s4_set1(uint32_t a)
    p1305x_s4 p1305x_s4_add(p1305x_s4 a, p1305x_s4 b)
    p1305x_s4 p1305x_s4_xor(p1305x_s4 a, p1305x_s4 b)
    p1305x_s4 p1305x_s4_rotl16(p1305x_s4 a)
    p1305x_s4 p1305x_s4_rotl12(p1305x_s4 a)
    p1305x_s4 p1305x_s4_rotl8(p1305x_s4 a)
    p1305x_s4 p1305x_s4_rotl7(p1305x_s4 a)
    p1305x_s4 p1305x_s4_load(const uint8_t* p)
    void p1305x_s4_store(uint8_t* p, p1305x_s4 a)
    void p1305x_s4_transpose(p1305x_s4* a, p1305x_s4* b, p1305x_s4* c, p1305x_s4* d)


# ---------------------------------------------------------------------------
# ChaCha20 (RFC 8439 section 2.3), one block at a time
# ---------------------------------------------------------------------------
cdef void chacha20_xor_portable(uint32_t* state16, const uint8_t* src,
                                uint8_t* dst, size_t nblocks) noexcept nogil:
    """One block at a time: single blocks, tails, and the vector kernels' tails."""
    cdef uint32_t x[16]
    cdef uint32_t ks
    cdef uint64_t ctr
    cdef int i
    while nblocks:
        memcpy(x, state16, 64)
        chacha20_rounds(x)
        for i in range(16):
            ks = x[i] + state16[i]
            if src != NULL:
                ks ^= load32_le(src + 4 * i)
            store32_le(dst + 4 * i, ks)
        ctr = (<uint64_t>state16[12] | (<uint64_t>state16[13] << 32)) + 1
        state16[12] = <uint32_t>ctr
        state16[13] = <uint32_t>(ctr >> 32)
        if src != NULL:
            src += 64
        dst += 64
        nblocks -= 1
    wipe(x, sizeof(x))


# ---------------------------------------------------------------------------
# ChaCha20, 4, 5 and 8 blocks per step (vertical layout)
# Lane j of lanes-of-4 value x_i holds word i of block j, so the twenty rounds
# need no shuffles; a 4x4 transpose per group of four words then turns the
# columns back into blocks.  8-block steps run two such sets side by side;
# 5-block steps (x86-64) one set and a fifth block in scalar registers.
# lanes4 is either the 4-lane vector of _vec4.h (GCC/Clang generic vectors:
# SSE2 / NEON / VSX from the baseline ISA; SSE2 intrinsics on MSVC x64) or
# four scalar words (the code a compiler without vector extensions gets; the
# `scalar` backend everywhere).  One source, two specialisations: Cython's
# fused types pick the primitives.
# ---------------------------------------------------------------------------
ctypedef fused lanes4:
    p1305x_v4
    p1305x_s4


cdef inline lanes4 l4_set(lanes4 like, uint32_t a, uint32_t b, uint32_t c,
                          uint32_t d) noexcept nogil:
    if lanes4 is p1305x_v4:
        return p1305x_v4_set(a, b, c, d)
    else:
        return p1305x_s4_set(a, b, c, d)


cdef inline lanes4 l4_set1(lanes4 like, uint32_t a) noexcept nogil:
    if lanes4 is p1305x_v4:
        return p1305x_v4_set1(a)
    else:
        return p1305x_s4_set1(a)


cdef inline lanes4 l4_add(lanes4 a, lanes4 b) noexcept nogil:
    if lanes4 is p1305x_v4:
        return p1305x_v4_add(a, b)
    else:
        return p1305x_s4_add(a, b)


cdef inline lanes4 l4_xor(lanes4 a, lanes4 b) noexcept nogil:
    if lanes4 is p1305x_v4:
        return p1305x_v4_xor(a, b)
    else:
        return p1305x_s4_xor(a, b)


cdef inline lanes4 l4_rotl(lanes4 a, int n) noexcept nogil:
    """a <<< n, n one of 16, 12, 8, 7 (a constant after inlining)."""
    if lanes4 is p1305x_v4:
        if n == 16:
            return p1305x_v4_rotl16(a)
        if n == 12:
            return p1305x_v4_rotl12(a)
        if n == 8:
            return p1305x_v4_rotl8(a)
        return p1305x_v4_rotl7(a)
    else:
        if n == 16:
            return p1305x_s4_rotl16(a)
        if n == 12:
            return p1305x_s4_rotl12(a)
        if n == 8:
            return p1305x_s4_rotl8(a)
        return p1305x_s4_rotl7(a)


cdef inline lanes4 l4_load(lanes4 like, const uint8_t* p) noexcept nogil:
    if lanes4 is p1305x_v4:
        return p1305x_v4_load(p)
    else:
        return p1305x_s4_load(p)


cdef inline void l4_store(uint8_t* p, lanes4 a) noexcept nogil:
    if lanes4 is p1305x_v4:
        p1305x_v4_store(p, a)
    else:
        p1305x_s4_store(p, a)


cdef inline void l4_transpose(lanes4* a, lanes4* b, lanes4* c, lanes4* d) noexcept nogil:
    if lanes4 is p1305x_v4:
        p1305x_v4_transpose(a, b, c, d)
    else:
        p1305x_s4_transpose(a, b, c, d)


cdef inline void l4_quarter(lanes4* a, lanes4* b, lanes4* c, lanes4* d) noexcept nogil:
    """The RFC 8439 quarter round on four blocks at once."""
    a[0] = l4_add(a[0], b[0]); d[0] = l4_rotl(l4_xor(d[0], a[0]), 16)
    c[0] = l4_add(c[0], d[0]); b[0] = l4_rotl(l4_xor(b[0], c[0]), 12)
    a[0] = l4_add(a[0], b[0]); d[0] = l4_rotl(l4_xor(d[0], a[0]), 8)
    c[0] = l4_add(c[0], d[0]); b[0] = l4_rotl(l4_xor(b[0], c[0]), 7)


cdef inline void l4_out(lanes4 a, lanes4 b, lanes4 c, lanes4 d, const uint8_t* src,
                        uint8_t* dst) noexcept nogil:
    """Words w..w+3 of four blocks (one value per word) to the 16 bytes at
    dst + 64 j for block j, XORed with src there unless src is NULL.  src may
    equal dst: each 16 bytes are loaded before they are stored."""
    l4_transpose(&a, &b, &c, &d)
    if src != NULL:
        a = l4_xor(a, l4_load(a, src))
        b = l4_xor(b, l4_load(b, src + 64))
        c = l4_xor(c, l4_load(c, src + 128))
        d = l4_xor(d, l4_load(d, src + 192))
    l4_store(dst, a)
    l4_store(dst + 64, b)
    l4_store(dst + 128, c)
    l4_store(dst + 192, d)


cdef inline const uint8_t* l4_src(const uint8_t* src, size_t off) noexcept nogil:
    """src + off, or NULL for the bare key stream."""
    if src == NULL:
        return NULL
    return src + off


cdef inline void s1_quarter(uint32_t* a, uint32_t* b, uint32_t* c, uint32_t* d) noexcept nogil:
    """The quarter round on one block in scalar registers (the extra block of
    a hybrid step)."""
    a[0] += b[0]; d[0] = rotl(d[0] ^ a[0], 16)
    c[0] += d[0]; b[0] = rotl(b[0] ^ c[0], 12)
    a[0] += b[0]; d[0] = rotl(d[0] ^ a[0], 8)
    c[0] += d[0]; b[0] = rotl(b[0] ^ c[0], 7)


cdef inline void quarter(lanes4* x, uint32_t* s, int a, int b, int c, int d) noexcept nogil:
    """The quarter round on words a, b, c, d of a set of four vector blocks,
    and of the scalar block s[16] too unless s is NULL."""
    l4_quarter(&x[a], &x[b], &x[c], &x[d])
    if s != NULL:
        s1_quarter(&s[a], &s[b], &s[c], &s[d])


cdef inline void l4_rounds(lanes4* x, int nsets, uint32_t* s) noexcept nogil:
    """Twenty rounds over nsets independent sets of 16 words (x[16 s + i]),
    and over one more block in scalar words s[16] unless s is NULL (only with
    nsets 1); the half rounds of the sets alternate, so that the CPU always has
    independent work while one chain waits (SSE2 has no rotate instruction:
    long chains).  The scalar block runs on the integer units, which the
    vector code leaves idle: on x86-64 (Zen 4) four vector blocks plus one
    scalar block take the time of the four alone.  The quarter rounds are
    spelled out, so that every word has a constant index (and a register)
    whatever the compiler's unrolling limits."""
    cdef int _, k
    for _ in range(10):
        for k in range(0, 16 * nsets, 16):         # columns
            quarter(&x[k], s, 0, 4, 8, 12)
            quarter(&x[k], s, 1, 5, 9, 13)
            quarter(&x[k], s, 2, 6, 10, 14)
            quarter(&x[k], s, 3, 7, 11, 15)
        for k in range(0, 16 * nsets, 16):         # diagonals
            quarter(&x[k], s, 0, 5, 10, 15)
            quarter(&x[k], s, 1, 6, 11, 12)
            quarter(&x[k], s, 2, 7, 8, 13)
            quarter(&x[k], s, 3, 4, 9, 14)


cdef inline size_t chacha20_steps(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                                  uint8_t* dst, size_t nblocks, lanes4 like,
                                  int nsets, bint plus1, bint tail) noexcept nogil:
    """Steps of B = 4 nsets + plus1 blocks over the first nblocks blocks, from
    the 64-bit block counter ctr, and with tail (only for B = 4) a last 2 or 3
    blocks as one more step into a stack buffer (cheaper than two or three
    single blocks).  Returns the number of blocks done: the caller finishes
    the rest.  Lane j of set s is block ctr + 4 s + j, its carry into word 13
    computed per lane, so a step may straddle 2^32; with plus1, block
    ctr + 4 nsets is computed in scalar words beside them.  The rounds are
    inlined at one place per shape: with more copies GCC stops inlining them."""
    cdef lanes4 x[32]
    cdef lanes4 c12[2]
    cdef lanes4 c13[2]
    cdef uint32_t s[16]
    cdef uint8_t buf[256]
    cdef uint64_t b0, b1, b2, b3
    cdef uint32_t ks
    cdef int i, k
    cdef size_t B = 4 * nsets + plus1
    cdef size_t done = 0, j
    cdef const uint8_t* inp
    cdef uint8_t* out
    cdef bint last
    while nblocks - done >= B or (tail and nblocks - done >= 2):
        last = nblocks - done < B           # the 2-3-block tail, into buf
        if last:
            inp = NULL
            out = &buf[0]
        else:
            inp = src
            out = dst
        for k in range(nsets):
            b0 = ctr + 4 * k
            b1 = b0 + 1
            b2 = b0 + 2
            b3 = b0 + 3
            c12[k] = l4_set(like, <uint32_t>b0, <uint32_t>b1, <uint32_t>b2, <uint32_t>b3)
            c13[k] = l4_set(like, <uint32_t>(b0 >> 32), <uint32_t>(b1 >> 32),
                            <uint32_t>(b2 >> 32), <uint32_t>(b3 >> 32))
            for i in range(16):
                x[16 * k + i] = l4_set1(like, st[i])
            x[16 * k + 12] = c12[k]
            x[16 * k + 13] = c13[k]
        if plus1:
            b0 = ctr + 4 * nsets
            for i in range(16):
                s[i] = st[i]
            s[12] = <uint32_t>b0
            s[13] = <uint32_t>(b0 >> 32)
            l4_rounds(x, nsets, s)
        else:
            l4_rounds(x, nsets, NULL)
        for k in range(nsets):
            # feed-forward, then out by groups of four words
            for i in range(16):
                if i == 12:
                    x[16 * k + i] = l4_add(x[16 * k + i], c12[k])
                elif i == 13:
                    x[16 * k + i] = l4_add(x[16 * k + i], c13[k])
                else:
                    x[16 * k + i] = l4_add(x[16 * k + i], l4_set1(like, st[i]))
            for i in range(0, 16, 4):
                l4_out(x[16 * k + i], x[16 * k + i + 1], x[16 * k + i + 2],
                       x[16 * k + i + 3], l4_src(inp, 256 * k + 4 * i), out + 256 * k + 4 * i)
        if plus1:
            for i in range(16):
                if i == 12:
                    ks = s[i] + <uint32_t>b0
                elif i == 13:
                    ks = s[i] + <uint32_t>(b0 >> 32)
                else:
                    ks = s[i] + st[i]
                if inp != NULL:
                    ks ^= load32_le(inp + 256 * nsets + 4 * i)
                store32_le(out + 256 * nsets + 4 * i, ks)
        if tail and last:
            j = (nblocks - done) << 6
            if src != NULL:
                for i in range(<int>j):
                    dst[i] = src[i] ^ buf[i]
            else:
                memcpy(dst, buf, j)
            wipe(buf, sizeof(buf))
            return nblocks
        ctr += B
        if src != NULL:
            src += B << 6
        dst += B << 6
        done += B
    if plus1:
        wipe(s, sizeof(s))
    return done


cdef size_t chacha20_steps4(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                            uint8_t* dst, size_t nblocks, lanes4 like) noexcept nogil:
    """4-block steps, and a last 2-3 blocks as one more."""
    return chacha20_steps(st, ctr, src, dst, nblocks, like, 1, False, True)


cdef size_t chacha20_steps5(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                            uint8_t* dst, size_t nblocks, lanes4 like) noexcept nogil:
    """5-block steps: four in vectors and one in scalar registers."""
    return chacha20_steps(st, ctr, src, dst, nblocks, like, 1, True, False)


cdef size_t chacha20_steps8(const uint32_t* st, uint64_t ctr, const uint8_t* src,
                            uint8_t* dst, size_t nblocks, lanes4 like) noexcept nogil:
    """8-block steps (two sets of four, for more independent work)."""
    return chacha20_steps(st, ctr, src, dst, nblocks, like, 2, False, False)


cdef inline void chacha20_xor_lanes(uint32_t* state16, const uint8_t* src, uint8_t* dst,
                                    size_t nblocks, lanes4 like, int big) noexcept nogil:
    """The kernel_table entries: big steps of `big` blocks (8, or on x86's
    vectors 5; 4: none), then 4-block steps with their 2-3-block tail, then a
    last single block on its own."""
    cdef uint64_t ctr = <uint64_t>state16[12] | (<uint64_t>state16[13] << 32)
    cdef size_t n = 0
    # Only this build's shapes are compiled in (the macro is a constant).
    cdef bint five = False, eight = True
    if lanes4 is p1305x_v4:
        five = P1305X_VEC_STEP_BLOCKS == 5 and big == 5
        eight = P1305X_VEC_STEP_BLOCKS == 8 and big == 8
    if five:
        n = chacha20_steps5(state16, ctr, src, dst, nblocks, like)
    elif eight:
        n = chacha20_steps8(state16, ctr, src, dst, nblocks, like)
    ctr += n
    src = l4_src(src, n << 6)
    dst += n << 6
    nblocks -= n
    n = chacha20_steps4(state16, ctr, src, dst, nblocks, like)
    ctr += n
    src = l4_src(src, n << 6)
    dst += n << 6
    nblocks -= n
    state16[12] = <uint32_t>ctr
    state16[13] = <uint32_t>(ctr >> 32)
    if nblocks:
        chacha20_xor_portable(state16, src, dst, 1)


cdef void chacha20_xor_vec4(uint32_t* state16, const uint8_t* src, uint8_t* dst,
                            size_t nblocks) noexcept nogil:
    """The portable backends' ChaCha20: compiler vectors (or, without vector
    extensions, the scalar lanes), in this CPU's big steps (vec_step)."""
    chacha20_xor_lanes(state16, src, dst, nblocks, p1305x_v4_set1(0), vec_step)


cdef void chacha20_xor_scalar4(uint32_t* state16, const uint8_t* src, uint8_t* dst,
                               size_t nblocks) noexcept nogil:
    """The `scalar` backend's ChaCha20: four blocks in scalar lanes."""
    chacha20_xor_lanes(state16, src, dst, nblocks, p1305x_s4_set1(0), 8)
