/**
 * The problems an import counts, as rows of the `stats` table (trace_processor's table: name, idx, severity,
 * source, value, description). Where trace_processor counts the same problem, the stat has its name, severity
 * and source (Perfetto v58.2's stats table); the others are gsprof's own, marked so in their description, with
 * the severity of what they mean: `info` where trace_processor takes the input the same way without counting it.
 */

/** trace_processor's severities: `error` and `data_loss` make a command warn (see `PROBLEM_SEVERITIES`). */
export type StatSeverity = 'info' | 'notice' | 'data_loss' | 'error';

interface StatInfo {
  severity: StatSeverity;
  /** trace_processor's: `trace` for what the input holds, `analysis` for what reading it found. */
  source: 'trace' | 'analysis';
  description: string;
}

const OWN = '(gsprof only; trace_processor does not count this)';

const STATS = {
  // ---- trace_processor's own names ------------------------------------------------------------------------
  json_parser_failure: { severity: 'error', source: 'trace',
    description: 'JSON events dropped: not an object, unparsable, or missing a field their phase needs (an X\'s dur, an async id, a numeric counter value), or a pid or tid past int64' },
  json_tokenizer_failure: { severity: 'error', source: 'trace', description: 'JSON events dropped for a missing or unreadable ts (not a number, or past what int64 ns hold), or a JSON that ended inside an event (the events before it are kept)' },
  flow_invalid_id: { severity: 'error', source: 'trace', description: 'JSON flow events (s/t/f) without an id, dropped' },
  flow_duplicate_id: { severity: 'error', source: 'trace', description: 'JSON flow starts (s) of an id already started, ignored: the flow goes on from the first' },
  flow_no_enclosing_slice: { severity: 'error', source: 'trace', description: 'flow events with no slice to bind to: the arrow is not drawn' },
  misplaced_end_event: { severity: 'data_loss', source: 'analysis', description: 'end events that did not match the innermost open slice' },
  slice_negative_duration: { severity: 'error', source: 'analysis', description: 'complete slices with a negative dur, dropped' },
  slice_drop_overlapping_complete_event: { severity: 'error', source: 'analysis',
    description: 'complete slices dropped because they partly overlap another slice on the same track' },
  slice_spill_overlapping_complete_event: { severity: 'error', source: 'analysis',
    description: 'complete slices that partly overlap another slice of their thread, moved to a track of their own' },
  systrace_parse_failure: { severity: 'error', source: 'analysis', description: 'atrace lines of ftrace print events that do not parse (B or I without a tgid or name), dropped' },
  track_descriptor_missing_uuid: { severity: 'error', source: 'analysis', description: 'track descriptors without a uuid, ignored' },
  track_event_counter_missing_track_uuid: { severity: 'error', source: 'analysis', description: 'counter events without a track uuid (nor a default one), dropped' },
  track_event_counter_invalid_track_uuid: { severity: 'error', source: 'analysis', description: 'counter events on a track that is not a counter track, dropped' },
  track_event_extra_counter_missing_track_uuids: { severity: 'error', source: 'analysis', description: 'events with extra counter values but no track uuids for them (nor default ones), dropped' },
  track_event_extra_counter_track_uuid_mismatch: { severity: 'error', source: 'analysis', description: 'events with an extra counter value whose track uuid is 0, dropped' },
  track_event_extra_counter_exceeds_max: { severity: 'error', source: 'analysis', description: 'events with more than 8 extra counter values, dropped' },
  track_event_extra_counter_invalid_track: { severity: 'error', source: 'analysis', description: 'events with an extra counter value for a track that is not a counter track, or with no track uuid left for it, dropped' },
  clock_sync_failure: { severity: 'error', source: 'analysis', description: 'packets whose clock could not be converted to trace time, dropped' },
  invalid_clock_snapshots: { severity: 'error', source: 'analysis', description: 'clock snapshots that contradict earlier ones, ignored' },
  interned_data_tokenizer_errors: { severity: 'info', source: 'analysis', description: 'interned names that were never defined' },
  tokenizer_skipped_packets: { severity: 'info', source: 'analysis', description: 'packets skipped while their sequence had no valid incremental state' },
  track_descriptor_conflicting_reservation: { severity: 'error', source: 'analysis',
    description: 'track descriptors that declare a uuid already declared for another thread; the first one is kept' },
  thread_descriptor_missing_sequence_id: { severity: 'error', source: 'analysis', description: 'thread descriptors without a sequence id, ignored' },
  thread_descriptor_skipped_incremental_state_invalid: { severity: 'notice', source: 'analysis',
    description: 'thread descriptors skipped while their sequence had no valid incremental state' },
  track_event_invalid_timestamp: { severity: 'error', source: 'analysis', description: 'track events whose time resolved before 0, dropped' },
  track_event_missing_timestamp: { severity: 'error', source: 'analysis', description: 'track events without a timestamp, dropped' },
  track_event_parser_errors: { severity: 'info', source: 'analysis', description: 'track events that could not be placed (no track, no thread, negative dur), dropped' },
  track_event_skipped_timestamp_delta_without_valid_state: { severity: 'notice', source: 'analysis',
    description: 'track events with a timestamp delta but no thread descriptor to add it to, dropped' },
  track_event_skipped_thread_time_delta_without_valid_state: { severity: 'notice', source: 'analysis',
    description: 'track events with a thread time delta but no thread descriptor to add it to, dropped' },
  track_event_skipped_thread_instruction_delta_without_valid_state: { severity: 'notice', source: 'analysis',
    description: 'track events with an instruction count delta but no thread descriptor to add it to, dropped' },
  // ---- gsprof's own ---------------------------------------------------------------------------------------
  json_repaired_events: { severity: 'info', source: 'trace',
    description: `JSON events with a trailing comma or a raw control character in a string, read as trace_processor reads them ${OWN}` },
  ftrace_event_unread: { severity: 'data_loss', source: 'trace',
    description: `ftrace events not read: all but the atrace slices (B, E, I) of print events; scheduling, other kernel events, atrace async slices and counters ${OWN}` },
  json_dropped_events: { severity: 'info', source: 'trace', description: `JSON events of a phase that is not imported, skipped ${OWN}` },
  json_toplevel_value_too_large: { severity: 'info', source: 'trace', description: `top-level JSON values too large to keep as metadata, skipped ${OWN}` },
  json_begin_without_end: { severity: 'info', source: 'trace', description: `JSON begin events never ended (their slices have dur -1) ${OWN}` },
  json_end_without_begin: { severity: 'info', source: 'trace', description: `JSON end events with nothing open to end, dropped ${OWN}` },
  slice_end_without_begin: { severity: 'info', source: 'analysis', description: `track event ends with nothing open to end, dropped ${OWN}` },
  slice_without_end: { severity: 'info', source: 'analysis', description: `track event begins never ended (their slices have dur -1) ${OWN}` },
  truncated_bytes: { severity: 'data_loss', source: 'trace', description: `bytes after the last whole packet of a cut .pftrace, dropped ${OWN}` },
  gzip_truncated: { severity: 'data_loss', source: 'trace', description: `a .gz that ended early or is corrupt: what was before the fault was read ${OWN}` },
  tracks_out_of_order: { severity: 'info', source: 'analysis', description: `tracks whose events were not in time order and were sorted ${OWN}` },
  gsprof_metadata_unparsable: { severity: 'error', source: 'trace', description: `a gsprof.metadata event whose JSON did not parse, ignored ${OWN}` },
  gsprof_flow_names_unparsable: { severity: 'error', source: 'trace', description: `gsprof's flow names whose JSON did not parse, ignored ${OWN}` },
  track_event_state_not_imported: { severity: 'info', source: 'analysis',
    description: `state track values (TYPE_STATE events: trace_processor's state table, which gsprof does not have), dropped ${OWN}` },
  legacy_event_unsupported_phase: { severity: 'info', source: 'analysis', description: `legacy track events of a phase that is not imported, dropped ${OWN}` },
  counter_descriptor_after_slice_events: { severity: 'info', source: 'analysis',
    description: `counter descriptors for a track that already had slices, ignored ${OWN}` },
  slice_event_on_counter_track: { severity: 'info', source: 'analysis', description: `slice events on a counter track, dropped ${OWN}` },
  debug_annotation_too_deep: { severity: 'info', source: 'analysis', description: `debug annotations nested deeper than 32, cut ${OWN}` },
  track_event_without_type: { severity: 'info', source: 'analysis', description: `track events without a type, dropped ${OWN}` },
} as const satisfies Record<string, StatInfo>;

/** The name of a stat an import can count. */
export type StatName = keyof typeof STATS;

/** The severities that make a command warn, as trace_processor's "Trace health issues". */
export const PROBLEM_SEVERITIES: readonly StatSeverity[] = ['error', 'data_loss'];

/** One row of the `stats` table. */
export interface StatRow { name: StatName; severity: StatSeverity; source: string; value: number; description: string }

/** A row for every stat, as trace_processor lists every stat (value 0 where nothing was counted). */
export function statRows(counts: ReadonlyMap<string, number>): StatRow[] {
  return (Object.keys(STATS) as StatName[]).sort().map((name) => {
    const s: StatInfo = STATS[name];
    return { name, severity: s.severity, source: s.source, value: counts.get(name) ?? 0, description: s.description };
  });
}
