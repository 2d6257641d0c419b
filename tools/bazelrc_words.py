#!/usr/bin/env python3
"""The words Bazel reads from its rc files, as Bazel 4 tokenizes them.

    bazelrc_words.py WORKSPACE [RC_FILE...]

Reads the rc files Bazel would (/etc/bazel.bazelrc, WORKSPACE/.bazelrc,
~/.bazelrc, then each RC_FILE given with --bazelrc), following `import` and
`try-import` (with %workspace% replaced), and prints one line per word:
"<file>\\t<word>". Words are split as Bazel's rc parser splits them: a
backslash at the end of a line continues it; a line's words are separated by
white space; single and double quotes group and are removed; a backslash
escapes the next character; `#` outside quotes starts a comment. So the
caller sees the option Bazel will see, whatever quoting or escaping the file
used. A missing `import` target is reported on stderr and ends the run with
status 2 (Bazel would stop too); a missing `try-import` target is skipped.
"""
import os
import sys


def words_of(line):
    out, word, quote, escaped, has_word = [], [], None, False, False
    for c in line:
        if escaped:
            word.append(c)
            escaped, has_word = False, True
        elif c == "\\":
            escaped = True
        elif quote:
            if c == quote:
                quote = None
            else:
                word.append(c)
        elif c in "'\"":
            quote, has_word = c, True
        elif c == "#":
            break
        elif c.isspace():
            if has_word:
                out.append("".join(word))
            word, has_word = [], False
        else:
            word.append(c)
            has_word = True
    if has_word:
        out.append("".join(word))
    return out


def read(path, workspace, seen, optional):
    real = os.path.realpath(path)
    if real in seen:
        return
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        if optional:
            return
        sys.stderr.write(f"{path}: cannot read this rc file\n")
        sys.exit(2)
    seen.add(real)
    text = text.replace("\\\r\n", "").replace("\\\n", "")
    for line in text.split("\n"):
        words = words_of(line.strip())
        if len(words) == 2 and words[0] in ("import", "try-import"):
            read(words[1].replace("%workspace%", workspace), workspace, seen, words[0] == "try-import")
            continue
        for w in words:
            print(f"{path}\t{w}")


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: bazelrc_words.py WORKSPACE [RC_FILE...]")
    workspace, extra = sys.argv[1], sys.argv[2:]
    home = os.environ.get("HOME", "/nonexistent")
    seen = set()
    for path in ["/etc/bazel.bazelrc", os.path.join(workspace, ".bazelrc"), os.path.join(home, ".bazelrc")]:
        read(path, workspace, seen, True)
    for path in extra:
        read(path, workspace, seen, False)


if __name__ == "__main__":
    main()
