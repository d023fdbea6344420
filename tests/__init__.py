"""poly1305x's test suite, one subpackage per layer or feature (kernels,
core, faces, openssh, integrations, hardening, tooling, packaging) and the
shared helpers in tests.support.

pytest imports it with --import-mode=importlib (pyproject.toml): the test
modules are tests.<group>.test_x, found through this package, and nothing is
added to sys.path, so a run outside the source tree tests the installed
poly1305x, never the tree's."""
