/**
 * MJCF `<sensor>`: the sensor types sim-core computes, read in file order and resolved to the model's objects
 * once they are numbered. Any other sensor type is refused with file, line and element (a sensor read and never
 * computed would hand the user zeros).
 */
import { SensorObj, SensorType, type SensorSpec } from '../model/sensors.js';
import { Attrs } from './attrs.js';
import { fail, type XmlElement } from './xml.js';

/** A sensor as the file names its objects; resolved by resolveSensors. */
export interface SensorRaw {
  el: XmlElement;
  type: SensorType;
  name: string; cutoff: number; noise: number;
  objtype: SensorObj; objname: string | null;
  reftype: SensorObj; refname: string | null;
}

/** The attribute naming each type's object, and that object's kind. */
const TARGET: Record<string, { type: SensorType; attr: string | null; obj: SensorObj }> = {
  jointpos: { type: SensorType.JointPos, attr: 'joint', obj: SensorObj.Joint },
  jointvel: { type: SensorType.JointVel, attr: 'joint', obj: SensorObj.Joint },
  actuatorfrc: { type: SensorType.ActuatorFrc, attr: 'actuator', obj: SensorObj.Actuator },
  framepos: { type: SensorType.FramePos, attr: null, obj: SensorObj.None },
  framequat: { type: SensorType.FrameQuat, attr: null, obj: SensorObj.None },
  framelinvel: { type: SensorType.FrameLinVel, attr: null, obj: SensorObj.None },
  frameangvel: { type: SensorType.FrameAngVel, attr: null, obj: SensorObj.None },
  accelerometer: { type: SensorType.Accelerometer, attr: 'site', obj: SensorObj.Site },
  gyro: { type: SensorType.Gyro, attr: 'site', obj: SensorObj.Site },
  velocimeter: { type: SensorType.Velocimeter, attr: 'site', obj: SensorObj.Site },
  force: { type: SensorType.Force, attr: 'site', obj: SensorObj.Site },
  torque: { type: SensorType.Torque, attr: 'site', obj: SensorObj.Site },
  subtreecom: { type: SensorType.SubtreeCom, attr: 'body', obj: SensorObj.Body },
  clock: { type: SensorType.Clock, attr: null, obj: SensorObj.None },
};

/** A frame sensor's objtype / reftype keyword (cameras are not modelled). */
const FRAME_OBJ: Record<string, SensorObj> = {
  body: SensorObj.Body, xbody: SensorObj.XBody, geom: SensorObj.Geom, site: SensorObj.Site,
};

const FRAME_TYPES = new Set([SensorType.FramePos, SensorType.FrameQuat, SensorType.FrameLinVel, SensorType.FrameAngVel]);

export function readSensorSection(s: XmlElement): SensorRaw[] {
  new Attrs(s).done();
  return s.children.map((c) => {
    const t = TARGET[c.name];
    if (!t) {
      fail(c, `unsupported sensor type (computed: ${Object.keys(TARGET).join(', ')})`);
    }
    const a = new Attrs(c);
    const raw: SensorRaw = {
      el: c, type: t.type, name: a.str('name') ?? '', cutoff: a.num('cutoff') ?? 0, noise: a.num('noise') ?? 0,
      objtype: t.obj, objname: t.attr ? a.requiredStr(t.attr) : null, reftype: SensorObj.None, refname: null,
    };
    if (raw.cutoff < 0 || raw.noise < 0) fail(c, 'negative cutoff or noise');
    if (FRAME_TYPES.has(t.type)) {
      const frameObj = (attr: string): SensorObj => {
        const v = a.requiredStr(attr);
        const o = FRAME_OBJ[v];
        if (o === undefined) fail(c, `unsupported ${attr} "${v}" (supported: ${Object.keys(FRAME_OBJ).join(', ')})`);
        return o;
      };
      raw.objtype = frameObj('objtype');
      raw.objname = a.requiredStr('objname');
      if (a.has('refname')) {
        raw.reftype = frameObj('reftype');
        raw.refname = a.requiredStr('refname');
      } else if (a.has('reftype')) {
        a.ignore('reftype');
      }
    }
    a.ignore('user');
    a.done();
    return raw;
  });
}

/** The model's objects by name, as the loader numbered them. */
export interface SensorTargets {
  joint: Map<string, number>; actuator: Map<string, number>; site: Map<string, number>;
  body: Map<string, number>; geom: Map<string, number>;
  /** Whether joint j is a hinge or a slide (MuJoCo's compiler allows jointpos/jointvel on no other). */
  scalarJoint: (j: number) => boolean;
}

export function resolveSensors(raw: readonly SensorRaw[], ids: SensorTargets): SensorSpec[] {
  const lookup = (el: XmlElement, type: SensorObj, name: string): number => {
    const [map, what] = type === SensorObj.Joint ? [ids.joint, 'joint'] : type === SensorObj.Actuator ? [ids.actuator, 'actuator']
      : type === SensorObj.Site ? [ids.site, 'site'] : type === SensorObj.Geom ? [ids.geom, 'geom'] : [ids.body, 'body'];
    const id = map.get(name);
    if (id === undefined) fail(el, `unknown ${what} "${name}"`);
    return id;
  };
  const names = new Set<string>();
  return raw.map((r) => {
    if (r.name) {
      if (names.has(r.name)) fail(r.el, `repeated sensor name "${r.name}"`);
      names.add(r.name);
    }
    const objid = r.objname === null ? -1 : lookup(r.el, r.objtype, r.objname);
    if (r.objtype === SensorObj.Joint && !ids.scalarJoint(objid)) fail(r.el, `joint "${r.objname}" must be a hinge or slide joint`);
    return {
      name: r.name, type: r.type, cutoff: r.cutoff, noise: r.noise,
      objtype: r.objtype, objid,
      reftype: r.reftype, refid: r.refname === null ? -1 : lookup(r.el, r.reftype, r.refname),
    };
  });
}
