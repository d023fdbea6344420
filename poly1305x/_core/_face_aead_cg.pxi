# Included by _engine.pyx: the class that poly1305x.install("cryptography")
# serves as cryptography's ChaCha20Poly1305 (through a Python subclass in
# poly1305x._install_cryptography): poly1305x's ChaCha20Poly1305 with
# cryptography's own length limit, for code written against cryptography.

# cryptography hands lengths to OpenSSL as C ints: data (encrypt) and
# associated data (both ways) of more bytes are an OverflowError there.
cdef Py_ssize_t CG_MAX_LEN = 0x7FFFFFFF
_CG_TOO_LONG = "Data or associated data too long. Max 2**31 - 1 bytes"


cdef inline int cg_limit(object x) except -1:
    """OverflowError when ``x`` (None or a buffer) is over CG_MAX_LEN bytes;
    a bytes object is measured without a buffer request, and anything that
    is not a buffer is left for the call itself to refuse."""
    cdef buf_t b
    if x is None or (PyBytes_CheckExact(x) and PyBytes_GET_SIZE(x) <= CG_MAX_LEN):
        return 0
    try:
        get_buf(x, &b)
    except (TypeError, BufferError):
        return 0
    try:
        if b.len > <size_t>CG_MAX_LEN:
            raise OverflowError(_CG_TOO_LONG)
    finally:
        put_buf(&b)
    return 0


cdef class ChaCha20Poly1305Cryptography(ChaCha20Poly1305):
    """ChaCha20Poly1305 as cryptography's class behaves: messages and
    associated data up to 2**31 - 1 bytes (OverflowError beyond), where
    poly1305x's own class takes RFC 8439's 2**38 - 64."""

    def encrypt(self, nonce, data, associated_data):
        """ciphertext || 16-byte tag.  ``associated_data`` may be None."""
        cg_limit(data)
        cg_limit(associated_data)
        check_ready(&self.state, self)
        return aead_seal(self.k, self.key, self.nonce_len, nonce, data, associated_data,
                         None)

    def decrypt(self, nonce, data, associated_data):
        """The plaintext, or InvalidTag (and nothing else) when the tag fails."""
        cg_limit(associated_data)
        check_ready(&self.state, self)
        return aead_open(self.k, self.key, self.nonce_len, nonce, data, associated_data,
                         None)

    def encrypt_into(self, nonce, data, associated_data, buf):
        """Write ciphertext || tag into ``buf`` (len(data) + 16 bytes); returns
        the number of bytes written."""
        cg_limit(data)
        cg_limit(associated_data)
        check_ready(&self.state, self)
        return aead_seal(self.k, self.key, self.nonce_len, nonce, data, associated_data,
                         buf)

    def decrypt_into(self, nonce, data, associated_data, buf):
        """Write the plaintext into ``buf`` (len(data) - 16 bytes); returns the
        number of bytes written (zeros in ``buf`` on InvalidTag)."""
        cg_limit(associated_data)
        check_ready(&self.state, self)
        return aead_open(self.k, self.key, self.nonce_len, nonce, data, associated_data,
                         buf)
