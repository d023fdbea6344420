# Included by _engine.pyx: pycryptodome's ChaCha20 face (poly1305x.ChaCha20),
# with all of its checks and messages.

cdef size_t MIN_BYTES_PER_THREAD = 1 << 20
cdef str CHACHA20_KEY_LEN = "ChaCha20/XChaCha20 key must be 32 bytes long"
cdef str CHACHA20_NONCE_LEN = "Nonce must be 8/12 bytes(ChaCha20) or 24 bytes (XChaCha20)"



# pycryptodome's words for what the stream core refused (also those of
# ChaCha20_Poly1305: _face_ChaCha20_Poly1305.pxi).

cdef int stream_failed(const fail_t* f, str name) except -1:
    if f.code == FAIL_TOO_LONG:
        raise MessageTooLongError("The key stream of %s is exhausted for this nonce" % name)
    if f.code == FAIL_NEGATIVE:
        raise OverflowError("can't convert negative number to unsigned")
    if f.code == FAIL_PAST_END:
        raise ValueError("Error 11 while seeking with %s" % name)
    if f.code == FAIL_NOT_WRITABLE:
        raise TypeError("output must be a bytearray or a writeable memoryview")
    raise ValueError("output must have the same length as the input  (%d bytes)" % f.n)


cdef inline object stream_face(stream_t* s, mac_t* c, object data, object output, int how,
                               str name, size_t threads, size_t min_bytes, uint64_t* counted):
    """stream_call, its refusals in pycryptodome's words."""
    cdef fail_t f
    cdef object r = stream_call(s, c, data, output, how, threads, min_bytes, counted, &f)
    if f.code:
        stream_failed(&f, name)
    return r


cdef inline int seek_face(stream_t* s, object position, str name) except -1:
    """seek_call, its refusals in pycryptodome's words."""
    cdef fail_t f
    f.code = seek_call(s, position)
    if f.code:
        stream_failed(&f, name)
    return 0

def _threads_param(threads):
    # pycryptodome's rules and messages (Crypto.Util._threads.threads_param)
    if not isinstance(threads, int) or isinstance(threads, bool):
        raise TypeError("'threads' must be an integer")
    if threads < 0:
        raise ValueError("'threads' must be a non-negative integer")
    if threads == 0:
        try:
            threads = len(os.sched_getaffinity(0))
        except AttributeError:
            threads = os.cpu_count() or 1
    return threads


cdef class ChaCha20Cipher:
    """ChaCha20 or XChaCha20 cipher object, in pycryptodome's shape
    (``Crypto.Cipher.ChaCha20``).  Create it with :func:`poly1305x.ChaCha20.new`.

    :ivar nonce: the 8-, 12- or 24-byte nonce"""
    block_size = 1
    cdef object __weakref__
    cdef stream_t s
    cdef p1305x_word state     # life cycle and busy flag (_buffers.pxi)
    cdef int next_ops          # 1: encrypt allowed, 2: decrypt allowed
    cdef public object nonce
    cdef readonly str _name
    cdef readonly int _threads
    cdef size_t _min_bytes     # each thread takes at least this many bytes

    def __cinit__(self):
        self.state = ST_UNINIT

    def __init__(self, key, nonce, threads=1, min_bytes_per_thread=None):
        cdef buf_t kb, nb
        init_begin(&self.state, self)
        try:
            # pycryptodome's ChaCha20.new: lengths by len(), in this order
            if len(key) != 32:
                raise ValueError(CHACHA20_KEY_LEN)
            if len(nonce) not in (8, 12, 24):
                raise ValueError(CHACHA20_NONCE_LEN)
            self._threads = _threads_param(threads)
            self._min_bytes = MIN_BYTES_PER_THREAD if min_bytes_per_thread is None \
                else max(1, min_bytes_per_thread)
            get_buf(key, &kb)
            try:
                get_nonce(nonce, &nb)
                try:
                    if kb.len != 32:             # len() counted items of another size
                        raise ValueError(CHACHA20_KEY_LEN)
                    if nb.len not in (8, 12, 24):
                        raise ValueError(CHACHA20_NONCE_LEN)
                    self.nonce = PyBytes_FromStringAndSize(<char*>nb.ptr, nb.len)
                    stream_setup(&self.s, active_kernels(), kb.ptr, nb.ptr, nb.len, False)
                    self._name = "XChaCha20" if nb.len == 24 else "ChaCha20"
                finally:
                    put_buf(&nb)
            finally:
                put_buf(&kb)
        except BaseException:
            init_end(&self.state, False)
            raise
        self.next_ops = 3
        init_end(&self.state, True)

    def __dealloc__(self):
        wipe(&self.s, sizeof(stream_t))

    @property
    def backend(self):
        """Name of the backend this object computes with."""
        return backend_name(self.s.k, &self.state, self)

    def encrypt(self, plaintext, output=None):
        """Encrypt a piece of data; returns bytes, or None when ``output``
        (a writable buffer of the same length) receives the ciphertext."""
        return self._xor(plaintext, output, 1)

    def decrypt(self, ciphertext, output=None):
        """Decrypt a piece of data; returns bytes, or None when ``output``
        receives the plaintext."""
        return self._xor(ciphertext, output, 2)

    cdef object _xor(self, data, output, int op):
        enter(&self.state, self)
        try:
            if not self.next_ops & op:
                raise TypeError("Cipher object can only be used for "
                                + ("decryption" if op == 1 else "encryption"))
            self.next_ops = op
            return stream_face(&self.s, NULL, data, output, RUN_XOR, self._name,
                               <size_t>self._threads, self._min_bytes, NULL)
        finally:
            leave(&self.state)

    def seek(self, position):
        """Move to absolute byte ``position`` in the key stream."""
        enter(&self.state, self)
        try:
            seek_face(&self.s, position, self._name)
        finally:
            leave(&self.state)



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
