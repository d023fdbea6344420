# Poly1305 over many short messages, one after another on the scalar loops:
# the poly1305_lanes entry (see _kernel.pxd) of the scalar and portable26
# backends, and of portable where it has no NEON (aarch64 has two messages at
# once, _poly1305_mb_neon.pxi); included by _portable.pyx.  Each
# message is whole 16-byte blocks with the 2^128 bit, as the RFC 8439 AEAD
# pads its MAC input.
from poly1305x._kernels._common cimport poly1305_finish, poly1305_init


cdef void poly1305_lanes_portable(const uint8_t* const* keys, const uint8_t* const* msgs,
                                  const uint32_t* nblocks, uint8_t* const* tags,
                                  size_t nlanes) noexcept nogil:
    cdef poly1305_state st
    cdef size_t j
    for j in range(nlanes):
        poly1305_init(&st, keys[j], keys[j] + 16)
        poly1305_blocks_portable(&st, msgs[j], nblocks[j], 1)
        poly1305_finish(&st, tags[j])
    wipe(&st, sizeof(st))


cdef void poly1305_lanes_portable26(const uint8_t* const* keys, const uint8_t* const* msgs,
                                    const uint32_t* nblocks, uint8_t* const* tags,
                                    size_t nlanes) noexcept nogil:
    """The same on the 26-bit loop (portable26)."""
    cdef poly1305_state st
    cdef size_t j
    for j in range(nlanes):
        poly1305_init(&st, keys[j], keys[j] + 16)
        poly1305_blocks_portable26(&st, msgs[j], nblocks[j], 1)
        poly1305_finish(&st, tags[j])
    wipe(&st, sizeof(st))
