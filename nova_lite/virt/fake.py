"""The fake virt driver: a hypervisor whose capacity comes from [compute].

What it reports besides capacity: the kinds of guest it runs
(``fake_supported_instances``) and the disk formats it boots
(``fake_image_types``, as provider traits).

Spawning takes ``fake_spawn_seconds`` and can be made to fail for chosen
instance names (``fake_fail_spawn_for``) so a reschedule can be watched.
"""

import threading
import time

from oslo_serialization import jsonutils

from nova_lite.compute import states
from nova_lite import conf as nova_conf
from nova_lite import exception

CONF = nova_conf.CONF


class SpawnFailed(exception.NovaLiteException):
    msg_fmt = 'Spawn of %(instance_uuid)s failed on %(host)s: %(reason)s'


class FakeDriver:
    hypervisor_type = 'fake'
    hypervisor_version = 1000

    def __init__(self, host):
        self.host = host
        self._instances = {}
        self._lock = threading.Lock()

    @property
    def nodename(self):
        return CONF.compute.fake_hypervisor_hostname or self.host

    def get_available_nodes(self):
        return [self.nodename]

    def get_available_resource(self, nodename):
        return {
            'vcpus': CONF.compute.fake_vcpus,
            'memory_mb': CONF.compute.fake_memory_mb,
            'local_gb': CONF.compute.fake_local_gb,
            'hypervisor_type': self.hypervisor_type,
            'hypervisor_version': self.hypervisor_version,
            'hypervisor_hostname': nodename,
            'pci_devices': CONF.compute.fake_pci_devices,
            'cpu_info': jsonutils.dumps({'arch': 'x86_64', 'model': 'fake',
                                         'vendor': 'nova_lite'}),
            'supported_instances': self.supported_instances(),
        }

    @staticmethod
    def supported_instances():
        """[(architecture, hypervisor type, VM mode)] this hypervisor
        runs: [compute] fake_supported_instances."""
        return [tuple(item.split('/'))
                for item in CONF.compute.fake_supported_instances]

    @staticmethod
    def capability_traits():
        """{trait: supported} for the traits this driver decides on its
        node's provider: COMPUTE_IMAGE_TYPE_<FORMAT> for each disk format,
        supported when in [compute] fake_image_types."""
        supported = set(CONF.compute.fake_image_types)
        return {'COMPUTE_IMAGE_TYPE_%s' % image_type.upper():
                image_type in supported
                for image_type in nova_conf.compute.IMAGE_TYPES}

    def spawn(self, context, instance, image_meta=None):
        if CONF.compute.fake_spawn_seconds:
            time.sleep(CONF.compute.fake_spawn_seconds)
        fail_for = CONF.compute.fake_fail_spawn_for
        if '*' in fail_for or instance.display_name in fail_for:
            raise SpawnFailed(instance_uuid=instance.uuid, host=self.host,
                              reason='failure injected by [compute] '
                                     'fake_fail_spawn_for')
        with self._lock:
            self._instances[instance.uuid] = {'state': 'running'}

    # A compute restarted since the spawn has forgotten its guests; power
    # operations bring them back rather than fail.
    def power_off(self, instance):
        with self._lock:
            self._instances[instance.uuid] = {'state': 'shutdown'}

    def power_on(self, instance):
        with self._lock:
            self._instances[instance.uuid] = {'state': 'running'}

    def reboot(self, instance, reboot_type):
        """A SOFT or HARD reboot: either way the guest runs after it."""
        self.power_on(instance)

    def pause(self, instance):
        with self._lock:
            self._instances[instance.uuid] = {'state': 'paused'}

    def unpause(self, instance):
        self.power_on(instance)

    def suspend(self, instance):
        with self._lock:
            self._instances[instance.uuid] = {'state': 'suspended'}

    def resume(self, instance):
        self.power_on(instance)

    _POWER_STATES = {'running': states.RUNNING, 'shutdown': states.SHUTDOWN,
                     'paused': states.PAUSED_POWER,
                     'suspended': states.SUSPENDED_POWER}

    def power_state(self, instance):
        """The guest's power state as the hypervisor sees it (NOSTATE for
        a guest it does not know)."""
        with self._lock:
            guest = self._instances.get(instance.uuid)
        if guest is None:
            return states.NOSTATE
        return self._POWER_STATES.get(guest['state'], states.NOSTATE)

    # -- live migration ------------------------------------------------------

    # A fake guest's memory, for progress figures.
    GUEST_MEMORY_BYTES = 512 * 1024 * 1024

    def live_migration(self, instance, dest, progress, aborted):
        """Transfer ``instance`` to ``dest`` in [compute]
        fake_live_migration_seconds, calling ``progress(total, processed,
        remaining)`` on the way; LiveMigrationAborted as soon as
        ``aborted()`` says so, SpawnFailed-like failure injected by
        [compute] fake_fail_live_migration_for."""
        total = self.GUEST_MEMORY_BYTES
        seconds = CONF.compute.fake_live_migration_seconds
        steps = max(1, int(seconds / 0.2)) if seconds else 1
        for step in range(steps):
            if aborted():
                raise exception.LiveMigrationAborted(
                    instance_uuid=instance.uuid)
            if seconds:
                time.sleep(seconds / steps)
            done = total * (step + 1) // steps
            progress(total, done, total - done)
        fail_for = CONF.compute.fake_fail_live_migration_for
        if '*' in fail_for or instance.display_name in fail_for:
            raise SpawnFailed(instance_uuid=instance.uuid, host=self.host,
                              reason='live migration to %s failed: failure '
                                     'injected by [compute] '
                                     'fake_fail_live_migration_for' % dest)

    def migrate_disk_and_power_off(self, instance, dest):
        """Send ``instance``'s disks to ``dest`` for a resize or cold
        migration (the guest is off already): [compute]
        fake_resize_seconds."""
        if CONF.compute.fake_resize_seconds:
            time.sleep(CONF.compute.fake_resize_seconds)
        with self._lock:
            self._instances[instance.uuid] = {'state': 'shutdown'}

    def accept_migrated(self, instance):
        """The guest arrived here by live migration."""
        with self._lock:
            self._instances[instance.uuid] = {'state': 'running'}

    def destroy(self, context, instance):
        with self._lock:
            self._instances.pop(instance.uuid, None)

    def list_instance_uuids(self):
        with self._lock:
            return list(self._instances)
