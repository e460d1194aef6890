"""keystoneauth1's options, in each group that configures how the services
call a peer REST API ([placement], [network]); see ``service_auth``."""

import copy

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

DEFAULT_TIMEOUT = 30


def _with_defaults(opts, defaults):
    """``opts`` with some defaults of ours. Not set_default: parsing the
    command line clears what set_default set."""
    changed = []
    for opt in opts:
        if opt.dest in defaults:
            opt = copy.deepcopy(opt)
            opt.default = defaults[opt.dest]
        changed.append(opt)
    return changed


def _adapter_opts(group, service_type):
    """keystoneauth1's adapter options; ``endpoint_override`` is also read
    under its old name here, ``endpoint``."""
    return _with_defaults(
        ks_loading.get_adapter_conf_options(
            include_deprecated=False, deprecated_opts={
                'endpoint_override': [cfg.DeprecatedOpt('endpoint',
                                                        group=group)]}),
        {'service_type': service_type,
         'valid_interfaces': ['internal', 'public']})


def _session_opts():
    return _with_defaults(ks_loading.get_session_conf_options(),
                          {'timeout': DEFAULT_TIMEOUT})


def register_opts(conf, group, service_type):
    """The auth, session and adapter options in ``group``."""
    ks_loading.register_auth_conf_options(conf, group)
    conf.register_opts(_session_opts(), group=group)
    conf.register_opts(_adapter_opts(group, service_type), group=group)


def list_opts(group, service_type):
    """For the sample config: the options above, with the ``password``
    plugin's as the example of a plugin's."""
    return (ks_loading.get_auth_common_conf_options() +
            ks_loading.get_auth_plugin_conf_options('password') +
            _session_opts() + _adapter_opts(group, service_type))
