"""``python -m poly1305x``: the self-test passes on every backend and fails on a
wrong known answer; ``bench --quick`` writes results for poly1305x and a peer.

Nothing here times anything: the benchmark runs only to check its plumbing.
"""
import copy
import io
import json
import subprocess
import sys

import pytest

import poly1305x
from poly1305x._tools import _bench, _selftest
from poly1305x._core import _dispatch
from tests.support.helpers import child_env


def _run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "poly1305x", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd, env=child_env())


def test_selftest_command_passes_every_backend():
    proc = _run("selftest")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    for name in poly1305x.backends():
        assert any(l.startswith(f"PASS  {name} ") for l in lines), proc.stdout
    for name in _dispatch.emulated_backends():
        assert any(l.startswith(f"PASS  {name} (emulated") for l in lines), proc.stdout
    assert not any(l.startswith("FAIL") for l in lines), proc.stdout


def test_bench_quick_writes_json(tmp_path):
    # the test extra installs cryptography and pycryptodome: both are compared
    assert _bench.available("cryptography") and _bench.available("pycryptodome")
    out = tmp_path / "out.json"
    proc = _run("bench", "--quick", "--json", str(out), "--format", "markdown", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(out.read_text())
    libraries = {r["library"] for r in doc["results"]}
    assert "poly1305x" in libraries
    assert libraries & {"cryptography", "pycryptodome", "pynacl"}, libraries
    for r in doc["results"]:
        assert r["seconds"] > 0 and r["size"] >= 0      # 0 B: the floor and batch rows
    assert "| poly1305x" in proc.stdout
    assert doc["environment"]["versions"]["poly1305x"] == poly1305x.__version__


def test_selftest_in_process_passes():
    out = io.StringIO()
    assert _selftest.run_selftest(out=out) is True
    assert "FAIL" not in out.getvalue()


def _spoil(field):
    """A copy of the vectors with one byte of one field flipped."""
    vectors = copy.deepcopy(_selftest.VECTORS)
    kind, index, key = field
    value = bytearray(vectors[kind][index][key])
    value[0] ^= 1
    vectors[kind][index][key] = bytes(value)
    return vectors


@pytest.mark.parametrize("field", [
    ("poly1305", 0, "tag"),
    ("chacha20", 0, "ct"),
    ("aead", 0, "tag"),
    ("aead", 0, "ct"),
    ("aead", 1, "ct_sha256"),
])
def test_selftest_fails_on_a_wrong_answer(field):
    out = io.StringIO()
    backend = poly1305x.backends()[0]
    assert _selftest.run_selftest(vectors=_spoil(field), backends=[backend], out=out) is False
    text = out.getvalue()
    assert f"FAIL  {backend}" in text
    assert "PASS" not in text


def test_selftest_command_exits_1_on_a_wrong_answer(monkeypatch, capsys):
    from poly1305x import __main__ as main_mod
    monkeypatch.setattr(_selftest, "VECTORS", _spoil(("chacha20", 0, "ct")))
    assert main_mod.main(["selftest"]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_selftest_restores_the_backend():
    before = poly1305x.backend()
    _selftest.run_selftest(out=io.StringIO())
    assert poly1305x.backend() == before
