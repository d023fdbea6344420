/* Four 32-bit lanes, for the multi-block portable ChaCha20 (_portable.pyx).
 *
 * Two families with the same small set of inline primitives (add, xor, rotate
 * left by a constant, set, little-endian load/store, 4x4 transpose):
 *
 *   p1305x_v4_*  GCC/Clang generic vectors (vector_size(16)).  The compiler
 *                maps them onto the target's baseline vector ISA: SSE2 on
 *                x86-64, NEON (ASIMD) on aarch64, VSX on ppc64le, and scalar
 *                code where there is none.  No -m flag and no run-time check.
 *   p1305x_s4_*  a struct of four words: the same four blocks interleaved in
 *                ordinary registers, for compilers without vector extensions
 *                (other than MSVC on x64, which gets SSE2 intrinsics below).
 *                It is what p1305x_v4 becomes there, and is also built
 *                everywhere as the `scalar` backend, so that code path is
 *                tested on every platform.
 *
 * Defining POLY1305X_NO_VEC makes p1305x_v4 the struct family too, and
 * POLY1305X_VEC_SSE2 the SSE2-intrinsics family (to build on this machine
 * what other compilers get).  The vector types only ever live in local
 * variables (never in structs that Python objects hold).
 *
 * Loads and stores are little-endian on every host: on a big-endian target
 * the words are byte-swapped after the copy. */
#ifndef POLY1305X_VEC4_H
#define POLY1305X_VEC4_H
#include <stdint.h>
#include <string.h>

#include "_le.h"      /* P1305X_INLINE, P1305X_BIG_ENDIAN, p1305x_le32_load/store */

/* ---- the struct family (always defined) -------------------------------- */
typedef struct { uint32_t w[4]; } p1305x_s4;

P1305X_INLINE p1305x_s4 p1305x_s4_set(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    p1305x_s4 r; r.w[0] = a; r.w[1] = b; r.w[2] = c; r.w[3] = d; return r;
}
P1305X_INLINE p1305x_s4 p1305x_s4_set1(uint32_t a) { return p1305x_s4_set(a, a, a, a); }
P1305X_INLINE p1305x_s4 p1305x_s4_add(p1305x_s4 a, p1305x_s4 b) {
    a.w[0] += b.w[0]; a.w[1] += b.w[1]; a.w[2] += b.w[2]; a.w[3] += b.w[3]; return a;
}
P1305X_INLINE p1305x_s4 p1305x_s4_xor(p1305x_s4 a, p1305x_s4 b) {
    a.w[0] ^= b.w[0]; a.w[1] ^= b.w[1]; a.w[2] ^= b.w[2]; a.w[3] ^= b.w[3]; return a;
}
#define P1305X_ROTL32(v, n) (((v) << (n)) | ((v) >> (32 - (n))))
#define P1305X_S4_ROT(n)                                                          \
    P1305X_INLINE p1305x_s4 p1305x_s4_rotl##n(p1305x_s4 a) {                      \
        a.w[0] = P1305X_ROTL32(a.w[0], n); a.w[1] = P1305X_ROTL32(a.w[1], n);     \
        a.w[2] = P1305X_ROTL32(a.w[2], n); a.w[3] = P1305X_ROTL32(a.w[3], n);     \
        return a;                                                                 \
    }
P1305X_S4_ROT(16)
P1305X_S4_ROT(12)
P1305X_S4_ROT(8)
P1305X_S4_ROT(7)
P1305X_INLINE p1305x_s4 p1305x_s4_load(const uint8_t *p) {
    p1305x_s4 r; int i;
    for (i = 0; i < 4; i++)
        r.w[i] = (uint32_t)p[4 * i] | ((uint32_t)p[4 * i + 1] << 8) |
                 ((uint32_t)p[4 * i + 2] << 16) | ((uint32_t)p[4 * i + 3] << 24);
    return r;
}
P1305X_INLINE void p1305x_s4_store(uint8_t *p, p1305x_s4 a) {
    int i;
    for (i = 0; i < 4; i++) {
        p[4 * i] = (uint8_t)a.w[i]; p[4 * i + 1] = (uint8_t)(a.w[i] >> 8);
        p[4 * i + 2] = (uint8_t)(a.w[i] >> 16); p[4 * i + 3] = (uint8_t)(a.w[i] >> 24);
    }
}
/* Rows a, b, c, d in, columns out: a' = (a0 b0 c0 d0), b' = (a1 b1 c1 d1)... */
P1305X_INLINE void p1305x_s4_transpose(p1305x_s4 *a, p1305x_s4 *b, p1305x_s4 *c,
                                       p1305x_s4 *d) {
    p1305x_s4 ta = *a, tb = *b, tc = *c, td = *d;
    *a = p1305x_s4_set(ta.w[0], tb.w[0], tc.w[0], td.w[0]);
    *b = p1305x_s4_set(ta.w[1], tb.w[1], tc.w[1], td.w[1]);
    *c = p1305x_s4_set(ta.w[2], tb.w[2], tc.w[2], td.w[2]);
    *d = p1305x_s4_set(ta.w[3], tb.w[3], tc.w[3], td.w[3]);
}

/* ---- the vector family ------------------------------------------------- */
#if !defined(POLY1305X_NO_VEC) && (defined(POLY1305X_VEC_SSE2) || \
    (defined(_MSC_VER) && !defined(__clang__) && (defined(_M_X64) || defined(_M_AMD64))))
/* MSVC on x64 has no vector extensions, but SSE2 is part of x64 itself: the
 * same primitives as intrinsics.  (POLY1305X_VEC_SSE2 selects this branch on
 * GCC/Clang too, to test it.) */
#define P1305X_HAVE_VEC 1
#define P1305X_VEC_KIND "sse2-intrinsics"
#include <emmintrin.h>
typedef __m128i p1305x_v4;
P1305X_INLINE p1305x_v4 p1305x_v4_set(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    return _mm_setr_epi32((int)a, (int)b, (int)c, (int)d);
}
P1305X_INLINE p1305x_v4 p1305x_v4_set1(uint32_t a) { return _mm_set1_epi32((int)a); }
P1305X_INLINE p1305x_v4 p1305x_v4_add(p1305x_v4 a, p1305x_v4 b) { return _mm_add_epi32(a, b); }
P1305X_INLINE p1305x_v4 p1305x_v4_xor(p1305x_v4 a, p1305x_v4 b) { return _mm_xor_si128(a, b); }
P1305X_INLINE p1305x_v4 p1305x_v4_rotl16(p1305x_v4 a) {
    return _mm_shufflehi_epi16(_mm_shufflelo_epi16(a, 0xB1), 0xB1);
}
#define P1305X_SSE2_ROTL(a, n) _mm_or_si128(_mm_slli_epi32(a, n), _mm_srli_epi32(a, 32 - (n)))
P1305X_INLINE p1305x_v4 p1305x_v4_rotl12(p1305x_v4 a) { return P1305X_SSE2_ROTL(a, 12); }
P1305X_INLINE p1305x_v4 p1305x_v4_rotl8(p1305x_v4 a) { return P1305X_SSE2_ROTL(a, 8); }
P1305X_INLINE p1305x_v4 p1305x_v4_rotl7(p1305x_v4 a) { return P1305X_SSE2_ROTL(a, 7); }
P1305X_INLINE p1305x_v4 p1305x_v4_load(const uint8_t *p) {
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}
P1305X_INLINE void p1305x_v4_store(uint8_t *p, p1305x_v4 a) {
    _mm_storeu_si128((__m128i *)(void *)p, a);
}
P1305X_INLINE void p1305x_v4_transpose(p1305x_v4 *a, p1305x_v4 *b, p1305x_v4 *c,
                                       p1305x_v4 *d) {
    __m128i t0 = _mm_unpacklo_epi32(*a, *b), t1 = _mm_unpackhi_epi32(*a, *b);
    __m128i t2 = _mm_unpacklo_epi32(*c, *d), t3 = _mm_unpackhi_epi32(*c, *d);
    *a = _mm_unpacklo_epi64(t0, t2);
    *b = _mm_unpackhi_epi64(t0, t2);
    *c = _mm_unpacklo_epi64(t1, t3);
    *d = _mm_unpackhi_epi64(t1, t3);
}

#elif (defined(__GNUC__) || defined(__clang__)) && !defined(POLY1305X_NO_VEC)
#define P1305X_HAVE_VEC 1
#define P1305X_VEC_KIND "gnu-vector"
typedef uint32_t p1305x_v4 __attribute__((vector_size(16)));

#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
#define P1305X_SHUF(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
#else
#define P1305X_SHUF(a, b, i, j, k, l) __builtin_shuffle(a, b, (p1305x_v4){i, j, k, l})
#endif

P1305X_INLINE p1305x_v4 p1305x_v4_set(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    p1305x_v4 r = {a, b, c, d}; return r;
}
P1305X_INLINE p1305x_v4 p1305x_v4_set1(uint32_t a) { p1305x_v4 r = {a, a, a, a}; return r; }
P1305X_INLINE p1305x_v4 p1305x_v4_add(p1305x_v4 a, p1305x_v4 b) { return a + b; }
P1305X_INLINE p1305x_v4 p1305x_v4_xor(p1305x_v4 a, p1305x_v4 b) { return a ^ b; }
/* Rotations.  By 12 and 7: a shift pair and an or (on aarch64 shl + sri).
 * By 16: swap the 16-bit halves of each word (SSE2 pshuflw + pshufhw, NEON
 * rev32).  By 8: a byte permutation where the baseline ISA has one (NEON tbl,
 * SSSE3 pshufb), else the shift pair (SSE2 has no byte shuffle). */
typedef uint16_t p1305x_v4_u16 __attribute__((vector_size(16)));
typedef uint8_t p1305x_v4_u8 __attribute__((vector_size(16)));
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
#define P1305X_SHUFV(v, ...) __builtin_shufflevector(v, v, __VA_ARGS__)
#else
#define P1305X_SHUFV(v, ...) __builtin_shuffle(v, (__typeof__(v)){__VA_ARGS__})
#endif
P1305X_INLINE p1305x_v4 p1305x_v4_rotl16(p1305x_v4 a) {
    return (p1305x_v4)P1305X_SHUFV((p1305x_v4_u16)a, 1, 0, 3, 2, 5, 4, 7, 6);
}
#if defined(__ARM_NEON) && defined(__aarch64__)
/* shl + sri (shift right and insert): two instructions; GCC does not form it */
#include <arm_neon.h>
#define P1305X_NEON_ROTL(a, n) \
    ((p1305x_v4)vsriq_n_u32(vshlq_n_u32((uint32x4_t)(a), n), (uint32x4_t)(a), 32 - (n)))
P1305X_INLINE p1305x_v4 p1305x_v4_rotl12(p1305x_v4 a) { return P1305X_NEON_ROTL(a, 12); }
P1305X_INLINE p1305x_v4 p1305x_v4_rotl7(p1305x_v4 a) { return P1305X_NEON_ROTL(a, 7); }
#else
P1305X_INLINE p1305x_v4 p1305x_v4_rotl12(p1305x_v4 a) { return (a << 12) | (a >> 20); }
P1305X_INLINE p1305x_v4 p1305x_v4_rotl7(p1305x_v4 a) { return (a << 7) | (a >> 25); }
#endif
P1305X_INLINE p1305x_v4 p1305x_v4_rotl8(p1305x_v4 a) {
#if (defined(__ARM_NEON) || defined(__SSSE3__)) && !P1305X_BIG_ENDIAN
    return (p1305x_v4)P1305X_SHUFV((p1305x_v4_u8)a, 3, 0, 1, 2, 7, 4, 5, 6,
                                    11, 8, 9, 10, 15, 12, 13, 14);
#else
    return (a << 8) | (a >> 24);
#endif
}
P1305X_INLINE p1305x_v4 p1305x_v4_load(const uint8_t *p) {
    p1305x_v4 r;
    memcpy(&r, p, 16);      /* one unaligned load */
#if P1305X_BIG_ENDIAN
    r = (r >> 24) | ((r >> 8) & 0xff00u) | ((r << 8) & 0xff0000u) | (r << 24);
#endif
    return r;
}
P1305X_INLINE void p1305x_v4_store(uint8_t *p, p1305x_v4 a) {
#if P1305X_BIG_ENDIAN
    a = (a >> 24) | ((a >> 8) & 0xff00u) | ((a << 8) & 0xff0000u) | (a << 24);
#endif
    memcpy(p, &a, 16);      /* one unaligned store */
}
/* Two rounds of interleaves (SSE2 punpck{l,h}{dq,qdq}; NEON zip1/zip2). */
P1305X_INLINE void p1305x_v4_transpose(p1305x_v4 *a, p1305x_v4 *b, p1305x_v4 *c,
                                       p1305x_v4 *d) {
    p1305x_v4 t0 = P1305X_SHUF(*a, *b, 0, 4, 1, 5);   /* a0 b0 a1 b1 */
    p1305x_v4 t1 = P1305X_SHUF(*a, *b, 2, 6, 3, 7);   /* a2 b2 a3 b3 */
    p1305x_v4 t2 = P1305X_SHUF(*c, *d, 0, 4, 1, 5);   /* c0 d0 c1 d1 */
    p1305x_v4 t3 = P1305X_SHUF(*c, *d, 2, 6, 3, 7);   /* c2 d2 c3 d3 */
    *a = P1305X_SHUF(t0, t2, 0, 1, 4, 5);
    *b = P1305X_SHUF(t0, t2, 2, 3, 6, 7);
    *c = P1305X_SHUF(t1, t3, 0, 1, 4, 5);
    *d = P1305X_SHUF(t1, t3, 2, 3, 6, 7);
}
#else
#define P1305X_HAVE_VEC 0
#define P1305X_VEC_KIND "scalar-lanes"
typedef p1305x_s4 p1305x_v4;
#define p1305x_v4_set p1305x_s4_set
#define p1305x_v4_set1 p1305x_s4_set1
#define p1305x_v4_add p1305x_s4_add
#define p1305x_v4_xor p1305x_s4_xor
#define p1305x_v4_rotl16 p1305x_s4_rotl16
#define p1305x_v4_rotl12 p1305x_s4_rotl12
#define p1305x_v4_rotl8 p1305x_s4_rotl8
#define p1305x_v4_rotl7 p1305x_s4_rotl7
#define p1305x_v4_load p1305x_s4_load
#define p1305x_v4_store p1305x_s4_store
#define p1305x_v4_transpose p1305x_s4_transpose
#endif

/* Blocks per big step of the portable ChaCha20 on p1305x_v4 (4-block steps
   follow).  Eight blocks keep 32 vectors live: that fits the 32 vector
   registers of aarch64 (NEON) and POWER (VSX), but spills on x86's 16 (SSE2).
   x86-64 instead runs four blocks in vectors and a fifth in scalar registers
   beside them: SSE2 code leaves the integer units idle, and on Zen 4 five
   blocks so take the time of four (56 cycles a double round).  Measured there
   at 1 MiB against pycryptodome's own 4-block SSE2 code: eight vector blocks
   1.19x on a quiet machine but 0.97x on a busy one, four 1.10-1.22x, four
   plus one 1.3-1.4x (docs/backends.md).  _portable.pyx takes the 5-block
   step only on CPUs with AVX2: older x86 cores share their few ports between
   integer and vector work, and keep 4-block steps.  32-bit x86, with 8 vector
   and 7 general registers, always keeps them.  Without vectors, p1305x_v4
   is the scalar lanes, which take 8-block steps as the `scalar` backend does. */
#if !P1305X_HAVE_VEC
#define P1305X_VEC_STEP_BLOCKS 8
#elif defined(__x86_64__) || defined(_M_X64) || defined(_M_AMD64)
#define P1305X_VEC_STEP_BLOCKS 5
#elif defined(__i386__) || defined(_M_IX86)
#define P1305X_VEC_STEP_BLOCKS 4
#else
#define P1305X_VEC_STEP_BLOCKS 8
#endif

#endif
