#!/usr/bin/env python3
"""tidy_keys.py FILE...: one line "KEY FILE" per C++ file, for tools/ci/tidy_file.sh.

A file's key hashes what clang-tidy's verdict on it depends on: the file, every project
header it includes (transitively, quoted includes resolved as the build does, against the
repository root and the file's folder), .clang-tidy and the clang-tidy version. So a change
to one header re-checks only the files that include it, not all of them.
"""
import hashlib
import os
import re
import subprocess
import sys

INCLUDE = re.compile(rb'^\s*#\s*include\s*"([^"]+)"', re.MULTILINE)


def resolve(name: str, including: str) -> str | None:
    for base in ("", os.path.dirname(including)):
        path = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(path):
            return path
    return None  # a system or generated header: outside what the key covers


def closure(path: str, texts: dict[str, bytes], includes: dict[str, list[str]]) -> list[str]:
    seen, todo = {path}, [path]
    while todo:
        current = todo.pop()
        if current not in includes:
            with open(current, "rb") as f:
                texts[current] = f.read()
            found = (resolve(m.decode(), current) for m in INCLUDE.findall(texts[current]))
            includes[current] = [p for p in found if p]
        for child in includes[current]:
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return sorted(seen)


def main() -> int:
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True).stdout
    with open(".clang-tidy", "rb") as f:
        config = f.read()
    texts: dict[str, bytes] = {}
    includes: dict[str, list[str]] = {}
    for path in sys.argv[1:]:
        digest = hashlib.sha256(version + config)
        for member in closure(path, texts, includes):
            digest.update(member.encode() + b"\0" + texts[member] + b"\0")
        print(digest.hexdigest()[:40], path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
