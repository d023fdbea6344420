"""Run corpus files through a fuzz target without atheris, from the root of
the tree: ``python -m tests.fuzz.replay poly1305 [files or dirs...]``
(default: the target's seed corpus).  Exit status 1 on the first failing
input, whose path is printed.  Used by tests/hardening/test_hardening_buffers.py
and for coverage figures (``coverage run -m tests.fuzz.replay ...``)."""
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def files(paths):
    for p in paths:
        if os.path.isdir(p):
            for name in sorted(os.listdir(p)):
                yield os.path.join(p, name)
        else:
            yield p


def replay(target, paths=None):
    mod = importlib.import_module(f"tests.fuzz.fuzz_{target}")
    paths = paths or [os.path.join(HERE, "corpus", target)]
    n = 0
    for path in files(paths):
        with open(path, "rb") as fh:
            data = fh.read()
        try:
            mod.TestOneInput(data)
        except BaseException as exc:
            raise AssertionError(f"{target}: {path}: {exc!r}") from exc
        n += 1
    return n


def main(argv):
    target, paths = argv[0], argv[1:]
    try:
        n = replay(target, paths)
    except AssertionError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(f"{target}: {n} inputs replayed, all clean")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
