/**
 * The inverse of buildModel: reads a compiled Model back into a ModelSpec (bodies with their joints, geoms
 * and sites; actuators, equalities, excludes, keyframes). Used to combine models, which is simplest done on
 * the tree and laid out again.
 */
import { NFLUID } from './fluid-coefs.js';
import { GeomType, type Model, WrapType } from './model.js';
import type { ActuatorSpec, BodySpec, EqualitySpec, KeySpec, MeshSpec, ModelSpec, TendonSpec } from './builder.js';
import type { Quat, Vec3 } from './frame-math.js';
import { geomHField, type HFieldSpec, hfieldSpec } from './hfields.js';
import { pairSpecs } from './pairs.js';
import { sensorSpecs } from './sensors.js';

/** A tendon's wraps as a spec: a fixed tendon's joints, or a spatial tendon's path. */
function tendonPath(m: Model, adr: number, num: number): Pick<TendonSpec, 'joints' | 'path'> {
  const wraps = Array.from({ length: num }, (_, k) => adr + k);
  if (m.wrapType[adr] === WrapType.Joint) return { joints: wraps.map((w) => ({ joint: m.wrapObjid[w]!, coef: m.wrapPrm[w]! })) };
  return {
    joints: [],
    path: wraps.map((w) => {
      const type = m.wrapType[w];
      if (type === WrapType.Site) return { site: m.wrapObjid[w]! };
      if (type === WrapType.Pulley) return { divisor: m.wrapPrm[w]! };
      return { geom: m.wrapObjid[w]!, sidesite: m.wrapPrm[w]! };
    }),
  };
}

const vec3 = (a: Float64Array, i: number): Vec3 => [a[3 * i]!, a[3 * i + 1]!, a[3 * i + 2]!];
const quat4 = (a: Float64Array, i: number): Quat => [a[4 * i]!, a[4 * i + 1]!, a[4 * i + 2]!, a[4 * i + 3]!];
const slice = (a: ArrayLike<number>, start: number, n: number): number[] => Array.from({ length: n }, (_, k) => a[start + k]!);

/** A mesh geom's mesh, one MeshSpec per mesh so that geoms sharing it still share it. */
const meshSpecs = new WeakMap<Model, MeshSpec[]>();
function meshOf(m: Model, g: number): { mesh?: MeshSpec } {
  const id = m.geomDataid?.[g] ?? -1;
  if (id < 0 || m.geomType[g] !== GeomType.Mesh) return {};
  let specs = meshSpecs.get(m);
  if (!specs) {
    specs = Array.from({ length: m.nmesh ?? 0 }, (_, k) => {
      const adr = m.meshVertadr![k]!, gadr = m.meshGraphadr![k]!;
      const graph = gadr < 0 ? null : m.meshGraph!.subarray(gadr, gadr + 2 + 3 * m.meshGraph![gadr]! + 6 * m.meshGraph![gadr + 1]!);
      return { name: m.meshName?.[k] ?? '', vert: m.meshVert!.subarray(3 * adr, 3 * (adr + m.meshVertnum![k]!)), graph };
    });
    meshSpecs.set(m, specs);
  }
  return { mesh: specs[id]! };
}

/** An hfield geom's height field, one HFieldSpec per height field so that geoms sharing it still share it. */
const hfieldSpecs = new WeakMap<Model, HFieldSpec[]>();
function hfieldOf(m: Model, g: number): { hfield?: HFieldSpec } {
  const id = geomHField(m, g);
  if (id < 0) return {};
  let specs = hfieldSpecs.get(m);
  if (!specs) {
    specs = Array.from({ length: m.nhfield ?? 0 }, (_, k) => hfieldSpec(m, k));
    hfieldSpecs.set(m, specs);
  }
  return { hfield: specs[id]! };
}

export function specFromModel(m: Model): ModelSpec {
  const bodies: BodySpec[] = [];
  for (let b = 0; b < m.nbody; b++) {
    const body: BodySpec = {
      name: m.bodyName[b] ?? '', parent: b === 0 ? -1 : m.bodyParentid[b]!,
      pos: vec3(m.bodyPos, b), quat: quat4(m.bodyQuat, b), ipos: vec3(m.bodyIpos, b), iquat: quat4(m.bodyIquat, b),
      mass: m.bodyMass[b]!, inertia: vec3(m.bodyInertia, b), joints: [], geoms: [], sites: [],
    };
    for (let j = m.bodyJntadr[b]!; j >= 0 && j < m.bodyJntadr[b]! + m.bodyJntnum[b]!; j++) {
      const d = m.jntDofadr[j]!;
      body.joints.push({
        name: m.jntName[j] ?? '', type: m.jntType[j]!, pos: vec3(m.jntPos, j), axis: vec3(m.jntAxis, j),
        limited: m.jntLimited[j] === 1, range: [m.jntRange[2 * j]!, m.jntRange[2 * j + 1]!],
        actfrclimited: m.jntActfrclimited?.[j] === 1,
        actfrcrange: [m.jntActfrcrange?.[2 * j] ?? 0, m.jntActfrcrange?.[2 * j + 1] ?? 0],
        ref: m.qpos0[m.jntQposadr[j]!]!, springref: m.qposSpring[m.jntQposadr[j]!]!,
        stiffness: m.jntStiffness[j]!, margin: m.jntMargin[j]!,
        solrefLimit: slice(m.jntSolref, 2 * j, 2), solimpLimit: slice(m.jntSolimp, 5 * j, 5),
        solrefFriction: slice(m.dofSolref, 2 * d, 2), solimpFriction: slice(m.dofSolimp, 5 * d, 5),
        armature: m.dofArmature[d]!, damping: m.dofDamping[d]!, frictionloss: m.dofFrictionloss[d]!,
      });
    }
    for (let g = m.bodyGeomadr[b]!; g >= 0 && g < m.bodyGeomadr[b]! + m.bodyGeomnum[b]!; g++) {
      body.geoms.push({
        name: m.geomName[g] ?? '', type: m.geomType[g]!, size: vec3(m.geomSize, g), rbound: m.geomRbound[g]!,
        pos: vec3(m.geomPos, g), quat: quat4(m.geomQuat, g),
        contype: m.geomContype[g]!, conaffinity: m.geomConaffinity[g]!, condim: m.geomCondim[g]!, priority: m.geomPriority[g]!,
        friction: vec3(m.geomFriction, g), solmix: m.geomSolmix[g]!,
        solref: slice(m.geomSolref, 2 * g, 2), solimp: slice(m.geomSolimp, 5 * g, 5),
        margin: m.geomMargin[g]!, gap: m.geomGap[g]!,
        ...meshOf(m, g),
        ...hfieldOf(m, g),
        ...(m.geomFluid && m.geomFluid[NFLUID * g]! > 0 ? { fluid: slice(m.geomFluid, NFLUID * g, NFLUID) } : {}),
      });
    }
    bodies.push(body);
  }
  for (let s = 0; s < m.nsite; s++) {
    bodies[m.siteBodyid[s]!]!.sites.push({ name: m.siteName[s] ?? '', pos: vec3(m.sitePos, s), quat: quat4(m.siteQuat, s) });
  }
  const actuators: ActuatorSpec[] = [];
  for (let u = 0; u < m.nu; u++) {
    actuators.push({
      name: m.actuatorName[u] ?? '', trntype: m.actuatorTrntype[u]!, joint: m.actuatorTrnid[2 * u]!,
      refsite: m.actuatorTrnid[2 * u + 1]!,
      dyntype: m.actuatorDyntype[u]!, gaintype: m.actuatorGaintype[u]!, biastype: m.actuatorBiastype[u]!,
      ctrllimited: m.actuatorCtrllimited[u] === 1, forcelimited: m.actuatorForcelimited[u] === 1,
      ctrlrange: [m.actuatorCtrlrange[2 * u]!, m.actuatorCtrlrange[2 * u + 1]!],
      forcerange: [m.actuatorForcerange[2 * u]!, m.actuatorForcerange[2 * u + 1]!],
      gear: slice(m.actuatorGear, 6 * u, 6), gainprm: slice(m.actuatorGainprm, 10 * u, 10),
      biasprm: slice(m.actuatorBiasprm, 10 * u, 10),
    });
  }
  const equalities: EqualitySpec[] = [];
  for (let k = 0; k < m.neq; k++) {
    equalities.push({
      name: '', type: m.eqType[k]!, obj1: m.eqObj1id[k]!, obj2: m.eqObj2id[k]!, active: m.eqActive0[k] === 1,
      solref: slice(m.eqSolref, 2 * k, 2), solimp: slice(m.eqSolimp, 5 * k, 5), data: slice(m.eqData, 11 * k, 11),
    });
  }
  const tendons: TendonSpec[] = [];
  for (let t = 0; t < m.ntendon; t++) {
    const adr = m.tendonAdr[t]!;
    tendons.push({
      name: m.tendonName[t] ?? '',
      ...tendonPath(m, adr, m.tendonNum[t]!),
      limited: m.tendonLimited[t] === 1, range: [m.tendonRange[2 * t]!, m.tendonRange[2 * t + 1]!], margin: m.tendonMargin[t]!,
      stiffness: m.tendonStiffness[t]!, damping: m.tendonDamping[t]!, frictionloss: m.tendonFrictionloss[t]!,
      springlength: [m.tendonLengthspring[2 * t]!, m.tendonLengthspring[2 * t + 1]!],
      solrefLimit: slice(m.tendonSolrefLim, 2 * t, 2), solimpLimit: slice(m.tendonSolimpLim, 5 * t, 5),
      solrefFriction: slice(m.tendonSolrefFri, 2 * t, 2), solimpFriction: slice(m.tendonSolimpFri, 5 * t, 5),
    });
  }
  const excludes: [number, number][] = Array.from(m.excludeSignature, (sig) => [sig >> 16, sig & 0xffff]);
  const keys: KeySpec[] = [];
  for (let k = 0; k < m.nkey; k++) {
    keys.push({
      name: m.keyName[k] ?? '', time: m.keyTime[k]!, qpos: slice(m.keyQpos, k * m.nq, m.nq),
      qvel: slice(m.keyQvel, k * m.nv, m.nv), ctrl: slice(m.keyCtrl, k * m.nu, m.nu),
    });
  }
  return { bodies, actuators, equalities, tendons, excludes, pairs: pairSpecs(m), sensors: sensorSpecs(m), keys, opt: { ...m.opt, gravity: [...m.opt.gravity] } };
}
