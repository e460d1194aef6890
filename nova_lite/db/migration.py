"""Schema migrations of the API and cell databases, run through alembic."""

import os

from alembic import command as alembic_command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from nova_lite.db import api as db_api
from nova_lite import exception

API = 'api'
MAIN = 'main'
_HERE = os.path.dirname(os.path.abspath(__file__))


def _alembic_config(database, connection):
    config = alembic_config.Config()
    config.set_main_option('script_location',
                           os.path.join(_HERE, 'migrations', database))
    config.attributes['connection'] = connection
    return config


def create_database_if_missing(url):
    """Create the MySQL/MariaDB database named in ``url`` if it is absent."""
    parsed = db_api.parse_url(url)
    if parsed.get_backend_name() != 'mysql' or not parsed.database:
        return False
    server = sa.create_engine(parsed.set(database=''))
    try:
        with server.connect() as connection:
            exists = connection.execute(
                sa.text('SELECT SCHEMA_NAME FROM information_schema.SCHEMATA '
                        'WHERE SCHEMA_NAME = :name'),
                {'name': parsed.database}).first()
            if exists:
                return False
            charset = parsed.query.get('charset', 'utf8mb4')
            connection.execute(sa.text(
                'CREATE DATABASE `%s` CHARACTER SET %s' %
                (parsed.database.replace('`', ''), charset)))
            return True
    except (sa_exc.OperationalError, sa_exc.InterfaceError) as e:
        raise exception.DatabaseUnavailable(url=db_api.safe_url(url),
                                            reason=e.orig or e)
    finally:
        server.dispose()


def db_sync(url, database, version='head'):
    """Upgrade the ``database`` ('api' or 'main') schema at ``url``."""
    create_database_if_missing(url)
    db_api.check_connection(url)
    engine = db_api.get_engine(url)
    with engine.begin() as connection:
        alembic_command.upgrade(_alembic_config(database, connection),
                                version)


def db_version(url):
    db_api.check_connection(url)
    engine = db_api.get_engine(url)
    with engine.connect() as connection:
        context = alembic_migration.MigrationContext.configure(connection)
        return context.get_current_revision()
