"""Rebuild from cell0 (seed 003): build again, keeping its UUID, a server
that was buried in cell0 because no host could take it.

The API has already turned the cell0 record into a new BuildRequest,
pointed the instance mapping at no cell and hard-deleted the cell0 row.
From here the flow is the build's: give the server its requested networks
back, then re-check the quota (usage may have grown since the server was
buried; the server in cell0 counted, the BuildRequest now counts instead),
schedule and build. Whatever fails puts the server back in cell0 in ERROR
with a fault, intact, its networks kept, rebuildable again -- the
BuildRequest is never left behind.
"""

from oslo_log import log as logging

from nova_lite.compute import instance_actions
from nova_lite.conductor.tasks import build

LOG = logging.getLogger(__name__)


class RebuildFromCell0Task:

    def __init__(self, context, scheduler_rpcapi, compute_rpcapi,
                 build_request, request_spec, image, reportclient,
                 leases=None):
        self.context = context
        self.scheduler_rpcapi = scheduler_rpcapi
        self.compute_rpcapi = compute_rpcapi
        self.build_request = build_request
        self.request_spec = request_spec
        self.image = image
        self.reportclient = reportclient
        self.leases = leases

    def execute(self):
        uuid = self.build_request.instance_uuid
        networks = self.request_spec.requested_networks
        # The field holds the networks only while the server is buried.
        self.request_spec.requested_networks = None
        self.request_spec.save()
        LOG.info('Rebuilding %s from cell0', uuid)
        build.ScheduleAndBuildTask(
            self.context, self.scheduler_rpcapi, self.compute_rpcapi,
            [self.build_request], [self.request_spec], self.image,
            self.reportclient, requested_networks=networks,
            action=instance_actions.REBUILD, leases=self.leases).execute()
