"""The systemd units in etc/systemd: valid for systemd, reloadable, and
hardened."""

import configparser
import glob
import os
import shutil
import subprocess
import tempfile

import testtools

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
UNITS = sorted(glob.glob(os.path.join(ROOT, 'etc', 'systemd', '*.service')))
HARDENING = {
    'NoNewPrivileges': 'yes', 'PrivateTmp': 'yes', 'ProtectSystem': 'strict',
    'ProtectHome': 'yes', 'PrivateDevices': 'yes',
    'CapabilityBoundingSet': '', 'UMask': '0027',
    'RestrictAddressFamilies': 'AF_UNIX AF_INET AF_INET6',
    'StateDirectory': 'nova-lite', 'LogsDirectory': 'nova-lite',
}


def _service_section(path):
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str
    parser.read(path)
    return parser['Service']


class TestUnits(testtools.TestCase):

    def test_there_is_one_per_daemon(self):
        self.assertEqual(
            ['nova-lite-api', 'nova-lite-compute@', 'nova-lite-conductor',
             'nova-lite-network', 'nova-lite-placement',
             'nova-lite-scheduler'],
            [os.path.basename(u)[:-len('.service')] for u in UNITS])

    def test_each_reloads_on_sighup(self):
        for unit in UNITS:
            self.assertEqual('/bin/kill -HUP $MAINPID',
                             _service_section(unit).get('ExecReload'), unit)

    def test_each_is_hardened(self):
        for unit in UNITS:
            service = _service_section(unit)
            self.assertEqual(HARDENING, {k: service.get(k)
                                         for k in HARDENING}, unit)

    def test_each_comes_back_unless_its_config_is_wrong(self):
        for unit in UNITS:
            service = _service_section(unit)
            self.assertEqual(('always', '2'),
                             (service.get('Restart'),
                              service.get('RestartPreventExitStatus')), unit)

    def test_systemd_accepts_them(self):
        analyze = shutil.which('systemd-analyze')
        if analyze is None:
            self.skipTest('systemd-analyze is not installed')
        workdir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, workdir)
        for unit in glob.glob(os.path.join(ROOT, 'etc', 'systemd', '*')):
            with open(unit) as f:
                text = f.read()
            # The console scripts need not be installed for the check.
            text = text.replace('/usr/local/bin/', '/bin/true # ')
            with open(os.path.join(workdir, os.path.basename(unit)),
                      'w') as f:
                f.write(text)
        result = subprocess.run(
            [analyze, 'verify'] + sorted(
                os.path.basename(u) for u in UNITS),
            cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True)
        self.assertEqual((0, ''), (result.returncode, result.stdout))
