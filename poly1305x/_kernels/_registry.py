"""The backends, as plain data: the one list that says which kernels exist.

Read without importing the package by setup.py (which modules to build, for
which target, with which flags, after which compile probe, unless which
switch is set), tests/ct/check_report.py (whose constant-time findings are
poly1305x's), the
noxfile, .ci/wheel_audit.py (which instructions each module of a wheel may
hold, for CI and the noxfile), .ci/aarch64.sh and the aarch64 wheel test (which backends a build without x86 modules has);
imported by the dispatcher (poly1305x._core._dispatch: ranking, CPU features,
module and table names) and the tests.  Nothing but literals here: readers
exec this file or import it, and it imports nothing.

Each entry:
  name        the backend name (POLY1305X_BACKEND, set_backend, backends())
  features    CPU features it needs (keys of FEATURES, below)
  module      the extension module that holds its table
  table       the key of its table in that module's kernel_tables(); one entry
              per (module, table): the dispatcher writes the entry's name into
              the table it loads (the name its objects report)
  target      the only architecture its module is compiled for ("x86_64"),
              or None: every target
  cflags      GCC/Clang flags of its module; msvc: MSVC's
  isa         what its module's machine code may use: "baseline" (imported on
              any CPU of the target), "avx2" (VEX, no AVX-512), "avx512"
  probe       C source that must compile with cflags, or the module is dropped
  switch      environment variable that, set to 1, leaves its module out of a
              build (None: always built)
  opt_in      environment variable that must be 1 for its module to be built
              (test-only modules), or None
  emulated    a test-only backend: never chosen by default, not in
              backends(), selectable by name
  int128_twin the name of the backend that ranks before this one where the
              compiler has no 64x64->128 multiply (this one's speed depends
              on it; the twin computes in 26-bit limbs), or None

Order is rank: best first.  Adding a backend: its kernel files, one entry
here, and docs (docs/architecture.md has the checklist).

POWERS: the per-key cache of powers of r in poly1305_state.powers
(_kernels/_kernel.pxd): one region and one powers_ready bit per vector
Poly1305 kernel that keeps powers, so a state driven by one kernel never reads
another kernel's layout.  {region: words}, in layout order; setup.py makes
the C and Cython map from it at build time (P1305X_<REGION>_POWERS, its
offset; P1305X_<REGION>_POWERS_LEN; P1305X_<REGION>_READY, its bit; and
P1305X_POWERS_END), and _kernels/_powers.h checks at compile time that it
fits.  The layouts themselves are described where they are filled.
  AVX2   radix 2^26: r^1..r^8, five limbs each, limb-major (_poly1305_avx2.pxi)
  IFMA   AVX-512 IFMA, radix 2^44: r^1..r^16, three limbs each, limb-major
         (_poly1305_avx512.pxi)
  N2     NEON, radix 2^26: (r^2, r^1) and (r^4, r^3), five limb pairs each
         (_poly1305_neon.pxi)
  F16    AVX-512F (no IFMA), radix 2^26: r^16, five limbs; r^1..r^8 are the AVX2
         region's (the same code fills them) (_poly1305_avx512f.pxi)

ENGINE_MODULES: the compiled modules above the kernels (the dispatcher, the
engine, the SSH framing, the kernel test hooks), built for every target with
no ISA flag and imported on every CPU.

FEATURES: each CPU feature a backend may name, and where the dispatcher's probe
(poly1305x._core._dispatch._probe, on the queries of _kernels/_cpu.h) reads it.
A name the probe finds is in poly1305x.cpu_features().
  arch        "x86" (x86-64 and i386 builds) or "aarch64"; the probe reads
              only the entries of the architecture it was built for
  cpuid       x86: (leaf, subleaf, register, bit): present when that bit of
              that register of CPUID(leaf, subleaf) is set and the leaf is
              within the CPU's range (CPUID 0 or 0x80000000 says the top)
  xcr0        x86: the XCR0 bits (XGETBV, once CPUID.1:ECX.OSXSAVE says the
              OS enabled XSAVE) that must all be set: the register state the
              OS saves across context switches.  0x06 is XMM | YMM (AVX,
              AVX2); 0xe6 adds opmask | ZMM_Hi256 | Hi16_ZMM (AVX-512).  A
              feature the OS does not save state for counts as absent.  0: no
              state needed
  hwcap       aarch64: (word, bit): present when that bit of the Linux
              kernel's AT_HWCAP (word 1) or AT_HWCAP2 (word 2) is set (other
              systems: absent).  NEON/ASIMD, the AArch64 baseline, needs no
              entry: the portable kernels use it unconditionally there
"""

POWERS = {"AVX2": 8 * 5, "IFMA": 16 * 3, "N2": 2 * 5, "F16": 5}

ENGINE_MODULES = ("poly1305x._core._dispatch", "poly1305x._core._engine", "poly1305x.openssh._ssh",
                  "poly1305x._core._testing")

FEATURES = {
    "avx2": {"arch": "x86", "cpuid": (7, 0, "ebx", 5), "xcr0": 0x06},
    "avx512f": {"arch": "x86", "cpuid": (7, 0, "ebx", 16), "xcr0": 0xe6},
    "avx512vl": {"arch": "x86", "cpuid": (7, 0, "ebx", 31), "xcr0": 0xe6},
    "avx512ifma": {"arch": "x86", "cpuid": (7, 0, "ebx", 21), "xcr0": 0xe6},
}

_AVX2_PROBE = ("#include <immintrin.h>\nint main(void){__m256i a=_mm256_set1_epi32(1);"
               "a=_mm256_mul_epu32(a,a);return _mm256_extract_epi32(a,0)-1;}\n")
_AVX512_PROBE = ("#include <immintrin.h>\nint main(void){__m512i a=_mm512_set1_epi64(1);"
                 "a=_mm512_madd52lo_epu64(a,a,a);a=_mm512_rol_epi32(a,7);"
                 "return (int)_mm_cvtsi128_si32(_mm512_castsi512_si128(a))&0;}\n")
# AVX-512F/VL and nothing later: the probe of a module built without IFMA
_AVX512F_PROBE = ("#include <immintrin.h>\nint main(void){__m512i a=_mm512_set1_epi64(1);"
                  "a=_mm512_mul_epu32(a,a);a=_mm512_rol_epi32(a,7);"
                  "__m256i b=_mm256_rol_epi32(_mm512_castsi512_si256(a),7);"
                  "return (int)_mm_cvtsi128_si32(_mm256_castsi256_si128(b))&0;}\n")
_SIMDE_PROBE = ("#define SIMDE_ENABLE_NATIVE_ALIASES\n#include <simde/x86/avx512.h>\n"
                "int main(void){__m512i a=_mm512_set1_epi64(1);a=_mm512_rol_epi32(a,7);"
                "return 0;}\n")
_SIMDE_NEON_PROBE = ("#define SIMDE_ENABLE_NATIVE_ALIASES\n#include <simde/arm/neon.h>\n"
                     "int main(void){uint32x4_t c=vdupq_n_u32(3);uint64x2_t a=vdupq_n_u64(1);"
                     "a=vmlal_laneq_u32(a,vdup_n_u32(2),c,3);return (int)vgetq_lane_u64(a,0)-7;}\n")

BACKENDS = (
    {"name": "avx512", "features": ("avx512f", "avx512vl", "avx512ifma"),
     "module": "poly1305x._kernels._x86_avx512", "table": "avx512", "target": "x86_64",
     "cflags": ("-mavx2", "-mavx512f", "-mavx512vl", "-mavx512ifma"), "msvc": ("/arch:AVX512",),
     "isa": "avx512", "probe": _AVX512_PROBE, "switch": "POLY1305X_NO_AVX512", "opt_in": None,
     "emulated": False, "int128_twin": None},
    # AVX-512 without IFMA (Skylake-SP, Cascade Lake): radix-2^26 Poly1305 on
    # vpmuludq zmm; built without -mavx512ifma, so its module holds no IFMA
    {"name": "avx512f", "features": ("avx512f", "avx512vl"),
     "module": "poly1305x._kernels._x86_avx512f", "table": "avx512f", "target": "x86_64",
     "cflags": ("-mavx2", "-mavx512f", "-mavx512vl"), "msvc": ("/arch:AVX512",),
     "isa": "avx512", "probe": _AVX512F_PROBE, "switch": "POLY1305X_NO_AVX512", "opt_in": None,
     "emulated": False, "int128_twin": None},
    {"name": "avx2", "features": ("avx2",),
     "module": "poly1305x._kernels._x86_avx2", "table": "avx2", "target": "x86_64",
     "cflags": ("-mavx2",), "msvc": ("/arch:AVX2",),
     "isa": "avx2", "probe": _AVX2_PROBE, "switch": "POLY1305X_NO_AVX2", "opt_in": None,
     "emulated": False, "int128_twin": None},
    {"name": "portable", "features": (),
     "module": "poly1305x._kernels._portable", "table": "portable", "target": None,
     "cflags": (), "msvc": (), "isa": "baseline", "probe": None, "switch": None, "opt_in": None,
     "emulated": False, "int128_twin": "portable26"},
    {"name": "portable26", "features": (),
     "module": "poly1305x._kernels._portable", "table": "portable26", "target": None,
     "cflags": (), "msvc": (), "isa": "baseline", "probe": None, "switch": None, "opt_in": None,
     "emulated": False, "int128_twin": None},
    # no vector code at all: the reference the self-test checks the others against
    {"name": "scalar", "features": (),
     "module": "poly1305x._kernels._portable", "table": "scalar", "target": None,
     "cflags": (), "msvc": (), "isa": "baseline", "probe": None, "switch": None, "opt_in": None,
     "emulated": False, "int128_twin": None},
    # the AVX-512 kernels compiled against SIMDe (Debian: libsimde-dev), to check
    # them on CPUs without AVX-512; never in a release wheel
    {"name": "avx512-emu", "features": ("avx2",),
     "module": "poly1305x._kernels._x86_avx512_emu", "table": "avx512", "target": "x86_64",
     "cflags": ("-mavx2", "-DPOLY1305X_SIMDE"), "msvc": ("/arch:AVX2", "/DPOLY1305X_SIMDE"),
     "isa": "avx2", "probe": _SIMDE_PROBE, "switch": None, "opt_in": "POLY1305X_SIMDE",
     "emulated": True, "int128_twin": None},
    # the same for the AVX-512F (no IFMA) kernels
    {"name": "avx512f-emu", "features": ("avx2",),
     "module": "poly1305x._kernels._x86_avx512f_emu", "table": "avx512f", "target": "x86_64",
     "cflags": ("-mavx2", "-DPOLY1305X_SIMDE"), "msvc": ("/arch:AVX2", "/DPOLY1305X_SIMDE"),
     "isa": "avx2", "probe": _SIMDE_PROBE, "switch": None, "opt_in": "POLY1305X_SIMDE",
     "emulated": True, "int128_twin": None},
    # portable's NEON Poly1305 kernels (aarch64) compiled against SIMDe's NEON,
    # to check them on x86-64 hosts; never in a release wheel
    {"name": "neon-emu", "features": (),
     "module": "poly1305x._kernels._neon_emu", "table": "neon-emu", "target": "x86_64",
     "cflags": ("-DPOLY1305X_NEON_SIMDE",), "msvc": ("/DPOLY1305X_NEON_SIMDE",),
     "isa": "baseline", "probe": _SIMDE_NEON_PROBE, "switch": None, "opt_in": "POLY1305X_SIMDE",
     "emulated": True, "int128_twin": None},
)
