"""Load, small: a burst of concurrent boots onto ten fake hosts filled to
about 95%, with two schedulers and two conductors; and a one-minute soak
of mixed operations with the audit every 20 s. ``tools/load_suite.py``
runs the full sizes (200 boots on 50 hosts, a 10-minute soak).
"""

import json

import testtools

from tests.functional import load


class TestBurst(testtools.TestCase):

    HOSTS = 10
    BOOTS = 40   # capacity 42: 95% full afterwards

    def test_concurrent_boots_never_overcommit(self):
        plane = load.plane_for_burst(self.HOSTS)
        self.addCleanup(plane.stop)
        self.addOnException(lambda exc_info: self.addDetail(
            'daemon-logs', testtools.content.text_content(plane.logs())))
        figures = load.burst(plane, self.HOSTS, self.BOOTS, threads=10)
        self.addDetail('figures', testtools.content.text_content(
            json.dumps(figures, indent=2)))
        self.assertEqual(self.BOOTS, figures['accepted'])
        self.assertEqual(0, figures['not final'], figures['details'])
        self.assertEqual(0, figures['over-committed hosts'])
        self.assertEqual(0, figures['audit violations'], figures['details'])
        self.assertEqual(0, figures['listing problems'], figures['details'])
        self.assertEqual(0, figures['ERROR beyond capacity'], figures)


class TestSoak(testtools.TestCase):

    def test_mixed_operations_keep_the_audit_clean(self):
        plane = load.plane_for_burst(2)
        self.addCleanup(plane.stop)
        self.addOnException(lambda exc_info: self.addDetail(
            'daemon-logs', testtools.content.text_content(plane.logs())))
        trace = load.MemoryTrace(plane, ['conductor', 'compute1'])
        trace.start()
        figures = load.soak(plane, seconds=60, audit_every=20, seed=8,
                            trace=trace)
        self.addDetail('figures', testtools.content.text_content(
            json.dumps(figures, indent=2)))
        self.assertEqual([], figures['violations'])
        self.assertEqual([], figures['stuck servers'])
        self.assertGreater(figures['operations total'], 10)
        self.assertFalse([k for k in figures['operations']
                          if k.split()[-1].startswith('5')], figures)
        # Both traced daemons said where their memory went.
        growth = figures['traced memory growth after the first audit '
                         '(file:line, kB, blocks)']
        self.assertEqual(['compute1', 'conductor'], sorted(growth))
        self.assertTrue(all(growth.values()), growth)
