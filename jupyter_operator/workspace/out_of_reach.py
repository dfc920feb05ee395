"""Host folders and files no workspace may reach, whatever the workspace root is.

``jupyter lab`` is most often started in the home folder, which makes the home folder the
workspace. Reads need no approval, so anything readable there is one reply away from the model:
Jupyter's runtime folder holds the server's token (``jpserver-<pid>.json``) and the cookie
secret, and a model holding the token can drive the whole server, kernels included. The same goes
for the usual credential stores. These locations are put out of reach by their real location
(device and inode, like the undo journal), so no name, depth or symbolic link in front of them
matters. The component names in :data:`CREDENTIAL_NAMES` are also protected at any depth, so a
copy of ``.ssh`` inside a project is refused too.

The list is computed once per process (it only reads the environment and the home folder's
path); a host adds to it with ``Workspace(reserved=...)`` or the ``protected`` settings, and
nothing a reply says can take anything off it.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

#: Credential stores protected by name at any depth (in every workspace, not only the home).
CREDENTIAL_NAMES: tuple[str, ...] = (
    ".ssh",
    ".aws",
    ".gnupg",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".kube",
    ".azure",
)

#: Further credential stores below the home folder, refused by real location.
_HOME_ITEMS: tuple[str, ...] = (
    *CREDENTIAL_NAMES,
    ".docker/config.json",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".local/share/keyrings",
    ".password-store",
    ".vault-token",
)


def _jupyter_folders() -> list[Path]:
    """Jupyter's config, data and runtime folders (the default and any configured ones)."""
    from jupyter_core import paths

    found = [Path(paths.jupyter_config_dir()), Path(paths.jupyter_data_dir()),
             Path(paths.jupyter_runtime_dir())]  # fmt: skip
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR"):
        if os.environ.get(name):
            found.append(Path(os.environ[name]))
    ipython = os.environ.get("IPYTHONDIR")
    found.append(Path(ipython) if ipython else Path.home() / ".ipython")
    return found


@functools.lru_cache(maxsize=8)
def _cached(home: str, env_key: tuple[str | None, ...]) -> tuple[Path, ...]:
    del env_key  # part of the cache key only: a test or host that changes these gets a new list
    items = [Path(home, item) for item in _HOME_ITEMS]
    items += _jupyter_folders()
    return tuple(dict.fromkeys(items))


def host_secret_locations() -> tuple[Path, ...]:
    """Every host location kept out of every workspace (existing or not; callers stat them)."""
    keys = ("HOME", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR",
            "IPYTHONDIR", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "JUPYTER_PLATFORM_DIRS")  # fmt: skip
    return _cached(str(Path.home()), tuple(os.environ.get(k) for k in keys))


def describe() -> list[str]:
    """The out-of-reach list as a person reads it (home-relative where it can be)."""
    home = Path.home()
    out = []
    for item in host_secret_locations():
        try:
            out.append("~/" + item.relative_to(home).as_posix())
        except ValueError:
            out.append(str(item))
    return out
