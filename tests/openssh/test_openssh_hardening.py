"""Hostile DSA parameters in key files, and the
command line without a terminal, with an endless passphrase descriptor, and
with a passphrase that is not UTF-8.  The command line runs in a subprocess."""
import os
import struct
import subprocess

import pytest

from poly1305x import openssh
from poly1305x.openssh import _keys, _wire
from poly1305x.openssh._wire import WRONG_PASSPHRASE
from tests.support.helpers import openssh_cli as cli

U32 = struct.Struct(">I")


def mpint(v):
    body = v.to_bytes((v.bit_length() + 8) // 8, "big") if v else b""
    return _wire.string(body)


def unencrypted_key(ktype, public_parts, private_parts, comment=b"hostile"):
    """An unencrypted openssh-key-v1 PEM from encoded fields."""
    name = _wire.string(ktype)
    pub = name + b"".join(public_parts)
    sec = bytearray(U32.pack(0x01020304) * 2 + name + b"".join(private_parts)
                    + _wire.string(comment))
    i = 1
    while len(sec) % 8:
        sec.append(i)
        i += 1
    blob = (_wire.MAGIC + _wire.string(b"none") + _wire.string(b"none") + _wire.string(b"")
            + U32.pack(1) + _wire.string(pub) + _wire.string(bytes(sec)))
    return _wire.armour(blob)


def dsa_key(p, q, g, y, x):
    public = [mpint(v) for v in (p, q, g, y)]
    return unencrypted_key(b"ssh-dss", public, public + [mpint(x)])


def test_huge_dsa_parameters_refused():
    """The reproducer: 16384-bit p, q, g, y and x (a 19 KB file; 8-9 s per
    key_info() before).  Refused by the size bound before any arithmetic."""
    p = (1 << 16383) | 1
    q = (1 << 16383) | 3
    g, y, x = ((1 << 16382) | k for k in (7, 9, 5))
    pem = dsa_key(p, q, g, y, x)
    assert len(pem) > 19000
    for call in (openssh.key_info, openssh.decrypt, openssh.public_key_line):
        with pytest.raises(ValueError, match="must be 1024 and 160 bits"):
            call(pem)


@pytest.mark.parametrize("pbits,qbits", [(2048, 256), (1023, 160), (1024, 161), (1024, 159),
                                         (3072, 256)])
def test_dsa_sizes_other_than_openssh_refused(pbits, qbits):
    p = (1 << (pbits - 1)) | 1
    q = (1 << (qbits - 1)) | 1
    with pytest.raises(ValueError, match="DSA p and q"):
        openssh.key_info(dsa_key(p, q, 2, 3, 1))


def test_dsa_ranges_checked():
    p = (1 << 1023) | 1
    q = (1 << 159) | 1
    # g and y are public (the public section's message); x is secret: the
    # one post-decryption message
    for g, y, x, what in ((1, 3, 1, "g or y"), (p, 3, 1, "g or y"), (2, p + 1, 1, "g or y"),
                          (2, 3, 0, WRONG_PASSPHRASE), (2, 3, q, WRONG_PASSPHRASE)):
        with pytest.raises(ValueError, match=what):
            openssh.decrypt(dsa_key(p, q, g, y, x))


def test_key_info_runs_no_consistency_check(monkeypatch):
    """key_info() reads the comment of an unencrypted key without the
    (possibly costly) private/public consistency check; decrypt() runs it."""
    p = (1 << 1023) | 1
    q = (1 << 159) | 1
    pem = dsa_key(p, q, 2, 3, 7)            # y != g^x: inconsistent
    info = openssh.key_info(pem)
    assert info["bits"] == 1024 and info["comment"] == "hostile"
    with pytest.raises(ValueError, match=WRONG_PASSPHRASE):
        openssh.decrypt(pem)

    def boom(v):
        raise AssertionError("key_info ran a consistency check")

    for kt in _keys.KEY_TYPES.values():
        monkeypatch.setattr(kt, "consistent", boom)
    assert openssh.key_info(pem)["type"] == "ssh-dss"


def test_ssh_keygen_dsa_key_still_accepted(tmp_path):
    path = tmp_path / "id_dsa"
    r = subprocess.run(["ssh-keygen", "-q", "-t", "dsa", "-N", "", "-C", "d", "-f", str(path)],
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    pem = path.read_bytes()
    assert openssh.key_info(pem)["bits"] == 1024
    assert openssh.decrypt(pem) == pem
    assert type(openssh.load_private_key(pem)).__name__ == "DsaKey"


# ---------------------------------------------------------------------------
# The command line (in a subprocess, without a controlling terminal)
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def keyfiles(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    plain = root / "plain"
    r = subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "c",
                        "-f", str(plain)], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    enc = root / "enc"
    enc.write_bytes(openssh.encrypt(plain.read_bytes(), b"\xff\xfe raw \x80", rounds=1))
    return root, plain, enc


@pytest.mark.parametrize("command", [["decrypt", "{enc}", "-o", "{out}"],
                                     ["encrypt", "{plain}", "-o", "{out}"],
                                     ["info", "{enc}", "--check"]])
def test_cli_no_tty_stdin_at_eof(keyfiles, command):
    root, plain, enc = keyfiles
    out = root / "out-eof"
    args = [a.format(enc=enc, plain=plain, out=out) for a in command]
    r = cli(*args)
    assert r.returncode == 1, r.stderr
    assert r.stderr.decode().strip().splitlines()[-1].startswith("error: no passphrase")
    assert b"Traceback" not in r.stderr
    assert not out.exists()


def test_cli_passphrase_fd_is_bounded(keyfiles):
    """--passphrase-fd on /dev/zero: an error after a few KiB, not gigabytes."""
    root, plain, enc = keyfiles
    fd = os.open("/dev/zero", os.O_RDONLY)
    try:
        r = cli("decrypt", str(enc), "-o", str(root / "out-zero"), "--passphrase-fd", str(fd),
                pass_fds=(fd,))
    finally:
        os.close(fd)
    assert r.returncode == 1 and b"longer than 8192 bytes" in r.stderr, r.stderr
    assert b"Traceback" not in r.stderr
    assert not (root / "out-zero").exists()


def test_cli_passphrase_fd_long_line_without_newline(keyfiles):
    root, plain, enc = keyfiles
    rfd, wfd = os.pipe()
    try:
        os.write(wfd, b"x" * 9000)
        os.close(wfd)
        r = cli("decrypt", str(enc), "-o", str(root / "out-long"), "--passphrase-fd",
                str(rfd), pass_fds=(rfd,))
    finally:
        os.close(rfd)
    assert r.returncode == 1 and b"longer than 8192" in r.stderr, r.stderr


def test_cli_passphrase_fd_exact_bytes(keyfiles):
    root, plain, enc = keyfiles
    rfd, wfd = os.pipe()
    try:
        os.write(wfd, b"\xff\xfe raw \x80\r\nrest")
        os.close(wfd)
        out = root / "out-fd"
        r = cli("decrypt", str(enc), "-o", str(out), "--passphrase-fd", str(rfd),
                pass_fds=(rfd,))
    finally:
        os.close(rfd)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == plain.read_bytes()


def test_cli_passphrase_env_not_utf8(keyfiles):
    """The environment variable's raw bytes are the passphrase."""
    root, plain, enc = keyfiles
    out = root / "out-env"
    r = cli("decrypt", str(enc), "-o", str(out), "--passphrase-env", "KEYPASS",
            env={b"KEYPASS": b"\xff\xfe raw \x80"})
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == plain.read_bytes()
    r = cli("info", str(enc), "--check", "--passphrase-env", "KEYPASS",
            env={b"KEYPASS": b"\xff\xfe raw \x80"})
    assert r.returncode == 0 and b"check:" in r.stdout, r.stderr
    # and encrypt with it: ssh-keygen agrees on the bytes
    out2 = root / "enc-env"
    r = cli("encrypt", str(plain), "-o", str(out2), "-a", "1", "--passphrase-env", "KEYPASS",
            env={b"KEYPASS": b"\xc3 not utf-8 \xff"})
    assert r.returncode == 0, r.stderr
    assert openssh.decrypt(out2.read_bytes(), b"\xc3 not utf-8 \xff") == plain.read_bytes()
    r = cli("decrypt", str(enc), "-o", str(root / "x"), "--passphrase-env", "UNSET_VAR_H19")
    assert r.returncode == 1 and b"is not set" in r.stderr
