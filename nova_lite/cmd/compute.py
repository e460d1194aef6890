"""nova-lite-compute: one per hypervisor host, with no database access.

Every object it persists goes through the conductor: the object classes'
indirection API is set to the conductor RPC client before anything else
touches an object. It needs no [database] or [api_database] option; if the
config it reads has a connection (one machine whose daemons all read the
same nova-lite.conf), the compute says so, forgets it and starts, and any
direct database use in the process raises DBNotAllowed.
"""

from oslo_log import log as logging

from nova_lite.cmd import common

LOG = logging.getLogger(__name__)


def main():
    def body():
        common.setup()
        if common.CONF.database.connection or \
                common.CONF.api_database.connection:
            LOG.warning('This compute has database connection strings in '
                        'its configuration; computes never use them (all '
                        'persistence goes through the conductor). Remove '
                        'them so the host holds no database credentials.')
            common.CONF.set_override('connection', None, 'database')
            common.CONF.set_override('connection', None, 'api_database')
        from nova_lite.db import api as db_api
        from nova_lite import servicegroup
        db_api.block_access(servicegroup.COMPUTE_BINARY)
        from nova_lite.network import agent
        # A malformed [network] bandwidths or bridge_mappings stops the
        # compute here, with one clear line, not at its first report.
        agent.validate_config()
        common.check_placement()
        from nova_lite.compute import manager
        from nova_lite.compute import rpcapi as compute_rpcapi
        from nova_lite.conductor import rpcapi as conductor_rpcapi
        from nova_lite.objects import base as objects_base
        from nova_lite import service
        objects_base.NovaLiteObject.indirection_api = \
            conductor_rpcapi.ConductorAPI()
        host = common.CONF.host
        service.serve(service.Service(
            servicegroup.COMPUTE_BINARY, compute_rpcapi.topic_for(host),
            manager.ComputeManager(host)))
    common.run(body)


if __name__ == '__main__':
    main()
