# Included by _engine.pyx: cryptography's Poly1305 face
# (poly1305x.mac.Poly1305), with all of its checks and messages.

cdef int mac_finalized() except -1:
    """cryptography's refusal of a MAC that made its tag."""
    raise AlreadyFinalized("Context was already finalized.")


cdef int oneshot_into(object key, object data, uint8_t* tag) except -1:
    """The tag of data under key into tag[0:16].  bytes below GIL_THRESHOLD
    (a 32-byte key: no check can fail) skip the buffer protocol."""
    cdef PyThreadState* ts
    cdef buf_t kb, db
    cdef const kernel_table* k = active_kernels()
    if (PyBytes_CheckExact(key) and PyBytes_CheckExact(data) and PyBytes_GET_SIZE(key) == 32
            and PyBytes_GET_SIZE(data) < GIL_THRESHOLD):
        mac_oneshot(k, <const uint8_t*>PyBytes_AS_STRING(key),
                    <const uint8_t*>PyBytes_AS_STRING(data), <size_t>PyBytes_GET_SIZE(data), tag)
        return 0
    get_fixed(key, &kb, 32, "A poly1305 key is 32 bytes long")
    try:
        get_buf(data, &db)
        try:
            ts = nogil_for(db.len)
            mac_oneshot(k, kb.ptr, db.ptr, db.len, tag)
            regain(ts)
        finally:
            put_buf(&db)
    finally:
        put_buf(&kb)
    return 0


cdef bytes oneshot_tag(object key, object data):
    cdef uint8_t tag[16]
    oneshot_into(key, data, tag)
    return PyBytes_FromStringAndSize(<char*>tag, 16)


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
        if self._update(data):
            mac_finalized()

    def finalize(self):
        """Return the 16-byte tag; the object cannot be used afterwards."""
        if self._finish():
            mac_finalized()
        return PyBytes_FromStringAndSize(<char*>self.tag, 16)

    def verify(self, signature):
        """Raise InvalidSignature unless ``signature`` is the message's tag
        (compared in constant time).  A ``signature`` of a wrong type is a
        TypeError that leaves the object usable, as in cryptography."""
        cdef buf_t b
        cdef bint ok
        get_buf(signature, &b)     # before finishing: a TypeError changes nothing
        try:
            if self._finish():
                mac_finalized()
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
        cdef uint8_t mine[16]
        oneshot_into(key, data, mine)
        if not tag_matches(tag, mine):
            raise InvalidSignature("Value did not match computed tag.")
