# Multi-buffer ChaCha20 on the portable 4-lane unit, one message per lane
# (included by _portable.pyx after its lanes4 primitives): the compiler's
# generic vectors (SSE2, NEON, VSX: _vec4.h) for the portable backends, four
# scalar words for `scalar`.  Layout and rules as in the x86 multi-buffer
# kernels (_chacha20_mb_ymm.pxi): lane j is message j, step i computes block i
# of every lane, public block counts per lane.


cdef inline void mb4_store(uint8_t* const* out, const uint32_t* nblocks, size_t lane,
                           uint32_t blk, size_t off, lanes4 v) noexcept nogil:
    if blk < nblocks[lane]:
        l4_store(out[lane] + 64 * <size_t>blk + off, v)


cdef inline void mb4_step(const uint32_t* st, uint32_t blk, uint8_t* const* out,
                          const uint32_t* nblocks, lanes4 like) noexcept nogil:
    # Block blk of four lanes; st: 16 rows of 4 words (row w = word w of the
    # four lanes).
    cdef lanes4 x[16]
    cdef lanes4 a, b, c, d
    cdef int w
    for w in range(16):
        x[w] = l4_set(like, st[4 * w], st[4 * w + 1], st[4 * w + 2], st[4 * w + 3])
    x[12] = l4_add(x[12], l4_set1(like, blk))
    l4_rounds(x, 1, NULL)
    for w in range(16):
        x[w] = l4_add(x[w], l4_set(like, st[4 * w], st[4 * w + 1], st[4 * w + 2],
                                   st[4 * w + 3]))
    x[12] = l4_add(x[12], l4_set1(like, blk))
    for w in range(0, 16, 4):
        # four rows (words w..w+3): the transpose turns them into the lanes'
        # 16-byte pieces of their blocks
        a = x[w]
        b = x[w + 1]
        c = x[w + 2]
        d = x[w + 3]
        l4_transpose(&a, &b, &c, &d)
        mb4_store(out, nblocks, 0, blk, 4 * <size_t>w, a)
        mb4_store(out, nblocks, 1, blk, 4 * <size_t>w, b)
        mb4_store(out, nblocks, 2, blk, 4 * <size_t>w, c)
        mb4_store(out, nblocks, 3, blk, 4 * <size_t>w, d)
    wipe(x, sizeof(x))


cdef enum:
    MB4_MAX_BLOCKS = 4      # longer lanes: the one-message kernel's big steps


cdef inline void chacha20_lanes_4(const uint32_t* states, size_t nlanes, uint8_t* const* out,
                                  const uint32_t* nblocks, lanes4 like) noexcept nogil:
    # Lanes of up to MB4_MAX_BLOCKS blocks four at a time; a longer one alone
    # on chacha20_xor_lanes (4 + 1 or 8 blocks a step beat one block a step
    # per lane there).
    cdef uint32_t st[64]
    cdef uint32_t one[16]
    cdef uint8_t* o[4]
    cdef uint32_t nb[4]
    cdef size_t g, j, w, i = 0
    cdef uint32_t steps, blk
    while i < nlanes:
        g = 0
        steps = 0
        while i < nlanes and g < 4:
            if nblocks[i] > MB4_MAX_BLOCKS:
                memcpy(one, states + 16 * i, 64)
                if lanes4 is p1305x_v4:
                    chacha20_xor_lanes(one, NULL, out[i], nblocks[i], like, vec_step)
                else:
                    chacha20_xor_lanes(one, NULL, out[i], nblocks[i], like, 8)
            else:
                for w in range(16):
                    st[4 * w + g] = states[16 * i + w]
                o[g] = out[i]
                nb[g] = nblocks[i]
                if nb[g] > steps:
                    steps = nb[g]
                g += 1
            i += 1
        for j in range(g, 4):
            for w in range(16):
                st[4 * w + j] = 0
            o[j] = NULL
            nb[j] = 0
        for blk in range(steps):
            mb4_step(st, blk, o, nb, like)
    wipe(st, sizeof(st))
    wipe(one, sizeof(one))


cdef void chacha20_lanes_vec4(const uint32_t* states, size_t nlanes, uint8_t* const* out,
                              const uint32_t* nblocks) noexcept nogil:
    """The portable backends' chacha20_lanes (see _kernel.pxd): compiler vectors."""
    chacha20_lanes_4(states, nlanes, out, nblocks, p1305x_v4_set1(0))


cdef void chacha20_lanes_scalar4(const uint32_t* states, size_t nlanes, uint8_t* const* out,
                                 const uint32_t* nblocks) noexcept nogil:
    """The `scalar` backend's chacha20_lanes: four lanes of scalar words."""
    chacha20_lanes_4(states, nlanes, out, nblocks, p1305x_s4_set1(0))
