/**
 * A small XML element tree with source positions, for the model loaders. Built on saxes so that every
 * element remembers the file and line it came from: loader errors must point at them.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { SaxesParser } from 'saxes';

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Line of the element's opening `<`, 1-based. */
  line: number;
  file: string;
}

/** A model-file error that names where it happened: `<file>:<line>: <element>: <why>`. */
export class ModelFileError extends Error {
  constructor(readonly file: string, readonly line: number, readonly element: string, readonly why: string) {
    super(`${file}:${line}: ${element}: ${why}`);
    this.name = 'ModelFileError';
  }
}

export function fail(el: XmlElement, why: string): never {
  throw new ModelFileError(el.file, el.line, `<${el.name}>`, why);
}

/** Largest model file read (the biggest MuJoCo Menagerie XML is under 1 MB). */
export const MAX_MODEL_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Reads a model file: regular files only (a FIFO would block, /dev/zero would never end) up to
 * MAX_MODEL_FILE_BYTES. The open does not block on a FIFO (O_NONBLOCK) and the type is checked on the opened
 * descriptor, so nothing can swap the file in between.
 */
export function readModelFile(file: string): string {
  return readModelBytes(file).toString('utf8');
}

/** readModelFile's bytes, for binary model files (STL meshes). */
export function readModelBytes(file: string, maxBytes = MAX_MODEL_FILE_BYTES, limitName = `the ${MAX_MODEL_FILE_BYTES / 1048576} MiB limit for a model file`): Buffer {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw new Error(`${file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${file}: cannot read: not a regular file (${st.isDirectory() ? 'a directory' : st.isFIFO() ? 'a FIFO' : 'a device or socket'})`);
    if (st.size > MAX_MODEL_FILE_BYTES) throw new Error(`${file}: cannot read: ${st.size} bytes, over the ${MAX_MODEL_FILE_BYTES / 1048576} MiB limit for a model file`);
    if (st.size > maxBytes) throw new Error(`${file}: cannot read: ${st.size} bytes, over ${limitName}`);
    // One byte more than the stated size tells a file that grows while it is read from one that does not.
    const buf = Buffer.alloc(st.size + 1);
    let n = 0;
    for (let r = 1; r > 0 && n < buf.length; n += r) r = readSync(fd, buf, n, buf.length - n, null);
    if (n > st.size) throw new Error(`${file}: cannot read: the file grew while it was read`);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** Reads and parses `file` (with `read`, which may count it against a limit); malformed XML throws a
 * ModelFileError at the offending line. */
export function parseXmlFile(file: string, read: (file: string) => string = readModelFile): XmlElement {
  return parseXml(read(file), file);
}

export function parseXml(text: string, file: string): XmlElement {
  const parser = new SaxesParser({ position: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let startLine = 1;
  let failure: ModelFileError | null = null;

  parser.on('opentagstart', () => {
    startLine = parser.line;
  });
  parser.on('opentag', (tag) => {
    const attrs: Record<string, string> = {};
    for (const [k, v] of Object.entries(tag.attributes)) attrs[k] = typeof v === 'string' ? v : v.value;
    const el: XmlElement = { name: tag.name, attrs, children: [], line: startLine, file };
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(el);
    else root ??= el;
    stack.push(el);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.on('error', (err) => {
    // saxes prefixes its message with "line:column: "; keep only the reason
    const why = err.message.replace(/^(?:[^:]*:)?\d+:\d+: /, '');
    const where = stack[stack.length - 1];
    failure ??= new ModelFileError(file, parser.line, where ? `<${where.name}>` : 'xml', `malformed XML: ${why}`);
  });
  parser.write(text).close();
  if (failure) throw failure;
  if (!root) throw new ModelFileError(file, 1, 'xml', 'no root element');
  return root;
}
