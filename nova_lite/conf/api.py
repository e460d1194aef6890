"""[api]: the Compute REST API daemon and the auth mode of all REST
services."""

from oslo_config import cfg

api_group = cfg.OptGroup(
    'api',
    title='REST APIs',
    help='The Compute API daemon (nova-lite-api), and the authentication '
         'mode shared by the compute, placement and network REST services.')

api_opts = [
    cfg.HostAddressOpt('bind_host',
                       default='0.0.0.0',
                       help='Address the Compute API listens on.'),
    cfg.PortOpt('bind_port',
                default=8774,
                help='Port the Compute API listens on.'),
    cfg.StrOpt('auth_strategy',
               default='keystone',
               choices=[('keystone', 'Validate tokens with '
                                     'keystonemiddleware; configure it in '
                                     '[keystone_authtoken].'),
                        ('noauth2', 'For the quick start and tests only: '
                                    'no authentication at all. The '
                                    'X-Auth-Token header is '
                                    '"user[:project]"; the project defaults '
                                    'to the user and the user "admin" is an '
                                    'administrator. Served on loopback '
                                    'addresses only, unless '
                                    'insecure_noauth2 is set. A request '
                                    'without a token is refused with 401.'),
                        ('http_basic', 'For deployments without Keystone: '
                                       'HTTP basic authentication against '
                                       'the htpasswd file '
                                       'http_basic_auth_user_file (bcrypt '
                                       'digests only), each user given a '
                                       'project and roles by '
                                       'http_basic_auth_roles_file.')],
               help='How REST requests are authenticated, by the Compute '
                    'API, placement and the port service.'),
    cfg.BoolOpt('insecure_noauth2',
                default=False,
                help='Serve noauth2 on a non-loopback address and to '
                     'non-loopback clients. Anyone who reaches the port is '
                     'then whoever they claim to be, administrator '
                     'included: never in a deployment.'),
    cfg.StrOpt('http_basic_auth_user_file',
               default='/etc/nova-lite/htpasswd',
               help='Read with auth_strategy = http_basic: the users and '
                    'their passwords, an Apache htpasswd file with bcrypt '
                    'digests (htpasswd -B). Read again on each login, so '
                    'users are added and removed without a restart.'),
    cfg.StrOpt('http_basic_auth_roles_file',
               default='/etc/nova-lite/http-basic-roles.conf',
               help='Read with auth_strategy = http_basic: who each user '
                    'of http_basic_auth_user_file is, one INI section per '
                    'user name with its project_id and roles (a comma-'
                    'separated list; "admin" makes an administrator), '
                    'e.g.\n[alice]\nproject_id = proj-a\n'
                    'roles = member, reader\n'
                    'A user with no section is refused (403). Read again '
                    'when the file changes.'),
    cfg.IntOpt('max_limit',
               default=1000, min=1, mutable=True,
               help='Most items one list request returns.'),
    cfg.StrOpt('public_endpoint',
               help='Base URL of this API as clients reach it, used in '
                    'links. Default: derived from the request.'),
    cfg.IntOpt('wsgi_threads',
               default=128, min=1,
               help='Requests a REST daemon (its built-in HTTP server) has '
                    'in the application at once; more wait for one to '
                    'finish. A connection that is idle, or whose client is '
                    'still sending its request line and headers, holds '
                    'none. The daemon keeps at most eight connections per '
                    'thread open (at least 1024, at most half its file '
                    'descriptor limit); past that, the connection that has '
                    'waited longest for a request is closed.'),
    cfg.IntOpt('wsgi_keep_alive_timeout',
               default=10, min=0,
               help='Seconds a REST daemon keeps an idle HTTP/1.1 '
                    'connection open for the client\'s next request. 0 '
                    'closes each connection after one response.'),
    cfg.IntOpt('wsgi_header_timeout',
               default=30, min=1,
               help='Seconds a client of a REST daemon (its built-in HTTP '
                    'server) has to send a request\'s line and headers, '
                    'counted from its connection (on a persistent '
                    'connection, once the idle wait '
                    'wsgi_keep_alive_timeout allows is over); a '
                    'client that has not is answered 408 and its '
                    'connection closed. This stops clients that send '
                    'their headers a byte at a time from holding the '
                    'daemon\'s connections. Under gunicorn, uWSGI or '
                    'mod_wsgi the server\'s own settings apply instead.'),
    cfg.IntOpt('rpc_call_timeout',
               default=60, min=1,
               help='Seconds the API waits for an RPC call (for example to '
                    'the conductor) before answering 503/504.'),
]


def register_opts(conf):
    conf.register_group(api_group)
    conf.register_opts(api_opts, group=api_group)


def list_opts():
    return {api_group: api_opts}
