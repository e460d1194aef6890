"""nova-lite-network: the port API (default port 9696)."""

from nova_lite.cmd import common


def main():
    def body():
        common.setup()
        common.wait_for_databases()
        from nova_lite.api import network
        from nova_lite import service
        conf = common.CONF
        service.serve(service.WSGIService(
            'nova-lite-network', network.make_app(),
            conf.network.bind_host, conf.network.bind_port,
            conf.api.wsgi_threads))
    common.run(body)


if __name__ == '__main__':
    main()
