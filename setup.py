"""Shim for tools that still call setup.py; everything is in setup.cfg."""

import setuptools

setuptools.setup()
