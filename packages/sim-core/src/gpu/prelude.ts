/**
 * The WGSL shared by every kernel: buffer bindings, sizes, field bases and accessors.
 *
 * performanceMode bakes nEnvs, the model's sizes, field bases and options in as `const`s, so the compiler
 * can fold them and the kernel is specific to this scene. Without it the same names are module-scope
 * `var<private>`s loaded from a layout buffer at the top of each kernel, so one compiled kernel serves any
 * scene and any nEnvs. Kernel bodies are identical in both modes.
 */
import { CCD_ITERATIONS, CCD_TOLERANCE } from '../collision/convex.js';
import type { Model } from '../model/model.js';
import { MODEL_INT_FIELDS, MODEL_REAL_FIELDS, type PackedLayout, type PackedModel } from './layout.js';

export const WORKGROUP_SIZE = 64;

const snake = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

interface Named { name: string; type: 'u32' | 'i32' | 'f32'; value: number }

/** Every named scalar the kernels use, in layout-buffer order. */
export function preludeScalars(m: Model, nEnvs: number, layout: PackedLayout, pm: PackedModel, cap: { maxContacts: number; maxEfc: number }, blowUpThreshold = 1e10): Named[] {
  const out: Named[] = [
    { name: 'N', type: 'u32', value: nEnvs },
    { name: 'NQ', type: 'i32', value: m.nq }, { name: 'NV', type: 'i32', value: m.nv },
    { name: 'NU', type: 'i32', value: m.nu }, { name: 'NBODY', type: 'i32', value: m.nbody },
    { name: 'NJNT', type: 'i32', value: m.njnt }, { name: 'NGEOM', type: 'i32', value: m.ngeom },
    { name: 'NSITE', type: 'i32', value: m.nsite }, { name: 'NEQ', type: 'i32', value: m.neq },
    { name: 'NEXCLUDE', type: 'i32', value: m.nexclude }, { name: 'NTENDON', type: 'i32', value: m.ntendon },
    { name: 'NPAIR', type: 'i32', value: m.npair ?? 0 },
    { name: 'MAXCON', type: 'i32', value: cap.maxContacts }, { name: 'MAXEFC', type: 'i32', value: cap.maxEfc },
    { name: 'OPT_TIMESTEP', type: 'f32', value: m.opt.timestep },
    { name: 'OPT_GRAVITY_X', type: 'f32', value: m.opt.gravity[0] },
    { name: 'OPT_GRAVITY_Y', type: 'f32', value: m.opt.gravity[1] },
    { name: 'OPT_GRAVITY_Z', type: 'f32', value: m.opt.gravity[2] },
    { name: 'OPT_INTEGRATOR', type: 'i32', value: m.opt.integrator },
    { name: 'OPT_SOLVER', type: 'i32', value: m.opt.solver },
    { name: 'OPT_ITERATIONS', type: 'i32', value: m.opt.iterations },
    { name: 'OPT_TOLERANCE', type: 'f32', value: m.opt.tolerance },
    { name: 'OPT_LS_ITERATIONS', type: 'i32', value: m.opt.lsIterations },
    { name: 'OPT_LS_TOLERANCE', type: 'f32', value: m.opt.lsTolerance },
    { name: 'OPT_IMPRATIO', type: 'f32', value: m.opt.impratio },
    { name: 'OPT_CONE', type: 'i32', value: m.opt.cone },
    { name: 'OPT_CCD_TOLERANCE', type: 'f32', value: m.opt.ccdTolerance ?? CCD_TOLERANCE },
    { name: 'OPT_CCD_ITERATIONS', type: 'i32', value: m.opt.ccdIterations ?? CCD_ITERATIONS },
    { name: 'OPT_EULERDAMP', type: 'i32', value: m.opt.disableEulerdamp ? 0 : 1 },
    { name: 'OPT_COLLISION', type: 'i32', value: m.opt.enableCollision ? 1 : 0 },
    { name: 'OPT_JOINT_LIMIT', type: 'i32', value: m.opt.enableJointLimit ? 1 : 0 },
    { name: 'OPT_SELF_COLLISION', type: 'i32', value: m.opt.enableSelfCollision ? 1 : 0 },
    { name: 'STAT_MEANINERTIA', type: 'f32', value: m.statMeaninertia },
    // rigidOptions.blowUpThreshold: |qpos| or |qvel| beyond it flags the env (as the CPU backend's error poll)
    { name: 'OPT_BLOWUP', type: 'f32', value: blowUpThreshold },
  ];
  for (const f of layout.fields) out.push({ name: `D_${snake(f.name)}`, type: 'u32', value: layout.base.get(f.name)! });
  for (const f of [...MODEL_REAL_FIELDS, ...MODEL_INT_FIELDS]) out.push({ name: `M_${snake(f)}`, type: 'i32', value: pm.base.get(f)! });
  return out;
}

/** The layout buffer's contents for generic mode: each scalar as a u32 (f32 bit patterns for reals). */
export function layoutWords(scalars: Named[]): Uint32Array {
  const words = new Uint32Array(scalars.length);
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  const i = new Int32Array(f.buffer);
  scalars.forEach((s, k) => {
    if (s.type === 'f32') { f[0] = s.value; words[k] = u[0]!; } else if (s.type === 'i32') { i[0] = s.value; words[k] = u[0]!; } else words[k] = s.value >>> 0;
  });
  return words;
}

function literal(s: Named): string {
  if (s.type === 'u32') return `${s.value >>> 0}u`;
  if (s.type === 'i32') return `${s.value | 0}i`;
  if (!Number.isFinite(s.value)) return s.value > 0 ? '3.0e38f' : '-3.0e38f';
  const t = Math.fround(s.value).toPrecision(9);
  return t.includes('.') || t.includes('e') ? `${t}f` : `${t}.0f`;
}

/** Model sizes, which are also every kernel's loop bounds. */
const LOOP_BOUNDS = new Set(['NQ', 'NV', 'NU', 'NBODY', 'NJNT', 'NGEOM', 'NSITE', 'NEQ', 'NEXCLUDE', 'NTENDON', 'MAXCON', 'MAXEFC']);

/**
 * `bakeLoopBounds: false` keeps the model sizes dynamic even in performance mode. Software Vulkan (Mesa
 * lavapipe) fully unrolls loops with constant trip counts, which turns a 100 ms shader compile into minutes;
 * GPU drivers do not, so there everything is baked. (Mesa keeps compiled shaders in its disk cache, so
 * only the first run of a given kernel source pays the compile.)
 */
export function prelude(scalars: Named[], performanceMode: boolean, bakeLoopBounds = true): string {
  const decls: string[] = [];
  const loads: string[] = [];
  scalars.forEach((s, k) => {
    if (performanceMode && (bakeLoopBounds || !LOOP_BOUNDS.has(s.name))) decls.push(`const ${s.name}: ${s.type} = ${literal(s)};`);
    else {
      decls.push(`var<private> ${s.name}: ${s.type};`);
      const w = `lay[${k}u]`;
      loads.push(`  ${s.name} = ${s.type === 'u32' ? w : `bitcast<${s.type}>(${w})`};`);
    }
  });
  const mode = !performanceMode ? 'generic: sizes from the layout buffer' : bakeLoopBounds ? 'performance mode: everything baked in' : 'performance mode: all but loop bounds baked in';
  return `// gsprof sim-core kernel prelude (${mode})
@group(0) @binding(0) var<storage, read> mf: array<f32>;
@group(0) @binding(1) var<storage, read> mi: array<i32>;
@group(0) @binding(2) var<storage, read_write> df: array<f32>;
@group(0) @binding(3) var<storage, read_write> di: array<i32>;
@group(0) @binding(4) var<storage, read> lay: array<u32>;
${decls.join('\n')}
fn load_layout() {
${loads.length === 0 ? '  _ = lay[0];' : loads.join('\n')}
}
fn dget(base: u32, k: i32, e: u32) -> f32 { return df[(base + u32(k)) * N + e]; }
fn dset(base: u32, k: i32, e: u32, v: f32) { df[(base + u32(k)) * N + e] = v; }
fn iget(base: u32, k: i32, e: u32) -> i32 { return di[(base + u32(k)) * N + e]; }
fn iset(base: u32, k: i32, e: u32, v: i32) { di[(base + u32(k)) * N + e] = v; }
fn mr(base: i32, k: i32) -> f32 { return mf[base + k]; }
fn mn(base: i32, k: i32) -> i32 { return mi[base + k]; }
`;
}

/** Wraps a kernel body (statements using `e`, the env index) into a compute entry point. */
export function kernelSource(preludeSrc: string, helpers: string, body: string): string {
  return `${preludeSrc}
${helpers}
@compute @workgroup_size(${WORKGROUP_SIZE})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  load_layout();
  let e = gid.x;
  if (e >= N) { return; }
${body}
}
`;
}
