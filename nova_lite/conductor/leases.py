"""The leases a conductor holds on the builds it works on.

A build request is owned by one conductor at a time: the one whose cast
claimed it, or the one that took it over after its owner stopped renewing
its lease for ``[conductor] interrupted_task_timeout`` seconds (by the
database's clock). While the build goes on, the owner renews the lease
every few seconds (``ConductorManager.renew_build_leases``), so a slow
build -- a scheduler that takes long to answer, placement being restarted
-- is never taken over while its conductor still works on it. Each step
that changes a record first checks that the lease is still this
conductor's (``holds``), and the build request is deleted only by its
owner, so a conductor that lost a build (it stalled past the timeout)
changes nothing of what the new owner does. The owner is a task, not a
process: each cast's build and each takeover claims under a name of its
own, so a takeover fences out a stalled task of its own process too.
"""

import collections
import itertools
import os
import threading

from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import objects

CONF = nova_conf.CONF
LOG = logging.getLogger(__name__)


def _new_owner():
    return '%s:%d:%s' % (CONF.host, os.getpid(),
                         uuidutils.generate_uuid()[:8])


class _Registry:
    """Every (build, owner name) a conductor process holds, for the
    renewal; shared by its BuildLeases."""

    def __init__(self):
        self.held = set()
        self.lock = threading.Lock()
        self.tasks = itertools.count(1)


class BuildLeases:
    """Leases on builds under one owner name. A conductor's manager keeps
    one (its renewal renews them all); each task that claims builds --
    a cast's build, one takeover -- claims under a name of its own
    (``task()``), so that two tasks of one process never share a lease:
    a takeover of a build this very process stalled on fences the
    stalled task out as it would another conductor."""

    def __init__(self, owner=None, registry=None):
        self.owner = owner or _new_owner()
        self._registry = registry or _Registry()

    def task(self):
        """Leases for one task: an owner name of its own, renewed with
        every other lease of this process."""
        return BuildLeases('%s/%d' % (self.owner, next(self._registry.tasks)),
                           self._registry)

    @property
    def held(self):
        """The builds held under this owner name."""
        with self._registry.lock:
            return {uuid for uuid, owner in self._registry.held
                    if owner == self.owner}

    def claim(self, context, instance_uuid, timeout=None):
        """Own the build (see ``BuildRequest.claim``); True if we do."""
        if not objects.BuildRequest.claim(context, instance_uuid,
                                          self.owner, timeout=timeout):
            return False
        with self._registry.lock:
            self._registry.held.add((instance_uuid, self.owner))
        return True

    def claim_new(self, context, instance_uuids):
        """``claim`` of several builds nobody holds yet, in one UPDATE:
        the uuids this owner now holds."""
        claimed = objects.BuildRequest.claim_new(context, instance_uuids,
                                                 self.owner)
        with self._registry.lock:
            self._registry.held.update(
                (uuid, self.owner) for uuid in claimed)
        return claimed

    def holds(self, context, instance_uuid):
        """Still ours (renewed now)? A lost build is forgotten."""
        if objects.BuildRequest.holds(context, instance_uuid, self.owner):
            return True
        LOG.warning('The build of %s is no longer this conductor\'s (%s): '
                    'taken over or deleted; leaving it alone',
                    instance_uuid, self.owner)
        self.release(instance_uuid)
        return False

    def record(self, context, instance_uuid, flow):
        """Record the build's flow while we own it (renewing the lease);
        BuildTakenOver or BuildRequestNotFound when we no longer do."""
        try:
            objects.BuildRequest.record_flow(context, instance_uuid,
                                             self.owner, flow)
        except (exception.BuildTakenOver, exception.BuildRequestNotFound):
            self.release(instance_uuid)
            raise

    def record_together(self, context, instance_uuids, flow):
        """``record`` of the same ``flow`` for several builds at once: the
        uuids of those we own, whose record it wrote. One we no longer
        own is left to ``record``, which says why."""
        return objects.BuildRequest.record_flows(context, instance_uuids,
                                                 self.owner, flow)

    def map_to_cell(self, context, instance_uuid, cell_mapping, flow):
        """Point the server's mapping at ``cell_mapping`` and ``record``
        ``flow``, in one transaction, while we own the build."""
        try:
            objects.InstanceMapping.map_to_cell(
                context, instance_uuid, cell_mapping, self.owner, flow)
        except (exception.BuildTakenOver, exception.BuildRequestNotFound):
            self.release(instance_uuid)
            raise

    def map_all_to_cell(self, context, instance_uuids, cell_mapping, flow):
        """``map_to_cell`` of several builds recording the same ``flow``,
        in one transaction, all or none: False when one was not ours or
        its mapping was gone (nothing is written; ``map_to_cell`` of each
        says which)."""
        return objects.InstanceMapping.map_all_to_cell(
            context, instance_uuids, cell_mapping, self.owner, flow)

    def destroy_all(self, context, instance_uuids):
        """``destroy`` of several build requests in one DELETE, all or
        none: False when one was not ours (nothing is deleted; ``destroy``
        of each says why)."""
        if not objects.BuildRequest.destroy_all(context, instance_uuids,
                                                self.owner):
            return False
        for uuid in instance_uuids:
            self.release(uuid)
        return True

    def release(self, instance_uuid):
        with self._registry.lock:
            self._registry.held.discard((instance_uuid, self.owner))

    def destroy(self, build_request):
        """Delete the build request while we own it: the build is done
        (placed in a cell or buried). BuildRequestNotFound if its user
        deleted it, BuildTakenOver if another conductor owns it."""
        try:
            build_request.destroy(owner=self.owner)
        finally:
            self.release(build_request.instance_uuid)

    def renew(self, context):
        """Renew every lease this process holds, under whichever owner
        name; how many are still held."""
        with self._registry.lock:
            held = set(self._registry.held)
        if not held:
            return 0
        by_owner = collections.defaultdict(set)
        for uuid, owner in held:
            by_owner[owner].add(uuid)
        renewed = sum(objects.BuildRequest.renew(context, uuids, owner)
                      for owner, uuids in sorted(by_owner.items()))
        if renewed < len(held):
            LOG.info('%d of the %d builds this conductor works on are no '
                     'longer its own (done, deleted or taken over)',
                     len(held) - renewed, len(held))
        return renewed
