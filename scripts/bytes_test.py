#!/usr/bin/env python3
"""What ListServer's bytes look like to tools that are not its own (scripts/bytes-test.sh runs this).

Placeholders: the Python `blurhash` package decodes every item's blur_hash, and its average colour is the photo's
as Pillow decodes it; its encoder, given an upload's pixels, makes the blur_hash the item then carries.

Compression: curl's --compressed (gzip and zstd) and Python's gzip decode each compressed answer to the identity
body byte for byte; an event stream in gzip, read with zlib as it arrives, shows each event before the next is sent.
"""
import gzip
import http.client
import io
import json
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib

import blurhash
from PIL import Image

BASE = sys.argv[1]
TIMEOUT = 20
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def request(path, method="GET", body=None, headers=None):
    req = urllib.request.Request(BASE + path, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def get_json(path):
    status, _, body = request(path)
    assert status == 200, f"GET {path}: {status} {body[:200]!r}"
    return json.loads(body)


def mean_color(pixels):
    """The mean of a list of (r, g, b)."""
    count = len(pixels)
    return tuple(sum(p[c] for p in pixels) / count for c in range(3))


def hash_average(hash_text):
    rows = blurhash.decode(hash_text, 32, 32)
    return mean_color([pixel[:3] for row in rows for pixel in row])


def image_average(path):
    status, _, body = request(path)
    assert status == 200, f"GET {path}: {status}"
    data = Image.open(io.BytesIO(body)).convert("RGB").tobytes()
    return mean_color([data[index:index + 3] for index in range(0, len(data), 3)])


def distance(a, b):
    return max(abs(x - y) for x, y in zip(a, b))


def placeholders_are_the_photos_average():
    page = get_json("/items?limit=40")
    worst = 0.0
    for item in page["items"]:
        hash_text = item["blur_hash"]
        check(isinstance(hash_text, str) and len(hash_text) == 28, f"item {item['id']}: blur_hash {hash_text!r}")
        check(blurhash.components(hash_text) == (4, 3), f"item {item['id']}: components")
        photo = image_average(f"/items/{item['id']}/image?w=120&h=80")
        off = distance(hash_average(hash_text), photo)
        worst = max(worst, off)
        check(off <= 8, f"item {item['id']}: placeholder average {hash_average(hash_text)} vs photo {photo}")
    print(f"placeholders: 40 items, the decoded hash's average within {worst:.1f} levels of the photo's")


def upload_gets_its_own_hash():
    before = get_json("/items/5")["blur_hash"]
    width, height = 24, 16
    image = Image.new("RGB", (width, height))
    image.putdata([(x * 10, 40 + y * 12, 200 - x * 6) for y in range(height) for x in range(width)])
    file = io.BytesIO()
    image.save(file, "PNG")
    status, _, body = request("/items/5/image", "PUT", file.getvalue(), {"Content-Type": "image/png"})
    check(status in (200, 201), f"PUT /items/5/image: {status} {body[:200]!r}")
    pixels = [[list(image.getpixel((x, y))) for x in range(width)] for y in range(height)]
    expected = blurhash.encode(pixels, 4, 3)
    item = get_json("/items/5")
    check(item["blur_hash"] == expected, f"upload: blur_hash {item['blur_hash']} vs the package's {expected}")
    check(item["blur_hash"] != before, "upload: the hash changed")
    info = get_json("/id/5/info")
    check(info.get("blur_hash") == expected, f"/id/5/info: {info.get('blur_hash')}")
    listed = [entry for entry in get_json("/v2/list?limit=10") if entry["id"] == "5"]
    check(listed and listed[0].get("blur_hash") == expected, f"/v2/list: {listed}")
    changes = get_json("/items/changes?since=0")["changes"]
    uploaded = [c for c in changes if c.get("item", {}).get("id") == 5]
    check(uploaded and uploaded[-1]["item"]["blur_hash"] == expected, f"change feed: {uploaded[-1:]}")
    status, _, _ = request("/items/5/image", "DELETE")
    check(status in (200, 204), f"DELETE /items/5/image: {status}")
    check(get_json("/items/5")["blur_hash"] == before, "after DELETE: the generated photo's hash again")
    print(f"uploads: the item's blur_hash is the package's encoding of the upload ({expected})")


def curl(path, *options):
    """The body curl gets for `path` with `options`."""
    result = subprocess.run(["curl", "-sS", "--max-time", "20", *options, BASE + path], capture_output=True,
                            check=True)
    return result.stdout


def compressed_bodies_decode_to_the_identity_body():
    for index in range(10):
        request("/items", "POST", json.dumps({"label": f"change {index} ✓"}).encode(),
                {"Content-Type": "application/json", "X-Dataset": "bytes-changes"})
    paths = [("/items?limit=20", {}), ("/items?limit=100&order=desc", {}), ("/items?after=500&limit=50", {}),
             ("/v2/list?limit=30", {}), ("/items/changes?since=0", {"X-Dataset": "bytes-changes"}),
             ("/admin/journal?limit=200", {})]
    for path, extra in paths:
        fields = [option for name, value in extra.items() for option in ("-H", f"{name}: {value}")]
        identity = curl(path, "-H", "Accept-Encoding: identity", *fields)
        if len(identity) < 1024:
            check(False, f"{path}: {len(identity)} bytes, too small to be compressed")
            continue
        for coding in ("gzip", "zstd"):
            decoded = curl(path, "--compressed", "-H", f"Accept-Encoding: {coding}", *fields)
            check(decoded == identity, f"{path}: curl's {coding} decoding differs from the identity body")
        status, headers, raw = request(path, headers={"Accept-Encoding": "gzip", **extra})
        check(headers.get("Content-Encoding") == "gzip", f"{path}: Content-Encoding {headers.get('Content-Encoding')}")
        check(gzip.decompress(raw) == identity, f"{path}: Python's gzip decoding differs from the identity body")
        print(f"compression: {path}: {len(identity)} bytes, gzip {len(raw)}; curl (gzip, zstd) and gzip agree")


def event_stream_is_flushed_per_event():
    url = urllib.parse.urlsplit(BASE)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=TIMEOUT)
    connection.request("GET", "/items/events?dataset=bytes-sse", headers={"Accept-Encoding": "gzip"})
    response = connection.getresponse()
    check(response.getheader("Content-Encoding") == "gzip", "the event stream is not gzip")
    decoder = zlib.decompressobj(wbits=31)
    text = ""
    for label in ("first", "second", "third"):
        status, _, body = request("/items", "POST", json.dumps({"label": label}).encode(),
                                  {"Content-Type": "application/json", "X-Dataset": "bytes-sse"})
        check(status == 201, f"POST: {status} {body[:200]!r}")
        deadline = time.monotonic() + 5
        while f'"label":"{label}"' not in text and time.monotonic() < deadline:
            chunk = response.read1(65536)
            if not chunk:
                break
            text += decoder.decompress(chunk).decode()
        check(f'"label":"{label}"' in text, f"the {label} event did not arrive decoded: {text[-300:]!r}")
    connection.close()
    print("compression: an event stream in gzip: each event decoded as it arrived")


def main():
    placeholders_are_the_photos_average()
    upload_gets_its_own_hash()
    compressed_bodies_decode_to_the_identity_body()
    event_stream_is_flushed_per_event()
    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)
    print("bytes_test: all checks passed")


if __name__ == "__main__":
    main()
