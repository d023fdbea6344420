"""``load_ssh_private_key``: cryptography's OpenSSH key loader, for every
cipher poly1305x can decrypt (cryptography itself reads aes256-ctr/cbc/gcm
only)."""
from poly1305x._errors import InvalidTag
from poly1305x._peers import install_hint
from poly1305x.openssh._container import (
    CIPHERS, DEFAULT_MAX_ROUNDS, WRONG_PASSPHRASE, parse_outer, unencrypted_pem,
)

_HINT = install_hint("openssh", "cryptography")


def _cryptography():
    try:
        from cryptography.exceptions import UnsupportedAlgorithm
        from cryptography.hazmat.primitives.serialization import load_ssh_private_key
    except ImportError:
        raise ImportError("poly1305x.openssh.load_ssh_private_key returns cryptography key "
                          f"objects and needs the 'cryptography' package: {_HINT}") from None
    return load_ssh_private_key, UnsupportedAlgorithm


def load_ssh_private_key(data, password=None, backend=None, *,
                         unsafe_skip_rsa_key_validation=False,
                         max_rounds=DEFAULT_MAX_ROUNDS):
    """Load an OpenSSH private key (``-----BEGIN OPENSSH PRIVATE KEY-----``) as
    a ``cryptography`` private-key object: a one-line swap for
    ``cryptography.hazmat.primitives.serialization.load_ssh_private_key``
    that also reads keys encrypted with ``chacha20-poly1305@openssh.com``
    (``ssh-keygen -Z chacha20-poly1305@openssh.com``), aes128/192-ctr,
    aes128/192-cbc and aes128-gcm, besides the three cryptography reads itself
    (aes256-ctr, aes256-cbc, aes256-gcm).

    Same signature, return types and exceptions as cryptography's function:
    ``data`` bytes-like, ``password`` bytes or None; TypeError when an
    encrypted key gets no password (or an unencrypted one gets one);
    ValueError for a wrong password or a damaged file (with an AEAD cipher,
    chacha20-poly1305 or AES-GCM, a wrong password raises
    :class:`poly1305x.InvalidTag`, which is both a ValueError and
    ``cryptography.exceptions.InvalidTag``, as cryptography raises for
    aes256-gcm); UnsupportedAlgorithm
    for a key type cryptography does not model.  ``max_rounds`` (keyword only,
    default 5000) bounds the bcrypt rounds an untrusted file may ask for.

    The decrypted key is handed to cryptography's own loader, so the result
    is exactly what cryptography builds from the same key saved unencrypted.
    ImportError, naming the extra, when ``cryptography`` is not installed."""
    crypto_load, UnsupportedAlgorithm = _cryptography()
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("data must be bytes-like")
    if password is not None and not isinstance(password, bytes):
        raise TypeError("password must be bytes")
    kwargs = {"unsafe_skip_rsa_key_validation": unsafe_skip_rsa_key_validation}
    try:
        f = parse_outer(data, max_rounds)
    except ValueError as exc:
        if str(exc).startswith("unsupported key type"):
            raise UnsupportedAlgorithm(str(exc)) from None
        raise
    if f.cipher == "none":
        return crypto_load(data, password, backend, **kwargs)
    if not password:
        raise TypeError("Key is password-protected, but password was not provided.")
    try:
        pem, _ = unencrypted_pem(data, password, max_rounds)
    except ValueError as exc:
        # cryptography reports a failed AEAD tag (aes256-gcm) as InvalidTag;
        # poly1305x's InvalidTag is that class and a ValueError at once.
        if CIPHERS[f.cipher][3] and str(exc) == WRONG_PASSPHRASE:
            raise InvalidTag(WRONG_PASSPHRASE) from None
        raise
    return crypto_load(pem, None, backend, **kwargs)
