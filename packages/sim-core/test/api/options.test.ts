import { describe, expect, test } from 'vitest';
import {
  DEFAULT_OPTIONS, describeOptions, fileOptionsAsScene, MUJOCO_DEFAULT_OPTIONS, resolveOptions, toModelOptions, validateSceneOptions,
} from '../../src/api/options.js';
import { Integrator, SolverType } from '../../src/model/model.js';

// What the MJCF loader reports for the Menagerie Franka's <option> (PROVENANCE.md).
const frankaFile = {
  source: 'panda.xml',
  options: fileOptionsAsScene(
    { timestep: 0.005, iterations: 5, lsIterations: 8, integrator: Integrator.ImplicitFast, disableEulerdamp: true },
    'panda.xml',
  ),
};

describe('option precedence: user > MJCF <option> > default', () => {
  test('the file fills only fields the user did not set, and says which', () => {
    const { options, filled } = resolveOptions({ rigidOptions: { dt: 0.01, iterations: 100 } }, [frankaFile]);
    expect(options.dt).toBe(0.01); // user wins
    expect(options.iterations).toBe(100); // user wins
    expect(options.lsIterations).toBe(8); // from the file
    expect(options.eulerdamp).toBe(false); // from the file
    expect(options.constraintSolver).toBe(DEFAULT_OPTIONS.constraintSolver); // default
    expect(filled).toEqual(['integrator=\'implicitfast\'', 'eulerdamp=false', 'lsIterations=8']);
  });

  test('without user values the file fills dt too; simOptions.dt is used when rigidOptions.dt is absent', () => {
    expect(resolveOptions({}, [frankaFile]).options.dt).toBe(0.005);
    expect(resolveOptions({ simOptions: { dt: 0.02 } }, [frankaFile]).options.dt).toBe(0.02);
    expect(resolveOptions({ simOptions: { dt: 0.02 }, rigidOptions: { dt: 0.01 } }, []).options.dt).toBe(0.01);
  });

  test('substeps split dt; enums map to the Model', () => {
    const { options } = resolveOptions({ simOptions: { dt: 0.02, substeps: 4 }, rigidOptions: { constraintSolver: 'cg', integrator: 'euler' } }, []);
    const opt = toModelOptions(options);
    expect(opt.timestep).toBeCloseTo(0.005, 15);
    expect(opt.substeps).toBe(4);
    expect(opt.solver).toBe(SolverType.CG);
    expect(opt.integrator).toBe(Integrator.Euler);
    expect(opt.disableEulerdamp).toBe(false);
  });

  test("options from the file: MuJoCo's defaults for what it leaves out, and the log line names every source", () => {
    const r = resolveOptions({ simOptions: { dt: 0.01 } }, [frankaFile], true);
    expect(r.options).toMatchObject({ dt: 0.01, integrator: 'implicitfast', iterations: 5, lsIterations: 8, tolerance: 1e-8, eulerdamp: false });
    expect(r.sources).toMatchObject({ dt: 'user', integrator: 'panda.xml', tolerance: 'MuJoCo default' });
    // A file with no <option> at all gets MuJoCo's options, not Genesis'.
    const bare = resolveOptions({}, [], true).options;
    expect(bare).toMatchObject({ dt: 0.002, integrator: 'euler', constraintSolver: 'newton', iterations: 100, tolerance: 1e-8, lsIterations: 50, lsTolerance: 0.01, eulerdamp: true, cone: 'pyramidal', impratio: 1 });
    expect(MUJOCO_DEFAULT_OPTIONS.dt).toBe(0.002);
    expect(describeOptions(r)).toBe(
      "Options in effect: set by the user: dt=0.01; MuJoCo defaults: substeps=1, gravity=[0, 0, -9.81], constraintSolver='newton', " +
      "tolerance=1e-8, lsTolerance=0.01, cone='pyramidal', impratio=1, enableCollision=true, enableJointLimit=true, enableSelfCollision=true; " +
      "from panda.xml <option>: integrator='implicitfast', eulerdamp=false, iterations=5, lsIterations=8.",
    );
    // A Genesis scene (rigidOptions given): Genesis' defaults for what neither the user nor the file set.
    const genesis = resolveOptions({ rigidOptions: { dt: 0.01 } }, [], false);
    expect(genesis.options).toMatchObject({ integrator: 'implicitfast', iterations: 50, tolerance: 1e-6 });
    expect(describeOptions(genesis)).toMatch(/^Options in effect: set by the user: dt=0.01; Genesis defaults: substeps=1, .*iterations=50, tolerance=0.000001/);
  });

  test('bad options get one-line errors naming the field', () => {
    expect(() => validateSceneOptions({ rigidOptions: { integrator: 'rk4' as never } }))
      .toThrow(`rigidOptions.integrator must be one of 'euler', 'implicitfast', 'implicit', got "rk4"`);
    expect(() => validateSceneOptions({ rigidOptions: { iterations: 0 } })).toThrow('rigidOptions.iterations must be a positive integer, got 0');
    expect(() => validateSceneOptions({ rigidOptions: { dtt: 1 } as never })).toThrow(/Unknown rigidOptions field 'dtt'/);
    expect(() => validateSceneOptions({ profilingOptions: { fpsTrackerAlpha: 2 } })).toThrow(/fpsTrackerAlpha must be between 0 and 1/);
    expect(() => fileOptionsAsScene({ integrator: Integrator.RK4 }, 'x.xml')).toThrow(/x.xml: <option integrator> value 1 is not supported/);
  });
});
