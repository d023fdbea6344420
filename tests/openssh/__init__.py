"""Tests of poly1305x.openssh: key files, packets, cryptography's loader, hostile keys."""
