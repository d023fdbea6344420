"""pycryptodome self-tests that tests/faces/test_pycryptodome_suite.py does not run
with poly1305x installed: the one place to list them.

Only a test that reaches into pycryptodome's private internals (a
leading-underscore name such as ``ChaCha20._raw_chacha20_lib``) may be listed,
by its exact pytest node id (relative to site-packages, with the parameter
ids), with the reason.  A test of pycryptodome's public API is never listed
here: if it fails with poly1305x, that is a bug to fix.  Every entry must also
appear in docs/compatibility.md ("Deselected pycryptodome tests"), and the
suite fails if an entry matches no collected test (a stale entry).

Empty today: the private names that pycryptodome 4.4's tests use are mirrored
(see docs/compatibility.md, "Private names mirrored for pycryptodome's tests").
Example of the format::

    DESELECTED = {
        "Crypto/SelfTest/Cipher/test_ChaCha20.py::TestChaCha20Threads::"
        "test_threads_all_cores[portable]":
            "reads ChaCha20Cipher._threads (private)",
    }
"""

DESELECTED: dict = {}
