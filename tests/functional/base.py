"""Test case base that shares one control plane per test class."""

import os

import testtools

from tests.functional import fixtures


class ControlPlaneTestCase(testtools.TestCase):
    """Each class gets its own control plane (databases, vhost, daemons);
    tests in a class share it and must not depend on each other."""

    computes = 2
    compute_conf = None
    extra_conf = ''
    # tools/run-tests.sh eventlet runs the suite with every daemon green.
    backend = os.environ.get('NOVA_LITE_CONCURRENCY_BACKEND', 'threading')

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.plane = cls.start_plane()

    @classmethod
    def new_plane(cls):
        """The class's control plane, not started."""
        return fixtures.ControlPlane(
            computes=cls.computes, compute_conf=cls.compute_conf,
            extra_conf=cls.extra_conf, backend=cls.backend)

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
        if cls.plane is not None:
            cls.plane.stop()
        super().tearDownClass()

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
