#!/usr/bin/env python3
"""The test HTTP server for tfbuild's end-to-end tests (stdlib only).

    httpd.py --root DIR --port-file FILE

Binds 127.0.0.1 on a free port, writes the port number to FILE (atomically,
so a reader never sees half of it) and serves the files under DIR over
HTTP/1.0 with Content-Length and "Range: bytes=N-" / "bytes=N-M" support
(206 and Content-Range; 416 past the end).

Special path prefixes make failures on demand. They stack, outermost first,
and the counters below are kept per prefix and full request path:

  /redirect/<rest>       302 to /<rest>
  /location/<url>        302 to <url>, percent-decoded (e.g. file%3A%2F%2F...)
  /status/<code>/<rest>  answer <code> with a short body
  /flaky/<n>/<rest>      503 for the first n requests, then serve <rest>
  /truncate/<rest>       first request: full Content-Length, half the bytes,
                         then close; later requests are served normally
  /stall/<rest>          first request: half the bytes, then send nothing
                         for 10 s (for low-speed timeouts); later: normal
  /norange/<rest>        ignore Range: always 200 and the whole file
  /slow/<rest>           send in 4 KiB pieces, 10 ms apart
  /drip/<rest>           send one byte a second, forever (low-speed limits)
  /rate/<n>/<rest>       send n bytes a second, for ten minutes (a drip
                         above a low-speed limit)
  /loop/<n>              302 to /loop/<n+1>, without end

--tls CERT KEY serves HTTPS instead (a self-signed certificate: the
client must refuse it).

Each request is logged on stderr as one line:
  GET /truncate/big.bin range=bytes=1048576- 206
("range=-" when the request had no Range header). SIGTERM exits cleanly.
"""

import argparse
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

CHUNK = 64 * 1024
counts = {}
counts_lock = threading.Lock()


def bump(key):
    """Count one more request for key (prefix, full path); return how many
    came before it."""
    with counts_lock:
        n = counts.get(key, 0)
        counts[key] = n + 1
    return n


class Handler(BaseHTTPRequestHandler):
    server_version = "tfbuild-test-httpd"
    protocol_version = "HTTP/1.0"

    def log_message(self, fmt, *args):
        pass  # replaced by log_line: one fixed-format line per request

    def log_line(self, status):
        rng = self.headers.get("Range") or "-"
        sys.stderr.write("%s %s range=%s %d\n" %
                         (self.command, self.path, rng, status))
        sys.stderr.flush()

    def do_GET(self):
        try:
            self.handle_path(urlsplit(self.path).path.split("/")[1:])
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (e.g. after a 404 body started)

    def do_HEAD(self):
        self.do_GET()

    def simple(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.log_line(status)

    def handle_path(self, parts):
        mode = {"truncate": False, "stall": False, "norange": False,
                "slow": False}
        while parts:
            head = parts[0]
            if head == "redirect":
                return self.simple(302, b"moved\n",
                                   [("Location", "/" + "/".join(parts[1:]))])
            if head == "location":
                return self.simple(302, b"moved\n",
                                   [("Location", unquote("/".join(parts[1:])))])
            if head == "loop" and len(parts) > 1:
                return self.simple(302, b"again\n",
                                   [("Location", "/loop/%d" % (int(parts[1]) + 1))])
            if head == "drip":
                return self.drip()
            if head == "rate" and len(parts) > 2:
                return self.drip(int(parts[1]))
            if head == "status" and len(parts) > 2:
                return self.simple(int(parts[1]), b"status %s\n" %
                                   parts[1].encode())
            if head == "flaky" and len(parts) > 2:
                if bump((head, self.path)) < int(parts[1]):
                    return self.simple(503, b"try again\n")
                parts = parts[2:]
            elif head in ("truncate", "stall"):
                mode[head] = bump((head, self.path)) == 0
                parts = parts[1:]
            elif head in ("norange", "slow"):
                mode[head] = True
                parts = parts[1:]
            else:
                break
        self.serve_file("/".join(parts), mode)

    def drip(self, rate=1):
        self.send_response(200)
        self.send_header("Content-Length", str(1 << 30))
        self.end_headers()
        self.log_line(200)
        try:
            for _ in range(600):
                self.wfile.write(b"x" * rate)
                self.wfile.flush()
                time.sleep(1)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def resolve(self, rel):
        root = os.path.realpath(self.server.root)
        path = os.path.realpath(os.path.join(root, unquote(rel)))
        if path != root and not path.startswith(root + os.sep):
            return None
        return path if os.path.isfile(path) else None

    def parse_range(self, size):
        """(start, end) inclusive, None for no usable Range, or "bad"."""
        rng = self.headers.get("Range")
        if not rng or not rng.startswith("bytes=") or "," in rng:
            return None
        first, _, last = rng[6:].partition("-")
        try:
            start = int(first)
            end = int(last) if last else size - 1
        except ValueError:
            return None
        if start >= size or end < start:
            return "bad"
        return start, min(end, size - 1)

    def serve_file(self, rel, mode):
        path = self.resolve(rel)
        if path is None:
            return self.simple(404, b"not found\n")
        size = os.path.getsize(path)
        rng = None if mode["norange"] else self.parse_range(size)
        if rng == "bad":
            return self.simple(416, b"range not satisfiable\n",
                               [("Content-Range", "bytes */%d" % size)])
        start, end = rng if rng else (0, size - 1)
        length = end - start + 1
        status = 206 if rng else 200
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(length))
        self.send_header("Accept-Ranges", "none" if mode["norange"] else "bytes")
        if rng:
            self.send_header("Content-Range",
                             "bytes %d-%d/%d" % (start, end, size))
        self.end_headers()
        self.log_line(status)
        if self.command == "HEAD":
            return
        cut = mode["truncate"] or mode["stall"]
        self.send_bytes(path, start, length // 2 if cut else length,
                        4096 if mode["slow"] else CHUNK, mode["slow"])
        if mode["stall"]:
            self.wfile.flush()
            time.sleep(10)
        self.close_connection = True

    def send_bytes(self, path, start, count, chunk, slow):
        with open(path, "rb") as f:
            f.seek(start)
            while count > 0:
                data = f.read(min(chunk, count))
                if not data:
                    break
                self.wfile.write(data)
                count -= len(data)
                if slow:
                    time.sleep(0.01)


def main():
    ap = argparse.ArgumentParser(description="tfbuild test HTTP server")
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    args = ap.parse_args()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.block_on_close = False  # a stalled handler must not delay exit
    server.root = args.root
    if args.tls:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls[0], args.tls[1])
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.replace(tmp, args.port_file)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
