#!/bin/sh
# Print the newest Python >= 3.12 on this machine, or explain on stderr and fail.
# pyenv shims (python3.12 with another version active) fail to run, so they are tested, not trusted.
best="" best_version=0
for candidate in python3.14 python3.13 python3.12 python3 \
    "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python3 /usr/local/bin/python3.1[2-9] /usr/bin/python3.1[2-9]; do
    version=$("$candidate" -c 'import sys; print(sys.version_info[0] * 100 + sys.version_info[1])' 2>/dev/null) || continue
    if [ "$version" -ge 312 ] && [ "$version" -gt "$best_version" ]; then
        best=$(command -v "$candidate" 2>/dev/null || echo "$candidate") best_version=$version
    fi
done
if [ -z "$best" ]; then
    echo "No Python 3.12 or newer found (Django 6.1 needs it). Install one, or run: make PYTHON=/path/to/python3.12 ..." >&2
    exit 1
fi
echo "$best"
