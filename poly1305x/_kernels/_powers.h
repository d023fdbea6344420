/* The per-key cache of powers of r in poly1305_state.powers (_kernel.pxd):
 * one region and one powers_ready bit per vector kernel, so a state driven by
 * one kernel never reads another kernel's layout (the AVX-512F kernel reads
 * the AVX2 region too: it fills it with the AVX2 kernel's own code).  The
 * layouts themselves are described where they are filled (_poly1305_avx2.pxi,
 * _poly1305_avx512.pxi, _poly1305_avx512f.pxi, _poly1305_neon.pxi); this is
 * the one map of who owns which words, checked at compile time. */
#ifndef P1305X_POWERS_H
#define P1305X_POWERS_H

enum {
    P1305X_POWERS_WORDS = 128,          /* the size of poly1305_state.powers */

    /* AVX2, radix 2^26: r^1..r^8, five limbs each, limb-major */
    P1305X_AVX2_POWERS = 0,
    P1305X_AVX2_POWERS_LEN = 8 * 5,
    P1305X_AVX2_READY = 1,

    /* AVX-512 IFMA, radix 2^44: r^1..r^16, three limbs each, limb-major */
    P1305X_IFMA_POWERS = P1305X_AVX2_POWERS + P1305X_AVX2_POWERS_LEN,
    P1305X_IFMA_POWERS_LEN = 16 * 3,
    P1305X_IFMA_READY = 2,

    /* NEON, radix 2^26: (r^2, r^1) and (r^4, r^3), five limb pairs each */
    P1305X_N2_POWERS = P1305X_IFMA_POWERS + P1305X_IFMA_POWERS_LEN,
    P1305X_N2_POWERS_LEN = 2 * 5,
    P1305X_N2_READY = 4,

    /* AVX-512F (no IFMA), radix 2^26: r^16, five limbs; r^1..r^8 are the
     * AVX2 kernel's words above (the same code fills them) */
    P1305X_F16_POWERS = P1305X_N2_POWERS + P1305X_N2_POWERS_LEN,
    P1305X_F16_POWERS_LEN = 5,
    P1305X_F16_READY = 8,

    P1305X_POWERS_END = P1305X_F16_POWERS + P1305X_F16_POWERS_LEN
};

/* Compile-time checks (a negative array size fails on every C compiler). */
typedef char p1305x_powers_fit[P1305X_POWERS_END <= P1305X_POWERS_WORDS ? 1 : -1];
typedef char p1305x_powers_map[(P1305X_AVX2_POWERS == 0 && P1305X_IFMA_POWERS == 40
                                && P1305X_N2_POWERS == 88 && P1305X_F16_POWERS == 98
                                && P1305X_POWERS_END == 103) ? 1 : -1];
typedef char p1305x_ready_bits[((P1305X_AVX2_READY | P1305X_IFMA_READY | P1305X_N2_READY
                                 | P1305X_F16_READY) == 15)
                               ? 1 : -1];

#endif
