"""A FastAPI app that logs from its requests, at every level, from threads, and fails (LibraryLoggingTest)."""
import logging
import threading
import warnings

from fastapi import FastAPI

log = logging.getLogger("apxjava.logging_app")
app = FastAPI()


class Spy:
    """Counts how often a record's message is formatted: a record nobody sees must not be."""

    def __init__(self):
        self.formatted = 0

    def __str__(self):
        self.formatted += 1
        return "spy"


@app.get("/levels")
async def levels(tag: str):
    spy = Spy()
    log.log(5, "trace %s", tag)
    log.debug("debug %s %s", tag, spy)
    log.info("info %s", tag)
    log.warning("warning %s", tag)
    log.error("error %s", tag)
    log.critical("critical %s", tag)
    return {"debug_enabled": log.isEnabledFor(logging.DEBUG), "info_enabled": log.isEnabledFor(logging.INFO),
            "debug_formatted": spy.formatted}


def parse(tag):
    raise ValueError("not a number: " + tag)


@app.get("/caught")
async def caught(tag: str):
    try:
        parse(tag)
    except ValueError:
        log.exception("could not parse %s", tag)
    return {"ok": True}


@app.get("/fails")
async def fails(tag: str):
    raise RuntimeError("unhandled " + tag)


@app.get("/root")
async def root(tag: str):
    logging.info("root info %s", tag)
    warnings.warn("deprecated " + tag)
    return {"ok": True}


@app.get("/threads")
def threads(tag: str, count: int, each: int):
    """count threads log each records at once, beside the loop (this handler runs in the thread pool)."""
    def work(number):
        for record in range(each):
            log.info("thread %s %d %d", tag, number, record)

    started = [threading.Thread(target=work, args=(number,)) for number in range(count)]
    for thread in started:
        thread.start()
    for thread in started:
        thread.join()
    return {"records": count * each}


@app.get("/reentrant")
async def reentrant(tag: str):
    logging.getLogger("apxjava.logging_app.reentrant").warning("reentrant %s", tag)
    return {"ok": True}
