#!/usr/bin/env python3
"""N sequential requests on one keep-alive connection, for the callgrind counts (Benchmarks/load/counters.sh,
Benchmarks/writes/instructions.sh); prints how many were answered with the mode's status.

    keepalive.py pages PORT N   GET /items?page=<1..500, round-robin>&limit=20, counting 200s
    keepalive.py posts PORT N   POST /items with writes.lua's body shape, counting 201s

Waits up to 120 s for the server (servers start slowly under valgrind).
"""
import socket, sys, time

mode, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
deadline = time.monotonic() + 120
while True:
    try:
        connection = socket.create_connection(("127.0.0.1", port))
        break
    except OSError:
        if time.monotonic() > deadline: sys.exit("no server on port %d" % port)
        time.sleep(0.1)

if mode == "pages":
    expected = b"HTTP/1.1 200"
    def request(index):
        return b"GET /items?page=%d&limit=20 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % (index % 500 + 1)
elif mode == "posts":
    expected = b"HTTP/1.1 201"
    body = b'{"label":"posted by wrk 1 12345"}'  # writes.lua's shape: writes-server.c takes only a label
    post = (b"POST /items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
            % len(body) + body)
    def request(index):
        return post
else:
    sys.exit("usage: keepalive.py pages|posts PORT N")

answered, buffer = 0, b""
for index in range(count):
    connection.sendall(request(index))
    while True:
        end = buffer.find(b"\r\n\r\n")
        if end >= 0:
            head = buffer[:end].decode("latin-1")
            length = int(next(line.split(":", 1)[1] for line in head.split("\r\n")
                              if line.lower().startswith("content-length:")))
            if len(buffer) >= end + 4 + length:
                answered += buffer.startswith(expected)
                buffer = buffer[end + 4 + length:]
                break
        data = connection.recv(65536)
        if not data: sys.exit("the server closed the connection")
        buffer += data
print(answered)
