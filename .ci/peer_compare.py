"""Compare a peer suite's three JUnit XML reports (.ci/peer-suites.sh):
plain, control (chacha, or paramiko's own AEAD, preferred on the peer's own
code) and poly1305x.  Prints "<peer> suite: N passed, N failed": passed = the
tests that pass plain, in the control pass and with poly1305x; failed = those
that pass plain and in the control pass but not with poly1305x (each named).
Tests that pass plain but fail in the control pass are named and not counted:
the preference, not poly1305x, fails them.  Exit 1 when any test failed, or
when none passed."""
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


def main(peer, plain, control, poly):
    plain, control, poly = outcomes(plain), outcomes(control), outcomes(poly)
    good = sorted(n for n, ok in plain.items() if ok)
    pref = [n for n in good if not control.get(n, False)]
    for name in pref:
        print(f"  not counted, fails with the preference alone: {name}"
              f" ({'passes' if poly.get(name) else 'fails'} with poly1305x)")
    good = [n for n in good if control.get(n, False)]
    lost = [n for n in good if not poly.get(n, False)]
    for name in lost:
        print(f"  passes plain, not with poly1305x: {name}")
    print(f"{peer} suite: {len(good) - len(lost)} passed, {len(lost)} failed")
    return 1 if lost or not good else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
