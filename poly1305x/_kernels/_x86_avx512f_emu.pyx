# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# Test build only: the AVX-512F (no IFMA) kernels compiled against SIMDe
# (POLY1305X_SIMDE), so that valgrind, which cannot run AVX-512, and CPUs
# without AVX-512 can check their arithmetic.  setup.py builds it only when
# POLY1305X_SIMDE=1; it is never chosen by default (see _dispatch).
include "_x86_avx512f.pyx"
