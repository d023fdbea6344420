"""Tests of the faces as drop-ins: pycryptodome's and cryptography's, install(), the
swap helper, pycryptodome's own suite."""
