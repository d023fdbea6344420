# Included by _engine.pyx (after _batch.pxi): the batch's inputs below the
# face (_face_batch.pxi checks the arguments and fills the message table
# through these): where the table lives (the C stack, or one work block, the
# last one cached), the buffers and references it holds while it runs
# (released by batch_release, also after an error), and the private copies
# of inputs that overlap a sealing _into call's output.

cdef extern from "Python.h":
    void Py_XDECREF(PyObject* o)
    void Py_INCREF(object o)
    object PyList_New(Py_ssize_t n)
    void PyList_SET_ITEM(object l, Py_ssize_t i, object o)


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
    marked not held by batch_slot when first used); the cached block when it
    is free and big enough."""
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


cdef inline void batch_start(batch_t* b, size_t count, bmsg_t* m, buf_t* bufs,
                             size_t* order) noexcept:
    """An empty table (b.count 0, nothing held); with count <= SMALL_BATCH it
    is the caller's stack arrays m, bufs and order (messages zeroed), else
    batch_alloc makes it."""
    b.count = 0
    b.cached = False
    b.block = NULL
    b.held_any = False
    b.m = NULL
    b.bufs = NULL
    b.order = NULL
    if count <= SMALL_BATCH:
        memset(m, 0, count * sizeof(bmsg_t))
        b.m = m
        b.bufs = bufs
        b.order = order
        b.count = count


cdef inline buf_t* batch_slot(batch_t* b, size_t i, int slot) noexcept:
    """The buf_t of item slot of message i.  The buffers are marked not held
    the first time one is needed (b.held_any): a batch of bytes never touches
    them."""
    cdef size_t j
    if not b.held_any:
        for j in range(4 * b.count):
            b.bufs[j].held = False
        b.held_any = True
    return &batch_bufs(b, i)[slot]


cdef inline void batch_hold(bmsg_t* m, int slot, object item) noexcept:
    """Keep a reference to an item the batch reads (released by batch_release)."""
    Py_INCREF(item)
    m.refs[slot] = <PyObject*>item


cdef inline bint ranges_meet(const uint8_t* a, size_t na, const uint8_t* b,
                             size_t nb) noexcept nogil:
    return na != 0 and nb != 0 and a < b + nb and b < a + na


cdef int batch_snapshot(batch_t* b, const uint8_t* lo, size_t size, list keep) except -1:
    """A sealing _into: private copies of the inputs that overlap the
    caller's output buffer [lo, lo + size), so that writing it cannot change
    what is read.  (An opening writes the buffer only after every input was
    read: batch_deliver.)"""
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


# ---------------------------------------------------------------------------
# The outputs: fresh bytes objects, or places in the caller's buffer (an
# opening's first in a private area, then delivered under the bad-tag rule)
# ---------------------------------------------------------------------------

cdef list batch_outputs(batch_t* b, bint seal):
    """A new bytes object for each message's output (ct || tag, or the
    plaintext), as the list returned."""
    cdef list res = PyList_New(<Py_ssize_t>b.count)
    cdef object item
    cdef size_t i
    for i in range(b.count):
        item = new_bytes(b.m[i].n + (16 if seal else 0), &b.m[i].dst)
        Py_INCREF(item)
        PyList_SET_ITEM(res, <Py_ssize_t>i, item)
    return res


cdef list batch_offsets(batch_t* b, uint8_t* dst, bint seal):
    """The outputs back to back from dst; their offsets, as the list returned."""
    cdef list res = PyList_New(<Py_ssize_t>b.count)
    cdef object item
    cdef size_t i, off = 0
    for i in range(b.count):
        b.m[i].dst = dst + off
        item = off
        Py_INCREF(item)
        PyList_SET_ITEM(res, <Py_ssize_t>i, item)
        off += b.m[i].n + (16 if seal else 0)
    return res


cdef int batch_deliver(batch_t* b, uint8_t* out, const uint8_t* priv, list res) except -1:
    """An opening _into (the bad-tag rule of _aead.pxi): the plaintexts that
    checked out from the private area priv into the caller's buffer out;
    zeros (and None in res) for the rest."""
    cdef size_t i, off = 0
    for i in range(b.count):
        if b.m[i].ok:
            memcpy(out + off, priv + off, b.m[i].n)
        else:
            memset(out + off, 0, b.m[i].n)
            res[i] = None
        off += b.m[i].n
    return 0


cdef void batch_wipe_outputs(batch_t* b) noexcept:
    """Zero every output (a strict opening with a bad tag)."""
    cdef size_t i
    for i in range(b.count):
        wipe(b.m[i].dst, b.m[i].n)
