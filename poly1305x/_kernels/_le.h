/* Little-endian loads and stores, the one copy every module uses (_util.pxd
 * declares them to Cython as load32_le ... store64_le; _vec4.h builds on
 * them).  Each is a single (unaligned) memory access through memcpy, with a
 * byte swap on a big-endian target: right on any host, and one instruction on
 * little-endian ones (byte-by-byte code is not always merged). */
#ifndef P1305X_LE_H
#define P1305X_LE_H
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define P1305X_BIG_ENDIAN 1
#else
#define P1305X_BIG_ENDIAN 0
#endif

#if defined(_MSC_VER) && !defined(__clang__)
#define P1305X_INLINE static __forceinline
#else
#define P1305X_INLINE static inline
#endif

P1305X_INLINE uint32_t p1305x_bswap32(uint32_t v) {
    return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

P1305X_INLINE uint32_t p1305x_le32_load(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
#if P1305X_BIG_ENDIAN
    v = p1305x_bswap32(v);
#endif
    return v;
}
P1305X_INLINE void p1305x_le32_store(uint8_t *p, uint32_t v) {
#if P1305X_BIG_ENDIAN
    v = p1305x_bswap32(v);
#endif
    memcpy(p, &v, 4);
}
P1305X_INLINE uint64_t p1305x_le64_load(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if P1305X_BIG_ENDIAN
    v = ((uint64_t)p1305x_bswap32((uint32_t)v) << 32) | p1305x_bswap32((uint32_t)(v >> 32));
#endif
    return v;
}
P1305X_INLINE void p1305x_le64_store(uint8_t *p, uint64_t v) {
#if P1305X_BIG_ENDIAN
    v = ((uint64_t)p1305x_bswap32((uint32_t)v) << 32) | p1305x_bswap32((uint32_t)(v >> 32));
#endif
    memcpy(p, &v, 8);
}

#endif
