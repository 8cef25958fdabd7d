# Sourced by apx's scripts: exports JAVA_HOME as a JDK >= 25 (apx.jar's class files are Java 25's), preferring the one
# already in JAVA_HOME, else the newest under /usr/lib/jvm. Exits with a clear message if none.
apx_java_feature() { # prints the feature version of the java binary $1, or nothing
  # The JDK's release file answers without starting a JVM (each start costs ~0.1 s of CPU, per candidate).
  local release
  release=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$(dirname "$(dirname "$1")")/release" 2>/dev/null || true)
  if [ -n "$release" ]; then echo "$release"; return; fi
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p' | head -n 1
}
apx_pick_jdk() {
  local best="" best_version=0 candidate version
  for candidate in ${JAVA_HOME:+"$JAVA_HOME"} /usr/lib/jvm/*; do
    [ -x "$candidate/bin/java" ] && [ -x "$candidate/bin/javac" ] || continue
    version=$(apx_java_feature "$candidate/bin/java")
    [ -n "$version" ] || continue
    if [ "$candidate" = "${JAVA_HOME:-}" ] && [ "$version" -ge 25 ]; then best=$candidate; best_version=$version; break; fi
    if [ "$version" -gt "$best_version" ]; then best=$candidate; best_version=$version; fi
  done
  if [ -z "$best" ] || [ "$best_version" -lt 25 ]; then
    echo "apx: no JDK >= 25 found (checked \$JAVA_HOME and /usr/lib/jvm/*): install JDK 25, e.g. Temurin 25 or your distribution's openjdk-25-jdk" >&2
    exit 1
  fi
  export JAVA_HOME=$best
}
apx_pick_jdk
# Maven's own Guava calls sun.misc.Unsafe, which JDK 24+ warns about on every run.
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
# The jar an AOT cache was trained with, which bin/apx-aot writes to apx.aot.jar beside the cache. A cache
# used with another jar (an install moved or copied) gives its classes that jar's location: none when it
# is gone, or the other copy's, whose Python helpers apx would then load.
# apx_aot_trained_for JAR: prints the jar the cache beside JAR was trained with when that is not JAR
# (or "an unknown jar" without the record); prints nothing when they match.
apx_aot_trained_for() { # JAR
  local jar trained
  jar=$(readlink -f "$1")
  trained=$(cat "$(dirname "$jar")/apx.aot.jar" 2>/dev/null || true)
  [ "$trained" = "$jar" ] || echo "${trained:-an unknown jar}"
}
# The JVM options of every launcher, in APX_JAVA_ARGS: bin/jvm.options, the AOT cache beside JAR
# when there is one not older than JAR and trained with it (skipped with a second argument "train": a
# training run writes one), a second C2 thread below 4 CPUs, then $APX_JAVA_OPTS. A collector chosen in
# APX_JAVA_OPTS replaces the default one.
apx_java_args() { # JAR [train]
  local jar=$1 cache user=() aot=() rest=() out options other
  cache="$(dirname "$jar")/apx.aot"
  options="@$(dirname "${BASH_SOURCE[0]}")/jvm.options"
  other=""
  if [ -z "${2:-}" ] && [ -f "$cache" ] && [ ! "$cache" -ot "$jar" ]; then
    other=$(apx_aot_trained_for "$jar")
    [ -z "$other" ] || echo "apx: ignoring the AOT cache $cache: it was trained with $other, not this jar (bin/apx-aot trains one for it)" >&2
  fi
  if [ -z "${2:-}" ] && [ -f "$cache" ] && [ ! "$cache" -ot "$jar" ] && [ -z "$other" ]; then
    # The JVM checks the cache against the jar and the options; a mismatch only costs the speed-up.
    aot=("-XX:AOTCache=$cache" "-Xlog:aot=off")
    # With the cache's profiles (JEP 515), a method whose training run ended below C2 waits at C1's
    # tier 2 for 250x the usual calls before it is profiled for C2 (Tier2ProfileDelayFactor), so
    # FastAPI's request path reached C2 only after ~40k requests: 1 makes that ~4-13k (docs/startup.md).
    aot+=("-XX:+UnlockDiagnosticVMOptions" "-XX:Tier2ProfileDelayFactor=1")
  fi
  # Below 4 CPUs HotSpot runs a single C2 thread, which on a core shared with the request threads gets a
  # quarter to a third of it and compiles for 7-15 s under load; with a second one while its queue is long
  # (a C2 thread that idles exits again) the same work ends ~4 s sooner, for 1-8 MB more RSS under load.
  # From 4 CPUs on the default is 3 or more already (docs/startup.md, "JVM options").
  # nproc counts the CPUs this process may run on, but would also obey OpenMP's thread limits.
  if [ "$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc 2>/dev/null || echo 4)" -lt 4 ]; then
    rest+=("-XX:CICompilerCount=3")
  fi
  read -r -a user <<<"${APX_JAVA_OPTS:-}"
  if [[ " ${user[*]} " == *" -XX:+Use"*"GC "* ]]; then
    rest+=("-XX:-UseSerialGC")
  fi
  rest+=(${user[@]+"${user[@]}"})
  APX_JAVA_ARGS=("$options" ${aot[@]+"${aot[@]}"} ${rest[@]+"${rest[@]}"})
  # Except for one thing: a heap whose initial old generation cannot hold the cache's archived objects
  # (-Xmn at or near -Xms, -Xms8m) makes the JVM refuse to start at all ("Unable to use AOT cache.").
  # With options of the user's, ask the JVM first (0.2 s) and start without the cache if it refuses.
  if [ ${#aot[@]} -gt 0 ] && [ ${#user[@]} -gt 0 ]; then
    out=$("$JAVA_HOME/bin/java" "${APX_JAVA_ARGS[@]}" -jar "$jar" --version 2>&1 </dev/null || true)
    if [[ "$out" == *"Unable to use AOT cache"* ]]; then
      echo "apx: the JVM cannot use the AOT cache with APX_JAVA_OPTS='${APX_JAVA_OPTS}' (its heap is too small at start); starting without it" >&2
      APX_JAVA_ARGS=("$options" ${rest[@]+"${rest[@]}"})
    fi
  fi
}
# The scheduling policy of the server's threads, in APX_EXEC_PREFIX: SCHED_BATCH unless APX_SCHED=normal.
# Without wake-up preemption, a thread that hands work to another (Netty's and the asyncio loop's, on
# one core) finishes its pass before the woken one runs, instead of being switched out at each hand-off:
# fewer context switches, more work per switch (docs/server.md, "Scheduling policy").
apx_exec_prefix() {
  # Every runtime of --interpreters N past the 11th needs more static TLS than glibc reserves by
  # default, and glibc reads its tunables only when the process starts (docs/interpreters.md).
  case ":${GLIBC_TUNABLES:-}:" in
    *:glibc.rtld.optional_static_tls=*) ;;
    *) export GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.rtld.optional_static_tls=1024" ;;
  esac
  APX_EXEC_PREFIX=()
  if [ "${APX_SCHED:-batch}" != normal ] && command -v chrt >/dev/null 2>&1 && chrt -b 0 true 2>/dev/null; then
    APX_EXEC_PREFIX=(chrt -b 0)
  fi
}
