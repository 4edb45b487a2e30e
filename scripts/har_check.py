#!/usr/bin/env python3
"""Checks ListServer's HAR export (scripts/journal-test.sh): it validates against the HAR 1.2 JSON schema (the
files of Debian's node-har-schema, draft-06, each naming the others by file name), and it holds the journal's
entries, in order, with what each noted."""
import argparse
import json
import pathlib
import sys

import jsonschema
from referencing import Registry, Resource


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--schema", required=True, help="node-har-schema's lib/ folder")
    parser.add_argument("--har", required=True)
    parser.add_argument("--journal", required=True, help="GET /admin/journal's answer for the same dataset")
    args = parser.parse_args()
    folder = pathlib.Path(args.schema)
    registry = Registry().with_resources(
        (path.name, Resource.from_contents(json.loads(path.read_text()))) for path in folder.glob("*.json"))
    schema = json.loads((folder / "har.json").read_text())
    validator_class = jsonschema.validators.validator_for(schema)
    validator = validator_class(schema, registry=registry, format_checker=validator_class.FORMAT_CHECKER)
    har = json.loads(pathlib.Path(args.har).read_text())
    errors = [f"{error.json_path}: {error.message}" for error in validator.iter_errors(har)]
    if errors:
        sys.exit("the HAR does not validate:\n" + "\n".join(errors[:20]))
    # The schema must be able to fail: the same file without log.version does not validate.
    broken = json.loads(json.dumps(har))
    del broken["log"]["version"]
    if not list(validator.iter_errors(broken)):
        sys.exit("the schema accepted a HAR without log.version: it checks nothing")

    journal = json.loads(pathlib.Path(args.journal).read_text())["entries"]
    entries = har["log"]["entries"]
    if [entry["_seq"] for entry in entries] != [entry["seq"] for entry in journal]:
        sys.exit(f"the HAR's entries are not the journal's: {[e['_seq'] for e in entries]}")
    for entry, noted in zip(entries, journal):
        request, response = entry["request"], entry["response"]
        if request["method"] != noted["method"] or not request["url"].endswith(noted["target"]):
            sys.exit(f"entry {noted['seq']}: {request['method']} {request['url']} is not {noted['target']}")
        if response["status"] != noted["status"] or entry["_aborted"] != noted["aborted"]:
            sys.exit(f"entry {noted['seq']}: status or aborted differ")
    kinds = {
        "304": any(e["status"] == 304 for e in journal),
        "HEAD": any(e["method"] == "HEAD" for e in journal),
        "503 injected": any(e["fault"] == "503" for e in journal),
        "reset": any(e["fault"] == "reset" and e["status"] == 0 for e in journal),
        "aborted": any(e["aborted"] for e in journal),
        "Idempotency-Key": any(e["idempotency_key"] == "har-1" for e in journal),
        "If-Match": any(e["if_match"] for e in journal),
        "Range": any(e["range"] == "bytes=0-99" for e in journal),
        "Last-Event-ID": any(e["last_event_id"] == "0" for e in journal),
        "unknown path": any(e["route"] == "other" for e in journal),
    }
    missing = [kind for kind, seen in kinds.items() if not seen]
    if missing:
        sys.exit(f"the journal noted no request of these kinds: {missing}")
    print(f"har_check: {len(entries)} entries validate against HAR 1.2 and match the journal")


if __name__ == "__main__":
    main()
