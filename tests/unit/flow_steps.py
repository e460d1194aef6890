"""Tests made from a flow's table of steps (``nova_lite.flow``): make a
chosen step fail (or crash) once, and add one test per step to a case."""

import fixtures

from nova_lite import flow as flows


def fail_once_at(test, flow_name, steps, error=flows.FlowFailed):
    """Make each of ``steps`` of the flow ``flow_name`` raise ``error``
    the first time it begins; the list of the steps that did fail."""
    pending = set(steps)
    failed = []

    def before_step(flow, name):
        if flow.name == flow_name and name in pending:
            pending.discard(name)
            failed.append(name)
            raise error('injected at %s' % name)
    test.useFixture(fixtures.MonkeyPatch(
        'nova_lite.flow.Flow.before_step', staticmethod(before_step)))
    return failed


def add_step_tests(case, steps, check, name):
    """Give ``case`` one test per step: ``name % step`` calls
    ``case.<check>(step)``."""
    for step in steps:
        def test(self, step=step):
            getattr(self, check)(step)
        test.__name__ = name % step
        setattr(case, test.__name__, test)


def assert_audit_clean(test, reportclient, ports):
    """The control plane's invariant (``nova_lite.audit``) holds: no
    allocation, binding or record left where it should not be."""
    from nova_lite import audit
    from nova_lite import context as nova_context
    checker = audit.Audit(nova_context.get_admin_context(), reportclient,
                          ports)
    checker.run()
    test.assertEqual([], checker.violations)
