"""The Python half of each WSGI call (PEP 3333): environ, start_response, write, wsgi.input,
wsgi.errors and wsgi.file_wrapper. The Java half (dev.apx.wsgi) runs run() on one of its blocking
threads with the GIL held; the Java functions below release the GIL while they wait for request
bytes or for the client to drain.

java_send(handle, status, headers, chunk, more) -> True once the client is gone (stop producing);
    status and headers go with the first call only (None afterwards).
java_read(handle, size) -> up to size bytes (b"" at the end of the body), or None: the client left.
java_sendfile(handle, status, headers, fd, offset, count) -> True when Java took the file (zero copy).
java_log(text) -> one line to apx's log (wsgi.errors).
"""
import os
import stat
import sys


class ClientDisconnected(OSError):
    """The client went away while the app read the request body."""


class Input:
    """wsgi.input: the request body, streamed from Java as the app reads it (never all of it at once)."""

    __slots__ = ("_handle", "_read", "_buffer", "_eof")

    def __init__(self, handle, read, has_body):
        self._handle = handle
        self._read = read
        self._buffer = b""
        self._eof = not has_body

    def _more(self, size):
        chunk = self._read(self._handle, size)
        if chunk is None:
            raise ClientDisconnected("apx: the client disconnected before the request body was complete")
        if not chunk:
            self._eof = True
        return chunk

    def read(self, size=-1):
        if size is None or size < 0:
            parts = [self._buffer]
            self._buffer = b""
            while not self._eof:
                parts.append(self._more(65536))
            return b"".join(parts)
        data = self._buffer
        if len(data) >= size:
            self._buffer = data[size:]
            return data[:size]
        parts = [data]
        have = len(data)
        self._buffer = b""
        while have < size and not self._eof:
            chunk = self._more(size - have)
            parts.append(chunk)
            have += len(chunk)
        return b"".join(parts)

    def readline(self, size=-1):
        limit = size if size is not None and size >= 0 else sys.maxsize
        while True:
            end = self._buffer.find(b"\n", 0, limit)
            if end >= 0:
                return self.read(end + 1)
            if len(self._buffer) >= limit or self._eof:
                return self.read(min(limit, len(self._buffer)))
            self._buffer += self._more(65536)

    def readlines(self, hint=-1):
        lines = []
        total = 0
        while True:
            line = self.readline()
            if not line:
                return lines
            lines.append(line)
            total += len(line)
            if 0 < hint <= total:
                return lines

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line


class Errors:
    """wsgi.errors: text to apx's log, one line per log entry."""

    def __init__(self, log):
        self._log = log
        self._pending = ""

    def write(self, text):
        lines = (self._pending + text).split("\n")
        self._pending = lines.pop()
        for line in lines:
            self._log(line)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        if self._pending:
            self._log(self._pending)
            self._pending = ""


class FileWrapper:
    """wsgi.file_wrapper: iterable over a file's blocks; apx sends a real file with zero copies."""

    def __init__(self, filelike, blksize=8192):
        self.filelike = filelike
        self.blksize = blksize
        if hasattr(filelike, "close"):
            self.close = filelike.close

    def __iter__(self):
        return self

    def __next__(self):
        data = self.filelike.read(self.blksize)
        if data:
            return data
        raise StopIteration


# Iterators over a body already in memory (Django's HttpResponse is a list_iterator): joined and
# sent in one write, the end of the response included, since looking ahead cannot block.
_IN_MEMORY = (type(iter([])), type(iter(())))


def _regular_file(filelike):
    """(fd, offset, size) of a regular file at its current position, else None."""
    try:
        fd = filelike.fileno()
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        offset = filelike.tell()
    except (AttributeError, OSError, ValueError):
        return None
    return fd, offset, max(0, info.st_size - offset)


def runner(app, java_send, java_read, java_sendfile, java_log, multiprocess):
    """run(handle, fixed environ values..., headers dict, has_body): one request, start to close()."""

    def run(handle, method, script_name, path_info, query_string, protocol, scheme,
            server_name, server_port, remote_addr, remote_port, environ, has_body):
        environ["REQUEST_METHOD"] = method
        environ["SCRIPT_NAME"] = script_name
        environ["PATH_INFO"] = path_info
        environ["QUERY_STRING"] = query_string
        environ["SERVER_PROTOCOL"] = protocol
        environ["SERVER_NAME"] = server_name
        environ["SERVER_PORT"] = server_port
        if remote_addr is not None:
            environ["REMOTE_ADDR"] = remote_addr
            environ["REMOTE_PORT"] = remote_port
        environ["wsgi.version"] = (1, 0)
        environ["wsgi.url_scheme"] = scheme
        environ["wsgi.input"] = Input(handle, java_read, has_body)
        environ["wsgi.errors"] = Errors(java_log)  # one per request: its partial line is not shared between threads
        environ["wsgi.multithread"] = True
        environ["wsgi.multiprocess"] = multiprocess
        environ["wsgi.run_once"] = False
        environ["wsgi.input_terminated"] = True
        environ["wsgi.file_wrapper"] = FileWrapper

        # [status, headers, sent]: what start_response set, and whether Java has it
        response = [None, None, False]

        def start_response(status, headers, exc_info=None):
            if exc_info is not None:
                try:
                    if response[2]:
                        raise exc_info[1].with_traceback(exc_info[2])
                finally:
                    exc_info = None  # no frame <-> traceback cycle
            elif response[0] is not None:
                raise AssertionError("start_response() called again without exc_info")
            if status.__class__ is not str:
                raise TypeError("status must be a str, got %r" % (status,))
            if headers.__class__ is not list:
                raise TypeError("headers must be a list, got %r" % (headers,))
            response[0] = status
            response[1] = headers
            return write

        def send(chunk, more):
            if response[0] is None:
                raise AssertionError("the WSGI app sent body bytes before calling start_response()")
            if response[2]:
                return java_send(handle, None, None, chunk, more)
            response[2] = True
            return java_send(handle, response[0], response[1], chunk, more)

        def write(data):
            if data.__class__ is not bytes:
                if not isinstance(data, (bytes, bytearray, memoryview)):
                    raise TypeError("write() takes bytes, got %s" % type(data).__name__)
                data = bytes(data)
            if send(data, True):
                raise ClientDisconnected("apx: the client disconnected")

        result = app(environ, start_response)
        try:
            if result.__class__ is FileWrapper and response[0] is not None and not response[2]:
                file = _regular_file(result.filelike)
                if file is not None:
                    response[2] = True
                    if java_sendfile(handle, response[0], response[1], *file):
                        return
                    response[2] = False
            iterator = iter(result)
            if iterator.__class__ in _IN_MEMORY:
                send(b"".join(iterator), False)
                return
            for chunk in iterator:
                if chunk:
                    if chunk.__class__ is not bytes:
                        if not isinstance(chunk, (bytes, bytearray, memoryview)):
                            raise TypeError("the WSGI app yielded %s, not bytes" % type(chunk).__name__)
                        chunk = bytes(chunk)
                    if send(chunk, True):
                        return  # the client is gone: stop iterating (close() still runs)
            send(b"", False)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()

    return run
