# Included by _engine.pyx (before _face_batch.pxi): the check that refuses a
# (key, nonce) pair that repeats in a batch that seals.  Self-contained: it
# reads the bmsg_t array (_batch.pxi) and nothing else of the batch.
#
# Sealing two messages under one (key, nonce) gives away their XOR and the
# Poly1305 key, so a sealing batch is refused when any two of its messages
# share the key bytes (all 32 of them: two objects or two bytes objects with
# one key are one key), the nonce length and the nonce bytes.  Opening runs no
# such check: a repeat on the receiving side is a replay, which the protocol
# above detects, and each message opens on its own.
#
# The nonces may come from the other side (they travel with the ciphertext),
# so the check must have no slow input.  It takes two steps:
#
# 1. A hash table of the pairs under a per-process random seed (linear
#    probing, at most half full): about one probe a message, and without the
#    seed nobody can choose nonces that collide.  It gives up after 2N + 64
#    extra probes, so that even nonces that do collide (an attacker who
#    learnt the seed, or bad luck) cost O(N) here.
# 2. Only then a sort: the pairs go into a compact array of records (the
#    nonce as three words, the key's first word, the index), which a stable
#    bottom-up merge sort orders (runs of NREC_RUN by insertion, then merges)
#    in O(N log N) whatever the nonces are; equal pairs are then neighbours.
#
# So N messages cost O(N log N) at worst.  Both steps name the same message:
# the table meets the messages in index order, and the sort's stability keeps
# equal pairs in index order, so the answer is the smallest i whose pair a
# message j < i has, the message where a loop of encrypt calls would have
# reused a nonce first.

from cpython.mem cimport PyMem_Calloc, PyMem_Free, PyMem_Malloc
from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memcmp, memcpy, memset

from poly1305x._kernels._util cimport load32_le, load64_le


cdef struct nrec_t:
    uint64_t w0, w1, w2      # the nonce: bytes 0-7, 8-15 (12-byte: 8-11), 16-23 (12-byte: 0)
    uint64_t k0              # the key's bytes 0-7
    size_t idx               # the message's index


cdef enum:
    NREC_STACK = 64          # records (and merge space) on the C stack up to this many
    NREC_RUN = 8             # insertion-sorted runs before the merges
    NREC_NOGIL = 2048        # the check runs without the GIL from this many messages
    TABLE_STACK = 512        # the table's slots on the C stack up to 256 messages


cdef inline int nrec_cmp(const nrec_t* a, const nrec_t* b, const bmsg_t* m) noexcept nogil:
    """A total order on (nonce, key, nonce length); 0 for the same pair.  The
    words decide almost always; the whole key and the nonce length (of the
    message the record names) break a tie of all four."""
    cdef const bmsg_t* ma
    cdef const bmsg_t* mb
    if a.w0 != b.w0:
        return -1 if a.w0 < b.w0 else 1
    if a.w1 != b.w1:
        return -1 if a.w1 < b.w1 else 1
    if a.w2 != b.w2:
        return -1 if a.w2 < b.w2 else 1
    if a.k0 != b.k0:
        return -1 if a.k0 < b.k0 else 1
    ma = &m[a.idx]
    mb = &m[b.idx]
    if ma.nonce_len != mb.nonce_len:
        return -1 if ma.nonce_len < mb.nonce_len else 1
    if ma.key == mb.key:
        return 0
    return memcmp(ma.key, mb.key, 32)


cdef inline void nrec_fill(nrec_t* r, const bmsg_t* m, size_t i) noexcept nogil:
    r.w0 = load64_le(m.nonce)
    if m.nonce_len == 24:
        r.w1 = load64_le(m.nonce + 8)
        r.w2 = load64_le(m.nonce + 16)
    else:
        r.w1 = load32_le(m.nonce + 8)
        r.w2 = 0
    r.k0 = load64_le(m.key)
    r.idx = i


cdef void nrec_merge(const nrec_t* src, nrec_t* dst, size_t lo, size_t mid, size_t hi,
                     const bmsg_t* m) noexcept nogil:
    """dst[lo:hi] = the stable merge of the sorted src[lo:mid] and src[mid:hi]."""
    cdef size_t i = lo, j = mid, o = lo
    while i < mid and j < hi:
        if nrec_cmp(&src[j], &src[i], m) < 0:       # ties take the left: stable
            dst[o] = src[j]
            j += 1
        else:
            dst[o] = src[i]
            i += 1
        o += 1
    if i < mid:
        memcpy(&dst[o], &src[i], (mid - i) * sizeof(nrec_t))
    elif j < hi:
        memcpy(&dst[o], &src[j], (hi - j) * sizeof(nrec_t))


cdef nrec_t* nrec_sort(nrec_t* a, nrec_t* tmp, size_t n, const bmsg_t* m) noexcept nogil:
    """Sort a[0:n] (stable; tmp: room for n records); returns a or tmp,
    whichever holds the result."""
    cdef size_t lo, hi, i, j, width, mid
    cdef nrec_t r
    cdef nrec_t* t
    lo = 0
    while lo < n:
        hi = lo + NREC_RUN if lo + NREC_RUN < n else n
        for i in range(lo + 1, hi):
            r = a[i]
            j = i
            while j > lo and nrec_cmp(&r, &a[j - 1], m) < 0:
                a[j] = a[j - 1]
                j -= 1
            a[j] = r
        lo = hi
    width = NREC_RUN
    while width < n:
        lo = 0
        while lo < n:
            mid = lo + width if lo + width < n else n
            hi = lo + 2 * width if lo + 2 * width < n else n
            nrec_merge(a, tmp, lo, mid, hi, m)
            lo = hi
        t = a
        a = tmp
        tmp = t
        width *= 2
    return a


cdef Py_ssize_t nrec_first_repeat(const bmsg_t* m, size_t count, nrec_t* a,
                                  nrec_t* tmp) noexcept nogil:
    cdef size_t i
    cdef size_t found = count
    cdef nrec_t* s
    for i in range(count):
        nrec_fill(&a[i], &m[i], i)
    s = nrec_sort(a, tmp, count, m)
    for i in range(1, count):
        if s[i].idx < found and nrec_cmp(&s[i - 1], &s[i], m) == 0:
            found = s[i].idx
    return <Py_ssize_t>found if found < count else -1


# --- the table, and the check ---------------------------------------------------

cdef uint64_t nonce_seed[4]          # per process, from os.urandom (below)
cdef bint nonce_check_sort_only = False   # test hook: every batch takes the sort


cdef inline uint64_t pair_hash(const bmsg_t* m) noexcept nogil:
    """The nonce under the process's seed (the slot: the top bits).  The key
    stays out of it: it is secret, and a slot chosen by it would be a
    secret-dependent memory index.  Equal nonces under other keys meet in one
    probe chain and are told apart by keys_equal (constant time)."""
    cdef uint64_t h = (load64_le(m.nonce) ^ nonce_seed[0]) * <uint64_t>0x9E3779B97F4A7C15
    h ^= h >> 32
    h = (h ^ load32_le(m.nonce + 8) ^ nonce_seed[1]) * <uint64_t>0xD6E8FEB86659FD93
    if m.nonce_len == 24:
        h ^= h >> 32
        h = (h ^ load64_le(m.nonce + 12) ^ nonce_seed[2]) * <uint64_t>0x9E3779B97F4A7C15
        h ^= h >> 32
        h = (h ^ load32_le(m.nonce + 20) ^ nonce_seed[3]) * <uint64_t>0xD6E8FEB86659FD93
    return h


cdef inline bint keys_equal(const uint8_t* a, const uint8_t* b) noexcept nogil:
    """The two 32-byte keys are equal, in constant time."""
    return tags_equal(a, b, 32) != 0


cdef inline bint same_pair(const bmsg_t* x, const bmsg_t* y) noexcept nogil:
    # keys_equal's answer is public: a repeat is refused, which the caller sees
    return (x.nonce_len == y.nonce_len and load64_le(x.nonce) == load64_le(y.nonce)
            and memcmp(x.nonce, y.nonce, x.nonce_len) == 0
            and (x.key == y.key or keys_equal(x.key, y.key)))


cdef Py_ssize_t table_first_repeat(const bmsg_t* m, size_t count, uint32_t* slots,
                                   int bits, size_t budget) noexcept nogil:
    """The first repeat by the seeded table (linear probing, at most half
    full); -1 for none, -2 when the probes pass ``budget`` (the sort decides)."""
    cdef size_t i, j, h, mask = (<size_t>1 << bits) - 1
    cdef int shift = 64 - bits
    for i in range(count):
        h = <size_t>(pair_hash(&m[i]) >> shift)
        while slots[h]:
            j = slots[h] - 1
            if same_pair(&m[j], &m[i]):
                return <Py_ssize_t>i
            if budget == 0:
                return -2
            budget -= 1
            h = (h + 1) & mask
        slots[h] = <uint32_t>(i + 1)
    return -1


cdef Py_ssize_t sorted_first_repeat(const bmsg_t* m, size_t count) except -2:
    cdef nrec_t small[2 * NREC_STACK]
    cdef nrec_t* a = small
    cdef Py_ssize_t found
    if count > NREC_STACK:
        a = <nrec_t*>PyMem_Malloc(2 * count * sizeof(nrec_t))
        if a == NULL:
            raise MemoryError()
    try:
        if count >= NREC_NOGIL:
            with nogil:
                found = nrec_first_repeat(m, count, a, a + count)
        else:
            found = nrec_first_repeat(m, count, a, a + count)
    finally:
        if a != small:
            PyMem_Free(a)
    return found


cdef Py_ssize_t batch_repeated_nonce(const bmsg_t* m, size_t count) except -2:
    """The smallest index i such that a message j < i has the same key bytes,
    nonce length and nonce as message i; -1 when there is none."""
    cdef uint32_t small[TABLE_STACK]
    cdef uint32_t* slots = small
    cdef Py_ssize_t found
    cdef size_t size = 16, budget = 2 * count + 64
    cdef int bits = 4
    if count < 2:
        return -1
    if nonce_check_sort_only or count >= 0x7fffffff:
        return sorted_first_repeat(m, count)
    while size < 2 * count:
        size <<= 1
        bits += 1
    if size <= TABLE_STACK:
        memset(small, 0, size * sizeof(uint32_t))
    else:
        slots = <uint32_t*>PyMem_Calloc(size, sizeof(uint32_t))
        if slots == NULL:
            raise MemoryError()
    if count >= NREC_NOGIL:
        with nogil:
            found = table_first_repeat(m, count, slots, bits, budget)
    else:
        found = table_first_repeat(m, count, slots, bits, budget)
    if slots != small:
        PyMem_Free(slots)
    if found == -2:
        found = sorted_first_repeat(m, count)
    return found


def _nonce_check_sort_only(bint on):
    """Test hook: with on, every sealing batch's repeat check takes the sort
    (as when the table's probes run out); returns the previous setting."""
    global nonce_check_sort_only
    was = nonce_check_sort_only
    nonce_check_sort_only = on
    return was


def _nonce_check_seed(bytes seed=None):
    """Test hook: the table's seed becomes ``seed`` (32 bytes: a test that
    plays an attacker who knows it), or fresh random bytes (None, as at
    import)."""
    if seed is None:
        seed = os.urandom(32)
    if len(seed) != 32:
        raise ValueError("seed must be 32 bytes")
    memcpy(nonce_seed, <const char*>seed, 32)


_nonce_check_seed()
