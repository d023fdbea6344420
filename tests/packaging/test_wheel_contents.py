"""What a wheel and an sdist built from this tree hold: the wheel
only what runs (compiled modules linked stripped, .py, .pyi, py.typed), the
sdist every source the build needs.

One extension (POLY1305X_ONLY=_ssh) keeps the build to seconds; the package
data rules and the link flags are the same for every module."""
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


#: What a build leaves in a tree (and never belongs in a fresh one).
_BUILT = shutil.ignore_patterns(".git", "build", "dist", ".nox", ".venv*", "__pycache__",
                                ".pytest_cache", "_build", "*.egg-info", "*.so", "*.pyd",
                                "*.o", "*.c")


def _tree_copy(dest):
    """The checkout as a fresh clone has it: sources only (CI's sanitizer job
    runs the tests from a copy without .git, so no git here)."""
    shutil.copytree(ROOT, dest, ignore=_BUILT, dirs_exist_ok=True)
    return dest


_BUILD_PATH = []


def _build_env(**extra):
    """The build requirements on the path: this venv's when it has them (the
    README's install), else pip's copies in a temporary folder (an install
    from a wheel or sdist, as in .ci/matrix.sh)."""
    # The build is not what is under test: no sanitizer runtime preloaded into
    # pip and the compiler (.ci/sanitize.sh), no switch of the test build.
    drop = ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "PYTHONMALLOC")
    env = {k: v for k, v in os.environ.items() if k not in drop and
           (not k.startswith("POLY1305X_") or k == "POLY1305X_SIMDE")}
    env.update(POLY1305X_ONLY="_ssh", PIP_DISABLE_PIP_VERSION_CHECK="1", **extra)
    probe = "import Cython, setuptools; assert int(setuptools.__version__.split('.')[0]) >= 77"
    if not _BUILD_PATH:
        if subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode:
            import tempfile
            target = tempfile.mkdtemp(prefix="poly1305x-buildreqs-")
            subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--target", target,
                            "setuptools>=77", "Cython>=3.1"], check=True, timeout=600)
            _BUILD_PATH.append(target)
        else:
            _BUILD_PATH.append("")
    if _BUILD_PATH[0]:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_BUILD_PATH[0],
                                                          env.get("PYTHONPATH")]))
    return env


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return _tree_copy(str(tmp_path_factory.mktemp("tree")))


def _wheel(tree, out, **env):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", out, tree], check=True, env=_build_env(**env),
                   capture_output=True, timeout=600)
    (whl,) = [os.path.join(out, f) for f in os.listdir(out) if f.endswith(".whl")]
    return whl


def _sections(path):
    out = subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True,
                         check=True).stdout
    return {line.split("]", 1)[1].split()[0] for line in out.splitlines()
            if line.strip().startswith("[") and "]" in line and line.split("]", 1)[1].split()}


@pytest.fixture(scope="module")
def wheel(tree, tmp_path_factory):
    return _wheel(tree, str(tmp_path_factory.mktemp("wheel")))


def test_wheel_holds_only_what_runs(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    pkg = [n for n in names if n.startswith("poly1305x/")]
    sources = [n for n in pkg if n.endswith((".pyx", ".pxi", ".pxd", ".h", ".c"))]
    assert not sources, sources
    assert not [n for n in pkg if not n.endswith((".py", ".pyi", ".so", "py.typed"))]
    for need in ("poly1305x/py.typed", "poly1305x/openssh/_ssh.pyi", "poly1305x/_core/_engine.pyi",
                 "poly1305x/__init__.py", "poly1305x/openssh/__main__.py"):
        assert need in names, need
    assert [n for n in pkg if n.startswith("poly1305x/openssh/_ssh.") and n.endswith(".so")]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF sections: Linux")
def test_wheel_modules_are_stripped(wheel, tmp_path):
    zipfile.ZipFile(wheel).extractall(tmp_path)
    (so,) = [os.path.join(tmp_path, "poly1305x", "openssh", n)
             for n in os.listdir(tmp_path / "poly1305x" / "openssh") if n.endswith(".so")]
    sections = _sections(so)
    assert ".text" in sections
    assert ".symtab" not in sections and not [s for s in sections if s.startswith(".debug")], \
        sorted(sections)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF sections: Linux")
def test_no_strip_keeps_the_symbols(tree, tmp_path):
    """Sanitizer and valgrind builds (POLY1305X_CFLAGS) and POLY1305X_NO_STRIP
    keep the symbol table."""
    shutil.rmtree(os.path.join(tree, "build"), ignore_errors=True)   # relink, not reuse
    whl = _wheel(tree, str(tmp_path / "w"), POLY1305X_NO_STRIP="1")
    zipfile.ZipFile(whl).extractall(tmp_path / "x")
    (so,) = [os.path.join(tmp_path, "x", "poly1305x", "openssh", n)
             for n in os.listdir(tmp_path / "x" / "poly1305x" / "openssh") if n.endswith(".so")]
    assert ".symtab" in _sections(so)


def test_sdist_holds_the_sources(tree, tmp_path):
    subprocess.run([sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path)], cwd=tree,
                   check=True, env=_build_env(), capture_output=True, timeout=600)
    (sdist,) = [os.path.join(tmp_path, f) for f in os.listdir(tmp_path) if f.endswith(".tar.gz")]
    names = {n.split("/", 1)[1] for n in tarfile.open(sdist).getnames() if "/" in n}
    for need in ("poly1305x/_core/_engine.pyx", "poly1305x/_core/_aead.pxi",
                 "poly1305x/_core/_engine.pxd", "poly1305x/_core/_sync.h",
                 "poly1305x/_kernels/_x86_avx512_emu.pyx", "poly1305x/_kernels/_registry.py",
                 "poly1305x/_kernels/_kernel.pxd", "poly1305x/_kernels/_simd.h",
                 "poly1305x/py.typed", "poly1305x/_core/_engine.pyi", "setup.py", "MANIFEST.in"):
        assert need in names, need
    assert not [n for n in names if n.endswith((".c", ".so"))]


@pytest.mark.skipif(os.name == "nt", reason="CC= is the Unix compiler override")
def test_no_compiler_is_said_plainly(tree, tmp_path):
    """Without a working C compiler, the build says so (and how to get one)
    instead of ending in pip's bare "Failed to build"."""
    r = subprocess.run([sys.executable, "setup.py", "build_ext", "-b", str(tmp_path / "b"),
                        "-t", str(tmp_path / "t")], cwd=tree, env=_build_env(CC="/bin/false"),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode != 0
    assert "needs a C compiler and the Python headers" in r.stderr, r.stderr[-2000:]
    assert "apt-get install gcc python3-dev" in r.stderr
