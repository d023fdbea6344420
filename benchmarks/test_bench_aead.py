"""ChaCha20, ChaCha20-Poly1305 and XChaCha20-Poly1305: poly1305x against
cryptography, pycryptodome and PyNaCl.

Groups ("<operation>-<size>", sizes 64 B to 1 MiB):

* ``aead``: one-shot encrypt with the AEAD object reused
  (``poly1305x.aead.ChaCha20Poly1305`` vs cryptography's), and PyNaCl's
  ``crypto_aead_chacha20poly1305_ietf_encrypt``; poly1305x on every backend;
* ``aead-new``: pycryptodome style ``new(key=, nonce=)``, ``update(aad)``,
  ``encrypt_and_digest``;
* ``aead-stream``: the same, the message fed in 4 KiB pieces;
* ``xchacha20-poly1305``: 24-byte nonce; poly1305x's AEAD object vs
  pycryptodome's ``new(...).encrypt_and_digest`` vs PyNaCl;
* ``chacha20``: the cipher alone, a new cipher object per message
  (cryptography: ``Cipher(algorithms.ChaCha20(key, nonce16), None).encryptor().update``);
* ``hpke-seal-100B``: one 100-byte seal with a fresh key, as HPKE does
  (``poly1305x._core._engine.chacha20poly1305_seal`` vs cryptography).
"""
import pytest

from benchmarks.conftest import params, run_case


@pytest.mark.parametrize("case,backend,size", params(["aead"], per_backend=["aead"]))
def test_aead_oneshot(benchmark, case, backend, size):
    run_case(benchmark, case, backend, size)


@pytest.mark.parametrize("case,backend,size", params(["aead-new"]))
def test_aead_new(benchmark, case, backend, size):
    run_case(benchmark, case, backend, size)


@pytest.mark.parametrize("case,backend,size", params(["aead-stream"]))
def test_aead_stream(benchmark, case, backend, size):
    run_case(benchmark, case, backend, size)


@pytest.mark.parametrize("case,backend,size", params(["xchacha20-poly1305"]))
def test_xchacha20_poly1305(benchmark, case, backend, size):
    run_case(benchmark, case, backend, size)


@pytest.mark.parametrize("case,backend,size", params(["chacha20"]))
def test_chacha20(benchmark, case, backend, size):
    run_case(benchmark, case, backend, size)


@pytest.mark.parametrize("case,backend,size", params(["hpke-seal"]))
def test_hpke_seal(benchmark, case, backend, size):
    run_case(benchmark, case, backend, size)


@pytest.mark.parametrize("case,backend,size", params(["hpke-key-seal"]))
def test_hpke_key_seal(benchmark, case, backend, size):
    run_case(benchmark, case, backend, size)


@pytest.mark.parametrize("case,backend,size", params(["ssh-packet-seal"]))
def test_ssh_packet_seal(benchmark, case, backend, size):
    run_case(benchmark, case, backend, size)
