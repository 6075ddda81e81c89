import { CliError } from '../errors.js';
import { buildAnymal } from './anymal.js';
import { buildFranka } from './franka.js';
import { buildTimers } from './timers.js';
import { EXAMPLES, type ExampleName, type Scenario, type ScenarioOptions } from './types.js';

export * from './types.js';

export async function buildScenario(name: string, options: ScenarioOptions): Promise<Scenario> {
  if (!EXAMPLES.includes(name as ExampleName)) throw new CliError('--example', `unknown example '${name}' (expected ${EXAMPLES.join(', ')})`);
  switch (name as ExampleName) {
    case 'franka': return await buildFranka(options);
    case 'anymal_c': return await buildAnymal(options);
    case 'timers': return await buildTimers(options);
  }
}
