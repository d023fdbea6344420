# The multi-buffer ChaCha20 kernels' shared rules, one copy for every lane
# width (4: _chacha20_mb_vec4.pxi, 8: _chacha20_mb_ymm.pxi, 16:
# _chacha20_mb_avx512.pxi); included by each module before those files.
#
# Lane j is message j, with its own input block; the lanes are taken a group
# of `width` at a time, a group's input blocks transposed into word-major rows
# (mb_in[word * width + lane]), and step i of the group computes block i of
# every lane (counter word 12 + i).  A lane that needs fewer blocks than the
# longest of its group stores nothing for the later steps: the block counts
# are public (message lengths), so branching on them leaks nothing.  Each
# width supplies only its group step (and, if it has one, a register
# transpose for the gather); the driver below does the rest.
from poly1305x._kernels._kernel cimport chacha20_lanes_fn, chacha20_xor_fn


cdef enum:
    MB_MAX_WIDTH = 16


# A group step: `steps` blocks of every lane from the rows in mb_in, block blk
# of lane j to mb_block_out(out, nblocks, j, blk).
ctypedef void (*mb_group_fn)(const uint32_t* mb_in, uint32_t steps, uint8_t* const* out,
                             const uint32_t* nblocks) noexcept nogil

# A group gather in registers: src[j] is lane j's input block, or NULL for a
# pad lane (zero words); fills the width's rows of mb_in.
ctypedef void (*mb_gather_fn)(const uint32_t* const* src, uint32_t* mb_in) noexcept nogil


cdef inline uint8_t* mb_block_out(uint8_t* const* out, const uint32_t* nblocks, size_t lane,
                                  uint32_t blk) noexcept nogil:
    # Where block blk of a lane goes, or NULL when that lane has no block blk
    # (the group's longer lanes are still running).
    if blk < nblocks[lane]:
        return out[lane] + 64 * <size_t>blk
    return NULL


cdef inline void mb_transpose(const uint32_t* const* src, size_t width,
                              uint32_t* mb_in) noexcept nogil:
    # The gather in plain words: src[j]'s word w to mb_in[w * width + j].
    cdef size_t j, w
    for j in range(width):
        if src[j] != NULL:
            for w in range(16):
                mb_in[w * width + j] = src[j][w]
        else:
            for w in range(16):
                mb_in[w * width + j] = 0


cdef inline void mb_lanes(const uint32_t* states, size_t nlanes, uint8_t* const* out,
                          const uint32_t* nblocks, size_t width, mb_group_fn group,
                          mb_gather_fn gather, uint32_t max_blocks, chacha20_xor_fn one,
                          size_t tail_from, chacha20_lanes_fn tail) noexcept nogil:
    # The chacha20_lanes contract (_kernel.pxd) in groups of `width` lanes run
    # by `group`, gathered by `gather` (NULL: mb_transpose).  A lane of more
    # than max_blocks blocks runs alone on `one` (a copy of its input block).
    # Once no more than tail_from lanes are left, they go to `tail` (0 and
    # NULL: no tail).  The arguments are constants at each call, so the
    # compiler turns the calls through them into direct ones.
    cdef uint32_t mb_in[16 * MB_MAX_WIDTH]
    cdef uint32_t st[16]
    cdef const uint32_t* src[MB_MAX_WIDTH]
    cdef uint8_t* o[MB_MAX_WIDTH]
    cdef uint32_t nb[MB_MAX_WIDTH]
    cdef size_t g, j
    cdef uint32_t steps
    while nlanes > tail_from:
        g = 0
        steps = 0
        while nlanes and g < width:
            if nblocks[0] > max_blocks:
                memcpy(st, states, 64)
                one(st, NULL, out[0], nblocks[0])
            else:
                src[g] = states
                o[g] = out[0]
                nb[g] = nblocks[0]
                if nb[g] > steps:
                    steps = nb[g]
                g += 1
            states += 16
            out += 1
            nblocks += 1
            nlanes -= 1
        for j in range(g, width):
            src[j] = NULL
            o[j] = NULL
            nb[j] = 0
        if gather != NULL:
            gather(src, mb_in)
        else:
            mb_transpose(src, width, mb_in)
        group(mb_in, steps, o, nb)
    if nlanes:
        tail(states, nlanes, out, nblocks)
    wipe(mb_in, 64 * width)
    if max_blocks != <uint32_t>-1:
        wipe(st, sizeof(st))
