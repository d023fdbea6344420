# cython: language_level=3, embedsignature=True
"""Test hooks: one backend's kernels called alone, by name, with no engine,
buffering or batch logic between the test and the kernel.  For the kernel
tests only; nothing in the package imports this module.

It sits beside the engine, above the dispatcher: it takes a backend's table
from the dispatcher (kernels_named, which loads and self-tests it) and calls
the kernel entries the table holds, so the layers stay one-way (tests ->
_testing -> _dispatch -> kernels) and the dispatcher holds no test aid."""
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport uint8_t, uint32_t

from poly1305x._core._dispatch cimport _chacha_with, _mac_with, kernels_named
from poly1305x._kernels._common cimport chacha20_init_state
from poly1305x._kernels._kernel cimport kernel_table


def kernel_poly1305(str name, bytes key, bytes msg):
    """Tag of msg under the 32-byte one-time key, computed by backend ``name``'s
    loop alone (for tests of each kernel; no buffering involved)."""
    if len(key) != 32:
        raise ValueError("key must be 32 bytes")
    return _mac_with(kernels_named(name), key, msg)


def kernel_chacha20(str name, bytes key, bytes nonce, size_t nblocks, uint32_t counter):
    """nblocks of RFC 8439 ChaCha20 key stream from backend ``name``'s loop,
    starting at ``counter`` (the kernels carry it into word 13 as 64 bits)."""
    if len(key) != 32 or len(nonce) != 12:
        raise ValueError("key must be 32 bytes and nonce 12 bytes")
    return _chacha_with(kernels_named(name), key, nonce, nblocks, counter)


def kernel_chacha20_xor(str name, bytes key, bytes nonce, data, uint32_t counter,
                        bint in_place=False, Py_ssize_t split=-1):
    """data (whole 64-byte blocks) XORed with the RFC 8439 ChaCha20 key stream
    from backend ``name``'s loop, starting at ``counter``.  The kernel works on
    a bytearray copy of data: in place on it when ``in_place`` (src == dst),
    else from it into a fresh buffer (src != dst).  With ``split`` >= 0 the
    kernel is called twice on one state, for blocks [0, split) and then the
    rest, which checks that it stores the advanced counter back.  For tests of
    each kernel."""
    cdef uint32_t state[16]
    cdef const kernel_table* k = kernels_named(name)
    if len(key) != 32 or len(nonce) != 12:
        raise ValueError("key must be 32 bytes and nonce 12 bytes")
    src = bytearray(data)
    if len(src) % 64:
        raise ValueError("data must be whole 64-byte blocks")
    cdef size_t n = len(src) // 64
    cdef size_t first = n if split < 0 else <size_t>split
    if first > n:
        raise ValueError("split is beyond the data")
    out = src if in_place else bytearray(len(src))
    cdef uint8_t* s = src
    cdef uint8_t* o = out
    chacha20_init_state(state, key, nonce, 12, counter)
    k.chacha20_xor(state, s, o, first)
    if first < n:
        k.chacha20_xor(state, s + 64 * first, o + 64 * first, n - first)
    return bytes(out)


def kernel_poly1305_lanes(str name, keys, msgs):
    """[tag of msgs[j] under keys[j]] from backend ``name``'s multi-buffer
    Poly1305 (its poly1305_lanes entry), all messages in one call.  Each key
    is 32 bytes; each message whole 16-byte blocks, every one with the 2^128
    bit (as RFC 8439's padded MAC input is), so the tags are Poly1305's.  For
    tests of each kernel."""
    cdef const kernel_table* k = kernels_named(name)
    keys = [bytes(x) for x in keys]
    msgs = [bytes(x) for x in msgs]
    if len(keys) != len(msgs) or any(len(x) != 32 for x in keys) or \
            any(len(x) % 16 or len(x) >= (1 << 36) for x in msgs):
        raise ValueError("one 32-byte key a message, and messages of whole 16-byte blocks")
    cdef size_t n = len(keys), j
    out = bytearray(16 * n + 1)
    cdef uint8_t* t = out
    cdef const uint8_t** kp = <const uint8_t**>PyMem_Malloc((2 * n + 1) * sizeof(void*))
    cdef uint8_t** tp = <uint8_t**>PyMem_Malloc((n + 1) * sizeof(void*))
    cdef uint32_t* nb = <uint32_t*>PyMem_Malloc((n + 1) * sizeof(uint32_t))
    try:
        if kp == NULL or tp == NULL or nb == NULL:
            raise MemoryError()
        for j in range(n):
            kp[j] = <const uint8_t*><bytes>keys[j]
            kp[n + j] = <const uint8_t*><bytes>msgs[j]
            nb[j] = <uint32_t>(len(msgs[j]) // 16)
            tp[j] = t + 16 * j
        with nogil:
            k.poly1305_lanes(kp, kp + n, nb, tp, n)
    finally:
        PyMem_Free(kp)
        PyMem_Free(tp)
        PyMem_Free(nb)
    return [bytes(out[16 * j:16 * j + 16]) for j in range(n)]


def kernel_chacha20_lanes(str name, keys, nonces, counters, nblocks):
    """[key stream of lane j] from backend ``name``'s multi-buffer ChaCha20
    (its chacha20_lanes entry), every lane in one call: lane j is nblocks[j]
    64-byte blocks of the RFC 8439 key stream under keys[j] (32 bytes) and
    nonces[j] (12 bytes), from block counters[j].  A lane's counter may not
    pass 2^32 within it (the lanes do not carry into word 13).  For tests of
    each kernel."""
    cdef const kernel_table* k = kernels_named(name)
    keys = [bytes(x) for x in keys]
    nonces = [bytes(x) for x in nonces]
    counters = [int(x) for x in counters]
    nblocks = [int(x) for x in nblocks]
    cdef Py_ssize_t n = len(keys), j
    if not len(nonces) == len(counters) == len(nblocks) == n or \
            any(len(x) != 32 for x in keys) or any(len(x) != 12 for x in nonces) or \
            any(not (0 <= c < (1 << 32) and 0 <= b <= (1 << 32) - c)
                for c, b in zip(counters, nblocks)):
        raise ValueError("per lane a 32-byte key, a 12-byte nonce, and a counter and a "
                         "block count within the 32-bit counter")
    outs = [bytearray(64 * b) for b in nblocks]
    cdef uint32_t* states = <uint32_t*>PyMem_Malloc((16 * n + 1) * sizeof(uint32_t))
    cdef uint8_t** op = <uint8_t**>PyMem_Malloc((n + 1) * sizeof(void*))
    cdef uint32_t* nb = <uint32_t*>PyMem_Malloc((n + 1) * sizeof(uint32_t))
    try:
        if states == NULL or op == NULL or nb == NULL:
            raise MemoryError()
        for j in range(n):
            chacha20_init_state(states + 16 * j, <bytes>keys[j], <bytes>nonces[j], 12,
                                <uint32_t>counters[j])
            op[j] = <uint8_t*><bytearray>outs[j]
            nb[j] = <uint32_t>nblocks[j]
        with nogil:
            k.chacha20_lanes(states, <size_t>n, op, nb)
    finally:
        PyMem_Free(states)
        PyMem_Free(op)
        PyMem_Free(nb)
    return [bytes(o) for o in outs]
