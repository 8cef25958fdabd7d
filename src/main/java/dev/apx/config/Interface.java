package dev.apx.config;

/** The protocol an app speaks ({@code --interface}). */
public enum Interface {
    /** ASGI 3 or ASGI 2, told apart as Uvicorn does; never WSGI. */
    AUTO,
    /** An ASGI 3 app: {@code async def app(scope, receive, send)}. */
    ASGI3,
    /** An ASGI 2 app, served through an ASGI 3 adapter. */
    ASGI2,
    /** A WSGI app (Flask, Django's WSGI handler), run on the blocking threads. */
    WSGI
}
