"""Parent-death watchdog: the runner ends when the app that started it is gone.

Without it a runner whose app was SIGKILLed (or crashed) keeps training (holding GPU and pinned
host memory) until its next protocol write fails, and a run stuck in a long step may never write.
A daemon thread checks, every `interval` seconds:

- the protocol pipe (stdout): when the app dies the pipe's read end closes; poll() on the write
  end then reports POLLERR/POLLHUP (Linux, macOS). The ranks under the deepspeed launcher inherit
  the same pipe, so they notice too even though their parent is the launcher;
- the app's pid, from OFFLOAD_STUDIO_APP_PID (set by the engine service when it spawns the
  runner; under the deepspeed launcher the ranks' parent is the launcher, not the app): gone when
  kill(pid, 0) says so (POSIX) or its process handle is signalled (Windows). This also covers an app
  that died before the watchdog started (the runner then already has a new parent);
- the parent pid: it changes (re-parented to init or a subreaper) when the parent dies (POSIX);
  on Windows, where the parent pid never changes, the parent's process handle is waited on.

When either fires the runner ends its own children (the caller's `on_orphan`, e.g. SuperOffload's
CPU Adam worker) and hard-exits (os._exit: DeepSpeed's atexit hooks can block), which releases GPU
and pinned memory. Stdlib only.
"""
import os
import sys
import threading
import time

ORPHAN_EXIT = 137  # what a killed process reports; nobody is left to read it anyway


def _pipe_closed(fd):
    """True when `fd` is a pipe/socket whose reading side has gone (poll reports an error/hang-up)."""
    try:
        import select
        if not hasattr(select, "poll"):
            return False
        p = select.poll()
        p.register(fd, 0)  # no events asked: POLLERR/POLLHUP/POLLNVAL are always reported
        return any(ev & (select.POLLERR | select.POLLHUP | select.POLLNVAL) for _fd, ev in p.poll(0))
    except (OSError, ValueError):
        return False


def _is_pipe(fd):
    try:
        import stat
        mode = os.fstat(fd).st_mode
        return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
    except (OSError, ValueError):
        return False


def _windows_parent_waiter(ppid):
    """A function that says whether process `ppid` has exited (Windows), or None."""
    try:
        import ctypes
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        SYNCHRONIZE = 0x00100000
        handle = kernel32.OpenProcess(SYNCHRONIZE, False, ppid)
        if not handle:
            return None
        return lambda: kernel32.WaitForSingleObject(handle, 0) == 0  # WAIT_OBJECT_0: it exited
    except Exception:  # noqa: BLE001 - no watchdog rather than a failed run
        return None


def _posix_gone(pid):
    try:
        os.kill(pid, 0)
        return False
    except ProcessLookupError:
        return True
    except OSError:  # EPERM: alive, someone else's (a reused pid: then we notice through the pipe)
        return False


def orphaned_reason(fd, ppid, parent_exited=None, app_pid=None, app_exited=None):
    """Why the runner is orphaned, or None while its app is there."""
    if fd is not None and _pipe_closed(fd):
        return "the app's end of the protocol pipe closed"
    if app_pid and os.name != "nt" and _posix_gone(app_pid):
        return f"the app (pid {app_pid}) is gone"
    if app_exited is not None and app_exited():
        return f"the app (pid {app_pid}) exited"
    if os.name != "nt" and os.getppid() != ppid:
        return f"the parent process {ppid} is gone (now {os.getppid()})"
    if parent_exited is not None and parent_exited():
        return f"the parent process {ppid} exited"
    return None


def start(fd=None, on_orphan=None, interval=0.5, exit=os._exit):
    """Watch in a daemon thread; returns the thread. `fd`: the protocol pipe (ignored if not a pipe)."""
    ppid = os.getppid()
    watched_fd = fd if fd is not None and _is_pipe(fd) else None
    parent_exited = _windows_parent_waiter(ppid) if os.name == "nt" else None
    try:
        app_pid = int(os.environ.get("OFFLOAD_STUDIO_APP_PID") or 0)
    except ValueError:
        app_pid = 0
    app_pid = app_pid if app_pid > 1 and app_pid != os.getpid() else None
    app_exited = _windows_parent_waiter(app_pid) if os.name == "nt" and app_pid else None
    if ppid <= 1 and watched_fd is None and app_pid is None:
        return None  # started by init itself: nothing to watch

    def loop():
        while True:
            reason = orphaned_reason(watched_fd, ppid, parent_exited, app_pid, app_exited)
            if reason:
                try:
                    sys.stderr.write(f"[offload-studio] the app that started this runner is gone ({reason}): stopping\n")
                    sys.stderr.flush()
                except Exception:  # noqa: BLE001 - stderr is usually the same dead pipe
                    pass
                try:
                    if on_orphan:
                        on_orphan()
                finally:
                    exit(ORPHAN_EXIT)
                return
            time.sleep(interval)

    t = threading.Thread(target=loop, name="parent-watch", daemon=True)
    t.start()
    return t
