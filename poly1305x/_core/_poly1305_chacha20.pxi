# Included by _engine.pyx (it uses the engine's buffers, MAC state and
# Poly1305_MAC class).
#
# pycryptodome's Poly1305.new(key=, cipher=ChaCha20, nonce=, data=) in one
# call: the drop-in line of code that changes only its Poly1305 import keeps
# passing pycryptodome's own ChaCha20 module, so the module is recognised
# (poly1305x's, pycryptodome's or pycryptodomex's: see
# poly1305x._ciphers.is_chacha20) and r and s come from our ChaCha20 block 0,
# with pycryptodome's checks and messages.  Every other cipher goes to the
# face's Python path (poly1305x.Poly1305, over poly1305x._ciphers).
from cpython.dict cimport PyDict_GetItemWithError
from cpython.ref cimport PyObject

#: module -> whether it is a ChaCha20 module whose key pair poly1305x derives;
#: filled by poly1305x._ciphers.is_chacha20 the first time a module is seen.
#: Keyed by the module object: install() changes which module a name gives,
#: never what a module object is, so an entry never goes stale.
chacha20_modules = {}
cdef dict _chacha20_modules = chacha20_modules

# Poly1305.new for every call the fast path does not take (a block cipher, a
# callable, a module not seen before, key_order other than "kr"): the face
# registers it when it is imported.
cdef object _poly1305_new_other = None


def set_poly1305_new_other(fn):
    """Register ``fn(key, cipher, nonce, data, key_order)``: what
    ``new`` calls for a cipher that is not a known ChaCha20 module."""
    global _poly1305_new_other
    _poly1305_new_other = fn


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
        raise TypeError("You must pass a parameter 'key'")
    if not (PyBytes_CheckExact(key) and PyBytes_GET_SIZE(key) == 32) and len(key) != 32:
        raise ValueError("Poly1305 with ChaCha20 requires a 32-byte key")
    if nonce is None:
        nonce = urandom(12)
    n = PyBytes_GET_SIZE(nonce) if PyBytes_CheckExact(nonce) else len(nonce)
    if n != 8 and n != 12:
        raise ValueError("Poly1305 with ChaCha20 requires an 8- or 12-byte nonce")
    get_nonce(nonce, &nb)
    try:
        get_fixed(key, &kb, 32, "Poly1305 with ChaCha20 requires a 32-byte key")
        try:
            if nb.len == 8:
                memset(n12, 0, 4)
                memcpy(n12 + 4, nb.ptr, 8)
            elif nb.len == 12:
                memcpy(n12, nb.ptr, 12)
            else:                   # len() counted items of another size
                raise ValueError("Poly1305 with ChaCha20 requires an 8- or 12-byte nonce")
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
        mac._update(data, None)
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
    return _poly1305_new_other(key, cipher, nonce, data, key_order)


def poly1305_chacha20_new(key, nonce, data):
    """``Poly1305.new(key=key, cipher=ChaCha20, nonce=nonce, data=data)``
    for a known ChaCha20 module, positionally."""
    return chacha20_mac(key, nonce, data)


def poly1305_chacha20_tag(key, nonce, data):
    """The tag of ``data`` under the (r, s) of ChaCha20 block 0, in one call
    and with no object: ``poly1305_chacha20_new(key, nonce, data).digest()``."""
    cdef uint8_t rs[32]
    cdef uint8_t tag[16]
    cdef buf_t db
    cdef const kernel_table* k = active_kernels()
    chacha20_rs(k, key, nonce, rs)
    try:
        get_buf(data, &db)
        try:
            if db.len >= GIL_THRESHOLD:
                with nogil:
                    mac_oneshot(k, rs, db.ptr, db.len, tag)
            else:
                mac_oneshot(k, rs, db.ptr, db.len, tag)
        finally:
            put_buf(&db)
    finally:
        wipe(rs, 32)
    return PyBytes_FromStringAndSize(<char*>tag, 16)


def chacha20_poly1305_key_pair(key, nonce):
    """(r, s) for Poly1305 from ChaCha20 block 0 under a 32-byte key and an
    8- or 12-byte nonce (the latter as RFC 8439 section 2.6)."""
    cdef uint8_t rs[32]
    if nonce is None:
        raise TypeError("chacha20_poly1305_key_pair() needs the nonce")
    chacha20_rs(active_kernels(), key, nonce, rs)
    r = PyBytes_FromStringAndSize(<char*>rs, 16)
    s = PyBytes_FromStringAndSize(<char*>rs + 16, 16)
    wipe(rs, 32)
    return r, s
