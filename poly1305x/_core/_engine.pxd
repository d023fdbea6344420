# cython: language_level=3
"""C-level engine pieces for other Cython modules of the package (the SSH
packet cipher): buffers, the Poly1305 stream state, the ChaCha20 key stream
and the encrypt-then-MAC core.  Everything runs on the kernel table it was given."""
from libc.stdint cimport uint8_t, uint32_t, uint64_t

from poly1305x._kernels._kernel cimport kernel_table, poly1305_state

cdef extern from "_sync.h":
    ctypedef long p1305x_word
    long p1305x_load(p1305x_word* w) noexcept nogil
    void p1305x_store(p1305x_word* w, long v) noexcept nogil
    long p1305x_add_fetch(p1305x_word* w, long v) noexcept nogil
    bint p1305x_cas(p1305x_word* w, long* expected, long desired) noexcept nogil
    void p1305x_nap() noexcept nogil

cdef enum:
    # Calls on this many bytes or more release the GIL (buffers stay held).
    GIL_THRESHOLD = 4096
    # Up to this many bytes, one kernel call makes the Poly1305 key block
    # together with the message's whole key stream (1 + 7 blocks: one 8-lane
    # AVX2 batch).
    SHORT_AEAD = 448


# The one GIL rule, for every call over a caller's buffers (which stay held):
#     ts = nogil_for(n)       # n >= GIL_THRESHOLD bytes: the GIL is released
#     <noexcept nogil C calls only: no Python object, no exception>
#     regain(ts)
# (Cython's `with nogil(condition)` takes compile-time conditions only.)
cdef extern from "Python.h":
    ctypedef struct PyThreadState:
        pass
    PyThreadState* PyEval_SaveThread() noexcept nogil
    void PyEval_RestoreThread(PyThreadState* tstate) noexcept nogil

cdef inline PyThreadState* nogil_for(size_t n) noexcept:
    if n >= GIL_THRESHOLD:
        return PyEval_SaveThread()
    return NULL

cdef inline void regain(PyThreadState* ts) noexcept:
    if ts != NULL:
        PyEval_RestoreThread(ts)


cdef struct buf_t:
    const uint8_t* ptr
    size_t len
    bint held
    Py_buffer view

cdef int get_buf(object obj, buf_t* b, bint writable=*) except -1
cdef void put_buf(buf_t* b) noexcept
cdef int get_fixed(object obj, buf_t* b, size_t n, str what) except -1


# Poly1305 with buffering: whole blocks straight from the caller's memory,
# only a partial block (0-15 bytes) copied.
cdef struct mac_t:
    poly1305_state st
    const kernel_table* k
    uint8_t buf[16]
    size_t buflen

cdef void mac_init(mac_t* c, const kernel_table* k, const uint8_t* r16,
                   const uint8_t* s16) noexcept nogil
cdef void mac_update(mac_t* c, const uint8_t* p, size_t n) noexcept nogil
cdef void mac_pad16(mac_t* c) noexcept nogil
cdef void mac_lengths(mac_t* c, uint64_t aad_len, uint64_t ct_len) noexcept nogil
cdef void mac_final(mac_t* c, uint8_t* tag) noexcept nogil
cdef void mac_wipe(mac_t* c) noexcept nogil


# ChaCha20 key stream with a position: `used` blocks generated, the unused
# tail of the last one in ks[ks_off:64].
cdef struct stream_t:
    uint32_t st[16]
    const kernel_table* k
    uint64_t used
    uint64_t last
    uint8_t ks[64]
    uint32_t ks_off
    bint ctr64
    bint spent           # block `last` has been generated: nothing is left
    uint32_t w13

cdef void stream_init(stream_t* s, const kernel_table* k, const uint8_t* key32,
                      const uint8_t* nonce, size_t nonce_len) noexcept nogil
cdef void stream_set_nonce(stream_t* s, const uint8_t* nonce) noexcept nogil
cdef void stream_block0(stream_t* s, uint8_t* out64) noexcept nogil
cdef bint stream_can(stream_t* s, size_t n) noexcept nogil
cdef void stream_xor(stream_t* s, const uint8_t* src, uint8_t* dst, size_t n) noexcept nogil
cdef void stream_seek(stream_t* s, uint64_t block, uint32_t offset) noexcept nogil


# The AEAD core: s is the message's stream (key and nonce set, at block 0),
# which the call consumes.  rfc: RFC 8439's padding and lengths block;
# otherwise the MAC runs over aad || ct unpadded (OpenSSH).  etm_open returns
# 0 on a bad tag, and pt (private to the call) then holds zeros; with out (a
# caller's buffer), pt receives the ciphertext and out the plaintext only
# once the tag checked out (zeros otherwise).
cdef void etm_seal(stream_t* s, bint rfc, const uint8_t* aad, size_t alen,
                   const uint8_t* pt, uint8_t* ct, size_t n, uint8_t* tag) noexcept nogil
cdef bint etm_open(stream_t* s, bint rfc, const uint8_t* aad, size_t alen,
                   const uint8_t* ct, uint8_t* pt, size_t n, const uint8_t* tag,
                   uint8_t* out) noexcept nogil
