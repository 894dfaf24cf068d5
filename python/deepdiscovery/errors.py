"""The exceptions deepdiscovery raises: one hierarchy under :class:`DeepDiscoveryError`.

Each class also derives from the built-in exception a caller would already catch for
that kind of problem (``FileNotFoundError`` for a missing repository, ``ValueError``
for an empty task or a bad option), so ``except ValueError`` keeps working.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "DeepDiscoveryError",
    "InternalError",
    "ModelError",
    "PluginError",
    "RepositoryError",
    "RepositoryNotADirectoryError",
    "RepositoryNotFoundError",
    "TaskError",
]


class DeepDiscoveryError(Exception):
    """Base class of every error raised by deepdiscovery."""


class RepositoryError(DeepDiscoveryError, OSError):
    """The repository cannot be opened or read."""


class RepositoryNotFoundError(RepositoryError, FileNotFoundError):
    """The repository path does not exist."""


class RepositoryNotADirectoryError(RepositoryError, NotADirectoryError):
    """The repository path exists but is not a directory."""


class TaskError(DeepDiscoveryError, ValueError):
    """The task is empty or unusable."""


class ConfigError(DeepDiscoveryError, ValueError):
    """An option is unknown, of the wrong type or out of range (the message names it)."""


class ModelError(ConfigError):
    """The model folder given as ``embedder_model`` cannot be used: missing, truncated,
    corrupt, or of a shape this build does not read (the message names the file).
    """


class InternalError(DeepDiscoveryError, RuntimeError):
    """A bug in deepdiscovery: a stage failed where it never should (a panic in the Rust
    core, caught at the boundary). The session stays usable; please report the message.
    """


class PluginError(DeepDiscoveryError):
    """A language model or embedder given by the caller failed.

    Queries do not raise it when a plug-in fails mid-query: the stage falls back to its
    deterministic path and the package's ``notes`` say so. It is raised when a plug-in
    is unusable as given (for example, not callable).
    """
