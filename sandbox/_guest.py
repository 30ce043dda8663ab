"""The trusted code that runs inside every sandbox.

Standard library only and self-contained: this file's source is handed to ``python3 -c``
inside sandboxes, so it never imports Palaestra. The host imports it as a module for the
wire format and the helpers it shares.

Roles, chosen by the first command-line argument:

* ``starter``: runs on the host as a child of the Python process that uses the local
  backend. It enters new user, mount, PID, IPC and UTS namespaces, waits while the host
  writes its uid/gid maps, builds the read-only root and execs the zygote inside it.
* ``zygote``: a warm interpreter, PID 1 of the backend's PID namespace. For each sandbox
  it clones a process straight into fresh mount, PID, IPC and UTS namespaces and the
  network namespace of the sandbox's slot, and reports that process's exit status when
  it reaps it. The zygote never holds a
  run's payload: requests reach the sandbox after the clone, over the run's own socket.
* ``docker``: PID 1 of a container; an :class:`Agent` that serves runs and sessions over
  stdin/stdout, one at a time.

In a local sandbox, the cloned process (PID 1 of its namespace) mounts the writable
directories, says hello to the host with a descriptor of /work, and then either runs one
program (:func:`_run_here`; the host writes the input files, reads the output and the
fetched files itself), or runs programs one after another, renewed in between
(:func:`_serve_runs`), or serves a session as an :class:`Agent`. An agent starts programs
as an unprivileged user with rlimits, relays their output under caps, kills every
process they left behind, and returns the files asked for. Files are opened component by
component with ``O_NOFOLLOW``, and fetched only after every untrusted process is dead.

Wire format: frames of ``!II`` (header length, blob length), a JSON header, then the blob.
"""

from __future__ import annotations

import io
import json
import os
import select
import signal
import socket
import stat
import struct
import sys
import time

FRAME = struct.Struct("!II")
MAX_HEADER = 1 << 20
WORK = "/work"
SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
SLOT_UID_BASE = 1000  # slot i runs as uid/gid 1000 + i inside the user namespace
KILL_GRACE_S = 2.0  # how long an interrupted REPL cell gets before its interpreter is killed
SESSION_DRAIN_S = 0.05  # output still arriving from background processes after a session call

# Directories of the source root that the local sandbox mounts read-only. Everything
# else (home directories, /root, /tmp, /var, /run, /srv, /mnt, the project) is absent.
ROOT_DIRS = ("usr", "etc", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
DEVICES = ("null", "zero", "full", "random", "urandom")


class ProtocolError(Exception):
    """A peer sent something that is not a valid frame."""


def _file_errors() -> tuple:
    """What writing or reading the requested files may raise.

    ``tarfile`` is imported only where a tar stream is handled (the Docker agent and
    sessions), so that the zygote stays small: every clone of it copies fewer pages.
    """
    tarfile = sys.modules.get("tarfile")
    return (OSError, ValueError) + ((tarfile.TarError,) if tarfile is not None else ())


# --------------------------------------------------------------------------- wire format


def encode_frame(header: dict, blob: bytes = b"") -> bytes:
    """Serialises one frame: ``!II`` lengths, the JSON header, the blob."""
    raw = json.dumps(header, separators=(",", ":")).encode()
    return FRAME.pack(len(raw), len(blob)) + raw + bytes(blob)


class FrameDecoder:
    """Incremental frame parser; ``feed`` returns the frames completed by new bytes."""

    def __init__(self, max_blob: int) -> None:
        self.max_blob = max_blob
        self._buf = bytearray()
        self._back = []

    def push_back(self, frames: list) -> None:
        """Keeps frames a reader took but did not use; the next ``feed`` returns them first."""
        self._back = list(frames) + self._back

    def feed(self, data: bytes) -> list:
        self._buf += data
        frames, self._back = self._back, []
        while len(self._buf) >= FRAME.size:
            hlen, blen = FRAME.unpack_from(self._buf)
            if hlen > MAX_HEADER or blen > self.max_blob:
                raise ProtocolError(f"frame too large ({hlen} + {blen} bytes)")
            end = FRAME.size + hlen + blen
            if len(self._buf) < end:
                break
            try:
                header = json.loads(bytes(self._buf[FRAME.size : FRAME.size + hlen]))
            except ValueError as e:
                raise ProtocolError(f"bad frame header: {e}") from e
            if not isinstance(header, dict):
                raise ProtocolError("frame header is not an object")
            frames.append((header, bytes(self._buf[FRAME.size + hlen : end])))
            del self._buf[:end]
        return frames


def write_all(fd: int, data: bytes) -> None:
    """Writes every byte to a blocking file descriptor."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


# --------------------------------------------------------------------------- Linux calls

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND = 32, 1024, 2048, 4096
MS_REC, MS_PRIVATE, MS_RELATIME, MS_STRICTATIME = 16384, 1 << 18, 1 << 21, 1 << 24
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_KEEPCAPS, PR_SET_NO_NEW_PRIVS = 1, 4, 8, 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_CAP_VERSION_3 = 0x20080522
PIVOT_ROOT_NR = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}
_MOUNT_OPTION_FLAGS = {
    "ro": MS_RDONLY,
    "nosuid": MS_NOSUID,
    "nodev": MS_NODEV,
    "noexec": MS_NOEXEC,
    "noatime": MS_NOATIME,
    "nodiratime": MS_NODIRATIME,
    "relatime": MS_RELATIME,
    "strictatime": MS_STRICTATIME,
}

_LIBC = None
_MACHINE = os.uname().machine  # syscall numbers below are per machine


def _libc():
    global _LIBC
    if _LIBC is None:
        import ctypes

        _LIBC = ctypes.CDLL(None, use_errno=True)
        _LIBC.syscall.restype = ctypes.c_long
    return _LIBC


def _check(rc: int, what: str) -> None:
    if rc != 0:
        import ctypes

        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _b(text):
    return None if text is None else os.fsencode(text)


def unshare(flags: int) -> None:
    """Moves the calling process into new namespaces (``unshare(2)``)."""
    _check(_libc().unshare(flags), "unshare")


def mount(source, target, fstype, flags: int = 0, data=None) -> None:
    """Calls ``mount(2)``."""
    _check(_libc().mount(_b(source), _b(target), _b(fstype), flags, _b(data)), f"mount {target}")


def umount(target: str, flags: int = 0) -> None:
    """Calls ``umount2(2)``."""
    _check(_libc().umount2(_b(target), flags), f"umount {target}")


def prctl(option: int, arg: int) -> None:
    """Calls ``prctl(2)`` with one argument."""
    _check(_libc().prctl(option, arg, 0, 0, 0), f"prctl {option}")


def capabilities() -> tuple[int, int, int]:
    """This process's (effective, permitted, inheritable) capability masks (``capget(2)``)."""
    import ctypes

    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    _check(_libc().capget(header, data), "capget")
    return tuple(data[i] | (data[i + 3] << 32) for i in range(3))


def set_capabilities(effective: int, permitted: int, inheritable: int = 0) -> None:
    """Sets this process's capability masks (``capset(2)``)."""
    import ctypes

    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    masks = (effective, permitted, inheritable)
    data = (ctypes.c_uint32 * 6)(*(m & 0xFFFFFFFF for m in masks), *(m >> 32 for m in masks))
    _check(_libc().capset(header, data), "capset")


_KEYCTL_NR = {"x86_64": 250, "aarch64": 219, "riscv64": 219}
KEYCTL_GET_PERSISTENT, KEYCTL_CLEAR = 22, 7
KEY_SPEC_THREAD_KEYRING, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -1, -4, -5


def clear_keyrings() -> None:
    """Empties the keyrings the kernel keeps per uid, not per process.

    Slots hand their uid from one sandbox (or run) to the next, and a program may leave
    keys in its user keyrings (``@u``, ``@us``) or its persistent keyring; emptied here
    before every program, nothing a program stored there reaches another.
    """
    import ctypes

    number = _KEYCTL_NR.get(_MACHINE)
    if number is None:
        return
    libc = _libc()
    for keyring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING):
        libc.syscall(number, KEYCTL_CLEAR, keyring, 0, 0, 0)
    persistent = libc.syscall(
        number, KEYCTL_GET_PERSISTENT, ctypes.c_long(-1), KEY_SPEC_THREAD_KEYRING, 0, 0
    )
    if persistent > 0:
        libc.syscall(number, KEYCTL_CLEAR, ctypes.c_long(persistent), 0, 0, 0)


def pivot_root(new_root: str, put_old: str) -> None:
    """Calls ``pivot_root(2)``, which glibc does not wrap."""
    number = PIVOT_ROOT_NR.get(_MACHINE)
    if number is None:
        raise OSError(f"pivot_root: unknown syscall number on {_MACHINE}")
    _check(_libc().syscall(number, _b(new_root), _b(put_old)), "pivot_root")


def sethostname(name: str) -> None:
    """Calls ``sethostname(2)`` (in a UTS namespace of our own)."""
    raw = name.encode()
    _check(_libc().sethostname(raw, len(raw)), "sethostname")


def setns(fd: int, nstype: int) -> None:
    """Calls ``setns(2)`` (``os.setns`` is Python 3.12+)."""
    _check(_libc().setns(fd, nstype), "setns")


def loopback_up() -> None:
    """Brings ``lo`` up in a fresh network namespace (SIOCSIFFLAGS)."""
    import fcntl

    siocsifflags, iff_up, iff_loopback, iff_running = 0x8914, 0x1, 0x8, 0x40
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sH14x", b"lo", iff_up | iff_loopback | iff_running)
        fcntl.ioctl(s.fileno(), siocsifflags, request)


def _mount_flags_of(target: str) -> int:
    """Per-mount flags of the mount at ``target`` (read from /proc/self/mountinfo)."""
    flags = 0
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            if _unescape_mountinfo(fields[4]) == target:
                flags = 0
                for option in fields[5].split(","):
                    flags |= _MOUNT_OPTION_FLAGS.get(option, 0)
    return flags


def _unescape_mountinfo(field: str) -> str:
    return (
        field.replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\")
    )


def _mounts_under(prefix: str) -> list:
    with open("/proc/self/mountinfo") as f:
        points = [_unescape_mountinfo(line.split()[4]) for line in f]
    return [p for p in points if p == prefix or p.startswith(prefix + "/")]


def bind_readonly(source: str, target: str) -> None:
    """Bind-mounts ``source`` at ``target`` read-only, nosuid, nodev, submounts included.

    Submounts must come along (a user namespace may not bind a tree while hiding mounts
    locked beneath it), so each one is remounted read-only in turn, keeping the flags the
    kernel refuses to clear in a user namespace.
    """
    mount(source, target, None, MS_BIND | MS_REC)
    for point in _mounts_under(target):
        locked = _mount_flags_of(point) & ~MS_RDONLY
        mount(None, point, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | locked)


# --------------------------------------------------------------------------- files


def check_relpath(path: str) -> str:
    """Returns ``path`` if it is a clean relative path, else raises ValueError."""
    if not isinstance(path, str) or not path:
        raise ValueError("a path must be a non-empty string")
    if "\0" in path or path.startswith("/") or "\\" in path:
        raise ValueError(f"path {path!r} must be relative, without NUL or backslash")
    parts = path.split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"path {path!r} must not contain empty, '.' or '..' components")
    if any(len(p.encode()) > 255 for p in parts) or len(path.encode()) > 4000:
        raise ValueError(f"path {path!r} is too long")
    return path


def _open_dir_chain(root, parts, create: bool, owner):
    """Opens ``root/parts...`` as a directory without following symlinks; may create it.

    ``root`` is a path or an open directory descriptor (left open).
    """
    if isinstance(root, int):
        fd = os.dup(root)
    else:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts:
            if create:
                try:
                    os.mkdir(part, 0o755, dir_fd=fd)
                    if owner is not None:
                        os.chown(part, owner[0], owner[1], dir_fd=fd, follow_symlinks=False)
                except FileExistsError:
                    pass
            nfd = os.open(
                part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd
            )
            os.close(fd)
            fd = nfd
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_files(root, files: dict, owner=None) -> None:
    """Writes ``{relative path: bytes}`` under ``root`` (a path or a directory descriptor).

    Parent directories are created; nothing is followed through a symlink; existing
    files are replaced only if they are regular files. ``#!`` files are executable.
    """
    for path, data in files.items():
        parts = check_relpath(path).split("/")
        dfd = _open_dir_chain(root, parts[:-1], True, owner)
        try:
            mode = 0o755 if data.startswith(b"#!") else 0o644
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
            ffd = os.open(parts[-1], flags, mode, dir_fd=dfd)
            try:
                if not stat.S_ISREG(os.fstat(ffd).st_mode):
                    raise ValueError(f"{path!r} exists and is not a regular file")
                write_all(ffd, data)
                os.fchmod(ffd, mode)
                if owner is not None:
                    os.fchown(ffd, owner[0], owner[1])
            finally:
                os.close(ffd)
        finally:
            os.close(dfd)


def read_files(root, paths, limit: int):
    """Reads regular files under ``root`` (a path or a directory descriptor).

    Returns:
        ``(files, errors)``: ``{path: bytes}`` and ``{path: why it was not read}``.
    """
    files, errors = {}, {}
    total = 0
    for path in paths:
        try:
            parts = check_relpath(path).split("/")
            dfd = _open_dir_chain(root, parts[:-1], False, None)
            try:
                flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
                ffd = os.open(parts[-1], flags, dir_fd=dfd)
            finally:
                os.close(dfd)
            with os.fdopen(ffd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    raise ValueError("not a regular file")
                data = f.read(limit - total + 1)
            if total + len(data) > limit:
                raise ValueError(f"over the fetch limit of {limit} bytes")
            total += len(data)
            files[path] = data
        except FileNotFoundError:
            errors[path] = "no such file"
        except OSError as e:
            symlink = e.errno in (40, 20)
            errors[path] = "a symlink or not a directory on the way" if symlink else str(e)
        except ValueError as e:
            errors[path] = str(e)
    return files, errors


def write_tree(root: str, tar_bytes: bytes, owner=None) -> None:
    """Writes the regular files and directories of a tar stream under ``root``.

    Links, devices and unsafe names are refused; nothing is followed through a symlink.
    """
    if not tar_bytes:
        return
    import tarfile

    with tarfile.open(fileobj=io.BytesIO(tar_bytes), mode="r:") as tar:
        for member in tar:
            parts = check_relpath(member.name.rstrip("/")).split("/")
            if member.isdir():
                os.close(_open_dir_chain(root, parts, True, owner))
                continue
            if not member.isreg():
                raise ValueError(
                    f"{member.name!r}: only regular files and directories may be written"
                )
            dfd = _open_dir_chain(root, parts[:-1], True, owner)
            try:
                mode = 0o755 if member.mode & 0o111 else 0o644
                flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
                ffd = os.open(parts[-1], flags, mode, dir_fd=dfd)
                try:
                    if not stat.S_ISREG(os.fstat(ffd).st_mode):
                        raise ValueError(f"{member.name!r} exists and is not a regular file")
                    src = tar.extractfile(member)
                    while True:
                        chunk = src.read(1 << 20)
                        if not chunk:
                            break
                        write_all(ffd, chunk)
                    os.fchmod(ffd, mode)
                    if owner is not None:
                        os.fchown(ffd, owner[0], owner[1])
                finally:
                    os.close(ffd)
            finally:
                os.close(dfd)


def read_tree(root: str, paths, limit: int):
    """Packs the named regular files under ``root`` into a tar stream.

    Returns:
        ``(tar_bytes, errors)``: errors maps each path that could not be fetched to why
        (missing, a symlink, not a regular file, over the size limit).
    """
    buf = io.BytesIO()
    errors = {}
    total = 0
    import tarfile

    with tarfile.open(fileobj=buf, mode="w:", format=tarfile.PAX_FORMAT) as tar:
        for path in paths:
            try:
                parts = check_relpath(path).split("/")
                dfd = _open_dir_chain(root, parts[:-1], False, None)
                try:
                    ffd = os.open(
                        parts[-1],
                        os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK,
                        dir_fd=dfd,
                    )
                finally:
                    os.close(dfd)
                with os.fdopen(ffd, "rb") as f:
                    st = os.fstat(f.fileno())
                    if not stat.S_ISREG(st.st_mode):
                        raise ValueError("not a regular file")
                    if total + st.st_size > limit:
                        raise ValueError(f"over the fetch limit of {limit} bytes")
                    data = f.read(limit - total + 1)
                    if total + len(data) > limit:
                        raise ValueError(f"over the fetch limit of {limit} bytes")
                total += len(data)
                info = tarfile.TarInfo(path)
                info.size = len(data)
                info.mode = st.st_mode & 0o777
                tar.addfile(info, io.BytesIO(data))
            except FileNotFoundError:
                errors[path] = "no such file"
            except OSError as e:
                errors[path] = (
                    "a symlink or not a directory on the way" if e.errno in (40, 20) else str(e)
                )
            except ValueError as e:
                errors[path] = str(e)
    return buf.getvalue(), errors


def snapshot_tree(root: str, limit: int) -> dict:
    """Reads every regular file under ``root`` (skipping .git and __pycache__) for diffs."""
    files = {}
    total = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", "__pycache__"))
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            try:
                st = os.lstat(full)
                if stat.S_ISLNK(st.st_mode):
                    files[rel] = ("link", os.readlink(full).encode())
                    continue
                if not stat.S_ISREG(st.st_mode) or total + st.st_size > limit:
                    continue
                fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
                with os.fdopen(fd, "rb") as f:
                    data = f.read(limit - total)
            except OSError:
                continue
            total += len(data)
            files[rel] = ("file", data)
    return files


def unified_diff(before: dict, after: dict) -> str:
    """A git-style unified diff between two snapshots from :func:`snapshot_tree`."""
    import difflib

    out = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        out.append(f"diff --git a/{path} b/{path}\n")
        if old is None:
            out.append("new file mode 100644\n")
        elif new is None:
            out.append("deleted file mode 100644\n")
        old_text, new_text = _as_text(old), _as_text(new)
        if old_text is None or new_text is None:
            out.append(f"Binary files a/{path} and b/{path} differ\n")
            continue
        old_lines = old_text.splitlines(keepends=True)
        new_lines = new_text.splitlines(keepends=True)
        fromfile = f"a/{path}" if old is not None else "/dev/null"
        tofile = f"b/{path}" if new is not None else "/dev/null"
        for line in difflib.unified_diff(old_lines, new_lines, fromfile, tofile):
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _as_text(entry):
    if entry is None:
        return ""
    kind, data = entry
    if kind == "link":
        return f"symlink -> {data.decode(errors='replace')}\n"
    if b"\0" in data:
        return None
    try:
        return data.decode()
    except UnicodeDecodeError:
        return None


def wipe_dir(path: str) -> None:
    """Deletes everything inside ``path`` (not ``path`` itself), fixing permissions on the way."""
    import shutil

    def fix(func, target, _exc):
        try:
            os.chmod(os.path.dirname(target), 0o700)
            if os.path.isdir(target) and not os.path.islink(target):
                os.chmod(target, 0o700)
            func(target)
        except OSError:
            pass

    try:
        names = os.listdir(path)
    except OSError:
        return
    for name in names:
        full = os.path.join(path, name)
        if os.path.isdir(full) and not os.path.islink(full):
            shutil.rmtree(full, onerror=fix)
        else:
            try:
                os.unlink(full)
            except OSError:
                pass


# --------------------------------------------------------------------------- the program


def _apply_rlimits(limits: dict, pid1: bool = False) -> None:
    """Lowers this process's rlimits to the run's (children inherit them).

    ``pid1``: the program itself is PID 1 of its namespace.
    """
    import resource

    def setl(name, value):
        try:
            resource.setrlimit(getattr(resource, name), (value, value))
        except (ValueError, OSError, AttributeError):
            soft, hard = resource.getrlimit(getattr(resource, name))
            resource.setrlimit(getattr(resource, name), (min(value, hard), hard))

    setl("RLIMIT_CORE", 0)
    if limits.get("cpu_s"):
        import math

        soft = max(1, math.ceil(limits["cpu_s"]))
        # SIGXCPU at the soft limit, SIGKILL one second later; a PID 1 ignores SIGXCPU,
        # so there both come at once.
        hard = soft if pid1 else soft + 1
        try:
            resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
        except (ValueError, OSError):
            pass
    setl("RLIMIT_FSIZE", limits["disk_mb"] << 20)
    setl("RLIMIT_NOFILE", limits["nofile"])
    if limits.get("nproc"):
        setl("RLIMIT_NPROC", limits["pids"])
    if limits.get("address_space_mb"):
        setl("RLIMIT_AS", limits["address_space_mb"] << 20)


def _resolve(name: str, env: dict):
    """The path ``name`` runs from, found on the program's PATH like a shell; None if absent."""
    if "/" in name:
        return name
    for directory in env.get("PATH", SANDBOX_PATH).split(":"):
        candidate = os.path.join(directory or ".", name)
        if os.access(candidate, os.X_OK) and not os.path.isdir(candidate):
            return candidate
    return None


def _exec_program(spec: dict) -> None:
    """Replaces the process with the program (argv resolved on the sandbox PATH)."""
    argv = spec["argv"]
    env = spec["env"]
    prog = _resolve(argv[0], env)
    if prog is None:
        os.write(2, f"sandbox: {argv[0]}: command not found\n".encode())
        os._exit(127)
    try:
        os.execve(prog, argv, env)
    except OSError as e:
        os.write(2, f"sandbox: {argv[0]}: {e.strerror}\n".encode())
        os._exit(127 if e.errno == 2 else 126)


def _exit_status_of(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(f"{code}\n")
    except Exception:
        pass
    return 1


def _fresh_std_streams() -> None:
    """Replaces sys.std* by new text streams on fds 0-2, as a new interpreter would have."""
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(
        io.BufferedReader(io.FileIO(0, "r", closefd=False))
    )
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(1, "w", closefd=False))
    )
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
        errors="backslashreplace",
        line_buffering=True,
    )


def _finish_interpreter(status: int) -> None:
    """Runs what a normal interpreter exit runs (threads, atexit, flush), then exits."""
    threading = sys.modules.get("threading")
    try:
        if threading is not None and threading.active_count() > 1:
            threading._shutdown()
    except BaseException:
        pass
    try:
        import atexit

        atexit._run_exitfuncs()
    except BaseException:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            status = status or 120
    os._exit(status)


def _run_python_in_process(spec: dict) -> None:
    """Runs Python source as ``__main__`` in this (forked, warm) interpreter; never returns."""
    import types

    if spec.get("path"):
        filename = spec["path"]
        with open(filename, "rb") as f:
            source = f.read()
        sys.path[0] = os.path.dirname(filename)
    else:
        filename, source = "<string>", spec["code"]
        sys.path[0] = ""
    os.environ.clear()
    os.environ.update(spec["env"])
    sys.argv = [spec["argv0"], *spec.get("args", [])]
    if not spec.get("streams_ready"):
        _fresh_std_streams()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_IGN)
    if "random" in sys.modules:
        # A new interpreter seeds from the OS; a fork would repeat the zygote's sequence.
        sys.modules["random"].seed()
    main = types.ModuleType("__main__")
    if spec.get("path"):
        main.__file__ = filename
    main.__cached__ = None
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    try:
        exec(compile(source, filename, "exec"), main.__dict__)
        status = 0
    except SystemExit as e:
        status = _exit_status_of(e)
    except BaseException as e:
        # The traceback starts at the program, as it would under a new interpreter.
        _report(e)
        if isinstance(e, KeyboardInterrupt):
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        status = 1
    _finish_interpreter(status)


def _report(error: BaseException) -> None:
    trace = error.__traceback__.tb_next if error.__traceback__ is not None else None
    try:
        # The default hook shows the exception's own traceback, not the one passed in.
        sys.excepthook(type(error), error.with_traceback(trace), trace)
    except BaseException:
        pass


#: The only signals the agent and the zygote handle or ignore; a program starts with
#: all of them back at their defaults (exec keeps ignored signals ignored otherwise).
_AGENT_SIGNALS = (signal.SIGCHLD, signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGXFSZ)


def become_program(fds, identity, keep: int = -1) -> None:
    """First half of starting a program, done before its request is known.

    A new session, ``fds`` as 0, 1 and 2 (and ``keep`` as 3), every other descriptor
    closed, default signals, the memory killer's first choice, the sandbox's uid, no new
    privileges, and /work as the working directory.
    """
    os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    if keep >= 0:
        os.dup2(keep, 3)
    os.closerange(4 if keep >= 0 else 3, 1 << 20)
    signal.set_wakeup_fd(-1)
    for sig in _AGENT_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass
    if identity is not None:
        os.setgroups([])
        os.setresgid(identity[1], identity[1], identity[1])
        os.setresuid(identity[0], identity[0], identity[0])
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    os.chdir(WORK)
    os.umask(0o022)


def launch(spec: dict) -> None:
    """Second half: the run's rlimits, then exec (or run Python in process); never returns."""
    _apply_rlimits(spec["limits"])
    if spec.get("inproc") is not None:
        _run_python_in_process({**spec["inproc"], "env": spec["env"]})
    _exec_program(spec)


def _die_starting(error: BaseException) -> None:
    try:
        os.write(2, f"sandbox: cannot start the program: {error}\n".encode())
    finally:
        os._exit(126)


_WARM_SOURCE = """
def f(n):
    return [i * i for i in range(n) if i % 3] + list({i: str(i) for i in range(n)})
class C:
    def __init__(self, v):
        self.v = v
x = f(200)
s = ",".join(map(str, x)) + f"{len(x):>5}"
"""


def _warm_program() -> None:
    """Touches, before the request, the memory a short Python run touches.

    A forked process pays a page fault the first time it writes each page it shares
    with the zygote, and Python writes to every object it uses (reference counts).
    Paying those faults while the sandbox waits takes them off every run's latency.
    """
    import random  # noqa: F401  (seeded again after fork; see os.register_at_fork)

    namespace = {"__name__": "__warm__", "__builtins__": __builtins__}
    exec(compile(_WARM_SOURCE, "<warm-up>", "exec"), namespace)
    FrameDecoder(0).feed(
        encode_frame(
            {
                "t": "run",
                "argv": ["python3", "main.py"],
                "inproc": None,
                "env": {"PATH": SANDBOX_PATH},
                "limits": {"wall_s": 1.0},
            }
        )
    )
    _fresh_std_streams()
    print("", end="")
    sys.stdout.flush()
    sys.stderr.flush()
    import atexit  # noqa: F401


def _waiting_program() -> None:
    """A pre-forked program: waits on fd 3 for its stdin and spec, then launches; never returns."""
    try:
        channel = socket.socket(fileno=3)
        _, fds, _, _ = socket.recv_fds(channel, 1, 1)
        if not fds:
            os._exit(0)
        decoder = FrameDecoder(max_blob=0)
        frames = []
        while not frames:
            data = channel.recv(1 << 20)
            if not data:
                os._exit(0)
            frames = decoder.feed(data)
        os.dup2(fds[0], 0)
        os.close(fds[0])
        channel.close()
        launch(frames[0][0])
    except BaseException as e:  # the child must never fall back into the agent's code
        _die_starting(e)


# --------------------------------------------------------------------------- the agent


class _Pipe:
    """One output stream of a program: forwarded up to ``cap`` bytes, then drained unseen."""

    def __init__(self, fd: int, sid: int, cap: int) -> None:
        self.fd, self.sid, self.cap = fd, sid, cap
        self.sent = 0
        self.total = 0

    def pump(self, send, devnull: int) -> bool:
        """Moves what is readable now; returns False at end of file."""
        if self.sent < self.cap:
            data = os.read(self.fd, min(1 << 16, self.cap - self.sent))
            if not data:
                return False
            self.sent += len(data)
            self.total += len(data)
            send({"t": "o", "s": self.sid}, data)
            return True
        try:
            moved = os.splice(self.fd, devnull, 1 << 20)
        except (OSError, AttributeError):
            moved = len(os.read(self.fd, 1 << 16))
        self.total += moved
        return moved > 0


class Agent:
    """Runs programs and sessions for one host channel.

    The agent is PID 1 of the sandbox's PID namespace, so ``kill(-1)`` reaches every
    process of the sandbox and nothing else.

    Args:
        rfd: Descriptor the host's frames arrive on.
        wfd: Descriptor frames to the host are written to.
        identity: ``(uid, gid)`` for programs, or None when the agent itself is unprivileged.
        oom_counter: Callable returning the cgroup's OOM-kill count, or None when the host
            reads it.
    """

    def __init__(self, rfd, wfd, identity=None, oom_counter=None):
        self.rfd, self.wfd = rfd, wfd
        self.identity = identity
        self.oom_counter = oom_counter
        self.ready = None
        self.decoder = FrameDecoder(max_blob=1 << 31)
        self.inbox = []
        self.host_closed = False
        self.statuses = {}
        self.devnull = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
        self.wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        os.set_blocking(wake_w, False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        self.session = None

    # ---- channel

    def send(self, header: dict, blob: bytes = b"") -> None:
        try:
            write_all(self.wfd, encode_frame(header, blob))
        except OSError:
            self.host_gone()

    def host_gone(self) -> None:
        """The host closed the channel: nothing left to report to, so end everything."""
        self.kill_all()
        os._exit(0)

    def _read_host(self) -> None:
        try:
            data = os.read(self.rfd, 1 << 20)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.host_closed = True
            return
        self.inbox.extend(self.decoder.feed(data))

    def next_message(self, timeout=None):
        """Waits for the host's next frame; returns None on timeout; exits if the host left."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.inbox:
            if self.host_closed:
                self.host_gone()
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.rfd, self.wake_r], [], [], wait)
            if self.wake_r in ready:
                self._drain_wakeups()
                self.reap()
            if self.rfd in ready:
                self._read_host()
            if not ready and deadline is not None and time.monotonic() >= deadline:
                return None
        return self.inbox.pop(0)

    # ---- processes

    def _drain_wakeups(self) -> None:
        try:
            while os.read(self.wake_r, 4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def reap(self) -> None:
        """Collects every exited child; keeps the status and CPU time of the ones we track."""
        while True:
            try:
                pid, status, usage = os.wait3(os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self.statuses[pid] = (status, usage.ru_utime + usage.ru_stime)

    def kill_all(self) -> None:
        """Kills every other process of the sandbox and waits until all are gone."""
        kill_everyone_else(self.statuses)

    @staticmethod
    def _stdin_fd(stdin: bytes) -> int:
        if not stdin:
            return os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        fd = os.memfd_create("stdin", os.MFD_CLOEXEC)
        write_all(fd, stdin)
        os.lseek(fd, 0, os.SEEK_SET)
        return fd

    def spawn(self, spec: dict, stdin: bytes):
        """Starts the program with fresh pipes; returns ``(pid, stdout_fd, stderr_fd)``.

        Uses the pre-forked program if there is one (see :meth:`prespawn`).
        """
        if self.ready is not None:
            pid, out_r, err_r, sock = self.ready
            self.ready = None
            in_fd = self._stdin_fd(stdin)
            try:
                socket.send_fds(sock, [b"S"], [in_fd])
                sock.sendall(encode_frame(spec))
            except OSError:
                pass
            sock.close()
            os.close(in_fd)
            return pid, out_r, err_r
        out_r, out_w = os.pipe2(os.O_CLOEXEC)
        err_r, err_w = os.pipe2(os.O_CLOEXEC)
        in_fd = self._stdin_fd(stdin)
        pid = os.fork()
        if pid == 0:
            try:
                become_program((in_fd, out_w, err_w), self.identity)
                launch(spec)
            except BaseException as e:  # the child must never fall back into the agent's code
                _die_starting(e)
        for fd in (in_fd, out_w, err_w):
            os.close(fd)
        return pid, out_r, err_r

    def drop_privileges(self) -> None:
        """Becomes the sandbox's unprivileged uid for good (after the last mount).

        The program then runs as the agent's own uid, which costs it nothing: the agent is
        PID 1 (immune to the program's signals but SIGCHLD, which only wakes it) and not
        dumpable (so not traceable and its /proc entries are closed).
        """
        if self.identity is None:
            return
        _take_identity(self.identity)
        self.identity = None

    def prespawn(self) -> None:
        """Forks the next program ahead of its request, already unprivileged and waiting.

        The fork, the uid drop and the descriptor set-up then cost nothing when the
        request comes; only its limits and the exec (or the Python source) remain.
        """
        if self.ready is not None:
            return
        out_r, out_w = os.pipe2(os.O_CLOEXEC)
        err_r, err_w = os.pipe2(os.O_CLOEXEC)
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        null = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
        pid = os.fork()
        if pid == 0:
            try:
                become_program((null, out_w, err_w), self.identity, keep=child.fileno())
            except BaseException as e:
                _die_starting(e)
            _waiting_program()
        for fd in (out_w, err_w, null):
            os.close(fd)
        child.close()
        self.ready = (pid, out_r, err_r, parent)

    def discard_ready(self) -> None:
        """Ends the pre-forked program, if any (it has run nothing)."""
        if self.ready is not None:
            pid, out_r, err_r, sock = self.ready
            self.ready = None
            for fd in (out_r, err_r):
                os.close(fd)
            sock.close()

    def pump(self, pid, pipes, deadline, interrupt=None, stop_when=None, on_done=None):
        """Relays output until the process ``pid`` (or ``stop_when``) is done.

        Args:
            pid: The process whose exit ends the call (None: ``stop_when`` decides).
            pipes: ``_Pipe`` objects to relay.
            deadline: Monotonic time at which ``interrupt`` is called (None: no deadline).
            interrupt: Called at the deadline, or when the host asks to stop; returns the
                next deadline (to escalate) or None.
            stop_when: Callable checked on each wake-up; truthy ends the wait. If it has a
                ``fileno``, its descriptor also wakes the loop.
            on_done: Called once when the call is done, before the last output is drained.

        Returns:
            Whether the call was interrupted (deadline passed or the host asked).
        """
        live = {p.fd: p for p in pipes}
        timed_out = False
        done = False
        drain_until = 0.0
        while True:
            if not done:
                done = (pid is not None and pid in self.statuses) or bool(stop_when and stop_when())
                if done:
                    if on_done is not None:
                        on_done()
                    drain_until = time.monotonic() + (SESSION_DRAIN_S if self.session else 5.0)
            now = time.monotonic()
            if done and (not live or now >= drain_until):
                break
            if not done and deadline is not None and now >= deadline:
                timed_out = True
                deadline = interrupt() if interrupt is not None else None
                continue
            if done:
                wait = drain_until - now
            else:
                wait = None if deadline is None else deadline - now
            rlist = [*live, self.wake_r]
            if not self.host_closed:
                rlist.append(self.rfd)
            if not done and hasattr(stop_when, "fileno"):
                rlist.append(stop_when)
            ready, _, _ = select.select(rlist, [], [], wait)
            for fd in ready:
                if fd is stop_when:
                    continue
                if fd == self.wake_r:
                    self._drain_wakeups()
                    self.reap()
                elif fd == self.rfd:
                    self._read_host()
                    if self.host_closed:
                        self.host_gone()
                    if self._take("kill") and not done:
                        timed_out = True
                        deadline = interrupt() if interrupt is not None else None
                elif fd in live:
                    if not live[fd].pump(self.send, self.devnull):
                        os.close(fd)
                        del live[fd]
        for fd in live:
            os.close(fd)
        return timed_out

    def _take(self, *kinds):
        taken = [m for m in self.inbox if m[0].get("t") in kinds]
        self.inbox = [m for m in self.inbox if m[0].get("t") not in kinds]
        return taken

    def _status_fields(self, pid, limits):
        status, cpu_s = self.statuses.pop(pid)
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        # The kernel sends SIGXCPU at the soft CPU limit and SIGKILL one second later.
        cpu_hit = bool(limits.get("cpu_s")) and (
            sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu_s >= limits["cpu_s"] - 0.05)
        )
        return {"code": code, "signal": sig, "cpu_s": round(cpu_s, 4), "cpu_limit": cpu_hit}

    # ---- one-shot runs

    def run_once(self, header: dict, blob: bytes) -> None:
        """Runs one program and reports its exit; leaves no process behind."""
        limits = header["limits"]
        tar_len = header.get("tar", 0)
        oom_before = self.oom_counter() if self.oom_counter else 0
        self.drop_privileges()
        try:
            write_tree(WORK, blob[:tar_len], self.identity)
        except _file_errors() as e:
            self.send({"t": "exit", "error": f"could not write the input files: {e}"})
            return
        started = time.monotonic()
        pid, out_r, err_r = self.spawn(header, blob[tar_len:])
        pipes = [_Pipe(out_r, 1, limits["output_bytes"]), _Pipe(err_r, 2, limits["output_bytes"])]

        def on_deadline():
            self.kill_all()
            return None

        timed_out = self.pump(
            pid,
            pipes,
            time.monotonic() + limits["wall_s"],
            interrupt=on_deadline,
            on_done=self.kill_all,
        )
        wall_s = time.monotonic() - started
        self.kill_all()
        fields = self._status_fields(pid, limits)
        files, errors = b"", {}
        if header.get("fetch"):
            files, errors = read_tree(WORK, header["fetch"], limits["disk_mb"] << 20)
        oom = bool(self.oom_counter and self.oom_counter() > oom_before)
        self.send(
            {
                "t": "exit",
                **fields,
                "timed_out": timed_out,
                "wall_s": round(wall_s, 6),
                "oom": oom,
                "out_total": pipes[0].total,
                "err_total": pipes[1].total,
                "fetch_errors": errors,
            },
            files,
        )

    # ---- sessions

    def serve_session(self, header: dict, blob: bytes) -> None:
        """Keeps state across calls until the host closes it or it sits idle too long."""
        self.discard_ready()
        try:
            self.drop_privileges()
            self.session = Session(self, header, blob)
        except _file_errors() as e:
            self.send({"t": "fail", "error": f"{type(e).__name__}: {e}"})
            return
        self.session.loop()
        self.session = None


class Session:
    """A sandbox that keeps its files, processes and (for ``python``) interpreter state."""

    def __init__(self, agent: Agent, header: dict, blob: bytes) -> None:
        self.agent = agent
        self.kind = header["kind"]
        self.limits = header["limits"]
        self.env = header["env"]
        self.idle_s = header["idle_s"]
        self.repl = None
        if header.get("copy_from"):
            self._copy_from(header["copy_from"])
        write_tree(WORK, blob, agent.identity)
        self.baseline = snapshot_tree(WORK, self.limits["disk_mb"] << 20)

    def _copy_from(self, source: str) -> None:
        import shutil

        # Entry by entry: /work itself belongs to root and keeps its own mode.
        for name in os.listdir(source):
            path = os.path.join(source, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.copytree(path, os.path.join(WORK, name), symlinks=True)
            else:
                shutil.copy2(path, os.path.join(WORK, name), follow_symlinks=False)
        if self.agent.identity is not None:
            uid, gid = self.agent.identity
            for dirpath, dirnames, filenames in os.walk(WORK):
                for name in dirnames + filenames:
                    os.chown(os.path.join(dirpath, name), uid, gid, follow_symlinks=False)

    def loop(self) -> None:
        agent = self.agent
        agent.send({"t": "ready"})
        while True:
            message = agent.next_message(timeout=self.idle_s)
            if message is None:
                agent.send({"t": "expired", "idle_s": self.idle_s})
                break
            header, blob = message
            kind = header.get("t")
            try:
                if kind == "close":
                    break
                if kind == "exec":
                    self.exec(header, blob)
                elif kind == "put":
                    write_tree(WORK, blob, agent.identity)
                    agent.send({"t": "ok"})
                elif kind == "get":
                    files, errors = read_tree(WORK, header["paths"], self.limits["disk_mb"] << 20)
                    agent.send({"t": "ok", "fetch_errors": errors}, files)
                elif kind == "diff":
                    now = snapshot_tree(WORK, self.limits["disk_mb"] << 20)
                    agent.send({"t": "ok"}, unified_diff(self.baseline, now).encode())
                else:
                    agent.send({"t": "fail", "error": f"unknown session command {kind!r}"})
            except _file_errors() as e:
                agent.send({"t": "fail", "error": f"{type(e).__name__}: {e}"})
        self._stop_repl()
        agent.kill_all()
        agent.send({"t": "closed"})

    def exec(self, header: dict, blob: bytes) -> None:
        limits = {**self.limits, "wall_s": header.get("wall_s") or self.limits["wall_s"]}
        if self.kind == "python":
            self._exec_python(header["source"], limits)
            return
        spec = {"argv": ["bash", "-c", header["source"]], "env": self.env, "limits": limits}
        agent = self.agent
        pid, out_r, err_r = agent.spawn(spec, blob)
        pipes = [_Pipe(out_r, 1, limits["output_bytes"]), _Pipe(err_r, 2, limits["output_bytes"])]

        def interrupt():
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            return None

        timed_out = agent.pump(pid, pipes, time.monotonic() + limits["wall_s"], interrupt=interrupt)
        agent.send(
            {
                "t": "exit",
                **agent._status_fields(pid, limits),
                "timed_out": timed_out,
                "out_total": pipes[0].total,
                "err_total": pipes[1].total,
            }
        )

    # ---- the Python REPL

    def _start_repl(self) -> None:
        parent_sock, child_sock = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        spec = {
            "inproc": None,
            "argv": None,
            "env": self.env,
            "limits": {**self.limits, "cpu_s": None},
        }
        pid = os.fork()
        if pid == 0:
            try:
                become_program((null, null, null), self.agent.identity, keep=child_sock.fileno())
                _apply_rlimits(spec["limits"])
                os.environ.clear()
                os.environ.update(spec["env"])
                repl_main(3)
            finally:
                os._exit(70)
        child_sock.close()
        os.close(null)
        self.repl = (pid, parent_sock)

    def _stop_repl(self) -> None:
        if self.repl is not None:
            pid, sock = self.repl
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            sock.close()
            self.repl = None

    def _exec_python(self, source: str, limits: dict) -> None:
        agent = self.agent
        notes = []
        if self.repl is None:
            self._start_repl()
        pid, sock = self.repl
        out_r, out_w = os.pipe2(os.O_CLOEXEC)
        err_r, err_w = os.pipe2(os.O_CLOEXEC)
        sock.setblocking(True)
        try:
            socket.send_fds(sock, [encode_frame({"source": source})], [out_w, err_w])
        except OSError:
            pass
        os.close(out_w)
        os.close(err_w)
        sock.setblocking(False)
        watch = _ReplyWatch(sock, pid, agent)
        escalation = [signal.SIGINT, signal.SIGKILL]

        def interrupt():
            try:
                os.kill(pid, escalation.pop(0))
            except (OSError, IndexError):
                return None
            return time.monotonic() + KILL_GRACE_S if escalation else None

        pipes = [_Pipe(out_r, 1, limits["output_bytes"]), _Pipe(err_r, 2, limits["output_bytes"])]
        timed_out = agent.pump(
            None, pipes, time.monotonic() + limits["wall_s"], interrupt=interrupt, stop_when=watch
        )
        if watch.reply is not None and pid not in agent.statuses:
            fields = {
                "code": 0 if watch.reply.get("ok") else 1,
                "signal": None,
                "cpu_s": 0.0,
                "cpu_limit": False,
            }
        else:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            while pid not in agent.statuses:
                agent.reap()
                time.sleep(0.001)
            fields = agent._status_fields(pid, limits)
            sock.close()
            self.repl = None
            notes.append(
                "the Python interpreter ended; its state was lost and a fresh one starts "
                "on the next call"
            )
        agent.send(
            {
                "t": "exit",
                **fields,
                "timed_out": timed_out,
                "notes": notes,
                "out_total": pipes[0].total,
                "err_total": pipes[1].total,
            }
        )


class _ReplyWatch:
    """``stop_when`` for a REPL cell: true once the interpreter replied or died."""

    def __init__(self, sock, pid, agent):
        self.sock, self.pid, self.agent = sock, pid, agent
        self.decoder = FrameDecoder(max_blob=0)
        self.reply = None
        self.ended = False

    def fileno(self):
        return self.sock.fileno()

    def __call__(self):
        if self.reply is not None or self.ended or self.pid in self.agent.statuses:
            return True
        try:
            data = self.sock.recv(1 << 16)
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            data = b""
        if not data:
            self.ended = True
            return True
        frames = self.decoder.feed(data)
        if frames:
            self.reply = frames[0][0]
        return self.reply is not None


def repl_main(channel_fd: int) -> None:
    """The persistent interpreter of a Python session: one cell per message, shared globals."""
    import ast
    import builtins
    import traceback
    import types

    sock = socket.socket(fileno=channel_fd)
    main = types.ModuleType("__main__")
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    sys.argv = [""]
    sys.path[0] = WORK
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_IGN)
    _fresh_std_streams()
    decoder = FrameDecoder(max_blob=0)
    null = os.open(os.devnull, os.O_RDWR)
    pending, fds = [], []
    while True:
        while not pending:
            msg, got, _, _ = socket.recv_fds(sock, 1 << 20, 2)
            if not msg:
                os._exit(0)
            fds.extend(got)
            pending.extend(decoder.feed(msg))
        header, _ = pending.pop(0)
        outputs, fds = fds[:2], fds[2:]
        if len(outputs) == 2:
            os.dup2(outputs[0], 1)
            os.dup2(outputs[1], 2)
        for fd in outputs:
            os.close(fd)
        ok, error = True, None
        try:
            tree = ast.parse(header["source"], "<cell>", "exec")
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Expression(tree.body.pop().value)
            exec(compile(tree, "<cell>", "exec"), main.__dict__)
            if last is not None:
                value = eval(compile(last, "<cell>", "eval"), main.__dict__)
                sys.displayhook(value)
        except SystemExit as e:
            ok, error = False, f"SystemExit: {e.code!r} (ignored: the session keeps running)"
            sys.stderr.write(error + "\n")
        except BaseException as e:
            ok = False
            error = "".join(traceback.format_exception_only(type(e), e)).strip()
            _report(e)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        os.dup2(null, 1)
        os.dup2(null, 2)
        try:
            sock.sendall(encode_frame({"ok": ok, "error": error}))
        except OSError:
            os._exit(0)


# --------------------------------------------------------------------------- local roles


def _build_root(cfg: dict) -> None:
    """Builds the read-only root at ``cfg['stage']`` from ``cfg['source']`` and pivots into it."""
    source, new = cfg["source"], cfg["stage"]
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4096,mode=755")
    for name in ROOT_DIRS:
        path = os.path.join(source, name)
        if os.path.islink(path):
            os.symlink(os.readlink(path), os.path.join(new, name))
        elif os.path.isdir(path):
            os.mkdir(os.path.join(new, name), 0o755)
            bind_readonly(path, os.path.join(new, name))
    for name, mode in (
        ("proc", 0o555),
        ("work", 0o755),
        ("tmp", 0o1777),
        (".sb", 0o700),
        ("dev", 0o755),
    ):
        os.mkdir(os.path.join(new, name), mode)
        os.chmod(os.path.join(new, name), mode)
    dev = os.path.join(new, "dev")
    for name in DEVICES:
        open(os.path.join(dev, name), "w").close()
        mount(os.path.join("/dev", name), os.path.join(dev, name), None, MS_BIND)
    os.mkdir(os.path.join(dev, "shm"), 0o1777)
    os.chmod(os.path.join(dev, "shm"), 0o1777)
    for name, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        os.symlink(target, os.path.join(dev, name))
    proc_ok = True
    try:
        mount("proc", os.path.join(new, "proc"), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError:
        proc_ok = False
    os.chdir(new)
    pivot_root(".", ".")
    umount(".", MNT_DETACH)
    os.chdir("/")
    mount(None, "/", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    cfg["proc"] = proc_ok


def starter_main(cfg: dict) -> None:
    """Host side: enter the namespaces, let the host map ids, build the root, exec the zygote."""
    sync_w, sync_r = cfg["sync_w"], cfg["sync_r"]
    flags = (
        CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP
    )
    unshare(flags)
    write_all(sync_w, b"U")
    if os.read(sync_r, 1) != b"M":
        os._exit(3)
    os.setgroups([])
    os.setresgid(0, 0, 0)
    os.setresuid(0, 0, 0)
    os.close(sync_w)
    os.close(sync_r)
    pid = os.fork()
    if pid:
        _, status = os.waitpid(pid, 0)
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    _build_root(cfg)
    sethostname("sandbox")
    os.set_inheritable(cfg["ctl_fd"], True)
    zygote_cfg = {
        "ctl_fd": cfg["ctl_fd"],
        "preload": cfg["preload"],
        "proc": cfg["proc"],
        "warm": cfg["warm"],
    }
    os.execve(
        cfg["python"],
        [cfg["python"], "-s", "-c", cfg["source_code"], "zygote", json.dumps(zygote_cfg)],
        {},
    )


class SlotNetworks:
    """The network namespace of each slot, made on first use and kept by the zygote.

    Making a network namespace and tearing it down is the dearest part of a sandbox's
    start (sysctl tables, the loopback device, then a kernel worker's clean-up). A slot is
    held by one live sandbox at a time and is freed only once every process of its last
    holder is dead, so the sandboxes that hold a slot in turn can share its namespace: no
    process or socket of an earlier run survives in it, and TIME_WAIT is off
    (``tcp_max_tw_buckets`` 0), so a port one run closed is free for the next. What
    carries over is counters (``/proc/net/dev``). Where any of this cannot be set up,
    every sandbox gets a fresh namespace instead.
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._fds: dict = {}

    def get(self, slot: int) -> int:
        """A descriptor of ``slot``'s namespace, or -1 (then clone a fresh one)."""
        fd = self._fds.get(slot, -1)
        if fd < 0 and self.enabled:
            try:
                fd = self._fds[slot] = self._make()
            except OSError:
                self.enabled = False
                return -1
        return fd

    @staticmethod
    def _make() -> int:
        parent, child = socket.socketpair()
        pid = os.fork()
        if pid == 0:
            try:
                parent.close()
                unshare(CLONE_NEWNET)
                loopback_up()
                with open("/proc/sys/net/ipv4/tcp_max_tw_buckets", "w") as f:
                    f.write("0")
                child.sendall(b"1")
                child.recv(1)
            finally:
                os._exit(0)
        child.close()
        try:
            parent.settimeout(10.0)
            if parent.recv(1) != b"1":
                raise OSError("could not make a network namespace")
            return os.open(f"/proc/{pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        finally:
            parent.close()
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def zygote_main(cfg: dict) -> None:
    """Clones one sandbox per request; holds no payload of its own, only run sockets.

    The zygote keeps each sandbox's socket until it has reaped the sandbox's PID 1, then
    sends the exit status there (``reaped``): for a program that ran in PID 1 itself,
    nothing inside the sandbox survives to report it.
    """
    import gc
    import importlib

    for name in cfg["preload"]:
        try:
            importlib.import_module(name)
        except Exception:
            pass
    _warm_up()
    ctl = socket.socket(fileno=cfg["ctl_fd"])
    null = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(null, target)
    os.close(null)
    runs: dict = {}

    def reap(*_):
        while True:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            fd = runs.pop(pid, None)
            if fd is None:
                continue
            try:
                write_all(fd, encode_frame({"t": "reaped", **_status_of(status, usage)}))
            except OSError:
                pass
            os.close(fd)

    signal.signal(signal.SIGCHLD, reap)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Objects that exist now are never collected in the forks: keeping the collector off
    # them keeps their pages shared instead of copied on the first collection.
    gc.collect()
    gc.freeze()
    # Network namespaces of the slots, kept for the zygote's lifetime (see slot_network).
    nets = SlotNetworks(cfg["proc"])
    ready = {
        "t": "ready",
        "python": sys.version.split()[0],
        "proc": cfg["proc"],
        "preloaded": sorted(m for m in cfg["preload"] if m in sys.modules),
    }
    ctl.sendall(encode_frame(ready))
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(ctl, 1 << 16, 1)
        except OSError:
            os._exit(0)
        if not msg:
            os._exit(0)
        try:
            header = json.loads(msg[FRAME.size :])
        except ValueError:
            header = None
        if header is None or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            continue
        flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS
        # SIGCHLD waits until the new pid is recorded, so that its status is never lost.
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
        header["netns"] = -1
        if not header.get("network"):
            header["netns"] = nets.get(header["slot"])
            if header["netns"] < 0:
                flags |= CLONE_NEWNET
        try:
            pid = clone_into(flags)
        except OSError:
            pid = -1
        if pid == 0:
            _agent_process(header, fds[0], cfg)
        if pid < 0:
            pid = _fork_then_unshare(flags, header, fds[0], cfg)
        if pid > 0:
            runs[pid] = fds[0]
        else:
            os.close(fds[0])
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])


def _fork_then_unshare(flags: int, header: dict, fd: int, cfg: dict) -> int:
    """Where ``clone_into`` cannot be used: a child unshares and forks the sandbox's PID 1.

    The child waits for PID 1 and exits with nothing to say; PID 1's status goes to the
    run's socket from that child (it is the one that can reap it).
    """
    pid = os.fork()
    if pid:
        return pid
    try:
        unshare(flags)
        inner = os.fork()
        if inner == 0:
            _agent_process(header, fd, cfg)
        _, status, usage = os.wait4(inner, 0)
        write_all(fd, encode_frame({"t": "reaped", **_status_of(status, usage)}))
    finally:
        os._exit(0)


def _status_of(status: int, usage) -> dict:
    return {
        "code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 4),
    }


def _tmpfs_options(disk_mb: int) -> str:
    return f"size={disk_mb}m,nr_inodes={max(1024, disk_mb * 64)}"


def _warm_up() -> None:
    """Loads, once in the zygote, what every agent would otherwise load after its fork."""
    import ctypes  # noqa: F401
    import fcntl  # noqa: F401
    import math  # noqa: F401
    import resource  # noqa: F401
    import types  # noqa: F401

    libc = _libc()
    for name in ("unshare", "mount", "umount2", "prctl", "syscall", "sethostname"):
        getattr(libc, name)
    encode_frame({"t": "warm"})
    FrameDecoder(1).feed(b"")


_CLONE_NR = {"x86_64": 56, "aarch64": 220, "riscv64": 220}
_PYLIBC = None


def clone_into(flags: int) -> int:
    """Forks straight into new namespaces with one ``clone(2)``; returns 0 in the child.

    ``os.fork`` then ``unshare`` would cost a second fork for the new PID namespace. The
    interpreter's fork hooks are skipped: they re-create locks no other thread can hold
    here (the zygote never starts a thread) and run ``os.register_at_fork`` callbacks,
    and on a machine where a page fault is dear they cost more than the rest of a run.
    What those callbacks matter for, the program's own state, is redone where it runs
    (see :func:`_run_python_in_process`). glibc's cached thread id stays right because
    the zygote is PID 1 of its namespace and the child is PID 1 of its own. Returns -1
    where the clone ABI is unknown (the caller then forks).
    """
    global _PYLIBC
    import ctypes

    number = _CLONE_NR.get(_MACHINE)
    if number is None:
        return -1
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return -1
    if _PYLIBC is None:
        # PyDLL keeps the GIL held across the call, so the child resumes holding it.
        _PYLIBC = ctypes.PyDLL(None, use_errno=True)
        _PYLIBC.syscall.restype = ctypes.c_long
        _PYLIBC.syscall.argtypes = [
            ctypes.c_long,
            ctypes.c_ulong,
            ctypes.c_void_p,
            ctypes.c_void_p,
            ctypes.c_void_p,
            ctypes.c_void_p,
        ]
    pid = _PYLIBC.syscall(number, flags | signal.SIGCHLD, None, None, None, None)
    if pid < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"clone: {os.strerror(err)}")
    return pid


def _mount_writable(disk_mb: int, slot_id: int) -> None:
    """Mounts a fresh tmpfs of ``disk_mb`` on /work (the slot's), /tmp and /dev/shm (root's)."""
    options = _tmpfs_options(disk_mb) + ",mode=755"
    mount("tmpfs", "/.sb", "tmpfs", MS_NOSUID | MS_NODEV, options)
    for name, mode, target, owner in (
        ("work", 0o755, WORK, slot_id),
        ("tmp", 0o1777, "/tmp", 0),
        ("shm", 0o1777, "/dev/shm", 0),
    ):
        os.mkdir(f"/.sb/{name}")
        os.chmod(f"/.sb/{name}", mode)
        os.chown(f"/.sb/{name}", owner, owner)
        mount(f"/.sb/{name}", target, None, MS_BIND)
    umount("/.sb", MNT_DETACH)


def _serve_runs(sock, decoder, request: dict, fds: list, slot_id: int, disk_mb: int) -> None:
    """Runs programs one after another in this sandbox, renewing it between them; never returns.

    The agent takes the slot's uid for good but keeps its capabilities in the permitted
    set only (no new privileges; programs start with none). Between two runs, on the
    host's ``renew``, it raises them to mount a fresh tmpfs on /work, /tmp and /dev/shm
    and to enter a fresh IPC namespace, then says ``ready`` with the new /work. Every
    process of the earlier run is dead by then (see :func:`kill_everyone_else`). The
    run's rlimits are this process's own, so every run it serves must have the same.
    """
    rlimits = _rlimit_key(request["limits"])
    _take_identity((slot_id, slot_id), keep_caps=True)
    permitted = capabilities()[1]
    while True:
        t = request.get("t")
        if t == "run":
            if _rlimit_key(request["limits"]) != rlimits:
                for extra in fds:
                    os.close(extra)
                error = "this sandbox serves runs with other limits"
                sock.sendall(encode_frame({"t": "exit", "error": error}))
            else:
                _run_here(sock, request, fds, None, False, stay=True)
        elif t == "renew":
            os.chdir("/")
            set_capabilities(permitted, permitted)
            try:
                for target in (WORK, "/tmp", "/dev/shm"):
                    umount(target, MNT_DETACH)
                _mount_writable(disk_mb, slot_id)
                unshare(CLONE_NEWIPC)
            finally:
                set_capabilities(0, permitted)
            clear_keyrings()
            work = os.open(WORK, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            socket.send_fds(sock, [encode_frame({"t": "ready"})], [work])
            os.close(work)
        fds = []
        request, _ = _receive(sock, decoder, fds)


_RLIMIT_FIELDS = ("cpu_s", "disk_mb", "nofile", "pids", "nproc", "address_space_mb")


def _rlimit_key(limits: dict) -> tuple:
    """What of a run's limits a reused sandbox keeps as its own rlimits."""
    return tuple(limits.get(name) for name in _RLIMIT_FIELDS)


def _agent_process(header: dict, fd: int, cfg: dict) -> None:
    """PID 1 of a new sandbox: set-up as root of the user namespace, then one run or a session.

    Never returns. Only ``fd`` (the run's socket) stays open: the zygote's other
    descriptors (its control socket, the sockets of other runs) are closed first.
    """
    try:
        if header.get("netns", -1) >= 0:
            setns(header["netns"], CLONE_NEWNET)
        os.closerange(3, fd)
        os.closerange(fd + 1, 1 << 20)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        prctl(PR_SET_DUMPABLE, 0)
        slot_id = SLOT_UID_BASE + header["slot"]
        disk_mb = int(header["disk_mb"])
        _mount_writable(disk_mb, slot_id)
        if cfg["proc"]:
            try:
                mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2")
            except OSError:
                mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        if not header.get("network") and header.get("netns", -1) < 0:
            loopback_up()
        sock = socket.socket(fileno=fd)
        # The host writes the input files and reads the fetched ones through this
        # descriptor, so the sandbox's Python never parses them.
        work = os.open(WORK, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        socket.send_fds(sock, [encode_frame({"t": "hello"})], [work])
        os.close(work)
        decoder = FrameDecoder(max_blob=1 << 31)
        fds: list = []
        request, blob = _receive(sock, decoder, fds)
        if request.get("t") == "armed":
            if cfg.get("warm"):
                _warm_program()
            request, blob = _receive(sock, decoder, fds)
        if request.get("t") == "run" and request.get("reuse") and not request.get("inproc"):
            _serve_runs(sock, decoder, request, fds, slot_id, disk_mb)
        elif request.get("t") == "run":
            _run_here(sock, request, fds, (slot_id, slot_id), bool(cfg.get("warm")))
        elif request.get("t") == "session":
            for extra in fds:
                os.close(extra)
            agent = Agent(fd, fd, identity=(slot_id, slot_id))
            agent.decoder = decoder
            agent.serve_session(request, blob)
            agent.kill_all()
    except BaseException as e:
        try:
            error = f"sandbox agent failed: {type(e).__name__}: {e}"
            write_all(fd, encode_frame({"t": "exit", "error": error}))
        except BaseException:
            pass
    os._exit(0)


def _receive(sock, decoder, fds: list):
    """The next frame on ``sock``; descriptors that arrive on the way are added to ``fds``.

    A stream socket may hand over the bytes of several messages at once, with the
    descriptors of a later one, so descriptors are kept apart from frames.
    """
    while True:
        frames = decoder.feed(b"")
        if frames:
            decoder.push_back(frames[1:])
            return frames[0]
        data, got, _, _ = socket.recv_fds(sock, 1 << 20, 4)
        if not data:
            os._exit(0)
        fds.extend(got)
        decoder.push_back(decoder.feed(data))


def _run_here(sock, spec: dict, fds, identity, warmed: bool, stay: bool = False) -> None:
    """Runs one program from this sandbox's PID 1; never returns unless ``stay``.

    ``fds`` are the program's stdin, stdout and stderr, made by the host, which reads the
    output itself. Python source runs in this very process (forked from the warm
    zygote); its exit status reaches the host from the zygote. Any other program is
    spawned without a Python fork, this process staying as its init and reporting.
    ``identity`` None: this process already has the program's. ``stay``: report and
    return, to serve another run (see :func:`_serve_runs`).
    """
    limits = spec["limits"]
    stdin, out, err = fds
    if identity is not None:
        _take_identity(identity)
    os.chdir(WORK)
    os.umask(0o022)
    inproc = spec.get("inproc")
    if inproc is not None:
        for target, source in enumerate((stdin, out, err)):
            os.dup2(source, target)
        sock.close()
        os.closerange(3, 1 << 20)
        _apply_rlimits(limits, pid1=True)
        _run_python_in_process({**inproc, "env": spec["env"], "streams_ready": warmed})
    program = _resolve(spec["argv"][0], spec["env"])
    started = time.monotonic()
    if program is None:
        return _not_started(sock, fds, spec["argv"][0], "command not found", 127, stay)
    if (limits.get("address_space_mb") or 0) > limits["memory_mb"]:
        # This init takes the run's rlimits itself, so that the program starts from a
        # vfork with no Python in the child; the address-space limit is then a loose
        # backstop (a memory cgroup caps memory) that this process stays well under.
        _apply_rlimits({**limits, "pids": limits["pids"] + 1})
        try:
            pid = os.posix_spawn(
                program,
                spec["argv"],
                spec["env"],
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, stdin, 0),
                    (os.POSIX_SPAWN_DUP2, out, 1),
                    (os.POSIX_SPAWN_DUP2, err, 2),
                ],
                setsid=True,
                setsigdef=_AGENT_SIGNALS,
                setsigmask=(),
            )
        except OSError as e:
            code = 127 if e.errno == 2 else 126
            return _not_started(sock, fds, spec["argv"][0], e.strerror, code, stay)
    else:
        # Without a memory cgroup, RLIMIT_AS is the memory limit itself: only the
        # program takes it, in a forked child.
        pid = os.fork()
        if pid == 0:
            try:
                become_program((stdin, out, err), None)
                launch({**spec, "inproc": None})
            except BaseException as e:
                _die_starting(e)
    for source in (stdin, out, err):
        os.close(source)
    while True:
        done, status, usage = os.wait4(-1, 0)
        if done == pid:
            break
    fields = _status_of(status, usage)
    sig = fields["signal"]
    # SIGXCPU comes at the soft limit; SIGKILL (at the hard one) only if SIGXCPU was handled.
    cpu_limit = limits.get("cpu_s")
    fields["cpu_limit"] = bool(cpu_limit) and (
        sig == signal.SIGXCPU or (sig == signal.SIGKILL and fields["cpu_s"] >= 0.8 * cpu_limit)
    )
    return _report_status(sock, fields, time.monotonic() - started, stay)


def _not_started(sock, fds, name: str, why: str, code: int, stay: bool) -> None:
    """Reports a program that could not start as a shell would (``code`` 127 or 126)."""
    os.write(fds[2], f"sandbox: {name}: {why}\n".encode())
    for fd in fds:
        os.close(fd)
    fields = {"code": code, "signal": None, "cpu_s": 0.0, "cpu_limit": False}
    return _report_status(sock, fields, 0.0, stay)


def _take_identity(identity, keep_caps: bool = False) -> None:
    """Drops to the sandbox's uid for good: no new privileges, not dumpable, keyrings empty.

    ``keep_caps``: keep the capabilities in the permitted set only (none effective,
    inheritable or ambient, so programs this process starts have none); see
    :func:`_serve_runs`. Otherwise the uid change drops them all.
    """
    uid, gid = identity
    os.setgroups([])
    if keep_caps:
        prctl(PR_SET_KEEPCAPS, 1)
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    prctl(PR_SET_DUMPABLE, 0)
    if keep_caps:
        set_capabilities(0, capabilities()[1])
        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    clear_keyrings()


def kill_everyone_else(statuses=None) -> None:
    """From a namespace's PID 1: SIGKILL every other process it may signal, then reap all.

    One ``kill(-1)`` is enough: a process forked while it runs either is signalled too or
    was forked by a process the kernel then refuses to let fork. Every process of the
    namespace ends up a child of PID 1, so waiting until there is no child left means
    every one of them is gone. ``statuses`` collects ``{pid: (status, cpu seconds)}``.
    """
    try:
        os.kill(-1, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    while True:
        try:
            pid, status, usage = os.wait3(0)
        except ChildProcessError:
            return
        except InterruptedError:
            continue
        if statuses is not None:
            statuses[pid] = (status, usage.ru_utime + usage.ru_stime)


def _report_status(sock, fields: dict, wall_s: float, stay: bool = False) -> None:
    """Kills what the program left and sends its status; then ends the sandbox unless ``stay``."""
    kill_everyone_else()
    try:
        sock.sendall(encode_frame({"t": "exit", **fields, "wall_s": round(wall_s, 6)}))
    except OSError:
        os._exit(0)
    if not stay:
        os._exit(0)


# --------------------------------------------------------------------------- docker role


def _docker_oom_counter():
    """Reads the container's cgroup OOM-kill count (cgroup v2, then v1); None if unreadable."""
    for path, key in (
        ("/sys/fs/cgroup/memory.events", "oom_kill"),
        ("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill"),
    ):
        try:
            with open(path) as f:
                for line in f:
                    name, _, value = line.partition(" ")
                    if name == key:
                        return lambda p=path, k=key: _read_counter(p, k)
        except OSError:
            continue
    return None


def _read_counter(path: str, key: str) -> int:
    with open(path) as f:
        for line in f:
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    return 0


def docker_main(cfg: dict) -> None:
    """PID 1 of a container: serves runs one after another, or one session."""
    rfd, wfd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    for fd in (rfd, wfd):
        os.set_inheritable(fd, False)
    prctl(PR_SET_DUMPABLE, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    agent = Agent(rfd, wfd, identity=None, oom_counter=_docker_oom_counter())
    agent.prespawn()
    agent.send(
        {"t": "hello", "python": sys.version.split()[0], "oom": agent.oom_counter is not None}
    )
    while True:
        header, blob = agent.next_message()
        if header.get("t") == "run":
            agent.run_once(header, blob)
        elif header.get("t") == "session":
            agent.serve_session(header, blob)
            os._exit(0)
        agent.kill_all()
        for path in (WORK, "/tmp", "/dev/shm"):
            wipe_dir(path)
        agent.prespawn()
        agent.send({"t": "ready"})


def main(argv) -> None:
    """Dispatches on the role named in ``argv[1]``."""
    role, cfg = argv[1], json.loads(argv[2])
    if role == "starter":
        with open(cfg.pop("source_file")) as f:
            cfg["source_code"] = f.read()
        starter_main(cfg)
    elif role == "zygote":
        zygote_main(cfg)
    elif role == "docker":
        docker_main(cfg)
    else:
        raise SystemExit(f"unknown role {role!r}")


if __name__ == "__main__":
    main(sys.argv)
