/**
 * Mass properties and bounding radius of primitive geoms, with MuJoCo's formulas: solid bodies of uniform
 * density, moments about the geom's centre in the geom frame (z is the axis of capsules and cylinders, whose
 * size is radius and half-length), and the radius of the sphere around the geom centre that bounds it.
 */
import { GeomType } from './model.js';
import type { Vec3 } from './frame-math.js';

export function geomVolume(type: GeomType, s: Vec3): number {
  switch (type) {
    case GeomType.Sphere: return (4 * Math.PI * s[0] * s[0] * s[0]) / 3;
    case GeomType.Capsule: return Math.PI * (s[0] * s[0] * 2 * s[1] + (4 * s[0] * s[0] * s[0]) / 3);
    case GeomType.Cylinder: return Math.PI * s[0] * s[0] * 2 * s[1];
    case GeomType.Box: return s[0] * s[1] * s[2] * 8;
    case GeomType.Ellipsoid: return (4 * Math.PI * s[0] * s[1] * s[2]) / 3;
    default: return 0;
  }
}

/** Principal moments of a solid primitive of the given mass about its centre, in the geom frame. */
export function geomInertia(type: GeomType, s: Vec3, mass: number): Vec3 {
  switch (type) {
    case GeomType.Sphere: {
      const i = (2 * mass * s[0] * s[0]) / 5;
      return [i, i, i];
    }
    case GeomType.Capsule: {
      const r = s[0], h = 2 * s[1];
      const sphereMass = (mass * 4 * r) / (4 * r + 3 * h);
      const cylMass = mass - sphereMass;
      let ixy = (cylMass * (3 * r * r + h * h)) / 12;
      let iz = (cylMass * r * r) / 2;
      const si = (2 * sphereMass * r * r) / 5;
      ixy += si + (sphereMass * h * (3 * r + 2 * h)) / 8;
      iz += si;
      return [ixy, ixy, iz];
    }
    case GeomType.Cylinder: {
      const r = s[0], h = 2 * s[1];
      const ixy = (mass * (3 * r * r + h * h)) / 12;
      return [ixy, ixy, (mass * r * r) / 2];
    }
    case GeomType.Box: {
      const a = s[0] * s[0], b = s[1] * s[1], c = s[2] * s[2];
      return [(mass * (b + c)) / 3, (mass * (a + c)) / 3, (mass * (a + b)) / 3];
    }
    case GeomType.Ellipsoid: {
      const a = s[0] * s[0], b = s[1] * s[1], c = s[2] * s[2];
      return [(mass * (b + c)) / 5, (mass * (a + c)) / 5, (mass * (a + b)) / 5];
    }
    default:
      return [0, 0, 0];
  }
}

export function geomRbound(type: GeomType, s: Vec3): number {
  switch (type) {
    case GeomType.Sphere: return s[0];
    case GeomType.Capsule: return s[0] + s[1];
    case GeomType.Cylinder: return Math.sqrt(s[0] * s[0] + s[1] * s[1]);
    case GeomType.Box: return Math.sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    case GeomType.Ellipsoid: return Math.max(Math.max(s[0], s[1]), s[2]);
    default: return 0;
  }
}
