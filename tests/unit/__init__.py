"""The unit tests.

Their log records go nowhere unless a test captures them (FakeLogger):
with no handler, Python's last resort printed every warning and logged
traceback of the code under test on the runner's console, among the
results, where a reader of CI's output took them for failures. Eventlet's
deprecation notice, printed by each worker that imports it, goes too.
"""

import logging
import warnings

logging.getLogger().addHandler(logging.NullHandler())
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
