"""The compute manager's flows, one module each, as the conductor's are in
``conductor/tasks``: ``build`` (a build and its reschedule or failure),
``rebuild``, ``evacuate`` (the destination's half, and the source's clean-up
when it comes back), ``live_migration`` (both computes' halves), ``power``
(stop, start), ``shelve`` (shelve, offload, unshelve), ``delete`` and
``interrupted`` (the tasks a restart or a lost message left unfinished).
``common`` holds what several of them do.

Each flow is a function taking the ``ComputeManager`` it runs on
(``compute``) first: its collaborators (``driver``, ``rt``, ``ports``,
``conductor_api``, ``compute_rpcapi``) and its per-instance bookkeeping
(``work``) are read from it when the flow runs. The manager receives the RPC
and delegates.
"""
