"""pytest plugin for tests/support/peer_sdist.py: plug poly1305x into a peer library
before its own test suite is collected, count the calls that reach
poly1305x, and write the counts to $POLY1305X_PEER_REPORT at the end.

$POLY1305X_PEER says which integration:

* ``rfc9180``: ``poly1305x.hpke.use_with_rfc9180()``;
* ``rfc9420``: every ``DefaultCryptoProvider(suite)`` the suite creates is a
  ``poly1305x.mls.CryptoProvider`` wrapping rfc9420's own provider;
* ``cryptography``: ``poly1305x.install("cryptography")``, the calls of the
  classes it serves counted by method;
* ``aioquic``: ``poly1305x.quic.use_with_aioquic()``, the packets poly1305x
  protects (quic_seal), opens (quic_open) and whose headers it masks (quic_hp).
"""
import json
import os

from poly1305x import hpke, mls, quic

COUNTS = {"aead_objects": 0, "mls_seal": 0, "mls_open": 0, "mls_hpke": 0,
          "quic_seal": 0, "quic_open": 0, "quic_hp": 0}
SERVED_METHODS = {"ChaCha20Poly1305": ("__init__", "encrypt", "decrypt", "encrypt_into",
                                       "decrypt_into"),
                  "Poly1305": ("__init__", "update", "finalize", "verify", "generate_tag",
                               "verify_tag")}


def count_served(counts):
    """Count, in ``counts`` (by "Class.method"), the calls of the classes that
    install("cryptography") serves.  They are heap classes: a method set on
    them reaches code that bound the class before."""
    from poly1305x import _install_cryptography as served

    def counted(key, fn, static):
        def method(*args, **kwargs):
            counts[key] = counts.get(key, 0) + 1
            return fn(*args, **kwargs)
        return staticmethod(method) if static else method

    for cls_name, methods in SERVED_METHODS.items():
        cls = getattr(served, cls_name)
        for name in methods:
            static = isinstance(cls.__dict__.get(name, vars(cls.__mro__[1]).get(name)),
                                staticmethod)
            setattr(cls, name, counted(f"{cls_name}.{name}", getattr(cls, name), static))


def _counted(counter, fn):
    def wrapper(*args):
        COUNTS[counter] += 1
        return fn(*args)
    return wrapper


def count_quic(counts):
    """Count, in ``counts``, the packets that poly1305x.quic's objects
    protect, open and mask (the switch builds them from these names)."""
    from poly1305x import quic as q

    class CountingAEAD(q.QuicChaCha20AEAD):
        def encrypt(self, data, associated_data, packet_number):
            counts["quic_seal"] += 1
            return super().encrypt(data, associated_data, packet_number)

        def decrypt(self, data, associated_data, packet_number):
            counts["quic_open"] += 1
            return super().decrypt(data, associated_data, packet_number)

    class CountingHP(q.QuicChaCha20HeaderProtection):
        def apply(self, plain_header, protected_payload):
            counts["quic_hp"] += 1
            return super().apply(plain_header, protected_payload)

        def remove(self, packet, pn_offset):
            counts["quic_hp"] += 1
            return super().remove(packet, pn_offset)

    q.QuicChaCha20AEAD, q.QuicChaCha20HeaderProtection = CountingAEAD, CountingHP


def pytest_configure(config):
    peer = os.environ["POLY1305X_PEER"]
    if peer == "rfc9180":
        from poly1305x import _rfc9180_peer
        _rfc9180_peer._AEAD = _counted("aead_objects", _rfc9180_peer._AEAD)
        hpke.use_with_rfc9180()
    elif peer == "rfc9420":
        import rfc9420
        import rfc9420.backends
        import rfc9420.backends.crypto
        import rfc9420.backends.crypto.default_hpke as default_hpke

        original = default_hpke.DefaultCryptoProvider

        def provider(suite_id=original.__init__.__defaults__[0]):
            return mls.CryptoProvider(suite_id, base=original(suite_id))

        for module in (default_hpke, rfc9420, rfc9420.backends, rfc9420.backends.crypto):
            module.DefaultCryptoProvider = provider
        mls._seal = _counted("mls_seal", mls._seal)
        mls._open = _counted("mls_open", mls._open)
        mls._AEAD = _counted("mls_hpke", mls._AEAD)
    elif peer == "cryptography":
        import poly1305x
        assert "cryptography" in str(poly1305x.install("cryptography"))
        count_served(COUNTS)
    elif peer == "aioquic":
        count_quic(COUNTS)
        quic.use_with_aioquic()
    else:
        raise ValueError(f"POLY1305X_PEER: unknown peer {peer!r}")


def pytest_unconfigure(config):
    with open(os.environ["POLY1305X_PEER_REPORT"], "w") as f:
        json.dump(COUNTS, f)
