"""`apx ...` (the console script) and `python -m apx ...`: replace this process with the server's JVM.

exec, not a child: SIGTERM/SIGINT from a terminal, systemd or Docker reach the JVM itself, and its
exit code is the command's.
"""

import os
import sys

from apx._java import JavaNotFound
from apx._launch import JarMissing, batch_scheduling, command, environment


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        java_command = command(args)
    except (JavaNotFound, JarMissing) as e:
        print("apx: error: %s" % e, file=sys.stderr)
        sys.exit(1)
    sys.stdout.flush()
    sys.stderr.flush()
    batch_scheduling()
    os.execve(java_command[0], java_command, environment())


if __name__ == "__main__":
    main()
