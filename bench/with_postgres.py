"""Runs a command beside bench/run's PostgreSQL: python bench/with_postgres.py COMMAND [ARG...]

A fresh cluster with TechEmpower's World and Fortune tables (bench/postgres.py), pinned to core 1 as
bench/run pins it, named to the command in APX_BENCH_DSN (what bench/apps/db.py reads); stopped when the
command ends. E.g. a perf profile of the updates row:
  .venv/bench/bin/python bench/with_postgres.py bench/perf-one threads db:app '/updates?queries=5'
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from postgres import Postgres, PostgresError


def main(argv):
    if not argv:
        sys.exit(__doc__)
    try:
        database = Postgres(Path(tempfile.gettempdir()) / "apx-bench-postgres.log", core="1").start()
    except PostgresError as e:
        sys.exit(f"with_postgres: {e}")
    try:
        return subprocess.run(argv, env={**os.environ, "APX_BENCH_DSN": database.dsn}).returncode
    finally:
        database.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
