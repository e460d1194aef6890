"""Show a subunit v2 stream from stdin as it runs, and count its outcomes.

tools/run-tests.sh pipes ``stestr run --subunit`` through this: one line per
finished test, the details of each failure at the end, and the three counts
"PASSED FAILED SKIPPED" written to the file named by the only argument, for
the script to add up over the unit and functional runs, followed by each
failed test's id and the last lines of its failure, which the script prints
again after everything else: a CI log cut to its head and tail still names
what failed. A test whose worker died before it finished counts as failed.
"""

import sys

import subunit
import testtools

PASSED = {'success', 'xfail'}
SKIPPED = {'skip'}
FAILED = {'fail', 'uxsuccess', 'inprogress', 'unknown'}
# How much of each failure the summary repeats at the very end.
TAIL_LINES = 6


def _duration(test):
    start, stop = test['timestamps']
    if start is None or stop is None:
        return ''
    return ' [%.2fs]' % (stop - start).total_seconds()


def _details_text(test):
    parts = []
    for name, content in test['details'].items():
        text = ''.join(content.iter_text()).rstrip()
        if text:
            parts.append('--- %s ---\n%s' % (name, text))
    return '\n'.join(parts)


def main():
    counts_file = sys.argv[1]
    counts = {'passed': 0, 'failed': 0, 'skipped': 0}
    failures = []

    def on_test(test):
        status = test['status']
        if status in PASSED:
            counts['passed'] += 1
            label = 'ok'
        elif status in SKIPPED:
            counts['skipped'] += 1
            label = 'SKIP'
        elif status in FAILED:
            counts['failed'] += 1
            label = 'FAIL'
            failures.append(test)
        else:
            # 'exists' only lists a test without running it.
            return
        reason = ''
        if status == 'skip' and 'reason' in test['details']:
            reason = ': ' + ''.join(
                test['details']['reason'].iter_text()).strip()
        print('%-4s %s%s%s' % (label, test['id'], _duration(test), reason),
              flush=True)

    stream = subunit.ByteStreamToStreamResult(sys.stdin.buffer,
                                              non_subunit_name='stdout')
    result = testtools.CopyStreamResult(
        [testtools.StreamToDict(on_test), _PassThroughStdout()])
    result.startTestRun()
    try:
        stream.run(result)
    finally:
        result.stopTestRun()
        for test in failures:
            print('\n==== FAIL: %s\n%s' % (test['id'], _details_text(test)))
        with open(counts_file, 'w') as f:
            f.write('%(passed)d %(failed)d %(skipped)d\n' % counts)
            for test in failures:
                f.write('FAIL %s\n' % test['id'])
                for line in _details_text(test).splitlines()[-TAIL_LINES:]:
                    f.write('    %s\n' % line)


class _PassThroughStdout(testtools.StreamResult):
    """Print what the runner wrote outside any test (e.g. a crash)."""

    def status(self, test_id=None, test_status=None, test_tags=None,
               runnable=True, file_name=None, file_bytes=None, eof=False,
               mime_type=None, route_code=None, timestamp=None):
        if test_id is None and file_bytes:
            sys.stdout.write(file_bytes.decode('utf-8', 'replace'))
            sys.stdout.flush()


if __name__ == '__main__':
    main()
