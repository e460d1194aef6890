"""Versioned objects: the payloads of every RPC call and what the API stores.

``register_all()`` imports every object module; the registry then exposes
each class here as ``nova_lite.objects.<Name>``.
"""


def register_all():
    __import__('nova_lite.objects.aggregate')
    __import__('nova_lite.objects.boot_details')
    __import__('nova_lite.objects.build_request')
    __import__('nova_lite.objects.cell_mapping')
    __import__('nova_lite.objects.compute_node')
    __import__('nova_lite.objects.flavor')
    __import__('nova_lite.objects.image')
    __import__('nova_lite.objects.instance')
    __import__('nova_lite.objects.instance_action')
    __import__('nova_lite.objects.instance_group')
    __import__('nova_lite.objects.keypair')
    __import__('nova_lite.objects.migrate_data')
    __import__('nova_lite.objects.migration')
    __import__('nova_lite.objects.quotas')
    __import__('nova_lite.objects.request_spec')
    __import__('nova_lite.objects.service')
