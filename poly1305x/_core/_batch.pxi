# Included by _engine.pyx: many RFC 8439 messages in one call, in C and without
# the GIL (the face, with its checks and messages: _face_batch.pxi).
#
# Short messages (MB_MAX bytes or less, and no more blocks than the backend's
# lanes_max_blocks) go through the kernels' multi-buffer
# ChaCha20 (kernel_table.chacha20_lanes), MB_GROUP at a time: each lane makes
# one message's block 0 (its Poly1305 key) and its whole key stream in the
# same steps, so the latency-bound chain of one block 0 per message becomes
# throughput across the vector lanes.  They are grouped by block count (a
# counting sort on the public lengths), so the lanes of a group finish
# together.  Long messages, and groups too small to pay for the lanes
# (lanes_take: measured), take the one-message path (aead_run).  The HChaCha20 subkeys of XChaCha20
# messages are made across the lanes too (mb_subkeys), and Poly1305 runs
# across lanes (kernel_table.poly1305_lanes) over each message's padded MAC input,
# built in a private buffer: aad, ciphertext and lengths; a group with a long
# aad (over MB_AAD bytes), or a backend without the Poly1305 lanes, finishes
# message by message through the one-message path's seal and open (ks_aead,
# _short.pxi) over the key stream the lanes made.

cdef extern from "Python.h":
    ctypedef struct PyObject


cdef extern from *:
    """
    #ifdef Py_GIL_DISABLED
    #define P1305X_FREE_THREADED 1
    #else
    #define P1305X_FREE_THREADED 0
    #endif
    """
    bint P1305X_FREE_THREADED


cdef struct bmsg_t:
    PyObject* refs[4]        # the items read: nonce, data, aad, key (or NULL)
    const uint8_t* key
    const uint8_t* nonce
    const uint8_t* aad
    const uint8_t* src
    uint8_t* dst
    size_t alen
    size_t n                 # plaintext bytes
    size_t srclen            # input bytes (open: n + 16)
    size_t nonce_len
    bint ok                  # open: the tag checked out (never for < 16 bytes)


cdef struct batch_t:
    size_t count
    bmsg_t* m
    buf_t* bufs              # four a message: nonce, data, aad, key
    size_t* order            # batch_run's work space
    void* block              # the work block m, bufs and order are in (or NULL:
                             # the caller's stack)
    bint cached              # block is the module's cached one (batch_alloc)
    bint held_any            # some buffer other than bytes was borrowed (and
                             # then every buffer was marked not held first)



cdef enum:
    MB_MAX = 1024               # longest message for the lanes
    MB_BLOCKS = 1 + MB_MAX // 64
    MB_GROUP = 16               # messages per chacha20_lanes call
    MB_ROW = 64 * MB_BLOCKS     # one lane's key stream: block 0 and the message's
    MB_MIN_GROUP = 3            # smaller groups take the one-message path
    MB_SMALL_BLOCKS = 5         # up to 256 B: any group of MB_MIN_GROUP pays
    MB_STEP = 8                 # longer: only whole steps of 8 lanes pay
    MB_AAD = 256                # longest aad for the Poly1305 lanes
    MB_MAC = MB_AAD + MB_MAX + 16   # one lane's MAC input: aad, ct, lengths
    MB_MIN_X = 3                # fewer XChaCha20 lanes in a group: HChaCha20
                                # one by one (at 2 lanes no faster, at 5 much)


cdef void one_run(const kernel_table* k, bmsg_t* m, bint seal) noexcept nogil:
    """One message on the one-message path."""
    cdef stream_t s
    stream_setup(&s, k, m.key, m.nonce, m.nonce_len, False)
    m.ok = aead_run(&s, m.aad, m.alen, m.src, m.dst, m.n, seal)
    wipe(&s, sizeof(stream_t))


cdef void mb_macs(const kernel_table* k, bmsg_t* m, const size_t* order, size_t g,
                  bint seal, uint8_t* const* ks) noexcept nogil:
    """The group's MACs across lanes: each message's MAC input (aad, pad,
    ciphertext, pad, lengths) in a private buffer, tags by poly1305_lanes.
    Seal: the ciphertext is written to the output and that buffer in one
    pass.  Open: the ciphertext is copied there once, MACed and decrypted
    from there (the bad-tag rule of _aead.pxi).  The buffer only ever holds
    public bytes (aad, ciphertext, lengths), so it is not wiped; the key
    stream and the computed tags of an open are (tag_verdict)."""
    cdef uint8_t mac[MB_GROUP * MB_MAC]
    cdef uint8_t want[16 * MB_GROUP]
    cdef uint8_t mine[16 * MB_GROUP]
    cdef const uint8_t* msgs[MB_GROUP]
    cdef const uint8_t* keys[MB_GROUP]
    cdef uint8_t* tags[MB_GROUP]
    cdef uint8_t* ct[MB_GROUP]
    cdef uint32_t nbl[MB_GROUP]
    cdef size_t j, a16, n16, n, used = 0
    cdef uint8_t* p
    cdef bmsg_t* mj
    for j in range(g):
        mj = &m[order[j]]
        n = mj.n
        p = mac + used                   # rows back to back
        a16 = pad16(mj.alen)
        n16 = pad16(n)
        copy_pad16(p, mj.aad, mj.alen)
        ct[j] = p + a16
        if seal:
            xor_pad16(ct[j], mj.dst, mj.src, ks[j] + 64, n)
            tags[j] = mj.dst + n
        else:
            copy_pad16(ct[j], mj.src, n)
            memcpy(want + 16 * j, mj.src + n, 16)
            tags[j] = mine + 16 * j
        p1305x_put_lengths(ct[j] + n16, mj.alen, n)
        msgs[j] = p
        keys[j] = ks[j]
        nbl[j] = <uint32_t>((a16 + n16 + 16) >> 4)
        used += 16 * nbl[j]
    k.poly1305_lanes(keys, msgs, nbl, tags, g)
    if seal:
        return                           # mac holds public bytes only: no wipe
    for j in range(g):
        mj = &m[order[j]]
        mj.ok = tag_verdict(mine + 16 * j, want + 16 * j, mj.dst, ct[j], ks[j] + 64, mj.n)


cdef void mb_subkeys(const kernel_table* k, const bmsg_t* m, const size_t* order,
                     const size_t* lane, size_t x, uint32_t* states) noexcept nogil:
    """The ChaCha20 input blocks of the group's XChaCha20 lanes lane[0..x-1]
    (x >= 2), their HChaCha20 subkeys made across lanes: one chacha20_lanes
    block of the HChaCha20 input (constants, key, nonce[0:16]) is its 20
    rounds plus the feed-forward, so words 0-3 and 12-15 of the block minus
    the input are the subkey.  Then subkey and xchacha_nonce, as
    message_state makes them."""
    cdef uint32_t hst[16 * MB_GROUP]
    cdef uint8_t rows[64 * MB_GROUP]
    cdef uint8_t* out[MB_GROUP]
    cdef uint32_t one[MB_GROUP]
    cdef uint8_t subkey[32]
    cdef uint8_t n12[12]
    cdef size_t j, w
    cdef const bmsg_t* mj
    for j in range(x):
        mj = &m[order[lane[j]]]
        chacha20_init_state(&hst[16 * j], mj.key, mj.nonce + 4, 12, load32_le(mj.nonce))
        out[j] = rows + 64 * j
        one[j] = 1
    k.chacha20_lanes(hst, x, out, one)
    for j in range(x):
        mj = &m[order[lane[j]]]
        for w in range(4):
            store32_le(subkey + 4 * w, load32_le(out[j] + 4 * w) - hst[16 * j + w])
            store32_le(subkey + 16 + 4 * w,
                       load32_le(out[j] + 48 + 4 * w) - hst[16 * j + 12 + w])
        xchacha_nonce(n12, mj.nonce)
        chacha20_init_state(&states[16 * lane[j]], subkey, n12, 12, 0)
    wipe(subkey, 32)
    wipe(rows, 64 * x)
    wipe(hst, 16 * sizeof(uint32_t) * x)


cdef void mb_group(const kernel_table* k, bmsg_t* m, const size_t* order, size_t g,
                   bint seal) noexcept nogil:
    """The messages m[order[0..g-1]] (g <= MB_GROUP, each MB_MAX bytes or
    less) through one chacha20_lanes call, then their MACs."""
    cdef uint32_t states[16 * MB_GROUP]
    cdef uint8_t ks[MB_GROUP * MB_ROW]
    cdef uint8_t* out[MB_GROUP]
    cdef uint32_t nb[MB_GROUP]
    cdef size_t xl[MB_GROUP]
    cdef size_t j, used = 0, x = 0
    cdef bint lanes = k.poly1305_lanes != NULL
    cdef bmsg_t* mj
    for j in range(g):
        mj = &m[order[j]]
        if mj.nonce_len == 24:
            xl[x] = j                    # XChaCha20: after the loop
            x += 1
        elif (j and mj.nonce_len == 12 and mj.key == m[order[j - 1]].key
                and m[order[j - 1]].nonce_len == 12):
            # the previous lane's key (the same one: a single-key batch):
            # its first 12 words, then counter 0 and this nonce
            memcpy(&states[16 * j], &states[16 * (j - 1)], 48)
            states[16 * j + 12] = 0
            states[16 * j + 13] = load32_le(mj.nonce)
            states[16 * j + 14] = load32_le(mj.nonce + 4)
            states[16 * j + 15] = load32_le(mj.nonce + 8)
        else:
            message_state(&states[16 * j], mj.key, mj.nonce, mj.nonce_len)
        out[j] = ks + used               # rows back to back: one wipe at the end
        nb[j] = <uint32_t>ks_blocks(mj.n)
        used += 64 * nb[j]
        if mj.alen > MB_AAD:
            lanes = False
    if x >= MB_MIN_X:
        mb_subkeys(k, m, order, xl, x, states)
    else:
        for j in range(x):
            mj = &m[order[xl[j]]]
            message_state(&states[16 * xl[j]], mj.key, mj.nonce, mj.nonce_len)
    k.chacha20_lanes(states, g, out, nb)
    wipe(states, 64 * g)
    if lanes:
        mb_macs(k, m, order, g, seal, out)
    else:
        for j in range(g):                # message by message (_short.pxi)
            mj = &m[order[j]]
            mj.ok = ks_aead(k, out[j], mj.aad, mj.alen, mj.src, mj.dst, mj.n, seal)
    wipe(ks, used)


cdef inline size_t lanes_take(size_t g, uint32_t blocks) noexcept nogil:
    """How many of the next g messages (g <= MB_GROUP, at most `blocks`
    blocks each, block 0 included) go through the lanes: 0 means the next one
    takes the one-message path.  Measured on avx512 and avx2 (64 messages and
    fewer, 64 B to 1 KiB): up to 256 B three lanes or more beat the loop of
    one-message calls and two do not; longer messages in 4 or 12 lanes lose
    to it (down to a third at 1 KiB: the lanes past a whole vector step cost
    nearly what a full step does), in 8 or 16 they win."""
    if blocks <= MB_SMALL_BLOCKS:
        return g if g >= MB_MIN_GROUP else 0
    return g - g % MB_STEP


cdef void batch_run(const kernel_table* k, bmsg_t* m, size_t count, bint seal,
                    size_t* order) noexcept nogil:
    """Seal or open every message of the batch (open: m.ok is set from the
    tag; a message already marked bad, too short to hold a tag, is skipped).
    order: room for count indices.  The short messages are sorted by block
    count (a counting sort) unless they all have the same one."""
    cdef size_t start[MB_BLOCKS + 2]
    cdef size_t i, nshort = 0, g
    cdef uint32_t b, first = 0
    cdef bint mixed = False
    cdef uint32_t most = k.lanes_max_blocks if k.lanes_max_blocks < MB_BLOCKS else MB_BLOCKS
    if count == 1:
        if seal or m[0].ok:
            one_run(k, &m[0], seal)
        return
    memset(start, 0, sizeof(start))
    for i in range(count):
        if not seal and not m[i].ok:
            continue
        if m[i].n <= MB_MAX and ks_blocks(m[i].n) <= most and k.chacha20_lanes != NULL:
            b = <uint32_t>ks_blocks(m[i].n)
            if nshort == 0:
                first = b
            elif b != first:
                mixed = True
            start[b + 1] += 1
            order[nshort] = i            # in index order: the order when not mixed
            nshort += 1
        else:
            one_run(k, &m[i], seal)
    if not nshort:
        return
    if mixed:
        for b in range(1, MB_BLOCKS + 2):
            start[b] += start[b - 1]
        for i in range(count):
            if (seal or m[i].ok) and m[i].n <= MB_MAX and ks_blocks(m[i].n) <= most:
                b = <uint32_t>ks_blocks(m[i].n)
                order[start[b]] = i
                start[b] += 1
    i = 0
    while i < nshort:
        g = nshort - i
        if g > MB_GROUP:
            g = MB_GROUP
        g = lanes_take(g, <uint32_t>ks_blocks(m[order[i + g - 1]].n))
        if g == 0:
            one_run(k, &m[order[i]], seal)
            i += 1
        else:
            mb_group(k, m, order + i, g, seal)
            i += g
