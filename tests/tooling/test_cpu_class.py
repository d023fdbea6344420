"""``python -m poly1305x bench --cpu-class``: each class's child gets our
backend forced and OpenSSL's CPU mask, measures AEAD, ChaCha20 and Poly1305
for that backend and cryptography, and the parent prints a line per class.

Nothing here times anything: the benchmark runs only to check its plumbing.
"""
import json
import subprocess
import sys

import pytest

import poly1305x
from poly1305x._tools import _cpu_class
from tests.support.helpers import child_env


def test_class_environments():
    base = {"PATH": "/bin", "POLY1305X_BACKEND": "scalar", "OPENSSL_ia32cap": "~0"}
    with_f = ["avx512", "avx512f", "avx2", "portable"]
    without_f = ["avx512", "avx2", "portable"]
    env = _cpu_class.class_env("noifma", with_f, base)
    assert (env["POLY1305X_BACKEND"], env["OPENSSL_ia32cap"]) == ("avx512f", ":~0x200000")
    env = _cpu_class.class_env("noifma", without_f, base)
    assert (env["POLY1305X_BACKEND"], env["OPENSSL_ia32cap"]) == ("avx2", ":~0x200000")
    env = _cpu_class.class_env("avx2", with_f, base)
    assert (env["POLY1305X_BACKEND"], env["OPENSSL_ia32cap"]) == ("avx2", ":~0x80010000")
    # as is: whatever the caller had set is taken away, the rest kept
    env = _cpu_class.class_env("ifma", with_f, base)
    assert "POLY1305X_BACKEND" not in env and "OPENSSL_ia32cap" not in env
    assert env["PATH"] == "/bin" and base["POLY1305X_BACKEND"] == "scalar"
    with pytest.raises(ValueError):
        _cpu_class.class_env("sse2", with_f, base)


def test_classes_whose_backend_is_missing_are_named():
    assert _cpu_class.unavailable(["ifma", "noifma", "avx2"], ["portable"]) == [
        ("noifma", "avx2"), ("avx2", "avx2")]
    assert _cpu_class.unavailable(["noifma"], ["avx512f", "portable"]) == []
    assert _cpu_class.unavailable(["ifma", "avx2"], ["avx2"]) == []


def test_ratios_pair_ours_with_cryptography():
    rows = [
        {"operation": "aead", "library": "poly1305x", "size": 64, "seconds": 1.0},
        {"operation": "aead", "library": "cryptography", "size": 64, "seconds": 3.0},
        {"operation": "aead", "library": "pynacl", "size": 64, "seconds": 0.1},
        {"operation": "chacha20", "library": "poly1305x", "size": 64, "seconds": 2.0},
        {"operation": "chacha20", "library": "cryptography", "size": 1024, "seconds": 1.0},
    ]
    assert _cpu_class.ratios(rows) == {("aead", 64): 3.0}


def _classes_here():
    have = poly1305x.backends()
    return [c for c in _cpu_class.CLASSES
            if (_cpu_class.class_backend(c, have) or poly1305x.backend()) in have]


@pytest.mark.parametrize("cpu_class", _classes_here())
def test_bench_cpu_class_child_runs_forced(cpu_class, tmp_path):
    out = tmp_path / "classes.json"
    env = child_env(OPENSSL_ia32cap="~0")   # the parent's own mask must not leak in
    proc = subprocess.run([sys.executable, "-m", "poly1305x", "bench", "--cpu-class", cpu_class,
                           "--quick", "--repeats", "1", "--json", str(out)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(out.read_text())["classes"][cpu_class]
    want = _cpu_class.class_backend(cpu_class, poly1305x.backends())
    assert doc["environment"]["backend"] == (want or poly1305x.backend())
    assert doc["environment"]["openssl_ia32cap"] == _cpu_class.CLASSES[cpu_class][1]
    got = {(r["operation"], r["library"], r["size"]) for r in doc["results"]}
    assert got == {(op, lib, size) for op in _cpu_class.OPERATIONS
                   for lib in ("poly1305x", "cryptography") for size in (64, 1024)}
    assert all(r["backend"] == doc["environment"]["backend"]
               for r in doc["results"] if r["library"] == "poly1305x")
    line = next(l for l in proc.stdout.splitlines() if l.startswith(f"| {cpu_class}:"))
    assert line.count("×") == 6, line


def test_cpu_class_refuses_operation():
    proc = subprocess.run([sys.executable, "-m", "poly1305x", "bench", "--cpu-class", "avx2",
                           "--operation", "aead"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--cpu-class" in proc.stderr
