#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""validate_json.py SCHEMA DOCUMENT: check DOCUMENT against the JSON Schema
(draft 2020-12) SCHEMA with python3-jsonschema, offline: a relative $ref
(anonsim-common.schema.json) is read from SCHEMA's folder.  Exit 0 when it
holds, 1 with each error on standard error, 2 when the schema is itself
wrong."""
import json
import pathlib
import sys
import warnings

import jsonschema

# RefResolver is what Debian 12's jsonschema (4.10) has; newer ones keep it
# but warn
warnings.simplefilter("ignore", DeprecationWarning)


def main():
    schema_path = pathlib.Path(sys.argv[1]).resolve()
    schema = json.loads(schema_path.read_text())
    try:
        doc = json.loads(pathlib.Path(sys.argv[2]).read_text())
    except ValueError as e:
        print("%s: not JSON: %s" % (sys.argv[2], e), file=sys.stderr)
        return 1
    cls = jsonschema.Draft202012Validator
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        print("%s: %s" % (schema_path.name, e.message), file=sys.stderr)
        return 2
    resolver = jsonschema.RefResolver(schema_path.as_uri(), schema)
    errors = sorted(cls(schema, resolver=resolver).iter_errors(doc),
                    key=lambda e: list(e.absolute_path))
    for e in errors:
        where = "/".join(str(p) for p in e.absolute_path)
        print("%s: /%s: %s" % (sys.argv[2], where, e.message), file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
