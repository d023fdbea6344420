"""use_with_paramiko()'s enable/disable contract: it changes paramiko's
Transport and Packetizer and restores exactly what it found, is idempotent,
and refuses (changing nothing) a paramiko whose internals it does not know."""
import paramiko  # a test-extra requirement: its absence fails, not skips
import pytest
from paramiko.ssh_exception import SSHException

from poly1305x import openssh
from tests.support.ssh_peers import CHACHA, PASS, keygen_keys  # noqa: F401 (fixture)


def _originals():
    T, PKey = paramiko.transport.Transport, paramiko.pkey.PKey
    return (T.__dict__["_cipher_info"], T.__dict__["_preferred_ciphers"],
            paramiko.packet.Packetizer.__dict__["send_message"],
            paramiko.packet.Packetizer.__dict__["read_message"],
            T.__dict__["preferred_ciphers"], PKey.__dict__["_read_private_key"],
            PKey.__dict__["from_path"],
            paramiko.ed25519key.Ed25519Key.__dict__["_parse_signing_key_data"])


def test_enable_disable_restores_exactly(keygen_keys):
    originals = _originals()
    T = paramiko.transport.Transport
    assert CHACHA not in T._preferred_ciphers
    with pytest.raises(SSHException):
        paramiko.Ed25519Key.from_private_key_file(keygen_keys["ed25519-chacha"][0], PASS)
    assert openssh.use_with_paramiko() is False
    on = _originals()
    assert T._preferred_ciphers[0] == CHACHA and CHACHA in T._cipher_info
    assert T._preferred_ciphers[1:] == originals[1]
    assert openssh.use_with_paramiko(True) is True          # idempotent
    assert _originals() == on and all(x is y for x, y in zip(_originals(), on))
    assert openssh.use_with_paramiko(False) is True
    assert all(x is y for x, y in zip(_originals(), originals))
    assert CHACHA not in T._cipher_info
    assert openssh.use_with_paramiko(False) is False
    assert all(x is y for x, y in zip(_originals(), originals))


def test_unsupported_internals_change_nothing(monkeypatch):
    originals = _originals()
    T = paramiko.transport.Transport
    monkeypatch.setattr(T, "_cipher_info", {k: dict(v, is_aead=False)
                                            for k, v in T._cipher_info.items()})
    with pytest.raises(RuntimeError, match="is not supported.*'is_aead'"):
        openssh.use_with_paramiko()
    monkeypatch.undo()
    P = paramiko.packet.Packetizer
    init = P.__init__

    def init_without_seqno(self, sock):
        init(self, sock)
        del self._Packetizer__sequence_number_in

    monkeypatch.setattr(P, "__init__", init_without_seqno)
    with pytest.raises(RuntimeError, match="__sequence_number_in"):
        openssh.use_with_paramiko()
    monkeypatch.undo()
    assert all(x is y for x, y in zip(_originals(), originals))
    assert openssh.use_with_paramiko(False) is False
