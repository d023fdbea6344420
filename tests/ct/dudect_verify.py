"""dudect-style timing test of tag verification (a benchmark, not a CI gate).

Two classes of wrong tags are verified in random interleaved order -- class A
differs from the right tag in its first byte, class B in its last byte -- and
Welch's t statistic compares the two timing distributions (after cropping the
slowest measurements, as dudect does).  An early-exit comparison (memcmp)
would make class A faster, consistently (negative t; |t| > 10 is dudect's
threshold for "definitely not constant time").  Each round also measures an
A/A control (both classes the same input: the noise floor of Python-level
timing on this machine) and Python's ``==`` on bytes (memcmp: a known early
exit) as the positive reference.

Usage: python tests/ct/dudect_verify.py [samples per class per round, default
100000] [rounds, default 5]

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
    one call site, so that only the input differs between the classes.  Each
    class is a pool of 256 equal objects at different addresses, so that the
    placement of one object in the caches cannot pass for a leak."""
    a, b = [], []
    clock = time.perf_counter_ns
    pools = ([bytes(bytearray(a_input)) for _ in range(256)],
             [bytes(bytearray(b_input)) for _ in range(256)])
    rand = random.getrandbits
    for _ in range(2 * n):
        cls = rand(1)
        x = pools[cls][rand(8)]
        t0 = clock()
        fn(x)
        t1 = clock()
        (b if cls else a).append(t1 - t0)
    return welch(crop(a), crop(b))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
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

    rows = {"A/A control: the same wrong tag in both classes": [],
            "verify_tag: wrong first byte vs wrong last byte": [],
            "reference, bytes == (memcmp): same two classes": []}
    for _ in range(rounds):
        for (name, ts), (fn, a, b) in zip(rows.items(), ((verify, first, first),
                                                         (verify, first, last),
                                                         (eq, first, last))):
            ts.append(measure(n, fn, a, b)[0])
    print(f"Welch t over {rounds} rounds of {n} samples per class "
          "(negative: the first class is faster):")
    for name, ts in rows.items():
        med = sorted(ts)[len(ts) // 2]
        print(f"  {name:50s} median t = {med:+7.2f}   [{', '.join(f'{t:+.1f}' for t in ts)}]")
    t_aa = sorted(rows["A/A control: the same wrong tag in both classes"])[rounds // 2]
    t_ab = sorted(rows["verify_tag: wrong first byte vs wrong last byte"])[rounds // 2]
    # An early-exit compare makes "wrong first byte" consistently faster
    # (negative t, as the memcmp reference shows).  Python-level timing has
    # a noise floor of several t units (the A/A row), so only a consistent,
    # large negative t is called a leak.
    if t_ab < -10 and abs(t_aa) < 4.5:
        print("verdict: LEAK: a wrong first byte is rejected measurably faster")
        return 1
    print("verdict: no tag-dependent timing distinguishable from the A/A noise floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
