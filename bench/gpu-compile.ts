/**
 * Cold compile time of a scene on the GPU backend: builds it (4 envs) and steps it once. Mesa compiles at the
 * first dispatch, so the first step holds most of it. Run with fresh caches to measure a cold compile:
 *   XDG_CACHE_HOME="$(mktemp -d)" GSPROF_CACHE_DIR="$XDG_CACHE_HOME" \
 *     node --conditions=@gsprof/source --import tsx bench/gpu-compile.ts [scene.xml]
 */
import * as gs from '@gsprof/sim-core';

const scene = process.argv[2] ?? 'xml/franka_emika_panda/scene.xml';
await gs.init({ backend: 'gpu', precision: '32', loggingLevel: 'error' });
const s = new gs.Scene({ rigidOptions: { dt: 0.01 }, profilingOptions: { showFPS: false } });
s.addEntity(gs.morphs.MJCF({ file: scene }));
const t0 = performance.now();
await s.build({ nEnvs: 4 });
const t1 = performance.now();
s.step();
await s.sync();
const t2 = performance.now();
console.log(`${scene}: build ${((t1 - t0) / 1000).toFixed(1)} s, first step ${((t2 - t1) / 1000).toFixed(1)} s`);
await gs.destroy();
