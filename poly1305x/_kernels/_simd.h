/* The intrinsics the SIMD kernels use.  Normally immintrin.h.  With
 * POLY1305X_SIMDE defined (a test build, see setup.py) the same kernel source
 * compiles against SIMDe's portable implementations, so the AVX-512 kernels can
 * be checked on a CPU without AVX-512; SIMDe 0.7 lacks IFMA, which is emulated
 * here lane by lane. */
#ifndef POLY1305X_SIMD_H
#define POLY1305X_SIMD_H
#ifdef POLY1305X_SIMDE
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
#include <stdint.h>
#ifndef _mm512_madd52lo_epu64
static inline __m512i p1305x_madd52(__m512i a, __m512i b, __m512i c, int hi) {
    uint64_t va[8], vb[8], vc[8];
    int i;
    _mm512_storeu_si512(va, a); _mm512_storeu_si512(vb, b); _mm512_storeu_si512(vc, c);
    for (i = 0; i < 8; i++) {
        unsigned __int128 p = (unsigned __int128)(vb[i] & 0xFFFFFFFFFFFFFull) *
                              (vc[i] & 0xFFFFFFFFFFFFFull);
        va[i] += hi ? (uint64_t)(p >> 52) : (uint64_t)p & 0xFFFFFFFFFFFFFull;
    }
    return _mm512_loadu_si512(va);
}
static inline __m256i p1305x_madd52_256(__m256i a, __m256i b, __m256i c, int hi) {
    uint64_t va[4], vb[4], vc[4];
    int i;
    _mm256_storeu_si256((__m256i *)va, a); _mm256_storeu_si256((__m256i *)vb, b);
    _mm256_storeu_si256((__m256i *)vc, c);
    for (i = 0; i < 4; i++) {
        unsigned __int128 p = (unsigned __int128)(vb[i] & 0xFFFFFFFFFFFFFull) *
                              (vc[i] & 0xFFFFFFFFFFFFFull);
        va[i] += hi ? (uint64_t)(p >> 52) : (uint64_t)p & 0xFFFFFFFFFFFFFull;
    }
    return _mm256_loadu_si256((__m256i *)va);
}
#define _mm512_madd52lo_epu64(a, b, c) p1305x_madd52((a), (b), (c), 0)
#define _mm512_madd52hi_epu64(a, b, c) p1305x_madd52((a), (b), (c), 1)
#define _mm256_madd52lo_epu64(a, b, c) p1305x_madd52_256((a), (b), (c), 0)
#define _mm256_madd52hi_epu64(a, b, c) p1305x_madd52_256((a), (b), (c), 1)
#endif
#else
#include <immintrin.h>
#endif
#endif
