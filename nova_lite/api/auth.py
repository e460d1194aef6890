"""Authentication middleware: who is calling, as a RequestContext.

``[api] auth_strategy`` picks the mode, shared by all REST services:

keystone (the default)
    keystonemiddleware's auth_token validates the token (configured in
    ``[keystone_authtoken]``) and leaves X-User-Id / X-Project-Id / X-Roles
    headers, which this module turns into the context.

noauth2 (the quick start and tests)
    No authentication. The ``X-Auth-Token`` header is ``user[:project]``:
    the project defaults to the user, and the user ``admin`` is an
    administrator (role ``admin``). Any other string is simply a user name,
    so openstacksdk's placeholder token ``notused`` is the non-admin user
    ``notused`` in project ``notused``; use token ``admin`` (or
    ``admin:<project>``) for admin work. A request without a token is 401.
    Since anyone is whoever they say, it is served on loopback only: a
    daemon refuses to listen on another address with it
    (``check_bind_address``), and a request from a non-loopback client
    (a WSGI server bound elsewhere) is refused with 401, unless ``[api]
    insecure_noauth2`` is set.

    Placement's noauth2 (``identity_headers``) reads a few more headers,
    as OpenStack Placement's does, so that its role and scope checks can
    be exercised without Keystone: ``X-Roles`` replaces the roles,
    ``X-Project-Id`` the project, and ``OpenStack-System-Scope: all``
    makes the token system-scoped (no project unless ``X-Project-Id``
    names one). The Compute API's and the port service's ignore them, as
    Nova's noauth2 does.

http_basic (deployments without Keystone, as Ironic runs standalone)
    ``Authorization: Basic`` checked against an Apache htpasswd file of
    bcrypt digests (``[api] http_basic_auth_user_file``, with
    oslo.middleware's basic-auth functions). Who a user is comes from
    ``[api] http_basic_auth_roles_file``: an INI section per user with its
    ``project_id`` and ``roles``. A wrong password is 401, a user with no
    section 403. A login checked once is remembered (as a keyed digest,
    never the password) until the htpasswd file changes: a bcrypt check
    costs milliseconds to hundreds of them (by the digest's cost), too much
    for every call a service makes.

Version discovery documents (``public_paths``) are served without a token,
as clients fetch them before they authenticate.
"""

import configparser
import hashlib
import hmac
import ipaddress
import os
import secrets
import socket
import threading

from oslo_log import log as logging
from oslo_middleware import basic_auth
from oslo_middleware import exceptions as middleware_exceptions
import webob.dec
import webob.exc

from nova_lite import conf as nova_conf
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite.api import faults
from nova_lite.api import middleware
from nova_lite.api import wsgi

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

ADMIN_USER = 'admin'


def _request_ids(request):
    """The request's own id (``api.middleware``'s RequestId gave it one)
    and the caller's global request id, only if well formed: both go
    into every log line of the request, in every daemon."""
    ids = {'global_request_id': middleware.global_request_id(request)}
    local = middleware.local_request_id(request)
    if local is not None:
        ids['request_id'] = local
    return ids


class _ContextMiddleware:

    def __init__(self, application, public_paths=(),
                 error_formatter=faults.compute_fault_body):
        self.application = application
        self.public_paths = {p.rstrip('/') or '/' for p in public_paths}
        self.error_formatter = error_formatter

    def _is_public(self, request):
        path = request.path_info.rstrip('/') or '/'
        return request.method == 'GET' and path in self.public_paths

    def _unauthorized(self, message):
        return faults.error_response(401, message, self.error_formatter)

    @webob.dec.wsgify
    def __call__(self, request):
        try:
            wsgi.check_url(request)
        except exception.Invalid as e:
            return faults.error_response(400, e.format_message(),
                                         self.error_formatter)
        try:
            context = self.context_from(request)
        except _Refused as refused:
            return refused.response(self.error_formatter)
        if context is None:
            if not self._is_public(request):
                return self._unauthorized('Authentication required: send '
                                          'an X-Auth-Token header.')
        else:
            request.environ[wsgi.CONTEXT_KEY] = context
        response = request.get_response(self.application)
        if context is not None:
            # The id every log line of the request carries, in every
            # daemon the request reaches: what an operator greps for.
            response.headers['X-OpenStack-Request-ID'] = context.request_id
        return response


class _Refused(Exception):
    """The caller said who they are and is refused: 401 or 403."""

    def __init__(self, status, message, headers=None):
        super().__init__(message)
        self.status = status
        self.headers = headers or {}

    def response(self, error_formatter):
        response = faults.error_response(self.status, str(self),
                                         error_formatter)
        response.headers.update(self.headers)
        return response


def is_loopback(host):
    """Whether every address ``host`` (an address or a name) stands for
    is a loopback one."""
    if not host:
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        found = socket.getaddrinfo(host, None)
    except OSError:
        return False
    return bool(found) and all(
        ipaddress.ip_address(info[4][0].split('%')[0]).is_loopback
        for info in found)


def check_bind_address(binary, bind_host):
    """Refuse to serve noauth2 on a non-loopback address (unless ``[api]
    insecure_noauth2``): anyone who reached it would be an
    administrator."""
    if CONF.api.auth_strategy == 'noauth2' and \
            not CONF.api.insecure_noauth2 and not is_loopback(bind_host):
        raise exception.ConfigurationError(
            reason='%s: [api] auth_strategy = noauth2 authenticates '
                   'nobody, so it is served on a loopback address only, '
                   'and bind_host is %s. Use keystone, or bind to '
                   '127.0.0.1 (or set [api] insecure_noauth2 = true for a '
                   'test bed no one else can reach)' % (binary, bind_host))


def _roles(header_value):
    return [r.strip().lower() for r in header_value.split(',')
            if r.strip()]


class NoAuth2(_ContextMiddleware):
    """``X-Auth-Token: user[:project]``; see the module docstring.

    With ``identity_headers``, X-Roles, X-Project-Id and
    OpenStack-System-Scope say more about the caller (placement's)."""

    def __init__(self, application, public_paths=(),
                 error_formatter=faults.compute_fault_body,
                 identity_headers=False):
        super().__init__(application, public_paths, error_formatter)
        self.identity_headers = identity_headers

    def __call__(self, environ, start_response):
        # No REMOTE_ADDR: called in-process, not over a socket.
        remote = environ.get('REMOTE_ADDR')
        if remote is not None and not CONF.api.insecure_noauth2 and \
                not is_loopback(remote):
            response = self._unauthorized(
                'This service runs without authentication ([api] '
                'auth_strategy = noauth2) and serves loopback clients '
                'only.')
            return response(environ, start_response)
        return super().__call__(environ, start_response)

    def context_from(self, request):
        token = request.headers.get('X-Auth-Token', '').strip()
        if not token:
            return None
        user_id, _sep, project_id = token.partition(':')
        user_id = user_id.strip()
        project_id = project_id.strip() or user_id
        if not user_id:
            return None
        # As Keystone would flatten them: admin implies member, member
        # implies reader.
        roles = ['admin', 'member', 'reader'] if user_id == ADMIN_USER \
            else ['member', 'reader']
        system_scope = None
        if self.identity_headers:
            if 'X-Roles' in request.headers:
                roles = _roles(request.headers['X-Roles'])
            system_scope = request.headers.get(
                'OpenStack-System-Scope', '').strip() or None
            if system_scope:
                project_id = None
            project_id = request.headers.get(
                'X-Project-Id', '').strip() or project_id
        return nova_context.RequestContext(
            user_id=user_id, project_id=project_id,
            is_admin='admin' in roles, roles=roles,
            system_scope=system_scope, **_request_ids(request))


class KeystoneContext(_ContextMiddleware):
    """Builds the context from the headers keystonemiddleware left."""

    def context_from(self, request):
        if request.headers.get('X-Identity-Status') != 'Confirmed':
            return None
        roles = _roles(request.headers.get('X-Roles', ''))
        return nova_context.RequestContext(
            user_id=request.headers.get('X-User-Id'),
            project_id=request.headers.get('X-Project-Id'),
            is_admin='admin' in roles, roles=roles,
            # A system-scoped token: a rule for project-scoped ones
            # (placement's) refuses it.
            system_scope=request.headers.get('OpenStack-System-Scope'),
            auth_token=request.headers.get('X-Auth-Token'),
            **_request_ids(request))


def _file_stamp(path):
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_mtime_ns, status.st_size, status.st_ino)


class BasicUsers:
    """The users of http_basic: passwords from the htpasswd file, who
    each is from the roles file. Both are read again when they change."""

    # Remembered logins, at most; past that the memory starts again.
    REMEMBERED = 1024

    def __init__(self, user_file, roles_file):
        self.user_file = user_file
        self.roles_file = roles_file
        self._lock = threading.Lock()
        self._key = secrets.token_bytes(32)
        self._checked = {}
        self._users_stamp = None
        self._roles = {}
        self._roles_stamp = None

    def check_files(self):
        """ConfigurationError unless both files are readable and
        well formed (at start, as a daemon should fail)."""
        try:
            basic_auth.validate_auth_file(self.user_file)
        except middleware_exceptions.ConfigInvalid as e:
            raise exception.ConfigurationError(
                reason='[api] http_basic_auth_user_file %s: %s' %
                       (self.user_file, e))
        except webob.exc.HTTPException as e:
            raise exception.ConfigurationError(
                reason='[api] http_basic_auth_user_file %s: %s' %
                       (self.user_file, e.detail))
        self._read_roles()

    def _read_roles(self):
        stamp = _file_stamp(self.roles_file)
        if stamp is not None and stamp == self._roles_stamp:
            return self._roles
        parser = configparser.ConfigParser(interpolation=None,
                                           default_section='\0none')
        try:
            with open(self.roles_file) as f:
                parser.read_file(f)
        except (OSError, configparser.Error) as e:
            raise exception.ConfigurationError(
                reason='[api] http_basic_auth_roles_file %s: %s' %
                       (self.roles_file, e))
        roles = {}
        for user in parser.sections():
            section = parser[user]
            if not section.get('project_id', '').strip():
                raise exception.ConfigurationError(
                    reason='[api] http_basic_auth_roles_file %s: user %s '
                           'has no project_id' % (self.roles_file, user))
            roles[user] = (section['project_id'].strip(), [
                r.strip().lower() for r in section.get('roles', '').split(',')
                if r.strip()])
        self._roles, self._roles_stamp = roles, stamp
        return roles

    def _digest(self, user, password):
        return hmac.new(self._key, user.encode('utf-8') + b'\0' + password,
                        hashlib.sha256).digest()

    def authenticate(self, user, password):
        """(project_id, roles) of ``user``; _Refused otherwise."""
        stamp = _file_stamp(self.user_file)
        digest = self._digest(user, password)
        with self._lock:
            if stamp != self._users_stamp:
                self._checked.clear()
                self._users_stamp = stamp
            known = self._checked.get(user) == digest
        if not known:
            try:
                basic_auth.authenticate(self.user_file, user, password)
            except webob.exc.HTTPException as e:
                if e.code != 401:
                    LOG.error('http_basic: cannot check %s against %s: %s',
                              user, self.user_file, e.detail)
                raise _Refused(401, 'The user name or password is wrong.',
                               {'WWW-Authenticate': _CHALLENGE})
            with self._lock:
                if len(self._checked) >= self.REMEMBERED:
                    self._checked.clear()
                self._checked[user] = digest
        with self._lock:
            try:
                roles = self._read_roles()
            except exception.ConfigurationError as e:
                LOG.error('http_basic: %s', e)
                raise _Refused(403, 'No project is configured for user '
                                    '%s.' % user)
        if user not in roles:
            raise _Refused(403, 'No project is configured for user %s.' %
                           user)
        return roles[user]


_CHALLENGE = 'Basic realm="nova-lite"'


class HTTPBasic(_ContextMiddleware):
    """``Authorization: Basic``; see the module docstring."""

    def __init__(self, application, public_paths=(),
                 error_formatter=faults.compute_fault_body, users=None):
        super().__init__(application, public_paths, error_formatter)
        self.users = users or BasicUsers(
            CONF.api.http_basic_auth_user_file,
            CONF.api.http_basic_auth_roles_file)
        self.users.check_files()

    def _unauthorized(self, message):
        response = super()._unauthorized(
            'Authentication required: send an Authorization: Basic '
            'header.')
        response.headers['WWW-Authenticate'] = _CHALLENGE
        return response

    def context_from(self, request):
        if 'HTTP_AUTHORIZATION' not in request.environ:
            return None
        try:
            # Both take the header out of the environ: no secret stays in
            # it for what runs after.
            user, password = basic_auth.parse_token(
                basic_auth.parse_header(request.environ))
        except webob.exc.HTTPException as e:
            raise _Refused(401, e.detail or 'Malformed Authorization '
                                            'header.',
                           {'WWW-Authenticate': _CHALLENGE})
        project_id, roles = self.users.authenticate(user, password)
        return nova_context.RequestContext(
            user_id=user, project_id=project_id, is_admin='admin' in roles,
            roles=roles, **_request_ids(request))


def pipeline(application, public_paths=(),
             error_formatter=faults.compute_fault_body, strategy=None,
             noauth2_identity_headers=False):
    """Wrap ``application`` in the configured authentication mode
    (``noauth2_identity_headers``: placement's noauth2, see the module
    docstring)."""
    strategy = strategy or CONF.api.auth_strategy
    if strategy == 'noauth2':
        return NoAuth2(application, public_paths, error_formatter,
                       identity_headers=noauth2_identity_headers)
    if strategy == 'http_basic':
        return HTTPBasic(application, public_paths, error_formatter)
    if strategy == 'keystone':
        from keystonemiddleware import auth_token
        inner = KeystoneContext(application, public_paths, error_formatter)
        # delay_auth_decision lets unauthenticated requests through to
        # KeystoneContext, which allows only the public version documents.
        from keystoneauth1 import exceptions as ksa_exceptions
        from keystonemiddleware import exceptions as ksm_exceptions
        try:
            # The daemon's own configuration (its --config-file), not a
            # new one read from the default files: oslo_config_config.
            return auth_token.AuthProtocol(
                inner, {'oslo_config_config': CONF,
                        'delay_auth_decision': True})
        except (ksa_exceptions.ClientException,
                ksm_exceptions.ConfigurationError) as e:
            raise exception.ConfigurationError(
                reason='[keystone_authtoken]: %s' % e)
    raise ValueError('unknown [api] auth_strategy %r' % strategy)
