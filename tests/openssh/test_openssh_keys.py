"""OpenSSH private-key files (poly1305x.openssh): real keys made by ssh-keygen
during the run (tests/openssh/keyfiles.py), checked against ssh-keygen itself,
cryptography and asyncssh; the command line.  Damaged inputs are in
test_openssh_keys_damage.py.

ssh-keygen is required: without it these tests fail (CI installs
openssh-client); nothing here is skipped."""
import base64
import os
import struct
import subprocess
import sys

import pytest

from poly1305x import openssh
from poly1305x.openssh import _container, _wire
from poly1305x.openssh.__main__ import main as cli_main
from tests.support.helpers import openssh_cli as cli
from tests.openssh.keyfiles import (AES_SAMPLE, CHACHA, NAMES, PASS, SSH_KEYGEN, WRONG, keygen,
                                    pub_of, write_key)


def test_ssh_keygen_present():
    assert SSH_KEYGEN, "ssh-keygen is required (CI installs openssh-client)"


def test_keys_are_what_we_asked_for(keys):
    for name in NAMES:
        info = openssh.key_info(keys.chacha[name])
        assert info["cipher"] == CHACHA and info["kdf"] == "bcrypt" and info["rounds"] == 2
        assert info["comment"] is None and info["encrypted"]
    for (name, cipher), data in keys.aes.items():
        assert openssh.key_info(data)["cipher"] == cipher


# ---------------------------------------------------------------------------
# Decryption, checked by ssh-keygen, cryptography and asyncssh
# ---------------------------------------------------------------------------

def without_checkint(pem):
    """The PEM with the check-integers zeroed (re-armoured)."""
    blob = bytearray(_wire.unarmour(pem))
    start = len(blob) - len(_container.parse_outer(pem, 64).encrypted)
    blob[start:start + 8] = bytes(8)
    return _wire.armour(bytes(blob))


def check_decrypted(tmp_path, name, pem, keys):
    from cryptography.hazmat.primitives import serialization

    assert pem.startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----\n")
    info = openssh.key_info(pem)
    assert info["cipher"] == "none" and info["kdf"] == "none"
    assert info["comment"] == f"test {name} ¢omment"
    # Byte for byte what ssh-keygen itself wrote before encrypting, except for
    # the check-integer, which ssh-keygen -p renews.
    assert without_checkint(pem) == without_checkint(keys.plain[name])
    path = write_key(tmp_path / f"{name}.out", pem)
    r = keygen("-y", "-f", path)
    assert r.returncode == 0, r.stderr
    assert pub_of(r.stdout.decode()) == pub_of(keys.pub[name])
    k = serialization.load_ssh_private_key(pem, None)
    mine = k.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                       serialization.PublicFormat.OpenSSH)
    assert mine.decode() == pub_of(keys.pub[name])


@pytest.mark.parametrize("name", NAMES)
def test_decrypt_chacha(keys, tmp_path, name):
    pem = openssh.decrypt(keys.chacha[name], PASS[name])
    check_decrypted(tmp_path, name, pem, keys)
    # bytes passphrase, and the PEM as str
    assert openssh.decrypt(keys.chacha[name].decode(), PASS[name].encode()) == pem


@pytest.mark.parametrize("name,cipher", AES_SAMPLE)
def test_decrypt_aes(keys, tmp_path, name, cipher):
    pem = openssh.decrypt(keys.aes[name, cipher], PASS[name])
    check_decrypted(tmp_path, name, pem, keys)


@pytest.mark.filterwarnings("ignore:Warning. bcrypt.kdf.. called with only")
@pytest.mark.parametrize("name", NAMES)
def test_asyncssh_differential(keys, name):
    """asyncssh reads the same chacha20-poly1305 key to the same private key
    and comment; it also reads what encrypt() writes."""
    import asyncssh

    theirs = asyncssh.import_private_key(keys.chacha[name], PASS[name])
    ours = asyncssh.import_private_key(openssh.decrypt(keys.chacha[name], PASS[name]))
    assert theirs.encode_ssh_private() == ours.encode_ssh_private()
    assert theirs.get_comment_bytes() == ours.get_comment_bytes()
    # our parse of the private section agrees with asyncssh's encoding of it
    _, _, key, plain = _container.load(keys.chacha[name], PASS[name], 100)
    typ = key.type.name.encode()
    assert bytes(key.body) == struct.pack(">I", len(typ)) + typ + theirs.encode_ssh_private()
    again = openssh.encrypt(keys.plain[name], PASS[name], rounds=1)
    back = asyncssh.import_private_key(again, PASS[name])
    assert back.encode_ssh_private() == theirs.encode_ssh_private()
    # and we read what asyncssh writes with chacha20-poly1305
    exported = theirs.export_private_key("openssh", PASS[name], cipher_name=CHACHA, rounds=1)
    assert openssh.load_private_key(exported, PASS[name]) == \
        openssh.load_private_key(keys.plain[name])


def test_unencrypted_passes_through(keys):
    for name in NAMES:
        assert openssh.decrypt(keys.plain[name]) == keys.plain[name]
        assert openssh.decrypt(keys.plain[name], "ignored") == keys.plain[name]


def test_binary_blob_accepted(keys):
    blob = _wire.unarmour(keys.small)
    assert openssh.decrypt(blob, "flip") == openssh.decrypt(keys.small, "flip")


# ---------------------------------------------------------------------------
# Encryption, checked by ssh-keygen
# ---------------------------------------------------------------------------

ENC_CASES = [(n, CHACHA) for n in NAMES] + [
    ("ed25519", "aes256-ctr"), ("rsa2048", "aes128-cbc"), ("ecdsa256", "aes256-gcm@openssh.com"),
    ("ecdsa384", "aes192-ctr"), ("ecdsa521", "aes128-gcm@openssh.com"),
    ("ed25519", "aes256-cbc"),
]


@pytest.mark.parametrize("name,cipher", ENC_CASES)
def test_encrypt_accepted_by_ssh_keygen(keys, tmp_path, name, cipher):
    pem = openssh.encrypt(keys.plain[name], PASS[name], cipher=cipher, rounds=2)
    info = openssh.key_info(pem)
    assert (info["cipher"], info["kdf"], info["rounds"]) == (cipher, "bcrypt", 2)
    path = write_key(tmp_path / "enc", pem)
    r = keygen("-y", "-P", PASS[name], "-f", path)
    assert r.returncode == 0, r.stderr
    assert pub_of(r.stdout.decode()) == pub_of(keys.pub[name])
    assert keygen("-y", "-P", "wrong", "-f", path).returncode != 0
    assert openssh.decrypt(pem, PASS[name]) == keys.plain[name]   # check-integer kept


def test_encrypt_fresh_salt_and_default_rounds(keys):
    a = openssh.encrypt(keys.plain["ed25519"], "pw", rounds=1)
    b = openssh.encrypt(keys.plain["ed25519"], "pw", rounds=1)
    assert a != b
    assert openssh.key_info(openssh.encrypt(keys.plain["ed25519"], "pw"))["rounds"] == 16


def test_encrypt_refusals(keys):
    with pytest.raises(ValueError, match="already encrypted"):
        openssh.encrypt(keys.chacha["ed25519"], "x")
    with pytest.raises(ValueError, match="unknown cipher"):
        openssh.encrypt(keys.plain["ed25519"], "x", cipher="des-cbc")
    with pytest.raises(ValueError, match="empty passphrase"):
        openssh.encrypt(keys.plain["ed25519"], "")
    for bad in (0, -1, 10 ** 6):
        with pytest.raises(ValueError, match="rounds"):
            openssh.encrypt(keys.plain["ed25519"], "x", rounds=bad)
    assert openssh.encrypt(keys.plain["ed25519"], None, cipher="none") == keys.plain["ed25519"]


def test_all_ciphers_round_trip_both_aes_backends(keys, monkeypatch):
    """Every cipher, through pycryptodome and through cryptography: each reads
    what the other wrote."""
    plain = keys.plain["ecdsa256"]
    written = {}
    for backend in ("pycryptodome", "cryptography"):
        if backend == "cryptography":
            from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            monkeypatch.setattr(_container, "aes_backend", lambda: (
                "cryptography", (Cipher, algorithms, modes, AESGCM)))
        for cipher in openssh.CIPHERS:
            pem = openssh.encrypt(plain, "ü", cipher=cipher, rounds=1)
            assert openssh.decrypt(pem, "ü") == plain
            if cipher != "none":
                with pytest.raises(ValueError):
                    openssh.decrypt(pem, "u")
            written[backend, cipher] = pem
    for cipher in openssh.CIPHERS:
        assert openssh.decrypt(written["pycryptodome", cipher], "ü") == plain


# ---------------------------------------------------------------------------
# load_private_key, public_key_line, key_info
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_load_private_key(keys, name):
    k = openssh.load_private_key(keys.chacha[name], PASS[name])
    assert k.has_private()
    assert pub_of(k.public_key().export_key(format="OpenSSH")) == pub_of(keys.pub[name])
    assert type(k).__name__ == ("RsaKey" if name.startswith("rsa") else "EccKey")


def test_load_dsa_key():
    import asyncssh

    pem = asyncssh.generate_private_key("ssh-dss", comment="dsa").export_private_key("openssh")
    assert openssh.decrypt(pem) == pem
    enc = openssh.encrypt(pem, "pw", rounds=1)
    k = openssh.load_private_key(enc, "pw")
    assert type(k).__name__ == "DsaKey" and k.has_private()
    assert openssh.public_key_line(enc, "pw").endswith(" dsa")


@pytest.mark.parametrize("name", NAMES)
def test_public_key_line_and_info(keys, tmp_path, name):
    want = keys.pub[name].strip()
    assert openssh.public_key_line(keys.plain[name]) == want
    assert openssh.public_key_line(keys.chacha[name], PASS[name]) == want
    assert openssh.public_key_line(keys.chacha[name]) == pub_of(want)   # comment is encrypted
    r = keygen("-l", "-E", "sha256", "-f", write_key(tmp_path / "p.pub", want.encode()))
    bits, fp = r.stdout.decode().split()[:2]
    info = openssh.key_info(keys.chacha[name])
    assert (str(info["bits"]), info["fingerprint"]) == (bits, fp)


# Optional dependency and command line
# ---------------------------------------------------------------------------

def test_imports_without_bcrypt(keys, tmp_path):
    path = write_key(tmp_path / "k", keys.small)
    plain = write_key(tmp_path / "p", keys.plain["ed25519"])
    code = (
        "import sys; sys.modules['bcrypt'] = None\n"
        "from poly1305x import openssh\n"
        "print(openssh.decrypt(open(sys.argv[2], 'rb').read()) is not None)\n"
        "try:\n"
        "    openssh.decrypt(open(sys.argv[1], 'rb').read(), 'flip')\n"
        "except ImportError as e:\n"
        "    print('ImportError:', e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code, path, plain], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "True" in r.stdout
    assert "pip install -e '.[openssh]'" in r.stdout


def test_cli_decrypt_encrypt_info(keys, tmp_path):
    src = write_key(tmp_path / "id", keys.chacha["ed25519"])
    out = str(tmp_path / "id.plain")
    env = {"KEYPASS": PASS["ed25519"]}
    r = cli("decrypt", src, "-o", out, "--passphrase-env", "KEYPASS", env=env)
    assert r.returncode == 0, r.stderr
    assert os.stat(out).st_mode & 0o777 == 0o600
    plain = open(out, "rb").read()
    assert without_checkint(plain) == without_checkint(keys.plain["ed25519"])
    # never overwrite without --force (output file, or the key itself)
    r = cli("decrypt", src, "-o", out, "--passphrase-env", "KEYPASS", env=env)
    assert r.returncode == 1 and b"--force" in r.stderr
    r = cli("decrypt", src, "--passphrase-env", "KEYPASS", env=env)
    assert r.returncode == 1 and b"--force" in r.stderr
    assert open(src, "rb").read() == keys.chacha["ed25519"]
    os.chmod(out, 0o644)
    r = cli("decrypt", src, "-o", out, "--force", "--passphrase-env", "KEYPASS", env=env)
    assert r.returncode == 0, r.stderr
    assert os.stat(out).st_mode & 0o777 == 0o600
    # wrong passphrase: exit 1, clear message, nothing written
    bad = str(tmp_path / "bad")
    r = cli("decrypt", src, "-o", bad, "--passphrase-env", "KEYPASS", env={"KEYPASS": "no"})
    assert r.returncode == 1 and WRONG.encode() in r.stderr
    assert not os.path.exists(bad)
    # encrypt with the passphrase on a file descriptor (a pipe)
    enc = str(tmp_path / "id.enc")
    rfd, wfd = os.pipe()
    os.write(wfd, "neue Päss\nignored".encode())
    os.close(wfd)
    try:
        r = cli("encrypt", out, "-o", enc, "-a", "2", "-Z", "aes256-gcm@openssh.com",
                "--passphrase-fd", str(rfd), pass_fds=(rfd,))
    finally:
        os.close(rfd)
    assert r.returncode == 0, r.stderr
    assert os.stat(enc).st_mode & 0o777 == 0o600
    r2 = keygen("-y", "-P", "neue Päss", "-f", enc)
    assert r2.returncode == 0 and pub_of(r2.stdout.decode()) == pub_of(keys.pub["ed25519"])
    # in place with --force
    r = cli("encrypt", out, "--force", "-a", "1", "--passphrase-env", "KEYPASS", env=env)
    assert r.returncode == 0, r.stderr
    assert openssh.decrypt(open(out, "rb").read(), PASS["ed25519"]) == plain
    # info, without and with --check
    r = cli("info", src)
    assert r.returncode == 0, r.stderr
    text = r.stdout.decode()
    assert openssh.key_info(keys.chacha["ed25519"])["fingerprint"] in text
    assert CHACHA in text and "(encrypted)" in text
    r = cli("info", src, "--check", "--passphrase-env", "KEYPASS", env=env)
    assert r.returncode == 0 and "test ed25519 ¢omment" in r.stdout.decode()
    # to standard output
    r = cli("decrypt", src, "-o", "-", "--passphrase-env", "KEYPASS", env=env)
    assert r.returncode == 0 and r.stdout == plain
    # a damaged file
    junk = write_key(tmp_path / "junk", b"hello")
    r = cli("info", junk)
    assert r.returncode == 1 and b"not an OpenSSH private key" in r.stderr
    # no option takes a passphrase on the command line
    assert cli("decrypt", src, "--passphrase", "x").returncode == 2


def test_cli_prompts_with_getpass(keys, tmp_path, monkeypatch):
    import getpass

    src = write_key(tmp_path / "id", keys.plain["ecdsa256"])
    answers = iter(["Ünïcødé", "Ünïcødé", "a", "b"])
    prompts = []

    def fake(prompt=""):
        prompts.append(prompt)
        return next(answers)

    monkeypatch.setattr(getpass, "getpass", fake)
    # getpass is for a terminal (without one, standard input is read directly)
    import poly1305x.openssh.__main__ as cli_module
    monkeypatch.setattr(cli_module, "_have_terminal", lambda: True)
    out = str(tmp_path / "enc")
    assert cli_main(["encrypt", src, "-o", out, "-a", "1"]) == 0
    assert openssh.decrypt(open(out, "rb").read(), "Ünïcødé") == keys.plain["ecdsa256"]
    assert len(prompts) == 2
    assert cli_main(["encrypt", src, "-o", str(tmp_path / "x"), "-a", "1"]) == 1
    assert not os.path.exists(tmp_path / "x")


def test_base64_is_canonical_and_wrapped(keys):
    pem = openssh.encrypt(keys.plain["rsa2048"], "x", rounds=1)
    lines = pem.split(b"\n")
    assert all(len(line) == 70 for line in lines[1:-3])
    assert base64.b64encode(_wire.unarmour(pem)) == b"".join(lines[1:-2])
