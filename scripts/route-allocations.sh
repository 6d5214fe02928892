#!/bin/sh
# Routes every malloc/calloc/realloc/strdup/strndup call of tanjit's own
# library code (src/, except the allocator itself, the CLI and the
# stand-alone helper in src/tools) through common/alloc.h, so the fault
# tests see them.  Idempotent: run it again after files move.
set -eu
cd "$(dirname "$0")/.."
python3 - <<'PY'
import os, re
call = re.compile(r'(?<![A-Za-z0-9_.>])(malloc|calloc|realloc|strdup|strndup)\(')
skip = {"src/common/alloc.c"}
for dirpath, _, names in os.walk("src"):
    if dirpath.startswith(("src/cli", "src/tools")):
        continue
    for name in names:
        if not name.endswith((".c", ".h")):
            continue
        path = os.path.join(dirpath, name)
        if path in skip:
            continue
        text = open(path).read()
        out = []
        for line in text.split("\n"):
            code = line.split("//")[0]
            # Leave string literals and comments alone.
            stripped = re.sub(r'"(\\.|[^"\\])*"', '""', code)
            if call.search(stripped) and not stripped.lstrip().startswith(("*", "/*")):
                line = call.sub(lambda m: "tj_" + m.group(1) + "(", line)
            out.append(line)
        new = "\n".join(out)
        if new != text and '#include "common/alloc.h"' not in new and path != "src/common/alloc.h":
            new = re.sub(r'(#include "[^"]+"\n)', '#include "common/alloc.h"\n\\1', new, count=1)
        if new != text:
            open(path, "w").write(new)
            print("routed", path)
PY
