"""Handlers of the port API, one module per resource."""
