"""``python -m poly1305x``: check every backend, then compare speeds.

    python -m poly1305x            self-test, then a quick side-by-side (< 30 s)
    python -m poly1305x selftest   self-test only (exit code 1 on any failure)
    python -m poly1305x bench      every operation, more repeats
                                   [--quick] [--json FILE] [--plot FILE]
"""
import argparse
import importlib.util
import json
import os
import sys

import poly1305x
from poly1305x._tools import _bench, _selftest
from poly1305x._peers import install_hint

#: The mark of a ratio whose rounds disagree on which library is faster.
NOISY = "†"


def _header():
    env = _bench.environment()
    print(f"poly1305x {poly1305x.__version__} on {env['cpu']} ({env['cpu_count']} CPUs), "
          f"Python {env['python']}")
    print(f"CPU features: {', '.join(env['cpu_features']) or 'none'}; backends: "
          f"{', '.join(env['backends'])} (default {env['default_backend']})")
    return env


def _peers_note():
    missing = False
    for lib in _bench.LIBRARIES[1:]:
        v = _bench.library_version(lib)
        print(f"  peer {lib}: {v}" if v else f"  peer {lib}: not importable, skipped")
        missing = missing or not v
    if missing:
        print(f"  (to compare with the peers: {install_hint('peers')})")


def _run_selftest():
    print("\nSelf-test (RFC 8439 2.5.2, 2.4.2, 2.8.2 and long inputs, through the public faces):")
    return _selftest.run_selftest()


class _Progress:
    """A status line on stderr per step, rewritten in place on a terminal;
    elsewhere one line per case while calibrating, then one per round."""

    def __init__(self, cases, stream=None):
        self.stream = sys.stderr if stream is None else stream
        self.cases, self.tty = max(cases, 1), self.stream.isatty()

    def __call__(self, i, n, case, backend, size):
        who = f"{case.library} [{backend}]" if backend else case.library
        rnd, rounds = (i - 1) // self.cases + 1, max(n // self.cases, 1)
        what = "calibrating" if rnd == 1 else f"round {rnd}/{rounds}"
        msg = f"[{i}/{n}] {what}: {case.operation} {_bench.size_label(size)} {who}"
        if self.tty:
            self.stream.write("\r\033[K" + msg)
        elif rnd == 1 or (i - 1) % self.cases == 0:
            self.stream.write(msg + "\n")
        else:
            return
        self.stream.flush()

    def done(self):
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()


def round_ratios(mine, peer):
    """The speed ratio of each round (the same round of both rows)."""
    return [p / m for m, p in zip(mine.get("rounds", ()), peer.get("rounds", ())) if m > 0]


def _noise_mark(mine, peer):
    ratios = round_ratios(mine, peer)
    if len(ratios) > 1 and min(ratios) < 1.0 < max(ratios):
        return f" {NOISY} (rounds {min(ratios):.2f}–{max(ratios):.2f}×)"
    return ""


def _bench_and_report(todo, repeats, min_time, json_path=None, plot_path=None,
                      progress=True, env=None):
    env = env or _bench.environment()
    prog = _Progress(len(todo)) if progress else None
    try:
        rows = _bench.run_bench(todo, repeats=repeats, min_time=min_time, progress=prog)
    finally:
        if prog:
            prog.done()
    print(f"\nBest of {repeats} rounds (one batch of calls per case in each round, the cases "
          "in turn), time per call; GB/s = message bytes per second.\n")
    table = _bench.format_table(rows, mark=_noise_mark)
    print(table)
    if NOISY in table:
        print(f"\n{NOISY} noisy: in some of the {repeats} rounds poly1305x was the faster, in "
              "others the slower (the range: the ratio of each round, one batch each); the "
              "machine is busy: run again, or python -m poly1305x bench --repeats 15")
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"environment": env, "results": rows}, f, indent=1)
        print(f"\nwrote {json_path}")
    if plot_path:
        try:
            written = _bench.plot(rows, plot_path, env)
        except RuntimeError as exc:
            print(f"\nno plot: {exc}", file=sys.stderr)
            return 1
        print(f"wrote {', '.join(written)}")
    return 0


def _positive(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {n}")
    return n


def _check_output(parser, flag, path):
    """Refuse an output path that cannot be written before the run, not after it."""
    if path is None:
        return
    where = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(where):
        parser.error(f"{flag} {path}: the directory {where} does not exist")
    if os.path.isdir(path) or not os.access(path if os.path.exists(path) else where, os.W_OK):
        parser.error(f"{flag} {path}: cannot write there")


def main(argv=None):
    """Run the command line on argv (default sys.argv[1:]); returns the exit status."""
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(line_buffering=True)   # each step shows as it ends
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("", file=sys.stderr)
        return 130


def _main(argv):
    parser = argparse.ArgumentParser(
        prog="python -m poly1305x",
        description="Self-test every poly1305x backend against RFC 8439 known answers, "
                    "and compare its speed with cryptography, pycryptodome and PyNaCl "
                    "(whichever are installed). With no command: self-test, then a quick "
                    "comparison of the one-shot Poly1305 and ChaCha20-Poly1305.")
    parser.add_argument("--version", action="version", version=f"poly1305x {poly1305x.__version__}")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("selftest", help="only the known-answer self-test (exit code 1 on failure)")
    b = sub.add_parser("bench", help="the fuller comparison: every operation, more repeats")
    b.add_argument("--quick", action="store_true",
                   help="small sizes and few repeats: a smoke run of a few seconds")
    b.add_argument("--repeats", type=_positive, default=None,
                   help="rounds per measurement, at least 1 (default 7; --quick 2)")
    b.add_argument("--json", metavar="FILE", help="write the results as JSON")
    b.add_argument("--plot", metavar="FILE", help="draw throughput vs size (needs matplotlib)")
    b.add_argument("--operation", action="append",
                   choices=list(_bench.BENCH_OPERATIONS),
                   help="measure only this operation (may be repeated)")
    args = parser.parse_args(argv)
    if args.command == "bench":
        _check_output(parser, "--json", args.json)
        _check_output(parser, "--plot", args.plot)
        if args.plot and importlib.util.find_spec("matplotlib") is None:
            parser.error("--plot needs matplotlib: pip install matplotlib")

    env = _header()
    if args.command == "selftest":
        return 0 if _run_selftest() else 1

    if args.command == "bench":
        _peers_note()
        ops = args.operation or list(_bench.BENCH_OPERATIONS)
        if args.quick:
            todo = _bench.plan(ops, sizes=(64, _bench.KiB), backends=[poly1305x.backend()])
            repeats, min_time = args.repeats or 2, 0.003
        else:
            todo = _bench.plan(ops, per_backend=_bench.PER_BACKEND_OPERATIONS)
            repeats, min_time = args.repeats or 7, 0.05
        return _bench_and_report(todo, repeats, min_time, args.json, args.plot, env=env)

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
