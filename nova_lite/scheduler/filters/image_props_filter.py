"""ImagePropertiesFilter: the host can run what the image asks for.

Image properties ``hw_architecture``, ``img_hv_type`` and ``hw_vm_mode``
must be matched together by one of the host's supported instance types
(architecture, hypervisor type, VM mode); ``img_hv_requested_version``
(``>=8.0``, ``==7.2.1``) is compared with the hypervisor version, reported
as an integer (8002000 is 8.2.0). An image that asks for none of these
passes everywhere.
"""

import operator
import re

from nova_lite.scheduler import filters

_OPERATORS = {'>=': operator.ge, '<=': operator.le, '==': operator.eq,
              '!=': operator.ne, '>': operator.gt, '<': operator.lt,
              '=': operator.eq}
_VERSION_REQUIREMENT = re.compile(r'^\s*(>=|<=|==|!=|>|<|=)?\s*'
                                  r'(\d+(?:\.\d+){0,2})\s*$')


def _properties(spec):
    image = spec.image
    if image is None:
        return {}
    return image.properties or {}


def version_tuple(number):
    """8002000 -> (8, 2, 0)."""
    number = int(number)
    return number // 1000000, (number // 1000) % 1000, number % 1000


def _parse_version(text):
    parts = [int(p) for p in text.split('.')]
    return tuple(parts + [0] * (3 - len(parts)))


def _normalize_arch(value):
    value = (value or '').lower()
    return {'amd64': 'x86_64', 'x64': 'x86_64', 'i386': 'i686',
            'arm64': 'aarch64'}.get(value, value)


class ImagePropertiesFilter(filters.BaseHostFilter):
    reason = 'cannot run the image (architecture, hypervisor or version)'

    @staticmethod
    def _wanted(spec):
        props = _properties(spec)
        return (_normalize_arch(props.get('hw_architecture') or
                                props.get('architecture')),
                (props.get('img_hv_type') or
                 props.get('hypervisor_type') or '').lower(),
                (props.get('hw_vm_mode') or props.get('vm_mode') or
                 '').lower(),
                props.get('img_hv_requested_version'))

    def applies(self, spec):
        return any(self._wanted(spec))

    def host_passes(self, host_state, spec):
        arch, hv_type, vm_mode, version = self._wanted(spec)
        if arch or hv_type or vm_mode:
            if not any((not arch or _normalize_arch(s_arch) == arch) and
                       (not hv_type or (s_hv or '').lower() == hv_type) and
                       (not vm_mode or (s_mode or '').lower() == vm_mode)
                       for s_arch, s_hv, s_mode in
                       host_state.supported_instances):
                return False
        if version:
            found = _VERSION_REQUIREMENT.match(str(version))
            if not found or host_state.hypervisor_version is None:
                return False
            compare = _OPERATORS[found.group(1) or '>=']
            return compare(version_tuple(host_state.hypervisor_version),
                           _parse_version(found.group(2)))
        return True

    def refusal(self, host_state, spec):
        arch, hv_type, vm_mode, version = self._wanted(spec)
        wanted = ', '.join(p for p in (arch, hv_type, vm_mode) if p)
        have = '; '.join('/'.join(str(x) for x in s)
                         for s in host_state.supported_instances) or 'none'
        text = 'image wants %s; host runs %s' % (wanted or 'any', have)
        if version:
            text += '; hypervisor version %s, image wants %s' % (
                '.'.join(map(str, version_tuple(
                    host_state.hypervisor_version)))
                if host_state.hypervisor_version is not None else 'unknown',
                version)
        return text
