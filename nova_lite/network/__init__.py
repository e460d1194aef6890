"""The port service (nova-lite-network): networks, ports and their host
bindings, QoS policies with minimum bandwidth rules, and the L2 agents the
computes report as, in the API database.

The REST handlers in ``nova_lite.api.network`` call the data modules here
(``networks``, ``ports``, ``bindings``, ``qos``, ``agents``) and never touch
SQL. ``placement_sync`` turns an agent's reported bandwidths into resource
providers; ``agent`` is the other side of that, what a compute sends.
"""
