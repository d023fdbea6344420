"""pycryptodome's own tests of Poly1305, ChaCha20 and ChaCha20-Poly1305, run
against poly1305x installed in pycryptodome's place, once per backend.

The test files are taken from the installed pycryptodome at test time
(Crypto/SelfTest/Hash/test_Poly1305.py, Crypto/SelfTest/Cipher/test_ChaCha20.py,
Crypto/SelfTest/Cipher/test_ChaCha20_Poly1305.py), never copied here.  Each
backend's run is one subprocess of tests/faces/pycryptodome_driver.py (which
says what it checks); the subprocesses of all backends start together (two
cores: about twice as fast).  The emulated AVX-512 backend runs the full suite
too: it takes about as long as the others, since these tests process little
data.

``test_sabotaged_install_fails`` runs the driver with ``install()`` made a
no-op and checks that both the swap checks and pycryptodome's tests fail.
"""
import importlib.util
import json
import os
import subprocess
import sys
import types

import pytest

from tests.faces import pycryptodome_driver
from tests.faces.pycryptodome_driver import DESELECTED, SUITE, Recorder, site_root

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DRIVER = os.path.abspath(pycryptodome_driver.__file__)
TIMEOUT = 600


def _start(backend, workdir, *extra):
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "empty.ini").write_text("[pytest]\n")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("POLY1305X_INSTALL", None)
    log = open(workdir / "log.txt", "w")
    proc = subprocess.Popen(
        [sys.executable, DRIVER, "--backend", backend,
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
    proc = subprocess.run([sys.executable, DRIVER, "--cryptodome",
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
    ids = [SUITE[1] + "::TestChaCha20Threads::test_range_boundaries[portable-8]",
           SUITE[1] + "::TestChaCha20Threads::test_range_boundaries[portable-12]",
           SUITE[1] + "::TestChaCha20Threads::test_range_boundaries"]
    monkeypatch.setattr(pycryptodome_driver, "DESELECTED",
                        {ids[0]: "reason", ids[2] + "x": "stale"})
    items = [types.SimpleNamespace(nodeid=n) for n in ids]
    dropped = []
    config = types.SimpleNamespace(hook=types.SimpleNamespace(
        pytest_deselected=lambda items: dropped.extend(items)))
    report = {"bound": {}}
    Recorder(report).pytest_collection_modifyitems(config, items)
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
