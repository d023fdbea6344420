"""Terrapin and ``use_with_paramiko()`` (poly1305x.openssh._paramiko).

Terrapin (CVE-2023-48795) lets a man in the middle delete packets at the start
of an SSH connection, unseen, by shifting the sequence numbers during the
key exchange; chacha20-poly1305@openssh.com is the cipher it truncates
outright.  Strict key exchange (OpenSSH 9.6, paramiko 3.4: each side lists
``kex-strict-c-v00@openssh.com`` or ``kex-strict-s-v00@openssh.com`` in its
first KEXINIT, and both reset the sequence numbers at every NEWKEYS) closes it.

So with the adapter on, a transport negotiates the cipher only on a
connection where both sides do strict key exchange, unless the caller opted
in (``use_with_paramiko(allow_without_strict_kex=True)``):

* A transport that does not offer strict kex itself (``Transport(...,
  strict_kex=False)``) leaves the cipher out of its KEXINIT; so does one whose
  first key exchange ended without strict kex, at every re-key.  Either side
  doing so makes the two sides agree, by the usual rule, on the next cipher
  both offer: nothing else changes, whatever the peer runs.
* A transport that offers strict kex offers the cipher too (it cannot know
  the peer's answer before sending its own list).  If the peer then does not
  do strict kex and the usual rule still picks the cipher (a peer that offers
  it without strict kex: OpenSSH before 9.6, or a poly1305x peer that opted
  in), the peer has chosen it too and no other cipher can be agreed: the key
  exchange fails with paramiko's ``IncompatiblePeer`` naming the CVE.

The cipher lists go through ``Transport.preferred_ciphers`` both when a
KEXINIT is sent and when the peer's is parsed, so the one rule
(``offers_chacha``) serves both; ``Transport._parse_kex_init`` is wrapped for
the check after the choice (``_paramiko_peer._parse_kex_init``, with ``rule``
and ``CVE`` from here).
"""
from typing import Any, Final

from poly1305x.openssh._container import CHACHA as CIPHER

CVE: Final[str] = "CVE-2023-48795"


class _Rule:
    """The opt-in of the latest enabling call (read at each key exchange)."""
    allow_without_strict_kex = False


rule = _Rule()


def offers_chacha(transport: Any) -> bool:
    """Whether ``transport`` may offer and choose the cipher now: with the
    opt-in always; else, until its first key exchange is done, when it offers
    strict kex itself, and after that when strict kex was agreed."""
    if rule.allow_without_strict_kex:
        return True
    if not getattr(transport, "initial_kex_done", False):
        return bool(getattr(transport, "advertise_strict_kex", False))
    return bool(getattr(transport, "agreed_on_strict_kex", False))


def problems(paramiko: Any) -> list:
    """What this module needs of paramiko's Transport and does not find."""
    import inspect
    T = paramiko.transport.Transport
    out = []
    if not callable(getattr(T, "_parse_kex_init", None)):
        out.append("Transport._parse_kex_init is missing")
    try:
        if "strict_kex" not in inspect.signature(T.__init__).parameters:
            out.append("Transport() takes no strict_kex (no strict key exchange)")
    except (TypeError, ValueError):
        pass                                # reported by the caller's own check
    if not isinstance(getattr(paramiko.ssh_exception, "IncompatiblePeer", None), type):
        out.append("paramiko.ssh_exception has no IncompatiblePeer")
    return out
