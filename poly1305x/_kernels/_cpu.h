/* CPU and OS feature probe.  The AVX bits count only when the OS saves the
 * registers: OSXSAVE set and XGETBV showing XMM|YMM (and opmask|ZMM_Hi256|
 * Hi16_ZMM for AVX-512) state enabled.  No ISA flags are needed to build this. */
#ifndef POLY1305X_CPU_H
#define POLY1305X_CPU_H
#include <stdint.h>

#define P1305X_CPU_AVX2       1
#define P1305X_CPU_AVX512F    2
#define P1305X_CPU_AVX512VL   4
#define P1305X_CPU_AVX512IFMA 8

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__) || defined(_M_IX86)
#define P1305X_X86 1
#if defined(_MSC_VER)
#include <intrin.h>
static void p1305x_cpuid(int leaf, int sub, uint32_t r[4]) {
    int v[4]; __cpuidex(v, leaf, sub);
    r[0] = v[0]; r[1] = v[1]; r[2] = v[2]; r[3] = v[3];
}
static uint64_t p1305x_xgetbv(void) { return _xgetbv(0); }
#else
#include <cpuid.h>
static void p1305x_cpuid(int leaf, int sub, uint32_t r[4]) {
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}
static uint64_t p1305x_xgetbv(void) {
    uint32_t lo, hi;
    __asm__ __volatile__(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}
#endif

static int p1305x_cpu_features(void) {
    uint32_t r[4];
    uint64_t xcr0;
    int f = 0;
    p1305x_cpuid(0, 0, r);
    if (r[0] < 7) return 0;
    p1305x_cpuid(1, 0, r);
    if (!(r[2] & (1u << 27))) return 0;            /* OSXSAVE */
    xcr0 = p1305x_xgetbv();
    if ((xcr0 & 0x6) != 0x6) return 0;             /* XMM and YMM state */
    p1305x_cpuid(7, 0, r);
    if (r[1] & (1u << 5)) f |= P1305X_CPU_AVX2;
    if ((xcr0 & 0xe0) == 0xe0) {                   /* opmask, ZMM_Hi256, Hi16_ZMM */
        if (r[1] & (1u << 16)) f |= P1305X_CPU_AVX512F;
        if (r[1] & (1u << 31)) f |= P1305X_CPU_AVX512VL;
        if (r[1] & (1u << 21)) f |= P1305X_CPU_AVX512IFMA;
    }
    return f;
}
#else
#define P1305X_X86 0
static int p1305x_cpu_features(void) { return 0; }
#endif
#endif
