package dev.apx.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/** A raw TCP client for what java.net.http cannot send: pipelining, malformed and chunked input. */
final class RawHttp {
    private RawHttp() {
    }

    /** Sends {@code request} and returns every byte until the server closes (ISO-8859-1), or "TIMEOUT" appended. */
    static String exchange(int port, String request) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return readAll(socket.getInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException e) {
            return out.toString(StandardCharsets.ISO_8859_1) + "TIMEOUT";
        } catch (java.net.SocketException e) {
            // connection reset: what we have is the answer
        }
        return out.toString(StandardCharsets.ISO_8859_1);
    }
}
