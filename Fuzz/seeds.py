#!/usr/bin/env python3
"""Writes the seed corpora Fuzz/corpus*/ (run from anywhere; the files are committed, so only after editing this).

Fuzz/corpus-jpeg/, -png/ and -webp/ also hold small valid files the server's own encoders made
(`curl 'http://127.0.0.1:8080/items/2/image.jpg?w=40&h=24'` and the like), which this script does not write.

Each seed is one fuzz input: a selector byte, then the payload (see Fuzz/Harness/FuzzInput.swift):
0x00 request-target, 0x01 method byte + target + LF + "Name: value" lines, 0x02 raw request head; +0x10 routes
against a catalog of 2^53 items with paging.max_limit 10000, +0x20 scans heads with small limits. File names are the seed's SHA-1, as libFuzzer names
what it adds, so re-running this does not duplicate seeds.
"""
import hashlib
import pathlib
import struct

TARGET, ROUTE, HEAD, HUGE, SMALL = 0x00, 0x01, 0x02, 0x10, 0x20
# Method bytes of the route entry: index into FuzzHarness.methods.
GET, HEAD_METHOD, POST, PUT, DELETE, OPTIONS, PATCH, TRACE, CONNECT, OTHER = range(10)

targets = [
    "/items", "/items?page=2&limit=20", "/items?page=500&limit=20", "/items?page=501", "/items?limit=100",
    "/items?page=9007199254740992&limit=100", "/items?page=9007199254740993", "/items?page=18446744073709551615",
    "/items?page=18446744073709551616", "/items?page=0", "/items?page=-1", "/items?page=+1", "/items?page=1.5",
    "/items?page=1e3", "/items?page=%31", "/items?page=007", "/items?page= 1", "/items?page=", "/items?page",
    "/items?page=1&page=2", "/items?limit=0", "/items?limit=101", "/items?limit=99999999999999999999999",
    "/items?_=1700000000&page=3", "/items?page=1&&limit=5&", "/items?%zz=1", "/items?a=%00", "/items?x=%C3",
    "/items?x=%E2%82%AC", "/items?page=%EF%BC%91", "/items?page=%", "/items?page=%4", "/items?a+b=c+d",
    "/items?page=1#fragment", "/items/42", "/items/0", "/items/007", "/items/9999", "/items/10000",
    "/items/18446744073709551615", "/items/18446744073709551616", "/items/-1", "/items/%34%32", "/items/4%2F2",
    "/items/42/detail", "/items/42/detail?x=1", "/items/x/detail", "/items/42/detail/", "/items/42/details",
    "/items%2F42", "//items", "/items/", "/", "", "*", "items", "http://localhost:8080/items?page=2",
    "HTTPS://example.com", "http://h?page=1", "https://", "/openapi.json", "/openapi.yaml?x=%zz",
    "/openapi.json/", "/healthz", "/readyz?probe=1", "/healthz/", "/%", "/a%2", "/\u0301?page=1", "/items?\u0301page=1", "/items?page=\u0661",
    "/" + "a/" * 50, "/items?" + "&" * 100 + "page=2", "/items?page=" + "9" * 200,
]

route_requests = [
    (GET, "/items/42/detail", ["Cache-Control: no-cache"]),
    (GET, "/items/42/detail", ["Cache-Control: max-age=0, No-Cache"]),
    (GET, "/items/42/detail", ["Pragma: no-cache"]),
    (GET, "/items/42/detail", ["Cache-Control: max-age=0", "Pragma: no-cache"]),
    (GET, "/items/43/detail", ["Cache-Control: no-cache=\"x\",,  ,no-cache"]),
    (HEAD_METHOD, "/items?page=3", []),
    (HEAD_METHOD, "/items/42/detail", []),
    (POST, "/items", ["Content-Length: 5"]),
    (PUT, "/items/1", []),
    (DELETE, "/items/1/detail", []),
    (OPTIONS, "*", []),
    (PATCH, "/openapi.json", []),
    (TRACE, "/nope", []),
    (CONNECT, "example.com:443", []),
    (OTHER, "/items", []),
    (GET, "/openapi.yaml", []),
    (GET, "/readyz", ["Cache-Control: no-cache"]),
    (POST, "/healthz", []),
    (GET, "/items?page=2&limit=7", ["Accept: application/json"]),
]

heads = [
    "GET /items?page=2&limit=20 HTTP/1.1\r\nHost: localhost:8080\r\nAccept: */*\r\n\r\n",
    "HEAD /items/42/detail HTTP/1.1\r\nHost: x\r\nCache-Control: no-cache\r\n\r\n",
    "GET /items/42/detail HTTP/1.0\r\nPragma: no-cache\r\n\r\n",
    "POST /items HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
    "GET /items HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
    "GET /items HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
    "GET /items HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\n",
    "GET /items HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
    "GET /items HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
    "GET /items HTTP/1.1\r\n\r\n",
    "GET /items HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n",
    "GET /items HTTP/1.1\r\nHost: x\r\n folded: x\r\n\r\n",
    "GET /items HTTP/1.1\r\nHost : x\r\n\r\n",
    "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n",
    "QUERY /items HTTP/1.1\r\nHost: x\r\n\r\n",
    "get /items HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET /items%00 HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET /items HTTP/2.0\r\nHost: x\r\n\r\n",
    "GET /items HTTP/1.x\r\nHost: x\r\n\r\n",
    "GET  /items HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET /items HTTP/1.1\rHost: x\r\n\r\n",
    "\r\nGET / HTTP/1.0\n\n",
    "GET /items?page=1 HTTP/1.1\nHost: x\n\n",
    "GET http://localhost/items/7 HTTP/1.1\r\nHost: localhost\r\n\r\n",
    "GET /items HTTP/1.1\r\nHost: x\r\nX-Long: " + "a" * 2000 + "\r\n\r\n",
    "GET /items HTTP/1.1\r\n" + "".join(f"X-{i}: {i}\r\n" for i in range(120)) + "Host: x\r\n\r\n",
    "GET /items/\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n",
    "POST /items HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
    "POST /items HTTP/1.1\r\nHost: x\r\nContent-Length: 70000\r\n\r\n",
    "POST /items HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n",
    "POST /items HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n",
    "GET /items?page=1 HTTP/1.1\r\nHost: x\r\n\r\nGET /items/7 HTTP/1.1\r\nHost: x\r\n\r\nHEAD /readyz HTTP/1.0\r\n\r\n",
    "POST /items HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbodyGET /items/7/detail HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET /items HTTP/1.1\r\nHost: x\r\n\r\nGET /items HTTP/1.1\r\n\r\n",
]

def route(method, target, fields):
    return bytes([ROUTE, method]) + "\n".join([target] + fields).encode("utf-8")

seeds = [bytes([TARGET]) + t.encode("utf-8") for t in targets]
seeds += [bytes([TARGET | HUGE]) + t.encode("utf-8") for t in targets if t.startswith("/items?")]
seeds += [route(*r) for r in route_requests]
seeds += [bytes([ROUTE | HUGE]) + route(*r)[1:] for r in route_requests[:6]]
seeds += [bytes([HEAD]) + h.encode("latin-1") for h in heads]
seeds += [bytes([HEAD | HUGE]) + h.encode("latin-1") for h in heads[:3]]
seeds += [bytes([HEAD | SMALL]) + h.encode("latin-1") for h in heads if len(h) < 400]

# The entries fuzzed on their own (LISTSERVER_FUZZ_ENTRY): no selector byte, the whole input is the payload.
bodies = [
    '{"label":"Running late"}', '{"label":"x","author":"Nadia Benali","width":1600,"height":1200,"likes":0}',
    '{"label":"x","color":"#F4A261"}', '{"label":null}', '{"likes":1.5e3}', '{"width":1500.0}', '{"id":1}',
    '{"label":"a","label":"b"}', '{"label":"\\u0000"}', '{"label":"e\\u0301"}', '{"label":"\\ud83c\\udf89"}',
    '{"label":"\\ud83c"}', '{"color":"#ggg000"}', '{"likes":-1}', '{"width":1e400}', '[1,2]', '{"a":{"b":{}}}',
    '{}', '', ' ', 'null', '{"label":"' + "\u0301" * 300 + '"}', '{"label":"' + "x" * 600 + '"}',
    '{"author":"' + "🎉" * 101 + '"}', '{"label":"x",}', '{"label":"x" "author":"y"}', '\ufeff{"label":"bom"}',
]
patches = [
    '{}', '{"label":"edited"}', '{"label":null}', '{"author":null,"likes":5}', '{"width":10,"height":20}',
    '{"color":"#000000"}', '{"color":null,"label":"x","author":"y","width":1,"height":1,"likes":0}',
    '{"likes":1000000000}', '{"likes":1000000001}', '{"id":100}', '{"image_url":"/x"}',
]
junk_images = {
    "jpeg": [b"\xff\xd8\xff<html><body>not a photo</body></html>", b"\xff\xd8\xff", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00",
             b"", b"\x89PNG\r\n\x1a\n"],
    "png": [b"\x89PNG\r\n\x1a\n" + b"A" * 64, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xff\xff\xff\x00\x00\x00\x01\x08\x02\x00\x00\x00",
            b"", b"\xff\xd8\xff"],
    "webp": [b"RIFF\x10\x00\x00\x00WEBPVP8 " + b"B" * 40, b"RIFF\xff\xff\xff\xffWEBP", b"", b"RIFF"],
}



def ws_frame(opcode, payload, fin=True, masked=True):
    """A client's WebSocket frame (RFC 6455 §5.2): masked, as a client must, unless `masked` is False."""
    head = bytes([(0x80 if fin else 0) | opcode])
    bit = 0x80 if masked else 0
    if len(payload) < 126:
        head += bytes([bit | len(payload)])
    elif len(payload) < 65536:
        head += bytes([bit | 126]) + struct.pack(">H", len(payload))
    else:
        head += bytes([bit | 127]) + struct.pack(">Q", len(payload))
    if not masked:
        return head + payload
    mask = b"\x01\x02\x03\x04"
    return head + mask + bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))


# The first byte is the chunk size the bytes are fed in (Fuzz/Harness/FuzzWebSocket.swift).
websocket = [
    b"\x07" + ws_frame(1, b'{"type":"typing","conversation":3}'),
    b"\x01" + ws_frame(9, b"ping") + ws_frame(1, b"hello"),
    b"\x10" + ws_frame(1, b"hel", fin=False) + ws_frame(9, b"") + ws_frame(0, b"lo"),
    b"\x03" + ws_frame(8, struct.pack(">H", 1000) + b"bye") + ws_frame(1, b"after the close"),
    b"\x40" + ws_frame(2, b"\x00\x01"),
    b"\x05" + ws_frame(1, b"\xc3\x28"),
    b"\x02" + ws_frame(1, b"x" * 5000),
    b"\x20" + ws_frame(1, b"unmasked", masked=False),
    b"\x09" + ws_frame(8, struct.pack(">H", 3048)),  # an application's close code, echoed (the fuzzer's first find)
]

here = pathlib.Path(__file__).resolve().parent


def write(folder, items):
    path = here / folder
    path.mkdir(exist_ok=True)
    for item in items:
        (path / hashlib.sha1(item).hexdigest()).write_bytes(item)
    print(f"{len(items)} seeds in {path}")


write("corpus", seeds)
write("corpus-json", [b.encode("utf-8") for b in bodies])
write("corpus-patch", [p.encode("utf-8") for p in patches])
write("corpus-websocket", websocket)
# Valid files of each format (made by the server's own encoders, committed beside these) and junk.
for image_format, junk in junk_images.items():
    write(f"corpus-{image_format}", junk)
