"""nova-lite-conductor: orchestrates flows and persists objects for computes."""

from nova_lite.cmd import common


def main():
    def body():
        common.setup()
        common.wait_for_databases()
        from nova_lite.conductor import manager
        from nova_lite import service
        service.serve(service.Service('nova-lite-conductor', 'conductor',
                                      manager.ConductorManager()))
    common.run(body)


if __name__ == '__main__':
    main()
