"""The release of nova_lite, reported by every daemon and the version
documents."""

VERSION = '0.1.0'
