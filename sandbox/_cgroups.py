"""Per-slot cgroups for the local backend: memory (swap included), pids and CPU quota.

Works with cgroup v2 (a ``palaestra-<pid>`` group at the root of the unified hierarchy)
and with cgroup v1 (a ``palaestra-<pid>`` group under the current group of each
controller, so that limits set above us still apply). Where a controller cannot be used
(not mounted, read-only, not delegated), it is simply absent from :attr:`Cgroups.enforced`
and the backend falls back to rlimits and says so in every result.

Slots are reused across runs: creating and removing memory cgroups per run costs more than
the run itself and leaves dying cgroups behind in the kernel.
"""

from __future__ import annotations

import itertools
import os
import re
import signal
import time
from pathlib import Path

CONTROLLERS = ("memory", "pids", "cpu")
_NAME = re.compile(r"^palaestra-(\d+)(-\d+)?$")
_instances = itertools.count()
_PERIOD_US = 100_000


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _mounts() -> list[tuple[str, str, set[str]]]:
    found = []
    with open("/proc/self/mounts") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 4 and fields[2] in ("cgroup", "cgroup2"):
                found.append((fields[1], fields[2], set(fields[3].split(","))))
    return found


def _own_paths() -> dict[str, str]:
    paths = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                paths[name] = path
    return paths


def _remove_tree(path: Path) -> None:
    """Kills what is left in a cgroup tree and removes it, leaves first."""
    if not path.is_dir():
        return
    for child in sorted((p for p in path.iterdir() if p.is_dir()), reverse=True):
        _remove_tree(child)
    for attempt in range(50):
        try:
            path.rmdir()
            return
        except OSError:
            try:
                for pid in (path / "cgroup.procs").read_text().split():
                    os.kill(int(pid), signal.SIGKILL)
            except (OSError, ValueError):
                pass
            time.sleep(0.01 * (attempt + 1))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Cgroups:
    """The cgroups of one backend: one parent group, one child per slot.

    Args:
        enable: False skips cgroups entirely (rlimits only).
    """

    def __init__(self, enable: bool = True) -> None:
        self.version: str | None = None
        self.parents: dict[str, Path] = {}
        self.problems: list[str] = []
        self._written: dict[tuple[int, str], str] = {}
        self._limits: dict[int, tuple] = {}
        self._dirs: dict[int, dict[str, Path]] = {}
        self._made: set[int] = set()
        self._oom_fds: dict[int, int] = {}
        if enable:
            try:
                self._setup()
            except OSError as e:
                self.problems.append(f"cgroups unavailable: {e}")
                self.parents = {}

    @property
    def enforced(self) -> dict[str, str]:
        """Controller name -> mechanism (``cgroup-v1`` or ``cgroup-v2``) for those in use."""
        return {name: f"cgroup-{self.version}" for name in self.parents}

    def _setup(self) -> None:
        mounts = _mounts()
        own = _own_paths()
        name = f"palaestra-{os.getpid()}-{next(_instances)}"
        v1 = {
            c: m for m, kind, opts in mounts if kind == "cgroup" for c in CONTROLLERS if c in opts
        }
        v2 = next((m for m, kind, _ in mounts if kind == "cgroup2"), None)
        if v1:
            self.version = "v1"
            for controller, mount in v1.items():
                base = Path(mount) / own.get(controller, "/").lstrip("/")
                try:
                    _sweep_stale(base)
                    parent = base / name
                    parent.mkdir(exist_ok=True)
                    self.parents[controller] = parent
                except OSError as e:
                    self.problems.append(f"cgroup v1 {controller}: {e}")
        elif v2 is not None:
            self.version = "v2"
            root = Path(v2)
            available = set((root / "cgroup.controllers").read_text().split())
            wanted = [c for c in CONTROLLERS if c in available]
            try:
                enabled = set((root / "cgroup.subtree_control").read_text().split())
                missing = [c for c in wanted if c not in enabled]
                if missing:
                    _write(root / "cgroup.subtree_control", " ".join(f"+{c}" for c in missing))
                _sweep_stale(root)
                parent = root / name
                parent.mkdir(exist_ok=True)
                _write(parent / "cgroup.subtree_control", " ".join(f"+{c}" for c in wanted))
                for controller in wanted:
                    self.parents[controller] = parent
            except OSError as e:
                self.problems.append(f"cgroup v2: {e}")
        else:
            self.problems.append("no cgroup file system is mounted")

    def _slot_dirs(self, slot: int) -> dict[str, Path]:
        dirs = self._dirs.get(slot)
        if dirs is None:
            dirs = self._dirs[slot] = {c: p / f"s{slot}" for c, p in self.parents.items()}
        return dirs

    def _set(self, slot: int, path: Path, value: str) -> None:
        key = (slot, str(path))
        if self._written.get(key) != value:
            _write(path, value)
            self._written[key] = value

    def prepare(self, slot: int, memory_mb: int, pids: int, cpus: float | None) -> None:
        """Creates the slot's groups if needed and writes the limits that changed."""
        wanted = (memory_mb, pids, cpus)
        if self._limits.get(slot) == wanted:
            return
        dirs = self._slot_dirs(slot)
        if slot not in self._made:
            for path in set(dirs.values()):
                path.mkdir(exist_ok=True)
            self._made.add(slot)
        memory = str(memory_mb << 20)
        if "memory" in dirs:
            d = dirs["memory"]
            if self.version == "v1":
                limit, memsw = d / "memory.limit_in_bytes", d / "memory.memsw.limit_in_bytes"
                if memsw.exists():
                    # memsw must stay >= the limit at every step, so order the two writes.
                    current = int(limit.read_text())
                    order = (memsw, limit) if int(memory) > current else (limit, memsw)
                    for path in order:
                        self._set(slot, path, memory)
                else:
                    self._set(slot, limit, memory)
            else:
                self._set(slot, d / "memory.max", memory)
                if (d / "memory.swap.max").exists():
                    self._set(slot, d / "memory.swap.max", "0")
        if "pids" in dirs:
            # One more for the agent, which lives in the group with the program.
            self._set(slot, dirs["pids"] / "pids.max", str(pids + 1))
        if "cpu" in dirs:
            quota = -1 if cpus is None else max(1000, int(cpus * _PERIOD_US))
            if self.version == "v1":
                self._set(slot, dirs["cpu"] / "cpu.cfs_period_us", str(_PERIOD_US))
                self._set(slot, dirs["cpu"] / "cpu.cfs_quota_us", str(quota))
            else:
                self._set(
                    slot, dirs["cpu"] / "cpu.max", f"{'max' if quota < 0 else quota} {_PERIOD_US}"
                )
        self._limits[slot] = wanted

    def attach(self, slot: int, pid: int) -> None:
        """Moves ``pid`` into the slot's groups (its future children follow)."""
        for path in set(self._slot_dirs(slot).values()):
            _write(path / "cgroup.procs", str(pid))

    def oom_kills(self, slot: int) -> int:
        """The slot's cumulative count of OOM kills (read twice a run: the file stays open)."""
        fd = self._oom_fds.get(slot)
        if fd is None:
            d = self._slot_dirs(slot).get("memory")
            if d is None:
                return 0
            name = "memory.oom_control" if self.version == "v1" else "memory.events"
            try:
                fd = self._oom_fds[slot] = os.open(d / name, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                return 0
        try:
            text = os.pread(fd, 4096, 0).decode()
        except OSError:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def close(self) -> None:
        """Removes every group this backend made."""
        for fd in self._oom_fds.values():
            os.close(fd)
        self._oom_fds.clear()
        for parent in set(self.parents.values()):
            _remove_tree(parent)
        self.parents = {}
        self._made.clear()
        self._written.clear()
        self._limits.clear()
        self._dirs.clear()


def _sweep_stale(base: Path) -> None:
    """Removes ``palaestra-<pid>[-<n>]`` groups whose owner process is gone."""
    try:
        children = list(base.iterdir())
    except OSError:
        return
    for child in children:
        match = _NAME.match(child.name)
        if match and child.is_dir() and not _pid_alive(int(match.group(1))):
            _remove_tree(child)
