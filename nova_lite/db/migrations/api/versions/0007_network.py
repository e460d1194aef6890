"""network: networks, ports, port bindings, QoS policies and their minimum
bandwidth rules, L2 agents

Revision ID: 0007
Revises: 0006
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None

_DATETIME = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql')


def _timestamps():
    return [sa.Column('created_at', _DATETIME, nullable=True),
            sa.Column('updated_at', _DATETIME, nullable=True)]


def upgrade():
    op.create_table(
        'qos_policies',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('project_id', sa.String(length=255), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('description', sa.Text(), nullable=True),
        sa.Column('shared', sa.Boolean(), nullable=False),
        sa.Column('revision_number', sa.BigInteger(), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('qos_policies_project_id_idx', 'qos_policies',
                    ['project_id'], unique=False)
    op.create_table(
        'qos_minimum_bandwidth_rules',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('qos_policy_id', sa.String(length=36), nullable=False),
        sa.Column('min_kbps', sa.Integer(), nullable=False),
        sa.Column('direction', sa.String(length=16), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(['qos_policy_id'], ['qos_policies.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'qos_policy_id', 'direction',
            name='uniq_qos_minimum_bandwidth_rules0qos_policy_id0direction'),
    )
    op.create_table(
        'networks',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('project_id', sa.String(length=255), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('description', sa.Text(), nullable=True),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('admin_state_up', sa.Boolean(), nullable=False),
        sa.Column('shared', sa.Boolean(), nullable=False),
        sa.Column('mtu', sa.Integer(), nullable=False),
        sa.Column('network_type', sa.String(length=32), nullable=False),
        sa.Column('physical_network', sa.String(length=64), nullable=False),
        sa.Column('segmentation_id', sa.Integer(), nullable=True),
        sa.Column('qos_policy_id', sa.String(length=36), nullable=True),
        sa.Column('revision_number', sa.BigInteger(), nullable=False),
        sa.Column('tags', sa.Text(), nullable=True),
        *_timestamps(),
        sa.ForeignKeyConstraint(['qos_policy_id'], ['qos_policies.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint(
            'network_type', 'physical_network', 'segmentation_id',
            name='uniq_networks0network_type0physical_network0'
                 'segmentation_id'),
    )
    op.create_index('networks_project_id_idx', 'networks', ['project_id'],
                    unique=False)
    op.create_table(
        'ports',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('project_id', sa.String(length=255), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('description', sa.Text(), nullable=True),
        sa.Column('network_id', sa.String(length=36), nullable=False),
        sa.Column('mac_address', sa.String(length=32), nullable=False),
        sa.Column('admin_state_up', sa.Boolean(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('device_id', sa.String(length=255), nullable=False),
        sa.Column('device_owner', sa.String(length=255), nullable=False),
        sa.Column('security_groups', sa.Text(), nullable=True),
        sa.Column('qos_policy_id', sa.String(length=36), nullable=True),
        sa.Column('revision_number', sa.BigInteger(), nullable=False),
        sa.Column('tags', sa.Text(), nullable=True),
        *_timestamps(),
        sa.ForeignKeyConstraint(['network_id'], ['networks.id']),
        sa.ForeignKeyConstraint(['qos_policy_id'], ['qos_policies.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('network_id', 'mac_address',
                            name='uniq_ports0network_id0mac_address'),
    )
    op.create_index('ports_project_id_idx', 'ports', ['project_id'],
                    unique=False)
    op.create_index('ports_device_id_idx', 'ports', ['device_id'],
                    unique=False)
    op.create_table(
        'port_bindings',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('port_id', sa.String(length=36), nullable=False),
        sa.Column('host', sa.String(length=255), nullable=False),
        sa.Column('vif_type', sa.String(length=64), nullable=False),
        sa.Column('vnic_type', sa.String(length=64), nullable=False),
        sa.Column('profile', sa.Text(), nullable=True),
        sa.Column('vif_details', sa.Text(), nullable=True),
        sa.Column('status', sa.String(length=16), nullable=False),
        *_timestamps(),
        sa.ForeignKeyConstraint(['port_id'], ['ports.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('port_id', 'host',
                            name='uniq_port_bindings0port_id0host'),
    )
    op.create_index('port_bindings_host_idx', 'port_bindings', ['host'],
                    unique=False)
    op.create_table(
        'network_agents',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('agent_type', sa.String(length=255), nullable=False),
        sa.Column('binary', sa.String(length=255), nullable=False),
        sa.Column('topic', sa.String(length=255), nullable=False),
        sa.Column('host', sa.String(length=255), nullable=False),
        sa.Column('admin_state_up', sa.Boolean(), nullable=False),
        sa.Column('availability_zone', sa.String(length=255), nullable=True),
        sa.Column('description', sa.Text(), nullable=True),
        sa.Column('configurations', sa.Text(), nullable=False),
        sa.Column('resources_synced', sa.Boolean(), nullable=True),
        sa.Column('started_at', _DATETIME, nullable=False),
        sa.Column('heartbeat_timestamp', _DATETIME, nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('agent_type', 'host',
                            name='uniq_network_agents0agent_type0host'),
    )


def downgrade():
    for table in ('network_agents', 'port_bindings', 'ports', 'networks',
                  'qos_minimum_bandwidth_rules', 'qos_policies'):
        op.drop_table(table)
