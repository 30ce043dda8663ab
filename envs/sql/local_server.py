"""A local PostgreSQL server for the SQL environments: ``palaestra db start|stop|status``.

    palaestra db start     # initdb on first use, then pg_ctl start; prints the DSN
    palaestra db status
    palaestra db stop

The cluster lives in a directory of the user's own, ``$PALAESTRA_DB_DIR`` or
``~/.cache/palaestra/postgres`` (``/var/cache/palaestra/postgres`` for root), and listens
only on a unix socket inside it (no TCP port), with ``trust`` authentication: only users who
can enter the directory can connect. Its superuser and database are both ``palaestra``;
the envs find it by themselves (`running_dsn`) when no DSN is given.

The binaries come from the PostgreSQL installation (Debian's ``postgresql`` package puts them
in ``/usr/lib/postgresql/<version>/bin``; ``apt-get install postgresql``). PostgreSQL refuses
to run as root, so under root the server runs as the ``postgres`` user, which then owns the
data directory.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
from pathlib import Path

PORT = 54329
ROLE = DATABASE = "palaestra"
DIR_VARIABLE = "PALAESTRA_DB_DIR"


class ServerError(RuntimeError):
    """The local server could not be started, stopped or found."""


def default_directory() -> Path:
    """Where the cluster lives: ``$PALAESTRA_DB_DIR``, else a cache directory."""
    if os.environ.get(DIR_VARIABLE):
        return Path(os.environ[DIR_VARIABLE])
    if os.geteuid() == 0:
        return Path("/var/cache/palaestra/postgres")
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "palaestra" / "postgres"


def bin_directory() -> Path:
    """The directory holding ``initdb`` and ``pg_ctl`` (the newest installed version)."""
    versions = {
        Path(found).parent.parent.name: Path(found).parent
        for found in glob.glob("/usr/lib/postgresql/*/bin/initdb")
    }
    numbered = sorted((int(v), path) for v, path in versions.items() if v.isdigit())
    if numbered:
        return numbered[-1][1]
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    raise ServerError(
        "no PostgreSQL server binaries (initdb, pg_ctl) found; install them with "
        "`apt-get install postgresql` (Debian/Ubuntu) or your system's postgresql package"
    )


def dsn(directory: Path | None = None) -> str:
    """The DSN of the local server in ``directory``."""
    socket_dir = (directory or default_directory()) / "data"
    return f"postgresql://{ROLE}@/{DATABASE}?host={socket_dir}&port={PORT}"


def _pid(directory: Path) -> int | None:
    """The postmaster's process id if it is running, else None."""
    try:
        pid = int((directory / "data" / "postmaster.pid").read_text().split("\n", 1)[0])
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def running_dsn(directory: Path | None = None) -> str | None:
    """The DSN of the local server if it is running, else None."""
    directory = directory or default_directory()
    return dsn(directory) if _pid(directory) is not None else None


def _server_user() -> dict[str, object]:
    """Keyword arguments that run a subprocess as the server's user (``postgres`` under root)."""
    if os.geteuid() != 0:
        return {}
    try:
        entry = pwd.getpwnam("postgres")
    except KeyError as e:
        raise ServerError(
            "PostgreSQL cannot run as root and there is no 'postgres' user; run "
            "`palaestra db start` as a normal user, or install the postgresql package"
        ) from e
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}


def _run(command: list[str], what: str) -> None:
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=120, check=False, **_server_user()
    )
    if result.returncode != 0:
        raise ServerError(f"{what} failed ({result.returncode}): {result.stderr.strip()}")


def start(directory: Path | None = None) -> str:
    """Starts the local server (creating the cluster on first use) and returns its DSN."""
    directory = directory or default_directory()
    if _pid(directory) is not None:
        return dsn(directory)
    binaries = bin_directory()
    data = directory / "data"
    directory.mkdir(parents=True, exist_ok=True)
    fresh = not (data / "PG_VERSION").exists()
    if fresh:
        data.mkdir(mode=0o700, exist_ok=True)
        owner = _server_user()
        if owner:
            os.chown(data, owner["user"], owner["group"])
        _run(
            [str(binaries / "initdb"), "-D", str(data), "-U", ROLE, "--auth=trust",
             "--encoding=UTF8", "--locale=C"],
            "initdb",
        )
    _run(
        [str(binaries / "pg_ctl"), "-D", str(data), "-l", str(data / "server.log"), "-w",
         "-o", f"-c listen_addresses='' -c unix_socket_directories='{data}' -p {PORT}",
         "start"],
        "pg_ctl start",
    )
    if fresh:
        _create_database(directory)
    return dsn(directory)


def _create_database(directory: Path) -> None:
    import psycopg  # noqa: PLC0415 (an optional dependency)

    admin = dsn(directory).replace(f"/{DATABASE}?", "/postgres?")
    with psycopg.connect(admin, autocommit=True) as connection:
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)
        ).fetchone()
        if exists is None:
            connection.execute(f"CREATE DATABASE {DATABASE}")


def stop(directory: Path | None = None) -> bool:
    """Stops the local server; returns False when it was not running."""
    directory = directory or default_directory()
    if _pid(directory) is None:
        return False
    _run([str(bin_directory() / "pg_ctl"), "-D", str(directory / "data"), "-m", "fast", "-w",
          "stop"], "pg_ctl stop")
    return True
