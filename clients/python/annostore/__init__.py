"""Annostore's Python client: ``annostore.Client(url, key)`` speaks API v2 with the standard library alone.

The optional ``annostore.torch`` module (NumPy, Pillow and PyTorch) reads a project as a
``torch.utils.data.Dataset``.
"""

from .client import Client, sha256_base64
from .errors import (
    AnnostoreError,
    Conflict,
    Forbidden,
    Gone,
    NotFound,
    PreconditionFailed,
    RateLimited,
    TaskFailed,
    Unauthorized,
    ValidationError,
)

__all__ = [
    "AnnostoreError",
    "Client",
    "Conflict",
    "Forbidden",
    "Gone",
    "NotFound",
    "PreconditionFailed",
    "RateLimited",
    "TaskFailed",
    "Unauthorized",
    "ValidationError",
    "sha256_base64",
]
__version__ = "0.1.0"
