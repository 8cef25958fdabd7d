/**
 * A {@link dev.apx.PythonApp} served by a Jakarta Servlet 6.0 container (Jetty 12 ee10, Tomcat 11,
 * Spring Boot's embedded Tomcat) beside the service's own endpoints: {@link dev.apx.servlet.ApxServlet}.
 * HTTP requests reach the app with non-blocking I/O both ways; WebSocket upgrades reach an ASGI app's
 * {@code websocket} scope through the container's Jakarta WebSocket 2.1 support. The context path and
 * servlet path are the app's {@code root_path}.
 */
package dev.apx.servlet;
