"""Instance states: vm_state (stable), task_state (in progress), power."""

# vm_state
BUILDING = 'building'
ACTIVE = 'active'
STOPPED = 'stopped'
ERROR = 'error'
DELETED = 'deleted'
SHELVED = 'shelved'
SHELVED_OFFLOADED = 'shelved_offloaded'
# Resized or cold migrated, waiting for the user to confirm or revert.
RESIZED = 'resized'
PAUSED = 'paused'
SUSPENDED = 'suspended'

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
# Resize and cold migration, in order; then, from RESIZED, one of the
# last two.
RESIZE_PREP = 'resize_prep'
RESIZE_MIGRATING = 'resize_migrating'
RESIZE_MIGRATED = 'resize_migrated'
RESIZE_FINISH = 'resize_finish'
RESIZE_REVERTING = 'resize_reverting'
RESIZE_CONFIRMING = 'resize_confirming'
PAUSING = 'pausing'
UNPAUSING = 'unpausing'
SUSPENDING = 'suspending'
RESUMING = 'resuming'
# A reboot: the API sets the first, the compute the other two as it goes.
REBOOTING = 'rebooting'
REBOOT_PENDING = 'reboot_pending'
REBOOT_STARTED = 'reboot_started'
REBOOTING_HARD = 'rebooting_hard'
REBOOT_PENDING_HARD = 'reboot_pending_hard'
REBOOT_STARTED_HARD = 'reboot_started_hard'
SOFT_REBOOT_STATES = (REBOOTING, REBOOT_PENDING, REBOOT_STARTED)
HARD_REBOOT_STATES = (REBOOTING_HARD, REBOOT_PENDING_HARD,
                      REBOOT_STARTED_HARD)

# power_state (Nova's numbers; a paused or suspended guest's are named
# apart from the vm_states of the same name)
NOSTATE = 0
RUNNING = 1
PAUSED_POWER = 3
SHUTDOWN = 4
CRASHED = 6
SUSPENDED_POWER = 7
