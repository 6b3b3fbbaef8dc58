"""The dashboard: a local web page over the bridge's operations (runs, handover, the three memories).

``api.py`` is the one backend API (plain functions returning the CLI's JSON), ``app.py`` the
ASGI routes that run it in worker threads, ``security.py`` the token, Host and Origin checks,
``server.py`` the socket on 127.0.0.1 and uvicorn; ``static/`` is the page (no build step) and
``schemas/`` the JSON Schemas of every answer. Nothing on a hook's path imports this package.
"""
