"""What computes report for the scheduler, through the real daemons: the
kinds of guest they run (an image that asks for an architecture is
built where the ImagePropertiesFilter finds it), and the
COMPUTE_STATUS_DISABLED trait an administrator's disable puts on a
compute's provider at once, and an enable takes off, keeping the traits an
operator set by hand."""

import requests

from tests.functional import base
from tests.functional import fixtures

STATUS_DISABLED = 'COMPUTE_STATUS_DISABLED'


class TestComputeReports(base.ControlPlaneTestCase):

    # compute1's audit does not run during the tests: what changes on its
    # provider is the compute's answer to the API, not its audit.
    compute_conf = {1: """
        [compute]
        update_resources_interval = 3600
        """}

    def placement(self, method, path, **kwargs):
        response = requests.request(
            method, self.plane.placement_url + path,
            headers={**self.plane.admin_headers,
                     'OpenStack-API-Version': 'placement 1.6'},
            timeout=10, **kwargs)
        response.raise_for_status()
        return response

    def provider_of(self, host):
        [provider] = self.placement(
            'GET', '/resource_providers',
            params={'name': host}).json()['resource_providers']
        return provider['uuid']

    def traits(self, provider):
        return self.placement('GET', '/resource_providers/%s/traits' %
                              provider).json()

    def image(self, name, **properties):
        args = ['image', 'create', name]
        for key, value in properties.items():
            args += ['--property', '%s=%s' % (key, value)]
        return self.plane.manage(*args).stdout.strip().splitlines()[-1]

    def compute_service(self, host):
        [service] = self.admin.get(
            '/os-services?binary=nova-lite-compute&host=%s' % host,
            microversion='2.53').json()['services']
        return service

    def set_status(self, service, body):
        response = self.admin.put('/os-services/%s' % service['id'], body,
                                  microversion='2.53')
        self.assertEqual(200, response.status_code, response.text)

    def test_a_server_whose_image_asks_for_x86_64_goes_active(self):
        image = self.image('x86-64-only', hw_architecture='x86_64')
        created = self.admin.create_server('x86', image=image)
        server = self.admin.wait_for_status(created['server']['id'],
                                            'ACTIVE')
        self.addCleanup(self.admin.delete, '/servers/%s' % server['id'])
        self.assertIn(server['OS-EXT-SRV-ATTR:host'],
                      ('compute1', 'compute2'))

    def test_a_server_whose_image_asks_for_another_architecture_fails(self):
        image = self.image('aarch64-only', hw_architecture='aarch64')
        created = self.admin.create_server('arm', image=image)
        server = self.admin.wait_for_status(created['server']['id'],
                                            'ERROR')
        self.addCleanup(self.admin.delete, '/servers/%s' % server['id'])
        # Both hosts were refused by the ImagePropertiesFilter.
        self.assertIn('0/2 hosts available: 2 cannot run the image',
                      server['fault']['details'])

    def test_the_hypervisor_reaches_the_hypervisor_list(self):
        hypervisors = self.admin.get(
            '/os-hypervisors/detail').json()['hypervisors']
        self.assertEqual({('fake', 1000)}, {
            (h['hypervisor_type'], h['hypervisor_version'])
            for h in hypervisors})

    def test_the_computes_disk_formats_are_traits_of_their_providers(self):
        for host in ('compute1', 'compute2'):
            traits = self.traits(self.provider_of(host))['traits']
            self.assertEqual(['COMPUTE_IMAGE_TYPE_QCOW2',
                              'COMPUTE_IMAGE_TYPE_RAW'],
                             sorted(t for t in traits
                                    if t.startswith('COMPUTE_IMAGE_TYPE_')))

    def test_disabling_a_compute_marks_its_provider_and_enabling_clears_it(
            self):
        provider = self.provider_of('compute1')
        # An operator's own trait on the provider.
        self.placement('PUT', '/traits/CUSTOM_RACK_A')
        current = self.traits(provider)
        self.placement('PUT', '/resource_providers/%s/traits' % provider,
                       json={'traits': current['traits'] + ['CUSTOM_RACK_A'],
                             'resource_provider_generation':
                                 current['resource_provider_generation']})
        service = self.compute_service('compute1')
        self.addCleanup(self.set_status, service, {'status': 'enabled'})

        self.set_status(service, {'status': 'disabled',
                                  'disabled_reason': 'rack A maintenance'})
        traits = fixtures.wait_for(
            lambda: (lambda t: STATUS_DISABLED in t and t)(
                set(self.traits(provider)['traits'])),
            30, what='COMPUTE_STATUS_DISABLED on compute1')
        self.assertIn('CUSTOM_RACK_A', traits)
        self.assertNotIn(STATUS_DISABLED, self.traits(
            self.provider_of('compute2'))['traits'])

        self.set_status(service, {'status': 'enabled'})
        traits = fixtures.wait_for(
            lambda: (lambda t: STATUS_DISABLED not in t and t)(
                set(self.traits(provider)['traits'])),
            30, what='COMPUTE_STATUS_DISABLED off compute1')
        self.assertIn('CUSTOM_RACK_A', traits)
