"""dudect-style timing test of tag verification (a benchmark, not a CI gate).

Two classes of wrong tags are verified in random interleaved order -- class A
differs from the right tag in its first byte, class B in its last byte -- and
Welch's t statistic compares the two timing distributions (after cropping the
slowest measurements, as dudect does).  An early-exit comparison (memcmp)
would make class A faster; |t| > 10 is dudect's threshold for "definitely not
constant time", |t| < 4.5 means no leak was detected at this sample size.
The same run measures Python's ``==`` on bytes as a reference point.

Usage: python tests/ct/dudect_verify.py [samples per class, default 200000]

Limits: each measurement includes the Python call and the InvalidSignature
raise (~1 us); a 16-byte compare differs by nanoseconds at most, so this test
can only show large leaks.  The valgrind check (run.sh) is the precise one.
"""
import math
import os
import random
import sys
import time

from poly1305x import InvalidSignature
from poly1305x.mac import Poly1305


def welch(a, b):
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    va = sum((x - ma) ** 2 for x in a) / (len(a) - 1)
    vb = sum((x - mb) ** 2 for x in b) / (len(b) - 1)
    return (ma - mb) / math.sqrt(va / len(a) + vb / len(b)), ma, mb


def crop(xs, pct=0.9):
    xs = sorted(xs)
    return xs[:int(len(xs) * pct)]


def measure(n, fn, a_input, b_input):
    """Time fn(input) for inputs of class A and B in random order, through
    one call site, so that only the input differs between the classes."""
    a, b = [], []
    clock = time.perf_counter_ns
    inputs = (a_input, b_input)
    for _ in range(2 * n):
        cls = random.getrandbits(1)
        x = inputs[cls]
        t0 = clock()
        fn(x)
        t1 = clock()
        (b if cls else a).append(t1 - t0)
    return welch(crop(a), crop(b))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
    key, msg = os.urandom(32), os.urandom(64)
    tag = Poly1305.generate_tag(key, msg)
    first = bytes([tag[0] ^ 1]) + tag[1:]
    last = tag[:15] + bytes([tag[15] ^ 1])

    def verify(t):
        try:
            Poly1305.verify_tag(key, msg, t)
        except InvalidSignature:
            pass

    def eq(t):
        return tag == t

    # A/A: two equal wrong tags in distinct objects: the noise floor
    t0, _, _ = measure(n, verify, first, bytes(bytearray(first)))
    print(f"A/A control (same wrong tag, two objects):                 t = {t0:+.2f}")
    t, ma, mb = measure(n, verify, first, last)
    print(f"poly1305x verify_tag, wrong first byte vs wrong last byte: t = {t:+.2f} "
          f"(means {ma:.0f} / {mb:.0f} ns, {n} samples per class)")
    t2, ma2, mb2 = measure(n, eq, first, last)
    print(f"reference: bytes == (memcmp), same classes:                 t = {t2:+.2f} "
          f"(means {ma2:.0f} / {mb2:.0f} ns)")
    verdict = "no leak detected" if abs(t) < 4.5 else (
        "inconclusive" if abs(t) < 10 else "LEAK: timing depends on the tag")
    print(f"verdict: {verdict} (|t| < 4.5: none detected; > 10: definite)")
    return 0 if abs(t) < 10 else 1


if __name__ == "__main__":
    sys.exit(main())
