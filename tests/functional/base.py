"""Test case base that shares one control plane per test class."""

import os

import testtools

from tests.functional import fixtures
from tools import placement_peer


class ControlPlaneTestCase(testtools.TestCase):
    """Each class gets its own control plane (databases, vhost, daemons);
    tests in a class share it and must not depend on each other."""

    computes = 2
    compute_conf = None
    extra_conf = ''
    # tools/run-tests.sh eventlet runs the suite with every daemon green.
    backend = os.environ.get('NOVA_LITE_CONCURRENCY_BACKEND', 'threading')
    # Whose Placement the plane runs on: 'nova-lite' (a nova-lite-placement
    # daemon of its own) or 'openstack' (OpenStack Placement 16, started
    # for the class by tools/placement_peer.py, and no placement daemon).
    # NOVA_LITE_FUNCTIONAL_PLACEMENT=openstack runs every class on the
    # latter.
    placement_service = os.environ.get('NOVA_LITE_FUNCTIONAL_PLACEMENT',
                                       'nova-lite')
    openstack_placement = None
    plane = None

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if cls.placement_service == 'openstack':
            cls.openstack_placement = cls.new_openstack_placement().start()
        try:
            cls.plane = cls.start_plane()
        except Exception:
            cls._stop_openstack_placement()
            raise

    @classmethod
    def new_openstack_placement(cls):
        """The class's OpenStack Placement, not started: noauth2, like
        the plane, unless the class runs another auth mode."""
        return placement_peer.Server()

    @classmethod
    def new_plane(cls):
        """The class's control plane, not started."""
        return fixtures.ControlPlane(
            computes=cls.computes, compute_conf=cls.compute_conf,
            extra_conf=cls.extra_conf, backend=cls.backend,
            placement_url=cls.openstack_placement.url
            if cls.openstack_placement else None)

    @classmethod
    def start_plane(cls):
        plane = cls.new_plane()
        try:
            plane.start()
        except Exception:
            logs = plane.logs()
            plane.stop()
            raise AssertionError('control plane did not start:\n' + logs)
        return plane

    @classmethod
    def tearDownClass(cls):
        try:
            if cls.plane is not None:
                cls.plane.stop()
        finally:
            cls._stop_openstack_placement()
        super().tearDownClass()

    @classmethod
    def _stop_openstack_placement(cls):
        if cls.openstack_placement is not None:
            cls.openstack_placement.stop()
            cls.openstack_placement = None

    # After each test: every server's allocations and port bindings are
    # on the host that holds it (nova-lite-manage audit). A class whose
    # tests take services away on purpose may turn it off, saying why.
    audit_after_each_test = True

    def setUp(self):
        super().setUp()
        self.admin = self.plane.client('admin')
        self.addOnException(self._attach_logs)
        if self.audit_after_each_test:
            # Cleanups run last-in first-out: registered first, the audit
            # runs after the test's own cleanups.
            self.addCleanup(self._audit)

    def _audit(self):
        result = self.plane.audit()
        if result.returncode != 0:
            self.addDetail('audit', testtools.content.text_content(
                result.stdout + result.stderr))
            self.fail('nova-lite-manage audit found violations after the '
                      'test:\n%s%s' % (result.stdout, result.stderr))

    def _attach_logs(self, exc_info):
        self.addDetail('daemon-logs',
                       testtools.content.text_content(self.plane.logs()))
