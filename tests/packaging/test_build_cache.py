"""setup.py's build cache (build/cache/): a second build of unchanged sources
copies the compiled module instead of compiling it, and a change to any
source it reads -- a .pyx, an included .pxi, a C header -- or to the flags
compiles it again.  Built in a scratch copy of the package, one small module
(_core._dispatch) through POLY1305X_ONLY."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULE = "poly1305x._core._dispatch"


@pytest.fixture(scope="module")
def cache_tree(tmp_path_factory):
    top = tmp_path_factory.mktemp("cache-tree")
    for name in ("setup.py", "pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, top / name)
    shutil.copytree(ROOT / "poly1305x", top / "poly1305x", ignore=shutil.ignore_patterns(
        "*.so", "*.pyd", "*.c", "__pycache__"))
    return top


def _build(top, **env):
    e = dict(os.environ, POLY1305X_ONLY="_dispatch")
    e.pop("POLY1305X_NO_CACHE", None)
    e.update(env)
    r = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=top, env=e,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return r.stderr


def _append(path, text):
    with open(path, "a") as f:
        f.write(text)


def test_unchanged_sources_come_from_the_cache(cache_tree):
    first = _build(cache_tree)
    assert f"compiling {MODULE}" in first
    second = _build(cache_tree)
    assert "Cython sources unchanged" in second
    assert f"{MODULE} unchanged, from build/cache" in second
    assert f"compiling {MODULE}" not in second
    built = list((cache_tree / "poly1305x" / "_core").glob("_dispatch*.so"))
    assert built and built[0].stat().st_size > 0


@pytest.mark.parametrize("change", ["header", "pyx", "flags", "no-cache"])
def test_a_change_compiles_again(cache_tree, change):
    _build(cache_tree)                                   # the cache holds the current state
    env = {}
    if change == "header":
        _append(cache_tree / "poly1305x" / "_kernels" / "_cpu.h", "\n/* changed */\n")
    elif change == "pyx":
        _append(cache_tree / "poly1305x" / "_core" / "_dispatch.pyx", "\n# changed\n")
    elif change == "flags":
        env["POLY1305X_NO_INT128"] = "1"
    else:
        env["POLY1305X_NO_CACHE"] = "1"
    out = _build(cache_tree, **env)
    assert "from build/cache" not in out, out
    if change != "no-cache":
        assert f"compiling {MODULE}" in out, out
    if change == "pyx":
        assert "Cython sources unchanged" not in out
