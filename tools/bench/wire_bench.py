#!/usr/bin/env python3
"""Benchmark: what the wire format of a compute's save costs, in one
process, without RabbitMQ or a database.

Builds an instance as a compute holds it when its build takes it over
(every field set, host, node and task changed) and times N round trips
of the object a ``save`` call carries: the compute's serialisation and
JSON, the conductor's JSON and deserialisation, and the conductor's
reading of every field's primitive before and after the method (the
answer it sends back). Once with the whole instance (what every object
call carried before ``obj_sent_for``) and once with what ``save`` sends
now. Also times ``obj_what_changed`` and ``obj_to_primitive`` of that
instance. Prints microseconds per call and the bytes sent; asserts
nothing.

    tools/bench/wire_bench.py --calls 5000
"""

import argparse
import datetime
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from oslo_serialization import jsonutils  # noqa: E402
from oslo_utils import uuidutils  # noqa: E402

from nova_lite.conductor import manager as conductor_manager  # noqa: E402
from nova_lite import context as nova_context  # noqa: E402
from nova_lite import objects  # noqa: E402
from nova_lite import rpc  # noqa: E402


def taken_over_instance(context):
    """An instance as the conductor created it, taken over by compute1."""
    now = datetime.datetime(2026, 11, 29, 10, 0, 0)
    flavor = objects.Flavor(
        id=1, flavorid='1', name='m1.tiny', memory_mb=512, vcpus=1,
        root_gb=1, ephemeral_gb=0, swap=0, rxtx_factor=1.0, is_public=True,
        disabled=False, extra_specs={'hw:cpu_policy': 'shared'},
        projects=[])
    instance = objects.Instance(
        context, id=3, uuid=uuidutils.generate_uuid(), user_id='demo',
        project_id='demo', display_name='web', display_description=None,
        hostname='web', host=None, node=None, launched_on=None,
        vm_state='building', task_state='scheduling', power_state=0,
        image_ref=uuidutils.generate_uuid(), flavor=flavor, old_flavor=None,
        new_flavor=None, memory_mb=512, vcpus=1, root_gb=1, ephemeral_gb=0,
        availability_zone='nova', key_name=None, user_data=None,
        metadata={}, system_metadata={'image_base_image_ref': 'x',
                                      'image_min_disk': '1'},
        tags=[], locked=False, config_drive='', launch_index=0,
        reservation_id='r-abc', progress=0, launched_at=None,
        terminated_at=None, key_data=None, trusted_certs=None,
        block_device_mapping=[], created_at=now, updated_at=now,
        deleted_at=None, deleted=False)
    instance.obj_reset_changes(recursive=True)
    instance.host = instance.node = instance.launched_on = 'compute1'
    instance.task_state = 'spawning'
    return instance


def per_call_us(function, calls):
    start = time.process_time()
    for _ in range(calls):
        function()
    return (time.process_time() - start) * 1e6 / calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--calls', type=int, default=5000)
    args = parser.parse_args()
    objects.register_all()
    context = nova_context.get_admin_context()
    instance = taken_over_instance(context)
    serializer = rpc.RequestContextSerializer()

    def round_trip(sent):
        wire = jsonutils.dumps(serializer.serialize_entity(context, sent))
        received = serializer.deserialize_entity(context,
                                                 jsonutils.loads(wire))
        conductor_manager._field_primitives(received)
        conductor_manager._field_primitives(received)
        return wire

    print('%d calls each' % args.calls)
    for name, sent in (('whole', lambda: instance),
                       ('sent', lambda: instance.obj_for_call('save'))):
        print('save_wire_bytes_%s: %d' % (name, len(round_trip(sent()))))
        print('save_wire_us_%s: %.1f' % (name, per_call_us(
            lambda: round_trip(sent()), args.calls)))
    print('obj_what_changed_us: %.1f' % per_call_us(
        instance.obj_what_changed, args.calls))
    print('obj_to_primitive_us: %.1f' % per_call_us(
        instance.obj_to_primitive, args.calls))


if __name__ == '__main__':
    main()
