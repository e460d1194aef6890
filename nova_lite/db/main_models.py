"""Tables of a cell database (cell0 and every real cell), and the shadow
tables that ``nova-lite-manage db archive_deleted_rows`` moves the rows of
deleted servers, services and compute nodes to (``nova_lite.db.archive``).
"""

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy import orm

from nova_lite.db.types import DateTime, LongText


class Base(orm.DeclarativeBase):
    pass


class _SoftDelete:
    """Rows are kept after delete; ``deleted`` is the row id once deleted,
    so unique constraints that include it allow a new live row."""
    created_at = sa.Column(DateTime, nullable=True)
    updated_at = sa.Column(DateTime, nullable=True)
    deleted_at = sa.Column(DateTime, nullable=True)
    deleted = sa.Column(sa.Integer, nullable=False, default=0)


class Service(_SoftDelete, Base):
    __tablename__ = 'services'
    __table_args__ = (sa.UniqueConstraint('host', 'binary', 'deleted',
                                          name='uniq_services_host_binary'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False, unique=True)
    host = sa.Column(sa.String(255), nullable=False)
    binary = sa.Column(sa.String(255), nullable=False)
    topic = sa.Column(sa.String(255), nullable=True)
    report_count = sa.Column(sa.Integer, nullable=False, default=0)
    disabled = sa.Column(sa.Boolean, nullable=False, default=False)
    disabled_reason = sa.Column(sa.String(255), nullable=True)
    forced_down = sa.Column(sa.Boolean, nullable=False, default=False)
    last_seen_up = sa.Column(DateTime, nullable=True)
    version = sa.Column(sa.Integer, nullable=False, default=0)


class ComputeNode(_SoftDelete, Base):
    __tablename__ = 'compute_nodes'
    __table_args__ = (
        sa.UniqueConstraint('host', 'hypervisor_hostname', 'deleted',
                            name='uniq_compute_nodes_host_node'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False, unique=True)
    host = sa.Column(sa.String(255), nullable=False)
    hypervisor_hostname = sa.Column(sa.String(255), nullable=False)
    hypervisor_type = sa.Column(sa.String(255), nullable=False)
    hypervisor_version = sa.Column(sa.Integer, nullable=False, default=0)
    host_ip = sa.Column(sa.String(64), nullable=True)
    vcpus = sa.Column(sa.Integer, nullable=False)
    memory_mb = sa.Column(sa.Integer, nullable=False)
    local_gb = sa.Column(sa.Integer, nullable=False)
    vcpus_used = sa.Column(sa.Integer, nullable=False, default=0)
    memory_mb_used = sa.Column(sa.Integer, nullable=False, default=0)
    local_gb_used = sa.Column(sa.Integer, nullable=False, default=0)
    free_ram_mb = sa.Column(sa.Integer, nullable=False, default=0)
    free_disk_gb = sa.Column(sa.Integer, nullable=False, default=0)
    running_vms = sa.Column(sa.Integer, nullable=False, default=0)
    current_workload = sa.Column(sa.Integer, nullable=False, default=0)
    disk_available_least = sa.Column(sa.Integer, nullable=True)
    cpu_allocation_ratio = sa.Column(sa.Float, nullable=False)
    ram_allocation_ratio = sa.Column(sa.Float, nullable=False)
    disk_allocation_ratio = sa.Column(sa.Float, nullable=False)
    cpu_info = sa.Column(sa.Text, nullable=True)
    stats = sa.Column(sa.Text, nullable=True)
    mapped = sa.Column(sa.Boolean, nullable=False, default=False)


class Instance(_SoftDelete, Base):
    __tablename__ = 'instances'
    __table_args__ = (
        sa.Index('instances_host_node_idx', 'host', 'node', 'deleted'),
        # A server list's order (nova_lite.compute.server_list), among
        # the live instances and among a project's.
        sa.Index('instances_deleted_created_at_uuid_idx', 'deleted',
                 'created_at', 'uuid'),
        sa.Index('instances_project_id_deleted_created_at_uuid_idx',
                 'project_id', 'deleted', 'created_at', 'uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False, unique=True)
    user_id = sa.Column(sa.String(255), nullable=True)
    project_id = sa.Column(sa.String(255), nullable=True)
    display_name = sa.Column(sa.String(255), nullable=True)
    display_description = sa.Column(sa.Text, nullable=True)
    hostname = sa.Column(sa.String(255), nullable=True)
    host = sa.Column(sa.String(255), nullable=True)
    node = sa.Column(sa.String(255), nullable=True)
    launched_on = sa.Column(sa.String(255), nullable=True)
    vm_state = sa.Column(sa.String(255), nullable=True)
    task_state = sa.Column(sa.String(255), nullable=True)
    power_state = sa.Column(sa.Integer, nullable=True)
    image_ref = sa.Column(sa.String(255), nullable=True)
    flavor = sa.Column(sa.Text, nullable=True)
    # While a resize waits to be confirmed or reverted: the flavor it had
    # and the one it has (JSON), so a revert finds the old one even if
    # that flavor was deleted meanwhile.
    old_flavor = sa.Column(sa.Text, nullable=True)
    new_flavor = sa.Column(sa.Text, nullable=True)
    memory_mb = sa.Column(sa.Integer, nullable=True)
    vcpus = sa.Column(sa.Integer, nullable=True)
    root_gb = sa.Column(sa.Integer, nullable=True)
    ephemeral_gb = sa.Column(sa.Integer, nullable=True)
    availability_zone = sa.Column(sa.String(255), nullable=True)
    key_name = sa.Column(sa.String(255), nullable=True)
    user_data = sa.Column(LongText, nullable=True)
    metadata_ = sa.Column('metadata', sa.Text, nullable=True)
    system_metadata = sa.Column(sa.Text, nullable=True)
    tags = sa.Column(sa.Text, nullable=True)
    locked = sa.Column(sa.Boolean, nullable=False, default=False)
    config_drive = sa.Column(sa.String(255), nullable=True)
    launch_index = sa.Column(sa.Integer, nullable=True)
    reservation_id = sa.Column(sa.String(255), nullable=True)
    progress = sa.Column(sa.Integer, nullable=True)
    launched_at = sa.Column(DateTime, nullable=True)
    terminated_at = sa.Column(DateTime, nullable=True)
    key_data = sa.Column(sa.Text, nullable=True)
    trusted_certs = sa.Column(sa.Text, nullable=True)
    block_device_mapping = sa.Column(LongText, nullable=True)


class InstanceFault(Base):
    __tablename__ = 'instance_faults'
    __table_args__ = (sa.Index('instance_faults_instance_uuid_idx',
                               'instance_uuid'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    code = sa.Column(sa.Integer, nullable=False)
    message = sa.Column(sa.String(255), nullable=True)
    details = sa.Column(LongText, nullable=True)
    host = sa.Column(sa.String(255), nullable=True)
    created_at = sa.Column(DateTime, nullable=True)


class InstanceAction(Base):
    """What a request did to an instance (create, delete, rebuild...)."""
    __tablename__ = 'instance_actions'
    __table_args__ = (sa.Index('instance_actions_instance_uuid_idx',
                               'instance_uuid'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    action = sa.Column(sa.String(255), nullable=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    request_id = sa.Column(sa.String(255), nullable=True)
    user_id = sa.Column(sa.String(255), nullable=True)
    project_id = sa.Column(sa.String(255), nullable=True)
    start_time = sa.Column(DateTime, nullable=True)
    finish_time = sa.Column(DateTime, nullable=True)
    message = sa.Column(sa.String(255), nullable=True)
    created_at = sa.Column(DateTime, nullable=True)
    updated_at = sa.Column(DateTime, nullable=True)


class InstanceActionEvent(Base):
    """One step of an action, as a service ran it (compute_..., ...)."""
    __tablename__ = 'instance_actions_events'
    __table_args__ = (sa.Index('instance_actions_events_action_id_idx',
                               'action_id'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    action_id = sa.Column(sa.Integer, sa.ForeignKey('instance_actions.id'),
                          nullable=False)
    event = sa.Column(sa.String(255), nullable=True)
    start_time = sa.Column(DateTime, nullable=True)
    finish_time = sa.Column(DateTime, nullable=True)
    result = sa.Column(sa.String(255), nullable=True)
    traceback = sa.Column(LongText, nullable=True)
    host = sa.Column(sa.String(255), nullable=True)
    details = sa.Column(LongText, nullable=True)
    created_at = sa.Column(DateTime, nullable=True)
    updated_at = sa.Column(DateTime, nullable=True)


# A move whose source side still holds something (resources in placement,
# remains on the source host) is in one of these statuses; such a move is
# never archived, nor is its server.
MIGRATION_IN_PROGRESS = ('accepted', 'pre-migrating', 'migrating', 'running',
                         'preparing', 'queued', 'done', 'post-migrating',
                         'finished', 'confirming', 'reverting')


class Migration(_SoftDelete, Base):
    """A move of an instance between hosts (evacuation, live migration).
    Its uuid is also a placement consumer: the one that holds the source
    host's resources while the instance's own consumer holds the
    destination's."""
    __tablename__ = 'migrations'
    __table_args__ = (
        sa.Index('migrations_instance_uuid_idx', 'instance_uuid'),
        sa.Index('migrations_source_compute_status_idx', 'source_compute',
                 'status'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False, unique=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    migration_type = sa.Column(sa.String(32), nullable=False)
    status = sa.Column(sa.String(32), nullable=False)
    source_compute = sa.Column(sa.String(255), nullable=True)
    source_node = sa.Column(sa.String(255), nullable=True)
    dest_compute = sa.Column(sa.String(255), nullable=True)
    dest_node = sa.Column(sa.String(255), nullable=True)
    dest_host = sa.Column(sa.String(255), nullable=True)
    # A resize's or cold migration's flavors (flavors.id in the API
    # database), as /os-migrations shows them.
    old_instance_type_id = sa.Column(sa.Integer, nullable=True)
    new_instance_type_id = sa.Column(sa.Integer, nullable=True)
    # Progress of a live migration, in bytes.
    memory_total = sa.Column(sa.BigInteger, nullable=True)
    memory_processed = sa.Column(sa.BigInteger, nullable=True)
    memory_remaining = sa.Column(sa.BigInteger, nullable=True)
    disk_total = sa.Column(sa.BigInteger, nullable=True)
    disk_processed = sa.Column(sa.BigInteger, nullable=True)
    disk_remaining = sa.Column(sa.BigInteger, nullable=True)
    # The compute flow of the move and the steps it has started, as JSON
    # (nova_lite/flow.py): what a takeover undoes after a crash.
    flow = sa.Column(sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql'),
                     nullable=True)


# -- shadow tables ------------------------------------------------------------
# shadow_<table> has the columns of <table> and its primary key, and no
# other constraint: a shadow row points at nothing and nothing points at
# it. A migration that adds a column to an archived table adds it to the
# shadow table too (tests/unit/objects/test_cell_schema.py fails until it
# does). The indexes are what purging by date joins on.

# In the order archiving moves (and purging deletes) their rows: a row
# before the rows it points at.
ARCHIVED_TABLES = (InstanceActionEvent.__table__, InstanceAction.__table__,
                   InstanceFault.__table__, Migration.__table__,
                   Instance.__table__, Service.__table__,
                   ComputeNode.__table__)
_SHADOW_INDEXED = {'instance_actions_events': 'action_id',
                   'instance_actions': 'instance_uuid',
                   'instance_faults': 'instance_uuid',
                   'migrations': 'instance_uuid',
                   'instances': 'uuid'}


def _shadow(table):
    columns = [sa.Column(column.name, column.type,
                         primary_key=column.primary_key,
                         nullable=column.nullable, autoincrement=False)
               for column in table.columns]
    indexed = _SHADOW_INDEXED.get(table.name)
    indexes = [sa.Index('shadow_%s_%s_idx' % (table.name, indexed),
                        indexed)] if indexed else []
    return sa.Table('shadow_' + table.name, Base.metadata, *columns,
                    *indexes)


# {table name: its shadow table}
SHADOW = {table.name: _shadow(table) for table in ARCHIVED_TABLES}
