# Included by _engine.pyx: the one AEAD core (encrypt-then-MAC over a ChaCha20
# stream whose block 0 keys Poly1305) and its RFC 8439 framing of one message
# per call (aead_run, aead_call).  Above it: cryptography's AEAD objects and
# the one-shot functions (_face_aead.pxi), pycryptodome's ChaCha20_Poly1305
# (_face_ChaCha20_Poly1305.pxi), the batch (_batch.pxi).  _ssh.pyx frames
# chacha20-poly1305@openssh.com over the same core (etm_seal / etm_open with
# rfc=False).
#
# The bad-tag rule, for every decryption here, in the batch and in _ssh.pyx:
# the ciphertext is read once (each piece is copied into private memory,
# MACed there and decrypted from there, so what is returned is what the tag
# covered), and no plaintext is ever in memory that anyone else can see
# before the tag has checked out.  An opening runs into memory private to
# the call: a fresh output, or for a caller's buffer (decrypt_into and the
# batch's _into forms) a private area, from which the buffer receives the
# plaintext only after the tag checked out (zeros after a bad one): a long
# decrypt_into keeps the ciphertext copy there and XORs it into the buffer
# (etm_open with out), the batch copies its plaintexts (batch_deliver); the
# short path (_short.pxi) is private by itself, as it decrypts from its own
# MAC buffer only at the verdict.  Nothing is written to a caller's buffer
# before the inputs are read, so it may overlap them.  After a bad tag the
# output holds zeros, whatever its length.

# ---------------------------------------------------------------------------
# The core (nogil)
# ---------------------------------------------------------------------------

cdef enum:
    SCRATCH = 16384        # decryption's copy of one slice
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
                    bint enc, bint copy_only, const uint8_t* pre,
                    size_t prelen) noexcept nogil:
    """Encrypt (XOR, then MAC what was written) or decrypt n bytes, a slice
    at a time so that the MAC reads what was just written while it is still
    in cache; pre[0:prelen] is MACed in front of the message (OpenSSH).
    Decryption reads each ciphertext byte once: a slice is copied (into a
    scratch buffer, or with copy_only into dst), MACed from the copy and
    decrypted from it into dst (private to the call); with copy_only it
    stops after the MAC, dst holding the ciphertext.  (A one-pass, stitched
    kernel was tried on Zen 3 with AVX2 and lost to this.)"""
    cdef size_t chunk
    cdef uint8_t scratch[ROOM + SCRATCH]
    if not enc and not copy_only:
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
        s.k.chacha20_xor(s.st, tmp, tmp, ks_blocks(n))
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
                   uint8_t* out) noexcept nogil:
    """The inverse of etm_seal, under the bad-tag rule above: returns 0 on a
    bad tag.  pt: n bytes private to the call.  out NULL: pt receives the
    plaintext (zeros after a bad tag).  out a caller's buffer: pt receives
    the ciphertext copy, and out its plaintext only once the tag checked out
    (zeros otherwise)."""
    cdef mac_t c
    cdef uint8_t ks[64 + SHORT_AEAD]
    cdef uint8_t cpy[ROOM + SHORT_AEAD]
    cdef uint8_t want[16]
    cdef uint8_t mine[16]
    cdef const uint8_t* pre = NULL
    cdef size_t prelen = 0
    cdef bint ok
    cdef uint8_t* dst = out if out != NULL else pt
    if not rfc:
        pre, prelen = aad, alen
    memcpy(want, tag, 16)
    if n <= SHORT_AEAD:
        stream_set_ctr(s, 0)
        s.k.chacha20_xor(s.st, NULL, ks, ks_blocks(n))
        etm_begin(&c, s.k, ks, aad, alen, rfc)
        memcpy(cpy + ROOM, ct, n)
        etm_mac(&c, pre, prelen, cpy + ROOM, n, True)
        etm_end(&c, rfc, alen, n, mine)
        ok = tag_verdict(mine, want, dst, cpy + ROOM, ks + 64, n)
        wipe(ks, 64 + n)
    else:
        stream_block0(s, ks)
        etm_begin(&c, s.k, ks, aad, alen, rfc)
        wipe(ks, 64)
        etm_crypt(s, &c, ct, pt, n, False, out != NULL, pre, prelen)
        etm_end(&c, rfc, alen, n, mine)
        ok = tag_verdict(mine, want, dst, NULL, NULL, n)
        if ok and out != NULL:
            stream_xor(s, pt, out, n)
    mac_wipe(&c)
    return ok


# ---------------------------------------------------------------------------
# RFC 8439 / XChaCha20-Poly1305, one message per call
# ---------------------------------------------------------------------------

# RFC 8439: the 32-bit block counter starts at 1, so a message has at most
# 2^32 - 1 blocks.
cdef uint64_t AEAD_MAX = (<uint64_t>0xFFFFFFFF) * 64


cdef inline bint opens_privately(size_t n) noexcept nogil:
    """Whether aead_run opens an n-byte message into its output only at the
    verdict (the short path), so that a caller's buffer needs no private area."""
    return n <= SHORT_MAX


cdef bint aead_run(stream_t* s, const uint8_t* aad, size_t alen, const uint8_t* src,
                   uint8_t* dst, size_t n, bint seal) noexcept nogil:
    """One message; dst is private to the call when opening (see the rule above)."""
    if opens_privately(n):                 # _short.pxi, whatever the aad's length
        stream_set_ctr(s, 0)
        return short_run(s.k, s.st, aad, alen, src, dst, n, seal)
    if seal:
        etm_seal(s, True, aad, alen, src, dst, n, dst + n)
        return True
    return etm_open(s, True, aad, alen, src, dst, n, src + n, NULL)


cdef bint open_into(stream_t* s, const uint8_t* aad, size_t alen, const uint8_t* src,
                    uint8_t* out, size_t n, uint8_t* priv) noexcept nogil:
    """decrypt_into past the short path: the ciphertext's private copy in
    priv (n bytes; NULL for n <= SCRATCH: on the stack here, which no heap
    block need pay for), the plaintext into out only once the tag checked
    out (etm_open)."""
    cdef uint8_t small[SCRATCH]
    return etm_open(s, True, aad, alen, src, priv if priv != NULL else small, n, src + n, out)


cdef inline object aead_call(const kernel_table* k, const uint8_t* key, size_t nonce_len,
                             nonce, data, associated_data, output, bint seal, fail_t* fail):
    """seal: data -> ct || tag; open: ct || tag -> data or InvalidTag.  Into a
    new bytes object, or into ``output`` (then the length is returned).  None
    when a check failed: fail says which (FAIL_TOO_LONG, FAIL_NONCE_LEN,
    FAIL_NOT_WRITABLE, FAIL_OUT_LEN), and the face words it.  Inline, so that
    bytes arguments reach the short path (_short.pxi) from the face with no
    call in between; everything else goes to aead_buffers."""
    cdef size_t n, alen = 0
    cdef const uint8_t* aad = NULL
    if (output is None and PyBytes_CheckExact(nonce) and PyBytes_CheckExact(data)
            and <size_t>PyBytes_GET_SIZE(nonce) == nonce_len):
        # bytes that fit the short path: no check of aead_buffers can fail
        n = <size_t>PyBytes_GET_SIZE(data)
        if associated_data is None:
            alen = 0
        elif PyBytes_CheckExact(associated_data):
            aad = <const uint8_t*>PyBytes_AS_STRING(associated_data)
            alen = <size_t>PyBytes_GET_SIZE(associated_data)
        else:
            alen = SHORT_AAD + 1
        if seal and short_fits(n, alen) or not seal and n >= 16 and short_fits(n - 16, alen):
            return short_bytes(k, key, nonce_len, nonce, data, aad, alen, seal)
    return aead_buffers(k, key, nonce_len, nonce, data, associated_data, output, seal, fail)


cdef object aead_buffers(const kernel_table* k, const uint8_t* key, size_t nonce_len, nonce,
                         data, associated_data, output, bint seal, fail_t* fail):
    """aead_call through the buffer protocol, with every check."""
    cdef PyThreadState* ts
    cdef buf_t nb, db, ab, ob
    cdef stream_t s
    cdef uint8_t* dst
    cdef uint8_t* out = NULL
    cdef uint8_t* priv = NULL
    cdef object result
    cdef object tmp = None
    cdef const uint8_t* src
    cdef const uint8_t* aad = NULL
    cdef size_t alen = 0, n, outlen
    cdef bint ok = True
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
            fail.code = FAIL_TOO_LONG
            return None
        if nb.len != nonce_len:
            fail.code = FAIL_NONCE_LEN
            fail.n = nonce_len
            return None
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
            fail.code = writable_output(output, &ob, outlen)
            if fail.code:
                fail.n = outlen
                return None
            dst = <uint8_t*>ob.ptr
            result = outlen
        src = db.ptr
        if seal:
            if overlaps(src, dst, db.len):
                tmp = PyBytes_FromStringAndSize(<char*>src, db.len)
                src = <const uint8_t*>PyBytes_AS_STRING(tmp)
        elif output is not None and not opens_privately(n):
            if n > SCRATCH:
                priv = <uint8_t*>PyMem_Malloc(n)
                if priv == NULL:
                    raise MemoryError()
            out = dst
        ts = nogil_for(n + alen)
        if out != NULL:
            ok = open_into(&s, aad, alen, src, out, n, priv)
        else:
            ok = aead_run(&s, aad, alen, src, dst, n, seal)
        regain(ts)
        if not ok:
            raise InvalidTag()
    finally:
        PyMem_Free(priv)                   # ciphertext only: public bytes
        if s.k != NULL:
            wipe(&s, sizeof(stream_t))     # the message key, also after an error
        put_buf(&ob)
        put_buf(&ab)
        put_buf(&db)
        put_buf(&nb)
    return result
