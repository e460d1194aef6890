"""OpenStack Placement 16's gabbi tests against nova-lite-placement.

Every gabbi file of Placement 16 (``tools/placement_gabbi``: a fresh
nova-lite-placement per file, on fresh copies of the migrated databases,
configured as the file's fixture configures placement, the fixture's data
made over the Placement API; two files at a time). A failing test
must be listed, with its reason, in
``tools/placement_gabbi/known_differences.txt``; a listed test that passes
must be taken out of it (the list only shrinks: ``python -m
tools.placement_gabbi --prune-known``).
"""

import testtools

from tools.placement_gabbi import harness


class PlacementGabbiTest(testtools.TestCase):

    def test_gabbi_files(self):
        report = harness.run('nova-lite', workers=2)
        self.addDetail('summary', testtools.content.text_content(
            report.summary()))
        self.addDetail('timings', testtools.content.text_content(
            report.timing_table()))
        problems = []
        unexpected = report.unexpected()
        if unexpected:
            problems.append('%d failures not in %s:\n%s' % (
                len(unexpected), harness.KNOWN, '\n'.join(
                    '  %s: %s' % (t['id'], t['reason'])
                    for _, t in unexpected)))
        if report.fixed():
            problems.append('%d tests listed in %s pass now; take them out '
                            '(python -m tools.placement_gabbi '
                            '--prune-known):\n%s' % (
                                len(report.fixed()), harness.KNOWN,
                                '\n'.join('  ' + t for t in report.fixed())))
        if report.unknown_ids():
            problems.append('%s lists tests that do not exist:\n%s' % (
                harness.KNOWN, '\n'.join(
                    '  ' + t for t in report.unknown_ids())))
        if problems:
            self.fail('\n\n'.join(problems))
