"""Poly1305 MAC: poly1305x against cryptography and pycryptodome.

Groups (one per size, 64 B to 1 MiB):

* ``poly1305-<size>``: the one-time-key MAC in one call:
  ``poly1305x.mac.Poly1305.generate_tag`` vs cryptography's ``generate_tag``
  vs pycryptodome's ``Poly1305_MAC(r, s, data).digest()``;
* ``poly1305-chacha20-<size>``: ``Poly1305.new(key=, cipher=ChaCha20,
  nonce=, data=).digest()``, poly1305x vs pycryptodome (the key pair comes
  from a ChaCha20 block, as in pycryptodome).  poly1305x runs twice: with its
  own ChaCha20 module, and with pycryptodome's ``Crypto.Cipher.ChaCha20``
  (``extra_info["variant"]``): the drop-in line, where only the Poly1305
  import changed;
* ``poly1305-aes-<size>``: the same call with ``cipher=AES`` and a 16-byte
  nonce (Poly1305-AES), poly1305x with pycryptodome's AES module and with
  cryptography's ``algorithms.AES``, vs pycryptodome.

poly1305x runs once per usable backend (``extra_info["backend"]``), except
for Poly1305-AES (the default backend: its cost is the AES call).
"""
import pytest

from benchmarks.conftest import params, run_case


@pytest.mark.parametrize("case,backend,size",
                         params(["poly1305", "poly1305-chacha20", "poly1305-aes"],
                                per_backend=["poly1305", "poly1305-chacha20"]))
def test_poly1305(benchmark, case, backend, size):
    run_case(benchmark, case, backend, size)
