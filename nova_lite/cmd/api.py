"""nova-lite-api: the Compute REST API (default port 8774)."""

from nova_lite.cmd import common


def main():
    common.wsgi_main('nova-lite-api', 'nova_lite.api.compute',
                     'api')


if __name__ == '__main__':
    main()
