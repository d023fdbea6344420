"""poly1305x: fast Poly1305, ChaCha20 and ChaCha20-Poly1305."""
from poly1305x._dispatch import backend, backends, cpu_features, set_backend

__version__ = "0.1.0"
__all__ = ["backend", "backends", "cpu_features", "set_backend", "__version__"]
