# cython: language_level=3
"""The kernel ABI: the one contract between the instruction-set modules, the
dispatcher and the engine.

Every instruction-set module (each backend entry's module in
_kernels/_registry.py) fills one ``kernel_table`` per backend it offers and hands its address to the
dispatcher in a PyCapsule named ``KERNEL_CAPSULE``.  Nothing here holds a
vector type: states live inside Python objects, which are only 16-byte aligned.

The names inside the kernel files share prefixes; what each one means:

==================  ==========================================================
prefix              what it names (where)
==================  ==========================================================
``p1305x_``         C-level helpers and macros of the headers (``_cpu.h``,
                    ``_le.h``, ``_wide.h``, ``_simd.h``): the namespace of
                    everything a .h defines
``p1305x_v4_``      four 32-bit lanes as compiler generic vectors (``_vec4.h``)
``p1305x_s4_``      the same four lanes as a struct of four words (``_vec4.h``)
``l4_``             the portable ChaCha20's four-lane operations over either
                    of those (``_chacha20_portable.pxi``)
``p1305x_n32_``,    NEON-shaped two-lane limbs: two 32-bit lanes, two 64-bit
``p1305x_n64_``,    lanes, four 32-bit multipliers (``_neon.h``)
``p1305x_n128_``
``p26_``            radix-2^26 Poly1305 arithmetic shared by every 26-bit
                    kernel (``_radix26.pxd``)
``_p26_``           the AVX2 and AVX-512F 26-bit kernels' key set-up
``_p26v_``          26-bit limbs in ymm, four blocks a step (``_poly1305_avx2``)
``_p26z_``          26-bit limbs in zmm, 16 blocks a step (``_poly1305_avx512f``)
``_p44_``           radix-2^44 scalar limbs for the IFMA kernels (``_poly1305_avx512``)
``_p44v_``          44-bit limbs in zmm, the IFMA (vpmadd52) steps
``_n2_``            two blocks a step on the two NEON lanes (``_poly1305_neon``)
``_chacha8_``       ChaCha20 on ymm: eight blocks of one message a step
``_chacha16_``      ChaCha20 on zmm: 16 blocks of one message a step
``mb_``             multi-buffer ("many messages"): one message per lane
``mb4_``            multi-buffer ChaCha20, 4 lanes (``_chacha20_mb_vec4``)
``_mb8_``           multi-buffer ChaCha20, 8 lanes in ymm (``_chacha20_mb_ymm``)
``_mb16_``          multi-buffer ChaCha20, 16 lanes in zmm (``_chacha20_mb_avx512``)
``_mb26_``          multi-buffer Poly1305, 26-bit limbs in ymm (``_poly1305_mb_avx2``)
``_mbz_``           multi-buffer Poly1305, 26-bit limbs in zmm (``_poly1305_mb_avx512f``)
``_mb44_``          multi-buffer Poly1305, 44-bit limbs, IFMA (``_poly1305_mb_avx512``)
``_n2l_``, ``n2l_`` multi-buffer Poly1305 on the two NEON lanes (``_poly1305_mb_neon``)
==================  ==========================================================

A leading underscore marks a helper private to its file's kernel; names
without one (``chacha20_``, ``poly1305_``, ``kernel_``) are the table's entry
points and the types of this ABI.
"""
from libc.stdint cimport uint8_t, uint32_t, uint64_t

cdef extern from *:
    """
    #define P1305X_KERNEL_CAPSULE "poly1305x.kernel_table"
    """
    const char* P1305X_KERNEL_CAPSULE

# The powers-of-r cache: its size, and which words and powers_ready bit each
# vector kernel owns (P1305X_<REGION>_POWERS, P1305X_<REGION>_READY: declared
# by _powers_map.pxi, which setup.py generates from the registry's POWERS).
cdef extern from "_powers.h":
    enum:
        P1305X_POWERS_WORDS
include "_powers_map.pxi"


ctypedef struct poly1305_state:
    # Accumulator in base 2^64, partially reduced: h = h[0] + h[1]*2^64 + h[2]*2^128
    # with h[2] < 8.  Every kernel reads and writes this form, so a state can be
    # driven by the scalar loop and a vector loop in turn.
    uint64_t h[3]
    # Clamped r in base 2^64 (r[0], r[1] < 2^60, r[1] % 4 == 0) and the pad s.
    uint64_t r[2]
    uint64_t s[2]
    # Per-key cache of powers of r, laid out by the vector kernel that owns the
    # state; powers_ready is 0 until that kernel has filled it.
    uint64_t powers[P1305X_POWERS_WORDS]
    int powers_ready


# Absorb nblocks 16-byte blocks from m; hibit is 1 for full blocks (adds 2^128)
# and 0 for the padded final block.  Any nblocks, including 0.
ctypedef void (*poly1305_blocks_fn)(poly1305_state* st, const uint8_t* m,
                                    size_t nblocks, uint64_t hibit) noexcept nogil

# XOR nblocks 64-byte ChaCha20 key-stream blocks into src, writing dst (src may
# equal dst; src NULL writes the bare key stream).  state16 is the 16-word input
# block; the kernel starts at the counter in words 12 (low) and 13 (high),
# advances it by one per block as a 64-bit number, and stores it back.  Callers
# of the 96-bit-nonce variant make sure word 12 never wraps inside a call.
ctypedef void (*chacha20_xor_fn)(uint32_t* state16, const uint8_t* src,
                                 uint8_t* dst, size_t nblocks) noexcept nogil

# The key streams of many messages at once, one message per vector lane (the
# batch AEAD, _core/_batch.pxi).  For lane j < nlanes: states + 16 j is
# that message's 16-word input block (read only), and nblocks[j] blocks of
# bare key stream go to out[j] (64 nblocks[j] bytes), block i with word 12
# advanced by i (the caller makes sure it does not wrap).  The lanes' block
# counts may differ; any nlanes (a kernel takes its lane width at a time).
ctypedef void (*chacha20_lanes_fn)(const uint32_t* states, size_t nlanes,
                                   uint8_t* const* out, const uint32_t* nblocks) noexcept nogil

# The Poly1305 tags of many short messages at once, one message per lane (the
# batch AEAD): for lane j < nlanes, keys[j] is its 32-byte one-time key (r, s),
# msgs[j] its nblocks[j] whole 16-byte blocks, each with the 2^128 bit (RFC
# 8439's padded MAC input), and tags[j] receives its 16-byte tag.
ctypedef void (*poly1305_lanes_fn)(const uint8_t* const* keys, const uint8_t* const* msgs,
                                   const uint32_t* nblocks, uint8_t* const* tags,
                                   size_t nlanes) noexcept nogil


ctypedef struct kernel_table:
    # The backend name objects report: written by the dispatcher when it loads
    # the table, from the registry entry (a kernel module leaves it unset).
    const char* name
    # A vector kernel decides itself where it pays: below its threshold, and for
    # its leftover blocks, it hands the work to the portable scalar loop.
    poly1305_blocks_fn poly1305_blocks
    chacha20_xor_fn chacha20_xor
    chacha20_lanes_fn chacha20_lanes
    poly1305_lanes_fn poly1305_lanes
    # The longest message (in blocks, block 0 included) for which the lanes
    # pay on this backend; the engine gives longer ones the one-message path.
    uint32_t lanes_max_blocks
