"""Client side of the scheduler RPC API (topic ``scheduler``).

API version history:

    1.0 - Initial version: select_destinations returning, per instance, a
          list holding the chosen Selection.
    1.1 - select_destinations takes return_alternates: the chosen Selection
          is followed by up to max_attempts - 1 alternates from its cell.
    1.2 - select_destinations' spec_obj may be a RequestSpec 1.1 (with the
          instance_group of the server group policies). An older scheduler
          is sent the spec as RequestSpec 1.0, without the group.
    1.3 - spec_obj may be a RequestSpec 1.2 (requested_networks). An older
          scheduler is sent it as RequestSpec 1.1.
    1.4 - spec_obj may be a RequestSpec 1.3 (requested_resources: the
          ports' request groups). An older scheduler is sent it as
          RequestSpec 1.2, unless it has request groups: those an older
          scheduler would silently ignore, so the request fails with
          NoValidHost saying why.
    1.5 - spec_obj may be a RequestSpec 1.4 (requested_destination: a
          move's named host, which must pass the filters). An older
          scheduler is sent it as RequestSpec 1.3, unless it names a
          requested destination: an older scheduler would place the
          server on any host, so the request fails with NoValidHost
          saying why.
"""

import oslo_messaging as messaging
from oslo_versionedobjects import base as objects_base

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import outage
from nova_lite import rpc

CONF = nova_conf.CONF

RPC_TOPIC = 'scheduler'
LATEST_VERSION = '1.5'


class SchedulerAPI:

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC, version='1.0')
        self.version_cap = rpc.version_cap('scheduler', 'scheduler',
                                           LATEST_VERSION)
        self.client = rpc.get_client(target, version_cap=self.version_cap)

    def select_destinations(self, context, spec_obj, instance_uuids,
                            return_alternates=True, timeout=None):
        """Per instance a list [chosen, alternate, ...] of Selections.

        A scheduler pinned below 1.1 returns no alternates, so a failed
        spawn cannot be rescheduled until it is upgraded. Raises NoValidHost
        (with the reason per filter) when an instance cannot be placed, and
        MessagingTimeout when no scheduler answers.
        """
        version = '1.5'
        if spec_obj.requested_destination is not None and \
                not self.client.can_send_version(version):
            raise exception.NoValidHost(
                reason='a host was named for the move and the schedulers '
                       'are pinned to scheduler RPC API %s, which cannot '
                       'run the filters on that host alone (needs 1.5; '
                       'see [upgrade_levels] scheduler, or force the '
                       'host)' % self.version_cap)
        if spec_obj.requested_resources and \
                not self.client.can_send_version('1.4'):
            raise exception.NoValidHost(
                reason='the server has ports with resource requests and '
                       'the schedulers are pinned to scheduler RPC API %s, '
                       'which cannot ask placement for them (needs 1.4; '
                       'see [upgrade_levels] scheduler)' % self.version_cap)
        kwargs = {'spec_obj': spec_obj, 'instance_uuids': instance_uuids,
                  'return_alternates': return_alternates}
        # (RPC version, the RequestSpec version its scheduler knows); an
        # object primitive is deserialized into the receiver's class like
        # the object itself would have been.
        for older, spec_version in (('1.4', '1.3'), ('1.3', '1.2'),
                                    ('1.2', '1.1'), ('1.1', '1.0')):
            if self.client.can_send_version(version):
                break
            manifest = dict(objects_base.obj_tree_get_versions(
                'RequestSpec'), RequestSpec=spec_version)
            kwargs['spec_obj'] = spec_obj.obj_to_primitive(
                target_version=spec_version, version_manifest=manifest)
            version = older
        if not self.client.can_send_version(version):
            version = '1.0'
            del kwargs['return_alternates']
        cctxt = self.client.prepare(
            version=version,
            timeout=timeout or CONF.conductor.scheduler_call_timeout)
        return cctxt.call(context, 'select_destinations', **kwargs)


def select_destinations_patiently(scheduler_api, context, spec_obj,
                                  instance_uuids, return_alternates=True):
    """``scheduler_api.select_destinations``, asked again while the
    scheduler is away (no answer: it or the broker restarts), cannot
    reach placement, has heard from no compute lately (their heartbeats
    stopped at once: a broker or database blink) or could not read hosts
    it might need (a database blink), for up to
    [DEFAULT] outage_wait
    (``nova_lite.outage``). Asking again is safe: a scheduler keeps the
    claim an unanswered request wrote for an instance and answers with its
    host."""
    kwargs = {} if return_alternates else {'return_alternates': False}
    return outage.ride_out(
        lambda: scheduler_api.select_destinations(
            context, spec_obj, instance_uuids, **kwargs),
        (exception.NoValidHostForNow, messaging.MessagingTimeout) +
        outage.BROKER_AWAY,
        'Scheduling of %s' % ', '.join(instance_uuids or
                                       [spec_obj.instance_uuid]))
