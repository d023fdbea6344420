"""Placed by .ci/peer-suites.sh at the root of a peer's unpacked sdist, beside
its tests/ (none of its files changed).  $POLY1305X_PEER is "paramiko" or
"asyncssh"; $POLY1305X_PEER_PASS says which pass:

* "poly1305x": use_with_paramiko()/use_with_asyncssh(), with
  chacha20-poly1305@openssh.com preferred, and the packets poly1305x seals
  counted (written to $POLY1305X_PEER_COUNT at exit);
* "control": the same preference on the peer's own code, without poly1305x
  (paramiko has no chacha: its own AEAD, aes128-gcm@openssh.com): tests that
  fail here fail because of the preference, not because of poly1305x.
"""
import os

CHACHA = "chacha20-poly1305@openssh.com"
SEALED = [0]


def _counted(fn):
    def seal(*args):
        SEALED[0] += 1
        return fn(*args)
    return seal


def _prefer(algs, name):
    return (name,) + tuple(a for a in algs if a != name)


def pytest_configure(config):
    peer, mode = os.environ["POLY1305X_PEER"], os.environ["POLY1305X_PEER_PASS"]
    if peer == "paramiko":
        import paramiko
        T = paramiko.Transport
        if mode == "poly1305x":
            from poly1305x import openssh
            from poly1305x.openssh import _paramiko

            class CountingPacketCipher(_paramiko.PacketCipher):
                seal = _counted(_paramiko.PacketCipher.seal)

            _paramiko.PacketCipher = CountingPacketCipher
            openssh.use_with_paramiko()     # chacha first in Transport._preferred_ciphers
            assert T._preferred_ciphers[0] == CHACHA
        else:
            T._preferred_ciphers = _prefer(T._preferred_ciphers, "aes128-gcm@openssh.com")
    elif peer == "asyncssh":
        import asyncssh.encryption as enc
        name = CHACHA.encode()
        if mode == "poly1305x":
            from poly1305x import openssh
            openssh.use_with_asyncssh()
            shim = enc._enc_params[name][0]
            shim.encrypt_packet = _counted(shim.encrypt_packet)
        for algs in (enc._enc_algs, enc._default_enc_algs):     # chacha first
            algs[:] = _prefer(algs, name)
    else:
        raise ValueError(f"POLY1305X_PEER: unknown peer {peer!r}")


def pytest_unconfigure(config):
    if os.environ["POLY1305X_PEER_PASS"] == "poly1305x":
        with open(os.environ["POLY1305X_PEER_COUNT"], "w") as f:
            f.write(str(SEALED[0]))
