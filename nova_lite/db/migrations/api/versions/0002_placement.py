"""placement: resource providers, inventories, allocations, consumers,
resource classes, traits and aggregates

Revision ID: 0002
Revises: 0001
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('consumers',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('project_id', sa.String(length=255), nullable=False),
    sa.Column('user_id', sa.String(length=255), nullable=False),
    sa.Column('generation', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.Column('updated_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid')
    )
    with op.batch_alter_table('consumers', schema=None) as batch_op:
        batch_op.create_index('consumers_project_id_user_id_idx', ['project_id', 'user_id'], unique=False)

    op.create_table('placement_aggregates',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('created_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.Column('updated_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid')
    )
    op.create_table('resource_classes',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.Column('updated_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name')
    )
    op.create_table('resource_providers',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('generation', sa.Integer(), nullable=False),
    sa.Column('root_provider_id', sa.Integer(), nullable=True),
    sa.Column('parent_provider_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.Column('updated_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.ForeignKeyConstraint(['parent_provider_id'], ['resource_providers.id'], ),
    sa.ForeignKeyConstraint(['root_provider_id'], ['resource_providers.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name'),
    sa.UniqueConstraint('uuid')
    )
    with op.batch_alter_table('resource_providers', schema=None) as batch_op:
        batch_op.create_index('resource_providers_parent_provider_id_idx', ['parent_provider_id'], unique=False)
        batch_op.create_index('resource_providers_root_provider_id_idx', ['root_provider_id'], unique=False)

    op.create_table('traits',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.Column('updated_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name')
    )
    op.create_table('allocations',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('resource_provider_id', sa.Integer(), nullable=False),
    sa.Column('consumer_id', sa.String(length=36), nullable=False),
    sa.Column('resource_class_id', sa.Integer(), nullable=False),
    sa.Column('used', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.Column('updated_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.ForeignKeyConstraint(['resource_provider_id'], ['resource_providers.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('allocations', schema=None) as batch_op:
        batch_op.create_index('allocations_consumer_id_idx', ['consumer_id'], unique=False)
        batch_op.create_index('allocations_provider_class_used_idx', ['resource_provider_id', 'resource_class_id', 'used'], unique=False)

    op.create_table('inventories',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('resource_provider_id', sa.Integer(), nullable=False),
    sa.Column('resource_class_id', sa.Integer(), nullable=False),
    sa.Column('total', sa.Integer(), nullable=False),
    sa.Column('reserved', sa.Integer(), nullable=False),
    sa.Column('min_unit', sa.Integer(), nullable=False),
    sa.Column('max_unit', sa.Integer(), nullable=False),
    sa.Column('step_size', sa.Integer(), nullable=False),
    sa.Column('allocation_ratio', sa.Double(), nullable=False),
    sa.Column('used', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.Column('updated_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.ForeignKeyConstraint(['resource_provider_id'], ['resource_providers.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('resource_provider_id', 'resource_class_id', name='uniq_inventories_provider_class')
    )
    with op.batch_alter_table('inventories', schema=None) as batch_op:
        batch_op.create_index('inventories_class_capacity_idx', ['resource_class_id', 'resource_provider_id', 'total', 'reserved', 'allocation_ratio', 'min_unit', 'max_unit', 'step_size', 'used'], unique=False)

    op.create_table('resource_provider_aggregates',
    sa.Column('resource_provider_id', sa.Integer(), nullable=False),
    sa.Column('aggregate_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.Column('updated_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.ForeignKeyConstraint(['aggregate_id'], ['placement_aggregates.id'], ),
    sa.ForeignKeyConstraint(['resource_provider_id'], ['resource_providers.id'], ),
    sa.PrimaryKeyConstraint('resource_provider_id', 'aggregate_id')
    )
    with op.batch_alter_table('resource_provider_aggregates', schema=None) as batch_op:
        batch_op.create_index('resource_provider_aggregates_aggregate_id_idx', ['aggregate_id'], unique=False)

    op.create_table('resource_provider_traits',
    sa.Column('resource_provider_id', sa.Integer(), nullable=False),
    sa.Column('trait_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.Column('updated_at', sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql'), nullable=True),
    sa.ForeignKeyConstraint(['resource_provider_id'], ['resource_providers.id'], ),
    sa.ForeignKeyConstraint(['trait_id'], ['traits.id'], ),
    sa.PrimaryKeyConstraint('resource_provider_id', 'trait_id')
    )
    with op.batch_alter_table('resource_provider_traits', schema=None) as batch_op:
        batch_op.create_index('resource_provider_traits_trait_id_idx', ['trait_id'], unique=False)


def downgrade():
    for table in ('resource_provider_traits', 'resource_provider_aggregates',
                  'inventories', 'allocations', 'traits',
                  'resource_providers', 'resource_classes',
                  'placement_aggregates', 'consumers'):
        op.drop_table(table)
