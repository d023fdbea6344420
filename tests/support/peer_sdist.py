"""A peer library's own test suite, from its PyPI sdist, run with poly1305x
plugged in (used by test_mls.py and test_rfc9180.py).

``fetch(dist)`` downloads the sdist of the *installed* version with pip (an
ordinary ``pip download --no-binary :all:``) into a cache directory
(``$POLY1305X_SDIST_CACHE``, default ``~/.cache/poly1305x-sdists``) and
unpacks it there once.  Nothing from it is kept in this repository.  Without
network access to PyPI the download fails and so does the test: the suites
are part of what CI checks, not optional extras.

``run(root, peer, args)`` runs ``python -m pytest`` on it in a subprocess
with the plugin tests/support/peer_plugin.py, which switches the integration for
``peer`` on before collection and writes how many times poly1305x was
called to a JSON report; it returns (completed process, report).
"""
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path


HERE = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("POLY1305X_SDIST_CACHE")
             or Path.home() / ".cache" / "poly1305x-sdists")


def fetch(dist, from_index=False):
    """from_index: take the sdist from the index's simple API (sdist_index)
    instead of pip download."""
    version = importlib.metadata.version(dist)
    root = CACHE / f"{dist}-{version}"
    if (root / ".poly1305x-complete").exists():
        return root
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        if from_index:
            # pip prepares an sdist's metadata after downloading it, and a
            # Rust build (cryptography's) cannot do that without crates.io
            # imported here: CI's prefetch imports this module on its own, from
            # tests/support, where the tests package is not importable
            from tests.support import sdist_index
            sdist_index.download_sdist(dist, version, tmp)
        else:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary",
                            ":all:", "--disable-pip-version-check", "-q", "-d", tmp,
                            f"{dist}=={version}"],
                           check=True, timeout=600, stdout=subprocess.DEVNULL)
        (tarball,) = Path(tmp).glob("*.tar.gz")
        unpacked = Path(tmp) / "unpacked"
        with tarfile.open(tarball) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(unpacked, filter="data")
            else:  # Python < 3.12 without the backported filter
                tar.extractall(unpacked)  # noqa: S202 - PyPI sdist of a pinned version
        (top,) = unpacked.iterdir()
        shutil.rmtree(root, ignore_errors=True)
        shutil.move(str(top), str(root))
    (root / ".poly1305x-complete").write_text(version)
    return root


def run(root, peer, args, cwd=None, path=()):
    """``path``: directories put first on the suite's sys.path."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        env = dict(os.environ, POLY1305X_PEER=peer, POLY1305X_PEER_REPORT=str(report),
                   PYTHONDONTWRITEBYTECODE="1",
                   PYTHONPATH=os.pathsep.join([*map(str, path), str(HERE)]
                                              + [p for p in sys.path if p]))
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "-p", "peer_plugin", "-rs", *args],
                              cwd=cwd or root, env=env, capture_output=True, text=True, timeout=600)
        counts = json.loads(report.read_text()) if report.exists() else None
    return proc, counts
