# Included by _engine.pyx: the face of many RFC 8439 / XChaCha20-Poly1305
# messages in one call (encrypt_many / decrypt_many and their _into forms;
# one key, or one key per message).
#
# A call borrows every buffer first and checks everything (types, lengths,
# and when sealing a repeated (key, nonce): _batch_nonces.pxi) before it
# writes any output; then the whole batch runs in C with no Python call per
# message (_batch.pxi; without the GIL once the batch holds GIL_THRESHOLD
# bytes or more), and the buffers are released at the end.  The bad-tag rule
# is the one-shot calls' (_aead.pxi): no plaintext of a message whose tag
# fails is ever returned or visible, and by default
# (strict) none at all when any tag of the batch fails.
#
# This face checks the arguments and fills the message table (bmsg_t); where
# the table lives, what it holds, the outputs' places and the _into calls'
# private copies are the core's (_batch_inputs.pxi).

cdef extern from "Python.h":
    Py_ssize_t PyTuple_GET_SIZE(object o)
    PyObject* PyTuple_GET_ITEM(object o, Py_ssize_t i)
    Py_ssize_t PyList_GET_SIZE(object o)
    PyObject* PyList_GET_ITEM(object o, Py_ssize_t i)


# ---------------------------------------------------------------------------
# Borrowing and checking (with the GIL)
# ---------------------------------------------------------------------------

cdef object batch_seq(object seq, str what):
    """The items of a sequence argument: a list or tuple as it is, another
    iterable as a tuple (and on a free-threaded build a list too: its items
    are then read without another thread's changes).  The batch holds a
    reference to every item it reads (batch_hold), so that code run by a
    buffer export, or another thread while the batch runs without the GIL,
    cannot free memory the batch reads.  A single bytes-like object is
    refused: it would be iterated as integers."""
    if type(seq) is tuple or type(seq) is list and not P1305X_FREE_THREADED:
        return seq
    if type(seq) is not list and isinstance(seq, (bytes, bytearray, memoryview, str)):
        raise TypeError(f"{what} must be a sequence of bytes-like objects, "
                        f"not {type(seq).__name__}")
    try:
        it = iter(seq)
    except TypeError:
        raise TypeError(f"{what} must be a sequence of bytes-like objects, "
                        f"not {type(seq).__name__}") from None
    return tuple(it)


cdef inline Py_ssize_t batch_len(object seq):
    if type(seq) is list:
        return PyList_GET_SIZE(seq)
    return PyTuple_GET_SIZE(seq)


cdef inline object batch_item(object seq, size_t i):
    """Item i (borrowed: batch_hold takes the reference).  A list that code
    run during the borrowing made shorter is refused."""
    if type(seq) is list:
        if <Py_ssize_t>i >= PyList_GET_SIZE(seq):
            raise RuntimeError("a sequence argument changed size during the batch call")
        return <object>PyList_GET_ITEM(seq, <Py_ssize_t>i)
    return <object>PyTuple_GET_ITEM(seq, <Py_ssize_t>i)


cdef inline int batch_borrow_one(batch_t* b, size_t i, int slot, object item, str what,
                                 const uint8_t** ptr, size_t* n) except -1:
    """Item slot of message i as a pointer and length: a bytes object as it
    is, anything else through get_buf (with the argument and index in the
    message of its error) into that message's buf_t (batch_slot)."""
    cdef buf_t* bf
    if PyBytes_CheckExact(item):
        ptr[0] = <const uint8_t*>PyBytes_AS_STRING(item)
        n[0] = <size_t>PyBytes_GET_SIZE(item)
        return 0
    bf = batch_slot(b, i, slot)
    batch_borrow_buffer(item, bf, what, i)
    ptr[0] = bf.ptr
    n[0] = bf.len
    return 0


cdef int batch_borrow_buffer(object item, buf_t* b, str what, size_t i) except -1:
    try:
        get_buf(item, b)
    except (TypeError, BufferError) as exc:
        raise type(exc)(f"{what}[{i}]: {exc}") from None
    return 0


cdef int batch_borrow(batch_t* b, const uint8_t* key, size_t nonce_len, object keys,
                      object nonces, object data, object aads, bint seal) except -1:
    """Borrow and check every input of the batch into the table (batch_start:
    b.count messages, zeroed).  key: the one key (with nonce_len), or NULL
    and a key per message in keys."""
    cdef size_t i, klen, nlen, dlen
    cdef bmsg_t* m
    cdef object item
    for i in range(b.count):
        m = &b.m[i]
        if key != NULL:
            m.key = key
            m.nonce_len = nonce_len
        else:
            item = batch_item(keys, i)
            batch_hold(m, 3, item)
            if isinstance(item, _AEADKey):
                m.key = (<_AEADKey>item)._key_for(&m.nonce_len)
            else:
                if isinstance(item, str):
                    raise TypeError(f"keys[{i}] must be bytes-like or an AEAD object, not str")
                batch_borrow_one(b, i, 3, item, "keys", &m.key, &klen)
                if klen != 32:
                    raise ValueError(f"keys[{i}] must be 32 bytes")
                m.nonce_len = 12
        item = batch_item(nonces, i)
        batch_hold(m, 0, item)
        batch_borrow_one(b, i, 0, item, "nonces", &m.nonce, &nlen)
        if nlen != m.nonce_len:
            raise ValueError(f"nonces[{i}] must be {m.nonce_len} bytes")
        item = batch_item(data, i)
        batch_hold(m, 1, item)
        batch_borrow_one(b, i, 1, item, "data", &m.src, &dlen)
        m.srclen = dlen
        if seal:
            if dlen > AEAD_MAX:
                raise OverflowError(f"data[{i}] is too long for one ChaCha20-Poly1305 "
                                    "message (at most 2**38 - 64 bytes)")
            m.n = dlen
        else:
            # too short or too long to be a message: its tag fails, later
            m.ok = dlen >= 16 and dlen - 16 <= AEAD_MAX
            m.n = dlen - 16 if m.ok else 0
        if aads is not None:
            item = batch_item(aads, i)
            if item is not None:
                batch_hold(m, 2, item)
                batch_borrow_one(b, i, 2, item, "associated_data", &m.aad, &m.alen)
    return 0


cdef int batch_failed(batch_t* b) except -1:
    """strict: InvalidTag naming the messages whose tags failed (indices only)."""
    cdef size_t i
    bad = [i for i in range(b.count) if not b.m[i].ok]
    if bad:
        shown = ", ".join(map(str, bad[:20])) + (", ..." if len(bad) > 20 else "")
        exc = InvalidTag(f"the tags of {len(bad)} of {b.count} messages failed "
                         f"(indices {shown})")
        exc.indices = bad
        raise exc
    return 0


# ---------------------------------------------------------------------------
# The call
# ---------------------------------------------------------------------------

cdef object batch_call(const kernel_table* k, const uint8_t* key, size_t nonce_len,
                       object keys, object nonces, object data, object associated_data,
                       object output, bint seal, bint strict):
    """encrypt_many / decrypt_many and their _into forms (through seal_many
    and open_many).  key: the single-key form's key (k its backend, nonce_len
    its nonce length; the caller checked it is ready); NULL: keys holds one
    key (bytes or AEAD object) per message, and k runs the batch."""
    cdef batch_t b
    cdef buf_t ob
    cdef size_t i, count, total = 0, work = 0
    cdef Py_ssize_t rep
    cdef PyThreadState* ts
    cdef uint8_t* priv = NULL
    cdef object res
    cdef list keep = None
    cdef bmsg_t m_small[SMALL_BATCH]
    cdef buf_t bufs_small[4 * SMALL_BATCH]
    cdef size_t order_small[SMALL_BATCH]
    if key != NULL and seal and output is None:      # one short message (_short.pxi)
        res = sealed_one(k, key, nonce_len, nonces, data, associated_data)
        if res is not None:
            return res
    ob.held = False
    if key == NULL:
        keys = batch_seq(keys, "keys")
    nonces = batch_seq(nonces, "nonces")
    data = batch_seq(data, "data")
    count = <size_t>batch_len(data)
    if associated_data is not None:
        associated_data = batch_seq(associated_data, "associated_data")
        if <size_t>batch_len(associated_data) != count:
            raise ValueError("nonces, data and associated_data must have the same length")
    if (<size_t>batch_len(nonces) != count
            or keys is not None and <size_t>batch_len(keys) != count):
        raise ValueError("keys, nonces and data must have the same length" if keys is not None
                         else "nonces, data and associated_data must have the same length")
    try:
        batch_start(&b, count, m_small, bufs_small, order_small)
        if count > SMALL_BATCH:
            batch_alloc(&b, count)
        batch_borrow(&b, key, nonce_len, keys, nonces, data, associated_data, seal)
        if seal:
            # (opening checks no repeat: each message opens as decrypt would)
            rep = batch_repeated_nonce(b.m, count)
            if rep >= 0:
                raise ValueError(f"nonces[{rep}] repeats an earlier nonce of the batch "
                                 "(under the same key): never reuse a nonce")
        for i in range(count):
            total += b.m[i].n + (16 if seal else 0)
            work += b.m[i].n + b.m[i].alen
        if output is None:
            res = batch_outputs(&b, seal)
        else:
            try:
                get_buf(output, &ob, True)
            except BufferError:
                raise
            except TypeError:
                raise TypeError("Buffer is not writable.") from None
            if ob.len < total:
                raise ValueError(f"buffer must be at least {total} bytes")
            if seal:
                keep = []
                batch_snapshot(&b, ob.ptr, total, keep)
            else:
                # plaintext goes to a private area first (batch_deliver)
                priv = <uint8_t*>PyMem_Malloc(total + 1)
                if priv == NULL:
                    raise MemoryError()
            res = batch_offsets(&b, priv if priv != NULL else <uint8_t*>ob.ptr, seal)
        ts = nogil_for(work)
        batch_run(k, b.m, count, seal, b.order)
        regain(ts)
        if seal:
            return res
        if priv != NULL:
            # the caller's buffer receives verified plaintext only, and with
            # strict nothing at all unless every tag checked out
            if strict:
                batch_failed(&b)
            batch_deliver(&b, <uint8_t*>ob.ptr, priv, res)
            return res
        for i in range(count):
            if not b.m[i].ok:
                if strict:
                    batch_wipe_outputs(&b)
                    batch_failed(&b)
                res[i] = None
        return res
    finally:
        if priv != NULL:
            wipe(priv, total)
            PyMem_Free(priv)
        put_buf(&ob)
        batch_release(&b)


# Named forms of batch_call, for the faces (_face_aead.pxi and below).

cdef inline object seal_many(const kernel_table* k, const uint8_t* key, size_t nonce_len,
                             object keys, object nonces, object data, object aad,
                             object output):
    return batch_call(k, key, nonce_len, keys, nonces, data, aad, output, True, True)


cdef inline object open_many(const kernel_table* k, const uint8_t* key, size_t nonce_len,
                             object keys, object nonces, object data, object aad,
                             object output, bint strict):
    return batch_call(k, key, nonce_len, keys, nonces, data, aad, output, False, strict)


# ---------------------------------------------------------------------------
# The multi-key form (poly1305x.aead.encrypt_many and friends)
# ---------------------------------------------------------------------------

def encrypt_many(keys, nonces, data, associated_data):
    """One message per key: ``keys[i]`` is a 32-byte ChaCha20Poly1305 key (with
    a 12-byte nonce) or a ChaCha20Poly1305 / XChaCha20Poly1305 object (with
    its nonce length).  Returns the list of ciphertext || tag."""
    return seal_many(active_kernels(), NULL, 0, keys, nonces, data, associated_data, None)


def decrypt_many(keys, nonces, data, associated_data, *, strict=True):
    """The inverse of encrypt_many; InvalidTag (strict) or None slots."""
    return open_many(active_kernels(), NULL, 0, keys, nonces, data, associated_data, None,
                     strict)


def encrypt_many_into(keys, nonces, data, associated_data, buf):
    """encrypt_many into one buffer; returns the offset of each message."""
    return seal_many(active_kernels(), NULL, 0, keys, nonces, data, associated_data, buf)


def decrypt_many_into(keys, nonces, data, associated_data, buf, *, strict=True):
    """decrypt_many into one buffer; returns the offset of each plaintext."""
    return open_many(active_kernels(), NULL, 0, keys, nonces, data, associated_data, buf,
                     strict)
