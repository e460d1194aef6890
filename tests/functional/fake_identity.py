"""A stand-in for Keystone, enough for the openstack CLI to log in.

nova_lite runs without Keystone (``[api] auth_strategy = noauth2``, where
a token is ``user[:project]``), but some CLI commands need an identity
service: ``openstack quota show <project>`` looks the project up, and
commands that cover several services (``limits show``) ask the service
catalog which of them exist. This one issues every password login the
token ``admin`` (an administrator to noauth2), with a catalog that holds
only itself, the Compute API (and its image proxy) and, when given, the
port service, and knows every project by its id (its name is its id).
"""

import datetime
import http.server
import json
import threading

_DOMAIN = {'id': 'default', 'name': 'Default'}


class FakeIdentity:
    """Serves /v3 on an ephemeral loopback port until ``stop()``."""

    token = 'admin'

    def __init__(self, compute_url, network_url=None):
        self.compute_url = compute_url.rstrip('/')
        self.network_url = network_url.rstrip('/') if network_url else None
        identity = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                identity._get(self)

            def do_POST(self):
                identity._post(self)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                      Handler)
        self.url = 'http://127.0.0.1:%d/v3' % self.server.server_port
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def clouds_yaml(self):
        """A clouds.yaml cloud ``nova-lite`` that logs in here."""
        return ('clouds:\n  nova-lite:\n    auth_type: password\n'
                '    auth:\n      auth_url: %s\n      username: admin\n'
                '      password: secret\n      project_name: admin\n'
                '      user_domain_id: default\n'
                '      project_domain_id: default\n'
                '    region_name: RegionOne\n' % self.url)

    # -- answers -------------------------------------------------------

    @staticmethod
    def _reply(request, status, document, headers=None):
        body = json.dumps(document).encode('utf-8')
        request.send_response(status)
        request.send_header('Content-Type', 'application/json')
        request.send_header('Content-Length', str(len(body)))
        for name, value in (headers or {}).items():
            request.send_header(name, value)
        request.end_headers()
        request.wfile.write(body)

    def _version(self):
        return {'id': 'v3.14', 'status': 'stable',
                'updated': '2020-04-07T00:00:00Z',
                'links': [{'rel': 'self', 'href': self.url + '/'}],
                'media-types': [{
                    'base': 'application/json',
                    'type': 'application/vnd.openstack.identity-v3+json'}]}

    def _get(self, request):
        path = request.path.split('?', 1)[0].rstrip('/')
        if path in ('', '/v3'):
            if path == '':
                return self._reply(request, 300, {
                    'versions': {'values': [self._version()]}})
            return self._reply(request, 200, {'version': self._version()})
        if path.startswith('/v3/projects/'):
            project_id = path[len('/v3/projects/'):]
            return self._reply(request, 200, {'project': {
                'id': project_id, 'name': project_id,
                'domain_id': 'default', 'enabled': True,
                'description': '', 'is_domain': False,
                'parent_id': 'default',
                'links': {'self': self.url + '/projects/' + project_id}}})
        self._reply(request, 404, {'error': {
            'code': 404, 'title': 'Not Found',
            'message': 'The fake identity has no %s' % path}})

    def _post(self, request):
        length = int(request.headers.get('Content-Length') or 0)
        request.rfile.read(length)
        if request.path.rstrip('/') != '/v3/auth/tokens':
            return self._reply(request, 404, {'error': {
                'code': 404, 'title': 'Not Found', 'message': 'no such'}})
        now = datetime.datetime.now(datetime.timezone.utc)
        later = now + datetime.timedelta(hours=1)

        def endpoint(service_type, url):
            return {'id': service_type, 'type': service_type,
                    'name': service_type, 'endpoints': [{
                        'id': service_type + '-public',
                        'interface': 'public', 'region': 'RegionOne',
                        'region_id': 'RegionOne', 'url': url}]}
        catalog = [endpoint('identity', self.url),
                   endpoint('compute', self.compute_url + '/v2.1'),
                   # nova_lite's image proxy, as the CLI's image commands
                   # find it.
                   endpoint('image', self.compute_url + '/v2.1')]
        if self.network_url:
            # Unversioned, as the Networking service is registered: the
            # clients discover v2.0 from its version document.
            catalog.append(endpoint('network', self.network_url))
        self._reply(request, 201, {'token': {
            'methods': ['password'],
            'issued_at': now.strftime('%Y-%m-%dT%H:%M:%S.000000Z'),
            'expires_at': later.strftime('%Y-%m-%dT%H:%M:%S.000000Z'),
            'user': {'id': 'admin', 'name': 'admin', 'domain': _DOMAIN,
                     'password_expires_at': None},
            'project': {'id': 'admin', 'name': 'admin',
                        'domain': _DOMAIN},
            'roles': [{'id': 'admin', 'name': 'admin'}],
            'catalog': catalog,
        }}, headers={'X-Subject-Token': self.token})
