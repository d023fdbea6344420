# Included by _engine.pyx: the short-message path of the RFC 8439 AEAD (12-
# and 24-byte nonces), chosen at the top of aead_call (bytes, SHORT_AAD bytes
# of aad or less) and aead_run (any aad) for messages of SHORT_MAX bytes or
# less; its seal and open over a ready key stream (ks_aead) also finish the
# batch's messages that do not MAC across lanes (_batch.pxi).
#
# Two kernel calls a message: one chacha20_xor makes block 0 (the Poly1305
# key) together with the message's key stream, into a stack buffer; one
# poly1305_blocks absorbs the whole padded MAC input (aad, pad, ciphertext,
# pad, lengths), built in a second stack buffer while the ciphertext is
# written.  No stream or MAC state, no copy of the input, no allocation.
# Open: the ciphertext is copied into the MAC buffer once, MACed there, and
# decrypted from there only once the tag (compared in constant time) checked
# out, so the output sees no byte before that and zeros after a bad tag (the
# bad-tag rule of _aead.pxi).  The MAC buffer holds public bytes only.
#
# For bytes arguments (the common case) aead_call takes this path before any
# buffer is borrowed: no buffer protocol, no try/finally, no GIL test (every
# short message is below GIL_THRESHOLD).

cdef enum:
    SHORT_MAX = 2048            # longest message of the short path
    SHORT_AAD = 256             # longest aad of the short path
    SHORT_BLOCKS = 1 + SHORT_MAX // 64
    SHORT_MAC = SHORT_AAD + SHORT_MAX + 16


cdef bint ks_aead(const kernel_table* k, const uint8_t* ks, const uint8_t* aad, size_t alen,
                  const uint8_t* src, uint8_t* dst, size_t n, bint seal) noexcept nogil:
    """The one seal and open of an RFC 8439 message of SHORT_MAX bytes or
    less whose key stream is ready in ks (block 0, the Poly1305 key, then
    the message's; the caller wipes it): seal (dst = ct || tag) or open (src
    = ct || tag; returns whether the tag checked out, under the bad-tag
    rule: dst is written only by the verdict).  Both the one-message call
    (short_run, short_bytes) and the batch (_batch.pxi) run messages through
    here.  The MAC input is built in one private buffer (aad, pad,
    ciphertext, pad, lengths) and absorbed in one poly1305_blocks call; an
    aad longer than SHORT_AAD (only the batch's messages) has its whole
    blocks MACed from its own buffer first.  src may equal dst; no other
    overlap of dst with src, nor of dst with aad when sealing (aad is read
    before dst is written)."""
    cdef uint8_t mac[SHORT_MAC]
    cdef uint8_t want[16]
    cdef uint8_t mine[16]
    cdef poly1305_state ps
    cdef size_t head = 0, a16, n16
    cdef uint8_t* row
    cdef bint ok = True
    poly1305_init(&ps, ks, ks + 16)
    if alen > SHORT_AAD:
        head = alen & ~(<size_t>15)
        k.poly1305_blocks(&ps, aad, head >> 4, 1)
    a16 = pad16(alen - head)
    n16 = pad16(n)
    row = mac + a16
    copy_pad16(mac, aad + head if head else aad, alen - head)
    if seal:
        xor_pad16(row, dst, src, ks + 64, n)
    else:
        memcpy(want, src + n, 16)
        copy_pad16(row, src, n)
    p1305x_put_lengths(row + n16, alen, n)
    k.poly1305_blocks(&ps, mac, (a16 + n16 + 16) >> 4, 1)
    poly1305_finish(&ps, dst + n if seal else mine)
    if ps.powers_ready:
        wipe(ps.powers, sizeof(ps.powers))
    wipe(ps.h, sizeof(ps.h) + sizeof(ps.r) + sizeof(ps.s))
    if not seal:
        ok = tag_verdict(mine, want, dst, row, ks + 64, n)
    return ok


cdef inline size_t short_stream(const kernel_table* k, uint32_t* st, uint8_t* ks,
                                size_t n) noexcept nogil:
    """Block 0 and the key stream of an n-byte message into ks, in one kernel
    call; st (the input block at counter 0) is wiped.  Returns the bytes of
    ks written.  (Block 0 in a call of its own ahead of whole 8-block batches,
    so that its latency might overlap them, measured no faster at 960 B and
    1 KiB on avx512.)"""
    cdef size_t nb = ks_blocks(n)
    k.chacha20_xor(st, NULL, ks, nb)
    wipe(st, 64)
    return 64 * nb


cdef bint short_run(const kernel_table* k, uint32_t* st, const uint8_t* aad, size_t alen,
                    const uint8_t* src, uint8_t* dst, size_t n, bint seal) noexcept nogil:
    """One short message (see ks_aead) from its input block st at counter
    0, which is wiped."""
    cdef uint8_t ks[64 * SHORT_BLOCKS]
    cdef size_t nks = short_stream(k, st, ks, n)
    cdef bint ok = ks_aead(k, ks, aad, alen, src, dst, n, seal)
    wipe(ks, nks)
    return ok


cdef inline bint short_fits(size_t n, size_t alen) noexcept nogil:
    return n <= SHORT_MAX and alen <= SHORT_AAD


cdef extern from "Python.h":
    # the allocation with no exception check of Cython's (short_bytes wipes
    # the key stream before it passes the error on)
    PyObject* new_bytes_or_null "PyBytes_FromStringAndSize"(const char* s, Py_ssize_t n)
    bint PyList_CheckExact(object o)
    Py_ssize_t PyList_GET_SIZE(object o)
    PyObject* PyList_GET_ITEM(object o, Py_ssize_t i)


cdef inline int pass_error() except -1:
    """Hands on the exception already set: Cython takes this -1 as an error."""
    return -1


cdef object short_bytes(const kernel_table* k, const uint8_t* key, size_t nonce_len,
                        object nonce, object data, const uint8_t* aad, size_t alen, bint seal):
    """aead_call for bytes arguments that fit the short path (the caller
    checked the nonce's length, and for open that data holds a tag).  The
    result is allocated while the key stream's last rounds are still in
    flight, with no try block: a failed allocation wipes the key stream and
    passes its MemoryError on."""
    cdef uint32_t st[16]
    cdef uint8_t ks[64 * SHORT_BLOCKS]
    cdef size_t n = <size_t>PyBytes_GET_SIZE(data)
    cdef size_t outlen = n + 16 if seal else n - 16
    cdef size_t nks
    cdef bint ok
    cdef PyObject* out
    cdef object result
    message_state(st, key, <const uint8_t*>PyBytes_AS_STRING(nonce), nonce_len)
    nks = short_stream(k, st, ks, n if seal else outlen)
    out = new_bytes_or_null(NULL, <Py_ssize_t>outlen)
    if out == NULL:
        wipe(ks, nks)
        pass_error()                   # the MemoryError the allocation set
    result = <object>out
    Py_DECREF(result)                  # <object> took a second reference
    ok = ks_aead(k, ks, aad, alen, <const uint8_t*>PyBytes_AS_STRING(data),
                 <uint8_t*>PyBytes_AS_STRING(result), n if seal else outlen, seal)
    wipe(ks, nks)
    if not ok:
        raise InvalidTag()
    return result


cdef object sealed_one(const kernel_table* k, const uint8_t* key, size_t nonce_len,
                       object nonces, object data, object associated_data):
    """encrypt_many of one short message given as lists of bytes, in the cases
    where no check of the batch can fail (the key's nonce length, the short
    path's limits): [ct || tag] from short_bytes without the batch's set-up,
    so that a batch of one costs what encrypt does.  None for any other
    call (the batch then takes it, with all of its checks)."""
    cdef object nonce, msg, aad = None
    cdef const uint8_t* ap = NULL
    cdef size_t alen = 0
    if not (PyList_CheckExact(nonces) and PyList_CheckExact(data)
            and PyList_GET_SIZE(nonces) == 1 and PyList_GET_SIZE(data) == 1):
        return None
    if associated_data is not None:
        if not (PyList_CheckExact(associated_data) and PyList_GET_SIZE(associated_data) == 1):
            return None
        aad = <object>PyList_GET_ITEM(associated_data, 0)
    nonce = <object>PyList_GET_ITEM(nonces, 0)
    msg = <object>PyList_GET_ITEM(data, 0)
    if not (PyBytes_CheckExact(nonce) and PyBytes_CheckExact(msg)
            and <size_t>PyBytes_GET_SIZE(nonce) == nonce_len):
        return None
    if aad is not None:
        if not PyBytes_CheckExact(aad):
            return None
        ap = <const uint8_t*>PyBytes_AS_STRING(aad)
        alen = <size_t>PyBytes_GET_SIZE(aad)
    if not short_fits(<size_t>PyBytes_GET_SIZE(msg), alen):
        return None
    return [short_bytes(k, key, nonce_len, nonce, msg, ap, alen, True)]
