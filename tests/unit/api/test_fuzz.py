"""Every route of the Compute API, fuzzed (see ``tests.unit.fuzz``): no
hostile path, body, query string, token or microversion makes it answer
5xx or show a traceback, and every error is a Compute API fault with a
message."""

import oslo_messaging as messaging
from oslo_utils import uuidutils

from nova_lite.api.compute import handler
from nova_lite.api.compute import microversion as mv
from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects
from tests.unit.api import base
from tests.unit.api import test_keypairs
from tests.unit.api import test_servers
from tests.unit import fuzz

OTHER = 'other:elsewhere'


class _AnyCompute:
    """A compute's RPC endpoint that accepts any method and answers None."""

    target = messaging.Target(version='1.99')

    def __getattr__(self, name):
        if name.startswith(('_', 'oslo_')):
            raise AttributeError(name)
        return lambda context, **kwargs: None


def check_fault(status, document):
    """A Compute API fault: {kind: {"code": status, "message": ...}}."""
    assert isinstance(document, dict) and len(document) == 1, document
    (fault,) = document.values()
    assert fault['code'] == status, document
    assert isinstance(fault['message'], str) and fault['message'], document


def version_headers(values, version):
    if values.chance(30):
        return {'X-OpenStack-Nova-API-Version': version}
    service = values.pick(
        ('compute',) * 6 + ('placement', 'COMPUTE', ''))
    return {'OpenStack-API-Version': ('%s %s' % (service, version)).strip()}


class TestFuzzComputeAPI(fuzz.FuzzedAPI, test_servers.ServersTestCase):

    def setUp(self):
        super().setUp()
        # Room for what the fuzzing creates, but a limit still: a
        # min_count of 2**31 is refused by the quota, not built.
        for resource in ('instances', 'server_groups', 'key_pairs'):
            self.plane.config.config(group='quota', **{resource: 200})
        for resource in ('cores', 'ram'):
            self.plane.config.config(group='quota', **{resource: -1})
        self.compute_up('host1', _AnyCompute())
        with nova_context.target_cell(self.admin_context,
                                      self.cell1) as cctxt:
            self.node = objects.ComputeNode(
                cctxt, host='host1', hypervisor_hostname='host1',
                hypervisor_type='fake', hypervisor_version=1,
                host_ip='192.0.2.1', vcpus=8, memory_mb=16384, local_gb=100,
                vcpus_used=0, memory_mb_used=0, local_gb_used=0,
                free_ram_mb=16384, free_disk_gb=100, running_vms=0,
                current_workload=0, disk_available_least=100,
                cpu_allocation_ratio=4.0, ram_allocation_ratio=1.0,
                disk_allocation_ratio=1.0)
            self.node.create()
        self.generation = 0
        self.start_fuzzing(
            self.app, handler.ROUTE_DECLARATIONS,
            good_tokens=(base.ADMIN, base.DEMO),
            tokens=(OTHER, None, '', ':', 'x' * 300),
            check_error=check_fault, version_header=version_headers,
            versions=fuzz.microversions(mv),
            strings=('host1', 'm1.tiny', 'az1', 'nova', 'fuzz', 'cirros',
                     'anti-affinity', 'affinity', base.IMAGE_UUID,
                     test_keypairs.ED25519_KEY))

    def make_state(self):
        """Objects for every path parameter of the table to name."""
        self.generation += 1
        suffix = str(self.generation)
        admin = dict(token=base.ADMIN)
        active = self.instance_in_cell(self.cell1, host='host1')
        with nova_context.target_cell(self.admin_context,
                                      self.cell1) as cctxt:
            migration = objects.Migration(
                cctxt, instance_uuid=active.uuid,
                migration_type='live-migration', status='running',
                source_compute='host1', source_node='host1',
                dest_compute='host2', dest_node='host2')
            migration.create()
            owner = nova_context.RequestContext(
                user_id=base.DEMO, project_id=base.DEMO,
                request_id='req-' + uuidutils.generate_uuid())
            with nova_context.target_cell(owner, self.cell1) as octxt:
                objects.InstanceAction.action_start(octxt, active.uuid,
                                                    'create')
            try:
                service = objects.Service.get_by_host_and_binary(
                    cctxt, 'host1', 'nova-lite-compute')
            except exception.NotFound:  # the fuzzing deleted it
                service = objects.Service(cctxt, host='host1',
                                          binary='nova-lite-compute',
                                          topic='compute')
                service.create()
        # The fuzzing may have lowered the quota: then there is no server
        # still building, only the active one.
        booted = self.request('POST', '/v2.1/servers',
                              test_servers.server_body())
        building = (booted.json['server']['id']
                    if booted.status_int == 202 else active.uuid)
        self.request('PUT', '/v2.1/servers/%s/tags/fuzz' % active.uuid,
                     version='2.26')
        self.request('PUT', '/v2.1/servers/%s/metadata/fuzz' % active.uuid,
                     {'meta': {'fuzz': 'yes'}})
        group = self.request('POST', '/v2.1/os-server-groups', {
            'server_group': {'name': 'g' + suffix,
                             'policies': ['anti-affinity']}}).json
        aggregate = self.request('POST', '/v2.1/os-aggregates', {
            'aggregate': {'name': 'agg' + suffix}}, **admin).json
        self.request('POST', '/v2.1/os-keypairs', {
            'keypair': {'name': 'k' + suffix,
                        'public_key': test_keypairs.ED25519_KEY}})
        self.make_flavor(flavorid='f' + suffix, name='fuzz' + suffix)
        return {
            'flavor_id': ['1', 'f' + suffix],
            'image_id': [base.IMAGE_UUID],
            'server_id': [active.uuid, building],
            'migration_id': [str(migration.id)],
            'request_id': [owner.request_id],
            'tag': ['fuzz'],
            'key': ['fuzz'],
            'group_id': [group['server_group']['id']],
            'aggregate_id': [str(aggregate['aggregate']['id'])],
            'keypair_name': ['k' + suffix],
            'hypervisor_id': [self.node.uuid, str(self.node.id)],
            'project_id': [base.DEMO, 'elsewhere'],
            'class_name': ['default'],
            'service_id': [service.uuid, str(service.id)],
        }

    def test_server_routes(self):
        self.fuzz(lambda template, method: '/servers' in template)

    def test_other_routes(self):
        self.fuzz(lambda template, method: '/servers' not in template)


class TestFuzzerFindsSchemas(base.APITestCase):

    def test_schemas_of_decorated_and_dispatching_handlers_are_found(self):
        from nova_lite.api.compute import server_actions
        from nova_lite.api.compute.schemas import servers as server_schemas
        facts = fuzz.HandlerFacts(
            handler.ROUTE_DECLARATIONS['/v2.1/servers']['POST'])
        self.assertTrue(any(s is server_schemas.base_create
                            for s in facts.schemas))
        facts = fuzz.HandlerFacts(server_actions.action)
        self.assertGreaterEqual(len(facts.schemas), 8)
