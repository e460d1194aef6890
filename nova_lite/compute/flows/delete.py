"""Delete on this host: the guest, what the server holds here and its
ports go, then its record.
"""

from oslo_log import log as logging

from nova_lite.compute import instance_actions
from nova_lite import exception
from nova_lite.network import api as network_api

LOG = logging.getLogger(__name__)


def terminate(compute, context, instance):
    with compute.work.working_on(instance.uuid), \
            compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_terminate_instance',
            host=compute.host, action=instance_actions.DELETE):
        compute.driver.destroy(context, instance)
        # All it holds: a live migration under way has claimed its
        # destination for it too.
        compute.rt.drop_instance(context, instance, instance.node,
                                 only_here=False)
        network_api.release_ports(compute.ports, instance)
        try:
            instance.destroy()
        except exception.InstanceNotFound:
            pass
        LOG.info('Instance %s deleted on %s', instance.uuid, compute.host)
    compute.work.forget_lock(instance.uuid)
