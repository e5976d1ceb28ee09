"""Requests sent as bytes on a socket (what urllib will not send: a chunked body, a POST with no
Content-Length), for the servers' tests (attach_test.py, edit_test.py)."""
import socket


def exchange(port, request):
    """Sends `request` (bytes) to 127.0.0.1:port; the whole answer until the server closes, as text."""
    with socket.create_connection(("127.0.0.1", port)) as raw:
        raw.sendall(request)
        raw.settimeout(10)
        answer = b""
        while chunk := raw.recv(4096):
            answer += chunk
    return answer.decode("latin-1")


def chunked_post(port, path, body):
    """POSTs `body` (bytes) to 127.0.0.1:port as one chunk; the whole answer, as text (the
    servers close the connection after refusing such a body)."""
    return exchange(port, b"POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (
        path.encode(), port, len(body), body))


def bodiless_post(port, path):
    """POSTs to 127.0.0.1:port with neither a Content-Length nor a body, as `curl -X POST URL`
    does (a request whose body length is zero: RFC 9112 6.3), then closes its side; the status
    line and the rest of the answer, as text, and the seconds it took."""
    import time
    start = time.monotonic()
    answer = exchange(port, b"POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % (path.encode(), port))
    return answer, time.monotonic() - start
