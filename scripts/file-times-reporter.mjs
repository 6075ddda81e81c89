// A vitest reporter that writes each test file's time (import, setup and its tests, as vitest measured them in
// this run) to the file named by GSPROF_FILE_TIMES, so scripts/test-summary.mjs can name the slowest files.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';

export default class FileTimesReporter {
  onTestRunEnd(testModules) {
    const out = process.env.GSPROF_FILE_TIMES;
    if (!out) return;
    const rows = testModules.map((m) => {
      const d = m.diagnostic();
      const ms = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
      return { file: relative(process.cwd(), m.moduleId), project: m.project.name, ms: Math.round(ms), importMs: Math.round(d.collectDuration), testsMs: Math.round(d.duration) };
    });
    writeFileSync(out, JSON.stringify(rows.sort((a, b) => b.ms - a.ms), null, 1));
  }
}
