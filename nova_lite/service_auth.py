"""How nova_lite's services call each other's REST APIs: through
keystoneauth1 sessions and adapters, as Nova calls Placement and Neutron.

Each peer API has its config group, ``[placement]`` and ``[network]``,
holding keystoneauth1's usual options:

- the auth plugin: ``auth_type`` and that plugin's options, e.g. for
  ``password``: ``auth_url``, ``username``, ``password``,
  ``project_name``, ``user_domain_name``, ``project_domain_name``;
- the session's: ``cafile``, ``certfile``, ``keyfile``, ``insecure``,
  ``timeout``;
- the adapter's: ``service_type``, ``valid_interfaces``, ``region_name``,
  ``endpoint_override``. Without an override the endpoint is found in the
  service catalog the plugin's token came with.

``auth_type = http_basic`` (``username``, ``password``) calls services
that run ``auth_strategy = http_basic``; with no catalog, the endpoint is
``endpoint_override`` or the service's default address on 127.0.0.1.

``auth_type = noauth2`` is for a deployment whose REST services all run
``[api] auth_strategy = noauth2`` (the quick start and the tests, on
loopback only). There a token is just the name it claims, so the services
claim ``admin``, and the endpoint is ``endpoint_override`` or the service's
default address on 127.0.0.1. An unset ``auth_type`` means noauth2 when
this daemon's own ``auth_strategy`` is noauth2; otherwise the client
refuses to start and says what to set.

Every request carries the global request id of the request it is made
for (the thread's current context), so one id follows a boot through
placement's and the port service's logs as well.
"""

from keystoneauth1 import exceptions as ksa_exceptions
from keystoneauth1 import loading as ks_loading
from keystoneauth1 import plugin as ksa_plugin
from oslo_config import cfg
from oslo_context import context as oslo_context

from nova_lite import exception
from nova_lite import http_client

CONF = cfg.CONF

NOAUTH2 = 'noauth2'
# The user the services claim to be under noauth2: the administrator.
NOAUTH2_USER = 'admin'
# Connection failures of every kind keystoneauth1 raises (no endpoint in
# the catalog, the identity service refusing the service's credentials,
# a refused or timed-out connection): the peer is unavailable to us.
ClientException = ksa_exceptions.ClientException


class _NoAuth2(ksa_plugin.FixedEndpointPlugin):
    """The token is the claimed user; the endpoint is given."""

    def get_token(self, session, **kwargs):
        return NOAUTH2_USER


def _auth(group, default_endpoint):
    options = CONF[group]
    auth_type = options.auth_type
    if auth_type is None and CONF.api.auth_strategy == NOAUTH2:
        auth_type = NOAUTH2
    if auth_type == NOAUTH2:
        return _NoAuth2(options.endpoint_override or default_endpoint)
    if auth_type is None:
        raise exception.ConfigurationError(
            reason='[%s] auth_type is not set, so this service has no '
                   'credentials to call the %s API with. Set auth_type: '
                   'password (with auth_url, username, password, '
                   'project_name, user_domain_name and project_domain_name) '
                   'under Keystone, http_basic (with username and password) '
                   'under auth_strategy = http_basic, or noauth2 when that '
                   'service runs auth_strategy = noauth2' %
                   (group, options.service_type))
    try:
        auth = ks_loading.load_auth_from_conf_options(CONF, group)
    except (ksa_exceptions.ClientException, cfg.Error) as e:
        raise exception.ConfigurationError(reason='[%s]: %s' % (group, e))
    if isinstance(auth, ksa_plugin.FixedEndpointPlugin) and \
            not auth.endpoint:
        # No catalog (http_basic): the local service, as under noauth2.
        auth.endpoint = options.endpoint_override or default_endpoint
    return auth


def adapter(group, default_endpoint, endpoint=None):
    """A keystoneauth1 Adapter for the API configured in ``[group]``.

    ``endpoint`` overrides every configured one (tests). Requests through
    it are tried again on connection failures as ``http_client`` says."""
    auth = _auth(group, endpoint or default_endpoint)
    session = ks_loading.load_session_from_conf_options(
        CONF, group, auth=auth, session=http_client.session())
    return ks_loading.load_adapter_from_conf_options(
        CONF, group, session=session, auth=auth,
        endpoint_override=endpoint or CONF[group].endpoint_override)


def global_request_id():
    """The id of the request the calling thread works for, if any."""
    context = oslo_context.get_current()
    return context.global_id if context is not None else None
