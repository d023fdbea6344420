"""Every code example in the documentation runs.

What is collected:

* every fenced ```python / ```py block of README.md and docs/*.md (other
  languages -- sh, text, untagged -- are not Python and are not run);
* the ``>>>`` examples in the docstrings of the modules that docs/api.rst
  renders (run with doctest), and their reST literal blocks (a paragraph
  ending in ``::``), which are run like a page's blocks (so a docstring shows
  shell commands with ``.. code-block:: sh``, not ``::``).

How a page runs: its blocks run in order, in one namespace (a later block may
use what an earlier one defined, as a reader would), in a fresh Python
subprocess whose working directory is an empty temporary directory, so
``install()``, ``set_backend()``, ``use_with_pyhpke()`` or a patched asyncssh
table never leak into other tests.

Beyond "does not raise", two things the examples claim are checked:

* a top-level bare comparison (``a == b`` as a statement) must be true;
* an expression statement with a trailing comment that is a Python literal
  (``key.open(ct, nonce, b"aad")   # b"payload"``) must evaluate to that
  literal.  In a string literal, ``...`` stands for any text
  (``# 'ssh-ed25519 AAAA... me@host'``).  Comments that are not literals are
  prose and are ignored.

Fragments: some how-to pages show fragments that use names the prose defines
("``key_c2s``: 64 bytes from the key exchange").  PRELUDE gives them values for
that page; the prelude runs once, and its names are set again before every
block.  REQUIRES lists the optional packages and commands a page needs; the test
extra and .ci/run provide all of them, so a missing one fails the page's test
(saying which) rather than skipping it, as in the rest of the suite.

Skipping a block: put ``<!-- docs-test: skip REASON -->`` on the line before
its fence.  REASON must be a key of SKIP_REASONS, which says why; a marker
with another reason, and a reason no marker uses, fail the test.
"""
import doctest
import importlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [p for p in [ROOT / "README.md"] if p.exists()] + sorted(DOCS.glob("*.md"))

#: Allowed reasons for ``<!-- docs-test: skip REASON -->``.  Keep it short: an
#: example that cannot run here is an example nobody checks.
SKIP_REASONS = {
}

#: Values for names that a page's fragments take from the surrounding prose.
PRELUDE = {
    "openssh.md": """
import os, subprocess
# the key file the example reads: an ed25519 key from ssh-keygen
subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "my passphrase",
                "-C", "me@host", "-f", "id_ed25519"], check=True)
""",
}

#: The same for reST literal blocks in docstrings, by module name.
# docs/paramiko.md connects to a real sshd (tests/support/sshd.py, loaded by its
# path: the page's process has no source tree on sys.path) with a key encrypted
# with chacha20-poly1305@openssh.com; stopped when the page's process exits.
PRELUDE["paramiko.md"] = f"""
import atexit, os, runpy
_sshd = runpy.run_path({str(ROOT / "tests" / "support" / "sshd.py")!r})
Sshd, keygen = _sshd["Sshd"], _sshd["keygen"]
os.makedirs("sshd", exist_ok=True)
_server = Sshd(os.path.abspath("sshd")).start()
atexit.register(_server.stop)
host, port, user = _server.host, _server.port, _server.user
key_file = os.path.abspath("key_file")
_server.authorize(keygen(key_file, passphrase="my passphrase",
                         cipher="chacha20-poly1305@openssh.com", rounds=4))
with open("known_hosts", "w") as _f:
    _f.write(_server.known_hosts_line() + "\\n")
"""

PRELUDE["poly1305x.openssh"] = """
import subprocess
subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "passphrase",
                "-C", "me@host", "-f", "id_ed25519"], check=True)
"""

#: Optional modules (import names) and commands each page needs.
REQUIRES = {
    "README.md": {"modules": [], "commands": []},
    "index.md": {"modules": [], "commands": []},
    "backends.md": {"modules": [], "commands": []},
    "batch.md": {"modules": [], "commands": []},
    "compatibility.md": {"modules": ["Crypto"], "commands": []},
    "migrating-pycryptodome.md": {"modules": ["Crypto"], "commands": []},
    "migrating-cryptography.md": {"modules": ["cryptography"], "commands": []},
    "block-ciphers.md": {"modules": ["Crypto", "cryptography", "pyserpent"], "commands": []},
    "hpke.md": {"modules": ["pyhpke", "rfc9180", "rfc9420", "noise", "Crypto"], "commands": []},
    "openssh.md": {"modules": ["bcrypt", "Crypto", "asyncssh"], "commands": ["ssh-keygen"]},
    "paramiko.md": {"modules": ["paramiko", "bcrypt"], "commands": ["ssh-keygen", "/usr/sbin/sshd"]},
    "poly1305x.openssh": {"modules": ["bcrypt", "Crypto"], "commands": ["ssh-keygen"]},
    "poly1305x.mls": {"modules": ["rfc9420"], "commands": []},
    "quic.md": {"modules": ["aioquic"], "commands": []},
}

#: Modules whose docstring examples are shown by docs/api.rst.
DOCTEST_MODULES = [
    "poly1305x", "poly1305x.Poly1305", "poly1305x.ChaCha20", "poly1305x.ChaCha20_Poly1305",
    "poly1305x.mac", "poly1305x.aead", "poly1305x.hpke", "poly1305x.openssh",
    "poly1305x._install", "poly1305x.mls", "poly1305x.noise", "poly1305x.quic",
]

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
_SKIP = re.compile(r"^\s*<!--\s*docs-test:\s*skip\s+(?P<reason>[\w-]+)\s*-->\s*$")
_PYTHON = {"python", "py", "python3", "{code-block} python", "{code} python"}


def code_blocks(path):
    """[{lang, line, source, skip}] for every fenced block of a Markdown file
    (line: 1-based line of the first line of code)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, indent = m.group("fence"), len(m.group("indent").expandtabs())
        lang = m.group("info").strip().lower()
        prev = next((ln for ln in reversed(lines[:i]) if ln.strip()), "")
        skip = _SKIP.match(prev)
        body, j = [], i + 1
        while j < len(lines):
            close = lines[j].strip()
            if close.startswith(fence[0] * len(fence)) and set(close) == {fence[0]}:
                break
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        blocks.append({"lang": lang, "line": i + 2, "source": textwrap.dedent("\n".join(body)),
                       "skip": skip.group("reason") if skip else None})
        i = j + 1
    return blocks


def python_blocks(path):
    return [b for b in code_blocks(path) if b["lang"] in _PYTHON]


# The runner, executed in a subprocess: python -c RUNNER spec.json
RUNNER = r'''
import ast, io, json, re, sys, tokenize, traceback

spec = json.load(open(sys.argv[1], encoding="utf-8"))
prelude = {}
exec(compile(spec["prelude"], spec["page"] + " (prelude in tests/tooling/test_docs.py)", "exec"), prelude)
prelude.pop("__builtins__", None)
ns = {"__name__": "__docs__"}

def comments(src):
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string[1:].strip()
    return out

def matches(expected, value):
    if isinstance(expected, str) and "..." in expected:
        if not isinstance(value, str):
            return False
        pattern = ".*".join(re.escape(p) for p in expected.split("..."))
        return re.fullmatch(pattern, value, re.S) is not None
    return value == expected

for block in spec["blocks"]:
    where = "%s, block at line %d" % (spec["page"], block["line"])
    src = block["source"]
    ns.update(prelude)
    tree = ast.parse(src, where)
    notes = comments(src)
    for stmt in tree.body:
        line = block["line"] + stmt.lineno - 1
        fname = "%s:%d" % (spec["page"], block["line"])
        try:
            if isinstance(stmt, ast.Expr):
                value = eval(compile(ast.Expression(stmt.value), fname, "eval"), ns)
                if isinstance(stmt.value, ast.Compare) and not value:
                    raise AssertionError("the comparison is false")
                note = notes.get(stmt.end_lineno)
                if note is not None:
                    try:
                        expected = ast.literal_eval(note)
                    except (ValueError, SyntaxError, MemoryError, RecursionError):
                        pass
                    else:
                        if not matches(expected, value):
                            raise AssertionError("the comment says %r, the value is %r"
                                                 % (note, value))
            else:
                exec(compile(ast.Module([stmt], []), fname, "exec"), ns)
        except BaseException:
            seg = ast.get_source_segment(src, stmt) or ""
            print("FAILED: %s, statement at line %d:\n%s\n" % (where, line, textwrap_indent(seg)),
                  file=sys.stderr)
            traceback.print_exc()
            sys.exit(1)
print("ran %d blocks" % len(spec["blocks"]))
'''
RUNNER = RUNNER.replace("textwrap_indent(seg)", "'    ' + seg.replace('\\n', '\\n    ')")


def _page_id(path):
    return path.name


def run_blocks(name, label, blocks, tmp_path):
    """Run blocks (dicts with line and source) in order in a subprocess, with
    PRELUDE[name] and after checking REQUIRES[name]."""
    req = REQUIRES.get(name, {"modules": [], "commands": []})
    for mod in req["modules"]:
        try:
            importlib.import_module(mod)
        except ImportError:
            pytest.fail(f"{label} needs {mod} (pip install -e '.[test]')")
    for cmd in req["commands"]:
        if shutil.which(cmd) is None:
            pytest.fail(f"{label} needs the {cmd} command")
    spec = {"page": label, "prelude": PRELUDE.get(name, ""), "blocks": blocks}
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    work = tmp_path / "cwd"
    work.mkdir()
    env = dict(os.environ)
    for var in ("POLY1305X_BACKEND", "POLY1305X_INSTALL"):
        env.pop(var, None)
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(spec_file)], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-6000:] + proc.stdout[-2000:]
    assert f"ran {len(blocks)} blocks" in proc.stdout


@pytest.mark.parametrize("path", [p for p in PAGES if any(b["skip"] is None for b in python_blocks(p))],
                         ids=_page_id)
def test_page_examples_run(path, tmp_path):
    blocks = python_blocks(path)
    for b in blocks:
        if b["skip"] is not None:
            assert b["skip"] in SKIP_REASONS, (
                f"{path.name}:{b['line']}: skip reason {b['skip']!r} is not in SKIP_REASONS")
    todo = [b for b in blocks if b["skip"] is None]
    run_blocks(path.name, str(path.relative_to(ROOT)), todo, tmp_path)


_LITERAL = re.compile(r"::[ \t]*\n(?P<body>(?:[ \t]*\n)*(?P<indent>[ \t]+)\S.*\n(?:(?:(?P=indent).*|[ \t]*)\n)*)")


def docstring_literal_blocks(name):
    """reST literal blocks (after a paragraph ending in ::) in the docstrings
    of a module and of the classes and functions defined in it."""
    mod = importlib.import_module(name)
    docs = [mod.__doc__ or ""]
    for obj in vars(mod).values():
        if (inspect.isclass(obj) or callable(obj)) and getattr(obj, "__module__", None) == name:
            docs.append(getattr(obj, "__doc__", None) or "")
    blocks = []
    for doc in docs:
        doc = inspect.cleandoc(doc) + "\n"
        for m in _LITERAL.finditer(doc):
            line = doc[:m.start("body")].count("\n") + 1
            blocks.append({"line": line, "source": textwrap.dedent(m.group("body")).strip("\n")})
    return blocks


@pytest.mark.parametrize("name", [n for n in DOCTEST_MODULES if docstring_literal_blocks(n)])
def test_docstring_literal_blocks_run(name, tmp_path):
    blocks = docstring_literal_blocks(name)
    run_blocks(name, f"docstrings of {name}", blocks, tmp_path)


def test_every_page_is_known():
    """A new page must say what it needs (REQUIRES), even if it is nothing."""
    missing = [p.name for p in PAGES if python_blocks(p) and p.name not in REQUIRES]
    assert not missing, f"add these pages to REQUIRES in tests/tooling/test_docs.py: {missing}"


def test_skip_reasons_are_used():
    used = {b["skip"] for p in PAGES for b in python_blocks(p) if b["skip"]}
    assert set(SKIP_REASONS) <= used, f"unused SKIP_REASONS: {set(SKIP_REASONS) - used}"
    assert used <= set(SKIP_REASONS), f"unknown skip reasons: {used - set(SKIP_REASONS)}"


def test_most_examples_run():
    """Skipping is the exception: at least 95% of the blocks run."""
    blocks = [b for p in PAGES for b in python_blocks(p)]
    skipped = [b for b in blocks if b["skip"]]
    assert blocks and len(skipped) <= 0.05 * len(blocks)


def _doctests(name):
    found = doctest.DocTestFinder(exclude_empty=True).find(importlib.import_module(name), name)
    return [t for t in found if t.examples]


@pytest.mark.parametrize("name", [n for n in DOCTEST_MODULES if _doctests(n)])
def test_docstring_examples(name):
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = _doctests(name)
    for t in tests:
        runner.run(t)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0


def test_extractor_sees_fences(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(textwrap.dedent("""\
        text
        ```python
        a = 1
        ```
        <!-- docs-test: skip network -->
        ```py
        b = 2
        ```
        * item

          ```python
          c = 3
          ```
        ````markdown
        ```python
        not = code
        ```
        ````
        ```sh
        ls
        ```
        """))
    got = python_blocks(page)
    assert [(b["source"], b["skip"], b["line"]) for b in got] == [
        ("a = 1", None, 3), ("b = 2", "network", 7), ("c = 3", None, 12)]
