"""ImagePropertiesFilter: the host can run what the image asks for.

The image's architecture (``hw_architecture``, else ``[filter_scheduler]
image_properties_default_architecture``), hypervisor type
(``img_hv_type``) and VM mode (``hw_vm_mode``) -- each written the
canonical way (``amd64`` is x86_64, ``i386`` is i686, ``xapi`` is xen,
``hv`` and ``baremetal`` are hvm, ``pv`` is xen) -- must all be found in
one of the host's supported instance types; with it, the hypervisor
version (an integer, 8002000 is 8.2.0) must satisfy
``img_hv_requested_version`` (``>= 8.0``, ``==7.2``) when both are known.
An image that asks for no architecture, type or mode passes everywhere,
whatever version it asks for; a host that reports no supported instance
type runs no image that asks. The legacy property names
(``architecture``, ``hypervisor_type``, ``vm_mode``) count as the new
ones. As in Nova, except that a version requirement that cannot be parsed
refuses the host, where Nova's scheduler fails the request.
"""

from oslo_utils import versionutils

from nova_lite import conf as nova_conf
from nova_lite.scheduler import filters

CONF = nova_conf.CONF

_LEGACY = {'hw_architecture': 'architecture',
           'img_hv_type': 'hypervisor_type',
           'hw_vm_mode': 'vm_mode'}
_ARCHITECTURE_ALIASES = {'i386': 'i686', 'i486': 'i686', 'i586': 'i686',
                         'x86_32': 'i686', 'x86_32p': 'i686',
                         'amd64': 'x86_64'}
_HYPERVISOR_ALIASES = {'xapi': 'xen'}
_VM_MODE_ALIASES = {'pv': 'xen', 'hv': 'hvm', 'baremetal': 'hvm'}


def _property(props, name):
    value = props.get(name)
    if value is None:
        value = props.get(_LEGACY[name])
    return value


def _canonical(value, aliases):
    if not value:
        return None
    value = str(value).lower()
    return aliases.get(value, value)


def version_tuple(number):
    """8002000 -> (8, 2, 0)."""
    number = int(number)
    return number // 1000000, (number // 1000) % 1000, number % 1000


class ImagePropertiesFilter(filters.BaseHostFilter):
    reason = 'cannot run the image (architecture, hypervisor or version)'

    @staticmethod
    def _wanted(spec):
        """((architecture, hypervisor type, VM mode), version wanted)."""
        props = spec.image.properties if spec.image is not None else None
        props = props or {}
        arch = _property(props, 'hw_architecture')
        if arch is None:
            arch = CONF.filter_scheduler.image_properties_default_architecture
        return ((_canonical(arch, _ARCHITECTURE_ALIASES),
                 _canonical(_property(props, 'img_hv_type'),
                            _HYPERVISOR_ALIASES),
                 _canonical(_property(props, 'hw_vm_mode'),
                            _VM_MODE_ALIASES)),
                props.get('img_hv_requested_version'))

    def applies(self, spec):
        return any(self._wanted(spec)[0])

    @staticmethod
    def _version_fits(hypervisor_version, wanted):
        if not (hypervisor_version and wanted):
            return True
        try:
            predicate = versionutils.VersionPredicate(str(wanted))
        except ValueError:
            return False
        return predicate.satisfied_by(
            versionutils.convert_version_to_str(hypervisor_version))

    def host_passes(self, host_state, spec):
        wanted, version = self._wanted(spec)
        if not any(wanted):
            return True
        for supported in host_state.supported_instances:
            supported = list(supported)
            if all(not item or item in supported for item in wanted) and \
                    self._version_fits(host_state.hypervisor_version,
                                       version):
                return True
        return False

    def refusal(self, host_state, spec):
        wanted, version = self._wanted(spec)
        have = '; '.join('/'.join(str(x) for x in s)
                         for s in host_state.supported_instances) or 'none'
        text = 'image wants %s; host runs %s' % (
            ', '.join(p for p in wanted if p), have)
        if version:
            text += '; hypervisor version %s, image wants %s' % (
                '.'.join(map(str, version_tuple(
                    host_state.hypervisor_version)))
                if host_state.hypervisor_version is not None else 'unknown',
                version)
        return text
