"""nova-lite-api: the Compute REST API (default port 8774)."""

from nova_lite.cmd import common


def main():
    def body():
        common.setup()
        common.wait_for_databases()
        from nova_lite.api import compute as compute_api
        from nova_lite import service
        conf = common.CONF
        service.serve(service.WSGIService(
            'nova-lite-api', compute_api.make_app(), conf.api.bind_host,
            conf.api.bind_port, conf.api.wsgi_threads))
    common.run(body)


if __name__ == '__main__':
    main()
