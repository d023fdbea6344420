"""use_with_paramiko and key files encrypted with chacha20-poly1305@openssh.com:
ssh-keygen's keys of three types load, sign and refuse a wrong passphrase as
paramiko's own do; damaged or hostile key files encrypted with
chacha20-poly1305@openssh.com: the exception plain paramiko
gives (SSHException), at once; bcrypt never run past poly1305x's rounds cap
(before: rounds = 2**32-1 hung paramiko's own Ed25519 parser); a linear
search for the key (before: 216 KB of BEGIN lines took 5 s); and
SSHClient.connect(key_filename=<damaged>, password=...) falling back to the
password as plain paramiko does, against paramiko's own server."""
import base64
import io
import struct
import subprocess
import sys
import textwrap
import threading

import paramiko
import pytest
from paramiko.ssh_exception import PasswordRequiredException, SSHException

from poly1305x import openssh
from tests.support.ssh_peers import (  # noqa: F401 (fixtures)
    PASS, Server, enabled, keygen_keys, public_key, listen, serve)
from tests.support.sshd import CHACHA, keygen
BEGIN = "-----BEGIN OPENSSH PRIVATE KEY-----"
END = "-----END OPENSSH PRIVATE KEY-----"


def _fields(blob):
    """openssh-key-v1 blob -> [cipher, kdf, kdfoptions, nkeys, pub..., private, rest]."""
    off, out = 15, []

    def string():
        nonlocal off
        n = struct.unpack(">I", blob[off:off + 4])[0]
        off += 4 + n
        return blob[off - n:off]
    out += [string(), string(), string()]
    n = struct.unpack(">I", blob[off:off + 4])[0]
    off += 4
    out.append(n)
    out += [string() for _ in range(n)]
    out.append(string())
    out.append(blob[off:])
    return out


def _s(b):
    return struct.pack(">I", len(b)) + b


def _blob(cipher, kdf, kdfopts, pubs, private, rest=b"", nkeys=None):
    return (b"openssh-key-v1\0" + _s(cipher) + _s(kdf) + _s(kdfopts)
            + struct.pack(">I", len(pubs) if nkeys is None else nkeys)
            + b"".join(_s(p) for p in pubs) + _s(private) + rest)


def _armour(blob):
    b64 = base64.b64encode(blob).decode()
    return BEGIN + "\n" + "\n".join(textwrap.wrap(b64, 70)) + "\n" + END + "\n"


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """An ssh-keygen ed25519 key encrypted with chacha20-poly1305: its blob."""
    path = tmp_path_factory.mktemp("k") / "id"
    keygen(path, "ed25519", PASS, CHACHA, rounds=2)
    text = path.read_text()
    body = text.split(BEGIN)[1].split(END)[0]
    return base64.b64decode("".join(body.split()))


def _damaged(blob):
    """{name: armoured text}: damaged or hostile variants of a chacha file."""
    cipher, kdf, kdfopts, n, pub, private, rest = _fields(blob)
    salt = kdfopts[4:20]
    huge = _s(salt) + struct.pack(">I", 2**32 - 1)
    armoured = {
        "rounds 2**32-1 and 8 trailing bytes": _blob(cipher, kdf, huge + bytes(8), [pub], private),
        "rounds 2**32-1": _blob(cipher, kdf, huge, [pub], private),
        "kdf none": _blob(cipher, b"none", b"", [pub], private),
        "kdf options cut": _blob(cipher, kdf, kdfopts[:10], [pub], private),
        "no public key": _blob(cipher, kdf, kdfopts, [], private, nkeys=0),
        "2**32-1 keys": _blob(cipher, kdf, kdfopts, [pub], private, nkeys=2**32 - 1),
        "private section cut": _blob(cipher, kdf, kdfopts, [pub], private[:-20]),
        "private length into the tag": blob[:len(blob) - len(private) - 4 - len(rest)]
        + struct.pack(">I", len(private) + 3) + private,
        "tag flipped": _blob(cipher, kdf, kdfopts, [pub], private[:-1]
                             + bytes([private[-1] ^ 1])),
        "blob cut": blob[:60],
        "unknown key type": _blob(cipher, kdf, kdfopts, [_s(b"ssh-nope") + bytes(32)], private),
    }
    out = {name: _armour(b) for name, b in armoured.items()}
    # text damage around the armour
    good_text = _armour(blob)
    lines = good_text.split("\n")
    lines[3] = lines[3][1:]
    out["base64 one character short"] = "\n".join(lines)
    out["base64 padding inside"] = good_text.replace("\n", "=\n", 3)
    return out


def _raises(fn):
    try:
        fn()
    except Exception as exc:    # noqa: BLE001 - the class is what is compared
        return exc
    return None


LOADERS = {
    "Ed25519Key": lambda t, pw: paramiko.Ed25519Key.from_private_key(io.StringIO(t), pw),
    "RSAKey": lambda t, pw: paramiko.RSAKey.from_private_key(io.StringIO(t), pw),
    "ECDSAKey": lambda t, pw: paramiko.ECDSAKey.from_private_key(io.StringIO(t), pw),
}


@pytest.mark.parametrize("loader", LOADERS)
def test_damaged_files_raise_what_plain_paramiko_raises(good, loader, tmp_path):
    """Each damaged file: plain paramiko raises SSHException; with poly1305x,
    the same class (before: KeyError('mode'), UnicodeDecodeError, ValueError,
    or a bcrypt run with the file's rounds), and the unharmed file loads."""
    load = LOADERS[loader]
    cases = _damaged(good)
    for name in ("rounds 2**32-1 and 8 trailing bytes", "rounds 2**32-1"):
        cases.pop(name)     # test_huge_rounds_refused_at_once, in a child process
    plain = {}
    for name, text in cases.items():
        plain[name] = _raises(lambda: load(text, PASS))
        assert isinstance(plain[name], SSHException), (name, plain[name])
    before = openssh.use_with_paramiko()
    try:
        for name, text in cases.items():
            for pw in (PASS, None):
                exc = _raises(lambda: load(text, pw))
                assert isinstance(exc, SSHException), (name, pw, repr(exc))
        if loader == "Ed25519Key":
            assert load(_armour(good), PASS).get_name() == "ssh-ed25519"
    finally:
        openssh.use_with_paramiko(before)


def test_damaged_files_from_path(good, tmp_path):
    """PKey.from_path (password bytes, as paramiko documents it): an
    SSHException for every damaged file with poly1305x (plain paramiko raises
    cryptography's UnsupportedAlgorithm for the cipher)."""
    for name, text in _damaged(good).items():
        path = tmp_path / "key"
        path.write_text(text)
        plain = _raises(lambda: paramiko.PKey.from_path(path, PASS.encode()))
        assert plain is not None, name
        before = openssh.use_with_paramiko()
        try:
            exc = _raises(lambda: paramiko.PKey.from_path(path, PASS.encode()))
        finally:
            openssh.use_with_paramiko(before)
        assert isinstance(exc, SSHException), (name, repr(exc))


def test_huge_rounds_refused_at_once(good, tmp_path):
    """rounds = 2**32-1 (with 8 trailing bytes after them, as the finding had
    it): an SSHException within seconds, in a child process so that a
    regression fails instead of hanging the suite."""
    path = tmp_path / "hostile"
    path.write_text(_damaged(good)["rounds 2**32-1 and 8 trailing bytes"])
    code = textwrap.dedent(f"""
        import paramiko
        from poly1305x import openssh
        openssh.use_with_paramiko()
        for load in (paramiko.Ed25519Key.from_private_key_file, paramiko.PKey.from_path):
            try:
                load({str(path)!r}, {PASS!r})
            except paramiko.SSHException:
                pass
            else:
                raise SystemExit("loaded")
        print("refused")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "refused", r.stderr[-2000:]


def test_key_scan_is_linear(enabled):
    """About 1 MB of BEGIN lines (just under MAX_KEY_TEXT) and no END: the
    SSHException paramiko gives, in well under the seconds the quadratic
    search took (about 100 s at this size); in a child process with a timeout."""
    line = BEGIN + "\n"
    n = 1_000_000 // len(line)
    code = textwrap.dedent(f"""
        import io, paramiko
        from poly1305x import openssh
        openssh.use_with_paramiko()
        text = {line!r} * {n}
        for cls in (paramiko.RSAKey, paramiko.Ed25519Key):
            try:
                cls.from_private_key(io.StringIO(text))
            except paramiko.SSHException:
                pass
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr[-2000:]
    from poly1305x.openssh import _paramiko
    assert n * len(line) <= _paramiko.MAX_KEY_TEXT      # the size was searched


class PasswordServer(Server):
    def get_allowed_auths(self, username):
        return "password,publickey"

    def check_auth_password(self, username, password):
        return paramiko.AUTH_SUCCESSFUL if password == "pw" else paramiko.AUTH_FAILED


def _connect_with(key_path, host_key):
    """SSHClient.connect(key_filename=key_path, password="pw") to a paramiko
    server that takes that password (and no key); runs "sha256" on b"hi"."""
    listener = listen()
    result = {}
    th = threading.Thread(target=serve, args=(listener, host_key, PasswordServer("x y"), result))
    th.start()
    c = paramiko.SSHClient()
    c.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    try:
        c.connect("127.0.0.1", listener.getsockname()[1], username="u", password="pw",
                  key_filename=str(key_path), look_for_keys=False, allow_agent=False,
                  timeout=30)
        i, o, _ = c.exec_command("sha256", timeout=30)
        i.write(b"hi")
        i.channel.shutdown_write()
        return o.read().strip().decode()
    except Exception as exc:    # noqa: BLE001 - compared with plain paramiko
        return repr(exc)
    finally:
        c.close()
        th.join(30)
        listener.close()


def test_connect_falls_back_to_the_password(good, tmp_path):
    """key_filename=<damaged chacha file>, password=...: the client skips the
    key and logs in with the password, with poly1305x as without it (before:
    some files raised KeyError or UnicodeDecodeError out of connect)."""
    import hashlib
    want = hashlib.sha256(b"hi").hexdigest()
    host_key = paramiko.Ed25519Key.generate() if hasattr(paramiko.Ed25519Key, "generate") \
        else paramiko.RSAKey.generate(2048)
    cases = _damaged(good)
    cases.pop("rounds 2**32-1 and 8 trailing bytes")
    cases.pop("rounds 2**32-1")
    for name, text in cases.items():
        path = tmp_path / "id_damaged"
        path.write_text(text, errors="surrogateescape")
        path.chmod(0o600)
        assert _connect_with(path, host_key) == want, name
        before = openssh.use_with_paramiko()
        try:
            assert _connect_with(path, host_key) == want, name
        finally:
            openssh.use_with_paramiko(before)


# --- ssh-keygen's keys --------------------------------------------------------

@pytest.mark.parametrize("kt,cls", [("ed25519", "Ed25519Key"), ("ecdsa", "ECDSAKey"),
                                    ("rsa", "RSAKey")])
def test_key_loading(enabled, keygen_keys, kt, cls):
    klass = getattr(paramiko, cls)
    plain = klass.from_private_key_file(keygen_keys[kt][0])
    enc = keygen_keys[f"{kt}-chacha"][0]
    k = klass.from_private_key_file(enc, PASS)
    assert k.get_base64() == keygen_keys[f"{kt}-chacha"][1].split()[1]
    # the key signs, and ssh-keygen's public key verifies it
    sig = k.sign_ssh_data(b"data")
    public = public_key(keygen_keys[f"{kt}-chacha"][1])[1]
    assert public.verify_ssh_sig(b"data", paramiko.Message(sig.asbytes()))
    assert not public.verify_ssh_sig(b"dat4", paramiko.Message(sig.asbytes()))
    k2 = paramiko.PKey.from_path(enc, PASS)
    assert type(k2) is klass and k2.get_base64() == k.get_base64()
    with open(enc) as f:
        assert klass.from_private_key(f, PASS.encode()).get_base64() == k.get_base64()
    assert type(plain) is klass                  # unencrypted keys pass through
    with pytest.raises(SSHException) as ei:
        klass.from_private_key_file(enc, "wrong")
    assert isinstance(ei.value, ValueError) and "incorrect passphrase" in str(ei.value)
    with pytest.raises(PasswordRequiredException):
        klass.from_private_key_file(enc)


def test_key_of_another_type(enabled, keygen_keys):
    with pytest.raises(SSHException, match="expected RSA key"):
        paramiko.RSAKey.from_private_key_file(keygen_keys["ed25519-chacha"][0], PASS)
