/**
 * apx as a library: {@code dev.apx} (embed CPython, load an ASGI/WSGI app, call it in-process,
 * start apx's server), {@code dev.apx.config} (the server's typed configuration) and
 * {@code dev.apx.servlet} (serve an app in a Servlet 6.0 container).
 * Everything else is internal. Only {@code dev.apx.python} calls native code: run with
 * {@code --enable-native-access=dev.apx}.
 */
module dev.apx {
    exports dev.apx;
    exports dev.apx.config;
    exports dev.apx.servlet;
    // the command line's options are fields picocli sets
    opens dev.apx.cli to info.picocli;

    requires io.netty.common;
    requires io.netty.buffer;
    requires io.netty.transport;
    requires io.netty.codec;
    requires io.netty.codec.compression;
    requires io.netty.codec.http;
    requires io.netty.codec.http2;
    requires io.netty.handler;
    requires io.netty.transport.classes.epoll;
    requires io.netty.transport.unix.common;
    requires info.picocli;
    requires org.slf4j; // inside a host's JVM apx's lines and Python's records go to the host's SLF4J backend
    // optional Maven dependencies (the lean library): a host adds them for PEM keys other than PKCS#8
    // (BouncyCastle) and for --metrics (the Prometheus client); netty-tcnative needs no requires
    requires static org.bouncycastle.pkix;
    requires static org.bouncycastle.provider;
    requires static io.prometheus.metrics.core;
    requires static io.prometheus.metrics.model;
    requires static io.prometheus.metrics.exporter.common;
    requires static io.prometheus.metrics.exporter.httpserver;
    requires static io.prometheus.metrics.expositionformats;
    requires static io.prometheus.writer.text; // prometheus-metrics-exposition-textformats: the package io.prometheus.metrics.expositionformats
    requires static io.prometheus.metrics.instrumentation.jvm;
    requires java.management; // the JVM's metrics; RuntimesTest times threads with it
    requires java.net.http;
    requires jdk.unsupported; // sun.misc.Signal: the command line's SIGINT/SIGTERM
    requires static jakarta.servlet; // provided by the container
    requires static jakarta.websocket; // the container's, for WebSockets through ApxServlet (with jakarta.websocket.client)
}
