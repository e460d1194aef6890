"""Shelve, offload and unshelve. Shelved, a server keeps its host, its
allocation and its ports, its guest powered off; offloaded (at once with
[compute] shelved_offload_time = 0, or by the periodic task once it has
been shelved that long), the host is freed: no guest, no allocation, its
ports bound to no host but still the server's. An unshelve of a server
shelved here powers its guest on; of an offloaded one, the scheduler has
claimed this host and the server is taken over and spawned here.

The offload (``_offload``) is a ``nova_lite.flow.Flow`` whose steps give
back rather than claim: ``destroy_guest``, ``give_back_allocation``,
``unbind_ports``, ``offloaded`` (the record: no host, SHELVED_OFFLOADED).
None has an undo: an offload that fails is done again, not undone -- the
server stays ``shelving_offloading`` and the look for interrupted tasks
offloads it (each step is harmless twice).

The unshelve of an offloaded server is a ``Flow`` too; its steps, with what
undoes each (``unshelve_undos``): ``claim_destination`` -- the
scheduler's claim, handed over by the conductor (undo: given back);
``claim_here`` -- the claim on this node, with the ports' request groups
(undo: the resource tracker drops it); ``bind_here`` -- each port bound
here with its group's provider (undo: bound as it was, to no host);
``take_over`` -- the server's host and node are this one's, its task
``spawning`` (undo: on no host again, ``unshelving``); ``spawn`` (undo:
the guest destroyed). A failure undoes them and leaves the server
offloaded with a fault saying why (``_unshelve_failed``), to be
unshelved again. An unshelve has no migration to record its steps on; a
restart that cut one off here undoes them all (``unshelve_cut_off``:
each undo is harmless for a step not taken).
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.compute.flows import common
from nova_lite.compute import instance_actions
from nova_lite.compute import states
from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import flow as flows
from nova_lite import lifecycle
from nova_lite.network import api as network_api
from nova_lite import objects

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)

OFFLOAD_FLOW = 'offload'
UNSHELVE_FLOW = 'unshelve at the destination'


def shelve(compute, context, instance, image_id):
    with compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_shelve_instance',
            host=compute.host, action=instance_actions.SHELVE) as step:
        try:
            compute.driver.power_off(instance)
        except Exception as error:
            LOG.exception('Shelve of %s failed', instance.uuid)
            common.failed_in_place(compute, context, instance, step, error)
            return
        # The snapshot: an opaque image reference the server is spawned
        # from again when it is unshelved.
        instance.system_metadata.update({
            'shelved_image_id': image_id,
            'shelved_at': timeutils.utcnow().isoformat(),
            'shelved_host': compute.host})
        instance.vm_state = states.SHELVED
        instance.power_state = states.SHUTDOWN
        offload = CONF.compute.shelved_offload_time == 0
        instance.task_state = (states.SHELVING_OFFLOADING if offload
                               else None)
        overtaken = common.save_expecting(instance, states.SHELVING)
        if overtaken is not None:
            LOG.info('Shelve of %s overtaken: %s', instance.uuid, overtaken)
            return
        LOG.info('Instance %s shelved on %s', instance.uuid, compute.host)
        if offload:
            _offload(compute, context, instance)


def shelve_offload(compute, context, instance):
    with compute.work.lock(instance.uuid), instance_actions.event(
            context, instance.uuid, 'compute_shelve_offload_instance',
            host=compute.host, action=instance_actions.SHELVE_OFFLOAD):
        _offload(compute, context, instance)


def _offload(compute, context, instance):
    """Free the host: no guest, no allocation, ports bound to no host
    (they stay the server's: device_id is kept). A failure is raised:
    the offload is done again (the module's docstring)."""
    node = instance.node
    with flows.Flow(OFFLOAD_FLOW, instance.uuid,
                    offload_undos()) as offload:
        offload.step('destroy_guest')
        compute.driver.destroy(context, instance)
        offload.step('give_back_allocation', node)
        compute.rt.drop_instance(context, instance, node)
        offload.step('unbind_ports')
        try:
            for port in compute.ports.ports_of(instance):
                network_api.unbind_from_host(compute.ports, port)
        except exception.NovaLiteException as e:
            LOG.warning('Ports of offloaded %s not unbound: %s',
                        instance.uuid, e)
        offload.step('offloaded')
        instance.host = None
        instance.node = None
        instance.vm_state = states.SHELVED_OFFLOADED
        instance.task_state = None
        overtaken = common.save_expecting(instance,
                                          states.SHELVING_OFFLOADING)
        offload.done()
    if overtaken is not None:
        LOG.info('Offload of %s overtaken: %s', instance.uuid, overtaken)
        return
    compute.work.forget_lock(instance.uuid)
    LOG.info('Instance %s offloaded from %s', instance.uuid, compute.host)


def offload_undos():
    """The offload's steps: none has an undo (the module's docstring)."""
    return flows.undo_table(destroy_guest=None, give_back_allocation=None,
                            unbind_ports=None, offloaded=None)


def offload_shelved_instances(compute, context):
    """Offload the servers shelved here longer than
    [compute] shelved_offload_time."""
    wait = CONF.compute.shelved_offload_time
    if wait <= 0:
        return
    now = timeutils.utcnow()
    for instance in objects.InstanceList.get_by_host(context,
                                                     compute.host):
        shelved_at = instance.system_metadata.get('shelved_at')
        if instance.vm_state != states.SHELVED or \
                instance.task_state is not None or not shelved_at:
            continue
        if (now - timeutils.parse_isotime(shelved_at).replace(
                tzinfo=None)).total_seconds() < wait:
            continue
        instance.task_state = states.SHELVING_OFFLOADING
        if common.save_expecting(instance, None) is not None:
            continue
        shelve_offload(compute, context, instance)


def unshelve(compute, context, instance, image, request_spec, selection,
             resumed=False):
    """Unshelve here: power the guest on again (``selection`` None: it
    was shelved here and never offloaded), or build it here from its
    image. A late or repeated cast touches nothing; ``resumed``: an
    unshelve this compute does again after a restart cut it off."""
    with compute.work.lock(instance.uuid):
        # Deleted meanwhile, it is still this unshelve's to give back
        # the claim made for it (its flow does).
        late = (None if resumed else common.late_or_repeated(
            context, instance, states.UNSHELVING, deleted_is_late=False))
        if late is not None:
            LOG.info('Not unshelving %s here: %s', instance.uuid, late)
            return
        _unshelve(compute, context, instance, image, request_spec,
                  selection)


def _unshelve(compute, context, instance, image, request_spec, selection):
    with instance_actions.event(
            context, instance.uuid, 'compute_unshelve_instance',
            host=compute.host, action=instance_actions.UNSHELVE) as step:
        if selection is None:
            # Shelved here, never offloaded: the guest is powered on.
            _power_on_shelved(compute, context, instance, step)
            return
        groups = request_spec.requested_resources
        provider_of_port = {g.requester_id: g.provider_uuids[0]
                            for g in groups if g.provider_uuids}
        node = selection.nodename
        try:
            with compute.rt.claiming(instance.uuid), flows.Flow(
                    UNSHELVE_FLOW, instance.uuid,
                    unshelve_undos(compute, context, instance)) as flow:
                flow.inherit([['claim_destination',
                              selection.compute_node_uuid]])
                ports = compute.ports.ports_of(instance)
                common.claim_and_bind_here(
                    compute, context, instance, flow, node,
                    selection.limits, groups, provider_of_port, ports)
                flow.step('take_over', node)
                instance.host = compute.host
                instance.node = node
                instance.task_state = states.SPAWNING
                instance.save(expected_task_state=[states.UNSHELVING])
                flow.step('spawn')
                compute.driver.spawn(context, instance, image)
                flow.done()
        except Exception as error:
            LOG.warning('Unshelve of %s on %s failed: %s',
                        instance.uuid, compute.host, error)
            step.fail('The unshelve on %s failed: %s' % (
                compute.host, instance_actions.error_details(error)), error)
            _unshelve_failed(compute, context, instance, error)
            return
        _unshelved(compute, context, instance, states.SPAWNING)


def unshelve_undos(compute, context, instance):
    """What undoes each step of an unshelve here (the module's
    docstring); each is idempotent."""
    def unbind(bound):
        compute.ports.update_port(bound['port'], **{
            'binding:host_id': bound['host'],
            'binding:profile': bound['profile']})

    def offloaded_again(_):
        instance.host = None
        instance.node = None
        instance.task_state = states.UNSHELVING
        # Not taken (or deleted meanwhile): nothing to undo.
        common.save_expecting(instance, states.SPAWNING)

    return flows.undo_table(
        claim_destination=lambda node: lifecycle.give_back(
            compute.rt.reportclient, instance.uuid, if_on=node),
        claim_here=lambda node: compute.rt.drop_instance(context, instance,
                                                         node),
        bind_here=unbind,
        take_over=offloaded_again,
        spawn=lambda _: compute.driver.destroy(context, instance))


def _power_on_shelved(compute, context, instance, step):
    try:
        compute.driver.power_on(instance)
    except Exception as error:
        common.failed_in_place(compute, context, instance, step, error)
        return
    _unshelved(compute, context, instance, states.UNSHELVING)


def _unshelved(compute, context, instance, task_state):
    for key in ('shelved_image_id', 'shelved_at', 'shelved_host'):
        instance.system_metadata.pop(key, None)
    common.spawned(compute, instance, was_stopped=False)
    overtaken = common.save_ending(compute, context, instance, task_state)
    if overtaken is not None:
        LOG.info('%s changed while it was unshelved (%s)',
                 instance.uuid, overtaken)
        return
    LOG.info('Instance %s unshelved on %s', instance.uuid, compute.host)


def _unshelve_failed(compute, context, instance, error):
    """What a failure leaves once the steps are undone: offloaded, with
    the reason as its fault, to be unshelved again."""
    try:
        lifecycle.record_fault(context, instance, error, host=compute.host)
        instance.vm_state = states.SHELVED_OFFLOADED
        instance.task_state = None
        instance.save()
    except exception.InstanceNotFound:
        pass


def unshelve_cut_off(compute, context, instance, error):
    """An unshelve that had taken the server over here when this
    compute's restart cut it off: every step up to ``take_over`` was
    taken, so all of them are undone (``spawn``'s too: destroying a
    guest that is not here is harmless), the ports bound to no host as
    an offloaded server's are; then as after a failure."""
    try:
        ports = compute.ports.ports_of(instance)
    except exception.NovaLiteException as e:
        LOG.error('Ports of %s not read; they stay bound here: %s',
                  instance.uuid, e)
        ports = []
    steps = ([['claim_destination', None], ['claim_here', instance.node]] +
             [['bind_here', {'port': port['id'], 'host': None,
                             'profile': network_api.profile_naming(port,
                                                                   None)}]
              for port in ports] +
             [['take_over', instance.node], ['spawn', None]])
    flows.undo_recorded(UNSHELVE_FLOW, instance.uuid,
                        unshelve_undos(compute, context, instance), steps)
    _unshelve_failed(compute, context, instance, error)
