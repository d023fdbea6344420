# Included by _dispatch.pyx: the known-answer self-test a backend passes before
# it can be chosen (_load runs it once per backend, on its first selection),
# over the whole kernel table: the one-message Poly1305 and ChaCha20 loops
# (RFC 8439 vectors, and long inputs against the scalar backend), and the
# lanes of the batch AEAD (chacha20_lanes, poly1305_lanes) against the
# one-message loops, so that a miscompiled lane kernel is never first run by
# a caller's encrypt_many.  Plus the test hook that breaks one lane of a
# backend's lane kernel for its next load.

from poly1305x._kernels._kernel cimport chacha20_lanes_fn, poly1305_lanes_fn

# The lanes' known answer: more lanes than the widest kernel takes in a step
# (16), block counts that differ from lane to lane and include 0 and the most
# the batch gives a lane (17 ChaCha20 blocks: block 0 and 1 KiB).  The
# Poly1305 inputs are RFC 8439's padded MAC input (aad, ciphertext, lengths)
# of data lengths that end mid-block, at a block end, and 0, and one empty
# input (no block at all: the tag is s).  About 60 us on any backend.
cdef enum:
    _LANES = 19
_LANE_BLOCKS = tuple((5 * j + 3) % 18 for j in range(_LANES))
# The lanes' bytes are slices of one pattern: built at import, they must cost
# next to nothing (a generator a byte would take longer than the test).
_PATTERN = bytes(range(256)) * 6
_LANE_KEYS = tuple(_PATTERN[13 * j:13 * j + 32] for j in range(_LANES - 1)) \
    + (b"\xff" * 32,)                       # r at its clamp's top, s all ones (the carry)
_LANE_NONCES = tuple(_PATTERN[7 * j + 1:7 * j + 13] for j in range(_LANES))
_LANE_COUNTERS = tuple((j * 0x1000001) & 0xffffff for j in range(_LANES))


def _mac_input(size_t alen, size_t clen, size_t seed):
    """RFC 8439's padded MAC input of alen bytes of aad and clen of ciphertext."""
    a = _PATTERN[seed:seed + alen]
    c = _PATTERN[5 * seed + 3:5 * seed + 3 + clen]
    return (a + bytes(-alen % 16) + c + bytes(-clen % 16)
            + alen.to_bytes(8, "little") + clen.to_bytes(8, "little"))


_LANE_MACS = tuple(_mac_input((j * 7) % 20, (0, 1, 15, 16, 17, 63, 64, 100, 255, 256, 1000)[j % 11], j)
                   for j in range(_LANES - 1)) + (b"",)
# The long inputs: 4099 bytes (7 i + 3) mod 256, a period of 256 repeated.
_LONG_MSG = (bytes((i * 7 + 3) & 0xff for i in range(256)) * 17)[:4099]
_LONG_KEY = bytes(range(255, 223, -1))


cdef int _lanes_self_test(str name, const kernel_table* k, const kernel_table* ref) except -1:
    """k's chacha20_lanes and poly1305_lanes on the lanes above against ref's
    one-message loops (ref: the scalar backend, or k itself for scalar, whose
    loops the RFC vectors have just checked).  Each lane's key stream has a
    guard block after it that must stay untouched."""
    cdef uint32_t states[16 * _LANES]
    cdef uint32_t st[16]
    cdef uint32_t nb[_LANES]
    cdef uint8_t* outs[_LANES]
    cdef const uint8_t* keys[_LANES]
    cdef const uint8_t* msgs[_LANES]
    cdef uint8_t* tagp[_LANES]
    cdef uint8_t tags[16 * _LANES]
    cdef size_t j, total = 0, off, nl = _LANES
    for j in range(nl):
        total += 64 * (_LANE_BLOCKS[j] + 1)
    got = bytearray(b"\xa5" * total)
    want = bytearray(b"\xa5" * total)
    cdef uint8_t* g = got
    cdef uint8_t* w = want
    off = 0
    for j in range(nl):
        chacha20_init_state(&states[16 * j], <bytes>_LANE_KEYS[j], <bytes>_LANE_NONCES[j], 12,
                            <uint32_t>_LANE_COUNTERS[j])
        memcpy(st, &states[16 * j], sizeof(st))
        nb[j] = <uint32_t>_LANE_BLOCKS[j]
        outs[j] = g + off
        ref.chacha20_xor(st, NULL, w + off, nb[j])
        off += 64 * (nb[j] + 1)
    k.chacha20_lanes(states, nl, outs, nb)
    if got != want:
        raise ImportError(f"poly1305x backend {name!r} failed its ChaCha20 lanes self-test")
    for j in range(nl):
        keys[j] = <bytes>_LANE_KEYS[j]
        msgs[j] = <bytes>_LANE_MACS[j]
        nb[j] = <uint32_t>(len(_LANE_MACS[j]) // 16)
        tagp[j] = &tags[16 * j]
    k.poly1305_lanes(keys, msgs, nb, tagp, nl)
    for j in range(nl):
        if (PyBytes_FromStringAndSize(<char*>&tags[16 * j], 16)
                != _mac_with(ref, _LANE_KEYS[j], _LANE_MACS[j])):
            raise ImportError(f"poly1305x backend {name!r} failed its Poly1305 lanes self-test")
    return 0


cdef int _self_test(str name, const kernel_table* k) except -1:
    cdef const kernel_table* ref = k
    if _mac_with(k, _POLY_KEY, _POLY_MSG) != _POLY_TAG:
        raise ImportError(f"poly1305x backend {name!r} failed its Poly1305 self-test")
    if _chacha_with(k, _CHACHA_KEY, _CHACHA_NONCE, 1, 1) != _CHACHA_BLOCK1:
        raise ImportError(f"poly1305x backend {name!r} failed its ChaCha20 self-test")
    if name != "scalar":
        ref = kernels_named("scalar")
        if _mac_with(k, _LONG_KEY, _LONG_MSG) != _mac_with(ref, _LONG_KEY, _LONG_MSG):
            raise ImportError(f"poly1305x backend {name!r} failed its long Poly1305 self-test")
        if (_chacha_with(k, _CHACHA_KEY, _CHACHA_NONCE, 37, 0xfffffff0)
                != _chacha_with(ref, _CHACHA_KEY, _CHACHA_NONCE, 37, 0xfffffff0)):
            raise ImportError(f"poly1305x backend {name!r} failed its long ChaCha20 self-test")
    _lanes_self_test(name, k, ref)
    return 0


# --- Test hook: one lane of a lane kernel broken on purpose -------------------
# _break_lane_at_next_load(name, entry, lane) makes the next load of backend
# name (set_backend's first selection of it) self-test a copy of its table
# whose chacha20_lanes or poly1305_lanes damages lane `lane`'s output: the
# last key-stream byte (or, for a lane of no blocks, the first byte after
# it), or the tag's first byte.  The copy only ever meets the self-test: a
# load that passed would register the real table.

cdef kernel_table _broken_table
cdef chacha20_lanes_fn _real_chacha20_lanes = NULL
cdef poly1305_lanes_fn _real_poly1305_lanes = NULL
cdef size_t _broken_lane = 0
_break_next = {}      # backend name -> (entry, lane), consumed by _load


cdef void _chacha20_lanes_broken(const uint32_t* states, size_t nlanes, uint8_t* const* out,
                                 const uint32_t* nblocks) noexcept nogil:
    _real_chacha20_lanes(states, nlanes, out, nblocks)
    if _broken_lane < nlanes:
        if nblocks[_broken_lane]:
            out[_broken_lane][64 * nblocks[_broken_lane] - 1] ^= 1
        else:
            out[_broken_lane][0] ^= 1


cdef void _poly1305_lanes_broken(const uint8_t* const* keys, const uint8_t* const* msgs,
                                 const uint32_t* nblocks, uint8_t* const* tags,
                                 size_t nlanes) noexcept nogil:
    _real_poly1305_lanes(keys, msgs, nblocks, tags, nlanes)
    if _broken_lane < nlanes:
        tags[_broken_lane][0] ^= 1


cdef const kernel_table* _maybe_broken(str name, const kernel_table* k) except NULL:
    """k, or the broken copy the hook asked for at this load of name."""
    global _broken_table, _real_chacha20_lanes, _real_poly1305_lanes, _broken_lane
    order = _break_next.pop(name, None)
    if order is None:
        return k
    entry, lane = order
    _broken_table = k[0]
    _broken_lane = lane
    if entry == "chacha20_lanes":
        _real_chacha20_lanes = k.chacha20_lanes
        _broken_table.chacha20_lanes = _chacha20_lanes_broken
    else:
        _real_poly1305_lanes = k.poly1305_lanes
        _broken_table.poly1305_lanes = _poly1305_lanes_broken
    return &_broken_table


def _break_lane_at_next_load(str name, str entry, size_t lane):
    """Test hook (above): the next load of backend ``name`` self-tests its
    table with ``entry`` ("chacha20_lanes" or "poly1305_lanes") damaging lane
    ``lane``; name's loaded table is forgotten, so that the next
    set_backend(name) loads it again."""
    if entry not in ("chacha20_lanes", "poly1305_lanes"):
        raise ValueError("entry must be 'chacha20_lanes' or 'poly1305_lanes'")
    with _lock:
        _tables.pop(name, None)
        _break_next[name] = (entry, lane)
