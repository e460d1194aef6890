"""Helpers shared by the Compute API handlers: links, paging, time."""

import urllib.parse

from nova_lite import conf as nova_conf
from nova_lite import exception

CONF = nova_conf.CONF

API_PREFIX = 'v2.1'
# The largest integer a query parameter may carry: the database's integer
# columns (and SQLite's driver) refuse larger ones with an error, not a row.
MAX_INT = 2 ** 31 - 1


def links(request, collection, ident):
    """self (versioned) and bookmark (unversioned) links of a resource."""
    base = request.endpoint()
    if base.endswith('/' + API_PREFIX):
        base = base[:-len(API_PREFIX) - 1]
    return [
        {'rel': 'self',
         'href': '%s/%s/%s/%s' % (base, API_PREFIX, collection, ident)},
        {'rel': 'bookmark', 'href': '%s/%s/%s' % (base, collection, ident)},
    ]


def next_link(request, collection, items, limit, last_id):
    """The ``<collection>_links`` list: a next link when the page is full."""
    if limit is None or len(items) < limit or not items:
        return []
    params = dict(request.GET.items())
    params['marker'] = last_id
    params['limit'] = str(limit)
    # Quoted: a key pair name, the marker of its list, may hold spaces.
    query = urllib.parse.urlencode(sorted(params.items()))
    base = request.endpoint()
    if not base.endswith('/' + API_PREFIX):
        base = '%s/%s' % (base, API_PREFIX)
    return [{'rel': 'next', 'href': '%s/%s?%s' % (base, collection, query)}]


def _non_negative(request, name, maximum=None):
    """The integer query parameter ``name`` (None if absent); 400 if it is
    not a non-negative integer (or above ``maximum``)."""
    value = request.GET.get(name)
    if value is None:
        return None
    try:
        value = int(value)
    except ValueError:
        raise exception.ValidationError(
            attribute=name, reason='%s must be an integer.' % name)
    if value < 0:
        raise exception.ValidationError(
            attribute=name, reason='%s must be >= 0.' % name)
    if maximum is not None and value > maximum:
        raise exception.ValidationError(
            attribute=name, reason='%s must be <= %d.' % (name, maximum))
    return value


def offset(request):
    """``offset`` from the query string (0 if absent)."""
    return _non_negative(request, 'offset', MAX_INT) or 0


def paging(request):
    """(limit, marker) from the query string; limit capped by max_limit."""
    limit = _non_negative(request, 'limit')
    if limit is not None:
        limit = min(limit, CONF.api.max_limit)
    else:
        limit = CONF.api.max_limit
    return limit, request.GET.get('marker')


def isotime(value):
    """ISO 8601 UTC with a Z, as the Compute API writes times."""
    if value is None:
        return None
    return value.replace(tzinfo=None, microsecond=0).isoformat() + 'Z'


def bool_param(request, name, default=False):
    value = request.GET.get(name)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered in ('1', 'true', 't', 'yes', 'y', 'on', ''):
        return True
    if lowered in ('0', 'false', 'f', 'no', 'n', 'off'):
        return False
    raise exception.ValidationError(attribute=name,
                                    reason='%r is not a boolean.' % value)
