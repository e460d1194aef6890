"""nova-lite-scheduler: answers select_destinations."""

from nova_lite.cmd import common


def main():
    def body():
        common.setup()
        common.wait_for_databases()
        common.check_placement()
        from nova_lite.scheduler import manager
        from nova_lite import service
        service.serve(service.Service('nova-lite-scheduler', 'scheduler',
                                      manager.SchedulerManager()))
    common.run(body)


if __name__ == '__main__':
    main()
