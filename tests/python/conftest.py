"""Shared set-up of the Python tests.

The on-disk facts cache is on by default in the bindings and the CLI; the tests
(and the CLI processes they start, which inherit the environment) use a temporary
directory instead of the user's cache.
"""

import os
import shutil
import tempfile

_CACHE = tempfile.mkdtemp(prefix="deepdiscovery-test-cache-")
os.environ["DEEPDISCOVERY_CACHE_DIR"] = _CACHE


def pytest_unconfigure(config):  # noqa: ARG001 - pytest's hook signature
    shutil.rmtree(_CACHE, ignore_errors=True)
