/**
 * A small XML element tree with source positions, for the model loaders. Built on saxes so that every
 * element remembers the file and line it came from: loader errors must point at them.
 */
import { readFileSync } from 'node:fs';
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

/** Reads and parses `file`; malformed XML throws a ModelFileError at the offending line. */
export function parseXmlFile(file: string): XmlElement {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  return parseXml(text, file);
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
