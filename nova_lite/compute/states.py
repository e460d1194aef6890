"""Instance states: vm_state (stable), task_state (in progress), power."""

# vm_state
BUILDING = 'building'
ACTIVE = 'active'
STOPPED = 'stopped'
ERROR = 'error'
DELETED = 'deleted'
SHELVED = 'shelved'
SHELVED_OFFLOADED = 'shelved_offloaded'

# task_state
SCHEDULING = 'scheduling'
BLOCK_DEVICE_MAPPING = 'block_device_mapping'
NETWORKING = 'networking'
SPAWNING = 'spawning'
DELETING = 'deleting'
REBUILDING = 'rebuilding'
REBUILD_SPAWNING = 'rebuild_spawning'
POWERING_OFF = 'powering-off'
POWERING_ON = 'powering-on'
SHELVING = 'shelving'
SHELVING_OFFLOADING = 'shelving_offloading'
UNSHELVING = 'unshelving'
MIGRATING = 'migrating'

# power_state
NOSTATE = 0
RUNNING = 1
SHUTDOWN = 4
CRASHED = 6
