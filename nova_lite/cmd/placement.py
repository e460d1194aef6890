"""nova-lite-placement: the Placement API (default port 8778)."""

from nova_lite.cmd import common


def main():
    common.wsgi_main('nova-lite-placement', 'nova_lite.api.placement',
                     'placement')


if __name__ == '__main__':
    main()
