"""nova-lite-network: the port API (default port 9696)."""

from nova_lite.cmd import common


def main():
    common.wsgi_main('nova-lite-network', 'nova_lite.api.network',
                     'network', uses_placement=True)


if __name__ == '__main__':
    main()
