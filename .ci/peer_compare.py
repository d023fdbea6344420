"""Compare a peer suite's three JUnit XML reports (.ci/peer-suites.sh):
plain, control (chacha, or paramiko's own AEAD, preferred on the peer's own
code) and poly1305x.  Prints "<peer> suite: N passed, N failed": passed = the
tests that pass plain, in the control pass and with poly1305x; failed = those
that pass plain and in the control pass but not with poly1305x (each named).
Tests that fail plain, or pass plain but fail in the control pass, are named
and not counted: the peer's own suite, or the preference, not poly1305x,
fails them.  With a fourth report (a re-run of the failed tests with
poly1305x), a test that failed with poly1305x and passes in the re-run is
named and counted as passed; one that fails again stays failed.  Exit 1 when
any test failed, or when none passed."""
import sys
import xml.etree.ElementTree as ET


def outcomes(path):
    result = {}
    for case in ET.parse(path).iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        bad = [c.tag for c in case if c.tag in ("failure", "error", "skipped")]
        # a test with a failing teardown appears twice: any failure counts
        result[name] = result.get(name, True) and not bad
    return result


def failed(path):
    """The tests of a report that failed or errored (not the skipped ones)."""
    return sorted({f"{case.get('classname')}::{case.get('name')}"
                   for case in ET.parse(path).iter("testcase")
                   if any(c.tag in ("failure", "error") for c in case)})


def main(peer, plain, control, poly, rerun=None):
    for name in failed(plain):
        print(f"  not counted, fails plain (the peer's own suite): {name}")
    plain, control, poly = outcomes(plain), outcomes(control), outcomes(poly)
    rerun = outcomes(rerun) if rerun else {}
    good = sorted(n for n, ok in plain.items() if ok)
    pref = [n for n in good if not control.get(n, False)]
    for name in pref:
        print(f"  not counted, fails with the preference alone: {name}"
              f" ({'passes' if poly.get(name) else 'fails'} with poly1305x)")
    good = [n for n in good if control.get(n, False)]
    lost = [n for n in good if not poly.get(n, False)]
    for name in [n for n in lost if rerun.get(n, False)]:
        print(f"  failed once with poly1305x, passed when re-run: {name}")
    lost = [n for n in lost if not rerun.get(n, False)]
    for name in lost:
        print(f"  passes plain, not with poly1305x: {name}")
    print(f"{peer} suite: {len(good) - len(lost)} passed, {len(lost)} failed")
    return 1 if lost or not good else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
