# Multi-buffer Poly1305 on NEON, one message per 64-bit lane: the tags of a
# batch of short AEAD messages (the poly1305_lanes entry of the portable
# backend on aarch64, see _kernel.pxd).  Included after _poly1305_neon.pxi,
# whose radix-2^26 lane arithmetic (_n2_mac, _n2_carry; _neon.h underneath)
# it uses with a different r in each lane, by _portable.pyx and by
# the test-only SIMDe build _neon_emu.pyx.
#
# Each lane runs Horner's rule on its own message, two blocks a step:
#     h <- (h + m0) * r^2 + m1 * r        (one carry pass)
# and one block, h <- (h + m0) * r, when the shorter lane has an odd count
# left.  Both lanes step until the shorter message ends; that lane's tag is
# made from its limbs and the next message of the batch takes the lane (h = 0,
# its own r and r^2), so a batch of mixed lengths keeps both lanes busy.  When
# no message is left for a lane, the other lane's message is finished by the
# one-message kernel (poly1305_blocks_lanes2: two lanes of one message above
# 16 blocks, the scalar loop below), and so is a batch of one message.
#
# Work per block (steady state): 25 32x32->64 multiply-adds per lane, that is
# 12.5 UMULL/UMLAL per block for the two lanes, as in the one-message kernel;
# one carry pass per two blocks a lane.  When a lane takes a new message, r^2
# of both lanes is made in the lanes too (r * r and one carry pass: 25 vector
# multiplies).  Bounds: r limbs < 2^26, 5 r < 2^28.33, so r * r has limb sums
# < 5 * 2^54.33 < 2^57 and r^2 (one carry pass) limbs < 2^26 + 2^10, 5 r^2 <
# 2^28.33.  h after a carry pass has limbs < 2^26 + 2^10, a block < 2^26, so
# h + m0 < 2^27.01; a limb of the step sums five products < 2^55.34 and five
# < 2^54.33: < 2^58.3, within the 2^59 that _n2_carry takes.
#
# The only branches are on the public block counts: none on keys, messages or
# accumulators.

cdef extern from "_neon.h" nogil:
    void p1305x_n32_load_lanes(const uint8_t* m0, const uint8_t* m1, uint32_t hb,
                               p1305x_n32* l0, p1305x_n32* l1, p1305x_n32* l2,
                               p1305x_n32* l3, p1305x_n32* l4)
    uint32_t p1305x_n32_lane0(p1305x_n32 a)
    uint32_t p1305x_n32_lane1(p1305x_n32 a)

from poly1305x._kernels._common cimport poly1305_finish, poly1305_init

cdef enum:
    N2L_HB = 1 << 24             # 2^128 in limb 4


cdef struct n2l_lane:
    const uint8_t* m             # its next block
    uint32_t rem                 # blocks left
    size_t idx                   # its message's index in the batch
    bint busy                    # the lane holds a message
    uint64_t r1[5]               # r as limbs
    uint64_t h[5]                # the lane's accumulator, between runs


cdef inline void _n2l_tag(const uint8_t* key, const uint64_t* h, uint8_t* tag) noexcept nogil:
    """tag of the accumulator limbs h (each < 2^58) under key's s."""
    cdef poly1305_state st
    cdef uint64_t l[5]
    cdef int i
    for i in range(5):
        l[i] = h[i]
    p26_carry_full(l)
    p26_to64(l, st.h)
    st.s[0] = load64_le(key + 16)
    st.s[1] = load64_le(key + 24)
    poly1305_finish(&st, tag)
    wipe(&st, sizeof(st))
    wipe(l, sizeof(l))


cdef inline void _n2l_take(n2l_lane* ln, const uint8_t* const* keys, const uint8_t* const* msgs,
                           const uint32_t* nblocks, uint8_t* const* tags, size_t nlanes,
                           size_t* nxt) noexcept nogil:
    """The next message with blocks into the lane (h = 0, its r); an
    empty one on the way gets its tag (s) at once.  ln.busy: one was left."""
    cdef poly1305_state st
    cdef int i
    ln.busy = False
    for i in range(5):
        ln.h[i] = 0
    while nxt[0] < nlanes and nblocks[nxt[0]] == 0:
        _n2l_tag(keys[nxt[0]], ln.h, tags[nxt[0]])
        nxt[0] += 1
    if nxt[0] == nlanes:
        return
    ln.idx = nxt[0]
    ln.m = msgs[ln.idx]
    ln.rem = nblocks[ln.idx]
    ln.busy = True
    nxt[0] += 1
    poly1305_init(&st, keys[ln.idx], keys[ln.idx] + 16)
    p26_from64(st.r[0], st.r[1], 0, ln.r1)      # clamped r < 2^124: limbs < 2^26
    wipe(&st, sizeof(st))


cdef inline void _n2l_vectors(const n2l_lane* ln, p1305x_n32* h, p1305x_n32* r1, p1305x_n32* s1,
                              p1305x_n32* r2, p1305x_n32* s2) noexcept nogil:
    """Both lanes' accumulators and multipliers (r, and r^2 = r * r made in
    the lanes, and their 5x) into the vector limbs (bounds above)."""
    cdef p1305x_n64 d0, d1, d2, d3, d4
    cdef int i
    for i in range(5):
        h[i] = p1305x_n32_set(<uint32_t>ln[0].h[i], <uint32_t>ln[1].h[i])
        r1[i] = p1305x_n32_set(<uint32_t>ln[0].r1[i], <uint32_t>ln[1].r1[i])
        s1[i] = p1305x_n32_times5(r1[i])
    _n2_mac(&d0, &d1, &d2, &d3, &d4, r1[0], r1[1], r1[2], r1[3], r1[4],
            r1[0], r1[1], r1[2], r1[3], r1[4], s1[1], s1[2], s1[3], s1[4], True)
    _n2_carry(&r2[0], &r2[1], &r2[2], &r2[3], &r2[4], d0, d1, d2, d3, d4)
    for i in range(5):
        s2[i] = p1305x_n32_times5(r2[i])


cdef inline void _n2l_step(p1305x_n32* h, const uint8_t* m0, const uint8_t* m1,
                           const p1305x_n32* r1, const p1305x_n32* s1, const p1305x_n32* r2,
                           const p1305x_n32* s2, bint two) noexcept nogil:
    """Lane j (block m_j): h <- (h + m_j[0..16)) * r^2 + m_j[16..32) * r
    (two, a constant after inlining), or h <- (h + m_j[0..16)) * r."""
    cdef p1305x_n32 a0, a1, a2, a3, a4, b0, b1, b2, b3, b4
    cdef p1305x_n64 d0, d1, d2, d3, d4
    p1305x_n32_load_lanes(m0, m1, N2L_HB, &a0, &a1, &a2, &a3, &a4)
    a0 = p1305x_n32_add(h[0], a0); a1 = p1305x_n32_add(h[1], a1)
    a2 = p1305x_n32_add(h[2], a2); a3 = p1305x_n32_add(h[3], a3)
    a4 = p1305x_n32_add(h[4], a4)
    if two:
        p1305x_n32_load_lanes(m0 + 16, m1 + 16, N2L_HB, &b0, &b1, &b2, &b3, &b4)
        _n2_mac(&d0, &d1, &d2, &d3, &d4, b0, b1, b2, b3, b4,
                r1[0], r1[1], r1[2], r1[3], r1[4], s1[1], s1[2], s1[3], s1[4], True)
        _n2_mac(&d0, &d1, &d2, &d3, &d4, a0, a1, a2, a3, a4,
                r2[0], r2[1], r2[2], r2[3], r2[4], s2[1], s2[2], s2[3], s2[4], False)
    else:
        _n2_mac(&d0, &d1, &d2, &d3, &d4, a0, a1, a2, a3, a4,
                r1[0], r1[1], r1[2], r1[3], r1[4], s1[1], s1[2], s1[3], s1[4], True)
    _n2_carry(&h[0], &h[1], &h[2], &h[3], &h[4], d0, d1, d2, d3, d4)


cdef inline void _n2l_run(n2l_lane* ln) noexcept nogil:
    """Both lanes through as many blocks as the shorter one has left; then
    ln[j].h holds lane j's accumulator (limbs < 2^26 + 2^10)."""
    cdef p1305x_n32 h[5]
    cdef p1305x_n32 r1[5]
    cdef p1305x_n32 s1[5]
    cdef p1305x_n32 r2[5]
    cdef p1305x_n32 s2[5]
    cdef uint32_t c = ln[0].rem if ln[0].rem < ln[1].rem else ln[1].rem
    cdef uint32_t k
    cdef const uint8_t* m0 = ln[0].m
    cdef const uint8_t* m1 = ln[1].m
    cdef int i
    _n2l_vectors(ln, h, r1, s1, r2, s2)
    for k in range(c >> 1):
        _n2l_step(h, m0, m1, r1, s1, r2, s2, True)
        m0 += 32
        m1 += 32
    if c & 1:
        _n2l_step(h, m0, m1, r1, s1, r2, s2, False)
        m0 += 16
        m1 += 16
    for i in range(5):
        ln[0].h[i] = p1305x_n32_lane0(h[i])
        ln[1].h[i] = p1305x_n32_lane1(h[i])
    ln[0].m = m0
    ln[1].m = m1
    ln[0].rem -= c
    ln[1].rem -= c


cdef inline void _n2l_alone(n2l_lane* ln, const uint8_t* const* keys,
                            uint8_t* const* tags) noexcept nogil:
    """The lane's message, from its accumulator on, on the one-message kernel."""
    cdef poly1305_state st
    poly1305_init(&st, keys[ln.idx], keys[ln.idx] + 16)
    p26_carry_full(ln.h)
    p26_to64(ln.h, st.h)
    poly1305_blocks_lanes2(&st, ln.m, ln.rem, 1)
    poly1305_finish(&st, tags[ln.idx])
    wipe(&st, sizeof(st))


cdef void poly1305_lanes_neon2(const uint8_t* const* keys, const uint8_t* const* msgs,
                               const uint32_t* nblocks, uint8_t* const* tags,
                               size_t nlanes) noexcept nogil:
    """The kernel_table entry poly1305_lanes (see _kernel.pxd): two messages
    at a time, one a lane, the next one taking a lane as soon as its message
    ends; the last message on the one-message kernel."""
    cdef n2l_lane ln[2]
    cdef size_t nxt = 0
    cdef int j
    _n2l_take(&ln[0], keys, msgs, nblocks, tags, nlanes, &nxt)
    _n2l_take(&ln[1], keys, msgs, nblocks, tags, nlanes, &nxt)
    while ln[0].busy and ln[1].busy:
        _n2l_run(ln)
        for j in range(2):
            if ln[j].rem == 0:
                _n2l_tag(keys[ln[j].idx], ln[j].h, tags[ln[j].idx])
                _n2l_take(&ln[j], keys, msgs, nblocks, tags, nlanes, &nxt)
    for j in range(2):
        if ln[j].busy:
            _n2l_alone(&ln[j], keys, tags)
    wipe(ln, sizeof(ln))
