/** Messages between the main thread and the JSON scan worker (json-scan.ts, json-scan-worker.ts). */

/** Numbers per scanned event: start, end, line, offset, tsAt, durAt, numberFlags (as JsonScanHandler.event has them). */
export const SCAN_FIELDS = 7;

export interface ScanWorkerData {
  /** Whether a `null` element is handed over (lenient) or is a scan error (strict), as JsonScanHandler.nullEvent. */
  nullEvents: boolean;
}

/** A chunk of the file, or (no chunk) the end of it. */
export interface ScanRequest { chunk?: Uint8Array }

/** A top-level value or a `null` element, handed over before event number `at` of its batch. */
export interface ScanExtra { at: number; kind: 'top' | 'null'; key: string; raw: string | null; line: number; offset: number }

/** What one chunk (or the end) completed: event positions are into `bytes`, which holds just those events. */
export interface ScanBatch {
  bytes: Uint8Array;
  events: Float64Array;
  extras: ScanExtra[];
  /** The scan stopped: the end was read, or `error` was found. */
  done: boolean;
  hasEventArray: boolean;
  error: { offset: number; line: number; message: string } | null;
}
