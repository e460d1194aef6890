"""nova_lite: a compute control plane in the shape of OpenStack Nova."""
