"""Nova 34's real scheduler as an oracle for nova_lite's: ``peer`` makes
its virtualenv, ``oracle`` (run by that virtualenv's python) decides
``scheduler simulate`` cases with it."""
