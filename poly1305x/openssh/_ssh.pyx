# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""OpenSSH's chacha20-poly1305@openssh.com (PROTOCOL.chacha20poly1305), over
the engine's C-level pieces.

The 64-byte key is two ChaCha20 keys: K_2 = key[0:32] (the "main" key: the
Poly1305 key and the payload) and K_1 = key[32:64] (the "header" key: the
4-byte packet length only).  Both run the original ChaCha20 (64-bit block
counter, 64-bit nonce) with the nonce = sequence number as a big-endian
uint64.  For each packet:

* Poly1305 key = the first 32 bytes of K_2's key-stream block 0;
* encrypted length = length XOR K_1's block 0;
* encrypted payload = payload XOR K_2's key stream from block 1;
* tag = Poly1305(encrypted length || encrypted payload), appended.

The same construction with no length field (aadlen 0, sequence number 0) seals
the private part of OpenSSH key files; ``keyfile_seal``/``keyfile_open`` do that.
"""
from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_FromStringAndSize
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.long cimport PyLong_Check
from libc.stdint cimport uint8_t, uint32_t
from libc.string cimport memcpy, memset

from poly1305x._core._dispatch cimport active_kernels
from poly1305x._core._engine cimport (
    PyThreadState, buf_t, etm_open, etm_seal, get_buf, put_buf, stream_block0, stream_init,
    nogil_for, regain, stream_set_nonce, stream_t,
)
from poly1305x._kernels._common cimport wipe
from poly1305x._kernels._kernel cimport kernel_table

from poly1305x._errors import KEY_NOT_STR as _KEY_NOT_STR
from poly1305x._errors import InvalidTag

__all__ = ["PacketCipher", "keyfile_open", "keyfile_seal", "KEY_SIZE", "TAG_SIZE"]

KEY_SIZE = 64
TAG_SIZE = 16


cdef inline void at_seqnr(stream_t* s, const stream_t* tmpl, uint32_t seqnr) noexcept nogil:
    """s = the template's key under nonce = seqnr as a big-endian uint64, at
    block 0."""
    cdef uint8_t nonce[8]
    memcpy(s, tmpl, sizeof(stream_t))
    memset(nonce, 0, 4)
    store32_be(nonce + 4, seqnr)
    stream_set_nonce(s, nonce)


cdef void hdr_xor(const stream_t* hdr, uint32_t seqnr, const uint8_t* src, uint8_t* dst,
                  size_t n) noexcept nogil:
    """dst[0:n] = src[0:n] ^ K_1 block 0 (n <= 64)."""
    cdef stream_t s
    cdef uint8_t blk[64]
    cdef size_t i
    at_seqnr(&s, hdr, seqnr)
    stream_block0(&s, blk)
    for i in range(n):
        dst[i] = src[i] ^ blk[i]
    wipe(blk, 64)
    wipe(s.st, sizeof(s.st))


# The two framings of one packet over the engine's encrypt-then-MAC core: the
# MAC runs over the encrypted length || encrypted payload, unpadded and with no
# lengths block (rfc=False); the payload's key stream starts at block 1.

cdef void seal_core(const stream_t* main, const stream_t* hdr, uint32_t seqnr, size_t aadlen,
                    const uint8_t* src, uint8_t* dst, size_t n) noexcept nogil:
    """dst[0:aadlen] = src[0:aadlen] under K_1 (hdr may be NULL when aadlen is
    0); dst[aadlen:n] = src[aadlen:n] under K_2 from block 1; dst[n:n+16] =
    Poly1305 tag over dst[0:n].  src and dst do not overlap."""
    cdef stream_t s
    if aadlen:
        hdr_xor(hdr, seqnr, src, dst, aadlen)
    at_seqnr(&s, main, seqnr)
    etm_seal(&s, False, dst, aadlen, src + aadlen, dst + aadlen, n - aadlen, dst + n)
    wipe(&s, sizeof(stream_t))


cdef bint open_core(const stream_t* main, const stream_t* hdr, uint32_t seqnr, size_t aadlen,
                    const uint8_t* src, uint8_t* dst, size_t n) noexcept nogil:
    """The inverse of seal_core, into dst (private to the caller) under the
    engine's bad-tag rule: returns 0 on a bad tag.  Every received byte is
    read once (the length field into a local copy, the payload by the core),
    so what is decrypted is what the tag covered."""
    cdef stream_t s
    cdef uint8_t enclen[4]
    cdef bint ok
    memcpy(enclen, src, aadlen)         # aadlen is 0 or 4
    at_seqnr(&s, main, seqnr)
    ok = etm_open(&s, False, enclen, aadlen, src + aadlen, dst + aadlen, n - aadlen, src + n,
                  NULL)
    wipe(&s, sizeof(stream_t))
    if ok and aadlen:
        hdr_xor(hdr, seqnr, enclen, dst, aadlen)
    return ok


cdef inline uint32_t to_seqnr(object seqnr) except? 0xFFFFFFFF:
    cdef unsigned long long v
    if not PyLong_Check(seqnr):
        raise TypeError("seqnr must be an int, not %s" % type(seqnr).__name__)
    try:
        v = seqnr
    except OverflowError:
        v = 1ULL << 32
    if v > 0xFFFFFFFF:
        raise ValueError("seqnr must be in 0..2**32-1 (the caller wraps its "
                         "counter modulo 2**32, RFC 4253 section 6.4)")
    return <uint32_t>v


cdef inline uint32_t load32_be(const uint8_t* p) noexcept nogil:
    return ((<uint32_t>p[0] << 24) | (<uint32_t>p[1] << 16) | (<uint32_t>p[2] << 8)
            | <uint32_t>p[3])


cdef inline void store32_be(uint8_t* p, uint32_t v) noexcept nogil:
    p[0] = <uint8_t>(v >> 24)
    p[1] = <uint8_t>(v >> 16)
    p[2] = <uint8_t>(v >> 8)
    p[3] = <uint8_t>v


cdef class PacketCipher:
    """chacha20-poly1305@openssh.com for SSH transport packets.

    ``PacketCipher(key64)`` takes the 64 bytes of key material the key exchange
    derived for one direction (encryption key "C" or "D" of RFC 4253 section
    7.2, cut to 64 bytes).  The two ChaCha20 states are set up here, once; the
    object is immutable afterwards and may be shared between threads.

    The caller owns the sequence number: it counts packets from 0 in each
    direction (RFC 4253 section 6.4), wraps modulo 2**32, and passes a value in
    0..2**32-1 to every call (anything else is a ValueError)."""

    cdef stream_t main      # K_2 = key[0:32]: Poly1305 keys and payload
    cdef stream_t hdr       # K_1 = key[32:64]: the 4-byte length

    def __cinit__(self, key64):
        # __cinit__, not __init__: the key cannot be changed under threads that
        # share the object by calling __init__ again.
        cdef buf_t kb
        cdef uint8_t zero[8]
        cdef const kernel_table* k = active_kernels()
        if isinstance(key64, str):
            raise TypeError(_KEY_NOT_STR)
        get_buf(key64, &kb)
        try:
            if kb.len != 64:
                raise ValueError("chacha20-poly1305@openssh.com takes a 64-byte key "
                                 "(got %d bytes)" % kb.len)
            memset(zero, 0, 8)
            stream_init(&self.main, k, kb.ptr, zero, 8)
            stream_init(&self.hdr, k, kb.ptr + 32, zero, 8)
        finally:
            put_buf(&kb)

    def __dealloc__(self):
        wipe(&self.main, sizeof(stream_t))
        wipe(&self.hdr, sizeof(stream_t))

    @property
    def backend(self):
        """Name of the kernel backend this object computes with."""
        return (<bytes>self.main.k.name).decode()

    def seal(self, seqnr, packet):
        """Encrypt and authenticate one packet.

        ``packet`` is the whole plaintext binary packet of RFC 4253 section 6,
        its 4-byte big-endian ``packet_length`` field first (which must equal
        ``len(packet) - 4``).  Returns encrypted length || encrypted rest ||
        16-byte tag: ``len(packet) + 16`` bytes, ready for the wire."""
        cdef PyThreadState* ts
        cdef uint32_t seq = to_seqnr(seqnr)
        cdef buf_t b
        cdef uint8_t* dst
        cdef object out
        get_buf(packet, &b)
        try:
            if b.len < 4:
                raise ValueError("a packet is at least its 4-byte length field")
            if b.len - 4 > 0xFFFFFFFF or load32_be(b.ptr) != b.len - 4:
                raise ValueError("the packet's length field (%d) is not len(packet) - 4 (%d)"
                                 % (load32_be(b.ptr), b.len - 4))
            out = PyBytes_FromStringAndSize(NULL, <Py_ssize_t>(b.len + 16))
            dst = <uint8_t*>PyBytes_AS_STRING(out)
            ts = nogil_for(b.len)
            seal_core(&self.main, &self.hdr, seq, 4, b.ptr, dst, b.len)
            regain(ts)
        finally:
            put_buf(&b)
        return out

    def decrypt_length(self, seqnr, first4):
        """The ``packet_length`` of the packet that starts with ``first4`` (its
        first 4 bytes as received; a longer buffer is fine, only 4 bytes are
        read).  Not authenticated yet: bound it (OpenSSH: 256 KiB) before
        reading ``length + 16`` more bytes, then call :meth:`open`."""
        cdef uint32_t seq = to_seqnr(seqnr)
        cdef buf_t b
        cdef uint8_t plain[4]
        get_buf(first4, &b)
        try:
            if b.len < 4:
                raise ValueError("decrypt_length needs the first 4 bytes of the packet")
            hdr_xor(&self.hdr, seq, b.ptr, plain, 4)
        finally:
            put_buf(&b)
        return load32_be(plain)

    def open(self, seqnr, data):
        """Verify and decrypt one packet as received: encrypted length ||
        encrypted rest || 16-byte tag (``4 + packet_length + 16`` bytes).

        Each byte is read once and the tag checked over the bytes decrypted; a
        mismatch raises :class:`poly1305x.InvalidTag` and no plaintext is
        released.  Returns
        the plaintext packet *with* its 4-byte length field (what :meth:`seal`
        took), ``len(data) - 16`` bytes: padding_length is byte 4, the payload
        follows."""
        cdef PyThreadState* ts
        cdef uint32_t seq = to_seqnr(seqnr)
        cdef buf_t b
        cdef uint8_t* dst
        cdef object out
        cdef bint ok
        cdef size_t n
        get_buf(data, &b)
        try:
            if b.len < 20:
                raise ValueError("a sealed packet is at least 20 bytes (length field and tag)")
            n = b.len - 16
            out = PyBytes_FromStringAndSize(NULL, <Py_ssize_t>n)
            dst = <uint8_t*>PyBytes_AS_STRING(out)
            ts = nogil_for(n)
            ok = open_core(&self.main, &self.hdr, seq, 4, b.ptr, dst, n)
            regain(ts)
        finally:
            put_buf(&b)
        if not ok:
            out = None
            raise InvalidTag("chacha20-poly1305@openssh.com: packet authentication failed")
        if load32_be(dst) != n - 4:
            wipe(dst, n)
            raise ValueError("the authenticated packet_length (%d) does not match the %d "
                             "bytes given: pass exactly 4 + packet_length + 16 bytes"
                             % (load32_be(dst), n - 4))
        return out


# ---------------------------------------------------------------------------
# Key files: the same cipher with no length field, sequence number 0.
# ---------------------------------------------------------------------------

cdef int keyfile_key(object key64, stream_t* s) except -1:
    cdef buf_t kb
    cdef uint8_t zero[8]
    get_buf(key64, &kb)
    try:
        if kb.len != 64:
            raise ValueError("chacha20-poly1305@openssh.com takes a 64-byte key")
        memset(zero, 0, 8)
        stream_init(s, active_kernels(), kb.ptr, zero, 8)
    finally:
        put_buf(&kb)
    return 0


def keyfile_seal(key64, data):
    """OpenSSH key-file encryption (cipher_crypt with aadlen 0, seqnr 0):
    ``data`` under key64[0:32] from block 1, then the 16-byte tag.  Returns bytes."""
    cdef stream_t s
    cdef buf_t b
    cdef object out
    keyfile_key(key64, &s)
    try:
        get_buf(data, &b)
        try:
            out = PyBytes_FromStringAndSize(NULL, <Py_ssize_t>(b.len + 16))
            seal_core(&s, NULL, 0, 0, b.ptr, <uint8_t*>PyBytes_AS_STRING(out), b.len)
        finally:
            put_buf(&b)
    finally:
        wipe(&s, sizeof(stream_t))
    return out


def keyfile_open(key64, data):
    """Inverse of keyfile_seal: ``data`` is ciphertext || tag.  Returns a
    bytearray (so that the caller can wipe it); a bad tag raises InvalidTag
    and releases no plaintext."""
    cdef stream_t s
    cdef buf_t b
    cdef object out = None
    cdef bint ok
    keyfile_key(key64, &s)
    try:
        get_buf(data, &b)
        try:
            if b.len < 16:
                raise ValueError("ciphertext shorter than its tag")
            out = PyByteArray_FromStringAndSize(NULL, <Py_ssize_t>(b.len - 16))
            ok = open_core(&s, NULL, 0, 0, b.ptr, <uint8_t*>PyByteArray_AS_STRING(out),
                           b.len - 16)
        finally:
            put_buf(&b)
    finally:
        wipe(&s, sizeof(stream_t))
    if not ok:
        raise InvalidTag("chacha20-poly1305@openssh.com: authentication failed")
    return out
