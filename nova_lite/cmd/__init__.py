"""Console scripts. Importing this package picks the concurrency backend.

The backend has to be chosen before oslo.messaging, SQLAlchemy or anything
that creates locks or threads is imported, so this package's first act is
to read it (``nova_lite.concurrency``, which needs only the standard
library) and, for eventlet, to monkey-patch.
"""

import warnings

from nova_lite import concurrency

# oslo libraries import eventlet even in threading mode, and eventlet warns
# loudly on import; the backend is chosen deliberately below.
warnings.filterwarnings('ignore', message=r'(?s).*Eventlet is deprecated')

if concurrency.backend() == 'eventlet':
    import eventlet
    eventlet.monkey_patch()
