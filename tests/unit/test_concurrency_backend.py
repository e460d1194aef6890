"""Choosing the concurrency backend before oslo.config is loaded.

``nova_lite.concurrency.backend(argv)`` reads the environment, then
``[DEFAULT] concurrency_backend`` from the config files and directories
named on the command line (later ones win), and defaults to threading. A
file it cannot read is skipped: oslo.config reports it properly later.
"""

import os

import fixtures
import testtools

from nova_lite import concurrency


class TestConcurrencyBackend(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.useFixture(fixtures.EnvironmentVariable(concurrency.BACKEND_ENV))
        self.directory = self.useFixture(fixtures.TempDir()).path

    def write(self, name, text, directory=None):
        path = os.path.join(directory or self.directory, name)
        with open(path, 'wb') as f:
            f.write(text if isinstance(text, bytes) else text.encode())
        return path

    def conf(self, name, backend):
        return self.write(name, '[DEFAULT]\nconcurrency_backend = %s\n'
                          % backend)

    def backend(self, *args):
        return concurrency.backend(['nova-lite-compute'] + list(args))

    def test_config_file_as_two_arguments(self):
        path = self.conf('a.conf', 'eventlet')
        self.assertEqual('eventlet', self.backend('--config-file', path))

    def test_config_file_with_equals(self):
        path = self.conf('a.conf', 'eventlet')
        self.assertEqual('eventlet', self.backend('--config-file=' + path))

    def test_later_config_file_wins(self):
        first = self.conf('a.conf', 'eventlet')
        second = self.conf('b.conf', 'threading')
        self.assertEqual('threading', self.backend(
            '--config-file', first, '--config-file=' + second))

    def test_config_file_without_the_option_keeps_the_earlier_value(self):
        first = self.conf('a.conf', 'eventlet')
        second = self.write('b.conf', '[DEFAULT]\ndebug = true\n')
        self.assertEqual('eventlet', self.backend(
            '--config-file', first, '--config-file', second))

    def test_config_dir_reads_its_conf_files_in_name_order(self):
        conf_d = self.useFixture(fixtures.TempDir()).path
        self.write('10-base.conf', '[DEFAULT]\nconcurrency_backend = '
                   'threading\n', directory=conf_d)
        self.write('20-site.conf', '[DEFAULT]\nconcurrency_backend = '
                   'eventlet\n', directory=conf_d)
        self.write('30-ignored.conf.orig', '[DEFAULT]\nconcurrency_backend '
                   '= threading\n', directory=conf_d)
        self.assertEqual('eventlet', self.backend('--config-dir', conf_d))

    def test_config_dir_with_equals(self):
        conf_d = self.useFixture(fixtures.TempDir()).path
        self.write('site.conf', '[DEFAULT]\nconcurrency_backend = eventlet\n',
                   directory=conf_d)
        self.assertEqual('eventlet', self.backend('--config-dir=' + conf_d))

    def test_config_dir_after_a_config_file_wins(self):
        path = self.conf('a.conf', 'threading')
        conf_d = self.useFixture(fixtures.TempDir()).path
        self.write('site.conf', '[DEFAULT]\nconcurrency_backend = eventlet\n',
                   directory=conf_d)
        self.assertEqual('eventlet', self.backend(
            '--config-file', path, '--config-dir', conf_d))

    def test_environment_wins_over_the_config_files(self):
        path = self.conf('a.conf', 'threading')
        self.useFixture(fixtures.EnvironmentVariable(concurrency.BACKEND_ENV,
                                                     'eventlet'))
        self.assertEqual('eventlet', self.backend('--config-file', path))

    def test_defaults_to_threading(self):
        path = self.write('a.conf', '[DEFAULT]\ndebug = true\n')
        self.assertEqual('threading', self.backend('--config-file', path))

    def test_only_the_default_section_counts(self):
        path = self.write('a.conf', '[oslo_messaging_rabbit]\n'
                          'concurrency_backend = eventlet\n')
        self.assertEqual('threading', self.backend('--config-file', path))

    def test_value_is_stripped(self):
        path = self.write('a.conf', '[DEFAULT]\nconcurrency_backend = '
                          'eventlet   \n')
        self.assertEqual('eventlet', self.backend('--config-file', path))

    def test_missing_file_is_skipped(self):
        path = self.conf('a.conf', 'eventlet')
        missing = os.path.join(self.directory, 'missing.conf')
        self.assertEqual('eventlet', self.backend(
            '--config-file', path, '--config-file', missing))

    def test_directory_given_as_a_file_is_skipped(self):
        path = self.conf('a.conf', 'eventlet')
        self.assertEqual('eventlet', self.backend(
            '--config-file', path, '--config-file', self.directory))

    def test_missing_config_dir_is_skipped(self):
        path = self.conf('a.conf', 'eventlet')
        missing = os.path.join(self.directory, 'conf.d')
        self.assertEqual('eventlet', self.backend(
            '--config-file', path, '--config-dir', missing))

    def test_file_that_does_not_parse_is_skipped(self):
        path = self.conf('a.conf', 'eventlet')
        broken = self.write('broken.conf', 'concurrency_backend = '
                            'threading\nno section header above\n')
        self.assertEqual('eventlet', self.backend(
            '--config-file', path, '--config-file', broken))

    def test_file_that_is_not_text_is_skipped(self):
        path = self.conf('a.conf', 'eventlet')
        binary = self.write('binary.conf', b'\xff\xfe\x00[DEFAULT]\n'
                            b'concurrency_backend = threading\n')
        self.assertEqual('eventlet', self.backend(
            '--config-file', path, '--config-file', binary))

    def test_trailing_config_file_without_a_value_is_ignored(self):
        path = self.conf('a.conf', 'eventlet')
        self.assertEqual('eventlet', self.backend('--config-file', path,
                                                  '--config-file'))
