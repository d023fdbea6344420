"""Key types: one record per type says which fields its private part holds,
which of them make up the public-key blob, how the fields are checked and how
they become a pycryptodome object.  The readers below are generic over the
table (no per-type branches elsewhere in the package)."""
import functools

from poly1305x._peers import pycryptodome
from poly1305x.openssh._wire import Reader, string

# Field kinds: "s" an SSH string, "m" an mpint, "b" a byte.
_STRING, _MPINT, _BYTE = "s", "m", "b"

# The order of each NIST curve's group (ECDSA private scalars lie in 1..n-1).
_ORDERS = {
    b"nistp256": 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551,
    b"nistp384": int("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF"
                     "581A0DB248B0A77AECEC196ACCC52973", 16),
    b"nistp521": int("01FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"
                     "FFFFFFFFFFFA51868783BF2F966B7FCC0148F709A5D03BB5C9B8899C47AEBB6FB"
                     "71E91386409", 16),
}

#: DSA as OpenSSH accepts it (FIPS 186-2): a 1024-bit p and a 160-bit q.  The
#: bound also keeps the key check (g^x mod p) cheap on hostile files.
DSA_P_BITS, DSA_Q_BITS = 1024, 160

_SK_TAIL = (("app", _STRING, "security-key application"),
            ("flags", _BYTE, "security-key flags"),
            ("handle", _STRING, "security-key handle"),
            ("reserved", _STRING, "security-key reserved"))


class KeyType:
    """One key type.  ``fields``: the private part, in file order, as (key,
    kind, label); ``public``: the keys whose encodings, after the type string,
    form the public-key blob.  The hooks take the dict of field values and a
    ``fail(detail)`` that raises ValueError:

    * ``shape(v, fail)``: structure, for the public and the private part (it
      checks the keys present);
    * ``consistent(v)``: do the private and public halves belong together
      (False: damaged); may be expensive, so it runs only where asked;
    * ``bits(v)``: the key size from the public fields;
    * ``pycryptodome(v, pem)``: the pycryptodome key object, or None (sk-)."""

    __slots__ = ("name", "fields", "public", "shape", "consistent", "bits", "pycryptodome")

    def __init__(self, name, fields, public, shape, consistent, bits, pycryptodome=None):
        self.name = name
        self.fields = fields
        self.public = public
        self.shape = shape
        self.consistent = consistent
        self.bits = bits
        self.pycryptodome = pycryptodome

    @property
    def security_key(self):
        return self.pycryptodome is None


def _modules():
    """pycryptodome's (ECC, RSA, DSA) modules, or None."""
    return pycryptodome("PublicKey.ECC", "PublicKey.RSA", "PublicKey.DSA")


# -- ssh-ed25519 and its security-key twin ----------------------------------

def _ed25519_shape(v, fail):
    if len(v["pk"]) != 32:
        fail("the ed25519 public key is not 32 bytes")
    if "sk" in v and (len(v["sk"]) != 64 or v["sk"][32:] != v["pk"]):
        fail("the ed25519 key has the wrong length or mismatched halves")


def _ed25519_consistent(v):
    mods = _modules()
    if mods is None:
        return True     # nothing to compute it with; the halves were compared
    key = mods[0].construct(curve="Ed25519", seed=v["sk"][:32])
    return key.public_key().export_key(format="raw") == v["pk"]


def _ed25519_pycryptodome(v, pem):
    return _modules()[0].import_key(pem)


# -- ssh-rsa -------------------------------------------------------------------

def _rsa_shape(v, fail):
    pass    # mpint bounds are the reader's


def _rsa_consistent(v):
    n, e, d, iqmp, p, q = (v[k] for k in ("n", "e", "d", "iqmp", "p", "q"))
    return (n > 1 and e > 1 and p > 1 and q > 1 and p * q == n
            and (e * d) % (p - 1) == 1 % (p - 1)
            and (e * d) % (q - 1) == 1 % (q - 1)
            and (iqmp * q) % p == 1)


def _rsa_pycryptodome(v, pem):
    return _modules()[1].import_key(pem)


# -- ssh-dss -------------------------------------------------------------------

def _dsa_shape(v, fail):
    p, q, g, y = v["p"], v["q"], v["g"], v["y"]
    if p.bit_length() != DSA_P_BITS or q.bit_length() != DSA_Q_BITS:
        fail(f"DSA p and q must be {DSA_P_BITS} and {DSA_Q_BITS} bits (as OpenSSH), not "
             f"{p.bit_length()} and {q.bit_length()}")
    if not (1 < g < p and 1 < y < p):
        fail("DSA g or y is out of range")
    if "x" in v and not 0 < v["x"] < q:
        fail("the DSA private value is out of range")


def _dsa_consistent(v):
    return pow(v["g"], v["x"], v["p"]) == v["y"]    # a 160-bit exponent: cheap


def _dsa_pycryptodome(v, pem):
    return _modules()[2].construct((v["y"], v["g"], v["p"], v["q"], v["x"]))


# -- ecdsa-sha2-nistp* and sk-ecdsa-sha2-nistp256@openssh.com -------------------

def _ecdsa_shape(curve, size, v, fail):
    if v["curve"] != curve:
        fail(f"curve {v['curve']!r} does not match the key type")
    if len(v["q"]) != 1 + 2 * size or v["q"][0] != 4:
        fail(f"the {curve.decode()} public point is not an uncompressed point")


def _ecdsa_consistent(curve, size, pyc_curve, v):
    if not 0 < v["d"] < _ORDERS[curve]:
        return False
    mods = _modules()
    if mods is None:
        return True
    point = mods[0].construct(curve=pyc_curve, d=v["d"]).pointQ
    q = v["q"]
    return (int(point.x) == int.from_bytes(q[1:1 + size], "big")
            and int(point.y) == int.from_bytes(q[1 + size:], "big"))


def _ecdsa_hooks(curve, size, pyc_curve):
    """(shape, consistent, bits) of one ECDSA curve's KeyType."""
    return (functools.partial(_ecdsa_shape, curve, size),
            functools.partial(_ecdsa_consistent, curve, size, pyc_curve),
            _fixed({32: 256, 48: 384, 66: 521}[size]))


def _ecdsa_pycryptodome(v, pem):
    return _modules()[0].import_key(pem)


def _always(v):
    return True


def _bits(bits, v):
    return bits


def _fixed(bits):
    """The bits hook of a key type whose size is fixed."""
    return functools.partial(_bits, bits)


def _table():
    ed_pk = ("pk", _STRING, "ed25519 public key")
    ec_head = (("curve", _STRING, "curve name"), ("q", _STRING, "ECDSA public point"))
    types = [
        KeyType("ssh-ed25519", (ed_pk, ("sk", _STRING, "ed25519 private key")), ("pk",),
                _ed25519_shape, _ed25519_consistent, _fixed(256), _ed25519_pycryptodome),
        KeyType("sk-ssh-ed25519@openssh.com", (ed_pk,) + _SK_TAIL, ("pk", "app"),
                _ed25519_shape, _always, _fixed(256)),
        KeyType("ssh-rsa", tuple((k, _MPINT, "RSA " + k) for k in ("n", "e", "d", "iqmp", "p",
                                                                    "q")),
                ("e", "n"), _rsa_shape, _rsa_consistent, lambda v: v["n"].bit_length(),
                _rsa_pycryptodome),
        KeyType("ssh-dss", tuple((k, _MPINT, "DSA " + k) for k in "pqgyx"), tuple("pqgy"),
                _dsa_shape, _dsa_consistent, lambda v: v["p"].bit_length(),
                _dsa_pycryptodome),
    ]
    for bits, size in ((256, 32), (384, 48), (521, 66)):
        curve = f"nistp{bits}".encode()
        shape, consistent, nbits = _ecdsa_hooks(curve, size, f"p{bits}")
        types.append(KeyType(f"ecdsa-sha2-nistp{bits}",
                             ec_head + (("d", _MPINT, "ECDSA private scalar"),),
                             ("curve", "q"), shape, consistent, nbits, _ecdsa_pycryptodome))
        if bits == 256:
            types.append(KeyType("sk-ecdsa-sha2-nistp256@openssh.com", ec_head + _SK_TAIL,
                                 ("curve", "q", "app"), shape, _always, nbits))
    return {t.name: t for t in types}


#: Key type name -> KeyType.
KEY_TYPES = _table()


def _key_type(r):
    name = r.name("key type")
    kt = KEY_TYPES.get(name)
    if kt is None:
        raise ValueError(f"unsupported key type {name!r}")
    return kt


def _read_field(r, kind, label):
    """(value, wire encoding) of one field."""
    if kind == _MPINT:
        value, raw = r.mpint(label)
        return value, bytes(raw)
    if kind == _BYTE:
        value = r.u8(label)
        return value, bytes((value,))
    value = bytes(r.string(label))
    return value, string(value)


class Key:
    """A parsed private key: ``type`` (a KeyType), ``body`` the type string and
    the private fields as they were in the file, ``pub`` the public-key blob
    they imply, ``fields`` the values, ``comment``."""

    __slots__ = ("type", "body", "pub", "fields", "comment")


def read_private(r, check, expect_type, expect_public):
    """Parse one private key (type string + fields) from r.  The type string
    and the public fields must equal the file's public section
    (``expect_type``, ``expect_public``): compared as soon as each is read,
    before any secret field is parsed.  With check, also test that the
    private and public halves belong together, so that a key damaged under an
    unauthenticated cipher is caught."""
    start = r.pos
    kt = expect_type
    if bytes(r.string("key type")) != kt.name.encode():
        r._fail("key type mismatch")
    values, raw = {}, {}
    for key, kind, label in kt.fields:
        values[key], raw[key] = _read_field(r, kind, label)
        if key in expect_public and values[key] != expect_public[key]:
            r._fail("public key mismatch")
    kt.shape(values, r._fail)
    if check:
        try:
            ok = kt.consistent(values)
        except ValueError:      # pycryptodome refusing the values
            ok = False
        if not ok:
            r._fail("the private values do not match the public key")
    k = Key()
    k.type = kt
    k.body = r.buf[start:r.pos]
    k.pub = string(kt.name.encode()) + b"".join(raw[key] for key in kt.public)
    k.fields = values
    k.comment = b""
    return k


def read_public(blob):
    """Structural check of a public-key blob: (KeyType, field values)."""
    r = Reader(blob, "public key")
    kt = _key_type(r)
    spec = {key: (kind, label) for key, kind, label in kt.fields}
    values = {}
    for key in kt.public:
        values[key] = _read_field(r, *spec[key])[0]
    kt.shape(values, r._fail)
    if r.left():
        r._fail(f"{r.left()} stray bytes after the public key")
    return kt, values
