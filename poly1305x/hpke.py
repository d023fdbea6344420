"""ChaCha20-Poly1305 as the AEAD of HPKE (RFC 9180) and MLS (RFC 9420).

Three ways in, fastest-to-set-up first:

* :func:`seal` / :func:`open` -- RFC 9180's ``Seal(key, nonce, aad, pt)`` and
  ``Open(key, nonce, aad, ct)``: one C call each, no object kept;
* :class:`ChaCha20Poly1305Key` -- a key object in pyhpke's shape
  (``seal(pt, nonce, aad=b"")`` / ``open(ct, nonce, aad=b"")``), for code that
  encrypts many messages under one key and builds its own nonces (MLS);
* :class:`Context` -- RFC 9180 section 5.2's encryption context: the nonce is
  ``base_nonce XOR I2OSP(seq, Nn)`` and ``seq`` advances after each success.

:func:`use_with_pyhpke` and :func:`use_with_rfc9180` make the
ChaCha20-Poly1305 suites of pyhpke and of rfc9180 run on poly1305x.  (For
pycryptodome's ``Crypto.Protocol.HPKE``, :func:`poly1305x.install` is enough;
for MLS with rfc9420 see :mod:`poly1305x.mls`.)

>>> from poly1305x import hpke
>>> base_nonce = bytes.fromhex("5c4d98150661b848853b547f")  # from the key schedule
>>> ctx = hpke.Context(bytes(32), base_nonce)
>>> ct = ctx.seal(b"header", b"hello")
>>> hpke.Context(bytes(32), base_nonce).open(b"header", ct)
b'hello'

MLS (RFC 9420 section 6.3.2) XORs a 4-byte ``reuse_guard`` into the first four
bytes of the nonce of each PrivateMessage; on top of :class:`ChaCha20Poly1305Key`
that is one integer XOR (a fixed guard here so the example is reproducible; a
sender draws it with ``os.urandom(4)``):

>>> key = hpke.ChaCha20Poly1305Key(bytes(range(32)))
>>> nonce = bytes(range(12))              # from the secret tree, per generation
>>> reuse_guard = bytes.fromhex("a1b2c3d4")
>>> guarded = (int.from_bytes(nonce, "big")
...            ^ int.from_bytes(reuse_guard, "big") << 64).to_bytes(12, "big")
>>> guarded.hex()
'a1b3c1d70405060708090a0b'
>>> ct = key.seal(b"application data", guarded, b"PrivateContentAAD")
>>> key.open(ct, guarded, b"PrivateContentAAD")
b'application data'
"""
from __future__ import annotations

import importlib as _importlib
import threading as _threading
from operator import index as _index
from typing import TYPE_CHECKING, Any, Final, NoReturn

from poly1305x._core._engine import ChaCha20Poly1305 as _AEAD
from poly1305x._core._engine import chacha20poly1305_open, chacha20poly1305_seal
from poly1305x._errors import InvalidTag
from poly1305x._peers import install_hint as _install_hint
from poly1305x._swap import Switch as _Switch

if TYPE_CHECKING:
    from typing_extensions import Buffer

# `seal` and `open` are left out of __all__ on purpose: a star import would
# otherwise shadow the builtin open().
__all__ = [
    "AEAD_ID", "NK", "NN", "NT", "ChaCha20Poly1305Key", "Context", "InvalidTag",
    "MessageLimitReachedError", "use_with_pyhpke", "use_with_rfc9180",
]

AEAD_ID: Final[int] = 0x0003  #: RFC 9180 AEAD identifier of ChaCha20Poly1305
NK: Final[int] = 32  #: key length in bytes
NN: Final[int] = 12  #: nonce length in bytes
NT: Final[int] = 16  #: tag length in bytes

_SEQ_LIMIT = (1 << (8 * NN)) - 1

#: ``seal(key, nonce, aad, pt) -> ct || tag`` (RFC 9180 argument order): one C
#: call, no object kept.  ValueError for a key other than 32 bytes or a nonce
#: other than 12.
seal = chacha20poly1305_seal

#: ``open(key, nonce, aad, ct) -> pt``: one C call, no object kept;
#: :class:`poly1305x.InvalidTag` when the tag does not verify.
open = chacha20poly1305_open  # noqa: A001 - RFC 9180's name


class MessageLimitReachedError(ValueError):
    """The context's sequence number reached ``2**96 - 1`` (RFC 9180 section
    5.2): no more messages may be sealed or opened with it."""


class ChaCha20Poly1305Key:
    """An HPKE AEAD key with the shape of pyhpke's key classes
    (``pyhpke.AEADKeyInterface``).

    :param key: 32 bytes (ValueError otherwise).

    One object may be shared between threads: it holds only the key."""

    __slots__ = ("_aead",)

    def __init__(self, key: Buffer) -> None:
        self._aead = _AEAD(key)

    def seal(self, pt: Buffer, nonce: Buffer, aad: Buffer = b"") -> bytes:
        """``ct || tag`` of ``pt`` under the 12-byte ``nonce``."""
        return self._aead.encrypt(nonce, pt, aad)

    def open(self, ct: Buffer, nonce: Buffer, aad: Buffer = b"") -> bytes:
        """The plaintext of ``ct || tag``; :class:`poly1305x.InvalidTag` (no
        plaintext) when the ciphertext, nonce, aad or key is wrong."""
        return self._aead.decrypt(nonce, ct, aad)

    @property
    def backend(self) -> str:
        """Name of the poly1305x kernel backend this key computes with."""
        return self._aead.backend


class Context:
    """RFC 9180 section 5.2 encryption context: ``seal(aad, pt)`` and
    ``open(aad, ct)`` with nonce ``base_nonce XOR I2OSP(seq, Nn)``.

    ``seq`` advances only when a call succeeds (a failed :meth:`open` leaves it
    where it was, so the right ciphertext can still be opened).  Once it
    reaches ``2**96 - 1`` every call raises :class:`MessageLimitReachedError`
    and nothing is encrypted or released.  One context may be shared between
    threads: each :meth:`seal` claims its sequence number atomically before it
    encrypts (N concurrent seals use N distinct nonces and leave ``seq`` at
    N), and opens run one at a time (see :meth:`open`).

    A context cannot be copied or pickled (TypeError): two copies would seal
    different messages with the same nonce under the same key.

    :param key: 32 bytes.
    :param base_nonce: 12 bytes, as a bytes-like object (``bytes``,
        ``bytearray``, ``memoryview``...): TypeError for anything else (an
        ``int``, a ``str``, a list), ValueError for another length or for
        twelve zero bytes (a placeholder, never a derived ``base_nonce``).
    :param seq: the sequence number to start at (``0`` for a fresh context).
    """

    __slots__ = ("_aead", "_base", "_seq", "_lock")

    def __init__(self, key: Buffer, base_nonce: Buffer, seq: int = 0) -> None:
        try:
            view = memoryview(base_nonce)
        except TypeError:
            raise TypeError("HPKE base_nonce must be a bytes-like object, not "
                            f"{type(base_nonce).__name__}") from None
        with view:
            nbytes = view.nbytes
            if nbytes != NN:
                raise ValueError(f"HPKE base_nonce must be {NN} bytes, not {nbytes}")
            base = int.from_bytes(view.tobytes(), "big")
        if base == 0:
            # RFC 9180 derives base_nonce with HKDF: all-zero output has
            # probability 2**-96, so zeros mean an unfilled buffer or bytes(12).
            raise ValueError("HPKE base_nonce is all zeros: pass the base_nonce "
                             "the key schedule derived")
        self._aead = _AEAD(key)
        self._base = base
        self._lock = _threading.Lock()     # guards _seq (see seal and open)
        self._seq = 0
        self.seq = seq

    def _refuse_copy(self, *args: Any) -> NoReturn:
        raise TypeError("an HPKE Context cannot be copied or pickled: two copies "
                        "would seal with the same nonces under the same key")

    __copy__ = __deepcopy__ = __reduce__ = __reduce_ex__ = _refuse_copy

    @property
    def seq(self) -> int:
        """The sequence number the next call uses; settable (``0`` to
        ``2**96 - 1``), e.g. to resume a context or skip lost messages."""
        return self._seq

    @seq.setter
    def seq(self, value: int) -> None:
        value = _index(value)
        if not 0 <= value <= _SEQ_LIMIT:
            raise ValueError(f"HPKE sequence number must be in [0, 2**96 - 1], not {value}")
        with self._lock:
            self._seq = value

    @property
    def base_nonce(self) -> bytes:
        return self._base.to_bytes(NN, "big")

    def compute_nonce(self, seq: int) -> bytes:
        """RFC 9180 ``ComputeNonce(seq)``: ``base_nonce XOR I2OSP(seq, Nn)``."""
        seq = _index(seq)
        if not 0 <= seq <= _SEQ_LIMIT:
            raise ValueError(f"HPKE sequence number must be in [0, 2**96 - 1], not {seq}")
        return (self._base ^ seq).to_bytes(NN, "big")

    def seal(self, aad: Buffer, pt: Buffer) -> bytes:
        """``ct || tag`` of ``pt`` at the current ``seq``, then ``seq += 1``.

        Thread-safe: the sequence number is claimed under the context's lock
        before encryption starts (the lock is not held while encrypting), so
        concurrent seals get distinct nonces.  A seal that raises gives its
        number back when no later one was claimed meanwhile."""
        with self._lock:
            seq = self._seq
            if seq >= _SEQ_LIMIT:
                raise MessageLimitReachedError("HPKE message limit reached (seq = 2**96 - 1)")
            self._seq = seq + 1
        try:
            return self._aead.encrypt((self._base ^ seq).to_bytes(12, "big"), pt, aad)
        except BaseException:
            # Nothing was sealed at seq: hand it back, unless another thread
            # has claimed seq + 1 since (then a gap, never a reuse).
            with self._lock:
                if self._seq == seq + 1:
                    self._seq = seq
            raise

    def open(self, aad: Buffer, ct: Buffer) -> bytes:
        """The plaintext of ``ct`` at the current ``seq``, then ``seq += 1``;
        :class:`poly1305x.InvalidTag` (``seq`` unchanged) when it does not
        verify.

        Thread-safe: opens on one context run one at a time (the lock is held
        across the decryption).  As in RFC 9180 and rfc9180, a failed open
        does not consume its number; claiming the number before decrypting
        would let a concurrent open take ``seq + 1`` first, and the failure
        would then leave a gap that desynchronises the two sides."""
        with self._lock:
            seq = self._seq
            if seq >= _SEQ_LIMIT:
                raise MessageLimitReachedError("HPKE message limit reached (seq = 2**96 - 1)")
            pt = self._aead.decrypt((self._base ^ seq).to_bytes(12, "big"), ct, aad)
            self._seq = seq + 1
            return pt

    @property
    def backend(self) -> str:
        """Name of the poly1305x kernel backend this context computes with."""
        return self._aead.backend


# ---------------------------------------------------------------------------
# pyhpke integration.  pyhpke's AEAD.import_key() calls
# pyhpke.aead_key.AEADKey.from_bytes(), which looks the name
# ChaCha20Poly1305Key up in the pyhpke.aead_key module at call time; swapping
# that one binding routes every ChaCha20-Poly1305 context created afterwards
# through poly1305x.  pyhpke's own files are not touched.

_pyhpke_switch = _Switch()  # our class in pyhpke.aead_key, and back


def use_with_pyhpke(enable: bool = True) -> bool:
    """Make pyhpke's ChaCha20-Poly1305 suites (AEAD id 0x0003) run on poly1305x
    (``enable=True``) or on pyhpke's own ``cryptography`` backend again
    (``enable=False``).  Affects contexts created afterwards; idempotent.

    Returns whether poly1305x was in use before the call.  ImportError when
    pyhpke is not installed (``pip install 'poly1305x[hpke]'``)."""
    # pyhpke's side (its import, the class over its AEADKeyInterface)
    peer = _importlib.import_module("poly1305x._pyhpke_peer")
    with _pyhpke_switch.lock:
        return _pyhpke_switch.set(enable, lambda: [
            (peer.AEAD_KEY_MODULE, "ChaCha20Poly1305Key", peer.PyHPKEChaCha20Poly1305Key)])


# ---------------------------------------------------------------------------
# rfc9180 integration: rfc9180's side (its import, AEADBase._get_cipher, the
# serialising Context.seal and open) is poly1305x._rfc9180_peer.

_rfc9180_switch = _Switch()  # our AEADBase._get_cipher, and back


def use_with_rfc9180(enable: bool = True) -> bool:
    """Make rfc9180's ChaCha20-Poly1305 suites (AEAD id 0x0003) run on
    poly1305x (``enable=True``) or on rfc9180's own ``cryptography`` backend
    again (``enable=False``).  Affects ``rfc9180.HPKE`` objects created
    afterwards (each builds its AEAD once); idempotent.  rfc9420's default MLS
    provider builds its HPKE through rfc9180, so this switch reaches it too.

    rfc9180's contexts on poly1305x serialise their seal and open on a lock
    of their own (rfc9180 reads ``seq``, encrypts, then stores ``seq + 1``),
    so threads sharing one of them never reuse a nonce.

    Returns whether poly1305x was in use before the call.  ImportError when
    rfc9180 is not installed (``pip install 'poly1305x[rfc9180]'``)."""
    peer = _importlib.import_module("poly1305x._rfc9180_peer")
    with _rfc9180_switch.lock:
        if enable:
            peer.wrap_context()
        return _rfc9180_switch.set(enable, peer.bindings)
