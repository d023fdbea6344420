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
    # the multi-buffer lanes: a block per lane, and masks from block counts
    __m256i _mm256_castsi128_si256(__m128i a)
    __m256i _mm256_inserti128_si256(__m256i a, __m128i b, int imm)
    __m256i _mm256_cmpgt_epi64(__m256i a, __m256i b)
    # AVX-512F + IFMA, radix 2^44 (madd52lo/hi: a + low/high 52 bits of the
    # 104-bit product of the low 52 bits of b and c, per 64-bit lane)
    __m512i _mm512_madd52lo_epu64(__m512i a, __m512i b, __m512i c)
    __m512i _mm512_madd52hi_epu64(__m512i a, __m512i b, __m512i c)
    __m512i _mm512_add_epi64(__m512i a, __m512i b)
    __m512i _mm512_srli_epi64(__m512i a, unsigned int imm)
    __m512i _mm512_slli_epi64(__m512i a, unsigned int imm)
    __m512i _mm512_and_epi64(__m512i a, __m512i b)
    __m512i _mm512_or_epi64(__m512i a, __m512i b)
    __m512i _mm512_set1_epi64(long long a)
    __m512i _mm512_set_epi64(long long e7, long long e6, long long e5, long long e4,
                             long long e3, long long e2, long long e1, long long e0)
    __m512i _mm512_permutexvar_epi64(__m512i idx, __m512i a)
    __m512i _mm512_permutex2var_epi64(__m512i a, __m512i idx, __m512i b)
    __m512i _mm512_mask_blend_epi64(__mmask8 k, __m512i a, __m512i b)
    # AVX-512F without IFMA, radix 2^26 (vpmuludq zmm: as _mm256_mul_epu32)
    __m512i _mm512_mul_epu32(__m512i a, __m512i b)

    # ---- chacha20 section (owned by the ChaCha20 kernels) ---------------------
    # (_mm256_and/or_si256 and _mm256_unpack*_epi64 are declared above.)
    # AVX2: the 8-block vertical and the 1-4-block horizontal paths
    __m256i _mm256_set1_epi32(int a)
    __m256i _mm256_setr_epi32(int e0, int e1, int e2, int e3, int e4, int e5, int e6, int e7)
    __m256i _mm256_setr_epi8(char e0, char e1, char e2, char e3, char e4, char e5, char e6, char e7, char e8, char e9, char e10, char e11, char e12, char e13, char e14, char e15, char e16, char e17, char e18, char e19, char e20, char e21, char e22, char e23, char e24, char e25, char e26, char e27, char e28, char e29, char e30, char e31)
    __m256i _mm256_add_epi32(__m256i a, __m256i b)
    __m256i _mm256_xor_si256(__m256i a, __m256i b)
    __m256i _mm256_andnot_si256(__m256i a, __m256i b)
    __m256i _mm256_slli_epi32(__m256i a, int imm)
    __m256i _mm256_srli_epi32(__m256i a, int imm)
    __m256i _mm256_shuffle_epi8(__m256i a, __m256i b)
    __m256i _mm256_unpacklo_epi32(__m256i a, __m256i b)
    __m256i _mm256_unpackhi_epi32(__m256i a, __m256i b)
    __m256i _mm256_permute2x128_si256(__m256i a, __m256i b, int imm)
    __m256i _mm256_shuffle_epi32(__m256i a, int imm)
    # AVX-512F (+VL for the 256-bit rotate): the 16- and 8-block paths
    __m256i _mm256_rol_epi32(__m256i a, int imm)
    __m512i _mm512_set1_epi32(int a)
    __m512i _mm512_setr_epi32(int e0, int e1, int e2, int e3, int e4, int e5, int e6, int e7,
                              int e8, int e9, int e10, int e11, int e12, int e13, int e14,
                              int e15)
    __m512i _mm512_add_epi32(__m512i a, __m512i b)
    __m512i _mm512_xor_si512(__m512i a, __m512i b)
    __m512i _mm512_or_si512(__m512i a, __m512i b)
    __m512i _mm512_and_si512(__m512i a, __m512i b)
    __m512i _mm512_andnot_si512(__m512i a, __m512i b)
    __m512i _mm512_srli_epi32(__m512i a, int imm)
    __m512i _mm512_rol_epi32(__m512i a, int imm)
    __m512i _mm512_unpacklo_epi32(__m512i a, __m512i b)
    __m512i _mm512_unpackhi_epi32(__m512i a, __m512i b)
    __m512i _mm512_unpacklo_epi64(__m512i a, __m512i b)
    __m512i _mm512_unpackhi_epi64(__m512i a, __m512i b)
    __m512i _mm512_shuffle_i32x4(__m512i a, __m512i b, int imm)
