"""``python -m poly1305x``: check every backend, then compare speeds.

    python -m poly1305x            self-test, then a quick side-by-side (< 30 s)
    python -m poly1305x selftest   self-test only (exit code 1 on any failure)
    python -m poly1305x bench      every operation, more repeats
                                   [--quick] [--json FILE] [--plot FILE]
    --format terminal|markdown|json  how the comparison is printed (default:
                                   columns sized to the terminal, then a verdict)
    python -m poly1305x bench --cpu-class noifma|avx2|ifma
                                   AEAD, ChaCha20, Poly1305 vs cryptography as on
                                   that CPU class (backend forced, OpenSSL masked)
"""
import argparse
import importlib.util
import json
import os
import shutil
import sys
import textwrap

import poly1305x
from poly1305x._tools import _bench, _cpu_class, _plot, _report, _selftest
from poly1305x._peers import install_hint

NOISY = _report.NOISY
FORMATS = ("terminal", "markdown", "json")


def _say(text):
    """Print a line of prose folded to the terminal's width."""
    width = shutil.get_terminal_size((80, 24)).columns
    print(textwrap.fill(text, width=max(width, 40), subsequent_indent="  ",
                        break_on_hyphens=False))


def _header():
    env = _bench.environment()
    _say(f"poly1305x {poly1305x.__version__} on {env['cpu']} ({env['cpu_count']} CPUs), "
         f"Python {env['python']}")
    _say(f"CPU features: {', '.join(env['cpu_features']) or 'none'}; backends: "
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
    print()
    _say("Self-test (RFC 8439 2.5.2, 2.4.2, 2.8.2 and long inputs, through the public faces):")
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


round_ratios = _report.round_ratios


def _noise_mark(mine, peer):
    ratios = round_ratios(mine, peer)
    if _report.is_noisy(mine, peer):
        return f" {NOISY} (rounds {min(ratios):.2f}–{max(ratios):.2f}×)"
    return ""


def _bench_and_report(todo, repeats, min_time, json_path=None, plot_path=None,
                      progress=True, env=None, fmt="terminal", selftest=None):
    """Measure, then print the comparison in ``fmt``; ``selftest`` (passed,
    total) adds the verdict's first line."""
    env = env or _bench.environment()
    prog = _Progress(len(todo)) if progress else None
    try:
        rows = _bench.run_bench(todo, repeats=repeats, min_time=min_time, progress=prog)
    finally:
        if prog:
            prog.done()
    if fmt == "json":
        print(json.dumps({"environment": env, "repeats": repeats, "results": rows}, indent=1))
    elif fmt == "markdown":
        print(f"\nBest of {repeats} rounds (one batch of calls per case in each round, the "
              "cases in turn), time per call; GB/s = message bytes per second.\n")
        table = _bench.format_table(rows, mark=_noise_mark)
        print(table)
        if NOISY in table:
            print(f"\n{NOISY} noisy: in some of the {repeats} rounds poly1305x was the faster, "
                  "in others the slower (the range: the ratio of each round, one batch each); "
                  "the machine is busy: run again, or python -m poly1305x bench --repeats 15")
    else:
        _terminal_report(rows, repeats, selftest)
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"environment": env, "repeats": repeats, "results": rows}, f, indent=1)
        print(f"\nwrote {json_path}")
    if plot_path:
        try:
            written = _plot.plot(rows, plot_path, env)
        except RuntimeError as exc:
            print(f"\nno plot: {exc}", file=sys.stderr)
            return 1
        print(f"wrote {', '.join(written)}")
    return 0


def _terminal_report(rows, repeats, selftest):
    print(f"\nBest of {repeats} rounds, time per call; GB/s = message bytes per second;")
    print("vs X: how many times as fast as X poly1305x is.\n")
    table = _report.format_terminal(rows)
    print(table)
    print("\n" + _report.legend(rows))
    if NOISY in table:
        print(f"{NOISY} noisy: the rounds disagreed (a busy machine); run again, or "
              "bench --repeats 15")
    passed, total = selftest or (None, None)
    verdict = _report.verdict(rows, passed, total)
    print("\n" + (verdict if selftest else verdict.split("\n", 1)[-1]))


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
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly.  Python would try to
        # flush stdout again at exit and print a second error, so point it at
        # /dev/null first.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 0


def _main(argv):
    parser = argparse.ArgumentParser(
        prog="python -m poly1305x",
        description="Self-test every poly1305x backend against RFC 8439 known answers, "
                    "and compare its speed with cryptography, pycryptodome and PyNaCl "
                    "(whichever are installed). With no command: self-test, then a quick "
                    "comparison of the one-shot Poly1305 and ChaCha20-Poly1305.")
    parser.add_argument("--version", action="version", version=f"poly1305x {poly1305x.__version__}")
    fmt_help = ("how the comparison is printed: columns sized to the terminal, then a "
                "verdict (default); the Markdown table; or JSON (for files)")
    parser.add_argument("--format", choices=FORMATS, default="terminal", help=fmt_help)
    fmt = argparse.ArgumentParser(add_help=False)   # the same option after "bench"
    fmt.add_argument("--format", choices=FORMATS, default=argparse.SUPPRESS, help=fmt_help)
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("selftest", help="only the known-answer self-test (exit code 1 on failure)")
    b = sub.add_parser("bench", help="the fuller comparison: every operation, more repeats",
                       parents=[fmt], formatter_class=argparse.RawDescriptionHelpFormatter,
                       description=textwrap.fill(
                           "Every operation against every peer that is installed, best of "
                           "--repeats rounds.  A full run takes about 4 to 6 minutes on two "
                           "cores; --quick a few seconds; each --operation about 10 to 40 s.",
                           78),
                       epilog="operations:\n" + _report.legend(
                           [{"operation": op} for op in _bench.BENCH_OPERATIONS], width=100))
    b.add_argument("--quick", action="store_true",
                   help="small sizes and few repeats: a smoke run of a few seconds")
    b.add_argument("--repeats", type=_positive, default=None,
                   help="rounds per measurement, at least 1 (default 7; --quick 2)")
    b.add_argument("--json", metavar="FILE", help="write the results as JSON")
    b.add_argument("--plot", metavar="FILE", help="draw throughput vs size (needs matplotlib)")
    b.add_argument("--operation", action="append", metavar="NAME",
                   choices=list(_bench.BENCH_OPERATIONS),
                   help="measure only this operation (may be repeated; the names are "
                        "listed below)")
    b.add_argument("--cpu-class", action="append", choices=list(_cpu_class.CLASSES),
                   help="compare AEAD, ChaCha20 and Poly1305 with cryptography as on this "
                        "CPU class, in a child process with our backend forced and OpenSSL's "
                        "CPU bits masked (OPENSSL_ia32cap); may be repeated")
    args = parser.parse_args(argv)
    if args.command == "bench":
        _check_output(parser, "--json", args.json)
        _check_output(parser, "--plot", args.plot)
        if args.plot and importlib.util.find_spec("matplotlib") is None:
            parser.error("--plot needs matplotlib: pip install matplotlib")

    fmt_name = args.format
    env = _header()
    if args.command == "selftest":
        return 0 if _run_selftest() else 1

    if args.command == "bench" and args.cpu_class:
        if args.operation or args.plot:
            parser.error("--cpu-class measures its own operations: no --operation or --plot")
        if not _bench.available(_cpu_class.PEER):
            parser.error(f"--cpu-class compares with {_cpu_class.PEER}: {install_hint('peers')}")
        for cls, name in _cpu_class.unavailable(args.cpu_class, poly1305x.backends()):
            parser.error(f"--cpu-class {cls} needs the {name} backend, which this CPU or "
                         f"build lacks (backends: {', '.join(poly1305x.backends())})")
        quick = (2, 0.003, (64, _bench.KiB)) if args.quick else (7, 0.05, None)
        _cpu_class.run_classes(args.cpu_class, args.repeats or quick[0], quick[1], quick[2],
                               args.json)
        return 0

    if args.command == "bench":
        _peers_note()
        ops = args.operation or list(_bench.BENCH_OPERATIONS)
        if args.quick:
            todo = _bench.plan(ops, sizes=(64, _bench.KiB), backends=[poly1305x.backend()])
            repeats, min_time = args.repeats or 2, 0.003
        else:
            todo = _bench.plan(ops, per_backend=_bench.PER_BACKEND_OPERATIONS)
            repeats, min_time = args.repeats or 7, 0.05
        return _bench_and_report(todo, repeats, min_time, args.json, args.plot, env=env,
                                 fmt=fmt_name)

    # No command: self-test, then the quick side-by-side.
    if not _run_selftest():
        print("\nself-test failed: not benchmarking", file=sys.stderr)
        return 1
    total = len(_selftest.selftest_backends())
    print("\nQuick comparison (python -m poly1305x bench for every operation):")
    _peers_note()
    todo = _bench.plan(_bench.QUICK_OPERATIONS)
    return _bench_and_report(todo, repeats=5, min_time=0.04, env=env, fmt=fmt_name,
                             selftest=(total, total))


if __name__ == "__main__":
    sys.exit(main())
