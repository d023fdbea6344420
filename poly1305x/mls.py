"""A crypto provider for rfc9420 (MLS, RFC 9420) whose ChaCha20-Poly1305 is
poly1305x.

rfc9420 takes its cryptography from a *crypto provider*: any object with the
methods of ``rfc9420.providers.crypto.CryptoProviderProtocol``
(``aead_encrypt``, ``hpke_seal``, ``sign``...).  :class:`CryptoProvider` is
one.  For the cipher suites whose AEAD is ChaCha20-Poly1305 (``0x0003``
``MLS_128_DHKEMX25519_CHACHA20POLY1305_SHA256_Ed25519`` and ``0x0006``
``MLS_256_DHKEMX448_CHACHA20POLY1305_SHA512_Ed448``) it does

* the AEAD of the message layer (PrivateMessage content and sender data, the
  GroupInfo in a Welcome) with poly1305x, and
* the HPKE of the Welcome and of UpdatePath secrets with rfc9180, whose AEAD
  step is poly1305x.

Everything else -- the other suites, hashing, HKDF, signatures, key
generation, HPKE export -- goes to a wrapped provider, by default rfc9420's
``DefaultCryptoProvider`` for the same suite.  Errors are the ones the
default provider raises: rfc9180's ``OpenError`` from :meth:`aead_decrypt`,
``cryptography``'s ``InvalidTag`` from :meth:`hpke_open`, so rfc9420's error
handling is unchanged, and no plaintext is returned for a forged message.

Pass it wherever rfc9420 takes a crypto provider, for example in a group's
configuration::

    from rfc9420 import GroupConfig, MemoryStorageProvider
    from poly1305x.mls import CryptoProvider

    config = GroupConfig(crypto_provider=CryptoProvider(0x0003),
                         storage_provider=MemoryStorageProvider())
    # MLSGroupSession.create_with_config(config, group_id, key_package), ...

rfc9420 is optional (``pip install 'poly1305x[mls]'``); it is imported when a
provider is created.
"""
from __future__ import annotations

import types as _types
from typing import TYPE_CHECKING, Any, FrozenSet, Optional, Tuple, cast

from poly1305x._core._dispatch import backend as _backend
from poly1305x._core._engine import ChaCha20Poly1305 as _AEAD
from poly1305x._core._engine import chacha20poly1305_open as _open
from poly1305x._core._engine import chacha20poly1305_seal as _seal
from poly1305x._errors import InvalidTag as _InvalidTag
from poly1305x._peers import install_hint as _install_hint

if TYPE_CHECKING:
    from typing_extensions import Buffer

__all__ = ["CHACHA20POLY1305_SUITES", "CryptoProvider"]

#: MLS cipher suites whose AEAD (and HPKE AEAD) is ChaCha20-Poly1305.
CHACHA20POLY1305_SUITES: FrozenSet[int] = frozenset({0x0003, 0x0006})

_CHACHA20POLY1305 = 0x0003  # the AEAD id, in MLS's and in RFC 9180's registry


def _rfc9420() -> Tuple[Any, Any, Any, Any]:
    try:
        from rfc9180 import HPKE
        from rfc9180.exceptions import OpenError
        from rfc9420.backends.crypto.default_hpke import DefaultCryptoProvider
        from cryptography.exceptions import InvalidTag
    except ImportError as exc:
        raise ImportError(
            "poly1305x.mls.CryptoProvider needs rfc9420: " + _install_hint("mls")) from exc
    return HPKE, OpenError, DefaultCryptoProvider, InvalidTag


_Sealed = Tuple[bytes, bytes]  # HPKE seal: (kem_output, ciphertext)

_OWN = frozenset({"_base", "_hpke_class", "_open_error", "_invalid_tag"})


class _Delegated:
    """A method of CryptoProvider that calls the base provider's method of
    the same name (a descriptor: bound to the provider it is read from)."""

    def __init__(self, name: str) -> None:
        self.__name__ = self.__qualname__ = name
        self.__doc__ = f"The base provider's ``{name}``."

    def __set_name__(self, owner: type, name: str) -> None:
        self.__qualname__ = f"{owner.__qualname__}.{name}"

    def __get__(self, provider: Any, owner: Optional[type] = None) -> Any:
        return self if provider is None else _types.MethodType(self, provider)

    def __call__(self, provider: CryptoProvider, *args: Any, **kwargs: Any) -> Any:
        return getattr(provider._base, self.__name__)(*args, **kwargs)


class CryptoProvider:
    """An rfc9420 crypto provider whose ChaCha20-Poly1305 (AEAD and HPKE) runs
    on poly1305x.

    :param suite_id: the MLS cipher suite to start with (default ``0x0003``);
        any suite rfc9420 supports, as with its ``DefaultCryptoProvider``.
    :param base: the provider to delegate everything else to; by default
        ``rfc9420``'s ``DefaultCryptoProvider(suite_id)``.  It must follow
        ``set_ciphersuite`` (this object forwards the call to it).

    Attributes and methods not listed here are the base provider's.
    """

    def __init__(self, suite_id: int = _CHACHA20POLY1305, base: Optional[Any] = None) -> None:
        hpke, open_error, default, invalid_tag = _rfc9420()
        self._hpke_class = hpke
        self._open_error = open_error
        self._invalid_tag = invalid_tag
        self._base = default(suite_id) if base is None else base
        if base is not None:
            base.set_ciphersuite(suite_id)

    # -- the suite: held by the base provider --------------------------------

    @property
    def base(self) -> Any:
        """The provider everything but ChaCha20-Poly1305 is delegated to."""
        return self._base

    @property
    def supported_ciphersuites(self) -> Any:
        return self._base.supported_ciphersuites

    @property
    def active_ciphersuite(self) -> Any:
        return self._base.active_ciphersuite

    def set_ciphersuite(self, suite_id: int) -> None:
        self._base.set_ciphersuite(suite_id)

    @property
    def uses_poly1305x(self) -> bool:
        """Whether the active suite's AEAD is ChaCha20-Poly1305, so that this
        provider's AEAD and HPKE run on poly1305x."""
        return int(self._base.active_ciphersuite.aead) == _CHACHA20POLY1305

    @property
    def backend(self) -> str:
        """Name of the poly1305x kernel backend the AEAD computes with."""
        return _backend()

    def __getattr__(self, name: str) -> Any:
        # Only reached for names this class does not define: kdf_*, hash,
        # sign/verify, key generation, hpke_export_secret, expand_with_label...
        if name.startswith("__") or name in _OWN:
            raise AttributeError(name)
        return getattr(self._base, name)

    # -- AEAD (RFC 9420 section 6.3: message protection) ---------------------

    def aead_encrypt(self, key: Buffer, nonce: Buffer, plaintext: Buffer, aad: Buffer) -> bytes:
        """``ciphertext || tag`` (the default provider's argument order)."""
        if not self.uses_poly1305x:
            return cast(bytes, self._base.aead_encrypt(key, nonce, plaintext, aad))
        return _seal(key, nonce, aad, plaintext)

    def aead_decrypt(self, key: Buffer, nonce: Buffer, ciphertext: Buffer,
                     aad: Buffer) -> bytes:
        """The plaintext; rfc9180's ``OpenError`` (as the default provider
        raises) when the tag does not verify, and no plaintext."""
        if not self.uses_poly1305x:
            return cast(bytes, self._base.aead_decrypt(key, nonce, ciphertext, aad))
        try:
            return _open(key, nonce, aad, ciphertext)
        except _InvalidTag as exc:
            raise self._open_error(f"Decryption failed: {exc}") from exc

    # -- HPKE (RFC 9420 section 5.1.3 EncryptWithLabel, Welcome, UpdatePath) -

    def _hpke(self) -> Any:
        cs = self._base.active_ciphersuite
        hpke = self._hpke_class(cs.kem, cs.kdf, cs.aead)
        # HPKE builds one AEADBase, shared with its setup and contexts; its
        # cipher factory is a plain attribute: key -> .encrypt/.decrypt object.
        hpke.aead.cipher = _AEAD
        return hpke

    def hpke_seal(self, public_key: bytes, info: bytes, aad: bytes,
                  ptxt: bytes) -> _Sealed:
        """HPKE base-mode seal: ``(kem_output, ciphertext)``."""
        if not self.uses_poly1305x:
            return cast(_Sealed, self._base.hpke_seal(public_key, info, aad, ptxt))
        return cast(_Sealed, self._hpke().seal_base(public_key, info, aad, ptxt))

    def hpke_open(self, private_key: bytes, kem_output: bytes, info: bytes, aad: bytes,
                  ctxt: bytes) -> bytes:
        """HPKE base-mode open; ``cryptography``'s ``InvalidTag`` (as the
        default provider raises) when it fails."""
        if not self.uses_poly1305x:
            return cast(bytes, self._base.hpke_open(private_key, kem_output, info, aad, ctxt))
        normalize = getattr(self._base, "_normalize_hpke_private_key", None)
        if normalize is not None:
            private_key = normalize(private_key)
        try:
            return cast(bytes, self._hpke().open_base(kem_output, private_key, info, aad, ctxt))
        except self._open_error as exc:
            raise self._invalid_tag("Decryption failed") from exc

    def hpke_seal_and_export(self, public_key: bytes, info: bytes, aad: bytes, ptxt: bytes,
                             export_label: bytes,
                             export_length: int) -> Tuple[bytes, bytes, bytes]:
        """HPKE base-mode seal plus an export from the sender's context:
        ``(kem_output, ciphertext, exported_secret)``."""
        if not self.uses_poly1305x:
            return cast(Tuple[bytes, bytes, bytes], self._base.hpke_seal_and_export(
                public_key, info, aad, ptxt, export_label, export_length))
        hpke = self._hpke()
        enc, ctx = hpke.setup.setup_base_sender(hpke._deserialize_public_key(public_key), info)
        ct = ctx.seal(aad, ptxt)
        return enc, ct, ctx.export(export_label, export_length)

    # -- the rest of rfc9420's CryptoProviderProtocol: the base provider's -----
    # Plain methods, not left to __getattr__: Python 3.12+ checks a
    # runtime-checkable protocol with static attribute lookup, which
    # __getattr__ does not answer, so without these isinstance(provider,
    # CryptoProviderProtocol) would be False there.
    aead_key_size = _Delegated("aead_key_size")
    aead_nonce_size = _Delegated("aead_nonce_size")
    derive_key_pair = _Delegated("derive_key_pair")
    derive_secret = _Delegated("derive_secret")
    expand_with_label = _Delegated("expand_with_label")
    generate_key_pair = _Delegated("generate_key_pair")
    hash = _Delegated("hash")
    hmac_sign = _Delegated("hmac_sign")
    hmac_verify = _Delegated("hmac_verify")
    hpke_export_secret = _Delegated("hpke_export_secret")
    kdf_expand = _Delegated("kdf_expand")
    kdf_extract = _Delegated("kdf_extract")
    kdf_hash_len = _Delegated("kdf_hash_len")
    kem_pk_size = _Delegated("kem_pk_size")
    kem_sk_ikm_min_size = _Delegated("kem_sk_ikm_min_size")
    sign = _Delegated("sign")
    sign_with_label = _Delegated("sign_with_label")
    verify = _Delegated("verify")
    verify_with_label = _Delegated("verify_with_label")
