#!/usr/bin/env bash
# Regenerates docs/cli.md: the hand-written head (cli-reference.head.md) plus every command's --help.
set -euo pipefail
cd "$(dirname "$0")/../../.."
npx tsc -b
{
  cat packages/cli/scripts/cli-reference.head.md
  for c in record summary gaps timers compare diff query open convert bench; do
    echo; echo "### gsprof $c"; echo; echo '```text'
    NO_COLOR=1 COLUMNS=110 node packages/cli/bin/run.js "$c" --help | sed 's/[[:space:]]*$//'
    echo '```'
  done
} > docs/cli.md
echo "wrote docs/cli.md"
