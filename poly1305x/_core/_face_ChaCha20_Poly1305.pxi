# Included by _engine.pyx: pycryptodome's ChaCha20_Poly1305 face
# (poly1305x.ChaCha20_Poly1305), with all of its checks and messages.

# ---------------------------------------------------------------------------
# pycryptodome's ChaCha20_Poly1305: the same core, fed piece by piece
# ---------------------------------------------------------------------------

cdef str AEAD_KEY_LEN = "Key must be 32 bytes long"
cdef str AEAD_NONCE_LEN = "Nonce must be 8, 12 or 24 bytes long"

cdef enum:
    OP_UPDATE = 1
    OP_ENCRYPT = 2
    OP_DECRYPT = 4
    OP_DIGEST = 8
    OP_VERIFY = 16


cdef class ChaCha20Poly1305Cipher:
    """ChaCha20-Poly1305 / XChaCha20-Poly1305 cipher object in pycryptodome's
    shape (``Crypto.Cipher.ChaCha20_Poly1305``).  Create it with
    :func:`poly1305x.ChaCha20_Poly1305.new`.

    Each encrypt()/decrypt() call runs ChaCha20 and Poly1305 over its bytes
    slice by slice; only a partial block is carried to the next call.

    :ivar nonce: the 8-, 12- or 24-byte nonce"""
    cdef object __weakref__
    cdef stream_t s
    cdef mac_t c
    cdef p1305x_word state     # life cycle and busy flag (_buffers.pxi)
    cdef uint64_t len_aad, len_ct
    cdef int next_ops
    cdef bint aad_done, finished
    cdef uint8_t tag[16]
    cdef public object nonce

    def __cinit__(self):
        self.state = ST_UNINIT

    def __init__(self, key, nonce):
        cdef buf_t kb, nb
        cdef uint8_t block0[64]
        init_begin(&self.state, self)
        try:
            # pycryptodome's ChaCha20_Poly1305.new: lengths by len(), then the
            # nonce's type (bytes, bytearray or memoryview: not a list), in this order
            if len(key) != 32:
                raise ValueError(AEAD_KEY_LEN)
            if len(nonce) not in (8, 12, 24):
                raise ValueError(AEAD_NONCE_LEN)
            if isinstance(nonce, str) or not isinstance(nonce, (bytes, bytearray, memoryview)):
                raise TypeError("nonce must be bytes, bytearray or memoryview")
            get_buf(key, &kb)
            try:
                get_nonce(nonce, &nb)
                try:
                    if kb.len != 32:             # len() counted items of another size
                        raise ValueError(AEAD_KEY_LEN)
                    if nb.len not in (8, 12, 24):
                        raise ValueError(AEAD_NONCE_LEN)
                    self.nonce = PyBytes_FromStringAndSize(<char*>nb.ptr, nb.len)
                    stream_setup(&self.s, active_kernels(), kb.ptr, nb.ptr, nb.len, True)
                finally:
                    put_buf(&nb)
            finally:
                put_buf(&kb)
        except BaseException:
            init_end(&self.state, False)
            raise
        stream_block0(&self.s, block0)
        mac_init(&self.c, self.s.k, block0, block0 + 16)
        wipe(block0, 64)
        self.next_ops = OP_UPDATE | OP_ENCRYPT | OP_DECRYPT | OP_DIGEST | OP_VERIFY
        init_end(&self.state, True)

    def __dealloc__(self):
        wipe(&self.s, sizeof(stream_t))
        mac_wipe(&self.c)

    @property
    def backend(self):
        """Name of the backend this object computes with."""
        return backend_name(self.s.k, &self.state, self)

    cdef int _op(self, int op, str refused) except -1:
        """The state machine, checked with the object entered."""
        if not self.next_ops & op:
            raise TypeError(refused)
        return 0

    def update(self, data):
        """Authenticate a piece of associated data (before any encrypt/decrypt)."""
        cdef PyThreadState* ts
        cdef buf_t b
        enter(&self.state, self)
        try:
            self._op(OP_UPDATE, "update() method cannot be called")
            get_buf(data, &b)
            try:
                self.len_aad += b.len
                ts = nogil_for(b.len)
                mac_update(&self.c, b.ptr, b.len)
                regain(ts)
            finally:
                put_buf(&b)
        finally:
            leave(&self.state)

    cdef object _run(self, data, output, int op):
        enter(&self.state, self)
        try:
            if op == OP_ENCRYPT:
                self._op(op, "encrypt() method cannot be called")
                self.next_ops = OP_ENCRYPT | OP_DIGEST
            else:
                self._op(op, "decrypt() method cannot be called")
                self.next_ops = OP_DECRYPT | OP_VERIFY
            if not self.aad_done:
                mac_pad16(&self.c)
                self.aad_done = True
            return stream_face(&self.s, &self.c, data, output,
                               RUN_SEAL if op == OP_ENCRYPT else RUN_OPEN, "ChaCha20", 1, 0,
                               &self.len_ct)
        finally:
            leave(&self.state)

    def encrypt(self, plaintext, output=None):
        """Encrypt a piece of data; returns bytes, or None with ``output``."""
        return self._run(plaintext, output, OP_ENCRYPT)

    def decrypt(self, ciphertext, output=None):
        """Decrypt a piece of data; returns bytes, or None with ``output``."""
        return self._run(ciphertext, output, OP_DECRYPT)

    cdef int _finish(self, int op, str refused) except -1:
        """digest()/verify(): the tag into self.tag, computed once."""
        enter(&self.state, self)
        try:
            self._op(op, refused)
            self.next_ops = op
            if not self.finished:
                if not self.aad_done:
                    mac_pad16(&self.c)
                    self.aad_done = True
                etm_end(&self.c, True, self.len_aad, self.len_ct, self.tag)
                self.finished = True
                mac_wipe(&self.c)      # the one-time Poly1305 key is no longer needed
        finally:
            leave(&self.state)
        return 0

    def digest(self):
        """The 16-byte tag (encryption side)."""
        self._finish(OP_DIGEST, "digest() method cannot be called")
        return PyBytes_FromStringAndSize(<char*>self.tag, 16)

    def hexdigest(self):
        """The tag as a hexadecimal string."""
        return self.digest().hex()

    def verify(self, received_mac_tag):
        """Raise ValueError("MAC check failed") unless the tag matches
        (constant-time comparison)."""
        cdef bint ok
        self._finish(OP_VERIFY, "verify() cannot be called when encrypting a message")
        ok = tag_matches(received_mac_tag, self.tag)
        if not ok:
            raise ValueError("MAC check failed")

    def hexverify(self, hex_mac_tag):
        """Like verify(), for a hexadecimal tag."""
        from binascii import unhexlify
        self.verify(unhexlify(hex_mac_tag))

    @property
    def _cipher(self):
        """pycryptodome's inner ChaCha20 object, mirrored for its ``seek()``
        only: ``_cipher.seek(position)`` moves the key stream (position 64 is
        where encryption starts), as in pycryptodome."""
        from types import SimpleNamespace
        return SimpleNamespace(seek=self._seek_key_stream)

    def _seek_key_stream(self, position):
        enter(&self.state, self)
        try:
            seek_face(&self.s, position, "ChaCha20")
        finally:
            leave(&self.state)

    def encrypt_and_digest(self, plaintext):
        """(ciphertext, tag) in one step (encrypt() then digest(), their
        checks and messages, as direct C calls)."""
        cdef object ct = self._run(plaintext, None, OP_ENCRYPT)
        self._finish(OP_DIGEST, "digest() method cannot be called")
        return ct, PyBytes_FromStringAndSize(<char*>self.tag, 16)

    def decrypt_and_verify(self, ciphertext, received_mac_tag):
        """The plaintext, after the tag checked out; ValueError otherwise (and
        the decrypted bytes are wiped, never returned).  The tag's type is
        checked before anything is decrypted."""
        cdef buf_t b
        cdef bytes pt
        get_buf(received_mac_tag, &b)
        put_buf(&b)
        pt = self.decrypt(ciphertext)
        try:
            self.verify(received_mac_tag)
        except BaseException:
            wipe(PyBytes_AS_STRING(pt), PyBytes_GET_SIZE(pt))
            raise
        return pt
