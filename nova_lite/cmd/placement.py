"""nova-lite-placement: the Placement API (default port 8778)."""

from nova_lite.cmd import common


def main():
    def body():
        common.setup()
        common.wait_for_databases()
        from nova_lite.api import placement
        from nova_lite import service
        conf = common.CONF
        service.serve(service.WSGIService(
            'nova-lite-placement', placement.make_app(),
            conf.placement.bind_host, conf.placement.bind_port,
            conf.api.wsgi_threads))
    common.run(body)


if __name__ == '__main__':
    main()
