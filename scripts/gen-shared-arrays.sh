#!/usr/bin/env bash
# Regenerates the four typed shared-array classes from one template, so their hit paths stay identical.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/dsa-agent/src/main/java/io/dsa/agent/internal"
for spec in Double:double:3 Float:float:2 Int:int:2 Long:long:3; do
  IFS=: read -r name prim shift <<<"$spec"
  sed -e "s/@N@/$name/g" -e "s/@U@/${name^^}/g" -e "s/@P@/$prim/g" -e "s/@SHIFT@/$shift/g" "$root/dsa-agent/src/main/template/SharedArrayImpl.java.template" \
    > "$dir/Shared${name}ArrayImpl.java"
done
