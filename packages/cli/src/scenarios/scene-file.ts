/**
 * `record --scene FILE`: the user's own MJCF or URDF model, recorded as the built-in examples are. A URDF gets a
 * ground plane (a URDF describes a robot, not a world); an MJCF brings its own world, options and actuators.
 * Every hinge and slide joint is driven by `--control`, set once before the first step:
 *   hold        position targets at the initial pose
 *   zero        zero force (the joints are left to gravity and contacts)
 *   random[:A]  position targets at the initial pose plus uniform noise in [-A, A] (default 0.1), drawn per env
 *               and dof from --seed, so a rerun gets the same targets
 * Free and ball joints (a floating base) are never driven.
 */
import { existsSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { CliError } from '../errors.js';
import { initSim } from './sim.js';
import { mulberry32 } from './timers.js';
import { disposer, type Scenario, type ScenarioOptions } from './types.js';

export type ControlChoice = { kind: 'hold' } | { kind: 'zero' } | { kind: 'random'; amplitude: number };

export function parseControl(text: string): ControlChoice {
  if (text === 'hold' || text === 'zero') return { kind: text };
  const m = /^random(?::(.+))?$/.exec(text);
  if (m) {
    const amplitude = m[1] === undefined ? 0.1 : Number(m[1]);
    if (!Number.isFinite(amplitude) || amplitude < 0) throw new CliError('--control', `'${text}': the amplitude must be a number >= 0, e.g. random:0.2`);
    return { kind: 'random', amplitude };
  }
  throw new CliError('--control', `'${text}' is not a control (expected hold, zero or random[:AMPLITUDE])`);
}

export async function buildSceneFile(file: string, control: ControlChoice, options: ScenarioOptions): Promise<Scenario> {
  const path = resolve(file);
  if (!existsSync(path)) throw new CliError(file, 'no such file');
  const urdf = /\.urdf$/i.test(path);
  if (!urdf && !/\.xml$/i.test(path)) throw new CliError(file, 'not a model file (expected an MJCF .xml or a .urdf)');
  const gs = await initSim(options);
  const scene = new gs.Scene({
    // simOptions, not rigidOptions: the file's <option> (MuJoCo's defaults for what it leaves out) stays in effect.
    ...(options.dt !== undefined ? { simOptions: { dt: options.dt } } : {}),
    // resetOnError is no MJCF option: setting it overrides nothing of the file's.
    ...(options.resetOnError ? { rigidOptions: { resetOnError: true } } : {}),
    profilingOptions: { showFPS: options.showFPS },
  });
  if (urdf) scene.addEntity(gs.morphs.Plane());
  const entity = scene.addEntity(urdf ? gs.morphs.URDF({ file: path }) : gs.morphs.MJCF({ file: path }));
  const nEnvs = options.nEnvs ?? 1024;
  await scene.build({ nEnvs });
  const dofs = entity.joints.filter((j) => j.type === 'hinge' || j.type === 'slide').map((j) => j.dofsIdxLocal[0]!);
  if (dofs.length > 0) {
    const rows = Math.max(1, nEnvs);
    if (control.kind === 'zero') {
      entity.controlDofsForce(new Float64Array(rows * dofs.length), { dofsIdx: dofs });
    } else {
      const home = (await entity.getDofsPosition({ dofsIdx: dofs })).data;
      const targets = Float64Array.from(home);
      if (control.kind === 'random') {
        const next = mulberry32(options.seed ?? 0);
        for (let k = 0; k < targets.length; k++) targets[k] = targets[k]! + control.amplitude * (2 * next() - 1);
      }
      entity.controlDofsPosition(nEnvs > 0 ? gs.tensor(targets, { shape: [nEnvs, dofs.length] }) : gs.tensor(targets), { dofsIdx: dofs });
    }
  }
  const name = basename(path);
  return {
    name: 'scene', gs, scene, nEnvs, defaultSteps: 200, dispose: disposer(gs, scene),
    facts: {
      example: name, scene: name, control: control.kind === 'random' ? `random:${control.amplitude}` : control.kind,
      controlledDofs: dofs.length, nEnvs, performanceMode: options.performanceMode, ...(options.dt !== undefined ? { dt: options.dt } : {}),
    },
  };
}
