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


cdef bytes oneshot_tag(object key, object data):
    cdef buf_t kb, db
    cdef uint8_t tag[16]
    cdef const kernel_table* k = active_kernels()
    get_fixed(key, &kb, 32, "A poly1305 key is 32 bytes long")
    try:
        get_buf(data, &db)
        try:
            if db.len >= GIL_THRESHOLD:
                with nogil:
                    mac_oneshot(k, kb.ptr, db.ptr, db.len, tag)
            else:
                mac_oneshot(k, kb.ptr, db.ptr, db.len, tag)
        finally:
            put_buf(&db)
    finally:
        put_buf(&kb)
    return PyBytes_FromStringAndSize(<char*>tag, 16)


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
        cdef buf_t b
        get_buf(data, &b)
        try:
            if b.len >= GIL_THRESHOLD:
                with nogil:
                    mac_update(&self.c, b.ptr, b.len)
            else:
                mac_update(&self.c, b.ptr, b.len)
        finally:
            put_buf(&b)
        return 0

    cdef int _update(self, object data, object finished) except -1:
        """update(): finished is the exception class for a finished MAC (None:
        pycryptodome's TypeError)."""
        enter(&self.state, self)
        try:
            if self.done:
                if finished is None:
                    raise TypeError("You can only call 'digest' or 'hexdigest' on this object")
                raise finished("Context was already finalized.")
            self._absorb(data)
        finally:
            leave(&self.state)
        return 0

    cdef int _finish(self, object finished) except -1:
        """Compute the tag once into self.tag (then wipe the key); with
        `finished` set, refuse a MAC that is already finished."""
        enter(&self.state, self)
        try:
            if self.done and finished is not None:
                raise finished("Context was already finalized.")
            if not self.done:
                mac_final(&self.c, self.tag)
                self.done = True
                mac_wipe(&self.c)      # r, s, the accumulator and the powers of r
        finally:
            leave(&self.state)
        return 0

    def __dealloc__(self):
        mac_wipe(&self.c)

    @property
    def backend(self):
        """Name of the backend this object computes with."""
        return backend_name(self.c.k, &self.state, self)


cdef class Poly1305(_MacBase):
    """Poly1305(key): a one-time-key MAC in ``cryptography``'s shape.

    The 32-byte key must never authenticate two different messages."""

    def __init__(self, key):
        cdef buf_t kb
        init_begin(&self.state, self)
        try:
            get_fixed(key, &kb, 32, "A poly1305 key is 32 bytes long")
        except BaseException:
            init_end(&self.state, False)
            raise
        self._key(kb.ptr, kb.ptr + 16)
        put_buf(&kb)
        init_end(&self.state, True)

    def update(self, data):
        """Absorb the next piece of the message (any bytes-like object)."""
        self._update(data, AlreadyFinalized)

    def finalize(self):
        """Return the 16-byte tag; the object cannot be used afterwards."""
        self._finish(AlreadyFinalized)
        return PyBytes_FromStringAndSize(<char*>self.tag, 16)

    def verify(self, signature):
        """Raise InvalidSignature unless ``signature`` is the message's tag
        (compared in constant time).  A ``signature`` of a wrong type is a
        TypeError that leaves the object usable, as in cryptography."""
        cdef buf_t b
        cdef bint ok
        get_buf(signature, &b)     # before finishing: a TypeError changes nothing
        try:
            self._finish(AlreadyFinalized)
            ok = b.len == 16 and tags_equal(b.ptr, self.tag, 16)
        finally:
            put_buf(&b)
        if not ok:
            raise InvalidSignature("Value did not match computed tag.")

    @staticmethod
    def generate_tag(key, data):
        """The tag of ``data`` under the 32-byte one-time ``key``, in one call."""
        return oneshot_tag(key, data)

    @staticmethod
    def verify_tag(key, data, tag):
        """Raise InvalidSignature unless ``tag`` is the tag of ``data``."""
        cdef bytes mine = oneshot_tag(key, data)
        cdef bint ok = tag_matches(tag, <const uint8_t*>PyBytes_AS_STRING(mine))
        if not ok:
            raise InvalidSignature("Value did not match computed tag.")


cdef class Poly1305_MAC(_MacBase):
    """A Poly1305 MAC object in pycryptodome's shape (``Crypto.Hash.Poly1305``).
    Create it with :func:`poly1305x.Poly1305.new`.

    :ivar digest_size: the size in bytes of the resulting MAC tag
    :ivar nonce: the nonce the key pair was derived with"""
    digest_size = 16
    cdef public object nonce
    cdef object __weakref__

    def __init__(self, r, s, data):
        cdef buf_t rb, sb
        init_begin(&self.state, self)
        try:
            get_fixed(r, &rb, 16, "Parameter r is not 16 bytes long")
            try:
                get_fixed(s, &sb, 16, "Parameter s is not 16 bytes long")
            except BaseException:
                put_buf(&rb)
                raise
        except BaseException:
            init_end(&self.state, False)
            raise
        self._key(rb.ptr, sb.ptr)
        put_buf(&rb)
        put_buf(&sb)
        self.nonce = None
        init_end(&self.state, True)
        if data:
            self._update(data, None)

    def update(self, data):
        """Authenticate the next chunk of message; returns self."""
        self._update(data, None)
        return self

    def copy(self):
        raise NotImplementedError()

    def digest(self):
        """Return the binary (16-byte) MAC tag of the message so far."""
        self._finish(None)
        return PyBytes_FromStringAndSize(<char*>self.tag, 16)

    def hexdigest(self):
        """Return the MAC tag as a hexadecimal string."""
        return self.digest().hex()

    def verify(self, mac_tag):
        """Raise ValueError("MAC check failed") unless ``mac_tag`` matches
        (constant-time comparison)."""
        cdef bint ok
        self._finish(None)
        ok = tag_matches(mac_tag, self.tag)
        if not ok:
            raise ValueError("MAC check failed")

    def hexverify(self, hex_mac_tag):
        """Like verify(), for a hexadecimal tag."""
        from binascii import unhexlify
        if isinstance(hex_mac_tag, str):
            hex_mac_tag = hex_mac_tag.encode("latin-1")
        self.verify(unhexlify(hex_mac_tag))
