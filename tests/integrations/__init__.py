"""Tests of the integrations: HPKE (pyhpke, rfc9180), MLS, Noise, paramiko, asyncssh."""
