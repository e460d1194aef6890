"""Client side of the compute RPC API (topic ``compute.<host>``).

API version history:

    1.0 - Initial version: build_and_run_instance, terminate_instance.
    1.1 - rebuild_instance, stop_instance, start_instance; instances may
          be Instance 1.1 (key_data, trusted_certs, block_device_mapping;
          an older compute has them backported through the conductor).
    1.2 - rebuild_instance takes recreate, migration and selection: the
          evacuation of a server from a host that is down to this one.
    1.3 - rebuild_instance takes request_spec, whose request groups name
          the providers that satisfied the ports' resource requests, so an
          evacuated server's port bindings get the destination's
          ``allocation``; shelve_instance, shelve_offload_instance and
          unshelve_instance (with the same request_spec).
    1.4 - live migration: check_can_live_migrate_destination and
          check_can_live_migrate_source (calls), live_migration (cast to
          the source), pre_live_migration and
          post_live_migration_at_destination (calls to the destination),
          rollback_live_migration_at_destination (cast),
          live_migration_abort (cast to the source).
    1.5 - reboot_instance (SOFT or HARD), pause_instance,
          unpause_instance, suspend_instance and resume_instance.
    1.6 - resize and cold migration: prep_resize (call to the
          destination), resize_instance (cast to the source),
          finish_resize (cast to the destination), confirm_resize (cast
          to the source), revert_resize (cast to the destination),
          finish_revert_resize (cast to the source).
    1.7 - set_host_enabled (cast): an administrator enabled or disabled
          the compute service; it puts COMPUTE_STATUS_DISABLED on its
          nodes' providers or takes it off.
"""

import oslo_messaging as messaging
from oslo_utils import versionutils

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite.objects import service as service_obj
from nova_lite import rpc
from nova_lite import servicegroup

CONF = nova_conf.CONF

RPC_TOPIC = 'compute'
LATEST_VERSION = '1.7'
# Reconnection attempts of a cast before it fails (None would be forever).
CAST_RETRIES = 3


def topic_for(host):
    return '%s.%s' % (RPC_TOPIC, host)


class ComputeAPI:

    def __init__(self):
        self.version_cap = rpc.version_cap('compute', 'compute',
                                           LATEST_VERSION)

    def _client(self, context, host):
        # The cast goes over the transport of the cell the context is aimed
        # at, which is where that host's compute listens.
        target = messaging.Target(topic=topic_for(host), server=host,
                                  version='1.0')
        transport = rpc.get_transport(getattr(context, 'mq_url', None))
        return rpc.get_client(target, version_cap=self.version_cap,
                              transport=transport)

    def build_and_run_instance(self, context, instance, host, request_spec,
                               host_list, limits=None, image=None):
        """``host`` is the chosen Selection; ``host_list`` its alternates."""
        self._client(context, host.service_host).prepare(
            retry=CAST_RETRIES).cast(
            context, 'build_and_run_instance', instance=instance,
            selection=host, request_spec=request_spec, host_list=host_list,
            limits=limits, image=image)

    def can_send_version(self, context, host, version):
        return self._client(context, host).can_send_version(version)

    def _cast_at(self, version, context, host, instance, method, **kwargs):
        """Cast ``method`` to ``host`` at ``version``; ComputeTooOld,
        nothing sent, if computes are pinned below it."""
        client = self._client(context, host)
        if not client.can_send_version(version):
            raise exception.ComputeTooOld(
                host=host, action=method, version=version,
                pinned=self.version_cap)
        client.prepare(version=version, retry=CAST_RETRIES).cast(
            context, method, instance=instance, **kwargs)

    def _cast_1_1(self, context, instance, method, **kwargs):
        self._cast_at('1.1', context, instance.host, instance, method,
                      **kwargs)

    def rebuild_instance(self, context, instance, image, orig_image_ref,
                         preserve_ephemeral=False):
        """Destroy and re-create ``instance`` on its host from ``image``
        (an ImageMeta, or None when it boots from a volume)."""
        self._cast_1_1(context, instance, 'rebuild_instance', image=image,
                       orig_image_ref=orig_image_ref,
                       preserve_ephemeral=preserve_ephemeral)

    def evacuate_instance(self, context, instance, host, image, migration,
                          selection, request_spec):
        """Rebuild ``instance`` on ``host`` (a Selection's service_host),
        its old host being down. Compute RPC 1.2 suffices for a server
        whose ports have no resource requests; with them 1.3 is needed
        (ComputeTooOldForPortResources)."""
        client = self._client(context, host)
        version = '1.3'
        kwargs = {'request_spec': request_spec}
        if not client.can_send_version(version):
            if request_spec is not None and \
                    request_spec.requested_resources:
                raise exception.ComputeTooOldForPortResources(
                    action='evacuate', instance_uuid=instance.uuid,
                    host=host, have=self.version_cap or '1.2', need='1.3')
            version, kwargs = '1.2', {}
            if not client.can_send_version(version):
                raise exception.ComputeTooOld(
                    host=host, action='evacuate', version='1.2',
                    pinned=self.version_cap)
        client.prepare(version=version, retry=CAST_RETRIES).cast(
            context, 'rebuild_instance', instance=instance, image=image,
            orig_image_ref=instance.image_ref, recreate=True,
            migration=migration, selection=selection, **kwargs)

    def _cast_1_3(self, context, host, instance, method, **kwargs):
        self._cast_at('1.3', context, host, instance, method, **kwargs)

    def shelve_instance(self, context, instance, image_id):
        """Power off and keep ``image_id`` as the server's snapshot; the
        compute offloads it at once if [compute] shelved_offload_time is
        0."""
        self._cast_1_3(context, instance.host, instance, 'shelve_instance',
                       image_id=image_id)

    def shelve_offload_instance(self, context, instance):
        self._cast_1_3(context, instance.host, instance,
                       'shelve_offload_instance')

    def unshelve_instance(self, context, instance, host, image=None,
                          request_spec=None, selection=None):
        """Unshelve on ``host``: the host it is shelved on (no selection),
        or the scheduler's choice for an offloaded server."""
        self._cast_1_3(context, host, instance, 'unshelve_instance',
                       image=image, request_spec=request_spec,
                       selection=selection)

    # -- live migration (1.4) -------------------------------------------------

    LIVE_MIGRATION_VERSION = '1.4'
    # A pre-check may take a while on a real hypervisor; a compute that
    # does not answer at all fails the pre-check, and the conductor tries
    # the next host.
    PRE_CHECK_TIMEOUT = 60

    def can_live_migrate(self, context, host):
        return self.can_send_version(context, host,
                                     self.LIVE_MIGRATION_VERSION)

    def _call_1_4(self, context, host, method, timeout=None, **kwargs):
        client = self._client(context, host)
        if not client.can_send_version(self.LIVE_MIGRATION_VERSION):
            raise exception.ComputeTooOld(
                host=host, action=method,
                version=self.LIVE_MIGRATION_VERSION, pinned=self.version_cap)
        return client.prepare(version=self.LIVE_MIGRATION_VERSION,
                              timeout=timeout or self.PRE_CHECK_TIMEOUT).call(
            context, method, **kwargs)

    def _cast_1_4(self, context, host, method, **kwargs):
        client = self._client(context, host)
        if not client.can_send_version(self.LIVE_MIGRATION_VERSION):
            raise exception.ComputeTooOld(
                host=host, action=method,
                version=self.LIVE_MIGRATION_VERSION, pinned=self.version_cap)
        client.prepare(version=self.LIVE_MIGRATION_VERSION,
                       retry=CAST_RETRIES).cast(context, method, **kwargs)

    def check_can_live_migrate_destination(self, context, instance, host,
                                           migrate_data):
        return self._call_1_4(context, host,
                              'check_can_live_migrate_destination',
                              instance=instance, migrate_data=migrate_data)

    def check_can_live_migrate_source(self, context, instance,
                                      migrate_data):
        return self._call_1_4(context, instance.host,
                              'check_can_live_migrate_source',
                              instance=instance, migrate_data=migrate_data)

    def live_migration(self, context, instance, migration, migrate_data):
        self._cast_1_4(context, instance.host, 'live_migration',
                       instance=instance, migration=migration,
                       migrate_data=migrate_data)

    def pre_live_migration(self, context, instance, host, migrate_data):
        return self._call_1_4(context, host, 'pre_live_migration',
                              instance=instance, migrate_data=migrate_data)

    def post_live_migration_at_destination(self, context, instance, host,
                                           migrate_data):
        return self._call_1_4(context, host,
                              'post_live_migration_at_destination',
                              instance=instance, migrate_data=migrate_data)

    def rollback_live_migration_at_destination(self, context, instance,
                                               host, migrate_data):
        self._cast_1_4(context, host,
                       'rollback_live_migration_at_destination',
                       instance=instance, migrate_data=migrate_data)

    def live_migration_abort(self, context, instance, migration_id):
        self._cast_1_4(context, instance.host, 'live_migration_abort',
                       instance=instance, migration_id=migration_id)

    def stop_instance(self, context, instance):
        self._cast_1_1(context, instance, 'stop_instance')

    def start_instance(self, context, instance):
        self._cast_1_1(context, instance, 'start_instance')

    # -- reboot, pause, suspend (1.5) -----------------------------------------

    POWER_ACTIONS_VERSION = '1.5'

    def _cast_1_5(self, context, instance, method, **kwargs):
        self._cast_at(self.POWER_ACTIONS_VERSION, context, instance.host,
                      instance, method, **kwargs)

    def reboot_instance(self, context, instance, reboot_type):
        """``reboot_type``: SOFT (the guest is asked to restart) or
        HARD (it is powered off and on)."""
        self._cast_1_5(context, instance, 'reboot_instance',
                       reboot_type=reboot_type)

    def pause_instance(self, context, instance):
        self._cast_1_5(context, instance, 'pause_instance')

    def unpause_instance(self, context, instance):
        self._cast_1_5(context, instance, 'unpause_instance')

    def suspend_instance(self, context, instance):
        self._cast_1_5(context, instance, 'suspend_instance')

    def resume_instance(self, context, instance):
        self._cast_1_5(context, instance, 'resume_instance')

    # -- resize and cold migration (1.6) --------------------------------------

    RESIZE_VERSION = '1.6'

    def can_resize(self, context, host):
        """Whether ``host``'s compute takes a resize: the cap allows
        1.6, and the compute there runs a release that speaks it (its
        service record says so: in a rolling upgrade one old compute
        may remain while the cap is already up)."""
        return self.can_send_version(context, host, self.RESIZE_VERSION) \
            and self.host_speaks(context, host, self.RESIZE_VERSION)

    @classmethod
    def host_speaks(cls, context, host, version):
        """Whether the compute of ``host`` (in the cell ``context``
        targets) speaks compute RPC ``version``, by the service version
        it recorded; False when it has no record."""
        service = servicegroup.compute_service(context, host)
        return service is not None and cls.service_speaks(service, version)

    @staticmethod
    def service_speaks(service, version):
        """Whether the compute whose service record is ``service``
        speaks compute RPC ``version``."""
        history = service_obj.SERVICE_VERSION_HISTORY
        spoken = history[min(service.version or 0, len(history) - 1)][
            'compute']
        return versionutils.is_compatible(version, spoken)

    def prep_resize(self, context, instance, migration, flavor, limits):
        """Ask the destination (``migration.dest_compute``) whether it can
        take ``instance`` at ``flavor``: MigrationPreCheckError if not.
        A destination that does not answer is refused like one that
        says no."""
        client = self._client(context, migration.dest_compute)
        if not client.can_send_version(self.RESIZE_VERSION):
            raise exception.ComputeTooOld(
                host=migration.dest_compute, action='resize',
                version=self.RESIZE_VERSION, pinned=self.version_cap)
        return client.prepare(version=self.RESIZE_VERSION,
                              timeout=self.PRE_CHECK_TIMEOUT).call(
            context, 'prep_resize', instance=instance, migration=migration,
            flavor=flavor, limits=limits)

    def _cast_1_6(self, context, host, instance, method, **kwargs):
        self._cast_at(self.RESIZE_VERSION, context, host, instance, method,
                      **kwargs)

    def resize_instance(self, context, instance, migration, flavor,
                        request_spec, claimed_node):
        """To the source: power off and hand the server over to the
        destination; ``claimed_node`` is the compute node the server's
        claim is on."""
        self._cast_1_6(context, migration.source_compute, instance,
                       'resize_instance', migration=migration, flavor=flavor,
                       request_spec=request_spec, claimed_node=claimed_node)

    def finish_resize(self, context, instance, migration, flavor,
                      request_spec, claimed_node):
        """To the destination: take the server over at ``flavor``."""
        self._cast_1_6(context, migration.dest_compute, instance,
                       'finish_resize', migration=migration, flavor=flavor,
                       request_spec=request_spec, claimed_node=claimed_node)

    def confirm_resize(self, context, instance, migration):
        """To the source: drop what the server left there."""
        self._cast_1_6(context, migration.source_compute, instance,
                       'confirm_resize', migration=migration)

    def revert_resize(self, context, instance, migration):
        """To the destination: give the server back to its source."""
        self._cast_1_6(context, migration.dest_compute, instance,
                       'revert_resize', migration=migration)

    def finish_revert_resize(self, context, instance, migration):
        """To the source: run the server there again at its old
        flavor."""
        self._cast_1_6(context, migration.source_compute, instance,
                       'finish_revert_resize', migration=migration)

    # -- the host's status (1.7) ----------------------------------------------

    HOST_STATUS_VERSION = '1.7'

    def can_set_host_enabled(self, context, service):
        """Whether the compute of ``service`` (its record) takes
        set_host_enabled: the cap allows 1.7 and it runs a release that
        speaks it."""
        return self.can_send_version(context, service.host,
                                     self.HOST_STATUS_VERSION) and \
            self.service_speaks(service, self.HOST_STATUS_VERSION)

    def set_host_enabled(self, context, host, enabled):
        """Tell ``host``'s compute that its service was enabled or
        disabled; ComputeTooOld, nothing sent, if computes are pinned
        below 1.7."""
        client = self._client(context, host)
        if not client.can_send_version(self.HOST_STATUS_VERSION):
            raise exception.ComputeTooOld(
                host=host, action='set_host_enabled',
                version=self.HOST_STATUS_VERSION, pinned=self.version_cap)
        client.prepare(version=self.HOST_STATUS_VERSION,
                       retry=CAST_RETRIES).cast(
            context, 'set_host_enabled', enabled=enabled)

    def terminate_instance(self, context, instance):
        self._client(context, instance.host).prepare(
            retry=CAST_RETRIES).cast(
            context, 'terminate_instance', instance=instance)
