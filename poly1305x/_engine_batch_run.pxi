# Included by _engine_batch.pxi: the batch itself, in C and without the GIL.
#
# Short messages (MB_MAX bytes or less) go through the kernels' multi-buffer
# ChaCha20 (kernel_table.chacha20_lanes), MB_GROUP at a time: each lane makes
# one message's block 0 (its Poly1305 key) and its whole key stream in the
# same steps, so the latency-bound chain of one block 0 per message becomes
# throughput across the vector lanes.  They are grouped by block count (a
# counting sort on the public lengths), so the lanes of a group finish
# together.  Long messages, and groups too small to fill the lanes, take the
# one-message path (etm_seal / etm_open).  Poly1305 then runs per message.

cdef enum:
    MB_MAX = 1024               # longest message for the lanes
    MB_BLOCKS = 1 + MB_MAX // 64
    MB_GROUP = 16               # messages per chacha20_lanes call
    MB_ROW = 64 * MB_BLOCKS     # one lane's key stream: block 0 and the message's
    MB_MIN_GROUP = 2            # smaller groups take the one-message path


cdef inline uint32_t mb_blocks(size_t n) noexcept nogil:
    return <uint32_t>(1 + ((n + 63) >> 6))


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


cdef void mb_finish(const kernel_table* k, bmsg_t* m, uint8_t* ks, bint seal) noexcept nogil:
    """One message of a group, its key stream (block 0 first) in ks: XOR and
    MAC (seal), or MAC, check and XOR (open, under the bad-tag rule of
    _engine_aead.pxi: the ciphertext is copied into the private output once,
    MACed and decrypted there; zeros after a bad tag)."""
    cdef mac_t c
    cdef uint8_t want[16]
    cdef uint8_t mine[16]
    cdef size_t n = m.n
    etm_begin(&c, k, ks, m.aad, m.alen, True)
    if seal:
        xor_bytes(m.dst, m.src, ks + 64, n)
        mac_update(&c, m.dst, n)
        etm_end(&c, True, m.alen, n, m.dst + n)
    else:
        memcpy(want, m.src + n, 16)
        memcpy(m.dst, m.src, n)
        mac_update(&c, m.dst, n)
        etm_end(&c, True, m.alen, n, mine)
        m.ok = tags_equal(mine, want, 16)
        if m.ok:
            xor_bytes(m.dst, m.dst, ks + 64, n)
        else:
            wipe(m.dst, n)
    mac_wipe(&c)


cdef void one_run(const kernel_table* k, bmsg_t* m, bint seal) noexcept nogil:
    """One message on the one-message path."""
    cdef stream_t s
    stream_setup(&s, k, m.key, m.nonce, m.nonce_len, False)
    m.ok = aead_run(&s, m.aad, m.alen, m.src, m.dst, m.n, seal, False)
    wipe(&s, sizeof(stream_t))


cdef void mb_group(const kernel_table* k, bmsg_t* m, const size_t* order, size_t g,
                   bint seal) noexcept nogil:
    """The messages m[order[0..g-1]] (g <= MB_GROUP, each MB_MAX bytes or
    less) through one chacha20_lanes call."""
    cdef stream_t s
    cdef uint32_t states[16 * MB_GROUP]
    cdef uint8_t ks[MB_GROUP * MB_ROW]
    cdef uint8_t* out[MB_GROUP]
    cdef uint32_t nb[MB_GROUP]
    cdef size_t j
    cdef bmsg_t* mj
    for j in range(g):
        mj = &m[order[j]]
        stream_setup(&s, k, mj.key, mj.nonce, mj.nonce_len, False)
        memcpy(&states[16 * j], s.st, 64)        # counter word 12 is 0: block 0
        out[j] = ks + j * MB_ROW
        nb[j] = mb_blocks(mj.n)
    wipe(&s, sizeof(stream_t))
    k.chacha20_lanes(states, g, out, nb)
    wipe(states, sizeof(states))
    for j in range(g):
        mb_finish(k, &m[order[j]], out[j], seal)
        wipe(out[j], 64 * nb[j])


cdef void batch_run(const kernel_table* k, bmsg_t* m, size_t count, bint seal,
                    size_t* order) noexcept nogil:
    """Seal or open every message of the batch (open: m.ok is set from the
    tag; a message already marked bad, too short to hold a tag, is skipped).
    order: room for count indices."""
    cdef size_t start[MB_BLOCKS + 2]
    cdef size_t i, nshort = 0, g
    cdef uint32_t b
    memset(start, 0, sizeof(start))
    for i in range(count):
        if not seal and not m[i].ok:
            continue
        if m[i].n <= MB_MAX and k.chacha20_lanes != NULL:
            start[mb_blocks(m[i].n) + 1] += 1
            nshort += 1
        else:
            one_run(k, &m[i], seal)
    if not nshort:
        return
    for b in range(1, MB_BLOCKS + 2):
        start[b] += start[b - 1]
    for i in range(count):
        if (seal or m[i].ok) and m[i].n <= MB_MAX:
            b = mb_blocks(m[i].n)
            order[start[b]] = i
            start[b] += 1
    i = 0
    while i < nshort:
        g = nshort - i
        if g > MB_GROUP:
            g = MB_GROUP
        if g < MB_MIN_GROUP:
            one_run(k, &m[order[i]], seal)
        else:
            mb_group(k, m, order + i, g, seal)
        i += g
