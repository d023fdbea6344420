"""The one swap-and-restore helper (poly1305x._swap.Switch) behind install()
and every use_with_* switch."""
import threading
import types

import pytest

from poly1305x._swap import Switch
from tests.support.helpers import run_threads


def _target():
    mod = types.ModuleType("peer")
    mod.cipher = "theirs"
    return mod


def test_swap_and_restore_attribute_and_item():
    mod, table = _target(), {"ChaChaPoly": "theirs"}
    s = Switch()
    assert s.set(True, lambda: [(mod, "cipher", "ours"), (table, "ChaChaPoly", "ours")]) is False
    assert (mod.cipher, table["ChaChaPoly"]) == ("ours", "ours")
    assert s.intact() and s.value(0) == "theirs"
    assert s.set(True, lambda: pytest.fail("not called when in place")) is True
    assert s.set(False, list) is True
    assert (mod.cipher, table["ChaChaPoly"]) == ("theirs", "theirs")
    assert s.set(False, list) is False and not s.engaged()


def test_missing_bindings_are_deleted_again():
    class Base:
        attr = "inherited"

    class Sub(Base):
        pass

    table = {}
    s = Switch()
    s.swap([(Sub, "attr", "ours"), (table, "k", "ours")])
    assert Sub.attr == "ours" and table == {"k": "ours"}
    s.restore()
    assert "attr" not in vars(Sub) and Sub.attr == "inherited" and table == {}


def test_a_binding_rebound_by_someone_else_is_left_alone():
    mod = _target()
    s = Switch()
    s.set(True, lambda: [(mod, "cipher", "ours")])
    mod.cipher = "third party"
    assert not s.intact()
    s.set(False, list)
    assert mod.cipher == "third party"
    # enabling again records the third party's value as the one to restore
    assert s.set(True, lambda: [(mod, "cipher", "ours")]) is False
    s.set(False, list)
    assert mod.cipher == "third party"


def test_a_half_done_swap_is_undone():
    mod, table = _target(), {"k": "theirs"}

    def bindings():
        yield mod, "cipher", "ours"
        yield table, "k", "ours"
        raise RuntimeError("the peer changed shape")

    s = Switch()
    with pytest.raises(RuntimeError):
        s.set(True, bindings)
    assert (mod.cipher, table["k"], s.engaged()) == ("theirs", "theirs", False)


def test_bindings_are_read_under_the_lock():
    s = Switch()
    held = []
    s.set(True, lambda: held.append(s.lock._is_owned()) or [])
    assert held == [True]


def test_threads_toggling_leave_one_consistent_state():
    mod, table = _target(), {"k": "theirs"}
    s = Switch()
    errors = []
    barrier = threading.Barrier(8)

    def worker(i):
        try:
            barrier.wait()
            for j in range(300):
                s.set((i + j) % 2 == 0, lambda: [(mod, "cipher", "ours"), (table, "k", "ours")])
                with s.lock:
                    state = (mod.cipher, table["k"])
                assert state in (("ours", "ours"), ("theirs", "theirs")), state
        except BaseException as exc:
            errors.append(exc)

    run_threads(worker, 8)
    assert not errors, errors
    s.set(False, list)
    assert (mod.cipher, table["k"]) == ("theirs", "theirs")
