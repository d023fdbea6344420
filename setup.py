"""Build the poly1305x extensions.

One extension per instruction set, each with its own flags: the portable,
dispatch and engine modules get no ISA flag (they must import on any CPU);
_kernels._x86_avx2, _x86_avx512f and _x86_avx512 are built only on x86-64 with a
compiler that can compile their intrinsics, and are imported only after the
run-time CPU check.

Environment switches (for testing portable builds on this machine):
  POLY1305X_NO_SIMD=1     build no SIMD extension (as on a compiler without them)
  POLY1305X_NO_AVX512=1   build no AVX-512 extension (avx512, avx512f);
                          POLY1305X_NO_AVX2=1: no AVX2 one (each backend's
                          switch: _kernels/_registry.py)
  POLY1305X_NO_INT128=1   build the base-2^64 loop without unsigned __int128
  POLY1305X_NO_VEC=1      build the portable ChaCha20 without GCC/Clang vector
                          extensions (scalar lanes), as a compiler without them
  POLY1305X_VEC_SSE2=1    build it on SSE2 intrinsics, as MSVC on x64 does
  POLY1305X_CFLAGS="..."  extra compiler flags for every extension (sanitizers);
                          also turns off stripping
  POLY1305X_NO_STRIP=1    keep the symbol table (default: the modules are
                          linked stripped, -s, unless built with --debug)
  POLY1305X_SIMDE=1       also build _kernels._x86_avx512_emu and
                          _x86_avx512f_emu: the AVX-512 kernels compiled
                          against SIMDe (Debian: libsimde-dev), test-only
                          backends that check them on CPUs without AVX-512
                          (and under valgrind)
  POLY1305X_NO_CACHE=1    compile everything afresh (see the build cache below)

The build cache: each pip install (-e or not) builds in a fresh isolated
environment, so without help every `pip install -e '.[extra]'` would cythonize
and compile every module again, about a minute and a half.  build/cache/ (in
the clone, git-ignored) keeps the generated C of the last cythonize, keyed by
a hash of every Cython, C and header source and the Cython version, and each
compiled module keyed by a hash of its C source, the package's headers, its
flags, the compiler and Python:
a second install with nothing changed copies them in seconds.  Delete the
folder, or set POLY1305X_NO_CACHE=1, to build from nothing.
"""
import hashlib
import os
import platform
import runpy
import shlex
import shutil
import sys
import sysconfig
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.join(HERE, "poly1305x")
KERNELS = os.path.join(PKG, "_kernels")
CORE = os.path.join(PKG, "_core")

# The backends as data (poly1305x/_kernels/_registry.py: literals only, run
# here without importing the package): every module with compiler flags is an
# ISA module, built after its probe compiles, unless its switch is set.
_REGISTRY_FILE = runpy.run_path(os.path.join(KERNELS, "_registry.py"))
REGISTRY = _REGISTRY_FILE["BACKENDS"]
# A feature the probe cannot look up would leave its backend unusable, silently.
_UNDESCRIBED = sorted({f for b in REGISTRY for f in b["features"]}
                      - set(_REGISTRY_FILE["FEATURES"]))
if _UNDESCRIBED:
    raise SystemExit(f"poly1305x/_kernels/_registry.py: backends need CPU features with no "
                     f"FEATURES entry: {', '.join(_UNDESCRIBED)}")
ISA_MODULES = {b["module"]: b for b in REGISTRY if b["cflags"]}
SIMD = {m: list(b["cflags"]) for m, b in ISA_MODULES.items()}
# MSVC has no per-extension ISA switches finer than /arch.
MSVC_SIMD = {m: list(b["msvc"]) for m, b in ISA_MODULES.items()}
# A probe per ISA: compiles only if the compiler knows the intrinsics.
PROBES = {m: b["probe"] for m, b in ISA_MODULES.items()}


def _flag(name):
    return os.environ.get(name, "").strip() not in ("", "0", "false", "no")


def _wanted(b):
    """Whether the build switches ask for backend entry b's module."""
    if b["opt_in"] and not _flag(b["opt_in"]):
        return False
    if b["cflags"] and _flag("POLY1305X_NO_SIMD"):
        return False
    return not (b["switch"] and _flag(b["switch"]))


def _is_x86_64():
    # The target, not the host: a cross-build (.ci/aarch64.sh) sets
    # _PYTHON_HOST_PLATFORM, which sysconfig.get_platform() reports.
    target = sysconfig.get_platform().lower()
    if target.startswith(("linux-", "macosx-", "win-")) and not target.endswith("universal2"):
        return target.endswith(("x86_64", "amd64"))
    return platform.machine().lower() in ("x86_64", "amd64")


CACHE = os.path.join(HERE, "build", "cache")
CACHE_KEEP = 48          # compiled modules kept (the newest); a few builds' worth


def _cache_on():
    return not _flag("POLY1305X_NO_CACHE")


def _digest(*parts):
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else repr(part).encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def _file_digest(path):
    with open(path, "rb") as f:
        return _digest(f.read())


def _headers_digest():
    """A hash of the package's C headers, which the generated C includes."""
    parts = []
    for root, dirs, files in os.walk(PKG):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        parts += [_file_digest(os.path.join(root, n)) for n in sorted(files) if n.endswith(".h")]
    return _digest(*parts)


def _cython_inputs_digest(directives):
    """A hash of everything cythonize reads: the package's .pyx/.pxi/.pxd/.h
    files (names and contents), the Cython version and the directives."""
    import Cython
    parts = [Cython.__version__, sorted(directives.items())]
    for root, dirs, files in os.walk(PKG):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyx", ".pxi", ".pxd", ".h")):
                path = os.path.join(root, name)
                parts += [os.path.relpath(path, HERE), _file_digest(path)]
    return _digest(*parts)


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

    def _strip_args(self, msvc, extra):
        """Linker flags that leave out the symbol table and debug info: a
        release module needs neither (a third of the size).  Kept for --debug,
        POLY1305X_CFLAGS (sanitizer and valgrind builds) and POLY1305X_NO_STRIP."""
        if msvc or self.debug or extra or _flag("POLY1305X_NO_STRIP"):
            return []
        if sys.platform == "darwin" or "apple" in sysconfig.get_platform():
            return ["-Wl,-S,-x"]    # ld64 has no -s: drop debug info and local symbols
        return ["-s"]

    def build_extension(self, ext):
        """Compile one module, or copy it from the build cache when its C
        source, flags, compiler and Python are those of a cached build."""
        target = self.get_ext_fullpath(ext.name)
        if not _cache_on() or self.debug or self.force:
            return super().build_extension(ext)
        key = _digest([_file_digest(src) for src in ext.sources], _headers_digest(),
                      ext.extra_compile_args,
                      ext.extra_link_args, ext.define_macros, sorted({os.path.abspath(d) for d in ext.include_dirs}),
                      getattr(self.compiler, "compiler_so", None) or self.compiler.compiler_type,
                      sys.version, sysconfig.get_platform(), os.path.basename(target))
        cached = os.path.join(CACHE, f"{ext.name}-{key}{os.path.splitext(target)[1]}")
        if os.path.exists(cached):
            os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
            shutil.copyfile(cached, target)
            os.chmod(target, 0o755)
            os.utime(cached)                 # recently used: kept by the pruning
            print(f"poly1305x build: {ext.name} unchanged, from build/cache", file=sys.stderr)
            return None
        print(f"poly1305x build: compiling {ext.name}", file=sys.stderr)
        result = super().build_extension(ext)
        try:
            os.makedirs(CACHE, exist_ok=True)
            shutil.copyfile(target, cached + ".part")
            os.replace(cached + ".part", cached)
            kept = sorted((os.path.join(CACHE, n) for n in os.listdir(CACHE)
                           if not n.endswith((".part", ".json"))),
                          key=os.path.getmtime, reverse=True)
            for old in kept[CACHE_KEEP:]:
                os.remove(old)
        except OSError:
            pass                             # a cache that cannot be written is no cache
        return result

    def build_extensions(self):
        msvc = self.compiler.compiler_type == "msvc"
        if not self._compiles("#include <Python.h>\nint main(void){return 0;}\n", []):
            # Said before anything else: otherwise pip shows only "Failed to
            # build poly1305x" after a page of compiler output.
            raise SystemExit(
                "poly1305x builds C extension modules from source and needs a C compiler "
                "and the Python headers; none that work were found (compiler: "
                f"{(getattr(self.compiler, 'compiler_so', None) or ['?'])[0]}). "
                "Debian/Ubuntu: apt-get install gcc python3-dev; Fedora: dnf install gcc "
                "python3-devel; macOS: xcode-select --install; Windows: the Visual Studio "
                "Build Tools (C++)")
        extra = shlex.split(os.environ.get("POLY1305X_CFLAGS", ""))
        kept, dropped = [], []
        for ext in self.extensions:
            if ext.name in SIMD:
                flags = MSVC_SIMD[ext.name] if msvc else SIMD[ext.name]
                if not _wanted(ISA_MODULES[ext.name]) or not _is_x86_64() or \
                        not self._compiles(PROBES[ext.name], flags):
                    dropped.append(ext.name)
                    continue
                ext.extra_compile_args = list(flags)
            else:
                ext.extra_compile_args = []
            ext.extra_compile_args += (["/O2"] if msvc else ["-O3"]) + extra
            ext.extra_link_args = list(extra) + self._strip_args(msvc, extra)
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
    names = ["_core._dispatch", "_core._engine", "openssh._ssh"]
    for b in REGISTRY:                # each kernel module once
        name = b["module"][len("poly1305x."):]
        if name not in names and _wanted(b) and (b["target"] is None or _is_x86_64()):
            names.append(name)
    paths = {n: "poly1305x/" + n.replace(".", "/") + ".pyx" for n in names}
    names = [n for n in names if os.path.exists(os.path.join(HERE, paths[n]))]
    # Development aid: POLY1305X_ONLY=_x86_avx2,_portable rebuilds just those
    # (the last part of the module name).
    only = [n.strip() for n in os.environ.get("POLY1305X_ONLY", "").split(",") if n.strip()]
    if only:
        names = [n for n in names if n.rsplit(".", 1)[-1] in only]
    # freethreading_compatible (Cython >= 3.1): every module declares
    # Py_mod_gil = Py_MOD_GIL_NOT_USED, so importing poly1305x on a
    # free-threaded CPython keeps the GIL off.  What makes that true: the
    # kernels and engine calls touch only their arguments and the object's
    # own state, module-level state is behind locks (_dispatch, _install),
    # stateful objects refuse concurrent use (docs/platforms.md).
    directives = {"language_level": 3, "embedsignature": True, "binding": True,
                  "freethreading_compatible": True}
    c_paths = {n: paths[n][:-len(".pyx")] + ".c" for n in names}
    stamp = os.path.join(CACHE, f"cython-{_cython_inputs_digest(directives)}.json") \
        if _cache_on() else None
    if stamp and os.path.exists(stamp):
        # The generated C of these very sources is still there, unchanged.
        import json
        with open(stamp) as f:
            made = json.load(f)
        if all(n in made and os.path.exists(c_paths[n]) and _file_digest(c_paths[n]) == made[n]
               for n in names):
            print("poly1305x build: Cython sources unchanged, C from the last build",
                  file=sys.stderr)
            return [Extension(f"poly1305x.{n}", [c_paths[n]], include_dirs=[CORE, KERNELS],
                              define_macros=macros) for n in names]
    exts = [Extension(f"poly1305x.{n}", [paths[n]], include_dirs=[CORE, KERNELS],
                      define_macros=macros) for n in names]
    exts = cythonize(exts, compiler_directives=directives, include_path=[HERE])
    if stamp:
        import json
        try:
            os.makedirs(CACHE, exist_ok=True)
            old = {}
            if os.path.exists(stamp):
                with open(stamp) as f:
                    old = json.load(f)
            old.update({n: _file_digest(c_paths[n]) for n in names})
            with open(stamp + ".part", "w") as f:
                json.dump(old, f)
            os.replace(stamp + ".part", stamp)
        except OSError:
            pass
    return exts


setup(ext_modules=_extensions(), cmdclass={"build_ext": BuildExt})
