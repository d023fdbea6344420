# cython: language_level=3
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from poly1305x._kernel cimport poly1305_state

# Scalar loops: the portable backends, and the short-input/tail path of the
# vector backends.
cdef void poly1305_blocks_portable(poly1305_state* st, const uint8_t* m,
                                   size_t nblocks, uint64_t hibit) noexcept nogil
cdef void poly1305_blocks_portable26(poly1305_state* st, const uint8_t* m,
                                     size_t nblocks, uint64_t hibit) noexcept nogil
cdef void chacha20_xor_portable(uint32_t* state16, const uint8_t* src,
                                uint8_t* dst, size_t nblocks) noexcept nogil

# Shared by every backend (no loop, no vector code).
cdef void poly1305_init(poly1305_state* st, const uint8_t* r16,
                        const uint8_t* s16) noexcept nogil
cdef void poly1305_finish(poly1305_state* st, uint8_t* tag16) noexcept nogil
cdef void chacha20_init_state(uint32_t* state16, const uint8_t* key32,
                              const uint8_t* nonce, size_t nonce_len,
                              uint64_t counter) noexcept nogil
cdef void hchacha20(const uint8_t* key32, const uint8_t* nonce16,
                    uint8_t* out32) noexcept nogil
cdef int tags_equal(const uint8_t* a, const uint8_t* b, size_t n) noexcept nogil
cdef void wipe(void* p, size_t n) noexcept nogil
