# minrepro's fork server (embedded in the minrepro binary; `python -c BOOTSTRAP` reads it from stdin).
#
# The helper imports the --preload modules once (and, unless turned off, the third-party modules
# the program imports at its top level, when they import cleanly and leave the process safe to
# fork: see _preload_automatically), then serves candidates: for each request it hands the
# request to a child forked in advance (the spare, see _fork_spare) that runs the candidate as
# __main__ with fds 0/1/2 redirected at the descriptor level, reports the child's pid, forks the
# next spare and then reports the child's exit status. The helper itself never runs candidate
# code, so nothing leaks from one candidate to the next.
#
# Protocol on the helper's original stdin/stdout: 4-byte big-endian length + UTF-8 JSON.
#   request:  {"script", "argv", "cwd", "stdout", "stderr", "env"}
#   replies:  {"pid": N}, then {"status": CODE}   (CODE like subprocess: -SIG for signals)
#
# If minrepro dies without cleaning up (SIGKILL), its end of the protocol pipe closes: the helper
# sees end-of-file (also while a candidate runs), kills the candidate's process group and every
# process tagged with minrepro's run tag, and exits. A forked candidate also dies with the helper
# itself (PR_SET_PDEATHSIG), should the helper be killed outright.
import json
import os
import select
import struct
import sys

RUN_TAG_VAR = "MINREPRO_RUN_TAG"
PR_SET_PDEATHSIG = 1
SIGKILL = 9


def _read_exact(fd, n):
    data = b""
    while len(data) < n:
        chunk = os.read(fd, n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def _send(fd, obj):
    data = json.dumps(obj).encode()
    os.write(fd, struct.pack(">I", len(data)) + data)


def _print_exception(exc, script):
    tb = exc.__traceback__
    # Drop the helper's frames, as `python script.py` shows only the script's; then print it the
    # way the interpreter does (the current sys.excepthook, normally the C implementation).
    while tb is not None and tb.tb_frame.f_code.co_filename != script:
        tb = tb.tb_next
    exc.__traceback__ = tb
    sys.excepthook(type(exc), exc, tb)


def _run_as_main(script):
    """Runs `script` as `python script` would: a fresh __main__ module, real file name."""
    import builtins
    import importlib.machinery
    import types

    with open(script, "rb") as source_file:
        source = source_file.read()
    code = compile(source, script, "exec")
    module = types.ModuleType("__main__")
    module.__file__ = script
    module.__builtins__ = builtins
    module.__cached__ = None
    module.__loader__ = importlib.machinery.SourceFileLoader("__main__", script)
    sys.modules["__main__"] = module
    exec(code, module.__dict__)


def _exit_code(exc):
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(str(code) + "\n")
    except Exception:
        pass
    return 1


def _prctl():
    """libc's prctl on Linux (through ctypes), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None


def _die_with(parent, prctl):
    """Makes this forked child die with `parent` (the helper)."""
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)
    # The helper may have died before the prctl took effect: then we were re-parented already.
    if os.getppid() != parent:
        os._exit(1)


def _forget_helper_finalizers():
    """Keeps the weakref finalizers of the helper's own objects (those of its imports) from
    running when the candidate exits: they release the helper's resources, not the candidate's.
    The candidate's copies of those objects vanish with its process anyway, and what lies outside
    it (a temporary directory a module made at import) belongs to the helper and the candidates
    after this one. The candidate's own finalizers still run, as in a fresh interpreter."""
    import weakref

    for info in list(weakref.finalize._registry.values()):
        info.atexit = False


def _child(request, out_fd, err_fd):
    code = 1
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        for fd in (null, out_fd, err_fd):
            if fd > 2:
                os.close(fd)
        import signal

        for name in ("SIGPIPE", "SIGXFSZ"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.chdir(request["cwd"])
        for key, value in request["env"].items():
            os.environ[key] = value
        # The run's private TMPDIR: tempfile remembers the directory it chose before the fork.
        if "tempfile" in sys.modules:
            sys.modules["tempfile"].tempdir = None
        _forget_helper_finalizers()
        script = request["script"]
        sys.argv = list(request["argv"])
        sys.path[0] = os.path.dirname(script)
        try:
            _run_as_main(script)
            code = 0
        except SystemExit as exc:
            code = _exit_code(exc)
        except KeyboardInterrupt as exc:
            _print_exception(exc, script)
            code = -signal.SIGINT
        except BaseException as exc:
            _print_exception(exc, script)
            code = 1
        try:
            import atexit

            atexit._run_exitfuncs()
        except BaseException:
            pass
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        if code < 0:
            signal.signal(-code, signal.SIG_DFL)
            os.kill(os.getpid(), -code)
    finally:
        os._exit(code if code >= 0 else 1)


def _fork_spare(protocol_fds, parent, prctl):
    """Forks the child that runs the next candidate before that candidate is asked for, so that
    forking (copying the page tables of a helper that may hold large libraries) happens while the
    previous candidate runs, not between two candidates. The spare stays in the helper's process
    group (killed with it) and waits on a socket for its request and output descriptors. Returns
    (its pid, the helper's end of the socket)."""
    import socket

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = os.fork()
    if pid == 0:
        ours.close()
        _spare(theirs, protocol_fds, parent, prctl)
    theirs.close()
    return pid, ours


def _spare(channel, protocol_fds, parent, prctl):
    """The spare child: the same helper state as a child forked on request, then the request."""
    try:
        _die_with(parent, prctl)
        for fd in protocol_fds:
            os.close(fd)
        request, out_fd, err_fd = _receive_request(channel)
        channel.close()
    except BaseException:
        os._exit(1)
    if request is None:  # the helper is gone
        os._exit(0)
    os.setpgid(0, 0)
    _child(request, out_fd, err_fd)


def _hand_over(channel, body, out_fd, err_fd):
    """Sends the spare its request `body` with its stdout and stderr descriptors; False if the
    spare is gone."""
    import array
    import socket

    fds = array.array("i", [out_fd, err_fd]).tobytes()
    try:
        channel.sendmsg([struct.pack(">I", len(body)) + body], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
    except OSError:
        return False
    return True


def _receive_request(channel):
    """(request, stdout fd, stderr fd) as sent by _hand_over, or (None, None, None) at end of file."""
    import array
    import socket

    data, ancillary, _, _ = channel.recvmsg(4096, socket.CMSG_LEN(2 * array.array("i").itemsize))
    if not data:
        return None, None, None
    fds = array.array("i")
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    length = struct.unpack(">I", data[:4])[0]
    body = data[4:]
    while len(body) < length:
        chunk = channel.recv(length - len(body))
        if not chunk:
            return None, None, None
        body += chunk
    return json.loads(body), fds[0], fds[1]


def _start_candidate(spare, body, request, protocol_fds, parent, prctl):
    """Hands the candidate `request` (`body` as received) to the spare child (a fresh one if the
    spare died meanwhile); returns the candidate's pid."""
    out_fd = os.open(request["stdout"], os.O_WRONLY)
    err_fd = os.open(request["stderr"], os.O_WRONLY)
    pid, channel = spare
    while not _hand_over(channel, body, out_fd, err_fd):
        channel.close()
        os.waitpid(pid, 0)
        pid, channel = _fork_spare(protocol_fds, parent, prctl)
    channel.close()
    os.close(out_fd)
    os.close(err_fd)
    try:  # also from this side, so minrepro can kill the candidate's group from the first moment
        os.setpgid(pid, pid)
    except OSError:
        pass
    return pid


def _kill_tagged():
    """SIGKILLs every process carrying minrepro's run tag (its candidates' descendants, daemons
    included; other helpers): minrepro is gone and cannot do it any more."""
    own = os.environ.get(RUN_TAG_VAR, "")
    if "-" not in own:
        return
    prefix = ("%s=%s-" % (RUN_TAG_VAR, own.split("-", 1)[0])).encode()
    me = os.getpid()
    # Killing may let a process fork once more before it dies: scan until nothing is found.
    for _ in range(16):
        found = False
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == me:
                continue
            try:
                with open("/proc/%s/environ" % name, "rb") as environ:
                    entries = environ.read().split(b"\0")
            except OSError:
                continue
            if any(entry.startswith(prefix) for entry in entries):
                try:
                    os.kill(int(name), SIGKILL)
                    found = True
                except OSError:
                    pass
        if not found:
            return


def _parent_gone(child=None):
    """minrepro closed the protocol pipe without killing us first: kill the running `child` (if
    any) with its process group and everything tagged as ours, and exit."""
    if child is not None:
        for target in (-child, child):  # the group, or the child before its setpgid
            try:
                os.kill(target, SIGKILL)
            except OSError:
                pass
    if os.path.isdir("/proc"):
        _kill_tagged()
    os._exit(0)


def _wait(pid, proto_in):
    """Waits for the forked child `pid`, watching the protocol pipe meanwhile: minrepro sends
    nothing while a candidate runs, so any event on it means minrepro is gone."""
    pidfd = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            pidfd = None
    poller = select.poll()
    poller.register(proto_in, select.POLLIN)
    if pidfd is not None:
        poller.register(pidfd, select.POLLIN)
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            # Without a pidfd the child's exit cannot be polled for: check it every 20 ms.
            for fd, _ in poller.poll(None if pidfd is not None else 20):
                if fd == proto_in:
                    _parent_gone(pid)
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _reply(proto_out, message, child=None):
    """Sends `message`; a broken pipe means minrepro is gone."""
    try:
        _send(proto_out, message)
    except OSError:
        _parent_gone(child)


def _own_or_stdlib(name, program_dir):
    """Whether the module `name` is the standard library's or the program's own (found in its
    directory): those are not preloaded automatically."""
    top = name.partition(".")[0]
    if top in sys.builtin_module_names or top in getattr(sys, "stdlib_module_names", ()):
        return True
    import importlib.util

    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    if spec.origin in ("built-in", "frozen"):
        return True
    where = spec.origin
    if where is None:  # a namespace package
        locations = list(spec.submodule_search_locations or [])
        if not locations:
            return False
        where = locations[0]
    where = os.path.realpath(where)
    if program_dir and where.startswith(os.path.realpath(program_dir) + os.sep):
        return True
    if not hasattr(sys, "stdlib_module_names"):  # before 3.10
        import sysconfig

        stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"]) + os.sep
        return where.startswith(stdlib) and "site-packages" not in where
    return False


def _import_quietly(name):
    """Imports `name` with fds 1/2 sent to a scratch file; returns what the import printed
    (a candidate that imports it itself would print that, a forked one would not)."""
    import tempfile

    with tempfile.TemporaryFile() as scratch:
        saved = [os.dup(1), os.dup(2)]
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        os.dup2(scratch.fileno(), 1)
        os.dup2(scratch.fileno(), 2)
        try:
            __import__(name)
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:
                    pass
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
        scratch.seek(0)
        return scratch.read(200)


def _fork_unsafe(threads_before):
    """Why forking now would give candidates another process than a fresh interpreter has, if
    it would: Python threads started by an import (a fork copies only the forking thread) or an
    initialised CUDA context (it does not survive a fork)."""
    import threading

    started = threading.active_count() - threads_before
    if started > 0:
        return "its import started %d thread%s" % (started, "" if started == 1 else "s")
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None)
    try:
        if cuda is not None and cuda.is_initialized():
            return "its import initialised CUDA"
    except Exception:
        pass
    return None


def _preload_automatically(names, program_dir):
    """Imports the third-party modules of `names` that import cleanly; returns the ready
    message's report: what was preloaded, what was left out and why, and whether the last one
    left out was imported already (the helper is then unfit and must be replaced)."""
    import threading

    preloaded, skipped = [], []
    for name in names:
        if _own_or_stdlib(name, program_dir):
            continue
        before = threading.active_count()
        try:
            printed = _import_quietly(name)
        except BaseException as exc:  # SystemExit and KeyboardInterrupt of an import too
            text = str(exc).splitlines()[0] if str(exc) else ""
            skipped.append([name, "its import failed (%s%s)" % (type(exc).__name__, ": " + text if text else "")])
            continue
        why = _fork_unsafe(before)
        if why is None and printed:
            why = "its import prints (candidates must print that themselves)"
        if why is not None:
            skipped.append([name, why])
            return {"preloaded": preloaded, "skipped": skipped, "unfit": True}
        preloaded.append(name)
    return {"preloaded": preloaded, "skipped": skipped, "unfit": False}


def main():
    # What every child needs anyway: imported once here instead of once per candidate.
    import atexit, builtins, importlib.machinery, signal, types  # noqa: F401,E401

    prctl = _prctl()
    me = os.getpid()

    # Keep the protocol away from fds 0/1 so nothing else (a preloaded module) can write to it.
    proto_in = os.dup(0)
    proto_out = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    preload = json.loads(sys.argv[1])
    for module in preload["required"]:
        __import__(module)
    report = _preload_automatically(preload["automatic"], preload["program_dir"])
    report["ready"] = os.getpid()
    protocol_fds = (proto_in, proto_out)
    spare = _fork_spare(protocol_fds, me, prctl)
    _send(proto_out, report)
    while True:
        header = _read_exact(proto_in, 4)
        if header is None:
            _parent_gone()
        body = _read_exact(proto_in, struct.unpack(">I", header)[0])
        if body is None:
            _parent_gone()
        pid = _start_candidate(spare, body, json.loads(body), protocol_fds, me, prctl)
        _reply(proto_out, {"pid": pid}, pid)
        spare = _fork_spare(protocol_fds, me, prctl)
        status = _wait(pid, proto_in)
        _reply(proto_out, {"status": os.waitstatus_to_exitcode(status)})


main()
