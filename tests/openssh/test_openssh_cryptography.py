"""poly1305x.openssh.load_ssh_private_key: cryptography's key loader for every
cipher, on keys ssh-keygen writes.  The result must equal what cryptography
itself loads from the same key saved unencrypted."""
import subprocess
import sys
import warnings

import pytest
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization

from poly1305x import openssh
from tests.openssh.keyfiles import ALL_TYPES, make_key_files
from tests.support.helpers import ssh_keygen_makes

CHACHA = "chacha20-poly1305@openssh.com"
CIPHERS = [c for c in openssh.CIPHERS if c != "none"]
# every key type this ssh-keygen makes: DSA while it still can (OpenSSH 9.x
# does, 10 does not; loading DSA keys is tested wherever it can be made)
TYPES = dict(ALL_TYPES)
if ssh_keygen_makes("-t", "dsa"):
    TYPES["dsa"] = ["-t", "dsa"]
PASSWORD = b"s3cret p\xc3\xa4ss"

pytestmark = pytest.mark.filterwarnings("ignore::cryptography.utils.CryptographyDeprecationWarning")


@pytest.fixture(scope="module")
def pems_by_type(tmp_path_factory):
    """{type: (unencrypted PEM, {cipher: PEM re-encrypted by ssh-keygen -p -Z})}"""
    files = make_key_files(tmp_path_factory.mktemp("ck"), TYPES, CIPHERS, PASSWORD.decode(),
                           "{name} key")
    return {name: (files[name, "none"], {c: files[name, c] for c in CIPHERS}) for name in TYPES}


def private_bytes(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


@pytest.mark.parametrize("name", list(TYPES))
@pytest.mark.parametrize("cipher", CIPHERS)
def test_equals_cryptography_on_unencrypted(pems_by_type, name, cipher):
    plain, enc = pems_by_type[name]
    expected = serialization.load_ssh_private_key(plain, None)
    got = openssh.load_ssh_private_key(enc[cipher], PASSWORD)
    assert type(got) is type(expected)
    assert private_bytes(got) == private_bytes(expected)
    assert got.public_key() == expected.public_key()
    with pytest.raises(ValueError):
        openssh.load_ssh_private_key(enc[cipher], b"wrong password")


def test_cryptography_itself_refuses_chacha(pems_by_type):
    """The premise: cryptography alone cannot read these files."""
    with pytest.raises(UnsupportedAlgorithm):
        serialization.load_ssh_private_key(pems_by_type["ed25519"][1][CHACHA], PASSWORD)


@pytest.mark.parametrize("cipher", ["aes256-ctr", "aes256-cbc", "aes256-gcm@openssh.com"])
def test_same_as_cryptography_where_it_reads_the_cipher(pems_by_type, cipher):
    data = pems_by_type["ecdsa384"][1][cipher]
    assert private_bytes(openssh.load_ssh_private_key(data, PASSWORD)) == \
        private_bytes(serialization.load_ssh_private_key(data, PASSWORD))


def test_unencrypted_and_argument_errors_match_cryptography(pems_by_type):
    plain, enc = pems_by_type["ed25519"]
    data = enc[CHACHA]
    assert private_bytes(openssh.load_ssh_private_key(plain)) == \
        private_bytes(serialization.load_ssh_private_key(plain, None))
    # The same exception types as cryptography's loader, case by case: for a
    # cipher it reads (aes256-ctr), ours must raise what it raises, and the
    # same for the chacha20-poly1305 file.
    ctr = enc["aes256-ctr"]
    cases = [
        ((plain, b"pw"), (plain, b"pw")),           # a password for an unencrypted key
        ((ctr, None), (data, None)),                # an encrypted key without one
        ((ctr, b""), (data, b"")),
        ((ctr.decode(), PASSWORD), (data.decode(), PASSWORD)),   # str data
        ((ctr, PASSWORD.decode()), (data, PASSWORD.decode())),   # str password
        ((ctr, bytearray(PASSWORD)), (data, bytearray(PASSWORD))),
    ]
    for reference, chacha in cases:
        with pytest.raises(Exception) as theirs:
            serialization.load_ssh_private_key(*reference)
        for args in (reference, chacha):
            with pytest.raises(Exception) as ours:
                openssh.load_ssh_private_key(*args)
            assert type(ours.value) is type(theirs.value), (args[1], ours.value, theirs.value)
    for bad in (b"not a key", plain[:200], b"-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n"):
        with pytest.raises(ValueError):
            openssh.load_ssh_private_key(bad, PASSWORD)


@pytest.mark.parametrize("cipher", ["aes256-ctr", "aes256-gcm@openssh.com"])
def test_wrong_password_exception_is_cryptographys(pems_by_type, cipher):
    """cryptography: ValueError for CTR, InvalidTag for GCM; ours is an
    instance of what it raises, and always a ValueError."""
    data = pems_by_type["ed25519"][1][cipher]
    with pytest.raises(Exception) as theirs:
        serialization.load_ssh_private_key(data, b"wrong")
    for d in (data, pems_by_type["ed25519"][1][CHACHA] if "gcm" in cipher else data):
        with pytest.raises(ValueError) as ours:
            openssh.load_ssh_private_key(d, b"wrong")
        assert isinstance(ours.value, type(theirs.value))


def test_damaged_file_is_valueerror(pems_by_type):
    data = bytearray(pems_by_type["rsa"][1][CHACHA])
    i = len(data) // 2
    data[i] = ord("A") if data[i] != ord("A") else ord("B")
    with pytest.raises(ValueError):
        openssh.load_ssh_private_key(bytes(data), PASSWORD)


def test_options_pass_through(pems_by_type):
    data = pems_by_type["rsa"][1][CHACHA]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        key = openssh.load_ssh_private_key(data, PASSWORD, None,
                                           unsafe_skip_rsa_key_validation=True)
    assert key.key_size == 2048


def test_import_error_names_the_extra(pems_by_type, tmp_path):
    path = tmp_path / "k"
    path.write_bytes(pems_by_type["ed25519"][1][CHACHA])
    code = ("import sys; sys.modules['cryptography'] = None\n"
            "from poly1305x import openssh\n"
            "try:\n"
            "    openssh.load_ssh_private_key(open(sys.argv[1], 'rb').read(), b'x')\n"
            "except ImportError as e:\n"
            "    print('ImportError:', e)\n")
    r = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "ImportError:" in r.stdout and "pip install -e '.[openssh,cryptography]'" in r.stdout
