"""The business layer behind /servers/{server_id}/tags.

A server's tags are a list on its Instance record, in its cell (cell0
included). A server that is still only a BuildRequest shows the tags it
was created with, but they cannot change until the conductor has put it in
a cell: the BuildRequest is about to be replaced by that record.
Callers locate the server and check policy first (``API.get``).
"""

from nova_lite import context as nova_context
from nova_lite import exception
from nova_lite import objects

MAX_TAGS = 50
MAX_TAG_LENGTH = 60


def _update(context, instance, change):
    """Apply ``change`` (tags -> tags) to the server's tags in its cell."""
    mapping = objects.InstanceMapping.get_by_instance_uuid(context,
                                                           instance.uuid)
    if mapping.cell_mapping is None:
        raise exception.InstanceTagsWhileScheduling(
            instance_uuid=instance.uuid)
    with nova_context.target_cell(context, mapping.cell_mapping) as cctxt:
        return objects.Instance.update_tags(cctxt, instance.uuid, change)


def _check_count(instance, tags):
    if len(tags) > MAX_TAGS:
        raise exception.TooManyInstanceTags(
            instance_uuid=instance.uuid, count=len(tags), limit=MAX_TAGS)


def add(context, instance, tag):
    """Add ``tag``; True if it was added, False if the server had it."""
    added = []

    def with_tag(tags):
        if tag in tags:
            return tags
        tags.append(tag)
        _check_count(instance, tags)
        added.append(tag)
        return tags
    _update(context, instance, with_tag)
    return bool(added)


def replace(context, instance, tags):
    """Make ``tags`` (duplicates dropped, order kept) the server's tags."""
    wanted = list(dict.fromkeys(tags))
    _check_count(instance, wanted)
    return _update(context, instance, lambda _old: wanted)


def remove(context, instance, tag):
    """Remove ``tag``; InstanceTagNotFound if the server lacks it."""
    def without_tag(tags):
        if tag not in tags:
            raise exception.InstanceTagNotFound(instance_uuid=instance.uuid,
                                                tag=tag)
        return [t for t in tags if t != tag]
    _update(context, instance, without_tag)


def remove_all(context, instance):
    _update(context, instance, lambda _old: [])
