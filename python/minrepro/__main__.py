"""``python -m minrepro ARGS`` runs the ``minrepro`` executable installed with this package.

On POSIX the executable replaces this interpreter (same process: signals reach it directly and
its exit status is the command's). Unless ``MINREPRO_PYTHON`` is set already, it is set to this
interpreter, which ``minrepro python`` then uses to run candidates (instead of ``python3`` from
PATH), so they can import what this environment has, ``minrepro.__freeze__`` included.
"""

import os
import sys
import sysconfig


def _script_dirs():
    """Where pip puts this interpreter's console scripts: the environment's own directory, then
    the per-user one (``pip install --user``)."""
    yield sysconfig.get_path("scripts")
    preferred = getattr(sysconfig, "get_preferred_scheme", None)  # Python 3.10 and newer
    user_scheme = preferred("user") if preferred else os.name + "_user"
    yield sysconfig.get_path("scripts", user_scheme)


def find_minrepro_bin():
    """Path of the installed ``minrepro`` executable (see ``_script_dirs``)."""
    name = "minrepro" + (sysconfig.get_config_var("EXE") or "")
    candidates = [os.path.join(directory, name) for directory in _script_dirs()]
    for path in candidates:
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(
        "the minrepro executable is not installed next to this interpreter (looked at "
        + " and ".join(candidates)
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
