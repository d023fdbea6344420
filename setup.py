"""Build the poly1305x extensions.

One extension per instruction set, each with its own flags: the portable,
dispatch and engine modules get no ISA flag (they must import on any CPU);
_kernels._x86_avx2 and _kernels._x86_avx512 are built only on x86-64 with a
compiler that can compile their intrinsics, and are imported only after the
run-time CPU check.

Environment switches (for testing portable builds on this machine):
  POLY1305X_NO_SIMD=1     build no SIMD extension (as on a compiler without them)
  POLY1305X_NO_INT128=1   build the base-2^64 loop without unsigned __int128
  POLY1305X_NO_VEC=1      build the portable ChaCha20 without GCC/Clang vector
                          extensions (scalar lanes), as a compiler without them
  POLY1305X_VEC_SSE2=1    build it on SSE2 intrinsics, as MSVC on x64 does
  POLY1305X_CFLAGS="..."  extra compiler flags for every extension (sanitizers)
  POLY1305X_SIMDE=1       also build _kernels._x86_avx512_emu: the AVX-512
                          kernels compiled against SIMDe (Debian: libsimde-dev),
                          a test-only backend that checks them on CPUs without
                          AVX-512
"""
import os
import platform
import shlex
import sys
import sysconfig
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.join(HERE, "poly1305x")
KERNELS = os.path.join(PKG, "_kernels")
CORE = os.path.join(PKG, "_core")

SIMD = {
    "poly1305x._kernels._x86_avx2": ["-mavx2"],
    "poly1305x._kernels._x86_avx512": ["-mavx2", "-mavx512f", "-mavx512vl", "-mavx512ifma"],
    "poly1305x._kernels._x86_avx512_emu": ["-mavx2", "-DPOLY1305X_SIMDE"],
}

# MSVC has no per-extension ISA switches finer than /arch.
MSVC_SIMD = {
    "poly1305x._kernels._x86_avx2": ["/arch:AVX2"],
    "poly1305x._kernels._x86_avx512": ["/arch:AVX512"],
    "poly1305x._kernels._x86_avx512_emu": ["/arch:AVX2", "/DPOLY1305X_SIMDE"],
}

# A probe per ISA: compiles only if the compiler knows the intrinsics.
PROBES = {
    "poly1305x._kernels._x86_avx2": "#include <immintrin.h>\nint main(void){__m256i a=_mm256_set1_epi32(1);"
                           "a=_mm256_mul_epu32(a,a);return _mm256_extract_epi32(a,0)-1;}\n",
    "poly1305x._kernels._x86_avx512_emu": "#define SIMDE_ENABLE_NATIVE_ALIASES\n#include <simde/x86/avx512.h>\n"
                                 "int main(void){__m512i a=_mm512_set1_epi64(1);a=_mm512_rol_epi32(a,7);"
                                 "return 0;}\n",
    "poly1305x._kernels._x86_avx512": "#include <immintrin.h>\nint main(void){__m512i a=_mm512_set1_epi64(1);"
                             "a=_mm512_madd52lo_epu64(a,a,a);a=_mm512_rol_epi32(a,7);"
                             "return (int)_mm_cvtsi128_si32(_mm512_castsi512_si128(a))&0;}\n",
}


def _flag(name):
    return os.environ.get(name, "").strip() not in ("", "0", "false", "no")


def _is_x86_64():
    # The target, not the host: a cross-build (.ci/aarch64.sh) sets
    # _PYTHON_HOST_PLATFORM, which sysconfig.get_platform() reports.
    target = sysconfig.get_platform().lower()
    if target.startswith(("linux-", "macosx-", "win-")) and not target.endswith("universal2"):
        return target.endswith(("x86_64", "amd64"))
    return platform.machine().lower() in ("x86_64", "amd64")


class BuildExt(build_ext):
    """Drops the SIMD extensions the compiler cannot build, then prints a
    one-line summary of what was built."""

    def _compiles(self, source, flags):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "probe.c")
            with open(path, "w") as fh:
                fh.write(source)
            try:
                self.compiler.compile([path], output_dir=tmp, extra_postargs=flags)
            except Exception:
                return False
        return True

    def build_extensions(self):
        msvc = self.compiler.compiler_type == "msvc"
        extra = shlex.split(os.environ.get("POLY1305X_CFLAGS", ""))
        kept, dropped = [], []
        for ext in self.extensions:
            if ext.name in SIMD:
                flags = MSVC_SIMD[ext.name] if msvc else SIMD[ext.name]
                if _flag("POLY1305X_NO_SIMD") or not _is_x86_64() or \
                        not self._compiles(PROBES[ext.name], flags):
                    dropped.append(ext.name)
                    continue
                ext.extra_compile_args = list(flags)
            else:
                ext.extra_compile_args = []
            ext.extra_compile_args += (["/O2"] if msvc else ["-O3"]) + extra
            if extra:
                ext.extra_link_args = list(extra)
            kept.append(ext)
        self.extensions = kept
        if not os.environ.get("POLY1305X_ONLY"):
            # A module dropped from this build must not linger from an earlier
            # one (it would land in a wheel built from the same tree).
            for name in dropped:
                stale = self.get_ext_fullpath(name)
                if os.path.exists(stale):
                    os.remove(stale)
        super().build_extensions()
        simd = [e.name.rsplit("_", 1)[-1] for e in kept if e.name in SIMD]
        print("poly1305x build: portable"
              + ("" if not _flag("POLY1305X_NO_INT128") else " (no int128)")
              + ("" if not _flag("POLY1305X_NO_VEC") else " (no vector extensions)")
              + ("" if not _flag("POLY1305X_VEC_SSE2") else " (SSE2 intrinsics)")
              + (" + " + " + ".join(simd) if simd else " only (no SIMD extension)")
              + (f"; dropped {', '.join(dropped)}" if dropped else ""), file=sys.stderr)


def _extensions():
    from Cython.Build import cythonize

    macros = [(m, "1") for m in ("POLY1305X_NO_INT128", "POLY1305X_NO_VEC", "POLY1305X_VEC_SSE2")
              if _flag(m)]
    names = ["_kernels._portable", "_core._dispatch", "_core._engine", "openssh._ssh"]
    if _is_x86_64() and not _flag("POLY1305X_NO_SIMD"):
        names += ["_kernels._x86_avx2", "_kernels._x86_avx512"]
        if _flag("POLY1305X_SIMDE"):
            names.append("_kernels._x86_avx512_emu")
    paths = {n: "poly1305x/" + n.replace(".", "/") + ".pyx" for n in names}
    names = [n for n in names if os.path.exists(os.path.join(HERE, paths[n]))]
    # Development aid: POLY1305X_ONLY=_x86_avx2,_portable rebuilds just those
    # (the last part of the module name).
    only = [n.strip() for n in os.environ.get("POLY1305X_ONLY", "").split(",") if n.strip()]
    if only:
        names = [n for n in names if n.rsplit(".", 1)[-1] in only]
    exts = [Extension(f"poly1305x.{n}", [paths[n]], include_dirs=[CORE, KERNELS],
                      define_macros=macros) for n in names]
    return cythonize(
        exts,
        # freethreading_compatible (Cython >= 3.1): every module declares
        # Py_mod_gil = Py_MOD_GIL_NOT_USED, so importing poly1305x on a
        # free-threaded CPython keeps the GIL off.  What makes that true: the
        # kernels and engine calls touch only their arguments and the object's
        # own state, module-level state is behind locks (_dispatch, _install),
        # stateful objects refuse concurrent use (docs/platforms.md).
        compiler_directives={"language_level": 3, "embedsignature": True, "binding": True,
                             "freethreading_compatible": True},
        include_path=[HERE],
    )


setup(ext_modules=_extensions(), cmdclass={"build_ext": BuildExt})
