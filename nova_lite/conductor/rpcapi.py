"""Client side of the conductor RPC API (topic ``conductor``).

API version history:

    1.0 - Initial version: object indirection (object_class_action_versions,
          object_action, object_backport_versions), ping,
          schedule_and_build_instances, build_instances (reschedule).
    1.1 - rebuild_instance_in_cell0: build again, with the same UUID, a
          server that was buried in cell0 (seed 003).
    1.2 - evacuate_instance: rebuild a server whose host is down on
          another host, chosen by the scheduler (seed 001);
          unshelve_instance: schedule and spawn an offloaded server.
    1.3 - live_migrate_instance: the live-migration task with its
          reschedule loop (seed 001).
    1.4 - object_action and object_class_action_versions take a
          call_id: a call asked again after its answer was lost is run
          once (conductor/answers.py).
    1.5 - live_migrate_instance and evacuate_instance take force: a named
          host is only a candidate that the scheduler's filters check,
          unless the caller forced it. A 1.4 conductor forces every named
          host, so an unforced move to a named host is refused
          (ConductorTooOld) rather than sent to it.
    1.6 - migrate_server: resize, or cold migrate, with the reschedule
          to the alternates (conductor/tasks/migrate.py).
"""

import oslo_messaging as messaging
from oslo_utils import uuidutils

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import outage
from nova_lite import rpc

CONF = nova_conf.CONF

RPC_TOPIC = 'conductor'
LATEST_VERSION = '1.6'
# Reconnection attempts of a cast before it fails (None would be forever).
CAST_RETRIES = 3


class ConductorAPI:
    """Calls to the conductor. Also the object indirection API of computes:
    every ``@remotable`` object method of a compute runs through here."""

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC, version='1.0')
        self.version_cap = rpc.version_cap('conductor', 'conductor',
                                           LATEST_VERSION)
        self.client = rpc.get_client(target, version_cap=self.version_cap)

    # -- object indirection ------------------------------------------------

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        return self._object_call(
            context, 'object_class_action_versions',
            '%s.%s' % (objname, objmethod), objname=objname,
            objmethod=objmethod, object_versions=object_versions,
            args=args, kwargs=kwargs)

    def object_action(self, context, objinst, objmethod, args, kwargs):
        # A save carries only its row's identity and what changed: the
        # conductor's method reads nothing else, whatever its version.
        return self._object_call(
            context, 'object_action',
            '%s.%s' % (objinst.obj_name(), objmethod),
            objinst=objinst.obj_for_call(objmethod),
            objmethod=objmethod, args=args, kwargs=kwargs)

    def _object_call(self, context, method, what, **kwargs):
        """An object call, asked again while the broker is away, the
        answer does not come (the broker restarted under it, the
        conductor did) or the conductor's database cannot serve it (it
        restarts, a Galera node rejoins its cluster), for up to [DEFAULT]
        outage_wait: a compute that cannot read or write its records has
        nothing else to do. From 1.4 the call carries an id, and a
        conductor runs it once however often it is asked
        (``conductor/answers.py``) -- but again when its database did
        none of it. A connection lost mid-way, which the conductor tried
        again already and whose write may have happened, is not asked
        again."""
        if self.client.can_send_version('1.4'):
            cctxt = self.client.prepare(version='1.4')
            kwargs['call_id'] = uuidutils.generate_uuid()
        else:
            cctxt = self.client.prepare()
        return outage.ride_out(
            lambda: cctxt.call(context, method, **kwargs),
            (messaging.MessagingTimeout, exception.DatabaseUnavailable) +
            outage.BROKER_AWAY,
            'The conductor call %s' % what,
            unless=exception.DatabaseConnectionLost)

    def object_backport_versions(self, context, objinst, object_versions):
        cctxt = self.client.prepare()
        return cctxt.call(context, 'object_backport_versions',
                          objinst=objinst, object_versions=object_versions)

    # -- liveness ------------------------------------------------------------

    def ping(self, context, arg, timeout=None):
        cctxt = self.client.prepare(timeout=timeout)
        return cctxt.call(context, 'ping', arg=arg)

    # -- compute tasks -------------------------------------------------------

    def schedule_and_build_instances(self, context, build_requests,
                                     request_specs, image,
                                     requested_networks=None,
                                     block_device_mapping=None, tags=None):
        # Bounded retries: with the broker down the API must answer 503,
        # not wait forever.
        cctxt = self.client.prepare(retry=CAST_RETRIES)
        cctxt.cast(context, 'schedule_and_build_instances',
                   build_requests=build_requests,
                   request_specs=request_specs, image=image,
                   requested_networks=requested_networks,
                   block_device_mapping=block_device_mapping, tags=tags)

    def can_rebuild_in_cell0(self):
        return self.client.can_send_version('1.1')

    def rebuild_instance_in_cell0(self, context, build_request, request_spec,
                                  image):
        """Schedule and build again the server ``build_request`` holds;
        the API has taken it out of cell0. ConductorTooOld if the
        conductors are pinned below 1.1: check can_rebuild_in_cell0()
        before changing anything."""
        if not self.can_rebuild_in_cell0():
            raise exception.ConductorTooOld(
                action='rebuild_instance_in_cell0', version='1.1',
                pinned=self.version_cap)
        cctxt = self.client.prepare(version='1.1', retry=CAST_RETRIES)
        cctxt.cast(context, 'rebuild_instance_in_cell0',
                   build_request=build_request, request_spec=request_spec,
                   image=image)

    def can_evacuate(self):
        return self.client.can_send_version('1.2')

    def evacuate_instance(self, context, instance, host=None, force=False):
        """Evacuate ``instance`` (its host is down) to ``host`` or to a
        host the scheduler picks; ``host`` skips the filters only with
        ``force``. ConductorTooOld if the conductors are pinned below 1.2,
        or below 1.5 for an unforced ``host``."""
        if not self.can_evacuate():
            raise exception.ConductorTooOld(
                action='evacuate', version='1.2', pinned=self.version_cap)
        cctxt = self._prepare_move('evacuate', host, force, '1.2')
        kwargs = {'force': force} if cctxt.target.version == '1.5' else {}
        cctxt.cast(context, 'evacuate_instance', instance=instance,
                   host=host, **kwargs)

    def can_live_migrate(self):
        return self.client.can_send_version('1.3')

    def can_filter_named_host(self, host, force):
        """Whether the conductors would move a server to ``host`` the way
        the caller asked: with the filters run on it unless ``force``. A
        conductor below 1.5 forces every named host."""
        return not host or force or self.client.can_send_version('1.5')

    def live_migrate_instance(self, context, instance, host=None,
                              block_migration=False, force=False):
        """Live migrate ``instance`` to ``host`` or to a host the scheduler
        picks; ``host`` skips the filters only with ``force``.
        ConductorTooOld if the conductors are pinned below 1.3, or below
        1.5 for an unforced ``host``."""
        if not self.can_live_migrate():
            raise exception.ConductorTooOld(
                action='live migrate', version='1.3',
                pinned=self.version_cap)
        cctxt = self._prepare_move('live migrate', host, force, '1.3')
        kwargs = {'force': force} if cctxt.target.version == '1.5' else {}
        cctxt.cast(context, 'live_migrate_instance', instance=instance,
                   host=host, block_migration=block_migration, **kwargs)

    def _prepare_move(self, action, host, force, version):
        """The cast's context for a move to ``host``: at 1.5 when the
        conductors speak it, else at ``version`` without ``force`` --
        which an older conductor takes as forced, so that is refused for
        an unforced named host."""
        if self.client.can_send_version('1.5'):
            return self.client.prepare(version='1.5', retry=CAST_RETRIES)
        if not self.can_filter_named_host(host, force):
            raise exception.ConductorTooOld(
                action='%s to a named host without force (the scheduler '
                       'filters checking it)' % action,
                version='1.5', pinned=self.version_cap)
        return self.client.prepare(version=version, retry=CAST_RETRIES)

    def can_resize(self):
        return self.client.can_send_version('1.6')

    def migrate_server(self, context, instance, flavor, host=None):
        """Resize ``instance`` to ``flavor`` or, at its own flavor, cold
        migrate it -- to ``host`` (checked by the scheduler's filters) or
        to a host the scheduler picks. ConductorTooOld if the conductors
        are pinned below 1.6."""
        if not self.can_resize():
            raise exception.ConductorTooOld(
                action='resize', version='1.6', pinned=self.version_cap)
        cctxt = self.client.prepare(version='1.6', retry=CAST_RETRIES)
        cctxt.cast(context, 'migrate_server', instance=instance,
                   flavor=flavor, host=host)

    def unshelve_instance(self, context, instance):
        if not self.can_evacuate():
            raise exception.ConductorTooOld(
                action='unshelve', version='1.2', pinned=self.version_cap)
        cctxt = self.client.prepare(version='1.2', retry=CAST_RETRIES)
        cctxt.cast(context, 'unshelve_instance', instance=instance)

    def build_instances(self, context, instances, request_spec, host_lists,
                        image=None):
        """Reschedule ``instances`` to the next host of ``host_lists``."""
        cctxt = self.client.prepare(retry=CAST_RETRIES)
        cctxt.cast(context, 'build_instances', instances=instances,
                   request_spec=request_spec, host_lists=host_lists,
                   image=image)
