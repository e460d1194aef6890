"""Policy enforcement: oslo.policy with the defaults of ``nova_lite.policies``.

``RequestContext.can()`` lands in ``authorize()``. The enforcer is created
on first use from the global configuration ([oslo_policy] policy_file may
override any default).
"""

import threading

from oslo_config import cfg
from oslo_policy import policy as oslo_policy

from nova_lite import conf as nova_conf
from nova_lite import exception
from nova_lite import policies
from nova_lite import version

CONF = nova_conf.CONF

_ENFORCER = None
_LOCK = threading.Lock()


def init(conf=None):
    global _ENFORCER
    with _LOCK:
        if _ENFORCER is None:
            enforcer = oslo_policy.Enforcer(conf or CONF)
            enforcer.register_defaults(policies.list_rules())
            enforcer.load_rules()
            _ENFORCER = enforcer
    return _ENFORCER


def reset():
    global _ENFORCER
    with _LOCK:
        if _ENFORCER is not None:
            _ENFORCER.clear()
        _ENFORCER = None


def get_enforcer():
    """For oslopolicy-* tools (the ``oslo.policy.enforcer`` entry point):
    the enforcer with the deployment's configuration, read from its
    default files (``/etc/nova-lite/nova-lite.conf``...) when the tool
    has not read one, so ``[oslo_policy]`` settings apply."""
    try:
        CONF.config_file
    except cfg.NoSuchOptError:
        # Nothing parsed yet: the tool's own arguments are not ours.
        CONF([], project='nova-lite', version=version.VERSION)
    return init()


def _credentials(context):
    creds = dict(context.to_policy_values())
    creds['is_admin'] = bool(context.is_admin)
    creds['roles'] = list(context.roles or [])
    return creds


def authorize(context, action, target=None, fatal=True):
    """Whether ``context`` may perform ``action`` on ``target``.

    ``target`` defaults to the caller's own project, which is what a
    create or a list is aimed at. With ``fatal`` a refusal raises
    PolicyNotAuthorized (403); otherwise it returns False. A rule with
    ``scope_types`` (placement's are for project-scoped tokens) refuses a
    token of another scope the same way.
    """
    enforcer = init()
    if target is None:
        target = {'project_id': context.project_id,
                  'user_id': context.user_id}
    try:
        return enforcer.authorize(action, target, _credentials(context),
                                  do_raise=fatal,
                                  exc=exception.PolicyNotAuthorized,
                                  action=action)
    except oslo_policy.InvalidScope:
        raise exception.PolicyNotAuthorized(action=action)
