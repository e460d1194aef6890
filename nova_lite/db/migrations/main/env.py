"""Alembic environment of the main database; the connection comes from
nova_lite.db.migration (never from an ini file)."""

from alembic import context

from nova_lite.db import main_models as models

config = context.config
connection = config.attributes['connection']
context.configure(
    connection=connection,
    target_metadata=models.Base.metadata,
    render_as_batch=connection.dialect.name == 'sqlite')
with context.begin_transaction():
    context.run_migrations()
