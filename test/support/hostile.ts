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

/** A `<hfield>` of nrow x ncol given by size alone (zero elevation), on line 3 of the file. */
export function bigHFieldModel(dir: string, nrow: number, ncol: number): string {
  const file = join(dir, `hfield-${nrow}x${ncol}.xml`);
  writeFileSync(file, `<mujoco>\n<asset>\n<hfield name="h" nrow="${nrow}" ncol="${ncol}" size="1 1 1 0.1"/>\n</asset>\n<worldbody><geom type="hfield" hfield="h"/></worldbody>\n</mujoco>\n`);
  return file;
}

/** A closed box of 8 vertices in OBJ, and a model with `n` meshes all naming it (line k + 2 holds mesh k). */
export function sharedMeshModel(dir: string, n: number): string {
  const v = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]];
  const f = [[1, 3, 2], [1, 4, 3], [5, 6, 7], [5, 7, 8], [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 4, 8], [3, 8, 7], [4, 1, 5], [4, 5, 8]];
  writeFileSync(join(dir, 'box.obj'), `${v.map((p) => `v ${p.join(' ')}`).join('\n')}\n${f.map((t) => `f ${t.join(' ')}`).join('\n')}\n`);
  const meshes = Array.from({ length: n }, (_, k) => `<mesh name="m${k}" file="box.obj"/>`);
  const geoms = Array.from({ length: n }, (_, k) => `<geom type="mesh" mesh="m${k}" pos="${k} 0 0"/>`);
  const file = join(dir, `shared-mesh-${n}.xml`);
  writeFileSync(file, `<mujoco>\n<asset>\n${meshes.join('\n')}\n</asset>\n<worldbody><body><freejoint/>${geoms.join('')}</body></worldbody>\n</mujoco>\n`);
  return file;
}

/** A URDF chain of `n` revolute links below a root link, each link the child of the one before. */
export function urdfChainModel(dir: string, n: number): string {
  const inertial = '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>';
  const parts = [`<robot name="chain"><link name="l0">${inertial}</link>`];
  for (let k = 1; k <= n; k++) {
    parts.push(`<link name="l${k}">${inertial}</link><joint name="j${k}" type="revolute"><parent link="l${k - 1}"/><child link="l${k}"/>`
      + '<origin xyz="0 0 0.1"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>');
  }
  const file = join(dir, `chain-${n}.urdf`);
  writeFileSync(file, `${parts.join('\n')}\n</robot>\n`);
  return file;
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
