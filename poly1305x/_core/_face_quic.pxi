# Included by _engine.pyx: QUIC's ChaCha20-Poly1305 packet protection (RFC
# 9001 section 5) in aioquic's shape (aioquic._crypto.AEAD and
# HeaderProtection), for poly1305x.quic.use_with_aioquic(): one call per
# packet for the payload, one for the header, each all in C.  The error class
# (aioquic's CryptoError) is handed in, so nothing here imports aioquic.
from cpython.long cimport PyLong_CheckExact

cdef object quic_payload(const kernel_table* k, const uint8_t* key, const uint8_t* n12,
                         object data, object associated_data, bint seal):
    """ct || tag of data (seal), or the plaintext of ct || tag / InvalidTag,
    under the 12-byte nonce n12, into a new bytes object."""
    cdef PyThreadState* ts
    cdef buf_t db, ab
    cdef stream_t s
    cdef uint8_t* dst
    cdef object result
    cdef const uint8_t* aad = NULL
    cdef size_t alen = 0, n
    cdef bint ok
    ab.held = False
    s.k = NULL
    get_buf(data, &db)
    try:
        if associated_data is not None:
            get_buf(associated_data, &ab)
            aad = ab.ptr
            alen = ab.len
        if seal:
            if db.len > AEAD_MAX:
                raise OverflowError("Data too long for one ChaCha20-Poly1305 message")
            n = db.len
            result = new_bytes(n + 16, &dst)
        else:
            if db.len < 16 or db.len - 16 > AEAD_MAX:
                raise InvalidTag()
            n = db.len - 16
            result = new_bytes(n, &dst)
        stream_setup(&s, k, key, n12, 12, False)
        ts = nogil_for(n + alen)
        ok = aead_run(&s, aad, alen, db.ptr, dst, n, seal)
        regain(ts)
        if not ok:
            raise InvalidTag()
    finally:
        if s.k != NULL:
            wipe(&s, sizeof(stream_t))
        put_buf(&ab)
        put_buf(&db)
    return result


cdef class QuicChaCha20AEAD:
    """QuicChaCha20AEAD(key, iv, error=ValueError): the payload protection of
    a QUIC ChaCha20-Poly1305 key, as aioquic's ``AEAD``: the nonce of packet
    number pn is iv XOR pn (pn big-endian, left-padded to 12 bytes), and a
    failing tag is ``error("")``.  Immutable after __init__."""
    cdef uint8_t key[32]
    cdef uint8_t iv[12]
    cdef const kernel_table* k
    cdef p1305x_word state
    cdef object error

    def __cinit__(self):
        self.state = ST_UNINIT

    def __dealloc__(self):
        wipe(self.key, 32)
        wipe(self.iv, 12)

    def __init__(self, key, iv, error=ValueError):
        cdef buf_t kb, ib
        init_begin(&self.state, self)
        try:
            get_fixed(iv, &ib, 12, "Invalid iv length")
            memcpy(self.iv, ib.ptr, 12)
            put_buf(&ib)
            if isinstance(key, str):
                raise TypeError(_KEY_NOT_STR)
            get_fixed(key, &kb, 32, CP_KEY_LEN)
            memcpy(self.key, kb.ptr, 32)
            put_buf(&kb)
        except BaseException:
            init_end(&self.state, False)
            raise
        self.k = active_kernels()
        self.error = error
        init_end(&self.state, True)

    @property
    def backend(self):
        """Name of the backend this object computes with."""
        return backend_name(self.k, &self.state, self)

    cdef int _nonce(self, object packet_number, uint8_t* n12) except -1:
        cdef uint64_t pn = 0
        cdef bint fits = False
        cdef int i
        if PyLong_CheckExact(packet_number):
            try:
                pn = packet_number
                fits = True
            except OverflowError:
                pass
        if fits:
            memcpy(n12, self.iv, 4)
            for i in range(8):
                n12[4 + i] = self.iv[4 + i] ^ <uint8_t>(pn >> (56 - 8 * i))
        else:   # aioquic's arithmetic, its errors (negative, too big, not an int)
            wide = (int.from_bytes(PyBytes_FromStringAndSize(<char*>self.iv, 12), "big")
                    ^ packet_number).to_bytes(12, "big")
            memcpy(n12, PyBytes_AS_STRING(wide), 12)
        return 0

    def encrypt(self, data, associated_data, packet_number):
        """The protected payload (ciphertext || tag) of packet ``packet_number``."""
        cdef uint8_t n12[12]
        check_ready(&self.state, self)
        self._nonce(packet_number, n12)
        return quic_payload(self.k, self.key, n12, data, associated_data, True)

    def decrypt(self, data, associated_data, packet_number):
        """The payload of packet ``packet_number``, or ``error`` when its tag
        fails."""
        cdef uint8_t n12[12]
        check_ready(&self.state, self)
        self._nonce(packet_number, n12)
        try:
            return quic_payload(self.k, self.key, n12, data, associated_data, False)
        except InvalidTag:
            raise self.error("")


cdef inline uint32_t load32_be(const uint8_t* p) noexcept nogil:
    return (<uint32_t>p[0] << 24) | (<uint32_t>p[1] << 16) | (<uint32_t>p[2] << 8) | p[3]


cdef inline void quic_mask(const uint8_t* key32, const uint8_t* sample,
                           uint8_t* mask5) noexcept nogil:
    """RFC 9001 5.4.4: the first 5 bytes of the ChaCha20 block with counter
    sample[0:4] (little-endian) and nonce sample[4:16]."""
    cdef uint32_t st[16]
    cdef uint32_t x[16]
    cdef uint8_t out[8]
    chacha20_init_state(st, key32, sample + 4, 12, load32_le(sample))
    memcpy(x, st, 64)
    chacha20_rounds(x)
    store32_le(out, x[0] + st[0])
    store32_le(out + 4, x[1] + st[1])
    memcpy(mask5, out, 5)
    wipe(x, 64)
    wipe(st, 64)
    wipe(out, 8)


cdef class QuicChaCha20HeaderProtection:
    """QuicChaCha20HeaderProtection(key, error=ValueError): QUIC header
    protection with a ChaCha20 key, as aioquic's ``HeaderProtection``
    (``apply``, ``remove``).  Immutable after __init__."""
    cdef uint8_t key[32]
    cdef p1305x_word state
    cdef object error

    def __cinit__(self):
        self.state = ST_UNINIT

    def __dealloc__(self):
        wipe(self.key, 32)

    def __init__(self, key, error=ValueError):
        cdef buf_t kb
        init_begin(&self.state, self)
        try:
            if isinstance(key, str):
                raise TypeError(_KEY_NOT_STR)
            get_fixed(key, &kb, 32, "key must be 32 bytes")
        except BaseException:
            init_end(&self.state, False)
            raise
        memcpy(self.key, kb.ptr, 32)
        put_buf(&kb)
        self.error = error
        init_end(&self.state, True)

    def apply(self, plain_header, protected_payload):
        """plain_header || protected_payload with the first byte's low bits
        and the packet number masked (the sample starts 4 bytes after the
        packet number's first byte)."""
        cdef buf_t hb, pb
        cdef uint8_t mask[5]
        cdef uint8_t* out
        cdef size_t pn_length, sample_offset, total, i
        cdef Py_ssize_t at
        check_ready(&self.state, self)
        get_buf(plain_header, &hb)
        pb.held = False
        try:
            get_buf(protected_payload, &pb)
            if hb.len == 0:
                raise IndexError("index out of range")
            pn_length = (hb.ptr[0] & 0x03) + 1
            sample_offset = 4 - pn_length
            if pb.len < sample_offset + 16:
                raise ValueError("Nonce must be 16 bytes long")
            total = hb.len + pb.len
            result = new_bytes(total, &out)
            memcpy(out, hb.ptr, hb.len)
            memcpy(out + hb.len, pb.ptr, pb.len)
            quic_mask(self.key, pb.ptr + sample_offset, mask)
            out[0] ^= mask[0] & (0x0F if out[0] & 0x80 else 0x1F)
            for i in range(pn_length):
                at = <Py_ssize_t>hb.len - <Py_ssize_t>pn_length + <Py_ssize_t>i
                if at < 0:          # a header shorter than its packet number: as aioquic
                    at += <Py_ssize_t>total
                out[at] ^= mask[1 + i]
            wipe(mask, 5)
        finally:
            put_buf(&pb)
            put_buf(&hb)
        return result

    def remove(self, packet, pn_offset):
        """(the header with the protection removed, the truncated packet
        number); ``error`` when the packet is too short to sample.  The packet
        number's length is protected: it chooses no branch here (RFC 9001
        9.5), only how many bytes are copied out."""
        cdef buf_t b
        cdef uint8_t mask[5]
        cdef uint8_t pnb[4]
        cdef uint8_t* out
        cdef uint8_t first
        cdef Py_ssize_t off = pn_offset
        cdef size_t pn_length, i
        cdef uint32_t truncated
        check_ready(&self.state, self)
        if off < 0:
            raise ValueError("pn_offset must not be negative")
        get_buf(packet, &b)
        try:
            if <size_t>off + 4 + 16 > b.len:
                raise self.error("Packet is too short to sample")
            quic_mask(self.key, b.ptr + off + 4, mask)
            first = b.ptr[0] ^ (mask[0] & (0x0F if b.ptr[0] & 0x80 else 0x1F))
            pn_length = (first & 0x03) + 1
            result = new_bytes(<size_t>off + pn_length, &out)
            if off == 0:        # the first byte is the packet number's too: as aioquic
                memcpy(pnb, b.ptr, 4)
                pnb[0] = first
            else:
                memcpy(out, b.ptr, <size_t>off)
                out[0] = first
                memcpy(pnb, b.ptr + off, 4)
            for i in range(4):
                pnb[i] ^= mask[1 + i]
            truncated = load32_be(pnb) >> (8 * (4 - pn_length))
            memcpy(out + off, pnb, pn_length)
            wipe(mask, 5)
            wipe(pnb, 4)
        finally:
            put_buf(&b)
        return result, truncated
