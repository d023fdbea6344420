/* Atomic words for the engine's object states (busy flags, init state, the
 * worker slots of the threaded ChaCha20), so that check-and-set stays atomic
 * without the GIL (free-threaded CPython).  GCC/Clang: __atomic builtins;
 * MSVC: Interlocked intrinsics.  p1305x_nap() is a short sleep for the one
 * place that waits on worker threads without the GIL. */
#ifndef P1305X_SYNC_H
#define P1305X_SYNC_H

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#include <windows.h>
typedef volatile long p1305x_word;
static __inline long p1305x_load(p1305x_word* w) { return _InterlockedOr(w, 0); }
static __inline void p1305x_store(p1305x_word* w, long v) { _InterlockedExchange(w, v); }
static __inline long p1305x_add_fetch(p1305x_word* w, long v) { return _InterlockedExchangeAdd(w, v) + v; }
/* On failure *expected receives the value found. */
static __inline int p1305x_cas(p1305x_word* w, long* expected, long desired) {
    long old = _InterlockedCompareExchange(w, desired, *expected);
    if (old == *expected) return 1;
    *expected = old;
    return 0;
}
static __inline void p1305x_nap(void) { Sleep(0); }
#else
#include <sched.h>
typedef long p1305x_word;
static inline long p1305x_load(p1305x_word* w) { return __atomic_load_n(w, __ATOMIC_ACQUIRE); }
static inline void p1305x_store(p1305x_word* w, long v) { __atomic_store_n(w, v, __ATOMIC_RELEASE); }
static inline long p1305x_add_fetch(p1305x_word* w, long v) { return __atomic_add_fetch(w, v, __ATOMIC_ACQ_REL); }
static inline int p1305x_cas(p1305x_word* w, long* expected, long desired) {
    return __atomic_compare_exchange_n(w, expected, desired, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}
static inline void p1305x_nap(void) { sched_yield(); }
#endif

#endif
