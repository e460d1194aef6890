"""A cell database of a benchmark's own on this machine's MariaDB."""

import contextlib
import os

import pymysql

from nova_lite import conf
from nova_lite.db import api as db
from nova_lite.db import migration
from nova_lite import objects


@contextlib.contextmanager
def cell_database(prefix, mysql='root@127.0.0.1:3306'):
    """A database named ``prefix`` and this process's id, with the cell
    schema (``db_sync``), as ``[database] connection``; dropped at the
    end."""
    name = '%s_%d' % (prefix, os.getpid())
    url = 'mysql+pymysql://%s/%s' % (mysql, name)
    conf.CONF([], project='nova-lite')
    conf.CONF.set_override('connection', url, 'database')
    objects.register_all()
    migration.db_sync(url, 'main')
    try:
        yield url
    finally:
        db.dispose_all()
        user, _, address = mysql.partition('@')
        host, _, port = address.partition(':')
        connection = pymysql.connect(host=host, port=int(port or 3306),
                                     user=user)
        try:
            connection.cursor().execute('DROP DATABASE IF EXISTS `%s`' % name)
        finally:
            connection.close()
