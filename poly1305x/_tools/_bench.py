"""Side-by-side benchmark behind ``python -m poly1305x bench`` (the self-test
is in ``poly1305x._tools._selftest``).

Nothing here is needed at run time by the rest of the package: the peers
(cryptography, pycryptodome, PyNaCl) and matplotlib are imported only when
they are asked for, and a missing one is skipped.

* ``CASES`` / ``measure()`` / ``run_bench()``: what is benchmarked, shared with
  the pytest-benchmark suite in ``benchmarks/`` so both measure the same calls.
* ``format_table()``: the Markdown table, shared with ``benchmarks/report.py``
  (the figures are ``_plot.plot()``'s: _plot imports this module, never the
  other way round).
"""
import datetime
import gc
import importlib
import os
import platform
import time
from contextlib import contextmanager

import poly1305x
from poly1305x._tools import _floor, _report
from poly1305x._tools._units import time_text
# What is benchmarked (re-exported: the command line and benchmarks/ use them
# through this module); the self-test's backend switch, also benchmarks/'.
from poly1305x._tools._cases import (  # noqa: F401
    CASES, FIXED_SIZES, HPKE_SIZE, OPERATIONS, PER_BACKEND_OPERATIONS, QUICK_OPERATIONS, SIZES,
    SSH_SIZES, STREAM_PIECE, Case, KiB, MiB, cases, group_name, size_label,
)
from poly1305x._tools._cases import (  # noqa: F401
    BATCH_OPERATIONS, BENCH_OPERATIONS, FLOOR_OPERATIONS,
)
from poly1305x._tools._selftest import using_backend  # noqa: F401

# --------------------------------------------------------------------------
# Which libraries are there
# --------------------------------------------------------------------------

LIBRARIES = ("poly1305x", "cryptography", "pycryptodome", "pynacl")
_PROBE = {"poly1305x": "poly1305x", "cryptography": "cryptography",
          "pycryptodome": "Crypto", "pynacl": "nacl", "pyhpke": "pyhpke",
          "asyncssh": "asyncssh", "noiseprotocol": "noise", "aioquic": "aioquic"}


def library_version(library):
    """Installed version of a library, or None when it cannot be imported."""
    try:
        mod = importlib.import_module(_PROBE[library])
    except ImportError:
        return None
    return getattr(mod, "__version__", "?")


def available(library):
    if library == _floor.LIBRARY:           # a C helper built on demand, or None
        return _floor.load() is not None
    return library_version(library) is not None


# --------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------

@contextmanager
def _no_gc():
    gc_was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc_was:
            gc.enable()


def _batch(fn, number, timer=time.perf_counter):
    """Seconds for ``number`` calls."""
    t0 = timer()
    for _ in range(number):
        fn()
    return timer() - t0


def calibrate(fn, min_time=0.05):
    """(calls per batch, seconds per call of the last batch): calls are
    batched until a batch lasts ``min_time``."""
    fn()  # warm up, and fail early
    with _no_gc():
        number = 1
        while True:
            elapsed = _batch(fn, number)
            if elapsed >= min_time or number >= 1 << 24:
                return number, elapsed / number
            grow = min_time / elapsed * 1.2 if elapsed > 0 else 10
            number = max(number + 1, min(int(number * grow), number * 10))


def measure(fn, repeats=5, min_time=0.05):
    """Best seconds per call: calls are batched until a batch lasts
    ``min_time``, then the fastest of ``repeats`` batches counts (the least
    disturbed by a shared, noisy machine).  Returns (seconds, calls per batch)."""
    number, best = calibrate(fn, min_time)
    with _no_gc():
        for _ in range(repeats - 1):
            best = min(best, _batch(fn, number) / number)
    return best, number


def plan(operations, sizes=None, per_backend=(), backends=None):
    """(case, backend, size) triples to measure.  poly1305x cases run on
    every backend in ``backends`` for operations in ``per_backend``, on the
    default backend otherwise; peers that cannot be imported are left out."""
    backends = poly1305x.backends() if backends is None else backends
    default = poly1305x.backend()
    todo = []
    for case in cases(operations):
        if not all(available(lib) for lib in (case.library, *case.needs)):
            continue
        for size in case.sizes if sizes is None or case.operation in FIXED_SIZES else sizes:
            if case.library == "poly1305x":
                for b in (backends if case.operation in per_backend else [default]):
                    todo.append((case, b, size))
            else:
                todo.append((case, None, size))
    return todo


def run_bench(todo, repeats=5, min_time=0.05, progress=None):
    """Measure each planned triple; rows of plain dicts (see ``format_table``).

    Every case is calibrated first (``calibrate``); then ``repeats`` rounds
    each time one batch of every case, in turn, and the fastest batch counts.
    Round-robin, a change in the load of a shared machine during the run
    touches every case alike instead of the few measured at that moment, so
    the ratios within one run stay fair."""
    steps = len(todo) * (1 + max(repeats - 1, 0))
    step = 0
    prepared = []
    for case, backend, size in todo:
        step += 1
        if progress:
            progress(step, steps, case, backend, size)
        with using_backend(backend):
            fn = case.make(size)
            number, seconds = calibrate(fn, min_time)
        prepared.append([case, backend, size, fn, number, seconds, [seconds]])
    for _ in range(repeats - 1):
        for item in prepared:
            case, backend, size, fn, number, seconds, rounds = item
            step += 1
            if progress:
                progress(step, steps, case, backend, size)
            with using_backend(backend), _no_gc():
                rounds.append(_batch(fn, number) / number)
            item[5] = min(seconds, rounds[-1])
    rows = []
    for case, backend, size, fn, number, seconds, rounds in prepared:
        per = getattr(fn, "messages", 1)       # batch rows: time per message
        seconds /= per
        rounds = [t / per for t in rounds]
        rows.append({
            "operation": case.operation, "library": case.library, "backend": backend,
            "variant": case.variant, "size": size, "seconds": seconds,
            "calls_per_batch": number, "repeats": repeats, "gbps": size / seconds / 1e9,
            "rounds": rounds,    # seconds per call in each round, in order
        })
    return rows


# --------------------------------------------------------------------------
# Reporting (shared with benchmarks/report.py)
# --------------------------------------------------------------------------

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _cpuinfo():
    """/proc/cpuinfo's first processor as a dict ({} elsewhere)."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                info[key.strip()] = value.strip()
    except OSError:
        pass
    return info


def cpu_generation(info=None):
    """AMD's Zen generation from the CPU family and model ("Zen 4"), or None."""
    info = _cpuinfo() if info is None else info
    if info.get("vendor_id") != "AuthenticAMD":
        return None
    try:
        family, model = int(info["cpu family"]), int(info["model"])
    except (KeyError, ValueError):
        return None
    if family == 23:
        return "Zen 2" if model >= 0x30 else "Zen"
    if family == 25:
        return "Zen 4" if 0x10 <= model <= 0x1f or model >= 0x60 else "Zen 3"
    if family == 26:
        return "Zen 5"
    return None


def source_commit():
    """The short commit of the checkout poly1305x is imported from, or None."""
    import subprocess
    here = os.path.dirname(os.path.dirname(os.path.abspath(poly1305x.__file__)))
    try:
        r = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"],
                           capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = r.stdout.strip() if r.returncode == 0 else ""
    if not commit:
        return None
    dirty = subprocess.run(["git", "-C", here, "diff", "--quiet", "HEAD", "--", "poly1305x"],
                           capture_output=True, timeout=10).returncode
    return commit + ("+changes" if dirty else "")


def environment():
    """What a reader needs to weigh the numbers: machine, versions, commit, date."""
    info = _cpuinfo()
    return {
        "cpu": cpu_model(),
        "cpu_generation": cpu_generation(info),
        "virtual": "hypervisor" in info.get("flags", "").split(),
        "commit": source_commit(),
        "cpu_count": os.cpu_count(),
        "cpu_features": sorted(poly1305x.cpu_features()),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "versions": {lib: library_version(lib) for lib in LIBRARIES},
        "backends": poly1305x.backends(),
        "default_backend": poly1305x.backend(),
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
    }


def _fmt_time(s):
    return time_text(s, ms_digits=3)


def series_label(row):
    lib = row["library"]
    label = f"{lib} [{row['backend']}]" if lib == "poly1305x" and row.get("backend") else lib
    return f"{label} {row['variant']}" if row.get("variant") else label


def format_table(rows, time_label="best time/call", mark=None):
    """A Markdown table: one line per library in each operation and size, the
    poly1305x lines with their speed ratio against each peer ("2.5× cryptography"
    means poly1305x takes 1/2.5 of cryptography's time); ``mark(mine, peer)``
    may return a suffix for a ratio."""
    order = {op: i for i, op in enumerate(OPERATIONS)}
    keyed = {}
    for r in rows:
        keyed.setdefault((order.get(r["operation"], 99), r["operation"], r["size"]), []).append(r)
    lines = [f"| operation | size | library | {time_label} | GB/s | poly1305x vs peers |",
             "|---|---:|---|---:|---:|---|"]
    for (_, op, size), group in sorted(keyed.items()):
        others = [r for r in group if r["library"] != "poly1305x"]
        peers = [r for r in others if r["library"] != _floor.LIBRARY]   # floor: its own table
        mine = [r for r in group if r["library"] == "poly1305x"]
        by_time = lambda r: r["seconds"]  # noqa: E731
        for r in sorted(mine, key=by_time) + sorted(others, key=by_time):
            ratios = ""
            if r["library"] == "poly1305x":
                ratios = ", ".join(f"{p['seconds'] / r['seconds']:.1f}× {p['library']}"
                                   + (mark(r, p) if mark else "") for p in peers) or "(no peer)"
            lines.append(f"| {op} | {_report.size_text(size)} | {series_label(r)} | "
                         f"{_fmt_time(r['seconds'])} | {size / r['seconds'] / 1e9:.3f} | {ratios} |")
    return "\n".join(lines) + _floor.format_summary(rows) + _report.batch_summary(rows)
