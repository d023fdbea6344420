# Included by _engine.pyx: borrowing buffers, and the life-cycle word that every
# engine object carries (initialised once, busy during a call, fork-safe).

# ---------------------------------------------------------------------------
# Failure codes.  The core raises only the shared buffer errors below and
# InvalidTag; a check it makes on a face's behalf is returned as one of these
# (with the number the message names in fail_t.n), and each face words it.
# ---------------------------------------------------------------------------

cdef enum:
    FAIL_NONE = 0
    FAIL_NONCE_LEN = 1     # n: the nonce length the key takes
    FAIL_TOO_LONG = 2      # the input is past one message's key stream
    FAIL_NOT_WRITABLE = 3  # the output buffer is not writable
    FAIL_OUT_LEN = 4       # n: the output length the call needs
    FAIL_NEGATIVE = 5      # a seek below 0
    FAIL_PAST_END = 6      # a seek past the key stream's end
    FAIL_FINISHED = 7      # a MAC that already made its tag


cdef struct fail_t:
    int code
    size_t n


# ---------------------------------------------------------------------------
# Buffers
# ---------------------------------------------------------------------------

cdef enum:
    REFUSED_OTHER = 0
    REFUSED_STRIDED = 1
    REFUSED_READONLY = 2


cdef int refusal(object obj, bint writable) except -1:
    """After a refused buffer request: why.  REFUSED_READONLY when a writable
    buffer was asked for and this one is read-only; REFUSED_STRIDED when the
    buffer exists but is not C-contiguous; else REFUSED_OTHER."""
    cdef Py_buffer view
    cdef int why = REFUSED_OTHER
    try:
        PyObject_GetBuffer(obj, &view, PyBUF_FULL_RO)
    except (BufferError, ValueError):
        return REFUSED_OTHER
    if writable and view.readonly:
        why = REFUSED_READONLY
    elif not PyBuffer_IsContiguous(&view, b'C'):
        why = REFUSED_STRIDED
    PyBuffer_Release(&view)
    return why


cdef int get_buf(object obj, buf_t* b, bint writable=False) except -1:
    """Borrow obj's bytes: bytes directly, else any C-contiguous buffer.
    The one place the exception classes of a refused buffer are decided, the
    same for memoryviews, numpy arrays and any other exporter, and the same
    for every face (both peers agree):

    * str, a non-buffer: TypeError;
    * (with writable) a read-only buffer: TypeError (cryptography and
      pycryptodome both raise it for a read-only output);
    * a non-contiguous buffer: NotContiguousError, a BufferError (what
      cryptography raises) and a TypeError (what pycryptodome raises).

    numpy refuses such requests with ValueError, memoryview with BufferError:
    both are classified here, so neither reaches the caller as such (a
    ValueError would look like InvalidTag, which is one)."""
    cdef int flags = PyBUF_SIMPLE
    cdef int why
    if not writable and PyBytes_CheckExact(obj):
        b.ptr = <const uint8_t*>PyBytes_AS_STRING(obj)
        b.len = <size_t>PyBytes_GET_SIZE(obj)
        b.held = False
        return 0
    if isinstance(obj, str):
        raise TypeError("expected a bytes-like object, not str (encode it first)")
    if writable:
        flags = PyBUF_WRITABLE
    try:
        PyObject_GetBuffer(obj, &b.view, flags)
    except (BufferError, ValueError) as exc:
        why = refusal(obj, writable)
        if why == REFUSED_STRIDED:
            raise NotContiguousError(f"expected a C-contiguous bytes-like object: {exc}") from None
        if why == REFUSED_READONLY or isinstance(exc, BufferError):
            raise TypeError(f"expected a C-contiguous, {'writable ' if writable else ''}"
                            f"bytes-like object: {exc}") from None
        raise       # a ValueError that is not about the layout (a released memoryview)
    b.ptr = <const uint8_t*>b.view.buf
    b.len = <size_t>b.view.len
    b.held = True
    return 0


cdef void put_buf(buf_t* b) noexcept:
    if b.held:
        PyBuffer_Release(&b.view)
        b.held = False


cdef int get_fixed(object obj, buf_t* b, size_t n, str what) except -1:
    get_buf(obj, b)
    if b.len != n:
        put_buf(b)
        raise ValueError(what)
    return 0


cdef int get_nonce(object obj, buf_t* b) except -1:
    """Borrow a nonce of the pycryptodome faces: a bytes-like object, or what
    ``bytes()`` turns into bytes (a list of ints, a strided memoryview), as
    pycryptodome takes it.  str and integers are a TypeError."""
    cdef object copy
    if PyBytes_CheckExact(obj):
        return get_buf(obj, b)
    try:
        return get_buf(obj, b)
    except TypeError:               # not a buffer, or not a contiguous one
        if isinstance(obj, str):
            raise
        if PyIndex_Check(obj):      # bytes(12) would be 12 zero bytes
            raise TypeError(f"nonce must be bytes-like, not {type(obj).__name__}") from None
    copy = bytes(obj)               # TypeError/ValueError for what bytes() refuses
    PyObject_GetBuffer(copy, &b.view, PyBUF_SIMPLE)   # the view holds the copy
    b.ptr = <const uint8_t*>b.view.buf
    b.len = <size_t>b.view.len
    b.held = True
    return 0


cdef object new_bytes(size_t n, uint8_t** out):
    cdef object r = PyBytes_FromStringAndSize(NULL, <Py_ssize_t>n)
    out[0] = <uint8_t*>PyBytes_AS_STRING(r)
    return r


cdef int writable_output(object output, buf_t* ob, size_t n) except -1:
    """Borrow a caller's output buffer, writable and exactly n bytes long: 0,
    or FAIL_NOT_WRITABLE / FAIL_OUT_LEN (nothing borrowed) for the face to
    word (a non-contiguous buffer raises here, as get_buf does)."""
    try:
        get_buf(output, ob, True)
    except BufferError:
        raise
    except TypeError:
        return FAIL_NOT_WRITABLE
    if ob.len != n:
        put_buf(ob)
        return FAIL_OUT_LEN
    return 0


cdef inline bint overlaps(const uint8_t* a, const uint8_t* b, size_t n) noexcept nogil:
    """Partial overlap (not the exact in-place case)."""
    return a != b and a < b + n and b < a + n


cdef bint tag_matches(object tag, const uint8_t* mine) except -1:
    """Whether the caller's tag (any bytes-like object) is the 16 bytes at
    mine, compared in constant time; a wrong length is simply no match."""
    cdef buf_t b
    cdef bint ok
    get_buf(tag, &b)
    ok = b.len == 16 and tags_equal(b.ptr, mine, 16)
    put_buf(&b)
    return ok


# ---------------------------------------------------------------------------
# Object life cycle: one atomic word per object
#   ST_UNINIT        made by __cinit__ (C.__new__(C), or a subclass whose
#                    __init__ skipped super().__init__()): every method refuses
#   ST_INITIALISING  inside the one __init__ that may run
#   0                ready and idle
#   g > 0            inside a call of generation g (stateful objects only)
# Compare-and-swap on the word makes "is it free? take it" one step, with or
# without a GIL.  The generation moves on in a child after fork(): a call that
# another thread of the parent was making is not running in the child, and its
# flag (an older generation) counts as free there.
# ---------------------------------------------------------------------------

cdef enum:
    ST_UNINIT = -1
    ST_INITIALISING = -2

cdef long generation = 1


def _after_fork_in_child():
    global generation
    generation += 1


cdef int refuse(long state, object obj) except -1:
    name = type(obj).__name__
    if state == ST_UNINIT:
        raise RuntimeError(f"this {name} object is not initialised: its __init__ was not "
                           "called (a subclass's __init__ must call super().__init__())")
    if state == ST_INITIALISING:
        raise RuntimeError(f"this {name} object is being initialised by another thread")
    raise RuntimeError(f"this {name} object is being used by another thread "
                       "(use one object per thread, or a lock)")


cdef int init_begin(p1305x_word* w, object obj) except -1:
    """Start the object's only __init__: keys and states are set once."""
    cdef long cur = ST_UNINIT
    if not p1305x_cas(w, &cur, ST_INITIALISING):
        if cur == ST_INITIALISING:
            refuse(cur, obj)
        raise RuntimeError(f"this {type(obj).__name__} object is already initialised: "
                           "__init__ cannot run twice (create a new object)")
    return 0


cdef inline void init_end(p1305x_word* w, bint ok) noexcept nogil:
    p1305x_store(w, 0 if ok else ST_UNINIT)


cdef inline int check_ready(p1305x_word* w, object obj) except -1:
    """For objects without per-call state: refuse one that was never initialised."""
    cdef long cur = p1305x_load(w)
    if cur < 0:
        refuse(cur, obj)
    return 0


cdef inline int enter(p1305x_word* w, object obj) except -1:
    """Take a stateful object for one call, or raise if it is not initialised
    or another thread is inside a call on it.  Taken before any check or
    change of state; leave() gives it back."""
    cdef long cur = 0
    if p1305x_cas(w, &cur, generation):
        return 0
    while cur > 0 and cur != generation:      # left by a thread of the parent process
        if p1305x_cas(w, &cur, generation):
            return 0
    refuse(cur, obj)
    return -1


cdef inline void leave(p1305x_word* w) noexcept nogil:
    p1305x_store(w, 0)


cdef str backend_name(const kernel_table* k, p1305x_word* w, object obj):
    check_ready(w, obj)
    return (<bytes>k.name).decode()
