#!/usr/bin/env python3
"""The Stage actions of a Bazel execution log, one line each: its class and
its target.

    execution_log_stages.py LOG.json BINARY PRESENTATION_BINARY...

LOG.json is what --execution_log_json_file writes (a stream of JSON
objects, one per spawn, executed or served by a cache). A Stage action is
  changed       if its command runs BINARY (a path ending so),
  presentation  if it runs one of the PRESENTATION_BINARY (the figures, the
                paper: the steps that read records),
  science       otherwise.
The target is the one its progress message names ("Stage //pkg:name").
"""
import json
import sys


def spawns(text):
    decoder = json.JSONDecoder()
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return
        obj, pos = decoder.raw_decode(text, pos)
        yield obj


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: execution_log_stages.py LOG.json BINARY PRESENTATION_BINARY...")
    path, binary, presentation = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = []
    for s in spawns(text):
        if s.get("mnemonic") != "Stage":
            continue
        args = s.get("commandArgs", [])
        target = s.get("progressMessage", "?").replace("Stage ", "", 1)
        if args and args[0].endswith(binary):
            kind = "changed"
        elif args and any(args[0].endswith(p) for p in presentation):
            kind = "presentation"
        else:
            kind = "science"
        lines.append(f"{kind} {target}")
    for line in sorted(set(lines)):
        print(line)


if __name__ == "__main__":
    main()
