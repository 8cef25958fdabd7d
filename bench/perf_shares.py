"""Where apx's CPU goes, from a `perf record -g` of its JVM (bench/perf-one): each sample's call stack put in
one bucket, the buckets as shares of the samples and, given the requests served while perf recorded, as
µs of CPU per request.

usage: python bench/perf_shares.py PERF_DATA [--requests N] [--hz 999] [--top 12] [--by-thread]

A sample's bucket is decided from its stack, the first rule that matches winning:
  JIT compiler, GC, other JVM  a thread of HotSpot's own (C1/C2 compiler threads, GC workers, the VM thread)
  GIL hand-offs        CPython taking or dropping its GIL (take_gil, drop_gil, PyEval_RestoreThread /
                       SaveThread, PyGILState_*), kernel futex time beneath it included
  Java monitor contention  a thread entering a `synchronized` block another holds (HotSpot's spinning and
                       parking beneath it included)
  kernel: ...          the sample's leaf is in the kernel; split by the system call or softirq on the stack
                       (socket writes, socket reads, epoll, futex wake/wait, other)
  CPython interpreter  libpython and CPython extension modules (uvloop, pydantic-core, ...)
  HTTP codec           Netty's io.netty.handler.codec (HTTP decoder and encoder)
  bridge/FFM           apx's own classes (dev.apx), java.lang.foreign and jdk.internal.foreign, FFM stubs
  Netty I/O            the rest of io.netty (channels, pipeline, buffers, event loops, the native transport)
  other Java           JIT-compiled or interpreted code of the JDK's own (collections, strings, locks)
  libc, other          what is left (libc, libjvm called from Java: allocation slow paths, safepoints)
JIT-compiled frames are named by the JVM's perf map (/tmp/perf-PID.map: -XX:+DumpPerfMapAtExit or
`jcmd PID Compiler.perfmap`); without it they are [unknown] in "other Java".
"""
import argparse
import collections
import re
import subprocess
import sys

GIL = re.compile(r"^(take_gil|drop_gil|PyEval_RestoreThread|PyEval_SaveThread|PyEval_AcquireThread|PyEval_ReleaseThread|"
                 r"PyGILState_Ensure|PyGILState_Release|_PyEval_EvalFrame.*gil|PyThread_acquire_lock_timed|"
                 r"_PyThreadState_Swap|PyEval_AcquireLock)")
# a `synchronized` block another thread holds: HotSpot spins (SpinPause), then parks the thread
MONITOR = re.compile(r"^(SharedRuntime::complete_monitor_locking|ObjectMonitor::enter|LightweightSynchronizer::enter|"
                     r"C2 Runtime complete_monitor_locking)")
JVM_THREAD = [(re.compile(r"^(C1|C2) CompilerThre"), "JIT compiler"),
              (re.compile(r"^(GC Thread|G1 |VM Periodic|GC |G1Conc|G1 Refine|G1 Service|Serial)"), "GC"),
              (re.compile(r"^(VM Thread|VM Periodic Tas|Common-Cleaner|Signal Dispatch|Notification Thr)"), "other JVM")]
SYSCALLS = [("kernel: socket writes", re.compile(r"(sys_write|sys_writev|sys_sendto|sys_sendmsg|tcp_sendmsg)")),
            ("kernel: socket reads", re.compile(r"(sys_read|sys_readv|sys_recvfrom|sys_recvmsg|tcp_recvmsg)")),
            ("kernel: epoll", re.compile(r"(sys_epoll|ep_poll|do_epoll)")),
            ("kernel: futex (thread hand-offs)", re.compile(r"(sys_futex|futex_wait|futex_wake|do_futex)")),
            ("kernel: accept/close", re.compile(r"(sys_accept|sys_close|__fput|tcp_close)"))]


def samples(path):
    """(thread name, [(symbol, dso), ...] leaf first) per sample of `perf script`."""
    out = subprocess.run(["perf", "script", "-i", path, "-F", "comm,ip,sym,dso"], capture_output=True, text=True,
                         errors="replace", check=True).stdout
    comm, stack = None, []
    for line in out.splitlines():
        if not line.strip():
            continue
        if not line.startswith(("\t", " ")):  # a sample's first line: its thread's name
            if comm is not None:
                yield comm, stack
            comm, stack = line.strip(), []
            continue
        m = re.match(r"\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$", line)
        if m:
            stack.append((m.group(1), m.group(2)))
    if comm is not None:
        yield comm, stack


def bucket(comm, stack):
    for pattern, name in JVM_THREAD:
        if pattern.match(comm):
            return name
    if any(GIL.match(sym) for sym, _ in stack):
        return "GIL hand-offs"
    if any(MONITOR.match(sym) for sym, _ in stack):
        return "Java monitor contention"
    if not stack:
        return "other"
    leaf_sym, leaf_dso = stack[0]
    if "kernel" in leaf_dso:
        text = " ".join(sym for sym, dso in stack if "kernel" in dso)
        for name, pattern in SYSCALLS:
            if pattern.search(text):
                return name
        return "kernel: other (interrupts, scheduling, page faults)"
    if "_granian" in leaf_dso:  # a profile of Granian, for comparison: its Rust runtime and HTTP stack
        return "Granian (Rust: hyper, tokio, its ASGI glue)"
    if "libpython" in leaf_dso or ".cpython-" in leaf_dso or "site-packages" in leaf_dso:
        return "CPython interpreter"
    name = java_name(leaf_sym, leaf_dso)
    if name is None:
        if "libc" in leaf_dso or leaf_dso.startswith("[vdso]"):
            return "libc, vDSO"
        if "libjvm" in leaf_dso:
            return "libjvm from Java threads"
        if "netty" in leaf_dso:
            return "Netty I/O"
        return "other"
    return java_bucket(name)


JAVA_METHOD = re.compile(r"((?:[A-Za-z_$][\w$]*\.)+[\w$<>]+)\(")


def java_name(sym, dso):
    """The qualified Java method of a frame the perf map names ("void io.netty.X.m(...)"), "[jvm stub]" for the
    interpreter and stubs it names, else None (a native library's frame)."""
    if not dso.startswith("/tmp/perf-") and dso != "[unknown]":
        return None
    m = JAVA_METHOD.search(sym)
    return m.group(1) if m else "[jvm stub]"


def java_bucket(name):
    if name.startswith("io.netty.handler.codec"):
        return "HTTP codec"
    if name.startswith(("dev.apx", "java.lang.foreign", "jdk.internal.foreign")) or "Downcall" in name or "Upcall" in name:
        return "bridge/FFM"
    if name.startswith("io.netty"):
        return "Netty I/O"
    return "other Java"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data")
    p.add_argument("--requests", type=int, help="requests served while perf recorded: adds µs per request")
    p.add_argument("--hz", type=int, default=999, help="perf record's -F (default 999, bench/perf-one's)")
    p.add_argument("--top", type=int, default=12, help="the leaf symbols with the most samples (default 12)")
    p.add_argument("--by-thread", action="store_true", help="also the samples per thread name")
    options = p.parse_args(argv)
    counts, leaves, threads = collections.Counter(), collections.Counter(), collections.Counter()
    total = 0
    for comm, stack in samples(options.data):
        total += 1
        counts[bucket(comm, stack)] += 1
        threads[re.sub(r"[-#]?\d+$", "", comm)] += 1
        if stack:
            leaves[(stack[0][0][:90], stack[0][1].rsplit("/", 1)[-1])] += 1
    if not total:
        sys.exit(f"perf_shares: no samples in {options.data}")
    print(f"{total} samples ({total / options.hz:.2f} CPU-s)"
          + (f", {options.requests:,} requests: {1e6 * total / options.hz / options.requests:.1f} µs per request"
             if options.requests else ""))
    print("| bucket | share | µs/req |\n|---|---:|---:|")
    for name, n in counts.most_common():
        per = f"{1e6 * n / options.hz / options.requests:.1f}" if options.requests else ""
        print(f"| {name} | {100 * n / total:.1f} % | {per} |")
    if options.by_thread:
        print("\nsamples per thread name:")
        for name, n in threads.most_common():
            print(f"  {100 * n / total:5.1f} %  {name}")
    print(f"\ntop {options.top} leaf symbols:")
    for (sym, dso), n in leaves.most_common(options.top):
        print(f"  {100 * n / total:5.1f} %  {sym}  ({dso})")


if __name__ == "__main__":
    main(sys.argv[1:])
