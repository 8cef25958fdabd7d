"""UvicornOptionsIT's app for --reset-contextvars (run with --interface asgi3): which contextvars a request sees.

Answers "<imported> <called> <leaked>", "-" for a variable not set: one set when this module is
imported, one the app's synchronous __call__ sets before its coroutine runs (as a middleware may),
one every request sets after it has answered (a later request must never see it).
"""
import contextvars

imported = contextvars.ContextVar("imported", default="-")
called = contextvars.ContextVar("called", default="")
leaked = contextvars.ContextVar("leaked", default="-")
imported.set("import")


class App:
    def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            called.set(called.get() + "+called")  # "+called+called" if a request saw another's
        return self.serve(scope, receive, send)

    async def serve(self, scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                await send({"type": message["type"] + ".complete"})
                if message["type"] == "lifespan.shutdown":
                    return
        body = ("%s %s %s" % (imported.get(), called.get(), leaked.get())).encode()
        leaked.set("leaked")
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


app = App()
