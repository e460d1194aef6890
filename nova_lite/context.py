"""The request context: who is asking, and which cell a call is aimed at.

A context travels with every RPC message. Its cell target (database
connection and transport URL) never does: those carry credentials, and
computes must not learn database credentials through a context.
"""

import contextlib
import copy

from oslo_context import context as oslo_context
from oslo_utils import uuidutils


class RequestContext(oslo_context.RequestContext):

    def __init__(self, user_id=None, project_id=None, is_admin=False,
                 read_deleted='no', roles=None, db_connection=None,
                 mq_url=None, cell_uuid=None, **kwargs):
        kwargs.setdefault('user_id', user_id)
        kwargs.setdefault('project_id', project_id)
        super().__init__(is_admin=is_admin, roles=roles or [], **kwargs)
        self.read_deleted = read_deleted
        # Cell targeting; see target_cell(). None means "my own cell".
        self.db_connection = db_connection
        self.mq_url = mq_url
        self.cell_uuid = cell_uuid

    def to_dict(self):
        values = super().to_dict()
        values.update(user_id=self.user_id, project_id=self.project_id,
                      is_admin=self.is_admin, read_deleted=self.read_deleted,
                      roles=list(self.roles))
        return values

    @classmethod
    def from_dict(cls, values):
        return super().from_dict(
            values, user_id=values.get('user_id'),
            project_id=values.get('project_id'),
            is_admin=values.get('is_admin', False),
            read_deleted=values.get('read_deleted', 'no'),
            roles=values.get('roles') or [])

    def elevated(self, read_deleted=None):
        context = copy.copy(self)
        context.roles = list(set(self.roles) | {'admin'})
        context.is_admin = True
        if read_deleted is not None:
            context.read_deleted = read_deleted
        return context

    def can(self, action, target=None, fatal=True):
        from nova_lite import policy
        return policy.authorize(self, action, target, fatal=fatal)


def get_admin_context(read_deleted='no'):
    return RequestContext(user_id=None, project_id=None, is_admin=True,
                          roles=['admin'], read_deleted=read_deleted,
                          request_id='req-' + uuidutils.generate_uuid())


def get_context():
    """A non-admin context for a service's own bookkeeping."""
    return RequestContext(user_id=None, project_id=None, is_admin=False)


@contextlib.contextmanager
def target_cell(context, cell_mapping):
    """Yield a copy of ``context`` aimed at ``cell_mapping``'s database."""
    targeted = copy.copy(context)
    if cell_mapping is not None:
        targeted.db_connection = cell_mapping.database_connection
        targeted.mq_url = cell_mapping.transport_url
        targeted.cell_uuid = cell_mapping.uuid
    yield targeted
