"""The conductor runs a compute's object calls only for remotable methods.

``object_action`` and ``object_class_action_versions`` used to getattr()
whatever name arrived, so a message could run any method or attribute of
an object or its class in the one daemon that holds every database
credential.
"""

import logging

import fixtures
import oslo_messaging as messaging
import testtools

from nova_lite.conductor import manager as conductor_manager
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from tests.unit import fixtures as nova_fixtures


class TestOnlyRemotableMethods(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.Config())
        self.useFixture(nova_fixtures.FakeRPC())
        objects.register_all()
        self.log = self.useFixture(fixtures.FakeLogger(level=logging.WARNING))
        self.manager = conductor_manager.ConductorManager()
        self.context = nova_context.get_admin_context()
        self.versions = {'Service': objects.Service.VERSION}

    def _refused(self, method, **kwargs):
        wrapped = self.assertRaises(messaging.ExpectedException,
                                    getattr(self.manager, method),
                                    self.context, **kwargs)
        error = wrapped.exc_info[1]
        self.assertIsInstance(error, exception.InvalidRPCMessage)
        self.assertIn('Refused object indirection request', self.log.output)
        return error

    def test_object_action_refuses_a_method_that_is_not_remotable(self):
        service = objects.Service(self.context, host='h', binary='b')
        for name in ('obj_reset_changes', '__class__', 'fields', 'nothing',
                     None):
            error = self._refused('object_action', objinst=service,
                                  objmethod=name, args=[], kwargs={})
            self.assertIn('is not a remotable method of Service',
                          error.message)

    def test_object_action_refuses_args_that_are_not_a_list(self):
        service = objects.Service(self.context, host='h', binary='b')
        error = self._refused('object_action', objinst=service,
                              objmethod='save', args='x', kwargs={})
        self.assertIn('not a list and a mapping', error.message)

    def test_class_action_refuses_a_method_that_is_not_remotable(self):
        for name in ('obj_class_from_name', '__subclasses__', 'VERSION'):
            error = self._refused(
                'object_class_action_versions', objname='Service',
                objmethod=name, object_versions=self.versions, args=[],
                kwargs={})
            self.assertIn('is not a remotable method', error.message)

    def test_class_action_refuses_an_unknown_class_or_version(self):
        self._refused('object_class_action_versions', objname='Gremlin',
                      objmethod='get_by_id',
                      object_versions={'Gremlin': '1.0'}, args=[],
                      kwargs={})
        self._refused('object_class_action_versions', objname='Service',
                      objmethod='get_by_host_and_binary',
                      object_versions={'Service': '99.0'}, args=[],
                      kwargs={})
        self._refused('object_class_action_versions', objname='Service',
                      objmethod='get_by_host_and_binary',
                      object_versions={}, args=[], kwargs={})
