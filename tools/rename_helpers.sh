#!/usr/bin/env bash
# For merges: the embedded helpers package is _apx (was apx; docs/pip.md says why). A branch made
# before the rename may add files under src/main/resources/python/apx/ and name them apx._x,
# apx/_x.py or python/apx/. This moves such files into python/_apx/ and rewrites those names.
# Idempotent: on a tree without old names it changes nothing. The pip launcher (pip/apx) and the
# files that talk about it are left alone.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
old=src/main/resources/python/apx
new=src/main/resources/python/_apx
if [ -d "$old" ]; then
  for file in "$old"/*; do
    [ -e "$file" ] || continue
    if [ -e "$new/$(basename "$file")" ]; then
      echo "both $file and $new/$(basename "$file") exist: merge them by hand, then run this again" >&2
      exit 1
    fi
    git mv "$file" "$new/"
  done
  rmdir "$old" 2>/dev/null || true
fi
pattern='(^|[^._a-zA-Z/])apx\._[a-z]|(^|[^._a-zA-Z/])apx/_[a-z_]+\.py|python/apx/'
files=$(git grep -lE "$pattern" -- src docs bench bin tools README.md \
  ':!tools/rename_helpers.sh' ':!docs/pip.md' ':!src/test/java/dev/apx/cli/PipPackageIT.java' || true)
if [ -n "$files" ]; then
  sed -i -E 's#(^|[^._a-zA-Z/])apx\._([a-z_]+)#\1_apx._\2#g; s#(^|[^._a-zA-Z/])apx/_([a-z_]+\.py)#\1_apx/_\2#g; s#python/apx/#python/_apx/#g' $files
  echo "rewrote: $files" | tr '\n' ' '; echo
fi
