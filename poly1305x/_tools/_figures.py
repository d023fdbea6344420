"""The figures the README and the docs quote, written from one bench run.

    python -m poly1305x bench --json docs/_static/benchmark.json --plot docs/_static/benchmark.png
    python -m poly1305x bench --cpu-class ifma --cpu-class noifma --cpu-class avx2 \
        --json docs/_static/cpu-classes.json
    python -m poly1305x._tools._figures docs/_static/benchmark.json \
        --classes docs/_static/cpu-classes.json                            # rewrite the pages
    (--check: only compare, exit 1 if stale)

Each quoted block sits between ``<!-- figures:NAME begin -->`` and
``<!-- figures:NAME end -->`` in a page, and is made here from the run's
JSON: the machine (named one way everywhere), the commit measured, the peers'
versions, and the ratios.  tests/tooling/test_figures.py checks that the pages
hold what this would write, and that the commit is recent."""
import argparse
import json
import re
import sys
import textwrap
from pathlib import Path

from poly1305x._tools._report import batch_summary, size_text

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("README.md", "docs/index.md", "docs/performance.md", "docs/batch.md")
_BLOCK = re.compile(r"(<!-- figures:(?P<name>[\w-]+) begin -->\n)(?P<body>.*?)"
                    r"(<!-- figures:(?P=name) end -->)", re.S)
KiB, MiB = 1024, 1 << 20

# The summary: (label, operation, poly1305x variant, peer, sizes)
SUMMARY = (
    ("Poly1305 tag, `mac.Poly1305.generate_tag` vs cryptography", "poly1305", None,
     "cryptography", (64, MiB)),
    ("Poly1305 tag vs pycryptodome", "poly1305", None, "pycryptodome", (64, MiB)),
    ("drop-in line `Poly1305.new(cipher=Crypto.Cipher.ChaCha20, ...)` vs pycryptodome",
     "poly1305-chacha20", "cipher=Crypto.Cipher.ChaCha20", "pycryptodome", (64, MiB)),
    ("ChaCha20-Poly1305, `aead.ChaCha20Poly1305.encrypt` vs cryptography", "aead", None,
     "cryptography", (64, MiB)),
    ("ChaCha20-Poly1305, `ChaCha20_Poly1305.new().encrypt_and_digest` vs pycryptodome",
     "aead-new", None, "pycryptodome", (64, MiB)),
    ("XChaCha20-Poly1305 vs PyNaCl", "xchacha20-poly1305", None, "pynacl", (64, MiB)),
    ("ChaCha20 vs cryptography", "chacha20", None, "cryptography", (64, MiB)),
    ("ChaCha20 vs pycryptodome", "chacha20", None, "pycryptodome", (64, MiB)),
    ("OpenSSH packet seal vs asyncssh", "ssh-packet-seal", None, "asyncssh",
     (64, 32 * KiB)),
    ("64 messages a call, `encrypt_many` vs a loop of cryptography",
     "aead-batch-N64", "encrypt_many", "cryptography", (64, KiB)),
)
SHORT = (0, 1, 3, 4)          # the rows docs/index.md quotes
OPTIONAL = {"cpu-classes"}    # blocks made from a second run (--classes)


def _find(rows, op, size, library, variant=None, backend=None):
    """The row of that operation, size and library (and variant: None is the
    plain row; and backend, for poly1305x)."""
    for r in rows:
        if (r["operation"], r["size"], r["library"]) == (op, size, library) and \
                r.get("variant") == variant and \
                (backend is None or library != "poly1305x" or r.get("backend") == backend):
            return r
    return None


def machine(env):
    """The machine, written one way: 'an AMD EPYC (Zen 4) virtual machine with
    2 CPUs (AVX2, AVX-512F/VL, AVX-512 IFMA), CPython 3.11.7'."""
    gen = f" ({env['cpu_generation']})" if env.get("cpu_generation") else ""
    kind = "virtual machine" if env.get("virtual") else "machine"
    feats = set(env.get("cpu_features", ()))
    isa = [n for f, n in (("avx2", "AVX2"), ("avx512f", "AVX-512F/VL"),
                          ("avx512ifma", "AVX-512 IFMA")) if f in feats]
    isa_text = f" ({', '.join(isa)})" if isa else ""
    return (f"an {env['cpu']}{gen} {kind} with {env['cpu_count']} CPUs{isa_text}, "
            f"CPython {env['python']}")


def intro(env):
    v = env.get("versions", {})
    peers = ", ".join(f"{name} {v[lib]}" for lib, name in (
        ("cryptography", "cryptography"), ("pycryptodome", "pycryptodome"),
        ("pynacl", "PyNaCl")) if v.get(lib))
    return (f"One run of `python -m poly1305x bench` at commit `{env.get('commit') or '?'}` "
            f"on {machine(env)}, default backend `{env['default_backend']}`, against {peers}.  "
            "\"N×\" means poly1305x does the call N times as fast; the machine is shared, so "
            "read ratios, not absolute times.")


def _cell(rows, op, variant, peer, size, backend):
    """poly1305x's speed ratio to the peer (and its GB/s at 1 MiB), or "–"."""
    mine = _find(rows, op, size, "poly1305x", variant, backend)
    other = _find(rows, op, size, peer, "loop of encrypt" if op.startswith("aead-batch") else None)
    if not mine or not other:
        return "–"
    text = f"{other['seconds'] / mine['seconds']:.1f}×"
    if size >= MiB:
        text += f", {size / mine['seconds'] / 1e9:.1f} GB/s"
    return f"{text} ({size_text(size)})"


def summary(doc, which=None):
    env, rows = doc["environment"], doc["results"]
    backend = env["default_backend"]
    picked = [SUMMARY[i] for i in which] if which else SUMMARY
    lines = [f"| operation (default backend, `{backend}`) | small | large |",
             "|---|---:|---:|"]
    for label, op, variant, peer, sizes in picked:
        cells = [_cell(rows, op, variant, peer, s, backend) for s in sizes]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def classes_table(classes):
    """The --cpu-class run: a row per class and operation, a column per size,
    the speed ratio ours / cryptography in each cell."""
    from poly1305x._tools import _cpu_class
    sizes = sorted({k[1] for d in classes.values() for k in _cpu_class.ratios(d["results"])})
    lines = ["| CPU class (how reproduced) | operation | " + " | ".join(map(size_text, sizes))
             + " |", "|---|---|" + "---:|" * len(sizes)]
    for cls, d in classes.items():
        got, env = _cpu_class.ratios(d["results"]), d["environment"]
        how = (f"`{env['backend']}`, OpenSSL " +
               (f"`{env['openssl_ia32cap']}`" if env.get("openssl_ia32cap") else "as is"))
        for op in _cpu_class.OPERATIONS:
            cells = [f"{got[(op, n)]:.2f}×" if (op, n) in got else "–" for n in sizes]
            lines.append(f"| {_cpu_class.CLASSES[cls][0]} ({how}) | {op} | "
                         + " | ".join(cells) + " |")
    return "\n".join(lines)


def blocks(doc, classes=None):
    """What each named block holds (``classes``: the --cpu-class run's JSON)."""
    env = doc["environment"]
    extra = {"cpu-classes": classes_table(classes["classes"])} if classes else {}
    batch = batch_summary(doc["results"]).strip().split("\n")
    return {**extra,
        "batch": "\n".join(line for line in batch if line.startswith("|")),
        "intro": textwrap.fill(intro(env), 78, break_on_hyphens=False, break_long_words=False),
        "machine": textwrap.fill(f"* **Machine**: {machine(env)}; commit "
                                 f"`{env.get('commit') or '?'}`, run on {env.get('date', '?')[:10]}.",
                                 78, subsequent_indent="  ", break_on_hyphens=False),
        "summary": summary(doc),
        "summary-short": summary(doc, SHORT),
    }


TABLE = "docs/_static/benchmark-table.md"     # the performance page's full table


def table_text(doc):
    """The full table of the run (_bench.format_table) under two lines that
    name the machine, the commit and the versions, as the page includes it."""
    from poly1305x._tools import _bench
    env, v = doc["environment"], doc["environment"].get("versions", {})
    peers = ", ".join(f"{lib} {v[lib]}" for lib in ("cryptography", "pycryptodome", "pynacl")
                      if v.get(lib))
    return (f"{machine(env)}, {env.get('date', '?')}\n"
            f"poly1305x {v.get('poly1305x', '?')} (commit `{env.get('commit') or '?'}`), "
            f"{peers}\n\nBest of {doc.get('repeats', '?')} batches, time per call. "
            "\"2.5× cryptography\": poly1305x does the call 2.5 times as fast as cryptography "
            "(below 1: slower).\n\n" + _bench.format_table(doc["results"]) + "\n")


def render(text, made):
    """text with every figures block replaced by what ``made`` holds."""
    def sub(m):
        if m["name"] not in made:
            if m["name"] in OPTIONAL:
                return m.group(0)            # that run was not given: left as it is
            raise KeyError(f"unknown figures block {m['name']!r}")
        return m.group(1) + made[m["name"]].rstrip("\n") + "\n" + m.group(4)
    return _BLOCK.sub(sub, text)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m poly1305x._tools._figures",
                                description="write (or --check) the figures blocks of the "
                                            "README and the docs from a bench JSON file")
    p.add_argument("json", help="the file `python -m poly1305x bench --json FILE` wrote")
    p.add_argument("--classes", metavar="FILE",
                   help="the file `bench --cpu-class ... --json FILE` wrote")
    p.add_argument("--check", action="store_true", help="only compare; exit 1 if stale")
    args = p.parse_args(argv)
    classes = None
    if args.classes:
        with open(args.classes) as f:
            classes = json.load(f)
    with open(args.json) as f:
        made = blocks(json.load(f), classes)
    stale = []
    table = ROOT / TABLE
    with open(args.json) as f:
        want = table_text(json.load(f))
    if not table.exists() or table.read_text(encoding="utf-8") != want:
        stale.append(TABLE)
        if not args.check:
            table.write_text(want, encoding="utf-8")
    for page in PAGES:
        path = ROOT / page
        old = path.read_text(encoding="utf-8")
        new = render(old, made)
        if new != old:
            stale.append(page)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    if args.check and stale:
        print(f"stale figures in {', '.join(stale)}: run python -m poly1305x._tools._figures "
              f"{args.json}", file=sys.stderr)
        return 1
    print(f"{'checked' if args.check else 'wrote'} {len(PAGES)} pages and the table"
          + (f" ({', '.join(stale)} changed)" if stale and not args.check else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
