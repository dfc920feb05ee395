"""Root pytest configuration: the jupyter-server fixtures (jp_fetch, jp_ws_fetch, ...)."""

pytest_plugins = ("pytest_jupyter.jupyter_server",)
