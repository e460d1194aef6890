"""Aggregate and AggregateList: host aggregates in the API database."""

from oslo_utils import uuidutils

from nova_lite import exception
from nova_lite import objects
from tests.unit.objects import test_objects


class AggregateTestCase(test_objects.DatabaseTestCase):

    def make_aggregate(self, name='agg', **kwargs):
        aggregate = objects.Aggregate(self.admin_context, name=name,
                                      **kwargs)
        aggregate.create()
        return aggregate

    def reread(self, aggregate):
        return objects.Aggregate.get_by_id(self.admin_context, aggregate.id)


class TestCreate(AggregateTestCase):

    def test_create_generates_a_uuid_and_an_id(self):
        aggregate = self.make_aggregate()
        self.assertTrue(uuidutils.is_uuid_like(aggregate.uuid))
        self.assertIsInstance(aggregate.id, int)
        self.assertIsNotNone(aggregate.created_at)
        self.assertEqual(set(), aggregate.obj_what_changed())

    def test_get_by_id_returns_what_create_stored(self):
        created = self.make_aggregate(
            name='fast', metadata={'availability_zone': 'az1', 'ssd': 'true'},
            hosts=['compute1', 'compute2'])
        found = self.reread(created)
        self.assertEqual(
            (created.uuid, 'fast', ['compute1', 'compute2'],
             {'availability_zone': 'az1', 'ssd': 'true'}),
            (found.uuid, found.name, found.hosts, found.metadata))

    def test_get_by_uuid_finds_the_aggregate(self):
        created = self.make_aggregate()
        self.assertEqual(created.id, objects.Aggregate.get_by_uuid(
            self.admin_context, created.uuid).id)

    def test_an_aggregate_without_hosts_or_metadata_reads_back_empty(self):
        found = self.reread(self.make_aggregate())
        self.assertEqual(([], {}), (found.hosts, found.metadata))

    def test_availability_zone_comes_from_the_metadata(self):
        self.assertEqual('az1', self.make_aggregate(
            metadata={'availability_zone': 'az1'}).availability_zone)

    def test_without_zone_metadata_there_is_no_availability_zone(self):
        self.assertIsNone(self.make_aggregate().availability_zone)

    def test_a_taken_name_is_aggregate_name_exists(self):
        self.make_aggregate(name='agg')
        self.assertRaises(exception.AggregateNameExists,
                          self.make_aggregate, name='agg')

    def test_create_twice_is_refused(self):
        aggregate = self.make_aggregate()
        self.assertRaises(exception.ObjectActionError, aggregate.create)

    def test_unknown_id_is_aggregate_not_found(self):
        self.assertRaises(exception.AggregateNotFound,
                          objects.Aggregate.get_by_id, self.admin_context, 42)

    def test_unknown_uuid_is_aggregate_not_found(self):
        self.assertRaises(exception.AggregateNotFound,
                          objects.Aggregate.get_by_uuid, self.admin_context,
                          uuidutils.generate_uuid())


class TestSave(AggregateTestCase):

    def test_save_stores_a_new_name(self):
        aggregate = self.make_aggregate(name='old')
        aggregate.name = 'new'
        aggregate.save()
        self.assertEqual('new', self.reread(aggregate).name)
        self.assertIsNotNone(aggregate.updated_at)
        self.assertEqual(set(), aggregate.obj_what_changed())

    def test_renaming_to_a_taken_name_is_aggregate_name_exists(self):
        self.make_aggregate(name='taken')
        aggregate = self.make_aggregate(name='mine')
        aggregate.name = 'taken'
        self.assertRaises(exception.AggregateNameExists, aggregate.save)
        self.assertEqual('mine', self.reread(aggregate).name)

    def test_hosts_do_not_change_through_save(self):
        aggregate = self.make_aggregate()
        aggregate.hosts = ['compute1']
        self.assertRaises(exception.ObjectActionError, aggregate.save)

    def test_saving_a_deleted_aggregate_is_aggregate_not_found(self):
        aggregate = self.make_aggregate()
        self.reread(aggregate).destroy()
        aggregate.name = 'other'
        self.assertRaises(exception.AggregateNotFound, aggregate.save)


class TestDestroy(AggregateTestCase):

    def test_destroy_removes_the_aggregate_and_its_metadata(self):
        aggregate = self.make_aggregate(metadata={'ssd': 'true'})
        aggregate.destroy()
        self.assertRaises(exception.AggregateNotFound, self.reread,
                          aggregate)
        # The name is free again.
        self.make_aggregate(name=aggregate.name)

    def test_an_aggregate_with_hosts_is_not_destroyed(self):
        aggregate = self.make_aggregate(hosts=['compute1'])
        error = self.assertRaises(exception.AggregateInUse,
                                  aggregate.destroy)
        self.assertIn('compute1', error.format_message())
        self.assertEqual(['compute1'], self.reread(aggregate).hosts)

    def test_a_host_added_behind_its_back_keeps_it_alive(self):
        aggregate = self.make_aggregate()
        self.reread(aggregate).add_host('compute1')
        self.assertRaises(exception.AggregateInUse, aggregate.destroy)


class TestHosts(AggregateTestCase):

    def test_add_host_makes_it_a_member(self):
        aggregate = self.make_aggregate()
        aggregate.add_host('compute1')
        aggregate.add_host('compute2')
        self.assertEqual(['compute1', 'compute2'], aggregate.hosts)
        self.assertEqual(['compute1', 'compute2'],
                         self.reread(aggregate).hosts)
        self.assertIsNotNone(aggregate.updated_at)

    def test_adding_a_member_again_is_aggregate_host_exists(self):
        aggregate = self.make_aggregate(hosts=['compute1'])
        self.assertRaises(exception.AggregateHostExists,
                          aggregate.add_host, 'compute1')

    def test_a_host_may_be_in_several_aggregates(self):
        self.make_aggregate(name='a', hosts=['compute1'])
        second = self.make_aggregate(name='b')
        second.add_host('compute1')
        self.assertEqual(['compute1'], self.reread(second).hosts)

    def test_adding_to_a_deleted_aggregate_is_aggregate_not_found(self):
        aggregate = self.make_aggregate()
        self.reread(aggregate).destroy()
        self.assertRaises(exception.AggregateNotFound, aggregate.add_host,
                          'compute1')

    def test_delete_host_drops_the_member(self):
        aggregate = self.make_aggregate(hosts=['compute1', 'compute2'])
        aggregate.delete_host('compute1')
        self.assertEqual(['compute2'], aggregate.hosts)
        self.assertEqual(['compute2'], self.reread(aggregate).hosts)

    def test_deleting_a_non_member_is_aggregate_host_not_found(self):
        aggregate = self.make_aggregate(hosts=['compute1'])
        self.assertRaises(exception.AggregateHostNotFound,
                          aggregate.delete_host, 'compute2')


class TestMetadata(AggregateTestCase):

    def test_update_metadata_adds_and_changes_keys(self):
        aggregate = self.make_aggregate(metadata={'ssd': 'false'})
        aggregate.update_metadata({'ssd': 'true', 'gpu': 'yes'})
        self.assertEqual({'ssd': 'true', 'gpu': 'yes'}, aggregate.metadata)
        self.assertEqual({'ssd': 'true', 'gpu': 'yes'},
                         self.reread(aggregate).metadata)

    def test_a_none_value_removes_the_key(self):
        aggregate = self.make_aggregate(
            metadata={'ssd': 'true', 'availability_zone': 'az1'})
        aggregate.update_metadata({'availability_zone': None})
        self.assertEqual({'ssd': 'true'}, self.reread(aggregate).metadata)
        self.assertIsNone(aggregate.availability_zone)

    def test_removing_an_absent_key_is_no_error(self):
        aggregate = self.make_aggregate(metadata={'ssd': 'true'})
        aggregate.update_metadata({'gpu': None})
        self.assertEqual({'ssd': 'true'}, self.reread(aggregate).metadata)

    def test_updating_a_deleted_aggregate_is_aggregate_not_found(self):
        aggregate = self.make_aggregate()
        self.reread(aggregate).destroy()
        self.assertRaises(exception.AggregateNotFound,
                          aggregate.update_metadata, {'ssd': 'true'})


class TestAggregateList(AggregateTestCase):

    def test_get_all_returns_every_aggregate_oldest_first(self):
        self.make_aggregate(name='a', hosts=['compute1'],
                            metadata={'ssd': 'true'})
        self.make_aggregate(name='b')
        found = objects.AggregateList.get_all(self.admin_context)
        self.assertEqual(
            [('a', ['compute1'], {'ssd': 'true'}), ('b', [], {})],
            [(a.name, a.hosts, a.metadata) for a in found])

    def test_get_all_without_aggregates_is_empty(self):
        self.assertEqual(
            [], list(objects.AggregateList.get_all(self.admin_context)))

    def test_get_by_host_returns_the_aggregates_of_the_host(self):
        self.make_aggregate(name='a', hosts=['compute1', 'compute2'])
        self.make_aggregate(name='b', hosts=['compute2'])
        self.make_aggregate(name='c', hosts=['compute1'])
        found = objects.AggregateList.get_by_host(self.admin_context,
                                                  'compute1')
        self.assertEqual(['a', 'c'], [a.name for a in found])
        # Each keeps all its hosts, not only the one asked about.
        self.assertEqual(['compute1', 'compute2'], found[0].hosts)

    def test_get_by_host_of_a_host_in_no_aggregate_is_empty(self):
        self.make_aggregate(name='a', hosts=['compute1'])
        self.assertEqual([], list(objects.AggregateList.get_by_host(
            self.admin_context, 'compute9')))
