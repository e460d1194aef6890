"""A test case that talks to the Placement app in-process over SQLite.

``PlacementDatabase`` gives each test its own API database: the schema is
migrated once per test process into a template file, which each test
copies (a fresh migration per test would dominate the run time).
"""

import atexit
import os
import shutil
import tempfile
import threading

import fixtures
from oslo_config import fixture as config_fixture
from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import testtools
import webob

from nova_lite import conf as nova_conf
from nova_lite.api import placement as placement_app
from nova_lite.db import api as db_api
from nova_lite.db import migration
from nova_lite.placement import consumer_types
from nova_lite.placement import db as placement_db
from nova_lite.placement import resource_classes
from nova_lite.placement import traits
from tests.unit import fixtures as nova_fixtures

CONF = nova_conf.CONF
ADMIN = 'admin'
LATEST = '1.36'

_TEMPLATE = {}
_TEMPLATE_LOCK = threading.Lock()


def _template_database():
    with _TEMPLATE_LOCK:
        if 'path' not in _TEMPLATE:
            directory = tempfile.mkdtemp(prefix='placement-template-')
            atexit.register(shutil.rmtree, directory, True)
            path = os.path.join(directory, 'api.sqlite')
            url = 'sqlite:///' + path
            migration.db_sync(url, migration.API)
            db_api.forget(url)
            _TEMPLATE['path'] = path
    return _TEMPLATE['path']


def _as_tuple(version):
    return tuple(int(part) for part in version.split('.'))


class PlacementDatabase(fixtures.Fixture):
    """A private, migrated SQLite API database with caches reset."""

    def _setUp(self):
        directory = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(directory, 'api.sqlite')
        shutil.copy(_template_database(), path)
        self.url = 'sqlite:///' + path
        overrides = self.useFixture(config_fixture.Config(CONF))
        overrides.config(connection=self.url, group='api_database')
        for reset in (placement_db.reset, resource_classes.reset_cache,
                      traits.reset_cache, consumer_types.reset_cache,
                      db_api.dispose_all):
            self.addCleanup(reset)
            reset()


class PlacementTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())
        self.useFixture(nova_fixtures.Config())
        self.useFixture(PlacementDatabase())
        self.app = placement_app.make_app()

    # -- HTTP ----------------------------------------------------------------

    def request(self, method, path, body=None, version=LATEST, token=ADMIN,
                headers=None, raw_body=None, content_type='application/json'):
        request = webob.Request.blank(path, method=method)
        if token is not None:
            request.headers['X-Auth-Token'] = token
        if version is not None:
            request.headers['OpenStack-API-Version'] = 'placement ' + version
        for name, value in (headers or {}).items():
            request.headers[name] = value
        if raw_body is not None:
            request.body = raw_body
            request.content_type = content_type
        elif body is not None:
            request.body = jsonutils.dump_as_bytes(body)
            request.content_type = content_type
        return request.get_response(self.app)

    def get(self, path, **kwargs):
        return self.request('GET', path, **kwargs)

    def put(self, path, body=None, **kwargs):
        return self.request('PUT', path, body, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.request('POST', path, body, **kwargs)

    def delete(self, path, **kwargs):
        return self.request('DELETE', path, **kwargs)

    def assertStatus(self, status, response):
        self.assertEqual(status, response.status_int, response.body)

    def assertError(self, response, status, code=None, fragment=None):
        """A Placement error body with ``status`` (and ``code``)."""
        self.assertStatus(status, response)
        error = response.json['errors'][0]
        self.assertEqual(status, error['status'])
        if code is not None:
            self.assertEqual(code, error['code'])
        if fragment is not None:
            self.assertIn(fragment, error['detail'])
        return error

    # -- data ----------------------------------------------------------------

    def make_provider(self, name=None, uuid=None, parent=None):
        uuid = uuid or uuidutils.generate_uuid()
        body = {'name': name or 'rp-' + uuid[:8], 'uuid': uuid}
        if parent:
            body['parent_provider_uuid'] = parent
        response = self.post('/resource_providers', body)
        self.assertStatus(200, response)
        return response.json

    def set_inventory(self, rp_uuid, **classes):
        """set_inventory(uuid, VCPU=8, MEMORY_MB={'total': 1024, ...})"""
        generation = self.get('/resource_providers/%s' % rp_uuid).json[
            'generation']
        inventories = {
            name: value if isinstance(value, dict) else {'total': value}
            for name, value in classes.items()}
        response = self.put('/resource_providers/%s/inventories' % rp_uuid,
                            {'inventories': inventories,
                             'resource_provider_generation': generation})
        self.assertStatus(200, response)
        return response.json

    def compute_node(self, name=None, vcpus=8, memory_mb=4096, disk_gb=100,
                     **kwargs):
        provider = self.make_provider(name, **kwargs)
        self.set_inventory(provider['uuid'], VCPU=vcpus,
                           MEMORY_MB=memory_mb, DISK_GB=disk_gb)
        return provider['uuid']

    def allocate(self, consumer, allocations, generation=None,
                 project_id='p1', user_id='u1', version=LATEST):
        body = {'allocations': {
            rp: {'resources': resources}
            for rp, resources in allocations.items()},
            'project_id': project_id, 'user_id': user_id}
        if _as_tuple(version) >= (1, 28):
            body['consumer_generation'] = generation
        return self.put('/allocations/%s' % consumer, body, version=version)
