"""The map stays true: every file name that the code (its comments, docstrings
and includes) or docs/architecture.md names exists in the tree, and the
architecture tree names every file of poly1305x/_core/ and poly1305x/_kernels/.

A failure names exactly the missing files, so a new one is one line in the
tree (or a corrected name in a comment)."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
PKG = ROOT / "poly1305x"
ARCH = ROOT / "docs" / "architecture.md"
# A private module or source file: _name.pyx, .pxi, .pxd, .pyi, .h or .py
NAME = re.compile(r"(?<![A-Za-z0-9_])_[A-Za-z0-9_]+\.(?:pxi|pyx|pxd|pyi|h|py)(?![A-Za-z0-9_])")
SOURCE = {".py", ".pyx", ".pxi", ".pxd", ".pyi", ".h", ".sh"}
SKIP = {".git", ".venv", ".nox", "build", "dist", "wheelhouse", "__pycache__", "corpus", "_build"}


def _walk(top):
    for p in sorted(top.rglob("*")):
        if p.is_file() and not SKIP & set(p.relative_to(ROOT).parts):
            yield p


def _code():
    """The files whose text names other files: the package, the build, the
    CI scripts and the tests (not this file: its examples are patterns)."""
    tops = [PKG, ROOT / ".ci", ROOT / "tests"]
    files = [p for top in tops for p in _walk(top)
             if (p.suffix in SOURCE or p.parent.name == ".ci") and p != pathlib.Path(__file__).resolve()]
    return files + [ROOT / "setup.py", ROOT / "noxfile.py"]


def _tree_block():
    """docs/architecture.md's layout drawing: its first ```text block."""
    text = ARCH.read_text(encoding="utf-8")
    return re.search(r"```text\n(.*?)```", text, re.S).group(1)


def _generated():
    """The files setup.py writes at build time (the keys of its generated
    maps), which a source tree does not hold."""
    text = (ROOT / "setup.py").read_text(encoding="utf-8")
    return set(re.findall(r'"(_\w+\.(?:h|pxi))": ', text))


def test_every_named_file_exists():
    present = {p.name for p in _walk(ROOT)} | _generated()
    missing = {}
    for path in _code() + [ARCH]:
        for name in set(NAME.findall(path.read_text(encoding="utf-8", errors="replace"))):
            if name not in present:
                missing.setdefault(name, []).append(path.relative_to(ROOT).as_posix())
    assert not missing, "named but not in the tree: " + "; ".join(
        f"{name} (in {', '.join(sorted(where))})" for name, where in sorted(missing.items()))


def test_architecture_tree_names_every_core_and_kernel_file():
    drawn = set(NAME.findall(_tree_block()))
    files = [p for d in ("_core", "_kernels") for p in sorted((PKG / d).iterdir())
             if p.suffix in SOURCE and p.name != "__init__.py"]
    assert files
    missing = [p.relative_to(ROOT).as_posix() for p in files if p.name not in drawn]
    assert not missing, ("docs/architecture.md's tree (its ```text block) does not name: "
                         + ", ".join(missing))
