#!/usr/bin/env python3
"""Cuts the definitions that deploy/k8s uses out of Kubernetes' OpenAPI v2 document.

Usage: extract.py SWAGGER_JSON > definitions.json

SWAGGER_JSON is the OpenAPI document a Kubernetes release publishes (see ../README.md for the copy
used). Keeps every definition reachable from the kinds below, unchanged, as one JSON document whose
$refs ("#/definitions/...") resolve inside it. DeploySchemasTest adds the API server's strictness
(unknown fields are errors) and int-or-string handling when it loads the file.
"""
import json
import sys

KINDS = [
    ("", "v1", "Namespace"), ("", "v1", "ConfigMap"), ("", "v1", "ServiceAccount"), ("", "v1", "Service"),
    ("", "v1", "PersistentVolumeClaim"), ("rbac.authorization.k8s.io", "v1", "Role"),
    ("rbac.authorization.k8s.io", "v1", "RoleBinding"), ("apps", "v1", "Deployment"), ("apps", "v1", "DaemonSet"),
    ("batch", "v1", "CronJob"), ("networking.k8s.io", "v1", "NetworkPolicy"),
]


def refs(node, out):
    if isinstance(node, dict):
        r = node.get("$ref")
        if isinstance(r, str) and r.startswith("#/definitions/"):
            out.add(r[len("#/definitions/"):])
        for v in node.values():
            refs(v, out)
    elif isinstance(node, list):
        for v in node:
            refs(v, out)


def main():
    swagger = json.load(open(sys.argv[1]))
    definitions = swagger["definitions"]
    wanted = set()
    for name, d in definitions.items():
        for gvk in d.get("x-kubernetes-group-version-kind", []):
            if (gvk["group"], gvk["version"], gvk["kind"]) in KINDS:
                wanted.add(name)
    assert len(wanted) == len(KINDS), wanted
    todo = list(wanted)
    while todo:
        found = set()
        refs(definitions[todo.pop()], found)
        for f in found - wanted:
            wanted.add(f)
            todo.append(f)
    json.dump({"info": swagger["info"], "definitions": {k: definitions[k] for k in sorted(wanted)}},
              sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
