"""Run gabbi YAML files against a placement at a URL; print their results.

    python -m tools.placement_gabbi.runner URL FILE.yaml
    python -m tools.placement_gabbi.runner --serve

Runs in the peer virtualenv's python (the one with gabbi), with the
repository on PYTHONPATH. The file's fixtures are this package's
(``fixtures``: the data made over HTTP at URL). Prints one JSON object:
``{"file": stem, "tests": [{"id", "status", "reason"}...]}``, a test's
``id`` being gabbi's (``<file stem>_<name, lowercased, spaces as _>``,
``@2`` after a second test of the same name...) and
``status`` one of ``pass``, ``fail`` or ``skip``.

``--serve`` runs one file after another in the same process (what the
harness does: a python started and gabbi imported once per worker, not
once per file): it reads ``URL FILE.yaml`` lines on stdin and answers each
with that JSON object on a line of its own (``{"error": traceback}`` when
the run itself broke). Each file starts from the environment the process
started with: what a file's fixtures put in ``os.environ`` goes with it.
"""

import json
import os
import re
import sys
import traceback
import unittest

from gabbi import handlers
from gabbi import suitemaker
from gabbi import utils

from tools.placement_gabbi import fixtures


# Tests that cannot be made over a real connection, skipped (and counted
# apart): Placement runs them in-process, through httpx's WSGI transport.
NOT_OVER_HTTP = {
    # Sent by hand (http.client), both servers' HTTP layer answers 400
    # "Bad Content-Length." before the application sees the request, so
    # the application's message the test looks for cannot come back.
    'basic-http_bad_content_length_not_int':
        "not over HTTP: gabbi's client (httpx, h11) refuses to send a "
        "Content-Length that is not an integer, and an HTTP server refuses "
        "it before placement could",
}

DETAIL = re.compile(r'"detail": "((?:[^"\\]|\\.)*)"')


def _reason(err):
    """The first line that says something of a failure's message, and the
    error's detail when the response (which gabbi's message shows) has
    one: what placement said instead."""
    exc_type, exc, _ = err
    message = str(exc)
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    text = lines[0] if lines else exc_type.__name__
    if exc_type is not AssertionError:
        text = '%s: %s' % (exc_type.__name__, text)
    text = text[:240]
    detail = DETAIL.search(message)
    if detail and detail.group(1) not in text:
        text += ' -- got: %s' % detail.group(1)[:160]
    return text


def unique_ids(names):
    """gabbi's test names, the second of two alike made ``<name>@2`` (and
    so on): the ids of the known-differences list."""
    seen = {}
    ids = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        ids.append(name if seen[name] == 1 else '%s@%d' % (name, seen[name]))
    return ids


class Result(unittest.TestResult):
    """Each test's outcome, by test."""

    def __init__(self, tests):
        super().__init__()
        # The tests themselves are kept: the suite lets go of each once run.
        self.tests = list(tests)
        self.ids = unique_ids([t.__class__.__name__ for t in self.tests])
        self.index = {id(test): i for i, test in enumerate(self.tests)}
        self.outcomes = [None] * len(self.tests)

    def _set(self, test, status, reason=''):
        i = self.index.get(id(test))
        if i is None:
            # A prior test gabbi runs for a later one, in a result of its
            # own: never here.
            return
        # A fixture failure adds an error on the first test and then skips
        # every test ('fixture failure'): the error stands.
        previous = self.outcomes[i]
        if previous and previous['status'] == 'fail':
            return
        self.outcomes[i] = {'id': self.ids[i], 'status': status,
                            'reason': reason}

    def addSuccess(self, test):
        self._set(test, 'pass')

    def addExpectedFailure(self, test, err):
        self._set(test, 'pass')

    def addFailure(self, test, err):
        self._set(test, 'fail', _reason(err))

    def addError(self, test, err):
        self._set(test, 'fail', _reason(err))

    def addUnexpectedSuccess(self, test):
        self._set(test, 'fail', 'passed, but the file says xfail')

    def addSkip(self, test, reason):
        if reason == 'fixture failure':
            self._set(test, 'fail', 'fixture failed (see the first test)')
        else:
            self._set(test, 'skip', reason)


def share_ssl_contexts():
    """One SSL context for all of gabbi's HTTP clients instead of a new
    one per test. gabbi makes an ``httpx.Client`` for each test, and
    httpx loads the certificate authorities for it (tens of milliseconds
    each, most of a short test's time), though nothing here speaks TLS
    (the servers' URLs are http). The context is the same as httpx would
    make (same arguments, same environment), made once."""
    from httpx._transports import default

    make = default.create_ssl_context
    made = {}

    def create_ssl_context(verify=True, cert=None, trust_env=True):
        if cert is not None or not isinstance(verify, bool):
            return make(verify=verify, cert=cert, trust_env=trust_env)
        key = (verify, trust_env, os.environ.get('SSL_CERT_FILE'),
               os.environ.get('SSL_CERT_DIR'))
        if key not in made:
            made[key] = make(verify=verify, cert=cert, trust_env=trust_env)
        return made[key]

    default.create_ssl_context = create_ssl_context


def run(url, path):
    os.environ['PLACEMENT_GABBI_URL'] = url
    host, port, prefix, _ = utils.host_info_from_target(url)
    stem = os.path.splitext(os.path.basename(path))[0]
    suite = suitemaker.test_suite_from_dict(
        unittest.TestLoader(), stem, utils.load_yaml(yaml_file=path),
        os.path.dirname(path), host, port, fixtures, None, prefix=prefix,
        test_loader_name='placement_gabbi',
        handlers=[handler() for handler in handlers.RESPONSE_HANDLERS])
    result = Result(suite)
    for test, test_id in zip(result.tests, result.ids):
        if test_id in NOT_OVER_HTTP:
            test.test_data['skip'] = NOT_OVER_HTTP[test_id]
    suite.run(result)
    return {'file': stem, 'tests': [
        outcome or {'id': test_id, 'status': 'fail', 'reason': 'did not run'}
        for test_id, outcome in zip(result.ids, result.outcomes)]}


def serve(requests=sys.stdin, answers=sys.stdout):
    """``URL FILE`` lines in, one JSON result line out for each. Whatever
    else writes to stdout (nothing should) goes to stderr instead."""
    sys.stdout = sys.stderr
    environment = dict(os.environ)
    for line in requests:
        if not line.strip():
            continue
        url, path = line.split(None, 1)
        try:
            result = run(url, path.strip())
        except Exception:
            result = {'error': traceback.format_exc()}
        finally:
            os.environ.clear()
            os.environ.update(environment)
        answers.write(json.dumps(result) + '\n')
        answers.flush()


if __name__ == '__main__':
    share_ssl_contexts()
    if sys.argv[1:] == ['--serve']:
        serve()
    else:
        json.dump(run(sys.argv[1], sys.argv[2]), sys.stdout)
