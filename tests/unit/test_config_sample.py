"""The committed sample config is what oslo-config-generator makes today.

The sample is generated from the options' help text and defaults and is
never edited by hand, so any option change must come with a regenerated
sample; this test is what notices when it does not.
"""

import difflib
import importlib.metadata
import os
import subprocess
import sys
import tempfile

import testtools

REPO_ROOT = os.path.abspath(
    os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
GENERATOR_CONF = os.path.join('etc', 'nova-lite',
                              'nova-lite-config-generator.conf')
SAMPLE = os.path.join('etc', 'nova-lite', 'nova-lite.conf.sample')
HOW_TO_FIX = ('run `tox -e genconfig` (or `oslo-config-generator '
              '--config-file %s` from the repository root) and commit the '
              'result' % GENERATOR_CONF)


class TestConfigSample(testtools.TestCase):

    def _generate(self):
        with tempfile.TemporaryDirectory() as tmp:
            output = os.path.join(tmp, 'nova-lite.conf.sample')
            result = subprocess.run(
                [sys.executable, '-m', 'oslo_config.generator',
                 '--config-file', GENERATOR_CONF, '--output-file', output],
                cwd=REPO_ROOT, stdin=subprocess.DEVNULL,
                capture_output=True, text=True, timeout=120)
            if result.returncode != 0:
                self.fail('oslo-config-generator failed (exit %d):\n%s'
                          % (result.returncode, result.stderr[-4000:]))
            with open(output, encoding='utf-8') as f:
                return f.read()

    def test_nova_lite_options_are_registered_for_the_generator(self):
        names = {ep.name for ep in importlib.metadata.entry_points(
            group='oslo.config.opts')}
        self.assertIn(
            'nova_lite', names,
            'the oslo.config.opts entry point of nova_lite is missing: '
            'install the package with `pip install -e .` so the generator '
            'can find its options')

    def test_committed_sample_matches_generated_sample(self):
        generated = self._generate()
        with open(os.path.join(REPO_ROOT, SAMPLE), encoding='utf-8') as f:
            committed = f.read()
        if generated == committed:
            return
        diff = ''.join(difflib.unified_diff(
            committed.splitlines(keepends=True),
            generated.splitlines(keepends=True),
            fromfile=SAMPLE + ' (committed)',
            tofile=SAMPLE + ' (generated now)', n=2))
        if len(diff) > 6000:
            diff = diff[:6000] + '\n[... diff cut ...]\n'
        self.fail('%s is stale: the options changed but the sample did not. '
                  'To fix it, %s.\n%s' % (SAMPLE, HOW_TO_FIX, diff))
