"""A small REST framework shared by the compute, placement and network APIs.

Each service declares its whole surface in one route table (path -> {method
-> handler}); ``wsgi.Application`` dispatches it, answers 404/405 (with
``Allow``), negotiates the microversion and turns exceptions into error
bodies. ``auth`` authenticates, ``validation`` checks JSON bodies against
schemas, ``wsgi_server`` serves an application over HTTP.
"""
