/* Two lanes of radix-2^26 limbs, for the 2-lane Poly1305 of the portable
 * backend on aarch64 (_poly1305_neon.pxi, included by _portable.pyx).
 *
 *   p1305x_n32   two 32-bit lanes (a limb of two numbers, < 2^32)
 *   p1305x_n64   two 64-bit lanes (sums of limb products)
 *   p1305x_n128  four 32-bit multipliers, each used for both lanes (by element)
 *
 * The multiply is 32x32 -> 64 per lane (UMULL / UMLAL on NEON).  Only the
 * handful of operations the kernel needs is here: set, add, x5, multiply(-add)
 * lane by lane or by element, shift/mask by 26, narrow to 32 bits, a
 * horizontal sum, one lane's value, and the load of two 16-byte blocks (two
 * consecutive ones, or one from each of two messages) as five limbs per lane.
 *
 * On aarch64 (little-endian) NEON is the baseline ISA: no -m flag and no
 * run-time check, and P1305X_HAVE_NEON_POLY is 1.  Elsewhere
 * P1305X_HAVE_NEON_POLY is 0, the portable backend keeps the scalar base-2^64
 * loop, and the same names are plain C on two-element structs only so that
 * _portable.pyx compiles: the kernels built on them are never referenced, so
 * the compiler drops them.  Defining POLY1305X_LANES2_EMULATE (a development
 * aid, not a supported build) makes the portable backend use the 2-lane
 * kernels (one message, and a batch) on those structs, so their arithmetic can
 * be exercised on any host.  POLY1305X_NEON_SIMDE (the test-only neon-emu
 * module) compiles the NEON branch itself against SIMDe's NEON on x86-64.
 *
 * Nothing here branches on data. */
#ifndef POLY1305X_NEON_H
#define POLY1305X_NEON_H
#include <stdint.h>
#include <string.h>

#if defined(_MSC_VER) && !defined(__clang__)
#define P1305X_N_INLINE static __forceinline
#else
#define P1305X_N_INLINE static inline
#endif

#if defined(POLY1305X_NEON_SIMDE) || \
    (defined(__aarch64__) && defined(__ARM_NEON) && !defined(POLY1305X_NO_NEON) && \
     defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#ifdef POLY1305X_NEON_SIMDE
/* The test-only neon-emu backend (_neon_emu.pyx): the same NEON code on
 * SIMDe's implementations of the intrinsics, on an x86-64 host. */
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/arm/neon.h>
#else
#include <arm_neon.h>
#endif
#define P1305X_HAVE_NEON_POLY 1

typedef uint32x2_t p1305x_n32;
typedef uint64x2_t p1305x_n64;
typedef uint32x4_t p1305x_n128;  /* four 32-bit multipliers, used by element */

P1305X_N_INLINE p1305x_n128 p1305x_n128_set(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    uint32_t t[4];
    t[0] = a; t[1] = b; t[2] = c; t[3] = d;
    return vld1q_u32(t);
}

P1305X_N_INLINE p1305x_n32 p1305x_n32_set(uint32_t lane0, uint32_t lane1) {
    return vset_lane_u32(lane1, vdup_n_u32(lane0), 1);
}
P1305X_N_INLINE p1305x_n32 p1305x_n32_set1(uint32_t a) { return vdup_n_u32(a); }
/* The two 32-bit halves of the 64-bit word at p: lane 0 = low half. */
P1305X_N_INLINE p1305x_n32 p1305x_n32_load(const uint64_t* p) {
    return vreinterpret_u32_u8(vld1_u8((const uint8_t*)p));
}
P1305X_N_INLINE p1305x_n32 p1305x_n32_add(p1305x_n32 a, p1305x_n32 b) { return vadd_u32(a, b); }
P1305X_N_INLINE p1305x_n32 p1305x_n32_times5(p1305x_n32 a) {
    return vadd_u32(a, vshl_n_u32(a, 2));
}
P1305X_N_INLINE p1305x_n64 p1305x_n64_mul(p1305x_n32 a, p1305x_n32 b) { return vmull_u32(a, b); }
P1305X_N_INLINE p1305x_n64 p1305x_n64_mac(p1305x_n64 acc, p1305x_n32 a, p1305x_n32 b) {
    return vmlal_u32(acc, a, b);
}
/* By element: both lanes of a times lane k of the four-lane c (UMULL/UMLAL
 * by element; macros, since k must be an immediate). */
#define p1305x_n64_mul_lane0(a, c) vmull_laneq_u32((a), (c), 0)
#define p1305x_n64_mul_lane1(a, c) vmull_laneq_u32((a), (c), 1)
#define p1305x_n64_mac_lane0(acc, a, c) vmlal_laneq_u32((acc), (a), (c), 0)
#define p1305x_n64_mac_lane1(acc, a, c) vmlal_laneq_u32((acc), (a), (c), 1)
#define p1305x_n64_mac_lane2(acc, a, c) vmlal_laneq_u32((acc), (a), (c), 2)
#define p1305x_n64_mac_lane3(acc, a, c) vmlal_laneq_u32((acc), (a), (c), 3)
P1305X_N_INLINE p1305x_n64 p1305x_n64_add(p1305x_n64 a, p1305x_n64 b) { return vaddq_u64(a, b); }
P1305X_N_INLINE p1305x_n64 p1305x_n64_shr26(p1305x_n64 a) { return vshrq_n_u64(a, 26); }
P1305X_N_INLINE p1305x_n64 p1305x_n64_mask26(p1305x_n64 a) {
    return vandq_u64(a, vdupq_n_u64(0x3ffffff));
}
P1305X_N_INLINE p1305x_n64 p1305x_n64_times5(p1305x_n64 a) {
    return vaddq_u64(a, vshlq_n_u64(a, 2));
}
/* Low 32 bits of each lane (the caller knows they hold the value). */
P1305X_N_INLINE p1305x_n32 p1305x_n32_narrow(p1305x_n64 a) { return vmovn_u64(a); }
P1305X_N_INLINE uint64_t p1305x_n32_hsum(p1305x_n32 a) {
    return (uint64_t)vget_lane_u32(a, 0) + vget_lane_u32(a, 1);
}
/* Two blocks, one a lane, given as their low (lo) and high (hi) 64-bit words,
 * as five limbs per lane, with hb (2^24 for full blocks, i.e. 2^128) added to
 * limb 4: l0..l3 < 2^26, l4 < 2^25.  The loads below are of bytes: an LD2 of
 * 64-bit words (vld2q_u64) through a uint64_t pointer at an odd address is
 * undefined in C, as SIMDe's emulation of it reports under UBSan. */
P1305X_N_INLINE void p1305x_n32_split(uint64x2_t lo, uint64x2_t hi, uint32_t hb, p1305x_n32* l0,
                                      p1305x_n32* l1, p1305x_n32* l2, p1305x_n32* l3,
                                      p1305x_n32* l4) {
    uint32x2_t mask = vdup_n_u32(0x3ffffff);
    *l0 = vand_u32(vmovn_u64(lo), mask);
    *l1 = vand_u32(vshrn_n_u64(lo, 26), mask);
    *l2 = vand_u32(vmovn_u64(vorrq_u64(vshrq_n_u64(lo, 52), vshlq_n_u64(hi, 12))), mask);
    *l3 = vand_u32(vshrn_n_u64(hi, 14), mask);
    *l4 = vorr_u32(vmovn_u64(vshrq_n_u64(hi, 40)), vdup_n_u32(hb));
}
/* One block of each of two messages: m0[0..16) in lane 0, m1[0..16) in lane 1
 * (the multi-buffer kernel, _poly1305_mb_neon.pxi).  Byte loads (m may have
 * any alignment), then zip1/zip2 pair the low and the high words. */
P1305X_N_INLINE void p1305x_n32_load_lanes(const uint8_t* m0, const uint8_t* m1, uint32_t hb,
                                           p1305x_n32* l0, p1305x_n32* l1, p1305x_n32* l2,
                                           p1305x_n32* l3, p1305x_n32* l4) {
    uint64x2_t a = vreinterpretq_u64_u8(vld1q_u8(m0)), b = vreinterpretq_u64_u8(vld1q_u8(m1));
    p1305x_n32_split(vzip1q_u64(a, b), vzip2q_u64(a, b), hb, l0, l1, l2, l3, l4);
}
/* Blocks m[0..16) (lane 0) and m[16..32) (lane 1): the one-message kernel. */
P1305X_N_INLINE void p1305x_n32_load_blocks2(const uint8_t* m, uint32_t hb, p1305x_n32* l0,
                                             p1305x_n32* l1, p1305x_n32* l2,
                                             p1305x_n32* l3, p1305x_n32* l4) {
    p1305x_n32_load_lanes(m, m + 16, hb, l0, l1, l2, l3, l4);
}
/* One lane of a (a macro: the lane is an immediate). */
#define p1305x_n32_lane0(a) vget_lane_u32((a), 0)
#define p1305x_n32_lane1(a) vget_lane_u32((a), 1)

#else /* ---- not aarch64: plain C on structs (unused unless emulating) ---- */
#define P1305X_HAVE_NEON_POLY 0

typedef struct { uint32_t v[2]; } p1305x_n32;
typedef struct { uint64_t v[2]; } p1305x_n64;
typedef struct { uint32_t v[4]; } p1305x_n128;

P1305X_N_INLINE p1305x_n128 p1305x_n128_set(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    p1305x_n128 r; r.v[0] = a; r.v[1] = b; r.v[2] = c; r.v[3] = d; return r;
}

P1305X_N_INLINE p1305x_n32 p1305x_n32_set(uint32_t lane0, uint32_t lane1) {
    p1305x_n32 r; r.v[0] = lane0; r.v[1] = lane1; return r;
}
P1305X_N_INLINE p1305x_n32 p1305x_n32_set1(uint32_t a) { return p1305x_n32_set(a, a); }
P1305X_N_INLINE p1305x_n32 p1305x_n32_load(const uint64_t* p) {
    return p1305x_n32_set((uint32_t)*p, (uint32_t)(*p >> 32));
}
P1305X_N_INLINE p1305x_n32 p1305x_n32_add(p1305x_n32 a, p1305x_n32 b) {
    a.v[0] += b.v[0]; a.v[1] += b.v[1]; return a;
}
P1305X_N_INLINE p1305x_n32 p1305x_n32_times5(p1305x_n32 a) {
    a.v[0] *= 5; a.v[1] *= 5; return a;
}
P1305X_N_INLINE p1305x_n64 p1305x_n64_mac(p1305x_n64 acc, p1305x_n32 a, p1305x_n32 b) {
    acc.v[0] += (uint64_t)a.v[0] * b.v[0]; acc.v[1] += (uint64_t)a.v[1] * b.v[1]; return acc;
}
P1305X_N_INLINE p1305x_n64 p1305x_n64_mul(p1305x_n32 a, p1305x_n32 b) {
    p1305x_n64 z; z.v[0] = 0; z.v[1] = 0; return p1305x_n64_mac(z, a, b);
}
P1305X_N_INLINE p1305x_n64 p1305x_n64_mac_lane(p1305x_n64 acc, p1305x_n32 a, p1305x_n128 c,
                                               int k) {
    acc.v[0] += (uint64_t)a.v[0] * c.v[k]; acc.v[1] += (uint64_t)a.v[1] * c.v[k]; return acc;
}
P1305X_N_INLINE p1305x_n64 p1305x_n64_mul_lane(p1305x_n32 a, p1305x_n128 c, int k) {
    p1305x_n64 z; z.v[0] = 0; z.v[1] = 0; return p1305x_n64_mac_lane(z, a, c, k);
}
#define p1305x_n64_mul_lane0(a, c) p1305x_n64_mul_lane((a), (c), 0)
#define p1305x_n64_mul_lane1(a, c) p1305x_n64_mul_lane((a), (c), 1)
#define p1305x_n64_mac_lane0(acc, a, c) p1305x_n64_mac_lane((acc), (a), (c), 0)
#define p1305x_n64_mac_lane1(acc, a, c) p1305x_n64_mac_lane((acc), (a), (c), 1)
#define p1305x_n64_mac_lane2(acc, a, c) p1305x_n64_mac_lane((acc), (a), (c), 2)
#define p1305x_n64_mac_lane3(acc, a, c) p1305x_n64_mac_lane((acc), (a), (c), 3)
P1305X_N_INLINE p1305x_n64 p1305x_n64_add(p1305x_n64 a, p1305x_n64 b) {
    a.v[0] += b.v[0]; a.v[1] += b.v[1]; return a;
}
P1305X_N_INLINE p1305x_n64 p1305x_n64_shr26(p1305x_n64 a) {
    a.v[0] >>= 26; a.v[1] >>= 26; return a;
}
P1305X_N_INLINE p1305x_n64 p1305x_n64_mask26(p1305x_n64 a) {
    a.v[0] &= 0x3ffffff; a.v[1] &= 0x3ffffff; return a;
}
P1305X_N_INLINE p1305x_n64 p1305x_n64_times5(p1305x_n64 a) {
    a.v[0] *= 5; a.v[1] *= 5; return a;
}
P1305X_N_INLINE p1305x_n32 p1305x_n32_narrow(p1305x_n64 a) {
    return p1305x_n32_set((uint32_t)a.v[0], (uint32_t)a.v[1]);
}
P1305X_N_INLINE uint64_t p1305x_n32_hsum(p1305x_n32 a) { return (uint64_t)a.v[0] + a.v[1]; }
P1305X_N_INLINE uint64_t p1305x_n_load64(const uint8_t* p) {
    uint64_t v = 0;
    int i;
    for (i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
P1305X_N_INLINE void p1305x_n32_load_lanes(const uint8_t* m0, const uint8_t* m1, uint32_t hb,
                                           p1305x_n32* l0, p1305x_n32* l1, p1305x_n32* l2,
                                           p1305x_n32* l3, p1305x_n32* l4) {
    int j;
    for (j = 0; j < 2; j++) {
        const uint8_t* m = j ? m1 : m0;
        uint64_t lo = p1305x_n_load64(m), hi = p1305x_n_load64(m + 8);
        l0->v[j] = (uint32_t)lo & 0x3ffffff;
        l1->v[j] = (uint32_t)(lo >> 26) & 0x3ffffff;
        l2->v[j] = (uint32_t)((lo >> 52) | (hi << 12)) & 0x3ffffff;
        l3->v[j] = (uint32_t)(hi >> 14) & 0x3ffffff;
        l4->v[j] = (uint32_t)(hi >> 40) | hb;
    }
}
P1305X_N_INLINE void p1305x_n32_load_blocks2(const uint8_t* m, uint32_t hb, p1305x_n32* l0,
                                             p1305x_n32* l1, p1305x_n32* l2,
                                             p1305x_n32* l3, p1305x_n32* l4) {
    p1305x_n32_load_lanes(m, m + 16, hb, l0, l1, l2, l3, l4);
}
P1305X_N_INLINE uint32_t p1305x_n32_lane0(p1305x_n32 a) { return a.v[0]; }
P1305X_N_INLINE uint32_t p1305x_n32_lane1(p1305x_n32 a) { return a.v[1]; }
#endif

/* The portable backend's Poly1305: the 2-lane kernel on aarch64 (or when
 * emulating), else the scalar base-2^64 loop. */
#if defined(POLY1305X_NEON_SIMDE)
#define P1305X_POLY_KIND "neon-2x26-simde"
#define P1305X_USE_LANES2 1
#elif P1305X_HAVE_NEON_POLY
#define P1305X_POLY_KIND "neon-2x26"
#define P1305X_USE_LANES2 1
#elif defined(POLY1305X_LANES2_EMULATE)
#define P1305X_POLY_KIND "lanes2-emulated"
#define P1305X_USE_LANES2 1
#else
#define P1305X_POLY_KIND "scalar-64"
#define P1305X_USE_LANES2 0
#endif

#endif /* POLY1305X_NEON_H */
