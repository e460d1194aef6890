"""nova-lite-conductor: orchestrates flows and persists objects for computes.

With an [api_database] connection it can take builds from the API (the
superconductor, or a single cell's conductor that does both). Without one
it is a cell conductor: it serves its cell's computes -- their object calls
and reschedules -- over the cell's transport, holding no API database
credentials.
"""

from oslo_log import log as logging

from nova_lite.cmd import common

LOG = logging.getLogger(__name__)


def main():
    def body():
        common.setup()
        has_api_database = bool(common.CONF.api_database.connection)
        common.wait_for_databases(api=has_api_database)
        common.check_placement()
        if not has_api_database:
            LOG.info('No [api_database] connection: running as a cell '
                     'conductor (object calls and reschedules of this '
                     'cell\'s computes only)')
        from nova_lite.conductor import manager
        from nova_lite import service
        service.serve(service.Service('nova-lite-conductor', 'conductor',
                                      manager.ConductorManager()))
    common.run(body)


if __name__ == '__main__':
    main()
