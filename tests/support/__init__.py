"""Helpers shared by the test modules, imported as tests.support.<module>:
helpers (small utilities), reference (big-integer Poly1305 and plain-Python
ChaCha20), hardening, sshd (a real OpenSSH server), ssh_peers (paramiko and
asyncssh peers), peer_sdist and peer_plugin (a peer's own suite with
poly1305x plugged in)."""
