"""Tables of the API database (one per deployment)."""

import sqlalchemy as sa
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


class RequestSpec(_Timestamps, Base):
    __tablename__ = 'request_specs'
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False, unique=True)
    spec = sa.Column(LongText, nullable=False)


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
