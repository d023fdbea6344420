"""Files of a pinned release straight from the package index's simple API
(PEP 691, what pip reads), for what ``pip download`` cannot hand over:

* ``download_sdist``: an sdist whose metadata pip cannot prepare here
  (cryptography's: its Rust build wants crates.io), checked against the
  sha256 that the index lists;
* ``wheel_members``: a few files out of a pure-Python wheel that
  ``pip download`` fetched (the vectors of cryptography_vectors, a 56 MB
  wheel of which two test modules read three directories).
"""
import hashlib
import json
import os
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

INDEX = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")


def download_sdist(dist, version, dest):
    """Download ``dist``'s ``version`` sdist (.tar.gz) into ``dest``."""
    project = dist.lower().replace("_", "-").replace(".", "-")
    request = urllib.request.Request(f"{INDEX}/{project}/",
                                     headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=60) as resp:
        files = json.load(resp)["files"]
    stem = f"{dist.replace('-', '_')}-{version}.tar.gz".lower()
    (entry,) = [f for f in files if f["filename"].lower() in (stem, f"{dist}-{version}.tar.gz")]
    target = Path(dest) / entry["filename"]
    digest = hashlib.sha256()
    with urllib.request.urlopen(entry["url"], timeout=600) as resp, open(target, "wb") as out:
        for chunk in iter(lambda: resp.read(1 << 20), b""):
            digest.update(chunk)
            out.write(chunk)
    if digest.hexdigest() != entry["hashes"]["sha256"]:
        target.unlink()
        raise RuntimeError(f"{entry['filename']}: sha256 differs from the index's")
    return target


def wheel_members(dist, version, prefixes, dest):
    """Unpack the members of ``dist``'s wheel whose names start with one of
    ``prefixes`` into ``dest`` (once: a marker file says it is done)."""
    dest = Path(dest)
    done = dest / ".poly1305x-complete"
    if done.exists():
        return dest
    wheels = dest.parent / f".{dest.name}-wheel"
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                    "--disable-pip-version-check", "-q", "-d", str(wheels), f"{dist}=={version}"],
                   check=True, timeout=600, stdout=subprocess.DEVNULL)
    (wheel,) = wheels.glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            if name.startswith(tuple(prefixes)) and ".." not in name.split("/"):
                zf.extract(name, dest)
    wheel.unlink()
    done.write_text(version)
    return dest
