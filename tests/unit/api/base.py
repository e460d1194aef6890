"""A test case that talks to the Compute API app in-process."""

import fixtures
from oslo_serialization import jsonutils
import testtools
import webob

from nova_lite.api import compute as compute_app
from nova_lite import context as nova_context
from nova_lite import objects
from tests.unit import fixtures as nova_fixtures

ADMIN = 'admin'
DEMO = 'demo'
IMAGE_UUID = '155d900f-4e14-4e4c-a73d-069cbf4541e6'


class APITestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())
        self.plane = self.useFixture(nova_fixtures.ControlPlane())
        self.cell0 = self.plane.databases.cell0
        self.cell1 = self.plane.databases.cell1
        self.admin_context = nova_context.get_admin_context()
        self.app = compute_app.make_app()

    def request(self, method, path, body=None, token=DEMO, version=None,
                headers=None, raw_body=None, environ=None):
        request = webob.Request.blank(path, method=method, environ=environ)
        if token is not None:
            request.headers['X-Auth-Token'] = token
        if version is not None:
            request.headers['OpenStack-API-Version'] = 'compute ' + version
        for name, value in (headers or {}).items():
            request.headers[name] = value
        if raw_body is not None:
            request.body = raw_body
            request.content_type = 'application/json'
        elif body is not None:
            request.body = jsonutils.dump_as_bytes(body)
            request.content_type = 'application/json'
        return request.get_response(self.app)

    def assertError(self, response, status, kind, fragment=None):
        """The response is a Compute API error of ``kind`` (badRequest...)."""
        self.assertEqual(status, response.status_int, response.body)
        fault = response.json[kind]
        self.assertEqual(status, fault['code'])
        if fragment is not None:
            self.assertIn(fragment, fault['message'])

    # -- data --------------------------------------------------------------

    def make_flavor(self, flavorid='1', name='m1.tiny', memory_mb=512,
                    vcpus=1, root_gb=1, **kwargs):
        values = dict(ephemeral_gb=0, swap=0, rxtx_factor=1.0,
                      is_public=True, disabled=False)
        values.update(kwargs)
        flavor = objects.Flavor(self.admin_context, flavorid=flavorid,
                                name=name, memory_mb=memory_mb, vcpus=vcpus,
                                root_gb=root_gb, **values)
        flavor.create()
        return flavor

    def make_image(self, image_id=IMAGE_UUID, name='cirros', **kwargs):
        image = objects.Image(self.admin_context, id=image_id, name=name,
                              **kwargs)
        image.create()
        return image
