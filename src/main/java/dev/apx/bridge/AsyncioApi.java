package dev.apx.bridge;

import dev.apx.python.Gil;
import dev.apx.python.PyRef;

/**
 * The Python functions and classes the driver calls on every request, looked up once
 * (asyncio's C accelerators where they exist). Owned for the bridge's life.
 */
record AsyncioApi(
        PyRef enterTask,
        PyRef leaveTask,
        PyRef setRunningLoop,
        PyRef requestTask,
        PyRef cancelledError,
        PyRef badYield,
        PyRef otherLoopError,
        PyRef asCoroutine,
        PyRef getLoop,
        PyRef coroutineType) {

    static AsyncioApi load(Gil gil) {
        try (PyRef tasks = gil.importModule("asyncio.tasks");
             PyRef events = gil.importModule("asyncio.events");
             PyRef futures = gil.importModule("asyncio.futures");
             PyRef bridge = gil.importModule("_apx._bridge");
             PyRef types = gil.importModule("types")) {
            return new AsyncioApi(
                    tasks.getAttr(gil, "_enter_task"),
                    tasks.getAttr(gil, "_leave_task"),
                    events.getAttr(gil, "_set_running_loop"),
                    bridge.getAttr(gil, "RequestTask"),
                    bridge.getAttr(gil, "cancelled_error"),
                    bridge.getAttr(gil, "bad_yield"),
                    bridge.getAttr(gil, "other_loop_error"),
                    bridge.getAttr(gil, "as_coroutine"),
                    futures.getAttr(gil, "_get_loop"),
                    types.getAttr(gil, "CoroutineType"));
        }
    }

    void close() {
        for (PyRef ref : new PyRef[] {enterTask, leaveTask, setRunningLoop, requestTask, cancelledError, badYield, otherLoopError, asCoroutine, getLoop, coroutineType}) {
            ref.close();
        }
    }
}
