"""deepdiscovery: complete task-level repository context for coding agents.

The native core does the work; this package is the Python face over it.
"""

from deepdiscovery._native import DeepDiscoveryError, Session, version

__version__ = version()

__all__ = ["DeepDiscoveryError", "Session", "__version__", "version"]
