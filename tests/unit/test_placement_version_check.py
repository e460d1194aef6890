"""A daemon that calls placement checks its version when it starts: a
Placement too old for the requests nova_lite sends stops the daemon with
one line (exit status 2), one that does not answer yet does not."""

import fixtures
from oslo_serialization import jsonutils
import testtools
import webob

from nova_lite.cmd import common
from nova_lite import placement_client
from tests.unit import fixtures as nova_fixtures
from tests.unit.network import base as network_base
from tests.unit.placement import base as placement_base

URL = network_base.PLACEMENT_URL


def version_document(*max_versions):
    """A WSGI app answering GET / as a Placement offering ``max_versions``
    (one version entry each)."""
    def app(environ, start_response):
        body = {'versions': [
            {'id': 'v1.0', 'min_version': '1.0', 'max_version': v,
             'status': 'CURRENT', 'links': []} for v in max_versions]}
        return webob.Response(json_body=body)(environ, start_response)
    return app


class CheckVersionTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.logs = self.useFixture(fixtures.FakeLogger())
        self.useFixture(nova_fixtures.Config())

    def client(self, transport, make=placement_client.PlacementClient):
        client = make(endpoint=URL)
        client.session.mount(URL, transport)
        return client

    def check(self, transport):
        return self.client(transport).check_version()

    def test_our_placement_is_new_enough(self):
        self.useFixture(placement_base.PlacementDatabase())
        from nova_lite.api import placement as placement_app
        app = placement_app.make_app()
        self.assertEqual('1.39',
                         self.check(network_base.WSGIAdapter(app)))

    def test_a_placement_without_root_required_is_refused(self):
        error = self.assertRaises(
            placement_client.PlacementTooOld, self.check,
            network_base.WSGIAdapter(version_document('1.30')))
        self.assertIn('up to 1.30', str(error))
        self.assertIn('needs 1.35 or later', str(error))
        self.assertIn(URL, str(error))

    def test_the_required_version_itself_is_enough(self):
        self.assertEqual('1.35', self.check(
            network_base.WSGIAdapter(version_document('1.35'))))

    def test_versions_are_compared_as_numbers_not_text(self):
        # '1.9' sorts after '1.39' as text.
        self.assertEqual('1.39', self.check(network_base.WSGIAdapter(
            version_document('1.9', '1.39'))))
        self.assertRaises(
            placement_client.PlacementTooOld, self.check,
            network_base.WSGIAdapter(version_document('1.9', '1.10')))

    def test_placement_not_answering_yet_is_not_an_error(self):
        self.assertIsNone(self.check(network_base.DownAdapter()))
        self.assertIn('its version is not checked', self.logs.output)

    def test_an_answer_without_versions_is_not_an_error(self):
        def app(environ, start_response):
            return webob.Response(
                body=jsonutils.dump_as_bytes({'error': 'no'}),
                status=404)(environ, start_response)
        self.assertIsNone(self.check(network_base.WSGIAdapter(app)))
        self.assertIn('404 and no versions', self.logs.output)

    def test_the_daemon_stops_with_one_line_and_status_2(self):
        self.useFixture(fixtures.MonkeyPatch(
            'nova_lite.placement_client.PlacementClient',
            lambda: self.client(network_base.WSGIAdapter(
                version_document('1.30')))))
        stderr = self.useFixture(fixtures.StringStream('stderr'))
        self.useFixture(fixtures.MonkeyPatch('sys.stderr', stderr.stream))
        error = self.assertRaises(SystemExit, common.run,
                                  common.check_placement)
        self.assertEqual(2, error.code)
        stderr.stream.seek(0)
        lines = stderr.stream.read().splitlines()
        self.assertEqual(1, len(lines))
        self.assertIn('offers microversions up to 1.30', lines[0])
