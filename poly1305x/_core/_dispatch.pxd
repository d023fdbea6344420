# cython: language_level=3
from libc.stdint cimport uint32_t

from poly1305x._kernels._kernel cimport kernel_table

# The kernel table that new states take; set at import (POLY1305X_BACKEND or the
# best usable backend) and by set_backend().
cdef const kernel_table* active_kernels() noexcept nogil
cdef const kernel_table* kernels_named(str name) except NULL

# The self-test's one-kernel calls, shared with the test hooks (_testing.pyx):
# the tag of msg under a 32-byte one-time key by k's Poly1305 loop alone, and
# nblocks of k's ChaCha20 key stream from counter ctr (12-byte nonce).
cdef bytes _mac_with(const kernel_table* k, bytes key, bytes msg)
cdef bytes _chacha_with(const kernel_table* k, bytes key, bytes nonce, size_t nblocks, uint32_t ctr)
