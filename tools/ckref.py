"""The shared helpers moved to the pip-installable package: python/cachekey/ref.py.

``import ckref`` (tools/ and tests/oracle put tools/ on sys.path) keeps working:
this module puts python/ on sys.path and makes the name ``ckref`` refer to
``cachekey.ref`` itself, so nothing is copied.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))

from cachekey import ref  # noqa: E402

sys.modules[__name__] = ref
