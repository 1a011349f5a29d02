#!/usr/bin/env python3
"""A stand-in for an Immich server, for kioskd's tests: it answers the
endpoints kioskd calls from a library described in a JSON file (read again
at every request, so a test changes the library by rewriting it), and
checks every request kioskd sends and every answer it gives against
immich-api.json (Immich's OpenAPI specification, version 3.0.3, as far as
kioskd uses it) with openapi-core. Whatever does not match is written to
the problems file, which the tests require to stay empty; so the stand-in
cannot drift from Immich's specification, nor kioskd's requests from it.

    stand-in-immich.py PORT LIBRARY.json API_KEY FOLDER

FOLDER receives requests.log (one line per request) and problems.log.

The library file:
    {"assets": [{"id", "name", "taken", "file", "favourite", "people": [ids],
                 "albums": [ids], "description", "version", "type", "live": id,
                 "hidden": a Live Photo's movie, never listed itself}],
     "albums": [{"id", "name"}], "people": [{"id", "name"}],
     "memories": [{"year", "assets": [ids]}],
     "hostile": {"PATH": "invalid-json" | "wrong-frame" | "wrong-asset"}}
A hostile answer is sent as it is, unchecked: it is meant to be wrong.
"""
import json
import os
import random
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from openapi_core import OpenAPI
from openapi_core.testing import MockRequest, MockResponse

PORT, LIBRARY, API_KEY, FOLDER = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "immich-api.json")) as spec_file:
    OPENAPI = OpenAPI.from_dict(json.load(spec_file))
BASE = f"http://127.0.0.1:{PORT}"
OWNER = "5e1f0c52-7b7e-4d43-9d3e-2f4d0c6b1a01"
STAMP = "2024-01-01T00:00:00.000Z"
log_lock = threading.Lock()


def log(name, line):
    with log_lock, open(os.path.join(FOLDER, name), "a") as file:
        file.write(line + "\n")


def asset_answer(asset, library):
    people = {p["id"]: p for p in library.get("people", [])}
    return {
        "id": asset["id"], "type": asset.get("type", "IMAGE"), "originalFileName": asset["name"],
        "originalPath": "/upload/" + asset["name"], "ownerId": OWNER, "checksum": asset.get("version", "v1"),
        "createdAt": STAMP, "updatedAt": asset.get("updated", STAMP), "fileCreatedAt": asset["taken"],
        "fileModifiedAt": asset["taken"], "localDateTime": asset["taken"], "duration": None, "hasMetadata": True,
        "width": 640, "height": 480, "isArchived": False, "isEdited": False, "isFavorite": asset.get("favourite", False),
        "isOffline": False, "isTrashed": False, "thumbhash": None, "visibility": "timeline",
        "livePhotoVideoId": asset.get("live"),
        "exifInfo": {"description": asset.get("description"), "fileSizeInByte": os.path.getsize(asset["file"]),
                     "dateTimeOriginal": asset["taken"]},
        "people": [{"id": pid, "name": people[pid]["name"], "birthDate": None, "isHidden": False,
                    "thumbnailPath": ""} for pid in asset.get("people", [])],
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.answer(None)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.answer(self.rfile.read(length))

    def answer(self, body):
        with open(LIBRARY) as file:
            library = json.load(file)
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        log("requests.log", f"{self.command} {url.path}")
        request = MockRequest(BASE, self.command.lower(), url.path, args=query, data=body or b"",
                              headers=dict(self.headers), content_type=self.headers.get("Content-Type", "application/json"))
        try:
            OPENAPI.validate_request(request)
        except Exception as error:
            log("problems.log", f"request {self.command} {self.path}: {error!r} {getattr(error, '__cause__', '')!r}")
        if self.headers.get("x-api-key") != API_KEY:
            return self.send(401, {"message": "Invalid API key", "statusCode": 401, "error": "Unauthorized"}, checked=False)
        hostile = library.get("hostile", {}).get(url.path)
        if hostile == "unauthorized":  # a key revoked between the listing and a fetch
            return self.send(401, {"message": "Invalid API key", "statusCode": 401, "error": "Unauthorized"}, checked=False)
        if hostile == "invalid-json":
            return self.send(200, b'{"assets": {"items": [{"id": ', checked=False)
        route = url.path.removeprefix("/api")
        every = library.get("assets", [])
        images = [a for a in every if not a.get("hidden")]
        if route == "/albums":
            answer = [{"id": a["id"], "albumName": a["name"], "albumThumbnailAssetId": None, "albumUsers": [],
                       "assetCount": sum(a["id"] in x.get("albums", []) for x in images), "createdAt": STAMP,
                       "description": "", "hasSharedLink": False, "isActivityEnabled": True, "shared": False,
                       "updatedAt": STAMP} for a in library.get("albums", [])]
        elif route == "/people":
            page, size = int(query.get("page", 1)), int(query.get("size", 500))
            people = library.get("people", [])
            chosen = people[(page - 1) * size: page * size]
            answer = {"people": [{"id": p["id"], "name": p["name"], "birthDate": None, "isHidden": False,
                                  "thumbnailPath": ""} for p in chosen],
                      "hidden": 0, "total": len(people), "hasNextPage": page * size < len(people)}
        elif route == "/search/metadata":
            ask = json.loads(body)
            found = [a for a in images
                     if all(i in a.get("albums", []) for i in ask.get("albumIds", []))
                     and all(i in a.get("people", []) for i in ask.get("personIds", []))
                     and (not ask.get("isFavorite") or a.get("favourite"))
                     and a.get("type", "IMAGE") == ask.get("type", a.get("type", "IMAGE"))]
            page, size = ask.get("page", 1), ask.get("size", 250)
            chosen = found[(page - 1) * size: page * size]
            more = page * size < len(found)
            answer = {"albums": {"count": 0, "facets": [], "items": [], "total": 0},
                      "assets": {"count": len(chosen), "facets": [], "items": [asset_answer(a, library) for a in chosen],
                                 "nextPage": str(page + 1) if more else None, "total": len(found)}}
            if hostile == "wrong-frame":
                answer["assets"]["items"] = {"id": 5}
                return self.send(200, answer, checked=False)
            if hostile == "wrong-asset" and answer["assets"]["items"]:
                answer["assets"]["items"][0]["id"] = 12
                answer["assets"]["items"][-1]["originalFileName"] = ["not", "a", "name"]
                return self.send(200, answer, checked=False)
        elif route == "/search/random":
            ask = json.loads(body)
            pool = [a for a in images if a.get("type", "IMAGE") == ask.get("type", "IMAGE")]
            answer = [asset_answer(a, library) for a in random.sample(pool, min(ask.get("size", 250), len(pool)))]
        elif route == "/memories":
            log("requests.log", f"memories for {query.get('for')}")
            by_id = {a["id"]: a for a in images}
            answer = [{"id": "7c1a0f3e-5b2d-4e8f-9a6b-%012d" % n, "type": "on_this_day", "data": {"year": m["year"]},
                       "assets": [asset_answer(by_id[i], library) for i in m["assets"]], "createdAt": STAMP,
                       "updatedAt": STAMP, "memoryAt": STAMP, "isSaved": False, "ownerId": OWNER}
                      for n, m in enumerate(library.get("memories", []))]
        elif route.startswith("/assets/") and route.endswith(("/thumbnail", "/original", "/video/playback")):
            asset_id = route.split("/")[2]
            match = [a for a in every if a["id"] == asset_id]
            if not match:
                return self.send(404, {"message": "Not found", "statusCode": 404}, checked=False)
            with open(match[0]["file"], "rb") as file:
                return self.send(200, file.read(), content_type="application/octet-stream")
        else:
            return self.send(404, {"message": f"Cannot {self.command} {url.path}", "statusCode": 404}, checked=False)
        self.send(200, answer)

    def send(self, status, answer, checked=True, content_type="application/json"):
        data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
        if checked:
            url = urlsplit(self.path)
            request = MockRequest(BASE, self.command.lower(), url.path,
                                  args={k: v[0] for k, v in parse_qs(url.query).items()},
                                  headers=dict(self.headers), content_type="application/json")
            try:
                OPENAPI.validate_response(request, MockResponse(data, status_code=status, content_type=content_type))
            except Exception as error:
                log("problems.log", f"answer to {self.command} {self.path}: {error!r} {getattr(error, '__cause__', '')!r}")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


open(os.path.join(FOLDER, "problems.log"), "a").close()
ThreadingHTTPServer.allow_reuse_address = True
ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
