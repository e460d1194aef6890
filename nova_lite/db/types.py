"""Column types shared by the API and cell models."""

import sqlalchemy as sa
from sqlalchemy.dialects import mysql

# Microsecond timestamps: the scheduler refreshes a host state only when the
# compute node record is newer, which second precision would blur.
DateTime = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql')
# Serialized objects (request specs, build requests) outgrow TEXT.
LongText = sa.Text().with_variant(mysql.LONGTEXT(), 'mysql')
