"""BuildRequest.claim and BuildRequestList.get_stale: which conductor owns
a build, and which builds a conductor may take over.

A real (SQLite) API database. ``claimed_at`` is not a field of the object,
so the tests read it, and age a request, with SQL on the table.
"""

import datetime

from oslo_utils import uuidutils
import sqlalchemy as sa
import testtools

from nova_lite import context as nova_context
from nova_lite.db import api as db
from nova_lite.db import api_models
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import base
from tests.unit import fixtures as nova_fixtures
from tests.unit.objects import test_migration_and_groups as db_fixtures

TABLE = api_models.BuildRequest


def make_flavor():
    return objects.Flavor(id=1, flavorid='1', name='small', memory_mb=512,
                          vcpus=1, root_gb=1, ephemeral_gb=0, swap=0)


def ago(seconds):
    return base.utcnow() - datetime.timedelta(seconds=seconds)


class BuildRequestClaimTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(nova_fixtures.Config())
        self.useFixture(db_fixtures.MigratedDatabases())
        self.admin = nova_context.get_admin_context()

    def accepted(self, seconds_ago=0):
        """A build request as the API writes it, ``seconds_ago``."""
        uuid = uuidutils.generate_uuid()
        objects.BuildRequest(
            self.admin, instance_uuid=uuid, project_id='p',
            instance=objects.Instance(uuid=uuid, project_id='p',
                                      flavor=make_flavor())).create()
        if seconds_ago:
            self.set_columns(uuid, created_at=ago(seconds_ago),
                             updated_at=ago(seconds_ago))
        return uuid

    def set_columns(self, uuid, **values):
        with db.api_session() as session:
            session.execute(sa.update(TABLE).where(
                TABLE.instance_uuid == uuid).values(**values))

    def claimed_at(self, uuid):
        with db.api_session() as session:
            return session.execute(sa.select(TABLE.claimed_at).where(
                TABLE.instance_uuid == uuid)).scalar_one()

    def claim(self, uuid, timeout=None, owner='conductor-a'):
        return objects.BuildRequest.claim(self.admin, uuid, owner,
                                          timeout=timeout)

    def owner(self, uuid):
        with db.api_session() as session:
            return session.execute(sa.select(TABLE.owner).where(
                TABLE.instance_uuid == uuid)).scalar_one()

    def stale(self, timeout):
        return sorted(r.instance_uuid for r in
                      objects.BuildRequestList.get_stale(self.admin,
                                                         timeout))


class TestClaim(BuildRequestClaimTestCase):

    def test_a_request_nobody_owns_is_claimed(self):
        uuid = self.accepted()
        self.assertTrue(self.claim(uuid))
        self.assertIsNotNone(self.claimed_at(uuid))

    def test_a_second_claim_loses(self):
        uuid = self.accepted()
        self.assertTrue(self.claim(uuid))
        self.assertFalse(self.claim(uuid))

    def test_a_lost_claim_leaves_the_winners_time(self):
        uuid = self.accepted()
        self.claim(uuid)
        won_at = self.claimed_at(uuid)
        self.claim(uuid)
        self.assertEqual(won_at, self.claimed_at(uuid))

    def test_a_lease_not_renewed_for_the_timeout_is_taken_over(self):
        uuid = self.accepted(seconds_ago=600)
        self.claim(uuid)
        self.set_columns(uuid, claimed_at=ago(400))
        self.assertTrue(self.claim(uuid, timeout=300))
        self.assertGreater(self.claimed_at(uuid), ago(300))

    def test_a_fresh_claim_is_not_taken_over(self):
        uuid = self.accepted(seconds_ago=600)
        self.claim(uuid)
        self.assertFalse(self.claim(uuid, timeout=300))

    def test_a_takeover_wins_once(self):
        uuid = self.accepted(seconds_ago=600)
        self.set_columns(uuid, claimed_at=ago(400))
        self.assertEqual(
            [True, False],
            [self.claim(uuid, timeout=300) for _ in range(2)])

    def test_an_unclaimed_request_accepted_before_the_timeout_is_taken(
            self):
        uuid = self.accepted(seconds_ago=400)
        self.assertTrue(self.claim(uuid, timeout=300))

    def test_an_unclaimed_request_accepted_within_the_timeout_is_not(self):
        uuid = self.accepted(seconds_ago=100)
        self.assertFalse(self.claim(uuid, timeout=300))
        self.assertIsNone(self.claimed_at(uuid))

    def test_a_deleted_request_cannot_be_claimed(self):
        uuid = self.accepted()
        objects.BuildRequest.get_by_instance_uuid(self.admin, uuid).destroy()
        self.assertFalse(self.claim(uuid))

    def test_a_deleted_stale_request_cannot_be_taken_over(self):
        uuid = self.accepted(seconds_ago=400)
        objects.BuildRequest.get_by_instance_uuid(self.admin, uuid).destroy()
        self.assertFalse(self.claim(uuid, timeout=300))

    def test_an_unknown_uuid_cannot_be_claimed(self):
        self.assertFalse(self.claim(uuidutils.generate_uuid()))

    def test_a_claim_touches_only_its_own_request(self):
        uuid, other = self.accepted(), self.accepted()
        self.claim(uuid)
        self.assertIsNone(self.claimed_at(other))


class TestClaimNew(BuildRequestClaimTestCase):
    """claim_new: the builds of one cast claimed in one UPDATE."""

    def claim_new(self, uuids, owner='conductor-a'):
        return objects.BuildRequest.claim_new(self.admin, uuids, owner)

    def test_every_request_nobody_owns_is_claimed(self):
        uuids = [self.accepted() for _ in range(3)]
        self.assertEqual(set(uuids), self.claim_new(uuids))
        self.assertEqual(['conductor-a'] * 3, [self.owner(u) for u in uuids])

    def test_only_those_nobody_else_holds_are_claimed(self):
        held, deleted, free = (self.accepted() for _ in range(3))
        self.claim(held, owner='conductor-b')
        objects.BuildRequest.get_by_instance_uuid(self.admin,
                                                  deleted).destroy()
        unknown = uuidutils.generate_uuid()
        self.assertEqual({free}, self.claim_new([held, deleted, free,
                                                 unknown]))
        self.assertEqual('conductor-b', self.owner(held))

    def test_a_run_again_answers_what_the_first_claimed(self):
        # db.retried runs it again when the connection was lost after
        # the first run's commit.
        uuids = [self.accepted() for _ in range(2)]
        self.assertEqual(set(uuids), self.claim_new(uuids))
        self.assertEqual(set(uuids), self.claim_new(uuids))

    def test_none_claimed_when_all_are_held(self):
        uuid = self.accepted()
        self.claim(uuid, owner='conductor-b')
        self.assertEqual(set(), self.claim_new([uuid]))
        self.assertEqual(set(), self.claim_new([]))

    def test_a_stale_request_is_not_taken_over(self):
        # Takeovers go through claim(timeout=...) one by one.
        uuid = self.accepted(seconds_ago=600)
        self.claim(uuid, owner='conductor-b')
        self.set_columns(uuid, claimed_at=ago(400))
        self.assertEqual(set(), self.claim_new([uuid]))


class TestRecordFlows(BuildRequestClaimTestCase):
    """record_flows: the first step of a cast's builds in one UPDATE."""

    def test_it_records_the_flow_of_the_builds_the_owner_holds(self):
        mine, theirs, deleted = (self.accepted() for _ in range(3))
        objects.BuildRequest.claim_new(self.admin, [mine, deleted],
                                       'conductor-a')
        self.claim(theirs, owner='conductor-b')
        objects.BuildRequest.get_by_instance_uuid(self.admin,
                                                  deleted).destroy()
        flow = {'action': 'create', 'steps': [['schedule', None]]}
        self.assertEqual({mine}, objects.BuildRequest.record_flows(
            self.admin, [mine, theirs, deleted], 'conductor-a', flow))
        self.assertEqual(flow, objects.BuildRequest.get_flow(self.admin,
                                                             mine))
        self.assertIsNone(objects.BuildRequest.get_flow(self.admin, theirs))

    def test_a_run_again_answers_the_same(self):
        uuids = [self.accepted() for _ in range(2)]
        objects.BuildRequest.claim_new(self.admin, uuids, 'conductor-a')
        for _ in range(2):
            self.assertEqual(set(uuids), objects.BuildRequest.record_flows(
                self.admin, uuids, 'conductor-a', {'steps': []}))
        self.assertEqual(set(), objects.BuildRequest.record_flows(
            self.admin, [], 'conductor-a', {'steps': []}))


class TestLease(BuildRequestClaimTestCase):
    """The owner's lease: renewed while the build goes on, and every
    later step conditional on it."""

    def test_a_claim_records_its_owner(self):
        uuid = self.accepted()
        self.claim(uuid, owner='conductor-a')
        self.assertEqual('conductor-a', self.owner(uuid))

    def test_a_takeover_changes_the_owner(self):
        uuid = self.accepted(seconds_ago=600)
        self.claim(uuid, owner='conductor-a')
        self.set_columns(uuid, claimed_at=ago(400))
        self.assertTrue(self.claim(uuid, timeout=300, owner='conductor-b'))
        self.assertEqual('conductor-b', self.owner(uuid))

    def test_a_renewed_lease_is_not_taken_over(self):
        uuid = self.accepted(seconds_ago=600)
        self.claim(uuid, owner='conductor-a')
        self.set_columns(uuid, claimed_at=ago(400))
        self.assertEqual(1, objects.BuildRequest.renew(
            self.admin, [uuid], 'conductor-a'))
        self.assertFalse(self.claim(uuid, timeout=300, owner='conductor-b'))

    def test_only_the_owner_renews(self):
        uuid = self.accepted()
        self.claim(uuid, owner='conductor-a')
        self.set_columns(uuid, claimed_at=ago(400))
        self.assertEqual(0, objects.BuildRequest.renew(
            self.admin, [uuid], 'conductor-b'))
        self.assertLess(self.claimed_at(uuid), ago(300))

    def test_the_old_owner_no_longer_holds_a_build_taken_over(self):
        uuid = self.accepted(seconds_ago=600)
        self.claim(uuid, owner='conductor-a')
        self.set_columns(uuid, claimed_at=ago(400))
        self.claim(uuid, timeout=300, owner='conductor-b')
        self.assertEqual(
            (False, True),
            (objects.BuildRequest.holds(self.admin, uuid, 'conductor-a'),
             objects.BuildRequest.holds(self.admin, uuid, 'conductor-b')))

    def test_the_old_owner_cannot_delete_a_build_taken_over(self):
        uuid = self.accepted(seconds_ago=600)
        self.claim(uuid, owner='conductor-a')
        self.set_columns(uuid, claimed_at=ago(400))
        self.claim(uuid, timeout=300, owner='conductor-b')
        request = objects.BuildRequest.get_by_instance_uuid(self.admin, uuid)
        error = self.assertRaises(exception.BuildTakenOver, request.destroy,
                                  owner='conductor-a')
        self.assertIn('conductor-b', error.format_message())
        request.destroy(owner='conductor-b')
        self.assertEqual([], self.stale(0))

    def test_deleting_a_request_its_user_deleted_is_not_found(self):
        uuid = self.accepted()
        self.claim(uuid, owner='conductor-a')
        request = objects.BuildRequest.get_by_instance_uuid(self.admin, uuid)
        request.destroy()
        self.assertRaises(exception.BuildRequestNotFound, request.destroy,
                          owner='conductor-a')

    def test_a_lease_renewed_now_is_fresh_within_the_timeout_only(self):
        # (That "now" is the database's: tests/unit/test_db_clock.py.)
        uuid = self.accepted()
        self.claim(uuid, owner='conductor-a')
        self.assertEqual(([], [uuid]), (self.stale(5), self.stale(-1)))


class TestGetStale(BuildRequestClaimTestCase):

    def test_lists_exactly_what_a_takeover_could_claim(self):
        unclaimed_old = self.accepted(seconds_ago=400)
        unclaimed_new = self.accepted(seconds_ago=100)
        claimed_old = self.accepted(seconds_ago=600)
        self.set_columns(claimed_old, claimed_at=ago(400))
        claimed_new = self.accepted(seconds_ago=600)
        self.set_columns(claimed_new, claimed_at=ago(100))
        self.assertEqual(sorted([unclaimed_old, claimed_old]),
                         self.stale(300))
        self.assertEqual(
            {unclaimed_old: True, claimed_old: True, unclaimed_new: False,
             claimed_new: False},
            {uuid: self.claim(uuid, timeout=300) for uuid in
             (unclaimed_old, claimed_old, unclaimed_new, claimed_new)})

    def test_nothing_is_stale_when_everything_is_fresh(self):
        self.accepted()
        self.claim(self.accepted())
        self.assertEqual([], self.stale(300))

    def test_a_deleted_request_is_not_listed(self):
        uuid = self.accepted(seconds_ago=400)
        objects.BuildRequest.get_by_instance_uuid(self.admin, uuid).destroy()
        self.assertEqual([], self.stale(300))

    def test_oldest_first_up_to_the_limit(self):
        uuids = [self.accepted(seconds_ago=400) for _ in range(3)]
        found = objects.BuildRequestList.get_stale(self.admin, 300,
                                                   limit=2)
        self.assertEqual(uuids[:2], [r.instance_uuid for r in found])

    def test_a_listed_request_carries_its_instance(self):
        uuid = self.accepted(seconds_ago=400)
        [found] = objects.BuildRequestList.get_stale(self.admin, 300)
        self.assertEqual(uuid, found.instance.uuid)
