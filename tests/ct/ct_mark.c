/* Valgrind client requests for the constant-time check (ct_valgrind.py).
 * ct_secret() marks bytes "undefined" for memcheck, which then reports every
 * conditional branch and every memory address computed from them: a
 * secret-dependent branch or table index in the code that handles them.
 * ct_public() declassifies results (tags, ciphertexts) once they are returned.
 * Outside valgrind both are no-ops.  The technique is the one BoringSSL
 * (CONSTTIME_SECRET) and libsodium use; Adam Langley's ctgrind introduced it. */
#include <stddef.h>
#include <valgrind/memcheck.h>

void ct_secret(const void *p, size_t n) { VALGRIND_MAKE_MEM_UNDEFINED(p, n); }
void ct_public(const void *p, size_t n) { VALGRIND_MAKE_MEM_DEFINED(p, n); }
int ct_running_on_valgrind(void) { return (int)RUNNING_ON_VALGRIND; }

/* Positive control: a comparison that leaves at the first difference, the
 * classic timing leak.  Called on secrets, memcheck must report it; if it does
 * not, the harness is not marking anything and a clean result means nothing. */
__attribute__((noinline)) int ct_canary_leaky_compare(const unsigned char *a,
                                                      const unsigned char *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}
