#!/usr/bin/env -S node --conditions=@gsprof/source --import tsx
// Runs src/commands/*.ts straight from the sources (no build); @gsprof/* imports resolve to their src too.
import { execute } from '@oclif/core';

await execute({ development: true, dir: import.meta.url });
