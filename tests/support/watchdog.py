"""Stop what a test fixture started when the test process ends without its teardown (a crash, SIGKILL).

``Watchdog(stop)`` starts ``python watchdog.py PID STOP`` in a session of its own, so a signal to the
test's process group does not reach it. It waits until process ``PID`` (the test process, its parent)
is gone, then carries out ``stop``: signal process groups (SIGTERM, then SIGKILL), run commands,
remove folders. The same steps run at interpreter exit (``atexit``) when the fixture never tore
down. A fixture that tears down normally calls ``release()``: the watchdog exits doing nothing.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field


@dataclass
class Stop:
    """What to do to stop a fixture's servers."""

    process_groups: list[int] = field(default_factory=list)
    commands: list[list[str]] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)

    def run(self) -> None:
        """Signal the groups (a grace period, then SIGKILL), run the commands, remove the folders."""
        for sig, grace in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
            alive = [g for g in self.process_groups if _signal_group(g, sig)]
            deadline = time.monotonic() + grace
            while alive and time.monotonic() < deadline:
                time.sleep(0.2)
                alive = [g for g in alive if _signal_group(g, 0)]
            if not alive:
                break
        for command in self.commands:
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                subprocess.run(command, capture_output=True, timeout=60, check=False)
        for folder in self.folders:
            shutil.rmtree(folder, ignore_errors=True)


def _signal_group(group: int, sig: int) -> bool:
    """Send ``sig`` to a process group; False when no process of it is left."""
    try:
        os.killpg(group, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Watchdog:
    """A process that carries out ``stop`` if the test process dies; ``release()`` when torn down normally."""

    def __init__(self, stop: Stop) -> None:
        self.stop = stop
        self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            [sys.executable, __file__, str(os.getpid()), json.dumps(asdict(stop))],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        atexit.register(self._at_exit)

    def release(self) -> None:
        """The fixture stopped its servers itself: end the watchdog without it doing anything."""
        atexit.unregister(self._at_exit)
        if self._proc is not None:
            self._proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(10)
            self._proc = None

    def _at_exit(self) -> None:
        self.stop.run()
        self.release()


def _watch(parent: int, stop: Stop) -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # released: the fixture tore down itself
    while os.getppid() == parent:  # re-parented once the test process is gone
        time.sleep(0.2)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    stop.run()


if __name__ == "__main__":
    _watch(int(sys.argv[1]), Stop(**json.loads(sys.argv[2])))
