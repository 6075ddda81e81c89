/**
 * Typed access to one XML element's attributes that remembers which ones were read, so that an attribute
 * the loader does not understand is reported (with file and line) instead of silently changing nothing.
 */
import { fail, type XmlElement } from './xml.js';

export class Attrs {
  private readonly used = new Set<string>();

  constructor(readonly el: XmlElement) {}

  has(name: string): boolean {
    return name in this.el.attrs;
  }

  str(name: string): string | undefined {
    if (!(name in this.el.attrs)) return undefined;
    this.used.add(name);
    return this.el.attrs[name];
  }

  requiredStr(name: string): string {
    const v = this.str(name);
    if (v === undefined || v === '') fail(this.el, `missing required attribute '${name}'`);
    return v;
  }

  /** Whitespace-separated numbers; `exact` demands `count` of them, otherwise 1..count. */
  nums(name: string, count: number, exact = true): number[] | undefined {
    const text = this.str(name);
    if (text === undefined) return undefined;
    const parts = text.trim() === '' ? [] : text.trim().split(/\s+/);
    const vals = parts.map(Number);
    if (vals.some((v) => Number.isNaN(v))) fail(this.el, `attribute '${name}': not a number list: "${text}"`);
    if (exact ? vals.length !== count : vals.length < 1 || vals.length > count) {
      fail(this.el, `attribute '${name}': expected ${exact ? '' : 'up to '}${count} numbers, got ${vals.length}`);
    }
    return vals;
  }

  /** Any number of numbers (keyframe vectors). */
  vector(name: string): number[] | undefined {
    const text = this.str(name);
    if (text === undefined) return undefined;
    const vals = text.trim() === '' ? [] : text.trim().split(/\s+/).map(Number);
    if (vals.some((v) => Number.isNaN(v))) fail(this.el, `attribute '${name}': not a number list`);
    return vals;
  }

  /** Reads up to `dst.length` numbers (or exactly, with `exact`) into the front of `dst`. */
  into(name: string, dst: number[], exact = true): boolean {
    const v = this.nums(name, dst.length, exact);
    if (!v) return false;
    v.forEach((x, i) => { dst[i] = x; });
    return true;
  }

  num(name: string): number | undefined {
    return this.nums(name, 1)?.[0];
  }

  int(name: string): number | undefined {
    const v = this.num(name);
    if (v !== undefined && !Number.isInteger(v)) fail(this.el, `attribute '${name}': expected an integer`);
    return v;
  }

  keyword<T>(name: string, map: Record<string, T>): T | undefined {
    const v = this.str(name);
    if (v === undefined) return undefined;
    if (!Object.hasOwn(map, v)) {
      fail(this.el, `attribute '${name}': unsupported value "${v}" (supported: ${Object.keys(map).join(', ')})`);
    }
    return map[v];
  }

  bool(name: string): boolean | undefined {
    return this.keyword(name, { true: true, false: false });
  }

  /** MJCF's three-valued limited flags. */
  tfauto(name: string): 'auto' | boolean | undefined {
    return this.keyword<'auto' | boolean>(name, { true: true, false: false, auto: 'auto' });
  }

  /** Marks attributes that have no physical effect (colours, materials, groups) as understood. */
  ignore(...names: string[]): void {
    for (const n of names) this.used.add(n);
  }

  /** Throws on the first attribute nobody read. */
  done(): void {
    for (const name of Object.keys(this.el.attrs)) {
      if (!this.used.has(name)) fail(this.el, `unsupported attribute '${name}'`);
    }
  }
}
