/**
 * Generators of hostile and oversized input, shared by the fault tests and `npm run bench:faults`: model files
 * that recurse, expand or allocate without bound, and a Chrome trace with one kernel of many instances.
 */
import { once } from 'node:events';
import { createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** `n` free bodies side by side: nv = 6n, so dense nv x nv state grows as 36 n^2. */
export function freeBodiesModel(dir: string, n: number): string {
  const bodies: string[] = [];
  for (let i = 0; i < n; i++) bodies.push(`<body pos="${i % 100} ${Math.floor(i / 100)} 1"><freejoint/><geom type="sphere" size="0.1"/></body>`);
  const file = join(dir, `free-${n}.xml`);
  writeFileSync(file, `<mujoco><worldbody>${bodies.join('')}</worldbody></mujoco>\n`);
  return file;
}

/** A chain of `n` hinged bodies, each nested in the one before. */
export function chainModel(dir: string, n: number): string {
  const file = join(dir, `chain-${n}.xml`);
  const open = '<body pos="0 0 0.1"><joint type="hinge"/><geom type="sphere" size="0.05"/>';
  writeFileSync(file, `<mujoco><worldbody>${open.repeat(n)}${'</body>'.repeat(n)}</worldbody></mujoco>\n`);
  return file;
}

/** `levels` files, each including the next twice: 2^levels copies of the last if nothing caps the expansion. */
export function includeBombModel(dir: string, levels: number): string {
  for (let d = 0; d < levels; d++) {
    const next = d + 1 < levels ? `inc-${d + 1}.xml` : null;
    writeFileSync(join(dir, `inc-${d}.xml`), next
      ? `<mujoco><include file="${next}"/><include file="${next}"/></mujoco>\n`
      : '<mujoco><option timestep="0.01"/></mujoco>\n');
  }
  return join(dir, 'inc-0.xml');
}

/** A model that includes `target` (e.g. /dev/zero, a FIFO). */
export function includeOfModel(dir: string, name: string, target: string): string {
  const file = join(dir, name);
  writeFileSync(file, `<mujoco><include file="${target}"/><worldbody><geom type="plane" size="1 1 0.1"/></worldbody></mujoco>\n`);
  return file;
}

/**
 * A Chrome/Kineto JSON trace with one GPU kernel of `instances` instances (plus ProfilerStep spans), streamed
 * to disk: analyses that spread per-kernel arrays into call arguments overflow the stack past ~125k.
 */
export async function bigKernelTrace(file: string, instances: number, steps = 10): Promise<void> {
  const out = createWriteStream(file);
  const write = async (s: string): Promise<void> => {
    if (!out.write(s)) await once(out, 'drain');
  };
  await write('{"traceEvents":[\n');
  await write('{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"python"}},\n');
  await write('{"ph":"M","name":"process_name","pid":0,"tid":0,"args":{"name":"GPU 0"}},\n');
  const perStep = Math.ceil(instances / steps);
  // Each kernel takes 2 us and the next starts 1 us later; durations vary a little so statistics are not flat.
  const stepUs = perStep * 3 + 10;
  for (let s = 0; s < steps; s++) {
    await write(`{"ph":"X","cat":"user_annotation","name":"ProfilerStep#${s}","pid":1,"tid":1,"ts":${s * stepUs},"dur":${stepUs - 5}},\n`);
  }
  let chunk = '';
  for (let i = 0; i < instances; i++) {
    const step = Math.floor(i / perStep);
    const ts = step * stepUs + 2 + (i - step * perStep) * 3;
    chunk += `{"ph":"X","cat":"kernel","name":"solve","pid":0,"tid":7,"ts":${ts},"dur":${2 + (i % 7) * 0.1},"args":{"device":0,"stream":7}},\n`;
    if (chunk.length > 1 << 16) { await write(chunk); chunk = ''; }
  }
  await write(`${chunk}{"ph":"i","name":"end","pid":1,"tid":1,"ts":${steps * stepUs},"s":"t"}\n],"displayTimeUnit":"ns"}\n`);
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
}
