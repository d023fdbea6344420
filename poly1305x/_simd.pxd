# cython: language_level=3
"""x86 intrinsics used by the SIMD kernels, declared from immintrin.h.

cimported only by _x86_avx2 and _x86_avx512 (and the SIMDe test build of the
latter), which are compiled with the
matching -m flags.  The vector types appear only in local variables, never in
structs or Python objects (alignment)."""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

cdef extern from "_simd.h" nogil:
    ctypedef struct __m128i:
        pass
    ctypedef struct __m256i:
        pass
    ctypedef struct __m512i:
        pass
    ctypedef unsigned char __mmask8
    ctypedef unsigned short __mmask16

    # ---- shared -------------------------------------------------------------
    __m128i _mm_loadu_si128(const void* p)
    void _mm_storeu_si128(void* p, __m128i a)
    __m256i _mm256_loadu_si256(const void* p)
    void _mm256_storeu_si256(void* p, __m256i a)
    __m512i _mm512_loadu_si512(const void* p)
    void _mm512_storeu_si512(void* p, __m512i a)
    __m256i _mm256_setzero_si256()
    __m512i _mm512_setzero_si512()

    # ---- poly1305 section (owned by the Poly1305 kernels) ---------------------
    # AVX2, radix 2^26 (vpmuludq: low 32 bits of each 64-bit lane, 64-bit product)
    __m256i _mm256_add_epi64(__m256i a, __m256i b)
    __m256i _mm256_mul_epu32(__m256i a, __m256i b)
    __m256i _mm256_srli_epi64(__m256i a, int imm)
    __m256i _mm256_slli_epi64(__m256i a, int imm)
    __m256i _mm256_and_si256(__m256i a, __m256i b)
    __m256i _mm256_or_si256(__m256i a, __m256i b)
    __m256i _mm256_unpacklo_epi64(__m256i a, __m256i b)
    __m256i _mm256_unpackhi_epi64(__m256i a, __m256i b)
    __m256i _mm256_set1_epi64x(long long a)
    __m256i _mm256_set_epi64x(long long e3, long long e2, long long e1, long long e0)
    __m256i _mm256_permute4x64_epi64(__m256i a, int imm)
    __m256i _mm256_blend_epi32(__m256i a, __m256i b, int imm)

    # ---- chacha20 section (owned by the ChaCha20 kernels) ---------------------
