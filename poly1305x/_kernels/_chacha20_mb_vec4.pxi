# Multi-buffer ChaCha20 on the portable 4-lane unit, one message per lane
# (included by _portable.pyx after its lanes4 primitives): the compiler's
# generic vectors (SSE2, NEON, VSX: _vec4.h) for the portable backends, four
# scalar words for `scalar`.  Layout, store rule and group driver: the shared
# _chacha20_mb_common.pxi; here only the 4-lane group step.


cdef inline void mb4_store(uint8_t* const* out, const uint32_t* nblocks, size_t lane,
                           uint32_t blk, size_t off, lanes4 v) noexcept nogil:
    cdef uint8_t* p = mb_block_out(out, nblocks, lane, blk)
    if p != NULL:
        l4_store(p + off, v)


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
                            # (4 + 1 or 8 blocks a step beat one a step per lane)


cdef inline void mb4_lanes(const uint32_t* mb_in, uint32_t steps, uint8_t* const* out,
                           const uint32_t* nblocks, lanes4 like) noexcept nogil:
    cdef uint32_t blk
    for blk in range(steps):
        mb4_step(mb_in, blk, out, nblocks, like)


cdef void _mb4_lanes_v4(const uint32_t* mb_in, uint32_t steps, uint8_t* const* out,
                        const uint32_t* nblocks) noexcept nogil:
    mb4_lanes(mb_in, steps, out, nblocks, p1305x_v4_set1(0))


cdef void _mb4_lanes_s4(const uint32_t* mb_in, uint32_t steps, uint8_t* const* out,
                        const uint32_t* nblocks) noexcept nogil:
    mb4_lanes(mb_in, steps, out, nblocks, p1305x_s4_set1(0))


cdef void chacha20_lanes_vec4(const uint32_t* states, size_t nlanes, uint8_t* const* out,
                              const uint32_t* nblocks) noexcept nogil:
    """The portable backends' chacha20_lanes (see _kernel.pxd): compiler vectors."""
    mb_lanes(states, nlanes, out, nblocks, 4, _mb4_lanes_v4, NULL, MB4_MAX_BLOCKS,
             chacha20_xor_vec4, 0, NULL)


cdef void chacha20_lanes_scalar4(const uint32_t* states, size_t nlanes, uint8_t* const* out,
                                 const uint32_t* nblocks) noexcept nogil:
    """The `scalar` backend's chacha20_lanes: four lanes of scalar words."""
    mb_lanes(states, nlanes, out, nblocks, 4, _mb4_lanes_s4, NULL, MB4_MAX_BLOCKS,
             chacha20_xor_scalar4, 0, NULL)
