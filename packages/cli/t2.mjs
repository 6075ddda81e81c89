import * as gs from '@gsprof/sim-core';
const file = process.argv[2];
await gs.init({ backend: 'cpu', logging_level: 'warning' });
const scene = gs.Scene ? new gs.Scene({}) : null;
try {
  const t=performance.now();
  scene.addEntity(gs.morphs.MJCF({ file }));
  console.log('loaded', (performance.now()-t).toFixed(0),'ms');
  await scene.build({ nEnvs: 0 });
  console.log('built', process.memoryUsage().rss/1e6);
} catch (e) { console.log('ERR', e.message.slice(0,300)); console.log(e.stack.split('\n').slice(1,6).join('\n')); }
