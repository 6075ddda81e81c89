/**
 * WGSL mesh geoms in the narrow phase, the GPU twin of collision/mesh.ts: the packed model holds every mesh's
 * vertices (mesh_vert, float32 as MuJoCo stores them) and convex hull graph (mesh_graph: numvert, numface,
 * vert_edgeadr, vert_globalid, edge_localid, face_globalid; mesh_graphadr -1 when the mesh has none).
 *
 * plane_mesh is MuJoCo 3.3's mjc_PlaneConvex as the CPU makes it: the lowest hull vertex by hill-climbing the
 * graph from hull vertex 0 (every vertex without a graph), then up to two of its hull neighbours within the
 * margin, each at least 0.3 geom_rbound from the first contact. mesh_support is the support point for the
 * general convex routine: the CPU's meshSupport (collision/mesh.ts) up to exact ties (see its comment).
 */

/** Hull access and both support searches; needs WGSL_MATH. */
export const MESH_HULL_WGSL = /* wgsl */ `
const MESH_HILLCLIMB_MIN: i32 = 10;
// FLT_MAX: MuJoCo's starting maximum in its mesh support searches
const MESH_FLT_MAX: f32 = 0x1.fffffep+127f;

// A mesh geom's vertices (first index and count in mesh_vert) and hull graph (its start in mesh_graph, or -1).
struct MeshRef { vadr: i32, nvert: i32, gadr: i32 }

fn mesh_ref(g: i32) -> MeshRef {
  let id = mn(M_GEOM_DATAID, g);
  return MeshRef(mn(M_MESH_VERTADR, id), mn(M_MESH_VERTNUM, id), mn(M_MESH_GRAPHADR, id));
}

fn mesh_vert(ms: MeshRef, i: i32) -> vec3<f32> { return m3(M_MESH_VERT, ms.vadr + i); }
fn mesh_numvert(ms: MeshRef) -> i32 { return mn(M_MESH_GRAPH, ms.gadr); }
// first edge (index into edge_localid) of hull vertex loc; its neighbours run to a -1
fn mesh_edgeadr(ms: MeshRef, loc: i32) -> i32 { return mn(M_MESH_GRAPH, ms.gadr + 2 + loc); }
// the mesh vertex of hull vertex loc
fn mesh_globalid(ms: MeshRef, loc: i32) -> i32 { return mn(M_MESH_GRAPH, ms.gadr + 2 + mesh_numvert(ms) + loc); }
// the hull vertex at edge i, -1 at the end of a neighbour list
fn mesh_edge(ms: MeshRef, i: i32) -> i32 { return mn(M_MESH_GRAPH, ms.gadr + 2 + 2 * mesh_numvert(ms) + i); }

// The vertex farthest along the mesh-frame direction l, as meshSupportVertex from hull vertex 0: returns the
// vertex and its hull-local id (both the vertex without a graph).
fn mesh_plane_support(ms: MeshRef, l: vec3<f32>) -> vec2<i32> {
  if (ms.gadr < 0) {
    var best = -1;
    var mx = -1e10;
    for (var i = 0; i < ms.nvert; i++) {
      let d = dot(l, mesh_vert(ms, i));
      if (d > mx) { mx = d; best = i; }
    }
    return vec2<i32>(best, best);
  }
  var ibest = 0;
  var mx = dot(l, mesh_vert(ms, mesh_globalid(ms, 0)));
  var change = true;
  while (change) {
    change = false;
    // the neighbours of the vertex this pass started from, as the CPU's loop
    for (var i = mesh_edgeadr(ms, ibest); mesh_edge(ms, i) >= 0; i++) {
      let loc = mesh_edge(ms, i);
      let d = dot(l, mesh_vert(ms, mesh_globalid(ms, loc)));
      if (d > mx) { mx = d; ibest = loc; change = true; }
    }
  }
  return vec2<i32>(mesh_globalid(ms, ibest), ibest);
}

// The pair's previous support vertex per side (MuJoCo's vertindex): ties keep it, as on the CPU.
var<private> mesh_vertindex: array<i32, 2>;

// A fresh search for a new pair, as MuJoCo's ccd objects start (freshMeshSearch on the CPU).
fn mesh_support_reset() {
  mesh_vertindex = array<i32, 2>(-1, -1);
}

struct MeshSupport { p: vec3<f32>, vertex: i32 }

// The support point of mesh geom g at (pos, mat) along the world direction dir, and its vertex (EPA stops when a
// support vertex repeats); side (0 or 1) is the geom's slot in the pair's warm start. One flat loop over the
// vertices (the hull's, from 10 vertices on): lavapipe inlines this at every support call of GJK/EPA, and
// MuJoCo's hill-climbing there made the collision kernel's compile minutes longer. Under 10 vertices (or without
// a graph) this is the CPU's search exactly; above, the maximum over the hull is the vertex hill-climbing
// reaches, and only exact ties may resolve to another vertex with the same support value.
fn mesh_support(side: i32, g: i32, pos: vec3<f32>, mat: mat3x3<f32>, dir: vec3<f32>) -> MeshSupport {
  let ms = mesh_ref(g);
  let l = transpose(mat) * dir;
  let hull = ms.gadr >= 0 && ms.nvert >= MESH_HILLCLIMB_MIN;
  var n = ms.nvert;
  if (hull) { n = mesh_numvert(ms); }
  var imax = max(mesh_vertindex[side], 0);
  var mx = -MESH_FLT_MAX;
  if (mesh_vertindex[side] >= 0) { mx = dot(l, mesh_vert(ms, imax)); }
  for (var i = 0; i < n; i++) {
    var vi = i;
    if (hull) { vi = mesh_globalid(ms, i); }
    let d = dot(l, mesh_vert(ms, vi));
    if (d > mx) { mx = d; imax = vi; }
  }
  mesh_vertindex[side] = imax;
  return MeshSupport(mat * mesh_vert(ms, imax) + pos, imax);
}
`;

/** In place of PLANE_MESH_WGSL for a model with no mesh that can touch a plane. */
export const PLANE_MESH_STUB_WGSL = /* wgsl */ `
fn plane_mesh(pp: vec3<f32>, n: vec3<f32>, g: i32, p2: vec3<f32>, m2: mat3x3<f32>, margin: f32) -> i32 { return 0; }
`;

/** Plane-mesh contacts; needs MESH_HULL_WGSL and the collision helpers' set_contact. */
export const PLANE_MESH_WGSL = /* wgsl */ `
// mjc_PlaneConvex's limits: at most 3 contacts, extra ones at least 0.3 geom_rbound from the first
const MESH_PLANE_MAX: i32 = 3;
const MESH_PLANE_TOL: f32 = 0.3;
// Plane (point pp, normal n) against mesh geom g at (p2, m2): mjc_PlaneConvex with its extra vertices.
fn plane_mesh(pp: vec3<f32>, n: vec3<f32>, g: i32, p2: vec3<f32>, m2: mat3x3<f32>, margin: f32) -> i32 {
  let ms = mesh_ref(g);
  // the support direction -n in the mesh frame
  let l = -(transpose(m2) * n);
  let best = mesh_plane_support(ms, l);
  let s = m2 * mesh_vert(ms, best.x) + p2;
  let dist = dot(n, s - pp);
  if (dist > margin) { return 0; }
  let f = s - 0.5 * dist * n;
  set_contact(0, dist, f, n);
  // vertices within the margin of the plane: -dot(n, vertex offset) above this
  let threshold = dot(n, p2 - pp) - margin;
  let minsep = MESH_PLANE_TOL * mr(M_GEOM_RBOUND, g);
  var count = 1;
  if (ms.gadr < 0) {
    for (var i = 0; i < ms.nvert && count < MESH_PLANE_MAX; i++) {
      if (i != best.y && dot(l, mesh_vert(ms, i)) > threshold) { count = plane_mesh_extra(count, pp, n, m2 * mesh_vert(ms, i) + p2, f, minsep); }
    }
    return count;
  }
  for (var i = mesh_edgeadr(ms, best.y); mesh_edge(ms, i) >= 0 && count < MESH_PLANE_MAX; i++) {
    let v = mesh_vert(ms, mesh_globalid(ms, mesh_edge(ms, i)));
    if (dot(l, v) > threshold) { count = plane_mesh_extra(count, pp, n, m2 * v + p2, f, minsep); }
  }
  return count;
}

// Vertex p (world) as contact k unless it lies within minsep of the first contact f; returns the new count.
fn plane_mesh_extra(k: i32, pp: vec3<f32>, n: vec3<f32>, p: vec3<f32>, f: vec3<f32>, minsep: f32) -> i32 {
  if (length(p - f) < minsep) { return k; }
  let d = dot(n, p - pp);
  set_contact(k, d, p - 0.5 * d * n, n);
  return k + 1;
}
`;
