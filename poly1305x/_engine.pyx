# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Engine: the state-holding objects and one-shot functions over the kernels.

Everything here is built without ISA flags and reaches the kernels only through
the kernel_table that the dispatcher selected when the object (or call) began.
The public faces (Poly1305.py, mac.py, ChaCha20.py, ChaCha20_Poly1305.py,
aead.py) are thin layers over these classes.

Buffers are read with PyObject_GetBuffer (a bytes fast path first): a typed
memoryview argument would cost ~75 ns a call.  The GIL is released for inputs
of GIL_THRESHOLD bytes or more, with the buffers held for the whole call.
"""
from cpython.buffer cimport (
    PyBUF_FULL_RO, PyBUF_SIMPLE, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer,
)
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from poly1305x._dispatch cimport active_kernels
from poly1305x._kernels._common cimport (
    chacha20_init_state, hchacha20, poly1305_finish, poly1305_init, tags_equal, wipe,
)
from poly1305x._kernels._kernel cimport kernel_table, poly1305_state
from poly1305x._util cimport load32_le, store64_le

from os import urandom

from poly1305x._errors import (
    AlreadyFinalized, InvalidSignature, InvalidTag, MessageTooLongError, NotContiguousError,
)

cdef extern from "Python.h":
    bint PyBytes_CheckExact(object o)
    bint PyIndex_Check(object o)

cdef size_t GIL_THRESHOLD = 4096
# Encrypt-then-MAC in slices this big, so the MAC reads what the cipher just
# wrote while it is still in L1/L2.
cdef size_t SLICE = 16384


# ---------------------------------------------------------------------------
# Buffers
# ---------------------------------------------------------------------------

cdef int get_buf(object obj, buf_t* b, bint writable=False) except -1:
    """Borrow obj's bytes: bytes directly, else any C-contiguous buffer.
    str, a non-buffer and (with writable) a read-only buffer are a TypeError;
    a non-contiguous buffer is a NotContiguousError (a BufferError, as the
    peers raise, and a TypeError)."""
    cdef int flags = PyBUF_SIMPLE
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
    except BufferError as exc:
        if buffer_is_strided(obj, writable):
            raise NotContiguousError(f"expected a C-contiguous bytes-like object: {exc}") from None
        raise TypeError(f"expected a C-contiguous, {'writable ' if writable else ''}"
                        f"bytes-like object: {exc}") from None
    b.ptr = <const uint8_t*>b.view.buf
    b.len = <size_t>b.view.len
    b.held = True
    return 0


cdef bint buffer_is_strided(object obj, bint writable) except -1:
    """After a refused buffer request: whether contiguity was the reason (the
    buffer exists, and is writable when that was asked for)."""
    cdef Py_buffer view
    cdef bint ok
    try:
        PyObject_GetBuffer(obj, &view, PyBUF_FULL_RO)
    except BufferError:
        return False
    ok = not (writable and view.readonly)
    PyBuffer_Release(&view)
    return ok


cdef void put_buf(buf_t* b) noexcept:
    if b.held:
        PyBuffer_Release(&b.view)
        b.held = False


cdef int enter(bint* busy, object obj) except -1:
    """Mark a stateful object in use for a call that may release the GIL, or
    raise if another thread is inside such a call on it.  Check and set run
    under the GIL with no Python code between them, so they are atomic."""
    if busy[0]:
        raise RuntimeError(f"this {type(obj).__name__} object is being used by another "
                           "thread (use one object per thread, or a lock)")
    busy[0] = True
    return 0


cdef int check_idle(bint busy, object obj) except -1:
    """For calls that never release the GIL: refuse to touch the state while
    another thread's call on the object has released it."""
    if busy:
        raise RuntimeError(f"this {type(obj).__name__} object is being used by another "
                           "thread (use one object per thread, or a lock)")
    return 0


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


# ---------------------------------------------------------------------------
# Poly1305 streaming state (nogil core)
# Whole blocks are absorbed straight from the caller's buffer; only a partial
# block (0-15 bytes) is ever copied into buf.
# ---------------------------------------------------------------------------

cdef void mac_init(mac_t* c, const kernel_table* k, const uint8_t* r16,
                          const uint8_t* s16) noexcept nogil:
    c.k = k
    c.buflen = 0
    poly1305_init(&c.st, r16, s16)


cdef void mac_update(mac_t* c, const uint8_t* p, size_t n) noexcept nogil:
    cdef size_t take, nb
    if c.buflen:
        take = 16 - c.buflen
        if take > n:
            take = n
        memcpy(c.buf + c.buflen, p, take)
        c.buflen += take
        p += take
        n -= take
        if c.buflen < 16:
            return
        c.k.poly1305_blocks(&c.st, c.buf, 1, 1)
        c.buflen = 0
    nb = n >> 4
    if nb:
        c.k.poly1305_blocks(&c.st, p, nb, 1)
        p += nb << 4
        n -= nb << 4
    if n:
        memcpy(c.buf, p, n)
        c.buflen = n


cdef void mac_pad16(mac_t* c) noexcept nogil:
    """Zero-fill to a block boundary (the AEAD padding), absorbing it as a full block."""
    if c.buflen:
        memset(c.buf + c.buflen, 0, 16 - c.buflen)
        c.k.poly1305_blocks(&c.st, c.buf, 1, 1)
        c.buflen = 0


cdef void mac_final(mac_t* c, uint8_t* tag) noexcept nogil:
    if c.buflen:
        c.buf[c.buflen] = 1
        memset(c.buf + c.buflen + 1, 0, 15 - c.buflen)
        c.k.poly1305_blocks(&c.st, c.buf, 1, 0)
        c.buflen = 0
    poly1305_finish(&c.st, tag)


cdef void mac_wipe(mac_t* c) noexcept nogil:
    """Zero the key, accumulator and buffer, and the powers of r if a vector
    kernel computed them (skipping 1 KiB of zeros on short one-shot calls)."""
    if c.st.powers_ready:
        wipe(c.st.powers, sizeof(c.st.powers))
    wipe(c.st.h, sizeof(c.st.h) + sizeof(c.st.r) + sizeof(c.st.s))
    wipe(c.buf, 16)


cdef void mac_oneshot(const kernel_table* k, const uint8_t* key32, const uint8_t* p,
                      size_t n, uint8_t* tag) noexcept nogil:
    cdef mac_t c
    mac_init(&c, k, key32, key32 + 16)
    mac_update(&c, p, n)
    mac_final(&c, tag)
    mac_wipe(&c)


cdef bytes oneshot_tag(object key, object data):
    cdef buf_t kb, db
    cdef uint8_t tag[16]
    cdef const kernel_table* k = active_kernels()
    get_fixed(key, &kb, 32, "A poly1305 key is 32 bytes long")
    try:
        get_buf(data, &db)
        try:
            if db.len >= GIL_THRESHOLD:
                with nogil:
                    mac_oneshot(k, kb.ptr, db.ptr, db.len, tag)
            else:
                mac_oneshot(k, kb.ptr, db.ptr, db.len, tag)
        finally:
            put_buf(&db)
    finally:
        put_buf(&kb)
    return PyBytes_FromStringAndSize(<char*>tag, 16)


cdef class _MacBase:
    """A Poly1305 state plus the backend it was created on."""
    cdef mac_t c
    cdef bint done
    cdef bint busy             # a call on another thread has released the GIL
    cdef uint8_t tag[16]

    cdef int _absorb(self, object data) except -1:
        cdef buf_t b
        enter(&self.busy, self)
        b.held = False
        try:
            get_buf(data, &b)
            if b.len >= GIL_THRESHOLD:
                with nogil:
                    mac_update(&self.c, b.ptr, b.len)
            else:
                mac_update(&self.c, b.ptr, b.len)
        finally:
            put_buf(&b)
            self.busy = False
        return 0

    cdef bytes _tag(self):
        if not self.done:
            check_idle(self.busy, self)
            mac_final(&self.c, self.tag)
            self.done = True
            mac_wipe(&self.c)      # r, s, the accumulator and the powers of r
        return PyBytes_FromStringAndSize(<char*>self.tag, 16)

    cdef bint _equal(self, object tag) except -1:
        """Whether ``tag`` is the tag.  ``tag`` is read before the state is
        finished, so a wrong type (TypeError) leaves the object usable."""
        cdef buf_t b
        cdef bytes mine
        get_buf(tag, &b)
        try:
            mine = self._tag()
            if b.len != 16:
                return False
            return tags_equal(b.ptr, <const uint8_t*>PyBytes_AS_STRING(mine), 16)
        finally:
            put_buf(&b)

    def __dealloc__(self):
        mac_wipe(&self.c)

    @property
    def backend(self):
        """Name of the backend this object computes with."""
        return (<bytes>self.c.k.name).decode()


cdef class Poly1305(_MacBase):
    """Poly1305(key): a one-time-key MAC in ``cryptography``'s shape.

    The 32-byte key must never authenticate two different messages."""

    def __init__(self, key):
        cdef buf_t kb
        get_fixed(key, &kb, 32, "A poly1305 key is 32 bytes long")
        mac_init(&self.c, active_kernels(), kb.ptr, kb.ptr + 16)
        put_buf(&kb)
        self.done = False

    def update(self, data):
        """Absorb the next piece of the message (any bytes-like object)."""
        if self.done:
            raise AlreadyFinalized("Context was already finalized.")
        self._absorb(data)

    def finalize(self):
        """Return the 16-byte tag; the object cannot be used afterwards."""
        if self.done:
            raise AlreadyFinalized("Context was already finalized.")
        return self._tag()

    def verify(self, signature):
        """Raise InvalidSignature unless ``signature`` is the message's tag
        (compared in constant time).  A ``signature`` of a wrong type is a
        TypeError that leaves the object usable, as in cryptography."""
        if self.done:
            raise AlreadyFinalized("Context was already finalized.")
        if not self._equal(signature):
            raise InvalidSignature("Value did not match computed tag.")

    @staticmethod
    def generate_tag(key, data):
        """The tag of ``data`` under the 32-byte one-time ``key``, in one call."""
        return oneshot_tag(key, data)

    @staticmethod
    def verify_tag(key, data, tag):
        """Raise InvalidSignature unless ``tag`` is the tag of ``data``."""
        cdef bytes mine = oneshot_tag(key, data)
        cdef buf_t b
        cdef bint ok
        get_buf(tag, &b)
        ok = b.len == 16 and tags_equal(b.ptr, <const uint8_t*>PyBytes_AS_STRING(mine), 16)
        put_buf(&b)
        if not ok:
            raise InvalidSignature("Value did not match computed tag.")


cdef class Poly1305_MAC(_MacBase):
    """A Poly1305 MAC object in pycryptodome's shape (``Crypto.Hash.Poly1305``).
    Create it with :func:`poly1305x.Poly1305.new`.

    :ivar digest_size: the size in bytes of the resulting MAC tag
    :ivar nonce: the nonce the key pair was derived with"""
    digest_size = 16
    cdef public object nonce
    cdef object __weakref__

    def __init__(self, r, s, data):
        cdef buf_t rb, sb
        get_fixed(r, &rb, 16, "Parameter r is not 16 bytes long")
        try:
            get_fixed(s, &sb, 16, "Parameter s is not 16 bytes long")
        except BaseException:
            put_buf(&rb)
            raise
        mac_init(&self.c, active_kernels(), rb.ptr, sb.ptr)
        put_buf(&rb)
        put_buf(&sb)
        self.done = False
        self.nonce = None
        if data:
            self._absorb(data)

    def update(self, data):
        """Authenticate the next chunk of message; returns self."""
        if self.done:
            raise TypeError("You can only call 'digest' or 'hexdigest' on this object")
        self._absorb(data)
        return self

    def copy(self):
        raise NotImplementedError()

    def digest(self):
        """Return the binary (16-byte) MAC tag of the message so far."""
        return self._tag()

    def hexdigest(self):
        """Return the MAC tag as a hexadecimal string."""
        return self._tag().hex()

    def verify(self, mac_tag):
        """Raise ValueError("MAC check failed") unless ``mac_tag`` matches
        (constant-time comparison)."""
        self._tag()                # finished first, whatever mac_tag is (as pycryptodome)
        if not self._equal(mac_tag):
            raise ValueError("MAC check failed")

    def hexverify(self, hex_mac_tag):
        """Like verify(), for a hexadecimal tag."""
        from binascii import unhexlify
        if isinstance(hex_mac_tag, str):
            hex_mac_tag = hex_mac_tag.encode("latin-1")
        self.verify(unhexlify(hex_mac_tag))


# ---------------------------------------------------------------------------
# ChaCha20 key stream with position (nogil core)
# `used` counts the blocks whose key stream has been generated; the unused tail
# of the last one waits in ks[ks_off:64].  The counter words are rewritten from
# `used` before every kernel call, so a kernel's 64-bit carry into word 13
# (which holds nonce for the 96-bit-nonce layout) never sticks.
# ---------------------------------------------------------------------------

cdef void stream_init(stream_t* s, const kernel_table* k, const uint8_t* key32,
                      const uint8_t* nonce, size_t nonce_len) noexcept nogil:
    """nonce_len 8: 64-bit block counter; 12: 32-bit block counter (RFC 8439)."""
    s.k = k
    chacha20_init_state(s.st, key32, nonce, nonce_len, 0)
    s.ctr64 = nonce_len == 8
    s.w13 = s.st[13]
    s.last = <uint64_t>0xFFFFFFFFFFFFFFFF if s.ctr64 else <uint64_t>0xFFFFFFFF
    s.used = 0
    s.ks_off = 64
    s.spent = False


cdef inline void stream_set_ctr(stream_t* s, uint64_t block) noexcept nogil:
    s.st[12] = <uint32_t>block
    s.st[13] = <uint32_t>(block >> 32) if s.ctr64 else s.w13


cdef bint stream_can(stream_t* s, size_t n) noexcept nogil:
    """Whether n more bytes of key stream exist for this nonce."""
    cdef size_t left = 64 - s.ks_off
    cdef uint64_t need
    if n <= left:
        return True
    need = ((<uint64_t>(n - left)) + 63) >> 6
    if s.spent:                   # every block already used
        return False
    return need - 1 <= s.last - s.used


cdef inline void stream_advance(stream_t* s, uint64_t nb) noexcept nogil:
    """Count nb generated blocks; `used` may wrap to 0 after the 2^64th block
    of the 64-bit-counter variant, so exhaustion is kept in `spent`."""
    if s.used + (nb - 1) == s.last:
        s.spent = True
    s.used += nb


cdef void stream_xor(stream_t* s, const uint8_t* src, uint8_t* dst, size_t n) noexcept nogil:
    """dst = src ^ key stream (src may equal dst).  The caller checked stream_can."""
    cdef size_t i, take, nb
    if s.ks_off < 64:
        take = 64 - s.ks_off
        if take > n:
            take = n
        for i in range(take):
            dst[i] = src[i] ^ s.ks[s.ks_off + i]
        s.ks_off += <uint32_t>take
        src += take
        dst += take
        n -= take
    nb = n >> 6
    if nb:
        stream_set_ctr(s, s.used)
        s.k.chacha20_xor(s.st, src, dst, nb)
        stream_advance(s, nb)
        src += nb << 6
        dst += nb << 6
        n -= nb << 6
    if n:
        stream_set_ctr(s, s.used)
        s.k.chacha20_xor(s.st, NULL, s.ks, 1)
        stream_advance(s, 1)
        for i in range(n):
            dst[i] = src[i] ^ s.ks[i]
        s.ks_off = <uint32_t>n


cdef void stream_seek(stream_t* s, uint64_t block, uint32_t offset) noexcept nogil:
    s.used = block
    s.ks_off = 64
    s.spent = False
    if offset:
        stream_set_ctr(s, block)
        s.k.chacha20_xor(s.st, NULL, s.ks, 1)
        stream_advance(s, 1)
        s.ks_off = offset


cdef int xchacha_subkey(const uint8_t* key32, const uint8_t* nonce24, uint8_t* subkey,
                        uint8_t* nonce12) except -1 nogil:
    """XChaCha20: subkey = HChaCha20(key, nonce[0:16]); nonce = 0^4 || nonce[16:24]."""
    hchacha20(key32, nonce24, subkey)
    memset(nonce12, 0, 4)
    memcpy(nonce12 + 4, nonce24 + 16, 8)
    return 0


cdef class _Output:
    """Where a call's result goes: a new bytes object, or the caller's buffer."""
    cdef object obj
    cdef buf_t b
    cdef uint8_t* ptr

    def __dealloc__(self):
        put_buf(&self.b)


cdef object new_bytes(size_t n, uint8_t** out):
    cdef object r = PyBytes_FromStringAndSize(NULL, <Py_ssize_t>n)
    out[0] = <uint8_t*>PyBytes_AS_STRING(r)
    return r


cdef int writable_output(object output, buf_t* ob, size_t n, str what_len) except -1:
    """Borrow a caller's output buffer: writable and exactly n bytes long."""
    try:
        get_buf(output, ob, True)
    except BufferError:
        raise
    except TypeError:
        raise TypeError("output must be a bytearray or a writeable memoryview") from None
    if ob.len != n:
        put_buf(ob)
        raise ValueError(what_len % n)
    return 0


cdef inline bint overlaps(const uint8_t* a, const uint8_t* b, size_t n) noexcept nogil:
    """Partial overlap (not the exact in-place case)."""
    return a != b and a < b + n and b < a + n


def _threads_param(threads):
    import os
    if not isinstance(threads, int) or isinstance(threads, bool):
        raise TypeError("threads must be an integer")
    if threads < 0:
        raise ValueError("threads must be a non-negative integer")
    if threads == 0:
        try:
            threads = len(os.sched_getaffinity(0))
        except AttributeError:
            threads = os.cpu_count() or 1
    return threads


cdef size_t MIN_BYTES_PER_THREAD = 1 << 20


cdef void xor_blocks_at(stream_t* s, const uint8_t* src, uint8_t* dst, uint64_t first,
                        size_t nblocks) noexcept nogil:
    """Key-stream blocks first.. into src->dst on a private copy of the state:
    safe to run from several threads at once."""
    cdef uint32_t st[16]
    memcpy(st, s.st, 64)
    st[12] = <uint32_t>first
    st[13] = <uint32_t>(first >> 32) if s.ctr64 else s.w13
    s.k.chacha20_xor(st, src, dst, nblocks)
    wipe(st, 64)


cdef class ChaCha20Cipher:
    """ChaCha20 or XChaCha20 cipher object, in pycryptodome's shape
    (``Crypto.Cipher.ChaCha20``).  Create it with :func:`poly1305x.ChaCha20.new`.

    :ivar nonce: the 8-, 12- or 24-byte nonce"""
    block_size = 1
    cdef object __weakref__
    cdef stream_t s
    cdef bint busy             # a call on another thread has released the GIL
    cdef int next_ops          # 1: encrypt allowed, 2: decrypt allowed
    cdef public object nonce
    cdef readonly str _name
    cdef readonly int _threads
    cdef size_t _min_bytes     # each thread takes at least this many bytes

    def __init__(self, key, nonce, threads=1, min_bytes_per_thread=None):
        cdef buf_t kb, nb
        cdef uint8_t subkey[32]
        cdef uint8_t n12[12]
        self._threads = _threads_param(threads)
        self._min_bytes = MIN_BYTES_PER_THREAD if min_bytes_per_thread is None \
            else max(1, min_bytes_per_thread)
        get_buf(key, &kb)
        try:
            get_nonce(nonce, &nb)
            try:
                if kb.len != 32:
                    raise ValueError("ChaCha20/XChaCha20 key must be 32 bytes long")
                if nb.len not in (8, 12, 24):
                    raise ValueError("Nonce must be 8/12 bytes(ChaCha20) or 24 bytes (XChaCha20)")
                self.nonce = PyBytes_FromStringAndSize(<char*>nb.ptr, nb.len)
                if nb.len == 24:
                    xchacha_subkey(kb.ptr, nb.ptr, subkey, n12)
                    stream_init(&self.s, active_kernels(), subkey, n12, 12)
                    wipe(subkey, 32)
                    self._name = "XChaCha20"
                else:
                    stream_init(&self.s, active_kernels(), kb.ptr, nb.ptr, nb.len)
                    self._name = "ChaCha20"
            finally:
                put_buf(&nb)
        finally:
            put_buf(&kb)
        self.next_ops = 3

    def __dealloc__(self):
        wipe(&self.s, sizeof(stream_t))

    @property
    def backend(self):
        """Name of the backend this object computes with."""
        return (<bytes>self.s.k.name).decode()

    def encrypt(self, plaintext, output=None):
        """Encrypt a piece of data; returns bytes, or None when ``output``
        (a writable buffer of the same length) receives the ciphertext."""
        if not self.next_ops & 1:
            raise TypeError("Cipher object can only be used for decryption")
        self.next_ops = 1
        return self._xor(plaintext, output)

    def decrypt(self, ciphertext, output=None):
        """Decrypt a piece of data; returns bytes, or None when ``output``
        receives the plaintext."""
        if not self.next_ops & 2:
            raise TypeError("Cipher object can only be used for encryption")
        self.next_ops = 2
        return self._xor(ciphertext, output)

    cdef object _xor(self, data, output):
        cdef buf_t ib, ob
        cdef uint8_t* dst
        cdef object result = None
        cdef object tmp = None
        cdef const uint8_t* src
        enter(&self.busy, self)
        ib.held = ob.held = False
        try:
            get_buf(data, &ib)
            # before allocating the output: 2^38 bytes is this error, not MemoryError
            if not stream_can(&self.s, ib.len):
                raise MessageTooLongError(
                    "The key stream of %s is exhausted for this nonce" % self._name)
            if output is None:
                result = new_bytes(ib.len, &dst)
            else:
                writable_output(output, &ob, ib.len,
                                "output must have the same length as the input  (%d bytes)")
                dst = <uint8_t*>ob.ptr
            src = ib.ptr
            if overlaps(src, dst, ib.len):
                tmp = PyBytes_FromStringAndSize(<char*>src, ib.len)
                src = <const uint8_t*>PyBytes_AS_STRING(tmp)
            if self._threads > 1 and ib.len >= 2 * self._min_bytes:
                self._threaded(src, dst, ib.len)
            elif ib.len >= GIL_THRESHOLD:
                with nogil:
                    stream_xor(&self.s, src, dst, ib.len)
            else:
                stream_xor(&self.s, src, dst, ib.len)
        finally:
            put_buf(&ob)
            put_buf(&ib)
            self.busy = False
        return result

    cdef int _threaded(self, const uint8_t* src, uint8_t* dst, size_t n) except -1:
        import threading
        cdef size_t head = 64 - self.s.ks_off if self.s.ks_off < 64 else 0
        cdef size_t nthreads, nblocks, per, i, start, count
        cdef uint64_t first
        if head > n:
            head = n
        stream_xor(&self.s, src, dst, head)
        src += head
        dst += head
        n -= head
        nblocks = n >> 6
        nthreads = min(<size_t>self._threads, n // self._min_bytes)
        if nthreads < 1:
            nthreads = 1
        per = (nblocks + nthreads - 1) // nthreads
        first = self.s.used
        workers = []
        for i in range(1, nthreads):
            start = i * per
            if start >= nblocks:
                break
            count = min(per, nblocks - start)
            workers.append(threading.Thread(target=_thread_xor, args=(
                self, <size_t>(src + (start << 6)), <size_t>(dst + (start << 6)),
                first + start, count)))
        for w in workers:
            w.start()
        with nogil:
            xor_blocks_at(&self.s, src, dst, first, min(per, nblocks))
        for w in workers:
            w.join()
        self.s.used = first
        if nblocks:
            stream_advance(&self.s, nblocks)
        stream_xor(&self.s, src + (nblocks << 6), dst + (nblocks << 6), n & 63)
        return 0

    def seek(self, position):
        """Move to absolute byte ``position`` in the key stream."""
        block, offset = divmod(position, 64)
        block & 0xFFFFFFFF        # TypeError for a non-integer, as pycryptodome
        if position < 0:
            raise OverflowError("can't convert negative number to unsigned")
        if block > self.s.last:
            raise ValueError("Error 11 while seeking with %s" % self._name)
        check_idle(self.busy, self)
        stream_seek(&self.s, <uint64_t>block, <uint32_t>offset)


def _thread_xor(ChaCha20Cipher c, size_t src, size_t dst, uint64_t first, size_t count):
    with nogil:
        xor_blocks_at(&c.s, <const uint8_t*>src, <uint8_t*>dst, first, count)


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


# ---------------------------------------------------------------------------
# ChaCha20-Poly1305 (RFC 8439 section 2.8) and XChaCha20-Poly1305
# ---------------------------------------------------------------------------
cdef void mac_lengths(mac_t* c, uint64_t aad_len, uint64_t ct_len) noexcept nogil:
    cdef uint8_t lens[16]
    store64_le(lens, aad_len)
    store64_le(lens + 8, ct_len)
    mac_update(c, lens, 16)


cdef void aead_mac_begin(mac_t* c, const kernel_table* k, const uint8_t* block0,
                         const uint8_t* aad, size_t alen) noexcept nogil:
    """RFC 8439 2.8: the MAC keyed from key-stream block 0, over the padded aad."""
    mac_init(c, k, block0, block0 + 16)
    mac_update(c, aad, alen)
    mac_pad16(c)


cdef void aead_mac_end(mac_t* c, uint64_t alen, uint64_t n, uint8_t* tag) noexcept nogil:
    """Pad the ciphertext, absorb the two lengths, finish the tag."""
    mac_pad16(c)
    mac_lengths(c, alen, n)
    mac_final(c, tag)


cdef void aead_crypt(stream_t* s, mac_t* c, const uint8_t* src, uint8_t* dst, size_t n,
                     bint enc) noexcept nogil:
    """Encrypt (MAC dst) or decrypt (MAC src first) n bytes: the cipher and
    the MAC run in turn over SLICE-sized pieces, so the MAC reads what the
    cipher just wrote while it is still in cache.  (A one-pass, stitched
    kernel was tried on Zen 3 with AVX2 and lost to this; see the notes.)"""
    cdef size_t chunk
    while n:
        chunk = n if n < SLICE else SLICE
        if enc:
            stream_xor(s, src, dst, chunk)
            mac_update(c, dst, chunk)
        else:
            mac_update(c, src, chunk)
            stream_xor(s, src, dst, chunk)
        src += chunk
        dst += chunk
        n -= chunk


# Up to this many bytes, one kernel call makes the Poly1305 key block together
# with the whole key stream of the message (7 blocks + block 0 fits the 8-lane
# AVX2 batch).
cdef enum:
    SHORT_AEAD = 448


cdef void aead_seal(const kernel_table* k, const uint8_t* key32, const uint8_t* nonce12,
                    const uint8_t* aad, size_t alen, const uint8_t* pt, uint8_t* ct,
                    size_t n, uint8_t* tag) noexcept nogil:
    """ct = ChaCha20(pt) from block 1; tag over aad and ct.  pt may equal ct."""
    cdef stream_t s
    cdef mac_t c
    cdef uint8_t tmp[SHORT_AEAD + 64]
    cdef size_t i
    stream_init(&s, k, key32, nonce12, 12)
    if n <= SHORT_AEAD:
        memset(tmp, 0, 64)
        memcpy(tmp + 64, pt, n)
        k.chacha20_xor(s.st, tmp, tmp, 1 + ((n + 63) >> 6))
        aead_mac_begin(&c, k, tmp, aad, alen)   # before ct is written: aad may share its buffer
        mac_update(&c, tmp + 64, n)
        memcpy(ct, tmp + 64, n)
        wipe(tmp, 64 + n)
    else:
        k.chacha20_xor(s.st, NULL, tmp, 1)
        s.used = 1
        aead_mac_begin(&c, k, tmp, aad, alen)
        wipe(tmp, 64)
        aead_crypt(&s, &c, pt, ct, n, True)
    aead_mac_end(&c, alen, n, tag)
    wipe(&s, sizeof(stream_t))
    mac_wipe(&c)


cdef bint aead_open(const kernel_table* k, const uint8_t* key32, const uint8_t* nonce12,
                    const uint8_t* aad, size_t alen, const uint8_t* ct, uint8_t* pt,
                    size_t n, const uint8_t* tag) noexcept nogil:
    """Verify tag over aad and ct, then pt = ChaCha20(ct).  Returns 0 on a bad
    tag, and then pt holds no plaintext: a short message is never decrypted; a
    long one, decrypted slice by slice while it is MACed, is wiped."""
    cdef stream_t s
    cdef mac_t c
    cdef uint8_t tmp[SHORT_AEAD + 64]
    cdef uint8_t mine[16]
    cdef size_t i
    cdef bint ok
    stream_init(&s, k, key32, nonce12, 12)
    if n <= SHORT_AEAD:
        k.chacha20_xor(s.st, NULL, tmp, 1 + ((n + 63) >> 6))
        aead_mac_begin(&c, k, tmp, aad, alen)
        mac_update(&c, ct, n)
    else:
        k.chacha20_xor(s.st, NULL, tmp, 1)
        s.used = 1
        aead_mac_begin(&c, k, tmp, aad, alen)
        wipe(tmp, 64)
        aead_crypt(&s, &c, ct, pt, n, False)
    aead_mac_end(&c, alen, n, mine)
    ok = tags_equal(mine, tag, 16)
    if n <= SHORT_AEAD:
        if ok:
            for i in range(n):
                pt[i] = ct[i] ^ tmp[64 + i]
        wipe(tmp, 64 + n)
    elif not ok:
        wipe(pt, n)
    wipe(&s, sizeof(stream_t))
    mac_wipe(&c)
    return ok


# RFC 8439: the 32-bit block counter starts at 1, so a message has at most
# 2^32 - 1 blocks.
cdef uint64_t AEAD_MAX = (<uint64_t>0xFFFFFFFF) * 64


cdef class _AEADKey:
    """The key and methods of the cryptography-style AEAD classes; immutable
    after __init__, so one object may be used from many threads at once."""
    cdef uint8_t key[32]
    cdef const kernel_table* k
    cdef size_t nonce_len
    cdef str _keymsg

    def __dealloc__(self):
        wipe(self.key, 32)

    cdef int _set_key(self, object key, str msg) except -1:
        cdef buf_t kb
        if isinstance(key, str):
            raise TypeError("key must be bytes-like, not str")
        get_buf(key, &kb)
        try:
            if kb.len != 32:
                raise ValueError(msg)
            memcpy(self.key, kb.ptr, 32)
        finally:
            put_buf(&kb)
        self.k = active_kernels()
        return 0

    @property
    def backend(self):
        """Name of the backend this object computes with."""
        return (<bytes>self.k.name).decode()

    @classmethod
    def generate_key(cls):
        """A fresh random 32-byte key (os.urandom)."""
        import os
        return os.urandom(32)

    def encrypt(self, nonce, data, associated_data):
        """ciphertext || 16-byte tag.  ``associated_data`` may be None."""
        return seal_call(self.k, self.key, self.nonce_len, nonce, data, associated_data, None)

    def decrypt(self, nonce, data, associated_data):
        """The plaintext, or InvalidTag (and nothing else) when the tag fails."""
        return open_call(self.k, self.key, self.nonce_len, nonce, data, associated_data, None)

    def encrypt_into(self, nonce, data, associated_data, buf):
        """Write ciphertext || tag into ``buf`` (len(data) + 16 bytes); returns
        the number of bytes written."""
        return seal_call(self.k, self.key, self.nonce_len, nonce, data, associated_data, buf)

    def decrypt_into(self, nonce, data, associated_data, buf):
        """Write the plaintext into ``buf`` (len(data) - 16 bytes); returns the
        number of bytes written.  On InvalidTag, ``buf`` holds no plaintext."""
        return open_call(self.k, self.key, self.nonce_len, nonce, data, associated_data, buf)


cdef int message_key(const uint8_t* key, size_t nonce_len, buf_t* nb, uint8_t* key_out,
                     uint8_t* n12) except -1:
    """Check the nonce; the per-message key and 12-byte nonce."""
    if nb.len != nonce_len:
        raise ValueError("Nonce must be %d bytes" % nonce_len)
    if nonce_len == 24:
        xchacha_subkey(key, nb.ptr, key_out, n12)
    else:
        memcpy(key_out, key, 32)
        memcpy(n12, nb.ptr, 12)
    return 0


cdef object seal_call(const kernel_table* k, const uint8_t* key, size_t nonce_len, nonce,
                      data, associated_data, output):
    cdef buf_t nb, db, ab, ob
    cdef uint8_t* dst
    cdef uint8_t subkey[32]
    cdef uint8_t n12[12]
    cdef object result = None
    cdef object tmp = None
    cdef const uint8_t* src
    cdef const uint8_t* aad = NULL
    cdef size_t alen = 0
    get_buf(nonce, &nb)
    db.held = ab.held = ob.held = False
    try:
        get_buf(data, &db)
        if associated_data is not None:
            get_buf(associated_data, &ab)
            aad = ab.ptr
            alen = ab.len
        if db.len > AEAD_MAX:
            raise OverflowError("Data too long for one ChaCha20-Poly1305 message "
                                "(at most 2**38 - 64 bytes)")
        message_key(key, nonce_len, &nb, subkey, n12)
        if output is None:
            result = new_bytes(db.len + 16, &dst)
        else:
            try:
                get_buf(output, &ob, True)
            except BufferError:
                raise
            except TypeError:
                raise TypeError("Buffer is not writable.") from None
            if ob.len != db.len + 16:
                raise ValueError("buffer must be %d bytes" % (db.len + 16))
            dst = <uint8_t*>ob.ptr
            result = db.len + 16
        src = db.ptr
        if overlaps(src, dst, db.len):
            tmp = PyBytes_FromStringAndSize(<char*>src, db.len)
            src = <const uint8_t*>PyBytes_AS_STRING(tmp)
        if db.len + alen >= GIL_THRESHOLD:
            with nogil:
                aead_seal(k, subkey, n12, aad, alen, src, dst, db.len, dst + db.len)
        else:
            aead_seal(k, subkey, n12, aad, alen, src, dst, db.len, dst + db.len)
    finally:
        wipe(subkey, 32)           # also when an error left the call early
        put_buf(&ob)
        put_buf(&ab)
        put_buf(&db)
        put_buf(&nb)
    return result


cdef object open_call(const kernel_table* k, const uint8_t* key, size_t nonce_len, nonce,
                      data, associated_data, output):
    cdef buf_t nb, db, ab, ob
    cdef uint8_t* dst
    cdef uint8_t subkey[32]
    cdef uint8_t n12[12]
    cdef object result = None
    cdef object tmp = None
    cdef const uint8_t* src
    cdef const uint8_t* aad = NULL
    cdef size_t alen = 0, n
    cdef bint ok
    get_buf(nonce, &nb)
    db.held = ab.held = ob.held = False
    try:
        get_buf(data, &db)
        if associated_data is not None:
            get_buf(associated_data, &ab)
            aad = ab.ptr
            alen = ab.len
        message_key(key, nonce_len, &nb, subkey, n12)
        if db.len < 16:
            raise InvalidTag()
        n = db.len - 16
        if n > AEAD_MAX:            # no such message exists: no 2^38-byte allocation
            raise InvalidTag()
        if output is None:
            result = new_bytes(n, &dst)
        else:
            try:
                get_buf(output, &ob, True)
            except BufferError:
                raise
            except TypeError:
                raise TypeError("Buffer is not writable.") from None
            if ob.len != n:
                raise ValueError("buffer must be %d bytes" % n)
            dst = <uint8_t*>ob.ptr
            result = n
        src = db.ptr
        if overlaps(src, dst, db.len):
            tmp = PyBytes_FromStringAndSize(<char*>src, db.len)
            src = <const uint8_t*>PyBytes_AS_STRING(tmp)
        if n + alen >= GIL_THRESHOLD:
            with nogil:
                ok = aead_open(k, subkey, n12, aad, alen, src, dst, n, src + n)
        else:
            ok = aead_open(k, subkey, n12, aad, alen, src, dst, n, src + n)
        if not ok:
            raise InvalidTag()
    finally:
        wipe(subkey, 32)           # also when an error left the call early
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
        return seal_call(active_kernels(), kb.ptr, 12, nonce, pt, aad, None)
    finally:
        put_buf(&kb)


def chacha20poly1305_open(key, nonce, aad, ct):
    """The plaintext of ct || tag, or InvalidTag; one call, no object kept."""
    cdef buf_t kb
    get_fixed(key, &kb, 32, "ChaCha20Poly1305 key must be 32 bytes.")
    try:
        return open_call(active_kernels(), kb.ptr, 12, nonce, ct, aad, None)
    finally:
        put_buf(&kb)


cdef class ChaCha20Poly1305(_AEADKey):
    """ChaCha20Poly1305(key): the RFC 8439 AEAD in ``cryptography``'s shape.

    Never encrypt two messages with the same key and nonce."""

    def __init__(self, key):
        self._set_key(key, "ChaCha20Poly1305 key must be 32 bytes.")
        self.nonce_len = 12


cdef class XChaCha20Poly1305(_AEADKey):
    """XChaCha20Poly1305(key): ChaCha20-Poly1305 with a 24-byte nonce
    (draft-irtf-cfrg-xchacha), random nonces being safe to use."""

    def __init__(self, key):
        self._set_key(key, "XChaCha20Poly1305 key must be 32 bytes.")
        self.nonce_len = 24


# pycryptodome's ChaCha20_Poly1305 state machine
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

    Each encrypt()/decrypt() call runs ChaCha20 over all its bytes, then MACs
    the ciphertext in one run of the Poly1305 loop (slice by slice for long
    inputs); only a partial block is carried to the next call.

    :ivar nonce: the 8-, 12- or 24-byte nonce"""
    cdef object __weakref__
    cdef stream_t s
    cdef mac_t c
    cdef bint busy             # a call on another thread has released the GIL
    cdef uint64_t len_aad, len_ct
    cdef int next_ops
    cdef bint aad_done, finished
    cdef uint8_t tag[16]
    cdef public object nonce

    def __init__(self, key, nonce):
        cdef buf_t kb, nb
        cdef uint8_t subkey[32]
        cdef uint8_t n12[12]
        cdef uint8_t block0[64]
        get_buf(key, &kb)
        try:
            get_nonce(nonce, &nb)
            try:
                if kb.len != 32:
                    raise ValueError("Key must be 32 bytes long")
                if nb.len == 8:
                    memset(n12, 0, 4)
                    memcpy(n12 + 4, nb.ptr, 8)
                    memcpy(subkey, kb.ptr, 32)
                elif nb.len == 12:
                    memcpy(n12, nb.ptr, 12)
                    memcpy(subkey, kb.ptr, 32)
                elif nb.len == 24:
                    xchacha_subkey(kb.ptr, nb.ptr, subkey, n12)
                else:
                    raise ValueError("Nonce must be 8, 12 or 24 bytes long")
                self.nonce = PyBytes_FromStringAndSize(<char*>nb.ptr, nb.len)
            finally:
                put_buf(&nb)
        finally:
            put_buf(&kb)
        stream_init(&self.s, active_kernels(), subkey, n12, 12)
        wipe(subkey, 32)
        self.s.k.chacha20_xor(self.s.st, NULL, block0, 1)
        self.s.used = 1
        mac_init(&self.c, self.s.k, block0, block0 + 16)
        wipe(block0, 64)
        self.next_ops = OP_UPDATE | OP_ENCRYPT | OP_DECRYPT | OP_DIGEST | OP_VERIFY

    def __dealloc__(self):
        wipe(&self.s, sizeof(stream_t))
        mac_wipe(&self.c)

    @property
    def backend(self):
        """Name of the backend this object computes with."""
        return (<bytes>self.s.k.name).decode()

    def update(self, data):
        """Authenticate a piece of associated data (before any encrypt/decrypt)."""
        cdef buf_t b
        if not self.next_ops & OP_UPDATE:
            raise TypeError("update() method cannot be called")
        enter(&self.busy, self)
        b.held = False
        try:
            get_buf(data, &b)
            self.len_aad += b.len
            if b.len >= GIL_THRESHOLD:
                with nogil:
                    mac_update(&self.c, b.ptr, b.len)
            else:
                mac_update(&self.c, b.ptr, b.len)
        finally:
            put_buf(&b)
            self.busy = False

    cdef inline void _end_aad(self) noexcept:
        if not self.aad_done:
            mac_pad16(&self.c)
            self.aad_done = True

    cdef object _run(self, data, output, bint enc):
        cdef buf_t ib, ob
        cdef uint8_t* dst
        cdef object result = None
        cdef object tmp = None
        cdef const uint8_t* src
        cdef size_t n
        enter(&self.busy, self)
        ib.held = ob.held = False
        try:
            get_buf(data, &ib)
            # before allocating the output: 2^38 bytes is this error, not MemoryError
            if not stream_can(&self.s, ib.len):
                raise MessageTooLongError("The key stream of ChaCha20 is exhausted for this nonce")
            if output is None:
                result = new_bytes(ib.len, &dst)
            else:
                writable_output(output, &ob, ib.len,
                                "output must have the same length as the input  (%d bytes)")
                dst = <uint8_t*>ob.ptr
            src = ib.ptr
            if overlaps(src, dst, ib.len):
                tmp = PyBytes_FromStringAndSize(<char*>src, ib.len)
                src = <const uint8_t*>PyBytes_AS_STRING(tmp)
            self._end_aad()
            n = ib.len
            if n >= GIL_THRESHOLD:
                with nogil:
                    self._crypt(src, dst, n, enc)
            else:
                self._crypt(src, dst, n, enc)
            self.len_ct += n
        finally:
            put_buf(&ob)
            put_buf(&ib)
            self.busy = False
        return result

    cdef void _crypt(self, const uint8_t* src, uint8_t* dst, size_t n, bint enc) noexcept nogil:
        aead_crypt(&self.s, &self.c, src, dst, n, enc)

    def encrypt(self, plaintext, output=None):
        """Encrypt a piece of data; returns bytes, or None with ``output``."""
        if not self.next_ops & OP_ENCRYPT:
            raise TypeError("encrypt() method cannot be called")
        self.next_ops = OP_ENCRYPT | OP_DIGEST
        return self._run(plaintext, output, True)

    def decrypt(self, ciphertext, output=None):
        """Decrypt a piece of data; returns bytes, or None with ``output``."""
        if not self.next_ops & OP_DECRYPT:
            raise TypeError("decrypt() method cannot be called")
        self.next_ops = OP_DECRYPT | OP_VERIFY
        return self._run(ciphertext, output, False)

    cdef bytes _compute_mac(self):
        if not self.finished:
            check_idle(self.busy, self)
            self._end_aad()
            aead_mac_end(&self.c, self.len_aad, self.len_ct, self.tag)
            self.finished = True
            mac_wipe(&self.c)      # the one-time Poly1305 key is no longer needed
        return PyBytes_FromStringAndSize(<char*>self.tag, 16)

    def digest(self):
        """The 16-byte tag (encryption side)."""
        if not self.next_ops & OP_DIGEST:
            raise TypeError("digest() method cannot be called")
        self.next_ops = OP_DIGEST
        return self._compute_mac()

    def hexdigest(self):
        """The tag as a hexadecimal string."""
        return self.digest().hex()

    def verify(self, received_mac_tag):
        """Raise ValueError("MAC check failed") unless the tag matches
        (constant-time comparison)."""
        cdef buf_t b
        cdef bint ok
        if not self.next_ops & OP_VERIFY:
            raise TypeError("verify() cannot be called when encrypting a message")
        self.next_ops = OP_VERIFY
        mine = self._compute_mac()
        get_buf(received_mac_tag, &b)
        ok = b.len == 16 and tags_equal(b.ptr, <const uint8_t*>PyBytes_AS_STRING(mine), 16)
        put_buf(&b)
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
        block, offset = divmod(position, 64)
        block & 0xFFFFFFFF        # TypeError for a non-integer, as pycryptodome
        if position < 0:
            raise OverflowError("can't convert negative number to unsigned")
        if block > self.s.last:
            raise ValueError("Error 11 while seeking with ChaCha20")
        check_idle(self.busy, self)
        stream_seek(&self.s, <uint64_t>block, <uint32_t>offset)

    def encrypt_and_digest(self, plaintext):
        """(ciphertext, tag) in one step."""
        return self.encrypt(plaintext), self.digest()

    def decrypt_and_verify(self, ciphertext, received_mac_tag):
        """The plaintext, after the tag checked out; ValueError otherwise (and
        the decrypted bytes are wiped, never returned)."""
        cdef bytes pt = self.decrypt(ciphertext)
        try:
            self.verify(received_mac_tag)
        except ValueError:
            wipe(PyBytes_AS_STRING(pt), PyBytes_GET_SIZE(pt))
            raise
        return pt


# Poly1305 keyed from ChaCha20 block 0 (pycryptodome's Poly1305.new with a
# ChaCha20 module): its own file, as it is a face's fast path.
include "_poly1305_chacha20.pxi"
