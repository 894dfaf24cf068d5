"""The on-disk facts cache: what is in it, and emptying it.

Sessions keep per-file facts (what tree-sitter found in each file) in a cache
directory shared by processes, so that a second process on an unchanged repository
does not parse again; answers are the same with or without it. The directory is
``Config(cache_dir=...)``, else ``$DEEPDISCOVERY_CACHE_DIR``, else the platform's
cache directory (``~/.cache/deepdiscovery`` on Linux); ``Config(cache=False)`` turns
it off.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional, Union

from deepdiscovery import _native

__all__ = ["cache_clear", "cache_info"]

PathArg = Optional[Union[str, "os.PathLike[str]"]]


def cache_info(cache_dir: PathArg = None) -> Dict[str, Any]:
    """The cache in ``cache_dir`` (default as above): ``dir``, ``entries``, ``bytes``,
    ``max_bytes`` and ``version`` (what this build's entries are keyed by). Creates
    nothing."""
    return json.loads(_native.cache_info(_path(cache_dir)))


def cache_clear(cache_dir: PathArg = None) -> int:
    """Removes every entry of the cache in ``cache_dir`` (and nothing else there);
    returns how many were removed."""
    return _native.cache_clear(_path(cache_dir))


def _path(cache_dir: PathArg) -> Optional[str]:
    return None if cache_dir is None else os.fspath(cache_dir)
