"""The HTTP sessions nova_lite's services use to call each other's REST
APIs (placement, the port service).

Each is a persistent-connection ``requests.Session`` that tries a request
again, up to three times, when it could not connect, and a GET also when
the connection dropped before an answer came: a saturated server closes
its idle keep-alive connections, and a request sent on one just as it
closes meets "Remote end closed connection without response". A write
that may have reached the server is never sent twice (a claim written
twice would be refused as a conflict with itself); its caller sees
PlacementUnavailable and handles it as any outage.
"""

import requests
from requests import adapters
from urllib3 import exceptions as urllib3_exceptions
from urllib3 import util as urllib3_util

RETRIES = 3


class _Retry(urllib3_util.Retry):
    """Again after a connection failure, never after a read timeout: the
    server may be working on that request still."""

    def increment(self, method=None, url=None, response=None, error=None,
                  _pool=None, _stacktrace=None):
        if isinstance(error, urllib3_exceptions.ReadTimeoutError):
            raise error
        return super().increment(method, url, response, error, _pool,
                                 _stacktrace)


def session(headers=None):
    retry = _Retry(
        total=RETRIES, connect=RETRIES, read=RETRIES, status=0, other=0,
        allowed_methods=frozenset({'GET', 'HEAD'}), backoff_factor=0.05,
        raise_on_status=False, respect_retry_after_header=False)
    new = requests.Session()
    new.mount('http://', adapters.HTTPAdapter(max_retries=retry))
    new.mount('https://', adapters.HTTPAdapter(max_retries=retry))
    if headers:
        new.headers.update(headers)
    return new
