"""The floor of one short call (``python -m poly1305x bench --operation floor``).

The floor is what any C function costs to take ``(nonce, data, aad)`` as
buffers (bytes read directly, other buffers through the buffer protocol) and
return ``len(data) + 16`` new bytes, with no cryptography: call machinery,
argument handling, one allocation and a copy.  No AEAD call from Python can
be cheaper; ``× floor`` says how close ``encrypt`` comes.

The helper is benchmarks/floor.c, outside the package: no wheel or sdist
build compiles it.  From a source checkout with a C compiler it is built on
demand into a cache directory (once per source and Python); otherwise the
floor rows are left out and the summary says why ("no compiler", or no
source: an installed wheel has none)."""
import hashlib
import importlib.machinery
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

LIBRARY = "floor"
OPERATION = "floor"
SIZES = (0, 64, 256, 1024)
SOURCE = Path(__file__).resolve().parents[2] / "benchmarks" / "floor.c"
_KEY = bytes(range(32))
_NONCE = bytes(range(12))
_AAD = b"header: 16 bytes"

_loaded: dict[str, Any] = {}      # "seal": the function, or "why": the reason


def _cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.access(os.path.dirname(base) or ".", os.W_OK) and not os.path.isdir(base):
        base = tempfile.gettempdir()
    return Path(base) / "poly1305x-floor"


def _compiler():
    """The C compiler and shared-library linker commands Python was built
    with, or None when the compiler is not on PATH."""
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    ld = shlex.split(sysconfig.get_config_var("LDSHARED") or " ".join(cc + ["-shared"]))
    if not cc or shutil.which(cc[0]) is None or shutil.which(ld[0]) is None:
        return None
    return cc, ld


def _build(out):
    tools = _compiler()
    if tools is None:
        return "no compiler"
    cc, ld = tools
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        obj = os.path.join(tmp, "floor.o")
        lib = os.path.join(tmp, out.name)
        include = sysconfig.get_paths()["include"]
        for cmd in (cc + ["-O2", "-fPIC", f"-I{include}", "-c", str(SOURCE), "-o", obj],
                    ld + [obj, "-o", lib]):
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode:
                return f"no floor: the build failed ({run.stderr.strip()[:200]})"
        os.replace(lib, out)             # atomic: a concurrent build sees one or the other
    return None


def load():
    """The floor's ``seal(nonce, data, aad)``, or None (then ``why()`` says why)."""
    if "seal" in _loaded or "why" in _loaded:
        return _loaded.get("seal")
    if not SOURCE.is_file():
        _loaded["why"] = "no floor source (benchmarks/floor.c: a source checkout is needed)"
        return None
    tag = hashlib.sha256(SOURCE.read_bytes() + sys.version.encode()).hexdigest()[:16]
    out = _cache_dir() / f"{tag}" / ("_p1305x_floor" + sysconfig.get_config_var("EXT_SUFFIX"))
    if not out.is_file():
        try:
            why = _build(out)
        except OSError as exc:
            why = f"no floor: {exc}"
        if why:
            _loaded["why"] = why
            return None
    loader = importlib.machinery.ExtensionFileLoader("_p1305x_floor", str(out))
    spec = importlib.util.spec_from_file_location("_p1305x_floor", str(out), loader=loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    _loaded["seal"] = mod.seal
    return mod.seal


def why():
    """Why there is no floor ("" when there is one)."""
    load()
    return _loaded.get("why", "")


# The cases of the floor operation: the floor, and beside it the one calls it
# bounds, at the same sizes in the same run.

def _data(size):
    return bytes((7 * i) & 255 for i in range(size))


def _floor(size):
    return partial(load(), _NONCE, _data(size), _AAD)


def _encrypt(size):
    from poly1305x.aead import ChaCha20Poly1305
    return partial(ChaCha20Poly1305(_KEY).encrypt, _NONCE, _data(size), _AAD)


def _encrypt_many(size):
    from poly1305x.aead import ChaCha20Poly1305
    return partial(ChaCha20Poly1305(_KEY).encrypt_many, [_NONCE], [_data(size)], [_AAD])


def _cryptography(size):
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    return partial(ChaCha20Poly1305(_KEY).encrypt, _NONCE, _data(size), _AAD)


OPERATIONS = {
    OPERATION: "the floor (a C function taking the three buffers and returning "
               "len(data) + 16 new bytes, no cryptography) beside one encrypt, "
               "encrypt_many of one message and cryptography's encrypt",
}


def cases(case):
    """The floor rows as _cases.Case objects (``case`` is that class)."""
    return [
        case(OPERATION, LIBRARY, _floor, sizes=SIZES),
        case(OPERATION, "poly1305x", _encrypt, sizes=SIZES, variant="encrypt"),
        case(OPERATION, "poly1305x", _encrypt_many, sizes=SIZES, variant="encrypt_many of one"),
        case(OPERATION, "cryptography", _cryptography, sizes=SIZES),
    ]


def format_summary(rows):
    """The floor table: ns per call and encrypt's multiple of the floor ("" when
    the floor operation did not run)."""
    from poly1305x._tools._units import size_text
    got = {}
    backend = "-"
    for r in rows:
        if r["operation"] == OPERATION:
            got[(r["size"], r["library"], r.get("variant"))] = r["seconds"]
            if r["library"] == "poly1305x":
                backend = r.get("backend") or backend
    sizes = sorted({k[0] for k in got})
    if not sizes:
        return ""
    lines = ["", "", "One call against the floor (ns per call):", ""]
    if not any(k[1] == LIBRARY for k in got):
        lines.append(f"floor: {why() or 'not measured'}")
        lines.append("")
    # "backend" first: the figures' table reader skips such summaries
    lines += ["| backend | size | floor | encrypt | × floor | encrypt_many of one "
              "| cryptography |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for size in sizes:
        floor = got.get((size, LIBRARY, None))
        enc = got.get((size, "poly1305x", "encrypt"))
        many = got.get((size, "poly1305x", "encrypt_many of one"))
        peer = got.get((size, "cryptography", None))
        cells = [f"{t * 1e9:,.0f}" if t else "-" for t in (floor, enc)]
        cells.append(f"{enc / floor:.1f}×" if floor and enc else "-")
        cells += [f"{t * 1e9:,.0f}" if t else "-" for t in (many, peer)]
        lines.append(f"| {backend} | {size_text(size)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
