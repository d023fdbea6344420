"""``python -m poly1305x bench --cpu-class CLASS``: the comparison with
cryptography as it comes out on another class of x86 CPU, reproduced on this
one.

Each class runs in a child process whose environment forces our backend
(``POLY1305X_BACKEND``) and masks OpenSSL's CPU bits (``OPENSSL_ia32cap``, read
by the OpenSSL inside cryptography's wheel when it loads), so both sides run
the code they would run on that CPU:

* ``ifma``: as is (our default backend, OpenSSL unmasked): AVX-512 with IFMA;
* ``noifma``: AVX-512 without IFMA (Skylake-SP .. Cooper Lake): our
  ``avx512f`` backend when the build has it, else ``avx2``; OpenSSL with IFMA
  masked (bit 21 of its third word, which it does not use: it keeps its
  AVX-512F code);
* ``avx2``: AVX2 only: our ``avx2``; OpenSSL with AVX-512F and AVX-512VL
  masked (bits 16 and 31 of the third word).  AVX-512F alone is not enough:
  OpenSSL's ChaCha20 then takes its AVX-512VL path (ymm registers, but 32 of
  them and a rotate instruction), which no AVX2-only CPU can run.

The child measures AEAD, ChaCha20 and Poly1305 at 64 B .. 1 MiB for the
forced backend only, interleaved with cryptography in the same process, and
writes its rows as JSON; the parent prints one line per class of the ratios
ours/cryptography (speed: 2.0 = twice as fast).  Nothing here is imported at
run time by the rest of the package.
"""
import json
import os
import subprocess
import sys
import tempfile

#: class -> (what it stands for, OPENSSL_ia32cap or None)
CLASSES = {
    "ifma": ("AVX-512 with IFMA (as is)", None),
    "noifma": ("AVX-512 without IFMA", ":~0x200000"),
    "avx2": ("AVX2 only (AVX-512 masked)", ":~0x80010000"),
}
#: What each class compares, in the order of the table.
OPERATIONS = ("aead", "chacha20", "poly1305")
PEER = "cryptography"


def class_backend(cpu_class, backends):
    """Our backend for ``cpu_class`` given the available ``backends`` (None: the
    default, as is)."""
    if cpu_class == "ifma":
        return None
    if cpu_class == "noifma":
        return "avx512f" if "avx512f" in backends else "avx2"
    if cpu_class == "avx2":
        return "avx2"
    raise ValueError(f"unknown CPU class {cpu_class!r}")


def unavailable(classes, backends):
    """The classes in ``classes`` whose backend is not in ``backends`` (this
    CPU or build cannot run them), with that backend's name."""
    return [(c, class_backend(c, backends)) for c in classes
            if class_backend(c, backends) not in (None, *backends)]


def class_env(cpu_class, backends, base=None):
    """The child's environment for ``cpu_class``: ``base`` (default os.environ)
    with POLY1305X_BACKEND and OPENSSL_ia32cap set, or removed for ``ifma``."""
    env = dict(os.environ if base is None else base)
    backend = class_backend(cpu_class, backends)
    mask = CLASSES[cpu_class][1]
    env.pop("POLY1305X_BACKEND", None)
    env.pop("OPENSSL_ia32cap", None)
    if backend:
        env["POLY1305X_BACKEND"] = backend
    if mask:
        env["OPENSSL_ia32cap"] = mask
    return env


def run_child(cpu_class, repeats, min_time, sizes=None, timeout=3600):
    """Measure ``cpu_class`` in a child process; returns its JSON document
    (``environment`` with ``backend`` and ``openssl_ia32cap`` as the child saw
    them, and ``results``, _bench's rows)."""
    import poly1305x
    env = class_env(cpu_class, poly1305x.backends())
    fd, path = tempfile.mkstemp(prefix="poly1305x-class-", suffix=".json")
    os.close(fd)
    try:
        cmd = [sys.executable, "-m", "poly1305x._tools._cpu_class", path, str(repeats),
               repr(min_time)] + [str(s) for s in (sizes or ())]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            raise RuntimeError(f"the {cpu_class} child failed ({proc.returncode}):\n"
                               f"{proc.stdout}{proc.stderr}")
        with open(path) as f:
            return json.load(f)
    finally:
        os.unlink(path)


def ratios(rows):
    """{(operation, size): speed ours / cryptography} from one child's rows."""
    mine, peer = {}, {}
    for r in rows:
        key = (r["operation"], r["size"])
        if r["library"] == "poly1305x" and not r.get("variant"):
            mine[key] = r["seconds"]
        elif r["library"] == PEER:
            peer[key] = r["seconds"]
    return {k: peer[k] / mine[k] for k in mine if k in peer and mine[k] > 0}


def format_classes(docs):
    """A Markdown table: one line per class, a column per operation and size."""
    from poly1305x._tools._cases import size_label
    keys = sorted({k for d in docs.values() for k in ratios(d["results"])},
                  key=lambda k: (OPERATIONS.index(k[0]), k[1]))
    head = "| CPU class | our backend | OPENSSL_ia32cap | " + " | ".join(
        f"{op} {size_label(size)}" for op, size in keys) + " |"
    lines = [head, "|---|---|---|" + "---:|" * len(keys)]
    for cls, doc in docs.items():
        got = ratios(doc["results"])
        env = doc["environment"]
        cells = [f"{got[k]:.2f}×" if k in got else "–" for k in keys]
        lines.append(f"| {cls}: {CLASSES[cls][0]} | {env['backend']} | "
                     f"{env['openssl_ia32cap'] or '(as is)'} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run_classes(classes, repeats, min_time, sizes=None, json_path=None, out=None):
    """Every class in ``classes`` in turn, each in its own child; prints the
    table (ratios ours/cryptography) and returns the documents by class."""
    out = out or sys.stdout
    docs = {}
    for cls in classes:
        print(f"  {cls}: {CLASSES[cls][0]} ...", file=sys.stderr, flush=True)
        docs[cls] = run_child(cls, repeats, min_time, sizes)
    print(f"\nSpeed ratios poly1305x / {PEER} (best of {repeats} rounds, each class in "
          "one child process, both libraries interleaved in it):\n", file=out)
    print(format_classes(docs), file=out)
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"classes": docs}, f, indent=1)
        print(f"\nwrote {json_path}", file=out)
    return docs


def _child(argv):
    """In the child: measure OPERATIONS for the forced backend and cryptography."""
    import poly1305x
    from poly1305x._tools import _bench
    path, repeats, min_time = argv[0], int(argv[1]), float(argv[2])
    sizes = tuple(int(s) for s in argv[3:]) or None
    if not _bench.available(PEER):
        raise SystemExit(f"--cpu-class compares with {PEER}, which cannot be imported")
    todo = [t for t in _bench.plan(OPERATIONS, sizes=sizes, backends=[poly1305x.backend()])
            if t[0].library in ("poly1305x", PEER) and not t[0].variant]
    rows = _bench.run_bench(todo, repeats=repeats, min_time=min_time)
    env = _bench.environment()
    env["backend"] = poly1305x.backend()
    env["openssl_ia32cap"] = os.environ.get("OPENSSL_ia32cap")
    with open(path, "w") as f:
        json.dump({"environment": env, "results": rows}, f)
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
