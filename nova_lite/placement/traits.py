"""Traits: qualitative capabilities of a resource provider.

Standard trait names are listed in code (``STANDARD``) and written to the
``traits`` table the first time this process needs them, so that
providers can refer to them by id; custom traits (``CUSTOM_*``) are created
through the API. Ids are cached in memory, reloaded on a miss.
"""

import re
import threading

import sqlalchemy as sa

from nova_lite.placement import db
from nova_lite.placement import exception

CUSTOM_PREFIX = 'CUSTOM_'
CUSTOM_NAME = re.compile(r'^CUSTOM_[A-Z0-9_]+$')
NAME = re.compile(r'^[A-Z0-9_]+$')
SHARES_VIA_AGGREGATE = 'MISC_SHARES_VIA_AGGREGATE'


def _family(prefix, *names):
    return tuple(prefix + name for name in names)


STANDARD = frozenset(
    _family('HW_CPU_X86_',
            'MMX', 'SSE', 'SSE2', 'SSE3', 'SSSE3', 'SSE41', 'SSE42',
            'SSE4A', 'AVX', 'AVX2', 'AVX512F', 'AVX512CD', 'AVX512PF',
            'AVX512ER', 'AVX512VL', 'AVX512BW', 'AVX512DQ', 'AVX512VNNI',
            'AVX512VBMI', 'AVX512IFMA', 'AVX512VBMI2', 'AVX512BITALG',
            'AVX512VAES', 'AVX512GFNI', 'AVX512VPCLMULQDQ',
            'AVX512VPOPCNTDQ', 'FMA3', 'FMA4', 'F16C', 'AESNI', 'SHA',
            'ABM', 'BMI', 'BMI2', 'TBM', 'CLMUL', 'XOP', 'MPX', 'SGX',
            'VMX', 'SVM', 'AMD_SVM', 'INTEL_VMX', 'AMD_SEV', 'PDPE1GB',
            'RDRAND', 'RDSEED', 'TSX', 'HLE', 'RTM', 'PCLMULQDQ',
            'STIBP', 'SSBD', 'MDS_NO', 'SPEC_CTRL', 'IBPB', 'PCID',
            'INVPCID', 'SMAP', 'SMEP')
    + _family('HW_CPU_AARCH64_',
              'FP', 'ASIMD', 'EVTSTRM', 'AES', 'PMULL', 'SHA1', 'SHA2',
              'CRC32', 'FPHP', 'ASIMDHP', 'ATOMICS', 'ASIMDRDM', 'JSCVT',
              'FCMA', 'LRCPC', 'DCPOP', 'SHA3', 'SM3', 'SM4', 'ASIMDDP',
              'SHA512', 'SVE', 'CPUID')
    + _family('HW_CPU_PPC64LE_', 'POWER8', 'POWER9')
    + ('HW_CPU_HYPERTHREADING', 'HW_CPU_AMD_SEV')
    + _family('HW_ARCH_', 'ALPHA', 'ARMV6', 'ARMV7', 'ARMV7B', 'AARCH64',
              'CRIS', 'I686', 'IA64', 'LM32', 'M68K', 'MICROBLAZE',
              'MICROBLAZEEL', 'MIPS', 'MIPSEL', 'MIPS64', 'MIPS64EL',
              'OPENRISC', 'PARISC', 'PARISC64', 'PPC', 'PPCLE', 'PPC64',
              'PPC64LE', 'PPCEMB', 'S390', 'S390X', 'SH4', 'SH4EB', 'SPARC',
              'SPARC64', 'UNICORE32', 'X86_64', 'XTENSA', 'XTENSAEB')
    + _family('HW_GPU_API_', 'DIRECT2D', 'DIRECT3D_V7_0', 'DIRECT3D_V8_0',
              'DIRECT3D_V9_0', 'DIRECT3D_V10_0', 'DIRECT3D_V11_0',
              'DIRECT3D_V12_0', 'DXVA', 'OPENCL_V1_0', 'OPENCL_V1_1',
              'OPENCL_V1_2', 'OPENCL_V2_0', 'OPENCL_V2_1', 'OPENCL_V2_2',
              'OPENGL_V1_1', 'OPENGL_V2_0', 'OPENGL_V3_0', 'OPENGL_V4_0',
              'OPENGL_V4_6', 'VULKAN', 'CUDA_V10_0', 'CUDA_V11_0')
    + _family('HW_NIC_', 'SRIOV', 'SRIOV_QOS_TX', 'SRIOV_QOS_RX',
              'SRIOV_MULTIQUEUE', 'SRIOV_TRUSTED', 'MULTIQUEUE',
              'VMDQ', 'PROGRAMMABLE_PIPELINE', 'DCB_PFC', 'DCB_ETS',
              'DCB_QCN', 'ACCEL_SSL', 'ACCEL_IPSEC', 'ACCEL_TLS',
              'ACCEL_DIFFIEH', 'ACCEL_RSA', 'ACCEL_ECC', 'ACCEL_LZS',
              'ACCEL_DEFLATE', 'OFFLOAD_TSO', 'OFFLOAD_GRO', 'OFFLOAD_GSO',
              'OFFLOAD_UFO', 'OFFLOAD_LRO', 'OFFLOAD_LSO', 'OFFLOAD_TCS',
              'OFFLOAD_UCS', 'OFFLOAD_SCS', 'OFFLOAD_L2CRC', 'OFFLOAD_FDF',
              'OFFLOAD_RXVLAN', 'OFFLOAD_TXVLAN', 'OFFLOAD_VXLAN',
              'OFFLOAD_GRE', 'OFFLOAD_GENEVE', 'OFFLOAD_TXUDP',
              'OFFLOAD_QINQ', 'OFFLOAD_RDMA', 'OFFLOAD_RXHASH',
              'OFFLOAD_RX', 'OFFLOAD_TX', 'OFFLOAD_SG', 'OFFLOAD_SWITCHDEV',
              'SWITCHDEV')
    + _family('COMPUTE_',
              'NODE', 'STATUS_DISABLED', 'DEVICE_TAGGING', 'TRUSTED_CERTS',
              'NET_ATTACH_INTERFACE', 'NET_ATTACH_INTERFACE_WITH_TAG',
              'VOLUME_ATTACH', 'VOLUME_ATTACH_WITH_TAG', 'VOLUME_EXTEND',
              'VOLUME_MULTI_ATTACH', 'ACCELERATORS', 'RESCUE_BFV',
              'SAME_HOST_COLD_MIGRATE', 'SOCKET_PCI_NUMA_AFFINITY',
              'REMOTE_MANAGED_PORTS', 'EPHEMERAL_ENCRYPTION',
              'EPHEMERAL_ENCRYPTION_LUKS', 'EPHEMERAL_ENCRYPTION_PLAIN',
              'MEM_BACKING_FILE', 'ADDRESS_SPACE_PASSTHROUGH',
              'ADDRESS_SPACE_EMULATED', 'SECURITY_UEFI_SECURE_BOOT',
              'SECURITY_TPM_1_2', 'SECURITY_TPM_2_0',
              'SECURITY_STATELESS_FIRMWARE', 'FIRMWARE_BIOS',
              'FIRMWARE_UEFI', 'NET_VIRTIO_PACKED', 'VIOMMU_MODEL_INTEL',
              'VIOMMU_MODEL_SMMUV3', 'VIOMMU_MODEL_VIRTIO',
              'VIOMMU_MODEL_AUTO', 'SHARE_LOCAL_FS', 'SOUND_MODEL_SB16',
              'SOUND_MODEL_ES1370', 'SOUND_MODEL_PCSPK', 'SOUND_MODEL_AC97',
              'SOUND_MODEL_ICH6', 'SOUND_MODEL_ICH9', 'SOUND_MODEL_USB',
              'SOUND_MODEL_VIRTIO')
    + _family('COMPUTE_IMAGE_TYPE_', 'AKI', 'AMI', 'ARI', 'ISO', 'QCOW2',
              'RAW', 'VDI', 'VHD', 'VHDX', 'VMDK', 'PLOOP')
    + _family('COMPUTE_NET_VIF_MODEL_', 'E1000', 'E1000E', 'LAN9118',
              'NETFRONT', 'NE2K_PCI', 'PCNET', 'RTL8139', 'SPAPR_VLAN',
              'SRIOV', 'VIRTIO', 'VMXNET', 'VMXNET3', 'IGB')
    + _family('COMPUTE_GRAPHICS_MODEL_', 'BOCHS', 'CIRRUS', 'GOP', 'NONE',
              'QXL', 'VGA', 'VIRTIO', 'VMVGA', 'XEN')
    + _family('COMPUTE_STORAGE_BUS_', 'FDC', 'IDE', 'LXC', 'SATA', 'SCSI',
              'USB', 'VIRTIO', 'UML', 'XEN')
    + _family('COMPUTE_ARCH_', 'AARCH64', 'PPC64LE', 'MIPSEL', 'S390X',
              'RISCV64', 'X86_64')
    + _family('STORAGE_DISK_', 'HDD', 'SSD')
    + _family('MISC_', 'SHARES_VIA_AGGREGATE')
    + _family('OWNER_', 'CYBORG', 'NOVA', 'NEUTRON')
    + _family('ACCELERATOR_', 'FPGA', 'GPU')
)


class _Cache:

    def __init__(self):
        self.lock = threading.Lock()
        self.id_by_name = {}
        self.synced = False

    def clear(self):
        with self.lock:
            self.id_by_name = {}
            self.synced = False

    def reload(self, connection):
        rows = connection.execute(
            sa.select(db.TRAITS.c.id, db.TRAITS.c.name)).all()
        with self.lock:
            self.id_by_name = {row.name: row.id for row in rows}


_CACHE = _Cache()


def reset_cache():
    _CACHE.clear()


def is_custom(name):
    return name.startswith(CUSTOM_PREFIX)


def ensure_standard(connection):
    """Write the standard traits missing from the table (once a process)."""
    if _CACHE.synced:
        return
    present = {row.name for row in connection.execute(
        sa.select(db.TRAITS.c.name))}
    missing = sorted(STANDARD - present)
    if missing:
        stamp = db.now()
        try:
            with connection.begin_nested():
                connection.execute(db.TRAITS.insert(), [
                    {'name': name, 'created_at': stamp} for name in missing])
        except db.DBDuplicateEntry:
            # Another process is writing them too: one by one, skipping
            # the ones it wrote first.
            for name in missing:
                try:
                    with connection.begin_nested():
                        connection.execute(db.TRAITS.insert().values(
                            name=name, created_at=stamp))
                except db.DBDuplicateEntry:
                    pass
    _CACHE.reload(connection)
    _CACHE.synced = True


def ids_of(connection, names):
    """{name: id} of existing traits; BadRequest naming unknown ones."""
    ensure_standard(connection)
    names = set(names)
    missing = [n for n in names if n not in _CACHE.id_by_name]
    if missing:
        _CACHE.reload(connection)
        missing = [n for n in names if n not in _CACHE.id_by_name]
    if missing:
        raise exception.BadRequest(
            reason='No such trait(s): %s.' % ', '.join(sorted(missing)))
    return {name: _CACHE.id_by_name[name] for name in names}


def names_by_id(connection, trait_ids):
    ensure_standard(connection)
    by_id = {v: k for k, v in _CACHE.id_by_name.items()}
    if any(i not in by_id for i in trait_ids):
        _CACHE.reload(connection)
        by_id = {v: k for k, v in _CACHE.id_by_name.items()}
    return {i: by_id[i] for i in trait_ids if i in by_id}


def list_names(connection, name_in=None, startswith=None, associated=None):
    ensure_standard(connection)
    query = sa.select(db.TRAITS.c.name)
    if name_in is not None:
        query = query.where(db.TRAITS.c.name.in_(sorted(name_in)))
    if startswith is not None:
        query = query.where(db.TRAITS.c.name.startswith(startswith,
                                                        autoescape=True))
    if associated is not None:
        linked = sa.select(db.PROVIDER_TRAITS.c.trait_id)
        if associated:
            query = query.where(db.TRAITS.c.id.in_(linked))
        else:
            query = query.where(db.TRAITS.c.id.not_in(linked))
    return [row.name for row in connection.execute(
        query.order_by(db.TRAITS.c.name))]


def exists(connection, name):
    ensure_standard(connection)
    return connection.execute(sa.select(db.TRAITS.c.id).where(
        db.TRAITS.c.name == name)).first() is not None


def create(connection, name):
    """Create custom trait ``name``; True if created, False if present."""
    ensure_standard(connection)
    if exists(connection, name):
        return False
    try:
        with connection.begin_nested():
            result = connection.execute(db.TRAITS.insert().values(
                name=name, created_at=db.now()))
    except db.DBDuplicateEntry:
        return False
    with _CACHE.lock:
        _CACHE.id_by_name[name] = result.inserted_primary_key[0]
    return True


def delete(connection, name):
    if not is_custom(name):
        raise exception.BadRequest(
            reason='Cannot delete standard trait %s.' % name)
    row = connection.execute(sa.select(db.TRAITS.c.id).where(
        db.TRAITS.c.name == name)).first()
    if row is None:
        raise exception.NotFound(reason='No such trait(s): %s.' % name)
    in_use = connection.execute(sa.select(db.PROVIDER_TRAITS.c.trait_id)
                                .where(db.PROVIDER_TRAITS.c.trait_id ==
                                       row.id).limit(1)).first()
    if in_use is not None:
        raise exception.Conflict(
            reason='The trait %s is in use by a resource provider.' % name)
    connection.execute(db.TRAITS.delete().where(db.TRAITS.c.id == row.id))
    with _CACHE.lock:
        _CACHE.id_by_name.pop(name, None)


def of_provider(connection, provider_id):
    query = (sa.select(db.TRAITS.c.name)
             .select_from(db.PROVIDER_TRAITS.join(
                 db.TRAITS, db.TRAITS.c.id == db.PROVIDER_TRAITS.c.trait_id))
             .where(db.PROVIDER_TRAITS.c.resource_provider_id == provider_id)
             .order_by(db.TRAITS.c.name))
    return [row.name for row in connection.execute(query)]


def of_providers(connection, provider_ids):
    """{provider id: [trait names]} for every provider in ``provider_ids``."""
    result = {pid: [] for pid in provider_ids}
    for chunk in db.chunks(provider_ids, 5000):
        query = (sa.select(db.PROVIDER_TRAITS.c.resource_provider_id,
                           db.TRAITS.c.name)
                 .select_from(db.PROVIDER_TRAITS.join(
                     db.TRAITS,
                     db.TRAITS.c.id == db.PROVIDER_TRAITS.c.trait_id))
                 .where(db.PROVIDER_TRAITS.c.resource_provider_id.in_(chunk)))
        for row in connection.execute(query):
            result[row.resource_provider_id].append(row.name)
    for names in result.values():
        names.sort()
    return result


def set_for_provider(connection, provider_id, names):
    """Replace the traits of a provider (the caller bumps its generation)."""
    wanted = ids_of(connection, names) if names else {}
    connection.execute(db.PROVIDER_TRAITS.delete().where(
        db.PROVIDER_TRAITS.c.resource_provider_id == provider_id))
    if wanted:
        stamp = db.now()
        connection.execute(db.PROVIDER_TRAITS.insert(), [
            {'resource_provider_id': provider_id, 'trait_id': trait_id,
             'created_at': stamp} for trait_id in sorted(wanted.values())])
