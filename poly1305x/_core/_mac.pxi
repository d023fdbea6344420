# Included by _engine.pyx: the Poly1305 streaming state and the MAC objects.

# ---------------------------------------------------------------------------
# Poly1305 streaming state (nogil core)
# Whole blocks are absorbed straight from the caller's buffer; only a partial
# block (0-15 bytes) is ever copied into buf.
# ---------------------------------------------------------------------------

cdef void mac_init(mac_t* c, const kernel_table* k, const uint8_t* r16,
                   const uint8_t* s16) noexcept nogil:
    c.k = k
    c.buflen = 0
    poly1305_init(&c.st, r16, s16)


cdef void mac_update(mac_t* c, const uint8_t* p, size_t n) noexcept nogil:
    cdef size_t take, nb
    if c.buflen:
        take = 16 - c.buflen
        if take > n:
            take = n
        memcpy(c.buf + c.buflen, p, take)
        c.buflen += take
        p += take
        n -= take
        if c.buflen < 16:
            return
        c.k.poly1305_blocks(&c.st, c.buf, 1, 1)
        c.buflen = 0
    nb = n >> 4
    if nb:
        c.k.poly1305_blocks(&c.st, p, nb, 1)
        p += nb << 4
        n -= nb << 4
    if n:
        memcpy(c.buf, p, n)
        c.buflen = n


cdef void mac_pad16(mac_t* c) noexcept nogil:
    """Zero-fill to a block boundary (the AEAD padding), absorbing it as a full block."""
    if c.buflen:
        memset(c.buf + c.buflen, 0, 16 - c.buflen)
        c.k.poly1305_blocks(&c.st, c.buf, 1, 1)
        c.buflen = 0


cdef void mac_lengths(mac_t* c, uint64_t aad_len, uint64_t ct_len) noexcept nogil:
    cdef uint8_t lens[16]
    store64_le(lens, aad_len)
    store64_le(lens + 8, ct_len)
    mac_update(c, lens, 16)


cdef void mac_final(mac_t* c, uint8_t* tag) noexcept nogil:
    if c.buflen:
        c.buf[c.buflen] = 1
        memset(c.buf + c.buflen + 1, 0, 15 - c.buflen)
        c.k.poly1305_blocks(&c.st, c.buf, 1, 0)
        c.buflen = 0
    poly1305_finish(&c.st, tag)


cdef void mac_wipe(mac_t* c) noexcept nogil:
    """Zero the key, accumulator and buffer, and the powers of r if a vector
    kernel computed them (skipping 1 KiB of zeros on short one-shot calls)."""
    if c.st.powers_ready:
        wipe(c.st.powers, sizeof(c.st.powers))
    wipe(c.st.h, sizeof(c.st.h) + sizeof(c.st.r) + sizeof(c.st.s))
    wipe(c.buf, 16)


cdef void mac_oneshot(const kernel_table* k, const uint8_t* key32, const uint8_t* p,
                      size_t n, uint8_t* tag) noexcept nogil:
    cdef mac_t c
    mac_init(&c, k, key32, key32 + 16)
    mac_update(&c, p, n)
    mac_final(&c, tag)
    mac_wipe(&c)


# ---------------------------------------------------------------------------
# MAC objects
# ---------------------------------------------------------------------------

cdef class _MacBase:
    """A Poly1305 state plus the backend it was created on."""
    cdef mac_t c
    cdef p1305x_word state     # life cycle and busy flag (_buffers.pxi)
    cdef bint done
    cdef uint8_t tag[16]

    def __cinit__(self):
        self.state = ST_UNINIT

    cdef int _key(self, const uint8_t* r16, const uint8_t* s16) except -1:
        mac_init(&self.c, active_kernels(), r16, s16)
        return 0

    cdef int _absorb(self, object data) except -1:
        """Absorb data; the caller has entered the object."""
        cdef PyThreadState* ts
        cdef buf_t b
        get_buf(data, &b)
        try:
            ts = nogil_for(b.len)
            mac_update(&self.c, b.ptr, b.len)
            regain(ts)
        finally:
            put_buf(&b)
        return 0

    cdef int _update(self, object data) except -1:
        """update(): absorb data, or FAIL_FINISHED (nothing absorbed) once the
        tag is made, which each face words its own way."""
        enter(&self.state, self)
        try:
            if self.done:
                return FAIL_FINISHED
            self._absorb(data)
        finally:
            leave(&self.state)
        return 0

    cdef int _finish(self) except -1:
        """Compute the tag once into self.tag (then wipe the key); FAIL_FINISHED
        when it was made before (a face that refuses a second finish words it)."""
        enter(&self.state, self)
        try:
            if self.done:
                return FAIL_FINISHED
            mac_final(&self.c, self.tag)
            self.done = True
            mac_wipe(&self.c)          # r, s, the accumulator and the powers of r
        finally:
            leave(&self.state)
        return 0

    def __dealloc__(self):
        mac_wipe(&self.c)

    @property
    def backend(self):
        """Name of the backend this object computes with."""
        return backend_name(self.c.k, &self.state, self)
