"""Small helpers shared by the test modules (``from tests.support.helpers
import ...``)."""
import contextlib
import os
import subprocess
import sys
import threading


@contextlib.contextmanager
def backend_selected(name):
    """poly1305x.set_backend(name) for the objects made inside, then the
    backend before it again (the tests' one way to switch backends)."""
    import poly1305x
    before = poly1305x.backend()
    poly1305x.set_backend(name)
    try:
        yield name
    finally:
        poly1305x.set_backend(before)


def child_env(**extra):
    """os.environ for a child Python without POLY1305X_BACKEND (the child
    picks its own backend, whatever this run selected), plus extra."""
    env = {k: v for k, v in os.environ.items() if k != "POLY1305X_BACKEND"}
    env.update(extra)
    return env


def h(s):
    """bytes from a hex string (spaces allowed, as vectors are printed)."""
    return bytes.fromhex(s.replace(" ", ""))


def hpke_vector_id(v):
    """The test id of an RFC 9180 test vector: its mode, KEM and KDF."""
    return f"mode{v['mode']}-kem{v['kem_id']:#x}-kdf{v['kdf_id']}"


def strided(n, writable=False, kind="memoryview"):
    """n bytes that are not C-contiguous: every other byte of a 2n-byte
    counting pattern.  A memoryview (read-only unless writable) or, with
    kind="numpy", a numpy array (over a bytearray when writable)."""
    base = bytearray(range(256)) * ((2 * n) // 256 + 1)
    if not writable:
        base = bytes(base)
    if kind == "numpy":
        import numpy as np                 # only the tests that ask for it have numpy
        return np.frombuffer(base, dtype=np.uint8)[:2 * n:2]
    return memoryview(base)[:2 * n:2]


def openssh_cli(*args, env=None, **kw):
    """python -m poly1305x.openssh ARGS in a new session: no controlling
    terminal, so getpass reads standard input (/dev/null unless the caller
    gives stdin= or input=).  env: variables added to this process's, str or
    bytes (a passphrase that is not UTF-8)."""
    e = dict(os.environb)
    e.update({os.fsencode(k): os.fsencode(v) for k, v in (env or {}).items()})
    if "input" not in kw:
        kw.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.run([sys.executable, "-m", "poly1305x.openssh", *args],
                          capture_output=True, env=e, start_new_session=True, timeout=120, **kw)


def chunks(data, rng, maxlen=3000):
    """data cut at random points into pieces of 0..maxlen bytes (empty pieces
    included), for one-shot-equals-streaming checks."""
    i = 0
    while i < len(data):
        n = rng.randint(0, maxlen)
        yield data[i:i + n]
        i += n


def flipped(data, i, mask=0x01):
    """data with byte i XORed with mask (a tamper-loop step)."""
    bad = bytearray(data)
    bad[i] ^= mask
    return bytes(bad)


def refuse_import(monkeypatch, package):
    """For the rest of the test, importing package or a submodule of it
    raises ImportError, as in a process where it is not installed."""
    import builtins
    real_import = builtins.__import__

    def refusing(name, *args, **kwargs):
        if name == package or name.startswith(package + "."):
            raise ImportError(f"No module named {package!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refusing)


def run_threads(target, n):
    """target(0) .. target(n - 1), each on its own thread, started together (a
    barrier); returns their results in thread order once all have finished,
    and re-raises the first exception a thread raised."""
    barrier = threading.Barrier(n)
    results = [None] * n
    errors = []

    def body(i):
        try:
            barrier.wait()
            results[i] = target(i)
        except BaseException as exc:       # reported below, on the caller's thread
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def ssh_keygen_makes(*targs):
    """Whether this ssh-keygen makes a key of the type targs names (OpenSSH 10
    makes no DSA keys): tried once in a scratch directory."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run(["ssh-keygen", "-q", *targs, "-N", "", "-f", d + "/k"],
                           capture_output=True, timeout=60)
    return r.returncode == 0


def ssh_keygen(*args):
    """Run OpenSSH's ssh-keygen with args; a failure fails the test (with its
    stderr).  Returns the CompletedProcess."""
    import subprocess
    r = subprocess.run(["ssh-keygen", *args], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r
