"""pycryptodome's own tests of Poly1305, ChaCha20 and ChaCha20-Poly1305, run
against poly1305x installed in pycryptodome's place, once per backend.

The test files are taken from the installed pycryptodome at test time
(Crypto/SelfTest/Hash/test_Poly1305.py, Crypto/SelfTest/Cipher/test_ChaCha20.py,
Crypto/SelfTest/Cipher/test_ChaCha20_Poly1305.py), never copied here.
pycryptodome 4.x runs its self-tests with pytest (``python -m Crypto.SelfTest``:
pytest plus the ``Crypto.SelfTest.plugin`` plugin; there is no unittest
``get_tests()`` any more), so they run the same way here: this file is also a
driver script.  For each backend, one subprocess

1. imports poly1305x, calls ``poly1305x.install()`` and
   ``poly1305x.set_backend(name)``;
2. replaces the C library handles of pycryptodome's *original* ChaCha20 and
   Poly1305 modules with poison, so a test that still reached pycryptodome's
   implementation would fail rather than pass against pycryptodome;
3. checks that ``Crypto.Cipher.ChaCha20.new(...)`` and friends now return
   poly1305x objects on that backend;
4. runs pytest on the three files (imported only now, so their module-level
   ``from Crypto.Cipher import ChaCha20`` binds poly1305x), checks after
   collection that their globals are poly1305x's modules, drops the ids of
   tests/faces/pycryptodome_deselected.py, and writes a JSON report.

The subprocesses of all backends start together (two cores: about twice as
fast).  The emulated AVX-512 backend runs the full suite too: it takes about as
long as the others, since these tests process little data.

``test_sabotaged_install_fails`` runs the driver with ``install()`` made a
no-op and checks that both the swap checks and pycryptodome's tests fail.
"""
import argparse
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import time
import types

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

if __package__:         # collected by pytest: tests.faces.test_pycryptodome_suite
    from .pycryptodome_deselected import DESELECTED
else:                   # the driver, run as a script: its directory is sys.path[0]
    from pycryptodome_deselected import DESELECTED

SUITE = (
    "Crypto/SelfTest/Hash/test_Poly1305.py",
    "Crypto/SelfTest/Cipher/test_ChaCha20.py",
    "Crypto/SelfTest/Cipher/test_ChaCha20_Poly1305.py",
)
#: Module of each test file, and the globals that must be poly1305x's modules.
BOUND = {
    "Crypto.SelfTest.Hash.test_Poly1305": {"Poly1305": "poly1305x.Poly1305",
                                           "ChaCha20": "poly1305x.ChaCha20"},
    "Crypto.SelfTest.Cipher.test_ChaCha20": {"ChaCha20": "poly1305x.ChaCha20"},
    "Crypto.SelfTest.Cipher.test_ChaCha20_Poly1305": {
        "ChaCha20_Poly1305": "poly1305x.ChaCha20_Poly1305"},
}
ORIGINALS = ("Crypto.Hash.Poly1305", "Crypto.Cipher.ChaCha20", "Crypto.Cipher.ChaCha20_Poly1305")
TIMEOUT = 600


def site_root():
    """The directory that holds the installed ``Crypto`` package."""
    spec = importlib.util.find_spec("Crypto")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.dirname(list(spec.submodule_search_locations)[0])


# ---------------------------------------------------------------------------
# Driver (runs in the subprocess)
# ---------------------------------------------------------------------------

class _Poison:
    """Stands for pycryptodome's C libraries while the suite runs."""

    def __init__(self, what):
        self._what = what

    def __getattr__(self, name):
        raise AssertionError(f"pycryptodome's own {self._what} was called ({name}): "
                             "poly1305x.install() did not take effect")


def _swap_checks(backend):
    """Facts that hold only when poly1305x serves pycryptodome's modules."""
    import poly1305x
    from poly1305x._core import _engine
    checks = {}

    def check(what, fn):
        try:
            checks[what] = bool(fn())
        except Exception as exc:  # a failed check, with its reason
            checks[what] = f"{type(exc).__name__}: {exc}"

    for name in ORIGINALS:
        mine = "poly1305x." + name.rsplit(".", 1)[1]
        check(f"sys.modules[{name!r}] is {mine}", lambda n=name, m=mine:
              sys.modules[n] is sys.modules[m])
    from Crypto.Cipher import ChaCha20, ChaCha20_Poly1305
    from Crypto.Hash import Poly1305
    check("Crypto.Cipher.ChaCha20.new() gives a poly1305x object on the backend",
          lambda: isinstance(ChaCha20.new(key=bytes(32), nonce=bytes(12)), _engine.ChaCha20Cipher)
          and ChaCha20.new(key=bytes(32), nonce=bytes(12)).backend == backend)
    check("Crypto.Cipher.ChaCha20_Poly1305.new() gives a poly1305x object on the backend",
          lambda: isinstance(ChaCha20_Poly1305.new(key=bytes(32)), _engine.ChaCha20Poly1305Cipher)
          and ChaCha20_Poly1305.new(key=bytes(32)).backend == backend)
    check("Crypto.Hash.Poly1305.new() gives a poly1305x object on the backend",
          lambda: isinstance(Poly1305.new(key=bytes(32), cipher=ChaCha20), _engine.Poly1305_MAC)
          and Poly1305.new(key=bytes(32), cipher=ChaCha20).backend == backend)
    check("poly1305x.backend() is the one under test", lambda: poly1305x.backend() == backend)
    return checks


class _Recorder:
    """pytest plugin: exact-id deselection, module binding checks, outcomes."""

    def __init__(self, report):
        self.report = report

    def pytest_collectreport(self, report):
        if report.failed:
            self.report["collection_errors"].append(f"{report.nodeid}: {report.longreprtext[-2000:]}")

    def pytest_collection_modifyitems(self, config, items):
        collected = [item.nodeid for item in items]
        self.report["collected"] = len(collected)
        self.report["per_file"] = {f: sum(1 for n in collected if n.startswith(f + "::"))
                                   for f in SUITE}
        keep = [item for item in items if item.nodeid not in DESELECTED]
        dropped = [item for item in items if item.nodeid in DESELECTED]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = keep
        self.report["deselected"] = [item.nodeid for item in dropped]
        self.report["stale_deselections"] = sorted(set(DESELECTED) - set(collected))
        for modname, names in BOUND.items():
            module = sys.modules.get(modname)
            for glob, mine in names.items():
                key = f"{modname}.{glob} is {mine}"
                self.report["bound"][key] = (module is not None and
                                             getattr(module, glob, None) is sys.modules.get(mine))

    def pytest_runtest_logreport(self, report):
        outcome = self.report["outcomes"].setdefault(report.nodeid, "passed")
        if report.failed:
            self.report["outcomes"][report.nodeid] = "failed" if report.when == "call" else "error"
            self.report["failures"].setdefault(report.nodeid, report.longreprtext[-3000:])
        elif report.skipped and outcome == "passed":
            self.report["outcomes"][report.nodeid] = "skipped"


def cryptodome_driver(report_path, backends):
    """pycryptodomex's unittest-style self-tests (``get_tests(config)``), for every
    backend in one process (their objects take the backend active when the
    test creates them)."""
    import unittest

    import poly1305x
    names = ("Cryptodome.Hash.Poly1305", "Cryptodome.Cipher.ChaCha20",
             "Cryptodome.Cipher.ChaCha20_Poly1305")
    originals = [importlib.import_module(name) for name in names]
    poly1305x.install()
    for module in originals:
        for attr in ("_raw_chacha20_lib", "_raw_poly1305"):
            if hasattr(module, attr):
                setattr(module, attr, _Poison(f"{module.__name__}.{attr}"))
    from Cryptodome.SelfTest.Cipher import test_ChaCha20, test_ChaCha20_Poly1305
    from Cryptodome.SelfTest.Hash import test_Poly1305
    report = {"bound": {
        "test_ChaCha20.ChaCha20": test_ChaCha20.ChaCha20 is poly1305x.ChaCha20,
        "test_ChaCha20_Poly1305.ChaCha20_Poly1305":
            test_ChaCha20_Poly1305.ChaCha20_Poly1305 is poly1305x.ChaCha20_Poly1305,
        "test_Poly1305.Poly1305": test_Poly1305.Poly1305 is poly1305x.Poly1305,
    }, "runs": {}}
    for backend in backends:
        poly1305x.set_backend(backend)
        suite = unittest.TestSuite()
        for module in (test_Poly1305, test_ChaCha20, test_ChaCha20_Poly1305):
            suite.addTests(module.get_tests(config={"slow_tests": True}))
        result = unittest.TextTestRunner(stream=sys.stdout, verbosity=0).run(suite)
        report["runs"][backend] = {
            "ran": result.testsRun, "skipped": len(result.skipped),
            "problems": [f"{test}: {text[-2000:]}" for test, text in result.failures + result.errors],
            "backend": poly1305x.ChaCha20_Poly1305.new(key=bytes(32)).backend}
    with open(report_path, "w") as f:
        json.dump(report, f, indent=1)
    return 0


def driver(argv):
    if argv[:1] == ["--cryptodome"]:
        return cryptodome_driver(argv[1], argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", required=True)
    parser.add_argument("--report", required=True)
    parser.add_argument("--sabotage", action="store_true",
                        help="make poly1305x.install() a no-op (the suite must fail)")
    args, pytest_args = parser.parse_known_args(argv)
    start = time.monotonic()

    import poly1305x
    originals = [importlib.import_module(name) for name in ORIGINALS]
    if not args.sabotage:
        poly1305x.install()
    poly1305x.set_backend(args.backend)
    poison = {"Crypto.Cipher.ChaCha20": ("_raw_chacha20_lib", "_raw_chacha20_portable_lib",
                                         "_raw_chacha20_avx2_bmi2_lib"),
              "Crypto.Hash.Poly1305": ("_raw_poly1305",)}
    for module in originals:
        for attr in poison.get(module.__name__, ()):
            setattr(module, attr, _Poison(f"{module.__name__}.{attr}"))

    report = {"backend": args.backend, "sabotage": args.sabotage,
              "swap": _swap_checks(args.backend), "bound": {}, "collected": 0, "per_file": {},
              "deselected": [], "stale_deselections": [], "collection_errors": [],
              "outcomes": {}, "failures": {}}
    root = site_root()
    import pytest as _pytest
    exit_code = _pytest.main(
        ["-q", "-p", "Crypto.SelfTest.plugin", "-p", "no:cacheprovider",
         "--rootdir", root, "-c", os.path.join(os.path.dirname(args.report), "empty.ini"),
         *[os.path.join(root, f) for f in SUITE], *pytest_args],
        plugins=[_Recorder(report)])
    report["exit_code"] = int(exit_code)
    report["backend_at_end"] = poly1305x.backend()
    report["seconds"] = round(time.monotonic() - start, 1)
    with open(args.report, "w") as f:
        json.dump(report, f, indent=1)
    ok = (exit_code == 0 and all(v is True for v in report["swap"].values())
          and all(report["bound"].values()))
    return 0 if ok else 1


# ---------------------------------------------------------------------------
# Tests (run by pytest in the repository)
# ---------------------------------------------------------------------------

def _start(backend, workdir, *extra):
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "empty.ini").write_text("[pytest]\n")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("POLY1305X_INSTALL", None)
    log = open(workdir / "log.txt", "w")
    proc = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "--backend", backend,
         "--report", str(workdir / "report.json"), *extra],
        stdout=log, stderr=subprocess.STDOUT, env=env, cwd=str(workdir))
    log.close()
    return proc, workdir


def _finish(run):
    proc, workdir = run
    try:
        rc = proc.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"the pycryptodome suite took more than {TIMEOUT} s")
    log = (workdir / "log.txt").read_text()
    path = workdir / "report.json"
    assert path.exists(), f"the driver wrote no report (exit {rc}):\n{log[-5000:]}"
    return rc, json.loads(path.read_text()), log


def require_pycryptodome():
    """pycryptodome (with its SelfTest files) is in the test extra: its absence
    fails the test rather than skipping it."""
    assert site_root() is not None and all(
        os.path.exists(os.path.join(site_root(), f)) for f in SUITE), \
        "pycryptodome with its SelfTest files is not installed (pip install -e '.[test]')"


def _all_backends():
    import poly1305x
    from poly1305x._core import _dispatch
    return poly1305x.backends() + _dispatch.emulated_backends()


@pytest.fixture(scope="module")
def suite_runs(request, tmp_path_factory):
    """Start the suite for every backend selected in this session, all at once."""
    wanted = [item.callspec.params["backend_name"] for item in request.session.items
              if getattr(item, "originalname", None) == "test_pycryptodome_suite"
              and hasattr(item, "callspec")]
    base = tmp_path_factory.mktemp("pycryptodome_suite")
    runs = {name: _start(name, base / name) for name in dict.fromkeys(wanted)}
    yield runs
    for proc, _ in runs.values():
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("backend_name", _all_backends())
def test_pycryptodome_suite(suite_runs, backend_name, capsys):
    require_pycryptodome()
    rc, report, log = _finish(suite_runs[backend_name])
    outcomes = report["outcomes"]
    passed = sorted(n for n, o in outcomes.items() if o == "passed")
    bad = {n: o for n, o in outcomes.items() if o != "passed"}
    with capsys.disabled():
        print(f"\n[pycryptodome suite, backend {backend_name}] {report['collected']} collected "
              f"({', '.join(f'{f.rsplit(chr(47), 1)[1]}: {n}' for f, n in report['per_file'].items())}), "
              f"{len(report['deselected'])} deselected, {len(passed)} passed, {len(bad)} not passed, "
              f"{report['seconds']} s")

    # The swap took effect, on the backend under test.
    assert all(v is True for v in report["swap"].values()), report["swap"]
    assert report["bound"] and all(report["bound"].values()), report["bound"]
    assert report["backend_at_end"] == backend_name
    # Deselection: exact ids only, none stale.
    assert not report["stale_deselections"], report["stale_deselections"]
    assert sorted(report["deselected"]) == sorted(DESELECTED)
    # Every selected test of every file ran and passed.
    assert not report["collection_errors"], "\n".join(report["collection_errors"])
    assert all(n > 0 for n in report["per_file"].values()), report["per_file"]
    assert not bad, "\n\n".join(f"{n} ({o}):\n{report['failures'].get(n, '')}" for n, o in bad.items())
    assert len(passed) == report["collected"] - len(report["deselected"]) > 0
    assert rc == 0 and report["exit_code"] == 0, log[-5000:]


def test_pycryptodomex_suite(tmp_path, capsys):
    """The ``Cryptodome.`` twins: pycryptodomex's own (unittest-style) tests of
    the three modules, with poly1305x installed, on every backend."""
    assert importlib.util.find_spec("Cryptodome") is not None, \
        "pycryptodomex is in the test extra (pip install -e '.[test]')"
    backends = _all_backends()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("POLY1305X_INSTALL", None)
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--cryptodome",
                           str(tmp_path / "report.json"), *backends],
                          capture_output=True, text=True, env=env, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["bound"] and all(report["bound"].values()), report["bound"]
    with capsys.disabled():
        print("\n[pycryptodomex suite] " + ", ".join(
            f"{b}: {r['ran']} ran, {r['ran'] - len(r['problems']) - r['skipped']} passed"
            for b, r in report["runs"].items()))
    assert list(report["runs"]) == backends
    for backend, run in report["runs"].items():
        assert run["backend"] == backend
        assert run["ran"] > 0 and run["skipped"] == 0
        assert not run["problems"], "\n".join(run["problems"])


def test_deselection_is_by_exact_id(monkeypatch):
    """An entry of pycryptodome_deselected.py drops exactly that node id (not
    its other parameters, not a prefix); an entry that matches nothing is
    reported as stale."""
    module = sys.modules[__name__]
    ids = [SUITE[1] + "::TestChaCha20Threads::test_range_boundaries[portable-8]",
           SUITE[1] + "::TestChaCha20Threads::test_range_boundaries[portable-12]",
           SUITE[1] + "::TestChaCha20Threads::test_range_boundaries"]
    monkeypatch.setattr(module, "DESELECTED", {ids[0]: "reason", ids[2] + "x": "stale"})
    items = [types.SimpleNamespace(nodeid=n) for n in ids]
    dropped = []
    config = types.SimpleNamespace(hook=types.SimpleNamespace(
        pytest_deselected=lambda items: dropped.extend(items)))
    report = {"bound": {}}
    _Recorder(report).pytest_collection_modifyitems(config, items)
    assert [i.nodeid for i in items] == ids[1:]
    assert [i.nodeid for i in dropped] == ids[:1] == report["deselected"]
    assert report["stale_deselections"] == [ids[2] + "x"]
    assert report["collected"] == 3


def test_deselected_entries_are_documented():
    """Each deselected id has a reason and is named in docs/compatibility.md."""
    docs = open(os.path.join(ROOT, "docs", "compatibility.md")).read()
    for node_id, reason in DESELECTED.items():
        assert node_id.split("/")[0] == "Crypto" and "::" in node_id
        assert reason.strip()
        assert node_id in docs, node_id


def test_sabotaged_install_fails(tmp_path):
    """With install() a no-op, the swap checks fail and so do pycryptodome's
    tests (its C code is poisoned): this suite cannot pass against pycryptodome."""
    require_pycryptodome()
    import poly1305x
    selection = "test_round_trip or test_loopback or TestVectorsRFC"
    rc, report, log = _finish(_start(poly1305x.backends()[-1], tmp_path, "--sabotage",
                                     "-k", selection))
    assert rc != 0
    assert report["swap"] and not any(v is True for k, v in report["swap"].items()
                                      if "backend()" not in k), report["swap"]
    assert report["bound"] and not any(report["bound"].values()), report["bound"]
    ran = report["outcomes"]
    assert len(ran) >= 3 and all(o == "failed" for o in ran.values()), ran
    assert all("install() did not take effect" in report["failures"][n] for n in ran)


if __name__ == "__main__":
    sys.exit(driver(sys.argv[1:]))
