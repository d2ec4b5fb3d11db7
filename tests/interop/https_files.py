"""A small HTTPS file server for the OAuth interop tests (oauth.sh): it serves the client ID
metadata documents that oauth_python.py and oauth_ts.mjs write into DIR, as JSON, with the
certificate oauth.sh made for 127.0.0.1, and appends `GET /<path>` for every request to LOG, so the
tests can tell whether ragdownd fetched a document. Prints its port on stdout once listening.

  python https_files.py --dir DIR --cert CERT --key KEY --log LOG
"""

import argparse
import os
import ssl
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
for name in ("dir", "cert", "key", "log"):
    parser.add_argument(f"--{name}", required=True)
args = parser.parse_args()


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        with open(args.log, "a") as log:
            log.write(f"GET {self.path}\n")
        name = self.path.lstrip("/")
        path = os.path.join(args.dir, name)
        if "/" in name or name.startswith(".") or not os.path.isfile(path):
            self.send_error(404)
            return
        with open(path, "rb") as f:
            body = f.read()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args) -> None:
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(args.cert, args.key)
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
sys.stdout.close()
server.serve_forever()
