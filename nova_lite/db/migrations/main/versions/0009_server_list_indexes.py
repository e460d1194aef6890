"""server list indexes: the instances in the order of a server list
(created_at, then uuid) among the live ones, and among a project's

Revision ID: 0009
Revises: 0008

A page of the list seeks to its marker's place in one of these and reads
the page from there, whatever the number of servers before it. The
project's index starts with (project_id, deleted), so it replaces
instances_project_id_idx.
"""

from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('instances', schema=None) as batch_op:
        batch_op.create_index('instances_deleted_created_at_uuid_idx',
                              ['deleted', 'created_at', 'uuid'])
        batch_op.create_index(
            'instances_project_id_deleted_created_at_uuid_idx',
            ['project_id', 'deleted', 'created_at', 'uuid'])
        batch_op.drop_index('instances_project_id_idx')


def downgrade():
    with op.batch_alter_table('instances', schema=None) as batch_op:
        batch_op.create_index('instances_project_id_idx',
                              ['project_id', 'deleted'])
        batch_op.drop_index(
            'instances_project_id_deleted_created_at_uuid_idx')
        batch_op.drop_index('instances_deleted_created_at_uuid_idx')
