"""JSON schemas of Compute API request bodies, one module per resource."""
