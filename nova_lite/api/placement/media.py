"""The media types placement takes and answers in, as OpenStack Placement.

- A request whose body has a length must say its ``Content-Type`` (400
  otherwise, and for a ``Content-Length`` that is not a number).
- A GET that answers JSON refuses (406) an ``Accept`` header that takes
  no ``application/json``; the version document and ``GET
  /traits/{name}`` (no body) answer whatever is asked.
- An error is written in the media type the client's ``Accept`` prefers:
  JSON when it names none or ``*/*``, HTML to a browser, plain text when
  it takes neither.
"""

import functools
import html

from oslo_serialization import jsonutils
import webob.acceptparse
import webob.dec

from nova_lite.placement import exception

JSON = 'application/json'
HTML = 'text/html'
# The Content-Length the client sent, kept before the body size limit
# (which reads a length it cannot parse as no length at all).
_SENT_LENGTH = 'nova_lite.placement.content_length'


def require_content_type(request):
    """400 for a body of some length whose media type is not said."""
    length = request.environ.get(_SENT_LENGTH)
    try:
        has_body = bool(length) and int(length) > 0
    except ValueError:
        raise exception.BadRequest(
            reason='content-length header must be an integer')
    if has_body and not request.environ.get('CONTENT_TYPE'):
        raise exception.BadRequest(
            reason='content-type header required when content-length > 0')


def _accept(request):
    """The client's Accept header; none or ``*/*`` reads as JSON."""
    value = request.environ.get('HTTP_ACCEPT', '').strip()
    if not value or value == '*/*':
        value = JSON
    return webob.acceptparse.create_accept_header(value)


def answers_json(handler, since_version):
    """``handler``, refusing (406) a client that does not take JSON.

    A route newer than the request's microversion is still its 404 first
    (``since_version`` is where the route begins), as in OpenStack
    Placement, whose version check comes before the Accept check.
    """
    @functools.wraps(handler)
    def wrapper(request, *args, **kwargs):
        if request.is_version(since_version) and \
                not _accept(request).acceptable_offers([JSON]):
            raise exception.NotAcceptable(
                reason='Only application/json is provided')
        return handler(request, *args, **kwargs)
    return wrapper


class ErrorsAsAccepted:
    """Outermost: an error answer rewritten as HTML or plain text when the
    client's Accept prefers it to JSON (a browser, a curl -H 'Accept:
    text/plain'); the status and headers are kept. Notes the
    Content-Length sent for ``require_content_type``."""

    def __init__(self, application):
        self.application = application

    @webob.dec.wsgify
    def __call__(self, request):
        request.environ[_SENT_LENGTH] = request.environ.get('CONTENT_LENGTH')
        response = request.get_response(self.application)
        if response.status_int < 400 or response.content_type != JSON:
            return response
        offers = _accept(request).acceptable_offers([HTML, JSON])
        media_type = offers[0][0] if offers else 'text/plain'
        if media_type == JSON:
            return response
        try:
            errors = jsonutils.loads(response.body)['errors']
            detail = '\n'.join(str(e.get('detail', '')) for e in errors)
        except (ValueError, KeyError, TypeError):
            return response
        status = response.status
        if media_type == HTML:
            response.body = (
                '<html>\n <head>\n  <title>%(status)s</title>\n </head>\n'
                ' <body>\n  <h1>%(status)s</h1>\n  %(detail)s\n </body>\n'
                '</html>\n' % {'status': html.escape(status),
                               'detail': html.escape(detail)}
            ).encode('utf-8')
        else:
            response.body = ('%s\n\n%s\n' % (status, detail)).encode('utf-8')
        response.content_type = media_type
        response.charset = 'UTF-8'
        return response
