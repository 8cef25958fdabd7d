package dev.apx.server;

import dev.apx.server.api.Response;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A raw TCP client for what java.net.http cannot send: pipelining, malformed and chunked input. */
public final class RawHttp {
    private RawHttp() {
    }

    /** Sends {@code request} and returns every byte until the server closes (ISO-8859-1), or "TIMEOUT" appended. */
    public static String exchange(int port, String request) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return readAll(socket.getInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String readAll(InputStream in) throws IOException {
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

    /** One response as read off the wire; header names lower-cased, in order, duplicates kept. */
    public record Response(String statusLine, List<String[]> headers, String body) {
        int status() {
            return Integer.parseInt(statusLine.split(" ")[1]);
        }

        /** The values of header {@code name}, joined with ", "; null when absent. */
        String header(String name) {
            List<String> values = headers.stream().filter(h -> h[0].equals(name)).map(h -> h[1]).toList();
            return values.isEmpty() ? null : String.join(", ", values);
        }
    }

    /**
     * Reads one response from a connection that may stay open: the body framed by content-length,
     * chunked encoding (trailers dropped) or the close; none after HEAD ({@code head}), 1xx, 204 and 304.
     */
    public static Response read(InputStream in, boolean head) throws IOException {
        String statusLine = line(in);
        if (statusLine == null) {
            throw new java.io.EOFException("connection closed before a response");
        }
        List<String[]> headers = new ArrayList<>();
        for (String line; !(line = must(line(in))).isEmpty(); ) {
            int colon = line.indexOf(':');
            headers.add(new String[]{line.substring(0, colon).strip().toLowerCase(Locale.ROOT), line.substring(colon + 1).strip()});
        }
        Response bare = new Response(statusLine, headers, "");
        int status = bare.status();
        if (head || status < 200 || status == 204 || status == 304) {
            return bare;
        }
        if ("chunked".equalsIgnoreCase(bare.header("transfer-encoding"))) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            for (int size; (size = Integer.parseInt(must(line(in)).split(";")[0].strip(), 16)) > 0; ) {
                body.write(in.readNBytes(size));
                must(line(in));
            }
            while (!must(line(in)).isEmpty()) {
                // trailers
            }
            return new Response(statusLine, headers, body.toString(StandardCharsets.ISO_8859_1));
        }
        String length = bare.header("content-length");
        byte[] body = length != null ? in.readNBytes(Integer.parseInt(length)) : in.readAllBytes();
        return new Response(statusLine, headers, new String(body, StandardCharsets.ISO_8859_1));
    }

    private static String must(String line) throws java.io.EOFException {
        if (line == null) {
            throw new java.io.EOFException("connection closed in the middle of a response");
        }
        return line;
    }

    /** A CRLF-terminated line without its CRLF; null at the end of the stream before any byte. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b; (b = in.read()) >= 0; ) {
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int end = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, end, StandardCharsets.ISO_8859_1);
            }
            line.write(b);
        }
        if (line.size() == 0) {
            return null;
        }
        throw new java.io.EOFException("connection closed in the middle of a line");
    }
}
