package dev.apx.bridge;

import dev.apx.python.Gil;
import dev.apx.python.PyRef;

/**
 * The Python functions and types the bridge calls on every request, looked up once. Owned for the
 * bridge's life.
 */
record AsyncioApi(PyRef setRunningLoop, PyRef startTask, PyRef asCoroutine, PyRef coroutineType) {

    static AsyncioApi load(Gil gil) {
        try (PyRef events = gil.importModule("asyncio.events");
             PyRef bridge = gil.importModule("_apx._bridge");
             PyRef types = gil.importModule("types")) {
            return new AsyncioApi(
                    events.getAttr(gil, "_set_running_loop"),
                    bridge.getAttr(gil, "start_task"),
                    bridge.getAttr(gil, "as_coroutine"),
                    types.getAttr(gil, "CoroutineType"));
        }
    }

    void close() {
        for (PyRef ref : new PyRef[] {setRunningLoop, startTask, asCoroutine, coroutineType}) {
            ref.close();
        }
    }
}
