/**
 * Minimal protobuf text-format reader for the Perfetto test inputs: nested messages become objects and every
 * field becomes an array of values (numbers, strings, enum identifiers, or objects), in file order.
 */
export type TextprotoValue = number | string | boolean | TextprotoMessage;
export interface TextprotoMessage { [field: string]: TextprotoValue[] }

export function parseTextproto(src: string): TextprotoMessage {
  const tokens = src.replace(/#[^\n]*/g, '').match(/"(?:[^"\\]|\\.)*"|[{}:,]|[^\s{}:,"]+/g) ?? [];
  let i = 0;
  const message = (): TextprotoMessage => {
    const msg: TextprotoMessage = Object.create(null) as TextprotoMessage;
    while (i < tokens.length && tokens[i] !== '}') {
      const name = tokens[i++]!;
      if (tokens[i] === ':') i++;
      let value: TextprotoValue;
      if (tokens[i] === '{') { i++; value = message(); i++; }
      else {
        const t = tokens[i++]!;
        if (t.startsWith('"')) value = JSON.parse(t) as string;
        else if (t === 'true' || t === 'false') value = t === 'true';
        else if (/^-?[\d.]+(e-?\d+)?$/i.test(t)) value = Number(t);
        else value = t;
      }
      msg[name] ??= [];
      msg[name].push(value);
      if (tokens[i] === ',') i++;
    }
    return msg;
  };
  return message();
}

export function first<T extends TextprotoValue>(m: TextprotoMessage | undefined, field: string): T | undefined {
  return m?.[field]?.[0] as T | undefined;
}
