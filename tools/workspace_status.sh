#!/usr/bin/env bash
# Bazel workspace status: the code version for provenance records.
# STABLE_ keys would invalidate stamped actions on every commit; we emit only
# volatile keys, so stage actions stay cached while the version is recorded.
cd "$(dirname "$0")/.."
rev=$(git rev-parse HEAD 2>/dev/null || echo unknown)
# "-dirty" when the code differs from the commit; results/ is output, not
# code (collecting results must not mark the stages that run after it).
dirty=$(git status --porcelain -- . ':(exclude)results' 2>/dev/null | grep -q . && echo "-dirty" || true)
echo "GIT_COMMIT ${rev}${dirty}"
