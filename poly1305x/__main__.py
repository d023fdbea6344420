"""``python -m poly1305x``: check every backend, then compare speeds.

    python -m poly1305x            self-test, then a quick side-by-side (< 30 s)
    python -m poly1305x selftest   self-test only (exit code 1 on any failure)
    python -m poly1305x bench      every operation, more repeats
                                   [--quick] [--json FILE] [--plot FILE]
"""
import argparse
import json
import sys

import poly1305x
from poly1305x import _bench, _selftest


def _header():
    env = _bench.environment()
    print(f"poly1305x {poly1305x.__version__} on {env['cpu']} ({env['cpu_count']} CPUs), "
          f"Python {env['python']}")
    print(f"CPU features: {', '.join(env['cpu_features']) or 'none'}; backends: "
          f"{', '.join(env['backends'])} (default {env['default_backend']})")
    return env


def _peers_note():
    for lib in _bench.LIBRARIES[1:]:
        v = _bench.library_version(lib)
        print(f"  peer {lib}: {v}" if v else f"  peer {lib}: not importable, skipped")


def _run_selftest():
    print("\nSelf-test (RFC 8439 2.5.2, 2.4.2, 2.8.2 and long inputs, through the public faces):")
    return _selftest.run_selftest()


class _Progress:
    """One status line on stderr, rewritten in place on a terminal."""

    def __init__(self, stream=sys.stderr):
        self.stream, self.tty = stream, stream.isatty()

    def __call__(self, i, n, case, backend, size):
        who = f"{case.library} [{backend}]" if backend else case.library
        msg = f"[{i}/{n}] {case.operation} {_bench.size_label(size)} {who}"
        if self.tty:
            self.stream.write("\r\033[K" + msg)
        else:
            self.stream.write(msg + "\n")
        self.stream.flush()

    def done(self):
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()


def _bench_and_report(todo, repeats, min_time, json_path=None, plot_path=None,
                      progress=False, env=None):
    env = env or _bench.environment()
    prog = _Progress() if progress else None
    rows = _bench.run_bench(todo, repeats=repeats, min_time=min_time, progress=prog)
    if prog:
        prog.done()
    print(f"\nBest of {repeats} batches, time per call; GB/s = message bytes per second.\n")
    print(_bench.format_table(rows))
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"environment": env, "results": rows}, f, indent=1)
        print(f"\nwrote {json_path}")
    if plot_path:
        try:
            _bench.plot(rows, plot_path, env)
        except RuntimeError as exc:
            print(f"\nno plot: {exc}", file=sys.stderr)
            return 1
        print(f"wrote {plot_path}")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m poly1305x",
        description="Self-test every poly1305x backend against RFC 8439 known answers, "
                    "and compare its speed with cryptography, pycryptodome and PyNaCl "
                    "(whichever are installed). With no command: self-test, then a quick "
                    "comparison of the one-shot Poly1305 and ChaCha20-Poly1305.")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("selftest", help="only the known-answer self-test (exit code 1 on failure)")
    b = sub.add_parser("bench", help="the fuller comparison: every operation, more repeats")
    b.add_argument("--quick", action="store_true",
                   help="small sizes and few repeats: a smoke run of a few seconds")
    b.add_argument("--repeats", type=int, default=None, help="batches per measurement")
    b.add_argument("--json", metavar="FILE", help="write the results as JSON")
    b.add_argument("--plot", metavar="FILE", help="draw throughput vs size (needs matplotlib)")
    b.add_argument("--operation", action="append",
                   choices=list(_bench.OPERATIONS) + list(_bench.BATCH_OPERATIONS),
                   help="measure only this operation (may be repeated)")
    args = parser.parse_args(argv)

    env = _header()
    if args.command == "selftest":
        return 0 if _run_selftest() else 1

    if args.command == "bench":
        _peers_note()
        ops = args.operation or list(_bench.OPERATIONS)
        if args.quick:
            todo = _bench.plan(ops, sizes=(64, _bench.KiB), backends=[poly1305x.backend()])
            repeats, min_time = args.repeats or 2, 0.003
        else:
            todo = _bench.plan(ops, per_backend=_bench.PER_BACKEND_OPERATIONS)
            repeats, min_time = args.repeats or 7, 0.05
        return _bench_and_report(todo, repeats, min_time, args.json, args.plot,
                                 progress=True, env=env)

    # No command: self-test, then the quick side-by-side.
    if not _run_selftest():
        print("\nself-test failed: not benchmarking", file=sys.stderr)
        return 1
    print("\nQuick comparison (python -m poly1305x bench for every operation):")
    _peers_note()
    todo = _bench.plan(_bench.QUICK_OPERATIONS)
    return _bench_and_report(todo, repeats=5, min_time=0.04, env=env)


if __name__ == "__main__":
    sys.exit(main())
