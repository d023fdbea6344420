# Included by _engine.pyx: the ChaCha20 key stream with a position, its nonce
# and seek helpers, the shared encrypt/decrypt wrapper and the threaded XOR.
# The cipher objects over it are in the face files (_face_*.pxi).

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
    s.last = <uint64_t>0xFFFFFFFFFFFFFFFF if s.ctr64 else <uint64_t>0xFFFFFFFF
    stream_set_nonce(s, nonce)


cdef void stream_set_nonce(stream_t* s, const uint8_t* nonce) noexcept nogil:
    """Put a new nonce (8 or 12 bytes, the length s was made with) into s and
    rewind it to block 0: the same key under another nonce."""
    if s.ctr64:
        s.st[14] = load32_le(nonce)
        s.st[15] = load32_le(nonce + 4)
    else:
        s.st[13] = load32_le(nonce)
        s.st[14] = load32_le(nonce + 4)
        s.st[15] = load32_le(nonce + 8)
    s.w13 = s.st[13]
    s.used = 0
    s.ks_off = 64
    s.spent = False


cdef inline void xchacha_nonce(uint8_t* n12, const uint8_t* nonce24) noexcept nogil:
    """XChaCha20's ChaCha20 nonce from its 24-byte one: 0^4 || nonce[16:24]
    (the subkey is HChaCha20(key, nonce[0:16]): xchacha_key, or the batch's
    lanes)."""
    memset(n12, 0, 4)
    memcpy(n12 + 4, nonce24 + 16, 8)


cdef inline void xchacha_key(const uint8_t* key32, const uint8_t* nonce24, uint8_t* subkey,
                             uint8_t* n12) noexcept nogil:
    """XChaCha20's ChaCha20 key and 12-byte nonce (the caller wipes subkey)."""
    hchacha20(key32, nonce24, subkey)
    xchacha_nonce(n12, nonce24)


cdef inline void message_state(uint32_t* st, const uint8_t* key32, const uint8_t* nonce,
                               size_t nonce_len) noexcept nogil:
    """An RFC 8439 message's ChaCha20 input block at counter 0, as
    stream_setup keys it: a 12-byte nonce as it is, a 24-byte one XChaCha20."""
    cdef uint8_t subkey[32]
    cdef uint8_t n12[12]
    if nonce_len == 24:
        xchacha_key(key32, nonce, subkey, n12)
        chacha20_init_state(st, subkey, n12, 12, 0)
        wipe(subkey, 32)
    else:
        chacha20_init_state(st, key32, nonce, 12, 0)


cdef void stream_setup(stream_t* s, const kernel_table* k, const uint8_t* key32,
                       const uint8_t* nonce, size_t nonce_len, bint pad8) noexcept nogil:
    """The one nonce helper: a 24-byte nonce is XChaCha20 (xchacha_key); an
    8-byte one keeps the 64-bit counter, or with pad8 becomes 0^4 || nonce
    (RFC 8439's 32-bit counter, as pycryptodome's ChaCha20-Poly1305 does);
    12 bytes is RFC 8439.  The caller checked the length."""
    cdef uint8_t subkey[32]
    cdef uint8_t n12[12]
    if nonce_len == 24:
        xchacha_key(key32, nonce, subkey, n12)
        stream_init(s, k, subkey, n12, 12)
        wipe(subkey, 32)
    elif nonce_len == 8 and pad8:
        memset(n12, 0, 4)
        memcpy(n12 + 4, nonce, 8)
        stream_init(s, k, key32, n12, 12)
    else:
        stream_init(s, k, key32, nonce, nonce_len)


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


cdef void stream_block0(stream_t* s, uint8_t* out64) noexcept nogil:
    """Key-stream block 0 into out64 (the AEAD's Poly1305 key); s then stands
    at block 1, where the message's key stream starts."""
    stream_set_ctr(s, 0)
    s.k.chacha20_xor(s.st, NULL, out64, 1)
    s.used = 1
    s.ks_off = 64


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


cdef int seek_call(stream_t* s, object position) except -1:
    """The one seek: to absolute byte ``position`` of the key stream.  The
    position is converted with operator.index and split in C, so an int
    subclass cannot steer the block/offset arithmetic.  A non-integer is
    pycryptodome's TypeError (Python's own); below 0 or past the end, the
    stream stays and FAIL_NEGATIVE / FAIL_PAST_END is returned for the face
    to word."""
    cdef object pos
    cdef uint64_t block
    try:
        pos = operator.index(position)
    except TypeError:
        divmod(position, 64)[0] & 0xFFFFFFFF      # pycryptodome's own TypeError ...
        raise                                     # ... or operator.index's
    if pos < 0:
        return FAIL_NEGATIVE
    if (pos >> 6) > s.last:
        return FAIL_PAST_END
    block = <uint64_t>(pos >> 6)
    stream_seek(s, block, <uint32_t>(pos & 63))
    return 0


# ---------------------------------------------------------------------------
# The shared wrapper of ChaCha20Cipher and ChaCha20Poly1305Cipher's
# encrypt/decrypt: borrow the input, check the key stream, the output (fresh or
# the caller's), a snapshot of a partially overlapping input, the GIL.
# ---------------------------------------------------------------------------

cdef enum:
    RUN_XOR = 0            # ChaCha20 alone
    RUN_SEAL = 1           # ChaCha20 then Poly1305 over the ciphertext
    RUN_OPEN = 2           # Poly1305 over the ciphertext, then ChaCha20


cdef void stream_run(stream_t* s, mac_t* c, const uint8_t* src, uint8_t* dst, size_t n,
                     int how) noexcept nogil:
    if how == RUN_XOR:
        stream_xor(s, src, dst, n)
    else:
        etm_crypt(s, c, src, dst, n, how == RUN_SEAL, False, NULL, 0)


cdef object stream_call(stream_t* s, mac_t* c, object data, object output, int how,
                        size_t threads, size_t min_bytes, uint64_t* counted, fail_t* fail):
    """Run data through the stream; returns the new bytes, or None with output.
    With ``threads`` > 1, an input of 2 * ``min_bytes`` or more is split across
    threads; ``counted`` (if not NULL) grows by the number of bytes processed.
    fail.code is FAIL_NONE, or what was refused before any byte was written
    (FAIL_TOO_LONG: the key stream is exhausted; FAIL_NOT_WRITABLE,
    FAIL_OUT_LEN with fail.n: the input's length), for the face to word."""
    cdef PyThreadState* ts
    cdef buf_t ib, ob
    cdef uint8_t* dst
    cdef object result = None
    cdef object tmp = None
    cdef const uint8_t* src
    cdef size_t n
    ob.held = False
    fail.code = FAIL_NONE
    get_buf(data, &ib)
    try:
        n = ib.len
        # before allocating the output: 2^38 bytes is this error, not MemoryError
        if not stream_can(s, n):
            fail.code = FAIL_TOO_LONG
            return None
        if output is None:
            result = new_bytes(n, &dst)
        else:
            fail.code = writable_output(output, &ob, n)
            if fail.code:
                fail.n = n
                return None
            dst = <uint8_t*>ob.ptr
        src = ib.ptr
        if overlaps(src, dst, n):
            tmp = PyBytes_FromStringAndSize(<char*>src, n)
            src = <const uint8_t*>PyBytes_AS_STRING(tmp)
        if threads > 1 and n >= 2 * min_bytes:
            threaded_xor(s, src, dst, n, threads, min_bytes)
        else:
            ts = nogil_for(n)
            stream_run(s, c, src, dst, n, how)
            regain(ts)
        if counted != NULL:
            counted[0] += n
    finally:
        put_buf(&ob)
        put_buf(&ib)
    return result


# ---------------------------------------------------------------------------
# ChaCha20 over several threads (ChaCha20.new(..., threads=N))
# The stream's position moves past the whole input before any worker starts,
# and the call does not return or raise until every slot is done: by a worker,
# or -- when a thread could not be started, or an exception (Ctrl-C) came while
# they were started -- by the calling thread.  The buffers stay held till then.
# Workers reach no raw address from Python: a job object holds them, each
# slot is claimed once (compare-and-swap), and a finished job has none left.
# ---------------------------------------------------------------------------

@cython.final
cdef class _XorJob:
    """nslots equal runs of key-stream blocks; slot i covers blocks
    [i*per, min((i+1)*per, nblocks)) of src/dst from block `first`."""
    cdef uint32_t st[16]
    cdef const kernel_table* k
    cdef bint ctr64
    cdef uint32_t w13
    cdef const uint8_t* src
    cdef uint8_t* dst
    cdef uint64_t first
    cdef size_t per, nblocks, nslots
    cdef p1305x_word* claimed
    cdef p1305x_word finished

    def __dealloc__(self):
        wipe(self.st, 64)
        PyMem_Free(<void*>self.claimed)

    cdef bint _claim(self, size_t i) noexcept nogil:
        cdef long free = 0
        return p1305x_cas(&self.claimed[i], &free, 1)

    cdef void _slot(self, size_t i) noexcept nogil:
        cdef uint32_t st[16]
        cdef size_t start = i * self.per
        cdef size_t count = self.nblocks - start
        cdef uint64_t b = self.first + start
        if count > self.per:
            count = self.per
        memcpy(st, self.st, 64)
        st[12] = <uint32_t>b
        st[13] = <uint32_t>(b >> 32) if self.ctr64 else self.w13
        self.k.chacha20_xor(st, self.src + (start << 6), self.dst + (start << 6), count)
        wipe(st, 64)
        p1305x_add_fetch(&self.finished, 1)

    def run(self, Py_ssize_t i):
        """A worker thread's body: slot i, unless someone else claimed it."""
        if 0 <= i < <Py_ssize_t>self.nslots and self._claim(<size_t>i):
            with nogil:
                self._slot(<size_t>i)

    cdef void _finish(self) noexcept nogil:
        """Run every unclaimed slot here, then wait for the claimed ones."""
        cdef size_t i
        for i in range(self.nslots):
            if self._claim(i):
                self._slot(i)
        while <size_t>p1305x_load(&self.finished) < self.nslots:
            p1305x_nap()


cdef int threaded_xor(stream_t* s, const uint8_t* src, uint8_t* dst, size_t n,
                      size_t threads, size_t min_bytes) except -1:
    cdef size_t head = 64 - s.ks_off if s.ks_off < 64 else 0
    cdef size_t nthreads, nblocks, per, i
    cdef _XorJob job
    cdef object pending = None
    if head > n:
        head = n
    stream_xor(s, src, dst, head)
    src += head
    dst += head
    n -= head
    nblocks = n >> 6
    nthreads = min(threads, n // min_bytes)
    if nthreads < 1:
        nthreads = 1
    per = (nblocks + nthreads - 1) // nthreads
    job = _XorJob.__new__(_XorJob)
    memcpy(job.st, s.st, 64)
    job.k = s.k
    job.ctr64 = s.ctr64
    job.w13 = s.w13
    job.src = src
    job.dst = dst
    job.first = s.used
    job.per = per
    job.nblocks = nblocks
    job.nslots = (nblocks + per - 1) // per if per else 0
    job.claimed = <p1305x_word*>PyMem_Calloc(job.nslots + 1, sizeof(p1305x_word))
    if job.claimed == NULL:
        raise MemoryError()
    # The position moves past the whole input first, and the tail (under one
    # block) is done here: from now on the state is final whatever happens.
    if nblocks:
        stream_advance(s, nblocks)
    stream_xor(s, src + (nblocks << 6), dst + (nblocks << 6), n & 63)
    try:
        import threading
        for i in range(1, job.nslots):
            threading.Thread(target=job.run, args=(i,), daemon=True).start()
    except BaseException as exc:   # "can't start new thread", KeyboardInterrupt, ...
        pending = exc
    with nogil:
        job._finish()
    if pending is not None and not isinstance(pending, Exception):
        raise pending              # Ctrl-C and friends, once the output is complete
    return 0
