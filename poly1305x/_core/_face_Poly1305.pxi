# Included by _engine.pyx: pycryptodome's Poly1305 face (poly1305x.Poly1305):
# the Poly1305_MAC object, new() and mac_with_cipher(), with all of their
# checks and messages.
#
# Poly1305.new(key=, cipher=ChaCha20, nonce=, data=) in one call: the drop-in
# line of code that changes only its Poly1305 import keeps passing
# pycryptodome's own ChaCha20 module, so the module is recognised
# (poly1305x's, pycryptodome's or pycryptodomex's: see is_chacha20) and r and
# s come from our ChaCha20 block 0, with pycryptodome's checks and messages.
# Every other cipher goes through the adapters of poly1305x._core._ciphers.
from cpython.dict cimport PyDict_GetItemWithError
from cpython.ref cimport PyObject

from types import ModuleType

from poly1305x._core import _ciphers



cdef int mac_finished() except -1:
    """pycryptodome's refusal of update() after digest()/verify()."""
    raise TypeError("You can only call 'digest' or 'hexdigest' on this object")


#: module -> whether it is a ChaCha20 module whose key pair poly1305x derives;
#: filled by is_chacha20 the first time a module is seen, and only here.
#: Keyed by the module object: install() changes which module a name gives,
#: never what a module object is, so an entry never goes stale.
chacha20_modules = {}
cdef dict _chacha20_modules = chacha20_modules

cdef str NO_KEY = "You must pass a parameter 'key'"
cdef str CHACHA20_MAC_KEY_LEN = "Poly1305 with ChaCha20 requires a 32-byte key"
cdef str CHACHA20_MAC_NONCE_LEN = "Poly1305 with ChaCha20 requires an 8- or 12-byte nonce"


def is_chacha20(cipher):
    """Whether ``cipher`` is one of the ChaCha20 modules of
    ``_ciphers.CHACHA20_MODULES`` (a module of that name with
    ``_derive_Poly1305_key_pair``).  The answer for a module is remembered in
    ``chacha20_modules``, where ``new`` looks it up in one step."""
    if not isinstance(cipher, ModuleType):
        return False
    found = _chacha20_modules.get(cipher)
    if found is None:
        found = _ciphers.is_chacha20_module(cipher)
        _chacha20_modules[cipher] = found
    return found


cdef object chacha20_rs(const kernel_table* k, object key, object nonce, uint8_t* rs):
    """pycryptodome's ``ChaCha20._derive_Poly1305_key_pair`` on our kernels:
    r || s (32 bytes into rs) from ChaCha20 block 0 under a 32-byte key and an
    8- or 12-byte nonce (RFC 8439 2.6), with pycryptodome's checks, order and
    messages; the nonce may be anything ``bytes()`` takes.  A random 12-byte
    nonce when nonce is None.  Returns the nonce as bytes."""
    cdef buf_t kb, nb
    cdef uint32_t st[16]
    cdef uint8_t block[64]
    cdef uint8_t n12[12]
    cdef Py_ssize_t n
    if key is None:
        raise TypeError(NO_KEY)
    if not (PyBytes_CheckExact(key) and PyBytes_GET_SIZE(key) == 32) and len(key) != 32:
        raise ValueError(CHACHA20_MAC_KEY_LEN)
    if nonce is None:
        nonce = urandom(12)
    n = PyBytes_GET_SIZE(nonce) if PyBytes_CheckExact(nonce) else len(nonce)
    if n != 8 and n != 12:
        raise ValueError(CHACHA20_MAC_NONCE_LEN)
    get_nonce(nonce, &nb)
    try:
        get_fixed(key, &kb, 32, CHACHA20_MAC_KEY_LEN)
        try:
            if nb.len == 8:
                memset(n12, 0, 4)
                memcpy(n12 + 4, nb.ptr, 8)
            elif nb.len == 12:
                memcpy(n12, nb.ptr, 12)
            else:                   # len() counted items of another size
                raise ValueError(CHACHA20_MAC_NONCE_LEN)
            chacha20_init_state(st, kb.ptr, n12, 12, 0)
            k.chacha20_xor(st, NULL, block, 1)
            memcpy(rs, block, 32)
            wipe(block, 64)
            wipe(st, 64)
        finally:
            put_buf(&kb)
        if not PyBytes_CheckExact(nonce):
            nonce = PyBytes_FromStringAndSize(<char*>nb.ptr, nb.len)
    finally:
        put_buf(&nb)
    return nonce


cdef Poly1305_MAC chacha20_mac(object key, object nonce, object data):
    cdef uint8_t rs[32]
    cdef const kernel_table* k = active_kernels()
    cdef Poly1305_MAC mac = Poly1305_MAC.__new__(Poly1305_MAC)
    init_begin(&mac.state, mac)     # what Poly1305_MAC.__init__ does, without its checks
    try:
        mac.nonce = chacha20_rs(k, key, nonce, rs)
    except BaseException:
        init_end(&mac.state, False)
        raise
    mac_init(&mac.c, k, rs, rs + 16)
    wipe(rs, 32)
    mac.done = False
    init_end(&mac.state, True)
    if data:                        # pycryptodome's test: b"", None and 0 add nothing
        if mac._update(data):
            mac_finished()
    return mac


# Named ``new``: it is poly1305x.Poly1305.new, and Python's argument errors name it.
def new(*, key, cipher, nonce=None, data=None, key_order="kr"):
    """Create a new Poly1305 MAC object (``poly1305x.Poly1305.new``).

    :param key: the 32-byte key.
    :param cipher: what turns the key and nonce into Poly1305's (r, s):

        * ``poly1305x.ChaCha20``, ``Crypto.Cipher.ChaCha20`` or
          ``Cryptodome.Cipher.ChaCha20``: r and s from ChaCha20 block 0 (nonce
          8 or 12 bytes, or anything ``bytes()`` turns into 8 or 12 bytes), as
          pycryptodome does.  poly1305x computes them, on its own kernels,
          whichever of the three modules is passed: code that changes only its
          Poly1305 import runs at poly1305x's speed;
        * any block cipher with a 128-bit block (nonce 16 bytes, s = E(k, nonce)):
          a pycryptodome module such as ``Crypto.Cipher.AES`` (Poly1305-AES; tags
          equal pycryptodome's), a ``cryptography`` algorithm class such as
          ``algorithms.AES``, ``Camellia``, ``SM4`` or ``SEED``, or a callable
          ``encrypt_block(key16, block16) -> 16 bytes``.

        ValueError for a cipher whose block is not 128 bits or that refuses a
        16-byte key.
    :param nonce: never reused under one key; random when omitted (see the
        ``nonce`` attribute, always bytes).
    :param data: the first chunk of the message.
    :param key_order: for block ciphers, how the key is split: ``"kr"``
        (default; cipher key = key[0:16], r = key[16:32]: Bernstein's
        Poly1305-AES and pycryptodome) or ``"rk"`` (r = key[0:16], cipher key =
        key[16:32]: BouncyCastle's ``Poly1305(BlockCipher)``).  A ChaCha20
        cipher refuses ``"rk"`` (ValueError).
    """
    cdef PyObject* known
    try:
        known = PyDict_GetItemWithError(_chacha20_modules, cipher)
    except TypeError:               # an unhashable callable: not a module
        known = NULL
    if known != NULL and <object>known is True and key_order == "kr":
        return chacha20_mac(key, nonce, data)
    return new_other(key, cipher, nonce, data, key_order)


cdef object new_other(object key, object cipher, object nonce, object data, object key_order):
    """``new()`` for what the fast path does not know: a ChaCha20 module seen
    for the first time, a block cipher, a callable."""
    if key_order == "kr" and is_chacha20(cipher):     # remembered from now on
        return chacha20_mac(key, nonce, data)
    derive = _ciphers.key_pair_deriver(cipher, key_order)    # ValueError for a bad cipher
    if key is None:
        raise TypeError(NO_KEY)
    r, s, nonce = derive(key, nonce)
    mac = Poly1305_MAC(r, s, data)
    mac.nonce = bytes(nonce)
    return mac


def mac_with_cipher(cipher, key, nonce, data, key_order="kr"):
    """The 16-byte tag of ``data`` in one call, with no MAC object: the same
    tag as ``new(key=key, cipher=cipher, nonce=nonce, data=data,
    key_order=key_order).digest()``.  ``nonce`` is required."""
    if nonce is None:
        raise TypeError("mac_with_cipher() needs the nonce (a tag is useless "
                        "without it); use new() for a random one")
    if key_order == "kr" and is_chacha20(cipher):
        return poly1305_chacha20_tag(key, nonce, data)
    r, s, _ = _ciphers.key_pair_deriver(cipher, key_order)(key, nonce)
    return oneshot_tag(b"".join((r, s)), data)


def poly1305_chacha20_tag(key, nonce, data):
    """The tag of ``data`` under the (r, s) of ChaCha20 block 0, in one call
    and with no object: ``chacha20_mac(key, nonce, data).digest()``."""
    cdef PyThreadState* ts
    cdef uint8_t rs[32]
    cdef uint8_t tag[16]
    cdef buf_t db
    cdef const kernel_table* k = active_kernels()
    chacha20_rs(k, key, nonce, rs)
    try:
        get_buf(data, &db)
        try:
            ts = nogil_for(db.len)
            mac_oneshot(k, rs, db.ptr, db.len, tag)
            regain(ts)
        finally:
            put_buf(&db)
    finally:
        wipe(rs, 32)
    return PyBytes_FromStringAndSize(<char*>tag, 16)


def chacha20_poly1305_key_pair(key, nonce):
    """(r, s, nonce) for Poly1305 from ChaCha20 block 0 under a 32-byte key and
    an 8- or 12-byte nonce (the latter as RFC 8439 section 2.6); a random
    12-byte nonce when ``nonce`` is None.  pycryptodome's
    ``ChaCha20._derive_Poly1305_key_pair`` (poly1305x.ChaCha20 exposes it
    under that name): the nonce comes back as it was passed."""
    cdef uint8_t rs[32]
    made = chacha20_rs(active_kernels(), key, nonce, rs)
    r = PyBytes_FromStringAndSize(<char*>rs, 16)
    s = PyBytes_FromStringAndSize(<char*>rs + 16, 16)
    wipe(rs, 32)
    return r, s, (made if nonce is None else nonce)



cdef class Poly1305_MAC(_MacBase):
    """A Poly1305 MAC object in pycryptodome's shape (``Crypto.Hash.Poly1305``).
    Create it with :func:`poly1305x.Poly1305.new`.

    :ivar digest_size: the size in bytes of the resulting MAC tag
    :ivar nonce: the nonce the key pair was derived with"""
    digest_size = 16
    cdef public object nonce
    cdef object __weakref__

    def __init__(self, r, s, data):
        cdef buf_t rb, sb
        init_begin(&self.state, self)
        try:
            get_fixed(r, &rb, 16, "Parameter r is not 16 bytes long")
            try:
                get_fixed(s, &sb, 16, "Parameter s is not 16 bytes long")
            except BaseException:
                put_buf(&rb)
                raise
        except BaseException:
            init_end(&self.state, False)
            raise
        self._key(rb.ptr, sb.ptr)
        put_buf(&rb)
        put_buf(&sb)
        self.nonce = None
        init_end(&self.state, True)
        if data:
            if self._update(data):
                mac_finished()

    def update(self, data):
        """Authenticate the next chunk of message; returns self."""
        if self._update(data):
            mac_finished()
        return self

    def copy(self):
        raise NotImplementedError()

    def digest(self):
        """Return the binary (16-byte) MAC tag of the message so far."""
        self._finish()
        return PyBytes_FromStringAndSize(<char*>self.tag, 16)

    def hexdigest(self):
        """Return the MAC tag as a hexadecimal string."""
        return self.digest().hex()

    def verify(self, mac_tag):
        """Raise ValueError("MAC check failed") unless ``mac_tag`` matches
        (constant-time comparison)."""
        cdef bint ok
        self._finish()
        ok = tag_matches(mac_tag, self.tag)
        if not ok:
            raise ValueError("MAC check failed")

    def hexverify(self, hex_mac_tag):
        """Like verify(), for a hexadecimal tag."""
        from binascii import unhexlify
        if isinstance(hex_mac_tag, str):
            hex_mac_tag = hex_mac_tag.encode("latin-1")
        self.verify(unhexlify(hex_mac_tag))
