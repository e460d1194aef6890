"""Every route of the Placement API, fuzzed (see ``tests.unit.fuzz``): no
hostile path, body, query string, token or microversion makes it answer
5xx or show a traceback, and every error is a Placement error document
with a detail."""

from oslo_utils import uuidutils

from nova_lite.api.placement import handler
from nova_lite.api.placement import microversion as mv
from tests.unit import fuzz
from tests.unit.placement import base


def check_errors(status, document):
    """Placement's {"errors": [{"status": ..., "detail": ...}]}."""
    [error] = document['errors']
    assert error['status'] == status, document
    assert isinstance(error['detail'], str) and error['detail'], document
    assert error['title'], document


def version_headers(values, version):
    service = values.pick(('placement',) * 6 + ('compute', 'PLACEMENT', ''))
    return {'OpenStack-API-Version': ('%s %s' % (service, version)).strip()}


class TestFuzzPlacementAPI(fuzz.FuzzedAPI, base.PlacementTestCase):

    def setUp(self):
        super().setUp()
        self.start_fuzzing(
            self.app, handler.ROUTE_DECLARATIONS,
            good_tokens=(base.ADMIN, 'admin:other'),
            tokens=('demo', None, ''),
            check_error=check_errors, version_header=version_headers,
            versions=fuzz.microversions(mv),
            strings=('VCPU', 'MEMORY_MB', 'DISK_GB', 'CUSTOM_FUZZ',
                     'HW_CPU_X86_AVX', 'VCPU:1', 'VCPU:1,MEMORY_MB:64',
                     'CUSTOM_FUZZ,!HW_CPU_X86_AVX', 'p1', 'u1'))
        check = self.fuzzer.check

        def check_in_the_accepted_media_type(response, method):
            # An Accept preferring HTML (or one webob cannot parse) or
            # taking no JSON gets its error in HTML or plain text, as from
            # OpenStack Placement: still a 4xx that names its status and
            # shows nothing internal.
            if response.status_int >= 400 and response.content_type in (
                    'text/html', 'text/plain'):
                text = response.body.decode('utf-8', 'replace')
                assert response.status_int < 500, text[:2000]
                assert response.status in text, text[:2000]
                for leak in fuzz.LEAKS:
                    assert leak not in text, text[:2000]
                return
            check(response, method)
        self.fuzzer.check = check_in_the_accepted_media_type

    def make_state(self):
        """A compute node with a child, custom class and trait,
        aggregates and an allocation, for the paths to name."""
        root = self.compute_node()
        child = self.make_provider(parent=root)['uuid']
        self.put('/resource_classes/CUSTOM_FUZZ')
        self.put('/traits/CUSTOM_FUZZ')
        self.set_inventory(child, CUSTOM_FUZZ=10)
        aggregate = uuidutils.generate_uuid()
        for provider in (root, child):
            generation = self.get('/resource_providers/%s' %
                                  provider).json['generation']
            self.put('/resource_providers/%s/aggregates' % provider,
                     {'aggregates': [aggregate],
                      'resource_provider_generation': generation})
            generation += 1
            self.put('/resource_providers/%s/traits' % provider,
                     {'traits': ['CUSTOM_FUZZ'],
                      'resource_provider_generation': generation})
        consumer = uuidutils.generate_uuid()
        self.allocate(consumer, {root: {'VCPU': 1, 'MEMORY_MB': 64},
                                 child: {'CUSTOM_FUZZ': 1}})
        return {
            'uuid': [root, child, aggregate],
            'resource_class': ['VCPU', 'MEMORY_MB', 'CUSTOM_FUZZ'],
            'name': ['CUSTOM_FUZZ', 'VCPU', 'HW_CPU_X86_AVX'],
            'consumer_uuid': [consumer],
        }

    def test_provider_routes(self):
        self.fuzz(lambda template, method:
                  template.startswith('/resource_providers'))

    def test_other_routes(self):
        self.fuzz(lambda template, method:
                  not template.startswith('/resource_providers'))
