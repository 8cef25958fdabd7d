"""A throw-away PostgreSQL cluster for bench/run's database rows (Debian's postgresql package).

`initdb` into a new temp directory, `postgres` on a free port of 127.0.0.1 (its socket in the same
directory), the hello_world database made from bench/postgres-data.sql; stop() shuts it down
(fast shutdown) and deletes the directory. PostgreSQL refuses to run as root: as root, its
processes run as the `postgres` user and the directory is given to it.
"""
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

DATA_SQL = Path(__file__).resolve().parent / "postgres-data.sql"
DATABASE = "hello_world"
INSTALL_HINT = ("PostgreSQL is missing, the database rows need it (Debian: apt-get install postgresql); "
                "or leave those rows out with --only")
# A benchmark's data that is made again on every run: no need to survive a crash, so no waiting for
# the disk (a shared disk's fsync latency would be noise in the updates row).
SETTINGS = ["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
            "-c", "full_page_writes=off", "-c", "max_connections=200"]


class PostgresError(Exception):
    pass


def bin_dir():
    """The newest /usr/lib/postgresql/N/bin with postgres and initdb (or APX_BENCH_PG_BIN)."""
    candidates = [os.environ["APX_BENCH_PG_BIN"]] if os.environ.get("APX_BENCH_PG_BIN") else \
        sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(Path(d).parent.name), reverse=True)
    for directory in candidates:
        if all(os.access(Path(directory) / tool, os.X_OK) for tool in ("postgres", "initdb", "psql", "pg_isready")):
            return Path(directory)
    raise PostgresError(INSTALL_HINT)


def _cpus(cpu_list):
    """taskset's CPU list ("1", "0,1", "0-1") as a set of CPU numbers."""
    cpus = set()
    for part in cpu_list.split(","):
        first, _, last = part.partition("-")
        cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    def __init__(self, log, core=None):
        """core: the CPU list for taskset, or None to leave it unpinned."""
        self.bin = bin_dir()
        self.log = log
        self.core = core
        self.process = None
        self.directory = Path(tempfile.mkdtemp(prefix="apx-bench-pg-"))
        self.port = _free_port()
        self.dsn = f"postgresql://postgres@127.0.0.1:{self.port}/{DATABASE}"
        self._as_postgres = {}
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.directory, user.pw_uid, user.pw_gid)
            self._as_postgres = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}

    def start(self):
        try:
            return self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self):
        data = self.directory / "data"
        with open(self.log, "w") as out:
            made = subprocess.run([str(self.bin / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
                                   "-E", "UTF8", "--no-locale"], stdout=out, stderr=subprocess.STDOUT,
                                  cwd=self.directory, **self._as_postgres)
        if made.returncode != 0:
            raise PostgresError(f"initdb failed; see {self.log}")
        pin = ["taskset", "-c", self.core] if self.core else []
        with open(self.log, "a") as out:
            self.process = subprocess.Popen(pin + [str(self.bin / "postgres"), "-D", str(data), "-k", str(self.directory),
                                                   "-p", str(self.port)] + SETTINGS,
                                            stdout=out, stderr=subprocess.STDOUT, cwd=self.directory,
                                            start_new_session=True, **self._as_postgres)
        deadline = time.monotonic() + 60
        while subprocess.run([str(self.bin / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)]).returncode != 0:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise PostgresError(f"postgres did not start; see {self.log}:\n" + Path(self.log).read_text()[-2000:])
            time.sleep(0.2)
        self._psql("postgres", "-c", f"CREATE DATABASE {DATABASE}")
        self._psql(DATABASE, "-f", str(DATA_SQL))
        return self

    def _psql(self, database, *arguments):
        done = subprocess.run([str(self.bin / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
                               "-p", str(self.port), "-U", "postgres", "-d", database, *arguments],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise PostgresError(f"psql {' '.join(arguments)} failed: {done.stderr.strip()}")

    def place(self, core):
        """Moves the running PostgreSQL, the postmaster and every process it has forked (backends,
        writer, walwriter...), to the CPU list core (taskset's syntax), or to every CPU with None;
        backends forked later inherit the postmaster's CPUs. No restart, so the data stays loaded."""
        cpus = _cpus(core) if core else set(range(os.cpu_count()))
        pending = [self.process.pid]
        while pending:
            pid = pending.pop()
            try:
                os.sched_setaffinity(pid, cpus)
                with open(f"/proc/{pid}/task/{pid}/children") as f:
                    pending.extend(int(child) for child in f.read().split())
            except (ProcessLookupError, FileNotFoundError):
                pass  # a backend that just exited
        self.core = core

    def stop(self):
        """Fast shutdown (SIGINT: ends the sessions, no waiting for clients), then the directory goes."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()  # SIGKILL of the postmaster; its backends exit when they notice
                self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
