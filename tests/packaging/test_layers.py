"""The package's layers, as the tree shows them (docs/architecture.md):
faces and integrations (poly1305x/) -> engine (poly1305x/_core/_engine) ->
dispatcher (poly1305x/_core/_dispatch) -> kernels (poly1305x/_kernels/), each
importing only from the layers below it, and the backends as one registry of
plain data (poly1305x/_kernels/_registry.py) that the build, the dispatcher
and the checks read."""
import pathlib
import re
import runpy

import pytest

from poly1305x._core import _dispatch
from poly1305x._kernels import _portable
from poly1305x._kernels import _registry

# The sources, from the checkout these tests belong to (a wheel holds no
# .pyx/.pxi/.pxd/.h).
ROOT = pathlib.Path(__file__).resolve().parents[2]
PKG = ROOT / "poly1305x"
SOURCES = (".py", ".pyx", ".pxd", ".pxi", ".h")
IMPORT = re.compile(r"^\s*(?:from|cimport|import)\s+(poly1305x(?:\.\w+)*)", re.M)


def _imports(path):
    return set(IMPORT.findall(path.read_text(encoding="utf-8")))


def _files(sub, pattern="*"):
    return sorted(p for p in (PKG / sub).glob(pattern) if p.suffix in SOURCES)


def test_package_root_holds_no_engine_or_kernel_source():
    stray = sorted(p.name for p in PKG.iterdir() if p.suffix in (".pyx", ".pxi", ".pxd", ".h"))
    assert stray == [], stray


def test_kernels_import_nothing_above_them():
    files = _files("_kernels")
    assert any(p.name == "_portable.pyx" for p in files)
    for path in files:
        above = {m for m in _imports(path) if not m.startswith("poly1305x._kernels")}
        assert not above, (path.name, above)


def test_dispatcher_imports_only_kernels():
    for path in _files("_core", "_dispatch.*"):
        above = {m for m in _imports(path)
                 if not m.startswith(("poly1305x._kernels", "poly1305x._core._dispatch"))}
        assert not above, (path.name, above)


def test_test_hooks_sit_above_the_dispatcher_and_nothing_imports_them():
    """_core/_testing: the kernel_* hooks, beside the engine; the dispatcher
    holds no test aid, and no module of the package imports the hooks."""
    files = _files("_core", "_testing.*")
    assert files
    for path in files:
        above = {m for m in _imports(path)
                 if not m.startswith(("poly1305x._kernels", "poly1305x._core._dispatch"))}
        assert not above, (path.name, above)
    for path in PKG.rglob("*"):
        if path.suffix in SOURCES:
            assert not [m for m in _imports(path) if m.startswith("poly1305x._core._testing")], path
            assert "import _testing" not in path.read_text(encoding="utf-8"), path
    assert not [n for n in dir(_dispatch) if n.startswith("kernel_")]


def test_engine_imports_only_below_it():
    # _errors is the leaf of exception classes (and their shared texts) that
    # every layer above the dispatcher raises.
    for path in _files("_core"):
        above = {m for m in _imports(path)
                 if not m.startswith(("poly1305x._kernels", "poly1305x._core", "poly1305x._errors"))}
        assert not above, (path.name, above)


def test_nothing_calls_up_into_a_face_or_writes_engine_state():
    sources = {p: p.read_text(encoding="utf-8") for p in PKG.rglob("*") if p.suffix in SOURCES}
    for path, text in sources.items():
        assert "set_poly1305_new_other" not in text, path
        if path.parent == PKG:                         # the faces and integrations
            assert not re.search(r"_engine\.\w+\s*(\[[^]]*\])?\s*=[^=]", text), path
            assert "chacha20_modules" not in text, path


def test_face_modules_hold_no_checks():
    """pycryptodome's checks and messages are the engine face's, written once."""
    for name in ("ChaCha20.py", "ChaCha20_Poly1305.py", "Poly1305.py"):
        text = (PKG / name).read_text(encoding="utf-8")
        assert "raise " not in text, name


# ---------------------------------------------------------------------------
# The backend registry
# ---------------------------------------------------------------------------

KEYS = {"name", "features", "module", "table", "target", "cflags", "msvc", "isa", "probe",
        "switch", "opt_in", "emulated", "int128_twin"}


def test_registry_is_plain_data():
    data = runpy.run_path(str(PKG / "_kernels" / "_registry.py"))["BACKENDS"]
    assert data == _registry.BACKENDS
    names = [b["name"] for b in data]
    assert len(set(names)) == len(names)
    for b in data:
        assert set(b) == KEYS, b["name"]
        assert b["isa"] in ("baseline", "avx2", "avx512")
        assert b["module"].startswith("poly1305x._kernels.")
        assert (b["probe"] is None) == (not b["cflags"]), b["name"]
        assert b["int128_twin"] in names + [None], b["name"]
    assert "import" not in (PKG / "_kernels" / "_registry.py").read_text(
        encoding="utf-8").split('"""')[-1]


def test_dispatcher_reads_the_registry():
    ranked = [b["name"] for b in _registry.BACKENDS if not b["emulated"]]
    if not _portable.HAVE_INT128:
        for b in _registry.BACKENDS:
            if b["int128_twin"]:
                ranked.remove(b["int128_twin"])
                ranked.insert(ranked.index(b["name"]), b["int128_twin"])
    emulated = [b["name"] for b in _registry.BACKENDS if b["emulated"]]
    assert _dispatch.all_backends() == ranked + emulated
    assert [b[2] for b in _dispatch.BACKENDS + _dispatch.EMULATED] == [
        next(r["module"] for r in _registry.BACKENDS if r["name"] == b[0])
        for b in _dispatch.BACKENDS + _dispatch.EMULATED]


def test_int128_twin_ranks_before_its_entry_without_int128():
    names = [b["name"] for b in _registry.BACKENDS]
    assert [b["name"] for b in _dispatch._ranked(_registry.BACKENDS, True)] == names
    swapped = [b["name"] for b in _dispatch._ranked(_registry.BACKENDS, False)]
    assert sorted(swapped) == sorted(names)
    for b in _registry.BACKENDS:
        if b["int128_twin"]:
            assert swapped.index(b["int128_twin"]) == swapped.index(b["name"]) - 1
    assert ("portable", "portable26") in [(b["name"], b["int128_twin"]) for b in _registry.BACKENDS]


@pytest.mark.parametrize("name", ["setup.py", "noxfile.py", ".ci/aarch64.sh"])
def test_build_and_checks_name_no_backend_themselves(name):
    """The ISA flags, probes and backend lists live in the registry only."""
    text = (ROOT / name).read_text(encoding="utf-8")
    assert "_registry.py" in text or "_registry import" in text
    for b in _registry.BACKENDS:
        for flag in b["cflags"]:
            assert f'"{flag}"' not in text, (name, flag)
    assert "'portable', 'portable26'" not in text and '"portable26"' not in text


def test_powers_layout_is_the_registrys():
    """The words of the powers-of-r cache each vector kernel owns are data in
    the registry (POWERS), which setup.py turns into the C and Cython map;
    no header, .pxd or kernel keeps a hand-written copy of a region."""
    header = (PKG / "_kernels" / "_powers.h").read_text(encoding="utf-8")
    assert "P1305X_POWERS_END <= P1305X_POWERS_WORDS" in header
    region = re.compile(r"P1305X_(?!POWERS_)\w+_(POWERS|READY)\b")
    for name in ("_powers.h", "_kernel.pxd"):
        text = (PKG / "_kernels" / name).read_text(encoding="utf-8")
        assert not region.search(text), name
    for path in _files("_kernels", "*.pxi"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"P1305X_\w+_(POWERS|READY)\s*=", text), path.name
    powers = runpy.run_path(str(PKG / "_kernels" / "_registry.py"))["POWERS"]
    assert powers and all(re.fullmatch(r"[A-Z][A-Z0-9]*", r) for r in powers)
    assert sum(powers.values()) <= 128 and all(w > 0 for w in powers.values())
    used = {m.group(0) for p in _files("_kernels", "*.pxi")
            for m in re.finditer(r"P1305X_\w+?_READY", p.read_text(encoding="utf-8"))}
    assert used <= {f"P1305X_{r}_READY" for r in powers}, used


def test_gil_threshold_rule_is_written_once():
    """Every call over a caller's buffers releases the GIL by one helper
    (nogil_for / regain in _core/_engine.pxd), not by its own branch."""
    uses = {p.relative_to(PKG).as_posix() for p in PKG.rglob("*")
            if p.suffix in SOURCES and re.search(r">=\s*GIL_THRESHOLD",
                                                 p.read_text(encoding="utf-8"))}
    assert uses == {"_core/_engine.pxd"}, uses


def test_every_vector_file_names_its_source():
    """Every file in tests/vectors/ (whatever its suffix) has a README row with
    its source, a commit or release, and the test modules that read it, which
    exist and name the file."""
    vectors = ROOT / "tests" / "vectors"
    readme = (vectors / "README.md").read_text(encoding="utf-8")
    files = sorted(p.name for p in vectors.iterdir() if p.name != "README.md")
    assert files
    for name in files:
        rows = [line for line in readme.splitlines() if line.startswith(f"| `{name}` |")]
        assert rows, f"tests/vectors/README.md does not name {name}"
        cells = [c.strip() for c in rows[0].strip().strip("|").split("|")]
        assert len(cells) == 4 and cells[1], f"{name}: no source"
        assert re.search(r"\b[0-9a-f]{40}\b|release", cells[2]), f"{name}: no commit or release"
        readers = re.findall(r"`([^`]+\.py)`", cells[3])
        assert readers, f"{name}: no test module named as its reader"
        for reader in readers:
            path = ROOT / "tests" / reader
            assert path.is_file(), f"{name}: read by tests/{reader}, which does not exist"
            assert name in path.read_text(encoding="utf-8"), f"tests/{reader} does not read {name}"


def test_the_library_never_imports_the_tooling():
    """poly1305x._tools (self-test, bench, report, plot) is reached only from
    the command line (poly1305x/__main__.py) and benchmarks/."""
    for path in PKG.rglob("*"):
        if path.suffix not in SOURCES or "_tools" in path.parts or path.name == "__main__.py":
            continue
        assert not {m for m in _imports(path) if m.startswith("poly1305x._tools")}, path


def test_the_cpu_is_probed_in_one_place():
    """Only the dispatcher reads the CPU probe (_cpu.h); the kernel modules
    take what it decides (the portable ChaCha20's step included)."""
    readers = {p.relative_to(PKG).as_posix() for p in PKG.rglob("*")
               if p.suffix in (".pyx", ".pxi", ".pxd", ".py")
               and "p1305x_cpuid" in p.read_text(encoding="utf-8")}
    assert readers == {"_core/_dispatch.pyx"}, readers


MAX_LINES = 400
LINE_COUNTED = ("poly1305x", "tests", "benchmarks", ".ci")


def test_no_module_over_400_lines():
    """Every Python or Cython module of the package, the tests, the
    benchmarks and the CI scripts fits in MAX_LINES lines."""
    seen, long = 0, {}
    for top in LINE_COUNTED:
        assert (ROOT / top).is_dir(), f"{top}/ is missing from {ROOT}"
        for p in (ROOT / top).rglob("*"):
            if p.suffix in (".py", ".pyx", ".pxi") and p.is_file():
                seen += 1
                n = len(p.read_text(encoding="utf-8").splitlines())
                if n > MAX_LINES:
                    long[p.relative_to(ROOT).as_posix()] = n
    assert seen > 100, seen
    assert not long, long


def test_every_switch_runs_on_the_one_swap_helper():
    """install() and every use_with_* swap and restore through poly1305x._swap."""
    switches = {}
    for path in PKG.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        names = re.findall(r"^def (install|use_with_\w+)\(", text, re.M)
        if names:
            switches[path.relative_to(PKG).as_posix()] = names
    assert len([n for ns in switches.values() for n in ns]) >= 6, switches
    for rel in switches:
        text = (PKG / rel).read_text(encoding="utf-8")
        assert "from poly1305x._swap import" in text and "Switch()" in text, rel


def test_tools_import_no_circle():
    """poly1305x/_tools: the modules import one another one way (at the top
    or inside a function alike), so each can be read and tested alone."""
    tools = {p.stem: p.read_text(encoding="utf-8") for p in (PKG / "_tools").glob("_*.py")
             if p.stem != "__init__"}
    pattern = re.compile(r"^\s*(?:from\s+(?:\.|poly1305x\._tools)\s+import\s+([\w, ]+)"
                         r"|from\s+(?:\.|poly1305x\._tools\.)(_\w+)\s+import"
                         r"|import\s+poly1305x\._tools\.(_\w+))", re.M)
    graph = {}
    for name, text in tools.items():
        deps = set()
        for listed, frm, imp in pattern.findall(text):
            deps |= {d.strip().split(" as ")[0] for d in listed.split(",") if d.strip()}
            deps |= {frm, imp} - {""}
        graph[name] = deps & set(tools)
    assert graph["_plot"] == {"_bench"}, graph

    def reach(start, seen):
        for d in graph[start]:
            if d not in seen:
                seen.add(d)
                reach(d, seen)
        return seen
    circles = sorted(n for n in graph if n in reach(n, set()))
    assert not circles, graph
