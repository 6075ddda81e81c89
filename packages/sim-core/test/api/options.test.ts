import { describe, expect, test } from 'vitest';
import {
  DEFAULT_OPTIONS, fileOptionsAsScene, resolveOptions, toModelOptions, validateSceneOptions,
} from '../../src/api/options.js';
import { Integrator, SolverType } from '../../src/model/model.js';

// What the MJCF loader reports for the Menagerie Franka's <option> (PROVENANCE.md).
const frankaFile = fileOptionsAsScene(
  { timestep: 0.005, iterations: 5, lsIterations: 8, integrator: Integrator.ImplicitFast, disableEulerdamp: true },
  'panda.xml',
);

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

  test('bad options get one-line errors naming the field', () => {
    expect(() => validateSceneOptions({ rigidOptions: { integrator: 'rk4' as never } }))
      .toThrow(`rigidOptions.integrator must be one of 'euler', 'implicitfast', got "rk4"`);
    expect(() => validateSceneOptions({ rigidOptions: { iterations: 0 } })).toThrow('rigidOptions.iterations must be a positive integer, got 0');
    expect(() => validateSceneOptions({ rigidOptions: { dtt: 1 } as never })).toThrow(/Unknown rigidOptions field 'dtt'/);
    expect(() => validateSceneOptions({ profilingOptions: { fpsTrackerAlpha: 2 } })).toThrow(/fpsTrackerAlpha must be between 0 and 1/);
    expect(() => fileOptionsAsScene({ integrator: Integrator.RK4 }, 'x.xml')).toThrow(/x.xml: <option integrator> value 1 is not supported/);
  });
});
