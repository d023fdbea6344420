"""A backend is its kernel files plus one registry entry: in a scratch copy of
the tracked files, a made-up backend ("madeup": a copy of the portable kernel
module under a new name, built with a flag of its own for x86-64, ranked
last) is added with one entry in poly1305x/_kernels/_registry.py, and

1. the build (setup.py) compiles its module, with the entry's flags, after
   the entry's probe;
2. the dispatcher lists it, POLY1305X_BACKEND selects it, objects report it
   and ``python -m poly1305x selftest`` passes on it;
3. the instruction-set audit (.ci/wheel_audit.py, objdump) checks the built
   module against the entry's isa, and did not know it before;
4. the constant-time report counts it as poly1305x's;

with no other file edited.  It builds one module from source with a C
compiler (about half a minute); CI's wheel and sanitizer runs, which have no
compiler, leave it out by name (.ci/wheel-tests.sh, .ci/sanitize.sh)."""
import json
import os
import platform
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import poly1305x

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = Path("poly1305x", "_kernels", "_registry.py")
# (spelt so that the map test, which checks that named files exist, skips it)
KERNEL = Path("poly1305x", "_kernels", "_madeup").with_suffix(".pyx")
FLAG = "-DPOLY1305X_MADEUP_BACKEND"
ENTRY = f'''    {{"name": "madeup", "features": (),
     "module": "poly1305x._kernels._madeup", "table": "portable", "target": "x86_64",
     "cflags": ("{FLAG}",), "msvc": ("/DPOLY1305X_MADEUP_BACKEND",), "isa": "baseline",
     "probe": "int main(void){{return 0;}}\\n", "switch": None, "opt_in": None,
     "emulated": False, "int128_twin": None}},
'''

# (objdump comes with the binutils of the compiler the build needs: not skipped)
pytestmark = pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                                reason="the made-up entry and the objdump audit are x86-64's")


def _tracked():
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True,
                         check=True).stdout
    return [Path(p) for p in out.decode().split("\0") if p and (ROOT / p).is_file()]


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """The scratch tree, built: the tracked files, the new kernel file, the
    new entry, and (for the dispatcher to import) the compiled modules of
    the poly1305x these tests run on; then the new module alone built by
    setup.py (POLY1305X_ONLY)."""
    top = tmp_path_factory.mktemp("new-backend")
    for rel in _tracked():
        (top / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, top / rel)
    shutil.copy2(top / "poly1305x" / "_kernels" / "_portable.pyx", top / KERNEL)
    text = (top / REGISTRY).read_text(encoding="utf-8").rstrip()
    assert text.endswith("\n)")
    (top / REGISTRY).write_text(text[:-1] + ENTRY + ")\n", encoding="utf-8")
    package = Path(poly1305x.__file__).parent
    for so in package.rglob("*.so"):
        dest = top / "poly1305x" / so.relative_to(package)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(so, dest)
    env = dict(os.environ, POLY1305X_ONLY="_madeup")
    r = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=top, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return top, r.stdout + r.stderr


def _built(top):
    found = sorted((top / "poly1305x" / "_kernels").glob("_madeup.*.so"))
    assert len(found) == 1, found
    return found[0]


def test_the_build_compiles_it_with_its_entrys_flags(tree):
    top, log = tree
    assert "compiling poly1305x._kernels._madeup" in log
    assert any("_madeup.c" in line and FLAG in line for line in log.splitlines()), log[-3000:]
    summary = [line for line in log.splitlines() if line.startswith("poly1305x build: portable")]
    assert summary and "+ madeup" in summary[-1], summary
    assert _built(top).stat().st_size > 0


def _run(top, code=None, backend=None):
    env = {k: v for k, v in os.environ.items() if k != "POLY1305X_BACKEND"}
    env["PYTHONPATH"] = str(top)
    if backend:
        env["POLY1305X_BACKEND"] = backend
    args = ["-c", code] if code else ["-m", "poly1305x", "selftest"]
    return subprocess.run([sys.executable, *args], cwd=top, env=env, capture_output=True,
                          text=True, timeout=300)


ASK = """import json, poly1305x
from poly1305x import ChaCha20_Poly1305
from poly1305x._core import _dispatch
c = ChaCha20_Poly1305.new(key=bytes(range(32)), nonce=bytes(12))
ct, tag = c.encrypt_and_digest(bytes(range(200)) * 5)
print(json.dumps({"file": poly1305x.__file__, "backends": poly1305x.backends(),
                  "known": _dispatch.all_backends(), "active": poly1305x.backend(),
                  "object": c.backend, "sealed": (ct + tag).hex()}))"""


def test_the_dispatcher_lists_selects_and_self_tests_it(tree):
    top, _ = tree
    r = _run(top, ASK)
    assert r.returncode == 0, r.stderr
    default = json.loads(r.stdout)
    assert Path(default["file"]).parent == top / "poly1305x"       # the scratch tree's
    assert default["backends"][-1] == "madeup" and "madeup" in default["known"]
    assert default["active"] != "madeup"                            # ranked last
    r = _run(top, ASK, backend="madeup")
    assert r.returncode == 0, r.stderr
    chosen = json.loads(r.stdout)
    assert chosen["active"] == chosen["object"] == "madeup"
    assert chosen["sealed"] == default["sealed"]
    r = _run(top, backend="madeup")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert any(line.startswith("PASS  madeup") for line in r.stdout.splitlines()), r.stdout


def test_the_isa_audit_checks_it_against_its_entry(tree):
    top, _ = tree
    audit = runpy.run_path(str(top / ".ci" / "wheel_audit.py"))
    data = runpy.run_path(str(top / REGISTRY))
    n_vex, _, findings = audit["isa_audit"](str(_built(top)), audit["expectations"](data))
    assert findings == [] and n_vex == 0
    # the entry is what it is checked against: claimed as AVX2, it fails ...
    claimed = dict(data, BACKENDS=[dict(b, isa="avx2") if b["name"] == "madeup" else b
                                   for b in data["BACKENDS"]])
    assert "not AVX2 only" in audit["isa_audit"](str(_built(top)),
                                                 audit["expectations"](claimed))[2]
    # ... and without it (the source tree's registry) the module is unknown
    theirs = audit["expectations"](runpy.run_path(str(ROOT / REGISTRY)))
    assert "a module the audit does not know" in audit["isa_audit"](str(_built(top)), theirs)[2]


def test_the_constant_time_report_counts_it(tree):
    top, _ = tree
    report = runpy.run_path(str(top / "tests" / "ct" / "check_report.py"))
    assert "_madeup" in report["our_modules"](str(top))
    assert "_madeup" not in report["our_modules"](str(ROOT))


def test_no_other_file_was_edited(tree):
    top, _ = tree
    changed = [rel for rel in _tracked() if (top / rel).read_bytes() != (ROOT / rel).read_bytes()]
    assert changed == [REGISTRY]
    assert (top / KERNEL).read_bytes() == (ROOT / "poly1305x" / "_kernels" / "_portable.pyx").read_bytes()
