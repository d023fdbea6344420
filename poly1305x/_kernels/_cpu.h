/* The CPU queries behind the dispatcher's probe, and nothing feature-specific:
 * which features exist and where each is read (CPUID leaf, subleaf, register
 * and bit; the XCR0 state the OS must save; an aarch64 hwcap bit) is data,
 * FEATURES in _registry.py, and poly1305x/_core/_dispatch.pyx reads it.
 * No ISA flags are needed to build this. */
#ifndef POLY1305X_CPU_H
#define POLY1305X_CPU_H
#include <stdint.h>

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__) || defined(_M_IX86)
#define P1305X_X86 1
#if defined(_MSC_VER)
#include <intrin.h>
static void p1305x_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
    int v[4]; __cpuidex(v, (int)leaf, (int)sub);
    r[0] = v[0]; r[1] = v[1]; r[2] = v[2]; r[3] = v[3];
}
static uint64_t p1305x_xgetbv0(void) { return _xgetbv(0); }
#else
#include <cpuid.h>
static void p1305x_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}
static uint64_t p1305x_xgetbv0(void) {
    uint32_t lo, hi;
    __asm__ __volatile__(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}
#endif
/* XCR0, the register state the OS saves on a context switch; 0 when the OS
 * has not enabled XSAVE (CPUID.1:ECX.OSXSAVE[27] clear), where XGETBV would
 * fault. */
static uint64_t p1305x_xcr0(void) {
    uint32_t r[4];
    p1305x_cpuid(1, 0, r);
    return (r[2] & (1u << 27)) ? p1305x_xgetbv0() : 0;
}
#else
#define P1305X_X86 0
static void p1305x_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
    (void)leaf; (void)sub; r[0] = r[1] = r[2] = r[3] = 0;
}
static uint64_t p1305x_xcr0(void) { return 0; }
#endif

#if defined(__aarch64__) || defined(_M_ARM64)
#define P1305X_AARCH64 1
#else
#define P1305X_AARCH64 0
#endif

/* The kernel's hardware-capability words (n = 1: AT_HWCAP, 2: AT_HWCAP2),
 * where aarch64 Linux reports its optional features; 0 elsewhere. */
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
static uint64_t p1305x_hwcap(int n) {
#ifdef AT_HWCAP2
    if (n == 2) return getauxval(AT_HWCAP2);
#endif
    return n == 1 ? getauxval(AT_HWCAP) : 0;
}
#else
static uint64_t p1305x_hwcap(int n) { (void)n; return 0; }
#endif
#endif
