/**
 * apx as a library: embed CPython in a JVM and serve a Python web app (FastAPI, Starlette, Django,
 * Flask: ASGI 3, ASGI 2 or WSGI) from Java.
 *
 * <ul>
 *   <li>{@link dev.apx.Apx#python} starts (once per interpreter executable) a {@link dev.apx.PythonRuntime};
 *       {@link dev.apx.PythonRuntime#app(dev.apx.AppOptions)} loads an app into it.</li>
 *   <li>{@link dev.apx.PythonApp#call} and {@link dev.apx.PythonApp#stream} hand the app an
 *       {@link dev.apx.AppRequest} in-process, with no socket, and give back an {@link dev.apx.AppResponse}
 *       or a {@link dev.apx.StreamedResponse}.</li>
 *   <li>{@link dev.apx.Apx#server} runs apx's own server (Netty: HTTP/1.1, HTTP/2, TLS, WebSockets) in this JVM.</li>
 * </ul>
 *
 * <p>The JVM needs native access ({@code --enable-native-access=ALL-UNNAMED} on the class path,
 * {@code --enable-native-access=dev.apx} on the module path). {@code dev.apx.servlet} serves an app
 * in a Jakarta Servlet container.
 */
package dev.apx;
