"""Hardening: fork().  A child forked while another thread
of the parent was inside a call on an object must find that object usable
(the call is not running in the child), and a child forked while
set_backend()'s lock was held must not deadlock.  Each case runs in a fresh
interpreter that forks; the child reports through its exit status and is
killed by an alarm if it hangs."""
import os
import sys

import pytest

from tests.support.hardening import assert_clean_exit, run_python

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin",
                                reason="needs fork() (macOS: fork with threads is unsafe)")

FORK_CHILD = '''
import os, signal, threading, time
import poly1305x
from poly1305x import ChaCha20, ChaCha20_Poly1305
from poly1305x._core import _dispatch
from poly1305x.mac import Poly1305


def fork_and_check(child):
    pid = os.fork()
    if pid == 0:
        signal.alarm(20)
        try:
            child()
        except BaseException as exc:
            print("child:", repr(exc), flush=True)
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
'''


def test_child_can_use_objects_busy_in_the_parent():
    code = FORK_CHILD + '''
from tests.support.hardening import zero_map
big = zero_map(1 << 32)
key, nonce = bytes(range(32)), bytes(12)
objs = {
    "mac": (Poly1305(key), lambda o: o.update(big.view), lambda o: o.update(b"x")),
    "chacha": (ChaCha20.new(key=key, nonce=nonce), lambda o: o.encrypt(big.view[:1 << 30]),
               lambda o: o.seek(0)),
    "aead": (ChaCha20_Poly1305.new(key=key, nonce=nonce), lambda o: o.update(big.view),
             lambda o: o.update(b"x")),
}
for name, (obj, long_call, short_call) in objs.items():
    t = threading.Thread(target=long_call, args=(obj,))
    t.start()
    for _ in range(1000):            # wait until the parent's thread is inside
        try:
            short_call(obj)
        except RuntimeError:
            break
        time.sleep(0.001)
    else:
        raise AssertionError(name + ": never busy")

    def child():
        short_call(obj)             # not "being used by another thread"

    fork_and_check(child)
    t.join()
print("OK")
'''
    assert_clean_exit(run_python(code, timeout=300))


def test_child_forked_during_set_backend_does_not_deadlock():
    code = FORK_CHILD + '''
held, release = threading.Event(), threading.Event()

def hold():
    with _dispatch._lock:
        held.set()
        release.wait()

t = threading.Thread(target=hold, daemon=True)
t.start()
held.wait()

def child():
    poly1305x.set_backend("portable")
    assert poly1305x.backend() == "portable"

fork_and_check(child)
release.set()
t.join()
print("OK")
'''
    assert_clean_exit(run_python(code, timeout=120))
