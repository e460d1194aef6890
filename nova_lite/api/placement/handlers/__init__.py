"""Placement request handlers, one module per resource."""
