# cython: language_level=3
"""C-level engine pieces for other Cython modules of the package (the SSH
packet cipher): buffers, the Poly1305 stream state, the ChaCha20 key stream
and the one-shot AEAD.  Everything runs on the kernel table it was given."""
from libc.stdint cimport uint8_t, uint32_t, uint64_t

from poly1305x._kernels._kernel cimport kernel_table, poly1305_state


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
cdef bint stream_can(stream_t* s, size_t n) noexcept nogil
cdef void stream_xor(stream_t* s, const uint8_t* src, uint8_t* dst, size_t n) noexcept nogil
cdef void stream_seek(stream_t* s, uint64_t block, uint32_t offset) noexcept nogil


# One-shot RFC 8439 AEAD (12-byte nonce); aead_open returns 0 on a bad tag and
# then leaves no plaintext in pt.
cdef void aead_seal(const kernel_table* k, const uint8_t* key32, const uint8_t* nonce12,
                    const uint8_t* aad, size_t alen, const uint8_t* pt, uint8_t* ct,
                    size_t n, uint8_t* tag) noexcept nogil
cdef bint aead_open(const kernel_table* k, const uint8_t* key32, const uint8_t* nonce12,
                    const uint8_t* aad, size_t alen, const uint8_t* ct, uint8_t* pt,
                    size_t n, const uint8_t* tag) noexcept nogil
