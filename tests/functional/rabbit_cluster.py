"""A RabbitMQ cluster of three nodes on this machine, for fault tests that
stop one broker node while the control plane goes on through the others.

``RabbitCluster`` starts the nodes (each with its own node name, ports and
directories, see ``faults.RabbitNode``), joins the second and third to the
first and can stop, start and restart any one of them. It is what
``fixtures.ControlPlane(services=...)`` takes:

- ``rabbit``: a transport URL naming every node, which oslo.messaging
  reads as one broker with several addresses and fails over between;
- ``rabbitmqctl_args()``: a running node to run ``rabbitmqctl`` on (a
  vhost and its permissions, once made on any node, are the cluster's);
- ``mysql_port_or_none``: None -- the cluster brings no database, the
  plane uses the machine's MariaDB.

A quorum queue declared on the cluster gets a replica on every node (with
no initial group size set, RabbitMQ places one on each cluster member), so
it keeps its messages while one node is down.
"""

import concurrent.futures
import json
import os
import shutil
import tempfile

from tests.functional import faults
from tests.functional import fixtures


def _each(action, nodes):
    """``action(node)`` for every node at once; raises the first error
    after every action has ended."""
    with concurrent.futures.ThreadPoolExecutor(len(nodes)) as pool:
        futures = [pool.submit(action, node) for node in nodes]
    for future in futures:
        future.result()


class RabbitCluster(faults.NodeCluster):
    """``size`` (three) RabbitMQ nodes clustered together; nodes are
    numbered from 1 (node 1 is the one the others joined)."""

    def __init__(self, size=3):
        self.workdir = tempfile.mkdtemp(prefix='nova-lite-rc-')
        # The nodes run as the rabbitmq user and must reach their dirs.
        os.chmod(self.workdir, 0o755)
        self.nodes = [
            faults.RabbitNode(os.path.join(self.workdir, 'node%d' % number),
                              prefix='nlrc')
            for number in range(1, size + 1)]
        # Numbers of the nodes stopped on purpose (stop_node).
        self.stopped = set()

    # -- the control plane's view ------------------------------------------

    @property
    def rabbit(self):
        hosts = ','.join('guest:guest@127.0.0.1:%d' % node.port
                         for node in self.nodes)
        return 'rabbit://%s/' % hosts

    @property
    def mysql_port_or_none(self):
        return None

    def rabbitmqctl_args(self):
        return ['-n', self.running_node().name]

    # -- nodes -------------------------------------------------------------

    def url(self, number):
        """The transport URL of node ``number`` alone."""
        return self.node(number).url

    def running_node(self):
        """A node not stopped on purpose (the lowest numbered)."""
        for number, node in enumerate(self.nodes, 1):
            if number not in self.stopped:
                return node
        raise RuntimeError('every node of the cluster is stopped')

    def running_nodes(self):
        """Names of the nodes the cluster says are running."""
        status = json.loads(self.running_node().ctl(
            'cluster_status', '--formatter', 'json'))
        return sorted(status['running_nodes'])

    def wait_for_running(self, timeout=60):
        """Until every node not stopped on purpose runs in the cluster."""
        expected = sorted(node.name for number, node in
                          enumerate(self.nodes, 1)
                          if number not in self.stopped)
        fixtures.wait_for(lambda: self.running_nodes() == expected, timeout,
                          interval=0.5, what='cluster running %s' % expected)

    # -- lifecycle ---------------------------------------------------------

    def start(self):
        """Start every node, join them into one cluster, and return once
        the cluster has them all running. Stops whatever started if it
        fails."""
        first = self.nodes[0]
        try:
            # Booting is most of the time; the nodes boot side by side.
            _each(lambda node: node.start(), self.nodes)
            for node in self.nodes[1:]:
                # A node joins a cluster with its application stopped;
                # it takes the cluster's metadata, dropping its own.
                node.ctl('stop_app')
                node.ctl('join_cluster', first.name)
                node.ctl('start_app')
            self.wait_for_running()
        except BaseException:
            self.stop()
            raise

    def stop(self):
        """Stop every node and remove their files."""
        try:
            _each(lambda node: node.stop(), self.nodes)
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def start_node(self, number):
        """Start a stopped node again: it remembers its cluster and comes
        back into it. Returns once the cluster has it running.

        At least one other node must be running: a node that was not the
        last of the cluster to stop waits for the others before it boots.
        """
        self.node(number).start()
        self.stopped.discard(number)
        self.wait_for_running()
