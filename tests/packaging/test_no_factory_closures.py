"""No factory closures in poly1305x: code that wraps a peer (or anything else)
is written as module-level functions, methods and classes, not made per call.

The rule, for every function or method F of poly1305x/**/*.py:

* a *product* of F is a class that F's body defines (``class``, or a
  three-argument ``type(...)`` call), or a function or lambda that F's body
  defines and that reads a name of a call (a parameter or a local of F or of
  a function around F): a closure.  A nested function that reads none
  is the same object whatever the call, so it is not counted.  A decorator
  that defines a ``functools.wraps`` wrapper over its argument and returns it
  is a product like any other closure: the wrapper reads the argument;
* F is a factory when a product *escapes* the call: it is returned or
  yielded, stored in an attribute or item (``obj.name = product``,
  ``d[key] = product``, ``setattr(obj, name, product)``) or in a global, by
  itself or inside an expression (a tuple, a list, a dict, or a call whose
  result holds its arguments: ``property``, ``staticmethod``,
  ``classmethod``, ``partial``, ``MethodType``, ``wraps``, ``cast``), directly or
  through local names assigned
  from such an expression (``x = product``, ``x = [product]``,
  ``x.append(product)``).

Not checked: a closure passed as an argument to a call (a callback the callee
runs during the call, as ``Switch.set(enable, bindings)`` or ``re.sub``) or
used only inside F.  Left out: ``poly1305x/_tools/``, the bench and figures
harness behind ``python -m poly1305x bench``, whose timed cases are thunks
over their inputs by design and are never put into a peer."""
import ast
import io
import pathlib
import subprocess
import symtable
import tarfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LEFT_OUT = ("poly1305x/_tools/",)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
# A lambda's symbol table is named "lambda" up to CPython 3.14 and "<lambda>"
# from 3.15 on (so that it cannot clash with a function of that name).
_LAMBDA_TABLES = ("lambda", "<lambda>")


def _frees(table):
    """The free names read anywhere in a symbol table and its children."""
    out = {s.get_name() for s in table.get_symbols() if s.is_free()}
    for child in table.get_children():
        out |= _frees(child)
    return out


def _closures(table, found, bound=frozenset()):
    """(line, name) of every function or lambda table that reads a name bound
    in an enclosing function (``bound``: those names), into ``found``."""
    if table.get_type() == "function":
        bound = bound | {s.get_name() for s in table.get_symbols() if s.is_local()}
    for child in table.get_children():
        if bound and child.get_type() == "function" and _frees(child) & bound:
            found.add((child.get_lineno(), child.get_name()))
        _closures(child, found, bound)
    return found


def _own_nodes(fn):
    """The nodes of fn's own scope: nested function, lambda and class bodies
    left out (their definitions are kept)."""
    stack = list(fn.body) if not isinstance(fn, ast.Lambda) else [fn.body]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _DEFS):
            continue
        stack.extend(ast.iter_child_nodes(node))


def _products(fn, closures):
    """The names and lambda nodes of fn's products (see the module doc)."""
    names, lambdas = set(), set()
    for node in _own_nodes(fn):
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if (node.lineno, node.name) in closures or any(
                    (d.lineno, node.name) in closures for d in node.decorator_list):
                names.add(node.name)
        elif isinstance(node, ast.Lambda) and any(
                (node.lineno, name) in closures for name in _LAMBDA_TABLES):
            lambdas.add(node)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "type" and len(node.args) == 3):
            lambdas.add(node)          # a class made by type(name, bases, dict)
    return names, lambdas


# Calls whose result holds their arguments: a product passed to one escapes
# with the result.  Any other call's arguments are callbacks (not followed).
# (Builtins by their bare name; the others also as module.attribute.)
WRAPPERS = {"property", "staticmethod", "classmethod", "tuple", "list", "dict", "set",
            "frozenset", "partial", "partialmethod", "MethodType", "wraps", "cast"}
_BUILTINS = {"property", "staticmethod", "classmethod", "tuple", "list", "dict", "set",
             "frozenset"}


def _callee(func):
    while isinstance(func, ast.Call):       # functools.wraps(f)(g): wraps
        func = func.func
    if isinstance(func, ast.Name):
        return func.id
    attr = getattr(func, "attr", None)
    return None if attr in _BUILTINS else attr


def _holds(expr, names, nodes):
    """Whether the value of expr can hold a product (names, lambda or type()
    nodes)."""
    if expr is None or isinstance(expr, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return False
    if expr in nodes or (isinstance(expr, ast.Name) and expr.id in names):
        return True
    if isinstance(expr, ast.Lambda):
        return False
    if isinstance(expr, ast.Call):
        if _callee(expr.func) not in WRAPPERS:
            return False
        parts = expr.args + [k.value for k in expr.keywords]
    else:
        parts = list(ast.iter_child_nodes(expr))
    return any(_holds(p, names, nodes) for p in parts)


def factories(source, filename):
    """[(line, function name, what escapes)] of the factories in one module."""
    tree = ast.parse(source, filename)
    closures = _closures(symtable.symtable(source, filename, "exec"), set())
    out = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        names, nodes = _products(fn, closures)
        if not names and not nodes:
            continue
        own = list(_own_nodes(fn))
        globals_ = {n for node in own if isinstance(node, ast.Global) for n in node.names}
        tainted = set(names)
        changed = True
        while changed:                 # local names that hold a product
            changed = False
            for node in own:
                targets, value = [], None
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    value = node.value
                elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                      and node.func.attr in ("append", "extend", "insert", "add", "update")):
                    targets = [node.func.value]
                    value = ast.Tuple(elts=node.args + [k.value for k in node.keywords])
                if not _holds(value, tainted, nodes):
                    continue
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name) and n.id not in tainted:
                            tainted.add(n.id)
                            changed = True
        for node in own:
            escapes = []
            if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)):
                escapes = [("returned", node.value)]
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, (ast.Attribute, ast.Subscript)) or (
                            isinstance(t, ast.Name) and t.id in globals_):
                        escapes.append(("stored", node.value))
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id == "setattr" and len(node.args) == 3):
                escapes = [("stored", node.args[2])]
            for how, value in escapes:
                if _holds(value, tainted, nodes):
                    out.append((node.lineno, fn.name, how))
    return out


def _modules(top):
    for path in sorted((top / "poly1305x").rglob("*.py")):
        rel = path.relative_to(top).as_posix()
        if not rel.startswith(LEFT_OUT):
            yield rel, path.read_text(encoding="utf-8")


def _findings(top):
    return [f"{rel}:{line}: {name}() is a factory: a closure or class it makes is {how}"
            for rel, text in _modules(top) for line, name, how in factories(text, rel)]


def test_no_factory_closures_in_poly1305x():
    assert _findings(ROOT) == []


# -- the rule itself: what it catches and what it lets through -----------------

CAUGHT = {
    "returned": "def f(peer):\n    def g(x):\n        return peer(x)\n    return g\n",
    "a pair": "def f(a, b):\n    def g():\n        return a\n    def h():\n        return b\n"
              "    return g, h\n",
    "wraps": "import functools\ndef deco(fn):\n    @functools.wraps(fn)\n"
             "    def wrapper(*a):\n        return fn(*a)\n    return wrapper\n",
    "property": "def f(orig):\n    def get(self):\n        return orig.fget(self)\n"
                "    return property(get, orig.fset)\n",
    "a list": "def f(p):\n    def g():\n        return p\n    out = []\n    out.append((1, g))\n"
              "    return out\n",
    "a class": "def f(Base):\n    class K(Base):\n        pass\n    return K\n",
    "type()": "def f(Base):\n    return type('K', (Base,), {})\n",
    "stored": "def f(cls, orig):\n    def m(self):\n        return orig(self)\n    cls.m = m\n",
    "setattr": "def f(cls, orig):\n    setattr(cls, 'm', lambda self: orig(self))\n",
    "a lambda": "def f(bits):\n    return lambda v: bits\n",
    "nested": "def f(p):\n    def g():\n        def h():\n            return p\n        return h\n"
              "    return g()\n",
}
PASSED = {
    "no capture": "def f():\n    return lambda v: v + 1\n",
    "a callback": "def f(table, switch):\n    def bindings():\n        return [table]\n"
                  "    return switch.set(True, bindings)\n",
    "used inside": "def f(xs, k):\n    def key(x):\n        return x[k]\n"
                   "    return sorted(xs, key=key)\n",
    "module level": "def g(p, x):\n    return p(x)\ndef f(p):\n    import functools\n"
                    "    return functools.partial(g, p)\n",
}


@pytest.mark.parametrize("name", sorted(CAUGHT))
def test_the_rule_catches(name):
    assert factories(CAUGHT[name], name), CAUGHT[name]


@pytest.mark.parametrize("name", sorted(PASSED))
def test_the_rule_lets_through(name):
    assert factories(PASSED[name], name) == [], PASSED[name]


# The peer wrappers the rule was written against, at commits that had them
# (main's tree before they were rewritten as real classes and functions).
BEFORE = {
    "620dc8b": {("poly1305x/openssh/_asyncssh.py", "_make_shim"),
                ("poly1305x/noise.py", "_make_cipher_class"),
                ("poly1305x/hpke.py", "_pyhpke_key_class"),
                ("poly1305x/openssh/_paramiko.py", "_make_methods"),
                ("poly1305x/hpke.py", "_rfc9180_locked")},
    "ea53e12": {("poly1305x/openssh/_paramiko.py", "_make_methods"),
                ("poly1305x/openssh/_paramiko.py", "_preferred_ciphers"),
                ("poly1305x/openssh/_paramiko_kex.py", "parse_kex_init"),
                ("poly1305x/openssh/_paramiko_keys.py", "_patch_keys"),
                ("poly1305x/openssh/_paramiko_keys.py", "_bad_key"),
                ("poly1305x/hpke.py", "_rfc9180_locked"),
                ("poly1305x/quic.py", "_factories"),
                ("poly1305x/mls.py", "_delegate"),
                ("poly1305x/_core/_ciphers.py", "_cryptography_encryptor"),
                ("poly1305x/openssh/_keys.py", "_fixed")},
}


@pytest.mark.parametrize("commit", sorted(BEFORE))
def test_the_rule_fails_on_the_old_peer_wrappers(commit, tmp_path):
    """(Reads the git history: CI's runs on a copy of the tracked files leave
    it out by name, .ci/wheel-tests.sh.)"""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "poly1305x"],
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(tmp_path, filter="data")
    found = {(rel, name) for rel, text in _modules(tmp_path)
             for _, name, _ in factories(text, rel)}
    assert BEFORE[commit] <= found, sorted(found)
