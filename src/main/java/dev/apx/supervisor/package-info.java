/**
 * {@code --workers N} and {@code --reload}: a small parent process above the serve lifecycle, as
 * Uvicorn's {@code supervisors/}. It never loads libpython nor imports the app: it binds the listening
 * socket once, starts each worker (a JVM running apx's serve path with its own CPython) and watches it.
 *
 * <p>The control socket (a Unix socket in a private temporary directory, {@code $APX_SUPERVISOR_SOCKET}
 * in each worker) carries, per worker:
 * <ol>
 *   <li>supervisor to worker, at connect: the listening socket's file descriptor (SCM_RIGHTS), so
 *       that every worker accepts from the one queue;</li>
 *   <li>worker to supervisor, lines: {@code ready} (serving), {@code recycle} (past
 *       {@code --limit-max-requests}: replace me), {@code pong}, {@code metrics PORT} (with
 *       {@code --metrics}: where it serves its series on 127.0.0.1, for the supervisor's endpoint);</li>
 *   <li>supervisor to worker, lines: {@code ping}, answered from the worker's asyncio loop thread, so
 *       a loop blocked by the app goes unanswered.</li>
 * </ol>
 * Each worker also has {@code $APX_WORKER_ID}: its slot 0..N-1, which its replacements take over.
 * Stopping is a signal (SIGTERM: drain, then exit), as with Uvicorn. A worker whose control socket
 * closes (the supervisor died) shuts itself down.
 */
package dev.apx.supervisor;
