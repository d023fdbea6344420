"""What ``python -m poly1305x bench`` and ``benchmarks/`` measure: one
``Case`` per library and operation, each making the callable one call of
which is timed (the timing itself is ``_bench``'s)."""
import importlib
import os
import re
from functools import partial
from poly1305x._tools import _bench_batch as _bb
from poly1305x._tools import _floor
from poly1305x._tools import _bench_clients as _bc

from poly1305x._tools._units import KiB, MiB, size_label, size_text  # noqa: F401
SIZES = (64, KiB, 16 * KiB, MiB)
SSH_SIZES = (64, 32768)
HPKE_SIZE = 100
STREAM_PIECE = 4 * KiB


_KEY = bytes(range(32))
_NONCE = bytes(range(12))
_NONCE16 = bytes(range(16))
_XNONCE = bytes(range(24))
_AAD = b"header: 16 bytes"


def _data(size):
    return os.urandom(size)


# Each maker takes the message size and returns a zero-argument callable that
# does one whole operation; for poly1305x it runs with the backend already set.
# A one-call operation is a functools.partial, not a lambda, for every library
# alike: a lambda's frame (~50 ns) would otherwise dominate the 64-byte cases.

def _poly_poly1305x(size):
    from poly1305x.mac import Poly1305
    data = _data(size)
    return partial(Poly1305.generate_tag, _KEY, data)


def _poly_cryptography(size):
    from cryptography.hazmat.primitives.poly1305 import Poly1305
    data = _data(size)
    return partial(Poly1305.generate_tag, _KEY, data)


def _poly_pycryptodome(size):
    from Crypto.Hash.Poly1305 import Poly1305_MAC
    r, s, data = _KEY[:16], _KEY[16:], _data(size)
    return lambda: Poly1305_MAC(r, s, data).digest()


def _polynew_poly1305x(size):
    from poly1305x import ChaCha20, Poly1305
    data = _data(size)
    return lambda: Poly1305.new(key=_KEY, cipher=ChaCha20, nonce=_NONCE, data=data).digest()


def _polynew_pycryptodome(size):
    from Crypto.Cipher import ChaCha20
    from Crypto.Hash import Poly1305
    data = _data(size)
    return lambda: Poly1305.new(key=_KEY, cipher=ChaCha20, nonce=_NONCE, data=data).digest()


def _polynew_dropin(size):
    # the drop-in line: only the Poly1305 import changed, the cipher is still
    # pycryptodome's own ChaCha20 module
    from Crypto.Cipher import ChaCha20
    from poly1305x import Poly1305
    data = _data(size)
    return lambda: Poly1305.new(key=_KEY, cipher=ChaCha20, nonce=_NONCE, data=data).digest()


def _polyaes(poly_module, cipher):
    """Poly1305-AES through ``poly_module.new``; ``cipher`` names the AES."""
    def maker(size):
        new = importlib.import_module(poly_module).new
        if cipher == "cryptography":
            from cryptography.hazmat.primitives.ciphers.algorithms import AES
        else:
            from Crypto.Cipher import AES
        data = _data(size)
        return lambda: new(key=_KEY, cipher=AES, nonce=_NONCE16, data=data).digest()
    return maker


def _aead_poly1305x(size):
    from poly1305x.aead import ChaCha20Poly1305
    a, data = ChaCha20Poly1305(_KEY), _data(size)
    return partial(a.encrypt, _NONCE, data, _AAD)


def _aead_cryptography(size):
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    a, data = ChaCha20Poly1305(_KEY), _data(size)
    return partial(a.encrypt, _NONCE, data, _AAD)


def _aead_pynacl(size):
    from nacl.bindings import crypto_aead_chacha20poly1305_ietf_encrypt as enc
    data = _data(size)
    return partial(enc, data, _AAD, _NONCE, _KEY)


def _aeadnew(module, nonce):
    def maker(size):
        new = importlib.import_module(module).new
        data = _data(size)

        def run():
            c = new(key=_KEY, nonce=nonce)
            c.update(_AAD)
            return c.encrypt_and_digest(data)
        return run
    return maker


def _stream(module):
    def maker(size):
        new = importlib.import_module(module).new
        buf = memoryview(_data(size))
        pieces = [buf[i:i + STREAM_PIECE] for i in range(0, size, STREAM_PIECE)]

        def run():
            c = new(key=_KEY, nonce=_NONCE)
            c.update(_AAD)
            for p in pieces:
                c.encrypt(p)
            return c.digest()
        return run
    return maker


def _xaead_poly1305x(size):
    from poly1305x.aead import XChaCha20Poly1305
    a, data = XChaCha20Poly1305(_KEY), _data(size)
    return partial(a.encrypt, _XNONCE, data, _AAD)


def _xaead_pynacl(size):
    from nacl.bindings import crypto_aead_xchacha20poly1305_ietf_encrypt as enc
    data = _data(size)
    return partial(enc, data, _AAD, _XNONCE, _KEY)


def _chacha(module):
    def maker(size):
        new = importlib.import_module(module).new
        data = _data(size)
        return lambda: new(key=_KEY, nonce=_NONCE).encrypt(data)
    return maker


def _chacha_cryptography(size):
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
    nonce16, data = bytes(4) + _NONCE, _data(size)
    return lambda: Cipher(algorithms.ChaCha20(_KEY, nonce16), None).encryptor().update(data)


def _hpke_poly1305x(size):
    from poly1305x._core._engine import chacha20poly1305_seal
    data = _data(size)
    return partial(chacha20poly1305_seal, _KEY, _NONCE, _AAD, data)


def _hpke_cryptography(size):
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    data = _data(size)
    return lambda: ChaCha20Poly1305(_KEY).encrypt(_NONCE, data, _AAD)


def _hpkekey_poly1305x(size):
    from poly1305x.hpke import ChaCha20Poly1305Key
    data = _data(size)
    return partial(ChaCha20Poly1305Key(_KEY).seal, data, _NONCE, _AAD)


def _hpkekey_pyhpke(size):
    # pyhpke's own key class (its default backend: cryptography), as pyhpke
    # builds it for aead_id 3
    from pyhpke.keys.chacha20_poly1305_key import ChaCha20Poly1305Key
    data = _data(size)
    return partial(ChaCha20Poly1305Key(_KEY).seal, data, _NONCE, _AAD)


_SSH_KEY64 = bytes(range(64))
_SSH_SEQ = 7


def _ssh_packet(size):
    """An SSH binary packet of `size` bytes: 4-byte length, then the rest."""
    return (size - 4).to_bytes(4, "big") + _data(size - 4)


def _ssh_poly1305x(size):
    from poly1305x.openssh import PacketCipher
    packet = _ssh_packet(size)
    return partial(PacketCipher(_SSH_KEY64).seal, _SSH_SEQ, packet)


def _ssh_asyncssh(size):
    # asyncssh's chacha20-poly1305@openssh.com (built on cryptography's
    # ChaCha20 and Poly1305): encrypt_and_sign(length field, rest, nonce)
    from asyncssh.crypto.chacha import ChachaCipher
    packet = _ssh_packet(size)
    cipher = ChachaCipher(_SSH_KEY64)
    nonce = _SSH_SEQ.to_bytes(8, "big")
    return partial(cipher.encrypt_and_sign, packet[:4], packet[4:], nonce)


class Case:
    """One library doing one operation; ``make(size)`` gives the callable.

    ``variant`` tells two ways of one library apart in the same operation (a
    row of its own, labelled with it); ``needs`` lists other libraries the
    call imports (pycryptodome's ChaCha20 module in the drop-in line)."""

    def __init__(self, operation, library, make, sizes=SIZES, variant=None, needs=()):
        self.operation, self.library, self.make, self.sizes = operation, library, make, sizes
        self.variant, self.needs = variant, tuple(needs)

    @property
    def ident(self):
        """library, and the variant as an identifier (pytest ids)."""
        if not self.variant:
            return self.library
        return self.library + "-" + "-".join(re.findall(r"[A-Za-z0-9]+", self.variant))

    def __repr__(self):
        extra = f", variant={self.variant!r}" if self.variant else ""
        return f"Case({self.operation!r}, {self.library!r}{extra})"


# operation -> what one call does
OPERATIONS = {
    "poly1305": "Poly1305 one-time-key MAC, one call "
                "(generate_tag; pycryptodome: Poly1305_MAC(r, s, data).digest())",
    "poly1305-chacha20": "Poly1305.new(key=, cipher=ChaCha20, nonce=, data=).digest() "
                         "(poly1305x: with its own ChaCha20, and with pycryptodome's: the "
                         "drop-in line that changes only the Poly1305 import)",
    "poly1305-aes": "Poly1305.new(key=, cipher=AES, nonce=16 B, data=).digest() (poly1305x: "
                    "with pycryptodome's AES module, and with cryptography's algorithms.AES)",
    "aead": "ChaCha20-Poly1305 encrypt, one call (AEAD object reused; PyNaCl: one function)",
    "aead-new": "ChaCha20_Poly1305.new(key=, nonce=) + update(aad) + encrypt_and_digest",
    "aead-stream": "ChaCha20_Poly1305.new(...) then encrypt() in 4 KiB pieces, digest()",
    "xchacha20-poly1305": "XChaCha20-Poly1305 encrypt, one call (pycryptodome: new() "
                          "+ encrypt_and_digest, its only way)",
    "chacha20": "ChaCha20 encrypt with a new cipher object per message",
    "hpke-seal": "ChaCha20-Poly1305 seal of 100 B with a fresh key object (HPKE style)",
    "hpke-key-seal": "HPKE AEAD key object's seal(pt, nonce, aad) of 100 B "
                     "(poly1305x.hpke vs pyhpke's own key class)",
    "ssh-packet-seal": "chacha20-poly1305@openssh.com seal of one SSH packet "
                       "(poly1305x.openssh.PacketCipher vs asyncssh)",
}

# The batch rows (_bench_batch.py): many messages a call, time per message,
# with their own summary (messages per second and the ratios to the loops).
BATCH_OPERATIONS = _bb.OPERATIONS
# The floor of one short call beside encrypt (_floor.py), with its summary.
FLOOR_OPERATIONS = _floor.OPERATIONS

CASES = [
    Case("poly1305", "poly1305x", _poly_poly1305x),
    Case("poly1305", "cryptography", _poly_cryptography),
    Case("poly1305", "pycryptodome", _poly_pycryptodome),
    Case("poly1305-chacha20", "poly1305x", _polynew_poly1305x),
    Case("poly1305-chacha20", "poly1305x", _polynew_dropin,
         variant="cipher=Crypto.Cipher.ChaCha20", needs=("pycryptodome",)),
    Case("poly1305-chacha20", "pycryptodome", _polynew_pycryptodome),
    Case("poly1305-aes", "poly1305x", _polyaes("poly1305x.Poly1305", "pycryptodome"),
         variant="cipher=Crypto.Cipher.AES", needs=("pycryptodome",)),
    Case("poly1305-aes", "poly1305x", _polyaes("poly1305x.Poly1305", "cryptography"),
         variant="cipher=cryptography AES", needs=("cryptography",)),
    Case("poly1305-aes", "pycryptodome", _polyaes("Crypto.Hash.Poly1305", "pycryptodome")),
    Case("aead", "poly1305x", _aead_poly1305x),
    Case("aead", "cryptography", _aead_cryptography),
    Case("aead", "pynacl", _aead_pynacl),
    Case("aead-new", "poly1305x", _aeadnew("poly1305x.ChaCha20_Poly1305", _NONCE)),
    Case("aead-new", "pycryptodome", _aeadnew("Crypto.Cipher.ChaCha20_Poly1305", _NONCE)),
    Case("aead-stream", "poly1305x", _stream("poly1305x.ChaCha20_Poly1305")),
    Case("aead-stream", "pycryptodome", _stream("Crypto.Cipher.ChaCha20_Poly1305")),
    Case("xchacha20-poly1305", "poly1305x", _xaead_poly1305x),
    Case("xchacha20-poly1305", "pycryptodome",
         _aeadnew("Crypto.Cipher.ChaCha20_Poly1305", _XNONCE)),
    Case("xchacha20-poly1305", "pynacl", _xaead_pynacl),
    Case("chacha20", "poly1305x", _chacha("poly1305x.ChaCha20")),
    Case("chacha20", "pycryptodome", _chacha("Crypto.Cipher.ChaCha20")),
    Case("chacha20", "cryptography", _chacha_cryptography),
    Case("hpke-seal", "poly1305x", _hpke_poly1305x, sizes=(HPKE_SIZE,)),
    Case("hpke-seal", "cryptography", _hpke_cryptography, sizes=(HPKE_SIZE,)),
    Case("hpke-key-seal", "poly1305x", _hpkekey_poly1305x, sizes=(HPKE_SIZE,)),
    Case("hpke-key-seal", "pyhpke", _hpkekey_pyhpke, sizes=(HPKE_SIZE,)),
    Case("ssh-packet-seal", "poly1305x", _ssh_poly1305x, sizes=SSH_SIZES),
    Case("ssh-packet-seal", "asyncssh", _ssh_asyncssh, sizes=SSH_SIZES),
]
CASES += _floor.cases(Case)
CASES += _bb.cases(Case)
# The client rows (_bench_clients.py): HAP and ESPHome frames, an aioquic packet.
CLIENT_OPERATIONS = _bc.OPERATIONS
CASES += _bc.cases(Case)

# Operations whose sizes are their own (not the 64 B .. 1 MiB ladder)
FIXED_SIZES = (("hpke-seal", "hpke-key-seal", "ssh-packet-seal") + tuple(FLOOR_OPERATIONS)
               + tuple(_bb.OPERATIONS) + tuple(_bc.OPERATIONS))

# What ``python -m poly1305x bench`` measures with no --operation: every
# one-call operation, the floor rows, then the batch rows (N = 1, 16, 64, 256 and the Noise
# consumer; about 25 s of a run of a few minutes).
BENCH_OPERATIONS = (tuple(OPERATIONS) + tuple(FLOOR_OPERATIONS) + tuple(BATCH_OPERATIONS)
                    + tuple(CLIENT_OPERATIONS))

# The quick default of ``python -m poly1305x``: the two one-shot operations.
QUICK_OPERATIONS = ("poly1305", "aead", "aead-new")
# Operations measured on every poly1305x backend in ``bench`` (others: the default).
PER_BACKEND_OPERATIONS = ("poly1305", "aead")


def cases(operations=None):
    return [c for c in CASES if operations is None or c.operation in operations]




def group_name(operation, size):
    """pytest-benchmark group of one operation at one size."""
    return f"{operation}-{size_label(size)}"
