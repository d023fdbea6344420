# Included by _engine.pyx: the one AEAD core (encrypt-then-MAC over a ChaCha20
# stream whose block 0 keys Poly1305) and its RFC 8439 framing: the
# cryptography-style AEAD objects, the one-shot functions, and pycryptodome's
# ChaCha20_Poly1305 object.  _ssh.pyx frames chacha20-poly1305@openssh.com over
# the same core (etm_seal / etm_open with rfc=False).
#
# The bad-tag rule, for every decryption here and in _ssh.pyx: the ciphertext
# is read once (each slice is copied into the output, MACed there and
# decrypted from there, so what is returned is what the tag covered), and no
# plaintext is ever in memory that anyone else can see before the tag has
# checked out: a caller's buffer (decrypt_into) receives only ciphertext until
# then and is decrypted in place afterwards; a fresh output is private to the
# call.  After a bad tag the output holds zeros, whatever its length.

# ---------------------------------------------------------------------------
# The core (nogil)
# ---------------------------------------------------------------------------

cdef enum:
    SCRATCH = 16384        # decryption's private copy of one slice
    ROOM = 32              # spare bytes in front of a message copy (see etm_mac)

# The associated data: RFC 8439 MACs it first, zero-padded to 16 bytes; OpenSSH
# MACs it unpadded, as a prefix of the ciphertext (the encrypted length).  The
# prefix is MACed together with the first bytes of the message, so that the
# message's blocks stay 16-byte aligned in the MAC's input: one MAC call
# instead of two, and whole 16-block batches for the vector kernels.

cdef void etm_begin(mac_t* c, const kernel_table* k, const uint8_t* block0,
                    const uint8_t* aad, size_t alen, bint rfc) noexcept nogil:
    """The MAC keyed from key-stream block 0; RFC 8439's padded aad."""
    mac_init(c, k, block0, block0 + 16)
    if rfc:
        mac_update(c, aad, alen)
        mac_pad16(c)


cdef inline void etm_mac(mac_t* c, const uint8_t* pre, size_t prelen, uint8_t* body,
                         size_t n, bint room) noexcept nogil:
    """MAC pre[0:prelen] || body[0:n].  Contiguous (pre + prelen == body) is
    one call; with room (ROOM writable bytes in front of body, prelen <=
    ROOM) the prefix is copied there to make it so."""
    if prelen and pre + prelen != body:
        if room and prelen <= ROOM:
            memcpy(body - prelen, pre, prelen)
        else:
            mac_update(c, pre, prelen)
            prelen = 0
    mac_update(c, body - prelen, n + prelen)


cdef void etm_end(mac_t* c, bint rfc, uint64_t alen, uint64_t n, uint8_t* tag) noexcept nogil:
    """RFC 8439: pad the ciphertext, absorb the two lengths; finish the tag."""
    if rfc:
        mac_pad16(c)
        mac_lengths(c, alen, n)
    mac_final(c, tag)


cdef void etm_crypt(stream_t* s, mac_t* c, const uint8_t* src, uint8_t* dst, size_t n,
                    bint enc, bint defer, const uint8_t* pre, size_t prelen) noexcept nogil:
    """Encrypt (XOR, then MAC what was written) or decrypt n bytes, a slice
    at a time so that the MAC reads what was just written while it is still
    in cache; pre[0:prelen] is MACed in front of the message (OpenSSH).
    Decryption reads each ciphertext byte once: a slice is copied (into a
    private scratch buffer, or with defer into dst), MACed from the copy and
    decrypted from it.  With defer, decryption stops after the MAC: dst holds
    ciphertext, and the caller XORs it once the tag is checked.  (A one-pass,
    stitched kernel was tried on Zen 3 with AVX2 and lost to this.)"""
    cdef size_t chunk
    cdef uint8_t scratch[ROOM + SCRATCH]
    if not enc and not defer:
        while n:
            chunk = n if n < SCRATCH else SCRATCH
            memcpy(scratch + ROOM, src, chunk)
            etm_mac(c, pre, prelen, scratch + ROOM, chunk, True)
            prelen = 0
            stream_xor(s, scratch + ROOM, dst, chunk)
            src += chunk
            dst += chunk
            n -= chunk
        return
    while n:
        chunk = n if n < SLICE else SLICE
        if enc:
            stream_xor(s, src, dst, chunk)
        elif src != dst:
            memcpy(dst, src, chunk)
        etm_mac(c, pre, prelen, dst, chunk, False)
        prelen = 0
        src += chunk
        dst += chunk
        n -= chunk
    if prelen:                             # an empty message
        mac_update(c, pre, prelen)


cdef void etm_seal(stream_t* s, bint rfc, const uint8_t* aad, size_t alen,
                   const uint8_t* pt, uint8_t* ct, size_t n, uint8_t* tag) noexcept nogil:
    """ct = pt ^ the key stream from block 1; tag = Poly1305 keyed by block 0
    over aad and ct.  s: the message's stream (key and nonce set), which this
    consumes.  pt may equal ct; aad must not overlap ct (but may end where it
    begins: OpenSSH's length field)."""
    cdef mac_t c
    cdef uint8_t tmp[64 + SHORT_AEAD]
    cdef const uint8_t* pre = NULL
    cdef size_t prelen = 0
    if not rfc:
        pre, prelen = aad, alen
    if n <= SHORT_AEAD:
        # one kernel call for block 0 and the whole message; bytes 32-63 of
        # block 0 are unused key stream: the room in front of the message
        memset(tmp, 0, 64)
        memcpy(tmp + 64, pt, n)
        stream_set_ctr(s, 0)
        s.k.chacha20_xor(s.st, tmp, tmp, 1 + ((n + 63) >> 6))
        etm_begin(&c, s.k, tmp, aad, alen, rfc)   # before ct is written: aad may share its buffer
        etm_mac(&c, pre, prelen, tmp + 64, n, True)
        memcpy(ct, tmp + 64, n)
        wipe(tmp, 64 + n)
    else:
        stream_block0(s, tmp)
        etm_begin(&c, s.k, tmp, aad, alen, rfc)
        wipe(tmp, 64)
        etm_crypt(s, &c, pt, ct, n, True, False, pre, prelen)
    etm_end(&c, rfc, alen, n, tag)
    mac_wipe(&c)


cdef bint etm_open(stream_t* s, bint rfc, const uint8_t* aad, size_t alen,
                   const uint8_t* ct, uint8_t* pt, size_t n, const uint8_t* tag,
                   bint defer) noexcept nogil:
    """The inverse of etm_seal, under the bad-tag rule above: returns 0 on a
    bad tag, and then pt holds zeros.  defer: pt is the caller's buffer (see
    plaintext only after the tag); otherwise pt is private to the call."""
    cdef mac_t c
    cdef uint8_t ks[64 + SHORT_AEAD]
    cdef uint8_t cpy[ROOM + SHORT_AEAD]
    cdef uint8_t want[16]
    cdef uint8_t mine[16]
    cdef const uint8_t* pre = NULL
    cdef size_t prelen = 0
    cdef size_t i
    cdef bint ok
    if not rfc:
        pre, prelen = aad, alen
    memcpy(want, tag, 16)
    if n <= SHORT_AEAD:
        stream_set_ctr(s, 0)
        s.k.chacha20_xor(s.st, NULL, ks, 1 + ((n + 63) >> 6))
        etm_begin(&c, s.k, ks, aad, alen, rfc)
        memcpy(cpy + ROOM, ct, n)
        etm_mac(&c, pre, prelen, cpy + ROOM, n, True)
        etm_end(&c, rfc, alen, n, mine)
        ok = tags_equal(mine, want, 16)
        if ok:
            for i in range(n):
                pt[i] = cpy[ROOM + i] ^ ks[64 + i]
        wipe(ks, 64 + n)
    else:
        stream_block0(s, ks)
        etm_begin(&c, s.k, ks, aad, alen, rfc)
        wipe(ks, 64)
        etm_crypt(s, &c, ct, pt, n, False, defer, pre, prelen)
        etm_end(&c, rfc, alen, n, mine)
        ok = tags_equal(mine, want, 16)
        if ok and defer:
            stream_xor(s, pt, pt, n)
    if not ok:
        wipe(pt, n)
    mac_wipe(&c)
    return ok


# ---------------------------------------------------------------------------
# RFC 8439 / XChaCha20-Poly1305, one message per call
# ---------------------------------------------------------------------------

# RFC 8439: the 32-bit block counter starts at 1, so a message has at most
# 2^32 - 1 blocks.
cdef uint64_t AEAD_MAX = (<uint64_t>0xFFFFFFFF) * 64


cdef bint aead_run(stream_t* s, const uint8_t* aad, size_t alen, const uint8_t* src,
                   uint8_t* dst, size_t n, bint seal, bint defer) noexcept nogil:
    if seal:
        etm_seal(s, True, aad, alen, src, dst, n, dst + n)
        return True
    return etm_open(s, True, aad, alen, src, dst, n, src + n, defer)


cdef object aead_call(const kernel_table* k, const uint8_t* key, size_t nonce_len, nonce,
                      data, associated_data, output, bint seal):
    """seal: data -> ct || tag; open: ct || tag -> data or InvalidTag.  Into a
    new bytes object, or into ``output`` (then the length is returned)."""
    cdef buf_t nb, db, ab, ob
    cdef stream_t s
    cdef uint8_t* dst
    cdef object result
    cdef object tmp = None
    cdef const uint8_t* src
    cdef const uint8_t* aad = NULL
    cdef size_t alen = 0, n, outlen
    cdef bint ok = True
    cdef bint defer = output is not None
    get_buf(nonce, &nb)
    db.held = ab.held = ob.held = False
    s.k = NULL
    try:
        get_buf(data, &db)
        if associated_data is not None:
            get_buf(associated_data, &ab)
            aad = ab.ptr
            alen = ab.len
        if seal and db.len > AEAD_MAX:
            raise OverflowError("Data too long for one ChaCha20-Poly1305 message "
                                "(at most 2**38 - 64 bytes)")
        if nb.len != nonce_len:
            raise ValueError("Nonce must be %d bytes" % nonce_len)
        if seal:
            n = db.len
            outlen = n + 16
        else:
            # no such message exists: InvalidTag, and no 2^38-byte allocation
            if db.len < 16 or db.len - 16 > AEAD_MAX:
                raise InvalidTag()
            n = outlen = db.len - 16
        stream_setup(&s, k, key, nb.ptr, nonce_len, False)
        if output is None:
            result = new_bytes(outlen, &dst)
        else:
            writable_output(output, &ob, outlen, "Buffer is not writable.",
                            "buffer must be %d bytes")
            dst = <uint8_t*>ob.ptr
            result = outlen
        src = db.ptr
        if overlaps(src, dst, db.len):
            tmp = PyBytes_FromStringAndSize(<char*>src, db.len)
            src = <const uint8_t*>PyBytes_AS_STRING(tmp)
        if n + alen >= GIL_THRESHOLD:
            with nogil:
                ok = aead_run(&s, aad, alen, src, dst, n, seal, defer)
        else:
            ok = aead_run(&s, aad, alen, src, dst, n, seal, defer)
        if not ok:
            raise InvalidTag()
    finally:
        if s.k != NULL:
            wipe(&s, sizeof(stream_t))     # the message key, also after an error
        put_buf(&ob)
        put_buf(&ab)
        put_buf(&db)
        put_buf(&nb)
    return result


def chacha20poly1305_seal(key, nonce, aad, pt):
    """ct || tag for RFC 8439 ChaCha20-Poly1305 (12-byte nonce), in one call and
    with no object kept: for protocols that build an AEAD per message (HPKE)."""
    cdef buf_t kb
    get_fixed(key, &kb, 32, "ChaCha20Poly1305 key must be 32 bytes.")
    try:
        return aead_call(active_kernels(), kb.ptr, 12, nonce, pt, aad, None, True)
    finally:
        put_buf(&kb)


def chacha20poly1305_open(key, nonce, aad, ct):
    """The plaintext of ct || tag, or InvalidTag; one call, no object kept."""
    cdef buf_t kb
    get_fixed(key, &kb, 32, "ChaCha20Poly1305 key must be 32 bytes.")
    try:
        return aead_call(active_kernels(), kb.ptr, 12, nonce, ct, aad, None, False)
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
                raise TypeError("key must be bytes-like, not str")
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
        return aead_call(self.k, self.key, self.nonce_len, nonce, data, associated_data,
                         None, True)

    def decrypt(self, nonce, data, associated_data):
        """The plaintext, or InvalidTag (and nothing else) when the tag fails."""
        check_ready(&self.state, self)
        return aead_call(self.k, self.key, self.nonce_len, nonce, data, associated_data,
                         None, False)

    def encrypt_into(self, nonce, data, associated_data, buf):
        """Write ciphertext || tag into ``buf`` (len(data) + 16 bytes); returns
        the number of bytes written."""
        check_ready(&self.state, self)
        return aead_call(self.k, self.key, self.nonce_len, nonce, data, associated_data,
                         buf, True)

    def decrypt_into(self, nonce, data, associated_data, buf):
        """Write the plaintext into ``buf`` (len(data) - 16 bytes); returns the
        number of bytes written.  ``buf`` receives plaintext only once the tag
        has checked out; on InvalidTag it holds zeros."""
        check_ready(&self.state, self)
        return aead_call(self.k, self.key, self.nonce_len, nonce, data, associated_data,
                         buf, False)

    # Many messages in one call (_engine_batch.pxi; docs/batch.md)

    def encrypt_many(self, nonces, data, associated_data):
        """[ciphertext || tag for each message]; ``associated_data`` is None or
        a sequence (entries may be None).  A repeated nonce is a ValueError."""
        return batch_call(self, None, nonces, data, associated_data, None, True, True)

    def decrypt_many(self, nonces, data, associated_data, *, strict=True):
        """[plaintext for each message].  strict: InvalidTag naming the failing
        indices if any tag fails (and nothing returned); strict=False: None
        in the failing slots."""
        return batch_call(self, None, nonces, data, associated_data, None, False, strict)

    def encrypt_many_into(self, nonces, data, associated_data, buf):
        """Every ciphertext || tag back to back into ``buf``; returns their
        offsets."""
        return batch_call(self, None, nonces, data, associated_data, buf, True, True)

    def decrypt_many_into(self, nonces, data, associated_data, buf, *, strict=True):
        """Every plaintext back to back into ``buf``; returns their offsets
        (None for failing slots with strict=False)."""
        return batch_call(self, None, nonces, data, associated_data, buf, False, strict)


cdef class ChaCha20Poly1305(_AEADKey):
    """ChaCha20Poly1305(key): the RFC 8439 AEAD in ``cryptography``'s shape.

    Never encrypt two messages with the same key and nonce."""

    def __init__(self, key):
        self._set_key(key, "ChaCha20Poly1305 key must be 32 bytes.", 12)


cdef class XChaCha20Poly1305(_AEADKey):
    """XChaCha20Poly1305(key): ChaCha20-Poly1305 with a 24-byte nonce
    (draft-irtf-cfrg-xchacha), random nonces being safe to use."""

    def __init__(self, key):
        self._set_key(key, "XChaCha20Poly1305 key must be 32 bytes.", 24)


# ---------------------------------------------------------------------------
# pycryptodome's ChaCha20_Poly1305: the same core, fed piece by piece
# ---------------------------------------------------------------------------

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
    cdef p1305x_word state     # life cycle and busy flag (_engine_buffers.pxi)
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
            get_buf(key, &kb)
            try:
                get_nonce(nonce, &nb)
                try:
                    if kb.len != 32:
                        raise ValueError("Key must be 32 bytes long")
                    if nb.len not in (8, 12, 24):
                        raise ValueError("Nonce must be 8, 12 or 24 bytes long")
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
        cdef buf_t b
        enter(&self.state, self)
        try:
            self._op(OP_UPDATE, "update() method cannot be called")
            get_buf(data, &b)
            try:
                self.len_aad += b.len
                if b.len >= GIL_THRESHOLD:
                    with nogil:
                        mac_update(&self.c, b.ptr, b.len)
                else:
                    mac_update(&self.c, b.ptr, b.len)
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
            return stream_call(&self.s, &self.c, data, output,
                               RUN_SEAL if op == OP_ENCRYPT else RUN_OPEN, "ChaCha20", None,
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
            seek_call(&self.s, position, "ChaCha20")
        finally:
            leave(&self.state)

    def encrypt_and_digest(self, plaintext):
        """(ciphertext, tag) in one step."""
        return self.encrypt(plaintext), self.digest()

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


# ---------------------------------------------------------------------------
# Key derivations that pycryptodome exposes
# ---------------------------------------------------------------------------

def hchacha20_subkey(key, nonce):
    """HChaCha20(key32, nonce16) -> 32-byte subkey (pycryptodome's _HChaCha20)."""
    cdef buf_t kb, nb
    cdef uint8_t out[32]
    get_buf(key, &kb)
    try:
        get_buf(nonce, &nb)
        try:
            if kb.len != 32 or nb.len != 16:
                raise ValueError("Incorrect key or nonce length for HChaCha20")
            hchacha20(kb.ptr, nb.ptr, out)
        finally:
            put_buf(&nb)
    finally:
        put_buf(&kb)
    r = bytearray(PyBytes_FromStringAndSize(<char*>out, 32))
    wipe(out, 32)
    return r
