# Included by _engine.pyx: cryptography's AEAD face (poly1305x.aead:
# ChaCha20Poly1305, XChaCha20Poly1305) and the one-shot calls for protocols
# that build an AEAD per message, with all of their checks and messages.

# cryptography's message for a wrong ChaCha20Poly1305 key (also QUIC's
# packet protection: _face_quic.pxi)
cdef str CP_KEY_LEN = "ChaCha20Poly1305 key must be 32 bytes."


cdef int aead_failed(const fail_t* f) except -1:
    """cryptography's words for what aead_call refused."""
    if f.code == FAIL_TOO_LONG:
        raise OverflowError("Data too long for one ChaCha20-Poly1305 message "
                            "(at most 2**38 - 64 bytes)")
    if f.code == FAIL_NONCE_LEN:
        raise ValueError("Nonce must be %d bytes" % f.n)
    if f.code == FAIL_NOT_WRITABLE:
        raise TypeError("Buffer is not writable.")
    raise ValueError("buffer must be %d bytes" % f.n)


cdef inline object aead_face(const kernel_table* k, const uint8_t* key, size_t nonce_len,
                             nonce, data, associated_data, output, bint seal):
    """aead_call, its refusals in cryptography's words."""
    cdef fail_t f
    cdef object r = aead_call(k, key, nonce_len, nonce, data, associated_data, output,
                              seal, &f)
    if r is None:
        aead_failed(&f)
    return r


cdef inline object aead_seal(const kernel_table* k, const uint8_t* key, size_t nonce_len,
                             nonce, data, associated_data, output):
    return aead_face(k, key, nonce_len, nonce, data, associated_data, output, True)


cdef inline object aead_open(const kernel_table* k, const uint8_t* key, size_t nonce_len,
                             nonce, data, associated_data, output):
    return aead_face(k, key, nonce_len, nonce, data, associated_data, output, False)

def chacha20poly1305_seal(key, nonce, aad, pt):
    """ct || tag for RFC 8439 ChaCha20-Poly1305 (12-byte nonce), in one call and
    with no object kept: for protocols that build an AEAD per message (HPKE)."""
    cdef buf_t kb
    get_fixed(key, &kb, 32, CP_KEY_LEN)
    try:
        return aead_seal(active_kernels(), kb.ptr, 12, nonce, pt, aad, None)
    finally:
        put_buf(&kb)


def chacha20poly1305_open(key, nonce, aad, ct):
    """The plaintext of ct || tag, or InvalidTag; one call, no object kept."""
    cdef buf_t kb
    get_fixed(key, &kb, 32, CP_KEY_LEN)
    try:
        return aead_open(active_kernels(), kb.ptr, 12, nonce, ct, aad, None)
    finally:
        put_buf(&kb)


cdef class _AEADKey:
    """The key and methods of the cryptography-style AEAD classes; keyed once
    by __init__ and immutable afterwards, so one object may be used from many
    threads at once."""
    cdef uint8_t key[32]
    cdef const kernel_table* k
    cdef size_t nonce_len
    cdef p1305x_word state     # life cycle only: no per-call state

    def __cinit__(self):
        self.state = ST_UNINIT

    def __dealloc__(self):
        wipe(self.key, 32)

    cdef int _set_key(self, object key, str msg, size_t nonce_len) except -1:
        cdef buf_t kb
        init_begin(&self.state, self)
        try:
            if isinstance(key, str):
                raise TypeError(_KEY_NOT_STR)
            get_fixed(key, &kb, 32, msg)
        except BaseException:
            init_end(&self.state, False)
            raise
        memcpy(self.key, kb.ptr, 32)
        put_buf(&kb)
        self.k = active_kernels()
        self.nonce_len = nonce_len
        init_end(&self.state, True)
        return 0

    cdef const uint8_t* _key_for(self, size_t* nonce_len) except NULL:
        """The key and nonce length for a batch of many keys (_face_batch.pxi),
        which holds a reference to self while it runs."""
        check_ready(&self.state, self)
        nonce_len[0] = self.nonce_len
        return self.key

    @property
    def backend(self):
        """Name of the backend this object computes with."""
        return backend_name(self.k, &self.state, self)

    @classmethod
    def generate_key(cls):
        """A fresh random 32-byte key (os.urandom)."""
        import os
        return os.urandom(32)

    def encrypt(self, nonce, data, associated_data):
        """ciphertext || 16-byte tag.  ``associated_data`` may be None."""
        check_ready(&self.state, self)
        return aead_seal(self.k, self.key, self.nonce_len, nonce, data, associated_data,
                         None)

    def decrypt(self, nonce, data, associated_data):
        """The plaintext, or InvalidTag (and nothing else) when the tag fails."""
        check_ready(&self.state, self)
        return aead_open(self.k, self.key, self.nonce_len, nonce, data, associated_data,
                         None)

    def encrypt_into(self, nonce, data, associated_data, buf):
        """Write ciphertext || tag into ``buf`` (len(data) + 16 bytes); returns
        the number of bytes written."""
        check_ready(&self.state, self)
        return aead_seal(self.k, self.key, self.nonce_len, nonce, data, associated_data,
                         buf)

    def decrypt_into(self, nonce, data, associated_data, buf):
        """Write the plaintext into ``buf`` (len(data) - 16 bytes); returns the
        number of bytes written.  ``buf`` receives plaintext only once the tag
        has checked out; on InvalidTag it holds zeros."""
        check_ready(&self.state, self)
        return aead_open(self.k, self.key, self.nonce_len, nonce, data, associated_data,
                         buf)

    # Many messages in one call (_face_batch.pxi; docs/batch.md)

    def encrypt_many(self, nonces, data, associated_data):
        """[ciphertext || tag for each message]; ``associated_data`` is None or
        a sequence (entries may be None).  A repeated nonce is a ValueError."""
        check_ready(&self.state, self)
        return seal_many(self.k, self.key, self.nonce_len, None, nonces, data, associated_data,
                         None)

    def decrypt_many(self, nonces, data, associated_data, *, strict=True):
        """[plaintext for each message].  strict: InvalidTag naming the failing
        indices if any tag fails (and nothing returned); strict=False: None
        in the failing slots."""
        check_ready(&self.state, self)
        return open_many(self.k, self.key, self.nonce_len, None, nonces, data, associated_data,
                         None, strict)

    def encrypt_many_into(self, nonces, data, associated_data, buf):
        """Every ciphertext || tag back to back into ``buf``; returns their
        offsets."""
        check_ready(&self.state, self)
        return seal_many(self.k, self.key, self.nonce_len, None, nonces, data, associated_data,
                         buf)

    def decrypt_many_into(self, nonces, data, associated_data, buf, *, strict=True):
        """Every plaintext back to back into ``buf``; returns their offsets
        (None for failing slots with strict=False)."""
        check_ready(&self.state, self)
        return open_many(self.k, self.key, self.nonce_len, None, nonces, data, associated_data,
                         buf, strict)


cdef class ChaCha20Poly1305(_AEADKey):
    """ChaCha20Poly1305(key): the RFC 8439 AEAD in ``cryptography``'s shape.

    Never encrypt two messages with the same key and nonce."""

    def __init__(self, key):
        self._set_key(key, CP_KEY_LEN, 12)


cdef class XChaCha20Poly1305(_AEADKey):
    """XChaCha20Poly1305(key): ChaCha20-Poly1305 with a 24-byte nonce
    (draft-irtf-cfrg-xchacha), random nonces being safe to use."""

    def __init__(self, key):
        self._set_key(key, "XChaCha20Poly1305 key must be 32 bytes.", 24)
