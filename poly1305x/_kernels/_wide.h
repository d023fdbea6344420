/* 64x64->128 multiply-accumulate for the base-2^64 Poly1305 loop.
 * GCC/Clang on 64-bit targets have unsigned __int128; MSVC x64 has _umul128;
 * anything else gets a 32-bit schoolbook product (the 26-bit kernel is the
 * better choice there, and the dispatcher ranks it first in that case).
 * Defining POLY1305X_NO_INT128 forces the fallback, to test it on this machine. */
#ifndef POLY1305X_WIDE_H
#define POLY1305X_WIDE_H
#include <stdint.h>

typedef struct { uint64_t lo, hi; } p1305x_u128;

#if defined(__SIZEOF_INT128__) && !defined(POLY1305X_NO_INT128)
#define P1305X_HAVE_INT128 1
typedef unsigned __int128 p1305x_wide_t;
static inline p1305x_u128 p1305x_mul(uint64_t a, uint64_t b) {
    p1305x_wide_t t = (p1305x_wide_t)a * b;
    p1305x_u128 r; r.lo = (uint64_t)t; r.hi = (uint64_t)(t >> 64); return r;
}
#elif defined(_MSC_VER) && defined(_M_X64) && !defined(POLY1305X_NO_INT128)
#define P1305X_HAVE_INT128 1
#include <intrin.h>
static __inline p1305x_u128 p1305x_mul(uint64_t a, uint64_t b) {
    p1305x_u128 r; r.lo = _umul128(a, b, &r.hi); return r;
}
#else
#define P1305X_HAVE_INT128 0
static inline p1305x_u128 p1305x_mul(uint64_t a, uint64_t b) {
    /* schoolbook on 32-bit halves; each partial product < 2^64 */
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    p1305x_u128 r;
    r.lo = (mid << 32) | (uint32_t)ll;
    r.hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return r;
}
#endif

/* a + b, carry into the high word (no branch: the compare becomes setc/adc) */
static inline p1305x_u128 p1305x_add(p1305x_u128 a, p1305x_u128 b) {
    p1305x_u128 r; r.lo = a.lo + b.lo; r.hi = a.hi + b.hi + (r.lo < a.lo); return r;
}
static inline p1305x_u128 p1305x_mac(p1305x_u128 acc, uint64_t a, uint64_t b) {
    return p1305x_add(acc, p1305x_mul(a, b));
}
/* Zero secrets so the stores survive dead-store elimination. */
#include <string.h>
#if defined(_MSC_VER)
#include <windows.h>
static __inline void p1305x_wipe(void *p, size_t n) { SecureZeroMemory(p, n); }
#elif defined(__GNUC__) || defined(__clang__)
static inline void p1305x_wipe(void *p, size_t n) {
    memset(p, 0, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
}
#else
static void p1305x_wipe(void *p, size_t n) {
    volatile unsigned char *v = (volatile unsigned char *)p;
    while (n--) *v++ = 0;
}
#endif
/* v, with the compiler unable to see where it came from.  The tag compare is
 * inlined into its callers; this keeps the optimiser from rewriting its
 * branch-free result into a branch on the compared bytes. */
#if defined(__GNUC__) || defined(__clang__)
static inline uint32_t p1305x_opaque32(uint32_t v) {
    __asm__("" : "+r"(v));
    return v;
}
#else
static uint32_t p1305x_opaque32(uint32_t v) {
    volatile uint32_t t = v;
    return t;
}
#endif
#endif
