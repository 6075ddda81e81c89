import { Args } from '@oclif/core';
import { GsprofCommand, cacheFlag, strictFlag } from '../base.js';

export default class Convert extends GsprofCommand {
  static override summary = 'Convert a trace between Perfetto protobuf (.pftrace) and Chrome JSON (.json, .json.gz).';
  static override description = [
    'Imports the input (any format gsprof reads) and exports it in the format the output\'s extension names: .pftrace for Perfetto, .json or .json.gz for Chrome/Kineto JSON. Slices, counters, flows (with their category and name), args (with their structure and types), process labels, the pid and tid of threads and GPU streams, the scope of instants and the run metadata carry over; names, counts and durations are kept exactly. A JSON source\'s top-level members (a Kineto trace\'s distributedInfo, deviceProperties, trace_id...) are written back to a .json output as they were, and none is made up. A slice\'s thread time (tts, tdur) is kept in .json output; a .pftrace output leaves it out and says so in a warning. The output must not be the input (also through a link): convert never overwrites its input.',
    'It streams: the imported tables are read in time order as the output is written, so memory stays bounded whatever the trace size (about 1.2 GB for a 1 GB JSON of 10M events). The output is written under a temporary name and renamed when complete: an error or Ctrl-C leaves whatever was at the output as it was (exit 130 on Ctrl-C).',
  ].join('\n\n');
  static override examples = [
    '<%= config.bin %> convert out/run.pftrace out/run.json',
    '<%= config.bin %> convert trace.pt.trace.json.gz trace.pftrace',
  ];
  static override enableJsonFlag = true;
  static override flags = { strict: strictFlag, cache: cacheFlag };
  static override args = {
    input: Args.string({ description: 'trace to read', required: true }),
    output: Args.string({ description: 'file to write (.pftrace, .json or .json.gz)', required: true }),
  };

  async run(): Promise<unknown> {
    const { args } = await this.parse(Convert);
    const { convertTrace } = await import('../views/convert.js');
    const result = await convertTrace(args.input, args.output);
    this.print(`read ${result.input}, wrote ${args.output} (${result.format}; ${result.slices} slices, ${result.counters} counter samples, ${result.flows} flows)`);
    return result;
  }
}
