"""Object primitives a process cannot read become UnreadableObject.

oslo.versionedobjects raises whatever its parsing trips over (and logs an
unknown class as an ERROR of its own); the RPC dispatcher turns
UnreadableObject into one warning and an error the sender can act on.
"""

import logging

import fixtures
import testtools

from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import base

UUID = '3f1c9a52-6b7e-4d3a-9c55-0d2e8f41a7b6'


class TestUnreadablePrimitives(testtools.TestCase):

    def setUp(self):
        super().setUp()
        objects.register_all()
        self.log = self.useFixture(fixtures.FakeLogger(level=logging.DEBUG))
        self.serializer = base.NovaLiteObjectSerializer()
        self.context = nova_context.get_admin_context()
        self.primitive = objects.Instance(uuid=UUID).obj_to_primitive()

    def _unreadable(self, **changes):
        primitive = dict(self.primitive)
        primitive.update(('nova_lite_object.' + key, value)
                         for key, value in changes.items())
        return self.assertRaises(exception.UnreadableObject,
                                 self.serializer.deserialize_entity,
                                 self.context, primitive)

    def test_unknown_class(self):
        error = self._unreadable(name='Gremlin')
        self.assertEqual('Cannot read object nova_lite.Gremlin: no such '
                         'object class here', error.message)
        # Not ovo's "Unable to instantiate unregistered object type".
        self.assertEqual('', self.log.output)

    def test_other_namespace(self):
        error = self._unreadable(namespace='nova')
        self.assertIn('nova.Instance: no such object class', error.message)

    def test_unknown_version(self):
        error = self._unreadable(version='99.0')
        self.assertIn('version 99.0 is not supported (newest known: %s)' %
                      objects.Instance.VERSION, error.message)

    def test_version_not_x_y(self):
        for version in ('x', 1, None, '1.0; drop'):
            error = self._unreadable(version=version)
            self.assertIn('is not X.Y', error.message)

    def test_data_not_a_mapping(self):
        error = self._unreadable(data='garbage')
        self.assertIn('its data is not a mapping', error.message)

    def test_field_of_the_wrong_type(self):
        error = self._unreadable(data={'uuid': UUID, 'vcpus': 'many'})
        self.assertIn('Cannot read object nova_lite.Instance: ValueError',
                      error.message)

    def test_unreadable_object_inside_a_list(self):
        bad = dict(self.primitive, **{'nova_lite_object.name': 'Gremlin'})
        self.assertRaises(exception.UnreadableObject,
                          self.serializer.deserialize_entity, self.context,
                          [self.primitive, bad])

    def test_a_good_primitive_still_reads(self):
        instance = self.serializer.deserialize_entity(self.context,
                                                      dict(self.primitive))
        self.assertEqual(UUID, instance.uuid)
