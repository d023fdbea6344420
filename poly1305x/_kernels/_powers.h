/* The per-key cache of powers of r in poly1305_state.powers (_kernel.pxd):
 * its size here; who owns which words (one region and one powers_ready bit
 * per vector kernel, so a state driven by one kernel never reads another
 * kernel's layout; the AVX-512F kernel reads the AVX2 region too: it fills it
 * with the AVX2 kernel's own code) in _powers_map.h, which setup.py generates
 * into the build directory from the registry's POWERS (_registry.py), checked
 * here at compile time. */
#ifndef P1305X_POWERS_H
#define P1305X_POWERS_H

#define P1305X_POWERS_WORDS 128         /* the size of poly1305_state.powers */

#include "_powers_map.h"

/* Compile-time check (a negative array size fails on every C compiler). */
typedef char p1305x_powers_fit[P1305X_POWERS_END <= P1305X_POWERS_WORDS ? 1 : -1];

#endif
