/**
 * A <spatial> tendon's path as MuJoCo's compiler checks it (mjCTendon::Compile): sites and pulleys, at least
 * two objects, no consecutive pulleys, none last, every site beside a non-pulley, no site repeated next to
 * itself, every wrapping geom (a sphere or cylinder, with an optional side site) between two sites.
 */
import { Attrs } from './attrs.js';
import { fail, type XmlElement } from './xml.js';

export type SpatialPathRaw = Array<
  { el: XmlElement; site: string } | { el: XmlElement; divisor: number } | { el: XmlElement; geom: string; sidesite: string | null }
>;

/** Reads <spatial> element c (tendon `name`, index `index` among the tendons); sites stay names here. */
export function spatialPath(c: XmlElement, name: string, index: number): SpatialPathRaw {
  const label = name ? `tendon "${name}"` : `tendon ${index}`;
  const path: SpatialPathRaw = c.children.map((w) => {
    const a = new Attrs(w);
    if (w.name === 'site') {
      const site = a.requiredStr('site');
      a.done();
      return { el: w, site };
    }
    if (w.name === 'pulley') {
      const divisor = a.num('divisor') ?? fail(w, `${label}: a pulley needs a divisor`);
      a.done();
      if (divisor < 0) fail(w, `${label}: a pulley's divisor must not be negative`);
      return { el: w, divisor };
    }
    if (w.name === 'geom') {
      const geom = a.requiredStr('geom');
      const sidesite = a.str('sidesite') ?? null;
      a.done();
      return { el: w, geom, sidesite };
    }
    return fail(w, `${label}: unsupported element in a spatial tendon (only <site site>, <geom geom sidesite> and <pulley divisor>)`);
  });
  if (path.length < 2) fail(c, `${label}: a spatial tendon's path needs at least two objects`);
  path.forEach((p, i) => {
    const pulley = (k: number): boolean => k >= 0 && k < path.length && 'divisor' in path[k]!;
    if ('geom' in p) {
      const site = (k: number): boolean => k >= 0 && k < path.length && 'site' in path[k]!;
      if (!site(i - 1) || !site(i + 1)) fail(p.el, `${label}: a wrapping geom must sit between two sites`);
      return;
    }
    if ('divisor' in p) {
      if (pulley(i - 1)) fail(p.el, `${label}: consecutive pulleys`);
      if (i === path.length - 1) fail(p.el, `${label}: the path ends with a pulley`);
      return;
    }
    if ((i === 0 || pulley(i - 1)) && (i === path.length - 1 || pulley(i + 1))) {
      fail(p.el, `${label}: a site needs a neighbour that is not a pulley`);
    }
    const next = path[i + 1];
    if (next && 'site' in next && next.site === p.site) fail(p.el, `${label}: site "${p.site}" is repeated`);
  });
  return path;
}
