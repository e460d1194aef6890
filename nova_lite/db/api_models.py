"""Tables of the API database (one per deployment)."""

import sqlalchemy as sa
from sqlalchemy.dialects import mysql
from sqlalchemy import orm

from nova_lite.db.types import DateTime, LongText


class Base(orm.DeclarativeBase):
    pass


class _Timestamps:
    created_at = sa.Column(DateTime, nullable=True)
    updated_at = sa.Column(DateTime, nullable=True)


class CellMapping(_Timestamps, Base):
    __tablename__ = 'cell_mappings'
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False, unique=True)
    name = sa.Column(sa.String(255), nullable=True)
    transport_url = sa.Column(sa.Text, nullable=False)
    database_connection = sa.Column(sa.Text, nullable=False)
    disabled = sa.Column(sa.Boolean, nullable=False, default=False)


class HostMapping(_Timestamps, Base):
    __tablename__ = 'host_mappings'
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    cell_id = sa.Column(sa.Integer, sa.ForeignKey('cell_mappings.id'),
                        nullable=False)
    host = sa.Column(sa.String(255), nullable=False, unique=True)


class InstanceMapping(_Timestamps, Base):
    __tablename__ = 'instance_mappings'
    __table_args__ = (sa.Index('instance_mappings_project_id_idx',
                               'project_id'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False, unique=True)
    cell_id = sa.Column(sa.Integer, sa.ForeignKey('cell_mappings.id'),
                        nullable=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=True)
    queued_for_delete = sa.Column(sa.Boolean, nullable=False, default=False)


class Flavor(_Timestamps, Base):
    __tablename__ = 'flavors'
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    flavorid = sa.Column(sa.String(255), nullable=False, unique=True)
    name = sa.Column(sa.String(255), nullable=False, unique=True)
    memory_mb = sa.Column(sa.Integer, nullable=False)
    vcpus = sa.Column(sa.Integer, nullable=False)
    root_gb = sa.Column(sa.Integer, nullable=False, default=0)
    ephemeral_gb = sa.Column(sa.Integer, nullable=False, default=0)
    swap = sa.Column(sa.Integer, nullable=False, default=0)
    rxtx_factor = sa.Column(sa.Float, nullable=False, default=1.0)
    disabled = sa.Column(sa.Boolean, nullable=False, default=False)
    is_public = sa.Column(sa.Boolean, nullable=False, default=True)
    description = sa.Column(sa.Text, nullable=True)


class FlavorExtraSpec(_Timestamps, Base):
    __tablename__ = 'flavor_extra_specs'
    __table_args__ = (sa.UniqueConstraint('flavor_id', 'key',
                                          name='uniq_flavor_extra_specs'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    flavor_id = sa.Column(sa.Integer, sa.ForeignKey('flavors.id'),
                          nullable=False)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255), nullable=True)


class FlavorProject(_Timestamps, Base):
    __tablename__ = 'flavor_projects'
    __table_args__ = (sa.UniqueConstraint('flavor_id', 'project_id',
                                          name='uniq_flavor_projects'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    flavor_id = sa.Column(sa.Integer, sa.ForeignKey('flavors.id'),
                          nullable=False)
    project_id = sa.Column(sa.String(255), nullable=False)


class BuildRequest(_Timestamps, Base):
    __tablename__ = 'build_requests'
    __table_args__ = (sa.Index('build_requests_project_id_idx',
                               'project_id'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False, unique=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    instance = sa.Column(LongText, nullable=False)
    block_device_mappings = sa.Column(LongText, nullable=True)
    tags = sa.Column(sa.Text, nullable=True)
    # The conductor working on the build (None: nobody yet) and when it
    # last renewed its lease, by the database's clock. A build whose
    # owner stopped renewing is taken over once this is old enough; every
    # step of the build is conditional on the owner being unchanged.
    claimed_at = sa.Column(DateTime, nullable=True)
    owner = sa.Column(sa.String(255), nullable=True)
    # The build's action and the steps its owner has started, as JSON
    # (nova_lite/flow.py): what a takeover undoes after a crash.
    flow = sa.Column(sa.Text().with_variant(mysql.MEDIUMTEXT(), 'mysql'),
                     nullable=True)


class RequestSpec(_Timestamps, Base):
    __tablename__ = 'request_specs'
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False, unique=True)
    spec = sa.Column(LongText, nullable=False)


class InstanceGroup(_Timestamps, Base):
    """A server group: one policy, its rules (JSON), and its owner."""
    __tablename__ = 'instance_groups'
    __table_args__ = (sa.Index('instance_groups_project_id_idx',
                               'project_id'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False, unique=True)
    name = sa.Column(sa.String(255), nullable=True)
    user_id = sa.Column(sa.String(255), nullable=True)
    project_id = sa.Column(sa.String(255), nullable=True)
    policy = sa.Column(sa.String(255), nullable=False)
    rules = sa.Column(sa.Text, nullable=True)


class InstanceGroupMember(_Timestamps, Base):
    __tablename__ = 'instance_group_members'
    __table_args__ = (
        sa.UniqueConstraint('group_id', 'instance_uuid',
                            name='uniq_instance_group_members'),
        # "Which group is this server in?" on every server delete.
        sa.Index('instance_group_members_instance_uuid_idx',
                 'instance_uuid'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    group_id = sa.Column(sa.Integer, sa.ForeignKey('instance_groups.id'),
                         nullable=False)
    instance_uuid = sa.Column(sa.String(36), nullable=False)


class Aggregate(_Timestamps, Base):
    """A host aggregate of the Compute API: a named set of hosts with
    metadata (``availability_zone`` makes it a zone)."""
    __tablename__ = 'aggregates'
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False, unique=True)
    name = sa.Column(sa.String(255), nullable=False, unique=True)


class AggregateHost(_Timestamps, Base):
    __tablename__ = 'aggregate_hosts'
    __table_args__ = (sa.UniqueConstraint('host', 'aggregate_id',
                                          name='uniq_aggregate_hosts'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    aggregate_id = sa.Column(sa.Integer, sa.ForeignKey('aggregates.id'),
                             nullable=False)
    host = sa.Column(sa.String(255), nullable=False)


class AggregateMetadata(_Timestamps, Base):
    __tablename__ = 'aggregate_metadata'
    __table_args__ = (sa.UniqueConstraint('aggregate_id', 'key',
                                          name='uniq_aggregate_metadata'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    aggregate_id = sa.Column(sa.Integer, sa.ForeignKey('aggregates.id'),
                             nullable=False)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255), nullable=False)


class KeyPair(_Timestamps, Base):
    """A public key a user registered to inject into the servers they
    boot; named uniquely per user."""
    __tablename__ = 'key_pairs'
    __table_args__ = (sa.UniqueConstraint('user_id', 'name',
                                          name='uniq_key_pairs0user_id0name'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    name = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    fingerprint = sa.Column(sa.String(255), nullable=False)
    public_key = sa.Column(sa.Text, nullable=False)
    type = sa.Column(sa.String(10), nullable=False, default='ssh')


class Quota(_Timestamps, Base):
    """A limit an administrator set for one project (os-quota-sets); it
    wins over the default quota class and the [quota] options."""
    __tablename__ = 'quotas'
    __table_args__ = (sa.UniqueConstraint(
        'project_id', 'resource', name='uniq_quotas0project_id0resource'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    resource = sa.Column(sa.String(255), nullable=False)
    hard_limit = sa.Column(sa.Integer, nullable=False)


class QuotaClass(_Timestamps, Base):
    """A limit of a quota class (os-quota-class-sets); the class
    ``default`` holds every project's defaults."""
    __tablename__ = 'quota_classes'
    __table_args__ = (sa.UniqueConstraint(
        'class_name', 'resource',
        name='uniq_quota_classes0class_name0resource'),)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    class_name = sa.Column(sa.String(255), nullable=False)
    resource = sa.Column(sa.String(255), nullable=False)
    hard_limit = sa.Column(sa.Integer, nullable=False)


class Image(_Timestamps, Base):
    """The minimal image catalog the Compute API's image proxy serves."""
    __tablename__ = 'images'
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False, unique=True)
    name = sa.Column(sa.String(255), nullable=False, unique=True)
    status = sa.Column(sa.String(32), nullable=False, default='active')
    min_disk = sa.Column(sa.Integer, nullable=False, default=0)
    min_ram = sa.Column(sa.Integer, nullable=False, default=0)
    size = sa.Column(sa.BigInteger, nullable=False, default=0)
    properties = sa.Column(sa.Text, nullable=True)


# -- placement ----------------------------------------------------------------
# The Placement service's tables. Resource classes and traits are referred
# to by integer id; standard resource classes have fixed ids below 10000 and
# no row (nova_lite.placement.resource_classes), custom ones a row here.


class ResourceProvider(_Timestamps, Base):
    __tablename__ = 'resource_providers'
    __table_args__ = (
        sa.Index('resource_providers_root_provider_id_idx',
                 'root_provider_id'),
        sa.Index('resource_providers_parent_provider_id_idx',
                 'parent_provider_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False, unique=True)
    name = sa.Column(sa.String(200), nullable=False, unique=True)
    generation = sa.Column(sa.Integer, nullable=False, default=0)
    root_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), nullable=True)
    parent_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), nullable=True)


class Inventory(_Timestamps, Base):
    """What a provider offers of one class, and how much of it is used.

    ``used`` is the sum of the allocations against it, kept by the
    allocation writers in the same transaction as the allocation rows, so
    that capacity checks and allocation candidates read one row instead of
    adding up allocations.
    """
    __tablename__ = 'inventories'
    __table_args__ = (
        sa.UniqueConstraint('resource_provider_id', 'resource_class_id',
                            name='uniq_inventories_provider_class'),
        # Covers the allocation candidates scan of one class.
        sa.Index('inventories_class_capacity_idx', 'resource_class_id',
                 'resource_provider_id', 'total', 'reserved',
                 'allocation_ratio', 'min_unit', 'max_unit', 'step_size',
                 'used'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), nullable=False)
    resource_class_id = sa.Column(sa.Integer, nullable=False)
    total = sa.Column(sa.Integer, nullable=False)
    reserved = sa.Column(sa.Integer, nullable=False)
    min_unit = sa.Column(sa.Integer, nullable=False)
    max_unit = sa.Column(sa.Integer, nullable=False)
    step_size = sa.Column(sa.Integer, nullable=False)
    allocation_ratio = sa.Column(sa.Double, nullable=False)
    used = sa.Column(sa.Integer, nullable=False, default=0)


class Allocation(_Timestamps, Base):
    __tablename__ = 'allocations'
    __table_args__ = (
        # Covers "usage of provider P per class" (allocation writes).
        sa.Index('allocations_provider_class_used_idx',
                 'resource_provider_id', 'resource_class_id', 'used'),
        sa.Index('allocations_consumer_id_idx', 'consumer_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), nullable=False)
    consumer_id = sa.Column(sa.String(36), nullable=False)
    resource_class_id = sa.Column(sa.Integer, nullable=False)
    used = sa.Column(sa.Integer, nullable=False)


class Consumer(_Timestamps, Base):
    __tablename__ = 'consumers'
    __table_args__ = (
        sa.Index('consumers_project_id_user_id_idx', 'project_id',
                 'user_id'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False, unique=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    generation = sa.Column(sa.Integer, nullable=False, default=0)
    # Placement 1.38: what kind of consumer (INSTANCE, MIGRATION, ...);
    # NULL for one written before, shown as 'unknown'.
    consumer_type_id = sa.Column(
        sa.Integer, sa.ForeignKey('consumer_types.id'), nullable=True,
        index=True)


class ConsumerType(_Timestamps, Base):
    """A kind of placement consumer, made on its first use."""
    __tablename__ = 'consumer_types'
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    name = sa.Column(sa.String(255), nullable=False, unique=True)


class ResourceClass(_Timestamps, Base):
    """A custom resource class (CUSTOM_*); ids start at 10000."""
    __tablename__ = 'resource_classes'
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    name = sa.Column(sa.String(255), nullable=False, unique=True)


class Trait(_Timestamps, Base):
    __tablename__ = 'traits'
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    name = sa.Column(sa.String(255), nullable=False, unique=True)


class ResourceProviderTrait(_Timestamps, Base):
    __tablename__ = 'resource_provider_traits'
    __table_args__ = (
        sa.Index('resource_provider_traits_trait_id_idx', 'trait_id'),
    )
    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), primary_key=True)
    trait_id = sa.Column(sa.Integer, sa.ForeignKey('traits.id'),
                         primary_key=True)


class PlacementAggregate(_Timestamps, Base):
    __tablename__ = 'placement_aggregates'
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False, unique=True)


class ResourceProviderAggregate(_Timestamps, Base):
    __tablename__ = 'resource_provider_aggregates'
    __table_args__ = (
        sa.Index('resource_provider_aggregates_aggregate_id_idx',
                 'aggregate_id'),
    )
    resource_provider_id = sa.Column(
        sa.Integer, sa.ForeignKey('resource_providers.id'), primary_key=True)
    aggregate_id = sa.Column(sa.Integer,
                             sa.ForeignKey('placement_aggregates.id'),
                             primary_key=True)


# -- network ------------------------------------------------------------------
# The port service's tables (nova-lite-network). Ids are the uuids clients
# see, as in the Networking API. JSON documents (binding profiles, agent
# configurations, tags) are stored as text.


class QosPolicy(_Timestamps, Base):
    __tablename__ = 'qos_policies'
    __table_args__ = (sa.Index('qos_policies_project_id_idx', 'project_id'),)
    id = sa.Column(sa.String(36), primary_key=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    name = sa.Column(sa.String(255), nullable=False, default='')
    description = sa.Column(sa.Text, nullable=True)
    shared = sa.Column(sa.Boolean, nullable=False, default=False)
    revision_number = sa.Column(sa.BigInteger, nullable=False, default=0)


class QosMinimumBandwidthRule(_Timestamps, Base):
    """A guaranteed bandwidth of one direction; a policy has at most one
    per direction."""
    __tablename__ = 'qos_minimum_bandwidth_rules'
    __table_args__ = (sa.UniqueConstraint(
        'qos_policy_id', 'direction',
        name='uniq_qos_minimum_bandwidth_rules0qos_policy_id0direction'),)
    id = sa.Column(sa.String(36), primary_key=True)
    qos_policy_id = sa.Column(sa.String(36), sa.ForeignKey('qos_policies.id'),
                              nullable=False)
    min_kbps = sa.Column(sa.Integer, nullable=False)
    direction = sa.Column(sa.String(16), nullable=False)


class Network(_Timestamps, Base):
    """A network and its one segment. ``physical_network`` is '' (not
    NULL) for tunnelled and local networks, so that the unique segment
    constraint also holds for them."""
    __tablename__ = 'networks'
    __table_args__ = (
        sa.Index('networks_project_id_idx', 'project_id'),
        sa.UniqueConstraint(
            'network_type', 'physical_network', 'segmentation_id',
            name='uniq_networks0network_type0physical_network0'
                 'segmentation_id'),
    )
    id = sa.Column(sa.String(36), primary_key=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    name = sa.Column(sa.String(255), nullable=False, default='')
    description = sa.Column(sa.Text, nullable=True)
    status = sa.Column(sa.String(16), nullable=False)
    admin_state_up = sa.Column(sa.Boolean, nullable=False, default=True)
    shared = sa.Column(sa.Boolean, nullable=False, default=False)
    mtu = sa.Column(sa.Integer, nullable=False)
    network_type = sa.Column(sa.String(32), nullable=False)
    physical_network = sa.Column(sa.String(64), nullable=False, default='')
    segmentation_id = sa.Column(sa.Integer, nullable=True)
    qos_policy_id = sa.Column(sa.String(36), sa.ForeignKey('qos_policies.id'),
                              nullable=True)
    revision_number = sa.Column(sa.BigInteger, nullable=False, default=0)
    tags = sa.Column(sa.Text, nullable=True)


class Port(_Timestamps, Base):
    __tablename__ = 'ports'
    __table_args__ = (
        sa.UniqueConstraint('network_id', 'mac_address',
                            name='uniq_ports0network_id0mac_address'),
        sa.Index('ports_project_id_idx', 'project_id'),
        sa.Index('ports_device_id_idx', 'device_id'),
    )
    id = sa.Column(sa.String(36), primary_key=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    name = sa.Column(sa.String(255), nullable=False, default='')
    description = sa.Column(sa.Text, nullable=True)
    network_id = sa.Column(sa.String(36), sa.ForeignKey('networks.id'),
                           nullable=False)
    mac_address = sa.Column(sa.String(32), nullable=False)
    admin_state_up = sa.Column(sa.Boolean, nullable=False, default=True)
    status = sa.Column(sa.String(16), nullable=False)
    device_id = sa.Column(sa.String(255), nullable=False, default='')
    device_owner = sa.Column(sa.String(255), nullable=False, default='')
    security_groups = sa.Column(sa.Text, nullable=True)
    qos_policy_id = sa.Column(sa.String(36), sa.ForeignKey('qos_policies.id'),
                              nullable=True)
    revision_number = sa.Column(sa.BigInteger, nullable=False, default=0)
    tags = sa.Column(sa.Text, nullable=True)


class PortBinding(_Timestamps, Base):
    """A binding of a port to a host. Each port has exactly one ACTIVE
    binding (host '' while unbound) and, during a move, INACTIVE ones on
    other hosts."""
    __tablename__ = 'port_bindings'
    __table_args__ = (
        sa.UniqueConstraint('port_id', 'host',
                            name='uniq_port_bindings0port_id0host'),
        sa.Index('port_bindings_host_idx', 'host'),
    )
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    port_id = sa.Column(sa.String(36), sa.ForeignKey('ports.id'),
                        nullable=False)
    host = sa.Column(sa.String(255), nullable=False, default='')
    vif_type = sa.Column(sa.String(64), nullable=False)
    vnic_type = sa.Column(sa.String(64), nullable=False)
    profile = sa.Column(sa.Text, nullable=True)
    vif_details = sa.Column(sa.Text, nullable=True)
    status = sa.Column(sa.String(16), nullable=False)


class NetworkAgent(_Timestamps, Base):
    """An L2 agent as it last reported itself (each compute is its host's
    Open vSwitch agent)."""
    __tablename__ = 'network_agents'
    __table_args__ = (sa.UniqueConstraint(
        'agent_type', 'host', name='uniq_network_agents0agent_type0host'),)
    id = sa.Column(sa.String(36), primary_key=True)
    agent_type = sa.Column(sa.String(255), nullable=False)
    binary = sa.Column(sa.String(255), nullable=False)
    topic = sa.Column(sa.String(255), nullable=False)
    host = sa.Column(sa.String(255), nullable=False)
    admin_state_up = sa.Column(sa.Boolean, nullable=False, default=True)
    availability_zone = sa.Column(sa.String(255), nullable=True)
    description = sa.Column(sa.Text, nullable=True)
    configurations = sa.Column(sa.Text, nullable=False)
    resources_synced = sa.Column(sa.Boolean, nullable=True)
    started_at = sa.Column(DateTime, nullable=False)
    heartbeat_timestamp = sa.Column(DateTime, nullable=False)
