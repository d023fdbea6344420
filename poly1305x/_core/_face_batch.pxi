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

from cpython.mem cimport PyMem_Malloc

cdef extern from "Python.h":
    Py_ssize_t PyTuple_GET_SIZE(object o)
    PyObject* PyTuple_GET_ITEM(object o, Py_ssize_t i)
    Py_ssize_t PyList_GET_SIZE(object o)
    PyObject* PyList_GET_ITEM(object o, Py_ssize_t i)
    void Py_XDECREF(PyObject* o)
    object PyList_New(Py_ssize_t n)
    void PyList_SET_ITEM(object l, Py_ssize_t i, object o)
    void Py_INCREF(object o)


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


cdef inline void batch_hold(bmsg_t* m, int slot, object item) noexcept:
    """Keep a reference to an item the batch reads (released by batch_release)."""
    Py_INCREF(item)
    m.refs[slot] = <PyObject*>item


cdef inline int batch_borrow_one(batch_t* b, size_t i, int slot, object item, str what,
                                 const uint8_t** ptr, size_t* n) except -1:
    """Item slot of message i as a pointer and length: a bytes object as it
    is, anything else through get_buf (with the argument and index in the
    message of its error) into that message's buf_t.  The buffers are marked
    not held the first time one is needed (b.held_any): a batch of bytes
    never touches them."""
    cdef buf_t* bf
    cdef size_t j
    if PyBytes_CheckExact(item):
        ptr[0] = <const uint8_t*>PyBytes_AS_STRING(item)
        n[0] = <size_t>PyBytes_GET_SIZE(item)
        return 0
    if not b.held_any:
        for j in range(4 * b.count):
            b.bufs[j].held = False
        b.held_any = True
    bf = &batch_bufs(b, i)[slot]
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


cdef int batch_borrow(batch_t* b, _AEADKey one, object keys, object nonces, object data,
                      object aads, bint seal) except -1:
    """Borrow and check every input of the batch; b.m and b.bufs are allocated
    (and zeroed) by the caller for b.count messages."""
    cdef size_t i, klen, nlen, dlen
    cdef bmsg_t* m
    cdef object item
    for i in range(b.count):
        m = &b.m[i]
        if one is not None:
            m.key = one.key
            m.nonce_len = one.nonce_len
        else:
            item = batch_item(keys, i)
            batch_hold(m, 3, item)
            if isinstance(item, _AEADKey):
                check_ready(&(<_AEADKey>item).state, item)
                m.key = (<_AEADKey>item).key
                m.nonce_len = (<_AEADKey>item).nonce_len
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


cdef enum:
    # Batches of up to SMALL_BATCH messages keep their bookkeeping on the C
    # stack (no allocation: a batch of one costs about one encrypt call)
    SMALL_BATCH = 8
    # Larger ones use one work block (messages, buffers, order).  The last
    # one of up to WORK_CACHE bytes is kept for the next batch instead of
    # being freed: freed under the batch's outputs, 64 KiB or more of it made
    # glibc hand the heap top back to the system when the caller dropped the
    # outputs, and the next batch faulted their pages in again.
    WORK_CACHE = 1 << 20

cdef void* work_cache = NULL
cdef size_t work_cache_size = 0
cdef p1305x_word work_cache_busy = 0     # 1 while a batch holds the cached block


cdef inline buf_t* batch_bufs(batch_t* b, size_t i) noexcept nogil:
    """The four buffers of message i."""
    return b.bufs + 4 * i


cdef int batch_alloc(batch_t* b, size_t count) except -1:
    """The work block for count messages: messages zeroed (the buffers are
    marked not held by batch_borrow_one when first used); the cached block
    when it is free and big enough."""
    global work_cache, work_cache_size
    cdef size_t msz = (count + 1) * sizeof(bmsg_t), bsz = (4 * count + 1) * sizeof(buf_t)
    cdef size_t need = msz + bsz + (count + 1) * sizeof(size_t)
    cdef long idle = 0
    cdef uint8_t* blk = NULL
    if need <= WORK_CACHE and p1305x_cas(&work_cache_busy, &idle, 1):
        b.cached = True
        if work_cache_size < need:
            PyMem_Free(work_cache)
            work_cache = PyMem_Malloc(need)
            work_cache_size = need if work_cache != NULL else 0
        blk = <uint8_t*>work_cache
    else:
        blk = <uint8_t*>PyMem_Malloc(need)
    if blk == NULL:
        raise MemoryError()
    b.block = blk
    memset(blk, 0, msz)
    b.m = <bmsg_t*>blk
    b.bufs = <buf_t*>(blk + msz)
    b.order = <size_t*>(blk + msz + bsz)
    b.count = count                  # b.bufs: marked not held when first used
    return 0


cdef inline bint ranges_meet(const uint8_t* a, size_t na, const uint8_t* b,
                             size_t nb) noexcept nogil:
    return na != 0 and nb != 0 and a < b + nb and b < a + na


cdef int batch_snapshot(batch_t* b, const uint8_t* lo, size_t size, list keep) except -1:
    """_into: private copies of the inputs that overlap the caller's output
    buffer [lo, lo + size), so that writing it cannot change what is read."""
    cdef size_t i
    cdef bmsg_t* m
    cdef object cpy
    for i in range(b.count):
        m = &b.m[i]
        if ranges_meet(m.key, 32, lo, size):
            cpy = PyBytes_FromStringAndSize(<char*>m.key, 32)
            keep.append(cpy)
            m.key = <const uint8_t*>PyBytes_AS_STRING(cpy)
        if ranges_meet(m.nonce, m.nonce_len, lo, size):
            cpy = PyBytes_FromStringAndSize(<char*>m.nonce, m.nonce_len)
            keep.append(cpy)
            m.nonce = <const uint8_t*>PyBytes_AS_STRING(cpy)
        if ranges_meet(m.src, m.srclen, lo, size):
            cpy = PyBytes_FromStringAndSize(<char*>m.src, m.srclen)
            keep.append(cpy)
            m.src = <const uint8_t*>PyBytes_AS_STRING(cpy)
        if ranges_meet(m.aad, m.alen, lo, size):
            cpy = PyBytes_FromStringAndSize(<char*>m.aad, m.alen)
            keep.append(cpy)
            m.aad = <const uint8_t*>PyBytes_AS_STRING(cpy)
    return 0


cdef void batch_release(batch_t* b) noexcept:
    cdef size_t i, j
    if b.bufs != NULL and b.held_any:
        for i in range(b.count):
            for j in range(4):
                put_buf(&batch_bufs(b, i)[j])
    if b.m != NULL:
        for i in range(b.count):
            for j in range(4):
                Py_XDECREF(b.m[i].refs[j])
                b.m[i].refs[j] = NULL
    b.count = 0
    b.m = NULL
    b.bufs = NULL
    b.order = NULL
    if b.cached:
        b.cached = False
        p1305x_store(&work_cache_busy, 0)
    elif b.block != NULL:
        PyMem_Free(b.block)
    b.block = NULL


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

cdef object batch_call(_AEADKey one, object keys, object nonces, object data,
                       object associated_data, object output, bint seal, bint strict):
    """encrypt_many / decrypt_many and their _into forms.  one: the key object
    (single-key form); else keys holds one key (bytes or AEAD object) per
    message, and the active backend runs the batch."""
    cdef batch_t b
    cdef buf_t ob
    cdef size_t i, count, total = 0, work = 0, off
    cdef Py_ssize_t rep
    cdef PyThreadState* ts
    cdef const kernel_table* k
    cdef uint8_t* dst
    cdef uint8_t* priv = NULL
    cdef object res, item
    cdef list keep = None
    cdef bmsg_t m_small[SMALL_BATCH]
    cdef buf_t bufs_small[4 * SMALL_BATCH]
    cdef size_t order_small[SMALL_BATCH]
    if one is not None and seal and output is None:      # one short message (_short.pxi)
        check_ready(&one.state, one)
        res = sealed_one(one.k, one.key, one.nonce_len, nonces, data, associated_data)
        if res is not None:
            return res
    b.count = 0
    b.cached = False
    b.block = NULL
    b.held_any = False
    b.m = NULL
    b.bufs = NULL
    b.order = NULL
    ob.held = False
    if one is not None:
        check_ready(&one.state, one)
        k = one.k
    else:
        k = active_kernels()
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
        if count <= SMALL_BATCH:
            memset(m_small, 0, count * sizeof(bmsg_t))
            b.m = m_small
            b.bufs = bufs_small
            b.order = order_small
            b.count = count
        else:
            batch_alloc(&b, count)
        batch_borrow(&b, one, keys, nonces, data, associated_data, seal)
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
            res = PyList_New(<Py_ssize_t>count)
            for i in range(count):
                item = new_bytes(b.m[i].n + (16 if seal else 0), &b.m[i].dst)
                Py_INCREF(item)
                PyList_SET_ITEM(res, <Py_ssize_t>i, item)
        else:
            try:
                get_buf(output, &ob, True)
            except BufferError:
                raise
            except TypeError:
                raise TypeError("Buffer is not writable.") from None
            if ob.len < total:
                raise ValueError(f"buffer must be at least {total} bytes")
            keep = []
            batch_snapshot(&b, ob.ptr, total, keep)
            if not seal:
                # plaintext goes to a private area first (see below)
                priv = <uint8_t*>PyMem_Malloc(total + 1)
                if priv == NULL:
                    raise MemoryError()
            dst = priv if priv != NULL else <uint8_t*>ob.ptr
            res = PyList_New(<Py_ssize_t>count)
            off = 0
            for i in range(count):
                b.m[i].dst = dst + off
                item = off
                Py_INCREF(item)
                PyList_SET_ITEM(res, <Py_ssize_t>i, item)
                off += b.m[i].n + (16 if seal else 0)
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
            off = 0
            for i in range(count):
                dst = <uint8_t*>ob.ptr + off
                if b.m[i].ok:
                    memcpy(dst, priv + off, b.m[i].n)
                else:
                    memset(dst, 0, b.m[i].n)
                    res[i] = None
                off += b.m[i].n
            return res
        for i in range(count):
            if not b.m[i].ok:
                if strict:
                    for off in range(count):
                        wipe(b.m[off].dst, b.m[off].n)
                    batch_failed(&b)
                res[i] = None
        return res
    finally:
        if priv != NULL:
            wipe(priv, total)
            PyMem_Free(priv)
        put_buf(&ob)
        batch_release(&b)


# ---------------------------------------------------------------------------
# The multi-key form (poly1305x.aead.encrypt_many and friends)
# ---------------------------------------------------------------------------

def encrypt_many(keys, nonces, data, associated_data):
    """One message per key: ``keys[i]`` is a 32-byte ChaCha20Poly1305 key (with
    a 12-byte nonce) or a ChaCha20Poly1305 / XChaCha20Poly1305 object (with
    its nonce length).  Returns the list of ciphertext || tag."""
    return batch_call(None, keys, nonces, data, associated_data, None, True, True)


def decrypt_many(keys, nonces, data, associated_data, *, strict=True):
    """The inverse of encrypt_many; InvalidTag (strict) or None slots."""
    return batch_call(None, keys, nonces, data, associated_data, None, False, strict)


def encrypt_many_into(keys, nonces, data, associated_data, buf):
    """encrypt_many into one buffer; returns the offset of each message."""
    return batch_call(None, keys, nonces, data, associated_data, buf, True, True)


def decrypt_many_into(keys, nonces, data, associated_data, buf, *, strict=True):
    """decrypt_many into one buffer; returns the offset of each plaintext."""
    return batch_call(None, keys, nonces, data, associated_data, buf, False, strict)
