"""OpenStack Placement 16's gabbi tests against a placement over HTTP.

Placement 16's own API tests (``placement/tests/functional/gabbits/*.yaml``
in the ``openstack-placement`` 16.0.0 package that ``tools/placement_peer.py``
installs) run against a placement service at a URL instead of in-process:
each file gets a fresh server, on a database of its own, configured as the
file's fixture configures placement in Placement's test suite, and this
package's ``fixtures`` (the same class names as Placement's) make the same
data through the Placement API.

Usage (from the repository's root)::

    PYTHONPATH=. .venv/bin/python -m tools.placement_gabbi \\
        [--target nova-lite|openstack] [--file NAME ...] [--workers N] \\
        [--json OUT.json] [--failures OUT.txt] [--prune-known] [-q] \\
        [--timings]

``--target nova-lite`` (the default) runs nova-lite-placement, a daemon per
file (``tests/functional/placement_fixtures.PlacementServer``'s
configuration, forked by ``forkserver``) on copies of databases migrated
once; ``--target openstack`` runs OpenStack Placement 16
itself (``placement_peer.Server``), which should pass everything: a test
it fails means a fixture here differs from Placement's. ``--file`` runs
some files only (``--file inventory --file traits``). It prints each
file's passed/run, the total and percentage, and every failure with a
one-line reason, grouped by area; ``--json`` writes every outcome,
``--failures`` the failures grouped by area.

``known_differences.txt`` (beside this file) lists the tests that fail
against nova-lite-placement and why, one test a line: its id (gabbi's:
``<file stem>_<test name lowercased, spaces as _>``) and its reason. The
exit status is 1 when a failure is not listed, or when a listed test now
passes (the list only shrinks: ``--prune-known`` takes such lines out),
otherwise 0. ``tests/functional/test_placement_gabbi.py`` runs the whole
suite against nova-lite-placement in CI with the same rule.

Pieces: ``harness`` (servers, runs, report; nova_lite's python),
``runner`` (files through gabbi, one after another; the peer virtualenv's
python, which has gabbi), ``fixtures`` (the HTTP fixtures, run by gabbi in
the runner), ``forkserver`` (forks each file's nova-lite-placement daemon
from a python that imported it once; nova_lite's python). ``--timings``
prints where each file's time went.
"""
