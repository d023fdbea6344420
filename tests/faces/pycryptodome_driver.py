"""The driver of tests/faces/test_pycryptodome_suite.py, which runs it as a
script in a subprocess per backend: pycryptodome's own tests of Poly1305,
ChaCha20 and ChaCha20-Poly1305 against poly1305x installed in its place.

pycryptodome 4.x runs its self-tests with pytest (``python -m Crypto.SelfTest``:
pytest plus the ``Crypto.SelfTest.plugin`` plugin; there is no unittest
``get_tests()`` any more), so they run the same way here.  For one backend, the
driver

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

With ``--cryptodome REPORT BACKEND...`` it runs pycryptodomex's unittest-style
twins instead, every backend in one process.
"""
import argparse
import importlib
import importlib.util
import json
import os
import sys
import time

if __package__:         # imported by the tests: tests.faces.pycryptodome_driver
    from .pycryptodome_deselected import DESELECTED
else:                   # run as a script: its directory is sys.path[0]
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


def site_root():
    """The directory that holds the installed ``Crypto`` package."""
    spec = importlib.util.find_spec("Crypto")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.dirname(list(spec.submodule_search_locations)[0])


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


class Recorder:
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
        plugins=[Recorder(report)])
    report["exit_code"] = int(exit_code)
    report["backend_at_end"] = poly1305x.backend()
    report["seconds"] = round(time.monotonic() - start, 1)
    with open(args.report, "w") as f:
        json.dump(report, f, indent=1)
    ok = (exit_code == 0 and all(v is True for v in report["swap"].values())
          and all(report["bound"].values()))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(driver(sys.argv[1:]))
