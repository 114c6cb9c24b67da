"""``python -m minrepro ARGS`` runs the ``minrepro`` executable installed with this package.

On POSIX the executable replaces this interpreter (same process: signals reach it directly and
its exit status is the command's). Unless ``MINREPRO_PYTHON`` is set already, it is set to this
interpreter, which ``minrepro python`` then uses to run candidates (instead of ``python3`` from
PATH), so they can import what this environment has, ``minrepro.__freeze__`` included.
"""

import os
import sys
import sysconfig


def _user_scheme():
    if sys.version_info >= (3, 10):
        return sysconfig.get_preferred_scheme("user")
    if os.name == "nt":
        return "nt_user"
    if sys.platform == "darwin" and getattr(sys, "_framework", None):
        return "osx_framework_user"
    return "posix_user"


def find_minrepro_bin():
    """Path of the ``minrepro`` executable: in this environment's scripts directory (where
    ``pip install`` puts it), else in the user scheme's (``pip install --user``)."""
    name = "minrepro" + (sysconfig.get_config_var("EXE") or "")
    tried = []
    for scripts in (sysconfig.get_path("scripts"), sysconfig.get_path("scripts", _user_scheme())):
        path = os.path.join(scripts, name)
        if os.path.isfile(path):
            return path
        tried.append(path)
    raise FileNotFoundError(
        "the minrepro executable is not installed next to this interpreter (looked at "
        + " and ".join(tried)
        + "); reinstall the minrepro wheel"
    )


def main():
    try:
        executable = os.fsdecode(find_minrepro_bin())
    except FileNotFoundError as error:
        print(f"python -m minrepro: error: {error}", file=sys.stderr)
        return 1
    if sys.executable:
        os.environ.setdefault("MINREPRO_PYTHON", sys.executable)
    argv = [executable, *sys.argv[1:]]
    if sys.platform == "win32":
        import subprocess

        return subprocess.run(argv).returncode
    os.execv(executable, argv)


if __name__ == "__main__":
    sys.exit(main())
